/* SPDX-License-Identifier: Apache-2.0 */
/* chakra sim --replay: the report as JSON (replay_out.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonout.h"
#include "replay_out.h"

static void jo_us(yajl_gen g, const char *key, int64_t ns)
{
	char b[40];
	chakra_perf_us_format(ns, b, sizeof b);
	jo_str(g, key);
	yajl_gen_number(g, b, strlen(b));
}

static void jo_i64(yajl_gen g, const char *key, int64_t v)
{
	jo_str(g, key);
	yajl_gen_integer(g, v);
}

void replay_json_out(const chakra_perf *r, const between_res *bw)
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
			jo_kv_str(g, "name", chakra_perf_resource_name(&ri, nb, sizeof nb));
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
	chakra_perf_path_totals ps;
	chakra_perf_path_sum(r, &ps);
	jo_str(g, "critical_path");
	yajl_gen_map_open(g);
	jo_kv_u64(g, "segments", chakra_perf_path_length(r));
	jo_str(g, "op_time_us");
	yajl_gen_map_open(g);
	for (int k = 0; k < CHAKRA_PERF_KIND_COUNT; k++)
		if (k != CHAKRA_PERF_MARK)
			jo_us(g, chakra_perf_kind_name(k), ps.own_ns[k]);
	yajl_gen_map_close(g);
	jo_str(g, "wait_us");
	yajl_gen_map_open(g);
	for (int k = 0; k < CHAKRA_PERF_EDGE_KIND_COUNT; k++)
		jo_us(g, chakra_perf_edge_kind_name(k), ps.lag_ns[k]);
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
		jo_kv_str(g, "resource", chakra_perf_resource_name(&ri, nb, sizeof nb));
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
