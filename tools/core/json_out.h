/* Full-fidelity JSON output of a trace, streamed node by node with
 * yajl_gen (the format is described in docs/tools-core.md; `chakra pack`
 * reads it back to the same bytes). */
#ifndef CHAKRA_TOOLS_CORE_JSON_OUT_H
#define CHAKRA_TOOLS_CORE_JSON_OUT_H

#include <stdio.h>
#include <yajl/yajl_gen.h>

#include "chakra/chakra.h"

typedef struct json_out {
	yajl_gen g;
	FILE *f;
	int pretty;
} json_out;

/* Start the document: {"metadata":{...},"nodes":[ */
int json_out_begin(json_out *o, FILE *f, int pretty, const chakra_metadata *m);
/* One node object (followed by a newline in compact mode, so the output
 * has one node per line). */
int json_out_node(json_out *o, const chakra_node *n);
/* Close the array and the document, free the generator. */
int json_out_end(json_out *o);
void json_out_free(json_out *o);

#endif
