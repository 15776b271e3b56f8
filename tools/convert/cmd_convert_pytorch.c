/* SPDX-License-Identifier: Apache-2.0 */
/* chakra convert pytorch --et ET.json[.gz] [--kineto K.json[.gz]] -o OUT.et
 * A thin front end to chakra_convert_pytorch / chakra_convert_ranks
 * (lib/convert, docs/convert.md). */
#include <stdlib.h>
#include <string.h>

#define CHAKRA_EXPERIMENTAL
#include "chakra/experimental/convert.h"
#include "common.h"

static void usage(FILE *f)
{
	fputs("usage: chakra convert pytorch --et ET.json[.gz] [--kineto K.json[.gz]] -o OUT.et\n"
	      "                              [--gzip] [-f] [--no-io] [-q]\n"
	      "       chakra convert pytorch --et 'DIR/rank{R}.json' [--kineto 'DIR/kineto{R}.json']\n"
	      "                              -o PREFIX   (every rank R found -> PREFIX.R.et)\n\n"
	      "Convert a PyTorch execution trace (schemas 1.0.1 .. 1.1.x) to a Chakra ET: the ops a\n"
	      "simulator issues (outermost operators; labels and step annotations are transparent,\n"
	      "nested ops folded in), tensor data dependencies, program order per thread,\n"
	      "collectives and process groups. With --kineto, the Kineto trace of the same program\n"
	      "gives the ops their measured durations and adds the GPU kernels, memcpys and memsets\n"
	      "they launched, in stream order, with synchronisation. A summary goes to stderr.\n\n"
	      "options:\n"
	      "  --et PATH        the execution trace ('{R}' marks the rank: multi-rank form)\n"
	      "  --kineto PATH    a Kineto trace to link ('{R}' in the multi-rank form)\n"
	      "  -o, --output OUT output file, or PREFIX in the multi-rank form (also writes\n"
	      "                   PREFIX.comm_groups.json)\n"
	      "  --gzip           gzip the output (multi-rank: PREFIX.R.et.gz)\n"
	      "  -f, --force      replace existing outputs\n"
	      "  --no-io          leave out the ops' inputs/outputs (values, shapes, types)\n"
	      "  -q, --quiet      no summary\n",
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

int cmd_convert_pytorch(int argc, char **argv)
{
	const char *et = NULL, *kin = NULL, *out = NULL, *v;
	int quiet = 0, missing = 0;
	chakra_convert_options o;
	chakra_convert_options_init(&o, CHAKRA_CONVERT_OPTIONS_VERSION);
	for (int i = 1; i < argc; i++) {
		int r;
		if (tool_is_help(argv[i])) {
			usage(stdout);
			return 0;
		} else if ((v = tool_opt(argc, argv, &i, "--et", &missing)) || missing) {
			if (missing)
				return tool_usage(argv[0], "--et needs a file");
			et = v;
		} else if ((v = tool_opt(argc, argv, &i, "--kineto", &missing)) || missing) {
			if (missing)
				return tool_usage(argv[0], "--kineto needs a file");
			kin = v;
		} else if ((r = tool_output_opt(argc, argv, &i, &out)) != 0) {
			if (r < 0)
				return 2;
		} else if (!strcmp(argv[i], "--gzip")) {
			o.gzip = 1;
		} else if (!strcmp(argv[i], "-f") || !strcmp(argv[i], "--force")) {
			o.overwrite = 1;
		} else if (!strcmp(argv[i], "--no-io")) {
			o.keep_io = 0;
		} else if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet")) {
			quiet = 1;
		} else {
			return tool_usage(argv[0], "unexpected argument '%s'", argv[i]);
		}
	}
	if (!et)
		return tool_usage(argv[0], "--et ET.json is required");
	if (!out)
		return tool_usage(argv[0], "-o OUT is required");
	int multi = strstr(et, "{R}") != NULL;
	if (!multi && kin && strstr(kin, "{R}"))
		return tool_usage(argv[0], "--kineto names ranks with {R} but --et does not");
	chakra_convert_result res;
	int rc;
	if (multi) {
		return convert_ranks(et, kin, out, &o, quiet);
	}
	const char *ins[2] = { et, kin };
	if (tool_check_output(out, ins, kin ? 2 : 1) < 0)
		return 1;
	o.kineto_path = kin;
	rc = chakra_convert_pytorch(et, out, &o, &res);
	if (rc < 0)
		return tool_err("%s", res.errmsg);
	if (!quiet)
		chakra_convert_summary_print(&res.summary, stderr);
	return 0;
}
