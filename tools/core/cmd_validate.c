/* SPDX-License-Identifier: Apache-2.0 */
/* chakra validate [--strict] [--deep] TRACE...: framing, decoding and
 * dependency checks (the check module: chakra_check_trace), one line per
 * problem. */
#define CHAKRA_EXPERIMENTAL
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chakra/experimental/check.h"
#include "common.h"
#include "hint.h"
#include "opts.h"

/* A line clears the progress bar first (a terminal's stderr). */
static void print_finding(void *data, const chakra_check_finding *f)
{
	tool_progress_end(data);
	puts(f->text);
}

static void show_progress(void *data, uint64_t offset, uint64_t nodes)
{
	tool_progress_trace(data, offset, nodes);
}

int cmd_validate(int argc, char **argv)
{
	chakra_check_options o = CHAKRA_CHECK_OPTIONS_INIT;
	int status = 0;
	const tool_option opts[] = {
		{ "--strict", NULL, TOOL_FLAG, &o.strict, NULL, "control-dependency problems are errors" },
		{ "--deep", NULL, TOOL_FLAG, &o.deep, NULL,
		  "also decode every node with nanopb (the reference\n"
		  "decoder) and fail on any difference, and warn about\n"
		  "nodes whose bytes a re-write would change (unknown\n"
		  "fields, non-canonical values; not for stdin or pipes);\n"
		  "slower" },
		{ "--max-warnings", "N", TOOL_U64, &o.max_warnings, NULL,
		  "warning lines shown per kind and file (default 10,\n"
		  "0 = all); the counts are always exact" },
		{ "--max-errors", "N", TOOL_U64, &o.max_errors, NULL,
		  "error lines shown per file (default 100, 0 = all);\n"
		  "the counts are exact, except that reading a file\n"
		  "stops once its duplicate ids reach N (an endless or\n"
		  "repetitive input such as /dev/zero)" },
		{ NULL, NULL, 0, NULL, NULL, NULL },
	};
	const tool_command cmd = {
		"[--strict] [--deep] [--max-warnings N] [--max-errors N] TRACE...",
		"Check Chakra ET files: framing and decoding, duplicate ids, data\n"
		"dependencies on ids not in the file, nodes that depend on themselves,\n"
		"and data-dependency cycles (one cycle shown per group of mutually\n"
		"dependent nodes). One line per problem:\n"
		"  FILE:BYTE_OFFSET: node ID: what is wrong\n"
		"where BYTE_OFFSET is where the node's message starts (uncompressed).\n"
		"Control dependencies on absent ids and nodes listing themselves in\n"
		"ctrl_deps are common in real traces: warnings, unless --strict.\n"
		"Exit status: 0 when no file has an error, 1 otherwise.",
		opts, NULL, 1, -1, "TRACE"
	};
	const char **files;
	int nfiles, prc = tool_parse(&cmd, argc, argv, &files, &nfiles);
	if (prc != TOOL_PARSED)
		return prc == TOOL_HELP_SHOWN ? 0 : prc;
	o.read_hint = tool_json_hint;
	o.progress = show_progress;
	for (int k = 0; k < nfiles; k++) {
		tool_progress p;
		tool_progress_start_trace(&p, strcmp(files[k], "-") ? files[k] : "<stdin>", files[k]);
		o.progress_data = &p;
		if (chakra_check_trace(files[k], &o, print_finding, &p, NULL) != 0)
			status = 1;
		tool_progress_end(&p);
	}
	free((void *)files);
	if (fflush(stdout) != 0)
		return tool_err("cannot write the report");
	return status;
}
