/* SPDX-License-Identifier: Apache-2.0 */
/* chakra visualize: which nodes are drawn (visualize.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../common.h"
#include "hint.h"
#include "text.h"
#include "visualize.h"

/* --around: collect ids and both kinds of edges, then walk K steps from
 * the centre over parents and children. */
int vis_select_around(const vopts *o, vstate *st)
{
	chakra_reader *r;
	if (chakra_reader_open(&r, o->input, NULL) < 0) {
		tool_trace_err(o->input, chakra_reader_errmsg(r));
		chakra_reader_close(r);
		return -1;
	}
	st->g = chakra_graph_new();
	if (!st->g) {
		chakra_reader_close(r);
		return tool_err("out of memory"), -1;
	}
	const chakra_node *n;
	int nr;
	tool_progress prog;
	tool_progress_start(&prog, "collecting edges", 0);
	while ((nr = chakra_reader_next(r, &n)) > 0) {
		uint32_t first;
		int64_t idx = chakra_graph_add(st->g, chakra_node_id(n), chakra_node_data_deps(n),
		                                 chakra_node_data_dep_count(n), chakra_node_ctrl_deps(n),
		                                 chakra_node_ctrl_dep_count(n), &first);
		if (idx < 0) {
			chakra_reader_close(r);
			return tool_err("%s: out of memory", o->input), -1;
		}
		if ((idx & 4095) == 0)
			tool_progress_update(&prog, (uint64_t)idx);
	}
	tool_progress_end(&prog);
	if (nr < 0) {
		tool_trace_err(o->input, chakra_reader_errmsg(r));
		chakra_reader_close(r);
		return -1;
	}
	chakra_reader_close(r);
	const uint32_t *list;
	if (chakra_graph_resolve(st->g, NULL, NULL) < 0 || chakra_graph_children(st->g, 0, &list) < 0)
		return tool_err("%s: out of memory", o->input), -1;
	uint32_t c = chakra_graph_find(st->g, o->center);
	if (c == CHAKRA_GRAPH_NONE)
		return tool_err("%s: --around %llu: no node with that id", o->input,
		                (unsigned long long)o->center), -1;
	size_t n_all = st->n_all = chakra_graph_count(st->g);
	st->sel = calloc(n_all ? n_all : 1, 1);
	uint32_t *queue = malloc((n_all ? n_all : 1) * sizeof *queue);
	uint64_t *dist = malloc((n_all ? n_all : 1) * sizeof *dist);
	if (!st->sel || !queue || !dist) {
		free(queue);
		free(dist);
		return tool_err("out of memory"), -1;
	}
	size_t head = 0, tail = 0;
	queue[tail++] = c;
	st->sel[c] = 1;
	dist[c] = 0;
	while (head < tail) {
		uint32_t v = queue[head++];
		if (dist[v] >= o->depth)
			continue;
		/* Parents, then children: both edge kinds, both directions. */
		size_t k = chakra_graph_parents(st->g, v, &list);
		for (size_t e = 0; e < k; e++) {
			uint32_t u = CHAKRA_GRAPH_EDGE_NODE(list[e]);
			if (u != CHAKRA_GRAPH_EDGE_DROPPED && !st->sel[u]) {
				st->sel[u] = 1;
				dist[u] = dist[v] + 1;
				queue[tail++] = u;
			}
		}
		int64_t kc = chakra_graph_children(st->g, v, &list);
		for (int64_t e = 0; e < kc; e++) {
			uint32_t u = list[e];
			if (!st->sel[u]) {
				st->sel[u] = 1;
				dist[u] = dist[v] + 1;
				queue[tail++] = u;
			}
		}
	}
	free(queue);
	free(dist);
	return 0;
}

/* Is the node at file index idx with this id in the cut? */
int vis_in_cut(const vopts *o, const vstate *st, uint64_t idx, uint64_t id)
{
	if (o->cut == 1)
		return id >= o->lo && id <= o->hi;
	if (o->cut == 2)
		return idx < st->n_all && st->sel[idx];
	return 1;
}
