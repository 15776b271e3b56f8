/* SPDX-License-Identifier: Apache-2.0 */
/* chakra anonymize TRACE -o OUT: names -> op classes, identifying
 * attributes dropped, graph kept (lib/synth/anonymize.c). */
#define CHAKRA_EXPERIMENTAL
#include <stdio.h>
#include <string.h>

#include "chakra/experimental/synth.h"
#include "common.h"

static int help(void)
{
	puts("usage: chakra anonymize TRACE -o OUT [--perturb X] [--seed S] [--gzip] [-f]\n\n"
	     "Write TRACE with every node name replaced by its op class (gpu.gemm,\n"
	     "cpu.elementwise, ALL_REDUCE, ...), inputs/outputs and metadata attributes\n"
	     "dropped, and only the attributes a simulator reads kept (is_cpu_op,\n"
	     "comm_*, involved_dim, num_ops, tensor_size, duration_nanos, and pg_name\n"
	     "when it is a group number). Ids, types, times and dependencies are kept.\n\n"
	     "options:\n"
	     "  --perturb X   multiply durations and sizes by a factor in [1-X, 1+X]\n"
	     "                (X <= 0.5; a message size gets the same factor on every rank)\n"
	     "  --seed S      seed of the perturbation (default 0)\n"
	     "  --gzip        gzip the output\n"
	     "  -f, --force   replace OUT if it exists");
	return 0;
}

int cmd_anonymize(int argc, char **argv)
{
	const char *in = NULL, *out = NULL, *v;
	chakra_synth_anonymize_options o = CHAKRA_SYNTH_ANONYMIZE_OPTIONS_INIT;
	int missing, r;
	for (int i = 1; i < argc; i++) {
		if (tool_is_help(argv[i]))
			return help();
		if ((r = tool_output_opt(argc, argv, &i, &out)) != 0) {
			if (r < 0)
				return 2;
		} else if (!strcmp(argv[i], "-f") || !strcmp(argv[i], "--force")) {
			o.overwrite = 1;
		} else if (!strcmp(argv[i], "--gzip")) {
			o.gzip = 1;
		} else if ((v = tool_opt(argc, argv, &i, "--perturb", &missing)) || missing) {
			if (missing || tool_parse_double("--perturb", v, &o.perturb) < 0 ||
			    !(o.perturb >= 0 && o.perturb <= 0.5))
				return tool_usage(argv[0], "--perturb needs a number in [0, 0.5]");
		} else if ((v = tool_opt(argc, argv, &i, "--seed", &missing)) || missing) {
			if (missing || tool_parse_u64("--seed", v, &o.seed) < 0)
				return tool_usage(argv[0], "--seed needs a number");
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return tool_usage(argv[0], "unknown option '%s'", argv[i]);
		} else if (!in) {
			in = argv[i];
		} else {
			return tool_usage(argv[0], "one TRACE only ('%s')", argv[i]);
		}
	}
	if (!in)
		return tool_usage(argv[0], "missing TRACE");
	if (!out)
		return tool_usage(argv[0], "missing -o OUT");
	if (tool_check_output(out, &in, 1) < 0)
		return 1;
	chakra_synth_anonymize_stats st;
	char err[1024];
	if (chakra_synth_anonymize(in, out, &o, &st, err, sizeof err) < 0)
		return tool_err("%s%s", err, strstr(err, "exist") ? " (use -f to replace it)" : "");
	fprintf(stderr,
	        "%s: %llu nodes, %llu names replaced, %llu attributes dropped, inputs/outputs of %llu "
	        "nodes dropped%s\n",
	        out, (unsigned long long)st.nodes, (unsigned long long)st.names,
	        (unsigned long long)st.attrs_dropped, (unsigned long long)st.io_dropped,
	        st.pg_dropped ? " (including pg_name values that were not group numbers)" : "");
	return 0;
}
