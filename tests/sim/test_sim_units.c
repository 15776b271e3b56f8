/* SPDX-License-Identifier: Apache-2.0 */
/* chakra sim parts: config parsers (real ASTRA-sim files and broken ones,
 * whose errors must name file, line and key), the network models and the
 * collective steps against simulation-model.md's formulas. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "sim_model.h"

static char err[SIM_ERR_LEN];

static int has(const char *s, const char *sub)
{
	if (!strstr(s, sub)) {
		fprintf(stderr, "  message '%s' lacks '%s'\n", s, sub);
		return 0;
	}
	return 1;
}

static int net_err(const char *text, const char *want1, const char *want2)
{
	chakra_sim_network net;
	int rc = chakra_sim_network_parse(&net, "net.yml", text, strlen(text), err, sizeof err);
	return rc == CHAKRA_ECONFIG && has(err, "net.yml") && has(err, want1) && has(err, want2);
}

static int sys_err(const char *text, const char *want1, const char *want2)
{
	chakra_sim_system sys;
	int rc = chakra_sim_system_parse(&sys, "sys.json", text, strlen(text), err, sizeof err);
	return rc == CHAKRA_ECONFIG && has(err, "sys.json") && has(err, want1) && has(err, want2);
}

static void test_network(void)
{
	chakra_sim_network net;
	CHECK(chakra_sim_network_load(&net, shared_path("data/astra-sim/network/hgx_h100_32gpu.yml"),
	                       err, sizeof err) == 0);
	CHECK_EQ_U(net.ndims, 2);
	CHECK(net.topo[0] == CHAKRA_SIM_SWITCH && net.topo[1] == CHAKRA_SIM_RING);
	CHECK_EQ_U(net.size[0], 8);
	CHECK_EQ_U(net.size[1], 4);
	CHECK_EQ_U(net.npus, 32);
	CHECK(net.bw[0] == 400 && net.bw[1] == 50); /* the commented-out line is ignored */
	CHECK(net.latency[0] == 936.25 && net.latency[1] == 1000);
	CHECK_EQ_U(chakra__sim_coord(&net, 13, 0), 5);
	CHECK_EQ_U(chakra__sim_coord(&net, 13, 1), 1);
	static const char *const files[] = { "HGX-H100-validated.yml", "Ring_16npus.yml",
		"Ring_4npus.yml", "Ring_8npus.yml", "tpu_v3_32_2dtorus.yml" };
	for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
		char rel[256];
		snprintf(rel, sizeof rel, "data/astra-sim/network/%s", files[i]);
		CHECK_MSG(chakra_sim_network_load(&net, shared_path(rel), err, sizeof err) == 0, "%s", err);
	}
	CHECK_EQ_U(net.npus, 32);

	/* Errors: file, line, key. */
	CHECK(net_err("topology: [ Ring ]\nnpus_count: [ 8 ]\nbandwidth: [ 50 ]\n", "'latency'",
	              "missing"));
	CHECK(net_err("topology: [ Ring, Torus ]\nnpus_count: [ 8, 2 ]\nbandwidth: [ 50, 5 ]\n"
	              "latency: [ 1, 1 ]\n", ":1:", "unknown topology 'Torus'"));
	CHECK(net_err("topology: [ Ring ]\nnpus_count: [ 8 ]\nbandwidth: [ 50, 60 ]\n"
	              "latency: [ 500 ]\n", ":3:", "'bandwidth' has 2 entries"));
	CHECK(net_err("topology: [ Ring ]\nnpus_count: [ 8.5 ]\nbandwidth: [ 50 ]\n"
	              "latency: [ 500 ]\n", ":2:", "'npus_count'"));
	CHECK(net_err("topology: [ Ring ]\nnpus_count: [ 8 ]\nbandwidth: [ fast ]\n"
	              "latency: [ 500 ]\n", ":3:", "'bandwidth': 'fast'"));
	CHECK(net_err("topology: [ Ring ]\nnpus_count: [ 8 ]\nbandwidth: [ 0 ]\n"
	              "latency: [ 500 ]\n", ":3:", "positive"));
	CHECK(net_err("topology: [ Ring\nnpus_count: [ 8 ]\n", "YAML syntax error", ":"));
	CHECK(net_err("topology: [ Ring ]\ntopology: [ Ring ]\n", ":2:", "given twice"));
	CHECK(net_err("", "'topology'", "missing"));
	/* Unknown keys are skipped, whatever their shape. */
	const char *ok = "extra: { a: [1, 2] }\nmore: [x]\nname: n\ntopology: [ FullyConnected ]\n"
	                 "npus_count: 4\nbandwidth: [ 25 ]\nlatency: [ 0 ]\n";
	CHECK_MSG(chakra_sim_network_parse(&net, "ok.yml", ok, strlen(ok), err, sizeof err) == 0, "%s", err);
	CHECK(net.topo[0] == CHAKRA_SIM_FULLY_CONNECTED && net.npus == 4);
}

static void test_system(void)
{
	chakra_sim_system sys;
	CHECK(chakra_sim_system_load(&sys, shared_path("data/astra-sim/system/hgx_h100_32gpu.json"),
	                      err, sizeof err) == 0);
	CHECK(sys.lifo && sys.endpoint_delay == 1 && sys.active_chunks == 2 && sys.splits == 4);
	CHECK(sys.roofline == 1 && sys.peak_perf == 700 && sys.local_mem_bw == 3350);
	CHECK(sys.local_bw_aware && sys.n_impl[CHAKRA_SIM_IMPL_ALL_REDUCE] == 2);
	CHECK(sys.impl[CHAKRA_SIM_IMPL_ALL_TO_ALL][1] == CHAKRA_SIM_ALG_RING);
	static const char *const files[] = { "HGX-H100-validated.json", "Ring_4chunks.json",
		"tpu_v3_32_2dtorus.json" };
	for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
		char rel[256];
		snprintf(rel, sizeof rel, "data/astra-sim/system/%s", files[i]);
		CHECK_MSG(chakra_sim_system_load(&sys, shared_path(rel), err, sizeof err) == 0, "%s", err);
	}
	CHECK(chakra_sim_system_load(&sys, shared_path("data/astra-sim/rt_template/system_cfg.json"),
	                      err, sizeof err) == 0);
	CHECK(sys.local_mem_bw == 50);

	const char *base = "\"all-reduce-implementation\": [\"ring\"], \"all-gather-implementation\": "
	                   "[\"ring\"], \"reduce-scatter-implementation\": [\"ring\"], "
	                   "\"all-to-all-implementation\": [\"direct\"]";
	char buf[1024];
	snprintf(buf, sizeof buf, "{\n%s,\n\"local-mem-bw\": 50,\n\"endpoint-delay\": \"ten\"\n}",
	         base);
	CHECK(sys_err(buf, ":4:", "'endpoint-delay': expected a number"));
	snprintf(buf, sizeof buf, "{\n%s,\n\"local-mem-bw\": 50,\n\"active-chunks-per-dimension\": "
	         "1.5\n}", base);
	CHECK(sys_err(buf, ":4:", "expected an integer"));
	snprintf(buf, sizeof buf, "{\n%s,\n\"local-mem-bw\": 50,\n\"scheduling-policy\": \"RANDOM\"}",
	         base);
	CHECK(sys_err(buf, ":4:", "'scheduling-policy'"));
	CHECK(sys_err("{\"local-mem-bw\": 50,\n\"all-reduce-implementation\": [\"ring\", \"tree\"]}",
	              ":2:", "unknown algorithm 'tree'"));
	CHECK(sys_err("{\"local-mem-bw\": 50,\n\"all-reduce-implementation\": \"ring\"}", ":2:",
	              "expected a non-empty list"));
	snprintf(buf, sizeof buf, "{\n%s\n}", base);
	CHECK(sys_err(buf, "'local-mem-bw'", "missing"));
	CHECK(sys_err("{\"local-mem-bw\": 50}", "'all-reduce-implementation'", "missing"));
	CHECK(sys_err("{\n\"local-mem-bw\": 50,\n\"x\": [1,}", ":3:", "JSON syntax error"));
	CHECK(sys_err("[1, 2]", ":1:", "expected a JSON object"));
	snprintf(buf, sizeof buf, "{\n%s,\n\"local-mem-bw\": 50,\n\"roofline-enabled\": 1}", base);
	CHECK(sys_err(buf, "'peak-perf'", "missing"));
	/* Unknown keys, nested or not, are ignored, as ASTRA-sim does. */
	snprintf(buf, sizeof buf, "{\"x\": {\"y\": [1, {\"z\": 2}]}, %s, \"local-mem-bw\": 50, "
	         "\"track-local-mem\": 1}", base);
	CHECK_MSG(chakra_sim_system_parse(&sys, "ok.json", buf, strlen(buf), err, sizeof err) == 0, "%s", err);
	CHECK(sys.impl[CHAKRA_SIM_IMPL_ALL_TO_ALL][0] == CHAKRA_SIM_ALG_DIRECT && sys.splits == 1);
}

static void test_groups(void)
{
	chakra_sim_groups gs;
	const char *ok = "{\"0\": [0, 1, 2, 3],\n \"tp\": [4, 6]}";
	CHECK(chakra_sim_groups_parse(&gs, "g.json", ok, strlen(ok), 8, err, sizeof err) == 0);
	CHECK_EQ_U(gs.n, 2);
	const chakra_sim_group *g = chakra_sim_groups_find(&gs, "tp", 2);
	CHECK(g && g->n == 2 && g->ranks[1] == 6);
	CHECK(!chakra_sim_groups_find(&gs, "t", 1));
	chakra_sim_groups_free(&gs);
	const char *bad = "{\"0\": [0, 1],\n \"1\": [2, 9]}";
	CHECK(chakra_sim_groups_parse(&gs, "g.json", bad, strlen(bad), 8, err, sizeof err) == CHAKRA_ECONFIG &&
	      has(err, "g.json:2:") && has(err, "group '1'") && has(err, "0..7"));
	bad = "{\"0\": [0, 1, 0]}";
	CHECK(chakra_sim_groups_parse(&gs, "g.json", bad, strlen(bad), 8, err, sizeof err) == CHAKRA_ECONFIG &&
	      has(err, "listed twice"));
	bad = "{\"a\": [0],\n \"b\": [1],\n \"a\": [2],\n \"b\": [3]}";
	CHECK(chakra_sim_groups_parse(&gs, "g.json", bad, strlen(bad), 8, err, sizeof err) == CHAKRA_ECONFIG &&
	      has(err, "g.json:3: group 'a' is defined twice"));
	bad = "{\"0\": 3}";
	CHECK(chakra_sim_groups_parse(&gs, "g.json", bad, strlen(bad), 8, err, sizeof err) == CHAKRA_ECONFIG &&
	      has(err, "list of ranks"));
}

/* The network models against the formulas, on the reference configs. */
static void test_net(void)
{
	chakra_sim_network net;
	CHECK(chakra_sim_network_load(&net, shared_path("data/astra-sim/network/Ring_8npus.yml"),
	                       err, sizeof err) == 0);
	/* D = floor(hops * L + m / B), B = 50 GiB/s in bytes/ns. */
	CHECK_EQ_U(chakra__sim_unaware_delay(&net, 0, 1, 32768), 1110);
	CHECK_EQ_U(chakra__sim_unaware_delay(&net, 0, 7, 32768), 1110); /* the shorter way round */
	CHECK_EQ_U(chakra__sim_unaware_delay(&net, 0, 3, 32768), 2110);
	CHECK_EQ_U(chakra__sim_unaware_delay(&net, 2, 6, 0), 2000);
	CHECK(chakra_sim_network_load(&net, shared_path("data/astra-sim/network/HGX-H100-validated.yml"),
	                       err, sizeof err) == 0);
	CHECK_EQ_U(chakra__sim_unaware_delay(&net, 0, 5, 32768), 1948); /* switch: 2 hops */

	/* Aware: switch = up link + down link, each floor(L + m/B) = 1012,
	 * holding the link floor(m/B) = 76; a second message queues 76. */
	sim_links *l = chakra__sim_links_new(&net);
	CHECK(l != NULL);
	sim_hop h = { 0, 5, 0, 0 };
	int done = 0;
	uint64_t t = chakra__sim_links_step(l, &h, 32768, 0, &done);
	CHECK_EQ_U(t, 1012);
	CHECK(!done && h.at_switch);
	t = chakra__sim_links_step(l, &h, 32768, t, &done);
	CHECK_EQ_U(t, 2024);
	CHECK(done && h.at == 5);
	sim_hop h2 = { 0, 3, 0, 0 };
	t = chakra__sim_links_step(l, &h2, 32768, 0, &done); /* same up link: waits 76 */
	CHECK_EQ_U(t, 1088);
	t = chakra__sim_links_step(l, &h2, 32768, t, &done); /* its own down link: free */
	CHECK_EQ_U(t, 2100);
	chakra__sim_links_free(l);

	/* A 2D torus: routed dimension by dimension, ring hops store-and-forward. */
	CHECK(chakra_sim_network_load(&net, shared_path("data/astra-sim/network/tpu_v3_32_2dtorus.yml"),
	                       err, sizeof err) == 0);
	l = chakra__sim_links_new(&net);
	sim_hop h3 = { 0, 2 + 4 * 7, 0, 0 }; /* (0,0) -> (2,7): 2 hops + 1 hop (wraps) */
	int hops = 0;
	t = 0;
	do {
		t = chakra__sim_links_step(l, &h3, 0, t, &done);
		hops++;
	} while (!done && hops < 10);
	CHECK_EQ_U(hops, 3);
	CHECK_EQ_U(t, 3000);
	chakra__sim_links_free(l);
}

/* Per-chunk phase time of a one-packet protocol (ring, halving-doubling)
 * with every member in step: packet 0 is ready after e; packet k+1 after
 * message k arrives (D) and e more (+ its reduction, 3 * trunc(m / lbw),
 * when it is processed). Member 0 of a one-dimensional network. */
static uint64_t phase_time(const chakra_sim_network *net, const chakra_sim_system *sys, const sim_phase *ph)
{
	uint64_t t = chakra__sim_pkt_delay(ph, sys, 0);
	for (uint64_t k = 0; k < ph->K; k++)
		t += chakra__sim_unaware_delay(net, chakra__sim_pkt_src(ph, 0, k), 0,
		                               (double)chakra__sim_pkt_bytes(ph, k)) +
		     chakra__sim_pkt_delay(ph, sys, k + 1);
	return t;
}

static void test_coll(void)
{
	chakra_sim_network net;
	chakra_sim_system sys;
	CHECK(chakra_sim_network_load(&net, shared_path("data/astra-sim/network/Ring_8npus.yml"),
	                       err, sizeof err) == 0);
	CHECK(chakra_sim_system_load(&sys, shared_path("data/astra-sim/system/Ring_4chunks.json"),
	                      err, sizeof err) == 0);
	sim_phase ph[16];
	int dims[1] = { 0 };
	uint64_t n = 8, e = 10;
	uint64_t x = 262144;
	uint64_t D = (uint64_t)floor(500 + (x / 8) / (50 * 1073741824.0 / 1e9));
	uint64_t r = 3 * (uint64_t)floor((x / 8) / 1600);
	/* Chunks: 1 MiB in 4; at least one byte per NPU (all-gather apart);
	 * the reference's integer division and rounding up. */
	uint64_t cb;
	uint32_t nc;
	chakra__sim_coll_chunks(&net, &sys, CHAKRA_ALL_REDUCE, 1 << 20, &cb, &nc);
	CHECK(cb == x && nc == 4);
	chakra__sim_coll_chunks(&net, &sys, CHAKRA_ALL_REDUCE, 10, &cb, &nc);
	CHECK(cb == 8 && nc == 4);
	chakra__sim_coll_chunks(&net, &sys, CHAKRA_ALL_GATHER, 10, &cb, &nc);
	CHECK(cb == 2 && nc == 5);
	chakra__sim_coll_chunks(&net, &sys, CHAKRA_ALL_GATHER, 1001, &cb, &nc);
	CHECK(cb == 250 && nc == 5);
	/* all-reduce: 2(n-1)D + (2n-1)e + (n-1)r */
	CHECK(chakra__sim_coll_plan(&net, &sys, 0, x, dims, 1, 0, ph, err) == 1);
	CHECK_EQ_U(phase_time(&net, &sys, &ph[0]), 2 * (n - 1) * D + (2 * n - 1) * e + (n - 1) * r);
	CHECK_EQ_U(4 * phase_time(&net, &sys, &ph[0]), 64440);
	/* reduce-scatter: e + (n-1)(D + e + r) */
	CHECK(chakra__sim_coll_plan(&net, &sys, 7, x, dims, 1, 0, ph, err) == 1);
	CHECK_EQ_U(phase_time(&net, &sys, &ph[0]), e + (n - 1) * (D + e + r));
	CHECK(ph[0].out == x / 8);
	/* all-gather: n e + (n-1) D(x) */
	uint64_t Dx = (uint64_t)floor(500 + x / (50 * 1073741824.0 / 1e9));
	CHECK(chakra__sim_coll_plan(&net, &sys, 2, x, dims, 1, 0, ph, err) == 1);
	CHECK_EQ_U(phase_time(&net, &sys, &ph[0]), n * e + (n - 1) * Dx);
	CHECK(ph[0].out == 8 * x);
	/* all-to-all: e + n(n-1)/2 (D + e) */
	CHECK(chakra__sim_coll_plan(&net, &sys, 6, x, dims, 1, 0, ph, err) == 1);
	CHECK_EQ_U(phase_time(&net, &sys, &ph[0]), e + n * (n - 1) / 2 * (D + e));
	/* direct: n-1 packets at once, packet k to member i+1+k (mod n-1 the
	 * peers), its receive from i-1-k; the second round's packets (the
	 * ones that arrive with the first half's messages) are reduced. */
	sys.impl[CHAKRA_SIM_IMPL_ALL_REDUCE][0] = CHAKRA_SIM_ALG_DIRECT;
	CHECK(chakra__sim_coll_plan(&net, &sys, 0, x, dims, 1, 0, ph, err) == 1);
	CHECK(ph[0].P == 7 && ph[0].K == 14 && ph[0].msg == x / 8);
	static const uint32_t dst3[8] = { 4, 5, 6, 7, 0, 1, 2, 4 }, src3[8] = { 2, 1, 0, 7, 6, 5, 4, 2 };
	for (uint64_t k = 0; k < 8; k++)
		CHECK(chakra__sim_pkt_dest(&ph[0], 3, k) == dst3[k] &&
		      chakra__sim_pkt_src(&ph[0], 3, k) == src3[k]);
	for (uint64_t k = 0; k < 21; k++)
		CHECK(chakra__sim_pkt_reduced(&ph[0], k) == (k >= 7 && k < 14));
	/* halving-doubling all-reduce: partners at 1, 2, 4 then 4, 2, 1; sizes
	 * x/2 .. x/8 and back; only the packets that follow the first two
	 * messages are reduced, by their own size (the reference's rounds of
	 * log n packets): on FullyConnected 8 NPUs, 4 chunks of 256 KiB,
	 * ASTRA-sim ends at 47168. */
	sys.impl[CHAKRA_SIM_IMPL_ALL_REDUCE][0] = CHAKRA_SIM_ALG_HALVING_DOUBLING;
	CHECK(chakra__sim_coll_plan(&net, &sys, 0, x, dims, 1, 0, ph, err) == 1);
	CHECK_EQ_U(ph[0].K, 6);
	static const uint32_t hd3[6] = { 2, 1, 7, 7, 1, 2 };
	static const uint64_t hdb[6] = { 131072, 65536, 32768, 32768, 65536, 131072 };
	for (uint64_t k = 0; k < 6; k++)
		CHECK(chakra__sim_pkt_dest(&ph[0], 3, k) == hd3[k] &&
		      chakra__sim_pkt_bytes(&ph[0], k) == hdb[k]);
	for (uint64_t k = 0; k < 7; k++)
		CHECK(chakra__sim_pkt_reduced(&ph[0], k) == (k == 1 || k == 2));
	chakra_sim_network fc = net;
	fc.topo[0] = CHAKRA_SIM_FULLY_CONNECTED;
	CHECK_EQ_U(4 * phase_time(&fc, &sys, &ph[0]), 47168);
	/* halving-doubling all-gather: partners n/2 first, sizes doubling. */
	sys.impl[CHAKRA_SIM_IMPL_ALL_GATHER][0] = CHAKRA_SIM_ALG_HALVING_DOUBLING;
	CHECK(chakra__sim_coll_plan(&net, &sys, 2, x, dims, 1, 0, ph, err) == 1);
	CHECK(chakra__sim_pkt_dest(&ph[0], 3, 0) == 7 && chakra__sim_pkt_bytes(&ph[0], 0) == x);
	CHECK(chakra__sim_pkt_dest(&ph[0], 3, 2) == 2 && chakra__sim_pkt_bytes(&ph[0], 2) == 4 * x);
	chakra_sim_network n6 = net;
	n6.size[0] = 6;
	n6.npus = 6;
	CHECK(chakra__sim_coll_plan(&n6, &sys, 0, x, dims, 1, 0, ph, err) == -1 &&
	      has(err, "power-of-two"));

	/* Two dimensions, localBWAware: RS(d0) AR(d1) AG(d0), chunk shrinks. */
	CHECK(chakra_sim_network_load(&net, shared_path("data/astra-sim/network/tpu_v3_32_2dtorus.yml"),
	                       err, sizeof err) == 0);
	CHECK(chakra_sim_system_load(&sys, shared_path("data/astra-sim/system/tpu_v3_32_2dtorus.json"),
	                      err, sizeof err) == 0);
	int d2[2] = { 0, 1 };
	CHECK(chakra__sim_coll_plan(&net, &sys, 0, 1024, d2, 2, 0, ph, err) == 3);
	CHECK(ph[0].op == SIM_OP_RS && ph[0].dim == 0 && ph[0].x == 1024);
	CHECK(ph[1].op == SIM_OP_AR && ph[1].dim == 1 && ph[1].x == 256);
	CHECK(ph[2].op == SIM_OP_AG && ph[2].dim == 0 && ph[2].x == 256);
	/* All-gather: the last dimension first, growing. */
	CHECK(chakra__sim_coll_plan(&net, &sys, 2, 1024, d2, 2, 0, ph, err) == 2);
	CHECK(ph[0].dim == 1 && ph[1].dim == 0 && ph[1].x == 8192);
	/* Unsupported collective and a missing implementation entry. */
	CHECK(chakra__sim_coll_plan(&net, &sys, 3, 1024, d2, 2, 0, ph, err) == -1 && has(err, "GATHER"));
	sys.n_impl[CHAKRA_SIM_IMPL_ALL_TO_ALL] = 1;
	CHECK(chakra__sim_coll_plan(&net, &sys, 6, 1024, d2, 2, 0, ph, err) == -1 &&
	      has(err, "all-to-all-implementation") && has(err, "dimension 1"));
}

int main(void)
{
	need_data("data/astra-sim/network");
	need_data("data/astra-sim/system");
	need_data("data/astra-sim/rt_template");
	test_network();
	test_system();
	test_groups();
	test_net();
	test_coll();
	return check_done();
}
