/* chakra pack JSON -o TRACE.et [--gzip]: JSON (jsonize's form, protobuf's
 * JSON mapping, or Chakra's workload_graph JSON) back to a Chakra ET. The
 * parsing lives in json_in.c. */
#include <errno.h>
#include <string.h>

#include "common.h"
#include "json_in.h"

static int help(void)
{
	puts("usage: chakra pack JSON -o TRACE.et [-f] [--gzip]\n\n"
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
	     "nothing is written.\n\n"
	     "  -o, --output FILE   the trace to write (required)\n"
	     "  -f, --force         replace FILE if it exists (never when it is the input)\n"
	     "  --gzip              gzip the output");
	return 0;
}

int cmd_pack(int argc, char **argv)
{
	const char *in = NULL, *out = NULL;
	int gzip = 0, force = 0;
	for (int i = 1; i < argc; i++) {
		if (tool_is_help(argv[i]))
			return help();
		int o = tool_output_opt(argc, argv, &i, &out);
		if (o < 0)
			return 2;
		if (o)
			continue;
		if (!strcmp(argv[i], "--gzip")) {
			gzip = 1;
		} else if (!strcmp(argv[i], "-f") || !strcmp(argv[i], "--force")) {
			force = 1;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return tool_usage(argv[0], "unknown option '%s'", argv[i]);
		} else if (in) {
			return tool_usage(argv[0], "one JSON input only (got '%s' and '%s')", in, argv[i]);
		} else {
			in = argv[i];
		}
	}
	if (!in)
		return tool_usage(argv[0], "missing JSON input");
	if (!out)
		return tool_usage(argv[0], "missing -o TRACE.et");
	const char *inputs[] = { in };
	int is_stdin = !strcmp(in, "-");
	FILE *f = is_stdin ? stdin : fopen(in, "rb");
	if (!f)
		return tool_err("%s: cannot open: %s", in, strerror(errno));
	tool_out o;
	if (tool_out_open(&o, out, force, inputs, 1) < 0) {
		if (!is_stdin)
			fclose(f);
		return 1;
	}
	json_pack_out po = { tool_out_write_cb, &o, out, gzip };
	int rc = json_pack(f, is_stdin ? "<stdin>" : in, &po, NULL);
	if (!is_stdin)
		fclose(f);
	if (rc) {
		tool_out_abort(&o);
		return rc;
	}
	return tool_out_commit(&o) < 0 ? 1 : 0;
}
