/* SPDX-License-Identifier: Apache-2.0 */
/* Sample: model -> one master sequence -> one file per rank.
 *
 * The master sequence has K nodes (the fitted mean per rank unless asked
 * otherwise); each class gets its expected share of them, rounded so the
 * totals are exact (the counts are what the simulated time depends on
 * most). Then, in order:
 *   1. the collective classes: the Markov chain, steered to the counts;
 *   2. the compute nodes before each collective (its class's gap
 *      distribution) and after the last, scaled to the compute total;
 *   3. the compute classes: their order-1 chain, steered to the counts;
 *   4. durations and sizes: per class, stratified draws from the mixture
 *      (the i-th of n draws falls in [i/n, (i+1)/n) of the distribution),
 *      shuffled over the nodes of the class, so a class's sample follows
 *      the fitted distribution closely even when it is small; a class's
 *      durations are then brought to its fitted mean total (top values);
 *   5. dependencies: each node draws its number of parents and their
 *      distances from its class's distributions, and each collective its
 *      consumers ahead; parents always come earlier, so ids in sequence
 *      order are a topological order and no cycle can occur.
 * Every rank gets the same nodes, dependencies, durations and sizes; only
 * pg_name differs (the rank's group of each shape), so every member of a
 * group issues the same collectives in the same order with the same
 * sizes, which is what a simulator or a replay needs. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "chakra/attrs.h"
#include "synth_impl.h"
#include "groups.h"
#include "outfile.h"
#include "../rankpath.h"

#define MAX_NODES 5000000ULL
#define MAX_NPUS (1u << 20)

typedef struct edge {
	uint32_t child, parent;
} edge;

typedef struct master {
	size_t K, X, T;
	uint8_t *is_coll;      /* per position */
	int32_t *cls;          /* class (compute or collective) per position */
	uint64_t *val;         /* duration in quanta, or size in bytes */
	uint32_t *cpos;        /* compute index -> position */
	uint32_t *xpos;        /* collective index -> position */
	uint32_t *cbefore;     /* collective index -> compute nodes before it */
	edge *e;
	size_t ne, cap;
	uint32_t *dep0;        /* CSR over positions */
} master;

static void master_free(master *M)
{
	chakra_free(M->is_coll);
	chakra_free(M->cls);
	chakra_free(M->val);
	chakra_free(M->cpos);
	chakra_free(M->xpos);
	chakra_free(M->cbefore);
	chakra_free(M->e);
	chakra_free(M->dep0);
}

/* Integers summing to total, proportional to w (largest remainder, lower
 * index first on ties). */
typedef struct rem {
	double r;
	size_t i;
} rem;

static int cmp_rem(const void *x, const void *y)
{
	const rem *a = x, *b = y;
	if (a->r != b->r)
		return a->r > b->r ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

static int apportion(const double *w, size_t n, uint64_t total, uint64_t *out)
{
	double s = 0;
	for (size_t i = 0; i < n; i++)
		s += w[i];
	uint64_t given = 0;
	for (size_t i = 0; i < n; i++) {
		out[i] = s > 0 ? (uint64_t)floor(w[i] / s * (double)total) : 0;
		given += out[i];
	}
	if (given >= total || !(s > 0) || !n)
		return 0;
	rem *R = chakra_malloc(n * sizeof *R);
	if (!R)
		return CHAKRA_ENOMEM;
	for (size_t i = 0; i < n; i++)
		R[i] = (rem){ w[i] / s * (double)total - (double)out[i], i };
	qsort(R, n, sizeof *R, cmp_rem);
	for (size_t j = 0; given < total; j = (j + 1) % n, given++)
		out[R[j].i]++;
	chakra_free(R);
	return 0;
}

static int add_edge(master *M, uint32_t child, uint32_t parent)
{
	if (M->ne == M->cap) {
		size_t cap = M->cap ? M->cap * 2 : 1024;
		edge *e = chakra_realloc(M->e, cap * sizeof *e);
		if (!e)
			return CHAKRA_ENOMEM;
		M->e = e;
		M->cap = cap;
	}
	M->e[M->ne++] = (edge){ child, parent };
	return 0;
}

static int cmp_edge(const void *x, const void *y)
{
	const edge *a = x, *b = y;
	if (a->child != b->child)
		return a->child < b->child ? -1 : 1;
	return a->parent < b->parent ? -1 : a->parent > b->parent;
}

/* Draw stratified values for the n nodes at positions pos[] from g. */
/* Draw stratified values for the n nodes at positions pos[] from g. With
 * total >= 0, the largest draws are then moved so that the values add up
 * to total: a mixture fitted in log space gives a few extreme outliers (a
 * 30 s first-iteration copy among millisecond ops) no component of their
 * own, yet they decide the class's total time, which is what a simulator
 * adds up. Only the top of the sample moves, so its distribution (and the
 * KS statistic) is unchanged below the largest values. */
static int stratified(sy_rng *r, const sy_gmm *g, const uint32_t *pos, size_t n, uint64_t *val,
                      double total)
{
	if (!n)
		return 0;
	uint32_t *idx = chakra_malloc(n * sizeof *idx);
	double *v = chakra_malloc(n * sizeof *v);
	if (!idx || !v) {
		chakra_free(idx);
		chakra_free(v);
		return CHAKRA_ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		idx[i] = (uint32_t)i;
	chakra__sy_shuffle_u32(r, idx, n);
	double sum = 0;
	for (size_t i = 0; i < n; i++) {
		/* Stratum i: ascending in i. */
		double u = ((double)i + chakra__sy_rng_uniform(r)) / (double)n;
		v[i] = g->k ? (double)chakra__sy_gmm_value(g, u) : 0;
		sum += v[i];
	}
	double delta = total - sum;
	if (total >= 0 && delta >= 1.0) {
		v[n - 1] += floor(delta + 0.5);
	} else if (total >= 0 && delta <= -1.0) {
		/* Lower the top values to a common level until the excess is
		 * gone (never below the next value down, nor below 0). */
		double need = -delta, level = v[n - 1];
		size_t k = 1;
		while (need > 0 && k <= n) {
			double next = k < n ? v[n - 1 - k] : 0;
			double cap = (level - next) * (double)k;
			if (cap >= need) {
				level -= need / (double)k;
				need = 0;
			} else {
				need -= cap;
				level = next;
				if (k == n)
					break;
				k++;
			}
		}
		for (size_t j = n - k; j < n; j++)
			if (v[j] > level)
				v[j] = floor(level + 0.5);
	}
	for (size_t i = 0; i < n; i++)
		val[pos[idx[i]]] = v[i] >= 18446744073709549568.0 ? UINT64_MAX : (uint64_t)v[i];
	chakra_free(idx);
	chakra_free(v);
	return 0;
}

/* Parent choice: the node nearest to index `at` (searching outwards, at
 * most WINDOW each way, below lim) that still has children to give (stubs,
 * drawn from its class's fan-out distribution) and is not yet a parent of
 * this child; failing that, the nearest that is not yet a parent. Stubs
 * make fan-out follow the fitted distribution instead of spreading edges
 * evenly; the window keeps the distances close to the drawn ones. */
#define WINDOW 64        /* fallback search, each way */
#define STUB_WINDOW 64   /* search for a node with stubs, each way */

static int64_t pick(uint64_t at, uint64_t lim, uint32_t *stubs, const uint32_t *mark,
                    uint32_t stamp, int exact)
{
	if (!lim)
		return -1;
	if (at >= lim)
		at = lim - 1;
	if (exact && mark[at] != stamp)
		return (int64_t)at;
	for (int pass = stubs ? 0 : 1; pass < 2; pass++)
		for (uint64_t off = 0; off <= (pass ? WINDOW : STUB_WINDOW); off++)
			for (int side = 0; side < (off ? 2 : 1); side++) {
				if (side == 0 && off > at)
					continue;
				uint64_t q = side == 0 ? at - off : at + off;
				if (q >= lim || mark[q] == stamp)
					continue;
				if (pass == 0 && !stubs[q])
					continue;
				return (int64_t)q;
			}
	return -1;
}

/* m parents for a child at index i of an index space (compute or
 * collective): the first at a distance from `nearest` (when given), the
 * others from `dist`. */
static int draw_parents(master *M, sy_rng *r, uint32_t child, uint64_t m, const sy_hist *nearest,
                        const sy_hist *dist, uint64_t i, const uint32_t *index_to_pos,
                        uint32_t *stubs, uint32_t *mark, uint32_t stamp)
{
	for (uint64_t j = 0; j < m && j < i; j++) {
		const sy_hist *h = j == 0 && nearest && nearest->n ? nearest : dist;
		if (!h->n)
			h = nearest && nearest->n ? nearest : dist;
		if (!h->n)
			return 0;
		uint64_t d = chakra__sy_hist_quantile(h, chakra__sy_rng_uniform(r));
		if (d < 1)
			d = 1;
		/* The nearest parent is taken at its distance exactly: chains
		 * (each node after the one before) are the strongest structure
		 * of a trace, and they decide what a blocking collective holds
		 * up. */
		int64_t q = pick(d > i ? 0 : i - d, i, stubs, mark, stamp, h == nearest);
		if (q < 0)
			return 0;
		mark[q] = stamp;
		if (stubs && stubs[q])
			stubs[q]--;
		int rc = add_edge(M, child, index_to_pos[q]);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int build(master *M, const chakra_synth_model *m, uint64_t K, sy_rng *r, char *err,
                 size_t errlen)
{
	int rc = 0;
	size_t nc = m->ncls, nx = m->ntok; /* the chain's symbols are tokens */
	double scale = (double)K / (m->nodes_per_rank * (double)m->ranks);
	double *w = chakra_malloc((nc + nx + 1) * sizeof *w);
	uint64_t *xt = chakra_calloc(nx + 1, sizeof *xt), *ct = chakra_calloc(nc + 1, sizeof *ct);
	int32_t *xs = NULL, *ks = NULL;
	uint64_t *gap = NULL;
	uint32_t *tmp = NULL, *stubs = NULL, *cmark = NULL, *xmark = NULL;
	if (!w || !xt || !ct) {
		rc = CHAKRA_ENOMEM;
		goto out;
	}
	/* Counts. */
	double ex = 0;
	for (size_t i = 0; i < nx; i++)
		ex += w[i] = (double)m->tok[i].count * scale;
	uint64_t X = nc ? (uint64_t)llround(ex) : K;
	if (!nx)
		X = 0;
	if (X > K)
		X = K;
	if ((rc = apportion(w, nx, X, xt)) < 0)
		goto out;
	for (size_t i = 0; i < nc; i++)
		w[i] = (double)m->cls[i].count;
	uint64_t T = K - X;
	if ((rc = apportion(w, nc, T, ct)) < 0)
		goto out;
	M->K = K;
	M->X = X;
	M->T = T;
	M->is_coll = chakra_calloc(K ? K : 1, 1);
	M->cls = chakra_malloc((K ? K : 1) * sizeof *M->cls);
	M->val = chakra_calloc(K ? K : 1, sizeof *M->val);
	M->cpos = chakra_malloc((T ? T : 1) * sizeof *M->cpos);
	M->xpos = chakra_malloc((X ? X : 1) * sizeof *M->xpos);
	M->cbefore = chakra_malloc((X ? X : 1) * sizeof *M->cbefore);
	xs = chakra_malloc((X ? X : 1) * sizeof *xs);
	ks = chakra_malloc((T ? T : 1) * sizeof *ks);
	gap = chakra_malloc((X + 1) * sizeof *gap);
	tmp = chakra_malloc((K ? K : 1) * sizeof *tmp);
	if (!M->is_coll || !M->cls || !M->val || !M->cpos || !M->xpos || !M->cbefore || !xs || !ks ||
	    !gap || !tmp) {
		rc = CHAKRA_ENOMEM;
		goto out;
	}
	/* 1. collective classes */
	if (X && (rc = chakra__sy_markov_sample(&m->cseq, r, xt, xs, X)) < 0) {
		rc = chakra__sy_err(err, errlen, rc, "model: the collective chain cannot be sampled: %s",
		                    chakra_strerror(rc));
		goto out;
	}
	/* 2. gaps */
	{
		double *gw = chakra_malloc((X + 1) * sizeof *gw), gs = 0;
		if (!gw) {
			rc = CHAKRA_ENOMEM;
			goto out;
		}
		for (uint64_t i = 0; i < X; i++) {
			const sy_hist *h = i == 0 && m->lead.n ? &m->lead : &m->tok[xs[i]].gap;
			if (!h->n)
				h = &m->lead;
			gs += gw[i] = (double)chakra__sy_hist_quantile(h, chakra__sy_rng_uniform(r));
		}
		gs += gw[X] = (double)chakra__sy_hist_quantile(&m->tail, chakra__sy_rng_uniform(r));
		if (!(gs > 0)) {
			for (uint64_t i = 0; i < X; i++)
				gw[i] = 0;
			gw[X] = 1;
		}
		rc = apportion(gw, X + 1, T, gap);
		chakra_free(gw);
		if (rc < 0)
			goto out;
	}
	/* 3. compute classes */
	if (T && (rc = chakra__sy_markov_sample(&m->kseq, r, ct, ks, T)) < 0) {
		rc = chakra__sy_err(err, errlen, rc, "model: the compute-class chain cannot be sampled: %s",
		                    chakra_strerror(rc));
		goto out;
	}
	/* Layout. */
	size_t p = 0, ci = 0;
	for (uint64_t i = 0; i <= X; i++) {
		for (uint64_t g = 0; g < gap[i]; g++, p++) {
			M->cls[p] = ks[ci];
			M->cpos[ci++] = (uint32_t)p;
		}
		if (i < X) {
			M->is_coll[p] = 1;
			M->cls[p] = xs[i];
			M->xpos[i] = (uint32_t)p;
			M->cbefore[i] = (uint32_t)ci;
			p++;
		}
	}
	/* 4. durations and sizes */
	for (size_t c = 0; c < nc; c++) {
		size_t n = 0;
		for (uint64_t i = 0; i < T; i++)
			if (ks[i] == (int32_t)c)
				tmp[n++] = M->cpos[i];
		if ((rc = stratified(r, &m->cls[c].dur, tmp, n, M->val, m->cls[c].mean * (double)n)) < 0)
			goto out;
	}
	for (size_t c = 0; c < m->ncoll; c++) {
		size_t n = 0;
		for (uint64_t i = 0; i < X; i++)
			if (m->tok[xs[i]].coll == (int)c)
				tmp[n++] = M->xpos[i];
		if ((rc = stratified(r, &m->coll[c].size, tmp, n, M->val, -1)) < 0)
			goto out;
	}
	/* 5. dependencies, in sequence order so that fan-out stubs are used
	 * up as they would be in a trace read from the start. */
	stubs = chakra_malloc((T ? T : 1) * sizeof *stubs);
	cmark = chakra_calloc(T ? T : 1, sizeof *cmark);
	xmark = chakra_calloc(X ? X : 1, sizeof *xmark);
	if (!stubs || !cmark || !xmark) {
		rc = CHAKRA_ENOMEM;
		goto out;
	}
	for (uint64_t i = 0; i < T; i++) {
		uint64_t f = chakra__sy_hist_quantile(&m->cls[ks[i]].fanout, chakra__sy_rng_uniform(r));
		stubs[i] = f > UINT32_MAX ? UINT32_MAX : (uint32_t)f;
	}
	{
		uint64_t ci2 = 0, xi2 = 0;
		for (uint64_t pos = 0; pos < K; pos++) {
			uint32_t stamp = (uint32_t)pos + 1;
			if (!M->is_coll[pos]) {
				const sy_class *c = &m->cls[ks[ci2]];
				uint64_t k = chakra__sy_hist_quantile(&c->fanin, chakra__sy_rng_uniform(r));
				rc = draw_parents(M, r, (uint32_t)pos, k, &c->nearest, &c->dist, ci2, M->cpos,
				                  stubs, cmark, stamp);
				if (rc < 0)
					goto out;
				ci2++;
				continue;
			}
			const sy_tok *tk = &m->tok[xs[xi2]];
			const sy_coll *c = &m->coll[tk->coll];
			uint64_t k = chakra__sy_hist_quantile(&c->fanin_c, chakra__sy_rng_uniform(r));
			rc = draw_parents(M, r, (uint32_t)pos, k, &c->near_c, &c->dist_c, M->cbefore[xi2],
			                  M->cpos, stubs, cmark, stamp);
			if (rc < 0)
				goto out;
			k = chakra__sy_hist_quantile(&c->fanin_x, chakra__sy_rng_uniform(r));
			rc = draw_parents(M, r, (uint32_t)pos, k, NULL, &c->dist_x, xi2, M->xpos, NULL, xmark,
			                  stamp);
			if (rc < 0)
				goto out;
			/* Consumers ahead: the first at the token's distance, the
			 * others at the class's. */
			k = chakra__sy_hist_quantile(&tk->consumers, chakra__sy_rng_uniform(r));
			for (uint64_t j = 0; j < k; j++) {
				const sy_hist *h = j == 0 ? &tk->first : &c->dist_f;
				if (!h->n)
					break;
				uint64_t d = chakra__sy_hist_quantile(h, chakra__sy_rng_uniform(r));
				uint64_t at = (uint64_t)M->cbefore[xi2] + (d ? d : 1) - 1;
				if (at >= T)
					continue;
				if ((rc = add_edge(M, M->cpos[at], (uint32_t)pos)) < 0)
					goto out;
			}
			xi2++;
		}
	}
	/* Each parent once, grouped by child. */
	if (M->ne)
		qsort(M->e, M->ne, sizeof *M->e, cmp_edge);
	size_t k = 0;
	for (size_t i = 0; i < M->ne; i++)
		if (!k || M->e[k - 1].child != M->e[i].child || M->e[k - 1].parent != M->e[i].parent)
			M->e[k++] = M->e[i];
	M->ne = k;
	M->dep0 = chakra_calloc(K + 1, sizeof *M->dep0);
	if (!M->dep0) {
		rc = CHAKRA_ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < M->ne; i++)
		M->dep0[M->e[i].child + 1]++;
	for (uint64_t i = 0; i < K; i++)
		M->dep0[i + 1] += M->dep0[i];
out:
	chakra_free(w);
	chakra_free(xt);
	chakra_free(ct);
	chakra_free(xs);
	chakra_free(ks);
	chakra_free(gap);
	chakra_free(tmp);
	chakra_free(stubs);
	chakra_free(cmark);
	chakra_free(xmark);
	return rc;
}

/* ---- group naming ---- */
typedef struct shape {
	int kind;
	uint32_t param;
	uint32_t base;         /* first group number */
} shape;

static uint32_t group_id(const shape *s, uint32_t rank)
{
	return s->base + (s->kind == SY_GROUP_BLOCK ? rank / s->param : rank % s->param);
}

/* The group file, into an opened output. A shape's groups are listed
 * directly (a block of param ranks, or every param-th rank): O(npus) per
 * shape, whatever the number of groups. */
/* The group file through the one writer (lib/json/groups.c); a failed
 * write is the output rule's to report. */
static void write_groups(chakra__out *out, const shape *sh, size_t ns, uint32_t npus)
{
	chakra__groups_out w;
	chakra__groups_out_begin(&w, chakra__out_write_cb, out);
	for (size_t s = 0; s < ns; s++) {
		uint32_t p = sh[s].param;
		int block = sh[s].kind == SY_GROUP_BLOCK;
		uint32_t ngroups = block ? npus / p : p;
		for (uint32_t g = 0; g < ngroups; g++) {
			char name[16];
			int len = snprintf(name, sizeof name, "%u", sh[s].base + g);
			chakra__groups_out_group(&w, name, (size_t)len);
			uint32_t r0 = block ? g * p : g, step = block ? 1 : p, end = block ? r0 + p : npus;
			for (uint32_t r = r0; r < end; r += step)
				chakra__groups_out_rank(&w, r);
		}
	}
	chakra__groups_out_end(&w);
}

/* One rank's trace into an opened output (a member of the set). */
static int write_rank(const chakra_synth_model *m, const master *M, const shape *sh,
                      const int *coll_shape, chakra__out *out, uint32_t rank,
                      const chakra_synth_sample_options *o, chakra_builder *b, char *err,
                      size_t errlen)
{
	chakra_writer_options wo = CHAKRA_WRITER_OPTIONS_INIT;
	wo.gzip = o->gzip;
	chakra_writer *w = NULL;
	int rc = chakra_writer_open_cb(&w, chakra__out_write_cb, out, &wo);
	if (rc == 0)
		rc = chakra_writer_write_metadata(w, "0.0.4", NULL);
	char name[64], pg[16];
	uint64_t q = m->quantum_ns;
	for (uint64_t p = 0; p < M->K && rc == 0; p++) {
		chakra_builder_reset(b);
		chakra_builder_set_id(b, p);
		for (uint32_t d = M->dep0[p]; d < M->dep0[p + 1]; d++)
			chakra_builder_add_data_dep(b, M->e[d].parent);
		if (M->is_coll[p]) {
			int ci = m->tok[M->cls[p]].coll;
			const sy_coll *c = &m->coll[ci];
			chakra__sy_coll_name(c, name, sizeof name);
			chakra_builder_set_name(b, name, (size_t)-1);
			chakra_builder_set_type(b, CHAKRA_COMM_COLL_NODE);
			chakra_builder_attr_int(b, CHAKRA_ATTR_NAME_IS_CPU_OP, CHAKRA_ATTR_BOOL, 0);
			chakra_builder_attr_int(b, CHAKRA_ATTR_NAME_COMM_TYPE, CHAKRA_ATTR_INT64, c->comm_type);
			chakra_builder_attr_int(b, CHAKRA_ATTR_NAME_COMM_SIZE, CHAKRA_ATTR_INT64, (int64_t)M->val[p]);
			if (c->group != SY_GROUP_ALL) {
				snprintf(pg, sizeof pg, "%u", group_id(&sh[coll_shape[ci]], rank));
				chakra_builder_attr_string(b, CHAKRA_ATTR_NAME_PG_NAME, CHAKRA_ATTR_STRING, pg, (size_t)-1);
			}
		} else {
			const sy_class *c = &m->cls[M->cls[p]];
			const char *cn = chakra__sy_class_name(c->vocab);
			chakra_builder_set_name(b, cn, (size_t)-1);
			chakra_builder_set_type(b, c->node_type);
			uint64_t ns = M->val[p] > UINT64_MAX / q ? UINT64_MAX : M->val[p] * q;
			chakra_builder_set_duration_micros(b, ns / 1000);
			chakra_builder_attr_int(b, CHAKRA_ATTR_NAME_IS_CPU_OP, CHAKRA_ATTR_BOOL,
			                        !strncmp(cn, "cpu.", 4));
			if (q % 1000)
				chakra_builder_attr_uint(b, CHAKRA_ATTR_NAME_DURATION_NANOS, CHAKRA_ATTR_UINT64, ns);
		}
		rc = chakra_writer_write_node(w, b);
	}
	if (rc == 0)
		rc = chakra_writer_finish(w);
	if (rc < 0)
		rc = chakra__sy_err(err, errlen, rc, "%s: %s", out->path,
		                    !w ? chakra_strerror(rc) : out->werr ? strerror(out->werr)
		                                                   : chakra_writer_errmsg(w));
	chakra_writer_close(w);
	if (rc == 0)
		rc = chakra__out_close(out, err, errlen); /* one descriptor at a time */
	return rc;
}

static const size_t sample_opts_size[2] = { 0, sizeof(chakra_synth_sample_options) };
static const chakra_synth_sample_options sample_defaults = CHAKRA_SYNTH_SAMPLE_OPTIONS_INIT;

int chakra_synth_sample_options_init(chakra_synth_sample_options *opts, unsigned version)
{
	return chakra__opts_init(opts, version, &sample_defaults, sample_opts_size, 2);
}

static int synth_sample_impl(const chakra_synth_model *m, const char *prefix, const chakra_synth_sample_options *opts, char *err, size_t errlen)
{
	chakra_synth_sample_options o;
	if (!opts || chakra__opts_copy(&o, sizeof o, opts, &sample_defaults, sample_opts_size, 2) < 0)
		return chakra__sy_err(err, errlen, CHAKRA_EINVAL, "sample options: missing or unknown version");
	if (o.npus < 1 || o.npus > MAX_NPUS)
		return chakra__sy_err(err, errlen, CHAKRA_EINVAL, "npus must be in 1..%u", MAX_NPUS);
	uint64_t K = o.nodes;
	if (!K) {
		double k = round(m->nodes_per_rank);
		K = k < 1 ? 1 : k > (double)MAX_NODES ? MAX_NODES + 1 : (uint64_t)k;
	}
	if (K > MAX_NODES)
		return chakra__sy_err(err, errlen, CHAKRA_EINVAL,
		                      "%llu nodes per rank: more than the %llu synth writes",
		                      (unsigned long long)K, MAX_NODES);
	/* Group shapes used by the model, and whether npus fits them. */
	shape sh[64];
	size_t ns = 0;
	int *coll_shape = chakra_malloc((m->ncoll ? m->ncoll : 1) * sizeof *coll_shape);
	if (!coll_shape)
		return CHAKRA_ENOMEM;
	uint32_t next = 1;
	int rc = 0;
	for (size_t i = 0; i < m->ncoll; i++) {
		const sy_coll *c = &m->coll[i];
		coll_shape[i] = -1;
		if (c->group == SY_GROUP_ALL)
			continue;
		if (c->gparam < 1 || o.npus % c->gparam) {
			char name[64];
			chakra__sy_coll_name(c, name, sizeof name);
			rc = chakra__sy_err(err, errlen, CHAKRA_EINVAL,
			                    "%s: groups of %s %u ranks need --npus to be a multiple of %u "
			                    "(not %u)", name, c->group == SY_GROUP_BLOCK ? "" : "every",
			                    c->gparam, c->gparam, o.npus);
			chakra_free(coll_shape);
			return rc;
		}
		size_t s;
		for (s = 0; s < ns; s++)
			if (sh[s].kind == c->group && sh[s].param == c->gparam)
				break;
		if (s == ns) {
			if (ns == 64) {
				chakra_free(coll_shape);
				return chakra__sy_err(err, errlen, CHAKRA_EINVAL, "model: more than 64 group shapes");
			}
			sh[ns].kind = c->group;
			sh[ns].param = c->gparam;
			sh[ns].base = next;
			next += c->group == SY_GROUP_BLOCK ? o.npus / c->gparam : c->gparam;
			ns++;
		}
		coll_shape[i] = (int)s;
	}
	/* The outputs are one set under the output rule (outfile.h): all
	 * checked before anything is written, renamed only once every rank is
	 * complete, so a failure leaves the previous files as they were. */
	size_t plen = strlen(prefix) + 32;
	size_t nout = (size_t)o.npus + (ns ? 1 : 0);
	char *paths = chakra_malloc(plen * o.npus);
	const char **names = chakra_malloc(nout * sizeof *names);
	chakra__out *outs = chakra_calloc(nout, sizeof *outs);
	if (!paths || !names || !outs) {
		rc = CHAKRA_ENOMEM;
		goto done;
	}
	for (uint32_t r = 0; r < o.npus; r++) {
		chakra__rank_name(paths + (size_t)r * plen, plen, prefix, r, o.gzip);
		names[r] = paths + (size_t)r * plen;
	}
	char gname[4096];
	if (ns) {
		if (snprintf(gname, sizeof gname, o.comm_groups ? "%s" : "%s.comm_groups.json",
		             o.comm_groups ? o.comm_groups : prefix) >= (int)sizeof gname) {
			rc = chakra__sy_err(err, errlen, CHAKRA_EINVAL, "%s: path too long", prefix);
			goto done;
		}
		names[o.npus] = gname;
	}
	chakra__out_opts oo = { o.overwrite, 0, NULL, 0, "set overwrite (-f)" };
	if ((rc = chakra__out_check_set(names, nout, &oo, err, errlen)) < 0)
		goto done;
	sy_rng rng;
	chakra__sy_rng_seed(&rng, o.seed);
	master M;
	memset(&M, 0, sizeof M);
	rc = build(&M, m, K, &rng, err, errlen);
	chakra_builder *b = chakra_builder_new();
	if (rc == 0 && !b)
		rc = CHAKRA_ENOMEM;
	for (uint32_t r = 0; r < o.npus && rc == 0; r++)
		if ((rc = chakra__out_open(&outs[r], names[r], &oo, err, errlen)) == 0)
			rc = write_rank(m, &M, sh, coll_shape, &outs[r], r, &o, b, err, errlen);
	chakra_builder_free(b);
	master_free(&M);
	if (rc == 0 && ns && (rc = chakra__out_open(&outs[o.npus], gname, &oo, err, errlen)) == 0)
		write_groups(&outs[o.npus], sh, ns, o.npus);
	if (rc == 0)
		rc = chakra__out_commit_set(outs, nout, err, errlen);
done:
	for (size_t k = 0; outs && k < nout; k++)
		chakra__out_abort(&outs[k]); /* after a failure: the temporaries go */
	chakra_free(outs);
	chakra_free(names);
	chakra_free(paths);
	chakra_free(coll_shape);
	return rc;
}

/* Every failure comes with a message (out of memory included). */
int chakra_synth_sample(const chakra_synth_model *m, const char *prefix,
                        const chakra_synth_sample_options *opts, char *err, size_t errlen)
{
	if (!m || !prefix)
		return chakra__sy_err(err, errlen, CHAKRA_EINVAL, "%s: NULL argument", __func__);
	if (errlen)
		err[0] = 0;
	return chakra__sy_msg(synth_sample_impl(m, prefix, opts, err, errlen), err, errlen);
}
