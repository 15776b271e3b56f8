/* SPDX-License-Identifier: Apache-2.0 */
/* The collectives: which ops of which ranks are one collective instance
 * (the k-th a rank issues on a group is the k-th of every other member),
 * and each instance's transfer time, recorded or the network model's. */
#include <stdlib.h>
#include <string.h>

#include "pf_impl.h"

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

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
int chakra__pf_collectives(pf_prep *p, const double *cscale)
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
					int64_t d = pf_scaled(x->rd, cscale[r->coll_members[m]]);
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
