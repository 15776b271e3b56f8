/* SPDX-License-Identifier: Apache-2.0 */
/* `chakra`: dispatch to subcommands registered in each area's commands.def. */
#include <stdio.h>
#include <string.h>

#include "common.h"
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
#undef CMD
	{ NULL, NULL, NULL }
};

static void usage(FILE *f)
{
	fprintf(f, "usage: chakra COMMAND [ARGS...]   (chakra COMMAND --help for details)\n\n"
	           "Read, write, check, feed and simulate Chakra execution traces.\n\ncommands:\n");
	for (const struct cmd *c = cmds; c->name; c++)
		fprintf(f, "  %-20s %s\n", c->name, c->help);
	fprintf(f, "\nlibchakra %s\n", chakra_version_string());
}

int main(int argc, char **argv)
{
	if (argc < 2 || tool_is_help(argv[1])) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
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
