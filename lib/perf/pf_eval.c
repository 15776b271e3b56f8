/* SPDX-License-Identifier: Apache-2.0 */
/* Evaluation: the event graph's longest paths, iteration after iteration
 * (max-plus), and the critical path of the reported iteration. */
#include <stdlib.h>
#include <string.h>

#include "pf_impl.h"

static int push_seg(chakra_perf *r, uint32_t op, int is_lag, int via, uint32_t from,
                    int64_t s, int64_t e)
{
	chakra_perf_segment *g = PF_PUSH(r->path, r->npath, r->path_cap);
	if (!g)
		return chakra__pf_fail(r, CHAKRA_ENOMEM, "out of memory");
	g->op = op;
	g->is_lag = is_lag;
	g->via = via;
	g->from_op = from;
	g->start_ns = s;
	g->end_ns = e;
	return 0;
}

/* The critical path: back from the event that ends the reported
 * iteration along the edges that gave each event its time. */
static int critical_path(chakra_perf *r, uint32_t end_ev)
{
	size_t n = r->nops, nev = r->nev;
	unsigned c = r->copies - 1;
	uint32_t ev = end_ev;
	r->npath = 0;
	for (size_t guard = 0; guard < 4 * (r->nin + nev) + 8; guard++) {
		const int64_t *val = r->val + (size_t)c * nev;
		const uint32_t *arg = r->arg + (size_t)c * nev;
		int64_t t = val[ev];
		if (t <= r->base)
			break;
		uint32_t a = arg[ev];
		if (a == PF_NONE)
			break;
		const pf_in *e = &r->in[a];
		unsigned sc = e->cross ? c - 1 : c;
		int64_t st = r->val[(size_t)sc * nev + e->src];
		uint32_t op = ev / 2, next = e->src;
		int rc;
		if (e->src >= 2 * n) {
			/* a collective: the member that arrived last, then the transfer */
			uint32_t ca = r->arg[(size_t)c * nev + e->src];
			uint32_t last = r->in[ca].src;
			st = r->val[(size_t)c * nev + last];
			rc = push_seg(r, op, 0, CHAKRA_PERF_EDGE_PEER, last / 2, st, t);
			next = last;
		} else if (ev & 1)
			rc = push_seg(r, op, 0, e->kind == PF_INTERNAL ? -1 : e->kind,
			              e->kind == PF_INTERNAL ? op : e->src / 2, st, t);
		else
			rc = push_seg(r, op, 1, e->kind, e->src / 2, st, t);
		if (rc)
			return rc;
		ev = next;
		c = sc;
	}
	/* earliest first, clipped to the iteration, times relative to it */
	for (size_t i = 0, j = r->npath ? r->npath - 1 : 0; i < j; i++, j--) {
		chakra_perf_segment tmp = r->path[i];
		r->path[i] = r->path[j];
		r->path[j] = tmp;
	}
	for (size_t i = 0; i < r->npath; i++) {
		chakra_perf_segment *g = &r->path[i];
		if (g->start_ns < r->base)
			g->start_ns = r->base;
		g->start_ns -= r->base;
		g->end_ns -= r->base;
	}
	return 0;
}

int chakra__pf_evaluate(chakra_perf *r)
{
	size_t nev = r->nev, n = r->nops;
	unsigned copies = r->copies;
	chakra_free(r->val);
	chakra_free(r->arg);
	chakra_free(r->ends);
	r->val = chakra_malloc((size_t)copies * (nev ? nev : 1) * sizeof *r->val);
	r->arg = chakra_malloc((size_t)copies * (nev ? nev : 1) * sizeof *r->arg);
	r->ends = chakra_calloc(copies, sizeof *r->ends);
	if (!r->val || !r->arg || !r->ends)
		return chakra__pf_fail(r, CHAKRA_ENOMEM, "out of memory");
	for (unsigned c = 0; c < copies; c++) {
		int64_t *val = r->val + (size_t)c * nev;
		const int64_t *pval = c ? r->val + (size_t)(c - 1) * nev : NULL;
		uint32_t *arg = r->arg + (size_t)c * nev;
		for (size_t t = 0; t < nev; t++) {
			uint32_t ev = r->topo[t];
			int64_t best = 0;
			uint32_t ba = PF_NONE;
			for (uint32_t i = r->in_first[ev]; i < r->in_first[ev + 1]; i++) {
				const pf_in *e = &r->in[i];
				int64_t sv;
				if (e->first_only && c)
					continue;
				if (e->cross) {
					if (!c)
						continue;
					sv = pval[e->src];
				} else
					sv = val[e->src];
				int64_t x = pf_add(sv, e->lag);
				if (ba == PF_NONE || x > best) {
					best = x;
					ba = i;
				}
			}
			val[ev] = ba == PF_NONE ? 0 : best;
			arg[ev] = ba;
		}
		int64_t end = 0;
		for (size_t v = 0; v < n; v++)
			if (val[2 * v + 1] > end)
				end = val[2 * v + 1];
		r->ends[c] = end;
	}
	r->base = copies > 1 ? r->ends[copies - 2] : 0;
	/* the rank and event that end the reported iteration */
	const int64_t *val = r->val + (size_t)(copies - 1) * nev;
	uint32_t end_ev = PF_NONE;
	for (size_t k = 0; k < r->nranks; k++)
		r->ranks[k].end_last = 0;
	for (size_t v = 0; v < n; v++) {
		const pf_op *o = &r->ops[v];
		int64_t t = val[2 * v + 1];
		if (t > r->ranks[o->rank].end_last)
			r->ranks[o->rank].end_last = t;
		/* ties: prefer the iteration's end marker, then the earliest op */
		if (end_ev == PF_NONE || t > val[end_ev] ||
		    (t == val[end_ev] && o->kind == CHAKRA_PERF_MARK))
			end_ev = (uint32_t)(2 * v + 1);
	}
	r->crit_rank = end_ev == PF_NONE ? 0 : r->ops[end_ev / 2].rank;
	if (end_ev == PF_NONE) {
		r->npath = 0;
		return 0;
	}
	return critical_path(r, end_ev);
}
