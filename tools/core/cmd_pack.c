/* SPDX-License-Identifier: Apache-2.0 */
/* chakra pack JSON -o TRACE.et [--gzip]: JSON (jsonize's form, protobuf's
 * JSON mapping, or Chakra's workload_graph JSON) back to a Chakra ET. The
 * parsing is the jsonet module's (chakra_jsonet_pack). */
#define CHAKRA_EXPERIMENTAL
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chakra/experimental/jsonet.h"
#include "common.h"
#include "opts.h"

/* The JSON comes from a FILE (stdin or the opened path). */
static long read_file(void *data, void *buf, size_t cap)
{
	FILE *f = data;
	size_t n = fread(buf, 1, cap, f);
	return n == 0 && ferror(f) ? -1 : (long)n;
}

int cmd_pack(int argc, char **argv)
{
	const char *out = NULL;
	int gzip = 0, force = 0;
	const tool_option opts[] = {
		{ "-o, --output", "FILE", TOOL_STR, &out, NULL, "the trace to write (required)" },
		{ "-f, --force", NULL, TOOL_FLAG, &force, NULL,
		  "replace FILE if it exists (never when it is the input)" },
		{ "--gzip", NULL, TOOL_FLAG, &gzip, NULL, "gzip the output" },
		{ NULL, NULL, 0, NULL, NULL, NULL },
	};
	const tool_command cmd = {
		"JSON -o TRACE.et [-f] [--gzip]",
		"Turn JSON into a Chakra ET. JSON is one of:\n"
		"  - what 'chakra jsonize' writes (the result has the identical bytes of\n"
		"    the original trace);\n"
		"  - protobuf's JSON mapping, as Chakra's chakra_jsonizer and 'chakra\n"
		"    jsonize --protobuf-json' write it: the GlobalMetadata object, then\n"
		"    one object per Node, back to back or in one array (camelCase or\n"
		"    original field names, integers as numbers or strings);\n"
		"  - Chakra's \"workload_graph\" JSON (keys Id, Name, NodeType, ctrlDeps,\n"
		"    data_deps, runtime; other node keys become attributes, other\n"
		"    top-level keys metadata attributes).\n"
		"The form is detected from the top level. A key given twice in one\n"
		"object is an error. '-' reads stdin / writes stdout. On any error\n"
		"nothing is written.",
		opts, NULL, 1, 1, "JSON input"
	};
	const char **args;
	int nargs, prc = tool_parse(&cmd, argc, argv, &args, &nargs);
	if (prc != TOOL_PARSED)
		return prc == TOOL_HELP_SHOWN ? 0 : prc;
	const char *in = args[0];
	free(args);
	if (!out)
		return tool_usage(argv[0], "missing -o TRACE.et");
	const char *inputs[] = { in };
	int is_stdin = !strcmp(in, "-");
	if (tool_input_missing(in))
		return 1;
	FILE *f = is_stdin ? stdin : fopen(in, "rb");
	if (!f)
		return tool_err("%s: cannot open: %s", in, strerror(errno));
	tool_out o;
	if (tool_out_open(&o, out, force, inputs, 1) < 0) {
		if (!is_stdin)
			fclose(f);
		return 1;
	}
	chakra_jsonet_options po = CHAKRA_JSONET_OPTIONS_INIT;
	po.gzip = gzip;
	po.in_name = is_stdin ? "<stdin>" : in;
	po.out_name = out;
	chakra_jsonet_result res;
	int rc = chakra_jsonet_pack(read_file, f, tool_out_write_cb, &o, &po, &res);
	if (!is_stdin)
		fclose(f);
	if (rc < 0) {
		tool_err("%s", res.errmsg);
		tool_out_abort(&o);
		return 1;
	}
	return tool_out_commit(&o) < 0 ? 1 : 0;
}
