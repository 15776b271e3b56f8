/* SPDX-License-Identifier: Apache-2.0 */
/* Streaming JSON -> Chakra ET conversion for `chakra pack`: reads the
 * format `chakra jsonize` writes, Chakra's "workload_graph" JSON and
 * protobuf's JSON mapping (Chakra's chakra_jsonizer, jsonize
 * --protobuf-json) with YAJL's callback parser, so memory does not grow
 * with the input. */
#ifndef CHAKRA_TOOLS_CORE_JSON_IN_H
#define CHAKRA_TOOLS_CORE_JSON_IN_H

#include <stdio.h>

#include "chakra/chakra.h"

/* Where the trace goes: the writer's callback (a tool_out, a memory
 * buffer...), the name used in messages, and whether to gzip. */
typedef struct json_pack_out {
	chakra_write_cb cb;
	void *data;
	const char *name;
	int gzip;
} json_pack_out;

/* Parse `in` (named `in_name` in messages) and write the trace through
 * out->cb. Prints one error naming the file, line and byte on failure and
 * returns 1 (the callback may have received part of a trace: the caller
 * drops it), else 0. */
int json_pack(FILE *in, const char *in_name, const json_pack_out *out, unsigned long long *n_nodes);
/* The same over a buffer in memory. */
int json_pack_mem(const void *buf, size_t len, const char *in_name, const json_pack_out *out,
                  unsigned long long *n_nodes);

#endif
