/* SPDX-License-Identifier: Apache-2.0 */
/* chakra calibrate nccl LOG... -o NET.json: fit the collective model to
 * nccl-tests output (lib/predict). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "gpt_cli.h"

int cmd_calibrate_nccl(int argc, char **argv)
{
	const char *out = NULL, *name = "calibrated", *base = "dgx-a100";
	int force = 0, quiet = 0;
	uint64_t min_bytes = 1 << 20, gpn = UINT64_MAX;
	double intra = 0, inter = 0, inter_lat = -1;
	const tool_option opts[] = {
		{ "-o, --output", "NET.json", TOOL_STR, &out, NULL, "the calibrated network (required)" },
		{ "--from", "PRESET", TOOL_STR, &base, NULL,
		  "network the datasheet figures come from\n(dgx-a100 or dgx-h100; default dgx-a100)" },
		{ "--name", "NAME", TOOL_STR, &name, NULL, "name written in NET.json" },
		{ "--min-bytes", "SIZE", TOOL_SIZE, &min_bytes, NULL,
		  "fit sizes of at least this (default 1MiB)" },
		{ "--gpus-per-node", "N", TOOL_U64, &gpn, NULL, "GPUs per node (default the preset's)" },
		{ "--intra-gbps", "G", TOOL_DOUBLE, &intra, NULL,
		  "datasheet bandwidth per GPU inside a node\n(default 300 for dgx-a100)" },
		{ "--inter-gbps", "G", TOOL_DOUBLE, &inter, NULL,
		  "datasheet bandwidth per GPU between nodes\n(default 25 for dgx-a100)" },
		{ "--inter-latency-ns", "NS", TOOL_DOUBLE, &inter_lat, NULL,
		  "latency per ring step between nodes when no\nlog spans nodes (default the "
		  "preset's)" },
		{ "-q, --quiet", NULL, TOOL_FLAG, &quiet, NULL, "no summary on stderr" },
		{ "-f, --force", NULL, TOOL_FLAG, &force, NULL, "replace NET.json if it exists" },
		{ NULL, NULL, 0, NULL, NULL, NULL },
	};
	const tool_command cmd = {
		"LOG... -o NET.json [options]",
		"Fit the collective model (bandwidth and latency inside a node and between\n"
		"nodes, and a fixed launch cost per collective) to nccl-tests output\n"
		"(all_reduce_perf and the others, mpirun prefixes allowed; also vTrain's\n"
		"AR_GPU<n>_* tables). Logs on one node give the NVSwitch level; logs across\n"
		"nodes give the scale-out level, and without any, the scale-out bandwidth is\n"
		"the datasheet's at the efficiency the node level reached (docs/predict.md).",
		opts, NULL, 1, -1, "LOG"
	};
	const char **args;
	int nargs, prc = tool_parse(&cmd, argc, argv, &args, &nargs);
	if (prc != TOOL_PARSED)
		return prc == TOOL_HELP_SHOWN ? 0 : prc;
	int status = 2;
	chakra_nccl_measurement *rows = NULL;
	size_t n = 0;
	char e[1024] = "";
	chakra_cluster_net net;
	if (!out) {
		tool_usage(argv[0], "missing -o NET.json");
		goto done;
	}
	if (chakra_cluster_net_preset(&net, base, e, sizeof e) < 0) {
		tool_usage(argv[0], "--from: %s", e);
		goto done;
	}
	if (strlen(name) >= sizeof net.name) {
		tool_usage(argv[0], "--name: at most %zu bytes", sizeof net.name - 1);
		goto done;
	}
	/* datasheet starting points */
	int h100 = !strcmp(base, "dgx-h100");
	net.intra_gbps = intra > 0 ? intra : h100 ? 450.0 : 300.0;
	net.inter_gbps = inter > 0 ? inter : h100 ? 50.0 : 25.0;
	if (intra < 0 || inter < 0 || !(intra < 1e9) || !(inter < 1e9)) {
		tool_usage(argv[0], "--intra-gbps and --inter-gbps need positive numbers");
		goto done;
	}
	if (inter_lat >= 0)
		net.inter_latency_ns = inter_lat;
	if (gpn != UINT64_MAX) {
		if (gpn == 0 || gpn > 1024) {
			tool_usage(argv[0], "--gpus-per-node needs 1..1024");
			goto done;
		}
		net.gpus_per_node = (uint32_t)gpn;
	}
	snprintf(net.name, sizeof net.name, "%s", name);
	status = 1;
	for (int i = 0; i < nargs; i++) {
		if (tool_input_missing(args[i]))
			goto done;
		if (chakra_nccl_log_load(args[i], &rows, &n, e, sizeof e) < 0) {
			tool_err("%s", e);
			goto done;
		}
	}
	if (chakra_calibrate_nccl(&net, rows, n, min_bytes, e, sizeof e) < 0) {
		tool_err("%s", e);
		goto done;
	}
	tool_out to;
	if (tool_out_open(&to, out, force, (const char *const *)args, nargs) < 0)
		goto done;
	if (chakra_cluster_net_json(&net, tool_out_write_cb, &to) < 0 ||
	    tool_out_commit(&to) < 0) {
		tool_out_abort(&to);
		goto done;
	}
	if (!quiet)
		fprintf(stderr, "chakra: calibrate: %zu measurements; intra %.2f GB/s %.0f ns, inter "
		        "%.2f GB/s %.0f ns, launch %.0f ns\n", n, net.intra_gbps, net.intra_latency_ns,
		        net.inter_gbps, net.inter_latency_ns, net.launch_ns);
	status = 0;
done:
	free(args);
	chakra_predict_free(rows);
	return status;
}
