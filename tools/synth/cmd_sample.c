/* SPDX-License-Identifier: Apache-2.0 */
/* chakra synth sample MODEL.json --npus N -o PREFIX: a synthetic workload. */
#define CHAKRA_EXPERIMENTAL
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chakra/experimental/synth.h"
#include "common.h"
#include "opts.h"

#define UNSET UINT64_MAX /* an option not given (0 is a bad value, not "the default") */

int cmd_synth_sample(int argc, char **argv)
{
	const char *out = NULL;
	chakra_synth_sample_options o = CHAKRA_SYNTH_SAMPLE_OPTIONS_INIT;
	uint64_t npus = UNSET, nodes = UNSET;
	const tool_option opts[] = {
		{ "-o, --output", "PREFIX", TOOL_STR, &out, NULL, "write PREFIX.r.et (required)" },
		{ "--npus", "N", TOOL_U64, &npus, NULL,
		  "ranks (required; a multiple of the model's group sizes)" },
		{ "--nodes", "K", TOOL_U64, &nodes, NULL,
		  "nodes per rank (default: as in the fitted traces)" },
		{ "--seed", "S", TOOL_U64, &o.seed, NULL, "random seed (default 0)" },
		{ "-g, --comm-group", "F", TOOL_STR, &o.comm_groups, NULL,
		  "where to write the groups (default\nPREFIX.comm_groups.json)" },
		{ "--gzip", NULL, TOOL_FLAG, &o.gzip, NULL, "write PREFIX.r.et.gz" },
		{ "-f, --force", NULL, TOOL_FLAG, &o.overwrite, NULL, "replace existing outputs" },
		{ NULL, NULL, 0, NULL, NULL, NULL },
	};
	const tool_command cmd = {
		"MODEL.json --npus N -o PREFIX [options]",
		"Write PREFIX.0.et ... PREFIX.{N-1}.et from a model of `chakra synth fit`:\n"
		"one master sequence of collectives and compute (the same on every rank, so\n"
		"every group issues the same collectives in the same order with the same\n"
		"sizes), and PREFIX.comm_groups.json when the model has process groups. The\n"
		"same model, options and seed give the same bytes.",
		opts, NULL, 1, 1, "MODEL.json"
	};
	const char **args;
	int nargs, prc = tool_parse(&cmd, argc, argv, &args, &nargs);
	if (prc != TOOL_PARSED)
		return prc == TOOL_HELP_SHOWN ? 0 : prc;
	const char *model = args[0];
	free((void *)args);
	if (!out)
		return tool_usage(argv[0], "missing -o PREFIX");
	if (npus == UNSET)
		return tool_usage(argv[0], "missing --npus N");
	if (npus < 1 || npus > (1u << 20))
		return tool_usage(argv[0], "--npus needs a number in 1..1048576");
	if (nodes != UNSET && nodes < 1)
		return tool_usage(argv[0], "--nodes needs a positive number");
	o.npus = (uint32_t)npus;
	o.nodes = nodes == UNSET ? 0 : nodes;
	chakra_synth_model *m;
	char err[1024];
	if (chakra_synth_model_load(&m, model, err, sizeof err) < 0)
		return tool_err("%s", err);
	int rc = chakra_synth_sample(m, out, &o, err, sizeof err);
	chakra_synth_model_free(m);
	if (rc < 0)
		return tool_err("%s%s", err, strstr(err, ": exists (") ? " (use -f to replace it)" : "");
	return 0;
}
