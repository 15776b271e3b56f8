/* SPDX-License-Identifier: Apache-2.0 */
/* The symmetry reduction through the library (docs/sim.md, "Symmetry"):
 * classes from copies, links and rank maps, split by start delays and
 * compute scales; a ring holding two classes and send/recv between their
 * representatives; every per-NPU result, the event callbacks of the NPUs
 * simulated and finish_cb for every NPU as the full simulation gives them;
 * the fallbacks (and their reasons) and the errors, which are the full
 * simulation's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef CHAKRA_EXPERIMENTAL
#define CHAKRA_EXPERIMENTAL
#endif
#include "chakra/experimental/sim.h"
#include "check.h"

static char dir[] = "/tmp/chakra-sim-sym-XXXXXX";

/* A trace: compute (us), then a send to peer and a receive from peer2
 * (when >= 0), then an all-reduce of `bytes` (over pg when set), then
 * compute. */
static void trace(const char *path, uint64_t us, int64_t peer, int64_t peer2, uint64_t bytes,
                  const char *pg)
{
	chakra_writer_options wo = CHAKRA_WRITER_OPTIONS_INIT;
	wo.overwrite = 1;
	chakra_writer *w = NULL;
	CHECK(chakra_writer_open(&w, path, &wo) == 0);
	CHECK(chakra_writer_write_metadata(w, "0.0.4", NULL) == 0);
	chakra_builder *b = chakra_builder_new();
	uint64_t id = 0, last;
	chakra_builder_set_id(b, id);
	chakra_builder_set_name(b, "c0", (size_t)-1);
	chakra_builder_set_type(b, CHAKRA_COMP_NODE);
	chakra_builder_attr_uint(b, "duration_nanos", CHAKRA_ATTR_UINT64, us * 1000);
	CHECK(chakra_writer_write_node(w, b) == 0);
	last = id++;
	if (peer >= 0) {
		chakra_builder_reset(b);
		chakra_builder_set_id(b, id++);
		chakra_builder_set_name(b, "send", (size_t)-1);
		chakra_builder_set_type(b, CHAKRA_COMM_SEND_NODE);
		chakra_builder_add_data_dep(b, last);
		chakra_builder_attr_int(b, "comm_dst", CHAKRA_ATTR_INT32, peer);
		chakra_builder_attr_int(b, "comm_size", CHAKRA_ATTR_INT64, 1 << 20);
		chakra_builder_attr_int(b, "comm_tag", CHAKRA_ATTR_INT32, 7);
		CHECK(chakra_writer_write_node(w, b) == 0);
	}
	if (peer2 >= 0) {
		chakra_builder_reset(b);
		chakra_builder_set_id(b, id);
		chakra_builder_set_name(b, "recv", (size_t)-1);
		chakra_builder_set_type(b, CHAKRA_COMM_RECV_NODE);
		chakra_builder_add_data_dep(b, last);
		chakra_builder_attr_int(b, "comm_src", CHAKRA_ATTR_INT32, peer2);
		chakra_builder_attr_int(b, "comm_size", CHAKRA_ATTR_INT64, 1 << 20);
		chakra_builder_attr_int(b, "comm_tag", CHAKRA_ATTR_INT32, 7);
		CHECK(chakra_writer_write_node(w, b) == 0);
		last = id++;
	}
	chakra_builder_reset(b);
	chakra_builder_set_id(b, id);
	chakra_builder_set_name(b, "ar", (size_t)-1);
	chakra_builder_set_type(b, CHAKRA_COMM_COLL_NODE);
	chakra_builder_add_data_dep(b, last);
	chakra_builder_attr_int(b, "comm_type", CHAKRA_ATTR_INT64, CHAKRA_ALL_REDUCE);
	chakra_builder_attr_int(b, "comm_size", CHAKRA_ATTR_INT64, (int64_t)bytes);
	if (pg)
		chakra_builder_attr_string(b, "pg_name", CHAKRA_ATTR_STRING, pg, (size_t)-1);
	CHECK(chakra_writer_write_node(w, b) == 0);
	last = id++;
	chakra_builder_reset(b);
	chakra_builder_set_id(b, id);
	chakra_builder_set_name(b, "c1", (size_t)-1);
	chakra_builder_set_type(b, CHAKRA_COMP_NODE);
	chakra_builder_add_data_dep(b, last);
	chakra_builder_attr_uint(b, "duration_nanos", CHAKRA_ATTR_UINT64, 3000);
	CHECK(chakra_writer_write_node(w, b) == 0);
	chakra_builder_free(b);
	CHECK(chakra_writer_finish(w) == 0);
	chakra_writer_close(w);
}

static void put(const char *name, const char *text)
{
	char p[600];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	fputs(text, f);
	fclose(f);
}

static chakra_sim_network net;
static chakra_sim_system sys;

static void config(const char *topo, uint32_t d0, uint32_t d1)
{
	char text[256], err[512];
	snprintf(text, sizeof text, "topology: [ %s, %s ]\nnpus_count: [ %u, %u ]\nbandwidth: [ 50, 25 ]\n"
	         "latency: [ 500, 700 ]\n", topo, topo, d0, d1);
	CHECK(chakra_sim_network_parse(&net, "net", text, strlen(text), err, sizeof err) == 0);
	static const char s[] =
		"{\"endpoint-delay\": 10, \"active-chunks-per-dimension\": 1, \"preferred-dataset-splits\": 2,"
		" \"all-reduce-implementation\": [\"ring\", \"ring\"], \"all-gather-implementation\": [\"ring\", \"ring\"],"
		" \"reduce-scatter-implementation\": [\"ring\", \"ring\"], \"all-to-all-implementation\": [\"ring\", \"ring\"],"
		" \"collective-optimization\": \"localBWAware\", \"local-mem-bw\": 1600}";
	CHECK(chakra_sim_system_parse(&sys, "sys", s, sizeof s - 1, err, sizeof err) == 0);
}

/* What a run leaves: results, the node events and finish_cb calls. */
typedef struct seen {
	char ev[64][96];            /* the first events of NPU `watch` */
	int nev, finished, watch;
	uint32_t finish_npus[64];
} seen;

static void on_event(void *data, int what, uint32_t npu, uint64_t cycle, const chakra_node *n)
{
	seen *s = data;
	if (npu == (uint32_t)s->watch && s->nev < 64)
		snprintf(s->ev[s->nev++], sizeof s->ev[0], "%d %llu %llu", what, (unsigned long long)cycle,
		         (unsigned long long)chakra_node_id(n));
}

static void on_finish(void *data, uint32_t npu, const chakra_sim_npu_result *r)
{
	seen *s = data;
	(void)r;
	if (s->finished < 64)
		s->finish_npus[s->finished] = npu;
	s->finished++;
}

/* Runs prefix both ways; the same results, events of NPU watch and finish
 * calls. Returns the classes the reduction simulated, its note in why. */
static uint32_t both(const char *prefix, chakra_sim_model model, const uint64_t *delay,
                     const double *scale, const chakra_sim_groups *groups, int watch, char *why,
                     size_t whylen)
{
	seen a, b;
	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	a.watch = b.watch = watch;
	chakra_sim_options o = CHAKRA_SIM_OPTIONS_INIT;
	o.model = model;
	o.start_delay = delay;
	o.compute_scale = scale;
	o.groups = groups;
	o.event_cb = on_event;
	o.finish_cb = on_finish;
	o.data = &a;
	chakra_sim *s = NULL, *f = NULL;
	CHECK(chakra_sim_new(&s, &net, &sys, &o) == 0);
	o.no_symmetry = 1;
	o.data = &b;
	CHECK(chakra_sim_new(&f, &net, &sys, &o) == 0);
	char p[600];
	snprintf(p, sizeof p, "%s/%s", dir, prefix);
	int rs = chakra_sim_run_prefix(s, p), rf = chakra_sim_run_prefix(f, p);
	CHECK_MSG(rs == rf, "%s: %d vs %d (%s | %s)", prefix, rs, rf, chakra_sim_errmsg(s),
	          chakra_sim_errmsg(f));
	uint32_t k = chakra_sim_classes(s);
	snprintf(why, whylen, "%s", chakra_sim_symmetry(s) ? chakra_sim_symmetry(s) : "");
	if (rs < 0) {
		CHECK_MSG(!strcmp(chakra_sim_errmsg(s), chakra_sim_errmsg(f)), "%s | %s",
		          chakra_sim_errmsg(s), chakra_sim_errmsg(f));
		snprintf(why, whylen, "error: %s", chakra_sim_errmsg(s));
	} else {
		CHECK_EQ_U(chakra_sim_finish(s), chakra_sim_finish(f));
		CHECK_EQ_U(chakra_sim_nodes(s), chakra_sim_nodes(f));
		CHECK(chakra_sim_rules_used(s) == chakra_sim_rules_used(f));
		for (uint32_t r = 0; r < chakra_sim_npus(s); r++)
			CHECK_MSG(!memcmp(chakra_sim_npu(s, r), chakra_sim_npu(f, r),
			                  sizeof(chakra_sim_npu_result)), "%s: NPU %u differs", prefix, r);
		CHECK_EQ_U(a.finished, chakra_sim_npus(s));
		CHECK_EQ_U(b.finished, chakra_sim_npus(s));
		CHECK_EQ_U(chakra_sim_classes(f), chakra_sim_npus(f));
		CHECK(chakra_sim_simulated(f, 1) && chakra_sim_class_of(f, 3) == 3);
		if (chakra_sim_simulated(s, (uint32_t)watch)) {
			CHECK_EQ_U(a.nev, b.nev);
			for (int i = 0; i < a.nev && i < b.nev; i++)
				CHECK_MSG(!strcmp(a.ev[i], b.ev[i]), "%s event %d: %s vs %s", prefix, i, a.ev[i],
				          b.ev[i]);
		} else {
			CHECK_EQ_U(a.nev, 0); /* (no events of NPUs not simulated) */
		}
	}
	chakra_sim_free(s);
	chakra_sim_free(f);
	return k;
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	char p[600], q[600], why[600];
	config("Switch", 2, 4);

	/* Copies and links of one trace: one class, NPU 0 simulated. */
	snprintf(p, sizeof p, "%s/one.et", dir);
	trace(p, 20, -1, -1, 1 << 20, NULL);
	for (int r = 0; r < 8; r++) {
		snprintf(q, sizeof q, "%s/copy.%d.et", dir, r);
		trace(q, 20, -1, -1, 1 << 20, NULL);
		snprintf(q, sizeof q, "%s/link.%d.et", dir, r);
		CHECK(symlink(p, q) == 0);
	}
	CHECK_EQ_U(both("copy", CHAKRA_SIM_UNAWARE, NULL, NULL, NULL, 0, why, sizeof why), 1);
	CHECK_EQ_U(both("link", CHAKRA_SIM_AWARE, NULL, NULL, NULL, 0, why, sizeof why), 1);
	/* A straggler and a slower rank make classes of their own. */
	uint64_t delay[8] = { 0, 0, 0, 5000, 0, 0, 0, 0 };
	double scale[8] = { 1, 1, 1, 1, 1, 2.5, 1, 1 };
	uint32_t k = both("copy", CHAKRA_SIM_UNAWARE, delay, NULL, NULL, 3, why, sizeof why);
	CHECK_MSG(k == 2 || (k == 8 && strstr(why, "not symmetric")), "%u: %s", k, why);
	k = both("copy", CHAKRA_SIM_UNAWARE, NULL, scale, NULL, 0, why, sizeof why);
	CHECK_MSG(k == 2 || (k == 8 && strstr(why, "not symmetric")), "%u: %s", k, why);
	/* A different trace on one rank: two classes. */
	snprintf(q, sizeof q, "%s/copy.6.et", dir);
	trace(q, 40, -1, -1, 1 << 20, NULL);
	k = both("copy", CHAKRA_SIM_UNAWARE, NULL, NULL, NULL, 6, why, sizeof why);
	CHECK_MSG(k == 2 || (k == 8 && strstr(why, "not symmetric")), "%u: %s", k, why);

	/* Two classes in a rank map: even ranks send to the odd rank beside
	 * them, which receives from it; the rings of dimension 0 hold one rank
	 * of each class, their representatives 0 and 1 together. */
	snprintf(p, sizeof p, "%s/ev.et", dir);
	trace(p, 10, 1, -1, 1 << 16, NULL);
	snprintf(p, sizeof p, "%s/od.et", dir);
	trace(p, 10, -1, 0, 1 << 16, NULL);
	put("pair.ranks", "chakra-rank-map 1\nranks 8\nclass 0 ev.et peers 1\nclass 1 od.et peers 0\n"
	                  "0 0\n1 1\n2 0 peers 3\n3 1 peers 2\n4 0 peers 5\n5 1 peers 4\n6 0 peers 7\n"
	                  "7 1 peers 6\n");
	CHECK_MSG(both("pair", CHAKRA_SIM_UNAWARE, NULL, NULL, NULL, 1, why, sizeof why) == 2, "%s",
	          why);
	CHECK_EQ_U(both("pair", CHAKRA_SIM_AWARE, NULL, NULL, NULL, 1, why, sizeof why), 8);
	CHECK_MSG(strstr(why, "not symmetric: rank 0 sends or receives"), "%s", why);
	/* Rank 2 sends to 5 and 4 to 3: other pairs, at the same distances
	 * (congestion-unaware, the first dimension that differs): alike. */
	put("pair.ranks", "chakra-rank-map 1\nranks 8\nclass 0 ev.et peers 1\nclass 1 od.et peers 0\n"
	                  "0 0\n1 1\n2 0 peers 5\n3 1 peers 4\n4 0 peers 3\n5 1 peers 2\n6 0 peers 7\n"
	                  "7 1 peers 6\n");
	CHECK_MSG(both("pair", CHAKRA_SIM_UNAWARE, NULL, NULL, NULL, 1, why, sizeof why) == 2, "%s",
	          why);
	/* Peers that do not pair up as the representatives do (3 waits for 6,
	 * which sends to 7): the full simulation's stall, word for word. */
	put("pair.ranks", "chakra-rank-map 1\nranks 8\nclass 0 ev.et peers 1\nclass 1 od.et peers 0\n"
	                  "0 0\n1 1\n2 0 peers 3\n3 1 peers 6\n4 0 peers 5\n5 1 peers 4\n6 0 peers 7\n"
	                  "7 1 peers 2\n");
	both("pair", CHAKRA_SIM_UNAWARE, NULL, NULL, NULL, 1, why, sizeof why);
	CHECK_MSG(strstr(why, "error: rank 0 node 2 (ar): the collective never completes"), "%s", why);
	/* A peer that is not its class's representative. */
	put("pair.ranks", "chakra-rank-map 1\nranks 8\nclass 0 ev.et peers 1\nclass 1 od.et peers 0\n"
	                  "0 0 peers 3\n1 1 peers 2\n2 0 peers 1\n3 1 peers 0\n4 0 peers 5\n5 1 peers 4\n"
	                  "6 0 peers 7\n7 1 peers 6\n");
	CHECK_EQ_U(both("pair", CHAKRA_SIM_UNAWARE, NULL, NULL, NULL, 1, why, sizeof why), 8);
	CHECK_MSG(strstr(why, "which is not its class's representative"), "%s", why);

	/* Groups: each rank's own group of its dimension-1 ring, by name. */
	chakra_sim_groups gs;
	char err[512];
	static const char gtext[] = "{\"10\": [0, 2, 4, 6], \"11\": [1, 3, 5, 7]}";
	CHECK(chakra_sim_groups_parse(&gs, "g", gtext, sizeof gtext - 1, 8, err, sizeof err) == 0);
	snprintf(p, sizeof p, "%s/grp.et", dir);
	trace(p, 10, -1, -1, 1 << 20, "10");
	put("grp.ranks", "chakra-rank-map 1\nranks 8\nclass 0 grp.et groups 10\n0 0\n"
	                 "1 0 groups 11\n2 0\n3 0 groups 11\n4 0\n5 0 groups 11\n6 0\n7 0 groups 11\n");
	CHECK_MSG(both("grp", CHAKRA_SIM_UNAWARE, NULL, NULL, &gs, 0, why, sizeof why) == 1, "%s", why);
	CHECK_MSG(both("grp", CHAKRA_SIM_AWARE, NULL, NULL, &gs, 0, why, sizeof why) == 1, "%s", why);
	/* A rank naming a group it is not in: the full simulation's error. */
	put("grp.ranks", "chakra-rank-map 1\nranks 8\nclass 0 grp.et groups 10\n0 0\n"
	                 "1 0 groups 10\n2 0\n3 0 groups 11\n4 0\n5 0 groups 11\n6 0\n7 0 groups 11\n");
	both("grp", CHAKRA_SIM_UNAWARE, NULL, NULL, &gs, 0, why, sizeof why);
	CHECK_MSG(strstr(why, "error: rank 1 node 1: rank is not a member of communicator group '10'"),
	          "%s", why);
	chakra_sim_groups_free(&gs);

	/* Every NPU its own trace: nothing to reduce, and it is said. */
	for (int r = 0; r < 8; r++) {
		snprintf(q, sizeof q, "%s/own.%d.et", dir, r);
		trace(q, 10 + (uint64_t)r, -1, -1, 1 << 20, NULL);
	}
	CHECK_EQ_U(both("own", CHAKRA_SIM_UNAWARE, NULL, NULL, NULL, 0, why, sizeof why), 8);
	CHECK_MSG(strstr(why, "every NPU runs a trace of its own"), "%s", why);

	/* The accessors before a run, and on the full path. */
	chakra_sim *s = NULL;
	CHECK(chakra_sim_new(&s, &net, &sys, NULL) == 0);
	CHECK(chakra_sim_classes(s) == 0 && chakra_sim_symmetry(s) == NULL);
	CHECK(chakra_sim_class_of(s, 8) == UINT32_MAX && chakra_sim_representative(s, 99) == UINT32_MAX);
	snprintf(p, sizeof p, "%s/copy", dir);
	CHECK(chakra_sim_run_prefix(s, p) == 0);
	CHECK(chakra_sim_representative(s, 5) == 0 || chakra_sim_classes(s) == 8);
	chakra_sim_free(s);
	char cmd[700];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	return check_done();
}
