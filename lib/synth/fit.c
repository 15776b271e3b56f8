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
 * Markov chains; every rank counts in the distributions.
 *
 * This file runs the stages: the options, loading every rank (and the
 * duration unit), the walk of each (fit_walk.c, groups from fit_groups.c),
 * then the model's compute classes, collective classes and tokens. */
#include <stdlib.h>
#include <string.h>

#include "fit_impl.h"

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

/* The options in force: defaults filled in, limits applied. */
static int fit_options(chakra_synth_fit_options *o, const chakra_synth_fit_options *opts,
                       char *err, size_t errlen)
{
	if (chakra__opts_copy(o, sizeof *o, opts, &fit_defaults, fit_opts_size, 2) < 0)
		return chakra__sy_err(err, errlen, CHAKRA_EINVAL, "fit options: unknown version %u",
		                      opts->version);
	if (o->max_order <= 0)
		o->max_order = 3;
	if (o->max_order > SY_MAXORDER)
		o->max_order = SY_MAXORDER;
	if (o->max_components <= 0)
		o->max_components = 8;
	if (o->max_components > SY_MAXK)
		o->max_components = SY_MAXK;
	if (!(o->min_log_sd >= 0 && o->min_log_sd <= 10))
		return chakra__sy_err(err, errlen, CHAKRA_EINVAL, "min_log_sd must be in [0, 10]");
	return 0;
}

/* All ranks first: the duration unit depends on all of them. It is the
 * traces' resolution: the largest of 1000, 100, 10, 1 ns that divides
 * every compute duration (Kineto times are whole microseconds even when
 * written as duration_nanos). Values that repeat then stay whole values
 * instead of a spread around them. */
static int load_ranks(sy_fitter *F, chakra_synth_model *m, sy_trace *T, const char *const *paths,
                      size_t n, uint64_t *total_nodes, char *err, size_t errlen)
{
	int rc;
	uint64_t g = 0;
	*total_nodes = 0;
	for (size_t r = 0; r < n; r++) {
		if ((rc = chakra__sy_trace_load(&T[r], paths[r], err, errlen)) < 0)
			return rc;
		*total_nodes += T[r].nn;
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
	if (!*total_nodes)
		return chakra__sy_err(err, errlen, CHAKRA_EINVAL, "%s: no nodes to learn from", paths[0]);
	F->quantum = !g || g % 1000 == 0 ? 1000 : g % 100 == 0 ? 100 : g % 10 == 0 ? 10 : 1;
	return 0;
}

/* Compute classes that occur, in vocabulary order, and the compute
 * sequences' chain in their numbers. */
static int fit_compute(sy_fitter *F, chakra_synth_model *m, const chakra_synth_fit_options *o)
{
	int rc;
	int *vmap = chakra_malloc((size_t)F->nvocab * sizeof *vmap);
	if (!vmap)
		return CHAKRA_ENOMEM;
	for (int v = 0; v < F->nvocab; v++)
		vmap[v] = F->cls[v].dur.n ? (int)m->ncls++ : -1;
	m->cls = chakra_calloc(m->ncls ? m->ncls : 1, sizeof *m->cls);
	if (!m->cls) {
		chakra_free(vmap);
		return CHAKRA_ENOMEM;
	}
	for (int v = 0; v < F->nvocab; v++) {
		if (vmap[v] < 0)
			continue;
		sy_class *c = &m->cls[vmap[v]];
		sy_cls_acc *a = &F->cls[v];
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
		    (rc = chakra__sy_gmm_fit(&c->dur, &dh, o->max_components, o->min_log_sd)) < 0) {
			chakra__sy_hist_free(&dh);
			chakra_free(vmap);
			return rc;
		}
		c->mean = chakra__sy_hist_mean(&dh);
		chakra__sy_hist_free(&dh);
		if ((rc = hist_of(&c->fanin, &a->fanin)) < 0 || (rc = hist_of(&c->dist, &a->dist)) < 0 ||
		    (rc = hist_of(&c->nearest, &a->nearest)) < 0 ||
		    (rc = hist_of(&c->fanout, &a->fanout)) < 0) {
			chakra_free(vmap);
			return rc;
		}
	}
	for (size_t q = 0; q < F->nks; q++)
		for (size_t i = 0; i < F->klen[q]; i++)
			F->kseq[q][i] = vmap[F->kseq[q][i]];
	chakra_free(vmap);
	return chakra__sy_markov_fit(&m->kseq, (int)m->ncls, (const int32_t *const *)F->kseq, F->klen,
	                             F->nks, -2);
}

/* Collective classes, sorted by type and group; *perm receives the
 * fitter's class -> the model's (the caller frees it). */
static int fit_colls(sy_fitter *F, chakra_synth_model *m, const chakra_synth_fit_options *o,
                     int **perm_out)
{
	int rc;
	m->ncoll = F->ncoll;
	m->coll = chakra_calloc(F->ncoll ? F->ncoll : 1, sizeof *m->coll);
	int *perm = chakra_malloc((F->ncoll ? F->ncoll : 1) * sizeof *perm);
	*perm_out = perm;
	if (!m->coll || !perm)
		return CHAKRA_ENOMEM;
	for (size_t i = 0; i < F->ncoll; i++) {
		m->coll[i].comm_type = F->coll[i].comm_type;
		m->coll[i].group = F->coll[i].group;
		m->coll[i].gparam = F->coll[i].gparam;
		m->coll[i].count = i; /* original index, replaced below */
	}
	qsort(m->coll, F->ncoll, sizeof *m->coll, cmp_coll);
	for (size_t i = 0; i < F->ncoll; i++)
		perm[m->coll[i].count] = (int)i;
	for (size_t i = 0; i < F->ncoll; i++) {
		sy_coll *c = &m->coll[perm[i]];
		sy_coll_acc *a = &F->coll[i];
		c->count = a->size.n;
		sy_hist sh;
		if ((rc = hist_of(&sh, &a->size)) < 0 ||
		    (rc = chakra__sy_gmm_fit(&c->size, &sh, o->max_components, o->min_log_sd)) < 0) {
			chakra__sy_hist_free(&sh);
			return rc;
		}
		c->mean = chakra__sy_hist_mean(&sh);
		chakra__sy_hist_free(&sh);
		if ((rc = hist_of(&c->fanin_c, &a->fanin_c)) < 0 ||
		    (rc = hist_of(&c->near_c, &a->near_c)) < 0 ||
		    (rc = hist_of(&c->dist_c, &a->dist_c)) < 0 ||
		    (rc = hist_of(&c->fanin_x, &a->fanin_x)) < 0 ||
		    (rc = hist_of(&c->dist_x, &a->dist_x)) < 0 ||
		    (rc = hist_of(&c->dist_f, &a->dist_f)) < 0)
			return rc;
	}
	return 0;
}

/* Tokens, sorted by class then bucket, and the collective sequences'
 * chain in their numbers; perm from fit_colls. */
static int fit_tokens(sy_fitter *F, chakra_synth_model *m, const chakra_synth_fit_options *o,
                      const int *perm)
{
	int rc;
	m->ntok = F->ntok;
	m->tok = chakra_calloc(F->ntok ? F->ntok : 1, sizeof *m->tok);
	int *tperm = chakra_malloc((F->ntok ? F->ntok : 1) * sizeof *tperm);
	if (!m->tok || !tperm) {
		chakra_free(tperm);
		return CHAKRA_ENOMEM;
	}
	for (size_t i = 0; i < F->ntok; i++) {
		size_t rank = 0;
		int ci = perm[F->tok[i].coll];
		for (size_t j = 0; j < F->ntok; j++) {
			int cj = perm[F->tok[j].coll];
			rank += cj < ci || (cj == ci && F->tok[j].bucket < F->tok[i].bucket);
		}
		tperm[i] = (int)rank;
		sy_tok *k = &m->tok[rank];
		k->coll = ci;
		k->bucket = F->tok[i].bucket;
		k->count = F->tok[i].consumers.n;
		if ((rc = hist_of(&k->gap, &F->tok[i].gap)) < 0 ||
		    (rc = hist_of(&k->first, &F->tok[i].first)) < 0 ||
		    (rc = hist_of(&k->consumers, &F->tok[i].consumers)) < 0) {
			chakra_free(tperm);
			return rc;
		}
	}
	for (size_t q = 0; q < F->ncs; q++)
		for (size_t i = 0; i < F->clen[q]; i++)
			F->cseq[q][i] = tperm[F->cseq[q][i]];
	chakra_free(tperm);
	return chakra__sy_markov_fit(&m->cseq, (int)m->ntok, (const int32_t *const *)F->cseq, F->clen,
	                             F->ncs, o->max_order);
}

static int synth_fit_impl(chakra_synth_model **out, const char *const *paths, size_t n,
                          const chakra_synth_fit_options *opts, char *err, size_t errlen)
{
	chakra_synth_fit_options o;
	int rc = fit_options(&o, opts, err, errlen);
	if (rc < 0)
		return rc;
	*out = NULL;
	if (!n)
		return chakra__sy_err(err, errlen, CHAKRA_EINVAL, "no traces to fit");
	if (n > (1u << 24))
		return chakra__sy_err(err, errlen, CHAKRA_EINVAL, "too many ranks");
	sy_fitter F;
	memset(&F, 0, sizeof F);
	chakra_synth_model *m = chakra_calloc(1, sizeof *m);
	sy_trace *T = chakra_calloc(n, sizeof *T);
	int *perm = NULL;
	F.nvocab = chakra__sy_class_count();
	F.cls = chakra_calloc((size_t)F.nvocab, sizeof *F.cls);
	if (!m || !T || !F.cls) {
		rc = CHAKRA_ENOMEM;
		goto out;
	}
	if (o.comm_groups) {
		if ((rc = chakra__sy_groups_load(&F.G, o.comm_groups, err, errlen)) < 0)
			goto out;
		F.have_groups = 1;
		F.gpath = o.comm_groups;
		if (F.G.world < n)
			F.G.world = (uint32_t)n;
	}
	uint64_t total_nodes;
	if ((rc = load_ranks(&F, m, T, paths, n, &total_nodes, err, errlen)) < 0)
		goto out;
	for (size_t r = 0; r < n; r++) {
		if ((rc = chakra__sy_fit_walk(&F, &T[r], err, errlen)) < 0)
			goto out;
		chakra__sy_trace_free(&T[r]);
	}
	m->ranks = (uint32_t)n;
	m->nodes_per_rank = (double)total_nodes / (double)n;
	m->quantum_ns = F.quantum;
	m->pg_ignored = F.pg_ignored;
	if ((rc = fit_compute(&F, m, &o)) < 0 || (rc = fit_colls(&F, m, &o, &perm)) < 0 ||
	    (rc = fit_tokens(&F, m, &o, perm)) < 0)
		goto out;
	if ((rc = hist_of(&m->tail, &F.tail)) < 0 || (rc = hist_of(&m->lead, &F.lead)) < 0)
		goto out;
	*out = m;
	m = NULL;
out:
	chakra_free(perm);
	if (T)
		for (size_t r = 0; r < n; r++)
			chakra__sy_trace_free(&T[r]);
	chakra_free(T);
	chakra__sy_fitter_free(&F);
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
