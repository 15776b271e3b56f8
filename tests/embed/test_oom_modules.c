/* SPDX-License-Identifier: Apache-2.0 */
/* Allocation-failure sweep of the experimental modules, as test_oom.c does
 * for the core: through the allocator hook the k-th allocation fails, for
 * every k a clean run makes, in the graph (ids mapped, resolved, longest
 * paths, cycles), the converter (a PyTorch ET and a Kineto trace, gzip,
 * through YAJL), synth (fit, the model as JSON and back), perf (load and
 * run), the replay report (JSON through YAJL, text), the JSON codec (an ET
 * to JSON and back), the trace checks (deep), the simulator (network
 * YAML, system JSON, groups, runs over a workload prefix, both network
 * models, with and without the symmetry reduction), the event log (lines
 * of both formats, lanes) and the text-workload converter (a
 * hybrid-parallel MLP as four ranks' ETs and their groups, written under
 * the output rule) and predict (presets, a 3D-parallel GPT iteration
 * through the simulator, measurements as CSV). Each run ends in
 * success or in CHAKRA_ENOMEM, and leaves no block behind; the hook's
 * blocks are offset (oomhook.h), so one freed by the C library's free
 * crashes. */
#ifndef CHAKRA_EXPERIMENTAL
#define CHAKRA_EXPERIMENTAL
#endif
#include <chakra/chakra.h>
#include <chakra/experimental/astralog.h>
#include <chakra/experimental/check.h>
#include <chakra/experimental/convert.h>
#include <chakra/experimental/gen.h>
#include <chakra/experimental/graph.h>
#include <chakra/experimental/jsonet.h>
#include <chakra/experimental/perf.h>
#include <chakra/experimental/predict.h>
#include <chakra/experimental/replay.h>
#include <chakra/experimental/sim.h>
#include <chakra/experimental/synth.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "oomhook.h"
#include "tbuild.h"

#define STEP(expr)                          \
	do {                                    \
		long long rc_ = (expr);             \
		if (rc_ < 0 && first == 0)          \
			first = (int)rc_;               \
	} while (0)

static tbuf trace;          /* a generated trace, in memory */
static char trace_path[96]; /* ... and as a file */
static const char *et_json, *kineto_json, *text_wl;
static char gen_prefix[96];

static int scenario_graph(void)
{
	int first = 0;
	chakra_graph *g = chakra_graph_new();
	if (!g)
		return CHAKRA_ENOMEM;
	/* ids out of order (the hashed map), parents added later, a cycle */
	for (uint64_t i = 0; i < 300 && first == 0; i++) {
		uint64_t id = (i * 37) % 300 + 1000, deps[2] = { id + 1, id > 1000 ? id - 1 : 5 };
		STEP(chakra_graph_add(g, id, deps, 2, NULL, 0, NULL));
	}
	if (first == 0)
		STEP(chakra_graph_resolve(g, NULL, NULL));
	if (first == 0) {
		static uint64_t dist[300];
		for (size_t i = 0; i < 300; i++)
			dist[i] = i;
		chakra_graph_paths paths;
		STEP(chakra_graph_longest(g, CHAKRA_GRAPH_DATA, dist, NULL, NULL, &paths));
		STEP(chakra_graph_has_cycle(g, CHAKRA_GRAPH_DATA));
		STEP(chakra_graph_cycles(g, CHAKRA_GRAPH_DATA, NULL, NULL));
		const uint32_t *ch;
		STEP(chakra_graph_children(g, 0, &ch));
	}
	chakra_graph_free(g);
	return first;
}

static int scenario_convert(int kineto)
{
	chakra_convert_options o = CHAKRA_CONVERT_OPTIONS_INIT;
	tbuf out = { 0 };
	o.out_cb = tbuf_write;
	o.out_data = &out;
	chakra_convert_result r;
	int rc = kineto ? chakra_convert_kineto(kineto_json, "out.et", &o, &r)
	                : chakra_convert_pytorch(et_json, "out.et", &o, &r);
	if (rc < 0 && rc != CHAKRA_ENOMEM)
		fprintf(stderr, "convert: %s\n", r.errmsg);
	free(out.p);
	return rc;
}

static int scenario_synth(void)
{
	int first = 0;
	const char *paths[1] = { trace_path };
	chakra_synth_model *m = NULL, *m2 = NULL;
	char err[512];
	STEP(chakra_synth_fit(&m, paths, 1, NULL, err, sizeof err));
	if (first == 0) {
		size_t len;
		char *j = chakra_synth_model_json(m, &len);
		if (!j)
			STEP(CHAKRA_ENOMEM);
		else
			STEP(chakra_synth_model_parse(&m2, "m.json", j, len, err, sizeof err));
		chakra_free(j);
	}
	if (first && first != CHAKRA_ENOMEM)
		fprintf(stderr, "synth: %s\n", err);
	chakra_synth_model_free(m2);
	chakra_synth_model_free(m);
	return first;
}

static int scenario_perf(void)
{
	int first = 0;
	chakra_perf *r = NULL;
	STEP(chakra_perf_new(&r));
	if (first == 0)
		STEP(chakra_perf_load_file(r, "trace.et", trace.p, trace.len, 0));
	chakra_perf_options o = CHAKRA_PERF_OPTIONS_INIT;
	if (first == 0)
		STEP(chakra_perf_run(r, &o));
	if (first && first != CHAKRA_ENOMEM)
		fprintf(stderr, "perf: %s\n", chakra_perf_errmsg(r));
	chakra_perf_free(r);
	return first;
}

static int scenario_replay_report(void)
{
	int first = 0;
	chakra_replay_stat rows[2];
	memset(rows, 0, sizeof rows);
	rows[0].kind = CHAKRA_REPLAY_COLL;
	rows[0].nmembers = 2;
	rows[0].size = 1048576;
	rows[1].comm_type = -1;
	rows[1].nmembers = 2;
	rows[1].size = 1000;
	rows[0].count = 2;
	rows[0].sum = 4e-3;
	rows[0].min = 1e-3;
	rows[0].max = 3e-3;
	rows[1].kind = CHAKRA_REPLAY_SEND;
	rows[1].count = 1;
	rows[1].sum = rows[1].min = rows[1].max = 1e-6;
	chakra_replay_stats st = { rows, 2, 2 };
	chakra_replay_rank_times rt[2] = { { 4e-3, 1e-3, 3e-3, 2.5e-3, 5, 2e-3, 1e-3 },
	                                   { 5e-3, 0, 4e-3, 4e-3, 5, 2e-3, 1e-3 } };
	chakra_replay_report rep = { "wl", 2, 2, 1, "sleep", "wl.comm_groups.json", "data", 1, &st,
	                             rt };
	tbuf out = { 0 };
	STEP(chakra_replay_report_json(tbuf_write, &out, &rep));
	STEP(chakra_replay_report_text(tbuf_write, &out, &rep));
	free(out.p);
	return first;
}

static int scenario_jsonet(void)
{
	int first = 0;
	chakra_reader *r = NULL;
	tbuf json = { 0 }, et = { 0 };
	chakra_jsonet_options o = CHAKRA_JSONET_OPTIONS_INIT;
	chakra_jsonet_result res;
	STEP(chakra_reader_open_buffer(&r, trace.p, trace.len, NULL));
	if (first == 0)
		STEP(chakra_jsonet_jsonize(r, tbuf_write, &json, &o, &res));
	chakra_reader_close(r);
	if (first == 0)
		STEP(chakra_jsonet_pack_buffer(json.p, json.len, tbuf_write, &et, &o, &res));
	if (first == 0)
		CHECK_MSG(et.len == trace.len && !memcmp(et.p, trace.p, et.len),
		          "jsonet: the ET packed back differs from the one jsonized");
	if (first && first != CHAKRA_ENOMEM)
		fprintf(stderr, "jsonet: %s\n", res.errmsg);
	free(json.p);
	free(et.p);
	return first;
}

static int scenario_check(void)
{
	chakra_check_options o = CHAKRA_CHECK_OPTIONS_INIT;
	o.deep = 1;
	chakra_check_result res;
	int rc = chakra_check_trace(trace_path, &o, NULL, NULL, &res);
	return rc == 1 ? CHAKRA_ECORRUPT : rc;
}

static char sim_net[4096], sim_sys[4096], sim_prefix[4096];

static int sink(void *data, const void *buf, size_t len)
{
	(void)data, (void)buf, (void)len;
	return 0;
}

static int scenario_sim(void)
{
	chakra_sim_network net;
	chakra_sim_system sys;
	chakra_sim_groups gs = { NULL, 0 };
	char err[512];
	static const char groups[] = "{\"1\": [0, 1], \"2\": [2, 3], \"3\": [3, 2, 1, 0]}";
	int rc = chakra_sim_network_load(&net, sim_net, err, sizeof err);
	if (rc == 0)
		rc = chakra_sim_system_load(&sys, sim_sys, err, sizeof err);
	if (rc == 0)
		rc = chakra_sim_groups_parse(&gs, "groups.json", groups, sizeof groups - 1, 4, err,
		                             sizeof err);
	for (int v = 0; v < 3 && rc == 0; v++) {
		chakra_sim_options o = CHAKRA_SIM_OPTIONS_INIT;
		o.groups = &gs;
		o.model = v == 1 ? CHAKRA_SIM_AWARE : CHAKRA_SIM_UNAWARE;
		o.no_symmetry = v == 2;
		chakra_sim *s = NULL;
		chakra_sim_trace *t = NULL; /* the first run also writes its events as text */
		chakra_sim_trace_options to = CHAKRA_SIM_TRACE_OPTIONS_INIT;
		to.npus = net.npus;
		to.events = to.timeline = sink;
		if (v == 0 && (rc = chakra_sim_trace_new(&t, &to)) == 0) {
			o.data = t;
			o.event_cb = chakra_sim_trace_event;
			o.span_cb = chakra_sim_trace_span;
		}
		if (rc == 0)
			rc = chakra_sim_new(&s, &net, &sys, &o);
		chakra_sim_trace_set_sim(t, s);
		if (rc == 0)
			rc = chakra_sim_run_prefix(s, sim_prefix);
		if (rc == 0 && chakra_sim_finish(s) == 0)
			rc = CHAKRA_ECORRUPT; /* the all-reduce takes time */
		if (rc == 0 && t)
			rc = chakra_sim_trace_finish(t);
		chakra_sim_trace_free(t);
		chakra_sim_free(s);
	}
	chakra_sim_groups_free(&gs);
	return rc;
}

/* An event log: Chakra's lines and ASTRA-sim's (with its logger prefix and
 * a line that is not an event), overlapping nodes on two NPUs, one issue
 * left open. */
static int scenario_astralog(void)
{
	static const char *lines[] = {
		"issue,npu_id=0,cycle=0,node_id=1,node_name=gemm, fused",
		("[2024-05-01T10:00:00+0000] [D] <workload>: issue,sys->id=0, tick=5, node->id=2, "
		 "node->name=allreduce, node->type=7"),
		"[2024-05-01T10:00:00+0000] [I] <sys>: not an event",
		"issue,npu_id=1,cycle=2,node_id=1,node_name=gemm",
		"callback,npu_id=0,cycle=9,node_id=1,node_name=gemm, fused",
		"callback,npu_id=0,cycle=12,node_id=2,node_name=allreduce",
		"issue,npu_id=0,cycle=12,node_id=1,node_name=gemm again",
		"callback,npu_id=1,cycle=30,node_id=1,node_name=gemm",
		"issue,npu_id=1,cycle=31,node_id=4,node_name=open",
	};
	chakra_astralog_options o;
	int rc = chakra_astralog_options_init(&o, CHAKRA_ASTRALOG_OPTIONS_VERSION);
	if (rc < 0)
		return rc;
	o.npus = 2;
	o.name = "events.log";
	chakra_astralog *log;
	if ((rc = chakra_astralog_new(&o, &log)) < 0)
		return rc;
	for (size_t i = 0; i < sizeof lines / sizeof lines[0] && rc == 0; i++)
		rc = chakra_astralog_line(log, lines[i], strlen(lines[i]), i + 1);
	uint32_t lanes = 0;
	if (rc == 0)
		rc = chakra_astralog_lanes(log, &lanes);
	size_t n_ev = 0, n_iss = 0;
	chakra_astralog_events(log, &n_ev);
	chakra_astralog_issues(log, &n_iss);
	if (rc == 0 && (n_ev != 3 || n_iss != 5 || lanes != 2 ||
	                chakra_astralog_skipped(log, NULL) != 1))
		rc = CHAKRA_ECORRUPT; /* a clean run parses the same */
	if (rc < 0 && rc != CHAKRA_ENOMEM)
		fprintf(stderr, "astralog: %s\n", chakra_astralog_errmsg(log));
	chakra_astralog_free(log);
	return rc;
}

static int scenario_gen(void)
{
	chakra_gen_options o;
	int rc = chakra_gen_options_init(&o, CHAKRA_GEN_OPTIONS_VERSION);
	if (rc < 0)
		return rc;
	o.npus = 4;
	o.force = 1; /* each run writes the same files again */
	chakra_gen_text_options t = CHAKRA_GEN_TEXT_OPTIONS_INIT;
	t.passes = 2;
	return chakra_gen_text(text_wl, gen_prefix, &o, &t);
}

/* gen: a hybrid-parallel DLRM, two passes, the same four ranks' files. */
static int scenario_gen_model(void)
{
	chakra_gen_options o;
	int rc = chakra_gen_options_init(&o, CHAKRA_GEN_OPTIONS_VERSION);
	if (rc < 0)
		return rc;
	o.npus = 4;
	o.force = 1;
	chakra_gen_model_options m;
	if ((rc = chakra_gen_model_options_init(&m, CHAKRA_GEN_MODEL_OPTIONS_VERSION)) < 0)
		return rc;
	m.model = CHAKRA_GEN_MODEL_DLRM;
	m.parallel = CHAKRA_GEN_PARALLEL_HYBRID;
	m.bottom = m.top = 2;
	m.passes = 2;
	return chakra_gen_model(gen_prefix, &o, &m);
}

/* gen: a send/recv ring of four ranks, as ASTRA-sim's microbenchmarks. */
static int scenario_gen_micro(void)
{
	chakra_gen_options o;
	int rc = chakra_gen_options_init(&o, CHAKRA_GEN_OPTIONS_VERSION);
	if (rc < 0)
		return rc;
	o.npus = 4;
	o.force = 1;
	o.groups_path = "";
	chakra_gen_micro_options m;
	if ((rc = chakra_gen_micro_options_init(&m, CHAKRA_GEN_MICRO_OPTIONS_VERSION)) < 0)
		return rc;
	m.comm_type = CHAKRA_GEN_MICRO_RING;
	m.size = 1 << 20;
	return chakra_gen_micro(gen_prefix, &o, &m);
}

/* predict: the presets (JSON), a 3D-parallel GPT iteration through the
 * simulator, and measurements read as CSV. */
static int scenario_predict(void)
{
	char err[512];
	chakra_gpu_model gpu;
	chakra_cluster_net net;
	int rc = chakra_gpu_model_preset(&gpu, "a100", err, sizeof err);
	if (rc == 0)
		rc = chakra_cluster_net_preset(&net, "dgx-a100", err, sizeof err);
	chakra_gpt_config c = CHAKRA_GPT_CONFIG_INIT;
	c.layers = 4;
	c.hidden = 512;
	c.heads = 8;
	c.seq = 256;
	c.global_batch = 16;
	c.micro_batch = 2;
	c.tp = c.pp = c.dp = 2;
	chakra_gpt_prediction out;
	if (rc == 0)
		rc = chakra_gpt_predict(&c, &gpu, &net, NULL, &out, err, sizeof err);
	if (rc == 0 && !(out.iteration_s > 0))
		rc = CHAKRA_ECORRUPT; /* a clean run predicts a time */
	static const char csv[] =
		"# GPUs,global batch,micro batch,hidden size,attention heads,# layers,sequence length,"
		"tensor parallelism,data parallelism,pipeline parallelism,iteration time (ms)\n"
		"8,16,2,512,8,4,256,2,2,2,372.16\n";
	chakra_gpt_measurement *rows = NULL;
	size_t n = 0;
	if (rc == 0)
		rc = chakra_gpt_measurements_parse("m.csv", csv, sizeof csv - 1, &rows, &n, err,
		                                   sizeof err);
	chakra_predict_free(rows);
	if (rc < 0 && rc != CHAKRA_ENOMEM)
		fprintf(stderr, "predict: %s\n", err);
	return rc < 0 ? rc : 0;
}

typedef struct scen {
	const char *name;
	int (*run)(void);
} scen;

static int convert_et(void)
{
	return scenario_convert(0);
}

static int convert_kineto(void)
{
	return scenario_convert(1);
}

int main(void)
{
	need_data("data/pytorch/hta-simple-add/benchmark_simple_add_et.json.gz");
	need_data("data/astra-sim/text_workloads/MLP_HybridParallel_Data_Model.txt");
	static char et[4096], kin[4096];
	snprintf(et, sizeof et, "%s",
	         shared_path("data/pytorch/hta-simple-add/benchmark_simple_add_et.json.gz"));
	snprintf(kin, sizeof kin, "%s",
	         shared_path("data/pytorch/hta-simple-add/benchmark_simple_add_trace.json.gz"));
	et_json = et;
	kineto_json = kin;
	need_data("data/astra-sim/microbenchmarks/all_reduce/4npus_1MB/all_reduce.0.et");
	snprintf(sim_net, sizeof sim_net, "%s", shared_path("data/astra-sim/network/Ring_4npus.yml"));
	snprintf(sim_sys, sizeof sim_sys, "%s", shared_path("data/astra-sim/system/Ring_4chunks.json"));
	snprintf(sim_prefix, sizeof sim_prefix, "%s",
	         shared_path("data/astra-sim/microbenchmarks/all_reduce/4npus_1MB/all_reduce"));
	static char wl[4096];
	snprintf(wl, sizeof wl, "%s",
	         shared_path("data/astra-sim/text_workloads/MLP_HybridParallel_Data_Model.txt"));
	text_wl = wl;
	/* a trace with compute and collective nodes (perf and synth read both) */
	{
		chakra_writer *w;
		CHECK(chakra_writer_open_cb(&w, tbuf_write, &trace, NULL) == 0);
		chakra_builder *b = chakra_builder_new();
		chakra_writer_write_metadata(w, "0.0.4", NULL);
		for (uint64_t i = 1; i <= 60; i++) {
			chakra_builder_reset(b);
			chakra_builder_set_id(b, i);
			chakra_builder_set_name(b, i % 3 ? "aten::mm" : "nccl:all_reduce", (size_t)-1);
			chakra_builder_set_type(b, i % 3 ? CHAKRA_COMP_NODE : CHAKRA_COMM_COLL_NODE);
			if (i > 1)
				chakra_builder_add_data_dep(b, i - 1);
			chakra_builder_attr_int(b, "duration_nanos", CHAKRA_ATTR_INT64,
			                        (int64_t)(1000 * i));
			if (i % 3)
				chakra_builder_attr_int(b, "runtime", CHAKRA_ATTR_INT64, (int64_t)(10 + i));
			else {
				chakra_builder_attr_int(b, "comm_type", CHAKRA_ATTR_INT64, 0);
				chakra_builder_attr_int(b, "comm_size", CHAKRA_ATTR_INT64, (int64_t)(1024 * i));
			}
			chakra_writer_write_node(w, b);
		}
		CHECK(chakra_writer_finish(w) == 0);
		chakra_writer_close(w);
		chakra_builder_free(b);
	}
	char dir[64];
	snprintf(dir, sizeof dir, "/tmp/chakra-oom-mod-XXXXXX");
	CHECK(mkdtemp(dir) != NULL);
	snprintf(trace_path, sizeof trace_path, "%s/t.0.et", dir);
	snprintf(gen_prefix, sizeof gen_prefix, "%s/g", dir);
	FILE *f = fopen(trace_path, "wb");
	CHECK(f && fwrite(trace.p, 1, trace.len, f) == trace.len);
	if (f)
		fclose(f);

	static const scen scens[] = {
		{ "graph", scenario_graph },
		{ "convert, PyTorch ET (gzip)", convert_et },
		{ "convert, Kineto trace (gzip)", convert_kineto },
		{ "synth, fit + JSON + parse", scenario_synth },
		{ "perf, load + run", scenario_perf },
		{ "replay report, JSON + text", scenario_replay_report },
		{ "jsonet, ET -> JSON -> ET", scenario_jsonet },
		{ "check, deep", scenario_check },
		{ "predict, presets + GPT + CSV", scenario_predict },
		{ "sim, configs + runs", scenario_sim },
		{ "astralog, lines + lanes", scenario_astralog },
		{ "gen, text workload -> 4 ETs", scenario_gen },
		{ "gen, DLRM model -> 4 ETs", scenario_gen_model },
		{ "gen, micro ring -> 4 ETs", scenario_gen_micro },
	};
	chakra_allocator a = { CHAKRA_ALLOCATOR_VERSION, t_malloc, t_realloc, t_free, NULL };
	CHECK(chakra_set_allocator(&a) == 0);
	unsigned long total_runs = 0;
	for (size_t s = 0; s < sizeof scens / sizeof scens[0]; s++) {
		n_calls = 0;
		fail_at = 0;
		live = 0;
		int clean = scens[s].run();
		CHECK_MSG(clean == 0, "%s: clean run %d (%s)", scens[s].name, clean,
		          chakra_err_name(clean));
		CHECK_MSG(live == 0, "%s: %lu allocations left", scens[s].name, live);
		unsigned long total = n_calls, enomem = 0;
		for (unsigned long k = 1; k <= total; k++) {
			n_calls = 0;
			fail_at = k;
			live = 0;
			failed_once = 0;
			int rc = scens[s].run();
			total_runs++;
			if (failed_once) {
				CHECK_MSG(rc == CHAKRA_ENOMEM || rc == 0,
				          "%s: allocation %lu of %lu failed: got %d (%s), not CHAKRA_ENOMEM",
				          scens[s].name, k, total, rc, chakra_err_name(rc));
				enomem += rc == CHAKRA_ENOMEM;
			}
			CHECK_MSG(live == 0, "%s: allocation %lu failed: %lu allocations left",
			          scens[s].name, k, live);
		}
		printf("%-32s %5lu allocations, each failed in turn: %lu ENOMEM\n", scens[s].name, total,
		       enomem);
		CHECK_MSG(total > 0, "%s: no allocation went through the hook", scens[s].name);
	}
	chakra_set_allocator(NULL);
	printf("%lu runs\n", total_runs);
	unlink(trace_path);
	static const char *const gen_files[] = { "g.0.et", "g.1.et", "g.2.et", "g.3.et",
		                                     "g.comm_groups.json" };
	for (size_t i = 0; i < sizeof gen_files / sizeof gen_files[0]; i++) {
		char p[160];
		snprintf(p, sizeof p, "%s/%s", dir, gen_files[i]);
		unlink(p);
	}
	CHECK_MSG(rmdir(dir) == 0, "%s: a file left behind", dir);
	free(trace.p);
	(void)tbuild;
	return check_done();
}
