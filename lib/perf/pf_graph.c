/* SPDX-License-Identifier: Apache-2.0 */
/* The replay graph: resources, ops, edges as the caller adds them, and the
 * handle's bookkeeping (strings, errors, accessors). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chakra/experimental/graph.h"
#include "pf_impl.h"

uint64_t chakra__pf_hash(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

uint32_t chakra__pf_map_get(const pf_map *m, uint64_t key)
{
	return m->m ? chakra_idmap_get(m->m, key) : PF_NONE;
}

int chakra__pf_map_put(pf_map *m, uint64_t key, uint32_t val)
{
	if (!m->m && !(m->m = chakra_idmap_new(0)))
		return CHAKRA_ENOMEM;
	return chakra_idmap_set(m->m, key, val) < 0 ? CHAKRA_ENOMEM : 0;
}

void chakra__pf_map_free(pf_map *m)
{
	chakra_idmap_free(m->m);
	m->m = NULL;
}

int chakra__pf_fail(chakra_perf *r, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->err, sizeof r->err, fmt, ap);
	va_end(ap);
	return code;
}

uint32_t chakra__pf_pool_add(chakra_perf *r, const char *s, size_t n)
{
	if (n > UINT32_MAX / 2 || r->pool_n + n + 1 > UINT32_MAX)
		return PF_NONE;
	if (!PF_RESERVE(r->pool, r->pool_cap, r->pool_n + n + 1))
		return PF_NONE;
	uint32_t off = (uint32_t)r->pool_n;
	if (n)
		memcpy(r->pool + off, s, n);
	r->pool[off + n] = 0;
	r->pool_n += n + 1;
	return off;
}

pf_rank *chakra__pf_rank(chakra_perf *r, uint32_t rank)
{
	if (rank >= r->nranks) {
		if (rank > (1u << 24))
			return NULL;
		if (!PF_RESERVE(r->ranks, r->ranks_cap, (size_t)rank + 1))
			return NULL;
		memset(r->ranks + r->nranks, 0, ((size_t)rank + 1 - r->nranks) * sizeof *r->ranks);
		for (size_t i = r->nranks; i <= rank; i++) {
			r->ranks[i].thread = -1;
			r->ranks[i].mark0 = r->ranks[i].mark1 = PF_NONE;
		}
		r->nranks = (size_t)rank + 1;
	}
	r->ranks[rank].present = 1;
	return &r->ranks[rank];
}

const char *chakra__pf_opname(const chakra_perf *r, uint32_t op, char *buf, size_t len)
{
	const pf_op *o = &r->ops[op];
	if (o->kind == CHAKRA_PERF_MARK)
		snprintf(buf, len, "rank %u iteration %s", o->rank,
		         op == r->ranks[o->rank].mark0 ? "start" : "end");
	else
		snprintf(buf, len, "rank %u node %llu (%.80s)", o->rank, (unsigned long long)o->id,
		         pf_str(r, o->name_off));
	return buf;
}

static const char *const kind_names[CHAKRA_PERF_KIND_COUNT] = {
	"cpu", "call", "sync", "kernel", "memory", "comm", "mark"
};
static const char *const edge_names[CHAKRA_PERF_EDGE_KIND_COUNT] = {
	"program", "stream", "launch", "event", "sync", "thread", "window", "peer", "next", "after",
	"backlog"
};

const char *chakra_perf_kind_name(int kind)
{
	return kind >= 0 && kind < CHAKRA_PERF_KIND_COUNT ? kind_names[kind] : "?";
}

const char *chakra_perf_edge_kind_name(int kind)
{
	if (kind == -1)
		return "own";
	return kind >= 0 && kind < CHAKRA_PERF_EDGE_KIND_COUNT ? edge_names[kind] : "?";
}

const size_t chakra__pf_opts_size[2] = { 0, sizeof(chakra_perf_options) };
const chakra_perf_options chakra__pf_opts_default = CHAKRA_PERF_OPTIONS_INIT;

int chakra_perf_options_init(chakra_perf_options *opts, unsigned version)
{
	return chakra__opts_init(opts, version, &chakra__pf_opts_default, chakra__pf_opts_size, 2);
}

int chakra_perf_new(chakra_perf **out)
{
	if (!out)
		return CHAKRA_EINVAL;
	chakra_perf *r = chakra_calloc(1, sizeof *r);
	*out = r;
	if (!r)
		return CHAKRA_ENOMEM;
	if (chakra__pf_pool_add(r, "", 0) == PF_NONE) {
		chakra_free(r);
		*out = NULL;
		return CHAKRA_ENOMEM;
	}
	chakra__ixmap_init(&r->res_ix);
	chakra__ixmap_init(&r->group_ix);
	return 0;
}

static void free_results(chakra_perf *r)
{
	chakra_free(r->val);
	chakra_free(r->arg);
	chakra_free(r->ends);
	chakra_free(r->path);
	r->val = NULL;
	r->arg = NULL;
	r->ends = NULL;
	r->path = NULL;
	r->npath = r->path_cap = 0;
	r->ran = 0;
}

void chakra_perf_free(chakra_perf *r)
{
	if (!r)
		return;
	free_results(r);
	chakra_free(r->pool);
	chakra_free(r->res);
	chakra__ixmap_free(&r->res_ix);
	chakra__ixmap_free(&r->group_ix);
	chakra_free(r->ops);
	chakra_free(r->xe);
	for (size_t i = 0; i < r->nranks; i++)
		chakra_free(r->ranks[i].annot);
	chakra_free(r->ranks);
	for (size_t i = 0; i < r->ngroups; i++)
		chakra_free(r->groups[i].ranks);
	chakra_free(r->groups);
	chakra_free(r->order);
	chakra_free(r->in_first);
	chakra_free(r->in);
	chakra_free(r->topo);
	chakra_free(r->colls);
	chakra_free(r->coll_members);
	chakra__pf_net_free(r);
	chakra_free(r);
}

const char *chakra_perf_errmsg(const chakra_perf *r)
{
	return r ? r->err : "no replay handle";
}

/* Resources by (rank, gpu, device, id), exactly, under a keyed hash: the
 * hash of the tuple used to be the key, and (device, stream) pairs chosen
 * to share it made every lookup scan the resources after it. */
typedef struct reskey {
	uint32_t rank;
	uint8_t gpu;
	int64_t device, id;
} reskey;

static uint64_t res_hash(uint32_t rank, int gpu, int64_t device, int64_t id, uint64_t seed)
{
	uint64_t h = chakra__graph_mix(((uint64_t)rank << 1) | (gpu != 0), seed);
	h = chakra__graph_mix(h ^ (uint64_t)device, seed);
	return chakra__graph_mix(h ^ (uint64_t)id, ~seed);
}

static int res_eq(const void *ctx, uint32_t i, const void *key)
{
	const chakra_perf *r = ctx;
	const reskey *k = key;
	const pf_res *x = &r->res[i];
	return x->rank == k->rank && x->gpu == k->gpu && x->device == k->device && x->id == k->id;
}

static uint64_t res_rehash(const void *ctx, uint32_t i, uint64_t seed)
{
	const chakra_perf *r = ctx;
	const pf_res *x = &r->res[i];
	return res_hash(x->rank, x->gpu, x->device, x->id, seed);
}

int64_t chakra_perf_resource(chakra_perf *r, uint32_t rank, int gpu, int64_t device, int64_t id)
{
	if (!r)
		return CHAKRA_EINVAL;
	reskey key = { rank, (uint8_t)(gpu != 0), device, id };
	uint64_t h = res_hash(rank, gpu, device, id, r->res_ix.seed);
	uint32_t i = chakra__ixmap_find(&r->res_ix, h, res_eq, r, &key);
	if (i != CHAKRA__IXMAP_NONE)
		return (int64_t)i;
	if (!chakra__pf_rank(r, rank))
		return chakra__pf_fail(r, CHAKRA_ENOMEM, "out of memory");
	pf_res *x = PF_PUSH(r->res, r->nres, r->res_cap);
	if (!x)
		return chakra__pf_fail(r, CHAKRA_ENOMEM, "out of memory");
	memset(x, 0, sizeof *x);
	x->rank = rank;
	x->gpu = gpu != 0;
	x->device = device;
	x->id = id;
	if (chakra__ixmap_add(&r->res_ix, h, (uint32_t)(r->nres - 1), res_rehash, r) < 0) {
		r->nres--;
		return chakra__pf_fail(r, CHAKRA_ENOMEM, "out of memory");
	}
	r->prepared_dirty = 1;
	return (int64_t)(r->nres - 1);
}

/* ---- process groups ---- */
struct gkey {
	const char *s;
	size_t n;
};

static int group_eq(const void *ctx, uint32_t i, const void *key)
{
	const chakra_perf *r = ctx;
	const struct gkey *k = key;
	const pf_group *g = &r->groups[i];
	return g->name_len == k->n && !memcmp(pf_str(r, g->name_off), k->s, k->n);
}

static uint64_t group_rehash(const void *ctx, uint32_t i, uint64_t seed)
{
	const chakra_perf *r = ctx;
	const pf_group *g = &r->groups[i];
	return chakra__graph_hash_bytes(pf_str(r, g->name_off), g->name_len, seed);
}

const pf_group *chakra__pf_group_find(const chakra_perf *r, const char *name, size_t len)
{
	struct gkey k = { name, len };
	uint32_t i = chakra__ixmap_find(&r->group_ix, chakra__graph_hash_bytes(name, len,
	                                r->group_ix.seed), group_eq, r, &k);
	return i == CHAKRA__IXMAP_NONE ? NULL : &r->groups[i];
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

int chakra__pf_group_add(chakra_perf *r, const char *name, size_t len, const int64_t *ranks,
                         size_t n, int64_t start, int64_t stride, char *why, size_t whylen)
{
	if (chakra__pf_group_find(r, name, len))
		return 0;
	uint32_t *rk = NULL;
	if (ranks) {
		for (size_t i = 0; i < n; i++)
			if (ranks[i] < 0 || ranks[i] >= PF_RANK_LIMIT) {
				snprintf(why, whylen, "member %lld is not a rank (0..%u)", (long long)ranks[i],
				         PF_RANK_LIMIT - 1);
				return CHAKRA_EINVAL;
			}
		rk = chakra_malloc((n ? n : 1) * sizeof *rk);
		uint32_t *t = chakra_malloc((n ? n : 1) * sizeof *t);
		if (!rk || !t) {
			chakra_free(rk), chakra_free(t);
			return CHAKRA_ENOMEM;
		}
		for (size_t i = 0; i < n; i++)
			rk[i] = t[i] = (uint32_t)ranks[i];
		/* a rank listed twice is refused here, once: the collective
		 * matching counts members (it read past an array) */
		qsort(t, n, sizeof *t, cmp_u32);
		for (size_t i = 1; i < n; i++)
			if (t[i] == t[i - 1]) {
				snprintf(why, whylen, "rank %u is listed twice", t[i]);
				chakra_free(rk), chakra_free(t);
				return CHAKRA_EINVAL;
			}
		chakra_free(t);
	} else {
		int64_t last;
		if (n == 0 || start < 0 || stride <= 0 || start >= PF_RANK_LIMIT ||
		    __builtin_mul_overflow((int64_t)n - 1, stride, &last) ||
		    __builtin_add_overflow(last, start, &last) || last >= PF_RANK_LIMIT) {
			snprintf(why, whylen, "the range of %zu ranks from %lld by %lld leaves the ranks "
			         "(0..%u)", n, (long long)start, (long long)stride, PF_RANK_LIMIT - 1);
			return CHAKRA_EINVAL;
		}
	}
	uint32_t off = chakra__pf_pool_add(r, name, len);
	pf_group *g = off != PF_NONE ? PF_PUSH(r->groups, r->ngroups, r->groups_cap) : NULL;
	if (!g) {
		chakra_free(rk);
		return CHAKRA_ENOMEM;
	}
	g->name_off = off;
	g->name_len = (uint32_t)len;
	g->ranks = rk;
	g->n = n;
	g->start = ranks ? 0 : (uint32_t)start;
	g->stride = ranks ? 0 : (uint32_t)stride;
	if (chakra__ixmap_add(&r->group_ix, chakra__graph_hash_bytes(name, len, r->group_ix.seed),
	                      (uint32_t)(r->ngroups - 1), group_rehash, r) < 0) {
		chakra_free(rk);
		r->ngroups--;
		return CHAKRA_ENOMEM;
	}
	return 0;
}

int64_t chakra_perf_op_add(chakra_perf *r, const chakra_perf_op *op)
{
	if (!r || !op)
		return CHAKRA_EINVAL;
	if (op->resource >= r->nres)
		return chakra__pf_fail(r, CHAKRA_EINVAL, "op %llu: resource %u does not exist",
		                       (unsigned long long)op->id, op->resource);
	if (op->kind != CHAKRA_PERF_CPU && op->kind != CHAKRA_PERF_CALL &&
	    op->kind != CHAKRA_PERF_KERNEL && op->kind != CHAKRA_PERF_MEMORY &&
	    op->kind != CHAKRA_PERF_COMM)
		return chakra__pf_fail(r, CHAKRA_EINVAL, "op %llu: kind %d cannot be added",
		                       (unsigned long long)op->id, (int)op->kind);
	int gpu = r->res[op->resource].gpu;
	if (gpu != pf_is_gpu_kind(op->kind))
		return chakra__pf_fail(r, CHAKRA_EINVAL, "op %llu: a %s op on a %s resource",
		                       (unsigned long long)op->id, chakra_perf_kind_name(op->kind),
		                       gpu ? "GPU stream" : "CPU thread");
	if (r->nops_user != r->nops) {
		r->nops = r->nops_user; /* drop the markers of an earlier run */
		for (size_t k = 0; k < r->nranks; k++)
			r->ranks[k].mark0 = r->ranks[k].mark1 = PF_NONE;
	}
	/* times far beyond any trace (2^62 ns: 146 years; durations 2^50 ns:
	 * 13 days) keep every sum the engine makes inside int64 */
	if (op->start_ns != CHAKRA_PERF_NO_TIME &&
	    (op->start_ns > PF_TIME_MAX || op->start_ns < -PF_TIME_MAX))
		return chakra__pf_fail(r, CHAKRA_ERANGE, "op %llu: start time %lld ns is out of range",
		                       (unsigned long long)op->id, (long long)op->start_ns);
	if (op->dur_ns > PF_DUR_MAX)
		return chakra__pf_fail(r, CHAKRA_ERANGE, "op %llu: duration %lld ns is out of range",
		                       (unsigned long long)op->id, (long long)op->dur_ns);
	if (r->nops >= UINT32_MAX / 2 - 8)
		return chakra__pf_fail(r, CHAKRA_ERANGE, "too many ops");
	size_t nl = op->name ? (op->name_len == (size_t)-1 ? strlen(op->name) : op->name_len) : 0;
	uint32_t off = chakra__pf_pool_add(r, op->name, nl);
	size_t pl = op->pg_name ? strlen(op->pg_name) : 0;
	uint32_t pgoff = pl ? chakra__pf_pool_add(r, op->pg_name, pl) : 0;
	pf_op *o = PF_PUSH(r->ops, r->nops, r->ops_cap);
	if (off == PF_NONE || pgoff == PF_NONE || !o)
		return chakra__pf_fail(r, CHAKRA_ENOMEM, "out of memory");
	memset(o, 0, sizeof *o);
	o->res = op->resource;
	o->rank = r->res[op->resource].rank;
	o->kind = o->kind0 = (uint8_t)op->kind;
	o->timed = op->start_ns != CHAKRA_PERF_NO_TIME;
	o->rs0 = o->rs = o->timed ? op->start_ns : 0;
	o->rd = op->dur_ns;
	o->name_off = off;
	o->name_len = (uint32_t)nl;
	o->id = op->id;
	o->coll = PF_NONE;
	o->comm_type = op->comm_type;
	o->comm_size = op->comm_size;
	o->pg_off = pgoff;
	o->pg_len = (uint32_t)pl;
	o->add = (uint32_t)(r->nops - 1);
	o->backlog = PF_NO_BACKLOG;
	if (o->timed)
		r->ranks[o->rank].timed = 1;
	r->nops_user = r->nops;
	r->prepared_dirty = 1;
	return (int64_t)(r->nops - 1);
}

int chakra_perf_edge_add(chakra_perf *r, uint64_t from, uint64_t to)
{
	return chakra_perf_dep_add(r, from, to, CHAKRA_PERF_DEP_INFER);
}

int chakra_perf_dep_add(chakra_perf *r, uint64_t from, uint64_t to, chakra_perf_dep how)
{
	if (r && (how < CHAKRA_PERF_DEP_INFER || how > CHAKRA_PERF_DEP_WAIT))
		return chakra__pf_fail(r, CHAKRA_EINVAL, "edge %llu -> %llu: unknown dependency kind %d",
		                       (unsigned long long)from, (unsigned long long)to, (int)how);
	if (!r || from >= r->nops_user || to >= r->nops_user)
		return r ? chakra__pf_fail(r, CHAKRA_EINVAL, "edge %llu -> %llu: no such op",
		                           (unsigned long long)from, (unsigned long long)to)
		         : CHAKRA_EINVAL;
	if (r->ops[from].rank != r->ops[to].rank) {
		char a[160], b[160];
		return chakra__pf_fail(r, CHAKRA_EINVAL, "edge %s -> %s crosses ranks (collectives "
		                       "are matched by the engine)",
		                       chakra__pf_opname(r, (uint32_t)from, a, sizeof a),
		                       chakra__pf_opname(r, (uint32_t)to, b, sizeof b));
	}
	if (from == to)
		return 0;
	if (how == CHAKRA_PERF_DEP_WAIT &&
	    (!r->res[r->ops[from].res].gpu || r->res[r->ops[to].res].gpu)) {
		char a[160], b[160];
		return chakra__pf_fail(r, CHAKRA_EINVAL, "wait %s -> %s: a wait goes from a device op "
		                       "to a CPU op",
		                       chakra__pf_opname(r, (uint32_t)from, a, sizeof a),
		                       chakra__pf_opname(r, (uint32_t)to, b, sizeof b));
	}
	pf_xedge *e = PF_PUSH(r->xe, r->nxe, r->xe_cap);
	if (!e)
		return chakra__pf_fail(r, CHAKRA_ENOMEM, "out of memory");
	e->from = (uint32_t)from;
	e->to = (uint32_t)to;
	e->how = (uint8_t)how;
	r->prepared_dirty = 1;
	return 0;
}

int chakra_perf_rank_given(chakra_perf *r, uint32_t rank, unsigned what)
{
	if (!r)
		return CHAKRA_EINVAL;
	if (what & ~CHAKRA_PERF_GIVEN_THREAD_WAITS)
		return chakra__pf_fail(r, CHAKRA_EINVAL, "rank %u: unknown flags 0x%x", rank, what);
	pf_rank *k = chakra__pf_rank(r, rank);
	if (!k)
		return chakra__pf_fail(r, CHAKRA_ENOMEM, "out of memory");
	k->given = what;
	r->prepared_dirty = 1;
	return 0;
}

int chakra_perf_window(chakra_perf *r, uint32_t rank, int64_t start_ns, int64_t end_ns,
                         int64_t thread)
{
	if (!r)
		return CHAKRA_EINVAL;
	if (end_ns < start_ns)
		return chakra__pf_fail(r, CHAKRA_EINVAL, "rank %u: window ends (%lld) before it "
		                       "starts (%lld)", rank, (long long)end_ns, (long long)start_ns);
	if (start_ns < -PF_TIME_MAX || end_ns > PF_TIME_MAX)
		return chakra__pf_fail(r, CHAKRA_ERANGE, "rank %u: window %lld..%lld ns is out of "
		                       "range", rank, (long long)start_ns, (long long)end_ns);
	if (thread >= 0 && ((size_t)thread >= r->nres || r->res[thread].gpu ||
	                    r->res[thread].rank != rank))
		return chakra__pf_fail(r, CHAKRA_EINVAL, "rank %u: window thread %lld is not one of "
		                       "its CPU threads", rank, (long long)thread);
	pf_rank *k = chakra__pf_rank(r, rank);
	if (!k)
		return chakra__pf_fail(r, CHAKRA_ENOMEM, "out of memory");
	k->have_window = 1;
	k->w0 = start_ns;
	k->w1 = end_ns;
	k->thread = thread;
	r->prepared_dirty = 1;
	return 0;
}

/* ---- results ---- */

const chakra_perf_breakdown *chakra_perf_breakdown_of(const chakra_perf *r, int64_t rank)
{
	if (!r || !r->ran)
		return NULL;
	if (rank < 0)
		rank = r->crit_rank;
	if ((uint64_t)rank >= r->nranks || !r->ranks[rank].present)
		return NULL;
	return &r->ranks[rank].bd;
}

uint32_t chakra_perf_ranks(const chakra_perf *r)
{
	return r ? (uint32_t)r->nranks : 0;
}

uint64_t chakra_perf_op_count(const chakra_perf *r)
{
	if (!r)
		return 0;
	uint64_t n = 0;
	for (size_t i = 0; i < r->nops; i++)
		n += r->ops[i].kind != CHAKRA_PERF_MARK;
	return n;
}

uint64_t chakra_perf_edge_count(const chakra_perf *r)
{
	return r ? r->nxe : 0;
}

uint32_t chakra_perf_critical_rank(const chakra_perf *r)
{
	return r ? r->crit_rank : 0;
}

unsigned chakra_perf_iterations(const chakra_perf *r)
{
	return r && r->ran ? r->copies : 0;
}

uint64_t chakra_perf_unknown_deps(const chakra_perf *r)
{
	return r ? r->unknown_deps : 0;
}

uint64_t chakra_perf_dropped_edges(const chakra_perf *r)
{
	return r ? r->dropped_edges : 0;
}

uint64_t chakra_perf_thread_waits(const chakra_perf *r)
{
	return r ? r->thread_waits : 0;
}

size_t chakra_perf_resource_count(const chakra_perf *r)
{
	return r ? r->nres : 0;
}

int chakra_perf_resource_info_of(const chakra_perf *r, size_t i,
                                   chakra_perf_resource_info *out)
{
	if (!r || !out || i >= r->nres)
		return CHAKRA_EINVAL;
	const pf_res *x = &r->res[i];
	memset(out, 0, sizeof *out);
	out->rank = x->rank;
	out->gpu = x->gpu;
	out->device = x->device;
	out->id = x->id;
	out->ops = r->order ? x->nreal : 0;
	out->busy_ns = x->busy;
	if (x->rank < r->nranks) {
		out->launch_latency_ns = r->ranks[x->rank].launch_lat;
		out->queue_gap_ns = r->ranks[x->rank].queue_gap;
	}
	return 0;
}

int chakra_perf_op_info_of(const chakra_perf *r, uint64_t op, chakra_perf_op_info *out)
{
	if (!r || !out || op >= r->nops)
		return CHAKRA_EINVAL;
	const pf_op *o = &r->ops[op];
	memset(out, 0, sizeof *out);
	out->id = o->id;
	out->resource = o->res;
	out->rank = o->rank;
	out->kind = (chakra_perf_kind)o->kind;
	out->name = pf_str(r, o->name_off);
	out->name_len = o->name_len;
	out->recorded_start_ns = o->timed ? o->rs : CHAKRA_PERF_NO_TIME;
	out->recorded_dur_ns = o->rd;
	if (r->ran) {
		size_t c = (size_t)(r->copies - 1) * r->nev;
		out->start_ns = r->val[c + 2 * op] - r->base;
		out->end_ns = r->val[c + 2 * op + 1] - r->base;
	}
	return 0;
}

size_t chakra_perf_path_length(const chakra_perf *r)
{
	return r && r->ran ? r->npath : 0;
}

const chakra_perf_segment *chakra_perf_path(const chakra_perf *r)
{
	return r && r->ran ? r->path : NULL;
}

int chakra_perf_backlog(chakra_perf *r, uint64_t op, int64_t t_ns)
{
	if (!r)
		return CHAKRA_EINVAL;
	if (op >= r->nops_user || t_ns == CHAKRA_PERF_NO_TIME || t_ns > PF_TIME_MAX ||
	    t_ns < -PF_TIME_MAX)
		return chakra__pf_fail(r, CHAKRA_EINVAL, "backlog: no such op or time");
	pf_op *o = &r->ops[op];
	if (!r->res[o->res].gpu)
		return chakra__pf_fail(r, CHAKRA_EINVAL, "backlog: op %llu is not on a GPU stream",
		                       (unsigned long long)op);
	if (o->backlog == PF_NO_BACKLOG || t_ns > o->backlog)
		o->backlog = t_ns;
	r->prepared_dirty = 1;
	return 0;
}
