/* SPDX-License-Identifier: Apache-2.0 */
/* libchakra: building nodes and writing Chakra ET files.
 *
 * A chakra_builder collects one node (or the metadata's attributes); the
 * writer encodes it in canonical field order, so files read by the
 * reference tools and re-written through the library keep their bytes.
 *
 *   chakra_writer *w; chakra_builder *b = chakra_builder_new();
 *   chakra_writer_open(&w, "out.0.et", NULL);
 *   chakra_writer_write_metadata(w, "0.0.4", NULL);
 *   chakra_builder_reset(b);
 *   chakra_builder_set_id(b, 1); chakra_builder_set_name(b, "gemm", -1);
 *   chakra_builder_set_type(b, CHAKRA_COMP_NODE);
 *   chakra_builder_attr_int(b, "num_ops", CHAKRA_ATTR_INT64, 4096);
 *   chakra_writer_write_node(w, b);
 *   if (chakra_writer_finish(w) < 0) puts(chakra_writer_errmsg(w));
 *   chakra_writer_close(w);
 */
#ifndef CHAKRA_WRITER_H
#define CHAKRA_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include "chakra/error.h"
#include "chakra/export.h"
#include "chakra/node.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct chakra_builder chakra_builder;
typedef struct chakra_writer chakra_writer;

/* ---- Builder: reusable, no allocation once warmed up ---- */
CHAKRA_API chakra_builder *chakra_builder_new(void);
CHAKRA_API void chakra_builder_free(chakra_builder *b);
/* Clear every field, keep the memory. */
CHAKRA_API void chakra_builder_reset(chakra_builder *b);
/* Load every field and attribute of an existing node. */
CHAKRA_API int chakra_builder_copy_node(chakra_builder *b, const chakra_node *n);

/* String lengths: pass (size_t)-1 for NUL-terminated strings. */
CHAKRA_API void chakra_builder_set_id(chakra_builder *b, uint64_t id);
CHAKRA_API int chakra_builder_set_name(chakra_builder *b, const char *s, size_t len);
CHAKRA_API void chakra_builder_set_type(chakra_builder *b, int type);
CHAKRA_API void chakra_builder_set_start_time_micros(chakra_builder *b, uint64_t v);
CHAKRA_API void chakra_builder_set_duration_micros(chakra_builder *b, uint64_t v);
CHAKRA_API int chakra_builder_add_data_dep(chakra_builder *b, uint64_t id);
CHAKRA_API int chakra_builder_add_ctrl_dep(chakra_builder *b, uint64_t id);
/* Set one string of an IOInfo; marks that IOInfo present. */
CHAKRA_API int chakra_builder_set_io(chakra_builder *b, chakra_io which,
                                     chakra_io_field field, const char *s, size_t len);

/* Attributes, appended in call order. kind must fit the call:
 * _int: any integer kind or bool (uint64 values above INT64_MAX: _uint);
 * _double: double or float; _string: string or bytes; the _list forms take
 * the matching list kinds. Wrong kind: CHAKRA_EINVAL. */
CHAKRA_API int chakra_builder_attr_int(chakra_builder *b, const char *name,
                                       chakra_attr_kind kind, int64_t v);
CHAKRA_API int chakra_builder_attr_uint(chakra_builder *b, const char *name,
                                        chakra_attr_kind kind, uint64_t v);
CHAKRA_API int chakra_builder_attr_double(chakra_builder *b, const char *name,
                                          chakra_attr_kind kind, double v);
CHAKRA_API int chakra_builder_attr_string(chakra_builder *b, const char *name,
                                          chakra_attr_kind kind, const char *s, size_t len);
/* Lists: integers are passed as uint64_t bit patterns (an int64 -1 is
 * (uint64_t)-1). */
CHAKRA_API int chakra_builder_attr_list_uint(chakra_builder *b, const char *name,
                                             chakra_attr_kind kind,
                                             const uint64_t *v, size_t n);
CHAKRA_API int chakra_builder_attr_list_double(chakra_builder *b, const char *name,
                                               chakra_attr_kind kind,
                                               const double *v, size_t n);
/* lens may be NULL for NUL-terminated strings. */
CHAKRA_API int chakra_builder_attr_list_string(chakra_builder *b, const char *name,
                                               chakra_attr_kind kind,
                                               const char *const *v, const size_t *lens,
                                               size_t n);
/* An attribute with no value (CHAKRA_ATTR_NONE). */
CHAKRA_API int chakra_builder_attr_empty(chakra_builder *b, const char *name);
/* Set doc_string of the attribute added last. */
CHAKRA_API int chakra_builder_attr_set_doc(chakra_builder *b, const char *s, size_t len);
/* Copy one attribute as is. */
CHAKRA_API int chakra_builder_attr_copy(chakra_builder *b, const chakra_attr *a);

/* ---- Writer ---- */
/* User output: write all len bytes; return 0, or negative on error: the
 * writer's call fails with CHAKRA_ENOMEM when the callback returns it (a
 * memory sink that could not grow), else with CHAKRA_EIO. */
typedef int (*chakra_write_cb)(void *data, const void *buf, size_t len);

typedef struct chakra_writer_options {
	unsigned version;     /* CHAKRA_WRITER_OPTIONS_VERSION */
	int gzip;             /* non-zero: gzip the output */
	int gzip_level;       /* 1..9, 0 = zlib default */
	/* Non-zero: replace an existing file; by default opening a path that
	 * exists fails with CHAKRA_EIO, so nothing is overwritten unasked. */
	int overwrite;
} chakra_writer_options;

#define CHAKRA_WRITER_OPTIONS_VERSION 1
#define CHAKRA_WRITER_OPTIONS_INIT { CHAKRA_WRITER_OPTIONS_VERSION, 0, 0, 0 }

/* Defaults of that version, writing only its fields (as
 * chakra_reader_options_init); options are copied at open. 0, or
 * CHAKRA_EINVAL for an unknown version. */
CHAKRA_API int chakra_writer_options_init(chakra_writer_options *opts, unsigned version);

/* Open a path ("-" is stdout). The file is written to PATH.tmp-XXXXXX and
 * renamed by chakra_writer_finish, so a failed run never leaves a partial
 * trace under the final name. A path that exists and is not a regular file
 * (a FIFO, /dev/null) is written directly, never replaced. On error *out is
 * set unless memory ran out: read chakra_writer_errmsg, then close it. */
CHAKRA_API int chakra_writer_open(chakra_writer **out, const char *path,
                                  const chakra_writer_options *opts);
CHAKRA_API int chakra_writer_open_cb(chakra_writer **out, chakra_write_cb cb, void *data,
                                     const chakra_writer_options *opts);
/* First call after open. attrs may be NULL; its node fields are ignored. */
CHAKRA_API int chakra_writer_write_metadata(chakra_writer *w, const char *version,
                                            const chakra_builder *attrs);
/* Copy a reader's metadata as is. */
CHAKRA_API int chakra_writer_copy_metadata(chakra_writer *w, const chakra_metadata *m);
/* A node whose type is negative is refused (CHAKRA_EINVAL, and the writer
 * fails): protobuf encodes it in a form no reader of the format accepts. */
CHAKRA_API int chakra_writer_write_node(chakra_writer *w, const chakra_builder *b);
/* Write an already-encoded Node message (as from chakra_reader_next_raw). */
CHAKRA_API int chakra_writer_write_raw(chakra_writer *w, const void *msg, size_t len);
/* Flush, end the gzip stream and rename the file into place. Check its
 * result: only a finished writer has produced a complete file. */
CHAKRA_API int chakra_writer_finish(chakra_writer *w);
/* Free the writer. Without a successful finish the output is dropped
 * (the temporary file is removed), so errors never leave partial traces. */
CHAKRA_API void chakra_writer_close(chakra_writer *w);
CHAKRA_API const char *chakra_writer_errmsg(const chakra_writer *w);
/* The last error as values (see chakra_error_info): the node index is the
 * node being written when it failed. Returns the code. */
CHAKRA_API int chakra_writer_error(const chakra_writer *w, chakra_error_info *info, size_t size);
CHAKRA_API uint64_t chakra_writer_node_count(const chakra_writer *w);

#ifdef __cplusplus
}
#endif
#endif
