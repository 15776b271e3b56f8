/* SPDX-License-Identifier: Apache-2.0 */
/* chakra project: a workload written at another data-parallel degree
 * (lib/perf's chakra_project; docs/replay.md, "Projection"). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define CHAKRA_EXPERIMENTAL
#include "chakra/experimental/perf.h"
#include "common.h"

int cmd_project(int argc, char **argv);

static void usage(FILE *f)
{
	fprintf(f,
	"usage: chakra project PREFIX --dp M -o OUT [--tp T] [--dims D0xD1..]\n"
	"                      [--comm-group GROUPS.json] [--gzip] [-f]\n"
	"\n"
	"Writes the workload PREFIX.0.et .. at data-parallel degree M as OUT.0.et ..\n"
	"and OUT.comm_groups.json: ranks replicated (model-parallel groups of\n"
	"consecutive ranks kept, data-parallel groups grown), gradient collectives\n"
	"resized (all-gather inputs shrink; all-reduce and reduce-scatter keep their\n"
	"size) and their recorded times scaled as a ring's (n-1)/n; per-rank compute\n"
	"unchanged. The assumptions are in docs/replay.md.\n"
	"\n"
	"  --dp M            data-parallel degree of the output\n"
	"  --tp T            tensor-parallel degree: only the one the trace has (another\n"
	"                    cannot be derived from a trace: an error says why)\n"
	"  --dims D0xD1..    network shape of the output for involved_dim (default:\n"
	"                    two dimensions, near square, as chakra generate model)\n"
	"  --comm-group FILE groups of the input (default PREFIX.comm_groups.json or\n"
	"                    PREFIX.groups.json when present, and METADATA nodes)\n"
	"  --gzip            write OUT.R.et.gz\n"
	"  -f, --force       replace existing outputs\n");
}

static int parse_dims(const char *s, uint32_t *dims, int *nd)
{
	int k = 0;
	const char *p = s;
	while (*p) {
		char *end;
		unsigned long v = strtoul(p, &end, 10);
		if (end == p || v == 0 || v > (1u << 20) || k == 16 ||
		    (*end && *end != 'x' && *end != 'X') || (*end && !end[1]))
			return tool_err("--dims '%s': expected sizes like 8x8 or 4x4x2", s) ? -1 : -1;
		dims[k++] = (uint32_t)v;
		p = *end ? end + 1 : end;
	}
	if (!k)
		return tool_err("--dims: empty") ? -1 : -1;
	*nd = k;
	return 0;
}

int cmd_project(int argc, char **argv)
{
	const char *prefix = NULL, *out = NULL, *groups = NULL, *dp = NULL, *tp = NULL;
	const char *dims = NULL;
	int gzip = 0, force = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		int missing = 0, o;
		if (tool_is_help(a)) {
			usage(stdout);
			return 0;
		}
		if ((o = tool_output_opt(argc, argv, &i, &out)) < 0)
			return 2;
		if (o)
			continue;
#define OPT(name, var) \
		if ((v = tool_opt(argc, argv, &i, name, &missing)) || missing) { \
			if (missing) return tool_usage("project", "%s needs a value", name); \
			var = v; continue; }
		OPT("--dp", dp)
		OPT("--tp", tp)
		OPT("--dims", dims)
		OPT("--comm-group", groups)
#undef OPT
		if (!strcmp(a, "--gzip")) {
			gzip = 1;
			continue;
		}
		if (!strcmp(a, "-f") || !strcmp(a, "--force")) {
			force = 1;
			continue;
		}
		if (a[0] == '-' && a[1])
			return tool_usage("project", "unknown option '%s'", a);
		if (prefix)
			return tool_usage("project", "one workload prefix, not '%s' too", a);
		prefix = a;
	}
	if (!prefix || !out || !dp)
		return tool_usage("project", "PREFIX, --dp and -o are required");
	chakra_project_options o = CHAKRA_PROJECT_OPTIONS_INIT;
	uint64_t v;
	if (tool_parse_u64("--dp", dp, &v))
		return 2;
	if (v < 1 || v > (1u << 20))
		return tool_usage("project", "--dp must be in 1..%u", 1u << 20);
	o.dp = (uint32_t)v;
	if (tp) {
		if (tool_parse_u64("--tp", tp, &v))
			return 2;
		if (v < 1 || v > (1u << 20))
			return tool_usage("project", "--tp must be in 1..%u", 1u << 20);
		o.tp = (uint32_t)v;
	}
	uint32_t d[16];
	int nd = 0;
	if (dims) {
		if (parse_dims(dims, d, &nd))
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
