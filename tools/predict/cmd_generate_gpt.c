/* SPDX-License-Identifier: Apache-2.0 */
/* chakra generate model --model gpt: a Megatron-LM GPT training iteration
 * as one Chakra ET per GPU (the workload chakra predict gpt simulates),
 * with its groups, network and system files. `generate model` hands its
 * arguments here when the model is gpt. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "gpt_cli.h"

int cmd_generate_gpt(int argc, char **argv)
{
	gpt_cli g;
	gpt_cli_init(&g);
	const char *out = NULL;
	int force = 0, gzip = 0, model = -1, rank_map = 0;
	const tool_option opts[] = {
		{ "--model", "gpt", TOOL_CHOICE, &model, "gpt", "the model" },
		GPT_CLI_OPTIONS(&g),
		{ "-o, --output", "PREFIX", TOOL_STR, &out, NULL,
		  "PREFIX.r.et, PREFIX.comm_groups.json,\nPREFIX.network.yml, PREFIX.system.json "
		  "(required)" },
		{ "--gzip", NULL, TOOL_FLAG, &gzip, NULL, "write PREFIX.r.et.gz" },
		{ "--rank-map", NULL, TOOL_FLAG, &rank_map, NULL,
		  "write one trace per pipeline stage (PREFIX.c<k>.et)\n"
		  "and the rank map PREFIX.ranks instead of PREFIX.r.et\n"
		  "for every GPU (docs/feeder.md)" },
		{ "-f, --force", NULL, TOOL_FLAG, &force, NULL, "replace existing output files" },
		{ NULL, NULL, 0, NULL, NULL, NULL },
	};
	const tool_command cmd = {
		"--model gpt --layers L --hidden H --heads A --seq S\n"
		"                             --global-batch B --tp T --pp P --dp D --gpu NAME -o PREFIX",
		"One Megatron-LM GPT training iteration, every kernel a node, as the workload\n"
		"`chakra predict gpt` simulates (docs/predict.md): run it with\n"
		"  chakra sim --workload PREFIX --network PREFIX.network.yml \\\n"
		"             --system PREFIX.system.json --comm-group PREFIX.comm_groups.json",
		opts, NULL, 0, 0, NULL
	};
	const char **args;
	int nargs, prc = tool_parse(&cmd, argc, argv, &args, &nargs);
	if (prc != TOOL_PARSED)
		return prc == TOOL_HELP_SHOWN ? 0 : prc;
	free(args);
	if (!out)
		return tool_usage(argv[0], "-o PREFIX is required");
	gpt_setup st;
	int rc = gpt_cli_resolve(&g, argv[0], 1, &st);
	if (rc)
		return rc;
	return gpt_cli_write(out, &st, force, gzip, rank_map);
}
