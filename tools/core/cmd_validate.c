/* chakra validate [--strict] [--deep] TRACE...: framing, decoding and
 * dependency checks (trace_check.c), one line per problem. */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "trace_check.h"

static int help(void)
{
	puts("usage: chakra validate [--strict] [--deep] [--max-warnings N] [--max-errors N]\n"
	     "                       TRACE...\n\n"
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
	     "                      0 = all); the counts are always exact\n"
	     "  --max-errors N      error lines shown per file (default 100, 0 = all);\n"
	     "                      the counts are exact, except that reading a file\n"
	     "                      stops once its duplicate ids reach N (an endless or\n"
	     "                      repetitive input such as /dev/zero)");
	return 0;
}

int cmd_validate(int argc, char **argv)
{
	check_opts o = { 0, 0, 10, 100 };
	int missing, nfiles = 0, status = 0;
	const char *v;
	const char **files = calloc((size_t)argc, sizeof *files);
	if (!files)
		return tool_err("out of memory");
	for (int i = 1; i < argc; i++) {
		if (tool_is_help(argv[i])) {
			free(files);
			return help();
		}
		if (!strcmp(argv[i], "--strict"))
			o.strict = 1;
		else if (!strcmp(argv[i], "--deep"))
			o.deep = 1;
		else if ((v = tool_opt(argc, argv, &i, "--max-warnings", &missing)) || missing) {
			if (missing || tool_parse_u64("--max-warnings", v, &o.max_warn) < 0) {
				free(files);
				return missing ? tool_usage(argv[0], "--max-warnings needs a number") : 2;
			}
		} else if ((v = tool_opt(argc, argv, &i, "--max-errors", &missing)) || missing) {
			if (missing || tool_parse_u64("--max-errors", v, &o.max_errors) < 0) {
				free(files);
				return missing ? tool_usage(argv[0], "--max-errors needs a number") : 2;
			}
		} else if (argv[i][0] == '-' && argv[i][1]) {
			free(files);
			return tool_usage(argv[0], "unknown option '%s'", argv[i]);
		} else
			files[nfiles++] = argv[i];
	}
	if (!nfiles) {
		free(files);
		return tool_usage(argv[0], "missing TRACE");
	}
	for (int k = 0; k < nfiles; k++) {
		check_result r;
		if (trace_check(files[k], &o, stdout, &r))
			status = 1;
	}
	free(files);
	if (fflush(stdout) != 0)
		return tool_err("cannot write the report");
	return status;
}
