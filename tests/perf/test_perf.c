/* SPDX-License-Identifier: Apache-2.0 */
/* The replay module (lib/perf): the model's rules on graphs built by
 * hand, with closed-form answers; the invariants of every result (the
 * breakdown sums to the iteration, the critical path is a path of the
 * graph); and the measured ground truth of the Kineto traces in tests/data
 * (converted with lib/convert).
 *
 *   test_perf unit     hand-built graphs
 *   test_perf traces   the small Kineto traces
 *   test_perf large    ResNet-50 DDP (3 steps) and the MLP (37 iterations)
 */
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef CHAKRA_EXPERIMENTAL
#define CHAKRA_EXPERIMENTAL
#endif
#include "chakra/chakra.h"
#include "chakra/experimental/convert.h"
#include "chakra/experimental/perf.h"
#include "check.h"

/* ---- invariants of any result ---- */

static void check_result(const chakra_perf *r, const char *what)
{
	const chakra_perf_breakdown *bd = chakra_perf_breakdown_of(r, -1);
	CHECK_MSG(bd != NULL, "%s: no breakdown", what);
	if (!bd)
		return;
	for (uint32_t k = 0; k < chakra_perf_ranks(r); k++) {
		const chakra_perf_breakdown *b = chakra_perf_breakdown_of(r, k);
		if (!b)
			continue;
		CHECK_MSG(b->gpu_compute_ns + b->comm_exposed_ns + b->cpu_bound_ns + b->idle_ns ==
		          b->iteration_ns, "%s rank %u: breakdown does not sum", what, k);
		CHECK_MSG(b->gpu_compute_ns >= 0 && b->comm_exposed_ns >= 0 && b->cpu_bound_ns >= 0 &&
		          b->idle_ns >= 0 && b->comm_overlapped_ns >= 0, "%s rank %u: negative part",
		          what, k);
		CHECK_MSG(b->comm_ns == b->comm_exposed_ns + b->comm_overlapped_ns, "%s: comm", what);
	}
	/* the critical path: contiguous from 0 to the iteration's end, and
	 * each step follows an edge of the graph */
	size_t n = chakra_perf_path_length(r);
	const chakra_perf_segment *p = chakra_perf_path(r);
	CHECK_MSG(n > 0 || bd->iteration_ns == 0, "%s: empty critical path", what);
	int64_t t = 0, total = 0;
	for (size_t i = 0; i < n; i++) {
		CHECK_MSG(p[i].start_ns == t, "%s: path segment %zu starts at %lld, previous ended "
		          "at %lld", what, i, (long long)p[i].start_ns, (long long)t);
		CHECK_MSG(p[i].end_ns >= p[i].start_ns, "%s: segment %zu backwards", what, i);
		total += p[i].end_ns - p[i].start_ns;
		t = p[i].end_ns;
		if (p[i].via >= 0 && p[i].from_op != p[i].op)
			CHECK_MSG(chakra_perf_has_edge(r, p[i].from_op, p[i].op),
			          "%s: segment %zu: no edge %llu -> %llu (%s)", what, i,
			          (unsigned long long)p[i].from_op, (unsigned long long)p[i].op,
			          chakra_perf_edge_kind_name(p[i].via));
		if (i && p[i].op != p[i - 1].op) {
			/* a new op is entered from the op before on the path */
			CHECK_MSG(p[i].via >= 0 && p[i].from_op == p[i - 1].op,
			          "%s: segment %zu enters op %llu not from the op before it (%llu)", what,
			          i, (unsigned long long)p[i].op, (unsigned long long)p[i - 1].op);
		}
	}
	CHECK_MSG(total == bd->iteration_ns, "%s: path %lld ns, iteration %lld ns", what,
	          (long long)total, (long long)bd->iteration_ns);
}

/* ---- building graphs ---- */

static chakra_perf *R;

static uint32_t res(uint32_t rank, int gpu, int64_t id)
{
	int64_t x = chakra_perf_resource(R, rank, gpu, gpu ? 0 : 0, id);
	CHECK(x >= 0);
	return (uint32_t)x;
}

static uint64_t op(uint32_t resource, chakra_perf_kind kind, const char *name, int64_t start,
                   int64_t dur)
{
	chakra_perf_op o;
	memset(&o, 0, sizeof o);
	o.resource = resource;
	o.kind = kind;
	o.start_ns = start;
	o.dur_ns = dur;
	o.name = name;
	o.name_len = (size_t)-1;
	static uint64_t id;
	o.id = ++id;
	int64_t x = chakra_perf_op_add(R, &o);
	CHECK_MSG(x >= 0, "op_add %s: %s", name, chakra_perf_errmsg(R));
	return (uint64_t)x;
}

static uint64_t comm(uint32_t resource, const char *name, int64_t start, int64_t dur,
                     uint64_t size, const char *pg)
{
	chakra_perf_op o;
	memset(&o, 0, sizeof o);
	o.resource = resource;
	o.kind = CHAKRA_PERF_COMM;
	o.start_ns = start;
	o.dur_ns = dur;
	o.name = name;
	o.name_len = (size_t)-1;
	o.comm_type = CHAKRA_ALL_REDUCE;
	o.comm_size = size;
	o.pg_name = pg;
	int64_t x = chakra_perf_op_add(R, &o);
	CHECK_MSG(x >= 0, "op_add %s: %s", name, chakra_perf_errmsg(R));
	return (uint64_t)x;
}

static void edge(uint64_t a, uint64_t b)
{
	CHECK_MSG(chakra_perf_edge_add(R, a, b) == 0, "%s", chakra_perf_errmsg(R));
}

static int64_t run(const chakra_perf_options *o, const char *what)
{
	int rc = chakra_perf_run(R, o);
	CHECK_MSG(rc == 0, "%s: %s", what, chakra_perf_errmsg(R));
	if (rc)
		return -1;
	check_result(R, what);
	return chakra_perf_breakdown_of(R, -1)->iteration_ns;
}

static int64_t end_of(uint64_t o)
{
	chakra_perf_op_info oi;
	chakra_perf_op_info_of(R, o, &oi);
	return oi.end_ns;
}

static int64_t start_of(uint64_t o)
{
	chakra_perf_op_info oi;
	chakra_perf_op_info_of(R, o, &oi);
	return oi.start_ns;
}

/* Launch latency and stream queueing; kernel-scale; one iteration vs the
 * steady state of two back to back. */
static void t_launch(void)
{
	chakra_perf_new(&R);
	uint32_t T = res(0, 0, 1), S = res(0, 1, 7);
	op(T, CHAKRA_PERF_CPU, "a", 0, 10);
	uint64_t l1 = op(T, CHAKRA_PERF_CALL, "cudaLaunchKernel", 10, 5);
	uint64_t l2 = op(T, CHAKRA_PERF_CALL, "cudaLaunchKernel", 15, 5);
	op(T, CHAKRA_PERF_CPU, "b", 20, 100);
	uint64_t k1 = op(S, CHAKRA_PERF_KERNEL, "gemm_k1", 20, 50);  /* 10 after its launch */
	uint64_t k2 = op(S, CHAKRA_PERF_KERNEL, "relu_k2", 70, 30);  /* queued behind k1 */
	edge(l1, k1);
	edge(l2, k2);
	CHECK(chakra_perf_window(R, 0, 0, 120, T) == 0);
	chakra_perf_options o = CHAKRA_PERF_OPTIONS_INIT;
	CHECK_EQ_U(run(&o, "launch: as recorded"), 120);
	CHECK_EQ_U(chakra_perf_iterations(R), 2);
	chakra_perf_resource_info ri;
	chakra_perf_resource_info_of(R, S, &ri);
	CHECK_EQ_U(ri.launch_latency_ns, 10);
	CHECK_EQ_U(ri.queue_gap_ns, 0);
	CHECK_EQ_U(ri.busy_ns, 80);
	/* k1 twice as long: alone, the GPU ends at 150 (k1 20..120, k2 120..150) */
	const char *re[] = { "gemm" };
	double f[] = { 2.0 };
	o.kernel_scale_re = re;
	o.kernel_scale = f;
	o.n_kernel_scale = 1;
	o.copies = 1;
	CHECK_EQ_U(run(&o, "launch: one iteration"), 150);
	CHECK_EQ_U(start_of(k2), 120);
	/* back to back, the GPU is the bottleneck: 100 + 30 per iteration */
	o.copies = 2;
	CHECK_EQ_U(run(&o, "launch: steady state"), 130);
	const chakra_perf_breakdown *bd = chakra_perf_breakdown_of(R, 0);
	CHECK_EQ_U(bd->gpu_compute_ns, 130);
	CHECK_EQ_U(bd->cpu_bound_ns, 0);
	/* the model's gaps instead of the recorded ones: unchanged here */
	o.n_kernel_scale = 0;
	o.modelled_gaps = 1;
	CHECK_EQ_U(run(&o, "launch: modelled gaps"), 120);
	chakra_perf_free(R);
}

/* A blocking call returns its own cost after what it waits for: the wait
 * is recomputed, never added to the recorded duration. */
static void t_sync(void)
{
	chakra_perf_new(&R);
	uint32_t T = res(0, 0, 1), S = res(0, 1, 7);
	uint64_t l = op(T, CHAKRA_PERF_CALL, "cudaLaunchKernel", 0, 5);
	uint64_t k = op(S, CHAKRA_PERF_KERNEL, "k", 10, 100);
	uint64_t sy = op(T, CHAKRA_PERF_CALL, "cudaDeviceSynchronize", 20, 95); /* waits to 110, +5 */
	uint64_t c = op(T, CHAKRA_PERF_CPU, "after", 115, 10);
	edge(l, k);
	edge(k, sy);
	CHECK(chakra_perf_window(R, 0, 0, 125, T) == 0);
	chakra_perf_options o = CHAKRA_PERF_OPTIONS_INIT;
	o.copies = 1;
	CHECK_EQ_U(run(&o, "sync: as recorded"), 125);
	chakra_perf_op_info oi;
	chakra_perf_op_info_of(R, sy, &oi);
	CHECK(oi.kind == CHAKRA_PERF_SYNC);
	const char *re[] = { "^k$" };
	double f[] = { 2.0 };
	o.kernel_scale_re = re;
	o.kernel_scale = f;
	o.n_kernel_scale = 1;
	CHECK_EQ_U(run(&o, "sync: slower kernel"), 225); /* 10 + 200, +5, +10 */
	CHECK_EQ_U(end_of(sy), 215);
	f[0] = 0.5;
	CHECK_EQ_U(run(&o, "sync: faster kernel"), 75);  /* kernel ends 60: call ends 65 */
	CHECK_EQ_U(end_of(c), 75);
	/* the wait is not host work: GPU idle while the host waits is idle */
	f[0] = 1.0;
	run(&o, "sync: breakdown");
	const chakra_perf_breakdown *bd = chakra_perf_breakdown_of(R, 0);
	CHECK_EQ_U(bd->gpu_compute_ns, 100);
	CHECK_EQ_U(bd->cpu_bound_ns, 25);   /* 0..10 launch, 110..125 return + after */
	chakra_perf_free(R);
}

/* Waits the producer names (CHAKRA_PERF_DEP_WAIT, an ET's sync_deps): a
 * blocking copy's own call returns after the copy it launched (launch from
 * its start, wait to its end: no cycle), and a stream synchronize after it
 * waits too, where the inference (CHAKRA_PERF_DEP_INFER) gives both waits
 * to the call that was running when the copy ended. */
static void t_wait(void)
{
	for (int given = 0; given < 2; given++) {
		chakra_perf_new(&R);
		uint32_t T = res(0, 0, 1), S = res(0, 1, 7);
		uint64_t call = op(T, CHAKRA_PERF_CALL, "cudaMemcpyAsync", 0, 40); /* copy ends 35, +5 */
		uint64_t next = op(T, CHAKRA_PERF_CPU, "aten::is_nonzero", 40, 2);
		uint64_t ss = op(T, CHAKRA_PERF_CALL, "cudaStreamSynchronize", 42, 3);
		uint64_t cp = op(S, CHAKRA_PERF_MEMORY, "Memcpy DtoH (Device -> Pageable)", 15, 20);
		edge(call, cp);
		if (given) {
			CHECK(chakra_perf_dep_add(R, cp, call, CHAKRA_PERF_DEP_WAIT) == 0);
			CHECK(chakra_perf_dep_add(R, cp, next, CHAKRA_PERF_DEP_START) == 0);
			CHECK(chakra_perf_dep_add(R, cp, ss, CHAKRA_PERF_DEP_WAIT) == 0);
		} else {
			edge(cp, next); /* as converters before format 2 wrote it */
			edge(cp, ss);
		}
		CHECK(chakra_perf_window(R, 0, 0, 45, T) == 0);
		chakra_perf_options o = CHAKRA_PERF_OPTIONS_INIT;
		o.copies = 1;
		CHECK_EQ_U(run(&o, "wait: as recorded"), 45);
		chakra_perf_op_info oi;
		chakra_perf_op_info_of(R, call, &oi);
		CHECK(oi.kind == CHAKRA_PERF_SYNC);
		chakra_perf_op_info_of(R, next, &oi);
		CHECK(oi.kind == CHAKRA_PERF_CPU);
		chakra_perf_op_info_of(R, ss, &oi);
		/* the inference retargets the synchronize's wait to the copy call */
		CHECK_MSG(oi.kind == (given ? CHAKRA_PERF_SYNC : CHAKRA_PERF_CALL), "given %d: kind %d",
		          given, (int)oi.kind);
		CHECK(chakra_perf_has_edge(R, cp, call));
		CHECK_EQ_U(chakra_perf_has_edge(R, cp, next), given);
		/* a 3x slower copy (15..75): the call returns 5 after it, the rest
		 * follows; the synchronize (base 3) returns at once either way */
		const char *re[] = { "Memcpy" };
		double f[] = { 3.0 };
		o.kernel_scale_re = re;
		o.kernel_scale = f;
		o.n_kernel_scale = 1;
		CHECK_EQ_U(run(&o, "wait: slower copy"), 85);
		CHECK_EQ_U(end_of(call), 80);
		CHECK_EQ_U(start_of(next), 80);
		CHECK_EQ_U(end_of(ss), 85);
		chakra_perf_free(R);
	}
	/* a wait goes from a device op to a CPU op */
	chakra_perf_new(&R);
	uint32_t T = res(0, 0, 1), S = res(0, 1, 7);
	uint64_t a = op(T, CHAKRA_PERF_CPU, "a", 0, 1), b = op(T, CHAKRA_PERF_CPU, "b", 1, 1);
	uint64_t k = op(S, CHAKRA_PERF_KERNEL, "k", 0, 1);
	CHECK(chakra_perf_dep_add(R, a, b, CHAKRA_PERF_DEP_WAIT) == CHAKRA_EINVAL);
	CHECK(strstr(chakra_perf_errmsg(R), "device op") != NULL);
	CHECK(chakra_perf_dep_add(R, a, k, CHAKRA_PERF_DEP_WAIT) == CHAKRA_EINVAL);
	CHECK(chakra_perf_dep_add(R, k, a, (chakra_perf_dep)7) == CHAKRA_EINVAL);
	CHECK(chakra_perf_rank_given(R, 0, 0x80) == CHAKRA_EINVAL);
	chakra_perf_free(R);
}

/* Event record -> wait across streams. */
static void t_event(void)
{
	chakra_perf_new(&R);
	uint32_t T = res(0, 0, 1), A = res(0, 1, 7), B = res(0, 1, 20);
	uint64_t l1 = op(T, CHAKRA_PERF_CALL, "launch", 0, 5);
	uint64_t l2 = op(T, CHAKRA_PERF_CALL, "launch", 5, 5);
	uint64_t ka = op(A, CHAKRA_PERF_KERNEL, "ka", 10, 40);
	uint64_t kb = op(B, CHAKRA_PERF_KERNEL, "kb", 51, 20);   /* waits for ka */
	uint64_t sy = op(T, CHAKRA_PERF_CALL, "sync", 10, 63);   /* waits for kb (71) + 2 */
	edge(l1, ka);
	edge(l2, kb);
	edge(ka, kb);
	edge(kb, sy);
	CHECK(chakra_perf_window(R, 0, 0, 73, T) == 0);
	chakra_perf_options o = CHAKRA_PERF_OPTIONS_INIT;
	o.copies = 1;
	CHECK_EQ_U(run(&o, "event: as recorded"), 73);
	const char *re[] = { "ka" };
	double f[] = { 2.0 };
	o.kernel_scale_re = re;
	o.kernel_scale = f;
	o.n_kernel_scale = 1;
	CHECK_EQ_U(run(&o, "event: slower ka"), 113);
	CHECK_EQ_U(start_of(kb), 91);
	/* the path: launch, ka, (event) kb, (sync) the call */
	const chakra_perf_segment *p = chakra_perf_path(R);
	size_t n = chakra_perf_path_length(R);
	int saw_event = 0, saw_sync = 0;
	for (size_t i = 0; i < n; i++) {
		saw_event |= p[i].via == CHAKRA_PERF_EDGE_EVENT && p[i].op == kb;
		saw_sync |= p[i].via == CHAKRA_PERF_EDGE_SYNC && p[i].op == sy;
	}
	CHECK(saw_event && saw_sync);
	chakra_perf_free(R);
}

/* Collectives across ranks: the transfer is the last member's time, the
 * others' recorded waits are not counted again. */
static void t_collective(void)
{
	chakra_perf_new(&R);
	uint32_t T0 = res(0, 0, 1), S0 = res(0, 1, 7), T1 = res(1, 0, 1), S1 = res(1, 1, 7);
	uint64_t a0 = op(T0, CHAKRA_PERF_CALL, "launch", 0, 5);
	uint64_t b0 = op(T0, CHAKRA_PERF_CALL, "launch", 5, 5);
	uint64_t k0 = op(S0, CHAKRA_PERF_KERNEL, "k0", 10, 100);
	uint64_t c0 = comm(S0, "ncclAllReduce", 110, 50, 1 << 20, "g");
	uint64_t b1 = op(T1, CHAKRA_PERF_CALL, "launch", 5, 5);
	uint64_t c1 = comm(S1, "ncclAllReduce", 20, 140, 1 << 20, "g"); /* waited 90 for rank 0 */
	edge(a0, k0);
	edge(b0, c0);
	edge(b1, c1);
	uint64_t s0 = op(T0, CHAKRA_PERF_CALL, "sync", 10, 155);
	uint64_t s1 = op(T1, CHAKRA_PERF_CALL, "sync", 10, 155);
	edge(c0, s0);
	edge(c1, s1);
	CHECK(chakra_perf_window(R, 0, 0, 165, T0) == 0);
	CHECK(chakra_perf_window(R, 1, 0, 165, T1) == 0);
	chakra_perf_options o = CHAKRA_PERF_OPTIONS_INIT;
	o.copies = 1;
	CHECK_EQ_U(run(&o, "collective: as recorded"), 165);
	CHECK_EQ_U(end_of(c0), 160);
	CHECK_EQ_U(end_of(c1), 160);
	const char *re[] = { "k0" };
	double f[] = { 0.5 };
	o.kernel_scale_re = re;
	o.kernel_scale = f;
	o.n_kernel_scale = 1;
	CHECK_EQ_U(run(&o, "collective: faster rank 0"), 115);
	CHECK_EQ_U(end_of(c0), 110); /* rank 0 arrives at 60, +50 */
	CHECK_EQ_U(end_of(c1), 110); /* not 20 + 140 */
	/* one rank alone keeps its own recorded duration (waits included) */
	chakra_perf_free(R);
	chakra_perf_new(&R);
	T1 = res(1, 0, 1);
	S1 = res(1, 1, 7);
	b1 = op(T1, CHAKRA_PERF_CALL, "launch", 5, 5);
	c1 = comm(S1, "ncclAllReduce", 20, 140, 1 << 20, "g");
	edge(b1, c1);
	CHECK(chakra_perf_window(R, 1, 0, 165, T1) == 0);
	CHECK_EQ_U(run(&o, "collective: one rank"), 165);
	CHECK_EQ_U(end_of(c1), 160);
	chakra_perf_free(R);
}

/* Collectives issued in different orders on two ranks: a deadlock. */
static void t_deadlock(void)
{
	chakra_perf_new(&R);
	uint32_t S0 = res(0, 1, 7), S1 = res(1, 1, 7);
	comm(S0, "a", 0, 10, 64, "a");
	comm(S0, "b", 10, 10, 64, "b");
	comm(S1, "b", 0, 10, 64, "b");
	comm(S1, "a", 10, 10, 64, "a");
	int rc = chakra_perf_run(R, NULL);
	CHECK_EQ_U(rc, CHAKRA_ECYCLE);
	CHECK(strstr(chakra_perf_errmsg(R), "cycle") != NULL);
	chakra_perf_free(R);
	/* mismatched sizes */
	chakra_perf_new(&R);
	S0 = res(0, 1, 7);
	S1 = res(1, 1, 7);
	comm(S0, "a", 0, 10, 64, "a");
	comm(S1, "a", 0, 10, 128, "a");
	CHECK(chakra_perf_run(R, NULL) == CHAKRA_EINVAL);
	CHECK(strstr(chakra_perf_errmsg(R), "128 bytes") != NULL);
	chakra_perf_free(R);
}

/* A network what-if with a closed form: compute, an all-reduce of S bytes
 * on a 2-NPU ring, compute. ASTRA-sim's ring all-reduce over n = 2 with one
 * chunk: 2(n-1) steps of S/2 bytes, the first reduced: 2D + 3e + r, with
 * D = floor(latency + (S/2) / B), B = bw * 2^30 / 1e9 bytes/ns,
 * e = endpoint delay, r = 3 floor((S/2) / local-mem-bw). */
static void t_network(void)
{
	const char *ny = "topology: [ Ring ]\nnpus_count: [ 2 ]\nbandwidth: [ 50.0 ]\n"
	                 "latency: [ 500.0 ]\n";
	const char *sj = "{\"endpoint-delay\": 10, \"active-chunks-per-dimension\": 1, "
	                 "\"preferred-dataset-splits\": 1, \"all-reduce-implementation\": [\"ring\"], "
	                 "\"all-gather-implementation\": [\"ring\"], "
	                 "\"reduce-scatter-implementation\": [\"ring\"], "
	                 "\"all-to-all-implementation\": [\"ring\"], "
	                 "\"collective-optimization\": \"localBWAware\", \"local-mem-bw\": 1600}";
	chakra_sim_network net;
	chakra_sim_system sys;
	char err[512];
	CHECK_MSG(chakra_sim_network_parse(&net, "net", ny, strlen(ny), err, sizeof err) == 0, "%s",
	          err);
	CHECK_MSG(chakra_sim_system_parse(&sys, "sys", sj, strlen(sj), err, sizeof err) == 0, "%s",
	          err);
	uint64_t S = 1 << 20;
	double B = 50.0 * 1073741824.0 / 1e9;
	int64_t D = (int64_t)(500.0 + (double)(S / 2) / B);
	int64_t T = 2 * D + 3 * 10 + 3 * (int64_t)((S / 2) / 1600);
	CHECK_EQ_U(T, 21541);
	/* untimed, as generated workloads: one compute and one comm queue */
	chakra_perf_new(&R);
	for (uint32_t k = 0; k < 2; k++) {
		uint32_t C = res(k, 1, -1), M = res(k, 1, -2);
		uint64_t a = op(C, CHAKRA_PERF_KERNEL, "fwd", CHAKRA_PERF_NO_TIME, 1000);
		uint64_t x = comm(M, "allreduce", CHAKRA_PERF_NO_TIME, -1, S, NULL);
		uint64_t b = op(C, CHAKRA_PERF_KERNEL, "update", CHAKRA_PERF_NO_TIME, 500);
		edge(a, x);
		edge(x, b);
	}
	chakra_perf_options o = CHAKRA_PERF_OPTIONS_INIT;
	CHECK(chakra_perf_run(R, &o) == CHAKRA_EINVAL); /* no duration, no network */
	CHECK(strstr(chakra_perf_errmsg(R), "--network") != NULL);
	o.network = &net;
	o.system = &sys;
	CHECK_EQ_U(run(&o, "network: closed form"), 1000 + T + 500);
	const chakra_perf_breakdown *bd = chakra_perf_breakdown_of(R, 0);
	CHECK_EQ_U(bd->comm_exposed_ns, T);
	CHECK_EQ_U(bd->gpu_compute_ns, 1500);
	/* twice the bandwidth: the transfer term halves (closed form again) */
	net.bw[0] = 100.0;
	int64_t D2 = (int64_t)(500.0 + (double)(S / 2) / (2 * B));
	CHECK_EQ_U(run(&o, "network: twice the bandwidth"),
	           1000 + 2 * D2 + 30 + 3 * (int64_t)((S / 2) / 1600) + 500);
	chakra_perf_free(R);
}

/* A thread idle for more than 1 ms resumes after the other thread's op. */
static void t_threads(void)
{
	chakra_perf_new(&R);
	uint32_t A = res(0, 0, 1), Bt = res(0, 0, 2);
	op(A, CHAKRA_PERF_CPU, "forward", 0, 1000);
	uint64_t a2 = op(A, CHAKRA_PERF_CPU, "optimizer", 3000000, 1000);
	uint64_t b1 = op(Bt, CHAKRA_PERF_CPU, "backward", 1500000, 1400000);
	CHECK(chakra_perf_window(R, 0, 0, 3001000, A) == 0);
	chakra_perf_options o = CHAKRA_PERF_OPTIONS_INIT;
	CHECK_EQ_U(run(&o, "threads"), 3001000);
	CHECK_EQ_U(chakra_perf_thread_waits(R), 2); /* optimizer <- backward, backward <- forward */
	CHECK(chakra_perf_has_edge(R, b1, a2));
	/* the path runs through the backward thread */
	int through = 0;
	for (size_t i = 0; i < chakra_perf_path_length(R); i++)
		through |= chakra_perf_path(R)[i].op == b1;
	CHECK(through);
	/* a graph that gives its cross-thread waits: none inferred, the given
	 * edge is the one used, and a longer backward moves the optimizer */
	CHECK(chakra_perf_rank_given(R, 0, CHAKRA_PERF_GIVEN_THREAD_WAITS) == 0);
	CHECK_EQ_U(run(&o, "threads: given, none"), 3001000);
	CHECK_EQ_U(chakra_perf_thread_waits(R), 0);
	CHECK(!chakra_perf_has_edge(R, b1, a2));
	edge(b1, a2);
	CHECK_EQ_U(run(&o, "threads: given"), 3001000);
	CHECK_EQ_U(chakra_perf_thread_waits(R), 0);
	CHECK(chakra_perf_has_edge(R, b1, a2));
	chakra_perf_free(R);
}

static void t_errors(void)
{
	chakra_perf_new(&R);
	uint32_t T = res(0, 0, 1), S = res(0, 1, 7);
	chakra_perf_op o;
	memset(&o, 0, sizeof o);
	o.resource = S;
	o.kind = CHAKRA_PERF_CPU; /* a CPU op on a stream */
	CHECK(chakra_perf_op_add(R, &o) == CHAKRA_EINVAL);
	o.resource = 99;
	CHECK(chakra_perf_op_add(R, &o) == CHAKRA_EINVAL);
	uint64_t k = op(S, CHAKRA_PERF_KERNEL, "k", 0, 10);
	CHECK(chakra_perf_edge_add(R, k, 12345) == CHAKRA_EINVAL);
	CHECK(chakra_perf_window(R, 0, 10, 5, T) == CHAKRA_EINVAL);
	CHECK(chakra_perf_window(R, 0, 0, 5, S) == CHAKRA_EINVAL); /* not a thread */
	chakra_perf_options ro = CHAKRA_PERF_OPTIONS_INIT;
	const char *re[] = { "(" };
	double f[] = { 2 };
	ro.kernel_scale_re = re;
	ro.kernel_scale = f;
	ro.n_kernel_scale = 1;
	CHECK(chakra_perf_run(R, &ro) == CHAKRA_EINVAL);
	CHECK(strstr(chakra_perf_errmsg(R), "kernel-scale pattern") != NULL);
	ro.version = 99;
	CHECK(chakra_perf_run(R, &ro) == CHAKRA_EINVAL);
	/* compute scales: NaN and -3 were taken as 1, inf and 1e300 gave a
	 * 0 ns iteration */
	chakra_perf_options so = CHAKRA_PERF_OPTIONS_INIT;
	const double bad_scale[] = { NAN, -3, INFINITY, 1e300, 1e10 };
	for (size_t i = 0; i < sizeof bad_scale / sizeof *bad_scale; i++) {
		so.compute_scale = bad_scale[i];
		CHECK_MSG(chakra_perf_run(R, &so) == CHAKRA_EINVAL, "compute scale %g", bad_scale[i]);
		CHECK(strstr(chakra_perf_errmsg(R), "0..1e9") != NULL);
		so.compute_scale = 1;
		so.rank_compute_scale = &bad_scale[i];
		CHECK_MSG(chakra_perf_run(R, &so) == CHAKRA_EINVAL, "rank scale %g", bad_scale[i]);
		so.rank_compute_scale = NULL;
	}
	so.compute_scale = 1e9;
	CHECK_MSG(chakra_perf_run(R, &so) == 0, "%s", chakra_perf_errmsg(R));
	CHECK(chakra_perf_breakdown_of(R, -1)->iteration_ns >= 10);
	chakra_perf_free(R);
	chakra_perf_new(&R);
	CHECK(chakra_perf_run(R, NULL) == CHAKRA_EINVAL); /* nothing to replay */
	CHECK(chakra_perf_load(R, "/nonexistent/prefix") == CHAKRA_EIO);
	CHECK(strstr(chakra_perf_errmsg(R), "/nonexistent/prefix") != NULL);
	chakra_perf_free(R);
}

/* ---- process groups: checked where they enter ---- */

typedef struct mbuf {
	unsigned char *p;
	size_t n, cap;
} mbuf;

static int mbuf_write(void *data, const void *p, size_t n)
{
	mbuf *m = data;
	if (m->n + n > m->cap) {
		size_t c = (m->n + n) * 2;
		unsigned char *q = realloc(m->p, c);
		if (!q)
			return -1;
		m->p = q;
		m->cap = c;
	}
	memcpy(m->p + m->n, p, n);
	m->n += n;
	return 0;
}

/* One rank: a METADATA node for group `pg` (ranks as a list, or as a range
 * when ranks is NULL), then a timed all-reduce on it. */
static mbuf et_group(const char *pg, const int64_t *ranks, size_t n, int64_t start,
                     int64_t stride, int64_t size)
{
	mbuf m = { NULL, 0, 0 };
	chakra_writer *w = NULL;
	chakra_builder *b = chakra_builder_new();
	CHECK(chakra_writer_open_cb(&w, mbuf_write, &m, NULL) == 0);
	CHECK(chakra_writer_write_metadata(w, "0.0.4", NULL) == 0);
	chakra_builder_set_id(b, 1);
	chakra_builder_set_type(b, CHAKRA_METADATA_NODE);
	chakra_builder_set_name(b, "process_group", (size_t)-1);
	chakra_builder_attr_string(b, "pg_name", CHAKRA_ATTR_STRING, pg, (size_t)-1);
	if (ranks) {
		chakra_builder_attr_list_uint(b, "pg_ranks", CHAKRA_ATTR_INT64_LIST,
		                              (const uint64_t *)ranks, n);
	} else {
		chakra_builder_attr_int(b, "pg_rank_start", CHAKRA_ATTR_INT64, start);
		chakra_builder_attr_int(b, "pg_rank_stride", CHAKRA_ATTR_INT64, stride);
		chakra_builder_attr_int(b, "pg_size", CHAKRA_ATTR_INT64, size);
	}
	CHECK(chakra_writer_write_node(w, b) == 0);
	chakra_builder_reset(b);
	chakra_builder_set_id(b, 2);
	chakra_builder_set_type(b, CHAKRA_COMM_COLL_NODE);
	chakra_builder_set_name(b, "ncclAllReduce", (size_t)-1);
	chakra_builder_attr_int(b, "comm_type", CHAKRA_ATTR_INT64, CHAKRA_ALL_REDUCE);
	chakra_builder_attr_int(b, "comm_size", CHAKRA_ATTR_INT64, 1024);
	chakra_builder_attr_string(b, "pg_name", CHAKRA_ATTR_STRING, pg, (size_t)-1);
	chakra_builder_attr_int(b, "duration_nanos", CHAKRA_ATTR_INT64, 100);
	CHECK(chakra_writer_write_node(w, b) == 0);
	CHECK(chakra_writer_finish(w) == 0);
	chakra_writer_close(w);
	chakra_builder_free(b);
	return m;
}

static void t_groups(void)
{
	/* a rank listed twice (the converter wrote "[0, 0]" from Kineto, and
	 * the matching read past an array): refused naming the node */
	int64_t twice[] = { 0, 0 };
	mbuf m = et_group("g", twice, 2, 0, 0, 0);
	chakra_perf_new(&R);
	CHECK(chakra_perf_load_file(R, "r0.et", m.p, m.n, 0) == CHAKRA_EINVAL);
	CHECK_MSG(strstr(chakra_perf_errmsg(R), "r0.et: node 1") &&
	          strstr(chakra_perf_errmsg(R), "process group 'g': rank 0 is listed twice"), "%s",
	          chakra_perf_errmsg(R));
	chakra_perf_free(R);
	free(m.p);
	int64_t neg[] = { 0, -5 };
	m = et_group("g", neg, 2, 0, 0, 0);
	chakra_perf_new(&R);
	CHECK(chakra_perf_load_file(R, "r0.et", m.p, m.n, 0) == CHAKRA_EINVAL);
	CHECK(strstr(chakra_perf_errmsg(R), "member -5 is not a rank") != NULL);
	chakra_perf_free(R);
	free(m.p);
	/* a range (the converter's pg_rank_start / stride): ranks 0 and 2 of
	 * 0..2 are the group, never materialised; rank 1 is not a member */
	chakra_perf_new(&R);
	for (uint32_t rk = 0; rk < 3; rk += 2) {
		m = et_group("ev", NULL, 0, 0, 2, 2);
		CHECK_MSG(chakra_perf_load_file(R, "r.et", m.p, m.n, rk) == 0, "%s",
		          chakra_perf_errmsg(R));
		free(m.p);
	}
	m = et_group("ev", NULL, 0, 0, 2, 2);
	CHECK(chakra_perf_load_file(R, "r1.et", m.p, m.n, 1) == 0);
	free(m.p);
	CHECK(chakra_perf_run(R, NULL) == CHAKRA_EINVAL);
	CHECK_MSG(strstr(chakra_perf_errmsg(R), "rank 1 is not in its group 'ev'"), "%s",
	          chakra_perf_errmsg(R));
	chakra_perf_free(R);
	m = et_group("ev", NULL, 0, 4611686018427387904LL, 4611686018427387904LL, 4);
	chakra_perf_new(&R);
	CHECK(chakra_perf_load_file(R, "r0.et", m.p, m.n, 0) == CHAKRA_EINVAL);
	CHECK(strstr(chakra_perf_errmsg(R), "leaves the ranks") != NULL);
	chakra_perf_free(R);
	free(m.p);
	/* a 300-byte group name is the group's (it was dropped: the
	 * collective spanned every rank, and rank 1 matched rank 0) */
	char longname[301];
	memset(longname, 'n', 300);
	longname[300] = 0;
	int64_t only0[] = { 0 };
	chakra_perf_new(&R);
	for (uint32_t rk = 0; rk < 2; rk++) {
		m = et_group(longname, only0, 1, 0, 0, 0);
		CHECK(chakra_perf_load_file(R, "r.et", m.p, m.n, rk) == 0);
		free(m.p);
	}
	CHECK(chakra_perf_run(R, NULL) == CHAKRA_EINVAL);
	CHECK_MSG(strstr(chakra_perf_errmsg(R), "rank 1 is not in its group 'nnnn"), "%s",
	          chakra_perf_errmsg(R));
	chakra_perf_free(R);
	/* groups given in the options are checked where they enter too */
	uint32_t dup[] = { 1, 1 };
	chakra_sim_group sg = { (char *)"g", dup, 2 };
	chakra_sim_groups gs = { &sg, 1 };
	chakra_perf_options o = CHAKRA_PERF_OPTIONS_INIT;
	o.groups = &gs;
	chakra_perf_new(&R);
	for (uint32_t rk = 0; rk < 2; rk++) {
		int64_t both[] = { 0, 1 };
		m = et_group("g", both, 2, 0, 0, 0);
		CHECK(chakra_perf_load_file(R, "r.et", m.p, m.n, rk) == 0);
		free(m.p);
	}
	CHECK(chakra_perf_run(R, &o) == CHAKRA_EINVAL);
	CHECK_MSG(strstr(chakra_perf_errmsg(R), "group 'g': lists a rank twice: 1"), "%s",
	          chakra_perf_errmsg(R));
	o.groups = NULL;
	CHECK_MSG(chakra_perf_run(R, &o) == 0, "%s", chakra_perf_errmsg(R));
	chakra_perf_free(R);
}

/* ---- ETs from older converters ---- */

/* What a format-1 converter wrote for a Kineto trace: the same nodes
 * without sync_deps, no dependency between CPU nodes of different threads
 * (it wrote none), metadata without window_tid / annotation_tids and with
 * "libchakra convert 1". The replay must fall back to its inference. */
static int downgrade(const char *in, const char *out)
{
	chakra_reader *rd = NULL;
	chakra_writer *w = NULL;
	chakra_builder *b = chakra_builder_new();
	chakra_writer_options wo = CHAKRA_WRITER_OPTIONS_INIT;
	wo.overwrite = 1;
	int rc = chakra_reader_open(&rd, in, NULL);
	if (!rc)
		rc = chakra_writer_open(&w, out, &wo);
	/* node id -> tid (INT64_MIN: not a CPU node) */
	size_t cap = 1 << 16;
	int64_t *tid = malloc(cap * sizeof *tid);
	const chakra_node *n;
	if (!rc) {
		for (size_t i = 0; i < cap; i++)
			tid[i] = INT64_MIN;
		while ((rc = chakra_reader_next(rd, &n)) > 0) {
			uint64_t id = chakra_node_id(n);
			int cpu = 0;
			int64_t t;
			if (id < cap && !chakra_node_is_cpu_op(n, &cpu) && cpu &&
			    !chakra_node_get_int(n, "tid", &t))
				tid[id] = t;
		}
		chakra_reader_close(rd);
		rd = NULL;
		rc = rc < 0 ? rc : chakra_reader_open(&rd, in, NULL);
	}
	if (!rc) {
		const chakra_metadata *m = chakra_reader_metadata(rd);
		chakra_builder_reset(b);
		for (size_t i = 0; i < chakra_metadata_attr_count(m) && !rc; i++) {
			const chakra_attr *a = chakra_metadata_attr_at(m, i);
			const char *nm = chakra_attr_name(a, NULL);
			if (!strcmp(nm, "converter"))
				rc = chakra_builder_attr_string(b, nm, CHAKRA_ATTR_STRING,
				                                "libchakra convert 1", (size_t)-1);
			else if (strcmp(nm, "window_tid") && strcmp(nm, "annotation_tids"))
				rc = chakra_builder_attr_copy(b, a);
		}
		if (!rc)
			rc = chakra_writer_write_metadata(w, "0.0.4", b);
	}
	while (!rc && (rc = chakra_reader_next(rd, &n)) > 0) {
		uint64_t id = chakra_node_id(n);
		size_t len;
		const char *nm = chakra_node_name(n, &len);
		chakra_builder_reset(b);
		chakra_builder_set_id(b, id);
		chakra_builder_set_name(b, nm, len);
		chakra_builder_set_type(b, chakra_node_type_of(n));
		chakra_builder_set_start_time_micros(b, chakra_node_start_time_micros(n));
		chakra_builder_set_duration_micros(b, chakra_node_duration_micros(n));
		for (int c = 0; c < 2; c++) {
			size_t k = c ? chakra_node_ctrl_dep_count(n) : chakra_node_data_dep_count(n);
			const uint64_t *d = c ? chakra_node_ctrl_deps(n) : chakra_node_data_deps(n);
			for (size_t i = 0; i < k; i++) {
				int cross = id < cap && d[i] < cap && tid[id] != INT64_MIN &&
				            tid[d[i]] != INT64_MIN && tid[id] != tid[d[i]];
				if (!cross)
					c ? chakra_builder_add_ctrl_dep(b, d[i]) : chakra_builder_add_data_dep(b, d[i]);
			}
		}
		for (size_t i = 0; i < chakra_node_attr_count(n); i++) {
			const chakra_attr *a = chakra_node_attr_at(n, i);
			if (strcmp(chakra_attr_name(a, NULL), "sync_deps"))
				chakra_builder_attr_copy(b, a);
		}
		rc = chakra_writer_write_node(w, b);
	}
	if (!rc)
		rc = chakra_writer_finish(w);
	if (rc < 0)
		fprintf(stderr, "downgrade %s: %s / %s\n", in, rd ? chakra_reader_errmsg(rd) : "",
		        w ? chakra_writer_errmsg(w) : "");
	chakra_reader_close(rd);
	chakra_writer_close(w);
	chakra_builder_free(b);
	free(tid);
	return rc;
}

/* ---- the measured ground truth (tests/data/SOURCES.md) ---- */

typedef struct gt {
	const char *name, *path;
	int64_t step;               /* ProfilerStep#N, or -1 */
	const char *annotation;     /* window annotation and its instance */
	unsigned instance;
	const char *between;        /* windows between occurrences (whole trace) */
	unsigned skip;
	double measured_us;
	int large;
	/* the same trace as a format-1 converter wrote it (downgrade): the
	 * cross-thread waits the replay then infers, -1: not checked */
	int old_waits;
} gt;

static const gt cases[] = {
	{ "cuda_event_sync", "data/kineto/hta-critical-path/cuda_event_sync/event_sync_trace.json.gz",
	  100, NULL, 0, NULL, 0, 3154, 0, 0 },
	{ "alexnet", "data/kineto/hta-critical-path/alexnet/"
	  "benchmark_result_2869224_1695835535_trace.json.gz", -1,
	  "[param|pytorch.model.alex_net|0|0|0|measure|forward]", 1, NULL, 0, 36356, 0, 0 },
	{ "simple_add", "data/kineto/hta-critical-path/simple_add/"
	  "benchmark_result_493459_1694039959_trace.json.gz", -1,
	  "[param|pytorch.model.alex_net|0|0|0|measure|forward]", 1, NULL, 0, 243351, 0, -1 },
	{ "nccl_data #4", "data/kineto/hta-nccl/nccl_data.json.gz", 4, NULL, 0, NULL, 0, 222442, 1, 2 },
	{ "nccl_data #5", "data/kineto/hta-nccl/nccl_data.json.gz", 5, NULL, 0, NULL, 0, 219727, 1, -1 },
	{ "nccl_data #6", "data/kineto/hta-nccl/nccl_data.json.gz", 6, NULL, 0, NULL, 0, 224936, 1, -1 },
	{ "linear_kineto", "data/pytorch/param-linear/linear_kineto.json.gz", -1, NULL, 0,
	  "Optimizer.zero_grad#SGD.zero_grad", 2, 24835, 1, 2 },
};

static void t_truth(int large)
{
	char out[256];
	snprintf(out, sizeof out, "%s/test_perf_%d.et", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
	         (int)getpid());
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		const gt *c = &cases[i];
		if (c->large != large)
			continue;
		need_data(c->path);
		chakra_convert_options co = CHAKRA_CONVERT_OPTIONS_INIT;
		co.step = c->step;
		co.annotation = c->annotation;
		co.instance = c->instance;
		co.overwrite = 1;
		chakra_convert_result cr;
		int rc = chakra_convert_kineto(shared_path(c->path), out, &co, &cr);
		CHECK_MSG(rc == 0, "%s: convert: %s", c->name, cr.errmsg);
		if (rc)
			continue;
		char old[300];
		snprintf(old, sizeof old, "%s.format1.et", out);
		for (int fmt = 2; fmt >= 1; fmt--) {
		if (fmt == 1 && (c->old_waits < 0 || downgrade(out, old) != 0)) {
			CHECK_MSG(c->old_waits < 0, "%s: downgrade failed", c->name);
			break;
		}
		const char *file = fmt == 2 ? out : old;
		chakra_perf *r = NULL;
		CHECK(chakra_perf_new(&r) == 0);
		rc = chakra_perf_load(r, file);
		CHECK_MSG(rc == 0, "%s: %s", c->name, chakra_perf_errmsg(r));
		int64_t waits = 0;
		for (int modelled = 0; modelled < 2 && !rc; modelled++) {
			chakra_perf_options o = CHAKRA_PERF_OPTIONS_INIT;
			o.modelled_gaps = modelled;
			double pred;
			if (c->between) {
				/* the median over the windows, as the ground truth */
				int64_t nw = chakra_perf_between_count(r, c->between);
				CHECK_MSG(nw > (int64_t)c->skip, "%s: %lld windows", c->name, (long long)nw);
				int64_t *v = calloc((size_t)(nw > 0 ? nw : 1), sizeof *v);
				size_t m = 0;
				for (int64_t w = c->skip; w < nw; w++) {
					chakra_perf *d = NULL;
					int e = chakra_perf_between(r, c->between, (uint64_t)w, &d);
					if (!e)
						e = chakra_perf_run(d, &o);
					CHECK_MSG(e == 0, "%s window %lld: %s", c->name, (long long)w,
					          chakra_perf_errmsg(d));
					if (!e) {
						check_result(d, c->name);
						v[m++] = chakra_perf_breakdown_of(d, -1)->iteration_ns;
						if (w == (int64_t)c->skip)
							waits = (int64_t)chakra_perf_thread_waits(d);
					}
					chakra_perf_free(d);
				}
				/* all the windows split off at once: the same replays */
				size_t cw = (size_t)(nw - (int64_t)c->skip);
				chakra_perf **ws = calloc(cw ? cw : 1, sizeof *ws);
				CHECK(ws && chakra_perf_between_range(r, c->between, c->skip, cw, ws) == 0);
				for (size_t q = 0; ws && q < cw; q++) {
					CHECK_MSG(ws[q] && chakra_perf_run(ws[q], &o) == 0 && q < m &&
					          chakra_perf_breakdown_of(ws[q], -1)->iteration_ns == v[q],
					          "%s window %zu: split at once differs", c->name, q);
					chakra_perf_free(ws[q]);
				}
				free(ws);
				for (size_t x = 1; x < m; x++)
					for (size_t y = x; y > 0 && v[y - 1] > v[y]; y--) {
						int64_t t = v[y];
						v[y] = v[y - 1];
						v[y - 1] = t;
					}
				pred = m ? (double)v[(m - 1) / 2] / 1e3 : 0;
				/* what --between reports: the median window, replayed on its own */
				chakra_perf_windows bw;
				chakra_perf *md = NULL;
				CHECK_MSG(chakra_perf_between_median(r, c->between, c->skip, cw, &o, &bw,
				                                     &md) == 0, "%s: %s", c->name, bw.errmsg);
				CHECK(md && m && bw.count == m &&
				      bw.predicted_ns[bw.median] == v[(m - 1) / 2] &&
				      chakra_perf_breakdown_of(md, -1)->iteration_ns == v[(m - 1) / 2]);
				chakra_perf_free(md);
				chakra_perf_windows_free(&bw);
				free(v);
			} else {
				rc = chakra_perf_run(r, &o);
				CHECK_MSG(rc == 0, "%s: %s", c->name, chakra_perf_errmsg(r));
				if (rc)
					break;
				check_result(r, c->name);
				pred = (double)chakra_perf_breakdown_of(r, -1)->iteration_ns / 1e3;
				waits = (int64_t)chakra_perf_thread_waits(r);
			}
			double err = (pred - c->measured_us) / c->measured_us;
			printf("%-16s %s%s measured %10.0f us  predicted %12.3f us  error %+.3f%%\n",
			       c->name, modelled ? "modelled gaps" : "recorded gaps",
			       fmt == 1 ? " (format 1)" : "", c->measured_us, pred, 100 * err);
			CHECK_MSG(err < 0.03 && err > -0.03, "%s: error %.2f%% (target 3%%)", c->name,
			          100 * err);
			/* format 2 gives its cross-thread waits; format 1 needs them
			 * inferred (per iteration) */
			CHECK_MSG(waits == (fmt == 2 ? 0 : c->old_waits), "%s format %d: %lld thread "
			          "waits inferred", c->name, fmt, (long long)waits);
		}
		chakra_perf_free(r);
		}
		unlink(old);
		unlink(out);
	}
}

/* One iteration cut by the converter (--annotation NAME --to-next) replays
 * as the replay's own window between the same two occurrences (--between),
 * on the thread the annotation was recorded on. */
static void t_to_next(void)
{
	const char *path = "data/pytorch/param-linear/linear_kineto.json.gz";
	const char *name = "Optimizer.zero_grad#SGD.zero_grad";
	need_data(path);
	char whole[256], cut[256];
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	snprintf(whole, sizeof whole, "%s/test_perf_whole_%d.et", tmp, (int)getpid());
	snprintf(cut, sizeof cut, "%s/test_perf_cut_%d.et", tmp, (int)getpid());
	chakra_convert_options co = CHAKRA_CONVERT_OPTIONS_INIT;
	chakra_convert_result cr;
	co.overwrite = 1;
	CHECK_MSG(chakra_convert_kineto(shared_path(path), whole, &co, &cr) == 0, "%s", cr.errmsg);
	co.annotation = name;
	co.to_next = 1;
	for (unsigned k = 3; k < 40; k += 17) {
		co.instance = k;
		CHECK_MSG(chakra_convert_kineto(shared_path(path), cut, &co, &cr) == 0, "%s", cr.errmsg);
		chakra_perf *a = NULL, *w = NULL, *b = NULL;
		chakra_perf_options o = CHAKRA_PERF_OPTIONS_INIT;
		CHECK(chakra_perf_new(&a) == 0 && chakra_perf_new(&w) == 0);
		int rc = chakra_perf_load(a, cut);
		if (!rc)
			rc = chakra_perf_run(a, &o);
		CHECK_MSG(rc == 0, "to-next %u: %s", k, chakra_perf_errmsg(a));
		rc = chakra_perf_load(w, whole);
		if (!rc)
			rc = chakra_perf_between(w, name, k, &b);
		if (!rc)
			rc = chakra_perf_run(b, &o);
		CHECK_MSG(rc == 0, "between %u: %s", k, b ? chakra_perf_errmsg(b) : chakra_perf_errmsg(w));
		if (!rc) {
			check_result(a, "to-next");
			const chakra_perf_breakdown *x = chakra_perf_breakdown_of(a, -1);
			const chakra_perf_breakdown *y = chakra_perf_breakdown_of(b, -1);
			printf("linear_kineto    iteration %u: --to-next %.3f us (recorded %.3f), --between "
			       "%.3f us\n", k, x->iteration_ns / 1e3, x->recorded_ns / 1e3,
			       y->iteration_ns / 1e3);
			CHECK_EQ_U(x->recorded_ns, y->recorded_ns);
			CHECK_EQ_U(x->iteration_ns, x->recorded_ns); /* unchanged: exact */
			CHECK_EQ_U(x->iteration_ns, y->iteration_ns);
			CHECK_EQ_U(chakra_perf_op_count(a), chakra_perf_op_count(b));
		}
		chakra_perf_free(a);
		chakra_perf_free(w);
		chakra_perf_free(b);
		b = NULL;
	}
	unlink(whole);
	unlink(cut);
}

typedef struct sbuf {
	char b[8192];
	size_t n;
} sbuf;

static int sb_write(void *data, const void *buf, size_t len)
{
	sbuf *s = data;
	if (len >= sizeof s->b - s->n)
		return -1;
	memcpy(s->b + s->n, buf, len);
	s->n += len;
	s->b[s->n] = 0;
	return 0;
}

/* What the reports print: microseconds, resource names, the critical
 * path's time by kind, the JSON report (t_launch's graph, as recorded). */
static void t_report(void)
{
	char b[40];
	chakra_perf_us_format(-1500, b, sizeof b);
	CHECK(!strcmp(b, "-1.500"));
	chakra_perf_us_format(120, b, sizeof b);
	CHECK(!strcmp(b, "0.120"));
	chakra_perf_us_format(INT64_MIN, b, sizeof b);
	CHECK(!strcmp(b, "-9223372036854775.808"));
	chakra_perf_new(&R);
	sbuf sb = { "", 0 };
	CHECK(chakra_perf_report_json(sb_write, &sb, R, NULL, 0, NULL) == CHAKRA_EINVAL);
	uint32_t T = res(0, 0, 1), S = res(0, 1, 7);
	op(T, CHAKRA_PERF_CPU, "a", 0, 10);
	uint64_t l1 = op(T, CHAKRA_PERF_CALL, "cudaLaunchKernel", 10, 5);
	op(T, CHAKRA_PERF_CPU, "b", 15, 105);
	uint64_t k1 = op(S, CHAKRA_PERF_KERNEL, "gemm_k1", 20, 100);
	edge(l1, k1);
	CHECK(chakra_perf_window(R, 0, 0, 120, T) == 0);
	chakra_perf_options o = CHAKRA_PERF_OPTIONS_INIT;
	CHECK_EQ_U(run(&o, "report: as recorded"), 120);
	chakra_perf_resource_info ri;
	chakra_perf_resource_info_of(R, S, &ri);
	CHECK(!strcmp(chakra_perf_resource_name(&ri, b, sizeof b), "stream 7 (device 0)"));
	chakra_perf_resource_info_of(R, T, &ri);
	CHECK(!strcmp(chakra_perf_resource_name(&ri, b, sizeof b), "thread 1"));
	chakra_perf_path_totals pt;
	chakra_perf_path_sum(R, &pt);
	int64_t sum = 0;
	for (int k = 0; k < CHAKRA_PERF_KIND_COUNT; k++)
		sum += pt.own_ns[k];
	for (int k = 0; k < CHAKRA_PERF_EDGE_KIND_COUNT; k++)
		sum += pt.lag_ns[k];
	CHECK_EQ_U(sum, 120);
	CHECK(chakra_perf_report_json(sb_write, &sb, R, NULL, 0, NULL) == 0);
	CHECK_MSG(!strncmp(sb.b, "{\"iteration_us\":0.120,\"iteration_ns\":120,", 41) &&
	          sb.n > 2 && !strcmp(sb.b + sb.n - 2, "}\n") && strchr(sb.b, '\n') == sb.b + sb.n - 1 &&
	          strstr(sb.b, "\"name\":\"stream 7 (device 0)\"") &&
	          strstr(sb.b, "\"gpu_compute_us\":0.100"), "report: %s", sb.b);
	/* an annotation needs its windows; a failed write is an error */
	CHECK(chakra_perf_report_json(sb_write, &sb, R, "step", 0, NULL) == CHAKRA_EINVAL);
	sb.n = sizeof sb.b - 1;
	CHECK(chakra_perf_report_json(sb_write, &sb, R, NULL, 0, NULL) == CHAKRA_EIO);
	chakra_perf_free(R);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "unit";
	if (!strcmp(mode, "unit")) {
		t_launch();
		t_sync();
		t_wait();
		t_event();
		t_collective();
		t_deadlock();
		t_network();
		t_threads();
		t_errors();
		t_groups();
		t_report();
	} else {
		t_truth(!strcmp(mode, "large"));
		if (!strcmp(mode, "large"))
			t_to_next();
	}
	return check_done();
}
