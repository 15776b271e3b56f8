/* SPDX-License-Identifier: Apache-2.0 */
/* The model generator: the layers of an MLP, DLRM or Transformer under
 * data, model or hybrid parallelism (the Chakra paper's §6.2 set) and their
 * training iterations as a workload graph (model.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "../modmem.h"

static uint64_t dur_ns(const params *p, uint64_t flops, uint64_t bytes)
{
	/* 1 TFLOP/s = 1000 FLOP/ns; 1 GB/s = 1 byte/ns. */
	double t = fmax((double)flops / (p->tflops * 1000.0), (double)bytes / p->gbps);
	double v = ceil(t);
	return v >= 1.8e19 ? UINT64_MAX : (uint64_t)v;
}

/* A column-parallel linear layer (in -> out) over the model group: each rank
 * holds out/M columns; the output is all-gathered, the input gradient
 * all-reduced (partial sums), the weight gradient all-reduced over the data
 * group. tokens = rows of the activation on this rank. */
static void linear(mlayer *l, const params *p, const char *name, uint64_t in, uint64_t out,
                   uint64_t tokens, int allgather_out, int allreduce_ig)
{
	memset(l, 0, sizeof *l);
	snprintf(l->name, sizeof l->name, "%s", name);
	l->kind = K_LINEAR;
	uint64_t outl = (out + p->mp - 1) / p->mp;
	uint64_t b = p->bytes;
	uint64_t gemm = 2 * tokens * in * outl;
	for (int ph = 0; ph < 3; ph++) {
		l->flops[ph] = gemm;
		l->coll[ph] = -1;
	}
	l->bytes[F] = (tokens * in + in * outl + tokens * outl) * b;
	l->bytes[IG] = (tokens * outl + in * outl + tokens * in) * b;
	l->bytes[WG] = (tokens * in + tokens * outl + in * outl) * b;
	gen_group model = { (uint32_t)p->mp, 1 }, data = { (uint32_t)p->mp, 0 };
	if (allgather_out) {
		l->coll[F] = CHAKRA_ALL_GATHER;
		l->csize[F] = tokens * out * b;
		l->grp[F] = model;
	}
	if (allreduce_ig) {
		l->coll[IG] = CHAKRA_ALL_REDUCE;
		l->csize[IG] = tokens * in * b;
		l->grp[IG] = model;
	}
	l->coll[WG] = CHAKRA_ALL_REDUCE;
	l->csize[WG] = in * outl * b;
	l->grp[WG] = data;
}

/* Megatron-style row-parallel linear: input split, output partial sums
 * all-reduced in the forward pass; no input-gradient collective. */
static void linear_row(mlayer *l, const params *p, const char *name, uint64_t in, uint64_t out,
                       uint64_t tokens)
{
	linear(l, p, name, out, in, tokens, 0, 0); /* same FLOPs and weight shard */
	snprintf(l->name, sizeof l->name, "%s", name);
	l->coll[F] = CHAKRA_ALL_REDUCE;
	l->csize[F] = tokens * out * p->bytes;
	l->grp[F] = (gen_group){ (uint32_t)p->mp, 1 };
}

mlayer *model_build_layers(const params *p, size_t *n)
{
	size_t cap = 8 + p->layers * 5 + p->bottom + p->top;
	mlayer *L = chakra_calloc(cap, sizeof *L);
	if (!L)
		return NULL;
	size_t k = 0;
	char nm[48];
	uint64_t b = p->bytes;
	if (p->model == M_MLP) {
		uint64_t tokens = p->batch / p->dp;
		for (uint64_t i = 0; i < p->layers; i++) {
			snprintf(nm, sizeof nm, "fc%llu", (unsigned long long)i);
			linear(&L[k++], p, nm, p->hidden, p->hidden, tokens, 1, i > 0);
		}
	} else if (p->model == M_TRANSFORMER) {
		uint64_t T = p->batch / p->dp * p->seq, h = p->hidden;
		for (uint64_t i = 0; i < p->layers; i++) {
			snprintf(nm, sizeof nm, "block%llu_qkv", (unsigned long long)i);
			linear(&L[k++], p, nm, h, 3 * h, T, 0, 1);
			/* Scores and weighted sum over the local heads: 2 GEMMs. */
			mlayer *a = &L[k++];
			memset(a, 0, sizeof *a);
			snprintf(a->name, sizeof a->name, "block%llu_attention", (unsigned long long)i);
			a->kind = K_NOWEIGHT;
			uint64_t hl = (h + p->mp - 1) / p->mp;
			uint64_t fl = 4 * T * p->seq * hl;
			a->flops[F] = fl;
			a->flops[IG] = 2 * fl;
			a->bytes[F] = (3 * T * hl + T * hl) * b;
			a->bytes[IG] = 2 * a->bytes[F];
			a->coll[F] = a->coll[IG] = a->coll[WG] = -1;
			snprintf(nm, sizeof nm, "block%llu_proj", (unsigned long long)i);
			linear_row(&L[k++], p, nm, h, h, T);
			snprintf(nm, sizeof nm, "block%llu_fc1", (unsigned long long)i);
			linear(&L[k++], p, nm, h, 4 * h, T, 0, 1);
			snprintf(nm, sizeof nm, "block%llu_fc2", (unsigned long long)i);
			linear_row(&L[k++], p, nm, 4 * h, h, T);
		}
	} else {
		/* DLRM: tables sharded over all NPUs (model parallel), MLPs as
		 * --parallel says; the pooled embeddings are exchanged all-to-all. */
		uint64_t tl = (p->tables + p->npus - 1) / p->npus;
		mlayer *e = &L[k++];
		memset(e, 0, sizeof *e);
		snprintf(e->name, sizeof e->name, "embedding");
		e->kind = K_EMBEDDING;
		uint64_t rows = p->batch * tl * p->pooling;
		e->flops[F] = e->flops[WG] = rows * p->emb_dim;
		e->bytes[F] = e->bytes[WG] = rows * p->emb_dim * b;
		e->coll[F] = e->coll[IG] = CHAKRA_ALL_TO_ALL;
		e->csize[F] = e->csize[IG] = p->batch * p->tables * p->emb_dim * b / p->npus;
		e->grp[F] = e->grp[IG] = (gen_group){ (uint32_t)p->npus, 1 };
		e->coll[WG] = -1;
		uint64_t tokens = p->batch / p->dp;
		for (uint64_t i = 0; i < p->bottom; i++) {
			snprintf(nm, sizeof nm, "bottom%llu", (unsigned long long)i);
			uint64_t in = i == 0 ? p->dense : p->hidden;
			uint64_t out = i + 1 == p->bottom ? p->emb_dim : p->hidden;
			linear(&L[k++], p, nm, in, out, tokens, 1, i > 0);
		}
		mlayer *x = &L[k++];
		memset(x, 0, sizeof *x);
		snprintf(x->name, sizeof x->name, "interaction");
		x->kind = K_NOWEIGHT;
		x->waits_emb = 1;
		uint64_t f1 = p->tables + 1;
		x->flops[F] = x->flops[IG] = 2 * tokens * f1 * f1 * p->emb_dim;
		x->bytes[F] = x->bytes[IG] = (tokens * f1 * p->emb_dim + tokens * f1 * f1) * b;
		x->coll[F] = x->coll[IG] = x->coll[WG] = -1;
		for (uint64_t i = 0; i < p->top; i++) {
			snprintf(nm, sizeof nm, "top%llu", (unsigned long long)i);
			uint64_t in = i == 0 ? f1 * p->emb_dim : p->hidden;
			uint64_t out = i + 1 == p->top ? 1 : p->hidden;
			linear(&L[k++], p, nm, in, out, tokens, 1, 1);
		}
	}
	*n = k;
	return L;
}

typedef struct emit {
	gen_graph *g;
	gen_chain chain;
	char prefix[32];
} emit;

static uint64_t comp(emit *e, const params *p, const mlayer *l, const char *what, int ph,
                     uint64_t extra)
{
	char name[96];
	snprintf(name, sizeof name, "%s%s_%s", e->prefix, l->name, what);
	return gen_chain_comp(e->g, &e->chain, name, dur_ns(p, l->flops[ph], l->bytes[ph]),
	                      l->flops[ph], l->bytes[ph], extra);
}

static uint64_t coll(emit *e, const mlayer *l, int ph, uint64_t dep)
{
	static const char *const ph_name[] = { "fwd", "ig", "wg" };
	if (l->coll[ph] < 0 || !l->csize[ph])
		return UINT64_MAX;
	char name[96];
	snprintf(name, sizeof name, "%s%s_%s_%s", e->prefix, l->name, ph_name[ph],
	         chakra_comm_type_name(l->coll[ph]));
	/* One-NPU groups are not emitted (gen_graph_coll returns UINT64_MAX). */
	return gen_graph_coll(e->g, name, l->coll[ph], l->csize[ph], l->grp[ph], &dep, 1);
}

static void wait_for(emit *e, uint64_t id)
{
	gen_chain_wait(&e->chain, id);
}

int model_emit_iterations(gen_graph *g, const params *p, const mlayer *L, size_t n)
{
	emit e;
	memset(&e, 0, sizeof e);
	e.g = g;
	gen_chain_init(&e.chain);
	uint64_t *prev_wg = chakra_calloc(n ? n : 1, sizeof *prev_wg);
	if (!prev_wg)
		return -1;
	for (size_t i = 0; i < n; i++)
		prev_wg[i] = UINT64_MAX;
	for (uint64_t pass = 0; pass < p->passes && !e.chain.failed; pass++) {
		if (pass == 1 && (uint64_t)g->n * p->passes > GEN_MAX_NODES) {
			g->too_many = 1;
			break;
		}
		if (p->passes > 1)
			snprintf(e.prefix, sizeof e.prefix, "p%llu.", (unsigned long long)pass);
		uint64_t emb_fwd = UINT64_MAX, emb_bwd = UINT64_MAX;
		/* Forward: activations are needed by the next layer (blocking). */
		for (size_t i = 0; i < n; i++) {
			const mlayer *l = &L[i];
			if (l->waits_emb)
				wait_for(&e, emb_fwd);
			uint64_t f = comp(&e, p, l, "fwd", F, prev_wg[i]);
			uint64_t c = coll(&e, l, F, f);
			if (l->kind == K_EMBEDDING)
				emb_fwd = c; /* overlaps the bottom MLP */
			else
				wait_for(&e, c);
		}
		/* Backward, last layer first. The first layer after the input needs
		 * no input gradient. */
		for (size_t i = n; i-- > 0;) {
			const mlayer *l = &L[i];
			if (l->kind == K_EMBEDDING) {
				wait_for(&e, emb_bwd);
				prev_wg[i] = comp(&e, p, l, "wg", WG, UINT64_MAX);
				continue;
			}
			int first = i == 0 || L[i - 1].kind == K_EMBEDDING;
			uint64_t igc = UINT64_MAX;
			if (!first || l->kind == K_NOWEIGHT) {
				uint64_t ig = comp(&e, p, l, "ig", IG, UINT64_MAX);
				if (l->waits_emb)
					emb_bwd = coll(&e, &L[0], IG, ig); /* embedding gradients out */
				else
					igc = coll(&e, l, IG, ig);
			}
			if (l->kind == K_LINEAR) {
				/* The weight gradient needs the local output gradient only,
				 * so it overlaps the input-gradient collective. */
				uint64_t wg = comp(&e, p, l, "wg", WG, UINT64_MAX);
				uint64_t c = coll(&e, l, WG, wg);
				prev_wg[i] = c != UINT64_MAX ? c : wg;
			}
			wait_for(&e, igc); /* the next layer down needs the reduced gradient */
		}
	}
	chakra_free(prev_wg);
	return e.chain.failed || g->too_many || g->oom ? -1 : 0;
}
