/* SPDX-License-Identifier: Apache-2.0 */
/* chakra sim: simulate a workload (one Chakra ET per NPU) on an
 * ASTRA-sim network and system configuration. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define CHAKRA_EXPERIMENTAL
#include "chakra/experimental/sim.h"
#include "common.h"
#include "jsonout.h"
#include "sim_size.h"

#define ERR_LEN 512

/* The outputs, written from the simulator's callbacks. */
typedef struct outputs {
	FILE *events;               /* timeline-visualizer CSV */
	FILE *timeline;             /* Chrome trace JSON */
	yajl_gen tl;
	uint32_t npus;
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

static void timeline_end(outputs *o)
{
	yajl_gen_array_close(o->tl);
	yajl_gen_map_close(o->tl);
	fputc('\n', o->timeline);
}

static void usage(FILE *f)
{
	fprintf(f,
	"usage: chakra sim --workload PREFIX --network NET.yml --system SYS.json\n"
	"                  [--comm-group GROUPS.json] [--model unaware|aware] [--json]\n"
	"                  [--timeline FILE.json] [--events FILE.csv] [-f]\n"
	"                  [--compute-scale [RANK=]FACTOR]... [--start-delay RANK=CYCLES]...\n"
	"                  [--memory SIZE] [--window N] [--deps data|ctrl|both]\n"
	"\n"
	"Simulates PREFIX.0.et .. PREFIX.{N-1}.et (N = NPUs of the network) with\n"
	"ASTRA-sim's analytical model, to the cycle (1 cycle = 1 ns).\n"
	"\n"
	"  --workload PREFIX        workload prefix (also --workload-configuration=)\n"
	"  --network FILE           network YAML (also --network-configuration=)\n"
	"  --system FILE            system JSON (also --system-configuration=)\n"
	"  --comm-group FILE        communicator groups {\"id\": [ranks]} used by pg_name\n"
	"                           (also --comm-group-configuration=)\n"
	"  --remote-memory-configuration=FILE   accepted and ignored\n"
	"  --model unaware|aware    congestion-unaware (default) or per-link FIFO queues\n"
	"  --json                   one JSON object on stdout instead of the summary\n"
	"  --astra-sim-log          ASTRA-sim's 'sys[N] finished, ...' lines instead\n"
	"  --deps data|ctrl|both    dependencies that gate issue (default data, as the\n"
	"                           reference feeder)\n"
	"  --timeline FILE          Chrome/Perfetto trace (a process per NPU)\n"
	"  --events FILE            timeline-visualizer CSV (issue/callback lines)\n"
	"  -f, --force              replace an existing --timeline / --events file\n"
	"  --compute-scale [R=]F    multiply compute times (of rank R) by F\n"
	"  --start-delay R=C        rank R starts C cycles late (a straggler)\n"
	"  --memory SIZE            memory budget (default 64M; K, M, G suffixes): each\n"
	"                           rank's read-ahead window and input reads come from\n"
	"                           its share (docs/sim.md)\n"
	"  --window N               nodes each rank's feeder reads ahead (default: from\n"
	"                           --memory, at most 16384)\n"
	"\n"
	"chakra sim --replay --workload P ...: replay a converted trace with its recorded\n"
	"times instead (chakra sim --replay --help, docs/replay.md).\n");
}

/* "R=V" or (when allow_all) "V": rank (or -1) and value. */
static int parse_rank_value(const char *opt, const char *s, int allow_all, uint32_t npus,
                            int64_t *rank, const char **val)
{
	const char *eq = strchr(s, '=');
	if (!eq) {
		if (!allow_all) {
			tool_err("%s: expected RANK=VALUE, got '%s'", opt, s);
			return -1;
		}
		*rank = -1;
		*val = s;
		return 0;
	}
	char buf[32];
	size_t n = (size_t)(eq - s);
	if (n == 0 || n >= sizeof buf) {
		tool_err("%s: bad rank in '%s'", opt, s);
		return -1;
	}
	memcpy(buf, s, n);
	buf[n] = 0;
	uint64_t r;
	if (tool_parse_u64(opt, buf, &r))
		return -1;
	if (r >= npus) {
		tool_err("%s: rank %" PRIu64 " is not in 0..%" PRIu32, opt, r, npus - 1);
		return -1;
	}
	*rank = (int64_t)r;
	*val = eq + 1;
	return 0;
}

typedef struct pending {
	const char *opt, *arg;
} pending;

int cmd_sim_replay(int argc, char **argv); /* tools/perf/cmd_replay.c */

int cmd_sim(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--replay"))
			return cmd_sim_replay(argc, argv);
	const char *workload = NULL, *network = NULL, *system = NULL, *groups_path = NULL;
	const char *timeline = NULL, *events = NULL, *model = "unaware", *window = NULL;
	const char *memory = NULL;
	const char *deps = NULL;
	int astra_log = 0, force = 0;
	int json = 0;
	pending *pend = calloc((size_t)argc + 1, sizeof *pend);
	int npend = 0, rc = 1;
	if (!pend)
		return tool_err("out of memory");
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		int missing = 0;
		if (tool_is_help(a)) {
			usage(stdout);
			free(pend);
			return 0;
		}
#define OPT(name, var) \
		if ((v = tool_opt(argc, argv, &i, name, &missing)) || missing) { \
			if (missing) { free(pend); return tool_usage(argv[0], "%s needs a value", name); } \
			var = v; continue; }
		OPT("--workload-configuration", workload)
		OPT("--workload", workload)
		OPT("--network-configuration", network)
		OPT("--network", network)
		OPT("--system-configuration", system)
		OPT("--system", system)
		OPT("--comm-group-configuration", groups_path)
		OPT("--comm-group", groups_path)
		OPT("--model", model)
		OPT("--timeline", timeline)
		OPT("--events", events)
		OPT("--window", window)
		OPT("--memory", memory)
		OPT("--deps", deps)
		const char *ignored = NULL;
		OPT("--remote-memory-configuration", ignored)
		(void)ignored;
#undef OPT
		if (!strcmp(a, "-f") || !strcmp(a, "--force")) {
			force = 1;
			continue;
		}
		if (!strcmp(a, "--json")) {
			json = 1;
			continue;
		}
		if (!strcmp(a, "--astra-sim-log")) {
			astra_log = 1;
			continue;
		}
		if ((v = tool_opt(argc, argv, &i, "--compute-scale", &missing)) ||
		    (!missing && (v = tool_opt(argc, argv, &i, "--start-delay", &missing)))) {
			pend[npend].opt = strncmp(a, "--compute-scale", 15) ? "--start-delay"
			                                                   : "--compute-scale";
			pend[npend++].arg = v;
			continue;
		}
		free(pend);
		if (missing)
			return tool_usage(argv[0], "%s needs a value", a);
		return tool_usage(argv[0], "unknown argument '%s'", a);
	}
	if (!workload || !network || !system) {
		free(pend);
		return tool_usage(argv[0], "--workload, --network and --system are required");
	}
	chakra_sim_model m;
	if (!strcmp(model, "unaware"))
		m = CHAKRA_SIM_UNAWARE;
	else if (!strcmp(model, "aware"))
		m = CHAKRA_SIM_AWARE;
	else {
		free(pend);
		return tool_usage(argv[0], "--model must be unaware or aware, not '%s'", model);
	}

	char err[ERR_LEN];
	chakra_sim_network net;
	chakra_sim_system sys;
	chakra_sim_groups groups = { 0 };
	double *scale = NULL;
	uint64_t *delay = NULL;
	FILE *tl = NULL, *ev = NULL;
	tool_out tlo, evo;
	memset(&tlo, 0, sizeof tlo);
	memset(&evo, 0, sizeof evo);
	chakra_sim *sim = NULL;
	outputs out = { 0 };
	if (chakra_sim_network_load(&net, network, err, sizeof err) ||
	    chakra_sim_system_load(&sys, system, err, sizeof err) ||
	    (groups_path && chakra_sim_groups_load(&groups, groups_path, net.npus, err, sizeof err))) {
		tool_err("%s", err);
		goto out;
	}
	for (int k = 0; k < npend; k++) {
		int64_t r;
		const char *val;
		int is_scale = !strcmp(pend[k].opt, "--compute-scale");
		if (parse_rank_value(pend[k].opt, pend[k].arg, is_scale, net.npus, &r, &val)) {
			rc = 2;
			goto out;
		}
		if (is_scale) {
			double f = 0; /* read below even when parsing fails */
			if (tool_parse_double(pend[k].opt, val, &f) || !(f >= 0) || f > 1e9) {
				if (!(f >= 0) || f > 1e9)
					tool_err("%s: factor must be in 0..1e9", pend[k].opt);
				rc = 2;
				goto out;
			}
			if (!scale) {
				scale = malloc(net.npus * sizeof *scale);
				if (!scale) {
					tool_err("out of memory");
					goto out;
				}
				for (uint32_t x = 0; x < net.npus; x++)
					scale[x] = 1.0;
			}
			for (uint32_t x = 0; x < net.npus; x++)
				if (r < 0 || (uint32_t)r == x)
					scale[x] = f;
		} else {
			uint64_t c;
			if (tool_parse_u64(pend[k].opt, val, &c)) {
				rc = 2;
				goto out;
			}
			if (!delay && !(delay = calloc(net.npus, sizeof *delay))) {
				tool_err("out of memory");
				goto out;
			}
			delay[r] = c;
		}
	}
	if ((timeline && !strcmp(timeline, "-")) || (events && !strcmp(events, "-"))) {
		rc = tool_usage(argv[0], "--timeline and --events need a file: stdout carries the "
		                "summary");
		goto out;
	}
	/* The output rule (tools/common.h): temporaries renamed into place
	 * only after a successful run, an existing file replaced only with -f. */
	const char *inputs[] = { network, system, groups_path };
	if (timeline && events && !strcmp(timeline, events)) {
		tool_err("--timeline and --events name the same file");
		goto out;
	}
	if ((timeline && tool_out_check(timeline, force, inputs, 3) < 0) ||
	    (events && tool_out_check(events, force, inputs, 3) < 0))
		goto out;
	if (timeline) {
		if (tool_out_open(&tlo, timeline, force, inputs, 3) < 0)
			goto out;
		tl = tlo.f;
	}
	if (events) {
		if (tool_out_open(&evo, events, force, inputs, 3) < 0)
			goto out;
		ev = evo.f;
	}

	uint64_t win = 0;
	if (window && (tool_parse_u64("--window", window, &win) || win < 1)) {
		if (win < 1)
			tool_err("--window must be at least 1");
		rc = 2;
		goto out;
	}
	uint64_t mem = 0;
	if (memory && sim_parse_size("--memory", memory, &mem)) {
		rc = 2;
		goto out;
	}
	int dep = 0;
	if (deps) {
		dep = !strcmp(deps, "data") ? CHAKRA_DEPS_DATA : !strcmp(deps, "ctrl") ? CHAKRA_DEPS_CTRL
		      : !strcmp(deps, "both") ? CHAKRA_DEPS_BOTH : 0;
		if (!dep) {
			rc = tool_usage(argv[0], "--deps must be data, ctrl or both, not '%s'", deps);
			goto out;
		}
	}
	chakra_sim_options opt = CHAKRA_SIM_OPTIONS_INIT;
	opt.model = m;
	opt.groups = groups_path ? &groups : NULL;
	opt.compute_scale = scale;
	opt.start_delay = delay;
	opt.window = win;
	opt.memory = mem;
	opt.deps = (chakra_deps)dep;
	opt.data = &out;
	opt.event_cb = ev ? on_event : NULL;
	opt.span_cb = tl ? on_span : NULL;
	opt.progress_cb = on_progress;
	out.events = ev;
	out.timeline = tl;
	double t0 = tool_now();
	out.npus = net.npus;
	int src = chakra_sim_new(&sim, &net, &sys, &opt);
	if (src == 0) {
		tool_progress_start(&out.prog, "simulated nodes", 0);
		src = chakra_sim_run_prefix(sim, workload);
		tool_progress_end(&out.prog);
	}
	if (src < 0) {
		tool_err("%s", sim ? chakra_sim_errmsg(sim) : chakra_strerror(src));
		goto out;
	}
	if (tl) {
		if (!out.tl && timeline_begin(&out)) {
			tool_err("out of memory");
			goto out;
		}
		timeline_end(&out);
		yajl_gen_free(out.tl);
		out.tl = NULL;
	}
	double secs = tool_now() - t0;
	if ((tl && tool_out_commit(&tlo) < 0) || (ev && tool_out_commit(&evo) < 0))
		goto out;
	if (chakra_sim_warning(sim))
		fprintf(stderr, "chakra: warning: %s\n", chakra_sim_warning(sim));
	uint32_t npus = chakra_sim_npus(sim);
	uint64_t finish = chakra_sim_finish(sim);
	if (astra_log) {
		/* The lines ASTRA-sim prints, for scripts that parse them. */
		for (uint32_t r = 0; r < npus; r++) {
			const chakra_sim_npu_result *p = chakra_sim_npu(sim, r);
			uint64_t exposed = p->finish > p->compute ? p->finish - p->compute : 0;
			printf("sys[%" PRIu32 "] finished, %" PRIu64 " cycles, exposed communication %"
			       PRIu64 " cycles.\n", r, p->finish, exposed);
		}
	} else if (json) {
		printf("{\"finish_cycles\":%" PRIu64 ",\"model\":\"%s\",\"nodes\":%" PRIu64
		       ",\"npus\":[", finish, model, chakra_sim_nodes(sim));
		for (uint32_t r = 0; r < npus; r++) {
			const chakra_sim_npu_result *p = chakra_sim_npu(sim, r);
			printf("%s{\"npu\":%" PRIu32 ",\"finish_cycles\":%" PRIu64 ",\"compute_cycles\":%"
			       PRIu64 ",\"exposed_comm_cycles\":%" PRIu64 ",\"comm_busy_cycles\":%" PRIu64
			       ",\"nodes\":%" PRIu64 "}", r ? "," : "", r, p->finish, p->compute,
			       p->finish > p->compute ? p->finish - p->compute : 0, p->comm_busy,
			       p->nodes);
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
		printf("finished at %" PRIu64 " cycles (%" PRIu32 " NPUs, %s model, %" PRIu64
		       " nodes, %.3f s)\n", finish, npus, model, chakra_sim_nodes(sim), secs);
	}
	rc = fflush(stdout) ? tool_err("cannot write the output") : 0;
out:
	tool_out_abort(&tlo); /* (nothing after a commit) */
	tool_out_abort(&evo);
	if (out.tl)
		yajl_gen_free(out.tl);
	chakra_sim_free(sim);
	chakra_sim_groups_free(&groups);
	free(scale);
	free(delay);
	free(pend);
	return rc;
}
