/* SPDX-License-Identifier: Apache-2.0 */
/* chakra calibrate compute MEASURED.csv... -o CAL.json: fit the compute
 * model's efficiencies and floors to measured iterations (lib/predict). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "gpt_cli.h"

static void progress(void *data, unsigned it, double rms)
{
	(void)data;
	fprintf(stderr, "chakra: calibrate: iteration %u: rms log error %.5f\n", it, rms);
}

static int write_json(void *data, const void *buf, size_t len)
{
	return tool_out_write_cb(data, buf, len);
}

int cmd_calibrate_compute(int argc, char **argv)
{
	const char *out = NULL, *gpu_name = "a100", *netcal = NULL, *net_out = NULL,
	           *holdout = NULL, *from = NULL, *fit = NULL;
	int force = 0, quiet = 0, fit_inter = 0;
	uint64_t iters = 30;
	gpt_rows rt;
	gpt_rows_init(&rt);
	const tool_option opts[] = {
		GPT_ROWS_OPTIONS(&rt),
		{ "-o, --output", "CAL.json", TOOL_STR, &out, NULL, "the calibrated model (required)" },
		{ "--gpu", "NAME", TOOL_STR, &gpu_name, NULL,
		  "preset to start from and keep the peaks of\n(default a100)" },
		{ "--from", "CAL.json", TOOL_STR, &from, NULL,
		  "start from this calibration (over the preset)" },
		{ "--fit", "LIST", TOOL_STR, &fit, NULL,
		  "fields to fit, comma-separated (default all):\ngemm_efficiency, gemm_knee, "
		  "mem_efficiency,\nkernel_floor_ns, optimizer_bytes,\niteration_overhead_ns; "
		  "none (with --fit-inter:\nthe scale-out bandwidth only)" },
		{ "--nccl-calibration", "NET.json", TOOL_STR, &netcal, NULL,
		  "collective model (default dgx-a100 / dgx-h100)" },
		{ "--fit-inter", NULL, TOOL_FLAG, &fit_inter, NULL,
		  "also fit the scale-out bandwidth, on rows that\nspan several nodes" },
		{ "--net-output", "NET.json", TOOL_STR, &net_out, NULL,
		  "with --fit-inter: write the network there" },
		{ "--holdout", "M:K", TOOL_STR, &holdout, NULL,
		  "fit on rows i (counted over all files) with\ni % M == K only; the rest is for "
		  "checking" },
		{ "--max-iterations", "N", TOOL_U64, &iters, NULL, "fit iterations (default 30)" },
		{ "-q, --quiet", NULL, TOOL_FLAG, &quiet, NULL, "no progress on stderr" },
		{ "-f, --force", NULL, TOOL_FLAG, &force, NULL, "replace CAL.json if it exists" },
		{ NULL, NULL, 0, NULL, NULL, NULL },
	};
	const tool_command cmd = {
		"MEASURED.csv... -o CAL.json [options]",
		"Fit the compute model (GEMM efficiency and its knee, memory efficiency,\n"
		"kernel floor, optimizer bytes per parameter, per-iteration overhead) to\n"
		"measured iterations: CSV files with vTrain's columns (GPUs, global batch,\n"
		"micro batch, hidden size, attention heads, layers, sequence length,\n"
		"tensor/data/pipeline parallelism, iteration time (ms)). Each row is\n"
		"predicted through the simulator; the fit minimises the squared log of\n"
		"predicted over measured (docs/predict.md).",
		opts, NULL, 1, -1, "MEASURED.csv"
	};
	const char **args;
	int nargs, prc = tool_parse(&cmd, argc, argv, &args, &nargs);
	if (prc != TOOL_PARSED)
		return prc == TOOL_HELP_SHOWN ? 0 : prc;
	int status = 2;
	chakra_gpt_measurement *rows = NULL;
	size_t n = 0;
	chakra_calibrate_options o = CHAKRA_CALIBRATE_OPTIONS_INIT;
	char e[1024];
	if (!out) {
		tool_usage(argv[0], "missing -o CAL.json");
		goto done;
	}
	if (iters == 0 || iters > 10000) {
		tool_usage(argv[0], "--max-iterations needs 1..10000");
		goto done;
	}
	if (net_out && !fit_inter) {
		tool_usage(argv[0], "--net-output goes with --fit-inter");
		goto done;
	}
	if (holdout) {
		unsigned m, k;
		char tail;
		if (sscanf(holdout, "%u:%u%c", &m, &k, &tail) != 2 || m < 2 || k >= m) {
			tool_usage(argv[0], "--holdout needs M:K with M >= 2 and K < M");
			goto done;
		}
		o.holdout_mod = m;
		o.holdout_keep = k;
	}
	if (fit) {
		static const char *const names[] = { "gemm_efficiency", "gemm_knee", "mem_efficiency",
			                             "kernel_floor_ns", "optimizer_bytes",
			                             "iteration_overhead_ns" };
		const char *p = !strcmp(fit, "none") ? "" : fit;
		while (*p) {
			size_t len = strcspn(p, ",");
			int k = 0;
			while (k < 6 && !(strlen(names[k]) == len && !strncmp(names[k], p, len)))
				k++;
			if (k == 6) {
				tool_usage(argv[0], "--fit: unknown field '%.*s'", (int)len, p);
				goto done;
			}
			o.fit |= 1u << k;
			p += len + (p[len] == ',');
		}
		if (!o.fit && !fit_inter) {
			tool_usage(argv[0], "--fit: no field named");
			goto done;
		}
		if (!o.fit)
			o.fit = 1u << 31; /* only the scale-out bandwidth */
	}
	o.max_iterations = (unsigned)iters;
	o.fit_inter = fit_inter;
	if (!quiet) {
		o.progress_cb = progress;
	}
	chakra_gpu_model gpu;
	chakra_cluster_net net;
	if (chakra_gpu_model_preset(&gpu, gpu_name, e, sizeof e) < 0) {
		tool_usage(argv[0], "--gpu: %s", e);
		goto done;
	}
	status = 1;
	if (from && tool_input_missing(from))
		goto done;
	if (from && chakra_gpu_model_load(&gpu, from, e, sizeof e) < 0) {
		tool_err("%s", e);
		goto done;
	}
	if (chakra_cluster_net_preset(&net, strstr(gpu_name, "h100") ? "dgx-h100" : "dgx-a100", e,
	                              sizeof e) < 0) {
		tool_err("%s", e);
		goto done;
	}
	if (netcal && gpt_cli_net(&net, netcal))
		goto done;
	for (int i = 0; i < nargs; i++) {
		size_t from = n;
		if (tool_input_missing(args[i]))
			goto done;
		if (chakra_gpt_measurements_load(args[i], &rows, &n, e, sizeof e) < 0) {
			tool_err("%s", e);
			goto done;
		}
		if (gpt_rows_apply(&rt, argv[0], rows, from, n)) {
			status = 2;
			goto done;
		}
	}
	if (chakra_calibrate_compute(&gpu, &net, rows, n, &o, e, sizeof e) < 0) {
		tool_err("%s", e);
		goto done;
	}
	tool_out to, tn;
	memset(&tn, 0, sizeof tn);
	const char *const *in = (const char *const *)args;
	if (tool_out_open(&to, out, force, in, nargs) < 0)
		goto done;
	if (chakra_gpu_model_json(&gpu, write_json, &to) < 0 || tool_out_close(&to) < 0) {
		tool_out_abort(&to);
		goto done;
	}
	if (net_out) {
		if (tool_out_open(&tn, net_out, force, in, nargs) < 0 ||
		    chakra_cluster_net_json(&net, write_json, &tn) < 0 || tool_out_close(&tn) < 0) {
			tool_out_abort(&to);
			tool_out_abort(&tn);
			goto done;
		}
	}
	if (tool_out_commit(&to) < 0 || (net_out && tool_out_commit(&tn) < 0))
		goto done;
	if (!quiet)
		fprintf(stderr, "chakra: calibrate: %zu measurements; gemm_efficiency %.4f, gemm_knee "
		        "%.1f, mem_efficiency %.4f, kernel_floor_ns %.0f, optimizer_bytes %.2f, "
		        "iteration_overhead_ns %.0f%s\n", n, gpu.gemm_efficiency, gpu.gemm_knee,
		        gpu.mem_efficiency, gpu.kernel_floor_ns, gpu.optimizer_bytes,
		        gpu.iteration_overhead_ns, fit_inter ? "" : "");
	status = 0;
done:
	free(args);
	chakra_predict_free(rows);
	return status;
}
