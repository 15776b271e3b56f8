/* SPDX-License-Identifier: Apache-2.0 */
/* chakra synth fit PREFIX|TRACE... -o MODEL.json: learn a model (lib/synth). */
#define CHAKRA_EXPERIMENTAL
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "chakra/experimental/synth.h"
#include "common.h"

static int help(void)
{
	puts("usage: chakra synth fit PREFIX|TRACE... -o MODEL.json [options]\n\n"
	     "Learn the statistics of a workload (one trace per rank: the files given,\n"
	     "or PREFIX.0.et ... when an argument is not a file) into MODEL.json: the\n"
	     "collective sequence (a Markov chain, order by held-out likelihood), message\n"
	     "sizes per collective type and group, compute durations per op class\n"
	     "(Gaussian mixtures in log space, components by BIC), how compute and\n"
	     "collectives interleave and depend on each other, and the group shapes.\n"
	     "No node name or string attribute is stored (docs/synth.md).\n\n"
	     "options:\n"
	     "  -o, --output FILE     the model ('-' = stdout)\n"
	     "  -g, --comm-group F    communicator groups {\"id\": [ranks]} for pg_name\n"
	     "                        (default: PREFIX.comm_groups.json when it exists)\n"
	     "  --max-order K         highest Markov order tried (default 3, at most 6)\n"
	     "  --max-components K    most mixture components tried (default 8, at most 16)\n"
	     "  --min-log-sd X        blur sizes and durations by about X (0.05 = 5%)\n"
	     "  -q, --quiet           no summary on stderr\n"
	     "  -f, --force           replace MODEL.json if it exists");
	return 0;
}

int cmd_synth_fit(int argc, char **argv)
{
	const char *out = NULL, *groups = NULL, *v;
	chakra_synth_fit_options o = CHAKRA_SYNTH_FIT_OPTIONS_INIT;
	int force = 0, quiet = 0, missing, r;
	char **paths = NULL;
	size_t np = 0;
	const char *first_prefix = NULL;
	int status = 2;
	for (int i = 1; i < argc; i++) {
		uint64_t u;
		if (tool_is_help(argv[i])) {
			status = help();
			goto done;
		}
		if ((r = tool_output_opt(argc, argv, &i, &out)) != 0) {
			if (r < 0)
				goto done;
		} else if (!strcmp(argv[i], "-f") || !strcmp(argv[i], "--force")) {
			force = 1;
		} else if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet")) {
			quiet = 1;
		} else if (!strcmp(argv[i], "-g") && i + 1 < argc) {
			groups = argv[++i];
		} else if ((v = tool_opt(argc, argv, &i, "--comm-group", &missing)) || missing) {
			if (missing) {
				status = tool_usage(argv[0], "--comm-group needs a file");
				goto done;
			}
			groups = v;
		} else if ((v = tool_opt(argc, argv, &i, "--max-order", &missing)) || missing) {
			if (missing || tool_parse_u64("--max-order", v, &u) < 0 || u < 1 || u > 6) {
				status = tool_usage(argv[0], "--max-order needs a number in 1..6");
				goto done;
			}
			o.max_order = (int)u;
		} else if ((v = tool_opt(argc, argv, &i, "--max-components", &missing)) || missing) {
			if (missing || tool_parse_u64("--max-components", v, &u) < 0 || u < 1 || u > 16) {
				status = tool_usage(argv[0], "--max-components needs a number in 1..16");
				goto done;
			}
			o.max_components = (int)u;
		} else if ((v = tool_opt(argc, argv, &i, "--min-log-sd", &missing)) || missing) {
			if (missing || tool_parse_double("--min-log-sd", v, &o.min_log_sd) < 0 ||
			    !(o.min_log_sd >= 0 && o.min_log_sd <= 10)) {
				status = tool_usage(argv[0], "--min-log-sd needs a number in [0, 10]");
				goto done;
			}
		} else if (argv[i][0] == '-' && argv[i][1]) {
			status = tool_usage(argv[0], "unknown option '%s'", argv[i]);
			goto done;
		} else {
			char **p;
			size_t n;
			char err[1024];
			if (chakra_synth_expand(argv[i], &p, &n, err, sizeof err) < 0) {
				status = tool_err("%s", err);
				goto done;
			}
			struct stat st;
			if (!first_prefix && stat(argv[i], &st) != 0)
				first_prefix = argv[i];
			char **np2 = realloc(paths, (np + n) * sizeof *np2);
			if (!np2) {
				for (size_t k = 0; k < n; k++)
					free(p[k]);
				free(p);
				status = tool_err("out of memory");
				goto done;
			}
			paths = np2;
			memcpy(paths + np, p, n * sizeof *p);
			np += n;
			free(p);
		}
	}
	if (!np) {
		status = tool_usage(argv[0], "missing PREFIX or TRACE");
		goto done;
	}
	if (!out) {
		status = tool_usage(argv[0], "missing -o MODEL.json");
		goto done;
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
		status = tool_err("%s%s", err, strstr(err, "exists") ? " (use -f to replace it)" : "");
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
		free(paths[k]);
	free(paths);
	return status;
}
