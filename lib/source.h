/* SPDX-License-Identifier: Apache-2.0 */
/* Input sources: a file ("-" = stdin), memory or a read callback, gzip
 * detected by its magic and inflated (concatenated members; anything else
 * after a member is an error at the compressed byte where it starts).
 * Errors name the input, the byte and what is wrong.
 *
 * Compiled into the core (the reader's framing) and, with
 * CHAKRA__SOURCE_STANDALONE, into a static library for the modules that
 * read other formats (the converters' JSON), which cannot reach the core's
 * hidden copy: the same file, allocating through the public hook, its
 * functions renamed so both can be linked into one program. */
#ifndef CHAKRA_SOURCE_H
#define CHAKRA_SOURCE_H

#include <stddef.h>
#include <stdint.h>
#include <zlib.h>
#include "chakra/reader.h"

#ifdef CHAKRA__SOURCE_STANDALONE
#define chakra__source_open_path chakra__srcs_open_path
#define chakra__source_open_mem chakra__srcs_open_mem
#define chakra__source_open_cb chakra__srcs_open_cb
#define chakra__source_read chakra__srcs_read
#define chakra__source_close chakra__srcs_close
#define chakra__source_is_plain_mem chakra__srcs_is_plain_mem
#endif

typedef enum { SRC_FD, SRC_MEM, SRC_CB } src_kind;

typedef struct source {
	src_kind kind;
	int fd, own_fd;
	const uint8_t *mem;
	size_t mem_len, mem_pos;
	chakra_read_cb cb;
	void *cbdata;
	/* gzip layer */
	int probed, gz, gz_done;
	int gz_bad;         /* what follows a member is not one: reported on the next read */
	uint64_t gz_bad_at; /* ... at this compressed byte */
	z_stream zs;
	uint8_t *zin;
	size_t zin_cap;
	uint8_t probe[2];
	size_t probe_len, probe_pos;
	uint64_t raw_read; /* bytes taken from the raw input */
	/* Where the last error happened (CHAKRA_ERRINFO_OFFSET /
	 * _COMPRESSED in err_flags; 0 when there is no position). */
	uint64_t err_off;
	unsigned err_flags;
} source;

/* err: room for 1024 bytes (CHAKRA_ERRMSG_MAX); messages start with the
 * path or name given. */
/* Open a path ("-" = stdin). Returns 0 or a negative chakra_error with a
 * message in err. */
int chakra__source_open_path(source *s, const char *path, char *err);
void chakra__source_open_mem(source *s, const void *buf, size_t len);
void chakra__source_open_cb(source *s, chakra_read_cb cb, void *data);
/* Read up to cap decompressed bytes: count, 0 at end, or negative error. */
long chakra__source_read(source *s, void *buf, size_t cap, const char *name, char *err);
void chakra__source_close(source *s);
/* True for a plain (not gzip) memory source, whose bytes the framer can
 * use in place. */
int chakra__source_is_plain_mem(source *s);

#endif
