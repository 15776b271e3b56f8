/* SPDX-License-Identifier: Apache-2.0 */
/* chakra synth fit PREFIX|TRACE... -o MODEL.json: learn a model (lib/synth). */
#define CHAKRA_EXPERIMENTAL
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "chakra/experimental/synth.h"
#include "common.h"
#include "opts.h"

int cmd_synth_fit(int argc, char **argv)
{
	const char *out = NULL, *groups = NULL;
	chakra_synth_fit_options o = CHAKRA_SYNTH_FIT_OPTIONS_INIT;
	uint64_t max_order = 3, max_components = 8; /* the library's defaults */
	int force = 0, quiet = 0;
	const tool_option opts[] = {
		{ "-o, --output", "FILE", TOOL_STR, &out, NULL, "the model ('-' = stdout)" },
		{ "-g, --comm-group", "F", TOOL_STR, &groups, NULL,
		  "communicator groups {\"id\": [ranks]} for pg_name\n"
		  "(default: PREFIX.comm_groups.json when it exists)" },
		{ "--max-order", "K", TOOL_U64, &max_order, NULL,
		  "highest Markov order tried (default 3, at most 6)" },
		{ "--max-components", "K", TOOL_U64, &max_components, NULL,
		  "most mixture components tried (default 8, at\nmost 16)" },
		{ "--min-log-sd", "X", TOOL_DOUBLE, &o.min_log_sd, NULL,
		  "blur sizes and durations by about X (0.05 = 5%)" },
		{ "-q, --quiet", NULL, TOOL_FLAG, &quiet, NULL, "no summary on stderr" },
		{ "-f, --force", NULL, TOOL_FLAG, &force, NULL, "replace MODEL.json if it exists" },
		{ NULL, NULL, 0, NULL, NULL, NULL },
	};
	const tool_command cmd = {
		"PREFIX|TRACE... -o MODEL.json [options]",
		"Learn the statistics of a workload (one trace per rank: the files given,\n"
		"or PREFIX.0.et ... when an argument is not a file) into MODEL.json: the\n"
		"collective sequence (a Markov chain, order by held-out likelihood), message\n"
		"sizes per collective type and group, compute durations per op class\n"
		"(Gaussian mixtures in log space, components by BIC), how compute and\n"
		"collectives interleave and depend on each other, and the group shapes.\n"
		"No node name or string attribute is stored (docs/synth.md).",
		opts, NULL, 1, -1, "PREFIX or TRACE"
	};
	const char **args;
	int nargs, prc = tool_parse(&cmd, argc, argv, &args, &nargs);
	if (prc != TOOL_PARSED)
		return prc == TOOL_HELP_SHOWN ? 0 : prc;
	char **paths = NULL;
	size_t np = 0;
	const char *first_prefix = NULL;
	int status = 2;
	if (max_order < 1 || max_order > 6) {
		tool_usage(argv[0], "--max-order needs a number in 1..6");
		goto done;
	}
	if (max_components < 1 || max_components > 16) {
		tool_usage(argv[0], "--max-components needs a number in 1..16");
		goto done;
	}
	if (!(o.min_log_sd >= 0 && o.min_log_sd <= 10)) {
		tool_usage(argv[0], "--min-log-sd needs a number in [0, 10]");
		goto done;
	}
	if (!out) {
		tool_usage(argv[0], "missing -o MODEL.json");
		goto done;
	}
	o.max_order = (int)max_order;
	o.max_components = (int)max_components;
	for (int i = 0; i < nargs; i++) {
		char **p;
		size_t n;
		char err[1024];
		if (chakra_synth_expand(args[i], &p, &n, err, sizeof err) < 0) {
			status = tool_err("%s", err);
			goto done;
		}
		struct stat st;
		if (!first_prefix && stat(args[i], &st) != 0)
			first_prefix = args[i];
		char **np2 = realloc(paths, (np + n) * sizeof *np2);
		if (!np2) {
			chakra_synth_paths_free(p, n);
			status = tool_err("out of memory");
			goto done;
		}
		paths = np2;
		memcpy(paths + np, p, n * sizeof *p);
		np += n;
		chakra_free(p); /* its paths are in paths[] now */
	}
	if (tool_check_output(out, (const char *const *)paths, (int)np) < 0) {
		status = 1;
		goto done;
	}
	char gbuf[4096];
	if (!groups && first_prefix) {
		struct stat st;
		snprintf(gbuf, sizeof gbuf, "%s.comm_groups.json", first_prefix);
		if (stat(gbuf, &st) == 0)
			groups = gbuf;
	}
	o.comm_groups = groups;
	chakra_synth_model *m;
	char err[1024];
	if (chakra_synth_fit(&m, (const char *const *)paths, np, &o, err, sizeof err) < 0) {
		status = tool_err("%s", err);
		goto done;
	}
	if (chakra_synth_model_save(m, out, force, err, sizeof err) < 0) {
		chakra_synth_model_free(m);
		status = tool_err("%s%s", err, strstr(err, ": exists (") ? " (use -f to replace it)" : "");
		goto done;
	}
	if (!quiet) {
		chakra_synth_fit_notes nt;
		chakra_synth_model_notes(m, &nt);
		fprintf(stderr, "%s: %u rank(s), %.0f nodes per rank, collective chain of order %d%s%s\n",
		        out, chakra_synth_model_ranks(m), chakra_synth_model_nodes_per_rank(m),
		        chakra_synth_model_markov_order(m), groups ? ", groups from " : "",
		        groups ? groups : "");
		if (nt.self_deps || nt.missing_deps || nt.cycle_edges)
			fprintf(stderr, "  dropped: %llu self dependencies, %llu on absent ids, %llu to break "
			                "cycles\n", (unsigned long long)nt.self_deps,
			        (unsigned long long)nt.missing_deps, (unsigned long long)nt.cycle_edges);
		if (nt.pg_name_without_groups)
			fprintf(stderr, "  note: %llu collectives have a pg_name but no group file was given: "
			                "they are taken to span every rank (as chakra sim does); -g FILE\n",
			        (unsigned long long)nt.pg_name_without_groups);
	}
	chakra_synth_model_free(m);
	status = 0;
done:
	for (size_t k = 0; k < np; k++)
		chakra_free(paths[k]); /* chakra_synth_expand's */
	free(paths);
	free((void *)args);
	return status;
}
