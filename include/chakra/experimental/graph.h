/* SPDX-License-Identifier: Apache-2.0 */
/* libchakra graph (experimental): the dependency graph of a trace in
 * compact arrays, for checks and analyses over millions of nodes.
 *
 *   chakra_graph *g = chakra_graph_new();
 *   while (chakra_reader_next(r, &n) > 0)
 *       chakra_graph_add(g, chakra_node_id(n), chakra_node_data_deps(n),
 *                        chakra_node_data_dep_count(n), NULL, 0, &first);
 *   chakra_graph_resolve(g, on_bad_edge, data);   // self and absent parents
 *   chakra_graph_longest(g, CHAKRA_GRAPH_DATA, dist, &paths);  // critical path
 *   chakra_graph_cycles(g, CHAKRA_GRAPH_DATA, on_cycle, data);
 *   chakra_graph_free(g);
 *
 * Nodes are numbered 0..n-1 in the order they were added (file order).
 * Ids are mapped once, as nodes are added: while they run base, base+1,
 * ... (what generators and converters write) the map is the arithmetic
 * itself and no id is stored; otherwise the ids are kept in an array with
 * a hash index of 4-byte slots over it, keyed per graph (a file cannot
 * choose ids that collide). A parent already added is stored as its
 * index (4 bytes per edge, the edge's kind in the top bit); a parent not
 * seen yet is resolved by chakra_graph_resolve. The first node with an id
 * owns it: dependencies on a duplicated id go to it.
 *
 * Memory for n nodes and e edges: 4(n + e) bytes, plus 8n for ids and
 * about 8n for their index when they are not consecutive, plus 12 bytes
 * per parent not added yet. Functions return 0 (or a count) or a negative
 * chakra_error (CHAKRA_ENOMEM). Not thread-safe; separate graphs are
 * independent. Define CHAKRA_EXPERIMENTAL to use this header. */
#ifndef CHAKRA_EXPERIMENTAL_GRAPH_H
#define CHAKRA_EXPERIMENTAL_GRAPH_H

#include "chakra/experimental.h"
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CHAKRA_GRAPH_NONE UINT32_MAX

/* ---- id map: uint64 id -> uint32 value, keyed per map ---- */
typedef struct chakra_idmap chakra_idmap;
/* NULL when memory runs out. expected: ids before the first growth. */
CHAKRA_EXPERIMENTAL_API chakra_idmap *chakra_idmap_new(size_t expected);
CHAKRA_EXPERIMENTAL_API void chakra_idmap_free(chakra_idmap *m);
/* Insert key -> val (val < CHAKRA_GRAPH_NONE) unless present: 1 inserted,
 * 0 present (*old set when old is not NULL), CHAKRA_ENOMEM. */
CHAKRA_EXPERIMENTAL_API int chakra_idmap_put(chakra_idmap *m, uint64_t key, uint32_t val,
                                             uint32_t *old);
/* Insert or overwrite: 0 or CHAKRA_ENOMEM. */
CHAKRA_EXPERIMENTAL_API int chakra_idmap_set(chakra_idmap *m, uint64_t key, uint32_t val);
/* The value, or CHAKRA_GRAPH_NONE. */
CHAKRA_EXPERIMENTAL_API uint32_t chakra_idmap_get(const chakra_idmap *m, uint64_t key);
CHAKRA_EXPERIMENTAL_API size_t chakra_idmap_count(const chakra_idmap *m);

/* ---- the graph ---- */
enum { CHAKRA_GRAPH_DATA = 1, CHAKRA_GRAPH_CTRL = 2, CHAKRA_GRAPH_BOTH = 3 };

/* A parent edge: the parent's index, the kind in the top bit. */
#define CHAKRA_GRAPH_EDGE_NODE(e) ((uint32_t)(e) & 0x7fffffffu)
#define CHAKRA_GRAPH_EDGE_IS_CTRL(e) ((uint32_t)(e) >> 31)
/* Parents that are the node itself or not in the graph (after resolve). */
#define CHAKRA_GRAPH_EDGE_DROPPED 0x7fffffffu

typedef struct chakra_graph chakra_graph;
CHAKRA_EXPERIMENTAL_API chakra_graph *chakra_graph_new(void);
CHAKRA_EXPERIMENTAL_API void chakra_graph_free(chakra_graph *g);

/* Add a node with its data and control parents (either list may be empty).
 * Returns its index, or CHAKRA_ENOMEM / CHAKRA_ETOOBIG (2^31 - 2 nodes or
 * 2^32 - 1 edges). *first (first may be NULL): the index of the node that
 * has this id already (a duplicate), else CHAKRA_GRAPH_NONE. */
CHAKRA_EXPERIMENTAL_API int64_t chakra_graph_add(chakra_graph *g, uint64_t id,
                                                   const uint64_t *data, size_t nd,
                                                   const uint64_t *ctrl, size_t nc,
                                                   uint32_t *first);
CHAKRA_EXPERIMENTAL_API size_t chakra_graph_count(const chakra_graph *g);
CHAKRA_EXPERIMENTAL_API size_t chakra_graph_edge_count(const chakra_graph *g);
CHAKRA_EXPERIMENTAL_API uint64_t chakra_graph_id(const chakra_graph *g, uint32_t node);
/* The first node with this id, or CHAKRA_GRAPH_NONE. */
CHAKRA_EXPERIMENTAL_API uint32_t chakra_graph_find(const chakra_graph *g, uint64_t id);

/* Called for each parent that is the node itself or not in the graph, in
 * node order and, within a node, in the order the parents were added. */
typedef void (*chakra_graph_edge_cb)(void *data, uint32_t node, uint64_t parent_id, int is_ctrl,
                                     int is_self);
/* After the last add: every parent to an index; the others are reported
 * (cb may be NULL) and dropped (CHAKRA_GRAPH_EDGE_DROPPED). Once. */
CHAKRA_EXPERIMENTAL_API int chakra_graph_resolve(chakra_graph *g, chakra_graph_edge_cb cb,
                                                 void *data);
/* The parent edges of a node (valid until the graph changes). */
CHAKRA_EXPERIMENTAL_API size_t chakra_graph_parents(const chakra_graph *g, uint32_t node,
                                                    const uint32_t **edges);

/* Children lists (for walks in both directions): built on first use,
 * 4(n + e) bytes more. CHAKRA_ENOMEM, else the count. */
CHAKRA_EXPERIMENTAL_API int64_t chakra_graph_children(chakra_graph *g, uint32_t node,
                                                        const uint32_t **children);

/* Longest paths over the parent edges of the given kinds, for the nodes
 * that are on no cycle and have none behind them. dist[] holds each node's
 * weight on entry (its duration) and its longest path ending there on
 * return (saturating at UINT64_MAX); pred[] (may be NULL) the parent on
 * that path (ties: the first parent listed), depth[] (may be NULL) the
 * nodes on the longest path by count; both CHAKRA_GRAPH_NONE / 0 for the
 * others. */
typedef struct chakra_graph_paths {
	uint32_t best;        /* the end of the longest path (ties: earliest), or NONE */
	uint32_t max_depth;
	uint64_t width;       /* most nodes at one depth */
	uint64_t unordered;   /* nodes on or behind a cycle */
	uint32_t first_unordered; /* the first of them, or NONE */
} chakra_graph_paths;
CHAKRA_EXPERIMENTAL_API int chakra_graph_longest(const chakra_graph *g, int kinds, uint64_t *dist,
                                                 uint32_t *pred, uint32_t *depth,
                                                 chakra_graph_paths *out);

/* Does a cycle run through the edges of these kinds? 1, 0 or CHAKRA_ENOMEM
 * (a depth-first pass, 1 byte per node). */
CHAKRA_EXPERIMENTAL_API int chakra_graph_has_cycle(const chakra_graph *g, int kinds);
/* Strongly connected components (iterative Tarjan): for each of 2+ nodes,
 * one concrete cycle inside it, starting at its first node in index
 * order and ending where it closes. Returns the number of such
 * components or CHAKRA_ENOMEM. */
typedef void (*chakra_graph_cycle_cb)(void *data, const uint32_t *cycle, size_t len,
                                      size_t component_size);
CHAKRA_EXPERIMENTAL_API int64_t chakra_graph_cycles(const chakra_graph *g, int kinds,
                                                      chakra_graph_cycle_cb cb, void *data);

#ifdef __cplusplus
}
#endif
#endif
