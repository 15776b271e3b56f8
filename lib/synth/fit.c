/* SPDX-License-Identifier: Apache-2.0 */
/* Fit: traces -> model.
 *
 * Each rank is walked in issue order. A node is either a collective (a
 * COMM_COLL_NODE with a comm_type) or "compute" (everything else; its op
 * class says which). Positions are counted separately for the two kinds:
 * the k-th compute node has compute index k, the k-th collective has
 * collective index k. Recorded:
 *   compute node, per class: duration; how many compute parents, how far
 *     back the nearest is (compute index difference, 1 = the previous one)
 *     and the others; how many children;
 *   collective, per class (type + group shape): size; compute parents (the
 *     nearest and the others; 1 = the last compute node before it);
 *     collective parents and their distance in collective index; the
 *     distance ahead of consumers after the first;
 *   collective, per token (class + overlap bucket, from the distance to its
 *     first compute consumer): the gap (compute nodes since the previous
 *     collective), the first consumer's distance, the consumer count;
 *   per rank: the sequence of tokens, of compute classes, and the compute
 *     nodes before the first collective and after the last.
 * Ranks whose sequences are identical (data parallelism) count once in the
 * Markov chains; every rank counts in the distributions. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "groups.h"
#include "synth_impl.h"

/* ---- communicator groups ---- */
typedef chakra__group grp; /* from the one reader (lib/json/groups.c) */

typedef struct gref {
	const char *name;
	size_t i;
} gref;

typedef struct groups {
	grp *g;
	size_t n;
	uint32_t world;       /* highest rank + 1 */
	gref *byname;         /* sorted by name: found by bisection, not a scan */
} groups;

static void groups_free(groups *G)
{
	for (size_t i = 0; i < G->n; i++) {
		chakra_free(G->g[i].name);
		chakra_free(G->g[i].ranks);
	}
	chakra_free(G->g);
	chakra_free(G->byname);
	memset(G, 0, sizeof *G);
}

static int cmp_gref(const void *a, const void *b)
{
	const gref *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : x->i < y->i ? -1 : x->i > y->i;
}

static int cmp_u32(const void *x, const void *y);

/* The reader has refused a name defined twice and a rank listed twice;
 * here each group's ranks are sorted and the index by name built. */
static int groups_check(groups *G)
{
	for (size_t i = 0; i < G->n; i++) {
		grp *g = &G->g[i];
		qsort(g->ranks, g->n, sizeof *g->ranks, cmp_u32);
		if (g->ranks[g->n - 1] + 1 > G->world)
			G->world = g->ranks[g->n - 1] + 1;
	}
	G->byname = chakra_malloc((G->n ? G->n : 1) * sizeof *G->byname);
	if (!G->byname)
		return CHAKRA_ENOMEM;
	for (size_t i = 0; i < G->n; i++) {
		G->byname[i].name = G->g[i].name;
		G->byname[i].i = i;
	}
	qsort(G->byname, G->n, sizeof *G->byname, cmp_gref);
	return 0;
}

static const grp *groups_find(const groups *G, const char *name)
{
	size_t lo = 0, hi = G->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(G->byname[mid].name, name);
		if (c < 0)
			lo = mid + 1;
		else if (c > 0)
			hi = mid;
		else
			return &G->g[G->byname[mid].i];
	}
	return NULL;
}

static char *slurp_text(const char *path, size_t *len, char *err, size_t errlen, int *rc)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		*rc = chakra__sy_err(err, errlen, CHAKRA_EIO, "%s: %s", path, strerror(errno));
		return NULL;
	}
	size_t cap = 4096, n = 0;
	char *b = chakra_malloc(cap + 1);
	size_t r;
	while (b && (r = fread(b + n, 1, cap - n, f)) > 0) {
		n += r;
		if (n == cap) {
			if (cap > ((size_t)1 << 30)) {
				chakra_free(b);
				fclose(f);
				*rc = chakra__sy_err(err, errlen, CHAKRA_ETOOBIG, "%s: larger than 1 GiB", path);
				return NULL;
			}
			char *nb = chakra_realloc(b, (cap *= 2) + 1);
			if (!nb) {
				chakra_free(b);
				b = NULL;
				break;
			}
			b = nb;
		}
	}
	int bad = ferror(f);
	fclose(f);
	if (!b) {
		*rc = CHAKRA_ENOMEM;
		return NULL;
	}
	if (bad) {
		chakra_free(b);
		*rc = chakra__sy_err(err, errlen, CHAKRA_EIO, "%s: read error", path);
		return NULL;
	}
	b[n] = 0;
	*len = n;
	return b;
}

/* The group file's text (path names it in messages), through the one
 * reader; ranks up to 2^24 - 1, the most synth takes. */
static int groups_parse(groups *G, const char *path, const char *text, size_t len, char *err,
                        size_t errlen)
{
	memset(G, 0, sizeof *G);
	chakra__groups cg;
	int rc = chakra__groups_parse(&cg, path, text, len, 1u << 24, err, errlen);
	if (rc < 0)
		return rc;
	G->g = cg.g;
	G->n = cg.n;
	if ((rc = groups_check(G)) < 0)
		groups_free(G);
	return rc;
}

static int groups_load(groups *G, const char *path, char *err, size_t errlen)
{
	memset(G, 0, sizeof *G);
	size_t len = 0;
	int rc = 0;
	char *text = slurp_text(path, &len, err, errlen, &rc);
	if (!text)
		return rc;
	rc = groups_parse(G, path, text, len, err, errlen);
	chakra_free(text);
	return rc;
}

int chakra__sy_groups_probe(const char *name, const char *text, size_t len, size_t *ngroups,
                            uint32_t *world, char *err, size_t errlen)
{
	groups G;
	int rc = groups_parse(&G, name, text, len, err, errlen);
	if (rc == 0) {
		*ngroups = G.n;
		*world = G.world;
		/* what the fitter relies on: sorted, none twice, found by name */
		for (size_t i = 0; i < G.n && rc == 0; i++) {
			for (size_t k = 1; k < G.g[i].n; k++)
				if (G.g[i].ranks[k] <= G.g[i].ranks[k - 1])
					rc = chakra__sy_err(err, errlen, CHAKRA_EINVAL, "ranks not sorted and unique");
			if (groups_find(&G, G.g[i].name) != &G.g[i])
				rc = chakra__sy_err(err, errlen, CHAKRA_EINVAL, "group not found by its name");
		}
		groups_free(&G);
	}
	return rc;
}

static int cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	return a < b ? -1 : a > b;
}

/* Shape of a group among world ranks: all, a block of consecutive ranks,
 * or every s-th rank. */
static int group_shape(const char *file, const grp *g, uint32_t world, int *kind,
                       uint32_t *param, char *err, size_t errlen)
{
	size_t m = g->n; /* sorted, none twice: groups_check */
	if (m >= world) {
		*kind = SY_GROUP_ALL;
		*param = 0;
		return 0;
	}
	int consecutive = 1;
	for (size_t i = 1; i < m; i++)
		consecutive &= g->ranks[i] == g->ranks[0] + i;
	if (consecutive && g->ranks[0] % m == 0 && world % m == 0) {
		*kind = SY_GROUP_BLOCK;
		*param = (uint32_t)m;
		return 0;
	}
	if (m >= 2) {
		uint32_t s = g->ranks[1] - g->ranks[0];
		int strided = 1;
		for (size_t i = 1; i < m; i++)
			strided &= g->ranks[i] == g->ranks[0] + (uint32_t)i * s;
		if (strided && (uint64_t)s * m == world && g->ranks[0] < s) {
			*kind = SY_GROUP_STRIDE;
			*param = s;
			return 0;
		}
	}
	return chakra__sy_err(err, errlen, CHAKRA_ECONFIG,
	                      "%s: group \"%s\" (%zu ranks of %u, first %u) is neither a block of "
	                      "consecutive ranks nor every s-th rank: synth models those two shapes",
	                      file, g->name, m, world, g->ranks[0]);
}

/* ---- accumulators ---- */
typedef struct cls_acc {
	sy_vec dur, fanin, nearest, dist, fanout;
} cls_acc;

typedef struct coll_acc {
	int comm_type, group;
	uint32_t gparam;
	sy_vec size, fanin_c, near_c, dist_c, fanin_x, dist_x, dist_f;
} coll_acc;

typedef struct tok_acc {
	int coll, bucket;
	sy_vec gap, first, consumers;
} tok_acc;

typedef struct fitter {
	cls_acc *cls;          /* per vocabulary entry */
	int nvocab;
	coll_acc *coll;
	size_t ncoll;
	tok_acc *tok;
	size_t ntok;
	sy_vec lead, tail;
	/* sequences, deduplicated */
	int32_t **cseq, **kseq;
	size_t *clen, *klen, ncs, nks;
	uint64_t quantum;
	groups G;
	const char *gpath;
	int have_groups;
	uint64_t pg_ignored;
} fitter;

static void cls_acc_free(cls_acc *a)
{
	chakra__sy_vec_free(&a->dur);
	chakra__sy_vec_free(&a->fanin);
	chakra__sy_vec_free(&a->nearest);
	chakra__sy_vec_free(&a->dist);
	chakra__sy_vec_free(&a->fanout);
}

static void coll_acc_free(coll_acc *a)
{
	sy_vec *v[] = { &a->size, &a->fanin_c, &a->near_c, &a->dist_c, &a->fanin_x, &a->dist_x,
	                &a->dist_f };
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
		chakra__sy_vec_free(v[i]);
}

static void fitter_free(fitter *F)
{
	for (int i = 0; F->cls && i < F->nvocab; i++) /* (NULL: its allocation failed) */
		cls_acc_free(&F->cls[i]);
	chakra_free(F->cls);
	for (size_t i = 0; i < F->ncoll; i++)
		coll_acc_free(&F->coll[i]);
	chakra_free(F->coll);
	for (size_t i = 0; i < F->ntok; i++) {
		chakra__sy_vec_free(&F->tok[i].gap);
		chakra__sy_vec_free(&F->tok[i].first);
		chakra__sy_vec_free(&F->tok[i].consumers);
	}
	chakra_free(F->tok);
	chakra__sy_vec_free(&F->lead);
	chakra__sy_vec_free(&F->tail);
	for (size_t i = 0; i < F->ncs; i++)
		chakra_free(F->cseq[i]);
	for (size_t i = 0; i < F->nks; i++)
		chakra_free(F->kseq[i]);
	chakra_free(F->cseq);
	chakra_free(F->kseq);
	chakra_free(F->clen);
	chakra_free(F->klen);
	groups_free(&F->G);
}

static int coll_class(fitter *F, int ct, int group, uint32_t param)
{
	for (size_t i = 0; i < F->ncoll; i++)
		if (F->coll[i].comm_type == ct && F->coll[i].group == group && F->coll[i].gparam == param)
			return (int)i;
	coll_acc *c = chakra_realloc(F->coll, (F->ncoll + 1) * sizeof *c);
	if (!c)
		return CHAKRA_ENOMEM;
	F->coll = c;
	memset(&c[F->ncoll], 0, sizeof *c);
	c[F->ncoll].comm_type = ct;
	c[F->ncoll].group = group;
	c[F->ncoll].gparam = param;
	return (int)F->ncoll++;
}

static int tok_of(fitter *F, int coll, int bucket)
{
	for (size_t i = 0; i < F->ntok; i++)
		if (F->tok[i].coll == coll && F->tok[i].bucket == bucket)
			return (int)i;
	tok_acc *t = chakra_realloc(F->tok, (F->ntok + 1) * sizeof *t);
	if (!t)
		return CHAKRA_ENOMEM;
	F->tok = t;
	memset(&t[F->ntok], 0, sizeof *t);
	t[F->ntok].coll = coll;
	t[F->ntok].bucket = bucket;
	return (int)F->ntok++;
}

int chakra__sy_bucket(uint64_t d)
{
	if (d <= 1)
		return (int)d;
	int b = 2;
	for (uint64_t x = d - 1; x > 1 && b < SY_NBUCKET - 1; x >>= 1)
		b++;
	return b;
}

uint64_t chakra__sy_bucket_lo(int b)
{
	return b <= 1 ? (uint64_t)b : b == 2 ? 2 : ((uint64_t)1 << (b - 2)) + 1;
}

uint64_t chakra__sy_bucket_hi(int b)
{
	return b <= 2 ? (uint64_t)b : b == SY_NBUCKET - 1 ? UINT64_MAX : ((uint64_t)1 << (b - 1));
}

/* Keep a sequence unless an identical one is already kept. */
static int keep_seq(int32_t ***seqs, size_t **lens, size_t *n, int32_t *s, size_t len)
{
	for (size_t i = 0; i < *n; i++)
		if ((*lens)[i] == len && !memcmp((*seqs)[i], s, len * sizeof *s)) {
			chakra_free(s);
			return 0;
		}
	int32_t **ns = chakra_realloc(*seqs, (*n + 1) * sizeof *ns);
	if (!ns) {
		chakra_free(s);
		return CHAKRA_ENOMEM;
	}
	*seqs = ns;
	size_t *nl = chakra_realloc(*lens, (*n + 1) * sizeof *nl);
	if (!nl) {
		chakra_free(s);
		return CHAKRA_ENOMEM;
	}
	*lens = nl;
	ns[*n] = s;
	nl[*n] = len;
	(*n)++;
	return 0;
}

#define PUSH(vec, val)                                              \
	do {                                                            \
		if ((rc = chakra__sy_vec_push(&(vec), (uint64_t)(val))) < 0) \
			goto out;                                               \
	} while (0)

static int walk(fitter *F, const sy_trace *t, char *err, size_t errlen)
{
	size_t n = t->nn;
	int rc = 0;
	/* Position of each node in its kind's index; for collectives also the
	 * compute index where it was issued, and its consumer count. */
	uint64_t *pos = chakra_malloc((n ? n : 1) * sizeof *pos);
	uint64_t *cbefore = chakra_malloc((n ? n : 1) * sizeof *cbefore);
	uint32_t *consumers = chakra_calloc(n ? n : 1, sizeof *consumers);
	uint64_t *first = chakra_calloc(n ? n : 1, sizeof *first);
	uint64_t *gapof = chakra_malloc((n ? n : 1) * sizeof *gapof);
	int32_t *xclass = chakra_malloc((n ? n : 1) * sizeof *xclass);
	int32_t *cs = chakra_malloc((n ? n : 1) * sizeof *cs);
	int32_t *ks = chakra_malloc((n ? n : 1) * sizeof *ks);
	/* pg index -> group class, resolved once per trace. */
	int *pgkind = chakra_malloc((t->npg ? t->npg : 1) * sizeof *pgkind);
	uint32_t *pgparam = chakra_malloc((t->npg ? t->npg : 1) * sizeof *pgparam);
	size_t ncs = 0, nks = 0;
	if (!pos || !cbefore || !consumers || !xclass || !cs || !ks || !pgkind || !pgparam || !first ||
	    !gapof) {
		rc = CHAKRA_ENOMEM;
		goto out;
	}
	for (size_t p = 0; p < t->npg; p++) {
		pgkind[p] = SY_GROUP_ALL;
		pgparam[p] = 0;
		if (!F->have_groups)
			continue;
		const grp *gp = groups_find(&F->G, t->pg[p]);
		if (!gp) {
			rc = chakra__sy_err(err, errlen, CHAKRA_ECONFIG,
			                    "%s: pg_name \"%s\" is not a group of %s", t->path, t->pg[p],
			                    F->gpath);
			goto out;
		}
		rc = group_shape(F->gpath, gp, F->G.world, &pgkind[p], &pgparam[p], err, errlen);
		if (rc < 0)
			goto out;
	}
	uint64_t cidx = 0, xidx = 0, last = 0;
	for (size_t o = 0; o < n; o++) {
		uint32_t v = t->order[o];
		const sy_node *x = &t->n[v];
		const uint32_t *par = t->deps + x->dep0;
		if (x->tok == SY_TOK_COMPUTE) {
			cls_acc *a = &F->cls[x->cls];
			PUSH(a->dur, x->dur_ns / F->quantum);
			uint64_t kc = 0, dmin = UINT64_MAX;
			for (uint32_t d = 0; d < x->ndep; d++)
				if (t->n[par[d]].tok == SY_TOK_COMPUTE && cidx - pos[par[d]] < dmin)
					dmin = cidx - pos[par[d]];
			for (uint32_t d = 0; d < x->ndep; d++) {
				const sy_node *p = &t->n[par[d]];
				if (p->tok == SY_TOK_COMPUTE) {
					uint64_t dist = cidx - pos[par[d]];
					if (dist == dmin) {
						PUSH(a->nearest, dist);
						dmin = 0; /* one nearest parent */
					} else
						PUSH(a->dist, dist);
					kc++;
				} else {
					/* Compute is walked in order: the first child seen
					 * is the nearest consumer. */
					if (!consumers[par[d]]++)
						first[par[d]] = cidx - cbefore[par[d]] + 1;
					else
						PUSH(F->coll[xclass[par[d]]].dist_f, cidx - cbefore[par[d]] + 1);
				}
			}
			/* The first compute node has nothing to depend on: counting
			 * its 0 would give later nodes a chance of starting a chain
			 * of their own, in parallel with the rest. */
			if (cidx > 0)
				PUSH(a->fanin, kc);
			ks[nks++] = x->cls;
			pos[v] = cidx++;
		} else {
			int kind = SY_GROUP_ALL;
			uint32_t param = 0;
			if (x->pg >= 0) {
				kind = pgkind[x->pg];
				param = pgparam[x->pg];
				if (!F->have_groups)
					F->pg_ignored++;
			}
			int c = coll_class(F, x->cls, kind, param);
			if (c < 0) {
				rc = c;
				goto out;
			}
			coll_acc *a = &F->coll[c];
			xclass[v] = c;
			PUSH(a->size, x->size);
			gapof[v] = cidx - last;
			first[v] = 0;
			last = cidx;
			uint64_t kc = 0, kx = 0, dmin = UINT64_MAX;
			for (uint32_t d = 0; d < x->ndep; d++)
				if (t->n[par[d]].tok == SY_TOK_COMPUTE && cidx - pos[par[d]] < dmin)
					dmin = cidx - pos[par[d]];
			for (uint32_t d = 0; d < x->ndep; d++) {
				const sy_node *p = &t->n[par[d]];
				if (p->tok == SY_TOK_COMPUTE) {
					uint64_t dist = cidx - pos[par[d]];
					if (dist == dmin) {
						PUSH(a->near_c, dist);
						dmin = 0;
					} else
						PUSH(a->dist_c, dist);
					kc++;
				} else {
					kx++;
					PUSH(a->dist_x, xidx - pos[par[d]]);
				}
			}
			if (cidx > 0)
				PUSH(a->fanin_c, kc);
			if (xidx > 0)
				PUSH(a->fanin_x, kx);
			cs[ncs++] = (int32_t)v; /* node for now; its token after the walk */
			cbefore[v] = cidx;
			pos[v] = xidx++;
		}
	}
	PUSH(F->tail, cidx - last);
	/* Children of every node: consumers of collectives were counted on
	 * the way; compute nodes count all their children. */
	memset(cbefore, 0, n * sizeof *cbefore);
	for (size_t i = 0; i < n; i++)
		for (uint32_t d = 0; d < t->n[i].ndep; d++)
			cbefore[t->deps[t->n[i].dep0 + d]]++;
	for (size_t i = 0; i < n; i++)
		if (t->n[i].tok == SY_TOK_COMPUTE)
			PUSH(F->cls[t->n[i].cls].fanout, cbefore[i]);
	for (size_t i = 0; i < ncs; i++) {
		uint32_t v = (uint32_t)cs[i];
		int k = tok_of(F, xclass[v], chakra__sy_bucket(first[v]));
		if (k < 0) {
			rc = k;
			goto out;
		}
		/* The first collective's gap is the start of the iteration (a
		 * whole forward pass, say): a distribution of its own. */
		if (i == 0)
			PUSH(F->lead, gapof[v]);
		else
			PUSH(F->tok[k].gap, gapof[v]);
		PUSH(F->tok[k].consumers, consumers[v]);
		if (first[v])
			PUSH(F->tok[k].first, first[v]);
		cs[i] = k;
	}
	rc = keep_seq(&F->cseq, &F->clen, &F->ncs, cs, ncs);
	cs = NULL;
	if (rc == 0)
		rc = keep_seq(&F->kseq, &F->klen, &F->nks, ks, nks);
	else
		chakra_free(ks); /* keep_seq takes it, but was not called */
	ks = NULL;
out:
	chakra_free(pgkind);
	chakra_free(pgparam);
	chakra_free(pos);
	chakra_free(cbefore);
	chakra_free(consumers);
	chakra_free(first);
	chakra_free(gapof);
	chakra_free(xclass);
	chakra_free(cs);
	chakra_free(ks);
	return rc;
}

static int hist_of(sy_hist *h, sy_vec *v)
{
	int rc = chakra__sy_hist_from(h, v);
	chakra__sy_vec_free(v);
	return rc;
}

static int cmp_coll(const void *x, const void *y)
{
	const sy_coll *a = x, *b = y;
	if (a->comm_type != b->comm_type)
		return a->comm_type - b->comm_type;
	if (a->group != b->group)
		return a->group - b->group;
	return a->gparam < b->gparam ? -1 : a->gparam > b->gparam;
}

static const size_t fit_opts_size[2] = { 0, sizeof(chakra_synth_fit_options) };
static const chakra_synth_fit_options fit_defaults = CHAKRA_SYNTH_FIT_OPTIONS_INIT;

int chakra_synth_fit_options_init(chakra_synth_fit_options *opts, unsigned version)
{
	return chakra__opts_init(opts, version, &fit_defaults, fit_opts_size, 2);
}

static int synth_fit_impl(chakra_synth_model **out, const char *const *paths, size_t n, const chakra_synth_fit_options *opts, char *err, size_t errlen)
{
	chakra_synth_fit_options o;
	if (chakra__opts_copy(&o, sizeof o, opts, &fit_defaults, fit_opts_size, 2) < 0)
		return chakra__sy_err(err, errlen, CHAKRA_EINVAL, "fit options: unknown version %u",
		                      opts->version);
	if (o.max_order <= 0)
		o.max_order = 3;
	if (o.max_order > SY_MAXORDER)
		o.max_order = SY_MAXORDER;
	if (o.max_components <= 0)
		o.max_components = 8;
	if (o.max_components > SY_MAXK)
		o.max_components = SY_MAXK;
	if (!(o.min_log_sd >= 0 && o.min_log_sd <= 10))
		return chakra__sy_err(err, errlen, CHAKRA_EINVAL, "min_log_sd must be in [0, 10]");
	*out = NULL;
	if (!n)
		return chakra__sy_err(err, errlen, CHAKRA_EINVAL, "no traces to fit");
	if (n > (1u << 24))
		return chakra__sy_err(err, errlen, CHAKRA_EINVAL, "too many ranks");
	fitter F;
	memset(&F, 0, sizeof F);
	chakra_synth_model *m = chakra_calloc(1, sizeof *m);
	sy_trace *T = chakra_calloc(n, sizeof *T);
	int rc = 0;
	F.nvocab = chakra__sy_class_count();
	F.cls = chakra_calloc((size_t)F.nvocab, sizeof *F.cls);
	if (!m || !T || !F.cls) {
		rc = CHAKRA_ENOMEM;
		goto out;
	}
	if (o.comm_groups) {
		if ((rc = groups_load(&F.G, o.comm_groups, err, errlen)) < 0)
			goto out;
		F.have_groups = 1;
		F.gpath = o.comm_groups;
		if (F.G.world < n)
			F.G.world = (uint32_t)n;
	}
	/* All ranks first: the duration unit depends on all of them. It is
	 * the traces' resolution: the largest of 1000, 100, 10, 1 ns that
	 * divides every compute duration (Kineto times are whole
	 * microseconds even when written as duration_nanos). Values that
	 * repeat then stay whole values instead of a spread around them. */
	uint64_t total_nodes = 0, g = 0;
	for (size_t r = 0; r < n; r++) {
		if ((rc = chakra__sy_trace_load(&T[r], paths[r], err, errlen)) < 0)
			goto out;
		total_nodes += T[r].nn;
		for (size_t i = 0; i < T[r].nn && g != 1; i++) {
			uint64_t a = T[r].n[i].dur_ns, b = g;
			if (T[r].n[i].tok != SY_TOK_COMPUTE || !a)
				continue;
			while (b) {
				uint64_t t = a % b;
				a = b;
				b = t;
			}
			g = a;
		}
		m->self_deps += T[r].self_deps;
		m->missing_deps += T[r].missing_deps;
		m->cycle_edges += T[r].cycle_edges;
	}
	if (!total_nodes) {
		rc = chakra__sy_err(err, errlen, CHAKRA_EINVAL, "%s: no nodes to learn from", paths[0]);
		goto out;
	}
	F.quantum = !g || g % 1000 == 0 ? 1000 : g % 100 == 0 ? 100 : g % 10 == 0 ? 10 : 1;
	for (size_t r = 0; r < n; r++) {
		if ((rc = walk(&F, &T[r], err, errlen)) < 0)
			goto out;
		chakra__sy_trace_free(&T[r]);
	}
	m->ranks = (uint32_t)n;
	m->nodes_per_rank = (double)total_nodes / (double)n;
	m->quantum_ns = F.quantum;
	m->pg_ignored = F.pg_ignored;

	/* Compute classes that occur, in vocabulary order. */
	int *vmap = chakra_malloc((size_t)F.nvocab * sizeof *vmap);
	if (!vmap) {
		rc = CHAKRA_ENOMEM;
		goto out;
	}
	for (int v = 0; v < F.nvocab; v++)
		vmap[v] = F.cls[v].dur.n ? (int)m->ncls++ : -1;
	m->cls = chakra_calloc(m->ncls ? m->ncls : 1, sizeof *m->cls);
	if (!m->cls) {
		chakra_free(vmap);
		rc = CHAKRA_ENOMEM;
		goto out;
	}
	for (int v = 0; v < F.nvocab; v++) {
		if (vmap[v] < 0)
			continue;
		sy_class *c = &m->cls[vmap[v]];
		cls_acc *a = &F.cls[v];
		c->vocab = v;
		const char *name = chakra__sy_class_name(v);
		c->node_type = !strcmp(name, "mem_load")    ? CHAKRA_MEM_LOAD_NODE
		               : !strcmp(name, "mem_store") ? CHAKRA_MEM_STORE_NODE
		               : !strcmp(name, "metadata")  ? CHAKRA_METADATA_NODE
		               : !strcmp(name, "invalid")   ? CHAKRA_INVALID_NODE
		                                            : CHAKRA_COMP_NODE;
		c->count = a->dur.n;
		sy_hist dh;
		if ((rc = hist_of(&dh, &a->dur)) < 0 ||
		    (rc = chakra__sy_gmm_fit(&c->dur, &dh, o.max_components, o.min_log_sd)) < 0) {
			chakra__sy_hist_free(&dh);
			chakra_free(vmap);
			goto out;
		}
		c->mean = chakra__sy_hist_mean(&dh);
		chakra__sy_hist_free(&dh);
		if ((rc = hist_of(&c->fanin, &a->fanin)) < 0 || (rc = hist_of(&c->dist, &a->dist)) < 0 ||
		    (rc = hist_of(&c->nearest, &a->nearest)) < 0 ||
		    (rc = hist_of(&c->fanout, &a->fanout)) < 0) {
			chakra_free(vmap);
			goto out;
		}
	}
	/* Compute sequences in model class numbers. */
	for (size_t q = 0; q < F.nks; q++)
		for (size_t i = 0; i < F.klen[q]; i++)
			F.kseq[q][i] = vmap[F.kseq[q][i]];
	chakra_free(vmap);
	rc = chakra__sy_markov_fit(&m->kseq, (int)m->ncls, (const int32_t *const *)F.kseq, F.klen,
	                           F.nks, -2);
	if (rc < 0)
		goto out;

	/* Collective classes, sorted by type and group. */
	m->ncoll = F.ncoll;
	m->coll = chakra_calloc(F.ncoll ? F.ncoll : 1, sizeof *m->coll);
	int *perm = chakra_malloc((F.ncoll ? F.ncoll : 1) * sizeof *perm);
	if (!m->coll || !perm) {
		chakra_free(perm);
		rc = CHAKRA_ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < F.ncoll; i++) {
		m->coll[i].comm_type = F.coll[i].comm_type;
		m->coll[i].group = F.coll[i].group;
		m->coll[i].gparam = F.coll[i].gparam;
		m->coll[i].count = i; /* original index, replaced below */
	}
	qsort(m->coll, F.ncoll, sizeof *m->coll, cmp_coll);
	for (size_t i = 0; i < F.ncoll; i++)
		perm[m->coll[i].count] = (int)i;
	for (size_t i = 0; i < F.ncoll; i++) {
		sy_coll *c = &m->coll[perm[i]];
		coll_acc *a = &F.coll[i];
		c->count = a->size.n;
		sy_hist sh;
		if ((rc = hist_of(&sh, &a->size)) < 0 ||
		    (rc = chakra__sy_gmm_fit(&c->size, &sh, o.max_components, o.min_log_sd)) < 0) {
			chakra__sy_hist_free(&sh);
			chakra_free(perm);
			goto out;
		}
		c->mean = chakra__sy_hist_mean(&sh);
		chakra__sy_hist_free(&sh);
		if ((rc = hist_of(&c->fanin_c, &a->fanin_c)) < 0 ||
		    (rc = hist_of(&c->near_c, &a->near_c)) < 0 ||
		    (rc = hist_of(&c->dist_c, &a->dist_c)) < 0 ||
		    (rc = hist_of(&c->fanin_x, &a->fanin_x)) < 0 ||
		    (rc = hist_of(&c->dist_x, &a->dist_x)) < 0 ||
		    (rc = hist_of(&c->dist_f, &a->dist_f)) < 0) {
			chakra_free(perm);
			goto out;
		}
	}
	/* Tokens, sorted by class then bucket. */
	m->ntok = F.ntok;
	m->tok = chakra_calloc(F.ntok ? F.ntok : 1, sizeof *m->tok);
	int *tperm = chakra_malloc((F.ntok ? F.ntok : 1) * sizeof *tperm);
	if (!m->tok || !tperm) {
		chakra_free(perm);
		chakra_free(tperm);
		rc = CHAKRA_ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < F.ntok; i++) {
		size_t rank = 0;
		int ci = perm[F.tok[i].coll];
		for (size_t j = 0; j < F.ntok; j++) {
			int cj = perm[F.tok[j].coll];
			rank += cj < ci || (cj == ci && F.tok[j].bucket < F.tok[i].bucket);
		}
		tperm[i] = (int)rank;
		sy_tok *k = &m->tok[rank];
		k->coll = ci;
		k->bucket = F.tok[i].bucket;
		k->count = F.tok[i].consumers.n;
		if ((rc = hist_of(&k->gap, &F.tok[i].gap)) < 0 ||
		    (rc = hist_of(&k->first, &F.tok[i].first)) < 0 ||
		    (rc = hist_of(&k->consumers, &F.tok[i].consumers)) < 0) {
			chakra_free(perm);
			chakra_free(tperm);
			goto out;
		}
	}
	for (size_t q = 0; q < F.ncs; q++)
		for (size_t i = 0; i < F.clen[q]; i++)
			F.cseq[q][i] = tperm[F.cseq[q][i]];
	chakra_free(perm);
	chakra_free(tperm);
	rc = chakra__sy_markov_fit(&m->cseq, (int)m->ntok, (const int32_t *const *)F.cseq, F.clen,
	                           F.ncs, o.max_order);
	if (rc < 0)
		goto out;
	if ((rc = hist_of(&m->tail, &F.tail)) < 0 || (rc = hist_of(&m->lead, &F.lead)) < 0)
		goto out;
	*out = m;
	m = NULL;
out:
	if (T)
		for (size_t r = 0; r < n; r++)
			chakra__sy_trace_free(&T[r]);
	chakra_free(T);
	fitter_free(&F);
	if (m)
		chakra_synth_model_free(m);
	return rc;
}

/* Every failure comes with a message (out of memory included). */
int chakra_synth_fit(chakra_synth_model **out, const char *const *paths, size_t n,
                     const chakra_synth_fit_options *opts, char *err, size_t errlen)
{
	if (!out || (!paths && n))
		return chakra__sy_err(err, errlen, CHAKRA_EINVAL, "%s: NULL argument", __func__);
	if (errlen)
		err[0] = 0;
	return chakra__sy_msg(synth_fit_impl(out, paths, n, opts, err, errlen), err, errlen);
}

void chakra__sy_model_clear(chakra_synth_model *m)
{
	/* (an array may be NULL with its count set: its allocation failed) */
	for (size_t i = 0; m->cls && i < m->ncls; i++) {
		chakra__sy_hist_free(&m->cls[i].fanin);
		chakra__sy_hist_free(&m->cls[i].nearest);
		chakra__sy_hist_free(&m->cls[i].dist);
		chakra__sy_hist_free(&m->cls[i].fanout);
	}
	chakra_free(m->cls);
	for (size_t i = 0; m->coll && i < m->ncoll; i++) {
		sy_coll *c = &m->coll[i];
		sy_hist *h[] = { &c->fanin_c, &c->near_c, &c->dist_c, &c->fanin_x, &c->dist_x,
		                 &c->dist_f };
		for (size_t j = 0; j < sizeof h / sizeof h[0]; j++)
			chakra__sy_hist_free(h[j]);
	}
	chakra_free(m->coll);
	for (size_t i = 0; m->tok && i < m->ntok; i++) {
		chakra__sy_hist_free(&m->tok[i].gap);
		chakra__sy_hist_free(&m->tok[i].first);
		chakra__sy_hist_free(&m->tok[i].consumers);
	}
	chakra_free(m->tok);
	chakra__sy_markov_free(&m->cseq);
	chakra__sy_markov_free(&m->kseq);
	chakra__sy_hist_free(&m->lead);
	chakra__sy_hist_free(&m->tail);
	memset(m, 0, sizeof *m);
}

void chakra_synth_model_free(chakra_synth_model *m)
{
	if (!m)
		return;
	chakra__sy_model_clear(m);
	chakra_free(m);
}

uint32_t chakra_synth_model_ranks(const chakra_synth_model *m)
{
	return m ? m->ranks : 0;
}

void chakra_synth_model_notes(const chakra_synth_model *m, chakra_synth_fit_notes *out)
{
	if (!m || !out)
		return;
	out->self_deps = m->self_deps;
	out->missing_deps = m->missing_deps;
	out->cycle_edges = m->cycle_edges;
	out->pg_name_without_groups = m->pg_ignored;
}

double chakra_synth_model_nodes_per_rank(const chakra_synth_model *m)
{
	return m ? m->nodes_per_rank : 0;
}

int chakra_synth_model_markov_order(const chakra_synth_model *m)
{
	return m ? m->cseq.order : CHAKRA_EINVAL;
}

void chakra__sy_coll_name(const sy_coll *c, char *buf, size_t cap)
{
	const char *t = chakra_comm_type_name(c->comm_type);
	if (!t)
		t = "COLLECTIVE";
	if (c->group == SY_GROUP_BLOCK)
		snprintf(buf, cap, "%s/block%u", t, c->gparam);
	else if (c->group == SY_GROUP_STRIDE)
		snprintf(buf, cap, "%s/stride%u", t, c->gparam);
	else
		snprintf(buf, cap, "%s", t);
}
