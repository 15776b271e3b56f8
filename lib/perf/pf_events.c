/* SPDX-License-Identifier: Apache-2.0 */
/* The event graph: every op's start and end event, the in-edges between
 * them (resource order, launches, waits, collectives, the previous
 * iteration) and the lag on each, taken from the recording. */
#include <stdlib.h>
#include <string.h>

#include "pf_impl.h"

static int te_add(pf_prep *p, uint32_t src, uint32_t dst, int kind, int cross, int64_t lag)
{
	pf_tedge *e = PF_PUSH(p->te, p->nte, p->te_cap);
	if (!e)
		return chakra__pf_fail(p->r, CHAKRA_ENOMEM, "out of memory");
	e->src = src;
	e->dst = dst;
	e->kind = (uint8_t)kind;
	e->cross = (uint8_t)cross;
	e->first_only = 0;
	e->lag = lag;
	return 0;
}

/* Default lag of an edge that did not bind the op's start in the
 * recording: what the runtime needs at least. */
static int64_t default_lag(const chakra_perf *r, const pf_op *v, int kind)
{
	const pf_rank *k = &r->ranks[v->rank];
	switch (kind) {
	case CHAKRA_PERF_EDGE_STREAM:
	case CHAKRA_PERF_EDGE_EVENT:
		return k->queue_gap;
	case CHAKRA_PERF_EDGE_LAUNCH:
		return k->launch_lat;
	case CHAKRA_PERF_EDGE_NEXT:
		return r->res[v->res].gpu ? k->queue_gap : 0;
	case CHAKRA_PERF_EDGE_BACKLOG: {
		/* the earlier work ends, then the usual back-to-back gap */
		int64_t b = v->backlog;
		int64_t rel = b == PF_NO_BACKLOG || b < k->w0 ? 0 : b - k->w0;
		return pf_add(rel > PF_REL_MAX ? PF_REL_MAX : rel, k->queue_gap);
	}
	default:
		return 0;
	}
}

/* The recorded time of an event (end events: start + recorded duration),
 * shifted back one window for the previous iteration. */
static int64_t rec_time(const chakra_perf *r, uint32_t ev, int cross)
{
	const pf_op *u = &r->ops[ev / 2];
	int64_t t = u->rs + ((ev & 1) ? pf_rec_dur(u) : 0);
	if (cross) {
		const pf_rank *k = &r->ranks[u->rank];
		t -= k->w1 - k->w0;
	}
	return t;
}

int chakra__pf_build_edges(pf_prep *p)
{
	chakra_perf *r = p->r;
	size_t n = r->nops;
	int rc;
	/* resource order, the iteration start, the previous iteration, and
	 * each op's own duration come first in every event's list */
	for (size_t ri = 0; ri < r->nres; ri++) {
		const pf_res *x = &r->res[ri];
		const pf_rank *k = &r->ranks[x->rank];
		for (uint32_t j = 0; j < x->n; j++) {
			uint32_t v = r->order[x->first + j];
			uint32_t sv = 2 * v;
			if (j) {
				uint32_t u = r->order[x->first + j - 1];
				rc = te_add(p, 2 * u + 1, sv, x->gpu ? CHAKRA_PERF_EDGE_STREAM
				                                    : CHAKRA_PERF_EDGE_PROGRAM, 0, 0);
			} else if (v == k->mark0) {
				rc = te_add(p, 2 * k->mark1 + 1, sv, CHAKRA_PERF_EDGE_NEXT, 1, 0);
			} else {
				rc = 0;
				if (k->mark0 != PF_NONE)
					rc = te_add(p, 2 * k->mark0 + 1, sv, CHAKRA_PERF_EDGE_WINDOW, 0, 0);
				if (!rc && k->mark0 != PF_NONE)
					rc = te_add(p, 2 * r->order[x->first + x->n - 1] + 1, sv,
					            CHAKRA_PERF_EDGE_NEXT, 1, 0);
			}
			/* the recorded backlog holds the op back in the first
			 * iteration */
			if (!rc && r->ops[v].backlog != PF_NO_BACKLOG && k->mark0 != PF_NONE &&
			    !(rc = te_add(p, 2 * k->mark0 + 1, sv, CHAKRA_PERF_EDGE_BACKLOG, 0, 0)))
				p->te[p->nte - 1].first_only = 1;
			if (!rc)
				rc = te_add(p, sv, sv + 1, PF_INTERNAL, 0, r->ops[v].dur);
			if (rc)
				return rc;
		}
	}
	for (size_t i = 0; i < p->nxc; i++) {
		const pf_xcls *c = &p->xc[i];
		if (c->kind == CHAKRA_PERF_EDGE_SYNC)
			rc = te_add(p, 2 * c->from + 1, 2 * c->to + 1, c->kind, 0, 0);
		else if (c->kind == CHAKRA_PERF_EDGE_LAUNCH)
			rc = te_add(p, 2 * c->from, 2 * c->to, c->kind, 0, 0);
		else
			rc = te_add(p, 2 * c->from + 1, 2 * c->to, c->kind, 0, 0);
		if (rc)
			return rc;
	}
	for (size_t ci = 0; ci < r->ncolls; ci++) {
		const pf_coll *cl = &r->colls[ci];
		uint32_t cev = (uint32_t)(2 * n + ci);
		for (uint32_t m = 0; m < cl->n; m++) {
			uint32_t v = r->coll_members[cl->first + m];
			if ((rc = te_add(p, 2 * v, cev, CHAKRA_PERF_EDGE_PEER, 0, 0)) ||
			    (rc = te_add(p, cev, 2 * v + 1, CHAKRA_PERF_EDGE_PEER, 0, cl->t)))
				return rc;
		}
	}
	/* CSR by target, stable */
	r->nev = 2 * n + r->ncolls;
	chakra_free(r->in_first);
	chakra_free(r->in);
	r->in_first = chakra_calloc(r->nev + 1, sizeof *r->in_first);
	r->in = chakra_malloc((p->nte ? p->nte : 1) * sizeof *r->in);
	if (!r->in_first || !r->in)
		return chakra__pf_fail(r, CHAKRA_ENOMEM, "out of memory");
	for (size_t i = 0; i < p->nte; i++)
		r->in_first[p->te[i].dst + 1]++;
	for (size_t i = 0; i < r->nev; i++)
		r->in_first[i + 1] += r->in_first[i];
	uint32_t *fill = chakra_malloc((r->nev ? r->nev : 1) * sizeof *fill);
	if (!fill)
		return chakra__pf_fail(r, CHAKRA_ENOMEM, "out of memory");
	memcpy(fill, r->in_first, r->nev * sizeof *fill);
	for (size_t i = 0; i < p->nte; i++) {
		pf_in *e = &r->in[fill[p->te[i].dst]++];
		e->src = p->te[i].src;
		e->kind = p->te[i].kind;
		e->cross = p->te[i].cross;
		e->first_only = p->te[i].first_only;
		e->lag = p->te[i].lag;
	}
	chakra_free(fill);
	r->nin = p->nte;
	return 0;
}

/* Whether device op v and the op before it on its stream were enqueued by
 * one launch call (a CUDA graph launch enqueues many): the gap between
 * them is the graph's own, which no launch or queue rule explains. */
static int same_launch(const pf_prep *p, uint32_t v)
{
	const chakra_perf *r = p->r;
	const pf_op *o = &r->ops[v];
	const pf_res *x = &r->res[o->res];
	if (!x->gpu || !o->pos || p->launch[v] == PF_NONE)
		return 0;
	return p->launch[r->order[x->first + o->pos - 1]] == p->launch[v];
}

/* Lags from the recording (module comment). */
void chakra__pf_set_lags(const pf_prep *p)
{
	chakra_perf *r = p->r;
	const chakra_perf_options *opt = p->o;
	size_t n = r->nops;
	for (size_t v = 0; v < n; v++) {
		pf_op *o = &r->ops[v];
		const pf_rank *k = &r->ranks[o->rank];
		uint32_t s0 = r->in_first[2 * v], s1 = r->in_first[2 * v + 1];
		uint32_t e1 = r->in_first[2 * v + 2];
		if (k->timed) {
			/* start: the binding edge keeps the recorded gap; an edge whose
			 * source came after the op's recorded start (the previous
			 * iteration's tail, where the recorded one was shorter) cannot
			 * have bound it */
			uint32_t best = PF_NONE;
			int64_t bt = INT64_MIN;
			int bok = 0;
			for (uint32_t i = s0; i < s1; i++) {
				pf_in *e = &r->in[i];
				if (v == k->mark0 && e->kind == CHAKRA_PERF_EDGE_NEXT)
					continue; /* lag 0: the next iteration starts where this one ended */
				int64_t src = rec_time(r, e->src, e->cross);
				int64_t t = src + default_lag(r, o, e->kind);
				int ok = src <= o->rs;
				if (best == PF_NONE || ok > bok || (ok == bok && t > bt)) {
					best = i;
					bt = t;
					bok = ok;
				}
			}
			for (uint32_t i = s0; i < s1; i++) {
				pf_in *e = &r->in[i];
				if (v == k->mark0 && e->kind == CHAKRA_PERF_EDGE_NEXT) {
					e->lag = 0;
					continue;
				}
				int64_t gap = o->rs - rec_time(r, e->src, e->cross);
				if (gap < 0)
					gap = 0;
				/* modelled gaps: from the launches; work whose launch is not
				 * in the graph (enqueued before the trace began) keeps its
				 * recorded place */
				if (opt->modelled_gaps && pf_is_gpu_kind(o->kind) &&
				    p->launch[v] != PF_NONE && e->kind != CHAKRA_PERF_EDGE_WINDOW &&
				    !(e->kind == CHAKRA_PERF_EDGE_STREAM && same_launch(p, (uint32_t)v)))
					e->lag = default_lag(r, o, e->kind);
				else if (i == best)
					e->lag = gap;
				else {
					int64_t d = default_lag(r, o, e->kind);
					e->lag = d < gap ? d : gap;
				}
			}
		}
		if (o->kind == CHAKRA_PERF_SYNC) {
			/* a blocking call returns `base` after the later of its own
			 * start and the end of what it waits for; base is the part of
			 * its recorded time it did not spend waiting */
			int64_t re = o->rs + pf_rec_dur(o), wait = INT64_MIN;
			for (uint32_t i = s1 + 1; i < e1; i++)
				if (r->in[i].kind == CHAKRA_PERF_EDGE_SYNC) {
					int64_t t = rec_time(r, r->in[i].src, 0);
					if (t > wait)
						wait = t;
				}
			int64_t from = wait > o->rs ? wait : o->rs;
			int64_t base = k->timed ? re - from : pf_rec_dur(o);
			if (base < 0)
				base = 0;
			o->dur = base;
			r->in[s1].lag = base; /* the internal edge comes first */
			for (uint32_t i = s1 + 1; i < e1; i++)
				if (r->in[i].kind == CHAKRA_PERF_EDGE_SYNC) {
					/* no negative tail: where host and device clocks are
					 * skewed (the GPU op seems to end after the call
					 * returned) the call ends with the GPU op, a few us late,
					 * and no lag ever runs backwards in time */
					int64_t tail = k->timed ? re - rec_time(r, r->in[i].src, 0) : base;
					r->in[i].lag = tail < 0 ? 0 : tail < base ? tail : base;
				}
		}
	}
}

int chakra_perf_has_edge(const chakra_perf *r, uint64_t from, uint64_t to)
{
	if (!r || !r->in_first || from >= r->nops || to >= r->nops)
		return 0;
	size_t n = r->nops;
	for (uint32_t ev = (uint32_t)(2 * to); ev <= 2 * to + 1; ev++)
		for (uint32_t i = r->in_first[ev]; i < r->in_first[ev + 1]; i++) {
			uint32_t s = r->in[i].src;
			if (r->in[i].kind == PF_INTERNAL)
				continue;
			if (s < 2 * n && s / 2 == from)
				return 1;
			if (s >= 2 * n) {
				const pf_coll *cl = &r->colls[s - 2 * n];
				for (uint32_t m = 0; m < cl->n; m++)
					if (r->coll_members[cl->first + m] == from)
						return 1;
			}
		}
	return 0;
}
