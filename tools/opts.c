/* SPDX-License-Identifier: Apache-2.0 */
/* The option-table parser (opts.h). */
#include "opts.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common.h"

size_t tool_edit_distance(const char *a, const char *b, size_t cap)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 64 || lb > 64)
		return cap + 1;
	size_t row[65];
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0], best = row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t v = diag + (a[i - 1] != b[j - 1]);
			if (row[j - 1] + 1 < v)
				v = row[j - 1] + 1;
			if (up + 1 < v)
				v = up + 1;
			row[j] = v;
			diag = up;
			if (v < best)
				best = v;
		}
		if (best > cap)
			return cap + 1;
	}
	return row[lb];
}

int tool_size(const char *s, uint64_t *out)
{
	char *end;
	if (!s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	static const struct { const char *suffix; unsigned shift; } units[] = {
		{ "", 0 }, { "B", 0 },
		{ "K", 10 }, { "KB", 10 }, { "KiB", 10 },
		{ "M", 20 }, { "MB", 20 }, { "MiB", 20 },
		{ "G", 30 }, { "GB", 30 }, { "GiB", 30 },
		{ "T", 40 }, { "TB", 40 }, { "TiB", 40 },
	};
	for (size_t i = 0; i < sizeof units / sizeof *units; i++)
		if (!strcasecmp(end, units[i].suffix)) {
			unsigned sh = units[i].shift;
			if (sh && v > (UINT64_MAX >> sh))
				return -1;
			*out = (uint64_t)v << sh;
			return 0;
		}
	return -1;
}

/* Does arg name this option? Returns the length matched (its value may
 * follow after '='), or 0. */
static size_t matches(const tool_option *o, const char *arg)
{
	const char *p = o->names;
	while (*p) {
		while (*p == ' ' || *p == ',')
			p++;
		size_t n = strcspn(p, ", ");
		if (n && !strncmp(arg, p, n) && (arg[n] == 0 || (arg[n] == '=' && o->arg)))
			return n;
		p += n;
	}
	return 0;
}

/* The closest option spelling to arg, for "did you mean". */
static const char *closest(const tool_option *opts, const char *arg, char *buf, size_t cap)
{
	size_t best = 3;
	const char *found = NULL;
	for (const tool_option *o = opts; o->names; o++) {
		const char *p = o->names;
		while (*p) {
			while (*p == ' ' || *p == ',')
				p++;
			size_t n = strcspn(p, ", ");
			char name[64];
			snprintf(name, sizeof name, "%.*s", (int)n, p);
			size_t d = n > 2 ? tool_edit_distance(arg, name, 2) : 3;
			/* or the start of a longer name: --protobuf, --max */
			if (d > 2 && strlen(arg) > 3 && !strncmp(name, arg, strlen(arg)))
				d = 2;
			if (d < best || (d == best && !found)) {
				if (d <= 2) {
					best = d;
					snprintf(buf, cap, "%s", name);
					found = buf;
				}
			}
			p += n;
		}
	}
	return found;
}

static int set_value(const char *cmd, const tool_option *o, const char *opt, const char *v)
{
	char *end;
	switch (o->kind) {
	case TOOL_STR:
		*(const char **)o->out = v;
		return 0;
	case TOOL_U64: {
		errno = 0;
		unsigned long long x = *v && *v != '-' ? strtoull(v, &end, 0) : 0;
		if (!*v || *v == '-' || errno || *end)
			return tool_usage(cmd, "%s: expected a non-negative integer, got '%s'", opt, v);
		*(uint64_t *)o->out = x;
		return 0;
	}
	case TOOL_SIZE:
		if (tool_size(v, (uint64_t *)o->out) < 0)
			return tool_usage(cmd, "%s: expected a size in bytes (1048576, 64KB, 1MB, 1MiB, 2GB; "
			                  "KB/MB/GB are binary, as in ASTRA-sim), got '%s'", opt, v);
		return 0;
	case TOOL_DOUBLE: {
		errno = 0;
		double x = strtod(v, &end);
		if (!*v || errno || *end || !isfinite(x))
			return tool_usage(cmd, "%s: expected a number, got '%s'", opt, v);
		*(double *)o->out = x;
		return 0;
	}
	case TOOL_CHOICE: {
		const char *p = o->choices;
		for (int k = 0; *p; k++) {
			size_t n = strcspn(p, "|");
			if (strlen(v) == n && !strncmp(v, p, n)) {
				*(int *)o->out = k;
				return 0;
			}
			p += n + (p[n] == '|');
		}
		char list[160];
		size_t pos = 0;
		p = o->choices;
		while (*p && pos < sizeof list - 8) {
			size_t n = strcspn(p, "|");
			const char *sep = !p[n] ? "" : strchr(p + n + 1, '|') ? ", " : " or ";
			pos += (size_t)snprintf(list + pos, sizeof list - pos, "%.*s%s", (int)n, p, sep);
			p += n + (p[n] == '|');
		}
		return tool_usage(cmd, "%s: expected %s, got '%s'", opt, list, v);
	}
	}
	return tool_usage(cmd, "%s: internal error: bad option kind", opt);
}

int tool_parse(const tool_command *c, int argc, char **argv, const char ***args, int *nargs)
{
	const char *cmd = argv[0];
	const char **pos = malloc(((size_t)argc + 1) * sizeof *pos);
	*args = NULL;
	*nargs = 0;
	if (!pos) {
		tool_err("out of memory");
		return TOOL_FAILED;
	}
	int n = 0, only_args = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (only_args || a[0] != '-' || !a[1]) {
			pos[n++] = a;
			continue;
		}
		if (!strcmp(a, "--")) {
			only_args = 1;
			continue;
		}
		if (tool_is_help(a)) {
			free(pos);
			tool_help(c, cmd);
			return TOOL_HELP_SHOWN;
		}
		const tool_option *o = c->opts;
		size_t len = 0;
		for (; o && o->names; o++)
			if ((len = matches(o, a)))
				break;
		if (!o || !o->names) {
			char buf[64];
			char key[64];
			snprintf(key, sizeof key, "%.*s", (int)strcspn(a, "="), a);
			const char *near = closest(c->opts, key, buf, sizeof buf);
			free(pos);
			if (near)
				return tool_usage(cmd, "unknown option '%s' (did you mean '%s'?)", a, near);
			return tool_usage(cmd, "unknown option '%s'", a);
		}
		char opt[64];
		snprintf(opt, sizeof opt, "%.*s", (int)len, a);
		if (o->kind == TOOL_FLAG) {
			*(int *)o->out = 1;
			continue;
		}
		const char *v;
		if (a[len] == '=') {
			v = a + len + 1;
		} else if (i + 1 < argc) {
			v = argv[++i];
		} else {
			free(pos);
			return tool_usage(cmd, "%s needs a value (%s)", opt, o->arg);
		}
		if (o->kind == TOOL_LIST) {
			tool_list *l = o->out;
			const char **grown = realloc(l->v, (l->n + 1) * sizeof *grown);
			if (!grown) {
				free(pos);
				tool_err("out of memory");
				return TOOL_FAILED;
			}
			grown[l->n++] = v;
			l->v = grown;
			continue;
		}
		if (set_value(cmd, o, opt, v)) {
			free(pos);
			return TOOL_USAGE_ERROR;
		}
	}
	const char *what = c->args_name ? c->args_name : "argument";
	if (n < c->min_args) {
		free(pos);
		return tool_usage(cmd, "missing %s", what);
	}
	if (c->max_args >= 0 && n > c->max_args) {
		if (c->max_args == 0)
			tool_usage(cmd, "unexpected argument '%s'", pos[n - 1]);
		else
			tool_usage(cmd, "%s %s expected, got %d ('%s' and '%s')",
			           c->max_args == 1 ? "one" : "fewer", what, n, pos[0], pos[1]);
		free(pos);
		return TOOL_USAGE_ERROR;
	}
	*args = pos;
	*nargs = n;
	return TOOL_PARSED;
}

void tool_help(const tool_command *c, const char *name)
{
	printf("usage: %s%s %s\n", tool_cmd_prefix(name), name, c->synopsis ? c->synopsis : "");
	if (c->about)
		printf("\n%s\n", c->about);
	int any = c->opts && c->opts->names;
	printf("\n%s", any ? "options:\n" : "");
	for (const tool_option *o = c->opts; o && o->names; o++) {
		char left[64];
		int w = snprintf(left, sizeof left, "  %s%s%s", o->names, o->arg ? " " : "",
		                 o->arg ? o->arg : "");
		const char *h = o->help ? o->help : "";
		/* help lines start in column 24, or on the next line */
		if (w > 22)
			printf("%s\n%24s", left, "");
		else
			printf("%-24s", left);
		for (const char *p = h;;) {
			size_t n = strcspn(p, "\n");
			printf("%.*s\n", (int)n, p);
			if (!p[n])
				break;
			p += n + 1;
			printf("%24s", "");
		}
	}
	printf("  -h, --help            this help\n");
	if (c->more)
		printf("\n%s\n", c->more);
}
