/* SPDX-License-Identifier: Apache-2.0 */
/* `chakra generate model`: one training iteration of an MLP, DLRM or
 * Transformer under data, model or hybrid parallelism (the Chakra paper's
 * §6.2 set), one Chakra ET per NPU. Every size is an option with a default;
 * docs/generate.md lists the formulas and assumptions. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "graph.h"
#include "opts.h"

enum { M_MLP, M_DLRM, M_TRANSFORMER };
enum { PAR_DATA, PAR_MODEL, PAR_HYBRID };
enum { F, IG, WG };
enum { K_LINEAR, K_EMBEDDING, K_NOWEIGHT };

typedef struct mlayer {
	char name[48];
	int kind;
	uint64_t flops[3], bytes[3]; /* per rank: compute of each phase */
	int coll[3];                 /* chakra_comm_type, -1 = none */
	uint64_t csize[3];
	gen_group grp[3];
	int waits_emb;               /* DLRM interaction: needs the embedding exchange */
} mlayer;

typedef struct params {
	int model, par;
	uint64_t npus, mp, dp;
	uint64_t layers, hidden, batch, seq, bytes;
	uint64_t tables, emb_dim, pooling, dense, bottom, top;
	double tflops, gbps;
	uint64_t passes;
} params;

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

static mlayer *build_layers(const params *p, size_t *n)
{
	size_t cap = 8 + p->layers * 5 + p->bottom + p->top;
	mlayer *L = calloc(cap, sizeof *L);
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

static int emit_iterations(gen_graph *g, const params *p, const mlayer *L, size_t n)
{
	emit e;
	memset(&e, 0, sizeof e);
	e.g = g;
	gen_chain_init(&e.chain);
	uint64_t *prev_wg = malloc(n * sizeof *prev_wg);
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
	free(prev_wg);
	return e.chain.failed || g->too_many || g->oom ? -1 : 0;
}

/* --model gpt: tools/predict/cmd_generate_gpt.c (its own options). */
int cmd_generate_gpt(int argc, char **argv);

static int wants_gpt(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "--model=gpt") ||
		    (!strcmp(argv[i], "--model") && i + 1 < argc && !strcmp(argv[i + 1], "gpt")))
			return 1;
	}
	return 0;
}

int cmd_generate_model(int argc, char **argv)
{
	if (wants_gpt(argc, argv))
		return cmd_generate_gpt(argc, argv);
	params p;
	memset(&p, 0, sizeof p);
	p.model = p.par = -1;
	p.bytes = 2;
	p.tflops = 100;
	p.gbps = 2000;
	p.passes = 1;
	gen_cli cli;
	memset(&cli, 0, sizeof cli);
	/* sizes left 0 take the model's default below */
	const tool_option opts[] = {
		{ "--model", "mlp|dlrm|transformer", TOOL_CHOICE, &p.model, "mlp|dlrm|transformer",
		  "the model (required; --model gpt: see\n`chakra generate model --model gpt --help`)" },
		{ "--parallel", "data|model|hybrid", TOOL_CHOICE, &p.par, "data|model|hybrid",
		  "the parallelism (required)" },
		{ "--batch", "B", TOOL_U64, &p.batch, NULL,
		  "global batch in samples (default mlp 1024, dlrm\n2048, transformer 64)" },
		{ "--layers", "L", TOOL_U64, &p.layers, NULL,
		  "mlp layers / transformer blocks (default mlp 8,\ntransformer 12)" },
		{ "--hidden", "H", TOOL_U64, &p.hidden, NULL,
		  "width (default mlp 4096, dlrm 1024, transformer\n1024)" },
		{ "--seq", "S", TOOL_U64, &p.seq, NULL, "transformer sequence length (default 1024)" },
		{ "--tables", "T", TOOL_U64, &p.tables, NULL, "dlrm embedding tables (default 64)" },
		{ "--emb-dim", "E", TOOL_U64, &p.emb_dim, NULL, "dlrm embedding width (default 128)" },
		{ "--pooling", "P", TOOL_U64, &p.pooling, NULL,
		  "dlrm lookups per table and sample (default 32)" },
		{ "--dense", "D", TOOL_U64, &p.dense, NULL, "dlrm dense input features (default 512)" },
		{ "--bottom", "B", TOOL_U64, &p.bottom, NULL, "dlrm bottom-MLP layers (default 3)" },
		{ "--top", "T", TOOL_U64, &p.top, NULL, "dlrm top-MLP layers (default 3)" },
		{ "--dtype-bytes", "N", TOOL_U64, &p.bytes, NULL, "bytes per element (1..64; default 2)" },
		{ "--mp-group", "M", TOOL_U64, &p.mp, NULL,
		  "hybrid: model-parallel group size (default:\nnetwork dim 0)" },
		{ "--tflops", "F", TOOL_DOUBLE, &p.tflops, NULL,
		  "compute rate per NPU in TFLOP/s (default 100)" },
		{ "--mem-gbps", "G", TOOL_DOUBLE, &p.gbps, NULL,
		  "memory bandwidth per NPU in GB/s (default 2000)" },
		{ "--passes", "P", TOOL_U64, &p.passes, NULL, "iterations (1..100000; default 1)" },
		GEN_CLI_OPTIONS(&cli),
		{ NULL, NULL, 0, NULL, NULL, NULL },
	};
	const tool_command cmd = {
		"--model mlp|dlrm|transformer --parallel data|model|hybrid\n"
		"                             --npus N -o PREFIX [options]",
		"One training iteration per pass: forward compute per layer, input- and weight-\n"
		"gradient compute, and the collectives of the parallelism, as PREFIX.r.et and\n"
		"PREFIX.comm_groups.json. Durations from --tflops / --mem-gbps (roofline).",
		opts, NULL, 0, 0, NULL
	};
	const char **args;
	int nargs, prc = tool_parse(&cmd, argc, argv, &args, &nargs);
	if (prc != TOOL_PARSED)
		return prc == TOOL_HELP_SHOWN ? 0 : prc;
	free(args);
	if (p.model < 0 || p.par < 0)
		return tool_usage(argv[0], "--model and --parallel are required");
	if (gen_cli_check(&cli, argv[0], 1u << 16) < 0)
		return 2;
	p.npus = cli.npus;
	if (!(p.tflops > 0) || !(p.gbps > 0) || isinf(p.tflops) || isinf(p.gbps))
		return tool_usage(argv[0], "--tflops and --mem-gbps must be positive");
	if (!p.passes || p.passes > 100000 || !p.bytes || p.bytes > 64)
		return tool_usage(argv[0], "--passes must be 1..100000 and --dtype-bytes 1..64");
	/* Defaults per model. */
	if (!p.batch)
		p.batch = p.model == M_MLP ? 1024 : p.model == M_DLRM ? 2048 : 64;
	if (!p.layers)
		p.layers = p.model == M_MLP ? 8 : 12;
	if (!p.hidden)
		p.hidden = p.model == M_MLP ? 4096 : 1024;
	if (!p.seq)
		p.seq = p.model == M_TRANSFORMER ? 1024 : 1;
	if (!p.tables)
		p.tables = 64;
	if (!p.emb_dim)
		p.emb_dim = 128;
	if (!p.pooling)
		p.pooling = 32;
	if (!p.dense)
		p.dense = 512;
	if (!p.bottom)
		p.bottom = 3;
	if (!p.top)
		p.top = 3;
	if (p.layers > 10000 || p.bottom > 1000 || p.top > 1000 || p.hidden > 1u << 20 ||
	    p.seq > 1u << 20 || p.emb_dim > 1u << 16 || p.tables > 1u << 20 ||
	    p.pooling > 1u << 16 || p.dense > 1u << 20 || p.batch > 1u << 24)
		return tool_usage(argv[0], "a size is out of range (see --help)");
	if (p.par == PAR_DATA) {
		if (p.mp && p.mp != 1)
			return tool_usage(argv[0], "--mp-group is for --parallel hybrid");
		p.mp = 1;
	} else if (p.par == PAR_MODEL) {
		if (p.mp && p.mp != p.npus)
			return tool_usage(argv[0], "--mp-group is for --parallel hybrid");
		p.mp = p.npus;
	} else if (!p.mp) {
		p.mp = cli.dims[0];
	}
	if (p.mp > p.npus || p.npus % p.mp)
		return tool_usage(argv[0], "--mp-group %llu must divide --npus %llu",
		                  (unsigned long long)p.mp, (unsigned long long)p.npus);
	p.dp = p.npus / p.mp;
	if (p.batch % p.dp)
		return tool_usage(argv[0], "--batch %llu must be a multiple of the data-parallel "
		                  "degree %llu", (unsigned long long)p.batch, (unsigned long long)p.dp);

	size_t n = 0;
	mlayer *L = build_layers(&p, &n);
	gen_graph g;
	gen_graph_init(&g, (uint32_t)p.npus, cli.dims, cli.ndims);
	int rc = 1;
	if (!L || emit_iterations(&g, &p, L, n) < 0) {
		if (g.too_many)
			tool_err("more than %u nodes per rank; use fewer --passes or --layers",
			         GEN_MAX_NODES);
		else
			tool_err("out of memory");
	} else {
		rc = gen_cli_write(&g, &cli, NULL);
	}
	gen_graph_free(&g);
	free(L);
	return rc;
}
