/* SPDX-License-Identifier: Apache-2.0 */
/* chakra stats: one trace read into its figures (stats.h).
 *
 * One streaming pass keeps, per node, only its id, type, duration and
 * parent edges (graph.h); the path figures come from a topological order
 * (Kahn) over those compact arrays, so parents that appear after their
 * children, absent parents and cycles are all handled, the last two as
 * warnings. */
#include <stdlib.h>
#include <string.h>

#include "../common.h"
#include "hint.h"
#include "stats.h"

static uint64_t sat_add(uint64_t a, uint64_t b) { return a + b < a ? UINT64_MAX : a + b; }


/* Longest paths over the graph (lib/graph): dist holds the durations on
 * entry. */
static int path_figures(chakra_graph *g, uint64_t *dist, stats *s)
{
	size_t n = chakra_graph_count(g);
	uint32_t *pred = malloc((n ? n : 1) * sizeof *pred);
	uint32_t *depth = malloc((n ? n : 1) * sizeof *depth);
	chakra_graph_paths ps;
	int rc = -1;
	if (!pred || !depth || chakra_graph_longest(g, CHAKRA_GRAPH_BOTH, dist, pred, depth, &ps) < 0)
		goto out;
	s->prob.not_ordered = ps.unordered;
	if (ps.unordered)
		s->prob.first_cycle_id = chakra_graph_id(g, ps.first_unordered);
	s->depth = ps.max_depth;
	s->width = ps.width;
	if (ps.best != CHAKRA_GRAPH_NONE) {
		s->crit_dur = dist[ps.best];
		size_t len = 0;
		for (uint32_t v = ps.best; v != CHAKRA_GRAPH_NONE; v = pred[v])
			len++;
		s->path = malloc(len * sizeof *s->path);
		if (!s->path)
			goto out;
		s->path_len = len;
		for (uint32_t v = ps.best; v != CHAKRA_GRAPH_NONE; v = pred[v])
			s->path[--len] = chakra_graph_id(g, v);
	}
	rc = 0;
out:
	free(pred);
	free(depth);
	return rc;
}

/* A parent that is the node itself or not in the file (lib/graph). */
static void bad_edge(void *data, uint32_t node, uint64_t pid, int is_ctrl, int is_self)
{
	stats *s = data;
	problems *p = &s->prob;
	(void)is_ctrl;
	(void)node;
	if (is_self) {
		if (p->self_deps++ == 0)
			p->first_self_id = pid;
		return;
	}
	if (p->absent_refs++ == 0) {
		p->first_absent_id = pid;
		p->first_absent_child = chakra_graph_id(s->g, node);
	}
	int r = p->oom ? 0 : chakra_idmap_put(p->absent, pid, 0, NULL);
	if (r < 0)
		p->oom = 1;
	else
		p->absent_ids += (uint64_t)r;
}

static void problems_warn(const char *file, const problems *p)
{
	if (p->dup_ids)
		fprintf(stderr,
		        "chakra: %s: warning: %llu node(s) reuse an earlier id (first: id %llu); "
		        "dependencies on such ids go to the first node\n",
		        file, (unsigned long long)p->dup_ids, (unsigned long long)p->first_dup_id);
	if (p->self_deps)
		fprintf(stderr, "chakra: %s: warning: %llu self-dependencies ignored (first: node %llu)\n",
		        file, (unsigned long long)p->self_deps, (unsigned long long)p->first_self_id);
	if (p->absent_refs)
		fprintf(stderr,
		        "chakra: %s: warning: %llu dependencies on %llu id(s) not in the file ignored "
		        "(first: node %llu -> %llu)\n",
		        file, (unsigned long long)p->absent_refs, (unsigned long long)p->absent_ids,
		        (unsigned long long)p->first_absent_child, (unsigned long long)p->first_absent_id);
	if (p->not_ordered)
		fprintf(stderr,
		        "chakra: %s: warning: dependency cycle: %llu node(s) are on or behind a cycle "
		        "and left out of the path figures (first in the file: node %llu)\n",
		        file, (unsigned long long)p->not_ordered, (unsigned long long)p->first_cycle_id);
}

int stats_analyze_file(const char *path, int kinds, uint64_t max_dups, stats *s)
{
	memset(s, 0, sizeof *s);
	s->file = path;
	chakra_reader *r;
	if (chakra_reader_open(&r, path, NULL) < 0) {
		tool_trace_err(path, chakra_reader_errmsg(r));
		chakra_reader_close(r);
		return -1;
	}
	chakra_graph *g = s->g = chakra_graph_new();
	s->prob.absent = chakra_idmap_new(16);
	uint64_t *dur = NULL;
	size_t dcap = 0;
	int rc = -1, nr;
	const chakra_node *n;
	tool_progress prog;
	tool_progress_start_trace(&prog, path, path);
	while ((nr = chakra_reader_next(r, &n)) > 0) {
		uint32_t first;
		int64_t idx = !g || !s->prob.absent ? CHAKRA_ENOMEM
		                : chakra_graph_add(g, chakra_node_id(n),
		                                   kinds & CHAKRA_GRAPH_DATA ? chakra_node_data_deps(n) : NULL,
		                                   kinds & CHAKRA_GRAPH_DATA ? chakra_node_data_dep_count(n) : 0,
		                                   kinds & CHAKRA_GRAPH_CTRL ? chakra_node_ctrl_deps(n) : NULL,
		                                   kinds & CHAKRA_GRAPH_CTRL ? chakra_node_ctrl_dep_count(n) : 0,
		                                   &first);
		if (idx < 0) {
			tool_err("%s: %s after %llu nodes", path, idx == CHAKRA_ETOOBIG ? "too many nodes or "
			         "dependencies" : "out of memory", (unsigned long long)(g ? chakra_graph_count(g) : 0));
			goto out;
		}
		if (first != CHAKRA_GRAPH_NONE && s->prob.dup_ids++ == 0)
			s->prob.first_dup_id = chakra_node_id(n);
		/* an endless or repetitive input (/dev/zero, a gzip of zeros: empty
		 * nodes, all id 0) must not grow memory without bound */
		if (max_dups && s->prob.dup_ids > max_dups) {
			tool_err("%s: byte %llu: more than %llu nodes reuse an earlier id (first: id %llu); "
			         "stopped: this is not a usable trace (--max-errors N raises the limit, "
			         "0 = none)",
			         path, (unsigned long long)chakra_node_offset(n),
			         (unsigned long long)max_dups, (unsigned long long)s->prob.first_dup_id);
			goto out;
		}
		if ((size_t)idx >= dcap) {
			size_t nc = dcap ? dcap + dcap / 2 : 4096;
			uint64_t *nd = realloc(dur, nc * sizeof *nd);
			if (!nd) {
				tool_err("%s: out of memory", path);
				goto out;
			}
			dur = nd;
			dcap = nc;
		}
		uint64_t d = chakra_node_duration_micros(n);
		dur[idx] = d;
		int t = chakra_node_type_of(n);
		int ti = (t >= 0 && t < N_TYPES) ? t : N_TYPES;
		s->type_count[ti]++;
		s->type_dur[ti] = sat_add(s->type_dur[ti], d);
		s->dur_total = sat_add(s->dur_total, d);
		int cpu;
		if (chakra_node_is_cpu_op(n, &cpu) == 0) {
			if (cpu) {
				s->n_cpu++;
				s->dur_cpu = sat_add(s->dur_cpu, d);
			} else {
				s->n_gpu++;
				s->dur_gpu = sat_add(s->dur_gpu, d);
			}
		} else {
			s->n_unknown++;
			s->dur_unknown = sat_add(s->dur_unknown, d);
		}
		uint64_t size = 0;
		int has_size = chakra_node_comm_size(n, &size) == 0;
		if (t == CHAKRA_COMM_COLL_NODE) {
			int64_t ct;
			int ci = (chakra_node_comm_type(n, &ct) == 0 && ct >= 0 && ct < N_COLL) ? (int)ct
			                                                                        : N_COLL;
			s->coll_count[ci]++;
			if (has_size)
				s->coll_bytes[ci] = sat_add(s->coll_bytes[ci], size);
		} else if (t == CHAKRA_COMM_SEND_NODE && has_size) {
			s->send_bytes = sat_add(s->send_bytes, size);
		} else if (t == CHAKRA_COMM_RECV_NODE && has_size) {
			s->recv_bytes = sat_add(s->recv_bytes, size);
		}
		if ((idx & 4095) == 0)
			tool_progress_trace(&prog, chakra_reader_offset(r), (uint64_t)idx);
	}
	tool_progress_end(&prog);
	if (nr < 0) {
		tool_trace_err(path, chakra_reader_errmsg(r));
		goto out;
	}
	s->nodes = chakra_graph_count(g);
	s->edges = chakra_graph_edge_count(g);
	/* the durations become the path lengths */
	if (chakra_graph_resolve(g, bad_edge, s) < 0 || s->prob.oom ||
	    path_figures(g, dur, s) < 0) {
		tool_err("%s: out of memory", path);
		goto out;
	}
	problems_warn(path, &s->prob);
	rc = 0;
out:
	free(dur);
	chakra_graph_free(g);
	chakra_idmap_free(s->prob.absent);
	s->g = NULL;
	s->prob.absent = NULL;
	chakra_reader_close(r);
	return rc;
}
