/* SPDX-License-Identifier: Apache-2.0 */
/* Full-fidelity JSON output of a trace, streamed node by node with
 * yajl_gen (the format is described in docs/tools-core.md; `chakra pack`
 * reads it back to the same bytes). */
#ifndef CHAKRA_TOOLS_CORE_JSON_OUT_H
#define CHAKRA_TOOLS_CORE_JSON_OUT_H

#include <stdint.h>
#include <stdio.h>
#include <yajl/yajl_gen.h>

#include "chakra/chakra.h"

typedef struct json_out {
	yajl_gen g;
	FILE *f;
	int pretty;
	/* protobuf's JSON mapping (what Chakra's chakra_jsonizer writes): one
	 * object per message, GlobalMetadata first, camelCase keys, 64-bit
	 * integers as strings, enums by name, default values left out */
	int protobuf;
	uint64_t nan_payloads; /* protobuf: NaNs whose bits "NaN" cannot keep */
	char err[160];         /* protobuf: why a node cannot be written */
} json_out;

/* Start the document: {"metadata":{...},"nodes":[ , or with o->protobuf
 * set beforehand, the GlobalMetadata object. */
int json_out_begin(json_out *o, FILE *f, int pretty, const chakra_metadata *m);
/* One node object (followed by a newline in compact mode, so the output
 * has one node per line). Protobuf form: -2 when the node holds a string
 * that is not UTF-8 (the mapping cannot represent it; o->err says where),
 * -1 on a write error. */
int json_out_node(json_out *o, const chakra_node *n);
/* Close the array and the document, free the generator. */
int json_out_end(json_out *o);
void json_out_free(json_out *o);

#endif
