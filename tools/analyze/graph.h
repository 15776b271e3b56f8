/* SPDX-License-Identifier: Apache-2.0 */
/* Compact dependency graph for the analysis tools: ids, durations and
 * parent edges of every node in flat arrays (no node bodies), so that
 * stats and visualize --around scale to millions of nodes. Nodes are kept
 * in file order; edges are resolved from ids to indices after the pass,
 * because parents may appear later in the file than their children. */
#ifndef CHAKRA_ANALYZE_GRAPH_H
#define CHAKRA_ANALYZE_GRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "chakra/chakra.h"
#include "idmap.h"

#define AG_NONE UINT32_MAX

/* Which dependency lists to collect / follow. */
enum { AG_DATA = 1, AG_CTRL = 2, AG_BOTH = 3 };

/* Problems found while resolving; reported as warnings by the callers. */
typedef struct ag_problems {
	uint64_t dup_ids, first_dup_id;        /* later nodes reusing an id */
	uint64_t self_deps, first_self_id;     /* node listing itself */
	uint64_t absent_refs, absent_ids;      /* references / distinct ids never defined */
	uint64_t first_absent_id, first_absent_child;
	uint64_t not_ordered, first_cycle_id;  /* nodes on or behind a cycle */
} ag_problems;

typedef struct ag_graph {
	int kinds;          /* AG_DATA | AG_CTRL: the lists collected */
	size_t n, ncap;
	uint64_t *id;
	size_t *eoff;       /* n + 1 offsets into the edge arrays */
	size_t ne, ecap;
	uint64_t *eparent;  /* parent ids while collecting */
	unsigned char *ectrl; /* 1 = control edge, 0 = data edge */
	tool_idmap map;     /* id -> first index with that id (built by ag_graph_add) */
	uint64_t dup_ids, first_dup_id; /* later nodes reusing an id */
	/* After ag_graph_resolve: */
	uint32_t *epidx;    /* parent index, AG_NONE when absent / self / dropped */
	/* After ag_graph_children: child CSR (index lists). */
	size_t *coff;
	uint32_t *child;
} ag_graph;

void ag_graph_init(ag_graph *g, int kinds);
void ag_graph_free(ag_graph *g);
/* Append a node and its parents of the collected kinds; returns its index
 * or -1 on out of memory / more than 4G nodes. A node whose id is already
 * in the graph is counted in dup_ids (the map keeps the first). */
long long ag_graph_add(ag_graph *g, const chakra_node *n);
/* Map parent ids to indices; fills *p (not_ordered excepted). -1 on OOM. */
int ag_graph_resolve(ag_graph *g, ag_problems *p);
/* Build the child lists from the resolved parent edges. -1 on OOM. */
int ag_graph_children(ag_graph *g);
/* Kahn's topological order over resolved edges: writes the ordered node
 * indices to order (n entries allocated by the caller) and returns how
 * many were ordered (n minus the nodes on or behind a cycle), -1 on OOM.
 * Ties keep file order, so the result is deterministic. */
long long ag_graph_topo(const ag_graph *g, uint32_t *order);

/* Print the problems as "chakra: FILE: warning: ..." lines on stderr. */
void ag_problems_warn(const char *file, const ag_problems *p);

#endif
