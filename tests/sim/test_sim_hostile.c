/* SPDX-License-Identifier: Apache-2.0 */
/* The simulator against hostile inputs: times saturate and the
 * run is refused instead of wrapping (latency 1e300, bandwidth 1e-300,
 * duration_micros 2^64-1, sums of large durations, a start delay of
 * 2^64-1); deeply nested or oversized configuration files are refused
 * quickly; a collective whose bookkeeping exceeds the memory budget is
 * refused with the budget named; node types outside NodeType are reported;
 * a send nobody receives is an error, as a receive nobody sends to is. */
#ifndef CHAKRA_EXPERIMENTAL
#define CHAKRA_EXPERIMENTAL
#endif
#include "chakra/experimental/sim.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static char dir[256], err[512];
static chakra_sim_network net;
static chakra_sim_system sys;

typedef struct spec {
	int type;
	uint64_t us;
	int64_t ns;          /* duration_nanos, -1 = none */
	int64_t peer, tag;   /* send/recv */
} spec;

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
		chakra_builder_set_name(b, "n", (size_t)-1);
		chakra_builder_set_type(b, s[i].type);
		if (i)
			chakra_builder_add_data_dep(b, (uint64_t)i - 1);
		chakra_builder_set_duration_micros(b, s[i].us);
		if (s[i].ns >= 0)
			chakra_builder_attr_uint(b, "duration_nanos", CHAKRA_ATTR_UINT64, (uint64_t)s[i].ns);
		if (s[i].type == CHAKRA_COMM_SEND_NODE)
			chakra_builder_attr_int(b, "comm_dst", CHAKRA_ATTR_INT64, s[i].peer);
		if (s[i].type == CHAKRA_COMM_RECV_NODE)
			chakra_builder_attr_int(b, "comm_src", CHAKRA_ATTR_INT64, s[i].peer);
		if (s[i].type == CHAKRA_COMM_SEND_NODE || s[i].type == CHAKRA_COMM_RECV_NODE) {
			chakra_builder_attr_int(b, "comm_tag", CHAKRA_ATTR_INT64, s[i].tag);
			chakra_builder_attr_int(b, "comm_size", CHAKRA_ATTR_INT64, 4096);
		}
		CHECK(chakra_writer_write_node(w, b) == 0);
	}
	CHECK(chakra_writer_finish(w) == 0);
	chakra_writer_close(w);
	chakra_builder_free(b);
}

static void set_net(const char *text)
{
	CHECK_MSG(chakra_sim_network_parse(&net, "net.yml", text, strlen(text), err, sizeof err) == 0,
	          "%s", err);
}

/* Run: the finish, or UINT64_MAX with err set. */
static uint64_t run(const char *name, const chakra_sim_options *base, const char **warning)
{
	char prefix[512];
	snprintf(prefix, sizeof prefix, "%s/%s", dir, name);
	chakra_sim_options o = CHAKRA_SIM_OPTIONS_INIT;
	if (base)
		o = *base;
	chakra_sim *s = NULL;
	int rc = chakra_sim_new(&s, &net, &sys, &o);
	if (rc == 0)
		rc = chakra_sim_run_prefix(s, prefix);
	uint64_t f = rc < 0 ? UINT64_MAX : chakra_sim_finish(s);
	snprintf(err, sizeof err, "%s", rc < 0 ? chakra_sim_errmsg(s) : "");
	static char warn[512];
	if (warning) {
		*warning = NULL;
		if (rc == 0 && chakra_sim_warning(s)) {
			snprintf(warn, sizeof warn, "%s", chakra_sim_warning(s));
			*warning = warn;
		}
	}
	chakra_sim_free(s);
	return f;
}

static const char RING4[] = "topology: [ Ring ]\nnpus_count: [ 4 ]\nbandwidth: [ 50 ]\n"
                            "latency: [ 500 ]\n";

static void test_saturation(void)
{
	/* A send and a receive around the ring: its delay from the network. */
	for (int r = 0; r < 4; r++) {
		spec s[2] = { { CHAKRA_COMM_SEND_NODE, 0, -1, (r + 1) % 4, 1 },
		              { CHAKRA_COMM_RECV_NODE, 0, -1, (r + 3) % 4, 1 } };
		write_rank("p2p", r, s, 2);
	}
	set_net(RING4);
	CHECK(run("p2p", NULL, NULL) != UINT64_MAX);
	/* Latency 1e300 used to give fewer cycles than the baseline. */
	set_net("topology: [ Ring ]\nnpus_count: [ 4 ]\nbandwidth: [ 50 ]\nlatency: [ 1e300 ]\n");
	CHECK_MSG(run("p2p", NULL, NULL) == UINT64_MAX && strstr(err, "2^64-1"), "%s", err);
	set_net("topology: [ Ring ]\nnpus_count: [ 4 ]\nbandwidth: [ 1e-300 ]\nlatency: [ 5 ]\n");
	CHECK_MSG(run("p2p", NULL, NULL) == UINT64_MAX && strstr(err, "2^64-1"), "%s", err);
	chakra_sim_options ao = CHAKRA_SIM_OPTIONS_INIT;
	ao.model = CHAKRA_SIM_AWARE;
	CHECK_MSG(run("p2p", &ao, NULL) == UINT64_MAX && strstr(err, "2^64-1"), "%s", err);

	/* duration_micros = 2^64-1 used to give 0 cycles. */
	set_net(RING4);
	for (int r = 0; r < 4; r++) {
		spec s[1] = { { CHAKRA_COMP_NODE, UINT64_MAX, -1, 0, 0 } };
		write_rank("huge", r, s, 1);
	}
	CHECK_MSG(run("huge", NULL, NULL) == UINT64_MAX && strstr(err, "2^64-1"), "%s", err);
	/* Durations of 2^63-1, 2^63-1 and 2 ns: their sum passes 2^64-1 (it
	 * used to wrap). */
	for (int r = 0; r < 4; r++) {
		spec s[3] = { { CHAKRA_COMP_NODE, 0, INT64_MAX, 0, 0 },
		              { CHAKRA_COMP_NODE, 0, INT64_MAX, 0, 0 },
		              { CHAKRA_COMP_NODE, 0, 2, 0, 0 } };
		write_rank("sum", r, s, 3);
	}
	CHECK_MSG(run("sum", NULL, NULL) == UINT64_MAX && strstr(err, "2^64-1"), "%s", err);
	/* Large but representable: exact, to the nanosecond. */
	for (int r = 0; r < 4; r++) {
		spec s[2] = { { CHAKRA_COMP_NODE, 0, ((int64_t)1 << 62) + 1, 0, 0 },
		              { CHAKRA_COMP_NODE, 0, ((int64_t)1 << 62) - 1, 0, 0 } };
		write_rank("big", r, s, 2);
	}
	CHECK_EQ_U(run("big", NULL, NULL), (uint64_t)1 << 63);
	for (int r = 0; r < 4; r++) {
		spec s[2] = { { CHAKRA_COMP_NODE, 0, INT64_MAX, 0, 0 },
		              { CHAKRA_COMP_NODE, 0, INT64_MAX, 0, 0 } };
		write_rank("max", r, s, 2);
	}
	CHECK_EQ_U(run("max", NULL, NULL), UINT64_MAX - 1); /* 2 (2^63 - 1): the largest */
	/* A start delay of 2^64-1 made rank 0 finish earlier. */
	uint64_t delay[4] = { UINT64_MAX, 0, 0, 0 };
	chakra_sim_options o = CHAKRA_SIM_OPTIONS_INIT;
	o.start_delay = delay;
	CHECK_MSG(run("big", &o, NULL) == UINT64_MAX && strstr(err, "2^64-1"), "%s", err);
	delay[0] = UINT64_MAX - ((uint64_t)1 << 63); /* just fits */
	CHECK_EQ_U(run("big", &o, NULL), UINT64_MAX - ((uint64_t)1 << 63) + ((uint64_t)1 << 63));
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void test_configs(void)
{
	/* 400 KB of nested flow sequences under an unknown key: libyaml's
	 * cost grows with the square of the depth (it took 101 s). */
	size_t depth = 200000, len = 0;
	char *t = malloc(2 * depth + 64);
	CHECK(t != NULL);
	if (!t)
		return;
	len += (size_t)sprintf(t, "junk: ");
	memset(t + len, '[', depth);
	len += depth;
	memset(t + len, ']', depth);
	len += depth;
	double t0 = now();
	CHECK(chakra_sim_network_parse(&net, "deep.yml", t, len, err, sizeof err) == CHAKRA_ECONFIG &&
	      strstr(err, "deep.yml:1: nested deeper than 64"));
	/* Block-style nesting too. */
	len = 0;
	for (int i = 0; i < 2000 && len < 2 * depth; i++)
		len += (size_t)sprintf(t + len, "%*sk%d:\n", i % 200, "", i);
	CHECK(chakra_sim_network_parse(&net, "deep2.yml", t, len, err, sizeof err) == CHAKRA_ECONFIG);
	/* JSON: the system and group files. */
	len = 0;
	len += (size_t)sprintf(t, "{\"x\": ");
	memset(t + len, '[', depth);
	len += depth;
	memset(t + len, ']', depth);
	len += depth;
	t[len++] = '}';
	CHECK(chakra_sim_system_parse(&sys, "deep.json", t, len, err, sizeof err) == CHAKRA_ECONFIG &&
	      strstr(err, "nested deeper than 64"));
	chakra_sim_groups gs;
	CHECK(chakra_sim_groups_parse(&gs, "deep.json", t, len, 8, err, sizeof err) ==
	      CHAKRA_ECONFIG && strstr(err, "nested deeper"));
	double secs = now() - t0;
	printf("deep configurations refused in %.3f s\n", secs);
	CHECK_MSG(secs < 5, "took %.1f s", secs);
	free(t);
	/* Larger than any configuration: refused before parsing. */
	size_t big = ((size_t)16 << 20) + 1;
	char *b = malloc(big);
	CHECK(b != NULL);
	if (b) {
		memset(b, ' ', big);
		CHECK(chakra_sim_network_parse(&net, "big.yml", b, big, err, sizeof err) ==
		      CHAKRA_ECONFIG && strstr(err, "larger than 16 MiB"));
		CHECK(chakra_sim_system_parse(&sys, "big.json", b, big, err, sizeof err) ==
		      CHAKRA_ECONFIG && strstr(err, "larger than 16 MiB"));
		free(b);
	}
}

static void test_budget_types_unmatched(void)
{
	CHECK(chakra_sim_system_load(&sys, shared_path("data/astra-sim/system/Ring_4chunks.json"),
	                             err, sizeof err) == 0);
	set_net(RING4);
	/* A million chunks of an all-reduce: 1e6 x 4 NPUs of bookkeeping is
	 * above a 16 MiB budget; a clear refusal naming it. */
	for (int r = 0; r < 4; r++) {
		char path[512];
		snprintf(path, sizeof path, "%s/coll.%d.et", dir, r);
		chakra_writer_options wo = CHAKRA_WRITER_OPTIONS_INIT;
		wo.overwrite = 1;
		chakra_writer *w;
		chakra_builder *b = chakra_builder_new();
		CHECK(chakra_writer_open(&w, path, &wo) == 0);
		CHECK(chakra_writer_write_metadata(w, "0.0.4", NULL) == 0);
		chakra_builder_set_id(b, 0);
		chakra_builder_set_type(b, CHAKRA_COMM_COLL_NODE);
		chakra_builder_attr_int(b, "comm_type", CHAKRA_ATTR_INT64, CHAKRA_ALL_REDUCE);
		chakra_builder_attr_int(b, "comm_size", CHAKRA_ATTR_INT64, 1 << 20);
		CHECK(chakra_writer_write_node(w, b) == 0);
		CHECK(chakra_writer_finish(w) == 0);
		chakra_writer_close(w);
		chakra_builder_free(b);
	}
	sys.splits = 1000000;
	chakra_sim_options o = CHAKRA_SIM_OPTIONS_INIT;
	o.memory = 16 << 20;
	CHECK_MSG(run("coll", &o, NULL) == UINT64_MAX && strstr(err, "memory budget of 16 MiB") &&
	          strstr(err, "1000000 chunks"), "%s", err);
	sys.splits = 4;
	CHECK_EQ_U(run("coll", &o, NULL), 43000);

	/* Type 42 is not a NodeType: no time, but reported. */
	for (int r = 0; r < 4; r++) {
		spec s[3] = { { CHAKRA_COMP_NODE, 3, -1, 0, 0 }, { 42, 1000, -1, 0, 0 },
		              { CHAKRA_COMP_NODE, 4, -1, 0, 0 } };
		write_rank("odd", r, s, 3);
	}
	const char *warn;
	CHECK_EQ_U(run("odd", NULL, &warn), 7000);
	CHECK_MSG(warn && strstr(warn, "4 node(s) have a type outside NodeType") &&
	          strstr(warn, "type 42"), "%s", warn ? warn : "(no warning)");
	CHECK_EQ_U(run("coll", NULL, &warn), 43000);
	CHECK(warn == NULL);
	/* Our double binary tree is not ASTRA-sim's: said, not silent. */
	sys.impl[CHAKRA_SIM_IMPL_ALL_REDUCE][0] = CHAKRA_SIM_ALG_DOUBLE_BINARY_TREE;
	CHECK(run("coll", NULL, &warn) != UINT64_MAX);
	CHECK_MSG(warn && strstr(warn, "not ASTRA-sim's DoubleBinaryTreeAllReduce"), "%s",
	          warn ? warn : "(no warning)");
	sys.impl[CHAKRA_SIM_IMPL_ALL_REDUCE][0] = CHAKRA_SIM_ALG_RING;

	/* Rank 0 sends to rank 1, which never receives: an error, as the
	 * opposite (a receive never matched) already was. */
	for (int r = 0; r < 4; r++) {
		spec s[1] = { { r == 0 ? CHAKRA_COMM_SEND_NODE : CHAKRA_COMP_NODE, 1, -1, 1, 9 } };
		write_rank("lonesend", r, s, 1);
	}
	CHECK_MSG(run("lonesend", NULL, NULL) == UINT64_MAX &&
	          strstr(err, "rank 0 node 0: send to rank 1 tag 9 never matched by a receive"),
	          "%s", err);
	for (int r = 0; r < 4; r++) {
		spec s[1] = { { r == 1 ? CHAKRA_COMM_RECV_NODE : CHAKRA_COMP_NODE, 1, -1, 0, 9 } };
		write_rank("lonerecv", r, s, 1);
	}
	CHECK(run("lonerecv", NULL, NULL) == UINT64_MAX && strstr(err, "never matched by a send"));
	/* Two receives from the same peer and tag match in posting order. */
	for (int r = 0; r < 2; r++) {
		spec s[2];
		for (int k = 0; k < 2; k++) {
			s[k].type = r == 0 ? CHAKRA_COMM_SEND_NODE : CHAKRA_COMM_RECV_NODE;
			s[k].us = 0;
			s[k].ns = -1;
			s[k].peer = !r;
			s[k].tag = 3;
		}
		write_rank("fifo", r, s, 2);
	}
	set_net("topology: [ Ring ]\nnpus_count: [ 2 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n");
	CHECK(run("fifo", NULL, NULL) != UINT64_MAX);
}

int main(void)
{
	need_data("data/astra-sim/system");
	snprintf(dir, sizeof dir, "%s/chakra-sim-hostile-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	CHECK(chakra_sim_system_load(&sys, shared_path("data/astra-sim/system/Ring_4chunks.json"),
	                             err, sizeof err) == 0);
	test_saturation();
	test_configs();
	test_budget_types_unmatched();
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		CHECK(0);
	return check_done();
}
