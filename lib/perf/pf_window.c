/* SPDX-License-Identifier: Apache-2.0 */
/* Windows between occurrences of a user annotation: how many there are
 * (the occurrences on the annotation's thread of every rank), and the
 * ops of windows first..last cut into a replay of their own, with the
 * state the longer run left them in (chakra_perf_between_range; the
 * median over them: pf_between.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pf_impl.h"

typedef struct occ {
	int64_t start, tid;
} occ;

static int annot_starts(const chakra_perf *r, uint32_t rank, const char *name, occ *out,
                        size_t cap)
{
	const pf_rank *k = &r->ranks[rank];
	size_t n = 0, nl = strlen(name);
	for (size_t i = 0; i < k->nannot; i++) {
		const struct pf_annot *a = &k->annot[i];
		if (a->name_len == nl && !memcmp(pf_str(r, a->name_off), name, nl)) {
			if (out && n < cap) {
				out[n].start = a->start;
				out[n].tid = a->tid;
			}
			n++;
		}
	}
	return (int)(n > INT32_MAX ? INT32_MAX : n);
}

int64_t chakra_perf_between_count(const chakra_perf *r, const char *annotation)
{
	if (!r || !annotation)
		return CHAKRA_EINVAL;
	int64_t best = -1;
	for (uint32_t k = 0; k < r->nranks; k++) {
		if (!r->ranks[k].present)
			continue;
		int n = annot_starts(r, k, annotation, NULL, 0);
		int64_t w = n > 0 ? n - 1 : 0;
		if (best < 0 || w < best)
			best = w;
	}
	return best < 0 ? 0 : best;
}

static int cmp_occ(const void *a, const void *b)
{
	const occ *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* Where op i's window starts: the last occurrence at or before t (its
 * index w, window [s[w], s[w+1])), or -1 when t is before the first or at
 * or after the last. */
static int64_t window_of(const occ *s, size_t m, int64_t t)
{
	size_t lo = 0, hi = m;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s[mid].start <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo == 0 || lo >= m ? -1 : (int64_t)lo - 1;
}

typedef struct between_ctx {
	const chakra_perf *r;
	size_t n;
	occ **starts;            /* per rank, sorted (NULL: not present) */
	size_t *nstarts;
	int64_t *win;            /* per op: window of a CPU op or an unlaunched device op, -1 */
	uint8_t *launched;       /* device op with a CPU launcher */
	uint32_t *out_first, *out_edge; /* CSR: edges (indices into xe) by source, xe order */
	uint32_t *stamp;         /* per op: tag of the window that holds it */
	uint32_t *map;           /* per op: index in the window's replay */
	uint32_t *list, *elist;  /* the window's ops, its edges */
	/* the state a window starts in (window_backlog) */
	uint32_t *gsort;         /* timed device ops by stream, then start */
	uint32_t *gpos;          /* per op: its place in gsort (UINT32_MAX: none) */
	int64_t *gbusy;          /* per place: latest end of the stream's ops before it */
	size_t ng;
	uint32_t *in_first, *in_edge; /* CSR: edges (indices into xe) by target */
	uint32_t *plist;         /* scratch: places of the window's device ops */
} between_ctx;

static int cmp_u32v(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static const chakra_perf *gs_ctx;
static int cmp_res_start(const void *x, const void *y)
{
	const pf_op *a = &gs_ctx->ops[*(const uint32_t *)x], *b = &gs_ctx->ops[*(const uint32_t *)y];
	if (a->res != b->res)
		return a->res < b->res ? -1 : 1;
	if (a->rs0 != b->rs0)
		return a->rs0 < b->rs0 ? -1 : 1;
	return *(const uint32_t *)x < *(const uint32_t *)y ? -1 : 1;
}

/* Where rank q's window w starts (INT64_MAX when it has none). */
static int64_t win_start(const between_ctx *bc, uint32_t q, uint64_t w)
{
	return bc->starts[q] && w + 1 < bc->nstarts[q] ? bc->starts[q][w].start : INT64_MAX;
}

/* The state a window cut from a longer replay starts in: a device op held
 * back by work outside the window (its stream's earlier work, or an event
 * it waited for) that ended after the window began. Each stream is walked
 * from the window's first op on it to its last, so the windows together
 * cost about one pass over the ops when they do not overlap. */
static int window_backlog(between_ctx *bc, uint64_t w, uint32_t tag, size_t nl, chakra_perf *d)
{
	const chakra_perf *r = bc->r;
	size_t np = 0;
	int rc = 0;
	for (size_t q = 0; q < nl; q++)
		if (bc->gpos[bc->list[q]] != UINT32_MAX)
			bc->plist[np++] = bc->gpos[bc->list[q]];
	qsort(bc->plist, np, sizeof *bc->plist, cmp_u32v);
	for (size_t q = 0; q < np && !rc;) {
		uint32_t res = r->ops[bc->gsort[bc->plist[q]]].res;
		size_t e = q;
		while (e + 1 < np && r->ops[bc->gsort[bc->plist[e + 1]]].res == res)
			e++;
		int64_t busy = bc->gbusy[bc->plist[q]];
		for (uint32_t pos = bc->plist[q]; pos <= bc->plist[e] && !rc; pos++) {
			uint32_t i = bc->gsort[pos];
			const pf_op *o = &r->ops[i];
			if (bc->stamp[i] == tag) {
				int64_t t = o->backlog;
				if (busy > win_start(bc, o->rank, w) && (t == PF_NO_BACKLOG || busy > t))
					t = busy;
				if (t != PF_NO_BACKLOG)
					rc = chakra_perf_backlog(d, bc->map[i], t);
			} else if (o->rd > 0 && o->rs0 + o->rd > busy) {
				busy = o->rs0 + o->rd;
			}
		}
		q = e + 1;
	}
	for (size_t q = 0; q < nl && !rc; q++) {
		uint32_t v = bc->list[q];
		if (!r->res[r->ops[v].res].gpu)
			continue;
		for (uint32_t k = bc->in_first[v]; k < bc->in_first[v + 1] && !rc; k++) {
			uint32_t u = r->xe[bc->in_edge[k]].from;
			const pf_op *a = &r->ops[u];
			if (bc->stamp[u] == tag || !r->res[a->res].gpu || !a->timed || a->rd < 0 ||
			    a->rs0 + a->rd <= win_start(bc, a->rank, w))
				continue;
			rc = chakra_perf_backlog(d, bc->map[v], a->rs0 + a->rd);
		}
	}
	return rc;
}

/* The replay of window w (ops listed in bc->list[0..nl), tagged). */
static int between_one(between_ctx *bc, uint64_t w, uint32_t tag, size_t nl, chakra_perf *d)
{
	const chakra_perf *r = bc->r;
	int rc = 0;
	/* the ops in the order they were added, and the edges among them in
	 * the order they were given: the replay the whole graph would make */
	qsort(bc->list, nl, sizeof *bc->list, cmp_u32v);
	size_t ne = 0;
	for (size_t q = 0; q < nl; q++) {
		uint32_t u = bc->list[q];
		for (uint32_t e = bc->out_first[u]; e < bc->out_first[u + 1]; e++)
			if (bc->stamp[r->xe[bc->out_edge[e]].to] == tag)
				bc->elist[ne++] = bc->out_edge[e];
	}
	qsort(bc->elist, ne, sizeof *bc->elist, cmp_u32v);
	for (size_t q = 0; q < nl && !rc; q++) {
		uint32_t i = bc->list[q];
		const pf_op *o = &r->ops[i];
		const pf_res *x = &r->res[o->res];
		/* the op's group, when the window has none of that name yet */
		if (o->pg_len && !chakra__pf_group_find(d, pf_str(r, o->pg_off), o->pg_len)) {
			const pf_group *g = chakra__pf_group_find(r, pf_str(r, o->pg_off), o->pg_len);
			int64_t *rk = g && g->ranks ? chakra_malloc((g->n ? g->n : 1) * sizeof *rk) : NULL;
			if (g && g->ranks && !rk) {
				rc = chakra__pf_fail(d, CHAKRA_ENOMEM, "out of memory");
				break;
			}
			for (size_t k = 0; rk && k < g->n; k++)
				rk[k] = g->ranks[k];
			char why[160];
			if (g && (rc = chakra__pf_group_add(d, pf_str(r, g->name_off), g->name_len, rk,
			                                    g->n, g->start, g->stride, why,
			                                    sizeof why)) < 0)
				rc = chakra__pf_fail(d, rc, "out of memory"); /* checked when it entered */
			chakra_free(rk);
			if (rc < 0)
				break;
		}
		int64_t res = chakra_perf_resource(d, o->rank, x->gpu, x->device, x->id);
		if (res < 0) {
			rc = (int)res;
			break;
		}
		chakra_perf_op op;
		memset(&op, 0, sizeof op);
		op.resource = (uint32_t)res;
		op.kind = (chakra_perf_kind)o->kind0;
		op.start_ns = o->timed ? o->rs0 : CHAKRA_PERF_NO_TIME;
		op.dur_ns = o->rd;
		op.name = pf_str(r, o->name_off);
		op.name_len = o->name_len;
		op.id = o->id;
		op.comm_type = o->comm_type;
		op.comm_size = o->comm_size;
		op.pg_name = o->pg_len ? pf_str(r, o->pg_off) : NULL;
		int64_t idx = chakra_perf_op_add(d, &op);
		if (idx < 0) {
			rc = (int)idx;
			break;
		}
		bc->map[i] = (uint32_t)idx;
	}
	for (size_t q = 0; q < ne && !rc; q++) {
		const pf_xedge *e = &r->xe[bc->elist[q]];
		rc = chakra_perf_dep_add(d, bc->map[e->from], bc->map[e->to], (chakra_perf_dep)e->how);
	}
	if (!rc)
		rc = window_backlog(bc, w, tag, nl, d);
	for (uint32_t q = 0; q < r->nranks && !rc; q++)
		if (r->ranks[q].present && q < d->nranks && d->ranks[q].present && r->ranks[q].given)
			rc = chakra_perf_rank_given(d, q, r->ranks[q].given);
	for (uint32_t q = 0; q < r->nranks && !rc; q++)
		if (r->ranks[q].present && q < d->nranks && d->ranks[q].present) {
			const occ *st = bc->starts[q];
			int64_t th = chakra__pf_window_thread(d, q, st[w].tid); /* the window's thread */
			rc = th < -1 ? (int)th : chakra_perf_window(d, q, st[w].start, st[w + 1].start, th);
		}
	return rc;
}

int chakra_perf_between_range(const chakra_perf *r, const char *annotation, uint64_t first,
                              size_t count, chakra_perf **outs)
{
	if (!r || !annotation || !outs || !count)
		return CHAKRA_EINVAL;
	for (size_t w = 0; w < count; w++)
		outs[w] = NULL;
	int64_t cnt = chakra_perf_between_count(r, annotation);
	chakra_perf *d = NULL;
	int rc = chakra_perf_new(&d);
	outs[0] = d;
	if (rc < 0)
		return rc;
	if (cnt < 0 || first >= (uint64_t)cnt || count > (uint64_t)cnt - first)
		return chakra__pf_fail(d, CHAKRA_EINVAL, "no window %llu between annotations '%s' "
		                       "(there are %lld)",
		                       (unsigned long long)(first >= (uint64_t)(cnt < 0 ? 0 : cnt)
		                                                ? first : first + count - 1),
		                       annotation, (long long)cnt);
	/* Every op is placed in its window once, and each window's replay is
	 * built from its own ops and their edges: O(ops + edges) for all the
	 * windows together (20,000 windows used to scan the whole graph each:
	 * 12 s for what takes 0.02 s). */
	between_ctx bc;
	memset(&bc, 0, sizeof bc);
	bc.r = r;
	size_t n = bc.n = r->nops_user, nr = r->nranks;
	bc.starts = chakra_calloc(nr ? nr : 1, sizeof *bc.starts);
	bc.nstarts = chakra_calloc(nr ? nr : 1, sizeof *bc.nstarts);
	bc.win = chakra_malloc((n ? n : 1) * sizeof *bc.win);
	bc.launched = chakra_calloc(n ? n : 1, 1);
	bc.out_first = chakra_calloc(n + 2, sizeof *bc.out_first);
	bc.out_edge = chakra_malloc((r->nxe ? r->nxe : 1) * sizeof *bc.out_edge);
	bc.stamp = chakra_calloc(n ? n : 1, sizeof *bc.stamp);
	bc.map = chakra_malloc((n ? n : 1) * sizeof *bc.map);
	bc.list = chakra_malloc((n ? n : 1) * sizeof *bc.list);
	bc.elist = chakra_malloc((r->nxe ? r->nxe : 1) * sizeof *bc.elist);
	bc.gsort = chakra_malloc((n ? n : 1) * sizeof *bc.gsort);
	bc.gpos = chakra_malloc((n ? n : 1) * sizeof *bc.gpos);
	bc.gbusy = chakra_malloc((n ? n : 1) * sizeof *bc.gbusy);
	bc.plist = chakra_malloc((n ? n : 1) * sizeof *bc.plist);
	bc.in_first = chakra_calloc(n + 2, sizeof *bc.in_first);
	bc.in_edge = chakra_malloc((r->nxe ? r->nxe : 1) * sizeof *bc.in_edge);
	uint32_t *first_of = chakra_calloc(count + 1, sizeof *first_of), *base = NULL;
	if (!bc.starts || !bc.nstarts || !bc.win || !bc.launched || !bc.out_first || !bc.out_edge ||
	    !bc.stamp || !bc.map || !bc.list || !bc.elist || !first_of || !bc.gsort || !bc.gpos ||
	    !bc.gbusy || !bc.plist || !bc.in_first || !bc.in_edge) {
		rc = chakra__pf_fail(d, CHAKRA_ENOMEM, "out of memory");
		goto done;
	}
	for (uint32_t q = 0; q < nr; q++) {
		if (!r->ranks[q].present)
			continue;
		int m = annot_starts(r, q, annotation, NULL, 0);
		bc.starts[q] = chakra_malloc((size_t)(m ? m : 1) * sizeof **bc.starts);
		if (!bc.starts[q]) {
			rc = chakra__pf_fail(d, CHAKRA_ENOMEM, "out of memory");
			goto done;
		}
		annot_starts(r, q, annotation, bc.starts[q], (size_t)m);
		qsort(bc.starts[q], (size_t)m, sizeof **bc.starts, cmp_occ);
		bc.nstarts[q] = (size_t)m;
	}
	/* edges by source (CSR, in xe order); device ops with a CPU launcher */
	for (size_t e = 0; e < r->nxe; e++) {
		uint32_t u = r->xe[e].from, v = r->xe[e].to;
		bc.out_first[u + 1]++;
		if (!r->res[r->ops[u].res].gpu && r->res[r->ops[v].res].gpu)
			bc.launched[v] = 1;
	}
	for (size_t i = 0; i < n; i++)
		bc.out_first[i + 1] += bc.out_first[i];
	/* edges by target, and the device ops by stream and start, with the
	 * latest end before each on its stream */
	for (size_t e = 0; e < r->nxe; e++)
		bc.in_first[r->xe[e].to + 1]++;
	for (size_t i = 0; i < n; i++)
		bc.in_first[i + 1] += bc.in_first[i];
	{
		uint32_t *fill = bc.gpos; /* cursor, before gpos is filled */
		memcpy(fill, bc.in_first, n * sizeof *fill);
		for (size_t e = 0; e < r->nxe; e++)
			bc.in_edge[fill[r->xe[e].to]++] = (uint32_t)e;
	}
	for (size_t i = 0; i < n; i++) {
		bc.gpos[i] = UINT32_MAX;
		if (r->res[r->ops[i].res].gpu && r->ops[i].timed)
			bc.gsort[bc.ng++] = (uint32_t)i;
	}
	gs_ctx = r;
	qsort(bc.gsort, bc.ng, sizeof *bc.gsort, cmp_res_start);
	{
		int64_t busy = INT64_MIN;
		for (size_t p = 0; p < bc.ng; p++) {
			const pf_op *o = &r->ops[bc.gsort[p]];
			if (p && o->res != r->ops[bc.gsort[p - 1]].res)
				busy = INT64_MIN;
			bc.gbusy[p] = busy;
			bc.gpos[bc.gsort[p]] = (uint32_t)p;
			if (o->rd > 0 && o->rs0 + o->rd > busy)
				busy = o->rs0 + o->rd;
		}
	}
	{
		uint32_t *fill = bc.map; /* cursor */
		memcpy(fill, bc.out_first, n * sizeof *fill);
		for (size_t e = 0; e < r->nxe; e++)
			bc.out_edge[fill[r->xe[e].from]++] = (uint32_t)e;
	}
	/* host ops that start in a window, device ops no host op launched by
	 * their own start; the launched ones follow their launcher below */
	for (size_t i = 0; i < n; i++) {
		const pf_op *o = &r->ops[i];
		int gpu = r->res[o->res].gpu;
		bc.win[i] = -1;
		if (!o->timed || (gpu && bc.launched[i]) || !bc.starts[o->rank])
			continue;
		int64_t w = window_of(bc.starts[o->rank], bc.nstarts[o->rank], o->rs0);
		if (w >= (int64_t)first && (uint64_t)w < first + count) {
			bc.win[i] = w - (int64_t)first;
			first_of[w - (int64_t)first + 1]++;
		}
	}
	for (size_t w = 0; w < count; w++)
		first_of[w + 1] += first_of[w];
	base = chakra_malloc((first_of[count] ? first_of[count] : 1) * sizeof *base);
	uint32_t *fill = chakra_malloc(count * sizeof *fill); /* a cursor per window (there may be more
	                                                  windows than ops) */
	if (!base || !fill) {
		chakra_free(fill);
		rc = chakra__pf_fail(d, CHAKRA_ENOMEM, "out of memory");
		goto done;
	}
	memcpy(fill, first_of, count * sizeof *fill);
	for (size_t i = 0; i < n; i++)
		if (bc.win[i] >= 0)
			base[fill[bc.win[i]]++] = (uint32_t)i;
	chakra_free(fill);
	for (size_t w = 0; w < count && !rc; w++) {
		if (w && (rc = chakra_perf_new(&outs[w])) < 0) {
			rc = chakra__pf_fail(d, rc, "out of memory");
			break;
		}
		chakra_perf *dw = outs[w];
		uint32_t tag = (uint32_t)w + 1;
		size_t nl = 0;
		for (uint32_t q = first_of[w]; q < first_of[w + 1]; q++) {
			uint32_t u = base[q];
			bc.stamp[u] = tag;
			bc.list[nl++] = u;
		}
		/* what the window's host ops launched */
		for (uint32_t q = first_of[w]; q < first_of[w + 1]; q++) {
			uint32_t u = base[q];
			if (r->res[r->ops[u].res].gpu)
				continue;
			for (uint32_t e = bc.out_first[u]; e < bc.out_first[u + 1]; e++) {
				uint32_t v = r->xe[bc.out_edge[e]].to;
				if (r->res[r->ops[v].res].gpu && bc.stamp[v] != tag) {
					bc.stamp[v] = tag;
					bc.list[nl++] = v;
				}
			}
		}
		rc = between_one(&bc, first + w, tag, nl, dw);
		if (rc < 0 && dw != d) {
			/* the message goes where the caller looks: the first */
			chakra__pf_fail(d, rc, "%s", chakra_perf_errmsg(dw));
		}
	}
done:
	if (rc < 0)
		for (size_t w = 1; w < count; w++) {
			chakra_perf_free(outs[w]);
			outs[w] = NULL;
		}
	for (uint32_t q = 0; bc.starts && q < nr; q++)
		chakra_free(bc.starts[q]);
	chakra_free(bc.starts), chakra_free(bc.nstarts), chakra_free(bc.win);
	chakra_free(bc.launched), chakra_free(bc.out_first);
	chakra_free(bc.out_edge), chakra_free(bc.stamp), chakra_free(bc.map), chakra_free(bc.list);
	chakra_free(bc.elist);
	chakra_free(bc.gsort), chakra_free(bc.gpos), chakra_free(bc.gbusy), chakra_free(bc.plist);
	chakra_free(bc.in_first);
	chakra_free(bc.in_edge);
	chakra_free(first_of), chakra_free(base);
	return rc < 0 ? rc : 0;
}

int chakra_perf_between(const chakra_perf *r, const char *annotation, uint64_t k,
                        chakra_perf **out)
{
	if (!r || !annotation || !out)
		return CHAKRA_EINVAL;
	return chakra_perf_between_range(r, annotation, k, 1, out);
}
