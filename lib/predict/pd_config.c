/* SPDX-License-Identifier: Apache-2.0 */
/* The training configuration: initialisation, the checks that name what
 * cannot run, and the memory a GPU needs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pd_impl.h"

#define BAD(...) chakra__pd_fail(err, errlen, CHAKRA_EINVAL, __VA_ARGS__)

/* Sizes of each version (lib/opts.h: the one check for every options
 * struct) and the defaults. */
static const size_t gpt_config_sizes[] = { 0, sizeof(chakra_gpt_config) };
static const chakra_gpt_config gpt_config_defaults = CHAKRA_GPT_CONFIG_INIT;
static const size_t predict_options_sizes[] = { 0, sizeof(chakra_predict_options) };
static const chakra_predict_options predict_options_defaults = CHAKRA_PREDICT_OPTIONS_INIT;

int chakra_gpt_config_init(chakra_gpt_config *c, unsigned version)
{
	return chakra__opts_init(c, version, &gpt_config_defaults, gpt_config_sizes, 2);
}

int chakra_predict_options_init(chakra_predict_options *o, unsigned version)
{
	return chakra__opts_init(o, version, &predict_options_defaults, predict_options_sizes, 2);
}

int chakra__pd_options_copy(chakra_predict_options *dst, const chakra_predict_options *src)
{
	return chakra__opts_copy(dst, sizeof *dst, src, &predict_options_defaults,
	                         predict_options_sizes, 2);
}

void chakra_predict_free(void *p)
{
	chakra_free(p);
}

#define BAD(...) chakra__pd_fail(err, errlen, CHAKRA_EINVAL, __VA_ARGS__)

int chakra_gpt_config_check(const chakra_gpt_config *c, char *err, size_t errlen)
{
	if (!c || c->version != CHAKRA_GPT_CONFIG_VERSION)
		return BAD("GPT configuration: NULL or unknown version");
	if (!c->layers || !c->hidden || !c->heads || !c->seq)
		return BAD("layers (%u), hidden (%u), heads (%u) and seq (%u) must all be positive",
		           c->layers, c->hidden, c->heads, c->seq);
	if (!c->global_batch || !c->micro_batch)
		return BAD("global batch (%llu) and micro batch (%u) must be positive",
		           (unsigned long long)c->global_batch, c->micro_batch);
	if (!c->tp || !c->pp || !c->dp)
		return BAD("tp (%u), pp (%u) and dp (%u) must be positive", c->tp, c->pp, c->dp);
	if (c->hidden % c->heads)
		return BAD("hidden %u is not divisible by heads %u", c->hidden, c->heads);
	if (c->heads % c->tp)
		return BAD("heads %u are not divisible by tp %u", c->heads, c->tp);
	uint64_t f = c->ffn ? c->ffn : 4ull * c->hidden;
	if (f % c->tp)
		return BAD("ffn %llu is not divisible by tp %u", (unsigned long long)f, c->tp);
	uint32_t v = c->interleave > 1 ? c->interleave : 1;
	if ((uint64_t)c->pp * v > c->layers || c->layers % (c->pp * v))
		return BAD("layers %u are not divisible by pp %u x interleave %u", c->layers, c->pp, v);
	uint64_t per = (uint64_t)c->micro_batch * c->dp;
	if (c->global_batch % per)
		return BAD("global batch %llu is not divisible by micro batch %u x dp %u",
		           (unsigned long long)c->global_batch, c->micro_batch, c->dp);
	uint64_t m = c->global_batch / per;
	if (v > 1 && c->pp < 2)
		return BAD("interleave %u needs pp > 1 (pp is %u)", v, c->pp);
	if (v > 1 && m % c->pp)
		return BAD("the interleaved schedule needs the micro-batches per pipeline (%llu = "
		           "global batch %llu / (micro batch %u x dp %u)) to be a multiple of pp %u",
		           (unsigned long long)m, (unsigned long long)c->global_batch, c->micro_batch,
		           c->dp, c->pp);
	if (c->recompute > CHAKRA_RECOMPUTE_FULL || c->precision > CHAKRA_PRECISION_FP8)
		return BAD("unknown recompute (%d) or precision (%d)", (int)c->recompute,
		           (int)c->precision);
	/* sizes in bytes must stay far from 2^63 */
	double act = (double)c->micro_batch * c->seq * c->hidden * 2.0;
	double sc = (double)c->micro_batch * c->heads * (double)c->seq * c->seq * 5.0;
	if (act > 4e18 || sc > 4e18 || m * (uint64_t)c->pp * v > (1ull << 29))
		return BAD("micro batch %u x seq %u x hidden %u (or the number of micro-batches, "
		           "%llu) is too large to simulate",
		           c->micro_batch, c->seq, c->hidden, (unsigned long long)m);
	uint32_t g = c->gpus_per_node ? c->gpus_per_node : 8;
	if (g > 1024)
		return BAD("gpus per node %u: at most 1024", g);
	pd_layout l;
	return chakra__pd_layout(c, &l, err, errlen);
}

int chakra_gpt_memory_estimate(const chakra_gpt_config *c, const chakra_gpu_model *gpu,
                               chakra_gpt_memory *out, char *err, size_t errlen)
{
	int rc = chakra_gpt_config_check(c, err, errlen);
	if (rc < 0)
		return rc;
	memset(out, 0, sizeof *out);
	pd_shape sh;
	chakra__pd_shape(c, &sh);
	uint32_t v = c->interleave > 1 ? c->interleave : 1;
	uint64_t m = c->global_batch / ((uint64_t)c->micro_batch * c->dp);
	double s = (double)sh.s, b = (double)sh.b, h = (double)sh.h, a = (double)sh.a,
	       t = (double)sh.t;
	/* Activations of one layer for one micro-batch (Korthikanti et al.,
	 * "Reducing Activation Recomputation in Large Transformer Models"):
	 * sbh(10 + 24/t + 5as/(ht)) bytes with tensor parallelism, /t for all
	 * of it with sequence parallelism; selective recomputation drops the
	 * 5as/(ht) term, full recomputation keeps the layer's input (2sbh). */
	double per;
	if (c->recompute == CHAKRA_RECOMPUTE_FULL)
		per = 2.0 * s * b * h / (sh.sp ? t : 1.0);
	else {
		double attn = c->recompute == CHAKRA_RECOMPUTE_SELECTIVE ? 0.0 : 5.0 * a * s / (h * t);
		per = sh.sp ? s * b * h * (34.0 / t + attn) : s * b * h * (10.0 + 24.0 / t + attn);
	}
	/* The first stage holds the most: pp micro-batches in flight under
	 * 1F1B (or all m if fewer), times (1 + (pp-1)/(pp v)) interleaved. */
	double inflight = (double)(m < c->pp ? m : c->pp);
	if (v > 1)
		inflight = (double)c->pp * (1.0 + (double)(c->pp - 1) / ((double)c->pp * v));
	double layers = (double)c->layers / c->pp;
	double actv = per * layers * inflight;
	/* embedding output kept for its dropout; logits and their fp32 softmax
	 * on the last stage */
	actv += s * b * h * 2.0 / (sh.sp ? t : 1.0) * inflight;
	double logits = s * b * (double)(sh.vp / sh.t) * (2.0 + 4.0);
	/* parameters of the most loaded stage */
	uint64_t p0 = chakra__pd_stage_params(c, 0), pl = chakra__pd_stage_params(c, c->pp - 1);
	uint64_t params = p0 > pl ? p0 : pl;
	out->weights = params * 2;
	out->gradients = params * (uint64_t)chakra__pd_grad_bytes(c);
	/* Adam with an FP32 master copy: 4 + 4 + 4 bytes per parameter, split
	 * over data-parallel ranks by the distributed optimizer */
	uint64_t opt = params * 12;
	if (c->distributed_optimizer)
		opt /= c->dp;
	out->optimizer = opt;
	double act_last = per * layers * (c->pp > 1 ? 1.0 : inflight) + logits;
	double act_first = actv;
	double act = act_first > act_last ? act_first : act_last;
	if (c->pp == 1)
		act = actv + logits;
	out->activations = act > 1.8e19 ? UINT64_MAX : (uint64_t)act;
	out->total = out->weights + out->gradients + out->optimizer + out->activations;
	out->fits = gpu ? (double)out->total <= gpu->memory_gib * 1073741824.0 : 1;
	return 0;
}

