/* chakra pack JSON -o TRACE.et [--gzip]: JSON (jsonize's form, or Chakra's
 * workload_graph JSON) back to a Chakra ET. The parsing lives in json_in.c. */
#include <errno.h>
#include <string.h>

#include "common.h"
#include "json_in.h"

static int help(void)
{
	puts("usage: chakra pack JSON -o TRACE.et [--gzip]\n\n"
	     "Turn JSON into a Chakra ET. JSON is either what 'chakra jsonize' writes\n"
	     "(the result has the identical bytes of the original trace) or Chakra's\n"
	     "\"workload_graph\" JSON (keys Id, Name, NodeType, ctrlDeps, data_deps,\n"
	     "runtime; other node keys become attributes, other top-level keys\n"
	     "metadata attributes). The form is detected from the top-level keys.\n"
	     "'-' reads stdin / writes stdout. On any error nothing is written.\n\n"
	     "  -o, --output FILE   the trace to write (required; replaced if it exists,\n"
	     "                      but never when it is the input)\n"
	     "  --gzip              gzip the output");
	return 0;
}

int cmd_pack(int argc, char **argv)
{
	const char *in = NULL, *out = NULL;
	int gzip = 0;
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
	if (tool_check_output(out, inputs, 1) < 0)
		return 1;
	int is_stdin = !strcmp(in, "-");
	FILE *f = is_stdin ? stdin : fopen(in, "rb");
	if (!f)
		return tool_err("%s: cannot open: %s", in, strerror(errno));
	int rc = json_pack(f, is_stdin ? "<stdin>" : in, out, gzip, NULL);
	if (!is_stdin)
		fclose(f);
	return rc;
}
