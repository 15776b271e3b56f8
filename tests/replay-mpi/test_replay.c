/* SPDX-License-Identifier: Apache-2.0 */
/* The replay module without MPI: --dims shapes, scopes (as the simulator
 * resolves them, with its group parser), plans of real and crafted traces,
 * digests and the first-difference messages, MPI layouts and nccl-tests
 * bandwidth factors, the report, and the simulator's prediction (lib/sim). */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <yajl/yajl_tree.h>

#include "chakra/chakra.h"
#include "chakra/experimental/replay.h"
#include "check.h"

/* chakra_write_cb over a stdio stream (data = the FILE *). */
static int file_write(void *data, const void *buf, size_t len)
{
	return fwrite(buf, 1, len, (FILE *)data) == len ? 0 : -1;
}

static char tmpdir[256];

/* A node of a crafted trace. */
typedef struct spec {
	uint64_t id;
	int type;
	int ndeps;
	uint64_t deps[4];
	int64_t comm_type; /* -1: none */
	int64_t size;      /* -1: none */
	int64_t peer, tag; /* -1: none */
	const char *pg;
	int ndim;
	uint64_t dims[4];
	uint64_t dur_ns;
} spec;

#define COLL(id, ct, sz) { id, CHAKRA_COMM_COLL_NODE, 0, { 0 }, ct, sz, -1, -1, NULL, 0, { 0 }, 0 }

static const char *write_trace(const char *name, const spec *s, size_t n)
{
	static char path[512];
	snprintf(path, sizeof path, "%s/%s", tmpdir, name);
	chakra_writer_options wo = CHAKRA_WRITER_OPTIONS_INIT;
	wo.overwrite = 1;
	chakra_writer *w = NULL;
	chakra_builder *b = chakra_builder_new();
	int rc = chakra_writer_open(&w, path, &wo);
	if (rc == 0)
		rc = chakra_writer_write_metadata(w, "0.0.4", NULL);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		chakra_builder_reset(b);
		chakra_builder_set_id(b, s[i].id);
		chakra_builder_set_name(b, "n", 1);
		chakra_builder_set_type(b, s[i].type);
		for (int d = 0; d < s[i].ndeps; d++)
			chakra_builder_add_data_dep(b, s[i].deps[d]);
		if (s[i].comm_type >= 0)
			chakra_builder_attr_int(b, "comm_type", CHAKRA_ATTR_INT64, s[i].comm_type);
		if (s[i].size >= 0)
			chakra_builder_attr_int(b, "comm_size", CHAKRA_ATTR_INT64, s[i].size);
		if (s[i].peer >= 0)
			chakra_builder_attr_int(b, s[i].type == CHAKRA_COMM_SEND_NODE ? "comm_dst" : "comm_src",
			                        CHAKRA_ATTR_INT64, s[i].peer);
		if (s[i].tag >= 0)
			chakra_builder_attr_int(b, "comm_tag", CHAKRA_ATTR_INT64, s[i].tag);
		if (s[i].pg)
			chakra_builder_attr_string(b, "pg_name", CHAKRA_ATTR_STRING, s[i].pg, (size_t)-1);
		if (s[i].ndim)
			chakra_builder_attr_list_uint(b, "involved_dim", CHAKRA_ATTR_BOOL_LIST, s[i].dims,
			                              (size_t)s[i].ndim);
		if (s[i].dur_ns)
			chakra_builder_attr_uint(b, "duration_nanos", CHAKRA_ATTR_UINT64, s[i].dur_ns);
		rc = chakra_writer_write_node(w, b);
	}
	if (rc == 0)
		rc = chakra_writer_finish(w);
	CHECK_MSG(rc == 0, "%s: %s", path, w ? chakra_writer_errmsg(w) : "open");
	chakra_writer_close(w);
	chakra_builder_free(b);
	return path;
}

static int contains(const char *hay, const char *needle)
{
	int ok = strstr(hay, needle) != NULL;
	if (!ok)
		fprintf(stderr, "  '%s'\n  lacks '%s'\n", hay, needle);
	return ok;
}

static void test_dims(void)
{
	uint32_t d[CHAKRA_REPLAY_MAX_DIMS];
	CHECK(chakra_replay_dims_parse("4x2", d, 8) == 2 && d[0] == 4 && d[1] == 2);
	CHECK(chakra_replay_dims_parse("16", d, 8) == 1 && d[0] == 16);
	const char *bad[] = { "", "4x", "x4", "0x2", "4y4", "-4", "4x2x", "1x1x1x1x1x1x1x1x1" };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		CHECK_MSG(chakra_replay_dims_parse(bad[i], d, 8) < 0, "'%s'", bad[i]);
}

/* Scopes of a 4x2 network (8 ranks) and two overlapping group kinds. */
static void test_scopes(void)
{
	chakra_sim_groups g;
	memset(&g, 0, sizeof g);
	char err[CHAKRA_REPLAY_ERR_LEN];
	const char *gt = "{\"1\": [0,1,2,3], \"2\": [4,5,6,7], \"3\": [0,4], \"4\": [1,5]}";
	CHECK(chakra_sim_groups_parse(&g, "g", gt, strlen(gt), 8, err, sizeof err) == 0);
	chakra_replay_topo t = { 8, 2, { 4, 2 }, &g };
	spec s[] = {
		{ 0, CHAKRA_COMM_COLL_NODE, 0, { 0 }, 0, 64, -1, -1, NULL, 2, { 1, 0 }, 0 },
		{ 1, CHAKRA_COMM_COLL_NODE, 0, { 0 }, 0, 64, -1, -1, NULL, 2, { 0, 1 }, 0 },
		{ 2, CHAKRA_COMM_COLL_NODE, 0, { 0 }, 0, 64, -1, -1, NULL, 2, { 1, 1 }, 0 },
		{ 3, CHAKRA_COMM_COLL_NODE, 0, { 0 }, 0, 64, -1, -1, NULL, 0, { 0 }, 0 },
		{ 4, CHAKRA_COMM_COLL_NODE, 0, { 0 }, 0, 64, -1, -1, "3", 2, { 1, 1 }, 0 },
		{ 5, CHAKRA_COMM_COLL_NODE, 0, { 0 }, 0, 64, -1, -1, "9", 0, { 0 }, 0 },
		{ 6, CHAKRA_COMM_COLL_NODE, 0, { 0 }, 0, 64, -1, -1, "4", 0, { 0 }, 0 },
		{ 7, CHAKRA_COMM_COLL_NODE, 0, { 0 }, 0, 64, -1, -1, NULL, 3, { 1, 1, 1 }, 0 },
		{ 8, CHAKRA_COMM_COLL_NODE, 0, { 0 }, 0, 64, -1, -1, NULL, 2, { 0, 0 }, 0 },
	};
	const char *path = write_trace("scopes.et", s, sizeof s / sizeof *s);
	chakra_reader *r = NULL;
	CHECK(chakra_reader_open(&r, path, NULL) == 0);
	const chakra_node *n;
	chakra_replay_scope sc[9];
	int rc[9];
	char errs[9][CHAKRA_REPLAY_ERR_LEN];
	for (int i = 0; i < 9 && chakra_reader_next(r, &n) > 0; i++)
		rc[i] = chakra_replay_scope_of(&t, 4, n, &sc[i], errs[i], sizeof errs[i]);
	chakra_reader_close(r);
	uint32_t m[8];
	char d[128];
	/* involved_dim [1,0] on rank 4 (coordinates 0,1): ranks 4..7 */
	CHECK(rc[0] == 0 && sc[0].kind == CHAKRA_REPLAY_SCOPE_DIMS && sc[0].key == 1);
	CHECK(chakra_replay_scope_members(&t, sc[0], 4, m) == 4 && m[0] == 4 && m[3] == 7);
	chakra_replay_scope_describe(&t, sc[0], d, sizeof d);
	CHECK(!strcmp(d, "dimension 0"));
	/* [0,1]: ranks 0 and 4 */
	CHECK(rc[1] == 0 && sc[1].kind == CHAKRA_REPLAY_SCOPE_DIMS && sc[1].key == 2);
	CHECK(chakra_replay_scope_members(&t, sc[1], 4, m) == 2 && m[0] == 0 && m[1] == 4);
	CHECK(chakra_replay_scope_color(&t, sc[1], 4) == chakra_replay_scope_color(&t, sc[1], 0));
	CHECK(chakra_replay_scope_color(&t, sc[1], 5) != chakra_replay_scope_color(&t, sc[1], 4));
	/* every dimension, or no list: all ranks, one scope */
	CHECK(rc[2] == 0 && sc[2].kind == CHAKRA_REPLAY_SCOPE_ALL);
	CHECK(rc[3] == 0 && sc[3].kind == CHAKRA_REPLAY_SCOPE_ALL);
	CHECK(chakra_replay_scope_members(&t, sc[3], 4, m) == 8);
	/* pg_name wins over involved_dim */
	CHECK(rc[4] == 0 && sc[4].kind == CHAKRA_REPLAY_SCOPE_GROUP && sc[4].key == 2);
	CHECK(chakra_replay_scope_members(&t, sc[4], 4, m) == 2 && m[0] == 0 && m[1] == 4);
	chakra_replay_scope_describe(&t, sc[4], d, sizeof d);
	CHECK(!strcmp(d, "group '3'"));
	CHECK(rc[5] < 0 && contains(errs[5], "pg_name '9' is not in the communicator-group file"));
	CHECK(rc[6] < 0 && contains(errs[6], "rank 4 is not a member of communicator group '4'"));
	CHECK(rc[7] < 0 && contains(errs[7], "involved_dim has 3 entries but the network has 2"));
	/* nothing flagged: the rank alone */
	CHECK(rc[8] == 0 && chakra_replay_scope_members(&t, sc[8], 4, m) == 1 && m[0] == 4);
	/* Slots are a bijection. */
	size_t ns = chakra_replay_scope_slots(&t);
	CHECK_EQ_U(ns, 1 + 4 + 4);
	for (size_t k = 0; k < ns; k++)
		CHECK(chakra_replay_scope_slot(&t, chakra_replay_scope_at(&t, k)) == k);
	/* Without groups pg_name is ignored (as chakra sim without
	 * --comm-group); without a shape only full lists work. */
	chakra_replay_topo t2 = { 8, 0, { 0 }, NULL };
	CHECK(chakra_reader_open(&r, path, NULL) == 0);
	for (int i = 0; i < 9 && chakra_reader_next(r, &n) > 0; i++)
		rc[i] = chakra_replay_scope_of(&t2, 4, n, &sc[i], errs[i], sizeof errs[i]);
	chakra_reader_close(r);
	CHECK(rc[0] < 0 && contains(errs[0], "network shape is unknown: give --dims"));
	CHECK(rc[4] == 0 && sc[4].kind == CHAKRA_REPLAY_SCOPE_ALL);
	CHECK(rc[5] == 0 && sc[5].kind == CHAKRA_REPLAY_SCOPE_ALL);
	CHECK(rc[7] == 0 && sc[7].kind == CHAKRA_REPLAY_SCOPE_ALL);
	chakra_sim_groups_free(&g);
}

static chakra_replay_plan *plan_of(const char *path, const chakra_replay_topo *t, uint32_t rank,
                                   char *err, size_t errlen)
{
	chakra_replay_plan_options po = CHAKRA_REPLAY_PLAN_OPTIONS_INIT;
	po.rank = rank;
	po.topo = t;
	chakra_replay_plan *p = NULL;
	err[0] = 0;
	if (chakra_replay_plan_build(&p, path, &po, err, errlen) < 0)
		return NULL;
	return p;
}

static void test_plan(void)
{
	char err[CHAKRA_REPLAY_ERR_LEN];
	chakra_replay_topo t4 = { 4, 0, { 0 }, NULL };
	/* ASTRA-sim's own microbenchmark: one all-reduce whose id is the rank. */
	chakra_replay_plan *p = plan_of(
		shared_path("data/astra-sim/microbenchmarks/all_reduce/4npus_1MB/all_reduce.2.et"), &t4, 2,
		err, sizeof err);
	CHECK_MSG(p != NULL, "%s", err);
	if (p) {
		CHECK_EQ_U(chakra_replay_plan_op_count(p), 1);
		const chakra_replay_op *op = chakra_replay_plan_find(p, 2);
		CHECK(op && op->kind == CHAKRA_REPLAY_COLL && op->comm_type == CHAKRA_ALL_REDUCE &&
		      op->size == 1048576 && op->nmembers == 4);
		CHECK_EQ_U(chakra_replay_plan_channel_count(p), 1);
		CHECK_EQ_U(chakra_replay_plan_node_count(p), 1);
		chakra_replay_plan_free(p);
	}

	/* Issue order is the feeder's (lowest ready id first, each node done
	 * at once), not the file's or the ids'. */
	spec s[] = {
		{ 6, CHAKRA_COMM_COLL_NODE, 1, { 2 }, CHAKRA_BARRIER, -1, -1, -1, NULL, 0, { 0 }, 0 },
		{ 0, CHAKRA_COMP_NODE, 0, { 0 }, -1, -1, -1, -1, NULL, 0, { 0 }, 1000 },
		{ 1, CHAKRA_COMM_COLL_NODE, 1, { 0 }, CHAKRA_ALL_REDUCE, 64, -1, -1, NULL, 0, { 0 }, 0 },
		{ 2, CHAKRA_COMM_COLL_NODE, 0, { 0 }, CHAKRA_ALL_GATHER, 128, -1, -1, NULL, 0, { 0 }, 0 },
		{ 3, CHAKRA_COMM_SEND_NODE, 1, { 1 }, -1, 10, 1, 5, NULL, 0, { 0 }, 0 },
		{ 4, CHAKRA_COMM_RECV_NODE, 0, { 0 }, -1, 10, 1, 5, NULL, 0, { 0 }, 0 },
		{ 5, CHAKRA_COMM_SEND_NODE, 0, { 0 }, -1, 7, 1, 2, NULL, 0, { 0 }, 0 },
		{ 7, CHAKRA_MEM_LOAD_NODE, 0, { 0 }, -1, -1, -1, -1, NULL, 0, { 0 }, 0 },
	};
	p = plan_of(write_trace("plan.et", s, sizeof s / sizeof *s), &t4, 0, err, sizeof err);
	CHECK_MSG(p != NULL, "%s", err);
	if (p) {
		const chakra_replay_channel *ch = chakra_replay_plan_channels(p);
		const chakra_replay_op *ops = chakra_replay_plan_ops(p);
		CHECK_EQ_U(chakra_replay_plan_channel_count(p), 4);
		CHECK(ch[0].kind == CHAKRA_REPLAY_COLL && ch[0].nops == 3);
		CHECK(ops[ch[0].ops[0]].id == 1 && ops[ch[0].ops[1]].id == 2 && ops[ch[0].ops[2]].id == 6);
		CHECK(ops[ch[0].ops[2]].seq == 2);
		CHECK(ch[1].kind == CHAKRA_REPLAY_SEND && ch[1].peer == 1 && ch[1].tag == 2);
		CHECK(ch[2].kind == CHAKRA_REPLAY_SEND && ch[2].tag == 5 && ops[ch[2].ops[0]].id == 3);
		CHECK(ch[3].kind == CHAKRA_REPLAY_RECV && ch[3].tag == 5);
		const chakra_replay_op *op = chakra_replay_plan_find(p, 3);
		CHECK(op && op->kind == CHAKRA_REPLAY_SEND && op->channel == 2 && op->size == 10);
		CHECK(chakra_replay_plan_find(p, 0) == NULL && chakra_replay_plan_find(p, 7) == NULL);
		CHECK_EQ_U(chakra_replay_plan_compute_count(p), 1);
		CHECK_EQ_U(chakra_replay_plan_compute_ns(p), 1000);
		CHECK_EQ_U(chakra_replay_plan_node_count(p), 8);
		CHECK(chakra_replay_plan_coll_channel(p, (chakra_replay_scope){ CHAKRA_REPLAY_SCOPE_ALL, 0 }) == 0);
		chakra_replay_entry *e = NULL;
		CHECK(chakra_replay_p2p_entries(p, CHAKRA_REPLAY_SEND, 1, &e) == 2);
		CHECK(e && e[0].tag == 2 && e[1].tag == 5 && e[1].id == 3);
		chakra_free(e);
		CHECK(chakra_replay_p2p_entries(p, CHAKRA_REPLAY_RECV, 2, &e) == 0 && e == NULL);
		chakra_replay_plan_free(p);
	}

	static const struct {
		spec s;
		const char *msg;
	} bad[] = {
		{ COLL(3, CHAKRA_GATHER, 8), "node 3 (n): comm_type 3 (GATHER) is not replayed" },
		{ COLL(4, CHAKRA_ALL_REDUCE, -1), "node 4 (n): ALL_REDUCE without an integer comm_size" },
		{ COLL(5, -1, 8), "collective without an integer comm_type" },
		{ { 6, CHAKRA_COMM_SEND_NODE, 0, { 0 }, -1, 8, 9, -1, NULL, 0, { 0 }, 0 },
		  "send without a valid comm_dst (0..3)" },
		{ { 7, CHAKRA_COMM_RECV_NODE, 0, { 0 }, -1, 8, -1, -1, NULL, 0, { 0 }, 0 },
		  "recv without a valid comm_src (0..3)" },
		{ COLL(8, CHAKRA_ALL_GATHER, 8589934592LL),
		  "ALL_GATHER of 8589934592 bytes on 4 ranks needs 8589934592 elements of 4 bytes in one "
		  "MPI call" },
		{ { 9, CHAKRA_COMM_COLL_NODE, 1, { 99 }, 0, 8, -1, -1, NULL, 0, { 0 }, 0 },
		  "parent 99, which never appears in the file" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		const char *path = write_trace("bad.et", &bad[i].s, 1);
		p = plan_of(path, &t4, 0, err, sizeof err);
		CHECK_MSG(p == NULL, "case %zu", i);
		CHECK_MSG(contains(err, "bad.et") && contains(err, bad[i].msg), "case %zu", i);
		chakra_replay_plan_free(p);
	}
}

static void test_digest(void)
{
	char err[CHAKRA_REPLAY_ERR_LEN], msg[CHAKRA_REPLAY_ERR_LEN];
	chakra_replay_topo t = { 2, 0, { 0 }, NULL };
	spec a[] = { COLL(0, CHAKRA_ALL_REDUCE, 64), COLL(1, CHAKRA_ALL_GATHER, 128) };
	spec b[] = { COLL(0, CHAKRA_ALL_REDUCE, 64), COLL(1, CHAKRA_ALL_GATHER, 256) };
	spec c[] = { COLL(0, CHAKRA_ALL_REDUCE, 64) };
	chakra_replay_plan *pa = plan_of(write_trace("a.et", a, 2), &t, 0, err, sizeof err);
	chakra_replay_plan *pa2 = plan_of(write_trace("a.et", a, 2), &t, 1, err, sizeof err);
	chakra_replay_plan *pb = plan_of(write_trace("b.et", b, 2), &t, 1, err, sizeof err);
	chakra_replay_plan *pc = plan_of(write_trace("c.et", c, 1), &t, 1, err, sizeof err);
	CHECK(pa && pa2 && pb && pc);
	if (!pa || !pa2 || !pb || !pc)
		return;
	chakra_replay_digest da = chakra_replay_channel_digest(pa, 0);
	chakra_replay_digest da2 = chakra_replay_channel_digest(pa2, 0);
	chakra_replay_digest db = chakra_replay_channel_digest(pb, 0);
	CHECK(da.count == 2 && da.count == da2.count && da.hash == da2.hash);
	CHECK(da.count == db.count && da.hash != db.hash);
	chakra_replay_entry *ea, *eb, *ec;
	CHECK(chakra_replay_channel_entries(pa, 0, &ea) == 2);
	CHECK(chakra_replay_channel_entries(pb, 0, &eb) == 2);
	CHECK(chakra_replay_channel_entries(pc, 0, &ec) == 1);
	uint32_t mem[2] = { 0, 1 };
	const chakra_replay_entry *seqs[2] = { ea, eb };
	size_t lens[2] = { 2, 2 };
	CHECK(chakra_replay_coll_diff("all ranks", mem, 2, seqs, lens, msg, sizeof msg) == 1);
	CHECK(contains(msg, "collective #2 on all ranks (ranks 0 1) differs: rank 0 node 1 is "
	                    "ALL_GATHER of 128 bytes, rank 1 node 1 is ALL_GATHER of 256 bytes"));
	seqs[1] = ec;
	lens[1] = 1;
	CHECK(chakra_replay_coll_diff("group '2'", mem, 2, seqs, lens, msg, sizeof msg) == 1);
	CHECK(contains(msg, "collective #2 on group '2' (ranks 0 1): rank 0 node 1 is ALL_GATHER of "
	                    "128 bytes, but rank 1 issues only 1 collective there"));
	seqs[1] = ea;
	lens[1] = 2;
	CHECK(chakra_replay_coll_diff("all ranks", mem, 2, seqs, lens, msg, sizeof msg) == 0);
	chakra_free(ea);
	chakra_free(eb);
	chakra_free(ec);

	/* Messages: rank 0's sends against rank 1's receives. */
	spec snd[] = {
		{ 0, CHAKRA_COMM_SEND_NODE, 0, { 0 }, -1, 10, 1, 0, NULL, 0, { 0 }, 0 },
		{ 1, CHAKRA_COMM_SEND_NODE, 1, { 0 }, -1, 20, 1, 0, NULL, 0, { 0 }, 0 },
		{ 2, CHAKRA_COMM_SEND_NODE, 0, { 0 }, -1, 5, 1, 3, NULL, 0, { 0 }, 0 },
	};
	spec rcv[] = {
		{ 7, CHAKRA_COMM_RECV_NODE, 0, { 0 }, -1, 10, 0, 0, NULL, 0, { 0 }, 0 },
		{ 8, CHAKRA_COMM_RECV_NODE, 1, { 7 }, -1, 30, 0, 0, NULL, 0, { 0 }, 0 },
		{ 9, CHAKRA_COMM_RECV_NODE, 0, { 0 }, -1, 5, 0, 3, NULL, 0, { 0 }, 0 },
	};
	chakra_replay_plan *ps = plan_of(write_trace("s.et", snd, 3), &t, 0, err, sizeof err);
	chakra_replay_plan *pr = plan_of(write_trace("r.et", rcv, 3), &t, 1, err, sizeof err);
	CHECK(ps && pr);
	if (ps && pr) {
		chakra_replay_digest ds = chakra_replay_p2p_digest(ps, CHAKRA_REPLAY_SEND, 1);
		chakra_replay_digest dr = chakra_replay_p2p_digest(pr, CHAKRA_REPLAY_RECV, 0);
		CHECK(ds.count == 3 && dr.count == 3 && ds.hash != dr.hash);
		chakra_replay_entry *es, *er;
		int64_t ns = chakra_replay_p2p_entries(ps, CHAKRA_REPLAY_SEND, 1, &es);
		int64_t nr = chakra_replay_p2p_entries(pr, CHAKRA_REPLAY_RECV, 0, &er);
		CHECK(ns == 3 && nr == 3);
		CHECK(chakra_replay_p2p_diff(0, 1, es, 3, er, 3, msg, sizeof msg) == 1);
		CHECK(contains(msg, "message #2 from rank 0 to rank 1 with tag 0: rank 0 sends node 1 of "
		                    "20 bytes, but rank 1 receives node 8 of 30 bytes"));
		er[1].size = 20; /* now equal */
		CHECK(chakra_replay_p2p_diff(0, 1, es, 3, er, 3, msg, sizeof msg) == 0);
		CHECK(chakra_replay_p2p_diff(0, 1, es, 3, er, 2, msg, sizeof msg) == 1);
		CHECK(contains(msg, "rank 0 sends node 2 (5 bytes, tag 3) to rank 1, which posts no "
		                    "matching receive from rank 0"));
		CHECK(chakra_replay_p2p_diff(0, 1, es, 1, er, 3, msg, sizeof msg) == 1);
		CHECK(contains(msg, "rank 1 receives node 8 (20 bytes, tag 0) from rank 0, which sends "
		                    "no matching message to rank 1"));
		chakra_free(es);
		chakra_free(er);
		/* A rank's digest of its sends matches the peer's of its receives
		 * when the sizes agree. */
		chakra_replay_digest self = chakra_replay_p2p_digest(ps, CHAKRA_REPLAY_RECV, 1);
		CHECK(self.count == 0);
	}
	chakra_replay_plan_free(ps);
	chakra_replay_plan_free(pr);
	chakra_replay_plan_free(pa);
	chakra_replay_plan_free(pa2);
	chakra_replay_plan_free(pb);
	chakra_replay_plan_free(pc);
}

static void test_layout(void)
{
	chakra_replay_layout l;
	CHECK(chakra_replay_layout_of(CHAKRA_ALL_REDUCE, 1048576, 4, 1, &l) == 0);
	CHECK(l.esz == 4 && l.elems == 262144 && l.send_elems == 262144 && l.recv_elems == 262144);
	CHECK(chakra_replay_layout_of(CHAKRA_ALL_GATHER, 1000, 3, 2, &l) == 0);
	CHECK(l.esz == 4 && l.send_elems == 250 && l.recv_elems == 750);
	CHECK(chakra_replay_layout_of(CHAKRA_REDUCE_SCATTER, 10, 4, 0, &l) == 0);
	CHECK(l.esz == 1 && l.send_elems == 10 && l.recv_elems == 3);
	CHECK(chakra_replay_layout_of(CHAKRA_REDUCE_SCATTER, 10, 4, 3, &l) == 0 && l.recv_elems == 2);
	CHECK(chakra_replay_layout_of(CHAKRA_ALL_TO_ALL, 12, 5, 0, &l) == 0 && l.recv_elems == 5);
	CHECK(chakra_replay_layout_of(CHAKRA_ALL_TO_ALL, 12, 5, 4, &l) == 0 && l.recv_elems == 0);
	CHECK(chakra_replay_layout_of(CHAKRA_BROADCAST, 8, 4, 0, &l) == 0 && l.send_elems == 2 &&
	      l.recv_elems == 0);
	CHECK(chakra_replay_layout_of(CHAKRA_BROADCAST, 8, 4, 1, &l) == 0 && l.send_elems == 0 &&
	      l.recv_elems == 2);
	CHECK(chakra_replay_layout_of(CHAKRA_REDUCE, 8, 4, 1, &l) == 0 && l.recv_elems == 0);
	CHECK(chakra_replay_layout_of(CHAKRA_BARRIER, 0, 4, 1, &l) == 0 && l.send_elems == 0);
	CHECK(chakra_replay_layout_of(CHAKRA_GATHER, 8, 4, 1, &l) == CHAKRA_EINVAL);
	uint64_t sum = 0;
	for (uint32_t i = 0; i < 7; i++)
		sum += chakra_replay_share(100, 7, i);
	CHECK_EQ_U(sum, 100);
	CHECK_EQ_U(chakra_replay_share(100, 7, 0), 15);
	CHECK_EQ_U(chakra_replay_share(100, 7, 6), 14);
	/* nccl-tests: busbw = algbw * 2(n-1)/n for all-reduce, (n-1)/n for
	 * all-gather (of the gathered size), reduce-scatter, all-to-all. */
	CHECK(chakra_replay_busbw_factor(CHAKRA_ALL_REDUCE, 4) == 1.5);
	CHECK(chakra_replay_busbw_factor(CHAKRA_ALL_GATHER, 8) == 0.875);
	CHECK(chakra_replay_busbw_factor(CHAKRA_REDUCE_SCATTER, 2) == 0.5);
	CHECK(chakra_replay_busbw_factor(CHAKRA_ALL_TO_ALL, 4) == 0.75);
	CHECK(chakra_replay_busbw_factor(CHAKRA_BROADCAST, 4) == 1);
	CHECK(chakra_replay_busbw_factor(-1, 2) == 1);
	CHECK(chakra_replay_nccl_bytes(CHAKRA_ALL_GATHER, 1000, 4) == 4000);
	CHECK(chakra_replay_nccl_bytes(CHAKRA_ALL_REDUCE, 1000, 4) == 1000);
	CHECK(chakra_replay_nccl_bytes(CHAKRA_BARRIER, 0, 4) == 0);
}

static char *slurp_stream(FILE *f)
{
	fflush(f);
	long n = ftell(f);
	rewind(f);
	char *buf = calloc(1, (size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n)
		buf[0] = 0;
	return buf;
}

static void test_report(void)
{
	chakra_replay_stats st = { NULL, 0, 0 }, all = { NULL, 0, 0 };
	chakra_replay_op ar = { 1, 1048576, 0, 0, CHAKRA_ALL_REDUCE, 4, 0, 0, CHAKRA_REPLAY_COLL };
	chakra_replay_op snd = { 2, 1000, 0, 1, -1, 2, 1, 0, CHAKRA_REPLAY_SEND };
	/* Two ranks, one all-reduce each of 1 ms and 3 ms; one 1000-byte send. */
	chakra_replay_stat *s = chakra_replay_stats_row(&st, &ar);
	s->count = 1;
	s->sum = s->min = s->max = 1e-3;
	s->sim_count = 1;
	s->sim_sum = 5e-4;
	CHECK(chakra_replay_stats_merge(&all, st.s, st.n) == 0);
	s->sum = s->min = s->max = 3e-3;
	s = chakra_replay_stats_row(&st, &snd);
	s->count = 1;
	s->sum = s->min = s->max = 1e-6;
	CHECK(chakra_replay_stats_merge(&all, st.s, st.n) == 0);
	chakra_replay_stats_sort(&all);
	CHECK(all.n == 2 && all.s[0].kind == CHAKRA_REPLAY_COLL && all.s[0].count == 2);
	CHECK(all.s[0].min == 1e-3 && all.s[0].max == 3e-3 && fabs(all.s[0].sum - 4e-3) < 1e-12);
	chakra_replay_rank_times rt[2] = { { 4e-3, 1e-3, 3e-3, 2.5e-3, 5, 2e-3, 1e-3 },
	                                   { 5e-3, 0, 4e-3, 4e-3, 5, 2e-3, 1e-3 } };
	chakra_replay_report rep = { "wl", 2, 2, 1, "sleep", "wl.comm_groups.json", "data", 1, &all,
	                             rt };
	FILE *f = tmpfile();
	CHECK(chakra_replay_report_text(file_write, f, &rep) == 0);
	char *text = slurp_stream(f);
	fclose(f);
	/* mean 2 ms per rank-operation, 1 MiB: algbw 0.524 GB/s, busbw x1.5 */
	CHECK(contains(text, "ALL_REDUCE            1048576     4    0.25     2000.00     1000.00     "
	                     "3000.00    0.524    0.786      500.00    3.146"));
	CHECK(contains(text, "SEND                     1000     2     0.5        1.00"));
	CHECK(contains(text, "iteration time (slowest rank): 5000.00 us; simulated: 2000.00 us"));
	free(text);
	f = tmpfile();
	CHECK(chakra_replay_report_json(file_write, f, &rep) == 0);
	text = slurp_stream(f);
	fclose(f);
	char e[256];
	yajl_val root = yajl_tree_parse(text, e, sizeof e);
	CHECK_MSG(root != NULL, "%s", e);
	if (root) {
		const char *p1[] = { "operations", NULL };
		yajl_val ops = yajl_tree_get(root, p1, yajl_t_array);
		CHECK(ops && ops->u.array.len == 2);
		if (ops && ops->u.array.len == 2) {
			const char *k[] = { "busbw_gbps", NULL }, *k2[] = { "op", NULL };
			yajl_val bw = yajl_tree_get(ops->u.array.values[0], k, yajl_t_number);
			yajl_val op = yajl_tree_get(ops->u.array.values[0], k2, yajl_t_string);
			CHECK(bw && fabs(YAJL_GET_DOUBLE(bw) - 0.7864) < 1e-4);
			const char *name = op ? YAJL_GET_STRING(op) : NULL;
			CHECK(name && !strcmp(name, "ALL_REDUCE"));
		}
		const char *p2[] = { "per_rank", NULL };
		yajl_val pr = yajl_tree_get(root, p2, yajl_t_array);
		CHECK(pr && pr->u.array.len == 2);
		const char *p3[] = { "sim_iteration_us", NULL };
		yajl_val si = yajl_tree_get(root, p3, yajl_t_number);
		CHECK(si && YAJL_GET_DOUBLE(si) == 2000);
		yajl_tree_free(root);
	}
	free(text);
	chakra_replay_stats_free(&st);
	chakra_replay_stats_free(&all);
}

static void test_sim(void)
{
	char err[CHAKRA_REPLAY_ERR_LEN];
	chakra_sim_network net;
	chakra_sim_system sys;
	int rc = chakra_sim_network_load(&net, shared_path("data/astra-sim/network/Ring_4npus.yml"), err,
	                                 sizeof err);
	if (rc == 0)
		rc = chakra_sim_system_load(&sys, shared_path("data/astra-sim/system/Ring_4chunks.json"),
		                            err, sizeof err);
	CHECK_MSG(rc == 0, "%s", err);
	if (rc < 0)
		return;
	chakra_replay_sim sim;
	const char *wl = shared_path("data/astra-sim/microbenchmarks/all_reduce/4npus_1MB/all_reduce");
	rc = chakra_replay_sim_run(wl, &net, &sys, NULL, CHAKRA_DEPS_DATA, &sim, err, sizeof err);
	CHECK_MSG(rc == 0, "%s", err);
	if (rc == 0) {
		/* docs/sim.md: the 4-NPU all-reduce microbenchmark ends at 43000. */
		CHECK_EQ_U(sim.npus, 4);
		CHECK_EQ_U(sim.finish, 43000);
		CHECK_EQ_U(sim.npu_finish[3], 43000);
		CHECK_EQ_U(sim.npu_exposed[3], 43000);
		CHECK(chakra_replay_sim_node_ns(&sim, 2, 2) == 43000);
		CHECK(chakra_replay_sim_node_ns(&sim, 2, 1) == -1);
		CHECK(chakra_replay_sim_node_ns(&sim, 9, 2) == -1);
		chakra_replay_sim_free(&sim);
	}
	/* 4 NPUs against an 8-rank workload: the simulator's own message. */
	rc = chakra_replay_sim_run(
		shared_path("data/astra-sim/microbenchmarks/all_reduce/8npus_1MB/all_reduce"), &net, &sys,
		NULL, CHAKRA_DEPS_DATA, &sim, err, sizeof err);
	CHECK(rc < 0 && contains(err, "simulation: "));
	CHECK(sim.npus == 0 && sim.npu_finish == NULL);
}

int main(void)
{
	const char *base = getenv("TMPDIR");
	snprintf(tmpdir, sizeof tmpdir, "%s/test-replay-XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(tmpdir)) {
		perror(tmpdir);
		return 1;
	}
	test_dims();
	test_scopes();
	test_plan();
	test_digest();
	test_layout();
	test_report();
	test_sim();
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tmpdir);
	return check_done();
}
