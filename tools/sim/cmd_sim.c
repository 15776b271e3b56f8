/* SPDX-License-Identifier: Apache-2.0 */
/* chakra sim: simulate a workload (one Chakra ET per NPU) on an
 * ASTRA-sim network and system configuration. The command line is in
 * sim_cli.c, the results in sim_report.c; this file runs them, with the
 * library's writer of --events and --timeline (chakra_sim_trace). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hint.h"
#include "sim_cmd.h"

#define ERR_LEN 512

/* What the simulator's callbacks reach: the --events/--timeline writer
 * and the progress line. */
typedef struct sim_outputs {
	chakra_sim_trace *trace; /* NULL: neither output */
	tool_progress prog;
} sim_outputs;

static void on_event(void *data, int what, uint32_t npu, uint64_t cycle, const chakra_node *n)
{
	chakra_sim_trace_event(((sim_outputs *)data)->trace, what, npu, cycle, n);
}

static void on_span(void *data, uint32_t npu, int lane, const chakra_node *n, uint64_t start,
                    uint64_t end)
{
	chakra_sim_trace_span(((sim_outputs *)data)->trace, npu, lane, n, start, end);
}

static void on_progress(void *data, uint64_t done)
{
	tool_progress_update(&((sim_outputs *)data)->prog, done);
}

static int write_file(void *data, const void *buf, size_t len)
{
	/* (unlocked: a call per token, and the tools are single-threaded) */
	return fwrite_unlocked(buf, 1, len, (FILE *)data) == len ? 0 : -1;
}

int cmd_sim_replay(int argc, char **argv); /* tools/perf/cmd_replay.c */

/* Without --network and --system: one NPU, and the system ASTRA-sim's
 * examples use (examples/system/native_collectives/Ring_4chunks.json). */
static const char one_npu_net[] = "topology: [ Ring ]\nnpus_count: [ 1 ]\n"
                                  "bandwidth: [ 50.0 ]\nlatency: [ 500.0 ]\n";
static const char one_npu_sys[] =
	"{\"scheduling-policy\": \"LIFO\", \"endpoint-delay\": 10,"
	" \"active-chunks-per-dimension\": 1, \"preferred-dataset-splits\": 4,"
	" \"all-reduce-implementation\": [\"ring\"], \"all-gather-implementation\": [\"ring\"],"
	" \"reduce-scatter-implementation\": [\"ring\"], \"all-to-all-implementation\": [\"ring\"],"
	" \"collective-optimization\": \"localBWAware\", \"local-mem-bw\": 1600,"
	" \"boost-mode\": 0, \"roofline-enabled\": 0, \"peak-perf\": 900}";

/* The workload is one file (not PREFIX.0.et, not a rank map): then it is
 * the only rank (1). Neither: the message every command gives (-1). */
static int one_file(const char *w)
{
	struct stat st;
	size_t n = strlen(w) + 16;
	char *p = malloc(n);
	if (!p)
		return 0;
	snprintf(p, n, "%s.0.et", w);
	int prefix = stat(p, &st) == 0;
	snprintf(p, n, "%s.0.et.gz", w);
	prefix |= stat(p, &st) == 0;
	snprintf(p, n, "%s.ranks", w);
	prefix |= stat(p, &st) == 0;
	free(p);
	if (prefix || chakra_rank_map_is(w))
		return 0;
	if (stat(w, &st) < 0) {
		tool_err("%s: no such file or directory, and no workload %s.0.et or %s.0.et.gz", w, w, w);
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		tool_err("%s: is a directory", w);
		return -1;
	}
	return 1;
}

int cmd_sim(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--replay"))
			return cmd_sim_replay(argc, argv);
	sim_cli c = { .model = 0, .deps = -1, .window = SIM_CLI_UNSET, .memory = CHAKRA_SIM_DEFAULT_MEMORY,
	              .durations = -1 };
	int rc = sim_cli_parse(&c, argc, argv);
	if (rc != TOOL_PARSED) {
		free(c.scale.v);
		free(c.delay.v);
		return rc == TOOL_HELP_SHOWN ? 0 : rc;
	}
	rc = 1;
	char err[ERR_LEN];
	chakra_sim_network net;
	chakra_sim_system sys;
	chakra_sim_groups groups = { 0 };
	double *scale = NULL;
	uint64_t *delay = NULL;
	tool_out tlo, evo;
	memset(&tlo, 0, sizeof tlo);
	memset(&evo, 0, sizeof evo);
	chakra_sim *sim = NULL;
	sim_outputs out = { 0 };
	chakra_feeder *one = NULL;
	int file = one_file(c.workload);
	if (file < 0)
		goto out;
	if (c.network ? chakra_sim_network_load(&net, c.network, err, sizeof err) ||
	                    chakra_sim_system_load(&sys, c.system, err, sizeof err)
	              : chakra_sim_network_parse(&net, "(one NPU)", one_npu_net,
	                                         sizeof one_npu_net - 1, err, sizeof err) ||
	                    chakra_sim_system_parse(&sys, "(Ring_4chunks)", one_npu_sys,
	                                            sizeof one_npu_sys - 1, err, sizeof err)) {
		tool_err("%s", err);
		goto out;
	}
	if (c.groups && chakra_sim_groups_load(&groups, c.groups, net.npus, err, sizeof err)) {
		tool_err("%s", err);
		goto out;
	}
	if (file && net.npus != 1) {
		tool_err("%s: one file is one rank, but the network has %" PRIu32 " NPUs (give "
		         "PREFIX for PREFIX.0.et .. PREFIX.%" PRIu32 ".et)", c.workload, net.npus,
		         net.npus - 1);
		goto out;
	}
	if (!c.network)
		fprintf(stderr, "chakra sim: no --network/--system: one NPU (a ring of one, 50 GB/s, "
		                "500 ns; ASTRA-sim's Ring_4chunks system)\n");
	if ((rc = sim_cli_rank_arrays(argv[0], &c, net.npus, &scale, &delay)))
		goto out;
	rc = 1;
	/* The output rule (tools/common.h): temporaries renamed into place
	 * only after a successful run, an existing file replaced only with -f. */
	const char *inputs[] = { c.network, c.system, c.groups };
	if (c.timeline && c.events && !strcmp(c.timeline, c.events)) {
		tool_err("--timeline and --events name the same file");
		goto out;
	}
	if ((c.timeline && tool_out_check(c.timeline, c.force, inputs, 3) < 0) ||
	    (c.events && tool_out_check(c.events, c.force, inputs, 3) < 0) ||
	    (c.timeline && tool_out_open(&tlo, c.timeline, c.force, inputs, 3) < 0) ||
	    (c.events && tool_out_open(&evo, c.events, c.force, inputs, 3) < 0))
		goto out;
	if (tlo.f || evo.f) {
		chakra_sim_trace_options to = CHAKRA_SIM_TRACE_OPTIONS_INIT;
		to.npus = net.npus;
		to.events = evo.f ? write_file : NULL;
		to.events_data = evo.f;
		to.timeline = tlo.f ? write_file : NULL;
		to.timeline_data = tlo.f;
		if (chakra_sim_trace_new(&out.trace, &to) < 0) {
			tool_err("out of memory");
			goto out;
		}
	}
	chakra_sim_options opt = CHAKRA_SIM_OPTIONS_INIT;
	opt.model = (chakra_sim_model)c.model;
	opt.groups = c.groups ? &groups : NULL;
	opt.compute_scale = scale;
	opt.start_delay = delay;
	opt.window = c.window == SIM_CLI_UNSET ? 0 : c.window;
	opt.memory = c.memory;
	opt.deps = c.deps < 0 ? (chakra_deps)0 : (chakra_deps)(CHAKRA_DEPS_DATA + c.deps);
	opt.rules = (chakra_sim_rules)c.rules;
	opt.durations = c.durations < 0 ? CHAKRA_SIM_DURATIONS_DEFAULT
	                : (chakra_sim_durations)(CHAKRA_SIM_DURATIONS_MICROS + c.durations);
	opt.streams = c.streams;
	opt.no_symmetry = c.no_symmetry;
	opt.data = &out;
	opt.event_cb = evo.f ? on_event : NULL;
	opt.span_cb = tlo.f ? on_span : NULL;
	opt.progress_cb = on_progress;
	double t0 = tool_now();
	int src = chakra_sim_new(&sim, &net, &sys, &opt);
	chakra_sim_trace_set_sim(out.trace, sim);
	if (src == 0 && file) {
		chakra_feeder_options fo = CHAKRA_FEEDER_OPTIONS_INIT;
		if (opt.deps)
			fo.deps = opt.deps;
		if (opt.window)
			fo.window = opt.window;
		src = chakra_feeder_open(&one, c.workload, &fo);
		if (src < 0) {
			tool_trace_err(c.workload, one ? chakra_feeder_errmsg(one) : chakra_strerror(src));
			goto out;
		}
	}
	if (src == 0) {
		tool_progress_start(&out.prog, "simulated nodes", 0);
		src = file ? chakra_sim_run(sim, &one, 1) : chakra_sim_run_prefix(sim, c.workload);
		tool_progress_end(&out.prog);
	}
	if (src < 0) {
		tool_err("%s", sim ? chakra_sim_errmsg(sim) : chakra_strerror(src));
		goto out;
	}
	/* (a failed write shows in the file's error flag: the commit says so) */
	if (out.trace && chakra_sim_trace_finish(out.trace) == CHAKRA_ENOMEM) {
		tool_err("out of memory");
		goto out;
	}
	double secs = tool_now() - t0;
	if ((tlo.f && tool_out_commit(&tlo) < 0) || (evo.f && tool_out_commit(&evo) < 0))
		goto out;
	sim_report_notes(sim, net.npus);
	sim_report_results(sim, &c, secs);
	rc = fflush(stdout) ? tool_err("cannot write the output") : 0;
out:
	tool_out_abort(&tlo); /* (nothing after a commit) */
	tool_out_abort(&evo);
	chakra_sim_trace_free(out.trace);
	chakra_sim_free(sim);
	chakra_feeder_close(one);
	chakra_sim_groups_free(&groups);
	free(scale);
	free(delay);
	free(c.scale.v);
	free(c.delay.v);
	return rc;
}
