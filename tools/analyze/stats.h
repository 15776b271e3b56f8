/* SPDX-License-Identifier: Apache-2.0 */
/* chakra stats, in three files by job: stats_scan.c reads a trace into
 * its figures (one streaming pass, then the path figures over the graph),
 * stats_out.c prints them (text and JSON), stats.c is the command (its
 * options and inputs: one file, or every rank of a workload). */
#ifndef CHAKRA_TOOLS_ANALYZE_STATS_H
#define CHAKRA_TOOLS_ANALYZE_STATS_H

#ifndef CHAKRA_EXPERIMENTAL
#define CHAKRA_EXPERIMENTAL
#endif
#include <stdint.h>
#include <stdio.h>

#include "chakra/experimental/graph.h"
#include "jsonout.h"

#define N_TYPES 8   /* NodeType 0..7; [N_TYPES] = other values */
#define N_COLL 10   /* CollectiveCommType 0..9; [N_COLL] = missing/other */

/* Found while building the graph; reported as warnings. */
typedef struct problems {
	uint64_t dup_ids, first_dup_id;        /* later nodes reusing an id */
	uint64_t self_deps, first_self_id;     /* node listing itself */
	uint64_t absent_refs, absent_ids;      /* references / distinct ids never defined */
	uint64_t first_absent_id, first_absent_child;
	uint64_t not_ordered, first_cycle_id;  /* nodes on or behind a cycle */
	chakra_idmap *absent;
	int oom;
} problems;

typedef struct stats {
	const char *file;
	chakra_graph *g; /* while analysing */
	uint64_t nodes, edges;
	uint64_t type_count[N_TYPES + 1], type_dur[N_TYPES + 1];
	uint64_t coll_count[N_COLL + 1], coll_bytes[N_COLL + 1];
	uint64_t send_bytes, recv_bytes;
	uint64_t dur_total, dur_cpu, dur_gpu, dur_unknown;
	uint64_t n_cpu, n_gpu, n_unknown;
	uint64_t crit_dur, depth, width;
	uint64_t *path; /* ids on the critical path, source first */
	size_t path_len;
	problems prob;
} stats;

/* Read the trace at path into *s (zeroed by the caller): 0, or -1 after
 * printing why. kinds: CHAKRA_GRAPH_DATA / _CTRL / _BOTH; max_dups: the
 * duplicate ids that stop the pass (0: no limit). */
int stats_analyze_file(const char *path, int kinds, uint64_t max_dups, stats *s);
/* The figures of one trace as text, and as a JSON object. */
void stats_print_text(FILE *f, const stats *s, int kinds, int full_path);
void stats_json(yajl_gen g, const stats *s, int kinds);

#endif
