/* SPDX-License-Identifier: Apache-2.0 */
/* libchakra (experimental): Chakra ETs as JSON and back, what `chakra
 * jsonize` and `chakra pack` do.
 *
 *   #define CHAKRA_EXPERIMENTAL
 *   #include <chakra/experimental/jsonet.h>
 *
 *   // ET -> JSON, one node at a time (memory does not grow with the trace)
 *   chakra_jsonet_writer *w;
 *   chakra_jsonet_writer_open(&w, my_write, my_data, NULL);
 *   chakra_jsonet_writer_begin(w, chakra_reader_metadata(r));
 *   while (chakra_reader_next(r, &n) > 0)
 *       chakra_jsonet_writer_node(w, n);
 *   chakra_jsonet_writer_finish(w);
 *   chakra_jsonet_writer_close(w);
 *
 *   // JSON -> ET (jsonize's form, protobuf's JSON mapping, workload_graph)
 *   chakra_jsonet_result res;
 *   if (chakra_jsonet_pack_buffer(text, len, my_write, my_data, NULL, &res) < 0)
 *       fprintf(stderr, "%s\n", res.errmsg);  // "NAME:LINE: byte B: what"
 *
 * The JSON format is described in docs/tools-core.md; packing what the
 * writer wrote gives back the identical bytes. Both directions stream:
 * the input is read in chunks through YAJL's callback parser and nothing
 * holds the whole text or trace. Output goes through a chakra_write_cb
 * (writer.h): the caller owns the file, and on a failure drops what the
 * callback received. Functions return 0 or a negative chakra_error.
 * Handles are used by one thread at a time. */
#ifndef CHAKRA_EXPERIMENTAL_JSONET_H
#define CHAKRA_EXPERIMENTAL_JSONET_H

#include "chakra/experimental.h"
#include "chakra/reader.h"
#include "chakra/writer.h"
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct chakra_jsonet_options {
	unsigned version;     /* CHAKRA_JSONET_OPTIONS_VERSION */
	/* ET -> JSON: indent (default: one node per line). */
	int pretty;
	/* ET -> JSON: protobuf's JSON mapping, as Chakra's chakra_jsonizer
	 * writes it: the GlobalMetadata object, then one object per node
	 * (camelCase keys, 64-bit integers as strings, enums by name, defaults
	 * left out). Strings must be UTF-8 and NaN payloads are not kept. */
	int protobuf;
	/* JSON -> ET: gzip the trace. */
	int gzip;
	/* JSON -> ET: the names of the input and the output in messages
	 * (NULL: "<json>" and "<output>"). */
	const char *in_name, *out_name;
} chakra_jsonet_options;

#define CHAKRA_JSONET_OPTIONS_VERSION 1
#define CHAKRA_JSONET_OPTIONS_INIT { CHAKRA_JSONET_OPTIONS_VERSION, 0, 0, 0, NULL, NULL }

/* CHAKRA_EINVAL for a version this library does not know. */
CHAKRA_EXPERIMENTAL_API int chakra_jsonet_options_init(chakra_jsonet_options *opts,
                                                       unsigned version);

/* ---- ET -> JSON ---- */
typedef struct chakra_jsonet_writer chakra_jsonet_writer;

/* opts may be NULL (defaults). *out is NULL only when memory ran out
 * (CHAKRA_ENOMEM); on CHAKRA_EINVAL (options) it is a handle whose
 * errmsg says why, to close. */
CHAKRA_EXPERIMENTAL_API int chakra_jsonet_writer_open(chakra_jsonet_writer **out,
                                                      chakra_write_cb cb, void *data,
                                                      const chakra_jsonet_options *opts);
/* The document's start and the metadata (m may be NULL: none). */
CHAKRA_EXPERIMENTAL_API int chakra_jsonet_writer_begin(chakra_jsonet_writer *w,
                                                       const chakra_metadata *m);
/* One node (followed by a newline unless pretty). CHAKRA_ETYPE: the
 * protobuf mapping cannot hold a value of this node or of the metadata (a
 * string that is not UTF-8; errmsg says which); CHAKRA_EIO: the callback
 * failed; CHAKRA_ENOMEM. After an error the writer stays failed. */
CHAKRA_EXPERIMENTAL_API int chakra_jsonet_writer_node(chakra_jsonet_writer *w,
                                                      const chakra_node *n);
/* Close the document. */
CHAKRA_EXPERIMENTAL_API int chakra_jsonet_writer_finish(chakra_jsonet_writer *w);
CHAKRA_EXPERIMENTAL_API const char *chakra_jsonet_writer_errmsg(const chakra_jsonet_writer *w);
/* Protobuf mapping: NaNs with a payload or sign written as "NaN". */
CHAKRA_EXPERIMENTAL_API uint64_t chakra_jsonet_writer_nan_payloads(const chakra_jsonet_writer *w);
CHAKRA_EXPERIMENTAL_API void chakra_jsonet_writer_close(chakra_jsonet_writer *w);

/* What a conversion did (filled as far as it got when it fails). */
typedef struct chakra_jsonet_result {
	uint64_t nodes;
	uint64_t nan_payloads; /* jsonize, protobuf mapping: see above */
	/* The first error: "NAME:LINE: byte B: [node ID: ]what" for JSON,
	 * the reader's message for an ET. Empty on success. */
	char errmsg[1024];
} chakra_jsonet_result;

/* The whole trace behind r (from its current position) as JSON through
 * cb. res may be NULL. */
CHAKRA_EXPERIMENTAL_API int chakra_jsonet_jsonize(chakra_reader *r, chakra_write_cb cb,
                                                  void *data, const chakra_jsonet_options *opts,
                                                  chakra_jsonet_result *res);

/* ---- JSON -> ET ---- */
/* The JSON read through rd (chakra_read_cb: bytes, 0 at the end, -1 with
 * errno on an error), the trace written through cb. CHAKRA_ECORRUPT: the
 * JSON is invalid or is not one of the forms; CHAKRA_EIO: reading or
 * writing failed; CHAKRA_ENOMEM. */
CHAKRA_EXPERIMENTAL_API int chakra_jsonet_pack(chakra_read_cb rd, void *rd_data,
                                               chakra_write_cb cb, void *data,
                                               const chakra_jsonet_options *opts,
                                               chakra_jsonet_result *res);
/* The same over text[0..len) in memory. */
CHAKRA_EXPERIMENTAL_API int chakra_jsonet_pack_buffer(const void *text, size_t len,
                                                      chakra_write_cb cb, void *data,
                                                      const chakra_jsonet_options *opts,
                                                      chakra_jsonet_result *res);

#ifdef __cplusplus
}
#endif

#endif
