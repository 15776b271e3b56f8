/* chakra validate [--strict] [--deep] TRACE...: framing, decoding and
 * dependency checks (trace_check.c), one line per problem. */
#include <string.h>

#include "common.h"
#include "trace_check.h"

static int help(void)
{
	puts("usage: chakra validate [--strict] [--deep] [--max-warnings N] TRACE...\n\n"
	     "Check Chakra ET files: framing and decoding, duplicate ids, data\n"
	     "dependencies on ids not in the file, nodes that depend on themselves,\n"
	     "and data-dependency cycles (one cycle shown per group of mutually\n"
	     "dependent nodes). One line per problem:\n"
	     "  FILE:BYTE_OFFSET: node ID: what is wrong\n"
	     "where BYTE_OFFSET is where the node's message starts (uncompressed).\n"
	     "Control dependencies on absent ids and nodes listing themselves in\n"
	     "ctrl_deps are common in real traces: warnings, unless --strict.\n"
	     "Exit status: 0 when no file has an error, 1 otherwise.\n\n"
	     "  --strict            control-dependency problems are errors\n"
	     "  --deep              also decode every node with nanopb (the reference\n"
	     "                      decoder) and fail on any difference, and warn about\n"
	     "                      nodes whose bytes a re-write would change (unknown\n"
	     "                      fields, non-canonical values; not for stdin); slower\n"
	     "  --max-warnings N    warning lines shown per kind and file (default 10,\n"
	     "                      0 = all); the counts are always exact");
	return 0;
}

int cmd_validate(int argc, char **argv)
{
	check_opts o = { 0, 0, 10 };
	int missing, nfiles = 0, status = 0;
	const char *v;
	for (int i = 1; i < argc; i++) {
		if (tool_is_help(argv[i]))
			return help();
		if (!strcmp(argv[i], "--strict"))
			o.strict = 1;
		else if (!strcmp(argv[i], "--deep"))
			o.deep = 1;
		else if ((v = tool_opt(argc, argv, &i, "--max-warnings", &missing)) || missing) {
			if (missing)
				return tool_usage(argv[0], "--max-warnings needs a number");
			if (tool_parse_u64("--max-warnings", v, &o.max_warn) < 0)
				return 2;
		} else if (argv[i][0] == '-' && argv[i][1])
			return tool_usage(argv[0], "unknown option '%s'", argv[i]);
		else
			nfiles++;
	}
	if (!nfiles)
		return tool_usage(argv[0], "missing TRACE");
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--max-warnings")) {
			i++;
			continue;
		}
		if (argv[i][0] == '-' && argv[i][1])
			continue;
		check_result r;
		if (trace_check(argv[i], &o, stdout, &r))
			status = 1;
	}
	if (fflush(stdout) != 0)
		return tool_err("cannot write the report");
	return status;
}
