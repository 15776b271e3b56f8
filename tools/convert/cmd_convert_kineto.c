/* SPDX-License-Identifier: Apache-2.0 */
/* chakra convert kineto K.json[.gz] -o OUT.et [--step N | --annotation NAME]
 * A thin front end to chakra_convert_kineto / chakra_convert_ranks
 * (lib/convert, docs/convert.md). */
#include <stdlib.h>
#include <string.h>

#define CHAKRA_EXPERIMENTAL
#include "chakra/experimental/convert.h"
#include "common.h"

static void usage(FILE *f)
{
	fputs("usage: chakra convert kineto K.json[.gz] -o OUT.et [--step N | --annotation NAME\n"
	      "                             [--instance K]] [--gzip] [-f] [-q]\n"
	      "       chakra convert kineto 'DIR/kineto{R}.json' -o PREFIX   (every rank R found)\n\n"
	      "Convert a Kineto trace alone to a Chakra ET: each CPU thread's top-level ops, cut at\n"
	      "the runtime calls that launch GPU work or wait for it, the kernels, memcpys and\n"
	      "memsets on their streams (NCCL kernels as collectives), with launch, stream-order\n"
	      "and synchronisation dependencies and the measured times (ns precision). One\n"
	      "iteration (ProfilerStep#N, or an annotation's span) or the whole trace; annotations\n"
	      "are kept in the metadata, never as nodes. A summary goes to stderr.\n\n"
	      "options:\n"
	      "  -o, --output OUT   output file, or PREFIX in the multi-rank form\n"
	      "  --step N           only the ops of ProfilerStep#N\n"
	      "  --annotation NAME  only the ops inside that user annotation\n"
	      "  --instance K       its K-th occurrence (0 = first)\n"
	      "  --gzip             gzip the output\n"
	      "  -f, --force        replace existing outputs\n"
	      "  -q, --quiet        no summary\n",
	      f);
}

/* The multi-rank form: every rank's summary, then what was written. */
static int convert_ranks(const char *et, const char *kin, const char *out,
                         const chakra_convert_options *o, int quiet)
{
	enum { SHOWN = 4096 };
	chakra_convert_summary *per = calloc(SHOWN, sizeof *per);
	chakra_convert_result res;
	size_t n = 0;
	if (!per)
		return tool_err("out of memory");
	int rc = chakra_convert_ranks(et, kin, out, o, &res, per, SHOWN, &n);
	if (rc < 0) {
		free(per);
		return tool_err("%s", res.errmsg);
	}
	for (size_t r = 0; r < n && r < SHOWN && !quiet; r++) {
		fprintf(stderr, "rank %zu:\n", r);
		chakra_convert_summary_print(&per[r], stderr);
	}
	if (!quiet)
		fprintf(stderr, "converted %zu rank(s): %s.0.et%s .. %s.%zu.et%s, %s.comm_groups.json\n", n,
		        out, o->gzip ? ".gz" : "", out, n - 1, o->gzip ? ".gz" : "", out);
	free(per);
	return 0;
}

int cmd_convert_kineto(int argc, char **argv)
{
	const char *in = NULL, *out = NULL, *v;
	int quiet = 0, missing = 0;
	chakra_convert_options o;
	chakra_convert_options_init(&o, CHAKRA_CONVERT_OPTIONS_VERSION);
	for (int i = 1; i < argc; i++) {
		int r;
		if (tool_is_help(argv[i])) {
			usage(stdout);
			return 0;
		} else if ((v = tool_opt(argc, argv, &i, "--step", &missing)) || missing) {
			int64_t s;
			if (missing)
				return tool_usage(argv[0], "--step needs a number");
			if (tool_parse_i64("--step", v, &s) < 0 || s < 0)
				return tool_usage(argv[0], "--step needs a step number >= 0");
			o.step = s;
		} else if ((v = tool_opt(argc, argv, &i, "--annotation", &missing)) || missing) {
			if (missing)
				return tool_usage(argv[0], "--annotation needs a name");
			o.annotation = v;
		} else if ((v = tool_opt(argc, argv, &i, "--instance", &missing)) || missing) {
			uint64_t k;
			if (missing || tool_parse_u64("--instance", v, &k) < 0 || k > 1000000000)
				return tool_usage(argv[0], "--instance needs a number");
			o.instance = (unsigned)k;
		} else if ((r = tool_output_opt(argc, argv, &i, &out)) != 0) {
			if (r < 0)
				return 2;
		} else if (!strcmp(argv[i], "--gzip")) {
			o.gzip = 1;
		} else if (!strcmp(argv[i], "-f") || !strcmp(argv[i], "--force")) {
			o.overwrite = 1;
		} else if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet")) {
			quiet = 1;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return tool_usage(argv[0], "unknown option '%s'", argv[i]);
		} else if (!in) {
			in = argv[i];
		} else {
			return tool_usage(argv[0], "one Kineto trace at a time ('%s' is extra)", argv[i]);
		}
	}
	if (!in)
		return tool_usage(argv[0], "a Kineto trace is required");
	if (!out)
		return tool_usage(argv[0], "-o OUT is required");
	if (o.step >= 0 && o.annotation)
		return tool_usage(argv[0], "--step and --annotation exclude each other");
	if (o.instance && !o.annotation)
		return tool_usage(argv[0], "--instance goes with --annotation");
	chakra_convert_result res;
	int rc;
	if (strstr(in, "{R}")) {
		return convert_ranks(NULL, in, out, &o, quiet);
	}
	const char *ins[1] = { in };
	if (tool_check_output(out, ins, 1) < 0)
		return 1;
	rc = chakra_convert_kineto(in, out, &o, &res);
	if (rc < 0)
		return tool_err("%s", res.errmsg);
	if (!quiet)
		chakra_convert_summary_print(&res.summary, stderr);
	return 0;
}
