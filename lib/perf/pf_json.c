/* SPDX-License-Identifier: Apache-2.0 */
/* The replay's report as one JSON object (`chakra sim --replay --json`),
 * and the numbers and names both reports print: microseconds with three
 * decimals, a resource's name. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <yajl/yajl_gen.h>

#include "../utf8.h"
#include "jguard.h"
#include "pf_impl.h"

void chakra_perf_us_format(int64_t ns, char *buf, size_t cap)
{
	if (!buf || !cap)
		return;
	const char *sign = ns < 0 ? "-" : "";
	uint64_t a = ns < 0 ? (uint64_t)(-(ns + 1)) + 1 : (uint64_t)ns;
	snprintf(buf, cap, "%s%" PRIu64 ".%03" PRIu64, sign, a / 1000, a % 1000);
}

const char *chakra_perf_resource_name(const chakra_perf_resource_info *ri, char *buf, size_t cap)
{
	if (!ri || !buf || !cap)
		return buf;
	if (!ri->gpu)
		snprintf(buf, cap, ri->id == -1 && ri->device == -1 ? "host" : "thread %" PRId64,
		         ri->id);
	else if (ri->device == -1)
		snprintf(buf, cap, "%s", ri->id == -2 ? "comm" : "compute");
	else
		snprintf(buf, cap, "stream %" PRId64 " (device %" PRId64 ")", ri->id, ri->device);
	return buf;
}

/* A string; bytes that are not UTF-8 become U+FFFD, so the output is
 * always valid JSON (op names come from the trace as they were). */
static void j_strn(yajl_gen g, chakra__jg *jg, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;
	while (i < len && chakra__utf8_len(u + i, len - i))
		i += chakra__utf8_len(u + i, len - i);
	if (i == len) {
		yajl_gen_string(g, u, len);
		return;
	}
	/* the guard's allocator: a failure jumps back, nothing leaks */
	unsigned char *b = jg->funcs.malloc(jg->funcs.ctx, len * 3 + 1);
	size_t o = chakra__utf8_repair(b, u, len);
	yajl_gen_string(g, b, o);
	jg->funcs.free(jg->funcs.ctx, b);
}

static void j_str(yajl_gen g, chakra__jg *jg, const char *s)
{
	j_strn(g, jg, s, strlen(s));
}

static void j_u64(yajl_gen g, chakra__jg *jg, const char *key, uint64_t v)
{
	char b[32];
	int n = snprintf(b, sizeof b, "%llu", (unsigned long long)v);
	j_str(g, jg, key);
	yajl_gen_number(g, b, (size_t)n);
}

static void j_kstr(yajl_gen g, chakra__jg *jg, const char *key, const char *v)
{
	j_str(g, jg, key);
	j_str(g, jg, v);
}

static void j_us(yajl_gen g, chakra__jg *jg, const char *key, int64_t ns)
{
	char b[40];
	chakra_perf_us_format(ns, b, sizeof b);
	j_str(g, jg, key);
	yajl_gen_number(g, b, strlen(b));
}

static void j_i64(yajl_gen g, chakra__jg *jg, const char *key, int64_t v)
{
	j_str(g, jg, key);
	yajl_gen_integer(g, v);
}

/* --between: the windows; iteration_us and the rest describe the median. */
static void gen_windows(yajl_gen g, chakra__jg *jg, const chakra_perf_breakdown *bd,
                        const char *annotation, uint64_t first, const chakra_perf_windows *w)
{
	j_us(g, jg, "recorded_us", w->recorded_median_ns);
	j_kstr(g, jg, "between", annotation);
	j_u64(g, jg, "skip", first);
	j_u64(g, jg, "reported_window", first + w->median);
	j_us(g, jg, "reported_window_recorded_us", bd->recorded_ns);
	j_str(g, jg, "windows");
	yajl_gen_array_open(g);
	for (size_t k = 0; k < w->count; k++) {
		yajl_gen_map_open(g);
		j_u64(g, jg, "window", first + k);
		j_us(g, jg, "iteration_us", w->predicted_ns[k]);
		j_us(g, jg, "recorded_us", w->recorded_ns[k]);
		yajl_gen_map_close(g);
	}
	yajl_gen_array_close(g);
}

/* Where a rank's (or the critical rank's) iteration went. */
static void gen_split(yajl_gen g, chakra__jg *jg, const chakra_perf_breakdown *b)
{
	j_us(g, jg, "gpu_compute_us", b->gpu_compute_ns);
	j_us(g, jg, "comm_exposed_us", b->comm_exposed_ns);
	j_us(g, jg, "cpu_bound_us", b->cpu_bound_ns);
	j_us(g, jg, "idle_us", b->idle_ns);
	j_us(g, jg, "comm_us", b->comm_ns);
}

static void gen_ranks(yajl_gen g, chakra__jg *jg, const chakra_perf *r)
{
	j_str(g, jg, "per_rank");
	yajl_gen_array_open(g);
	for (uint32_t k = 0; k < chakra_perf_ranks(r); k++) {
		const chakra_perf_breakdown *b = chakra_perf_breakdown_of(r, k);
		if (!b)
			continue;
		yajl_gen_map_open(g);
		j_u64(g, jg, "rank", k);
		if (b->recorded_ns)
			j_us(g, jg, "recorded_us", b->recorded_ns);
		gen_split(g, jg, b);
		yajl_gen_map_close(g);
	}
	yajl_gen_array_close(g);
}

/* "streams", then "threads": every resource that ran ops. */
static void gen_resources(yajl_gen g, chakra__jg *jg, const chakra_perf *r)
{
	for (int gpu = 1; gpu >= 0; gpu--) {
		j_str(g, jg, gpu ? "streams" : "threads");
		yajl_gen_array_open(g);
		for (size_t i = 0; i < chakra_perf_resource_count(r); i++) {
			chakra_perf_resource_info ri;
			char nb[64];
			chakra_perf_resource_info_of(r, i, &ri);
			if (ri.gpu != gpu || !ri.ops)
				continue;
			yajl_gen_map_open(g);
			j_u64(g, jg, "rank", ri.rank);
			j_kstr(g, jg, "name", chakra_perf_resource_name(&ri, nb, sizeof nb));
			j_i64(g, jg, gpu ? "stream" : "tid", ri.id);
			if (gpu)
				j_i64(g, jg, "device", ri.device);
			j_u64(g, jg, "ops", ri.ops);
			j_us(g, jg, "busy_us", ri.busy_ns);
			if (gpu) {
				j_us(g, jg, "launch_latency_us", ri.launch_latency_ns);
				j_us(g, jg, "queue_gap_us", ri.queue_gap_ns);
			}
			yajl_gen_map_close(g);
		}
		yajl_gen_array_close(g);
	}
}

static void gen_path(yajl_gen g, chakra__jg *jg, const chakra_perf *r)
{
	chakra_perf_path_totals ps;
	chakra_perf_path_sum(r, &ps);
	j_str(g, jg, "critical_path");
	yajl_gen_map_open(g);
	j_u64(g, jg, "segments", chakra_perf_path_length(r));
	j_str(g, jg, "op_time_us");
	yajl_gen_map_open(g);
	for (int k = 0; k < CHAKRA_PERF_KIND_COUNT; k++)
		if (k != CHAKRA_PERF_MARK)
			j_us(g, jg, chakra_perf_kind_name(k), ps.own_ns[k]);
	yajl_gen_map_close(g);
	j_str(g, jg, "wait_us");
	yajl_gen_map_open(g);
	for (int k = 0; k < CHAKRA_PERF_EDGE_KIND_COUNT; k++)
		j_us(g, jg, chakra_perf_edge_kind_name(k), ps.lag_ns[k]);
	yajl_gen_map_close(g);
	j_str(g, jg, "path");
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
		j_u64(g, jg, "rank", oi.rank);
		if (oi.kind == CHAKRA_PERF_MARK) {
			j_str(g, jg, "id");
			yajl_gen_null(g);
		} else
			j_u64(g, jg, "id", oi.id);
		j_str(g, jg, "name");
		j_strn(g, jg, oi.name ? oi.name : "", oi.name ? oi.name_len : 0);
		j_kstr(g, jg, "kind", chakra_perf_kind_name(oi.kind));
		j_kstr(g, jg, "resource", chakra_perf_resource_name(&ri, nb, sizeof nb));
		j_kstr(g, jg, "segment", p[i].is_lag ? "wait" : "run");
		j_kstr(g, jg, "via", chakra_perf_edge_kind_name(p[i].via));
		j_str(g, jg, "from");
		if (p[i].via < 0 || fi.kind == CHAKRA_PERF_MARK)
			yajl_gen_null(g);
		else
			yajl_gen_integer(g, (long long)fi.id);
		j_us(g, jg, "start_us", p[i].start_ns);
		j_us(g, jg, "end_us", p[i].end_ns);
		yajl_gen_map_close(g);
	}
	yajl_gen_array_close(g);
	yajl_gen_map_close(g);
}

static void gen_report(yajl_gen g, chakra__jg *jg, const chakra_perf *r,
                       const chakra_perf_breakdown *bd, const char *annotation, uint64_t first,
                       const chakra_perf_windows *w)
{
	yajl_gen_map_open(g);
	j_us(g, jg, "iteration_us", bd->iteration_ns);
	j_i64(g, jg, "iteration_ns", bd->iteration_ns);
	if (annotation)
		gen_windows(g, jg, bd, annotation, first, w);
	else if (bd->recorded_ns)
		j_us(g, jg, "recorded_us", bd->recorded_ns);
	if (bd->recorded_ns)
		j_us(g, jg, "replayed_window_us", bd->replayed_window_ns);
	j_u64(g, jg, "ranks", chakra_perf_ranks(r));
	j_u64(g, jg, "critical_rank", chakra_perf_critical_rank(r));
	j_u64(g, jg, "ops", chakra_perf_op_count(r));
	j_u64(g, jg, "edges", chakra_perf_edge_count(r));
	j_u64(g, jg, "iterations", chakra_perf_iterations(r));
	j_u64(g, jg, "inferred_thread_waits", chakra_perf_thread_waits(r));
	j_str(g, jg, "breakdown");
	yajl_gen_map_open(g);
	gen_split(g, jg, bd);
	j_us(g, jg, "comm_overlapped_us", bd->comm_overlapped_ns);
	yajl_gen_map_close(g);
	gen_ranks(g, jg, r);
	gen_resources(g, jg, r);
	gen_path(g, jg, r);
	yajl_gen_map_close(g);
}

int chakra_perf_report_json(chakra_write_cb write, void *data, const chakra_perf *r,
                            const char *annotation, uint64_t first,
                            const chakra_perf_windows *w)
{
	const chakra_perf_breakdown *bd = chakra_perf_breakdown_of(r, -1);
	if (!write || !bd || (annotation && (!w || !w->count || w->median >= w->count)))
		return CHAKRA_EINVAL;
	/* YAJL does not check its allocations: a failure jumps back here */
	chakra__jg *jg = chakra__jg_new();
	if (!jg)
		return CHAKRA_ENOMEM;
	if (setjmp(jg->fail)) {
		chakra__jg_release(jg);
		return CHAKRA_ENOMEM;
	}
	yajl_gen g = yajl_gen_alloc(&jg->funcs);
	gen_report(g, jg, r, bd, annotation, first, w);
	const unsigned char *buf;
	size_t len;
	yajl_gen_get_buf(g, &buf, &len);
	int rc = write(data, buf, len) < 0 || write(data, "\n", 1) < 0 ? CHAKRA_EIO : 0;
	yajl_gen_free(g);
	chakra__jg_free(jg);
	return rc;
}
