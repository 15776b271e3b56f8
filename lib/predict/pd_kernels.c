/* SPDX-License-Identifier: Apache-2.0 */
/* The kernels of a Megatron-LM GPT layer, embedding and LM head, their
 * times under the compute model, and the parameter counts. Shapes follow
 * Megatron's implementation (docs/predict.md lists them): column-parallel
 * QKV and FC1, row-parallel projection and FC2, attention without a fused
 * kernel (two batched GEMMs around a fused scale-mask-softmax and a
 * dropout), vocabulary-parallel embedding and cross-entropy. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pd_impl.h"

void chakra__pd_steps_free(pd_steps *s)
{
	chakra_free(s->v);
	memset(s, 0, sizeof *s);
}

static pd_step *push(pd_steps *s)
{
	if (s->oom)
		return NULL;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 32;
		pd_step *v = chakra_realloc(s->v, cap * sizeof *v);
		if (!v) {
			s->oom = 1;
			return NULL;
		}
		s->v = v;
		s->cap = cap;
	}
	pd_step *st = &s->v[s->n++];
	memset(st, 0, sizeof *st);
	return st;
}

static void gemm(pd_steps *s, const char *name, uint64_t batch, uint64_t m, uint64_t n,
                 uint64_t k)
{
	pd_step *st = push(s);
	if (!st)
		return;
	st->what = PD_STEP_KERNEL;
	st->k.name = name;
	st->k.kind = PD_GEMM;
	st->k.batch = batch;
	st->k.m = m;
	st->k.n = n;
	st->k.k = k;
}

static void mem(pd_steps *s, const char *name, double bytes)
{
	pd_step *st = push(s);
	if (!st)
		return;
	st->what = PD_STEP_KERNEL;
	st->k.name = name;
	st->k.kind = PD_MEM;
	st->k.bytes = bytes;
}

static void coll(pd_steps *s, int what, uint64_t bytes)
{
	pd_step *st = push(s);
	if (!st)
		return;
	st->what = what;
	st->bytes = bytes;
}

void chakra__pd_shape(const chakra_gpt_config *c, pd_shape *sh)
{
	memset(sh, 0, sizeof *sh);
	sh->b = c->micro_batch;
	sh->s = c->seq;
	sh->h = c->hidden;
	sh->a = c->heads;
	sh->f = c->ffn ? c->ffn : 4ull * c->hidden;
	sh->t = c->tp;
	/* Megatron pads the vocabulary to a multiple of 128 x tp. */
	uint64_t v = c->vocab ? c->vocab : 51200, mult = 128ull * c->tp;
	sh->vp = (v + mult - 1) / mult * mult;
	sh->sp = c->sequence_parallel && c->tp > 1;
	sh->recompute = (int)c->recompute;
	sh->e = 2.0;
	sh->fp8 = c->precision == CHAKRA_PRECISION_FP8;
}

/* The tensor-parallel entry of a column-parallel block (Megatron's "f" or,
 * with sequence parallelism, the all-gather) and exit of a row-parallel one
 * ("g": all-reduce, or reduce-scatter). Backward: f is an all-reduce (or a
 * reduce-scatter), g nothing (or an all-gather). */
static void tp_enter_fwd(const pd_shape *sh, pd_steps *s)
{
	if (sh->t > 1 && sh->sp)
		coll(s, PD_STEP_TP_AG, (uint64_t)(sh->b * sh->s * sh->h * sh->e));
}

static void tp_exit_fwd(const pd_shape *sh, pd_steps *s)
{
	if (sh->t > 1)
		coll(s, sh->sp ? PD_STEP_TP_RS : PD_STEP_TP_AR, (uint64_t)(sh->b * sh->s * sh->h * sh->e));
}

static void tp_enter_bwd(const pd_shape *sh, pd_steps *s)
{
	if (sh->t > 1)
		coll(s, sh->sp ? PD_STEP_TP_RS : PD_STEP_TP_AR, (uint64_t)(sh->b * sh->s * sh->h * sh->e));
}

static void tp_exit_bwd(const pd_shape *sh, pd_steps *s)
{
	if (sh->t > 1 && sh->sp)
		coll(s, PD_STEP_TP_AG, (uint64_t)(sh->b * sh->s * sh->h * sh->e));
}

/* Tokens an element-wise op outside the tensor-parallel region touches. */
static double tok_out(const pd_shape *sh)
{
	return (double)(sh->b * sh->s) / (sh->sp ? (double)sh->t : 1.0);
}

static void attn_core_fwd(const pd_shape *sh, pd_steps *s)
{
	uint64_t hb = sh->b * sh->a / sh->t, d = sh->h / sh->a;
	double sc = (double)hb * (double)sh->s * (double)sh->s;
	gemm(s, "attn_scores", hb, sh->s, sh->s, d);
	mem(s, "attn_softmax", 2.0 * sc * sh->e);
	mem(s, "attn_dropout", sc * (2.0 * sh->e + 1.0));
	gemm(s, "attn_context", hb, sh->s, d, sh->s);
}

static void layer_fwd(const pd_shape *sh, pd_steps *s)
{
	uint64_t T = sh->b * sh->s, h = sh->h, t = sh->t;
	double to = tok_out(sh), e = sh->e;
	mem(s, "ln1", 2.0 * to * h * e);
	tp_enter_fwd(sh, s);
	gemm(s, "qkv", 1, T, 3 * h / t, h);
	attn_core_fwd(sh, s);
	gemm(s, "proj", 1, T, h, h / t);
	tp_exit_fwd(sh, s);
	mem(s, "bias_dropout_add1", to * h * (3.0 * e + 1.0));
	mem(s, "ln2", 2.0 * to * h * e);
	tp_enter_fwd(sh, s);
	gemm(s, "fc1", 1, T, sh->f / t, h);
	mem(s, "gelu", 2.0 * (double)T * (double)(sh->f / t) * e);
	gemm(s, "fc2", 1, T, h, sh->f / t);
	tp_exit_fwd(sh, s);
	mem(s, "bias_dropout_add2", to * h * (3.0 * e + 1.0));
}

int chakra__pd_layer_fwd(const pd_shape *sh, pd_steps *out)
{
	layer_fwd(sh, out);
	return out->oom ? CHAKRA_ENOMEM : 0;
}

int chakra__pd_layer_bwd(const pd_shape *sh, pd_steps *s)
{
	uint64_t T = sh->b * sh->s, h = sh->h, t = sh->t, f = sh->f / t;
	uint64_t hb = sh->b * sh->a / sh->t, d = sh->h / sh->a;
	double to = tok_out(sh), e = sh->e;
	double sc = (double)hb * (double)sh->s * (double)sh->s;
	if (sh->recompute == CHAKRA_RECOMPUTE_FULL)
		layer_fwd(sh, s); /* the layer's forward again, from its saved input */
	mem(s, "bias_dropout_add2_bwd", to * h * (2.0 * e + 1.0));
	tp_exit_bwd(sh, s);
	gemm(s, "fc2_dgrad", 1, T, f, h);
	gemm(s, "fc2_wgrad", 1, f, h, T);
	mem(s, "gelu_bwd", 3.0 * (double)T * (double)f * e);
	gemm(s, "fc1_dgrad", 1, T, h, f);
	gemm(s, "fc1_wgrad", 1, h, f, T);
	tp_enter_bwd(sh, s);
	mem(s, "ln2_bwd", 4.0 * to * h * e);
	mem(s, "bias_dropout_add1_bwd", to * h * (2.0 * e + 1.0));
	tp_exit_bwd(sh, s);
	gemm(s, "proj_dgrad", 1, T, h / t, h);
	gemm(s, "proj_wgrad", 1, h / t, h, T);
	if (sh->recompute == CHAKRA_RECOMPUTE_SELECTIVE)
		attn_core_fwd(sh, s); /* the attention core again (Korthikanti et al.) */
	gemm(s, "attn_context_dgrad", hb, sh->s, sh->s, d);
	gemm(s, "attn_context_vgrad", hb, sh->s, d, sh->s);
	mem(s, "attn_dropout_bwd", sc * (2.0 * e + 1.0));
	mem(s, "attn_softmax_bwd", 3.0 * sc * e);
	gemm(s, "attn_scores_qgrad", hb, sh->s, d, sh->s);
	gemm(s, "attn_scores_kgrad", hb, sh->s, d, sh->s);
	gemm(s, "qkv_dgrad", 1, T, h, 3 * h / t);
	gemm(s, "qkv_wgrad", 1, h, 3 * h / t, T);
	tp_enter_bwd(sh, s);
	mem(s, "ln1_bwd", 4.0 * to * h * e);
	return s->oom ? CHAKRA_ENOMEM : 0;
}

int chakra__pd_embed_fwd(const pd_shape *sh, pd_steps *s)
{
	double T = (double)(sh->b * sh->s), e = sh->e;
	mem(s, "embedding", T * (double)sh->h * e * 2.0);
	/* the vocabulary-parallel lookup sums the shards' rows */
	tp_exit_fwd(sh, s);
	mem(s, "embedding_dropout", tok_out(sh) * (double)sh->h * (3.0 * e + 1.0));
	return s->oom ? CHAKRA_ENOMEM : 0;
}

int chakra__pd_embed_bwd(const pd_shape *sh, pd_steps *s)
{
	double T = (double)(sh->b * sh->s), e = sh->e;
	mem(s, "embedding_dropout_bwd", tok_out(sh) * (double)sh->h * (2.0 * e + 1.0));
	tp_exit_bwd(sh, s);
	mem(s, "embedding_bwd", T * (double)sh->h * e * 2.0);
	return s->oom ? CHAKRA_ENOMEM : 0;
}

int chakra__pd_head_fwd(const pd_shape *sh, pd_steps *s)
{
	uint64_t T = sh->b * sh->s, vt = sh->vp / sh->t;
	double e = sh->e;
	mem(s, "final_ln", 2.0 * tok_out(sh) * (double)sh->h * e);
	tp_enter_fwd(sh, s);
	gemm(s, "lm_head", 1, T, vt, sh->h);
	/* vocabulary-parallel cross-entropy: max, exp and sum, the loss (fp32) */
	mem(s, "cross_entropy", (double)T * (double)vt * (e + 3.0 * 4.0));
	return s->oom ? CHAKRA_ENOMEM : 0;
}

int chakra__pd_head_bwd(const pd_shape *sh, pd_steps *s)
{
	uint64_t T = sh->b * sh->s, vt = sh->vp / sh->t;
	double e = sh->e;
	mem(s, "cross_entropy_bwd", (double)T * (double)vt * (4.0 + e));
	gemm(s, "lm_head_dgrad", 1, T, sh->h, vt);
	gemm(s, "lm_head_wgrad", 1, sh->h, vt, T);
	tp_enter_bwd(sh, s);
	mem(s, "final_ln_bwd", 4.0 * tok_out(sh) * (double)sh->h * e);
	return s->oom ? CHAKRA_ENOMEM : 0;
}

double chakra__pd_kernel_flops(const pd_kernel *k)
{
	if (k->kind != PD_GEMM)
		return 0;
	return 2.0 * (double)k->batch * (double)k->m * (double)k->n * (double)k->k;
}

static double knee(double x, double kn)
{
	return x / (x + kn);
}

uint64_t chakra__pd_kernel_ns(const chakra_gpu_model *g, const pd_kernel *k, int fp8)
{
	double bw = g->hbm_gbps * g->mem_efficiency; /* bytes per ns */
	double t;
	if (k->kind == PD_GEMM) {
		double peak = fp8 && g->peak_tflops_fp8 > 0 ? g->peak_tflops_fp8 : g->peak_tflops;
		double eff = g->gemm_efficiency * knee((double)k->m, g->gemm_knee) *
		             knee((double)k->n, g->gemm_knee) * knee((double)k->k, g->gemm_knee);
		double tc = chakra__pd_kernel_flops(k) / (peak * 1000.0 * eff);
		/* inputs and output once through memory (2-byte elements) */
		double io = 2.0 * (double)k->batch *
		            ((double)k->m * (double)k->k + (double)k->k * (double)k->n +
		             (double)k->m * (double)k->n);
		t = fmax(tc, io / bw);
	} else {
		t = k->bytes / bw;
	}
	t = fmax(t, g->kernel_floor_ns);
	if (!(t < 1.8e19))
		return UINT64_MAX;
	uint64_t ns = (uint64_t)llround(t);
	return ns ? ns : 1;
}

void chakra__pd_params(const chakra_gpt_config *c, pd_params *p)
{
	uint64_t h = c->hidden, f = c->ffn ? c->ffn : 4ull * h, t = c->tp;
	pd_shape sh;
	chakra__pd_shape(c, &sh);
	/* QKV and FC1 (column-parallel: weights and biases split), projection
	 * and FC2 (row-parallel: weights split, biases whole), two layer norms */
	p->layer = (h * 3 * h + 3 * h) / t + (h * h) / t + h + (h * f + f) / t + (f * h) / t + h +
	           4 * h;
	p->first_extra = sh.vp * h / t + (uint64_t)c->seq * h;
	p->last_extra = 2 * h + (c->pp > 1 ? sh.vp * h / t : 0);
}

uint64_t chakra__pd_stage_params(const chakra_gpt_config *c, uint32_t stage)
{
	pd_params p;
	chakra__pd_params(c, &p);
	uint64_t n = (uint64_t)c->layers / c->pp * p.layer;
	if (stage == 0)
		n += p.first_extra;
	if (stage == c->pp - 1)
		n += p.last_extra;
	return n;
}

unsigned chakra__pd_grad_bytes(const chakra_gpt_config *c)
{
	/* Megatron reduces FP16 gradients as FP16, and accumulates and reduces
	 * in FP32 with BF16 (and FP8, whose master copy is BF16/FP32). */
	return c->precision == CHAKRA_PRECISION_FP16 ? 2 : 4;
}
