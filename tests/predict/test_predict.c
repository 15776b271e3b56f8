/* SPDX-License-Identifier: Apache-2.0 */
/* lib/predict against closed forms: FLOPs and bytes per layer, parameters,
 * collective sizes, memory per GPU (Korthikanti et al.), the pipeline
 * schedules' bubble, layouts as networks, the configuration checks, the
 * model files; and the simulation shortcuts (runs of kernels merged, one
 * GPU per stage) give the full simulation's cycles exactly. */
#ifndef CHAKRA_EXPERIMENTAL
#define CHAKRA_EXPERIMENTAL
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pd_impl.h"

static chakra_gpt_config cfg(uint32_t L, uint32_t h, uint32_t a, uint32_t s, uint64_t gb,
                             uint32_t mb, uint32_t tp, uint32_t pp, uint32_t dp)
{
	chakra_gpt_config c = CHAKRA_GPT_CONFIG_INIT;
	c.layers = L;
	c.hidden = h;
	c.heads = a;
	c.seq = s;
	c.global_batch = gb;
	c.micro_batch = mb;
	c.tp = tp;
	c.pp = pp;
	c.dp = dp;
	return c;
}

static double gemm_flops(const pd_steps *s)
{
	double f = 0;
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].what == PD_STEP_KERNEL)
			f += chakra__pd_kernel_flops(&s->v[i].k);
	return f;
}

static void colls(const pd_steps *s, int what, size_t *n, uint64_t *bytes)
{
	*n = 0;
	*bytes = 0;
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].what == what) {
			(*n)++;
			*bytes = s->v[i].bytes;
		}
}

/* FLOPs of one layer (Narayanan et al.): forward 24bsh^2 + 4bs^2h for
 * f = 4h, per tensor-parallel rank /t; backward twice; recomputation adds a
 * forward. Collectives: two all-reduces of bsh x 2 bytes each way. */
static void test_layer(void)
{
	for (uint32_t t = 1; t <= 8; t *= 2) {
		for (int rc = 0; rc <= 2; rc++) {
			chakra_gpt_config c = cfg(24, 2048, 16, 1024, 64, 4, t, 1, 1);
			c.recompute = (chakra_recompute)rc;
			pd_shape sh;
			chakra__pd_shape(&c, &sh);
			pd_steps f = { 0 }, b = { 0 };
			CHECK(chakra__pd_layer_fwd(&sh, &f) == 0);
			CHECK(chakra__pd_layer_bwd(&sh, &b) == 0);
			double B = 4, S = 1024, H = 2048;
			double fwd = (24 * B * S * H * H + 4 * B * S * S * H) / t;
			CHECK_MSG(fabs(gemm_flops(&f) - fwd) < 1, "t %u: %g vs %g", t, gemm_flops(&f), fwd);
			double extra = rc == CHAKRA_RECOMPUTE_FULL ? fwd
			               : rc == CHAKRA_RECOMPUTE_SELECTIVE ? 4 * B * S * S * H / t : 0;
			CHECK_MSG(fabs(gemm_flops(&b) - 2 * fwd - extra) < 1, "t %u rc %d: %g vs %g", t, rc,
			          gemm_flops(&b), 2 * fwd + extra);
			size_t n;
			uint64_t bytes;
			colls(&f, PD_STEP_TP_AR, &n, &bytes);
			CHECK_EQ_U(n, t > 1 ? 2 : 0);
			if (t > 1)
				CHECK_EQ_U(bytes, 4 * 1024 * 2048 * 2);
			colls(&b, PD_STEP_TP_AR, &n, &bytes);
			CHECK_EQ_U(n, t > 1 ? (rc == CHAKRA_RECOMPUTE_FULL ? 4 : 2) : 0);
			chakra__pd_steps_free(&f);
			chakra__pd_steps_free(&b);
		}
		/* sequence parallelism: reduce-scatter and all-gather instead */
		chakra_gpt_config c = cfg(24, 2048, 16, 1024, 64, 4, t, 1, 1);
		c.sequence_parallel = 1;
		pd_shape sh;
		chakra__pd_shape(&c, &sh);
		pd_steps f = { 0 };
		CHECK(chakra__pd_layer_fwd(&sh, &f) == 0);
		size_t n1, n2, n3;
		uint64_t b1, b2, b3;
		colls(&f, PD_STEP_TP_AR, &n1, &b1);
		colls(&f, PD_STEP_TP_RS, &n2, &b2);
		colls(&f, PD_STEP_TP_AG, &n3, &b3);
		CHECK_EQ_U(n1, 0);
		CHECK_EQ_U(n2, t > 1 ? 2 : 0);
		CHECK_EQ_U(n3, t > 1 ? 2 : 0);
		chakra__pd_steps_free(&f);
	}
}

/* 12h^2 + 13h parameters per layer at f = 4h, one shard /t (biases of
 * row-parallel layers and the norms whole); embeddings (V padded to
 * 128 t) on the first stage, a tied copy on the last. */
static void test_params(void)
{
	chakra_gpt_config c = cfg(24, 1024, 16, 1024, 64, 4, 1, 1, 1);
	pd_params p;
	chakra__pd_params(&c, &p);
	CHECK_EQ_U(p.layer, 12ull * 1024 * 1024 + 13 * 1024);
	CHECK_EQ_U(p.first_extra, 51200ull * 1024 + 1024 * 1024);
	c.tp = 4;
	c.pp = 2;
	c.vocab = 50257;
	chakra__pd_params(&c, &p);
	uint64_t h = 1024;
	CHECK_EQ_U(p.layer, (12 * h * h + 7 * h) / 4 + 6 * h);
	CHECK_EQ_U(p.first_extra, 50688ull * h / 4 + 1024 * h); /* 50257 -> 50688 = 99 x 512 */
	CHECK_EQ_U(p.last_extra, 2 * h + 50688ull * h / 4);
	CHECK_EQ_U(chakra__pd_stage_params(&c, 0), 12 * p.layer + p.first_extra);
	CHECK_EQ_U(chakra__pd_stage_params(&c, 1), 12 * p.layer + p.last_extra);
	CHECK_EQ_U(chakra__pd_grad_bytes(&c), 2);
	c.precision = CHAKRA_PRECISION_BF16;
	CHECK_EQ_U(chakra__pd_grad_bytes(&c), 4);
}

/* Activations per layer and micro-batch (Korthikanti et al. 2022, eqs. 2-5). */
static void test_memory(void)
{
	chakra_gpu_model g;
	CHECK(chakra_gpu_model_preset(&g, "a100", NULL, 0) == 0);
	double s = 2048, b = 2, h = 4096, a = 32;
	struct {
		uint32_t t;
		int sp, rc;
		double per;
	} cases[] = {
		{ 1, 0, 0, s * b * h * (34 + 5 * a * s / h) },
		{ 8, 0, 0, s * b * h * (10 + 24.0 / 8 + 5 * a * s / (h * 8)) },
		{ 8, 1, 0, s * b * h * (34.0 / 8 + 5 * a * s / (h * 8)) },
		{ 8, 1, 1, s * b * h * 34.0 / 8 },
		{ 8, 0, 2, 2 * s * b * h },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		/* one stage, one micro-batch in flight: activations = layers x per
		 * + embedding output + logits */
		chakra_gpt_config c = cfg(16, 4096, 32, 2048, 2, 2, cases[i].t, 1, 1);
		c.sequence_parallel = cases[i].sp;
		c.recompute = (chakra_recompute)cases[i].rc;
		chakra_gpt_memory m;
		CHECK(chakra_gpt_memory_estimate(&c, &g, &m, NULL, 0) == 0);
		double t = cases[i].t;
		double vp = 51200; /* a multiple of 128 x 8 */
		double expect = 16 * cases[i].per + s * b * h * 2 / (cases[i].sp ? t : 1) +
		                s * b * vp / t * 6;
		CHECK_MSG(fabs((double)m.activations - expect) <= 16, "case %zu: %llu vs %.0f", i,
		          (unsigned long long)m.activations, expect);
		pd_params p;
		chakra__pd_params(&c, &p);
		uint64_t params = 16 * p.layer + p.first_extra + p.last_extra;
		CHECK_EQ_U(m.weights, 2 * params);
		CHECK_EQ_U(m.gradients, 2 * params);
		CHECK_EQ_U(m.optimizer, 12 * params);
		CHECK_EQ_U(m.total, m.weights + m.gradients + m.optimizer + m.activations);
	}
	/* 1F1B keeps pp micro-batches in flight on the first stage; the
	 * distributed optimizer splits the optimizer state over dp */
	chakra_gpt_config c = cfg(16, 4096, 32, 2048, 64, 1, 1, 4, 2);
	c.distributed_optimizer = 1;
	chakra_gpt_memory m;
	CHECK(chakra_gpt_memory_estimate(&c, &g, &m, NULL, 0) == 0);
	double per = s * 1 * h * (34 + 5 * a * s / h);
	double expect = per * 4 * 4 + s * h * 2 * 4;
	CHECK_MSG(fabs((double)m.activations - expect) <= 16, "1F1B: %llu vs %.0f",
	          (unsigned long long)m.activations, expect);
	uint64_t p0 = chakra__pd_stage_params(&c, 0);
	CHECK_EQ_U(m.optimizer, p0 * 12 / 2);
	CHECK(m.fits == (m.total <= 80ull << 30));
}

/* Run a stage-by-stage schedule with forward steps of tf and backward of
 * tb (per chunk), activations passed instantly: the iteration. */
static double run_pipeline(const pd_layout *l, double tf, double tb)
{
	uint32_t p = l->pp, v = l->v;
	uint64_t m = l->m;
	pd_op **ops = calloc(p, sizeof *ops);
	size_t *n = calloc(p, sizeof *n), *pos = calloc(p, sizeof *pos);
	double *clock = calloc(p, sizeof *clock);
	/* done[dir][vs][mb] */
	double *done = malloc(2 * (size_t)p * v * m * sizeof *done);
	for (size_t i = 0; i < 2 * (size_t)p * v * m; i++)
		done[i] = -1;
	for (uint32_t s = 0; s < p; s++)
		CHECK(chakra__pd_schedule(l, s, &ops[s], &n[s]) == 0);
	int progress = 1;
	while (progress) {
		progress = 0;
		for (uint32_t s = 0; s < p; s++)
			while (pos[s] < n[s]) {
				const pd_op *o = &ops[s][pos[s]];
				uint32_t vs = o->chunk * p + s;
				double ready = 0;
				if (!o->bwd && vs > 0) {
					ready = done[((size_t)0 * p * v + vs - 1) * m + o->mb];
					if (ready < 0)
						break;
				}
				if (o->bwd && vs + 1 < p * v) {
					ready = done[((size_t)1 * p * v + vs + 1) * m + o->mb];
					if (ready < 0)
						break;
				}
				if (o->bwd && vs + 1 == p * v && done[((size_t)vs) * m + o->mb] < 0)
					break;
				clock[s] = fmax(clock[s], ready) + (o->bwd ? tb : tf);
				done[((size_t)o->bwd * p * v + vs) * m + o->mb] = clock[s];
				pos[s]++;
				progress = 1;
			}
	}
	double end = 0;
	for (uint32_t s = 0; s < p; s++) {
		CHECK_EQ_U(pos[s], 2 * m * v);
		end = fmax(end, clock[s]);
		free(ops[s]);
	}
	free(ops);
	free(n);
	free(pos);
	free(clock);
	free(done);
	return end;
}

/* The schedules' bubble: 1F1B (m + p - 1)(tf + tb), interleaved
 * (m + (p - 1)/v)(tf + tb) for a model whose chunks take 1/v of it. */
static void test_schedules(void)
{
	for (uint32_t p = 1; p <= 8; p *= 2)
		for (uint64_t m = p; m <= 32; m *= 2)
			for (uint32_t v = 1; v <= 4; v *= 2) {
				if (v > 1 && p < 2)
					continue;
				pd_layout l;
				memset(&l, 0, sizeof l);
				l.pp = p;
				l.v = v;
				l.m = m;
				l.tp = l.dp = 1;
				double tf = 1.0 / v, tb = 2.0 / v;
				double it = run_pipeline(&l, tf, tb);
				double expect = ((double)m + (double)(p - 1) / v) * 3.0;
				CHECK_MSG(fabs(it - expect) < 1e-9, "p %u m %llu v %u: %g vs %g", p,
				          (unsigned long long)m, v, it, expect);
			}
}

static void test_layouts(void)
{
	char e[256];
	pd_layout l;
	chakra_gpt_config c = cfg(24, 1024, 16, 1024, 64, 1, 2, 4, 8);
	CHECK(chakra__pd_layout(&c, &l, e, sizeof e) == 0);
	/* tp 2 and dp 4 inside a node of 8; dp 2 and pp 4 across */
	CHECK_EQ_U(l.ndims, 4);
	CHECK(l.size[0] == 2 && l.axis[0] == PD_AX_TP && !l.inter[0]);
	CHECK(l.size[1] == 4 && l.axis[1] == PD_AX_DP && !l.inter[1]);
	CHECK(l.size[2] == 2 && l.axis[2] == PD_AX_DP && l.inter[2]);
	CHECK(l.size[3] == 4 && l.axis[3] == PD_AX_PP && l.inter[3]);
	CHECK_EQ_U(pd_rank(&l, 1, 5, 2), 1 + 2 * (5 + 8 * 2));
	/* tp 16 spans two nodes */
	c = cfg(24, 1024, 16, 1024, 64, 1, 16, 1, 4);
	CHECK(chakra__pd_layout(&c, &l, e, sizeof e) == 0);
	CHECK(l.ndims == 3 && l.size[0] == 8 && !l.inter[0] && l.size[1] == 2 && l.inter[1]);
	/* a group that neither fits a node nor spans whole ones */
	c = cfg(24, 1024, 12, 1024, 64, 1, 3, 1, 4);
	CHECK(chakra__pd_layout(&c, &l, e, sizeof e) == CHAKRA_EINVAL);
	CHECK(strstr(e, "tp 3") != NULL);
}

static void expect_bad(chakra_gpt_config c, const char *words)
{
	char e[512] = "";
	CHECK(chakra_gpt_config_check(&c, e, sizeof e) == CHAKRA_EINVAL);
	CHECK_MSG(strstr(e, words) != NULL, "'%s' lacks '%s'", e, words);
}

static void test_checks(void)
{
	chakra_gpt_config c = cfg(24, 1024, 16, 1024, 64, 2, 2, 2, 4);
	CHECK(chakra_gpt_config_check(&c, NULL, 0) == 0);
	c.hidden = 1536;
	c.heads = 12;
	c.tp = 8;
	expect_bad(c, "heads 12 are not divisible by tp 8");
	c = cfg(30, 1024, 16, 1024, 64, 2, 2, 4, 4);
	expect_bad(c, "layers 30 are not divisible by pp 4 x interleave 1");
	c = cfg(24, 1024, 16, 1024, 100, 2, 2, 2, 4);
	expect_bad(c, "global batch 100 is not divisible by micro batch 2 x dp 4");
	c = cfg(24, 1024, 16, 1024, 64, 2, 2, 2, 4);
	c.interleave = 5;
	expect_bad(c, "layers 24 are not divisible by pp 2 x interleave 5");
	c = cfg(24, 1000, 16, 1024, 64, 2, 2, 2, 4);
	expect_bad(c, "hidden 1000 is not divisible by heads 16");
	c = cfg(24, 1024, 16, 1024, 20, 1, 2, 4, 2);
	c.interleave = 2;
	expect_bad(c, "multiple of pp 4");
}

static int sink(void *data, const void *buf, size_t len)
{
	(void)data;
	(void)buf;
	(void)len;
	return 0;
}

typedef struct strbuf {
	char *p;
	size_t n, cap;
} strbuf;

static int sb_write(void *data, const void *buf, size_t len)
{
	strbuf *s = data;
	if (s->n + len + 1 > s->cap) {
		s->cap = (s->n + len + 1) * 2;
		s->p = realloc(s->p, s->cap);
		if (!s->p)
			return CHAKRA_ENOMEM;
	}
	memcpy(s->p + s->n, buf, len);
	s->n += len;
	s->p[s->n] = 0;
	return 0;
}

/* Field by field: struct assignment need not copy padding. */
static int same_gpu(const chakra_gpu_model *a, const chakra_gpu_model *b)
{
	return a->version == b->version && !strcmp(a->name, b->name) &&
	       a->peak_tflops == b->peak_tflops && a->peak_tflops_fp8 == b->peak_tflops_fp8 &&
	       a->hbm_gbps == b->hbm_gbps && a->memory_gib == b->memory_gib &&
	       a->gemm_efficiency == b->gemm_efficiency && a->gemm_knee == b->gemm_knee &&
	       a->mem_efficiency == b->mem_efficiency && a->kernel_floor_ns == b->kernel_floor_ns &&
	       a->optimizer_bytes == b->optimizer_bytes &&
	       a->iteration_overhead_ns == b->iteration_overhead_ns;
}

static int same_net(const chakra_cluster_net *a, const chakra_cluster_net *b)
{
	return a->version == b->version && !strcmp(a->name, b->name) &&
	       a->gpus_per_node == b->gpus_per_node && a->intra_gbps == b->intra_gbps &&
	       a->intra_latency_ns == b->intra_latency_ns && a->inter_gbps == b->inter_gbps &&
	       a->inter_latency_ns == b->inter_latency_ns && a->launch_ns == b->launch_ns;
}

static void test_files(void)
{
	chakra_gpu_model g, g2;
	chakra_cluster_net n, n2;
	char e[512];
	CHECK(chakra_gpu_model_preset(&g, "h100", e, sizeof e) == 0);
	CHECK(g.peak_tflops > 900 && g.peak_tflops_fp8 > 1900);
	CHECK(chakra_gpu_model_preset(&g, "b200", e, sizeof e) == CHAKRA_EINVAL);
	CHECK(strstr(e, "b200") && strstr(e, "a100-40g"));
	CHECK(chakra_gpu_model_preset(&g, "a100-40g", e, sizeof e) == 0);
	g.gemm_knee = 123.25;
	strbuf s = { NULL, 0, 0 };
	CHECK(chakra_gpu_model_json(&g, sb_write, &s) == 0);
	CHECK(chakra_gpu_model_preset(&g2, "h100", e, sizeof e) == 0);
	CHECK(chakra_gpu_model_parse(&g2, "m.json", s.p, s.n, e, sizeof e) == 0);
	CHECK(same_gpu(&g, &g2));
	free(s.p);
	s = (strbuf){ NULL, 0, 0 };
	CHECK(chakra_cluster_net_preset(&n, "dgx-h100", e, sizeof e) == 0);
	CHECK(chakra_cluster_net_json(&n, sb_write, &s) == 0);
	CHECK(chakra_cluster_net_preset(&n2, "dgx-a100", e, sizeof e) == 0);
	CHECK(chakra_cluster_net_parse(&n2, "n.json", s.p, s.n, e, sizeof e) == 0);
	CHECK(same_net(&n, &n2));
	free(s.p);
	/* what a broken file says; the model is left as it was */
	const char *bad[][2] = {
		{ "{\"gemm_efficiency\": 1.5}", "m.json: key 'gemm_efficiency': expected a number" },
		{ "{\"gemm_efficiency\": \"x\"}", "key 'gemm_efficiency'" },
		{ "{\"frobs\": 1}", "m.json: unknown key 'frobs'" },
		{ "[1]", "m.json: expected a JSON object" },
		{ "{\"name\": 3}", "key 'name'" },
		{ "{", "m.json: not JSON" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		chakra_gpu_model t = g;
		e[0] = 0;
		CHECK(chakra_gpu_model_parse(&t, "m.json", bad[i][0], strlen(bad[i][0]), e, sizeof e) ==
		      CHAKRA_ECONFIG);
		CHECK_MSG(strstr(e, bad[i][1]) != NULL, "'%s' lacks '%s'", e, bad[i][1]);
		CHECK(same_gpu(&t, &g));
	}
	chakra_cluster_net t = n;
	CHECK(chakra_cluster_net_parse(&t, "n.json", "{\"gpus_per_node\": 0}", 20, e, sizeof e) ==
	      CHAKRA_ECONFIG);
	CHECK(strstr(e, "gpus_per_node"));
	CHECK(chakra_gpu_model_load(&g2, "/nonexistent/m.json", e, sizeof e) == CHAKRA_EIO);
	CHECK(strstr(e, "/nonexistent/m.json"));

	/* the shipped calibration files are the compiled presets */
	const char *src = getenv("CHAKRA_SOURCE");
	if (src) {
		char path[4096];
		chakra_gpu_model want;
		snprintf(path, sizeof path, "%s/lib/predict/presets/a100.json", src);
		CHECK(chakra_gpu_model_preset(&g2, "h100", NULL, 0) == 0);
		CHECK_MSG(chakra_gpu_model_load(&g2, path, e, sizeof e) == 0, "%s", e);
		CHECK(chakra_gpu_model_preset(&want, "a100", NULL, 0) == 0);
		CHECK(same_gpu(&g2, &want));
		const char *nets[] = { "dgx-a100", "vtrain-a100" };
		for (int i = 0; i < 2; i++) {
			chakra_cluster_net got, w;
			snprintf(path, sizeof path, "%s/lib/predict/presets/%s.json", src, nets[i]);
			CHECK(chakra_cluster_net_preset(&got, "dgx-h100", NULL, 0) == 0);
			CHECK_MSG(chakra_cluster_net_load(&got, path, e, sizeof e) == 0, "%s", e);
			CHECK(chakra_cluster_net_preset(&w, nets[i], NULL, 0) == 0);
			CHECK_MSG(same_net(&got, &w), "%s.json differs from the preset", nets[i]);
		}
	}
}

static void test_measurements(void)
{
	const char *ok = "# GPUs,global batch,micro batch,hidden size,attention heads,# layers,"
	                 "sequence length,tensor parallelism,data parallelism,pipeline "
	                 "parallelism,iteration time (ms)\r\n"
	                 "2,16,8,1024,16,24,1024,1,1,2,372.160408\r\n"
	                 "\n"
	                 "8,32,4,1024,16,24,1024,2,2,2,219.732754\n";
	chakra_gpt_measurement *rows = NULL;
	size_t n = 0;
	char e[512];
	CHECK(chakra_gpt_measurements_parse("a.csv", ok, strlen(ok), &rows, &n, e, sizeof e) == 0);
	CHECK_EQ_U(n, 2);
	if (n == 2) {
		CHECK(rows[1].config.tp == 2 && rows[1].config.dp == 2 && rows[1].config.pp == 2);
		CHECK(fabs(rows[0].iteration_s - 0.372160408) < 1e-12);
		CHECK(!strcmp(rows[1].source, "a.csv:4"));
	}
	const char *bad[][2] = {
		{ "GPUs,global batch\n1,2\n", "a.csv:1: no column 'micro batch'" },
		{ "# GPUs,global batch,micro batch,hidden size,attention heads,# layers,sequence "
		  "length,tensor parallelism,data parallelism,pipeline parallelism,iteration time "
		  "(ms)\n2,16,8,1024,16,24,1024,1,1,2,-3\n",
		  "a.csv:2: column 'iteration time (ms)': '-3' is not a positive number" },
		{ "# GPUs,global batch,micro batch,hidden size,attention heads,# layers,sequence "
		  "length,tensor parallelism,data parallelism,pipeline parallelism,iteration time "
		  "(ms)\n2,16,8,1024,16,24,1024,1,2,2,5\n",
		  "a.csv:2: tp 1 x dp 2 x pp 2 is not the 2 GPUs" },
		{ "# GPUs,global batch,micro batch,hidden size,attention heads,# layers,sequence "
		  "length,tensor parallelism,data parallelism,pipeline parallelism,iteration time "
		  "(ms)\n2,16,8,1024,16,24,1024,1,1,2\n",
		  "a.csv:2: 10 fields, the header has 11" },
		{ "# GPUs,global batch,micro batch,hidden size,attention heads,# layers,sequence "
		  "length,tensor parallelism,data parallelism,pipeline parallelism,iteration time "
		  "(ms)\n2,16,8,1024,16,25,1024,1,1,2,5\n",
		  "a.csv:2: layers 25 are not divisible by pp 2" },
		{ "# GPUs,global batch,micro batch,hidden size,attention heads,# layers,sequence "
		  "length,tensor parallelism,data parallelism,pipeline parallelism,iteration time "
		  "(ms)\n2,1x,8,1024,16,24,1024,1,1,2,5\n",
		  "a.csv:2: column 'global batch': '1x' is not a positive integer" },
		{ "", "a.csv: empty" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		size_t before = n;
		e[0] = 0;
		CHECK(chakra_gpt_measurements_parse("a.csv", bad[i][0], strlen(bad[i][0]), &rows, &n, e,
		                                    sizeof e) == CHAKRA_ECONFIG);
		CHECK_MSG(strstr(e, bad[i][1]) != NULL, "'%s' lacks '%s'", e, bad[i][1]);
		CHECK_EQ_U(n, before);
	}
	chakra_predict_free(rows);

	const char *log = "[1,0]<stdout>:# nThread 1 nGpus 1 minBytes 8 maxBytes 1073741824\n"
	                  "[1,0]<stdout>:# Using devices\n"
	                  "[1,0]<stdout>:#   Rank  0 Pid 1 on node-a device  0 [0x00] A100\n"
	                  "[1,0]<stdout>:#   Rank  1 Pid 2 on node-b device  0 [0x00] A100\n"
	                  "[1,0]<stdout>:#\n"
	                  "[1,0]<stdout>:     1048576   262144  float  sum  100.1  10.47  19.64  N/A  "
	                  "99.93  10.49  19.67  N/A\n"
	                  "     2097152   524288  float  sum  -1  123.6  16.97  31.82  0  125.2  "
	                  "16.75  31.40  0\n";
	chakra_nccl_measurement *nr = NULL;
	size_t nn = 0;
	CHECK(chakra_nccl_log_parse("x/nccl_2.log", log, strlen(log), &nr, &nn, e, sizeof e) == 0);
	CHECK_EQ_U(nn, 2);
	if (nn == 2) {
		CHECK(nr[0].gpus == 2 && nr[0].nodes == 2 && nr[0].op == CHAKRA_OP_ALL_REDUCE);
		CHECK(nr[0].bytes == 1048576 && fabs(nr[0].time_us - 100.1) < 1e-9);
		CHECK(fabs(nr[1].time_us - 123.6) < 1e-9); /* after the root column */
		CHECK(!strcmp(nr[0].source, "nccl_2.log:6"));
	}
	const char *nbad[][3] = {
		{ "x.log", "     1048576 262144 float sum 1x 1 1 0 1 1 1 0\n", "x.log:1: results before" },
		{ "x.log", "# Using devices\n#   Rank  0 Pid 1 on h device 0\n#\n"
		           "  1048576 262144 float sum 1x 1 1 0 1 1 1 0\n",
		  "x.log:4: time '1x' is not a number" },
		{ "all_gather.log", "# nothing here\n", "all_gather.log: no results" },
		{ "y.log", "# Using devices\n#   Rank  0 Pid 1 on h device 0\n#\n"
		           "  1048576 262144 float none 1 1 1 0 1 1 1 0\n",
		  "y.log:4: cannot tell the collective" },
	};
	for (size_t i = 0; i < sizeof nbad / sizeof *nbad; i++) {
		size_t before = nn;
		e[0] = 0;
		CHECK(chakra_nccl_log_parse(nbad[i][0], nbad[i][1], strlen(nbad[i][1]), &nr, &nn, e,
		                            sizeof e) == CHAKRA_ECONFIG);
		CHECK_MSG(strstr(e, nbad[i][2]) != NULL, "'%s' lacks '%s'", e, nbad[i][2]);
		CHECK_EQ_U(nn, before);
	}
	chakra_predict_free(nr);
}

static double predict(const chakra_gpt_config *c, const chakra_gpu_model *g,
                      const chakra_cluster_net *n, int fine, int full, uint64_t *nodes)
{
	chakra_predict_options o = CHAKRA_PREDICT_OPTIONS_INIT;
	o.fine = fine;
	o.full = full;
	chakra_gpt_prediction p;
	char e[512];
	int rc = chakra_gpt_predict(c, g, n, &o, &p, e, sizeof e);
	CHECK_MSG(rc == 0, "%s", e);
	if (nodes)
		*nodes = p.nodes;
	double sum = p.compute_s + p.tp_exposed_s + p.pp_exposed_s + p.dp_exposed_s + p.bubble_s +
	             p.other_s;
	CHECK_MSG(fabs(sum - p.iteration_s) < 1e-9 * (1 + p.iteration_s), "breakdown %.9f vs %.9f",
	          sum, p.iteration_s);
	return rc ? -1 : p.iteration_s;
}

/* The shortcuts give the full simulation's cycles: every kernel a node on
 * every GPU (fine), runs merged on every GPU (full), one GPU per stage
 * with collectives timed once (default). */
static void test_exact(int first_only)
{
	chakra_gpu_model g, h100;
	chakra_cluster_net n;
	CHECK(chakra_gpu_model_preset(&g, "a100", NULL, 0) == 0);
	CHECK(chakra_gpu_model_preset(&h100, "h100", NULL, 0) == 0);
	CHECK(chakra_cluster_net_preset(&n, "dgx-a100", NULL, 0) == 0);
	struct {
		uint32_t L, h, a, s, mb, tp, pp, dp, v;
		uint64_t gb;
		int sp, dist, rc, prec;
	} cases[] = {
		{ 4, 512, 8, 256, 2, 1, 1, 1, 1, 8, 0, 0, 0, 0 },
		{ 4, 512, 8, 256, 1, 2, 2, 2, 1, 8, 0, 0, 0, 0 },
		{ 8, 512, 8, 256, 1, 2, 2, 2, 2, 16, 1, 1, 1, 1 },
		{ 8, 512, 8, 256, 2, 4, 4, 2, 1, 32, 0, 1, 2, 2 },
		{ 6, 768, 12, 128, 1, 4, 3, 4, 2, 48, 1, 0, 0, 0 },
		{ 4, 512, 16, 256, 1, 16, 1, 2, 1, 4, 0, 0, 2, 0 },  /* tp across nodes */
		{ 8, 512, 8, 256, 1, 1, 8, 4, 1, 32, 0, 0, 0, 0 },   /* pp across nodes */
		{ 4, 512, 8, 256, 4, 2, 4, 1, 1, 4, 0, 0, 0, 0 },    /* m == pp */
	};
	size_t ncases = first_only ? 3 : sizeof cases / sizeof *cases;
	for (size_t i = first_only ? 2 : 0; i < ncases; i++) {
		chakra_gpt_config c = cfg(cases[i].L, cases[i].h, cases[i].a, cases[i].s, cases[i].gb,
		                          cases[i].mb, cases[i].tp, cases[i].pp, cases[i].dp);
		c.interleave = cases[i].v;
		c.sequence_parallel = cases[i].sp;
		c.distributed_optimizer = cases[i].dist;
		c.recompute = (chakra_recompute)cases[i].rc;
		c.precision = (chakra_precision)cases[i].prec;
		char e[512];
		CHECK_MSG(chakra_gpt_config_check(&c, e, sizeof e) == 0, "case %zu: %s", i, e);
		uint64_t nf, nr;
		const chakra_gpu_model *gm = c.precision == CHAKRA_PRECISION_FP8 ? &h100 : &g;
		double fine = predict(&c, gm, &n, 1, 1, &nf);
		double full = predict(&c, gm, &n, 0, 1, NULL);
		double red = predict(&c, gm, &n, 0, 0, &nr);
		CHECK_MSG(fine == full && full == red, "case %zu: fine %.9f full %.9f reduced %.9f", i,
		          fine, full, red);
		CHECK_MSG(nr < nf, "case %zu: %llu nodes reduced, %llu fine", i,
		          (unsigned long long)nr, (unsigned long long)nf);
	}
}

/* More GPUs at a fixed global batch: faster. */
static void test_scaling(void)
{
	chakra_gpu_model g;
	CHECK(chakra_gpu_model_preset(&g, "a100", NULL, 0) == 0);
	double last = 1e300;
	for (uint32_t dp = 1; dp <= 64; dp *= 2) {
		chakra_gpt_config c = cfg(24, 2048, 16, 2048, 128, 1, 2, 2, dp);
		double t = predict(&c, &g, NULL, 0, 0, NULL);
		CHECK_MSG(t < last, "dp %u: %g s, not below %g s", dp, t, last);
		last = t;
	}
	/* a layout across nodes is slower than in one when the network is slower */
	(void)sink;
}

/* The calibration recovers the parameters that made synthetic
 * measurements (times predicted with known ones), from the preset. */
static void test_calibration(void)
{
	chakra_gpu_model truth, fit;
	chakra_cluster_net n;
	CHECK(chakra_gpu_model_preset(&truth, "a100", NULL, 0) == 0);
	CHECK(chakra_cluster_net_preset(&n, "dgx-a100", NULL, 0) == 0);
	truth.gemm_efficiency = 0.62;
	truth.gemm_knee = 300;
	truth.mem_efficiency = 0.45;
	truth.kernel_floor_ns = 20000;
	truth.optimizer_bytes = 24;
	truth.iteration_overhead_ns = 2e6;
	chakra_gpt_measurement rows[48];
	size_t k = 0;
	uint32_t hs[] = { 1024, 2048, 4096 }, mbs[] = { 1, 4 }, tps[] = { 1, 2 }, pps[] = { 1, 2 },
	         Ls[] = { 8, 16 };
	for (int a = 0; a < 3; a++)
		for (int b = 0; b < 2; b++)
			for (int c2 = 0; c2 < 2; c2++)
				for (int d = 0; d < 2; d++) {
					chakra_gpt_config c = cfg(Ls[(a + b) % 2], hs[a], 16, 1024, 32, mbs[b],
					                          tps[c2], pps[d], 2);
					chakra_gpt_prediction p;
					char e[512];
					CHECK_MSG(chakra_gpt_predict(&c, &truth, &n, NULL, &p, e, sizeof e) == 0, "%s", e);
					memset(&rows[k], 0, sizeof rows[k]);
					rows[k].config = c;
					rows[k].iteration_s = p.iteration_s;
					snprintf(rows[k].source, sizeof rows[k].source, "synthetic:%zu", k);
					k++;
				}
	/* start from the preset, its fitted fields moved away from the truth */
	CHECK(chakra_gpu_model_preset(&fit, "a100", NULL, 0) == 0);
	fit.gemm_efficiency = 0.8;
	fit.gemm_knee = 100;
	fit.mem_efficiency = 0.6;
	fit.kernel_floor_ns = 50000;
	fit.optimizer_bytes = 8;
	fit.iteration_overhead_ns = 5e6;
	chakra_cluster_net n2 = n;
	chakra_calibrate_options o = CHAKRA_CALIBRATE_OPTIONS_INIT;
	o.max_iterations = 60;
	char e[512];
	CHECK_MSG(chakra_calibrate_compute(&fit, &n2, rows, k, &o, e, sizeof e) == 0, "%s", e);
	double rel[] = { fit.gemm_efficiency / truth.gemm_efficiency,
		         fit.gemm_knee / truth.gemm_knee,
		         fit.mem_efficiency / truth.mem_efficiency,
		         fit.kernel_floor_ns / truth.kernel_floor_ns,
		         fit.optimizer_bytes / truth.optimizer_bytes,
		         fit.iteration_overhead_ns / truth.iteration_overhead_ns };
	const char *names[] = { "gemm_efficiency", "gemm_knee", "mem_efficiency", "kernel_floor_ns",
		                "optimizer_bytes", "iteration_overhead_ns" };
	for (int i = 0; i < 6; i++)
		CHECK_MSG(fabs(rel[i] - 1) < 0.05, "%s recovered at %.4f of its value", names[i], rel[i]);
	for (size_t i = 0; i < k; i++) {
		chakra_gpt_prediction p;
		CHECK(chakra_gpt_predict(&rows[i].config, &fit, &n, NULL, &p, e, sizeof e) == 0);
		CHECK_MSG(fabs(p.iteration_s / rows[i].iteration_s - 1) < 0.002, "row %zu: %g vs %g", i,
		          p.iteration_s, rows[i].iteration_s);
	}
}

/* "model": closed forms, files, parsers and one simulation of each path
 * (cheap enough for valgrind); "sim": every shortcut on every layout, the
 * scaling and the calibration (suite novalgrind). */
int main(int argc, char **argv)
{
	int sim = argc > 1 && !strcmp(argv[1], "sim");
	if (!sim) {
		test_layer();
		test_params();
		test_memory();
		test_schedules();
		test_layouts();
		test_checks();
		test_files();
		test_measurements();
		test_exact(1);
	} else {
		test_exact(0);
		test_scaling();
		test_calibration();
	}
	if (check_failures)
		fprintf(stderr, "%d check(s) failed\n", check_failures);
	return check_failures ? 1 : 0;
}
