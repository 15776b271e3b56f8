/* chakra jsonize TRACE [-o OUT.json] [--pretty]: the whole trace as JSON,
 * streamed one node at a time (memory does not grow with the trace). */
#include <string.h>

#include "common.h"
#include "json_out.h"

static int help(void)
{
	puts("usage: chakra jsonize TRACE [-o OUT.json] [--pretty]\n\n"
	     "Write every field of a Chakra ET (plain or gzip; '-' = stdin) as JSON:\n"
	     "metadata version and attributes, then one object per node with every\n"
	     "field, inputs/outputs when present and every attribute with its kind.\n"
	     "'chakra pack' turns the JSON back into the identical bytes.\n\n"
	     "  -o, --output FILE   write here instead of stdout ('-' = stdout)\n"
	     "  --pretty            indent the output (default: one node per line)");
	return 0;
}

int cmd_jsonize(int argc, char **argv)
{
	const char *in = NULL, *out = "-";
	int pretty = 0;
	for (int i = 1; i < argc; i++) {
		if (tool_is_help(argv[i]))
			return help();
		int o = tool_output_opt(argc, argv, &i, &out);
		if (o < 0)
			return 2;
		if (o)
			continue;
		if (!strcmp(argv[i], "--pretty")) {
			pretty = 1;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return tool_usage(argv[0], "unknown option '%s'", argv[i]);
		} else if (in) {
			return tool_usage(argv[0], "one TRACE only (got '%s' and '%s')", in, argv[i]);
		} else {
			in = argv[i];
		}
	}
	if (!in)
		return tool_usage(argv[0], "missing TRACE");
	const char *inputs[] = { in };
	if (tool_check_output(out, inputs, 1) < 0)
		return 1;

	chakra_reader *r;
	if (chakra_reader_open(&r, in, NULL) < 0) {
		tool_err("%s", chakra_reader_errmsg(r));
		chakra_reader_close(r);
		return 1;
	}
	FILE *f = tool_fopen_out(out);
	if (!f) {
		chakra_reader_close(r);
		return 1;
	}
	json_out o = { 0 };
	int rc = 0, status = 0;
	tool_progress p;
	tool_progress_start(&p, "jsonize", 0);
	if (json_out_begin(&o, f, pretty, chakra_reader_metadata(r)) < 0) {
		status = tool_err("%s: cannot write JSON", out);
	} else {
		const chakra_node *n;
		while ((rc = chakra_reader_next(r, &n)) > 0) {
			if (json_out_node(&o, n) < 0)
				break;
			tool_progress_update(&p, chakra_reader_node_count(r));
		}
		tool_progress_end(&p);
		if (rc < 0)
			status = tool_err("%s", chakra_reader_errmsg(r));
		else if (json_out_end(&o) < 0)
			status = 1; /* reported by tool_fclose_out below */
	}
	json_out_free(&o);
	if (tool_fclose_out(f, out) < 0)
		status = 1;
	/* Never leave a JSON file that looks complete but is not. */
	if (status && strcmp(out, "-"))
		remove(out);
	chakra_reader_close(r);
	return status;
}
