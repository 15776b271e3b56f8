/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target: the prediction module's parsers (lib/predict): byte 0
 * picks one: 0 a measurement CSV, 1 nccl-tests output (byte 1 picks the
 * file name the collective is read from), 2 a GPU model, 3 a cluster
 * network; the rest is the text. A parser must accept, or refuse with a
 * message; what it accepts must be usable (configurations that pass their
 * check, positive sizes and times, values in range). */
#ifndef CHAKRA_EXPERIMENTAL
#define CHAKRA_EXPERIMENTAL
#endif
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chakra/experimental/predict.h"
#include "fuzz_touch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	int which = data[0] % 4;
	static const char *const names[] = { "nccl.log", "all_gather_perf.log",
		                             "reduce_scatter.log", "alltoall.log", "AR_GPU4_LUT",
		                             "x.log" };
	const char *text = (const char *)data + 2;
	size_t len = size - 2;
	char err[512];
	err[0] = 0;
	int rc;
	if (which == 0) {
		chakra_gpt_measurement *rows = NULL;
		size_t n = 0;
		rc = chakra_gpt_measurements_parse("f.csv", text, len, &rows, &n, err, sizeof err);
		if (rc < 0 && n != 0)
			fuzz_fail("rows kept after an error", (int)n, rc, err);
		for (size_t i = 0; rc == 0 && i < n; i++) {
			char e[512];
			if (chakra_gpt_config_check(&rows[i].config, e, sizeof e) < 0)
				fuzz_fail("accepted a row whose configuration fails its check", (int)i, 0, e);
			if (!(rows[i].iteration_s > 0) || !isfinite(rows[i].iteration_s))
				fuzz_fail("accepted a non-positive time", (int)i, 0, "");
			chakra_gpt_memory m;
			if (chakra_gpt_memory_estimate(&rows[i].config, NULL, &m, e, sizeof e) < 0)
				fuzz_fail("memory estimate refused an accepted row", (int)i, 0, e);
		}
		chakra_predict_free(rows);
	} else if (which == 1) {
		chakra_nccl_measurement *rows = NULL;
		size_t n = 0;
		rc = chakra_nccl_log_parse(names[data[1] % 6], text, len, &rows, &n, err, sizeof err);
		if (rc < 0 && n != 0)
			fuzz_fail("rows kept after an error", (int)n, rc, err);
		for (size_t i = 0; rc == 0 && i < n; i++)
			if (rows[i].gpus == 0 || rows[i].nodes == 0 || !(rows[i].time_us >= 0) ||
			    !isfinite(rows[i].time_us) || rows[i].op > CHAKRA_OP_ALL_TO_ALL)
				fuzz_fail("accepted an unusable measurement", (int)i, (int)rows[i].gpus, "");
		chakra_predict_free(rows);
	} else if (which == 2) {
		chakra_gpu_model m;
		chakra_gpu_model_preset(&m, "a100", NULL, 0);
		rc = chakra_gpu_model_parse(&m, "m.json", text, len, err, sizeof err);
		if (rc == 0 && (!(m.gemm_efficiency > 0 && m.gemm_efficiency <= 1) ||
		                !(m.mem_efficiency > 0 && m.mem_efficiency <= 1) ||
		                !(m.peak_tflops > 0) || !(m.hbm_gbps > 0) ||
		                memchr(m.name, 0, sizeof m.name) == NULL))
			fuzz_fail("accepted a model out of range", 0, 0, "");
	} else {
		chakra_cluster_net n;
		chakra_cluster_net_preset(&n, "dgx-a100", NULL, 0);
		rc = chakra_cluster_net_parse(&n, "n.json", text, len, err, sizeof err);
		if (rc == 0 && (n.gpus_per_node < 1 || n.gpus_per_node > 1024 || !(n.intra_gbps > 0) ||
		                !(n.inter_gbps > 0) || memchr(n.name, 0, sizeof n.name) == NULL))
			fuzz_fail("accepted a network out of range", 0, 0, "");
	}
	if (rc < 0)
		fuzz_check_errmsg(err);
	return 0;
}
