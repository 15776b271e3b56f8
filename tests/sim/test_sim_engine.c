/* SPDX-License-Identifier: Apache-2.0 */
/* chakra sim engine on small workloads written with the library's writer:
 * send/recv, communicator groups, involved_dim, stragglers, compute
 * scaling, duration_nanos and roofline, broadcast/reduce/barrier,
 * halving-doubling and direct, and the errors for mismatched or missing
 * peers. Expected cycles come from the model's formulas; where no closed
 * form is handy the two network models must agree on links nothing shares
 * (closed-form arithmetic against message-by-message events). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "chakra/chakra.h"
#include "sim_model.h"

static char dir[256];
static char err[SIM_ERR_LEN];
static chakra_sim_network net;
static chakra_sim_system sys;

/* A node to write: type and attributes; deps on the previous node. */
typedef struct spec {
	int type;
	uint64_t us;        /* duration_micros */
	int64_t ns;         /* duration_nanos, -1 = none */
	int64_t comm_type;
	int64_t size;       /* comm_size, -1 = none */
	int64_t peer, tag;
	const char *pg;
	int dims;           /* involved_dim bitmask + 1, 0 = none */
	int64_t ops, tensor;
} spec;

#define COMP(us_) { CHAKRA_COMP_NODE, us_, -1, 0, -1, 0, 0, NULL, 0, -1, -1 }
#define COLL(t, s) { CHAKRA_COMM_COLL_NODE, 0, -1, t, s, 0, 0, NULL, 0, -1, -1 }

static void write_rank(const char *name, int rank, const spec *s, int n)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s.%d.et", dir, name, rank);
	chakra_writer_options wo = CHAKRA_WRITER_OPTIONS_INIT;
	wo.overwrite = 1;
	chakra_writer *w;
	chakra_builder *b = chakra_builder_new();
	CHECK(chakra_writer_open(&w, path, &wo) == 0);
	CHECK(chakra_writer_write_metadata(w, "0.0.4", NULL) == 0);
	for (int i = 0; i < n; i++) {
		chakra_builder_reset(b);
		chakra_builder_set_id(b, (uint64_t)i);
		chakra_builder_set_name(b, "node", (size_t)-1);
		chakra_builder_set_type(b, s[i].type);
		if (i)
			chakra_builder_add_data_dep(b, (uint64_t)i - 1);
		chakra_builder_set_duration_micros(b, s[i].us);
		if (s[i].ns >= 0)
			chakra_builder_attr_int(b, "duration_nanos", CHAKRA_ATTR_INT64, s[i].ns);
		if (s[i].ops >= 0)
			chakra_builder_attr_int(b, "num_ops", CHAKRA_ATTR_INT64, s[i].ops);
		if (s[i].tensor >= 0)
			chakra_builder_attr_int(b, "tensor_size", CHAKRA_ATTR_INT64, s[i].tensor);
		if (s[i].type == CHAKRA_COMM_COLL_NODE)
			chakra_builder_attr_int(b, "comm_type", CHAKRA_ATTR_INT64, s[i].comm_type);
		if (s[i].size >= 0)
			chakra_builder_attr_int(b, "comm_size", CHAKRA_ATTR_INT64, s[i].size);
		if (s[i].type == CHAKRA_COMM_SEND_NODE)
			chakra_builder_attr_int(b, "comm_dst", CHAKRA_ATTR_INT64, s[i].peer);
		if (s[i].type == CHAKRA_COMM_RECV_NODE)
			chakra_builder_attr_int(b, "comm_src", CHAKRA_ATTR_INT64, s[i].peer);
		if (s[i].type == CHAKRA_COMM_SEND_NODE || s[i].type == CHAKRA_COMM_RECV_NODE)
			chakra_builder_attr_int(b, "comm_tag", CHAKRA_ATTR_INT64, s[i].tag);
		if (s[i].pg)
			chakra_builder_attr_string(b, "pg_name", CHAKRA_ATTR_STRING, s[i].pg, (size_t)-1);
		if (s[i].dims) {
			uint64_t f[SIM_MAX_DIMS];
			int nd = 0;
			for (int m = s[i].dims - 1; nd < net.ndims; m >>= 1)
				f[nd++] = (uint64_t)(m & 1);
			chakra_builder_attr_list_uint(b, "involved_dim", CHAKRA_ATTR_BOOL_LIST, f,
			                              (size_t)nd);
		}
		CHECK(chakra_writer_write_node(w, b) == 0);
	}
	CHECK(chakra_writer_finish(w) == 0);
	chakra_writer_close(w);
	chakra_builder_free(b);
}

static void load(const char *netf, const char *sysf)
{
	char rel[256];
	snprintf(rel, sizeof rel, "data/astra-sim/%s", netf);
	CHECK_MSG(chakra_sim_network_load(&net, shared_path(rel), err, sizeof err) == 0, "%s", err);
	snprintf(rel, sizeof rel, "data/astra-sim/%s", sysf);
	CHECK_MSG(chakra_sim_system_load(&sys, shared_path(rel), err, sizeof err) == 0, "%s", err);
}

/* The results of one run, copied out of the simulator handle. */
typedef struct sim_result {
	uint32_t npus;
	uint64_t finish;
	chakra_sim_npu_result *npu;
} sim_result;

static void sim_result_free(sim_result *r)
{
	free(r->npu);
	r->npu = NULL;
}

/* Run; returns the finish cycle (or UINT64_MAX on error, err set). */
static uint64_t run(const char *name, chakra_sim_model m, const chakra_sim_options *base,
                    sim_result *keep)
{
	char prefix[512];
	snprintf(prefix, sizeof prefix, "%s/%s", dir, name);
	chakra_sim_options o = CHAKRA_SIM_OPTIONS_INIT;
	if (base)
		o = *base;
	o.model = m;
	chakra_sim *s = NULL;
	int rc = chakra_sim_new(&s, &net, &sys, &o);
	if (rc == 0)
		rc = chakra_sim_run_prefix(s, prefix);
	if (rc < 0) {
		snprintf(err, sizeof err, "%s", s ? chakra_sim_errmsg(s) : chakra_strerror(rc));
		fprintf(stderr, "  (run %s: %s)\n", name, err);
		chakra_sim_free(s);
		return UINT64_MAX;
	}
	uint64_t f = chakra_sim_finish(s);
	if (keep) {
		keep->npus = chakra_sim_npus(s);
		keep->finish = f;
		keep->npu = malloc(keep->npus * sizeof *keep->npu);
		CHECK(keep->npu != NULL);
		for (uint32_t r = 0; keep->npu && r < keep->npus; r++)
			keep->npu[r] = *chakra_sim_npu(s, r);
	}
	chakra_sim_free(s);
	return f;
}

static uint64_t D(int d, double hops, double bytes)
{
	return (uint64_t)floor(hops * net.latency[d] + bytes / chakra__sim_link_bpns(&net, d));
}

static uint64_t R(double bytes)
{
	return 3 * (uint64_t)floor(bytes / sys.local_mem_bw);
}

static void test_p2p(void)
{
	load("network/Ring_4npus.yml", "system/Ring_4chunks.json");
	for (int r = 0; r < 4; r++) {
		spec s[2] = {
			{ CHAKRA_COMM_SEND_NODE, 0, -1, 0, 1 << 20, (r + 1) % 4, 7, NULL, 0, -1, -1 },
			{ CHAKRA_COMM_RECV_NODE, 0, -1, 0, 1 << 20, (r + 3) % 4, 7, NULL, 0, -1, -1 },
		};
		s[1].type = CHAKRA_COMM_RECV_NODE;
		write_rank("p2p", r, s, 2);
	}
	/* The send completes on arrival (D); the receive e later. */
	uint64_t want = D(0, 1, 1 << 20) + 10;
	CHECK_EQ_U(run("p2p", CHAKRA_SIM_UNAWARE, NULL, NULL), want);
	CHECK_EQ_U(run("p2p", CHAKRA_SIM_AWARE, NULL, NULL), want);
	/* A receive with no matching send (wrong tag) is reported. */
	for (int r = 0; r < 4; r++) {
		spec s[1] = { { CHAKRA_COMM_RECV_NODE, 0, -1, 0, 8, (r + 3) % 4, 1, NULL, 0, -1, -1 } };
		write_rank("lonely", r, s, 1);
	}
	CHECK(run("lonely", CHAKRA_SIM_UNAWARE, NULL, NULL) == UINT64_MAX &&
	      strstr(err, "never matched by a send"));
}

static void test_groups(void)
{
	load("network/Ring_8npus.yml", "system/Ring_4chunks.json");
	chakra_sim_groups gs;
	const char *text = "{\"0\": [0, 2, 4, 6], \"1\": [1, 3, 5, 7]}";
	CHECK(chakra_sim_groups_parse(&gs, "g.json", text, strlen(text), 8, err, sizeof err) == 0);
	for (int r = 0; r < 8; r++) {
		spec s[1] = { COLL(CHAKRA_ALL_REDUCE, 1 << 20) };
		s[0].pg = r % 2 ? "1" : "0";
		write_rank("grp", r, s, 1);
	}
	chakra_sim_options o = CHAKRA_SIM_OPTIONS_INIT;
	o.groups = &gs;
	/* Members two hops apart on the ring: n = 4, D over 2 hops. */
	double m = (1 << 20) / 4.0 / 4.0;
	uint64_t chunk = 6 * D(0, 2, m) + 7 * 10 + 3 * R(m);
	CHECK_EQ_U(chunk, 13750);
	CHECK_EQ_U(run("grp", CHAKRA_SIM_UNAWARE, &o, NULL), 4 * chunk);
	/* Aware, only group 0 busy: each message crosses two links
	 * (store and forward), no link shared. */
	for (int r = 1; r < 8; r += 2) {
		spec s[1] = { COMP(1) };
		write_rank("grp0", r, s, 1);
	}
	for (int r = 0; r < 8; r += 2) {
		spec s[1] = { COLL(CHAKRA_ALL_REDUCE, 1 << 20) };
		s[0].pg = "0";
		write_rank("grp0", r, s, 1);
	}
	uint64_t hop = D(0, 1, m);
	CHECK_EQ_U(run("grp0", CHAKRA_SIM_AWARE, &o, NULL), 4 * (6 * 2 * hop + 7 * 10 + 3 * R(m)));
	/* Unknown group name. */
	for (int r = 0; r < 8; r++) {
		spec s[1] = { COLL(CHAKRA_ALL_REDUCE, 64) };
		s[0].pg = "tp";
		write_rank("nogrp", r, s, 1);
	}
	CHECK(run("nogrp", CHAKRA_SIM_UNAWARE, &o, NULL) == UINT64_MAX &&
	      strstr(err, "pg_name 'tp' is not in"));
	chakra_sim_groups_free(&gs);
}

static void test_involved_dim(void)
{
	load("network/tpu_v3_32_2dtorus.yml", "system/tpu_v3_32_2dtorus.json");
	/* e = 1, lbw = 50, 1 split; dim 0: 4 NPUs, dim 1: 8 NPUs, 80 GB/s. */
	for (int r = 0; r < 32; r++) {
		spec s[2] = { COLL(CHAKRA_ALL_REDUCE, 1 << 20), COLL(CHAKRA_ALL_REDUCE, 1 << 20) };
		s[0].dims = 1 + 1; /* dim 0 only */
		s[1].dims = 2 + 1; /* dim 1 only */
		write_rank("inv", r, s, 2);
	}
	double m0 = (1 << 20) / 4.0, m1 = (1 << 20) / 8.0;
	uint64_t t0 = 6 * D(0, 1, m0) + 7 * 1 + 3 * R(m0);
	uint64_t t1 = 14 * D(1, 1, m1) + 15 * 1 + 7 * R(m1);
	CHECK_EQ_U(t0, 71491);
	CHECK_EQ_U(t1, 90406);
	CHECK_EQ_U(run("inv", CHAKRA_SIM_UNAWARE, NULL, NULL), t0 + t1);
	CHECK_EQ_U(run("inv", CHAKRA_SIM_AWARE, NULL, NULL), t0 + t1);
	/* Both dimensions, pipelined chunks: aware = unaware on a torus with
	 * ring algorithms (no link is shared), computed two different ways. */
	sys.splits = 4;
	for (int r = 0; r < 32; r++) {
		spec s[3] = { COMP(3), COLL(CHAKRA_ALL_REDUCE, 1 << 20), COLL(CHAKRA_ALL_GATHER, 1 << 16) };
		write_rank("both", r, s, 3);
	}
	uint64_t u = run("both", CHAKRA_SIM_UNAWARE, NULL, NULL);
	CHECK(u != UINT64_MAX && u > 3000 + t0);
	CHECK_EQ_U(run("both", CHAKRA_SIM_AWARE, NULL, NULL), u);
	/* involved_dim of the wrong length. */
	net.ndims = 2;
	for (int r = 0; r < 32; r++) {
		spec s[1] = { COLL(CHAKRA_ALL_REDUCE, 64) };
		write_rank("badinv", r, s, 1);
	}
	/* (rewrite rank 0 with a 3-entry list) */
	net.ndims = 3;
	{
		spec s[1] = { COLL(CHAKRA_ALL_REDUCE, 64) };
		s[0].dims = 1 + 1;
		write_rank("badinv", 0, s, 1);
	}
	net.ndims = 2;
	CHECK(run("badinv", CHAKRA_SIM_UNAWARE, NULL, NULL) == UINT64_MAX &&
	      strstr(err, "involved_dim has 3 entries"));
}

static void test_stragglers_and_compute(void)
{
	load("network/Ring_4npus.yml", "system/Ring_4chunks.json");
	for (int r = 0; r < 4; r++) {
		spec s[3] = { COMP(10), COLL(CHAKRA_ALL_REDUCE, 1 << 20), COMP(2) };
		s[2].ns = 2345; /* wins over duration_micros */
		write_rank("strag", r, s, 3);
	}
	CHECK_EQ_U(run("strag", CHAKRA_SIM_UNAWARE, NULL, NULL), 10000 + 43000 + 2345);
	uint64_t delay[4] = { 0, 0, 5000, 0 };
	double scale[4] = { 1, 2, 1, 1 };
	chakra_sim_options o = CHAKRA_SIM_OPTIONS_INIT;
	o.start_delay = delay;
	sim_result r;
	uint64_t u = run("strag", CHAKRA_SIM_UNAWARE, &o, &r);
	/* Everyone waits for the straggler; nobody finishes before it could. */
	CHECK(u != UINT64_MAX && u >= 15000 + 43000 + 2345 - 2345 && u <= 15000 + 43000 + 2345);
	CHECK_EQ_U(r.npu[2].finish, u);
	CHECK_EQ_U(r.npu[0].compute, 12345);
	sim_result_free(&r);
	/* Closed form (unaware) and events (aware) agree when starts differ. */
	CHECK_EQ_U(run("strag", CHAKRA_SIM_AWARE, &o, NULL), u);
	o.start_delay = NULL;
	o.compute_scale = scale;
	u = run("strag", CHAKRA_SIM_UNAWARE, &o, &r);
	CHECK_EQ_U(r.npu[1].compute, 2 * 12345);
	CHECK_EQ_U(r.npu[0].compute, 12345);
	CHECK_EQ_U(u, 20000 + 43000 + 2 * 2345);
	sim_result_free(&r);

	/* Roofline: min(peak, bandwidth x num_ops / tensor_size). */
	sys.roofline = 1;
	sys.peak_perf = 900;
	for (int k = 0; k < 4; k++) {
		spec s[2] = { COMP(7), COMP(7) };
		s[0].ops = 1000000000;
		s[0].tensor = 1000000;   /* compute-bound: 1e9 / 9e14 s */
		s[1].ops = 1000000000;
		s[1].tensor = 100000000; /* memory-bound: 1e9 / 1.6e13 s */
		write_rank("roof", k, s, 2);
	}
	CHECK_EQ_U(run("roof", CHAKRA_SIM_UNAWARE, NULL, NULL), 1111 + 62500);
	sys.roofline = 0;
	CHECK_EQ_U(run("roof", CHAKRA_SIM_UNAWARE, NULL, NULL), 14000);
}

static void test_more_collectives(void)
{
	load("network/Ring_4npus.yml", "system/Ring_4chunks.json");
	const double x = (1 << 20) / 4.0;
	for (int r = 0; r < 4; r++) {
		spec s[3] = { COLL(CHAKRA_BROADCAST, 1 << 20), COLL(CHAKRA_REDUCE, 1 << 20),
		              COLL(CHAKRA_BARRIER, -1) };
		write_rank("brb", r, s, 3);
	}
	uint64_t bcast = 4 * (10 + 3 * (D(0, 1, x) + 10));
	uint64_t reduce = 4 * (10 + 3 * (D(0, 1, x) + 10 + R(x)));
	uint64_t barrier = 10 + 3 * (500 + 10); /* one chunk of empty messages */
	CHECK_EQ_U(run("brb", CHAKRA_SIM_UNAWARE, NULL, NULL), bcast + reduce + barrier);
	CHECK_EQ_U(run("brb", CHAKRA_SIM_AWARE, NULL, NULL), bcast + reduce + barrier);

	/* Halving-doubling and direct on the 8-NPU switch (HGX-H100). */
	load("network/HGX-H100-validated.yml", "system/HGX-H100-validated.json");
	for (int r = 0; r < 8; r++) {
		spec s[1] = { COLL(CHAKRA_ALL_REDUCE, 1 << 20) };
		write_rank("hd", r, s, 1);
	}
	sys.impl[CHAKRA_SIM_IMPL_ALL_REDUCE][0] = CHAKRA_SIM_ALG_HALVING_DOUBLING;
	uint64_t chunk = 10;
	for (int s = 0; s < 3; s++) { /* x/2, x/4, x/8, then back */
		double m = x / (2 << s);
		chunk += 2 * (D(0, 2, m) + 10);
	}
	/* The reference reduces two packets of log n = 3 (its rounds), each by
	 * its own size: the ones sent after the first and second messages. */
	chunk += R(x / 4) + R(x / 8);
	CHECK_EQ_U(run("hd", CHAKRA_SIM_UNAWARE, NULL, NULL), 2 * chunk); /* 4 chunks, 2 active */
	uint64_t aware = run("hd", CHAKRA_SIM_AWARE, NULL, NULL);
	CHECK(aware != UINT64_MAX && aware > 2 * chunk);
	sys.impl[CHAKRA_SIM_IMPL_ALL_REDUCE][0] = CHAKRA_SIM_ALG_DIRECT;
	double m = x / 8;
	CHECK_EQ_U(run("hd", CHAKRA_SIM_UNAWARE, NULL, NULL), 2 * (3 * 10 + R(m) + 2 * D(0, 2, m)));
	/* Aware direct: the 7 messages of a step share the NPU's up link. */
	aware = run("hd", CHAKRA_SIM_AWARE, NULL, NULL);
	CHECK(aware != UINT64_MAX && aware > 2 * (3 * 10 + R(m) + 2 * D(0, 2, m)));
}

/* Double binary tree on 4 fully connected NPUs: two trees of x/2 each;
 * the deepest member finishes 5e + 4D + 2r after the chunk starts (two
 * reduced levels up, two levels down). */
static void test_dbt(void)
{
	const char *text = "topology: [ FullyConnected ]\nnpus_count: [ 4 ]\n"
	                   "bandwidth: [ 50 ]\nlatency: [ 500 ]\n";
	load("network/Ring_4npus.yml", "system/Ring_4chunks.json");
	CHECK(chakra_sim_network_parse(&net, "fc.yml", text, strlen(text), err, sizeof err) == 0);
	for (int r = 0; r < 4; r++) {
		spec s[1] = { COLL(CHAKRA_ALL_REDUCE, 1 << 20) };
		write_rank("dbt", r, s, 1);
	}
	sys.impl[CHAKRA_SIM_IMPL_ALL_REDUCE][0] = CHAKRA_SIM_ALG_DOUBLE_BINARY_TREE;
	double m = (1 << 20) / 4.0 / 2.0;
	uint64_t chunk = 5 * 10 + 4 * D(0, 1, m) + 2 * R(m);
	CHECK_EQ_U(chunk, 12300);
	CHECK_EQ_U(run("dbt", CHAKRA_SIM_UNAWARE, NULL, NULL), 4 * chunk);
	CHECK_EQ_U(run("dbt", CHAKRA_SIM_AWARE, NULL, NULL), 4 * chunk);
	/* 7 members, uneven trees: both models agree (FC: no shared link). */
	text = "topology: [ FullyConnected ]\nnpus_count: [ 7 ]\nbandwidth: [ 50 ]\n"
	       "latency: [ 500 ]\n";
	CHECK(chakra_sim_network_parse(&net, "fc7.yml", text, strlen(text), err, sizeof err) == 0);
	for (int r = 0; r < 7; r++) {
		spec s[3] = { COLL(CHAKRA_ALL_REDUCE, 1 << 20), COLL(CHAKRA_BROADCAST, 4096),
		              COLL(CHAKRA_REDUCE, 4096) };
		write_rank("dbt7", r, s, 3);
	}
	uint64_t u = run("dbt7", CHAKRA_SIM_UNAWARE, NULL, NULL);
	CHECK(u != UINT64_MAX && u > 4 * chunk);
	CHECK_EQ_U(run("dbt7", CHAKRA_SIM_AWARE, NULL, NULL), u);
	/* Reduce-scatter has no tree form. */
	sys.impl[CHAKRA_SIM_IMPL_REDUCE_SCATTER][0] = CHAKRA_SIM_ALG_DOUBLE_BINARY_TREE;
	for (int r = 0; r < 7; r++) {
		spec s[1] = { COLL(CHAKRA_REDUCE_SCATTER, 4096) };
		write_rank("dbtrs", r, s, 1);
	}
	CHECK(run("dbtrs", CHAKRA_SIM_UNAWARE, NULL, NULL) == UINT64_MAX &&
	      strstr(err, "doubleBinaryTree runs all-reduce"));
}

/* Congestion-aware, 8 NPUs on one Switch and on FullyConnected (50 GB/s,
 * 500 ns), 1 MiB in 4 chunks of x, one active: expected cycles from the
 * reference's rules (docs/sim.md): a message of m bytes holds a link
 * s(m) = floor(m/B) and reaches the next device D(m) = floor(L + m/B) after
 * it started; on a Switch it crosses the NPU's up link and the peer's down
 * link. Every number is also what stock ASTRA-sim's congestion-aware
 * backend prints for these inputs (tests/sim/sim_diff.py). */
static void test_aware_switch_fc(void)
{
	static const char *const topo[2] = { "Switch", "FullyConnected" };
	load("network/Ring_8npus.yml", "system/Ring_4chunks.json");
	for (int r = 0; r < 8; r++) {
		spec a[1] = { COLL(CHAKRA_ALL_REDUCE, 1 << 20) };
		write_rank("ex-ar", r, a, 1);
		spec g[1] = { COLL(CHAKRA_ALL_GATHER, 1 << 20) };
		write_rank("ex-ag", r, g, 1);
		spec q[1] = { COLL(CHAKRA_REDUCE_SCATTER, 1 << 20) };
		write_rank("ex-rs", r, q, 1);
	}
	const double x = 262144, B = 50 * 1073741824.0 / 1e9;
	const uint64_t e = 10, n = 8;
#define S_(m) ((uint64_t)floor((m) / B))
#define D_(m) ((uint64_t)floor(500 + (m) / B))
	for (int t = 0; t < 2; t++) {
		char text[160];
		snprintf(text, sizeof text, "topology: [ %s ]\nnpus_count: [ 8 ]\nbandwidth: [ 50 ]\n"
		         "latency: [ 500 ]\n", topo[t]);
		CHECK(chakra_sim_network_parse(&net, "net.yml", text, strlen(text), err, sizeof err) == 0);
		int sw = t == 0;
		uint64_t hop = sw ? 2 : 1; /* links per message, store and forward */
		double m = x / 8;
		/* direct all-reduce: the n-1 first-half messages leave together, one
		 * after the other on the NPU's link(s) (a Switch's up link is
		 * shared; each peer's down link gets one at a time: packet k goes
		 * to member i+1+k); the second half leaves e + r after the last of
		 * them arrived; done e after the last second-half arrival. */
		uint64_t first = sw ? (n - 2) * S_(m) + 2 * D_(m) : D_(m);
		uint64_t direct = e + first + e + R(m) + first + e;
		sys.impl[CHAKRA_SIM_IMPL_ALL_REDUCE][0] = CHAKRA_SIM_ALG_DIRECT;
		sys.impl[CHAKRA_SIM_IMPL_ALL_GATHER][0] = CHAKRA_SIM_ALG_DIRECT;
		sys.impl[CHAKRA_SIM_IMPL_REDUCE_SCATTER][0] = CHAKRA_SIM_ALG_DIRECT;
		CHECK_EQ_U(run("ex-ar", CHAKRA_SIM_AWARE, NULL, NULL), 4 * direct);
		CHECK_EQ_U(4 * direct, sw ? 47400 : 9240);
		/* direct reduce-scatter (x/n, reduced) and all-gather (x). */
		uint64_t rs = e + first + e + R(m);
		CHECK_EQ_U(run("ex-rs", CHAKRA_SIM_AWARE, NULL, NULL), 4 * rs);
		CHECK_EQ_U(4 * rs, sw ? 23840 : 4760);
		uint64_t ag = e + (sw ? (n - 2) * S_(x) + 2 * D_(x) : D_(x)) + e;
		CHECK_EQ_U(run("ex-ag", CHAKRA_SIM_AWARE, NULL, NULL), 4 * ag);
		CHECK_EQ_U(4 * ag, sw ? 160304 : 21608);
		/* ring all-reduce: one message at a time per link:
		 * 2(n-1) hop D + (2n-1) e + (n-1) r. */
		sys.impl[CHAKRA_SIM_IMPL_ALL_REDUCE][0] = CHAKRA_SIM_ALG_RING;
		uint64_t ring = 2 * (n - 1) * hop * D_(m) + (2 * n - 1) * e + (n - 1) * R(m);
		CHECK_EQ_U(run("ex-ar", CHAKRA_SIM_AWARE, NULL, NULL), 4 * ring);
		CHECK_EQ_U(4 * ring, sw ? 126600 : 64440);
		/* halving-doubling all-reduce: x/2, x/4, x/8 then back, one partner
		 * per step; the packets after the first two messages are reduced
		 * by their own sizes (x/4, x/8). */
		sys.impl[CHAKRA_SIM_IMPL_ALL_REDUCE][0] = CHAKRA_SIM_ALG_HALVING_DOUBLING;
		uint64_t hd = e + R(x / 4) + R(x / 8);
		for (int k = 0; k < 3; k++)
			hd += 2 * (hop * D_(x / (2 << k)) + e);
		CHECK_EQ_U(run("ex-ar", CHAKRA_SIM_AWARE, NULL, NULL), 4 * hd);
		CHECK_EQ_U(4 * hd, sw ? 93336 : 47168);
	}
#undef S_
#undef D_
}

/* ASTRA-sim's oneRing / oneDirect / oneHalvingDoubling: one flat ring over
 * all 16 NPUs of a [Ring 4, Switch 4] network (a message between
 * neighbours crosses the first dimension where they differ: dimension 0,
 * one hop), not a phase per dimension. The cycles are stock ASTRA-sim's;
 * oneRing is the 16-NPU ring microbenchmark's 99640. */
static void test_flat_ring(void)
{
	static const struct {
		chakra_sim_algorithm alg;
		uint64_t want;
	} cases[] = { { CHAKRA_SIM_ALG_ONE_RING, 99640 }, { CHAKRA_SIM_ALG_ONE_DIRECT, 10680 },
	              { CHAKRA_SIM_ALG_ONE_HALVING_DOUBLING, 65808 }, { CHAKRA_SIM_ALG_RING, 43040 } };
	const char *text = "topology: [ Ring, Switch ]\nnpus_count: [ 4, 4 ]\n"
	                   "bandwidth: [ 50, 50 ]\nlatency: [ 500, 500 ]\n";
	load("network/Ring_4npus.yml", "system/Ring_4chunks.json");
	CHECK(chakra_sim_network_parse(&net, "2d.yml", text, strlen(text), err, sizeof err) == 0);
	for (int r = 0; r < 16; r++) {
		spec a[1] = { COLL(CHAKRA_ALL_REDUCE, 1 << 20) };
		write_rank("flat", r, a, 1);
	}
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
		sys.n_impl[CHAKRA_SIM_IMPL_ALL_REDUCE] = 2;
		sys.impl[CHAKRA_SIM_IMPL_ALL_REDUCE][0] = cases[c].alg;
		sys.impl[CHAKRA_SIM_IMPL_ALL_REDUCE][1] = CHAKRA_SIM_ALG_RING;
		CHECK_EQ_U(run("flat", CHAKRA_SIM_UNAWARE, NULL, NULL), cases[c].want);
	}
	/* The parser keeps the flat kinds, first entry only. */
	const char *bad = "{\"all-reduce-implementation\": [\"ring\", \"oneRing\"], "
	                  "\"all-gather-implementation\": [\"ring\"], "
	                  "\"reduce-scatter-implementation\": [\"ring\"], "
	                  "\"all-to-all-implementation\": [\"ring\"], \"local-mem-bw\": 50}";
	chakra_sim_system s2;
	CHECK(chakra_sim_system_parse(&s2, "s.json", bad, strlen(bad), err, sizeof err) ==
	      CHAKRA_ECONFIG && strstr(err, "put it first"));
}

static void test_errors(void)
{
	load("network/Ring_4npus.yml", "system/Ring_4chunks.json");
	for (int r = 0; r < 4; r++) {
		spec s[1] = { COLL(CHAKRA_ALL_REDUCE, r == 2 ? 2 << 20 : 1 << 20) };
		write_rank("mismatch", r, s, 1);
	}
	CHECK(run("mismatch", CHAKRA_SIM_UNAWARE, NULL, NULL) == UINT64_MAX &&
	      strstr(err, "rank 2 node 0") && strstr(err, "2097152") && strstr(err, "1048576"));
	for (int r = 0; r < 4; r++) {
		spec s[1] = { r == 3 ? (spec)COMP(1) : (spec)COLL(CHAKRA_ALL_REDUCE, 64) };
		write_rank("missing", r, s, 1);
	}
	CHECK(run("missing", CHAKRA_SIM_UNAWARE, NULL, NULL) == UINT64_MAX &&
	      strstr(err, "never completes"));
	for (int r = 0; r < 4; r++) {
		spec s[1] = { COLL(CHAKRA_GATHER, 64) };
		write_rank("gather", r, s, 1);
	}
	CHECK(run("gather", CHAKRA_SIM_UNAWARE, NULL, NULL) == UINT64_MAX && strstr(err, "GATHER"));
	/* Too few ranks for the network. */
	CHECK(run("nosuch", CHAKRA_SIM_UNAWARE, NULL, NULL) == UINT64_MAX);
	load("network/Ring_8npus.yml", "system/Ring_4chunks.json");
	CHECK(run("missing", CHAKRA_SIM_UNAWARE, NULL, NULL) == UINT64_MAX &&
	      strstr(err, "4 ranks but the network has 8"));
}

int main(void)
{
	need_data("data/astra-sim/network");
	need_data("data/astra-sim/system");
	snprintf(dir, sizeof dir, "/tmp/chakra-sim-test-XXXXXX");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_p2p();
	test_groups();
	test_involved_dim();
	test_stragglers_and_compute();
	test_more_collectives();
	test_dbt();
	test_aware_switch_fc();
	test_flat_ring();
	test_errors();
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	return check_done();
}
