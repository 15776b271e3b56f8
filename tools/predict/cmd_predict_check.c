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
#include "predict_check.h"

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
		rc = pc_check_nccl(argv[0], args, nargs, &g, min_bytes, json, show_rows);
	else
		rc = pc_check_iterations(argv[0], args, nargs, &g, &rt, hm, hk, json, show_rows);
	free(args);
	return rc;
}
