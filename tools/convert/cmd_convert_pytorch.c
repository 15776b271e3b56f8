/* SPDX-License-Identifier: Apache-2.0 */
/* chakra convert pytorch --et ET.json[.gz] [--kineto K.json[.gz]] -o OUT.et
 * A thin front end to chakra_convert_pytorch / chakra_convert_ranks
 * (lib/convert, docs/convert.md). */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "rankpath.h"
#include "opts.h"
#include "run.h"

int cmd_convert_pytorch(int argc, char **argv)
{
	const char *et = NULL, *kin = NULL, *out = NULL;
	int quiet = 0, gzip = 0, force = 0, no_io = 0;
	const tool_option opts[] = {
		{ "--et", "PATH", TOOL_STR, &et, NULL,
		  "the execution trace ('{R}' marks the rank: the\n"
		  "multi-rank form)" },
		{ "--kineto", "PATH", TOOL_STR, &kin, NULL,
		  "a Kineto trace to link ('{R}' in the multi-rank form)" },
		{ "-o, --output", "OUT", TOOL_STR, &out, NULL,
		  "output file, or PREFIX in the multi-rank form (also\n"
		  "writes PREFIX.comm_groups.json)" },
		{ "--gzip", NULL, TOOL_FLAG, &gzip, NULL, "gzip the output (multi-rank: PREFIX.R.et.gz)" },
		{ "-f, --force", NULL, TOOL_FLAG, &force, NULL, "replace existing outputs" },
		{ "--no-io", NULL, TOOL_FLAG, &no_io, NULL,
		  "leave out the ops' inputs/outputs (values, shapes,\n"
		  "types)" },
		{ "-q, --quiet", NULL, TOOL_FLAG, &quiet, NULL, "no summary" },
		{ NULL, NULL, 0, NULL, NULL, NULL },
	};
	const tool_command cmd = {
		"--et ET.json[.gz] [--kineto K.json[.gz]] -o OUT.et\n"
		"                              [--gzip] [-f] [--no-io] [-q]\n"
		"       chakra convert pytorch --et 'DIR/rank{R}.json' [--kineto 'DIR/kineto{R}.json']\n"
		"                              -o PREFIX   (every rank R found -> PREFIX.R.et)",
		"Convert a PyTorch execution trace (schemas 1.0.1 .. 1.1.x) to a Chakra ET: the ops a\n"
		"simulator issues (outermost operators; labels and step annotations are transparent,\n"
		"nested ops folded in), tensor data dependencies, program order per thread,\n"
		"collectives and process groups. With --kineto, the Kineto trace of the same program\n"
		"gives the ops their measured durations and adds the GPU kernels, memcpys and memsets\n"
		"they launched, in stream order, with synchronisation. A summary goes to stderr.",
		opts, NULL, 0, 0, NULL
	};
	const char **args;
	int nargs, prc = tool_parse(&cmd, argc, argv, &args, &nargs);
	if (prc != TOOL_PARSED)
		return prc == TOOL_HELP_SHOWN ? 0 : prc;
	free((void *)args);
	chakra_convert_options o;
	chakra_convert_options_init(&o, CHAKRA_CONVERT_OPTIONS_VERSION);
	o.gzip = gzip;
	o.overwrite = force;
	if (no_io)
		o.keep_io = 0;
	if (!et)
		return tool_usage(argv[0], "--et ET.json is required");
	if (!out)
		return tool_usage(argv[0], "-o OUT is required");
	if (!strstr(et, CHAKRA__RANK_MARK) && kin && strstr(kin, CHAKRA__RANK_MARK))
		return tool_usage(argv[0], "--kineto names ranks with {R} but --et does not");
	return tool_convert_run(et, kin, out, &o, force, quiet);
}
