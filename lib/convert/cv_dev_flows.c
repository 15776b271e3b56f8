/* SPDX-License-Identifier: Apache-2.0 */
/* Device pass, step 6: fwdbwd flows, a forward op -> its backward on
 * another thread, as dependencies between their graph nodes. */
#include <stdlib.h>
#include <string.h>

#include "cv.h"

/* The innermost cpu_op of the flow's thread that starts at (or else
 * encloses) the flow's time, CV_NONE. */
static uint32_t flow_event(const cv_dev *d, const cv_kflow *f)
{
	uint32_t t = chakra__cv_pmap_get(&d->thmap, f->pid, f->tid);
	if (t == CV_NONE || d->th[t].pid != f->pid || d->th[t].tid != f->tid) {
		t = CV_NONE;
		for (size_t i = 0; i < d->nth && t == CV_NONE; i++)
			if (d->th[i].pid == f->pid && d->th[i].tid == f->tid)
				t = (uint32_t)i;
		if (t == CV_NONE)
			return CV_NONE;
	}
	const cv_dev_thread *th = &d->th[t];
	size_t lo = 0, hi = th->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (d->k->ev[th->ev[mid]].ts <= f->ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return CV_NONE;
	/* the last to start by then (equal starts: the innermost), up to
	 * the first cpu_op that holds the time */
	uint32_t c = th->ev[lo - 1];
	for (int steps = 0; c != CV_NONE && steps < CV_JSON_MAX_DEPTH; steps++, c = d->par[c])
		if (d->k->ev[c].kind == CV_K_CPU_OP &&
		    (d->k->ev[c].ts == f->ts || d->end[c] > f->ts))
			return c;
	return CV_NONE;
}

/* Mode A: the node of thread t that holds time x (at its end when
 * at_end: the node in which an op ending at x ended), CV_NONE. */
static uint32_t node_at(const cv_dev *d, uint32_t t, int64_t x, int at_end)
{
	const cv_dev_thread *th = &d->th[t];
	size_t lo = 0, hi = th->ngn;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int64_t st = d->g->nodes[th->gn[mid]].start_ns;
		if (at_end ? st < x : st <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo && at_end && th->ngn && d->g->nodes[th->gn[0]].start_ns == x)
		lo = 1; /* an op of no duration at the very start */
	if (!lo)
		return CV_NONE;
	uint32_t gi = th->gn[lo - 1];
	const cv_node *n = &d->g->nodes[gi];
	return x <= cv_node_end(n) ? gi : CV_NONE;
}

/* Mode B: the first linked op inside event ev, in time order (a backward
 * label's first operator); the scan is bounded. */
static uint32_t first_linked_in(const cv_dev *d, uint32_t ev)
{
	const cv_dev_thread *th = &d->th[d->thr[ev]];
	int64_t t = d->k->ev[ev].ts;
	size_t lo = 0, hi = th->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (d->k->ev[th->ev[mid]].ts < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t j = lo, n = 0; j < th->n && n < 4096; j++, n++) {
		uint32_t c = th->ev[j];
		if (d->k->ev[c].ts >= d->end[ev] && c != ev)
			break;
		if (d->o->link[c] != CV_NONE)
			return d->o->link[c];
	}
	return CV_NONE;
}

/* The graph node a CPU event's time belongs to: its end (at_end: the
 * forward op's side) or its start (the backward op's). */
static uint32_t flow_node(const cv_dev *d, uint32_t ev, int at_end)
{
	if (d->o->link) {
		/* the host op that folds it in, else (a label) its first op */
		for (uint32_t j = ev, steps = 0; j != CV_NONE && steps < CV_JSON_MAX_DEPTH;
		     steps++, j = d->par[j])
			if (d->o->link[j] != CV_NONE)
				return d->o->link[j];
		return at_end ? CV_NONE : first_linked_in(d, ev);
	}
	return node_at(d, d->thr[ev], at_end ? d->end[ev] : d->k->ev[ev].ts, at_end);
}

static int cmp_flow(const void *a, const void *b)
{
	const cv_kflow *x = a, *y = b;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->start != y->start)
		return x->start ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

int chakra__cv_dev_flow_edges(cv_dev *d)
{
	cv_kin *k = d->k;
	if (!k->nflows || d->o->none)
		return 0;
	qsort(k->flows, k->nflows, sizeof *k->flows, cmp_flow);
	/* each 'f' with the latest 's' of its id at or before it */
	const cv_kflow *s = NULL;
	for (size_t i = 0; i < k->nflows; i++) {
		const cv_kflow *f = &k->flows[i];
		if (s && s->id != f->id)
			s = NULL;
		if (f->start) {
			s = f;
			continue;
		}
		if (!s)
			continue;
		uint32_t a = flow_event(d, s), b = flow_event(d, f);
		if (a == CV_NONE || b == CV_NONE)
			continue;
		uint32_t u = flow_node(d, a, 1), v = flow_node(d, b, 0);
		if (u == CV_NONE || v == CV_NONE || u == v)
			continue;
		const cv_node *nu = &d->g->nodes[u], *nv = &d->g->nodes[v];
		/* another thread's op, and in time order (never a cycle) */
		if (nu->tid == nv->tid || !nu->has_time || !nv->has_time ||
		    cv_node_end(nu) > nv->start_ns)
			continue;
		if (chakra__cv_graph_edge(d->g, u, v, 0) < 0)
			return cv_dev_nomem(d);
		d->s->flow_edges++;
	}
	return 0;
}
