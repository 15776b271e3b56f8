/* SPDX-License-Identifier: Apache-2.0 */
/* One option parser for every subcommand: a command describes its options
 * in a table (spellings, argument, kind, where the value goes, help), and
 * tool_parse reads argv against it and writes --help from the same table,
 * so the help can never disagree with what is parsed.
 *
 *   static uint64_t max = 100; static int force; static const char *out = "-";
 *   static const tool_option opts[] = {
 *       { "-o, --output", "FILE", TOOL_STR, &out, NULL, "write here ('-' = stdout)" },
 *       { "-f, --force", NULL, TOOL_FLAG, &force, NULL, "replace FILE if it exists" },
 *       { "--max-errors", "N", TOOL_U64, &max, NULL, "error lines shown (0 = all)" },
 *       { NULL } };
 *   static const tool_command cmd = { "TRACE... [options]", "Check traces.", opts,
 *                                     NULL, 1, -1, "TRACE" };
 *   const char **args; int nargs;
 *   int rc = tool_parse(&cmd, argc, argv, &args, &nargs);
 *   if (rc != TOOL_PARSED) return rc == TOOL_HELP_SHOWN ? 0 : rc;
 *   ... free(args);
 *
 * Errors name the command as typed ("chakra generate synthetic: ..."),
 * say what was expected, and end with "Try 'chakra CMD --help'."; exit
 * status 2. */
#ifndef CHAKRA_TOOLS_OPTS_H
#define CHAKRA_TOOLS_OPTS_H

#include <stddef.h>
#include <stdint.h>

enum tool_opt_kind {
	TOOL_FLAG,   /* int *: set to 1 */
	TOOL_STR,    /* const char **: the argument as given */
	TOOL_U64,    /* uint64_t *: a non-negative integer */
	TOOL_SIZE,   /* uint64_t *: bytes, with an optional suffix: 64KB, 1MB, 1MiB, 2GB
	              * (binary multiples, as ASTRA-sim's folder names use: 1MB = 2^20) */
	TOOL_DOUBLE, /* double *: a finite number */
	TOOL_CHOICE, /* int *: the index of the argument among choices "a|b|c" */
	TOOL_LIST    /* tool_list *: every value, in order (the option may be
	              * repeated); the caller frees ->v, whatever tool_parse returns */
};

/* The values of a TOOL_LIST option: pointers into argv. Start from { NULL, 0 }. */
typedef struct tool_list {
	const char **v;
	size_t n;
} tool_list;

typedef struct tool_option {
	const char *names;   /* "-o, --output" or "--deps": every spelling, comma-separated */
	const char *arg;     /* the argument's name in the help ("FILE"); NULL for a flag */
	int kind;            /* enum tool_opt_kind */
	void *out;           /* where the value goes (see the kinds) */
	const char *choices; /* TOOL_CHOICE: "data|ctrl|both" */
	const char *help;    /* one line, or several separated by '\n' */
} tool_option;

typedef struct tool_command {
	const char *synopsis; /* after "usage: chakra NAME " */
	const char *about;    /* paragraphs between the usage line and the options */
	const tool_option *opts; /* ends with { NULL } */
	const char *more;     /* text after the options, or NULL */
	int min_args, max_args; /* positional arguments (max -1: any number) */
	const char *args_name;  /* their name in messages: "TRACE" */
} tool_command;

/* tool_parse's results; the others than TOOL_HELP_SHOWN are exit statuses
 * (TOOL_FAILED: out of memory, printed). */
enum { TOOL_PARSED = 0, TOOL_FAILED = 1, TOOL_USAGE_ERROR = 2, TOOL_HELP_SHOWN = 3 };

/* Parse argv[1..] (argv[0] is the command): options anywhere ("--name
 * VALUE", "--name=VALUE", "-o VALUE"), "--" ends them, "-" is a positional
 * argument (stdin/stdout). *args gets the positional arguments (a
 * malloc'ed array the caller frees; NULL on anything but TOOL_PARSED). */
int tool_parse(const tool_command *c, int argc, char **argv, const char ***args, int *nargs);

/* Write the help of c for command name (stdout for --help). */
void tool_help(const tool_command *c, const char *name);

/* A size in bytes ("1048576", "1MB", "1MiB", "64 KB" without the space):
 * 0, or -1 (nothing printed). */
int tool_size(const char *s, uint64_t *out);

/* Levenshtein distance of a and b, at most cap (cap + 1 means "more"). */
size_t tool_edit_distance(const char *a, const char *b, size_t cap);

#endif
