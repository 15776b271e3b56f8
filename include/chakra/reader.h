/* SPDX-License-Identifier: Apache-2.0 */
/* libchakra: streaming reader for Chakra ET files.
 *
 *   chakra_reader *r;
 *   if (chakra_reader_open(&r, "trace.0.et.gz", NULL) < 0) ...;
 *   const chakra_node *n;
 *   while ((rc = chakra_reader_next(r, &n)) > 0) use(n);
 *   if (rc < 0) fprintf(stderr, "%s\n", chakra_reader_errmsg(r));
 *   chakra_reader_close(r);
 *
 * Plain and gzip input are detected from the first bytes. Memory use is
 * bounded by the budgets in the options (the largest message, the largest
 * decoded node), not by the file: nodes are decoded one at a time into
 * buffers the reader reuses. */
#ifndef CHAKRA_READER_H
#define CHAKRA_READER_H

#include <stddef.h>
#include <stdint.h>
#include "chakra/error.h"
#include "chakra/export.h"
#include "chakra/node.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct chakra_reader chakra_reader;

/* User input: fill buf with up to cap bytes; return the count, 0 at end of
 * input, or a negative value on error. */
typedef long (*chakra_read_cb)(void *data, void *buf, size_t cap);

/* Reader options: CHAKRA_READER_OPTIONS_INIT or chakra_reader_options_init.
 * Options are copied when a handle is opened (strings too): the struct can
 * be reused or freed right after. Fields are only ever appended; the
 * library reads the fields of the caller's `version` and gives later ones
 * their defaults, so a program built against an older header keeps
 * working. */
typedef struct chakra_reader_options {
	unsigned version;          /* CHAKRA_READER_OPTIONS_VERSION */
	/* Largest message accepted, in bytes; 0 = default (256 MiB). A length
	 * prefix above it is CHAKRA_ETOOBIG, never an allocation. */
	uint64_t max_message_size;
	/* Name used for the input in error messages (default: the path, or
	 * "<memory>" / "<callback>"). */
	const char *display_name;
	/* Non-zero: decode every node a second time with nanopb (the reference
	 * decoder) and fail with CHAKRA_ECORRUPT on any difference. Slow. */
	int verify_with_nanopb;
	/* ---- version 2 ---- */
	/* Largest decoded form of one node (or of the metadata), in bytes: its
	 * strings, attribute records (~100 bytes each, even when empty on the
	 * wire), lists and dependency arrays. 0 = default (256 MiB). A node
	 * that needs more is CHAKRA_ETOOBIG naming the node and the budget,
	 * never an allocation beyond it. docs/hardening.md: budgets. */
	uint64_t max_node_memory;
} chakra_reader_options;

#define CHAKRA_READER_OPTIONS_VERSION 2
#define CHAKRA_READER_OPTIONS_INIT { CHAKRA_READER_OPTIONS_VERSION, 0, NULL, 0, 0 }

/* Set *opts to the defaults of that version (as CHAKRA_READER_OPTIONS_INIT
 * does for the current one), writing only that version's fields. 0, or
 * CHAKRA_EINVAL for a version this library does not know. */
CHAKRA_API int chakra_reader_options_init(chakra_reader_options *opts, unsigned version);

/* Open a path ("-" is stdin). The metadata is read at once: a file that is
 * empty or does not start with GlobalMetadata fails here. On failure *out
 * is still set (unless memory ran out: then it is NULL, and errmsg(NULL)
 * says so) so chakra_reader_errmsg can say why (a bad options version
 * too); close it in every case. */
CHAKRA_API int chakra_reader_open(chakra_reader **out, const char *path,
                                  const chakra_reader_options *opts);
/* Read from memory; the buffer must outlive the reader. */
CHAKRA_API int chakra_reader_open_buffer(chakra_reader **out, const void *buf, size_t len,
                                         const chakra_reader_options *opts);
/* Read through a callback. */
CHAKRA_API int chakra_reader_open_cb(chakra_reader **out, chakra_read_cb cb, void *data,
                                     const chakra_reader_options *opts);
CHAKRA_API void chakra_reader_close(chakra_reader *r);

/* The file's GlobalMetadata; valid until close. */
CHAKRA_API const chakra_metadata *chakra_reader_metadata(const chakra_reader *r);

/* Next node: 1 and *node set, 0 at a clean end of file, or a negative
 * error. The node is valid until the next call or close. */
CHAKRA_API int chakra_reader_next(chakra_reader *r, const chakra_node **node);

/* Next message without decoding it: its bytes (valid until the next call),
 * for copying or framing-only passes. Same return convention. */
CHAKRA_API int chakra_reader_next_raw(chakra_reader *r, const void **msg, size_t *len);

/* Byte offset (uncompressed) where the next message starts, and the number
 * of nodes returned so far. */
CHAKRA_API uint64_t chakra_reader_offset(const chakra_reader *r);
CHAKRA_API uint64_t chakra_reader_node_count(const chakra_reader *r);

/* Last error as "FILE: byte N: what (node index K...)" ("" if none); N
 * is the offset of the offending bytes in the uncompressed stream. */
CHAKRA_API const char *chakra_reader_errmsg(const chakra_reader *r);
/* The same as values: fills the first `size` bytes of *info (pass
 * sizeof *info) and returns its code (0 when there was no error; r may be
 * NULL after an open that ran out of memory: CHAKRA_ENOMEM). */
CHAKRA_API int chakra_reader_error(const chakra_reader *r, chakra_error_info *info, size_t size);

#ifdef __cplusplus
}
#endif
#endif
