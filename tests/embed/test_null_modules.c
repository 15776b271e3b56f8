/* SPDX-License-Identifier: Apache-2.0 */
/* The NULL rule of chakra.h for the experimental modules (sim, perf,
 * convert, synth, replay, graph, predict, astralog): every function with its handle, or each
 * pointer argument it cannot do without, given as NULL. A call that
 * crashes names itself (the step is printed from the signal handler);
 * chakra_sim_* and chakra_perf_* calls on a handle whose creation failed
 * are refused too (a failed chakra_sim could be run: a division by zero). */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef CHAKRA_EXPERIMENTAL
#define CHAKRA_EXPERIMENTAL
#endif
#include "chakra/chakra.h"
#include "chakra/experimental/astralog.h"
#include "chakra/experimental/convert.h"
#include "chakra/experimental/graph.h"
#include "chakra/experimental/perf.h"
#include "chakra/experimental/predict.h"
#include "chakra/experimental/replay.h"
#include "chakra/experimental/sim.h"
#include "chakra/experimental/synth.h"
#include "check.h"

static const char *volatile step = "start";

/* chakra_write_cb over a stdio stream (data = the FILE *). */
static int file_write(void *data, const void *buf, size_t len)
{
	return fwrite(buf, 1, len, (FILE *)data) == len ? 0 : -1;
}

static void on_crash(int sig)
{
	static const char m[] = "crashed in: ";
	ssize_t r = write(2, m, sizeof m - 1);
	r = write(2, step, strlen(step));
	r = write(2, "\n", 1);
	(void)r;
	signal(sig, SIG_DFL);
	raise(sig);
}

/* T(call): the call, named for the crash handler. */
#define T(call) (step = #call, (call))
#define EINVAL_(call) CHECK_MSG(T(call) == CHAKRA_EINVAL, "%s", #call)

int main(void)
{
	signal(SIGSEGV, on_crash);
	signal(SIGFPE, on_crash);
	signal(SIGBUS, on_crash);
	char err[256];

	/* ---- sim ---- */
	chakra_sim_network net;
	chakra_sim_system sys;
	chakra_sim_groups gs = { NULL, 0 };
	EINVAL_(chakra_sim_network_load(NULL, "n.yml", err, sizeof err));
	EINVAL_(chakra_sim_network_load(&net, NULL, err, sizeof err));
	EINVAL_(chakra_sim_network_parse(NULL, "n", "x", 1, err, sizeof err));
	EINVAL_(chakra_sim_network_check(NULL, err, sizeof err));
	EINVAL_(chakra_sim_system_load(NULL, "s.json", err, sizeof err));
	EINVAL_(chakra_sim_system_load(&sys, NULL, err, sizeof err));
	EINVAL_(chakra_sim_system_parse(NULL, "s", "{}", 2, err, sizeof err));
	EINVAL_(chakra_sim_groups_load(NULL, "g.json", 2, err, sizeof err));
	EINVAL_(chakra_sim_groups_load(&gs, NULL, 2, err, sizeof err));
	EINVAL_(chakra_sim_groups_parse(NULL, "g", "{}", 2, 2, err, sizeof err));
	T(chakra_sim_groups_free(NULL));
	CHECK(T(chakra_sim_groups_find(NULL, "g", 1)) == NULL);
	CHECK(T(chakra_sim_groups_find(&gs, NULL, 1)) == NULL);
	EINVAL_(chakra_sim_options_init(NULL, CHAKRA_SIM_OPTIONS_VERSION));
	chakra_sim *s = NULL;
	EINVAL_(chakra_sim_new(NULL, &net, &sys, NULL));
	/* a simulator whose creation failed: refused, not run */
	CHECK(T(chakra_sim_new(&s, NULL, NULL, NULL)) == CHAKRA_EINVAL);
	if (s) {
		chakra_feeder *none[1] = { NULL };
		CHECK(T(chakra_sim_run(s, none, 0)) == CHAKRA_EINVAL); /* ran with 0 NPUs */
		CHECK(strstr(chakra_sim_errmsg(s), "this simulator was not created") != NULL);
		CHECK(T(chakra_sim_run(s, NULL, 0)) < 0);
		CHECK(T(chakra_sim_run_prefix(s, "/nonexistent/w")) < 0);
		CHECK(T(chakra_sim_run_workload(s, NULL)) < 0);
		CHECK(strlen(T(chakra_sim_errmsg(s))) > 0);
		T(chakra_sim_free(s));
	}
	EINVAL_(chakra_sim_run(NULL, NULL, 0));
	EINVAL_(chakra_sim_run_workload(NULL, NULL));
	EINVAL_(chakra_sim_run_prefix(NULL, "w"));
	CHECK(T(chakra_sim_errmsg(NULL)) != NULL);
	CHECK(T(chakra_sim_warning(NULL)) == NULL); /* documented: NULL when none */
	CHECK(T(chakra_sim_npus(NULL)) == 0 && T(chakra_sim_finish(NULL)) == 0 &&
	      T(chakra_sim_npu(NULL, 0)) == NULL && T(chakra_sim_nodes(NULL)) == 0 &&
	      T(chakra_sim_events(NULL)) == 0 && T(chakra_sim_classes(NULL)) == 0 &&
	      T(chakra_sim_symmetry(NULL)) == NULL && T(chakra_sim_simulated(NULL, 0)) == 0 &&
	      T(chakra_sim_class_of(NULL, 0)) == UINT32_MAX &&
	      T(chakra_sim_representative(NULL, 0)) == UINT32_MAX);
	uint64_t wb;
	CHECK(T(chakra_sim_window(NULL, &wb, NULL)) == 0);
	T(chakra_sim_free(NULL));
	EINVAL_(chakra_sim_write_results(NULL, CHAKRA_SIM_RESULTS_JSON, file_write, stdout));
	chakra_sim_trace *st = NULL;
	EINVAL_(chakra_sim_trace_options_init(NULL, CHAKRA_SIM_TRACE_OPTIONS_VERSION));
	EINVAL_(chakra_sim_trace_new(NULL, NULL));
	EINVAL_(chakra_sim_trace_new(&st, NULL));
	EINVAL_(chakra_sim_trace_finish(NULL));
	T(chakra_sim_trace_set_sim(NULL, NULL));
	T(chakra_sim_trace_event(NULL, CHAKRA_SIM_ISSUE, 0, 0, NULL));
	T(chakra_sim_trace_span(NULL, 0, 0, NULL, 0, 1));
	T(chakra_sim_trace_free(NULL));

	/* ---- perf ---- */
	chakra_perf *r = NULL;
	EINVAL_(chakra_perf_new(NULL));
	EINVAL_(chakra_perf_options_init(NULL, CHAKRA_PERF_OPTIONS_VERSION));
	T(chakra_perf_free(NULL));
	CHECK(T(chakra_perf_errmsg(NULL)) != NULL);
	EINVAL_(chakra_perf_load(NULL, "p"));
	EINVAL_(chakra_perf_load_file(NULL, "p.et", NULL, 0, 0));
	CHECK(T(chakra_perf_between_count(NULL, "a")) == CHAKRA_EINVAL);
	chakra_perf *d = NULL;
	EINVAL_(chakra_perf_between(NULL, "a", 0, &d));
	EINVAL_(chakra_perf_between_range(NULL, "a", 0, 1, &d));
	CHECK(T(chakra_perf_resource(NULL, 0, 0, 0, 0)) == CHAKRA_EINVAL);
	CHECK(T(chakra_perf_op_add(NULL, NULL)) == CHAKRA_EINVAL);
	EINVAL_(chakra_perf_edge_add(NULL, 0, 1));
	EINVAL_(chakra_perf_dep_add(NULL, 0, 1, CHAKRA_PERF_DEP_INFER));
	EINVAL_(chakra_perf_rank_given(NULL, 0, 0));
	EINVAL_(chakra_perf_window(NULL, 0, 0, 1, -1));
	EINVAL_(chakra_perf_run(NULL, NULL));
	CHECK(T(chakra_perf_breakdown_of(NULL, -1)) == NULL);
	CHECK(T(chakra_perf_ranks(NULL)) == 0 && T(chakra_perf_op_count(NULL)) == 0 &&
	      T(chakra_perf_edge_count(NULL)) == 0 && T(chakra_perf_critical_rank(NULL)) == 0 &&
	      T(chakra_perf_iterations(NULL)) == 0 && T(chakra_perf_unknown_deps(NULL)) == 0 &&
	      T(chakra_perf_dropped_edges(NULL)) == 0 && T(chakra_perf_thread_waits(NULL)) == 0 &&
	      T(chakra_perf_resource_count(NULL)) == 0 && T(chakra_perf_path_length(NULL)) == 0 &&
	      T(chakra_perf_path(NULL)) == NULL);
	chakra_perf_resource_info ri;
	chakra_perf_op_info oi;
	EINVAL_(chakra_perf_resource_info_of(NULL, 0, &ri));
	EINVAL_(chakra_perf_op_info_of(NULL, 0, &oi));
	CHECK(T(chakra_perf_has_edge(NULL, 0, 1)) <= 0);
	CHECK(T(chakra_perf_new(&r)) == 0);
	EINVAL_(chakra_perf_load(r, NULL));
	EINVAL_(chakra_perf_load_file(r, NULL, NULL, 0, 0));
	CHECK(T(chakra_perf_op_add(r, NULL)) == CHAKRA_EINVAL);
	CHECK(T(chakra_perf_between_count(r, NULL)) == CHAKRA_EINVAL);
	EINVAL_(chakra_perf_between(r, NULL, 0, &d));
	EINVAL_(chakra_perf_between(r, "a", 0, NULL));
	EINVAL_(chakra_perf_resource_info_of(r, 0, NULL));
	EINVAL_(chakra_perf_op_info_of(r, 0, NULL));
	T(chakra_perf_free(r));
	chakra_project_options po = CHAKRA_PROJECT_OPTIONS_INIT;
	EINVAL_(chakra_project_options_init(NULL, CHAKRA_PROJECT_OPTIONS_VERSION));
	EINVAL_(chakra_project(NULL, "o", &po, err, sizeof err));
	EINVAL_(chakra_project("p", NULL, &po, err, sizeof err));
	EINVAL_(chakra_project("p", "o", NULL, err, sizeof err));

	/* ---- convert ---- */
	chakra_convert_result cr;
	EINVAL_(chakra_convert_options_init(NULL, CHAKRA_CONVERT_OPTIONS_VERSION));
	EINVAL_(chakra_convert_pytorch(NULL, "o.et", NULL, &cr));
	EINVAL_(chakra_convert_pytorch("e.json", NULL, NULL, &cr));
	EINVAL_(chakra_convert_pytorch(NULL, NULL, NULL, NULL));
	EINVAL_(chakra_convert_kineto(NULL, "o.et", NULL, &cr));
	EINVAL_(chakra_convert_kineto("k.json", NULL, NULL, NULL));
	EINVAL_(chakra_convert_ranks(NULL, NULL, "o", NULL, &cr, NULL, 0, NULL));
	EINVAL_(chakra_convert_ranks("e{R}.json", NULL, NULL, NULL, &cr, NULL, 0, NULL));
	EINVAL_(chakra_convert_summary_print(NULL, file_write, stderr));
	EINVAL_(chakra_convert_summary_print(&cr.summary, NULL, stderr));

	/* ---- synth ---- */
	EINVAL_(chakra_synth_fit_options_init(NULL, CHAKRA_SYNTH_FIT_OPTIONS_VERSION));
	EINVAL_(chakra_synth_sample_options_init(NULL, CHAKRA_SYNTH_SAMPLE_OPTIONS_VERSION));
	EINVAL_(chakra_synth_anonymize_options_init(NULL, CHAKRA_SYNTH_ANONYMIZE_OPTIONS_VERSION));
	{ /* options_init: the _INIT value for a known version, EINVAL otherwise */
		chakra_synth_fit_options fo, fd = CHAKRA_SYNTH_FIT_OPTIONS_INIT;
		memset(&fo, 0xff, sizeof fo);
		CHECK(chakra_synth_fit_options_init(&fo, CHAKRA_SYNTH_FIT_OPTIONS_VERSION) == 0);
		CHECK(fo.version == fd.version && fo.max_order == fd.max_order && !fo.comm_groups);
		CHECK(chakra_synth_fit_options_init(&fo, 0) == CHAKRA_EINVAL);
		CHECK(chakra_synth_fit_options_init(&fo, CHAKRA_SYNTH_FIT_OPTIONS_VERSION + 1) ==
		      CHAKRA_EINVAL);
		chakra_synth_anonymize_options ao, ad = CHAKRA_SYNTH_ANONYMIZE_OPTIONS_INIT;
		memset(&ao, 0xff, sizeof ao);
		CHECK(chakra_synth_anonymize_options_init(&ao, 1) == 0 && ao.perturb == ad.perturb);
		chakra_synth_sample_options so;
		CHECK(chakra_synth_sample_options_init(&so, 1) == 0 && so.version == 1);
	}
	chakra_synth_model *m = NULL;
	char **paths = NULL;
	size_t np = 0;
	EINVAL_(chakra_synth_expand(NULL, &paths, &np, err, sizeof err));
	EINVAL_(chakra_synth_expand("x", NULL, &np, err, sizeof err));
	const char *one[] = { "t.et" };
	EINVAL_(chakra_synth_fit(NULL, one, 1, NULL, err, sizeof err));
	EINVAL_(chakra_synth_fit(&m, NULL, 1, NULL, err, sizeof err));
	T(chakra_synth_model_free(NULL));
	EINVAL_(chakra_synth_model_save(NULL, "m.json", 0, err, sizeof err));
	EINVAL_(chakra_synth_model_parse(NULL, "m", "{}", 2, err, sizeof err));
	EINVAL_(chakra_synth_model_parse(&m, "m", NULL, 2, err, sizeof err));
	EINVAL_(chakra_synth_model_load(NULL, "m.json", err, sizeof err));
	EINVAL_(chakra_synth_model_load(&m, NULL, err, sizeof err));
	chakra_synth_fit_notes notes;
	T(chakra_synth_model_notes(NULL, &notes));
	CHECK(T(chakra_synth_model_nodes_per_rank(NULL)) == 0);
	CHECK(T(chakra_synth_model_markov_order(NULL)) == CHAKRA_EINVAL);
	chakra_synth_sample_options so = CHAKRA_SYNTH_SAMPLE_OPTIONS_INIT;
	EINVAL_(chakra_synth_sample(NULL, "p", &so, err, sizeof err));
	chakra_synth_report *rep = NULL;
	EINVAL_(chakra_synth_compare(NULL, one, 1, one, 1, err, sizeof err));
	EINVAL_(chakra_synth_compare(&rep, NULL, 1, one, 1, err, sizeof err));
	CHECK(T(chakra_synth_report_count(NULL)) == 0 && T(chakra_synth_report_at(NULL, 0)) == NULL);
	double q[2];
	EINVAL_(chakra_synth_report_quantiles(NULL, 0, 0, 2, q));
	T(chakra_synth_report_free(NULL));
	EINVAL_(chakra_synth_anonymize(NULL, "o.et", NULL, NULL, err, sizeof err));
	EINVAL_(chakra_synth_anonymize("i.et", NULL, NULL, NULL, err, sizeof err));
	EINVAL_(chakra_synth_simready(NULL, "o.et", 0, NULL, err, sizeof err));
	EINVAL_(chakra_synth_simready("i.et", NULL, 0, NULL, err, sizeof err));
	CHECK(T(chakra_synth_op_class(NULL)) != NULL);

	/* ---- replay (the MPI-independent half) ---- */
	EINVAL_(chakra_replay_plan_options_init(NULL, CHAKRA_REPLAY_PLAN_OPTIONS_VERSION));
	{
		chakra_replay_plan_options po;
		memset(&po, 0xff, sizeof po);
		CHECK(chakra_replay_plan_options_init(&po, CHAKRA_REPLAY_PLAN_OPTIONS_VERSION) == 0);
		CHECK(po.version == 1 && po.rank == 0 && !po.topo && po.deps == CHAKRA_DEPS_DATA);
		CHECK(chakra_replay_plan_options_init(&po, 2) == CHAKRA_EINVAL);
	}
	uint32_t dims[4];
	EINVAL_(chakra_replay_dims_parse(NULL, dims, 4));
	EINVAL_(chakra_replay_dims_parse("2x2", NULL, 4));
	chakra_replay_scope sc = { CHAKRA_REPLAY_SCOPE_DIMS, 0 };
	EINVAL_(chakra_replay_scope_of(NULL, 0, NULL, &sc, err, sizeof err));
	CHECK(T(chakra_replay_scope_slots(NULL)) == 0);
	T(chakra_replay_scope_describe(NULL, sc, err, sizeof err));
	chakra_replay_plan *pl = NULL;
	chakra_replay_plan_options plo = CHAKRA_REPLAY_PLAN_OPTIONS_INIT;
	EINVAL_(chakra_replay_plan_build(NULL, "p.et", &plo, err, sizeof err));
	EINVAL_(chakra_replay_plan_build(&pl, NULL, &plo, err, sizeof err));
	EINVAL_(chakra_replay_plan_build(&pl, "p.et", NULL, err, sizeof err));
	T(chakra_replay_plan_free(NULL));
	CHECK(T(chakra_replay_plan_op_count(NULL)) == 0 && T(chakra_replay_plan_ops(NULL)) == NULL &&
	      T(chakra_replay_plan_channel_count(NULL)) == 0 &&
	      T(chakra_replay_plan_channels(NULL)) == NULL &&
	      T(chakra_replay_plan_find(NULL, 1)) == NULL &&
	      T(chakra_replay_plan_node_count(NULL)) == 0 &&
	      T(chakra_replay_plan_compute_count(NULL)) == 0 &&
	      T(chakra_replay_plan_compute_ns(NULL)) == 0 && T(chakra_replay_compute_ns(NULL)) == 0);
	chakra_replay_entry *ents = NULL;
	CHECK(T(chakra_replay_channel_entries(NULL, 0, &ents)) == CHAKRA_EINVAL);
	CHECK(T(chakra_replay_p2p_entries(NULL, CHAKRA_REPLAY_SEND, 0, &ents)) == CHAKRA_EINVAL);
	CHECK(T(chakra_replay_coll_diff("s", NULL, 2, NULL, NULL, err, sizeof err)) ==
	      CHAKRA_EINVAL);
	CHECK(T(chakra_replay_p2p_diff(0, 1, NULL, 1, NULL, 1, err, sizeof err)) == CHAKRA_EINVAL);
	chakra_replay_layout lay;
	EINVAL_(chakra_replay_layout_of(CHAKRA_ALL_REDUCE, 8, 2, 0, NULL));
	chakra_replay_sim rs;
	EINVAL_(chakra_replay_sim_run(NULL, NULL, NULL, NULL, CHAKRA_DEPS_DATA, &rs, err, sizeof err));
	EINVAL_(chakra_replay_sim_run("p", NULL, NULL, NULL, CHAKRA_DEPS_DATA, NULL, err, sizeof err));
	CHECK(T(chakra_replay_sim_node_ns(NULL, 0, 1)) == -1);
	T(chakra_replay_sim_free(NULL));
	CHECK(T(chakra_replay_stats_row(NULL, NULL)) == NULL);
	EINVAL_(chakra_replay_stats_merge(NULL, NULL, 1));
	T(chakra_replay_stats_sort(NULL));
	T(chakra_replay_stats_free(NULL));
	EINVAL_(chakra_replay_report_text(NULL, NULL, NULL));
	EINVAL_(chakra_replay_report_text(file_write, NULL, NULL));
	EINVAL_(chakra_replay_report_json(NULL, NULL, NULL));
	(void)lay;

	/* ---- graph ---- */
	T(chakra_idmap_free(NULL));
	EINVAL_(chakra_idmap_put(NULL, 1, 1, NULL));
	EINVAL_(chakra_idmap_set(NULL, 1, 1));
	CHECK(T(chakra_idmap_get(NULL, 1)) == CHAKRA_GRAPH_NONE && T(chakra_idmap_count(NULL)) == 0);
	T(chakra_graph_free(NULL));
	CHECK(T(chakra_graph_add(NULL, 1, NULL, 0, NULL, 0, NULL)) == CHAKRA_EINVAL);
	chakra_graph *g = chakra_graph_new();
	uint64_t one_parent = 7;
	CHECK(T(chakra_graph_add(g, 1, NULL, 1, NULL, 0, NULL)) == CHAKRA_EINVAL);
	CHECK(T(chakra_graph_add(g, 1, &one_parent, 1, NULL, 0, NULL)) == 0);
	chakra_graph_free(g);
	CHECK(T(chakra_graph_count(NULL)) == 0 && T(chakra_graph_edge_count(NULL)) == 0 &&
	      T(chakra_graph_id(NULL, 0)) == 0 && T(chakra_graph_find(NULL, 1)) == CHAKRA_GRAPH_NONE);
	EINVAL_(chakra_graph_resolve(NULL, NULL, NULL));
	const uint32_t *edges;
	CHECK(T(chakra_graph_parents(NULL, 0, &edges)) == 0);
	CHECK(T(chakra_graph_children(NULL, 0, &edges)) == CHAKRA_EINVAL);
	EINVAL_(chakra_graph_has_cycle(NULL, CHAKRA_GRAPH_BOTH));

	/* ---- astralog ---- */
	{
		chakra_astralog *log = NULL;
		chakra_astralog_options ao = CHAKRA_ASTRALOG_OPTIONS_INIT;
		uint32_t lanes;
		size_t n = 1;
		uint64_t first = 1;
		EINVAL_(chakra_astralog_options_init(NULL, CHAKRA_ASTRALOG_OPTIONS_VERSION));
		EINVAL_(chakra_astralog_options_init(&ao, 0));
		EINVAL_(chakra_astralog_new(&ao, NULL));
		ao.npus = 0;
		EINVAL_(chakra_astralog_new(&ao, &log));
		CHECK(log == NULL);
		T(chakra_astralog_free(NULL));
		EINVAL_(chakra_astralog_line(NULL, "issue", 5, 1));
		EINVAL_(chakra_astralog_lanes(NULL, &lanes));
		CHECK(T(chakra_astralog_events(NULL, &n)) == NULL && n == 0);
		n = 1;
		CHECK(T(chakra_astralog_issues(NULL, &n)) == NULL && n == 0);
		CHECK(strcmp(T(chakra_astralog_names(NULL, &n)), "") == 0 && n == 0);
		CHECK(T(chakra_astralog_skipped(NULL, &first)) == 0 && first == 0);
		CHECK(strcmp(T(chakra_astralog_errmsg(NULL)), "") == 0);
		ao.npus = 1;
		CHECK(T(chakra_astralog_new(NULL, &log)) == 0);
		EINVAL_(chakra_astralog_line(log, NULL, 3, 1));
		EINVAL_(chakra_astralog_lanes(log, NULL));
		CHECK(T(chakra_astralog_line(log, "issue,npu_id=0", 14, 7)) == CHAKRA_ECORRUPT);
		CHECK_MSG(strcmp(chakra_astralog_errmsg(log),
		                 "<log>:7: missing field(s): cycle node_id node_name (format: "
		                 "issue,npu_id=N,cycle=C,node_id=I,node_name=S)") == 0,
		          "%s", chakra_astralog_errmsg(log));
		chakra_astralog_free(log);
	}

	/* ---- predict ---- */
	{
		chakra_gpt_config c = CHAKRA_GPT_CONFIG_INIT;
		chakra_gpu_model m;
		chakra_cluster_net n;
		chakra_gpt_prediction p;
		chakra_gpt_memory mem;
		chakra_predict_options po = CHAKRA_PREDICT_OPTIONS_INIT;
		chakra_calibrate_options co = CHAKRA_CALIBRATE_OPTIONS_INIT;
		chakra_gpt_measurement *rows = NULL;
		chakra_nccl_measurement *nrows = NULL;
		chakra_gpt_layout_result *lr = NULL;
		size_t nr = 0;
		double us;
		CHECK(chakra_gpu_model_preset(&m, "a100", NULL, 0) == 0);
		CHECK(chakra_cluster_net_preset(&n, "dgx-a100", NULL, 0) == 0);
		EINVAL_(chakra_gpt_config_init(NULL, CHAKRA_GPT_CONFIG_VERSION));
		EINVAL_(chakra_gpt_config_check(NULL, err, sizeof err));
		EINVAL_(chakra_gpu_model_init(NULL, CHAKRA_GPU_MODEL_VERSION));
		EINVAL_(chakra_gpu_model_preset(NULL, "a100", err, sizeof err));
		EINVAL_(chakra_gpu_model_preset(&m, NULL, err, sizeof err));
		EINVAL_(chakra_gpu_model_load(NULL, "m.json", err, sizeof err));
		EINVAL_(chakra_gpu_model_load(&m, NULL, err, sizeof err));
		EINVAL_(chakra_gpu_model_parse(NULL, "m", "{}", 2, err, sizeof err));
		EINVAL_(chakra_gpu_model_parse(&m, "m", NULL, 2, err, sizeof err));
		EINVAL_(chakra_cluster_net_init(NULL, CHAKRA_CLUSTER_NET_VERSION));
		EINVAL_(chakra_cluster_net_preset(NULL, "dgx-a100", err, sizeof err));
		EINVAL_(chakra_cluster_net_preset(&n, NULL, err, sizeof err));
		EINVAL_(chakra_cluster_net_load(NULL, "n.json", err, sizeof err));
		EINVAL_(chakra_cluster_net_load(&n, NULL, err, sizeof err));
		EINVAL_(chakra_cluster_net_parse(NULL, "n", "{}", 2, err, sizeof err));
		EINVAL_(chakra_cluster_net_parse(&n, "n", NULL, 2, err, sizeof err));
		EINVAL_(chakra_gpu_model_json(NULL, NULL, NULL));
		EINVAL_(chakra_gpu_model_json(&m, NULL, NULL));
		EINVAL_(chakra_cluster_net_json(NULL, NULL, NULL));
		EINVAL_(chakra_cluster_net_json(&n, NULL, NULL));
		EINVAL_(chakra_collective_predict(NULL, CHAKRA_OP_ALL_REDUCE, 8, 1, &us, err, sizeof err));
		EINVAL_(chakra_collective_predict(&n, CHAKRA_OP_ALL_REDUCE, 8, 1, NULL, err, sizeof err));
		EINVAL_(chakra_gpt_memory_estimate(NULL, &m, &mem, err, sizeof err));
		EINVAL_(chakra_gpt_memory_estimate(&c, &m, NULL, err, sizeof err));
		EINVAL_(chakra_predict_options_init(NULL, CHAKRA_PREDICT_OPTIONS_VERSION));
		EINVAL_(chakra_gpt_predict(NULL, &m, &n, &po, &p, err, sizeof err));
		EINVAL_(chakra_gpt_predict(&c, NULL, &n, &po, &p, err, sizeof err));
		EINVAL_(chakra_gpt_predict(&c, &m, &n, &po, NULL, err, sizeof err));
		EINVAL_(chakra_gpt_write_rank(NULL, &m, &n, NULL, 0, 0, NULL, NULL, err, sizeof err));
		EINVAL_(chakra_gpt_write_rank(&c, &m, &n, NULL, 0, 0, NULL, NULL, err, sizeof err));
		EINVAL_(chakra_gpt_write_groups(NULL, NULL, NULL, NULL));
		EINVAL_(chakra_gpt_write_network(NULL, &n, NULL, NULL));
		EINVAL_(chakra_gpt_write_system(NULL, &n, NULL, NULL));
		EINVAL_(chakra_gpt_measurements_load(NULL, &rows, &nr, err, sizeof err));
		EINVAL_(chakra_gpt_measurements_load("x.csv", NULL, &nr, err, sizeof err));
		EINVAL_(chakra_gpt_measurements_parse("x", NULL, 1, &rows, &nr, err, sizeof err));
		EINVAL_(chakra_gpt_measurements_parse("x", "a", 1, &rows, NULL, err, sizeof err));
		EINVAL_(chakra_calibrate_options_init(NULL, CHAKRA_CALIBRATE_OPTIONS_VERSION));
		EINVAL_(chakra_calibrate_compute(NULL, &n, rows, 0, &co, err, sizeof err));
		EINVAL_(chakra_calibrate_compute(&m, NULL, rows, 0, &co, err, sizeof err));
		EINVAL_(chakra_calibrate_compute(&m, &n, NULL, 1, &co, err, sizeof err));
		EINVAL_(chakra_nccl_log_load(NULL, &nrows, &nr, err, sizeof err));
		EINVAL_(chakra_nccl_log_load("x.log", NULL, &nr, err, sizeof err));
		EINVAL_(chakra_nccl_log_parse("x", NULL, 1, &nrows, &nr, err, sizeof err));
		EINVAL_(chakra_calibrate_nccl(NULL, nrows, 0, 1, err, sizeof err));
		EINVAL_(chakra_calibrate_nccl(&n, NULL, 1, 1, err, sizeof err));
		EINVAL_(chakra_gpt_sweep(NULL, 8, &m, &n, NULL, &lr, &nr, err, sizeof err));
		EINVAL_(chakra_gpt_sweep(&c, 8, NULL, &n, NULL, &lr, &nr, err, sizeof err));
		EINVAL_(chakra_gpt_sweep(&c, 8, &m, &n, NULL, NULL, &nr, err, sizeof err));
		T(chakra_predict_free(NULL));
	}

	step = "done";
	return check_done();
}
