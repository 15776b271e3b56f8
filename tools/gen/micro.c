/* SPDX-License-Identifier: Apache-2.0 */
/* `chakra generate micro`: one-collective microbenchmarks, byte for byte the
 * files of ASTRA-sim's examples/workload/microbenchmarks, plus a send/recv
 * ring, by the generator module (chakra_gen_micro, lib/gen/micro.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "graph.h"
#include "opts.h"

static const int colls[] = { CHAKRA_ALL_REDUCE, CHAKRA_ALL_GATHER, CHAKRA_REDUCE_SCATTER,
	                         CHAKRA_ALL_TO_ALL, CHAKRA_BROADCAST };

int cmd_generate_micro(int argc, char **argv)
{
	const char *out = NULL;
	uint64_t npus = 0, size = UINT64_MAX; /* UINT64_MAX: not given */
	int coll = -1, ring = 0, force = 0, gzip = 0;
	const tool_option opts[] = {
		{ "--collective", "C", TOOL_CHOICE, &coll,
		  "all_reduce|all_gather|reduce_scatter|all_to_all|broadcast",
		  "the collective: all_reduce, all_gather,\n"
		  "reduce_scatter, all_to_all or broadcast" },
		{ "--send-recv-ring", NULL, TOOL_FLAG, &ring, NULL,
		  "a send/recv ring instead of a collective" },
		{ "--npus", "N", TOOL_U64, &npus, NULL, "number of NPUs (1..1048576; required)" },
		{ "--size", "BYTES", TOOL_SIZE, &size, NULL,
		  "the collective's (each send's) size: 1048576, 64KB,\n"
		  "1MB, 1MiB (KB/MB/GB are binary, as in ASTRA-sim's\n"
		  "names; required)" },
		{ "-o, --output", "PREFIX", TOOL_STR, &out, NULL, "output prefix (required)" },
		{ "--gzip", NULL, TOOL_FLAG, &gzip, NULL, "write PREFIX.r.et.gz" },
		{ "-f, --force", NULL, TOOL_FLAG, &force, NULL, "replace existing output files" },
		{ NULL, NULL, 0, NULL, NULL, NULL },
	};
	const tool_command cmd = {
		"--collective C --npus N --size BYTES -o PREFIX\n"
		"       chakra generate micro --send-recv-ring --npus N --size BYTES -o PREFIX",
		"Write PREFIX.0.et .. PREFIX.{N-1}.et: one collective per NPU, as ASTRA-sim's\n"
		"microbenchmarks, or a ring where every rank sends BYTES to rank+1 and receives\n"
		"from rank-1.",
		opts, NULL, 0, 0, NULL
	};
	const char **args;
	int nargs, prc = tool_parse(&cmd, argc, argv, &args, &nargs);
	if (prc != TOOL_PARSED)
		return prc == TOOL_HELP_SHOWN ? 0 : prc;
	free(args);
	if ((coll >= 0) == ring)
		return tool_usage(argv[0], "give exactly one of --collective C and --send-recv-ring");
	if (!npus || npus > 1u << 20)
		return tool_usage(argv[0], "--npus N (1..%u) is required", 1u << 20);
	if (ring && npus < 2)
		return tool_usage(argv[0], "a ring needs --npus 2 or more");
	if (size > INT64_MAX)
		return tool_usage(argv[0], "--size BYTES is required");
	if (!out || !strcmp(out, "-"))
		return tool_usage(argv[0], "-o PREFIX is required (files PREFIX.r.et)");
	gen_cli cli;
	memset(&cli, 0, sizeof cli);
	cli.npus = npus;
	cli.force = force;
	cli.gzip = gzip;
	cli.no_groups = 1;
	chakra_gen_options o;
	tool_progress pr;
	gen_cli_options(&cli, &o, &pr);
	chakra_gen_micro_options m = CHAKRA_GEN_MICRO_OPTIONS_INIT;
	m.comm_type = ring ? CHAKRA_GEN_MICRO_RING : colls[coll];
	m.size = size;
	return chakra_gen_micro(out, &o, &m) < 0 ? 1 : 0;
}
