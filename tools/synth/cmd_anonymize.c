/* SPDX-License-Identifier: Apache-2.0 */
/* chakra anonymize TRACE -o OUT: names -> op classes, identifying
 * attributes dropped, graph kept (lib/synth/anonymize.c). */
#define CHAKRA_EXPERIMENTAL
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chakra/experimental/synth.h"
#include "common.h"
#include "opts.h"

int cmd_anonymize(int argc, char **argv)
{
	const char *out = NULL;
	chakra_synth_anonymize_options o = CHAKRA_SYNTH_ANONYMIZE_OPTIONS_INIT;
	const tool_option opts[] = {
		{ "-o, --output", "OUT", TOOL_STR, &out, NULL, "the anonymized trace (required)" },
		{ "--perturb", "X", TOOL_DOUBLE, &o.perturb, NULL,
		  "multiply durations and sizes by a factor in\n"
		  "[1-X, 1+X] (X <= 0.5; a message size gets the\n"
		  "same factor on every rank)" },
		{ "--seed", "S", TOOL_U64, &o.seed, NULL, "seed of the perturbation (default 0)" },
		{ "--gzip", NULL, TOOL_FLAG, &o.gzip, NULL, "gzip the output" },
		{ "-f, --force", NULL, TOOL_FLAG, &o.overwrite, NULL, "replace OUT if it exists" },
		{ NULL, NULL, 0, NULL, NULL, NULL },
	};
	const tool_command cmd = {
		"TRACE -o OUT [--perturb X] [--seed S] [--gzip] [-f]",
		"Write TRACE with every node name replaced by its op class (gpu.gemm,\n"
		"cpu.elementwise, ALL_REDUCE, ...), inputs/outputs and metadata attributes\n"
		"dropped, and only the attributes a simulator reads kept (is_cpu_op,\n"
		"comm_*, involved_dim, num_ops, tensor_size, duration_nanos, and pg_name\n"
		"when it is a group number). Ids, types, times and dependencies are kept.",
		opts, NULL, 1, 1, "TRACE"
	};
	const char **args;
	int nargs, prc = tool_parse(&cmd, argc, argv, &args, &nargs);
	if (prc != TOOL_PARSED)
		return prc == TOOL_HELP_SHOWN ? 0 : prc;
	const char *in = args[0];
	free((void *)args);
	if (!(o.perturb >= 0 && o.perturb <= 0.5))
		return tool_usage(argv[0], "--perturb needs a number in [0, 0.5]");
	if (!out)
		return tool_usage(argv[0], "missing -o OUT");
	if (tool_check_output(out, &in, 1) < 0)
		return 1;
	chakra_synth_anonymize_stats st;
	char err[1024];
	if (chakra_synth_anonymize(in, out, &o, &st, err, sizeof err) < 0)
		return tool_err("%s%s", err, strstr(err, ": exists (") ? " (use -f to replace it)" : "");
	fprintf(stderr,
	        "%s: %llu nodes, %llu names replaced, %llu attributes dropped, inputs/outputs of %llu "
	        "nodes dropped%s\n",
	        out, (unsigned long long)st.nodes, (unsigned long long)st.names,
	        (unsigned long long)st.attrs_dropped, (unsigned long long)st.io_dropped,
	        st.pg_dropped ? " (including pg_name values that were not group numbers)" : "");
	return 0;
}
