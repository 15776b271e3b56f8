/* SPDX-License-Identifier: Apache-2.0 */
/* chakra bench predict: the time of one prediction and of a sweep, beside
 * the floor they are measured against: simulating every GPU of the same
 * workload (what the prediction's one-GPU-per-stage simulation stands in
 * for, to the cycle). CPU time of this process, best of --runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "common.h"
#include "gpt_cli.h"

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double wall_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double peak_mib(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_maxrss / 1024.0;
}

int cmd_bench_predict(int argc, char **argv)
{
	gpt_cli g;
	gpt_cli_init(&g);
	uint64_t runs = 3;
	int no_floor = 0, no_sweep = 0;
	const tool_option opts[] = {
		GPT_CLI_OPTIONS(&g),
		{ "--runs", "N", TOOL_U64, &runs, NULL, "runs of each measurement, best kept (default 3)" },
		{ "--no-floor", NULL, TOOL_FLAG, &no_floor, NULL, "skip the full simulation" },
		{ "--no-sweep", NULL, TOOL_FLAG, &no_sweep, NULL, "skip the sweep" },
		{ NULL, NULL, 0, NULL, NULL, NULL },
	};
	const tool_command cmd = {
		"[model options] [--runs N]",
		"Time one prediction of a GPT iteration (default: 175B parameters, 96 layers,\n"
		"hidden 12288, 96 heads, sequence 2048, global batch 1536, tp 8 x pp 8 x dp 8 =\n"
		"512 A100, full recomputation) and the sweep of every layout of it on the same\n"
		"GPUs, beside the floor: the simulation of every GPU of the same workload\n"
		"(chakra predict gpt --full). Targets: a prediction within 2 s, the sweep\n"
		"within 60 s, on one core.",
		opts, NULL, 0, 0, NULL
	};
	const char **args;
	int nargs, prc = tool_parse(&cmd, argc, argv, &args, &nargs);
	if (prc != TOOL_PARSED)
		return prc == TOOL_HELP_SHOWN ? 0 : prc;
	free(args);
	if (runs == 0 || runs > 100)
		return tool_usage(argv[0], "--runs needs 1..100");
	/* the default model */
	if (g.layers == UINT64_MAX && g.hidden == UINT64_MAX) {
		g.layers = 96;
		g.hidden = 12288;
		g.heads = 96;
		g.seq = 2048;
		g.global_batch = 1536;
		if (g.tp == UINT64_MAX)
			g.tp = 8;
		if (g.pp == UINT64_MAX)
			g.pp = 8;
		if (g.dp == UINT64_MAX && g.gpus == UINT64_MAX)
			g.dp = 8;
		if (!g.gpu)
			g.gpu = "a100";
		if (g.recompute <= 0)
			g.recompute = CHAKRA_RECOMPUTE_FULL;
	}
	gpt_setup st;
	int rc = gpt_cli_resolve(&g, argv[0], 1, &st);
	if (rc)
		return rc;
	chakra_gpt_config c = st.c;
	chakra_gpu_model gpu = st.gpu;
	chakra_cluster_net net = st.net;
	chakra_predict_options po = st.po;
	if (po.network)
		return tool_usage(argv[0], "the benchmark uses the collective model's network");
	uint32_t gpus = c.tp * c.pp * c.dp;
	char e[1024];
	chakra_gpt_prediction p, pf;
	double best = 1e300, bestw = 1e300, fbest = 1e300, fwall = 1e300;
	for (uint64_t r = 0; r < runs; r++) {
		double t0 = cpu_now(), w0 = wall_now();
		if (chakra_gpt_predict(&c, &gpu, &net, &po, &p, e, sizeof e) < 0)
			return tool_err("%s", e);
		double t = cpu_now() - t0, w = wall_now() - w0;
		if (t < best)
			best = t;
		if (w < bestw)
			bestw = w;
	}
	double mem_pred = peak_mib();
	printf("model: %u layers, hidden %u, %u heads, seq %u, global batch %llu, micro batch %u, "
	       "tp %u x pp %u x dp %u = %u %s\n",
	       c.layers, c.hidden, c.heads, c.seq, (unsigned long long)c.global_batch, c.micro_batch,
	       c.tp, c.pp, c.dp, gpus, gpu.name);
	printf("prediction:      %.3f s CPU (%.3f s wall), %llu nodes simulated, iteration %llu ns, "
	       "peak RSS %.1f MiB; target <= 2 s: %s\n",
	       best, bestw, (unsigned long long)p.nodes, (unsigned long long)p.iteration_ns,
	       mem_pred, best <= 2.0 ? "met" : "NOT met");
	if (!no_floor) {
		chakra_predict_options full = po;
		full.full = 1;
		for (uint64_t r = 0; r < (runs < 2 ? runs : 1); r++) {
			double t0 = cpu_now(), w0 = wall_now();
			if (chakra_gpt_predict(&c, &gpu, &net, &full, &pf, e, sizeof e) < 0)
				return tool_err("%s", e);
			double t = cpu_now() - t0, w = wall_now() - w0;
			if (t < fbest)
				fbest = t;
			if (w < fwall)
				fwall = w;
		}
		printf("floor (every GPU simulated): %.3f s CPU (%.3f s wall), %llu nodes, iteration %llu "
		       "ns (%s), peak RSS %.1f MiB; prediction = %.3f x the floor\n",
		       fbest, fwall, (unsigned long long)pf.nodes, (unsigned long long)pf.iteration_ns,
		       pf.iteration_ns == p.iteration_ns ? "the same" : "DIFFERENT", peak_mib(),
		       best / fbest);
		if (pf.iteration_ns != p.iteration_ns)
			return tool_err("the full simulation gives %llu ns, the prediction %llu ns",
			                (unsigned long long)pf.iteration_ns,
			                (unsigned long long)p.iteration_ns);
	}
	if (!no_sweep) {
		chakra_gpt_layout_result *res;
		size_t n;
		double t0 = cpu_now(), w0 = wall_now();
		if (chakra_gpt_sweep(&c, gpus, &gpu, &net, &po, &res, &n, e, sizeof e) < 0)
			return tool_err("%s", e);
		double t = cpu_now() - t0, w = wall_now() - w0;
		printf("sweep:           %.3f s CPU (%.3f s wall), %zu layouts (%.1f ms each); best tp %u "
		       "pp %u dp %u micro batch %u: %.3f s; target <= 60 s: %s\n",
		       t, w, n, n ? 1e3 * t / (double)n : 0.0, n ? res[0].tp : 0, n ? res[0].pp : 0,
		       n ? res[0].dp : 0, n ? res[0].micro_batch : 0,
		       n ? res[0].prediction.iteration_s : 0.0, t <= 60 ? "met" : "NOT met");
		chakra_predict_free(res);
	}
	return 0;
}
