/* SPDX-License-Identifier: Apache-2.0 */
/* `chakra`: dispatch to subcommands registered in each area's commands.def. */
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "compat.h"
#include "opts.h"

#define CMD(name, fn, help) int fn(int argc, char **argv);
#include "core/commands.def"
#include "feed/commands.def"
#include "sim/commands.def"
#include "analyze/commands.def"
#include "gen/commands.def"
#include "convert/commands.def"
#include "perf/commands.def"
#include "synth/commands.def"
#include "predict/commands.def"
#undef CMD

static const struct cmd {
	const char *name; /* "jsonize" or two words: "bench feed" */
	tool_fn fn;
	const char *help;
} cmds[] = {
#define CMD(name, fn, help) { name, fn, help },
#include "core/commands.def"
#include "feed/commands.def"
#include "sim/commands.def"
#include "analyze/commands.def"
#include "gen/commands.def"
#include "convert/commands.def"
#include "perf/commands.def"
#include "synth/commands.def"
#include "predict/commands.def"
#undef CMD
	{ NULL, NULL, NULL }
};

static void usage(FILE *f)
{
	fprintf(f, "usage: chakra COMMAND [ARGS...]   (chakra help COMMAND, or chakra COMMAND --help)\n\n"
	           "Read, write, check, feed and simulate Chakra execution traces.\n\ncommands:\n");
	for (const struct cmd *c = cmds; c->name; c++)
		fprintf(f, "  %-20s %s\n", c->name, c->help);
	fprintf(f, "\n  %-20s %s\n  %-20s %s\n", "help [COMMAND]", "this list, or a command's help",
	        "version", "the version (also --version)");
	fprintf(f, "\nChakra's commands (chakra_converter, chakra_trace_link, chakra_jsonizer,\n"
	           "chakra_visualizer, chakra_timeline_visualizer, chakra_generator) are this program\n"
	           "under their names: docs/tools-core.md.\n");
	fprintf(f, "\nlibchakra %s\n", chakra_version_string());
}

static int dispatch(int argc, char **argv);

int main(int argc, char **argv)
{
	/* called as one of Chakra's commands (an installed link) */
	int status;
	if (argc > 0 && tool_compat(argv[0], argc, argv, &status))
		return status;
	if (argc >= 2 && !strcmp(argv[1], "version") && argc == 2) {
		printf("chakra %s\n", chakra_version_string());
		return 0;
	}
	if (argc >= 2 && !strcmp(argv[1], "help")) {
		/* chakra help [COMMAND...] = chakra [COMMAND...] --help */
		if (argc == 2) {
			usage(stdout);
			return 0;
		}
		char *v[8];
		int n = 0;
		v[n++] = argv[0];
		for (int i = 2; i < argc && n < 6; i++)
			v[n++] = argv[i];
		v[n++] = (char *)"--help";
		v[n] = NULL;
		return dispatch(n, v);
	}
	return dispatch(argc, argv);
}

static int dispatch(int argc, char **argv)
{
	int status;
	if (argc < 2 || tool_is_help(argv[1])) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	/* Chakra's spellings: `chakra convert PyTorch|Text` with its flags */
	if (argc >= 3 && !strcmp(argv[1], "convert") &&
	    (!strcmp(argv[2], "PyTorch") || !strcmp(argv[2], "Text"))) {
		argv[1] = (char *)"chakra_converter";
		tool_compat(argv[1], argc - 1, argv + 1, &status);
		return status;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("chakra %s\n", chakra_version_string());
		return 0;
	}
	tool_signals_init(); /* temporaries are removed on SIGINT, SIGTERM, ... */
	/* Two-word commands ("bench feed") first, then one word. A command
	 * gets its full name as argv[0], so that its messages and hints name
	 * it as typed ("chakra generate synthetic --help", not "chakra
	 * synthetic --help"). */
	if (argc >= 3) {
		for (const struct cmd *c = cmds; c->name; c++) {
			size_t n = strlen(argv[1]);
			if (!strncmp(c->name, argv[1], n) && c->name[n] == ' ' &&
			    !strcmp(c->name + n + 1, argv[2])) {
				argv[2] = (char *)c->name;
				tool_set_command(c->name);
				return c->fn(argc - 2, argv + 2);
			}
		}
	}
	int group = 0;
	for (const struct cmd *c = cmds; c->name; c++) {
		if (!strcmp(c->name, argv[1])) {
			tool_set_command(c->name);
			return c->fn(argc - 1, argv + 1);
		}
		size_t n = strlen(argv[1]);
		if (!strncmp(c->name, argv[1], n) && c->name[n] == ' ')
			group = 1;
	}
	if (group) {
		if (argc >= 3)
			fprintf(stderr, "chakra %s: unknown command '%s'; expected one of:\n", argv[1],
			        argv[2]);
		else
			fprintf(stderr, "chakra %s: expected one of:\n", argv[1]);
		for (const struct cmd *c = cmds; c->name; c++) {
			size_t n = strlen(argv[1]);
			if (!strncmp(c->name, argv[1], n) && c->name[n] == ' ')
				fprintf(stderr, "  %-20s %s\n", c->name, c->help);
		}
		return 2;
	}
	/* did you mean: the closest name (or group word) within 2 edits */
	const char *best = NULL;
	size_t bestd = 3;
	for (const struct cmd *c = cmds; c->name; c++) {
		char word[32];
		snprintf(word, sizeof word, "%.*s", (int)strcspn(c->name, " "), c->name);
		size_t d = tool_edit_distance(argv[1], word, 2);
		if (d < bestd) {
			bestd = d;
			best = c->name;
		}
	}
	if (best) {
		fprintf(stderr, "chakra: unknown command '%s'; did you mean '%.*s'?\n", argv[1],
		        (int)strcspn(best, " "), best);
		fprintf(stderr, "Try 'chakra --help' for the list.\n");
		return 2;
	}
	fprintf(stderr, "chakra: unknown command '%s'\n\n", argv[1]);
	usage(stderr);
	return 2;
}
