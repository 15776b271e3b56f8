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

int cmd_sim_replay(int argc, char **argv);

/* A scale factor in 0..1e9: 0, or a usage error of cmd (exit status 2). */
static int parse_factor(const char *cmd, const char *opt, const char *s, const char *arg,
                        double *f)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (!*s || errno || *end || !(v >= 0) || v > 1e9)
		return tool_usage(cmd, "%s: the factor must be a number in 0..1e9, got '%s'", opt, arg);
	*f = v;
	return 0;
}

static void us_str(int64_t ns, char *buf, size_t cap)
{
	const char *sign = ns < 0 ? "-" : "";
	uint64_t a = ns < 0 ? (uint64_t)(-(ns + 1)) + 1 : (uint64_t)ns;
	snprintf(buf, cap, "%s%" PRIu64 ".%03" PRIu64, sign, a / 1000, a % 1000);
}

static void jo_us(yajl_gen g, const char *key, int64_t ns)
{
	char b[40];
	us_str(ns, b, sizeof b);
	jo_str(g, key);
	yajl_gen_number(g, b, strlen(b));
}

static void jo_i64(yajl_gen g, const char *key, int64_t v)
{
	jo_str(g, key);
	yajl_gen_integer(g, v);
}

static const char *res_name(const chakra_perf_resource_info *ri, char *buf, size_t cap)
{
	if (!ri->gpu)
		snprintf(buf, cap, ri->id == -1 && ri->device == -1 ? "host" : "thread %" PRId64,
		         ri->id);
	else if (ri->device == -1)
		snprintf(buf, cap, "%s", ri->id == -2 ? "comm" : "compute");
	else
		snprintf(buf, cap, "stream %" PRId64 " (device %" PRId64 ")", ri->id, ri->device);
	return buf;
}

typedef struct opt_list {
	const char **re;
	double *f;
	size_t n;
} opt_list;

/* By-kind totals of the critical path (ns): the ops' own time by op kind,
 * the lags by edge kind. */
typedef struct path_sum {
	int64_t own[CHAKRA_PERF_KIND_COUNT];
	int64_t lag[CHAKRA_PERF_EDGE_KIND_COUNT];
} path_sum;

static void sum_path(const chakra_perf *r, path_sum *ps)
{
	memset(ps, 0, sizeof *ps);
	const chakra_perf_segment *p = chakra_perf_path(r);
	for (size_t i = 0; i < chakra_perf_path_length(r); i++) {
		chakra_perf_op_info oi;
		chakra_perf_op_info_of(r, p[i].op, &oi);
		int64_t d = p[i].end_ns - p[i].start_ns;
		if (p[i].is_lag)
			ps->lag[p[i].via] += d;
		else
			ps->own[oi.kind] += d;
	}
}

typedef struct between_res {
	const char *name;
	uint64_t skip;
	size_t n, med;
	const int64_t *it, *rec;
	int64_t rec_med;
} between_res;

static void json_out(const chakra_perf *r, const between_res *bw)
{
	yajl_gen g = jo_open(stdout, 0);
	if (!g)
		return;
	const chakra_perf_breakdown *bd = chakra_perf_breakdown_of(r, -1);
	yajl_gen_map_open(g);
	jo_us(g, "iteration_us", bd->iteration_ns);
	jo_i64(g, "iteration_ns", bd->iteration_ns);
	if (bw) {
		/* the median over the windows; the rest describes that window */
		jo_us(g, "recorded_us", bw->rec_med);
		jo_kv_str(g, "between", bw->name);
		jo_kv_u64(g, "skip", bw->skip);
		jo_kv_u64(g, "reported_window", bw->skip + bw->med);
		jo_us(g, "reported_window_recorded_us", bd->recorded_ns);
		jo_str(g, "windows");
		yajl_gen_array_open(g);
		for (size_t w = 0; w < bw->n; w++) {
			yajl_gen_map_open(g);
			jo_kv_u64(g, "window", bw->skip + w);
			jo_us(g, "iteration_us", bw->it[w]);
			jo_us(g, "recorded_us", bw->rec[w]);
			yajl_gen_map_close(g);
		}
		yajl_gen_array_close(g);
	} else if (bd->recorded_ns)
		jo_us(g, "recorded_us", bd->recorded_ns);
	if (bd->recorded_ns)
		jo_us(g, "replayed_window_us", bd->replayed_window_ns);
	jo_kv_u64(g, "ranks", chakra_perf_ranks(r));
	jo_kv_u64(g, "critical_rank", chakra_perf_critical_rank(r));
	jo_kv_u64(g, "ops", chakra_perf_op_count(r));
	jo_kv_u64(g, "edges", chakra_perf_edge_count(r));
	jo_kv_u64(g, "iterations", chakra_perf_iterations(r));
	jo_kv_u64(g, "inferred_thread_waits", chakra_perf_thread_waits(r));
	jo_str(g, "breakdown");
	yajl_gen_map_open(g);
	jo_us(g, "gpu_compute_us", bd->gpu_compute_ns);
	jo_us(g, "comm_exposed_us", bd->comm_exposed_ns);
	jo_us(g, "cpu_bound_us", bd->cpu_bound_ns);
	jo_us(g, "idle_us", bd->idle_ns);
	jo_us(g, "comm_us", bd->comm_ns);
	jo_us(g, "comm_overlapped_us", bd->comm_overlapped_ns);
	yajl_gen_map_close(g);
	jo_str(g, "per_rank");
	yajl_gen_array_open(g);
	for (uint32_t k = 0; k < chakra_perf_ranks(r); k++) {
		const chakra_perf_breakdown *b = chakra_perf_breakdown_of(r, k);
		if (!b)
			continue;
		yajl_gen_map_open(g);
		jo_kv_u64(g, "rank", k);
		if (b->recorded_ns)
			jo_us(g, "recorded_us", b->recorded_ns);
		jo_us(g, "gpu_compute_us", b->gpu_compute_ns);
		jo_us(g, "comm_exposed_us", b->comm_exposed_ns);
		jo_us(g, "cpu_bound_us", b->cpu_bound_ns);
		jo_us(g, "idle_us", b->idle_ns);
		jo_us(g, "comm_us", b->comm_ns);
		yajl_gen_map_close(g);
	}
	yajl_gen_array_close(g);
	for (int gpu = 1; gpu >= 0; gpu--) {
		jo_str(g, gpu ? "streams" : "threads");
		yajl_gen_array_open(g);
		for (size_t i = 0; i < chakra_perf_resource_count(r); i++) {
			chakra_perf_resource_info ri;
			char nb[64];
			chakra_perf_resource_info_of(r, i, &ri);
			if (ri.gpu != gpu || !ri.ops)
				continue;
			yajl_gen_map_open(g);
			jo_kv_u64(g, "rank", ri.rank);
			jo_kv_str(g, "name", res_name(&ri, nb, sizeof nb));
			jo_i64(g, gpu ? "stream" : "tid", ri.id);
			if (gpu)
				jo_i64(g, "device", ri.device);
			jo_kv_u64(g, "ops", ri.ops);
			jo_us(g, "busy_us", ri.busy_ns);
			if (gpu) {
				jo_us(g, "launch_latency_us", ri.launch_latency_ns);
				jo_us(g, "queue_gap_us", ri.queue_gap_ns);
			}
			yajl_gen_map_close(g);
		}
		yajl_gen_array_close(g);
	}
	path_sum ps;
	sum_path(r, &ps);
	jo_str(g, "critical_path");
	yajl_gen_map_open(g);
	jo_kv_u64(g, "segments", chakra_perf_path_length(r));
	jo_str(g, "op_time_us");
	yajl_gen_map_open(g);
	for (int k = 0; k < CHAKRA_PERF_KIND_COUNT; k++)
		if (k != CHAKRA_PERF_MARK)
			jo_us(g, chakra_perf_kind_name(k), ps.own[k]);
	yajl_gen_map_close(g);
	jo_str(g, "wait_us");
	yajl_gen_map_open(g);
	for (int k = 0; k < CHAKRA_PERF_EDGE_KIND_COUNT; k++)
		jo_us(g, chakra_perf_edge_kind_name(k), ps.lag[k]);
	yajl_gen_map_close(g);
	jo_str(g, "path");
	yajl_gen_array_open(g);
	const chakra_perf_segment *p = chakra_perf_path(r);
	for (size_t i = 0; i < chakra_perf_path_length(r); i++) {
		chakra_perf_op_info oi, fi;
		chakra_perf_resource_info ri;
		char nb[64];
		chakra_perf_op_info_of(r, p[i].op, &oi);
		chakra_perf_op_info_of(r, p[i].from_op, &fi);
		chakra_perf_resource_info_of(r, oi.resource, &ri);
		yajl_gen_map_open(g);
		jo_kv_u64(g, "rank", oi.rank);
		if (oi.kind == CHAKRA_PERF_MARK) {
			jo_str(g, "id");
			yajl_gen_null(g);
		} else
			jo_kv_u64(g, "id", oi.id);
		jo_str(g, "name");
		jo_strn(g, oi.name ? oi.name : "", oi.name ? oi.name_len : 0);
		jo_kv_str(g, "kind", chakra_perf_kind_name(oi.kind));
		jo_kv_str(g, "resource", res_name(&ri, nb, sizeof nb));
		jo_kv_str(g, "segment", p[i].is_lag ? "wait" : "run");
		jo_kv_str(g, "via", chakra_perf_edge_kind_name(p[i].via));
		jo_str(g, "from");
		if (p[i].via < 0 || fi.kind == CHAKRA_PERF_MARK)
			yajl_gen_null(g);
		else
			yajl_gen_integer(g, (long long)fi.id);
		jo_us(g, "start_us", p[i].start_ns);
		jo_us(g, "end_us", p[i].end_ns);
		yajl_gen_map_close(g);
	}
	yajl_gen_array_close(g);
	yajl_gen_map_close(g);
	yajl_gen_map_close(g);
	yajl_gen_free(g);
	fputc('\n', stdout);
}

typedef struct top {
	uint64_t op;
	int64_t t;
} top;

static int cmp_top(const void *a, const void *b)
{
	const top *x = a, *y = b;
	return x->t > y->t ? -1 : x->t < y->t;
}

static void text_out(const chakra_perf *r, unsigned copies, size_t ntop, double secs)
{
	const chakra_perf_breakdown *bd = chakra_perf_breakdown_of(r, -1);
	char a[40], b[40];
	int64_t it = bd->iteration_ns;
	us_str(it, a, sizeof a);
	printf("replayed %u rank%s, %" PRIu64 " ops, %u iteration%s back to back (%.3f s)\n",
	       chakra_perf_ranks(r), chakra_perf_ranks(r) == 1 ? "" : "s",
	       chakra_perf_op_count(r), copies, copies == 1 ? "" : "s", secs);
	printf("iteration       %14s us", a);
	if (bd->recorded_ns) {
		us_str(bd->recorded_ns, b, sizeof b);
		printf("   (recorded %s us, %+.2f%%)", b,
		       100.0 * (double)(it - bd->recorded_ns) / (double)bd->recorded_ns);
	}
	printf("\n");
	if (bd->recorded_ns && copies > 1) {
		/* the window once, from the state it was recorded in */
		us_str(bd->replayed_window_ns, a, sizeof a);
		printf("window once    %14s us   (%+.2f%% of the recording; the iteration above is the "
		       "last of %u back to back)\n", a,
		       100.0 * (double)(bd->replayed_window_ns - bd->recorded_ns) /
		           (double)bd->recorded_ns, copies);
	}
	const struct {
		const char *name;
		int64_t v;
	} rows[] = { { "gpu compute", bd->gpu_compute_ns }, { "comm exposed", bd->comm_exposed_ns },
	             { "cpu bound", bd->cpu_bound_ns }, { "idle", bd->idle_ns },
	             { "communication", bd->comm_ns }, { "  overlapped", bd->comm_overlapped_ns } };
	for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
		us_str(rows[i].v, a, sizeof a);
		printf("  %-13s %14s us %6.1f%%\n", rows[i].name, a,
		       it ? 100.0 * (double)rows[i].v / (double)it : 0.0);
	}
	for (size_t i = 0; i < chakra_perf_resource_count(r); i++) {
		chakra_perf_resource_info ri;
		char nb[64];
		chakra_perf_resource_info_of(r, i, &ri);
		if (!ri.ops)
			continue;
		us_str(ri.busy_ns, a, sizeof a);
		printf("rank %u %-22s busy %14s us %6.1f%%  %" PRIu64 " ops\n", ri.rank,
		       res_name(&ri, nb, sizeof nb), a,
		       it ? 100.0 * (double)ri.busy_ns / (double)it : 0.0, ri.ops);
	}
	path_sum ps;
	sum_path(r, &ps);
	printf("critical path (rank %u): %zu segments;", chakra_perf_critical_rank(r),
	       chakra_perf_path_length(r));
	for (int k = 0; k < CHAKRA_PERF_KIND_COUNT; k++)
		if (ps.own[k]) {
			us_str(ps.own[k], a, sizeof a);
			printf(" %s %s us,", chakra_perf_kind_name(k), a);
		}
	for (int k = 0; k < CHAKRA_PERF_EDGE_KIND_COUNT; k++)
		if (ps.lag[k]) {
			us_str(ps.lag[k], a, sizeof a);
			printf(" %s wait %s us,", chakra_perf_edge_kind_name(k), a);
		}
	printf("\n");
	size_t np = chakra_perf_path_length(r);
	const chakra_perf_segment *p = chakra_perf_path(r);
	top *t = np ? malloc(np * sizeof *t) : NULL;
	if (!t)
		return;
	size_t nt = 0;
	for (size_t i = 0; i < np; i++) {
		if (p[i].is_lag)
			continue;
		chakra_perf_op_info oi;
		chakra_perf_op_info_of(r, p[i].op, &oi);
		if (oi.kind == CHAKRA_PERF_MARK)
			continue;
		t[nt].op = p[i].op;
		t[nt++].t = p[i].end_ns - p[i].start_ns;
	}
	qsort(t, nt, sizeof *t, cmp_top);
	for (size_t i = 0; i < nt && i < ntop; i++) {
		chakra_perf_op_info oi;
		chakra_perf_op_info_of(r, t[i].op, &oi);
		us_str(t[i].t, a, sizeof a);
		printf("  %12s us  rank %u node %" PRIu64 " %-6s %.*s\n", a, oi.rank, oi.id,
		       chakra_perf_kind_name(oi.kind), (int)(oi.name_len > 70 ? 70 : oi.name_len),
		       oi.name ? oi.name : "");
	}
	free(t);
}

/* Under the output rule (a temporary renamed when complete, -f to
 * replace, devices written into); the checks ran before the replay. Left
 * written and closed in *o: the caller commits it once the report is out,
 * so a run that fails after it leaves no timeline either. */
static int timeline_out(const chakra_perf *r, const char *path, int force,
                        const char *const *inputs, tool_out *o)
{
	if (tool_out_open(o, path, force, inputs, 4) < 0)
		return -1;
	FILE *f = o->f;
	yajl_gen g = jo_open(f, 0);
	if (!g) {
		tool_out_abort(o);
		return tool_err("out of memory");
	}
	yajl_gen_map_open(g);
	jo_kv_str(g, "displayTimeUnit", "ns");
	jo_str(g, "traceEvents");
	yajl_gen_array_open(g);
	for (size_t i = 0; i < chakra_perf_resource_count(r); i++) {
		chakra_perf_resource_info ri;
		char nb[64];
		chakra_perf_resource_info_of(r, i, &ri);
		yajl_gen_map_open(g);
		jo_kv_str(g, "ph", "M");
		jo_kv_u64(g, "pid", ri.rank);
		jo_kv_u64(g, "tid", i);
		jo_kv_str(g, "name", "thread_name");
		jo_str(g, "args");
		yajl_gen_map_open(g);
		jo_kv_str(g, "name", res_name(&ri, nb, sizeof nb));
		yajl_gen_map_close(g);
		yajl_gen_map_close(g);
	}
	for (uint64_t i = 0; i < chakra_perf_op_count(r) + 2 * chakra_perf_ranks(r); i++) {
		chakra_perf_op_info oi;
		if (chakra_perf_op_info_of(r, i, &oi) || oi.kind == CHAKRA_PERF_MARK)
			continue;
		yajl_gen_map_open(g);
		jo_kv_str(g, "ph", "X");
		jo_kv_u64(g, "pid", oi.rank);
		jo_kv_u64(g, "tid", oi.resource);
		jo_str(g, "ts");
		jo_fixed(g, (double)oi.start_ns / 1000.0);
		jo_str(g, "dur");
		jo_fixed(g, (double)(oi.end_ns - oi.start_ns) / 1000.0);
		jo_str(g, "name");
		jo_strn(g, oi.name ? oi.name : "", oi.name ? oi.name_len : 0);
		jo_kv_str(g, "cat", chakra_perf_kind_name(oi.kind));
		jo_str(g, "args");
		yajl_gen_map_open(g);
		jo_kv_u64(g, "node_id", oi.id);
		yajl_gen_map_close(g);
		yajl_gen_map_close(g);
	}
	yajl_gen_array_close(g);
	yajl_gen_map_close(g);
	yajl_gen_free(g);
	fputc('\n', f);
	return tool_out_close(o) ? 1 : 0;
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
	for (size_t k = 0; k < ksl.n; k++) {
		const char *v = ksl.v[k], *eq = strrchr(v, '=');
		double f = 0;
		if (!eq || eq == v) {
			rc = tool_usage(name, "--kernel-scale: expected REGEX=FACTOR, got '%s'", v);
			goto out;
		}
		if (parse_factor(name, "--kernel-scale", eq + 1, v, &f)) {
			rc = 2;
			goto out;
		}
		char *re = strndup(v, (size_t)(eq - v));
		if (!re) {
			tool_err("out of memory");
			goto out;
		}
		ks.re[ks.n] = re;
		ks.f[ks.n++] = f;
	}
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
	for (size_t k = 0; k < cscale.n; k++) {
		const char *s = cscale.v[k], *eq = strchr(s, '=');
		double f = 0;
		uint64_t rank = 0;
		int all = !eq;
		if (eq) {
			char buf[32];
			size_t l = (size_t)(eq - s);
			if (!l || l >= sizeof buf) {
				rc = tool_usage(name, "--compute-scale: bad rank in '%s'", s);
				goto out;
			}
			memcpy(buf, s, l);
			buf[l] = 0;
			char *end;
			errno = 0;
			rank = buf[0] != '-' ? strtoull(buf, &end, 0) : 0;
			if (buf[0] == '-' || errno || *end) {
				rc = tool_usage(name, "--compute-scale: bad rank in '%s'", s);
				goto out;
			}
			if (rank >= nr) {
				rc = tool_usage(name, "--compute-scale: rank %" PRIu64 " is not in 0..%u",
				                rank, nr - 1);
				goto out;
			}
			s = eq + 1;
		}
		if (parse_factor(name, "--compute-scale", s, cscale.v[k], &f)) {
			rc = 2;
			goto out;
		}
		if (!rank_scale) {
			rank_scale = malloc((nr ? nr : 1) * sizeof *rank_scale);
			if (!rank_scale) {
				tool_err("out of memory");
				goto out;
			}
			for (uint32_t x = 0; x < nr; x++)
				rank_scale[x] = 1.0;
		}
		for (uint32_t x = 0; x < nr; x++)
			if (all || x == rank)
				rank_scale[x] = f;
	}
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
		if (chakra_perf_between_windows(r, between, skip, m, &o, &win) < 0) {
			tool_err("%s: %s", workload, win.errmsg);
			goto out;
		}
		const int64_t *wit = win.predicted_ns, *wrec = win.recorded_ns;
		size_t med = win.median;
		int64_t rec_med = win.recorded_median_ns;
		chakra_perf *d = NULL;
		if (chakra_perf_between(r, between, skip + med, &d) < 0 ||
		    chakra_perf_run(d, &o) < 0) {
			tool_err("%s: %s", workload, d ? chakra_perf_errmsg(d) : "out of memory");
			chakra_perf_free(d);
			goto out;
		}
		chakra_perf_free(r);
		r = d;
		double secs = tool_now() - t0;
		if (timeline && timeline_out(r, timeline, force, tl_in, &tlo))
			goto out;
		if (json) {
			between_res bw = { between, skip, m, med, wit, wrec, rec_med };
			json_out(r, &bw);
		} else {
			char a[40], b[40];
			printf("%zu iterations between '%s' annotations (first %llu skipped):\n", m,
			       between, (unsigned long long)skip);
			for (size_t w = 0; w < m; w++) {
				us_str(wit[w], a, sizeof a);
				us_str(wrec[w], b, sizeof b);
				printf("  %4zu  predicted %14s us  recorded %14s us  %+.2f%%\n", skip + w,
				       a, b, 100.0 * (double)(wit[w] - wrec[w]) / (double)wrec[w]);
			}
			us_str(wit[med], a, sizeof a);
			us_str(rec_med, b, sizeof b);
			printf("median: predicted %s us, recorded %s us (%+.2f%%); iteration %llu "
			       "below:\n", a, b, 100.0 * (double)(wit[med] - rec_med) / (double)rec_med,
			       (unsigned long long)(skip + med));
			text_out(r, chakra_perf_iterations(r), (size_t)ntop, secs);
		}
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
	if (timeline && timeline_out(r, timeline, force, tl_in, &tlo))
		goto out;
	unsigned copies = chakra_perf_iterations(r);
	if (chakra_perf_unknown_deps(r))
		fprintf(stderr, "chakra: warning: %" PRIu64 " dependencies on ids not in the trace "
		        "were ignored\n", chakra_perf_unknown_deps(r));
	if (chakra_perf_dropped_edges(r))
		fprintf(stderr, "chakra: warning: %" PRIu64 " dependencies against the recorded order "
		        "of a thread or stream were ignored\n", chakra_perf_dropped_edges(r));
	if (json)
		json_out(r, NULL);
	else
		text_out(r, copies, (size_t)ntop, secs);
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
