/* Streaming JSON -> Chakra ET conversion for `chakra pack`: reads the
 * format `chakra jsonize` writes and Chakra's "workload_graph" JSON with
 * YAJL's callback parser, so memory does not grow with the input. */
#ifndef CHAKRA_TOOLS_CORE_JSON_IN_H
#define CHAKRA_TOOLS_CORE_JSON_IN_H

#include <stdio.h>

/* Parse `in` (named `in_name` in messages) and write the trace to `out`
 * (writer options: gzip as given, overwrite on). Prints one error naming
 * the file, line and byte on failure; returns 0 or 1. Nothing is left
 * under `out` on failure. */
int json_pack(FILE *in, const char *in_name, const char *out, int gzip, unsigned long long *n_nodes);

#endif
