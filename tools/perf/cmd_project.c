/* SPDX-License-Identifier: Apache-2.0 */
/* chakra project: a workload written at another data-parallel degree
 * (lib/perf's chakra_project; docs/replay.md, "Projection"). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define CHAKRA_EXPERIMENTAL
#include "chakra/experimental/perf.h"
#include "common.h"
#include "opts.h"

int cmd_project(int argc, char **argv);

/* --dims: 0, or a usage error of cmd (exit status 2). */
static int parse_dims(const char *cmd, const char *s, uint32_t *dims, int *nd)
{
	int k = 0;
	const char *p = s;
	while (*p) {
		char *end;
		unsigned long v = strtoul(p, &end, 10);
		if (end == p || v == 0 || v > (1u << 20) || k == 16 ||
		    (*end && *end != 'x' && *end != 'X') || (*end && !end[1]))
			return tool_usage(cmd, "--dims '%s': expected sizes like 8x8 or 4x4x2", s);
		dims[k++] = (uint32_t)v;
		p = *end ? end + 1 : end;
	}
	if (!k)
		return tool_usage(cmd, "--dims: empty");
	*nd = k;
	return 0;
}

int cmd_project(int argc, char **argv)
{
	const char *out = NULL, *groups = NULL, *dims = NULL;
	uint64_t dp = UINT64_MAX, tp = UINT64_MAX; /* UINT64_MAX: not given */
	int gzip = 0, force = 0;
	const tool_option opts[] = {
		{ "--dp", "M", TOOL_U64, &dp, NULL, "data-parallel degree of the output" },
		{ "-o, --output", "OUT", TOOL_STR, &out, NULL,
		  "writes OUT.0.et .. and OUT.comm_groups.json" },
		{ "--tp", "T", TOOL_U64, &tp, NULL,
		  "tensor-parallel degree: only the one the trace has\n"
		  "(another cannot be derived from a trace: an error\n"
		  "says why)" },
		{ "--dims", "D0xD1..", TOOL_STR, &dims, NULL,
		  "network shape of the output for involved_dim\n"
		  "(default: two dimensions, near square, as chakra\n"
		  "generate model)" },
		{ "--comm-group", "FILE", TOOL_STR, &groups, NULL,
		  "groups of the input (default PREFIX.comm_groups.json\n"
		  "or PREFIX.groups.json when present, and METADATA\n"
		  "nodes)" },
		{ "--gzip", NULL, TOOL_FLAG, &gzip, NULL, "write OUT.R.et.gz" },
		{ "-f, --force", NULL, TOOL_FLAG, &force, NULL, "replace existing outputs" },
		{ NULL, NULL, 0, NULL, NULL, NULL },
	};
	const tool_command cmd = {
		"PREFIX --dp M -o OUT [--tp T] [--dims D0xD1..]\n"
		"                      [--comm-group GROUPS.json] [--gzip] [-f]",
		"Writes the workload PREFIX.0.et .. at data-parallel degree M as OUT.0.et ..\n"
		"and OUT.comm_groups.json: ranks replicated (model-parallel groups of\n"
		"consecutive ranks kept, data-parallel groups grown), gradient collectives\n"
		"resized (all-gather inputs shrink; all-reduce and reduce-scatter keep their\n"
		"size) and their recorded times scaled as a ring's (n-1)/n; per-rank compute\n"
		"unchanged. The assumptions are in docs/replay.md.",
		opts, NULL, 0, 1, "PREFIX"
	};
	const char **args;
	int nargs, prc = tool_parse(&cmd, argc, argv, &args, &nargs);
	if (prc != TOOL_PARSED)
		return prc == TOOL_HELP_SHOWN ? 0 : prc;
	const char *prefix = nargs ? args[0] : NULL;
	free((void *)args);
	if (!prefix || !out || dp == UINT64_MAX)
		return tool_usage(argv[0], "PREFIX, --dp and -o are required");
	chakra_project_options o = CHAKRA_PROJECT_OPTIONS_INIT;
	if (dp < 1 || dp > (1u << 20))
		return tool_usage(argv[0], "--dp must be in 1..%u", 1u << 20);
	o.dp = (uint32_t)dp;
	if (tp != UINT64_MAX) {
		if (tp < 1 || tp > (1u << 20))
			return tool_usage(argv[0], "--tp must be in 1..%u", 1u << 20);
		o.tp = (uint32_t)tp;
	}
	uint32_t d[16];
	int nd = 0;
	if (dims) {
		if (parse_dims(argv[0], dims, d, &nd))
			return 2;
		o.dims = d;
		o.ndims = nd;
	}
	o.groups_in = groups;
	o.gzip = gzip;
	o.overwrite = force;
	char err[1024];
	if (chakra_project(prefix, out, &o, err, sizeof err) < 0)
		return tool_err("%s", err);
	return 0;
}
