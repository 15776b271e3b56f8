/* SPDX-License-Identifier: Apache-2.0 */
/* chakra convert kineto K.json[.gz] -o OUT.et [--step N | --annotation NAME
 * [--instance K] [--to-next]]
 * A thin front end to chakra_convert_kineto / chakra_convert_ranks
 * (lib/convert, docs/convert.md). */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "opts.h"
#include "run.h"

int cmd_convert_kineto(int argc, char **argv)
{
	const char *out = NULL, *annotation = NULL;
	uint64_t step = UINT64_MAX, instance = 0;
	int quiet = 0, gzip = 0, force = 0, to_next = 0;
	const tool_option opts[] = {
		{ "-o, --output", "OUT", TOOL_STR, &out, NULL,
		  "output file, or PREFIX in the multi-rank form" },
		{ "--step", "N", TOOL_U64, &step, NULL, "only the ops of ProfilerStep#N" },
		{ "--annotation", "NAME", TOOL_STR, &annotation, NULL,
		  "only the ops inside that user annotation" },
		{ "--instance", "K", TOOL_U64, &instance, NULL,
		  "its K-th occurrence in time order (0 = first)" },
		{ "--to-next", NULL, TOOL_FLAG, &to_next, NULL,
		  "the window ends where the next occurrence of the\n"
		  "annotation starts (one iteration of a loop marked by a\n"
		  "repeated annotation, e.g. Optimizer.zero_grad#SGD.zero_grad)" },
		{ "--gzip", NULL, TOOL_FLAG, &gzip, NULL, "gzip the output" },
		{ "-f, --force", NULL, TOOL_FLAG, &force, NULL, "replace existing outputs" },
		{ "-q, --quiet", NULL, TOOL_FLAG, &quiet, NULL, "no summary" },
		{ NULL, NULL, 0, NULL, NULL, NULL },
	};
	const tool_command cmd = {
		"K.json[.gz] -o OUT.et [--step N | --annotation NAME [--instance K] [--to-next]]\n"
		"                             [--gzip] [-f] [-q]\n"
		"       chakra convert kineto 'DIR/kineto{R}.json' -o PREFIX   (every rank R found)",
		"Convert a Kineto trace alone to a Chakra ET: each CPU thread's top-level ops, cut at\n"
		"the runtime calls that launch GPU work or wait for it, the kernels, memcpys and\n"
		"memsets on their streams (NCCL kernels as collectives), with launch, stream-order,\n"
		"synchronisation and cross-thread dependencies and the measured times (ns\n"
		"precision). One iteration (ProfilerStep#N, an annotation's span, or from an\n"
		"annotation to its next occurrence) or the whole trace; annotations are kept in the\n"
		"metadata, never as nodes. A summary goes to stderr (docs/convert.md).",
		opts, NULL, 1, 1, "Kineto trace"
	};
	const char **args;
	int nargs, prc = tool_parse(&cmd, argc, argv, &args, &nargs);
	if (prc != TOOL_PARSED)
		return prc == TOOL_HELP_SHOWN ? 0 : prc;
	const char *in = args[0];
	free((void *)args);
	if (!out)
		return tool_usage(argv[0], "-o OUT is required");
	if (step != UINT64_MAX && annotation)
		return tool_usage(argv[0], "--step and --annotation exclude each other");
	if (step != UINT64_MAX && step > INT64_MAX)
		return tool_usage(argv[0], "--step %llu: too large", (unsigned long long)step);
	if (instance && !annotation)
		return tool_usage(argv[0], "--instance goes with --annotation");
	if (instance > 1000000000)
		return tool_usage(argv[0], "--instance %llu: too large", (unsigned long long)instance);
	if (to_next && !annotation)
		return tool_usage(argv[0], "--to-next goes with --annotation");
	chakra_convert_options o;
	chakra_convert_options_init(&o, CHAKRA_CONVERT_OPTIONS_VERSION);
	o.step = step == UINT64_MAX ? -1 : (int64_t)step;
	o.annotation = annotation;
	o.instance = (unsigned)instance;
	o.to_next = to_next;
	o.gzip = gzip;
	o.overwrite = force;
	return tool_convert_run(NULL, in, out, &o, force, quiet);
}
