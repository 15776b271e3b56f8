/* SPDX-License-Identifier: Apache-2.0 */
/* chakra stats: counts, bytes, durations, critical path, depth and width of
 * a trace or of every rank of a workload (PREFIX.0.et ...): the command,
 * its options and inputs; the reading is stats_scan.c, the printing
 * stats_out.c (stats.h). */
#define CHAKRA_EXPERIMENTAL
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../common.h"
#include "opts.h"
#include "hint.h"
#include "stats.h"

/* ---- inputs: one file, or PREFIX.0.et[.gz], PREFIX.1.et[.gz], ... ---- */

/* Path of rank r of prefix: 1 found (*out set), 0 neither .et nor .et.gz
 * exists, -1 one exists but is not a readable trace file (printed). */
static int rank_path(const char *prefix, size_t r, char **out)
{
	size_t len = strlen(prefix) + 48;
	char *p = malloc(len);
	if (!p) {
		tool_err("out of memory");
		return -1;
	}
	for (int gz = 0; gz < 2; gz++) {
		struct stat st;
		snprintf(p, len, "%s.%zu.et%s", prefix, r, gz ? ".gz" : "");
		if (stat(p, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			tool_err("%s: is a directory, not rank %zu's trace", p, r);
			free(p);
			return -1;
		}
		*out = p;
		return 1;
	}
	free(p);
	return 0;
}

/* The highest N of PREFIX.N.et[.gz] in PREFIX's directory, or -1: ranks
 * past a gap must not be dropped without a word. */
static long long highest_rank(const char *prefix)
{
	const char *slash = strrchr(prefix, '/');
	char *dir = slash ? strndup(prefix, (size_t)(slash - prefix) + 1) : strdup(".");
	const char *base = slash ? slash + 1 : prefix;
	size_t bl = strlen(base);
	long long best = -1;
	DIR *d = dir ? opendir(dir) : NULL;
	struct dirent *e;
	while (d && (e = readdir(d))) {
		const char *nm = e->d_name;
		if (strncmp(nm, base, bl) || nm[bl] != '.')
			continue;
		char *end;
		errno = 0;
		unsigned long long v = strtoull(nm + bl + 1, &end, 10);
		if (errno || end == nm + bl + 1 || nm[bl + 1] < '0' || nm[bl + 1] > '9' || v > (1ull << 40))
			continue;
		if ((!strcmp(end, ".et") || !strcmp(end, ".et.gz")) && (long long)v > best)
			best = (long long)v;
	}
	if (d)
		closedir(d);
	free(dir);
	return best;
}

int cmd_stats(int argc, char **argv)
{
	const char *out = "-";
	int json = 0, deps = 0, full_path = 0, force = 0;
	uint64_t max_dups = 100;
	const tool_option opts[] = {
		{ "--json", NULL, TOOL_FLAG, &json, NULL, "JSON output (all critical-path ids)" },
		{ "--deps", "KIND", TOOL_CHOICE, &deps, "data|ctrl|both", "data (default), ctrl or both" },
		{ "--full-path", NULL, TOOL_FLAG, &full_path, NULL, "list every critical-path id in text output" },
		{ "--max-errors", "N", TOOL_U64, &max_dups, NULL,
		  "stop when more than N nodes reuse an earlier id\n"
		  "(default 100; 0 = no limit): /dev/zero is not a trace" },
		{ "-o, --output", "OUT", TOOL_STR, &out, NULL, "write to OUT instead of stdout" },
		{ "-f, --force", NULL, TOOL_FLAG, &force, NULL, "replace OUT if it exists" },
		{ NULL, NULL, 0, NULL, NULL, NULL },
	};
	const tool_command cmd = {
		"TRACE|PREFIX [--json] [--deps data|ctrl|both] [--full-path]\n"
		"                    [--max-errors N] [-o OUT [-f]]",
		"Counts by node type and collective type, bytes per collective (comm_size),\n"
		"total / CPU / GPU duration (is_cpu_op), critical path (longest path by\n"
		"duration_micros through the chosen dependencies; default data) with its nodes,\n"
		"depth (longest path in nodes) and width (most nodes at one depth level).\n"
		"PREFIX: every rank PREFIX.0.et, PREFIX.1.et, ... (or .et.gz), reported per rank;\n"
		"missing ranks are named. Dependencies on absent ids, self-dependencies and\n"
		"cycles are warnings.",
		opts, NULL, 1, 1, "TRACE or PREFIX"
	};
	const char **args;
	int nargs, prc = tool_parse(&cmd, argc, argv, &args, &nargs);
	if (prc != TOOL_PARSED)
		return prc == TOOL_HELP_SHOWN ? 0 : prc;
	const char *input = args[0];
	free(args);
	int kinds = deps == 0 ? CHAKRA_GRAPH_DATA : deps == 1 ? CHAKRA_GRAPH_CTRL : CHAKRA_GRAPH_BOTH;

	/* Anything that exists (a file, stdin, a device, a FIFO) is one trace;
	 * otherwise a workload prefix. files[r] is NULL for a missing rank. */
	size_t nfiles = 0, nmissing = 0;
	char **files = NULL;
	int workload = 0, rc = 0;
	struct stat st;
	if (!strcmp(input, "-") || stat(input, &st) == 0) {
		if (strcmp(input, "-") && S_ISDIR(st.st_mode))
			return tool_err("%s: is a directory; expected a trace or a workload prefix "
			                "(PREFIX for PREFIX.0.et, PREFIX.1.et, ...)", input);
		files = malloc(sizeof *files);
		if (!files || !(files[0] = strdup(input)))
			return tool_err("out of memory");
		nfiles = 1;
	} else {
		workload = 1;
		long long last = highest_rank(input);
		for (size_t r = 0; (long long)r <= last; r++) {
			char **nf = realloc(files, (nfiles + 1) * sizeof *nf);
			if (!nf) {
				rc = tool_err("out of memory");
				goto done;
			}
			files = nf;
			files[nfiles] = NULL;
			int f = rank_path(input, r, &files[nfiles]);
			nfiles++;
			if (f < 0) {
				rc = 1;
				goto done;
			}
			nmissing += f == 0;
		}
		if (!nfiles)
			return tool_err("%s: no such file or directory, and no workload %s.0.et or "
			                "%s.0.et.gz", input, input, input);
		if (nmissing) {
			char list[256] = "";
			size_t pos = 0, shown = 0;
			for (size_t r = 0; r < nfiles; r++)
				if (!files[r] && shown++ < 10)
					pos += (size_t)snprintf(list + pos, sizeof list - pos, "%s%zu",
					                        shown > 1 ? ", " : "", r);
			fprintf(stderr, "chakra: %s: warning: %zu of ranks 0..%zu missing (no %s.R.et or "
			                ".et.gz for R = %s%s); the others are reported\n",
			        input, nmissing, nfiles - 1, input, list, nmissing > 10 ? ", ..." : "");
		}
	}
	/* refuse before the work, not after it */
	if (tool_out_check(out, force, (const char *const *)files, (int)nfiles) < 0) {
		rc = 1;
		goto done;
	}
	stats *all = calloc(nfiles, sizeof *all);
	if (!all) {
		rc = tool_err("out of memory");
		goto done;
	}
	for (size_t k = 0; k < nfiles && !rc; k++)
		if (files[k] && stats_analyze_file(files[k], kinds, max_dups, &all[k]) < 0)
			rc = 1;
	tool_out of;
	if (!rc && tool_out_open(&of, out, force, (const char *const *)files, (int)nfiles) < 0)
		rc = 1;
	if (!rc) {
		FILE *f = of.f;
		if (json) {
			yajl_gen g = jo_open(f, 1);
			if (workload) {
				yajl_gen_map_open(g);
				jo_kv_str(g, "workload", input);
				jo_kv_u64(g, "ranks", nfiles - nmissing);
				jo_str(g, "missing_ranks");
				yajl_gen_array_open(g);
				for (size_t k = 0; k < nfiles; k++)
					if (!files[k])
						jo_u64(g, k);
				yajl_gen_array_close(g);
				jo_str(g, "per_rank");
				yajl_gen_array_open(g);
				for (size_t k = 0; k < nfiles; k++)
					if (files[k])
						stats_json(g, &all[k], kinds);
				yajl_gen_array_close(g);
				yajl_gen_map_close(g);
			} else {
				stats_json(g, &all[0], kinds);
			}
			yajl_gen_free(g);
			fputc('\n', f);
		} else {
			if (workload) {
				uint64_t nodes = 0, worst = 0;
				size_t wr = 0;
				for (size_t k = 0; k < nfiles; k++) {
					nodes += all[k].nodes;
					if (all[k].crit_dur > worst)
						worst = all[k].crit_dur, wr = k;
				}
				fprintf(f, "workload: %s: %zu ranks", input, nfiles - nmissing);
				if (nmissing)
					fprintf(f, " (%zu of 0..%zu missing)", nmissing, nfiles - 1);
				fprintf(f, ", %llu nodes; longest critical path %llu us (rank %zu)\n",
				        (unsigned long long)nodes, (unsigned long long)worst, wr);
			}
			for (size_t k = 0; k < nfiles; k++) {
				if (!files[k])
					continue;
				if (workload)
					fprintf(f, "\n== rank %zu ==\n", k);
				stats_print_text(f, &all[k], kinds, full_path);
			}
		}
		if (tool_out_commit(&of) < 0)
			rc = 1;
	}
	for (size_t k = 0; k < nfiles; k++)
		free(all[k].path);
	free(all);
done:
	for (size_t k = 0; k < nfiles; k++)
		free(files[k]);
	free(files);
	return rc;
}
