/* SPDX-License-Identifier: Apache-2.0 */
/* An ASTRA-sim 1.0 text workload -> one Chakra ET per NPU, with each
 * collective over its data- or model-parallel group (chakra_gen_text,
 * include/chakra/experimental/gen.h). The dependency structure follows
 * ASTRA-sim 1.0's training loops (docs/generate.md lists every rule and
 * why). */
#include "gen_impl.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "chakra/chakra.h"
#include "../modmem.h"
#include "../opts.h"

typedef struct conv {
	const text_workload *w;
	gen_graph *g;
	uint32_t passes;
	double ns_per_cycle, compute_scale, comm_scale;
	const char *path;
	const gen_sink *E;
	char pass_prefix[32];
	int strong;           /* --strong-scaling */
	gen_chain chain;      /* compute runs in program order */
} conv;

static uint64_t ns_of(const conv *c, uint64_t cycles, uint64_t divisor)
{
	double v = floor((double)cycles * c->compute_scale * c->ns_per_cycle / (double)divisor + 0.5);
	return v >= 1.8e19 ? UINT64_MAX : (uint64_t)v;
}

static gen_group phase_group(const conv *c, const text_layer *l, int layer_index, int ph);

/* --strong-scaling: how many data-parallel replicas share the batch of this
 * layer (the ranks its weight-gradient collective spans). */
static uint64_t degree(const conv *c, const text_layer *l)
{
	if (!c->strong)
		return 1;
	gen_group g = phase_group(c, l, (int)(l - c->w->layers), PH_WG);
	if (!g.block)
		return 1;
	return g.inner ? g.block : c->g->npus / g.block;
}

static void wait_for(conv *c, uint64_t id)
{
	gen_chain_wait(&c->chain, id);
}

/* A compute node of a layer, in program order. */
static uint64_t comp(conv *c, const text_layer *l, const char *what, uint64_t cycles,
                     uint64_t extra)
{
	char name[200];
	snprintf(name, sizeof name, "%s%s_%s", c->pass_prefix, l->name, what);
	return gen_chain_comp(c->g, &c->chain, name, ns_of(c, cycles, degree(c, l)), 0, 0, extra);
}

/* Groups of ASTRA-sim 1.0's decode_involved_dimensions, as rank sets. */
static gen_group phase_group(const conv *c, const text_layer *l, int layer_index, int ph)
{
	const gen_graph *g = c->g;
	gen_group world = { g->npus, 1 }, none = { 0, 1 };
	gen_group d0_inner = { g->dims[0], 1 }, d0_outer = { g->dims[0], 0 };
	text_policy p = l->policy;
	if ((p == TP_HYBRID_DLRM || p == TP_HYBRID_DLRM_ENHANCED) && layer_index == 0)
		return world; /* the embedding layer talks to everyone */
	switch (p) {
	case TP_DATA:
	case TP_MICRO:
	case TP_HYBRID_DLRM:
	case TP_HYBRID_DLRM_ENHANCED:
		return ph == PH_WG ? world : none;
	case TP_MODEL:
	case TP_DISTRIBUTED_INFERENCE:
		return ph == PH_WG ? none : world;
	case TP_HYBRID_DATA_MODEL: /* model on dim 0, data on the others */
		return ph == PH_WG ? d0_outer : d0_inner;
	case TP_HYBRID_MODEL_DATA: /* data on dim 0, model on the others */
		return ph == PH_WG ? d0_inner : d0_outer;
	case TP_HYBRID_TRANSFORMER:
	case TP_HYBRID_TRANSFORMER_FWD_IN_BCKWD: {
		gen_group model = { (uint32_t)c->w->mp_group, 1 }, data = { (uint32_t)c->w->mp_group, 0 };
		return ph == PH_WG ? data : model;
	}
	default:
		return none;
	}
}

static const char *const phase_names[] = { "fwd", "ig", "wg" };

static uint64_t coll(conv *c, const text_layer *l, int layer_index, int ph, uint64_t dep)
{
	if (l->coll[ph] == TC_NONE)
		return UINT64_MAX;
	gen_group grp = phase_group(c, l, layer_index, ph);
	if (!grp.block) {
		/* ASTRA-sim 1.0 gives this phase no network dimension under the
		 * layer's parallelism: say so rather than drop it silently. */
		if (!c->pass_prefix[0] || !strcmp(c->pass_prefix, "p0."))
			gen_err(c->E,
			        "%s:%d: note: layer %s: %s %s under %s spans no network "
			        "dimension (as in ASTRA-sim 1.0); left out",
			        c->path, l->line, l->name, phase_names[ph], text_coll_name(l->coll[ph]),
			        text_policy_name(l->policy));
		return UINT64_MAX;
	}
	char name[200];
	snprintf(name, sizeof name, "%s%s_%s_%s", c->pass_prefix, l->name, phase_names[ph],
	         text_coll_name(l->coll[ph]));
	/* Activations shrink with the batch per replica; weights do not. */
	uint64_t div = ph == PH_WG ? 1 : degree(c, l);
	double sz = floor((double)l->comm_size[ph] * c->comm_scale / (double)div + 0.5);
	uint64_t size = sz >= 1.8e19 ? UINT64_MAX : (uint64_t)sz;
	return gen_graph_coll(c->g, name, text_coll_chakra(l->coll[ph]), size, grp, &dep, 1);
}

/* comm_size is an int64 attribute in an ET: a size past INT64_MAX would be
 * written negative (and one past UINT64_MAX as -1). Refuse before writing
 * anything, naming the layer; never wrap. Dividing by a data-parallel
 * degree only shrinks a size, so the undivided one is checked. */
static int check_sizes(const text_workload *w, double scale, const char *path,
                       const gen_sink *E)
{
	static const char *const ph_names[] = { "forward", "input-gradient", "weight-gradient" };
	for (uint32_t i = 0; i < w->nlayers; i++) {
		const text_layer *l = &w->layers[i];
		for (int ph = 0; ph < 3; ph++) {
			if (l->coll[ph] == TC_NONE)
				continue;
			double sz = floor((double)l->comm_size[ph] * scale + 0.5);
			if (sz < 9223372036854775808.0) /* 2^63 */
				continue;
			gen_err(E, "%s:%d: layer %s: %s collective of %llu bytes%s is past the largest "
			         "comm_size an ET holds (2^63-1 bytes)", path, l->line, l->name,
			         ph_names[ph], (unsigned long long)l->comm_size[ph],
			         scale != 1 ? " times --comm-scale" : "");
			return -1;
		}
	}
	return 0;
}

static int is_transformer(text_policy p)
{
	return p == TP_HYBRID_TRANSFORMER || p == TP_HYBRID_TRANSFORMER_FWD_IN_BCKWD;
}

static int is_dlrm(text_policy p)
{
	return p == TP_HYBRID_DLRM || p == TP_HYBRID_DLRM_ENHANCED;
}

static int build(conv *c)
{
	const text_workload *w = c->w;
	uint32_t L = w->nlayers;
	uint64_t *prev_update = chakra_malloc(L * sizeof *prev_update);
	if (!prev_update)
		return -1;
	for (uint32_t i = 0; i < L; i++)
		prev_update[i] = UINT64_MAX;
	gen_chain_init(&c->chain);
	text_policy P = w->policy;
	int64_t B = w->dlrm_last_bottom;
	for (uint32_t p = 0; p < c->passes && !c->chain.failed; p++) {
		if (c->passes > 1)
			snprintf(c->pass_prefix, sizeof c->pass_prefix, "p%u.", p);
		else
			c->pass_prefix[0] = 0;
		if (p == 1 && (uint64_t)c->g->n * c->passes > GEN_MAX_NODES) {
			c->g->too_many = 1;
			break;
		}
		if (P == TP_MICRO) {
			/* ASTRA-sim 1.0 issues every pass's collective at once, no compute. */
			for (uint32_t i = 0; i < L; i++)
				coll(c, &w->layers[i], (int)i, PH_WG, UINT64_MAX);
			continue;
		}
		/* Forward. */
		uint64_t emb_fwd = UINT64_MAX, emb_ig = UINT64_MAX;
		for (uint32_t i = 0; i < L; i++) {
			const text_layer *l = &w->layers[i];
			uint64_t extra = prev_update[i];
			uint64_t f = comp(c, l, "fwd", l->compute[PH_FWD], extra);
			uint64_t fc = coll(c, l, (int)i, PH_FWD, f);
			if (is_dlrm(P) && l->coll[PH_FWD] == TC_ALLTOALL)
				emb_fwd = fc; /* non-blocking; the top MLP waits for it */
			else
				wait_for(c, fc);
			if (is_dlrm(P) && (int64_t)i == B)
				wait_for(c, emb_fwd);
		}
		if (P == TP_DISTRIBUTED_INFERENCE)
			continue;
		/* Backward, last layer first. */
		int wg_first = P == TP_DATA || is_dlrm(P);
		for (uint32_t k = L; k-- > 0;) {
			const text_layer *l = &w->layers[k];
			uint64_t ig_coll = UINT64_MAX;
			if (P == TP_HYBRID_TRANSFORMER_FWD_IN_BCKWD && l->initiates) {
				/* Recompute the forward pass from the checkpoint below. */
				uint32_t start = k;
				while (start > 0 && !w->layers[start].checkpoint)
					start--;
				for (uint32_t j = start; j < k; j++) {
					const text_layer *r = &w->layers[j];
					uint64_t f = comp(c, r, "fwd_recompute", r->compute[PH_FWD], UINT64_MAX);
					wait_for(c, coll(c, r, (int)j, PH_FWD, f));
				}
			}
			if (!wg_first) {
				uint64_t ig = comp(c, l, "ig", l->compute[PH_IG], UINT64_MAX);
				if (k > 0 || is_transformer(P)) {
					ig_coll = coll(c, l, (int)k, PH_IG, ig);
					if (is_transformer(P)) {
						wait_for(c, ig_coll); /* blocking in ASTRA-sim 1.0 */
						ig_coll = UINT64_MAX;
					}
				}
			}
			if (is_dlrm(P) && k == 0)
				wait_for(c, emb_ig); /* the embedding gradients it applies */
			uint64_t wg = comp(c, l, "wg", l->compute[PH_WG], UINT64_MAX);
			uint64_t wc = coll(c, l, (int)k, PH_WG, wg);
			uint64_t last = wc != UINT64_MAX ? wc : wg;
			if (l->update) {
				char name[200];
				snprintf(name, sizeof name, "%s%s_update", c->pass_prefix, l->name);
				/* The update touches the weights: no batch to split. */
				last = gen_graph_comp(c->g, name, ns_of(c, l->update, 1), 0, 0, &last, 1);
				if (last == UINT64_MAX)
					c->chain.failed = 1;
			}
			prev_update[k] = last;
			if (wg_first && k > 0) {
				uint64_t ig = comp(c, l, "ig", l->compute[PH_IG], UINT64_MAX);
				if (is_dlrm(P) && (int64_t)k == B + 1)
					/* The embedding gradients leave as soon as the top MLP's
					 * input gradient exists; layer 0 waits for them. */
					emb_ig = coll(c, &w->layers[0], 0, PH_IG, ig);
				else
					ig_coll = coll(c, l, (int)k, PH_IG, ig);
			}
			wait_for(c, ig_coll);
		}
	}
	chakra_free(prev_update);
	return c->chain.failed || c->g->too_many || c->g->oom ? -1 : 0;
}

static const chakra_gen_text_options text_defaults = CHAKRA_GEN_TEXT_OPTIONS_INIT;
static const size_t text_sizes[] = { 0, sizeof(chakra_gen_text_options) };

int chakra_gen_text_options_init(chakra_gen_text_options *opts, unsigned version)
{
	return chakra__opts_init(opts, version, &text_defaults, text_sizes, 2);
}

int chakra_gen_text(const char *in, const char *prefix, const chakra_gen_options *opts,
                    const chakra_gen_text_options *text)
{
	chakra_gen_options o;
	chakra_gen_text_options t;
	gen_sink E;
	int orc = gen_options_take(&o, opts, 1u << 20, &E);
	if (orc < 0)
		return orc;
	if (chakra__opts_copy(&t, sizeof t, text, &text_defaults, text_sizes, 2) < 0) {
		gen_err(&E, "unknown options version");
		return CHAKRA_EINVAL;
	}
	if (!in || !prefix || !*prefix) {
		gen_err(&E, "no workload or no output prefix");
		return CHAKRA_EINVAL;
	}
	if (!t.passes || t.passes > 1000000 || !(t.ghz > 0) || !(t.compute_scale >= 0) ||
	    !(t.comm_scale >= 0) || isinf(t.ghz) || isinf(t.compute_scale) || isinf(t.comm_scale)) {
		gen_err(&E, "passes must be 1..1000000, ghz > 0 and the scales >= 0 (finite)");
		return CHAKRA_EINVAL;
	}
	uint64_t npus = o.npus;
	text_workload w;
	int rc = text_workload_load(&w, in, &E);
	if (rc < 0)
		return rc;
	if (is_transformer(w.policy) && ((uint64_t)w.mp_group > npus || npus % (uint64_t)w.mp_group)) {
		gen_err(&E, "%s: model_parallel_NPU_group %lld must divide --npus %llu", in,
		        (long long)w.mp_group, (unsigned long long)npus);
		text_workload_free(&w);
		return CHAKRA_EINVAL;
	}
	if (check_sizes(&w, t.comm_scale, in, &E) < 0) {
		text_workload_free(&w);
		return CHAKRA_ECORRUPT;
	}
	gen_graph g;
	gen_graph_init(&g, o.npus, o.dims, o.ndims);
	conv c;
	memset(&c, 0, sizeof c);
	c.w = &w;
	c.g = &g;
	c.passes = t.passes;
	c.ns_per_cycle = 1.0 / t.ghz;
	c.compute_scale = t.compute_scale;
	c.comm_scale = t.comm_scale;
	c.path = in;
	c.E = &E;
	c.strong = t.strong_scaling;
	gen_write_opts wo = { prefix, o.groups_path, in, o.force, o.gzip, o.rank_map, E,
	                      o.progress, o.progress_data };
	rc = gen_graph_finish(&g, build(&c), &wo, in, "--passes");
	gen_graph_free(&g);
	text_workload_free(&w);
	return rc;
}
