/* SPDX-License-Identifier: Apache-2.0 */
/* chakra_gen_model: the model generator's options, their defaults per
 * model and their checks; the layers and iterations are model_layers.c. */
#include "model.h"

#include <math.h>

#include "chakra/chakra.h"
#include "../modmem.h"
#include "../opts.h"

static const chakra_gen_model_options model_defaults = CHAKRA_GEN_MODEL_OPTIONS_INIT;
static const size_t model_sizes[] = { 0, sizeof(chakra_gen_model_options) };

int chakra_gen_model_options_init(chakra_gen_model_options *opts, unsigned version)
{
	return chakra__opts_init(opts, version, &model_defaults, model_sizes, 2);
}

/* The options as the layers see them: defaults filled in, every size in
 * range, the groups dividing the machine. 0, or CHAKRA_EINVAL after a
 * message. */
static int resolve(params *p, const chakra_gen_model_options *m, const chakra_gen_options *o,
                   const gen_sink *E)
{
	if (m->model < M_MLP || m->model > M_TRANSFORMER || m->parallel < CHAKRA_GEN_PARALLEL_DATA ||
	    m->parallel > CHAKRA_GEN_PARALLEL_HYBRID) {
		gen_err(E, "unknown model or parallelism");
		return CHAKRA_EINVAL;
	}
	if (!(m->tflops > 0) || !(m->mem_gbps > 0) || isinf(m->tflops) || isinf(m->mem_gbps)) {
		gen_err(E, "tflops and mem_gbps must be positive");
		return CHAKRA_EINVAL;
	}
	if (!m->passes || m->passes > 100000 || !m->dtype_bytes || m->dtype_bytes > 64) {
		gen_err(E, "passes must be 1..100000 and dtype_bytes 1..64");
		return CHAKRA_EINVAL;
	}
	memset(p, 0, sizeof *p);
	p->model = m->model;
	p->par = m->parallel;
	p->npus = o->npus;
	p->bytes = m->dtype_bytes;
	p->tflops = m->tflops;
	p->gbps = m->mem_gbps;
	p->passes = m->passes;
	int mlp = p->model == M_MLP, dlrm = p->model == M_DLRM;
#define DEFAULT(f, v) (p->f = m->f ? m->f : (v))
	DEFAULT(batch, mlp ? 1024 : dlrm ? 2048 : 64);
	DEFAULT(layers, mlp ? 8 : 12);
	DEFAULT(hidden, mlp ? 4096 : 1024);
	DEFAULT(seq, p->model == M_TRANSFORMER ? 1024 : 1);
	DEFAULT(tables, 64);
	DEFAULT(emb_dim, 128);
	DEFAULT(pooling, 32);
	DEFAULT(dense, 512);
	DEFAULT(bottom, 3);
	DEFAULT(top, 3);
#undef DEFAULT
	if (p->layers > 10000 || p->bottom > 1000 || p->top > 1000 || p->hidden > 1u << 20 ||
	    p->seq > 1u << 20 || p->emb_dim > 1u << 16 || p->tables > 1u << 20 ||
	    p->pooling > 1u << 16 || p->dense > 1u << 20 || p->batch > 1u << 24) {
		gen_err(E, "a size is out of range (docs/generate.md)");
		return CHAKRA_EINVAL;
	}
	if (p->par == CHAKRA_GEN_PARALLEL_DATA || p->par == CHAKRA_GEN_PARALLEL_MODEL) {
		uint64_t mp = p->par == CHAKRA_GEN_PARALLEL_DATA ? 1 : p->npus;
		if (m->mp_group && m->mp_group != mp) {
			gen_err(E, "mp_group is for hybrid parallelism");
			return CHAKRA_EINVAL;
		}
		p->mp = mp;
	} else {
		p->mp = m->mp_group ? m->mp_group : o->dims[0];
	}
	if (p->mp > p->npus || p->npus % p->mp) {
		gen_err(E, "mp_group %llu must divide npus %llu", (unsigned long long)p->mp,
		        (unsigned long long)p->npus);
		return CHAKRA_EINVAL;
	}
	p->dp = p->npus / p->mp;
	if (p->batch % p->dp) {
		gen_err(E, "batch %llu must be a multiple of the data-parallel degree %llu",
		        (unsigned long long)p->batch, (unsigned long long)p->dp);
		return CHAKRA_EINVAL;
	}
	return 0;
}

int chakra_gen_model(const char *prefix, const chakra_gen_options *opts,
                     const chakra_gen_model_options *model)
{
	chakra_gen_options o;
	chakra_gen_model_options m;
	gen_sink E;
	int rc = gen_options_take(&o, opts, 1u << 16, &E);
	if (rc < 0)
		return rc;
	if (chakra__opts_copy(&m, sizeof m, model, &model_defaults, model_sizes, 2) < 0) {
		gen_err(&E, "unknown options version");
		return CHAKRA_EINVAL;
	}
	if (!prefix || !*prefix) {
		gen_err(&E, "no output prefix");
		return CHAKRA_EINVAL;
	}
	params p;
	if ((rc = resolve(&p, &m, &o, &E)) < 0)
		return rc;
	size_t n = 0;
	mlayer *L = model_build_layers(&p, &n);
	gen_graph g;
	gen_graph_init(&g, o.npus, o.dims, o.ndims);
	int built = !L || model_emit_iterations(&g, &p, L, n) < 0 ? -1 : 0;
	gen_write_opts wo = { prefix, o.groups_path, NULL, o.force, o.gzip, o.rank_map, E,
	                      o.progress, o.progress_data };
	rc = gen_graph_finish(&g, built, &wo, NULL, "--passes or --layers");
	gen_graph_free(&g);
	chakra_free(L);
	return rc;
}
