/* SPDX-License-Identifier: Apache-2.0 */
/* chakra sim: simulate a workload (one Chakra ET per NPU) on an
 * ASTRA-sim network and system configuration. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define CHAKRA_EXPERIMENTAL
#include <sys/stat.h>

#include "chakra/experimental/sim.h"
#include "common.h"
#include "hint.h"
#include "jsonout.h"
#include "opts.h"

#define ERR_LEN 512

/* The outputs, written from the simulator's callbacks. */
typedef struct outputs {
	FILE *events;               /* timeline-visualizer CSV */
	FILE *timeline;             /* Chrome trace JSON */
	yajl_gen tl;
	uint32_t npus;
	const chakra_sim *sim;      /* which NPUs are simulated (one per class) */
	unsigned char *cpu_named;   /* NPUs whose thread 2 (CPU) has its name */
	int tl_failed;
	tool_progress prog;
} outputs;

static int timeline_begin(outputs *o);

static const char *node_name(const chakra_node *n, size_t *len)
{
	const char *s = chakra_node_name(n, len);
	if (!s) {
		*len = 0;
		return "";
	}
	return s;
}

static void on_event(void *data, int what, uint32_t npu, uint64_t cycle, const chakra_node *n)
{
	outputs *o = data;
	if (!o->events)
		return;
	fprintf(o->events, "%s,npu_id=%" PRIu32 ",cycle=%" PRIu64 ",node_id=%" PRIu64
	        ",node_name=", what == CHAKRA_SIM_ISSUE ? "issue" : "callback", npu, cycle,
	        chakra_node_id(n));
	/* One event a line; the name is the rest of the line (commas allowed). */
	size_t len;
	for (const char *s = node_name(n, &len); *s; s++)
		fputc(*s == '\n' || *s == '\r' ? ' ' : *s, o->events);
	fputc('\n', o->events);
}

static void on_span(void *data, uint32_t npu, int lane, const chakra_node *n, uint64_t start,
                    uint64_t end)
{
	outputs *o = data;
	if (!o->tl && timeline_begin(o))
		return;
	yajl_gen g = o->tl;
	size_t len;
	const char *name = node_name(n, &len);
	if (lane == 2 && npu < o->npus) {
		/* ASTRA-sim's rules: CPU nodes on a third thread, named when first used. */
		if (!o->cpu_named && !(o->cpu_named = calloc(o->npus, 1))) {
			o->tl_failed = 1;
			return;
		}
		if (!o->cpu_named[npu]) {
			o->cpu_named[npu] = 1;
			yajl_gen_map_open(g);
			jo_kv_str(g, "ph", "M");
			jo_kv_u64(g, "pid", npu);
			jo_kv_u64(g, "tid", 2);
			jo_kv_str(g, "name", "thread_name");
			jo_str(g, "args");
			yajl_gen_map_open(g);
			jo_kv_str(g, "name", "cpu");
			yajl_gen_map_close(g);
			yajl_gen_map_close(g);
		}
	}
	yajl_gen_map_open(g);
	jo_kv_str(g, "ph", "X");
	jo_kv_u64(g, "pid", npu);
	jo_kv_u64(g, "tid", (uint64_t)lane);
	jo_str(g, "ts");
	jo_fixed(g, (double)start / 1000.0);
	jo_str(g, "dur");
	jo_fixed(g, (double)(end - start) / 1000.0);
	jo_str(g, "name");
	jo_strn(g, name, len); /* invalid UTF-8 -> U+FFFD */
	jo_str(g, "args");
	yajl_gen_map_open(g);
	jo_kv_u64(g, "node_id", chakra_node_id(n));
	yajl_gen_map_close(g);
	yajl_gen_map_close(g);
}

static void on_progress(void *data, uint64_t done)
{
	tool_progress_update(&((outputs *)data)->prog, done);
}

/* Trace-event metadata: a process per NPU, threads compute (0) and
 * communication (1). Written with the first span (or at the end), so a
 * workload that cannot be opened leaves the file empty. */
static int timeline_begin(outputs *o)
{
	if (o->tl_failed)
		return -1;
	uint32_t npus = o->npus;
	yajl_gen g = o->tl = jo_open(o->timeline, 0);
	if (!g) {
		o->tl_failed = 1;
		return -1;
	}
	static const char *const threads[2] = { "compute", "communication" };
	yajl_gen_map_open(g);
	jo_kv_str(g, "displayTimeUnit", "ns");
	jo_str(g, "traceEvents");
	yajl_gen_array_open(g);
	for (uint32_t r = 0; r < npus; r++) {
		char label[32];
		if (o->sim && !chakra_sim_simulated(o->sim, r))
			continue; /* (one NPU per class: the others have no events) */
		snprintf(label, sizeof label, "NPU %" PRIu32, r);
		for (int t = -1; t < 2; t++) {
			yajl_gen_map_open(g);
			jo_kv_str(g, "ph", "M");
			jo_kv_u64(g, "pid", r);
			if (t >= 0)
				jo_kv_u64(g, "tid", (uint64_t)t);
			jo_kv_str(g, "name", t < 0 ? "process_name" : "thread_name");
			jo_str(g, "args");
			yajl_gen_map_open(g);
			jo_kv_str(g, "name", t < 0 ? label : threads[t]);
			yajl_gen_map_close(g);
			yajl_gen_map_close(g);
		}
	}
	return 0;
}

/* Closes the trace (with its metadata when no span came): 0 or -1. */
static int timeline_end(outputs *o)
{
	if (!o->tl && timeline_begin(o))
		return -1;
	yajl_gen_array_close(o->tl);
	yajl_gen_map_close(o->tl);
	fputc('\n', o->timeline);
	yajl_gen_free(o->tl);
	o->tl = NULL;
	return 0;
}


static const char *const model_names[] = { "unaware", "aware" };

static const char *rules_name(const chakra_sim *sim)
{
	return chakra_sim_rules_used(sim) == CHAKRA_SIM_RULES_ASTRA_SIM ? "astra-sim" : "model";
}

/* The command line. */
typedef struct sim_cli {
	const char *workload, *network, *system, *groups, *timeline, *events, *ignored;
	int model, deps, json, astra_log, force, replay, rules, durations, streams, no_symmetry;
	uint64_t window, memory;
	tool_list scale, delay; /* --compute-scale [R=]F, --start-delay R=C */
} sim_cli;

#define UNSET UINT64_MAX /* --window not given (0 is a bad value, not "the default") */

/* Reads argv into c: TOOL_PARSED, TOOL_HELP_SHOWN or an exit status. */
static int sim_options(sim_cli *c, int argc, char **argv)
{
	const tool_option opts[] = {
		{ "--workload, --workload-configuration", "PREFIX", TOOL_STR, &c->workload, NULL,
		  "the workload: PREFIX.0.et .. PREFIX.{N-1}.et, or one\n"
		  "file (one rank; required)" },
		{ "--network, --network-configuration", "FILE", TOOL_STR, &c->network, NULL,
		  "network YAML (without it and --system: one NPU)" },
		{ "--system, --system-configuration", "FILE", TOOL_STR, &c->system, NULL,
		  "system JSON (with --network)" },
		{ "--comm-group, --comm-group-configuration", "FILE", TOOL_STR, &c->groups, NULL,
		  "communicator groups {\"id\": [ranks]} used by pg_name" },
		{ "--remote-memory-configuration", "FILE", TOOL_STR, &c->ignored, NULL,
		  "accepted and ignored" },
		{ "--model", "unaware|aware", TOOL_CHOICE, &c->model, "unaware|aware",
		  "congestion-unaware (default) or per-link FIFO queues" },
		{ "--json", NULL, TOOL_FLAG, &c->json, NULL,
		  "one JSON object on stdout instead of the summary" },
		{ "--astra-sim-log", NULL, TOOL_FLAG, &c->astra_log, NULL,
		  "ASTRA-sim's 'sys[N] finished, ...' lines instead" },
		{ "--rules", "auto|astra-sim|model", TOOL_CHOICE, &c->rules, "auto|astra-sim|model",
		  "workload rules: ASTRA-sim's (CPU, GPU and\n"
		  "communication slots, ascending ids, whole-us\n"
		  "durations, data+ctrl deps) or the model's (one\n"
		  "compute slot, exact duration_nanos, data deps);\n"
		  "auto (default): ASTRA-sim's for traces converted\n"
		  "from a recording, the model's otherwise" },
		{ "--durations", "micros|nanos", TOOL_CHOICE, &c->durations, "micros|nanos",
		  "compute times from duration_micros x 1000 or\n"
		  "duration_nanos (default: as the rules say)" },
		{ "--streams", NULL, TOOL_FLAG, &c->streams, NULL,
		  "ASTRA-sim rules with a slot per CPU thread and\nper GPU stream" },
		{ "--deps", "data|ctrl|both", TOOL_CHOICE, &c->deps, "data|ctrl|both",
		  "dependencies that gate issue (default: both under\n"
		  "ASTRA-sim's rules, data under the model's)" },
		{ "--timeline", "FILE", TOOL_STR, &c->timeline, NULL,
		  "Chrome/Perfetto trace (a process per NPU)" },
		{ "--events", "FILE", TOOL_STR, &c->events, NULL,
		  "timeline-visualizer CSV (issue/callback lines)" },
		{ "-f, --force", NULL, TOOL_FLAG, &c->force, NULL,
		  "replace an existing --timeline / --events file" },
		{ "--compute-scale", "[R=]F", TOOL_LIST, &c->scale, NULL,
		  "multiply compute times (of rank R) by F; repeatable" },
		{ "--start-delay", "R=C", TOOL_LIST, &c->delay, NULL,
		  "rank R starts C cycles late (a straggler); repeatable" },
		{ "--memory", "SIZE", TOOL_SIZE, &c->memory, NULL,
		  "memory budget (default 64M, at least 1M): each\n"
		  "rank's read-ahead window and input reads come from\n"
		  "its share (docs/sim.md)" },
		{ "--window", "N", TOOL_U64, &c->window, NULL,
		  "nodes each rank's feeder reads ahead (default: from\n--memory, at most 16384)" },
		{ "--no-symmetry", NULL, TOOL_FLAG, &c->no_symmetry, NULL,
		  "simulate every NPU, even where ranks in classes\n"
		  "run the same trace from equivalent places (by\n"
		  "default one per class is, with every NPU's results)" },
		{ "--replay", NULL, TOOL_FLAG, &c->replay, NULL,
		  "replay a converted trace with its recorded times\n"
		  "instead (chakra sim --replay --help, docs/replay.md)" },
		{ NULL, NULL, 0, NULL, NULL, NULL },
	};
	const tool_command cmd = {
		"--workload PREFIX|FILE [--network NET.yml --system SYS.json]\n"
		"                  [--comm-group GROUPS.json] [--model unaware|aware] [--json]\n"
		"                  [--timeline FILE.json] [--events FILE.csv] [-f]\n"
		"                  [--compute-scale [RANK=]FACTOR]... [--start-delay RANK=CYCLES]...\n"
		"                  [--memory SIZE] [--window N] [--deps data|ctrl|both]\n"
		"                  [--rules auto|astra-sim|model] [--durations micros|nanos] [--streams]\n"
		"                  [--no-symmetry]",
		"Simulates PREFIX.0.et .. PREFIX.{N-1}.et (N = NPUs of the network), or the rank\n"
		"map PREFIX.ranks (one file per class of ranks; docs/feeder.md), with ASTRA-sim's\n"
		"analytical model, to the cycle (1 cycle = 1 ns). Ranks that run the same trace\n"
		"from equivalent places are simulated one per class, with every NPU's results\n"
		"(--events and --timeline then hold the NPUs simulated). Without --network and\n"
		"--system, a one-rank workload (one file, e.g. a converted trace) runs on one NPU\n"
		"(a ring of one, 50 GB/s, 500 ns; ASTRA-sim's Ring_4chunks system), as the\n"
		"output says.",
		opts, NULL, 0, 0, NULL
	};
	const char **args;
	int nargs, rc = tool_parse(&cmd, argc, argv, &args, &nargs);
	if (rc != TOOL_PARSED)
		return rc;
	free((void *)args);
	if (!c->workload)
		return tool_usage(argv[0], "--workload is required");
	if (!c->network != !c->system)
		return tool_usage(argv[0], "--network and --system go together (without both: one NPU)");
	if (c->window == 0)
		return tool_usage(argv[0], "--window must be at least 1");
	if (c->memory < ((uint64_t)1 << 20))
		return tool_usage(argv[0], "--memory must be at least 1M (1048576 bytes)");
	if ((c->timeline && !strcmp(c->timeline, "-")) || (c->events && !strcmp(c->events, "-")))
		return tool_usage(argv[0], "--timeline and --events need a file: stdout carries the "
		                  "summary");
	return TOOL_PARSED;
}

/* The per-rank compute scales and start delays of --compute-scale and
 * --start-delay (NULL when not given): 0, or an exit status (printed). */
static int rank_arrays(const char *cmd, const sim_cli *c, uint32_t npus, double **scale,
                       uint64_t **delay)
{
	for (size_t k = 0; k < c->scale.n + c->delay.n; k++) {
		int is_scale = k < c->scale.n;
		const char *opt = is_scale ? "--compute-scale" : "--start-delay";
		const char *s = is_scale ? c->scale.v[k] : c->delay.v[k - c->scale.n];
		const char *eq = strchr(s, '=');
		uint64_t r = 0, cycles = 0;
		double f = 0;
		if (eq) {
			char buf[32];
			size_t n = (size_t)(eq - s);
			if (n == 0 || n >= sizeof buf)
				return tool_usage(cmd, "%s: bad rank in '%s'", opt, s);
			memcpy(buf, s, n);
			buf[n] = 0;
			if (tool_parse_u64(opt, buf, &r))
				return TOOL_USAGE_ERROR;
			if (r >= npus)
				return tool_usage(cmd, "%s: rank %" PRIu64 " is not in 0..%" PRIu32, opt, r,
				                  npus - 1);
		} else if (!is_scale) {
			return tool_usage(cmd, "%s: expected RANK=CYCLES, got '%s'", opt, s);
		}
		const char *val = eq ? eq + 1 : s;
		if (is_scale ? tool_parse_double(opt, val, &f) : tool_parse_u64(opt, val, &cycles))
			return TOOL_USAGE_ERROR;
		if (is_scale && (!(f >= 0) || f > 1e9))
			return tool_usage(cmd, "%s: factor must be in 0..1e9", opt);
		if (!is_scale) {
			if (!*delay && !(*delay = calloc(npus, sizeof **delay)))
				return tool_err("out of memory");
			(*delay)[r] = cycles;
			continue;
		}
		if (!*scale) {
			if (!(*scale = malloc(npus * sizeof **scale)))
				return tool_err("out of memory");
			for (uint32_t x = 0; x < npus; x++)
				(*scale)[x] = 1.0;
		}
		for (uint32_t x = 0; x < npus; x++)
			if (!eq || r == x)
				(*scale)[x] = f;
	}
	return 0;
}

/* The results on stdout: ASTRA-sim's lines, JSON or the summary. */
static void print_results(const chakra_sim *sim, const sim_cli *c, double secs)
{
	uint32_t npus = chakra_sim_npus(sim);
	uint64_t finish = chakra_sim_finish(sim);
	const char *model = model_names[c->model];
	if (c->astra_log) {
		/* The lines ASTRA-sim prints, for scripts that parse them. */
		for (uint32_t r = 0; r < npus; r++) {
			const chakra_sim_npu_result *p = chakra_sim_npu(sim, r);
			uint64_t exposed = p->finish > p->compute ? p->finish - p->compute : 0;
			printf("sys[%" PRIu32 "] finished, %" PRIu64 " cycles, exposed communication %"
			       PRIu64 " cycles.\n", r, p->finish, exposed);
		}
	} else if (c->json) {
		printf("{\"finish_cycles\":%" PRIu64 ",\"model\":\"%s\",\"nodes\":%" PRIu64
		       ",\"rules\":\"%s\",\"classes\":%" PRIu32 ",\"npus\":[", finish, model,
		       chakra_sim_nodes(sim), rules_name(sim), chakra_sim_classes(sim));
		for (uint32_t r = 0; r < npus; r++) {
			const chakra_sim_npu_result *p = chakra_sim_npu(sim, r);
			printf("%s{\"npu\":%" PRIu32 ",\"finish_cycles\":%" PRIu64 ",\"compute_cycles\":%"
			       PRIu64 ",\"exposed_comm_cycles\":%" PRIu64 ",\"comm_busy_cycles\":%" PRIu64
			       ",\"nodes\":%" PRIu64 ",\"cpu_cycles\":%" PRIu64 "}", r ? "," : "", r,
			       p->finish, p->compute, p->finish > p->compute ? p->finish - p->compute : 0,
			       p->comm_busy, p->nodes, p->cpu);
		}
		printf("]}\n");
	} else {
		printf("%-6s %15s %15s %20s %8s\n", "npu", "finish_cycles", "compute_cycles",
		       "exposed_comm_cycles", "nodes");
		for (uint32_t r = 0; r < npus; r++) {
			const chakra_sim_npu_result *p = chakra_sim_npu(sim, r);
			printf("%-6" PRIu32 " %15" PRIu64 " %15" PRIu64 " %20" PRIu64 " %8" PRIu64 "\n", r,
			       p->finish, p->compute, p->finish > p->compute ? p->finish - p->compute : 0,
			       p->nodes);
		}
		printf("finished at %" PRIu64 " cycles (%" PRIu32 " NPUs, %s model, %s rules, %" PRIu64
		       " nodes, %.3f s)\n", finish, npus, model, rules_name(sim), chakra_sim_nodes(sim),
		       secs);
	}
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
	sim_cli c = { .model = 0, .deps = -1, .window = UNSET, .memory = CHAKRA_SIM_DEFAULT_MEMORY,
	              .durations = -1 };
	int rc = sim_options(&c, argc, argv);
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
	outputs out = { 0 };
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
	if ((rc = rank_arrays(argv[0], &c, net.npus, &scale, &delay)))
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
	out.timeline = tlo.f;
	out.events = evo.f;
	out.npus = net.npus;
	chakra_sim_options opt = CHAKRA_SIM_OPTIONS_INIT;
	opt.model = (chakra_sim_model)c.model;
	opt.groups = c.groups ? &groups : NULL;
	opt.compute_scale = scale;
	opt.start_delay = delay;
	opt.window = c.window == UNSET ? 0 : c.window;
	opt.memory = c.memory;
	opt.deps = c.deps < 0 ? (chakra_deps)0 : (chakra_deps)(CHAKRA_DEPS_DATA + c.deps);
	opt.rules = (chakra_sim_rules)c.rules;
	opt.durations = c.durations < 0 ? CHAKRA_SIM_DURATIONS_DEFAULT
	                : (chakra_sim_durations)(CHAKRA_SIM_DURATIONS_MICROS + c.durations);
	opt.streams = c.streams;
	opt.no_symmetry = c.no_symmetry;
	opt.data = &out;
	opt.event_cb = out.events ? on_event : NULL;
	opt.span_cb = out.timeline ? on_span : NULL;
	opt.progress_cb = on_progress;
	double t0 = tool_now();
	int src = chakra_sim_new(&sim, &net, &sys, &opt);
	out.sim = sim;
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
	if (out.timeline && (out.tl_failed || timeline_end(&out))) {
		tool_err("out of memory");
		goto out;
	}
	double secs = tool_now() - t0;
	if ((out.timeline && tool_out_commit(&tlo) < 0) || (out.events && tool_out_commit(&evo) < 0))
		goto out;
	if (chakra_sim_warning(sim))
		fprintf(stderr, "chakra: warning: %s\n", chakra_sim_warning(sim));
	/* The reduction: what it simulated, or why every NPU was when it tried. */
	uint32_t classes = chakra_sim_classes(sim);
	const char *why = chakra_sim_symmetry(sim);
	if (classes < net.npus)
		fprintf(stderr, "chakra sim: %" PRIu32 " NPUs in %" PRIu32 " class%s of ranks that run "
		        "the same trace from equivalent places: one NPU simulated per class\n", net.npus,
		        classes, classes == 1 ? "" : "es");
	else if (why && !strncmp(why, "not symmetric", 13))
		fprintf(stderr, "chakra sim: simulated every NPU: %s\n", why);
	else if (why && !strncmp(why, "the reduced run", 15))
		fprintf(stderr, "chakra sim: simulated every NPU (%s)\n", why);
	print_results(sim, &c, secs);
	rc = fflush(stdout) ? tool_err("cannot write the output") : 0;
out:
	tool_out_abort(&tlo); /* (nothing after a commit) */
	tool_out_abort(&evo);
	if (out.tl)
		yajl_gen_free(out.tl);
	free(out.cpu_named);
	chakra_sim_free(sim);
	chakra_feeder_close(one);
	chakra_sim_groups_free(&groups);
	free(scale);
	free(delay);
	free(c.scale.v);
	free(c.delay.v);
	return rc;
}
