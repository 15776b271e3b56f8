/* SPDX-License-Identifier: Apache-2.0 */
/* What the recording says, before any edge gets a lag: the iteration
 * markers, times relative to each rank's window, the run order on every
 * resource, the explicit edges named from their endpoints, the waits
 * between threads Kineto did not record, and the runtime's typical launch
 * latency and back-to-back gap (docs/replay.md). */
#include <stdlib.h>
#include <string.h>

#include "pf_impl.h"

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

typedef struct runkey {
	uint32_t res;
	int8_t cls;              /* -1 start marker, 0 op, 1 end marker */
	int64_t rs;
	uint32_t add, op;
} runkey;

/* Run order on a resource: start marker, then recorded start, then the
 * order the ops were added, then the end marker. */
static int cmp_run(const void *a, const void *b)
{
	const runkey *x = a, *y = b;
	if (x->res != y->res)
		return x->res < y->res ? -1 : 1;
	if (x->cls != y->cls)
		return x->cls < y->cls ? -1 : 1;
	if (x->rs != y->rs)
		return x->rs < y->rs ? -1 : 1;
	return x->add < y->add ? -1 : x->add > y->add;
}


/* Add the iteration markers on the window's thread of each timed rank. */
static int add_markers(chakra_perf *r)
{
	for (uint32_t k = 0; k < r->nranks; k++) {
		pf_rank *rk = &r->ranks[k];
		rk->mark0 = rk->mark1 = PF_NONE;
		if (!rk->present || !rk->timed)
			continue;
		int64_t lo = INT64_MAX, hi = INT64_MIN;
		/* the window's thread: given, else the CPU thread whose last op
		 * ends latest (the one that closes the iteration) */
		int64_t th = rk->thread, th_end = INT64_MIN;
		for (size_t i = 0; i < r->nops_user; i++) {
			const pf_op *o = &r->ops[i];
			if (o->rank != k || !o->timed)
				continue;
			int64_t e = o->rs0 + pf_rec_dur(o);
			if (o->rs0 < lo)
				lo = o->rs0;
			if (e > hi)
				hi = e;
			if (rk->thread < 0 && !r->res[o->res].gpu && e > th_end) {
				th_end = e;
				th = o->res;
			}
		}
		if (!rk->have_window) {
			rk->w0 = lo;
			rk->w1 = hi;
		}
		if (th < 0) {
			int64_t x = chakra_perf_resource(r, k, 0, -1, -1);
			if (x < 0)
				return (int)x;
			th = x;
		}
		for (int m = 0; m < 2; m++) {
			pf_op *o = PF_PUSH(r->ops, r->nops, r->ops_cap);
			if (!o)
				return chakra__pf_fail(r, CHAKRA_ENOMEM, "out of memory");
			memset(o, 0, sizeof *o);
			o->res = (uint32_t)th;
			o->rank = k;
			o->kind = o->kind0 = CHAKRA_PERF_MARK;
			o->timed = 1;
			o->rs0 = m ? rk->w1 : rk->w0;
			o->rd = 0;
			o->id = UINT64_MAX;
			o->coll = PF_NONE;
			o->add = (uint32_t)(r->nops - 1);
			o->backlog = PF_NO_BACKLOG;
			if (m)
				rk->mark1 = (uint32_t)(r->nops - 1);
			else
				rk->mark0 = (uint32_t)(r->nops - 1);
		}
	}
	return 0;
}

/* Times relative to the window start; untimed ops in a timed rank take
 * the start of the op added before them on their resource. */
static int relative_times(chakra_perf *r)
{
	int64_t *last = chakra_malloc((r->nres ? r->nres : 1) * sizeof *last);
	if (!last)
		return chakra__pf_fail(r, CHAKRA_ENOMEM, "out of memory");
	for (size_t i = 0; i < r->nres; i++)
		last[i] = 0;
	for (size_t i = 0; i < r->nops; i++) {
		pf_op *o = &r->ops[i];
		const pf_rank *k = &r->ranks[o->rank];
		if (!k->timed) {
			o->rs = 0;
			continue;
		}
		if (o->timed) {
			/* relative times within 2^61 ns keep every difference of
			 * them (and a window) inside int64 */
			int64_t x, w;
			if (__builtin_sub_overflow(o->rs0, k->w0, &x) || x > PF_REL_MAX || x < -PF_REL_MAX ||
			    __builtin_sub_overflow(k->w1, k->w0, &w) || w > PF_REL_MAX) {
				char a[200];
				chakra_free(last);
				return chakra__pf_fail(r, CHAKRA_ERANGE, "%s: starts %lld ns from its "
				                       "window's start %lld: out of range",
				                       chakra__pf_opname(r, (uint32_t)i, a, sizeof a),
				                       (long long)o->rs0, (long long)k->w0);
			}
			last[o->res] = o->rs = x;
		} else
			o->rs = last[o->res];
	}
	chakra_free(last);
	return 0;
}

static int run_order(chakra_perf *r)
{
	runkey *keys = chakra_malloc((r->nops ? r->nops : 1) * sizeof *keys);
	chakra_free(r->order);
	r->order = chakra_malloc((r->nops ? r->nops : 1) * sizeof *r->order);
	if (!keys || !r->order) {
		chakra_free(keys);
		return chakra__pf_fail(r, CHAKRA_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < r->nops; i++) {
		const pf_op *o = &r->ops[i];
		const pf_rank *k = &r->ranks[o->rank];
		keys[i].res = o->res;
		keys[i].cls = (int8_t)(i == k->mark0 ? -1 : i == k->mark1 ? 1 : 0);
		keys[i].rs = o->rs;
		keys[i].add = o->add;
		keys[i].op = (uint32_t)i;
	}
	qsort(keys, r->nops, sizeof *keys, cmp_run);
	for (size_t i = 0; i < r->nres; i++)
		r->res[i].n = r->res[i].nreal = 0;
	for (size_t i = 0; i < r->nops; i++) {
		pf_res *x = &r->res[keys[i].res];
		if (!x->n)
			x->first = (uint32_t)i;
		r->ops[keys[i].op].pos = x->n++;
		x->nreal += r->ops[keys[i].op].kind != CHAKRA_PERF_MARK;
		r->order[i] = keys[i].op;
	}
	chakra_free(keys);
	return 0;
}

/* The op that waited for GPU op u, given an edge u -> v whose producer
 * did not say (CHAKRA_PERF_DEP_INFER): the runtime call that was running on
 * v's thread when u finished (a blocking copy's own cudaMemcpy, which older
 * converters tie to the op after it), else v. */
static uint32_t waiter(const chakra_perf *r, uint32_t u, uint32_t v)
{
	const pf_op *g = &r->ops[u], *b = &r->ops[v];
	const pf_res *x = &r->res[b->res];
	if (!r->ranks[b->rank].timed || !g->timed)
		return v;
	int64_t t = g->rs + pf_rec_dur(g);
	/* the last op at or before v that started by t */
	uint32_t lo = 0, hi = b->pos + 1;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (r->ops[r->order[x->first + mid]].rs <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return v;
	uint32_t w = r->order[x->first + lo - 1];
	const pf_op *c = &r->ops[w];
	if (w != v && c->kind0 == CHAKRA_PERF_CALL && c->rs + pf_rec_dur(c) >= t)
		return w;
	return v;
}

/* A thread that sat idle for a long time (>= PF_THREAD_GAP) was waiting
 * for another thread (the main thread during the autograd thread's
 * backward pass, and the other way round): the op after the gap depends on
 * the op of another thread of the rank that ended last inside the gap.
 * Kineto does not record these waits; the edge's lag is what was recorded,
 * so the replay of the unchanged trace does not move. Only for ranks whose
 * graph does not give them (converters since format 2 write the same rule
 * and Kineto's fwdbwd flows as edges). */
#define PF_THREAD_GAP 1000000 /* ns */

typedef struct endref {
	int64_t t;
	uint32_t op;
} endref;

static int cmp_end(const void *a, const void *b)
{
	const endref *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->op < y->op ? -1 : x->op > y->op;
}

static int thread_waits(pf_prep *p)
{
	chakra_perf *r = p->r;
	size_t ncpu = 0;
	for (size_t i = 0; i < r->nops; i++)
		ncpu += !r->res[r->ops[i].res].gpu && r->ops[i].kind != CHAKRA_PERF_MARK;
	endref *e = chakra_malloc((ncpu ? ncpu : 1) * sizeof *e);
	if (!e)
		return chakra__pf_fail(r, CHAKRA_ENOMEM, "out of memory");
	for (uint32_t k = 0; k < r->nranks; k++) {
		if (!r->ranks[k].present || !r->ranks[k].timed ||
		    (r->ranks[k].given & CHAKRA_PERF_GIVEN_THREAD_WAITS))
			continue;
		size_t n = 0, nthreads = 0;
		for (size_t i = 0; i < r->nres; i++)
			nthreads += r->res[i].rank == k && !r->res[i].gpu && r->res[i].n;
		if (nthreads < 2)
			continue;
		for (size_t i = 0; i < r->nops; i++) {
			const pf_op *o = &r->ops[i];
			if (o->rank == k && !r->res[o->res].gpu && o->kind != CHAKRA_PERF_MARK) {
				e[n].t = o->rs + pf_rec_dur(o);
				e[n++].op = (uint32_t)i;
			}
		}
		qsort(e, n, sizeof *e, cmp_end);
		for (size_t ri = 0; ri < r->nres; ri++) {
			const pf_res *x = &r->res[ri];
			if (x->rank != k || x->gpu)
				continue;
			for (uint32_t j = 0; j < x->n; j++) {
				uint32_t v = r->order[x->first + j];
				const pf_op *b = &r->ops[v];
				if (b->kind == CHAKRA_PERF_MARK)
					continue;
				int64_t from = 0;
				if (j) {
					const pf_op *a = &r->ops[r->order[x->first + j - 1]];
					from = a->rs + pf_rec_dur(a);
				}
				if (b->rs - from < PF_THREAD_GAP)
					continue;
				/* the last end at or before b's start */
				size_t lo = 0, hi = n;
				while (lo < hi) {
					size_t mid = lo + (hi - lo) / 2;
					if (e[mid].t <= b->rs)
						lo = mid + 1;
					else
						hi = mid;
				}
				while (lo && r->ops[e[lo - 1].op].res == b->res)
					lo--;
				if (!lo || e[lo - 1].t <= from)
					continue;
				pf_xcls *c = PF_PUSH(p->xc, p->nxc, p->xc_cap);
				if (!c) {
					chakra_free(e);
					return chakra__pf_fail(r, CHAKRA_ENOMEM, "out of memory");
				}
				c->from = e[lo - 1].op;
				c->to = v;
				c->kind = CHAKRA_PERF_EDGE_THREAD;
				r->thread_waits++;
			}
		}
	}
	chakra_free(e);
	return 0;
}

/* Explicit edges, named from their endpoints; edges between ops of one
 * resource are implied by its order (or contradict it: dropped, counted). */
static int classify(pf_prep *p)
{
	chakra_perf *r = p->r;
	p->xc_cap = r->nxe ? r->nxe : 1;
	p->xc = chakra_malloc(p->xc_cap * sizeof *p->xc);
	p->launch = chakra_malloc((r->nops ? r->nops : 1) * sizeof *p->launch);
	if (!p->xc || !p->launch)
		return chakra__pf_fail(r, CHAKRA_ENOMEM, "out of memory");
	for (size_t i = 0; i < r->nops; i++) {
		r->ops[i].kind = r->ops[i].kind0;
		p->launch[i] = PF_NONE;
	}
	r->dropped_edges = 0;
	r->thread_waits = 0;
	p->nxc = 0;
	for (size_t i = 0; i < r->nxe; i++) {
		uint32_t u = r->xe[i].from, v = r->xe[i].to;
		pf_op *a = &r->ops[u], *b = &r->ops[v];
		if (a->res == b->res) {
			if (a->pos > b->pos)
				r->dropped_edges++;
			continue;
		}
		int ga = r->res[a->res].gpu, gb = r->res[b->res].gpu;
		uint8_t kind;
		if (!ga && !gb)
			kind = CHAKRA_PERF_EDGE_THREAD;
		else if (!ga && gb) {
			kind = CHAKRA_PERF_EDGE_LAUNCH;
			if (p->launch[v] == PF_NONE || r->ops[p->launch[v]].rs < a->rs)
				p->launch[v] = u;
		} else if (ga && gb)
			kind = CHAKRA_PERF_EDGE_EVENT;
		else if (r->xe[i].how == CHAKRA_PERF_DEP_START)
			kind = CHAKRA_PERF_EDGE_AFTER;
		else {
			/* a wait: given (the call that blocked), or inferred */
			kind = CHAKRA_PERF_EDGE_SYNC;
			if (r->xe[i].how == CHAKRA_PERF_DEP_INFER)
				v = waiter(r, u, v);
			b = &r->ops[v];
			b->kind = CHAKRA_PERF_SYNC;
		}
		pf_xcls *c = &p->xc[p->nxc++];
		c->from = u;
		c->to = v;
		c->kind = kind;
	}
	return 0;
}

/* The runtime's behaviour measured on each rank's own recording: launch
 * latency (launch call start -> op start, when the stream was idle at the
 * launch) and the gap between back-to-back ops on a stream (previous end
 * -> start, when the launch had returned before the previous op ended). */
static int typical_gaps(pf_prep *p)
{
	chakra_perf *r = p->r;
	int64_t *lat = chakra_malloc((r->nops ? r->nops : 1) * sizeof *lat);
	int64_t *gap = chakra_malloc((r->nops ? r->nops : 1) * sizeof *gap);
	int64_t *evt = chakra_malloc((r->nops ? r->nops : 1) * sizeof *evt);
	if (!lat || !gap || !evt) {
		chakra_free(lat);
		chakra_free(gap);
		chakra_free(evt);
		return chakra__pf_fail(r, CHAKRA_ENOMEM, "out of memory");
	}
	/* what an op waited for on other streams (event waits) counts as its
	 * stream's previous op */
	for (size_t i = 0; i < r->nops; i++)
		evt[i] = INT64_MIN;
	for (size_t i = 0; i < p->nxc; i++)
		if (p->xc[i].kind == CHAKRA_PERF_EDGE_EVENT) {
			const pf_op *u = &r->ops[p->xc[i].from];
			int64_t e = u->rs + pf_rec_dur(u);
			if (e > evt[p->xc[i].to])
				evt[p->xc[i].to] = e;
		}
	for (uint32_t k = 0; k < r->nranks; k++) {
		pf_rank *rk = &r->ranks[k];
		rk->launch_lat = rk->queue_gap = 0;
		if (!rk->present || !rk->timed)
			continue;
		size_t nl = 0, ng = 0;
		for (size_t i = 0; i < r->nres; i++) {
			const pf_res *x = &r->res[i];
			if (x->rank != k || !x->gpu)
				continue;
			for (uint32_t j = 0; j < x->n; j++) {
				uint32_t v = r->order[x->first + j];
				const pf_op *o = &r->ops[v];
				uint32_t c = p->launch[v];
				if (c == PF_NONE || !o->timed)
					continue;
				const pf_op *call = &r->ops[c];
				const pf_op *prev = j ? &r->ops[r->order[x->first + j - 1]] : NULL;
				int64_t dep = prev ? prev->rs + pf_rec_dur(prev) : INT64_MIN;
				if (evt[v] > dep)
					dep = evt[v];
				if (dep <= call->rs)
					lat[nl++] = o->rs > call->rs ? o->rs - call->rs : 0;
				else if (call->rs + pf_rec_dur(call) <= dep)
					gap[ng++] = o->rs > dep ? o->rs - dep : 0;
			}
		}
		if (nl) {
			qsort(lat, nl, sizeof *lat, cmp_i64);
			rk->launch_lat = lat[nl / 2];
		}
		if (ng) {
			qsort(gap, ng, sizeof *gap, cmp_i64);
			rk->queue_gap = gap[ng / 2];
		}
	}
	chakra_free(lat);
	chakra_free(gap);
	chakra_free(evt);
	return 0;
}

int chakra__pf_recorded(pf_prep *p)
{
	chakra_perf *r = p->r;
	int rc;
	if ((rc = add_markers(r)) || (rc = relative_times(r)) || (rc = run_order(r)) ||
	    (rc = classify(p)) || (rc = thread_waits(p)) || (rc = typical_gaps(p)))
		return rc;
	return 0;
}
