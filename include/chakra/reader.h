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
 * bounded by the largest message, not by the file: nodes are decoded one at
 * a time into buffers the reader reuses. */
#ifndef CHAKRA_READER_H
#define CHAKRA_READER_H

#include <stddef.h>
#include <stdint.h>
#include "chakra/export.h"
#include "chakra/node.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct chakra_reader chakra_reader;

/* User input: fill buf with up to cap bytes; return the count, 0 at end of
 * input, or a negative value on error. */
typedef long (*chakra_read_cb)(void *data, void *buf, size_t cap);

/* Reader options; initialise with CHAKRA_READER_OPTIONS_INIT. */
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
} chakra_reader_options;

#define CHAKRA_READER_OPTIONS_VERSION 1
#define CHAKRA_READER_OPTIONS_INIT { CHAKRA_READER_OPTIONS_VERSION, 0, NULL, 0 }

/* Open a path ("-" is stdin). The metadata is read at once: a file that is
 * empty or does not start with GlobalMetadata fails here. On failure *out
 * is still set (unless memory ran out) so chakra_reader_errmsg can say
 * why; close it in every case. */
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

#ifdef __cplusplus
}
#endif
#endif
