/* SPDX-License-Identifier: Apache-2.0 */
/* chakra predict check: predictions against measurements. Iterations
 * (measurement CSVs): error per row, MAPE and maximum per file and for the
 * rows a --holdout split used for calibration versus the rest, Spearman's
 * rank correlation of each file's rows and whether its measured fastest
 * row is predicted within 3% of the predicted best. Collectives (--nccl,
 * nccl-tests logs): error per size, median and maximum per GPU count. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "gpt_cli.h"
#include "jsonout.h"

typedef struct stat_acc {
	double sum, max;
	size_t n;
} stat_acc;

static void acc_add(stat_acc *a, double e)
{
	a->sum += fabs(e);
	if (fabs(e) > a->max)
		a->max = fabs(e);
	a->n++;
}

static int cmp_dbl(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return a < b ? -1 : a > b;
}

typedef struct idx {
	double v;
	size_t i;
} idx;

static int cmp_idx(const void *x, const void *y)
{
	const idx *a = x, *b = y;
	return a->v < b->v ? -1 : a->v > b->v;
}

/* Average ranks (ties share theirs). */
static int ranks(const double *v, size_t n, double *r)
{
	idx *t = malloc((n ? n : 1) * sizeof *t);
	if (!t)
		return -1;
	for (size_t i = 0; i < n; i++)
		t[i] = (idx){ v[i], i };
	qsort(t, n, sizeof *t, cmp_idx);
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j + 1 < n && t[j + 1].v == t[i].v)
			j++;
		for (size_t k = i; k <= j; k++)
			r[t[k].i] = (double)(i + j) / 2.0 + 1.0;
		i = j + 1;
	}
	free(t);
	return 0;
}

static double spearman(const double *a, const double *b, size_t n)
{
	double *ra = malloc((n ? n : 1) * sizeof *ra), *rb = malloc((n ? n : 1) * sizeof *rb);
	double rho = NAN;
	if (ra && rb && n > 1 && ranks(a, n, ra) == 0 && ranks(b, n, rb) == 0) {
		double ma = 0, mb = 0, sab = 0, saa = 0, sbb = 0;
		for (size_t i = 0; i < n; i++) {
			ma += ra[i];
			mb += rb[i];
		}
		ma /= (double)n;
		mb /= (double)n;
		for (size_t i = 0; i < n; i++) {
			sab += (ra[i] - ma) * (rb[i] - mb);
			saa += (ra[i] - ma) * (ra[i] - ma);
			sbb += (rb[i] - mb) * (rb[i] - mb);
		}
		rho = saa > 0 && sbb > 0 ? sab / sqrt(saa * sbb) : NAN;
	}
	free(ra);
	free(rb);
	return rho;
}

static void kv_d(yajl_gen y, const char *k, double v)
{
	yajl_gen_string(y, (const unsigned char *)k, strlen(k));
	if (isfinite(v))
		yajl_gen_double(y, v);
	else
		yajl_gen_null(y);
}

static int check_iterations(const char *cmd, const char **files, int nfiles, gpt_cli *g,
                            const gpt_rows *rt, unsigned hm, unsigned hk, int json, int show_rows)
{
	chakra_gpu_model gpu;
	chakra_cluster_net net;
	char e[1024];
	if (chakra_gpu_model_preset(&gpu, g->gpu ? g->gpu : "a100", e, sizeof e) < 0)
		return tool_usage(cmd, "--gpu: %s", e);
	if (g->calibration && tool_input_missing(g->calibration))
		return 1;
	if (g->calibration && chakra_gpu_model_load(&gpu, g->calibration, e, sizeof e) < 0)
		return tool_err("%s", e);
	if (chakra_cluster_net_preset(&net, g->gpu && strstr(g->gpu, "h100") ? "dgx-h100"
	                                                                     : "dgx-a100",
	                              e, sizeof e) < 0)
		return tool_err("%s", e);
	if (g->nccl_calibration && gpt_cli_net(&net, g->nccl_calibration))
		return 1;
	yajl_gen y = json ? jo_open(stdout, 1) : NULL;
	if (y) {
		yajl_gen_map_open(y);
		jo_kv_str(y, "gpu", gpu.name);
		jo_kv_str(y, "network", net.name);
		yajl_gen_string(y, (const unsigned char *)"files", 5);
		yajl_gen_array_open(y);
	}
	stat_acc all_cal = { 0 }, all_rest = { 0 };
	size_t row_index = 0; /* counted over every file, as --holdout counts in calibrate */
	int status = 0;
	for (int f = 0; f < nfiles; f++) {
		chakra_gpt_measurement *rows = NULL;
		size_t n = 0;
		if (tool_input_missing(files[f])) {
			status = 1;
			break;
		}
		if (chakra_gpt_measurements_load(files[f], &rows, &n, e, sizeof e) < 0) {
			status = tool_err("%s", e);
			break;
		}
		if (gpt_rows_apply(rt, cmd, rows, 0, n)) {
			chakra_predict_free(rows);
			status = 2;
			break;
		}
		double *meas = malloc(n * sizeof *meas), *pred = malloc(n * sizeof *pred);
		if (!meas || !pred) {
			free(meas);
			free(pred);
			chakra_predict_free(rows);
			status = tool_err("out of memory");
			break;
		}
		stat_acc cal = { 0 }, rest = { 0 };
		if (y) {
			yajl_gen_map_open(y);
			jo_kv_str(y, "file", files[f]);
			if (show_rows) {
				yajl_gen_string(y, (const unsigned char *)"rows", 4);
				yajl_gen_array_open(y);
			}
		}
		for (size_t i = 0; i < n; i++, row_index++) {
			chakra_gpt_prediction p;
			rows[i].config.gpus_per_node = net.gpus_per_node;
			if (chakra_gpt_predict(&rows[i].config, &gpu, &net, NULL, &p, e, sizeof e) < 0) {
				status = tool_err("%s: %s", rows[i].source, e);
				break;
			}
			meas[i] = rows[i].iteration_s;
			pred[i] = p.iteration_s;
			double err = p.iteration_s / rows[i].iteration_s - 1.0;
			int used = hm > 1 && row_index % hm == hk;
			acc_add(used ? &cal : &rest, err);
			acc_add(used ? &all_cal : &all_rest, err);
			if (show_rows && !y)
				printf("%s: tp %u pp %u dp %u mb %u gb %llu: measured %.6f s, predicted %.6f "
				       "s, %+.2f%%%s\n", rows[i].source, rows[i].config.tp, rows[i].config.pp,
				       rows[i].config.dp, rows[i].config.micro_batch,
				       (unsigned long long)rows[i].config.global_batch, rows[i].iteration_s,
				       p.iteration_s, 100 * err, used ? " (calibration row)" : "");
			if (show_rows && y) {
				yajl_gen_map_open(y);
				jo_kv_str(y, "source", rows[i].source);
				kv_d(y, "measured_s", rows[i].iteration_s);
				kv_d(y, "predicted_s", p.iteration_s);
				kv_d(y, "error", err);
				yajl_gen_string(y, (const unsigned char *)"calibration_row", 15);
				yajl_gen_bool(y, used);
				yajl_gen_map_close(y);
			}
		}
		if (status) {
			free(meas);
			free(pred);
			chakra_predict_free(rows);
			break;
		}
		double rho = spearman(meas, pred, n);
		size_t best_m = 0, best_p = 0;
		for (size_t i = 1; i < n; i++) {
			if (meas[i] < meas[best_m])
				best_m = i;
			if (pred[i] < pred[best_p])
				best_p = i;
		}
		double gap = n ? pred[best_m] / pred[best_p] - 1.0 : 0;
		if (y) {
			if (show_rows)
				yajl_gen_array_close(y);
			jo_kv_u64(y, "rows", n);
			jo_kv_u64(y, "calibration_rows", cal.n);
			kv_d(y, "calibration_mape", cal.n ? cal.sum / (double)cal.n : NAN);
			kv_d(y, "calibration_max_error", cal.n ? cal.max : NAN);
			jo_kv_u64(y, "other_rows", rest.n);
			kv_d(y, "other_mape", rest.n ? rest.sum / (double)rest.n : NAN);
			kv_d(y, "other_max_error", rest.n ? rest.max : NAN);
			kv_d(y, "spearman", rho);
			jo_kv_str(y, "measured_fastest", n ? rows[best_m].source : "");
			kv_d(y, "measured_fastest_predicted_over_best", gap);
			yajl_gen_map_close(y);
		} else {
			printf("%s: %zu rows", files[f], n);
			if (cal.n)
				printf("; calibration rows %zu: MAPE %.2f%%, max %.2f%%", cal.n,
				       100 * cal.sum / (double)cal.n, 100 * cal.max);
			if (rest.n)
				printf("; %s %zu: MAPE %.2f%%, max %.2f%%", cal.n ? "other rows" : "rows",
				       rest.n, 100 * rest.sum / (double)rest.n, 100 * rest.max);
			printf("\n  Spearman %.4f; measured fastest %s is predicted %.2f%% above the "
			       "predicted best (%s)\n", rho, n ? rows[best_m].source : "-", 100 * gap,
			       gap <= 0.03 ? "within 3%" : "more than 3%");
		}
		free(meas);
		free(pred);
		chakra_predict_free(rows);
	}
	if (y) {
		yajl_gen_array_close(y);
		jo_kv_u64(y, "calibration_rows", all_cal.n);
		kv_d(y, "calibration_mape", all_cal.n ? all_cal.sum / (double)all_cal.n : NAN);
		jo_kv_u64(y, "other_rows", all_rest.n);
		kv_d(y, "other_mape", all_rest.n ? all_rest.sum / (double)all_rest.n : NAN);
		kv_d(y, "other_max_error", all_rest.n ? all_rest.max : NAN);
		yajl_gen_map_close(y);
		yajl_gen_free(y);
		printf("\n");
	}
	return status;
}

static int cmp_group(const void *x, const void *y)
{
	const chakra_nccl_measurement *a = x, *b = y;
	if (a->op != b->op)
		return a->op < b->op ? -1 : 1;
	if (a->gpus != b->gpus)
		return a->gpus < b->gpus ? -1 : 1;
	return a->bytes < b->bytes ? -1 : a->bytes > b->bytes;
}

static int check_nccl(const char *cmd, const char **files, int nfiles, gpt_cli *g,
                      uint64_t min_bytes, int json, int show_rows)
{
	chakra_cluster_net net;
	char e[1024];
	if (chakra_cluster_net_preset(&net, g->gpu && strstr(g->gpu, "h100") ? "dgx-h100"
	                                                                     : "dgx-a100",
	                              e, sizeof e) < 0)
		return tool_err("%s", e);
	if (g->nccl_calibration && gpt_cli_net(&net, g->nccl_calibration))
		return 1;
	(void)cmd;
	chakra_nccl_measurement *rows = NULL;
	size_t n = 0;
	for (int f = 0; f < nfiles; f++) {
		if (tool_input_missing(files[f])) {
			chakra_predict_free(rows);
			return 1;
		}
		if (chakra_nccl_log_load(files[f], &rows, &n, e, sizeof e) < 0) {
			chakra_predict_free(rows);
			return tool_err("%s", e);
		}
	}
	qsort(rows, n, sizeof *rows, cmp_group);
	static const char *const names[] = { "all_reduce", "all_gather", "reduce_scatter",
		                             "all_to_all" };
	yajl_gen y = json ? jo_open(stdout, 1) : NULL;
	if (y) {
		yajl_gen_map_open(y);
		jo_kv_str(y, "network", net.name);
		jo_kv_u64(y, "min_bytes", min_bytes);
		yajl_gen_string(y, (const unsigned char *)"groups", 6);
		yajl_gen_array_open(y);
	}
	double *errs = malloc((n ? n : 1) * sizeof *errs), *all = malloc((n ? n : 1) * sizeof *all);
	size_t nall = 0;
	int status = 0;
	if (!errs || !all)
		status = tool_err("out of memory");
	for (size_t i = 0; i < n && !status;) {
		size_t j = i, k = 0;
		double mx = 0;
		for (; j < n && rows[j].op == rows[i].op && rows[j].gpus == rows[i].gpus; j++) {
			if (rows[j].bytes < min_bytes || rows[j].gpus < 2)
				continue;
			double us;
			if (chakra_collective_predict(&net, rows[j].op, rows[j].gpus, rows[j].bytes, &us, e,
			                              sizeof e) < 0) {
				status = tool_err("%s: %s", rows[j].source, e);
				break;
			}
			double err = us / rows[j].time_us - 1.0;
			if (show_rows && !y)
				printf("%s: %s %u GPUs %llu bytes: measured %.2f us, predicted %.2f us, "
				       "%+.2f%%\n", rows[j].source, names[rows[j].op], rows[j].gpus,
				       (unsigned long long)rows[j].bytes, rows[j].time_us, us, 100 * err);
			errs[k++] = fabs(err);
			all[nall++] = fabs(err);
			if (fabs(err) > mx)
				mx = fabs(err);
		}
		if (status)
			break;
		if (k) {
			qsort(errs, k, sizeof *errs, cmp_dbl);
			double med = k % 2 ? errs[k / 2] : (errs[k / 2 - 1] + errs[k / 2]) / 2;
			if (y) {
				yajl_gen_map_open(y);
				jo_kv_str(y, "op", names[rows[i].op]);
				jo_kv_u64(y, "gpus", rows[i].gpus);
				jo_kv_u64(y, "sizes", k);
				kv_d(y, "median_error", med);
				kv_d(y, "max_error", mx);
				yajl_gen_map_close(y);
			} else {
				printf("%s on %u GPUs: %zu sizes >= %llu bytes: median |error| %.2f%%, max "
				       "%.2f%%\n", names[rows[i].op], rows[i].gpus, k,
				       (unsigned long long)min_bytes, 100 * med, 100 * mx);
			}
		}
		i = j;
	}
	if (!status && nall) {
		qsort(all, nall, sizeof *all, cmp_dbl);
		double med = nall % 2 ? all[nall / 2] : (all[nall / 2 - 1] + all[nall / 2]) / 2;
		if (y) {
			yajl_gen_array_close(y);
			jo_kv_u64(y, "sizes", nall);
			kv_d(y, "median_error", med);
			yajl_gen_map_close(y);
			printf("\n");
		} else {
			printf("all: %zu sizes: median |error| %.2f%%\n", nall, 100 * med);
		}
	}
	if (y)
		yajl_gen_free(y);
	free(errs);
	free(all);
	chakra_predict_free(rows);
	return status;
}

int cmd_predict_check(int argc, char **argv)
{
	gpt_cli g;
	gpt_cli_init(&g);
	const char *holdout = NULL;
	int json = 0, nccl = 0, show_rows = 0;
	uint64_t min_bytes = 1 << 20;
	gpt_rows rt;
	gpt_rows_init(&rt);
	const tool_option opts[] = {
		GPT_ROWS_OPTIONS(&rt),
		{ "--gpu", "NAME", TOOL_STR, &g.gpu, NULL, "GPU preset (default a100)" },
		{ "--calibration", "CAL.json", TOOL_STR, &g.calibration, NULL, "compute model" },
		{ "--nccl-calibration", "NET.json", TOOL_STR, &g.nccl_calibration, NULL,
		  "collective model" },
		{ "--holdout", "M:K", TOOL_STR, &holdout, NULL,
		  "rows i with i % M == K are calibration rows\n(as `chakra calibrate compute` counts "
		  "them)" },
		{ "--nccl", NULL, TOOL_FLAG, &nccl, NULL, "the files are nccl-tests logs" },
		{ "--min-bytes", "SIZE", TOOL_SIZE, &min_bytes, NULL,
		  "--nccl: sizes checked (default 1MiB)" },
		{ "--rows", NULL, TOOL_FLAG, &show_rows, NULL, "every row's prediction" },
		{ "--json", NULL, TOOL_FLAG, &json, NULL, "print JSON" },
		{ NULL, NULL, 0, NULL, NULL, NULL },
	};
	const tool_command cmd = {
		"MEASURED.csv... | --nccl LOG... [options]",
		"Predict every measured iteration (or, with --nccl, every measured collective)\n"
		"and report the errors: MAPE and maximum, per file and split into calibration\n"
		"rows and the rest; Spearman's rank correlation; whether the measured fastest\n"
		"row is predicted within 3% of the predicted best.",
		opts, NULL, 1, -1, "FILE"
	};
	const char **args;
	int nargs, prc = tool_parse(&cmd, argc, argv, &args, &nargs);
	if (prc != TOOL_PARSED)
		return prc == TOOL_HELP_SHOWN ? 0 : prc;
	unsigned hm = 0, hk = 0;
	int rc;
	if (holdout) {
		char tail;
		if (sscanf(holdout, "%u:%u%c", &hm, &hk, &tail) != 2 || hm < 2 || hk >= hm) {
			free(args);
			return tool_usage(argv[0], "--holdout needs M:K with M >= 2 and K < M");
		}
	}
	if (nccl)
		rc = check_nccl(argv[0], args, nargs, &g, min_bytes, json, show_rows);
	else
		rc = check_iterations(argv[0], args, nargs, &g, &rt, hm, hk, json, show_rows);
	free(args);
	return rc;
}
