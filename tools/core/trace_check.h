/* SPDX-License-Identifier: Apache-2.0 */
/* The checks behind `chakra validate`: one streaming pass that frames and
 * decodes every node and records ids and edges (memory proportional to
 * nodes + edges), then dependency checks and an iterative SCC search for
 * data-dependency cycles (no recursion: million-node chains are fine). */
#ifndef CHAKRA_TOOLS_CORE_TRACE_CHECK_H
#define CHAKRA_TOOLS_CORE_TRACE_CHECK_H

#include <stdint.h>
#include <stdio.h>

typedef struct check_opts {
	int strict;           /* control-dependency problems are errors */
	int deep;             /* also decode every node with nanopb and compare */
	uint64_t max_warn;    /* warning lines shown per kind (0 = all) */
	uint64_t max_errors;  /* error lines shown (0 = all); reading stops there */
} check_opts;

typedef struct check_result {
	uint64_t nodes, errors, warnings;
	uint64_t dup_ids, data_absent, data_self, cycles;
	uint64_t ctrl_absent_refs, ctrl_absent_ids, ctrl_self;
	uint64_t noncanon;    /* --deep: nodes whose bytes re-encoding would change */
	int read_failed;      /* framing/decoding stopped the pass */
	int stopped;          /* max_errors reached while reading: the rest unread */
	uint64_t errors_hidden; /* errors counted but not printed (max_errors) */
} check_result;

/* Check one trace; problem lines and a summary go to `out`. Returns 0 when
 * no error was found (warnings allowed), 1 otherwise. */
int trace_check(const char *path, const check_opts *o, FILE *out, check_result *res);

#endif
