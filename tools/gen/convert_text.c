/* SPDX-License-Identifier: Apache-2.0 */
/* `chakra convert text`: ASTRA-sim 1.0 text workload -> one Chakra ET per
 * NPU, with each collective over its data- or model-parallel group, by the
 * generator module (chakra_gen_text, lib/gen/text.c; docs/generate.md
 * lists every rule and why). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "graph.h"
#include "opts.h"

int cmd_convert_text(int argc, char **argv)
{
	const char *in = NULL;
	uint64_t passes = 1;
	double ghz = 1, cscale = 1, mscale = 1;
	int strong = 0;
	gen_cli cli;
	memset(&cli, 0, sizeof cli);
	const tool_option opts[] = {
		GEN_CLI_OPTIONS(&cli),
		{ "--passes", "P", TOOL_U64, &passes, NULL, "training iterations (1..1000000; default 1)" },
		{ "--ghz", "F", TOOL_DOUBLE, &ghz, NULL,
		  "clock of the text's cycles (default 1: 1 cycle =\n1 ns)" },
		{ "--compute-scale", "X", TOOL_DOUBLE, &cscale, NULL, "multiply compute times (default 1)" },
		{ "--comm-scale", "X", TOOL_DOUBLE, &mscale, NULL,
		  "multiply communication sizes (default 1)" },
		{ "--strong-scaling", NULL, TOOL_FLAG, &strong, NULL,
		  "the text is one data-parallel replica running the\n"
		  "whole batch: divide each layer's compute and\n"
		  "forward/input-gradient collective sizes by its\n"
		  "data-parallel degree" },
		{ NULL, NULL, 0, NULL, NULL, NULL },
	};
	const tool_command cmd = {
		"WORKLOAD.txt --npus N -o PREFIX [options]",
		"Convert an ASTRA-sim 1.0 text workload to PREFIX.0.et .. PREFIX.{N-1}.et and the\n"
		"communicator groups PREFIX.comm_groups.json ({\"id\": [ranks...]}).",
		opts, NULL, 1, 1, "WORKLOAD.txt"
	};
	const char **args;
	int nargs, prc = tool_parse(&cmd, argc, argv, &args, &nargs);
	if (prc != TOOL_PARSED)
		return prc == TOOL_HELP_SHOWN ? 0 : prc;
	in = args[0];
	free(args);
	if (gen_cli_check(&cli, argv[0], 1u << 20) < 0)
		return 2;
	if (!passes || passes > 1000000)
		return tool_usage(argv[0], "--passes must be 1..1000000");
	if (!(ghz > 0) || !(cscale >= 0) || !(mscale >= 0) || isinf(ghz) || isinf(cscale) ||
	    isinf(mscale))
		return tool_usage(argv[0], "--ghz must be > 0 and the scales >= 0 (finite)");
	chakra_gen_options o;
	tool_progress pr;
	gen_cli_options(&cli, &o, &pr);
	chakra_gen_text_options t = CHAKRA_GEN_TEXT_OPTIONS_INIT;
	t.passes = (uint32_t)passes;
	t.ghz = ghz;
	t.compute_scale = cscale;
	t.comm_scale = mscale;
	t.strong_scaling = strong;
	return chakra_gen_text(in, cli.out, &o, &t) < 0 ? 1 : 0;
}
