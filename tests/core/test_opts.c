/* SPDX-License-Identifier: Apache-2.0 */
/* The tools' option parser (tools/opts.c), called directly: every kind,
 * the repeatable TOOL_LIST in order, values that look like options, "--",
 * and the usage errors' exit status. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "opts.h"

static int flag, choice;
static const char *str;
static uint64_t u, size;
static double d;
static tool_list list, other;

static const tool_option opts[] = {
	{ "-f, --flag", NULL, TOOL_FLAG, &flag, NULL, "a flag" },
	{ "-s, --str", "S", TOOL_STR, &str, NULL, "a string" },
	{ "--u", "N", TOOL_U64, &u, NULL, "a count" },
	{ "--size", "BYTES", TOOL_SIZE, &size, NULL, "a size" },
	{ "--d", "X", TOOL_DOUBLE, &d, NULL, "a number" },
	{ "--choice", "a|b|c", TOOL_CHOICE, &choice, "a|b|c", "a choice" },
	{ "-l, --list", "V", TOOL_LIST, &list, NULL, "repeatable" },
	{ "--other", "V", TOOL_LIST, &other, NULL, "another list" },
	{ NULL, NULL, 0, NULL, NULL, NULL },
};
static const tool_command cmd = { "[options] ARG...", "Test.", opts, NULL, 0, -1, "ARG" };

static void reset(void)
{
	free(list.v);
	free(other.v);
	memset(&list, 0, sizeof list);
	memset(&other, 0, sizeof other);
	flag = choice = 0;
	str = NULL;
	u = size = 0;
	d = 0;
}

/* tool_parse on a NULL-terminated argument list (argv[0] = "test"). */
static int parse(const char ***args, int *nargs, ...)
{
	static char *argv[32];
	va_list ap;
	int argc = 0;
	argv[argc++] = "test";
	va_start(ap, nargs);
	for (char *a; (a = va_arg(ap, char *)) && argc < 31;)
		argv[argc++] = a;
	va_end(ap);
	argv[argc] = NULL;
	reset();
	return tool_parse(&cmd, argc, argv, args, nargs);
}

int main(void)
{
	const char **args;
	int n;

	/* every kind, both value forms, positional arguments anywhere */
	CHECK_EQ_U(parse(&args, &n, "x", "-f", "--str=hi", "--u", "0x10", "--size", "1MB", "--d",
	                 "2.5", "--choice", "c", "y", NULL),
	           TOOL_PARSED);
	CHECK(flag == 1 && str && !strcmp(str, "hi"));
	CHECK_EQ_U(u, 16);
	CHECK_EQ_U(size, 1u << 20);
	CHECK(d == 2.5);
	CHECK_EQ_U(choice, 2);
	CHECK_EQ_U(n, 2);
	CHECK(n == 2 && !strcmp(args[0], "x") && !strcmp(args[1], "y"));
	CHECK_EQ_U(list.n, 0);
	free(args);

	/* TOOL_LIST: every value in order, whichever spelling and form; a value
	 * that looks like the option is a value; after "--" nothing is an option */
	CHECK_EQ_U(parse(&args, &n, "--list", "a", "-s", "--list", "-l=b", "--other", "o1",
	                 "--list=c", "-l", "--list", "--", "--list", "d", NULL),
	           TOOL_PARSED);
	CHECK_EQ_U(list.n, 4);
	if (list.n == 4) {
		CHECK(!strcmp(list.v[0], "a"));
		CHECK(!strcmp(list.v[1], "b"));
		CHECK(!strcmp(list.v[2], "c"));
		CHECK(!strcmp(list.v[3], "--list"));
	}
	CHECK(str && !strcmp(str, "--list"));
	CHECK_EQ_U(other.n, 1);
	CHECK(other.n == 1 && !strcmp(other.v[0], "o1"));
	CHECK(n == 2 && !strcmp(args[0], "--list") && !strcmp(args[1], "d"));
	free(args);

	/* usage errors: exit status 2, no arguments handed back; a list filled
	 * before the error is still the caller's to free (reset does) */
	int err = dup(2);
	CHECK(freopen("/dev/null", "w", stderr) != NULL);
	CHECK_EQ_U(parse(&args, &n, "--list", "a", "--list", NULL), TOOL_USAGE_ERROR);
	CHECK(args == NULL);
	CHECK_EQ_U(list.n, 1);
	CHECK_EQ_U(parse(&args, &n, "--lst", "a", NULL), TOOL_USAGE_ERROR);
	CHECK_EQ_U(parse(&args, &n, "--u", "-1", NULL), TOOL_USAGE_ERROR);
	CHECK_EQ_U(parse(&args, &n, "--size", "1XB", NULL), TOOL_USAGE_ERROR);
	CHECK_EQ_U(parse(&args, &n, "--d", "inf", NULL), TOOL_USAGE_ERROR);
	CHECK_EQ_U(parse(&args, &n, "--choice", "d", NULL), TOOL_USAGE_ERROR);
	CHECK_EQ_U(parse(&args, &n, "--flag=1", NULL), TOOL_USAGE_ERROR);
	fflush(stderr);
	dup2(err, 2);
	close(err);
	reset();
	return check_done();
}
