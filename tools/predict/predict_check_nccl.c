/* SPDX-License-Identifier: Apache-2.0 */
/* chakra predict check --nccl: collectives against nccl-tests logs: error
 * per size, median and maximum per GPU count (predict_check.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "predict_check.h"

static int cmp_group(const void *x, const void *y)
{
	const chakra_nccl_measurement *a = x, *b = y;
	if (a->op != b->op)
		return a->op < b->op ? -1 : 1;
	if (a->gpus != b->gpus)
		return a->gpus < b->gpus ? -1 : 1;
	return a->bytes < b->bytes ? -1 : a->bytes > b->bytes;
}

int pc_check_nccl(const char *cmd, const char **files, int nfiles, gpt_cli *g,
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
			qsort(errs, k, sizeof *errs, pc_cmp_dbl);
			double med = k % 2 ? errs[k / 2] : (errs[k / 2 - 1] + errs[k / 2]) / 2;
			if (y) {
				yajl_gen_map_open(y);
				jo_kv_str(y, "op", names[rows[i].op]);
				jo_kv_u64(y, "gpus", rows[i].gpus);
				jo_kv_u64(y, "sizes", k);
				pc_kv_d(y, "median_error", med);
				pc_kv_d(y, "max_error", mx);
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
		qsort(all, nall, sizeof *all, pc_cmp_dbl);
		double med = nall % 2 ? all[nall / 2] : (all[nall / 2 - 1] + all[nall / 2]) / 2;
		if (y) {
			yajl_gen_array_close(y);
			jo_kv_u64(y, "sizes", nall);
			pc_kv_d(y, "median_error", med);
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
