/* SPDX-License-Identifier: Apache-2.0 */
/* ASTRA-sim's workload rules (lib/sim/sim_rules.c, docs/sim.md "Two rule
 * sets"), one small workload per rule. Every expected cycle is derived by
 * hand from the rule, and stock ASTRA-sim (tests/sim/astra_oracle.sh's
 * build) prints the same for the same files; sim_diff_traces.py keeps
 * checking the rules against it on random workloads. Also: the options
 * that refine them (durations, streams), the rule set AUTO picks, and the
 * accounting (compute = GPU compute, CPU apart). */
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "chakra/chakra.h"
#include "sim_model.h"

static char dir[256];
static char err[SIM_ERR_LEN];
static char warning[SIM_ERR_LEN];
static chakra_sim_network net;
static chakra_sim_system sys;

/* One node: its attributes (-1: absent) and its dependencies. */
typedef struct nd {
	int type;
	uint64_t us;
	int cpu;                    /* is_cpu_op: 1, 0, or -1 (absent) */
	int64_t ns, comm_type, size, src, dst, tag, ops, tensor, tid, stream;
	const char *pg;
	int data[4], ctrl[4];       /* ids + 1, 0 ends the list */
} nd;

/* N(.us = 5, .cpu = 1): the defaults above, then the fields given (which
 * override them: the point of the macro). */
#if defined(__clang__)
#pragma clang diagnostic ignored "-Winitializer-overrides"
#elif defined(__GNUC__)
#pragma GCC diagnostic ignored "-Woverride-init"
#endif
#define N(...) ((nd){ CHAKRA_COMP_NODE, 0, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, NULL, \
                      { 0 }, { 0 }, __VA_ARGS__ })

static void write_rank(const char *name, int rank, const nd *s, int n, int recorded)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s.%d.et", dir, name, rank);
	chakra_writer_options wo = CHAKRA_WRITER_OPTIONS_INIT;
	wo.overwrite = 1;
	chakra_writer *w;
	chakra_builder *b = chakra_builder_new();
	CHECK(chakra_writer_open(&w, path, &wo) == 0);
	if (recorded) { /* what chakra convert writes first */
		chakra_builder_reset(b);
		chakra_builder_attr_string(b, "source", CHAKRA_ATTR_STRING, "kineto", (size_t)-1);
		CHECK(chakra_writer_write_metadata(w, "0.0.4", b) == 0);
	} else {
		CHECK(chakra_writer_write_metadata(w, "0.0.4", NULL) == 0);
	}
	for (int i = 0; i < n; i++) {
		const nd *x = &s[i];
		chakra_builder_reset(b);
		chakra_builder_set_id(b, (uint64_t)i);
		chakra_builder_set_name(b, "node", (size_t)-1);
		chakra_builder_set_type(b, x->type);
		chakra_builder_set_duration_micros(b, x->us);
		for (int k = 0; k < 4 && x->data[k]; k++)
			chakra_builder_add_data_dep(b, (uint64_t)x->data[k] - 1);
		for (int k = 0; k < 4 && x->ctrl[k]; k++)
			chakra_builder_add_ctrl_dep(b, (uint64_t)x->ctrl[k] - 1);
		if (x->cpu >= 0)
			chakra_builder_attr_int(b, "is_cpu_op", CHAKRA_ATTR_BOOL, x->cpu);
		struct { const char *name; int64_t v; } ints[] = {
			{ "duration_nanos", x->ns }, { "comm_type", x->comm_type }, { "comm_size", x->size },
			{ "comm_src", x->src }, { "comm_dst", x->dst }, { "comm_tag", x->tag },
			{ "num_ops", x->ops }, { "tensor_size", x->tensor }, { "tid", x->tid },
			{ "stream", x->stream },
		};
		for (size_t k = 0; k < sizeof ints / sizeof ints[0]; k++)
			if (ints[k].v >= 0)
				chakra_builder_attr_int(b, ints[k].name, CHAKRA_ATTR_INT64, ints[k].v);
		if (x->pg)
			chakra_builder_attr_string(b, "pg_name", CHAKRA_ATTR_STRING, x->pg, (size_t)-1);
		CHECK(chakra_writer_write_node(w, b) == 0);
	}
	CHECK(chakra_writer_finish(w) == 0);
	chakra_writer_close(w);
	chakra_builder_free(b);
}

/* The same nodes on every rank of the network. */
static void write_all(const char *name, const nd *s, int n, int recorded)
{
	for (uint32_t r = 0; r < net.npus; r++)
		write_rank(name, (int)r, s, n, recorded);
}

static void set_net(chakra_sim_topology t, uint32_t npus)
{
	memset(&net, 0, sizeof net);
	net.ndims = 1;
	net.topo[0] = t;
	net.size[0] = npus;
	net.bw[0] = 50.0;
	net.latency[0] = 500.0;
	CHECK_MSG(chakra_sim_network_check(&net, err, sizeof err) == 0, "%s", err);
	CHECK_MSG(chakra_sim_system_load(&sys, shared_path("data/astra-sim/system/Ring_4chunks.json"),
	                                 err, sizeof err) == 0, "%s", err);
}

typedef struct res {
	uint64_t finish[4], compute[4], cpu[4], comm[4];
	chakra_sim_rules rules;
} res;

/* Run PREFIX with options o (NULL: defaults); the result or 0 with err set. */
static int run(const char *name, const chakra_sim_options *o, res *out)
{
	char prefix[512];
	snprintf(prefix, sizeof prefix, "%s/%s", dir, name);
	chakra_sim *s = NULL;
	int rc = chakra_sim_new(&s, &net, &sys, o);
	if (rc == 0)
		rc = chakra_sim_run_prefix(s, prefix);
	memset(out, 0, sizeof *out);
	warning[0] = 0;
	if (rc < 0) {
		snprintf(err, sizeof err, "%s", s ? chakra_sim_errmsg(s) : chakra_strerror(rc));
		chakra_sim_free(s);
		return 0;
	}
	for (uint32_t r = 0; r < net.npus && r < 4; r++) {
		const chakra_sim_npu_result *p = chakra_sim_npu(s, r);
		out->finish[r] = p->finish;
		out->compute[r] = p->compute;
		out->cpu[r] = p->cpu;
		out->comm[r] = p->comm_busy;
	}
	out->rules = chakra_sim_rules_used(s);
	if (chakra_sim_warning(s))
		snprintf(warning, sizeof warning, "%s", chakra_sim_warning(s));
	chakra_sim_free(s);
	return 1;
}

static chakra_sim_options opts(chakra_sim_rules rules)
{
	chakra_sim_options o = CHAKRA_SIM_OPTIONS_INIT;
	o.rules = rules;
	return o;
}

#define RUN_OK(name, o, r) CHECK_MSG(run(name, o, r), "%s: %s", name, err)

/* A CPU node and a GPU kernel take different slots: they run together. The
 * model's rules have one compute slot. GPU time is "compute" (ASTRA-sim's
 * exposed communication subtracts it), CPU time is counted apart. */
static void test_slots(void)
{
	set_net(CHAKRA_SIM_SWITCH, 2);
	nd s[] = { N(.us = 10, .cpu = 1), N(.us = 10, .cpu = 0) };
	write_all("slots", s, 2, 1);
	res r;
	RUN_OK("slots", NULL, &r);
	CHECK_EQ_U(r.rules, CHAKRA_SIM_RULES_ASTRA_SIM);
	CHECK_EQ_U(r.finish[0], 10000);
	CHECK_EQ_U(r.compute[0], 10000);
	CHECK_EQ_U(r.cpu[0], 10000);
	chakra_sim_options o = opts(CHAKRA_SIM_RULES_MODEL);
	RUN_OK("slots", &o, &r);
	CHECK_EQ_U(r.rules, CHAKRA_SIM_RULES_MODEL);
	CHECK_EQ_U(r.finish[0], 20000);
	/* AUTO: the same nodes without the metadata chakra convert writes run
	 * under the model's rules. */
	write_all("slots-gen", s, 2, 0);
	RUN_OK("slots-gen", NULL, &r);
	CHECK_EQ_U(r.rules, CHAKRA_SIM_RULES_MODEL);
	CHECK_EQ_U(r.finish[0], 20000);
	o = opts(CHAKRA_SIM_RULES_ASTRA_SIM);
	RUN_OK("slots-gen", &o, &r);
	CHECK_EQ_U(r.finish[0], 10000);
	/* A caller's own feeders: AUTO reads rank 0's metadata from them. */
	char path[512];
	chakra_feeder *f[2];
	for (int k = 0; k < 2; k++) {
		snprintf(path, sizeof path, "%s/slots.%d.et", dir, k);
		chakra_feeder_options fo = CHAKRA_FEEDER_OPTIONS_INIT;
		fo.deps = CHAKRA_DEPS_BOTH;
		CHECK(chakra_feeder_open(&f[k], path, &fo) == 0);
	}
	chakra_sim *sim;
	CHECK(chakra_sim_new(&sim, &net, &sys, NULL) == 0);
	CHECK(chakra_sim_run(sim, f, 2) == 0);
	CHECK_EQ_U(chakra_sim_finish(sim), 10000);
	CHECK_EQ_U(chakra_sim_rules_used(sim), CHAKRA_SIM_RULES_ASTRA_SIM);
	chakra_sim_free(sim);
	for (int k = 0; k < 2; k++)
		chakra_feeder_close(f[k]);
}

/* At each event the ready nodes issue in ascending id, each if its slot is
 * free, not in the order they became ready: at 5 us the GPU takes node 2
 * (ready at 2 us) before node 3 (ready at 0), so node 4 starts at 13 us. */
static void test_ascending_ids(void)
{
	set_net(CHAKRA_SIM_SWITCH, 2);
	nd s[] = { N(.us = 5, .cpu = 0), N(.us = 2, .cpu = 1), N(.us = 7, .cpu = 0, .data = { 2 }),
	           N(.us = 1, .cpu = 0), N(.us = 1, .cpu = 1, .data = { 4 }) };
	write_all("order", s, 5, 1);
	res r;
	RUN_OK("order", NULL, &r);
	CHECK_EQ_U(r.finish[0], 14000);
	CHECK_EQ_U(r.finish[0] - r.compute[0], 1000); /* ASTRA-sim's exposed communication */
}

/* Whole microseconds: duration_micros x 1000, 0 as 1 ns; duration_nanos
 * only when asked (--durations nanos). */
static void test_durations(void)
{
	set_net(CHAKRA_SIM_SWITCH, 2);
	nd z[] = { N(.us = 0), N(.us = 0, .data = { 1 }), N(.us = 0, .data = { 2 }) };
	write_all("zero", z, 3, 1);
	res r;
	RUN_OK("zero", NULL, &r);
	CHECK_EQ_U(r.finish[0], 3);
	nd s[] = { N(.us = 1, .ns = 1499) };
	write_all("nanos", s, 1, 1);
	RUN_OK("nanos", NULL, &r);
	CHECK_EQ_U(r.finish[0], 1000);
	chakra_sim_options o = opts(CHAKRA_SIM_RULES_AUTO);
	o.durations = CHAKRA_SIM_DURATIONS_NANOS;
	RUN_OK("nanos", &o, &r);
	CHECK_EQ_U(r.finish[0], 1499);
	/* The model's rules read duration_nanos; micros when asked. */
	write_all("nanos-gen", s, 1, 0);
	RUN_OK("nanos-gen", NULL, &r);
	CHECK_EQ_U(r.finish[0], 1499);
	o = opts(CHAKRA_SIM_RULES_AUTO);
	o.durations = CHAKRA_SIM_DURATIONS_MICROS;
	RUN_OK("nanos-gen", &o, &r);
	CHECK_EQ_U(r.finish[0], 1000);
}

/* Control dependencies gate issue (FeederV3 resolves data and control). */
static void test_ctrl_deps(void)
{
	set_net(CHAKRA_SIM_SWITCH, 2);
	nd s[] = { N(.us = 5, .cpu = 1), N(.us = 1, .ctrl = { 1 }) };
	write_all("ctrl", s, 2, 1);
	res r;
	RUN_OK("ctrl", NULL, &r);
	CHECK_EQ_U(r.finish[0], 6000);
	chakra_sim_options o = opts(CHAKRA_SIM_RULES_AUTO);
	o.deps = CHAKRA_DEPS_DATA;
	RUN_OK("ctrl", &o, &r);
	CHECK_EQ_U(r.finish[0], 5000);
}

/* A node that takes no time (invalid, metadata) completes as it issues,
 * but what it releases waits for the rank's next event: node 1 starts when
 * node 2 ends. With no next event the rank never finishes: an error. */
static void test_zero_time(void)
{
	set_net(CHAKRA_SIM_SWITCH, 2);
	nd s[] = { N(.type = CHAKRA_INVALID_NODE), N(.us = 2, .data = { 1 }), N(.us = 5, .cpu = 1) };
	write_all("zt", s, 3, 1);
	res r;
	RUN_OK("zt", NULL, &r);
	CHECK_EQ_U(r.finish[0], 7000);
	nd t[] = { N(.type = CHAKRA_METADATA_NODE), N(.us = 2, .data = { 1 }) };
	write_all("stall", t, 2, 1);
	CHECK(!run("stall", NULL, &r) && strstr(err, "rank 0 node 1") &&
	      strstr(err, "released by a node that takes no time"));
	chakra_sim_options o = opts(CHAKRA_SIM_RULES_MODEL);
	RUN_OK("stall", &o, &r);
	CHECK_EQ_U(r.finish[0], 2000);
}

/* Broadcasts are replayed (duration_micros), not simulated, on the
 * communication slot; other collectives use the network. */
static void test_broadcast(void)
{
	set_net(CHAKRA_SIM_SWITCH, 2);
	nd s[] = { N(.type = CHAKRA_COMM_COLL_NODE, .us = 3, .comm_type = CHAKRA_BROADCAST,
	             .size = 1 << 20) };
	write_all("bcast", s, 1, 1);
	res r;
	RUN_OK("bcast", NULL, &r);
	CHECK_EQ_U(r.finish[0], 3000);
	CHECK_EQ_U(r.compute[0], 0);
	CHECK_EQ_U(r.comm[0], 3000);
}

/* Send/recv: a send holds the communication slot until its message
 * arrives (the second send waits: 2 x 20531 = 41062 on a 50 GB/s, 500 ns
 * switch), a receive takes no slot and completes as the message arrives,
 * or as it is posted once the message is there (no endpoint delay);
 * messages match on source, tag modulo 5e8 and size. A collective in
 * flight keeps a send waiting too. */
static void test_p2p(void)
{
	set_net(CHAKRA_SIM_SWITCH, 2);
	const int64_t mb = 1 << 20;
	nd s0[] = { N(.type = CHAKRA_COMM_SEND_NODE, .cpu = 0, .src = 0, .dst = 1, .tag = 1, .size = mb),
	            N(.type = CHAKRA_COMM_SEND_NODE, .cpu = 0, .src = 0, .dst = 1, .tag = 2, .size = mb) };
	nd s1[] = { N(.type = CHAKRA_COMM_RECV_NODE, .cpu = 0, .src = 0, .dst = 1, .tag = 1, .size = mb),
	            N(.type = CHAKRA_COMM_RECV_NODE, .cpu = 0, .src = 0, .dst = 1, .tag = 2, .size = mb) };
	write_rank("p2p", 0, s0, 2, 1);
	write_rank("p2p", 1, s1, 2, 1);
	res r;
	RUN_OK("p2p", NULL, &r);
	CHECK_EQ_U(r.finish[0], 41062);
	CHECK_EQ_U(r.finish[1], 41062);
	chakra_sim_options o = opts(CHAKRA_SIM_RULES_MODEL);
	RUN_OK("p2p", &o, &r);
	CHECK_EQ_U(r.finish[0], 20531);
	CHECK_EQ_U(r.finish[1], 20541); /* the model's receive: + endpoint delay */
	/* A receive posted after its message arrived completes as it is posted. */
	nd l0[] = { N(.us = 1), N(.type = CHAKRA_COMM_SEND_NODE, .cpu = 0, .src = 0, .dst = 1,
	                          .tag = 1, .size = mb, .data = { 1 }) };
	nd l1[] = { N(.us = 30), N(.type = CHAKRA_COMM_RECV_NODE, .cpu = 0, .src = 0, .dst = 1,
	                           .tag = 1, .size = mb, .data = { 1 }) };
	write_rank("late", 0, l0, 2, 1);
	write_rank("late", 1, l1, 2, 1);
	RUN_OK("late", NULL, &r);
	CHECK_EQ_U(r.finish[0], 21531);
	CHECK_EQ_U(r.finish[1], 30000);
	o = opts(CHAKRA_SIM_RULES_AUTO);
	o.model = CHAKRA_SIM_AWARE; /* two store-and-forward hops of 20031 */
	RUN_OK("late", &o, &r);
	CHECK_EQ_U(r.finish[0], 41062);
	CHECK_EQ_U(r.finish[1], 41062);
	/* Tags match modulo 5e8 (ASTRA-sim's native range); sizes must agree. */
	l0[1].tag = 500000001;
	write_rank("tag", 0, l0, 2, 1);
	l1[0].us = 0;
	write_rank("tag", 1, l1, 2, 1);
	RUN_OK("tag", NULL, &r);
	CHECK_EQ_U(r.finish[1], 21531);
	l0[1].tag = 1;
	l1[1].size = 64;
	write_rank("size", 0, l0, 2, 1);
	write_rank("size", 1, l1, 2, 1);
	CHECK(!run("size", NULL, &r) && strstr(err, "never matched"));
	/* The send waits for the all-reduce on the communication slot. */
	nd c0[] = { N(.type = CHAKRA_COMM_COLL_NODE, .comm_type = CHAKRA_ALL_REDUCE, .size = mb),
	            N(.type = CHAKRA_COMM_SEND_NODE, .cpu = 0, .src = 0, .dst = 1, .tag = 1, .size = mb) };
	nd c1[] = { N(.type = CHAKRA_COMM_COLL_NODE, .comm_type = CHAKRA_ALL_REDUCE, .size = mb),
	            N(.type = CHAKRA_COMM_RECV_NODE, .cpu = 0, .src = 0, .dst = 1, .tag = 1, .size = mb) };
	write_rank("slot", 0, c0, 2, 1);
	write_rank("slot", 1, c1, 2, 1);
	RUN_OK("slot", NULL, &r);
	CHECK_EQ_U(r.finish[0], 49151);
	CHECK_EQ_U(r.finish[1], 49151);
}

/* Roofline (roofline-enabled): GPU compute nodes take num_ops over
 * min(peak, bandwidth x intensity) (1e9 ops at 900 TFLOP/s: 1111 ns), CPU
 * nodes their recorded time, a GPU node without bytes no time (its child
 * then waits for the next event: node 3 runs after node 4). */
static void test_roofline(void)
{
	set_net(CHAKRA_SIM_SWITCH, 2);
	sys.roofline = 1;
	sys.peak_perf = 900;
	nd s[] = { N(.us = 7, .ops = 1000000000, .tensor = 1000000),
	           N(.us = 3, .cpu = 1, .ops = 1000000000, .tensor = 1000000, .data = { 1 }),
	           N(.us = 5, .ops = 100, .tensor = 0, .data = { 2 }),
	           N(.us = 2, .cpu = 1, .data = { 3 }), N(.us = 4, .cpu = 1, .data = { 2 }) };
	write_all("roof", s, 5, 1);
	res r;
	RUN_OK("roof", NULL, &r);
	CHECK_EQ_U(r.finish[0], 10111);
	CHECK_EQ_U(r.compute[0], 1111);
	CHECK_EQ_U(r.cpu[0], 9000);
	/* Without num_ops the recorded time, and a warning (ASTRA-sim stops). */
	nd t[] = { N(.us = 7) };
	write_all("roof-none", t, 1, 1);
	RUN_OK("roof-none", NULL, &r);
	CHECK_EQ_U(r.finish[0], 7000);
	CHECK(strstr(warning, "lack num_ops or tensor_size") != NULL);
	sys.roofline = 0;
}

/* Process group "0" is every NPU, whatever the group file says; other
 * groups come from the file. */
static void test_groups(void)
{
	set_net(CHAKRA_SIM_RING, 4);
	chakra_sim_groups gs;
	const char *text = "{\"0\": [0, 1], \"1\": [2, 3]}";
	CHECK(chakra_sim_groups_parse(&gs, "g.json", text, strlen(text), 4, err, sizeof err) == 0);
	nd s[] = { N(.type = CHAKRA_COMM_COLL_NODE, .comm_type = CHAKRA_ALL_REDUCE, .size = 1 << 20,
	             .pg = "0") };
	write_all("pg0", s, 1, 1);
	chakra_sim_options o = opts(CHAKRA_SIM_RULES_AUTO);
	o.groups = &gs;
	res r;
	RUN_OK("pg0", &o, &r);
	CHECK_EQ_U(r.finish[0], 43000); /* the 4-NPU ring all-reduce of 1 MiB */
	o.rules = CHAKRA_SIM_RULES_MODEL;
	CHECK(!run("pg0", &o, &r) && strstr(err, "not a member of communicator group '0'"));
	chakra_sim_groups_free(&gs);

	/* A group of fewer than all NPUs is one ring over its members in the
	 * listed order, with a ring when the implementation list has more than
	 * one entry, even where it is a whole dimension of the network (here
	 * dimension 1 of [Ring 2, Switch 4]; the model's rules run it on that
	 * dimension with its own algorithm, direct). */
	memset(&net, 0, sizeof net);
	net.ndims = 2;
	net.topo[0] = CHAKRA_SIM_RING;
	net.topo[1] = CHAKRA_SIM_SWITCH;
	net.size[0] = 2;
	net.size[1] = 4;
	net.bw[0] = 50;
	net.bw[1] = 25;
	net.latency[0] = 500;
	net.latency[1] = 700;
	CHECK_MSG(chakra_sim_network_check(&net, err, sizeof err) == 0, "%s", err);
	for (int k = 0; k < CHAKRA_SIM_IMPL_COUNT; k++) {
		sys.n_impl[k] = 2;
		sys.impl[k][0] = CHAKRA_SIM_ALG_RING;
		sys.impl[k][1] = CHAKRA_SIM_ALG_DIRECT;
	}
	const char *text2 = "{\"1\": [0, 2, 4, 6], \"2\": [1, 3, 5, 7]}";
	CHECK(chakra_sim_groups_parse(&gs, "g.json", text2, strlen(text2), 8, err, sizeof err) == 0);
	for (int r8 = 0; r8 < 8; r8++) {
		nd c[] = { N(.type = CHAKRA_COMM_COLL_NODE, .comm_type = CHAKRA_ALL_REDUCE,
		             .size = 1 << 20, .pg = r8 % 2 ? "2" : "1"),
		           N(.type = CHAKRA_COMM_COLL_NODE, .comm_type = CHAKRA_ALL_GATHER,
		             .size = 65536, .pg = r8 % 2 ? "2" : "1", .ctrl = { 1 }) };
		write_rank("sub", r8, c, 2, 1);
	}
	o = opts(CHAKRA_SIM_RULES_AUTO);
	o.groups = &gs;
	RUN_OK("sub", &o, &r);
	CHECK_EQ_U(r.finish[0], 118184);
	o.rules = CHAKRA_SIM_RULES_MODEL;
	RUN_OK("sub", &o, &r);
	CHECK(r.finish[0] != 118184);
	chakra_sim_groups_free(&gs);
	CHECK_MSG(chakra_sim_system_load(&sys, shared_path("data/astra-sim/system/Ring_4chunks.json"),
	                                 err, sizeof err) == 0, "%s", err);
}

/* A group of fewer than all NPUs runs on ASTRA-sim's ring of the group's
 * own ("local"), where every packet is ready 10 ns after its insertion
 * whatever endpoint-delay says, and direct's rounds are P + (n-1)P packets
 * long instead of 2P (so an all-reduce reduces every packet after the
 * first P). The model's rules keep endpoint-delay and their own plan. */
static void test_group_ring(void)
{
	chakra_sim_groups gs;
	res r;
	/* [Switch 2, Switch 2] (a tensor x data layout), groups {0, 2} and
	 * {1, 3}: dimension 1, but a ring of two members here. 1 MiB in one
	 * chunk: messages of 512 KiB, D = floor(2 x 500 + 524288 / 53.687)
	 * = 10765, one reduction r = 3 x trunc(524288 / 1600) = 981; ring
	 * all-reduce on 2 = 2D + 3e + r = 22541 with e = 10, at endpoint delay
	 * 0 and 100 alike (the model's rules: 22511 and 22811). */
	memset(&net, 0, sizeof net);
	net.ndims = 2;
	for (int d = 0; d < 2; d++) {
		net.topo[d] = CHAKRA_SIM_SWITCH;
		net.size[d] = 2;
		net.bw[d] = 50;
		net.latency[d] = 500;
	}
	CHECK_MSG(chakra_sim_network_check(&net, err, sizeof err) == 0, "%s", err);
	sys.splits = 1;
	for (int k = 0; k < CHAKRA_SIM_IMPL_COUNT; k++) {
		sys.n_impl[k] = 2;
		sys.impl[k][0] = sys.impl[k][1] = CHAKRA_SIM_ALG_RING;
	}
	const char *t1 = "{\"1\": [0, 2], \"2\": [1, 3]}";
	CHECK(chakra_sim_groups_parse(&gs, "g.json", t1, strlen(t1), 4, err, sizeof err) == 0);
	for (int k = 0; k < 4; k++) {
		nd c[] = { N(.type = CHAKRA_COMM_COLL_NODE, .comm_type = CHAKRA_ALL_REDUCE,
		             .size = 1 << 20, .pg = k % 2 ? "2" : "1") };
		write_rank("gring", k, c, 1, 0);
	}
	static const uint64_t delay[] = { 0, 100 }, model[] = { 22511, 22811 };
	for (int i = 0; i < 2; i++) {
		sys.endpoint_delay = delay[i];
		chakra_sim_options o = opts(CHAKRA_SIM_RULES_ASTRA_SIM);
		o.groups = &gs;
		RUN_OK("gring", &o, &r);
		for (int k = 0; k < 4; k++)
			CHECK_EQ_U(r.finish[k], 22541);
		o.rules = CHAKRA_SIM_RULES_MODEL;
		RUN_OK("gring", &o, &r);
		CHECK_EQ_U(r.finish[0], model[i]);
	}
	chakra_sim_groups_free(&gs);

	/* Direct on one Switch of 8, groups of 4, endpoint delay 0: messages
	 * of 256 KiB, D = floor(500 x 2 + 262144 / 53.687) = 5882, reduction
	 * r = 3 x 163 = 489. Unaware: the first three messages leave at 10 and
	 * arrive at 5892; their packets are reduced (the first round's last
	 * 9), ready at 6391, when the second half leaves; it arrives at 12273,
	 * and its three packets, reduced too (still the first round), are ready
	 * at 12772 (rounds of 2P: not reduced, 12283; the model's rules, e = 0:
	 * 12253). Aware: each NPU's up link serialises its three messages
	 * (4882 each, 5382 to the switch, 5382 down): arrivals at 10774, 15656,
	 * 20538; the second half leaves at 20538 + 10 + 489 = 21037 and
	 * arrives at 41565; ready at 42064. */
	set_net(CHAKRA_SIM_SWITCH, 8);
	sys.splits = 1;
	sys.endpoint_delay = 0;
	for (int k = 0; k < CHAKRA_SIM_IMPL_COUNT; k++) {
		sys.n_impl[k] = 1;
		sys.impl[k][0] = CHAKRA_SIM_ALG_DIRECT;
	}
	const char *t2 = "{\"1\": [0, 1, 2, 3], \"2\": [4, 5, 6, 7]}";
	CHECK(chakra_sim_groups_parse(&gs, "g.json", t2, strlen(t2), 8, err, sizeof err) == 0);
	for (int k = 0; k < 8; k++) {
		nd c[] = { N(.type = CHAKRA_COMM_COLL_NODE, .comm_type = CHAKRA_ALL_REDUCE,
		             .size = 1 << 20, .pg = k < 4 ? "1" : "2") };
		write_rank("gdirect", k, c, 1, 0);
	}
	chakra_sim_options o = opts(CHAKRA_SIM_RULES_ASTRA_SIM);
	o.groups = &gs;
	RUN_OK("gdirect", &o, &r);
	for (int k = 0; k < 4; k++)
		CHECK_EQ_U(r.finish[k], 12772);
	o.model = CHAKRA_SIM_AWARE;
	RUN_OK("gdirect", &o, &r);
	for (int k = 0; k < 4; k++)
		CHECK_EQ_U(r.finish[k], 42064);
	o = opts(CHAKRA_SIM_RULES_MODEL);
	o.groups = &gs;
	RUN_OK("gdirect", &o, &r);
	CHECK_EQ_U(r.finish[0], 12253);
	chakra_sim_groups_free(&gs);
	CHECK_MSG(chakra_sim_system_load(&sys, shared_path("data/astra-sim/system/Ring_4chunks.json"),
	                                 err, sizeof err) == 0, "%s", err);
}

/* --streams: a slot per CPU thread and per GPU stream, instead of one each. */
static void test_streams(void)
{
	set_net(CHAKRA_SIM_SWITCH, 2);
	nd s[] = { N(.us = 5, .cpu = 1, .tid = 1), N(.us = 5, .cpu = 1, .tid = 2),
	           N(.us = 3, .cpu = 0, .stream = 7), N(.us = 3, .cpu = 0, .stream = 8) };
	write_all("streams", s, 4, 1);
	res r;
	RUN_OK("streams", NULL, &r);
	CHECK_EQ_U(r.finish[0], 10000);
	chakra_sim_options o = opts(CHAKRA_SIM_RULES_AUTO);
	o.streams = 1;
	RUN_OK("streams", &o, &r);
	CHECK_EQ_U(r.finish[0], 5000);
	CHECK_EQ_U(r.compute[0], 6000);
	CHECK_EQ_U(r.cpu[0], 10000);
}

/* A collective marked is_cpu_op (ASTRA-sim refuses it and never finishes
 * the rank) runs as GPU communication, with a warning. */
static void test_cpu_collective(void)
{
	set_net(CHAKRA_SIM_RING, 4);
	nd s[] = { N(.type = CHAKRA_COMM_COLL_NODE, .cpu = 1, .comm_type = CHAKRA_ALL_REDUCE,
	             .size = 1 << 20), N(.us = 1, .cpu = 1) };
	write_all("cpucoll", s, 2, 1);
	res r;
	RUN_OK("cpucoll", NULL, &r);
	CHECK_EQ_U(r.finish[0], 43000);
	CHECK(strstr(warning, "4 communication node(s) are marked is_cpu_op") != NULL);
}

/* Collectives ASTRA-sim does not run (it stops on them): this simulator's
 * model, with a warning. Memory nodes take no time. */
static void test_other_nodes(void)
{
	set_net(CHAKRA_SIM_RING, 4);
	nd s[] = { N(.type = CHAKRA_COMM_COLL_NODE, .comm_type = CHAKRA_REDUCE, .size = 1 << 20),
	           N(.type = CHAKRA_MEM_LOAD_NODE, .cpu = 0, .data = { 1 }), N(.us = 1, .cpu = 1) };
	write_all("reduce", s, 3, 1);
	res r;
	RUN_OK("reduce", NULL, &r);
	CHECK(r.finish[0] > 1000 && strstr(warning, "4 collective(s) of a type ASTRA-sim does not "
	                                            "run (first: rank 0 node 0)"));
}

/* FeederV3 knows every node of a file, so the feeders read the whole trace
 * ahead when the memory budget holds it; when it does not, a warning. */
static void test_read_ahead(void)
{
	set_net(CHAKRA_SIM_SWITCH, 2);
	enum { M = 30000 };
	nd *s = calloc(M, sizeof *s);
	CHECK(s != NULL);
	if (!s)
		return;
	for (int i = 0; i < M; i++)
		s[i] = N(.us = 1, .cpu = i % 2, .data = { i ? i : 0 });
	write_all("long", s, M, 1);
	free(s);
	char prefix[512];
	snprintf(prefix, sizeof prefix, "%s/long", dir);
	chakra_sim *sim;
	CHECK(chakra_sim_new(&sim, &net, &sys, NULL) == 0);
	CHECK(chakra_sim_run_prefix(sim, prefix) == 0 && chakra_sim_finish(sim) == (uint64_t)M * 1000);
	CHECK(chakra_sim_window(sim, NULL, NULL) == UINT64_MAX && chakra_sim_warning(sim) == NULL);
	chakra_sim_free(sim);
	chakra_sim_options o = opts(CHAKRA_SIM_RULES_AUTO);
	o.memory = 1 << 20;
	CHECK(chakra_sim_new(&sim, &net, &sys, &o) == 0);
	CHECK(chakra_sim_run_prefix(sim, prefix) == 0 && chakra_sim_finish(sim) == (uint64_t)M * 1000);
	CHECK(chakra_sim_window(sim, NULL, NULL) < M && chakra_sim_warning(sim) &&
	      strstr(chakra_sim_warning(sim), "larger than the read-ahead the memory budget allows"));
	chakra_sim_free(sim);
}

/* Options: older versions still served (AUTO rules); unknown values refused. */
static void test_options(void)
{
	set_net(CHAKRA_SIM_SWITCH, 2);
	chakra_sim_options o;
	CHECK(chakra_sim_options_init(&o, 2) == 0 && o.version == 2);
	chakra_sim *s;
	CHECK(chakra_sim_new(&s, &net, &sys, &o) == 0);
	char prefix[512];
	snprintf(prefix, sizeof prefix, "%s/slots", dir);
	CHECK(chakra_sim_run_prefix(s, prefix) == 0 && chakra_sim_finish(s) == 10000);
	chakra_sim_free(s);
	CHECK(chakra_sim_options_init(&o, 5) == CHAKRA_EINVAL);
	CHECK(chakra_sim_options_init(&o, 4) == 0 && o.no_symmetry == 0);
	CHECK(chakra_sim_options_init(&o, 3) == 0 && o.rules == CHAKRA_SIM_RULES_AUTO);
	o.rules = (chakra_sim_rules)7;
	CHECK(chakra_sim_new(&s, &net, &sys, &o) == CHAKRA_EINVAL &&
	      strstr(chakra_sim_errmsg(s), "unknown rules"));
	chakra_sim_free(s);
	o.rules = CHAKRA_SIM_RULES_AUTO;
	o.durations = (chakra_sim_durations)9;
	CHECK(chakra_sim_new(&s, &net, &sys, &o) == CHAKRA_EINVAL);
	chakra_sim_free(s);
}

int main(void)
{
	need_data("data/astra-sim/system");
	snprintf(dir, sizeof dir, "/tmp/chakra-sim-rules-XXXXXX");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_slots();
	test_ascending_ids();
	test_durations();
	test_ctrl_deps();
	test_zero_time();
	test_broadcast();
	test_p2p();
	test_roofline();
	test_groups();
	test_group_ring();
	test_streams();
	test_cpu_collective();
	test_other_nodes();
	test_read_ahead();
	test_options();
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	return check_done();
}
