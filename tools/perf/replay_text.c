/* SPDX-License-Identifier: Apache-2.0 */
/* chakra sim --replay: the report as text, and the timeline (replay_out.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonout.h"
#include "replay_out.h"

typedef struct top {
	uint64_t op;
	int64_t t;
} top;

static int cmp_top(const void *a, const void *b)
{
	const top *x = a, *y = b;
	return x->t > y->t ? -1 : x->t < y->t;
}

void replay_text_out(const chakra_perf *r, unsigned copies, size_t ntop, double secs)
{
	const chakra_perf_breakdown *bd = chakra_perf_breakdown_of(r, -1);
	char a[40], b[40];
	int64_t it = bd->iteration_ns;
	chakra_perf_us_format(it, a, sizeof a);
	printf("replayed %u rank%s, %" PRIu64 " ops, %u iteration%s back to back (%.3f s)\n",
	       chakra_perf_ranks(r), chakra_perf_ranks(r) == 1 ? "" : "s",
	       chakra_perf_op_count(r), copies, copies == 1 ? "" : "s", secs);
	printf("iteration       %14s us", a);
	if (bd->recorded_ns) {
		chakra_perf_us_format(bd->recorded_ns, b, sizeof b);
		printf("   (recorded %s us, %+.2f%%)", b,
		       100.0 * (double)(it - bd->recorded_ns) / (double)bd->recorded_ns);
	}
	printf("\n");
	if (bd->recorded_ns && copies > 1) {
		/* the window once, from the state it was recorded in */
		chakra_perf_us_format(bd->replayed_window_ns, a, sizeof a);
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
		chakra_perf_us_format(rows[i].v, a, sizeof a);
		printf("  %-13s %14s us %6.1f%%\n", rows[i].name, a,
		       it ? 100.0 * (double)rows[i].v / (double)it : 0.0);
	}
	for (size_t i = 0; i < chakra_perf_resource_count(r); i++) {
		chakra_perf_resource_info ri;
		char nb[64];
		chakra_perf_resource_info_of(r, i, &ri);
		if (!ri.ops)
			continue;
		chakra_perf_us_format(ri.busy_ns, a, sizeof a);
		printf("rank %u %-22s busy %14s us %6.1f%%  %" PRIu64 " ops\n", ri.rank,
		       chakra_perf_resource_name(&ri, nb, sizeof nb), a,
		       it ? 100.0 * (double)ri.busy_ns / (double)it : 0.0, ri.ops);
	}
	chakra_perf_path_totals ps;
	chakra_perf_path_sum(r, &ps);
	printf("critical path (rank %u): %zu segments;", chakra_perf_critical_rank(r),
	       chakra_perf_path_length(r));
	for (int k = 0; k < CHAKRA_PERF_KIND_COUNT; k++)
		if (ps.own_ns[k]) {
			chakra_perf_us_format(ps.own_ns[k], a, sizeof a);
			printf(" %s %s us,", chakra_perf_kind_name(k), a);
		}
	for (int k = 0; k < CHAKRA_PERF_EDGE_KIND_COUNT; k++)
		if (ps.lag_ns[k]) {
			chakra_perf_us_format(ps.lag_ns[k], a, sizeof a);
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
		chakra_perf_us_format(t[i].t, a, sizeof a);
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
int replay_timeline_out(const chakra_perf *r, const char *path, int force,
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
		jo_kv_str(g, "name", chakra_perf_resource_name(&ri, nb, sizeof nb));
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
