/* SPDX-License-Identifier: Apache-2.0 */
/* chakra synth sample MODEL.json --npus N -o PREFIX: a synthetic workload. */
#define CHAKRA_EXPERIMENTAL
#include <stdio.h>
#include <string.h>

#include "chakra/experimental/synth.h"
#include "common.h"

static int help(void)
{
	puts("usage: chakra synth sample MODEL.json --npus N -o PREFIX [options]\n\n"
	     "Write PREFIX.0.et ... PREFIX.{N-1}.et from a model of `chakra synth fit`:\n"
	     "one master sequence of collectives and compute (the same on every rank, so\n"
	     "every group issues the same collectives in the same order with the same\n"
	     "sizes), and PREFIX.comm_groups.json when the model has process groups. The\n"
	     "same model, options and seed give the same bytes.\n\n"
	     "options:\n"
	     "  --npus N          ranks (required; a multiple of the model's group sizes)\n"
	     "  --nodes K         nodes per rank (default: as in the fitted traces)\n"
	     "  --seed S          random seed (default 0)\n"
	     "  -g, --comm-group F  where to write the groups (default PREFIX.comm_groups.json)\n"
	     "  --gzip            write PREFIX.r.et.gz\n"
	     "  -f, --force       replace existing outputs");
	return 0;
}

int cmd_synth_sample(int argc, char **argv)
{
	const char *model = NULL, *out = NULL, *v;
	chakra_synth_sample_options o = CHAKRA_SYNTH_SAMPLE_OPTIONS_INIT;
	int missing, r, have_npus = 0;
	for (int i = 1; i < argc; i++) {
		uint64_t u;
		if (tool_is_help(argv[i]))
			return help();
		if ((r = tool_output_opt(argc, argv, &i, &out)) != 0) {
			if (r < 0)
				return 2;
		} else if (!strcmp(argv[i], "-f") || !strcmp(argv[i], "--force")) {
			o.overwrite = 1;
		} else if (!strcmp(argv[i], "--gzip")) {
			o.gzip = 1;
		} else if (!strcmp(argv[i], "-g") && i + 1 < argc) {
			o.comm_groups = argv[++i];
		} else if ((v = tool_opt(argc, argv, &i, "--comm-group", &missing)) || missing) {
			if (missing)
				return tool_usage(argv[0], "--comm-group needs a file");
			o.comm_groups = v;
		} else if ((v = tool_opt(argc, argv, &i, "--npus", &missing)) || missing) {
			if (missing || tool_parse_u64("--npus", v, &u) < 0 || u < 1 || u > (1u << 20))
				return tool_usage(argv[0], "--npus needs a number in 1..1048576");
			o.npus = (uint32_t)u;
			have_npus = 1;
		} else if ((v = tool_opt(argc, argv, &i, "--nodes", &missing)) || missing) {
			if (missing || tool_parse_u64("--nodes", v, &u) < 0 || u < 1)
				return tool_usage(argv[0], "--nodes needs a positive number");
			o.nodes = u;
		} else if ((v = tool_opt(argc, argv, &i, "--seed", &missing)) || missing) {
			if (missing || tool_parse_u64("--seed", v, &o.seed) < 0)
				return tool_usage(argv[0], "--seed needs a number");
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return tool_usage(argv[0], "unknown option '%s'", argv[i]);
		} else if (!model) {
			model = argv[i];
		} else {
			return tool_usage(argv[0], "one MODEL.json only ('%s')", argv[i]);
		}
	}
	if (!model)
		return tool_usage(argv[0], "missing MODEL.json");
	if (!out)
		return tool_usage(argv[0], "missing -o PREFIX");
	if (!have_npus)
		return tool_usage(argv[0], "missing --npus N");
	chakra_synth_model *m;
	char err[1024];
	if (chakra_synth_model_load(&m, model, err, sizeof err) < 0)
		return tool_err("%s", err);
	int rc = chakra_synth_sample(m, out, &o, err, sizeof err);
	chakra_synth_model_free(m);
	if (rc < 0)
		return tool_err("%s%s", err, strstr(err, "exists") ? " (use -f to replace it)" : "");
	return 0;
}
