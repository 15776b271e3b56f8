/* SPDX-License-Identifier: Apache-2.0 */
/* chakra predict check: iterations against measurement CSVs: error per row,
 * MAPE and maximum per file and for the rows a --holdout split used for
 * calibration versus the rest, Spearman's rank correlation of each file's
 * rows and whether its measured fastest row is predicted within 3% of the
 * predicted best (predict_check.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "predict_check.h"

int pc_check_iterations(const char *cmd, const char **files, int nfiles, gpt_cli *g,
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
			pc_acc_add(used ? &cal : &rest, err);
			pc_acc_add(used ? &all_cal : &all_rest, err);
			if (show_rows && !y)
				printf("%s: tp %u pp %u dp %u mb %u gb %llu: measured %.6f s, predicted %.6f "
				       "s, %+.2f%%%s\n", rows[i].source, rows[i].config.tp, rows[i].config.pp,
				       rows[i].config.dp, rows[i].config.micro_batch,
				       (unsigned long long)rows[i].config.global_batch, rows[i].iteration_s,
				       p.iteration_s, 100 * err, used ? " (calibration row)" : "");
			if (show_rows && y) {
				yajl_gen_map_open(y);
				jo_kv_str(y, "source", rows[i].source);
				pc_kv_d(y, "measured_s", rows[i].iteration_s);
				pc_kv_d(y, "predicted_s", p.iteration_s);
				pc_kv_d(y, "error", err);
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
		double rho = pc_spearman(meas, pred, n);
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
			pc_kv_d(y, "calibration_mape", cal.n ? cal.sum / (double)cal.n : NAN);
			pc_kv_d(y, "calibration_max_error", cal.n ? cal.max : NAN);
			jo_kv_u64(y, "other_rows", rest.n);
			pc_kv_d(y, "other_mape", rest.n ? rest.sum / (double)rest.n : NAN);
			pc_kv_d(y, "other_max_error", rest.n ? rest.max : NAN);
			pc_kv_d(y, "spearman", rho);
			jo_kv_str(y, "measured_fastest", n ? rows[best_m].source : "");
			pc_kv_d(y, "measured_fastest_predicted_over_best", gap);
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
		pc_kv_d(y, "calibration_mape", all_cal.n ? all_cal.sum / (double)all_cal.n : NAN);
		jo_kv_u64(y, "other_rows", all_rest.n);
		pc_kv_d(y, "other_mape", all_rest.n ? all_rest.sum / (double)all_rest.n : NAN);
		pc_kv_d(y, "other_max_error", all_rest.n ? all_rest.max : NAN);
		yajl_gen_map_close(y);
		yajl_gen_free(y);
		printf("\n");
	}
	return status;
}
