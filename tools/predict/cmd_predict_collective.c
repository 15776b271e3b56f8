/* SPDX-License-Identifier: Apache-2.0 */
/* chakra predict collective: one collective's time on a cluster, from the
 * collective model (lib/predict, simulated by lib/sim). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "gpt_cli.h"
#include "jsonout.h"

int cmd_predict_collective(int argc, char **argv)
{
	int op = -1, json = 0;
	uint64_t gpus = UINT64_MAX, bytes = UINT64_MAX, gpn = UINT64_MAX;
	const char *gpu = NULL, *cal = NULL;
	const tool_option opts[] = {
		{ "--op", "NAME", TOOL_CHOICE, &op, "all_reduce|all_gather|reduce_scatter|all_to_all",
		  "the collective (required)" },
		{ "--gpus", "N", TOOL_U64, &gpus, NULL, "GPUs taking part (required)" },
		{ "--bytes", "SIZE", TOOL_SIZE, &bytes, NULL,
		  "nccl-tests' size: the all-reduce buffer, the\nall-gather output (required)" },
		{ "--gpu", "NAME", TOOL_STR, &gpu, NULL,
		  "a100* (network dgx-a100) or h100 (dgx-h100)" },
		{ "--gpus-per-node", "N", TOOL_U64, &gpn, NULL, "GPUs per node (default 8)" },
		{ "--calibration", "NET.json", TOOL_STR, &cal, NULL,
		  "collective model from `chakra calibrate nccl`" },
		{ "--json", NULL, TOOL_FLAG, &json, NULL, "print JSON" },
		{ NULL, NULL, 0, NULL, NULL, NULL },
	};
	const tool_command cmd = {
		"--op NAME --gpus N --bytes SIZE (--gpu NAME | --calibration NET.json)",
		"The time of one collective over N GPUs packed onto NVSwitch nodes, from the\n"
		"collective model (per-level bandwidth and latency and a launch cost,\n"
		"simulated hierarchically by chakra sim's model; docs/predict.md).",
		opts, NULL, 0, 0, NULL
	};
	const char **args;
	int nargs, prc = tool_parse(&cmd, argc, argv, &args, &nargs);
	if (prc != TOOL_PARSED)
		return prc == TOOL_HELP_SHOWN ? 0 : prc;
	free(args);
	if (op < 0 || gpus == UINT64_MAX || bytes == UINT64_MAX)
		return tool_usage(argv[0], "--op, --gpus and --bytes are required");
	if (!gpu && !cal)
		return tool_usage(argv[0], "give --gpu or --calibration");
	if (gpus == 0 || gpus > (1u << 24))
		return tool_usage(argv[0], "--gpus needs 1..2^24");
	chakra_cluster_net net;
	char e[1024];
	if (chakra_cluster_net_preset(&net, gpu && strstr(gpu, "h100") ? "dgx-h100" : "dgx-a100",
	                              e, sizeof e) < 0)
		return tool_err("%s", e);
	if (gpu && strncmp(gpu, "a100", 4) && strcmp(gpu, "h100"))
		return tool_usage(argv[0], "--gpu: unknown GPU '%s' (known: a100, a100-80g, "
		                  "a100-40g, h100)", gpu);
	if (cal && gpt_cli_net(&net, cal))
		return 1;
	if (gpn != UINT64_MAX) {
		if (gpn == 0 || gpn > 1024)
			return tool_usage(argv[0], "--gpus-per-node needs 1..1024");
		net.gpus_per_node = (uint32_t)gpn;
	}
	double us;
	if (chakra_collective_predict(&net, (chakra_collective_op)op, (uint32_t)gpus, bytes, &us, e,
	                              sizeof e) < 0)
		return tool_err("%s", e);
	static const char *const names[] = { "all_reduce", "all_gather", "reduce_scatter",
		                             "all_to_all" };
	double algbw = us > 0 ? (double)bytes / (us * 1e3) : 0; /* GB/s */
	/* nccl-tests' bus bandwidth factors */
	double n = (double)gpus;
	double f = op == 0 ? 2 * (n - 1) / n : (n - 1) / n;
	if (json) {
		yajl_gen y = jo_open(stdout, 1);
		yajl_gen_map_open(y);
		jo_kv_str(y, "op", names[op]);
		jo_kv_u64(y, "gpus", gpus);
		jo_kv_u64(y, "bytes", bytes);
		jo_kv_str(y, "network", net.name);
		yajl_gen_string(y, (const unsigned char *)"time_us", 7);
		yajl_gen_double(y, us);
		yajl_gen_string(y, (const unsigned char *)"algbw_gbps", 10);
		yajl_gen_double(y, algbw);
		yajl_gen_string(y, (const unsigned char *)"busbw_gbps", 10);
		yajl_gen_double(y, algbw * f);
		yajl_gen_map_close(y);
		yajl_gen_free(y);
		printf("\n");
	} else {
		printf("%s of %llu bytes on %llu GPUs (%s): %.3f us (algbw %.2f GB/s, busbw %.2f "
		       "GB/s)\n", names[op], (unsigned long long)bytes, (unsigned long long)gpus,
		       net.name, us, algbw, algbw * f);
	}
	return 0;
}
