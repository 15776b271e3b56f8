/* SPDX-License-Identifier: Apache-2.0 */
/* The replay engine: from the ops and edges as recorded to a max-plus
 * graph of start and end events with a lag on every edge, then its
 * longest paths, iteration after iteration.
 *
 * Every op has a start event S and an end event E. S waits for its
 * resource's previous op, for its explicit predecessors and, for a
 * resource's first op, for the iteration start; E waits for S plus the
 * op's duration and, for a blocking call, for the GPU ops it waits for,
 * and for a collective member, for the last member's arrival plus the
 * transfer time. Each edge has a lag taken from the recording: the edge
 * that bound the op's start in the recording keeps the recorded gap (host
 * time between ops, launch latency, back-to-back gap), the others get a
 * model default no larger than what was recorded, so a replay of the
 * unchanged trace reproduces it and a changed one moves for the right
 * reason (docs/replay.md). */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pf_impl.h"

typedef struct tedge {
	uint32_t src, dst;
	uint8_t kind, cross, first_only;
	int64_t lag;
} tedge;

typedef struct xcls {
	uint32_t from, to;
	uint8_t kind;
} xcls;

typedef struct prep {
	chakra_perf *r;
	const chakra_perf_options *o;
	tedge *te;
	size_t nte, te_cap;
	xcls *xc;
	size_t nxc, xc_cap;
	uint32_t *launch;        /* per op: latest-starting launch source, PF_NONE */
} prep;

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
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

static int64_t scaled(int64_t d, double f)
{
	if (d <= 0)
		return 0;
	if (f == 1.0)
		return d;
	double v = (double)d * f + 0.5;
	return v >= (double)((int64_t)1 << 60) ? (int64_t)1 << 60 : (int64_t)v;
}

static int64_t rec_dur(const pf_op *o)
{
	return o->rd > 0 ? o->rd : 0;
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
			int64_t e = o->rs0 + rec_dur(o);
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
	int64_t t = g->rs + rec_dur(g);
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
	if (w != v && c->kind0 == CHAKRA_PERF_CALL && c->rs + rec_dur(c) >= t)
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

static int thread_waits(prep *p)
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
				e[n].t = o->rs + rec_dur(o);
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
					from = a->rs + rec_dur(a);
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
				xcls *c = PF_PUSH(p->xc, p->nxc, p->xc_cap);
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
static int classify(prep *p)
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
		xcls *c = &p->xc[p->nxc++];
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
static int typical_gaps(prep *p)
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
			int64_t e = u->rs + rec_dur(u);
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
				int64_t dep = prev ? prev->rs + rec_dur(prev) : INT64_MIN;
				if (evt[v] > dep)
					dep = evt[v];
				if (dep <= call->rs)
					lat[nl++] = o->rs > call->rs ? o->rs - call->rs : 0;
				else if (call->rs + rec_dur(call) <= dep)
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

/* ---- collectives ---- */

/* Groups given in the options: indexed by name once per run, and checked
 * there, where they enter (ranks below PF_RANK_LIMIT, none twice). */
typedef struct optgroups {
	const chakra_sim_groups *gs;
	chakra__ixmap ix;
} optgroups;

static int og_eq(const void *ctx, uint32_t i, const void *key)
{
	const chakra_sim_groups *gs = ctx;
	const char *const *k = key;
	size_t n = (size_t)(k[1] - k[0]);
	return strlen(gs->g[i].name) == n && !memcmp(gs->g[i].name, k[0], n);
}

static uint64_t og_hash(const void *ctx, uint32_t i, uint64_t seed)
{
	const chakra_sim_groups *gs = ctx;
	return chakra__graph_hash_bytes(gs->g[i].name, strlen(gs->g[i].name), seed);
}

static int og_open(chakra_perf *r, optgroups *og, const chakra_sim_groups *gs)
{
	memset(og, 0, sizeof *og);
	chakra__ixmap_init(&og->ix);
	og->gs = gs;
	if (!gs)
		return 0;
	size_t most = 0;
	for (size_t i = 0; i < gs->n; i++)
		if (gs->g[i].n > most)
			most = gs->g[i].n;
	uint32_t *t = chakra_malloc((most ? most : 1) * sizeof *t);
	if (!t)
		return chakra__pf_fail(r, CHAKRA_ENOMEM, "out of memory");
	int rc = 0;
	for (size_t i = 0; i < gs->n && !rc; i++) {
		const chakra_sim_group *g = &gs->g[i];
		if (!g->name || (!g->ranks && g->n)) {
			rc = chakra__pf_fail(r, CHAKRA_EINVAL, "groups: entry %zu has no name or no ranks",
			                     i);
			break;
		}
		memcpy(t, g->ranks, g->n * sizeof *t);
		qsort(t, g->n, sizeof *t, cmp_u32);
		for (size_t k = 0; k < g->n && !rc; k++)
			if (t[k] >= PF_RANK_LIMIT || (k && t[k] == t[k - 1]))
				rc = chakra__pf_fail(r, CHAKRA_EINVAL, "group '%.200s': %s %u", g->name,
				                     t[k] >= PF_RANK_LIMIT ? "not a rank:"
				                                           : "lists a rank twice:", t[k]);
		size_t nl = strlen(g->name);
		const char *key[2] = { g->name, g->name + nl };
		uint64_t h = chakra__graph_hash_bytes(g->name, nl, og->ix.seed);
		/* the first of a name wins, as chakra_sim_groups_find does */
		if (!rc && chakra__ixmap_find(&og->ix, h, og_eq, gs, key) == CHAKRA__IXMAP_NONE &&
		    chakra__ixmap_add(&og->ix, h, (uint32_t)i, og_hash, gs) < 0)
			rc = chakra__pf_fail(r, CHAKRA_ENOMEM, "out of memory");
	}
	chakra_free(t);
	return rc;
}

static const chakra_sim_group *og_find(const optgroups *og, const char *name, size_t len)
{
	if (!og->gs)
		return NULL;
	const char *key[2] = { name, name + len };
	uint32_t i = chakra__ixmap_find(&og->ix, chakra__graph_hash_bytes(name, len, og->ix.seed),
	                                og_eq, og->gs, key);
	return i == CHAKRA__IXMAP_NONE ? NULL : &og->gs->g[i];
}

/* The members of a collective's group below `limit` (the ranks loaded, or
 * the network's NPUs when it models the collective), each once, into buf
 * (marked mark[rank] = gen): the options' groups, the trace's METADATA
 * nodes, else every rank loaded. *beyond: a member at or past the limit. */
static size_t group_members(chakra_perf *r, const optgroups *og, const pf_op *op,
                            uint32_t *buf, uint32_t *mark, uint32_t gen, uint32_t limit,
                            uint32_t *beyond)
{
	const char *name = pf_str(r, op->pg_off);
	size_t m = 0;
	*beyond = PF_NONE;
	if (op->pg_len) {
		const chakra_sim_group *sg = og_find(og, name, op->pg_len);
		const pf_group *g = sg ? NULL : chakra__pf_group_find(r, name, op->pg_len);
		if (sg || g) {
			size_t n = sg ? sg->n : g->n;
			for (size_t k = 0; k < n; k++) {
				uint32_t rk = sg ? sg->ranks[k] : pf_member(g, k);
				if (rk >= limit) {
					if (*beyond == PF_NONE)
						*beyond = rk;
					if (!g || g->ranks)
						continue;
					break; /* a range: the rest are larger still */
				}
				if (mark[rk] != gen) {
					mark[rk] = gen;
					buf[m++] = rk;
				}
			}
			return m;
		}
	}
	for (uint32_t k = 0; k < r->nranks; k++)
		if (r->ranks[k].present) {
			mark[k] = gen;
			buf[m++] = k;
		}
	return m;
}

typedef struct cref {
	uint32_t rank, op;
	int64_t rs;
	uint32_t add;
	uint32_t pg_off, pg_len;
} cref;

static const chakra_perf *cref_ctx;
static int cmp_cref(const void *a, const void *b)
{
	const cref *x = a, *y = b;
	if (x->pg_len != y->pg_len)
		return x->pg_len < y->pg_len ? -1 : 1;
	int c = memcmp(cref_ctx->pool + x->pg_off, cref_ctx->pool + y->pg_off, x->pg_len);
	if (c)
		return c;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->rs != y->rs)
		return x->rs < y->rs ? -1 : 1;
	return x->add < y->add ? -1 : x->add > y->add;
}

/* The k-th collective a rank issues on a group is the k-th of every other
 * member (in recorded order). Members loaded together are tied: each ends
 * when the last one has arrived plus the transfer time, which is the
 * shortest recorded duration among them (the last to arrive waited the
 * least; docs/replay.md) or the network model's. */
static int collectives(prep *p, const double *cscale)
{
	chakra_perf *r = p->r;
	const chakra_perf_options *o = p->o;
	r->ncolls = r->ncm = 0;
	size_t n = 0;
	for (size_t i = 0; i < r->nops; i++)
		n += r->ops[i].kind == CHAKRA_PERF_COMM;
	if (!n)
		return 0;
	/* members that matter: ranks loaded, and the network's NPUs when it
	 * models the collectives */
	int net = o->network && o->system;
	uint32_t limit = (uint32_t)r->nranks;
	if (net && o->network->npus > limit)
		limit = o->network->npus;
	cref *c = chakra_malloc(n * sizeof *c);
	uint32_t *all = chakra_malloc((limit ? limit : 1) * sizeof *all);
	uint32_t *mark = chakra_calloc(limit ? limit : 1, sizeof *mark);
	uint32_t *cnt = chakra_calloc(r->nranks ? r->nranks : 1, sizeof *cnt);
	uint32_t gen = 0;
	optgroups og;
	int rc = og_open(r, &og, o->groups);
	if (rc < 0)
		goto out;
	if (!c || !all || !mark || !cnt) {
		rc = chakra__pf_fail(r, CHAKRA_ENOMEM, "out of memory");
		goto out;
	}
	n = 0;
	for (size_t i = 0; i < r->nops; i++) {
		pf_op *x = &r->ops[i];
		x->coll = PF_NONE;
		if (x->kind != CHAKRA_PERF_COMM)
			continue;
		if (x->comm_type < 0) {
			/* send / recv: their recorded time (no peer matching here) */
			if (x->rd < 0) {
				char a[200];
				rc = chakra__pf_fail(r, CHAKRA_EINVAL, "%s: a send/recv without a recorded "
				                     "duration cannot be replayed",
				                     chakra__pf_opname(r, (uint32_t)i, a, sizeof a));
				goto out;
			}
			continue;
		}
		c[n].rank = x->rank;
		c[n].op = (uint32_t)i;
		c[n].rs = x->rs;
		c[n].add = x->add;
		c[n].pg_off = x->pg_off;
		c[n].pg_len = x->pg_len;
		n++;
	}
	cref_ctx = r;
	qsort(c, n, sizeof *c, cmp_cref);
	for (size_t i = 0; i < n;) {
		/* one group: c[i .. j) sorted by rank, then order */
		size_t j = i;
		while (j < n && c[j].pg_len == c[i].pg_len &&
		       !memcmp(r->pool + c[j].pg_off, r->pool + c[i].pg_off, c[i].pg_len))
			j++;
		uint32_t beyond;
		const uint32_t *gr = all;
		size_t gn = group_members(r, &og, &r->ops[c[i].op], all, mark, ++gen, limit, &beyond);
		if (net && beyond != PF_NONE) {
			rc = chakra__pf_fail(r, CHAKRA_EINVAL, "a %s collective of group '%.*s' spans "
			                     "rank %u, but the network has %u NPUs",
			                     chakra_comm_type_name(r->ops[c[i].op].comm_type),
			                     (int)(c[i].pg_len > 200 ? 200 : c[i].pg_len),
			                     r->pool + c[i].pg_off, beyond, o->network->npus);
			goto out;
		}
		/* members loaded: ranks of the group that have ops here (each
		 * once: a group is checked where it enters, and gr holds no rank
		 * twice either way) */
		size_t loaded = 0;
		for (size_t k = 0; k < gn; k++)
			if (gr[k] < r->nranks && r->ranks[gr[k]].present)
				loaded++;
		/* per rank: its ops on this group are c[start[rank] ...] (cnt is
		 * zero outside the ranks of this span: reset below, not cleared
		 * whole per group) */
		for (size_t k = i; k < j; k++)
			cnt[c[k].rank]++;
		uint32_t first_rank = c[i].rank;
		for (size_t k = i; k < j; k++) {
			if (mark[c[k].rank] != gen) {
				char a[200];
				rc = chakra__pf_fail(r, CHAKRA_EINVAL, "%s: rank %u is not in its group '%.*s'",
				                     chakra__pf_opname(r, c[k].op, a, sizeof a), c[k].rank,
				                     (int)c[k].pg_len, r->pool + c[k].pg_off);
				goto out;
			}
		}
		if (loaded > 1) {
			for (size_t q = 0; q < gn; q++) {
				uint32_t rk = gr[q];
				if (rk >= r->nranks || !r->ranks[rk].present)
					continue;
				if (cnt[rk] != cnt[first_rank]) {
					rc = chakra__pf_fail(r, CHAKRA_EINVAL, "group '%.*s': rank %u issues %u "
					                     "collectives, rank %u issues %u: they cannot be "
					                     "matched", (int)c[i].pg_len, r->pool + c[i].pg_off,
					                     first_rank, cnt[first_rank], rk, cnt[rk]);
					goto out;
				}
			}
		}
		uint32_t per = cnt[first_rank];
		size_t members = loaded > 1 ? loaded : 1;
		for (uint32_t t = 0; t < per; t++) {
			/* instance t: the t-th op of every member rank (sorted by rank) */
			size_t base_cm = r->ncm;
			int64_t tmin = INT64_MAX;
			int missing = 0;
			uint32_t op0 = PF_NONE;
			if (loaded > 1) {
				size_t k = i;
				for (size_t m = 0; m < members; m++) {
					uint32_t rk = c[k].rank;
					uint32_t opi = c[k + t].op;
					k += cnt[rk];
					uint32_t *slot = PF_PUSH(r->coll_members, r->ncm, r->cm_cap);
					if (!slot) {
						rc = chakra__pf_fail(r, CHAKRA_ENOMEM, "out of memory");
						goto out;
					}
					*slot = opi;
				}
			} else {
				uint32_t *slot = PF_PUSH(r->coll_members, r->ncm, r->cm_cap);
				if (!slot) {
					rc = chakra__pf_fail(r, CHAKRA_ENOMEM, "out of memory");
					goto out;
				}
				*slot = c[i + t].op;
			}
			for (size_t m = base_cm; m < r->ncm; m++) {
				pf_op *x = &r->ops[r->coll_members[m]];
				if (op0 == PF_NONE)
					op0 = r->coll_members[m];
				const pf_op *x0 = &r->ops[op0];
				if (x->comm_type != x0->comm_type || x->comm_size != x0->comm_size) {
					char a[200], b[200];
					rc = chakra__pf_fail(r, CHAKRA_EINVAL, "%s: %s of %llu bytes, but %s "
					                     "issued %s of %llu bytes as the same collective",
					                     chakra__pf_opname(r, r->coll_members[m], a, sizeof a),
					                     chakra_comm_type_name(x->comm_type),
					                     (unsigned long long)x->comm_size,
					                     chakra__pf_opname(r, op0, b, sizeof b),
					                     chakra_comm_type_name(x0->comm_type),
					                     (unsigned long long)x0->comm_size);
					goto out;
				}
				if (x->rd < 0)
					missing = 1;
				else {
					int64_t d = scaled(x->rd, cscale[r->coll_members[m]]);
					if (d < tmin)
						tmin = d;
				}
			}
			int64_t tt;
			if (o->network && o->system) {
				rc = chakra__pf_net_time(r, o, r->ops[op0].comm_type, r->ops[op0].comm_size,
				                         gr, gn, &tt);
				if (rc < 0)
					goto out;
			} else if (missing) {
				char a[200];
				rc = chakra__pf_fail(r, CHAKRA_EINVAL, "%s: a collective without a recorded "
				                     "duration: give --network and --system to model it",
				                     chakra__pf_opname(r, op0, a, sizeof a));
				goto out;
			} else
				tt = tmin;
			for (size_t m = base_cm; m < r->ncm; m++)
				r->ops[r->coll_members[m]].dur = tt;
			if (r->ncm - base_cm > 1) {
				pf_coll *cl = PF_PUSH(r->colls, r->ncolls, r->colls_cap);
				if (!cl) {
					rc = chakra__pf_fail(r, CHAKRA_ENOMEM, "out of memory");
					goto out;
				}
				cl->first = (uint32_t)base_cm;
				cl->n = (uint32_t)(r->ncm - base_cm);
				cl->t = tt;
				for (size_t m = base_cm; m < r->ncm; m++)
					r->ops[r->coll_members[m]].coll = (uint32_t)(r->ncolls - 1);
			} else
				r->ncm = base_cm; /* a lone member: nothing to tie */
		}
		for (size_t k = i; k < j; k++)
			cnt[c[k].rank] = 0;
		i = j;
	}
out:
	chakra__ixmap_free(&og.ix);
	chakra_free(c);
	chakra_free(all);
	chakra_free(mark);
	chakra_free(cnt);
	return rc;
}

/* ---- the event graph ---- */

static int te_add(prep *p, uint32_t src, uint32_t dst, int kind, int cross, int64_t lag)
{
	tedge *e = PF_PUSH(p->te, p->nte, p->te_cap);
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
	int64_t t = u->rs + ((ev & 1) ? rec_dur(u) : 0);
	if (cross) {
		const pf_rank *k = &r->ranks[u->rank];
		t -= k->w1 - k->w0;
	}
	return t;
}

static int build_edges(prep *p)
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
		const xcls *c = &p->xc[i];
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
static int same_launch(const prep *p, uint32_t v)
{
	const chakra_perf *r = p->r;
	const pf_op *o = &r->ops[v];
	const pf_res *x = &r->res[o->res];
	if (!x->gpu || !o->pos || p->launch[v] == PF_NONE)
		return 0;
	return p->launch[r->order[x->first + o->pos - 1]] == p->launch[v];
}

/* Lags from the recording (module comment). */
static void set_lags(const prep *p)
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
			int64_t re = o->rs + rec_dur(o), wait = INT64_MIN;
			for (uint32_t i = s1 + 1; i < e1; i++)
				if (r->in[i].kind == CHAKRA_PERF_EDGE_SYNC) {
					int64_t t = rec_time(r, r->in[i].src, 0);
					if (t > wait)
						wait = t;
				}
			int64_t from = wait > o->rs ? wait : o->rs;
			int64_t base = k->timed ? re - from : rec_dur(o);
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

static int cycle_error(chakra_perf *r, const uint32_t *indeg)
{
	/* A blocked event always has a blocked predecessor: walking back
	 * nev steps lands on the cycle; then name a few of its ops. */
	uint32_t ev = PF_NONE;
	for (size_t i = 0; i < r->nev && ev == PF_NONE; i++)
		if (indeg[i])
			ev = (uint32_t)i;
	char msg[700] = "";
	size_t len = 0;
	int named = 0;
	uint32_t last = PF_NONE;
	for (size_t steps = 0; ev != PF_NONE && steps < r->nev + 16; steps++) {
		uint32_t next = PF_NONE;
		for (uint32_t i = r->in_first[ev]; i < r->in_first[ev + 1]; i++)
			if (!r->in[i].cross && indeg[r->in[i].src]) {
				next = r->in[i].src;
				break;
			}
		ev = next;
		if (steps >= r->nev && ev != PF_NONE && ev < 2 * r->nops && ev / 2 != last &&
		    named < 4) {
			char a[200];
			last = ev / 2;
			len += (size_t)snprintf(msg + len, sizeof msg - len, "%s%s", len ? " <- " : "",
			                        chakra__pf_opname(r, ev / 2, a, sizeof a));
			named++;
		}
	}
	return chakra__pf_fail(r, CHAKRA_ECYCLE, "dependency cycle (a deadlock: e.g. collectives "
	                       "issued in different orders on different ranks): %s", msg);
}

static int topo_order(chakra_perf *r)
{
	size_t nev = r->nev;
	uint32_t *indeg = chakra_calloc(nev ? nev : 1, sizeof *indeg);
	uint32_t *ofirst = chakra_calloc(nev + 1, sizeof *ofirst);
	uint32_t *out = chakra_malloc((r->nin ? r->nin : 1) * sizeof *out);
	chakra_free(r->topo);
	r->topo = chakra_malloc((nev ? nev : 1) * sizeof *r->topo);
	int rc = 0;
	if (!indeg || !ofirst || !out || !r->topo) {
		rc = chakra__pf_fail(r, CHAKRA_ENOMEM, "out of memory");
		goto done;
	}
	for (size_t d = 0; d < nev; d++)
		for (uint32_t i = r->in_first[d]; i < r->in_first[d + 1]; i++)
			if (!r->in[i].cross) {
				indeg[d]++;
				ofirst[r->in[i].src + 1]++;
			}
	for (size_t i = 0; i < nev; i++)
		ofirst[i + 1] += ofirst[i];
	{
		uint32_t *fill = chakra_malloc((nev ? nev : 1) * sizeof *fill);
		if (!fill) {
			rc = chakra__pf_fail(r, CHAKRA_ENOMEM, "out of memory");
			goto done;
		}
		memcpy(fill, ofirst, nev * sizeof *fill);
		for (size_t d = 0; d < nev; d++)
			for (uint32_t i = r->in_first[d]; i < r->in_first[d + 1]; i++)
				if (!r->in[i].cross)
					out[fill[r->in[i].src]++] = (uint32_t)d;
		chakra_free(fill);
	}
	size_t head = 0, tail = 0;
	for (size_t i = 0; i < nev; i++)
		if (!indeg[i])
			r->topo[tail++] = (uint32_t)i;
	while (head < tail) {
		uint32_t e = r->topo[head++];
		for (uint32_t i = ofirst[e]; i < ofirst[e + 1]; i++)
			if (!--indeg[out[i]])
				r->topo[tail++] = out[i];
	}
	if (tail != nev)
		rc = cycle_error(r, indeg);
done:
	chakra_free(indeg);
	chakra_free(ofirst);
	chakra_free(out);
	return rc;
}

int chakra__pf_prepare(chakra_perf *r, const chakra_perf_options *o)
{
	prep p = { r, o, NULL, 0, 0, NULL, 0, 0, NULL };
	regex_t *re = NULL;
	double *cscale = NULL;
	size_t nre = 0;
	int rc;
	r->nops = r->nops_user;
	r->ncolls = r->ncm = 0;
	if ((rc = add_markers(r)) || (rc = relative_times(r)) || (rc = run_order(r)) ||
	    (rc = classify(&p)) || (rc = thread_waits(&p)) || (rc = typical_gaps(&p)))
		goto out;
	/* durations: kernel-scale rules, compute scale */
	if (o->n_kernel_scale) {
		re = chakra_calloc(o->n_kernel_scale, sizeof *re);
		if (!re) {
			rc = chakra__pf_fail(r, CHAKRA_ENOMEM, "out of memory");
			goto out;
		}
		for (; nre < o->n_kernel_scale; nre++) {
			int e = regcomp(&re[nre], o->kernel_scale_re[nre], REG_EXTENDED | REG_NOSUB);
			if (e) {
				char buf[200];
				regerror(e, &re[nre], buf, sizeof buf);
				rc = chakra__pf_fail(r, CHAKRA_EINVAL, "kernel-scale pattern '%s': %s",
				                     o->kernel_scale_re[nre], buf);
				goto out;
			}
			if (!(o->kernel_scale[nre] >= 0) || o->kernel_scale[nre] > 1e9) {
				rc = chakra__pf_fail(r, CHAKRA_EINVAL, "kernel-scale factor for '%s' must be "
				                     "in 0..1e9", o->kernel_scale_re[nre]);
				regfree(&re[nre]);
				goto out;
			}
		}
	}
	/* a factor is a number in 0..1e9 (0 = unchanged for compute_scale):
	 * NaN and negatives used to be taken as 1, inf and 1e300 gave a 0 ns
	 * iteration */
	if (!(o->compute_scale >= 0 && o->compute_scale <= 1e9)) {
		rc = chakra__pf_fail(r, CHAKRA_EINVAL, "compute scale %g: a factor must be in 0..1e9 "
		                     "(0: unchanged)", o->compute_scale);
		goto out;
	}
	for (size_t k = 0; o->rank_compute_scale && k < r->nranks; k++)
		if (!(o->rank_compute_scale[k] >= 0 && o->rank_compute_scale[k] <= 1e9)) {
			rc = chakra__pf_fail(r, CHAKRA_EINVAL, "compute scale of rank %zu: %g: a factor "
			                     "must be in 0..1e9", k, o->rank_compute_scale[k]);
			goto out;
		}
	double cs = o->compute_scale > 0 ? o->compute_scale : 1.0;
	cscale = chakra_malloc((r->nops ? r->nops : 1) * sizeof *cscale);
	if (!cscale) {
		rc = chakra__pf_fail(r, CHAKRA_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < r->nops; i++) {
		pf_op *x = &r->ops[i];
		double f = 1.0;
		if (pf_is_gpu_kind(x->kind))
			for (size_t k = 0; k < nre; k++)
				if (!regexec(&re[k], pf_str(r, x->name_off), 0, NULL, 0)) {
					f = o->kernel_scale[k];
					break;
				}
		if (x->kind == CHAKRA_PERF_KERNEL || x->kind == CHAKRA_PERF_MEMORY) {
			f *= cs;
			if (o->rank_compute_scale)
				f *= o->rank_compute_scale[x->rank];
		}
		cscale[i] = f;
		x->dur = x->kind == CHAKRA_PERF_MARK ? 0 : scaled(x->rd, f);
	}
	if ((rc = collectives(&p, cscale)) || (rc = build_edges(&p)))
		goto out;
	set_lags(&p);
	rc = topo_order(r);
out:
	for (size_t k = 0; k < nre; k++)
		regfree(&re[k]);
	chakra_free(re);
	chakra_free(cscale);
	chakra_free(p.te);
	chakra_free(p.xc);
	chakra_free(p.launch);
	return rc;
}

/* ---- evaluation ---- */

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

int chakra_perf_run(chakra_perf *r, const chakra_perf_options *opts)
{
	if (!r)
		return CHAKRA_EINVAL;
	chakra_perf_options o;
	if (chakra__opts_copy(&o, sizeof o, opts, &chakra__pf_opts_default, chakra__pf_opts_size,
	                      2) < 0)
		return chakra__pf_fail(r, CHAKRA_EINVAL, "replay options: version %u, expected %u",
		                       opts->version, CHAKRA_PERF_OPTIONS_VERSION);
	opts = &o;
	if ((opts->network != NULL) != (opts->system != NULL))
		return chakra__pf_fail(r, CHAKRA_EINVAL, "the network model needs both a network "
		                       "and a system configuration");
	r->ran = 0;
	chakra__pf_net_free(r); /* another network, maybe */
	if (!r->nops_user)
		return chakra__pf_fail(r, CHAKRA_EINVAL, "nothing to replay: the workload has no ops");
	int all_timed = 1;
	for (size_t k = 0; k < r->nranks; k++)
		if (r->ranks[k].present && !r->ranks[k].timed)
			all_timed = 0;
	r->copies = opts->copies ? opts->copies : all_timed ? 2 : 1;
	if (r->copies > 64)
		return chakra__pf_fail(r, CHAKRA_EINVAL, "copies: at most 64");
	if (!all_timed)
		r->copies = 1; /* no recorded window to repeat */
	int rc = chakra__pf_prepare(r, opts);
	if (!rc)
		rc = chakra__pf_evaluate(r);
	if (!rc)
		rc = chakra__pf_report(r);
	if (!rc)
		r->ran = 1;
	return rc;
}
