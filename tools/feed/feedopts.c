/* Feeder options on the command line (see feedopts.h). */
#include <string.h>

#include "feedopts.h"

int feedopt_parse(const char *cmd, int argc, char **argv, int *i, chakra_feeder_options *o)
{
	const char *v;
	int missing;
	if ((v = tool_opt(argc, argv, i, "--deps", &missing)) || missing) {
		if (v && !strcmp(v, "data"))
			o->deps = CHAKRA_DEPS_DATA;
		else if (v && !strcmp(v, "ctrl"))
			o->deps = CHAKRA_DEPS_CTRL;
		else if (v && !strcmp(v, "both"))
			o->deps = CHAKRA_DEPS_BOTH;
		else
			return tool_usage(cmd, "--deps takes data, ctrl or both"), -1;
		return 1;
	}
	if ((v = tool_opt(argc, argv, i, "--order", &missing)) || missing) {
		if (v && !strcmp(v, "id"))
			o->order = CHAKRA_ORDER_ID;
		else if (v && !strcmp(v, "file"))
			o->order = CHAKRA_ORDER_FILE;
		else
			return tool_usage(cmd, "--order takes id or file"), -1;
		return 1;
	}
	if ((v = tool_opt(argc, argv, i, "--window", &missing)) || missing) {
		if (!v)
			return tool_usage(cmd, "--window needs a node count"), -1;
		if (tool_parse_u64("--window", v, &o->window) < 0)
			return -1;
		return 1;
	}
	if (!strcmp(argv[*i], "--strict")) {
		o->strict = 1;
		return 1;
	}
	return 0;
}
