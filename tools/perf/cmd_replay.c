/* SPDX-License-Identifier: Apache-2.0 */
/* chakra sim --replay: replay a converted trace on its own dependency graph
 * with its own recorded durations (lib/perf, docs/replay.md). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define CHAKRA_EXPERIMENTAL
#include "chakra/experimental/perf.h"
#include "common.h"
#include "jsonout.h"
#include "opts.h"
#include "replay_out.h"

int cmd_sim_replay(int argc, char **argv);

static int write_stdout(void *data, const void *buf, size_t len)
{
	(void)data;
	return fwrite(buf, 1, len, stdout) == len ? 0 : -1;
}

/* The report as JSON on stdout; a write error shows at the flush. */
static void json_out(const chakra_perf *r, const char *between, uint64_t skip,
                     const chakra_perf_windows *win)
{
	if (chakra_perf_report_json(write_stdout, NULL, r, between, skip, win) == CHAKRA_ENOMEM)
		tool_oom_exit("JSON");
}

/* --between as text: every window, the median, then the report of it. */
static void between_text(const chakra_perf *r, const char *between, uint64_t skip,
                         const chakra_perf_windows *win, size_t ntop, double secs)
{
	char a[40], b[40];
	const int64_t *wit = win->predicted_ns, *wrec = win->recorded_ns;
	size_t m = win->count, med = win->median;
	int64_t rec_med = win->recorded_median_ns;
	printf("%zu iterations between '%s' annotations (first %llu skipped):\n", m, between,
	       (unsigned long long)skip);
	for (size_t w = 0; w < m; w++) {
		chakra_perf_us_format(wit[w], a, sizeof a);
		chakra_perf_us_format(wrec[w], b, sizeof b);
		printf("  %4zu  predicted %14s us  recorded %14s us  %+.2f%%\n", skip + w, a, b,
		       100.0 * (double)(wit[w] - wrec[w]) / (double)wrec[w]);
	}
	chakra_perf_us_format(wit[med], a, sizeof a);
	chakra_perf_us_format(rec_med, b, sizeof b);
	printf("median: predicted %s us, recorded %s us (%+.2f%%); iteration %llu below:\n", a, b,
	       100.0 * (double)(wit[med] - rec_med) / (double)rec_med,
	       (unsigned long long)(skip + med));
	replay_text_out(r, chakra_perf_iterations(r), ntop, secs);
}

int cmd_sim_replay(int argc, char **argv)
{
	const char *workload = NULL, *network = NULL, *system = NULL, *groups_path = NULL;
	const char *timeline = NULL, *between = NULL;
	uint64_t skip = 0;
	chakra_perf_windows win = { 0 };
	int json = 0, modelled = 0, replay = 0, model = 0, force = 0, rc = 1;
	tool_out tlo;
	memset(&tlo, 0, sizeof tlo);
	uint64_t iters = UINT64_MAX, ntop = 10; /* UINT64_MAX: not given (the library's 2) */
	opt_list ks = { NULL, NULL, 0 };
	tool_list ksl = { NULL, 0 }, cscale = { NULL, 0 };
	const char **av = NULL, **args = NULL;
	double *rank_scale = NULL;
	chakra_sim_network net;
	chakra_sim_system sys;
	chakra_sim_groups groups = { NULL, 0 };
	chakra_perf *r = NULL;
	char err[512];
	const tool_option opts[] = {
		{ "--replay", NULL, TOOL_FLAG, &replay, NULL,
		  "this mode (chakra sim --help: the cycle simulator)" },
		{ "--workload, --workload-configuration", "P", TOOL_STR, &workload, NULL,
		  "P.0.et .. P.{N-1}.et (ranks replayed together) or one\n"
		  "file" },
		{ "--json", NULL, TOOL_FLAG, &json, NULL,
		  "one JSON object: iteration_us, breakdown, streams,\n"
		  "threads, critical_path" },
		{ "--timeline", "FILE", TOOL_STR, &timeline, NULL,
		  "the replayed iteration as a Chrome/Perfetto trace" },
		{ "-f, --force", NULL, TOOL_FLAG, &force, NULL,
		  "replace an existing --timeline file" },
		{ "--kernel-scale", "R=F", TOOL_LIST, &ksl, NULL,
		  "device ops whose name matches the POSIX extended\n"
		  "regular expression R take F x their time (first\n"
		  "match; may be repeated)" },
		{ "--compute-scale", "[K=]F", TOOL_LIST, &cscale, NULL,
		  "device compute (not communication) of rank K (all)\n"
		  "x F (may be repeated)" },
		{ "--network, --network-configuration", "NET.yml", TOOL_STR, &network, NULL,
		  "with --system: collectives take the network model's\n"
		  "time (ASTRA-sim's configurations, as chakra sim reads\n"
		  "them)" },
		{ "--system, --system-configuration", "SYS.json", TOOL_STR, &system, NULL,
		  "the system configuration that goes with --network" },
		{ "--model", "unaware|aware", TOOL_CHOICE, &model, "unaware|aware",
		  "the network model (default unaware)" },
		{ "--comm-group, --comm-group-configuration", "FILE", TOOL_STR, &groups_path, NULL,
		  "process groups {\"name\": [ranks]} (default: the\n"
		  "trace's)" },
		{ "--iterations", "N", TOOL_U64, &iters, NULL,
		  "iterations replayed back to back, the last reported\n"
		  "(1..64; default 2: work spilling into the next one\n"
		  "counts)" },
		{ "--path", "N", TOOL_U64, &ntop, NULL,
		  "text output: the N ops longest on the critical path\n"
		  "(default 10)" },
		{ "--between", "NAME", TOOL_STR, &between, NULL,
		  "replay every iteration from one occurrence of the\n"
		  "user annotation NAME to the next (a whole-trace\n"
		  "conversion keeps them) and report the median" },
		{ "--skip", "K", TOOL_U64, &skip, NULL,
		  "with --between: leave out the first K (warm-up)" },
		{ "--modelled-gaps", NULL, TOOL_FLAG, &modelled, NULL,
		  "device ops start the rank's median launch latency\n"
		  "after their launch (or median gap after the previous\n"
		  "op on the stream) instead of their own recorded gap" },
		{ NULL, NULL, 0, NULL, NULL, NULL },
	};
	const tool_command cmd = {
		"--workload PREFIX|FILE [--json] [--timeline FILE.json [-f]]\n"
		"                  [--kernel-scale REGEX=FACTOR]... [--compute-scale [RANK=]FACTOR]...\n"
		"                  [--network NET.yml --system SYS.json [--model unaware|aware]]\n"
		"                  [--comm-group GROUPS.json] [--iterations N] [--path N]\n"
		"                  [--between ANNOTATION [--skip K]] [--modelled-gaps]",
		"Replays a converted trace (chakra convert kineto|pytorch) on its own dependency\n"
		"graph with its own recorded durations: each CPU thread and GPU stream runs its\n"
		"ops one at a time in recorded order; launches, stream order, event waits,\n"
		"synchronising calls and collectives across ranks tie them together. Prints\n"
		"the predicted iteration time and where it went (docs/replay.md).",
		opts, NULL, 0, 0, NULL
	};
	/* messages and the help name this mode: "chakra sim --replay ..." */
	const char *name = "sim --replay";
	ks.re = calloc((size_t)argc, sizeof *ks.re);
	ks.f = calloc((size_t)argc, sizeof *ks.f);
	av = calloc((size_t)argc + 1, sizeof *av);
	if (!ks.re || !ks.f || !av) {
		tool_err("out of memory");
		goto out;
	}
	av[0] = name;
	for (int i = 1; i < argc; i++)
		av[i] = argv[i];
	int nargs, prc = tool_parse(&cmd, argc, (char **)av, &args, &nargs);
	if (prc != TOOL_PARSED) {
		rc = prc == TOOL_HELP_SHOWN ? 0 : prc;
		goto out;
	}
	(void)replay;
	if (iters != UINT64_MAX && (iters < 1 || iters > 64)) {
		rc = tool_usage(name, "--iterations must be in 1..64");
		goto out;
	}
	if ((rc = replay_kernel_scales(name, &ksl, &ks)))
		goto out;
	rc = 1;
	if (!workload) {
		rc = tool_usage(name, "--workload is required");
		goto out;
	}
	if ((network != NULL) != (system != NULL)) {
		rc = tool_usage(name, "--network and --system go together (the network "
		                "model for the collectives)");
		goto out;
	}
	chakra_perf_options o = CHAKRA_PERF_OPTIONS_INIT;
	if (model == 1) /* aware */
		o.network_model = CHAKRA_SIM_AWARE;
	if (network) {
		if (chakra_sim_network_load(&net, network, err, sizeof err) ||
		    chakra_sim_system_load(&sys, system, err, sizeof err)) {
			tool_err("%s", err);
			goto out;
		}
		o.network = &net;
		o.system = &sys;
	}
	if (chakra_perf_new(&r) < 0) {
		tool_err("out of memory");
		goto out;
	}
	double t0 = tool_now();
	if (chakra_perf_load(r, workload) < 0) {
		tool_err("%s", chakra_perf_errmsg(r));
		goto out;
	}
	uint32_t nr = chakra_perf_ranks(r);
	if (groups_path) {
		if (chakra_sim_groups_load(&groups, groups_path, network ? net.npus : (1u << 24), err,
		                           sizeof err)) {
			tool_err("%s", err);
			goto out;
		}
		o.groups = &groups;
	}
	if ((rc = replay_compute_scales(name, &cscale, nr, &rank_scale)))
		goto out;
	rc = 1;
	o.rank_compute_scale = rank_scale;
	o.kernel_scale_re = ks.re;
	o.kernel_scale = ks.f;
	o.n_kernel_scale = ks.n;
	o.copies = iters == UINT64_MAX ? 0 : (unsigned)iters;
	o.modelled_gaps = modelled;
	const char *const tl_in[] = { workload, network, system, groups_path };
	if (timeline) {
		const char *const *inputs = tl_in;
		if (!strcmp(timeline, "-")) {
			rc = tool_usage(name, "--timeline needs a file: stdout carries the "
			                "summary");
			goto out;
		}
		if (tool_out_check(timeline, force, inputs, 4) < 0)
			goto out;
	}
	if (between) {
		/* every window between occurrences; the median one is reported */
		int64_t nw = chakra_perf_between_count(r, between);
		if (nw <= 0 || (uint64_t)nw <= skip) {
			tool_err("%s: %lld iteration%s between occurrences of the annotation '%s'%s",
			         workload, (long long)(nw < 0 ? 0 : nw), nw == 1 ? "" : "s", between,
			         skip ? " after --skip" : " (convert the whole trace: the annotations "
			         "it keeps are in the ET's metadata)");
			goto out;
		}
		size_t m = (size_t)(nw - (int64_t)skip);
		chakra_perf *d = NULL;
		if (chakra_perf_between_median(r, between, skip, m, &o, &win, &d) < 0) {
			tool_err("%s: %s", workload, win.errmsg);
			goto out;
		}
		chakra_perf_free(r);
		r = d;
		double secs = tool_now() - t0;
		if (timeline && replay_timeline_out(r, timeline, force, tl_in, &tlo))
			goto out;
		if (json)
			json_out(r, between, skip, &win);
		else
			between_text(r, between, skip, &win, (size_t)ntop, secs);
		rc = fflush(stdout) ? tool_err("cannot write the output") : 0;
		if (rc == 0 && timeline)
			rc = tool_out_commit(&tlo) ? 1 : 0;
		goto out;
	}
	if (chakra_perf_run(r, &o) < 0) {
		tool_err("%s", chakra_perf_errmsg(r));
		goto out;
	}
	double secs = tool_now() - t0;
	if (timeline && replay_timeline_out(r, timeline, force, tl_in, &tlo))
		goto out;
	unsigned copies = chakra_perf_iterations(r);
	if (chakra_perf_unknown_deps(r))
		fprintf(stderr, "chakra: warning: %" PRIu64 " dependencies on ids not in the trace "
		        "were ignored\n", chakra_perf_unknown_deps(r));
	if (chakra_perf_dropped_edges(r))
		fprintf(stderr, "chakra: warning: %" PRIu64 " dependencies against the recorded order "
		        "of a thread or stream were ignored\n", chakra_perf_dropped_edges(r));
	if (json)
		json_out(r, NULL, 0, NULL);
	else
		replay_text_out(r, copies, (size_t)ntop, secs);
	rc = fflush(stdout) ? tool_err("cannot write the output") : 0;
	if (rc == 0 && timeline)
		rc = tool_out_commit(&tlo) ? 1 : 0;
out:
	tool_out_abort(&tlo); /* (nothing after a commit) */
	chakra_perf_free(r);
	chakra_sim_groups_free(&groups);
	for (size_t k = 0; k < ks.n; k++)
		free((char *)ks.re[k]);
	free(ks.re);
	free(ks.f);
	free(ksl.v);
	free(cscale.v);
	free(av);
	free(args);
	free(rank_scale);
	chakra_perf_windows_free(&win);
	return rc;
}
