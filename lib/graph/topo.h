/* SPDX-License-Identifier: Apache-2.0 */
/* The one Kahn's order of the modules (internal; lib/graph/topo.c): the
 * converter numbers its output nodes with it, synth orders a rank as a
 * feeder issues it, perf orders its events. What differs is a parameter:
 *
 *   the ready order: CHAKRA__TOPO_FIFO (the order nodes became ready in)
 *     or CHAKRA__TOPO_BY_KEY (least key first, ties by index); with
 *     `carry`, a marked node's key rises to its largest parent's as each
 *     parent is ordered (the converter's untimed nodes follow what they
 *     wait for);
 *   what a cycle does: CHAKRA__TOPO_REPORT stops (the caller names the
 *     blocked nodes from `indeg`), CHAKRA__TOPO_RELEASE_FIRST releases
 *     the lowest-index node left, CHAKRA__TOPO_RELEASE_LOWEST_KEY the
 *     least (key, index) left (keys as at the first stall). A released
 *     node is ordered next; the in-edges it still waited on are counted
 *     in `dropped` and it is marked in `released`.
 *
 * The graph is given by its in-edges in CSR: node i's parents are
 * in_src[in_off[i] .. in_off[i + 1]), an edge k skipped when skip[k] is
 * set. A parent listed twice counts twice. */
#ifndef CHAKRA_GRAPH_TOPO_H
#define CHAKRA_GRAPH_TOPO_H

#include <stddef.h>
#include <stdint.h>

enum { CHAKRA__TOPO_FIFO = 0, CHAKRA__TOPO_BY_KEY = 1 };
enum { CHAKRA__TOPO_REPORT = 0, CHAKRA__TOPO_RELEASE_FIRST = 1, CHAKRA__TOPO_RELEASE_LOWEST_KEY = 2 };

typedef struct chakra__topo {
	/* the graph */
	size_t n;
	const uint32_t *in_off;  /* n + 1 */
	const uint32_t *in_src;  /* in_off[n] */
	const uint8_t *skip;     /* per in-edge, or NULL: every edge counts */
	/* the policy */
	int ready;               /* CHAKRA__TOPO_FIFO / _BY_KEY */
	int cycle;               /* CHAKRA__TOPO_REPORT / _RELEASE_FIRST / _RELEASE_LOWEST_KEY */
	uint64_t *key;           /* BY_KEY or RELEASE_LOWEST_KEY: per node (carry updates it) */
	const uint8_t *carry;    /* BY_KEY: nodes whose key rises to their parents', or NULL */
	/* the result, in the caller's arrays */
	uint32_t *order;         /* n: the nodes in order */
	size_t norder;           /* how many were ordered (n unless REPORT stopped) */
	uint32_t *indeg;         /* n, or NULL: each node's in-edges not yet satisfied when
	                          * it ended (non-zero only for the blocked, REPORT) */
	uint8_t *released;       /* n, or NULL: set for the nodes released from a cycle */
	uint64_t dropped;        /* in-edges of released nodes not satisfied when released */
} chakra__topo;

/* An int64 key as a topo key, in the same order. */
static inline uint64_t chakra__topo_key_i64(int64_t k)
{
	return (uint64_t)k ^ ((uint64_t)1 << 63);
}

/* Order t->n nodes into t->order. 0 when every node is ordered;
 * CHAKRA_ECYCLE when REPORT stopped at a cycle (t->norder < t->n);
 * CHAKRA_ENOMEM. */
int chakra__topo_order(chakra__topo *t);

#endif
