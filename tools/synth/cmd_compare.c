/* SPDX-License-Identifier: Apache-2.0 */
/* chakra synth compare REAL SYNTH: per-distribution KS statistics and the
 * ratio of simulated iteration times. */
#define CHAKRA_EXPERIMENTAL
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "chakra/experimental/synth.h"
#include "common.h"
#include "opts.h"
#include "sim_call.h"

static const char *groups_of(const char *arg, const char *given, char *buf, size_t cap)
{
	struct stat st;
	if (given)
		return given;
	if (stat(arg, &st) == 0)
		return NULL; /* a file, not a prefix */
	snprintf(buf, cap, "%s.comm_groups.json", arg);
	return stat(buf, &st) == 0 ? buf : NULL;
}

static void rm_workload(const char *prefix, uint32_t npus)
{
	char p[4200];
	for (uint32_t r = 0; r < npus; r++) {
		snprintf(p, sizeof p, "%s.%" PRIu32 ".et", prefix, r);
		unlink(p);
	}
}

static void json_num(double x)
{
	if (isfinite(x))
		printf("%.6g", x);
	else
		printf("null");
}

#define UNSET UINT64_MAX /* --npus not given (0 is a bad value, not "the default") */

int cmd_synth_compare(int argc, char **argv)
{
	const char *net = NULL, *sys = NULL, *gr[2] = { NULL, NULL };
	int json = 0, model_ix = -1;
	uint64_t q = 0, npus = UNSET;
	double max_ks = NAN, max_err = NAN; /* NAN: not given (an option value is finite) */
	const tool_option opts[] = {
		{ "--network", "F", TOOL_STR, &net, NULL,
		  "with --system: simulate both sides (ASTRA-sim\nconfigurations)" },
		{ "--system", "F", TOOL_STR, &sys, NULL, "with --network" },
		{ "--npus", "N", TOOL_U64, &npus, NULL,
		  "NPUs when both sides have one rank (default: the\n"
		  "rank count of the larger side)" },
		{ "--real-groups", "F", TOOL_STR, &gr[0], NULL,
		  "communicator groups of REAL (default:\n"
		  "PREFIX.comm_groups.json when it exists)" },
		{ "--synth-groups", "F", TOOL_STR, &gr[1], NULL, "the same for SYNTH" },
		{ "--model", "unaware|aware", TOOL_CHOICE, &model_ix, "unaware|aware",
		  "the simulator's network model (default unaware)" },
		{ "--json", NULL, TOOL_FLAG, &json, NULL, "one JSON object on stdout" },
		{ "--quantiles", "Q", TOOL_U64, &q, NULL, "with --json: Q quantiles of each distribution" },
		{ "--max-ks", "D", TOOL_DOUBLE, &max_ks, NULL,
		  "exit 1 if size/all or duration/all has KS > D" },
		{ "--max-time-error", "E", TOOL_DOUBLE, &max_err, NULL,
		  "exit 1 if |synthetic / real time - 1| > E" },
		{ NULL, NULL, 0, NULL, NULL, NULL },
	};
	const tool_command cmd = {
		"REAL SYNTH [options]",
		"Compare two workloads (each a TRACE or a PREFIX of PREFIX.r.et files):\n"
		"the two-sample Kolmogorov-Smirnov statistic D of each distribution\n"
		"(message size per collective type, compute duration per op class, fan-in,\n"
		"fan-out, chain length, overlap) with its 5% critical value, and, given a\n"
		"network and a system, the simulated iteration time of both (`chakra sim`;\n"
		"a single-rank side runs on every NPU; collectives without comm_type run as\n"
		"compute) and their ratio.",
		opts, NULL, 0, -1, "workload"
	};
	const char **args;
	int nargs, prc = tool_parse(&cmd, argc, argv, &args, &nargs);
	if (prc != TOOL_PARSED)
		return prc == TOOL_HELP_SHOWN ? 0 : prc;
	const char *in[2] = { nargs > 0 ? args[0] : NULL, nargs > 1 ? args[1] : NULL };
	free((void *)args);
	if (nargs != 2)
		return tool_usage(argv[0], "expected two workloads, REAL and SYNTH");
	if (npus != UNSET && (npus < 1 || npus > 65536))
		return tool_usage(argv[0], "--npus needs a number in 1..65536");
	if (q > 100000)
		return tool_usage(argv[0], "--quantiles needs a number in 0..100000");
	if (max_ks < 0)
		return tool_usage(argv[0], "--max-ks needs a number >= 0");
	if (max_err < 0)
		return tool_usage(argv[0], "--max-time-error needs a number >= 0");
	if (!net != !sys)
		return tool_usage(argv[0], "--network and --system go together");
	if (max_err >= 0 && !net)
		return tool_usage(argv[0], "--max-time-error needs --network and --system");
	const char *model = model_ix < 0 ? NULL : model_ix ? "aware" : "unaware";
	char **p[2] = { NULL, NULL };
	size_t n[2] = { 0, 0 };
	char err[1024];
	int status = 1;
	chakra_synth_report *R = NULL;
	for (int s = 0; s < 2; s++)
		if (chakra_synth_expand(in[s], &p[s], &n[s], err, sizeof err) < 0) {
			tool_err("%s", err);
			goto done;
		}
	if (chakra_synth_compare(&R, (const char *const *)p[0], n[0], (const char *const *)p[1], n[1],
	                         err, sizeof err) < 0) {
		tool_err("%s", err);
		goto done;
	}
	uint64_t fin[2] = { 0, 0 }, changed[2] = { 0, 0 };
	if (net) {
		if (npus == UNSET)
			npus = n[0] > n[1] ? n[0] : n[1];
		char dir[] = "/tmp/chakra-synth-XXXXXX";
		if (!mkdtemp(dir)) {
			tool_err("cannot create a temporary folder in /tmp");
			goto done;
		}
		int ok = 1, rules = 0; /* the synthetic workload under the real one's rules */
		for (int s = 0; s < 2 && ok; s++) {
			char prefix[4096], gbuf[4200];
			snprintf(prefix, sizeof prefix, "%s/%s", dir, s ? "synth" : "real");
			const char *g = groups_of(in[s], gr[s], gbuf, sizeof gbuf);
			ok = synth_sim_prepare(p[s], n[s], (uint32_t)npus, prefix, &changed[s], err,
			                       sizeof err) == 0 &&
			     synth_sim_finish(prefix, net, sys, g, model, &rules, &fin[s], err,
			                      sizeof err) == 0;
			if (!ok)
				tool_err("%s: %s", s ? "synthetic" : "real", err);
			rm_workload(prefix, (uint32_t)npus);
		}
		rmdir(dir);
		if (!ok)
			goto done;
	}
	size_t nd = chakra_synth_report_count(R);
	int fail = 0;
	double ratio = fin[0] ? (double)fin[1] / (double)fin[0] : NAN;
	for (size_t i = 0; i < nd; i++) {
		const chakra_synth_ks *k = chakra_synth_report_at(R, i);
		if (max_ks >= 0 && (!strcmp(k->name, "size/all") || !strcmp(k->name, "duration/all")) &&
		    k->ks > max_ks)
			fail = 1;
	}
	if (net && max_err >= 0 && !(fabs(ratio - 1.0) <= max_err))
		fail = 1;
	if (json) {
		double *qv = q ? malloc(q * sizeof *qv) : NULL;
		printf("{\"real\": {\"ranks\": %zu}, \"synthetic\": {\"ranks\": %zu},\n \"distributions\": [",
		       n[0], n[1]);
		for (size_t i = 0; i < nd; i++) {
			const chakra_synth_ks *k = chakra_synth_report_at(R, i);
			printf("%s\n  {\"name\": \"%s\", \"n_real\": %" PRIu64 ", \"n_synth\": %" PRIu64
			       ", \"ks\": ", i ? "," : "", k->name, k->n_real, k->n_synth);
			json_num(k->ks);
			printf(", \"crit05\": ");
			json_num(k->crit05);
			printf(", \"mean_real\": ");
			json_num(k->mean_real);
			printf(", \"mean_synth\": ");
			json_num(k->mean_synth);
			for (int w = 0; w < 2 && qv; w++) {
				chakra_synth_report_quantiles(R, i, w, q, qv);
				printf(", \"quantiles_%s\": [", w ? "synth" : "real");
				for (uint64_t j = 0; j < q; j++) {
					printf("%s", j ? ", " : "");
					json_num(qv[j]);
				}
				printf("]");
			}
			printf("}");
		}
		printf("]");
		free(qv);
		if (net) {
			printf(",\n \"iteration\": {\"npus\": %" PRIu64 ", \"real_cycles\": %" PRIu64
			       ", \"synth_cycles\": %" PRIu64 ", \"ratio\": ",
			       npus, fin[0], fin[1]);
			json_num(ratio);
			printf(", \"real_nodes_run_as_compute\": %" PRIu64
			       ", \"synth_nodes_run_as_compute\": %" PRIu64 "}",
			       changed[0], changed[1]);
		}
		printf("}\n");
	} else {
		printf("%-28s %9s %9s %8s %8s %14s %14s\n", "distribution", "n_real", "n_synth", "KS",
		       "crit05", "mean_real", "mean_synth");
		for (size_t i = 0; i < nd; i++) {
			const chakra_synth_ks *k = chakra_synth_report_at(R, i);
			printf("%-28s %9" PRIu64 " %9" PRIu64 " %8.4f %8.4f %14.6g %14.6g\n", k->name,
			       k->n_real, k->n_synth, k->ks, k->crit05, k->mean_real, k->mean_synth);
		}
		if (net)
			printf("iteration time on %" PRIu64 " NPUs: real %" PRIu64 " cycles, synthetic %" PRIu64
			       " cycles, ratio %.4f\n",
			       npus, fin[0], fin[1], ratio);
	}
	if (fflush(stdout) != 0) {
		tool_err("cannot write the report");
		goto done;
	}
	status = fail;
done:
	chakra_synth_report_free(R);
	chakra_synth_paths_free(p[0], n[0]);
	chakra_synth_paths_free(p[1], n[1]);
	return status;
}
