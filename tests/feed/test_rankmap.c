/* SPDX-License-Identifier: Apache-2.0 */
/* Rank maps (docs/feeder.md): the parser (every value, every error with its
 * line), the substitution a rank's feeder applies to its class file, and the
 * workload API over a map (feeders opened per rank on demand). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chakra/chakra.h"
#include "check.h"

static char dir[] = "/tmp/chakra-rankmap-XXXXXX";

/* A class file: a send to `peer`, a receive from peer + 1, an all-reduce
 * on group `pg`, and a compute node with an unrelated comm_dst-like name. */
static void write_class(const char *path, int64_t peer, const char *pg)
{
	chakra_writer_options wo = CHAKRA_WRITER_OPTIONS_INIT;
	wo.overwrite = 1;
	chakra_writer *w = NULL;
	CHECK(chakra_writer_open(&w, path, &wo) == 0);
	CHECK(chakra_writer_write_metadata(w, "0.0.4", NULL) == 0);
	chakra_builder *b = chakra_builder_new();
	chakra_builder_set_id(b, 0);
	chakra_builder_set_type(b, CHAKRA_COMM_SEND_NODE);
	chakra_builder_attr_int(b, "comm_dst", CHAKRA_ATTR_INT32, peer);
	chakra_builder_attr_int(b, "comm_size", CHAKRA_ATTR_INT64, 64);
	CHECK(chakra_writer_write_node(w, b) == 0);
	chakra_builder_reset(b);
	chakra_builder_set_id(b, 1);
	chakra_builder_set_type(b, CHAKRA_COMM_RECV_NODE);
	chakra_builder_attr_int(b, "comm_src", CHAKRA_ATTR_INT64, peer + 1);
	CHECK(chakra_writer_write_node(w, b) == 0);
	chakra_builder_reset(b);
	chakra_builder_set_id(b, 2);
	chakra_builder_set_type(b, CHAKRA_COMM_COLL_NODE);
	chakra_builder_attr_int(b, "comm_type", CHAKRA_ATTR_INT64, CHAKRA_ALL_REDUCE);
	chakra_builder_attr_string(b, "pg_name", CHAKRA_ATTR_STRING, pg, (size_t)-1);
	CHECK(chakra_writer_write_node(w, b) == 0);
	chakra_builder_reset(b);
	chakra_builder_set_id(b, 3);
	chakra_builder_set_type(b, CHAKRA_COMP_NODE);
	chakra_builder_attr_int(b, "comm_dstx", CHAKRA_ATTR_INT32, peer);
	CHECK(chakra_writer_write_node(w, b) == 0);
	chakra_builder_free(b);
	CHECK(chakra_writer_finish(w) == 0);
	chakra_writer_close(w);
}

static int parse(const char *text, char *err, size_t errlen, chakra_rank_map **m)
{
	return chakra_rank_map_parse(m, "/maps/t.ranks", text, strlen(text), err, errlen);
}

static void test_parse(void)
{
	char err[512];
	chakra_rank_map *m = NULL;
	const char *ok =
		"chakra-rank-map 1\n"
		"# four ranks, two classes\n"
		"ranks 4\n"
		"class 0 a.et peers 1 -2 groups g0 \"h 1\"  # comment\n"
		"class 1 /abs/b.et.gz\n"
		"0 0\n"
		"1-2 0 peers 7 8 groups x \"q\\\"\\\\\"\r\n"
		"3 1\n";
	CHECK_MSG(parse(ok, err, sizeof err, &m) == 0, "%s", err);
	CHECK_EQ_U(chakra_rank_map_ranks(m), 4);
	CHECK_EQ_U(chakra_rank_map_classes(m), 2);
	CHECK_EQ_U(chakra_rank_map_class(m, 2), 0);
	CHECK_EQ_U(chakra_rank_map_class(m, 3), 1);
	CHECK(chakra_rank_map_class(m, 4) == UINT32_MAX);
	CHECK(!strcmp(chakra_rank_map_file(m, 0), "/maps/a.et"));
	CHECK(!strcmp(chakra_rank_map_file(m, 1), "/abs/b.et.gz"));
	CHECK(chakra_rank_map_file(m, 2) == NULL);
	chakra_rank_subst s;
	CHECK(chakra_rank_map_subst(m, 0, &s) == 0);
	CHECK(s.n_peers == 2 && s.peer_from[1] == -2 && s.peer_to[1] == -2);
	CHECK(s.n_groups == 2 && !strcmp(s.group_from[1], "h 1") && !strcmp(s.group_to[1], "h 1"));
	CHECK(chakra_rank_map_subst(m, 2, &s) == 0);
	CHECK(s.peer_to[0] == 7 && s.peer_to[1] == 8);
	CHECK(!strcmp(s.group_to[0], "x") && !strcmp(s.group_to[1], "q\"\\"));
	CHECK(chakra_rank_map_subst(m, 3, &s) == 0 && s.n_peers == 0 && s.n_groups == 0);
	CHECK(chakra_rank_map_subst(m, 9, &s) == CHAKRA_EINVAL);
	chakra_rank_map_free(m);

	/* Errors: the file, the line, what is wrong. */
	static const struct {
		const char *text, *want;
	} bad[] = {
		{ "", "t.ranks:1: empty" },
		{ "hello\n", "t.ranks:1: not a rank map" },
		{ "chakra-rank-map 2\n", "t.ranks:1: rank map version '2'" },
		{ "chakra-rank-map 1\nclass 0 a\n", "t.ranks:2: expected 'ranks N'" },
		{ "chakra-rank-map 1\nranks 0\n", "t.ranks:2: 'ranks' needs a number" },
		{ "chakra-rank-map 1\nranks 2\nclass 1 a\n", "t.ranks:3: class '1': classes are numbered" },
		{ "chakra-rank-map 1\nranks 2\nclass 0 a peers 1 1\n", "t.ranks:3: peer 1 is declared twice" },
		{ "chakra-rank-map 1\nranks 2\nclass 0 a groups g g\n", "t.ranks:3: group 'g' is declared twice" },
		{ "chakra-rank-map 1\nranks 2\nclass 0 a groups g peers 1\n", "'peers' must come before 'groups'" },
		{ "chakra-rank-map 1\nranks 2\nclass 0 a peers x\n", "t.ranks:3: peer 'x' is not an integer" },
		{ "chakra-rank-map 1\nranks 2\nclass 0 a\n0 1\n", "t.ranks:4: rank 0: class '1' is not defined" },
		{ "chakra-rank-map 1\nranks 2\nclass 0 a\n0-2 0\n", "t.ranks:4: rank 2 is not in 0..1" },
		{ "chakra-rank-map 1\nranks 2\nclass 0 a\n1-0 0\n", "t.ranks:4: rank range 1-0 is empty" },
		{ "chakra-rank-map 1\nranks 2\nclass 0 a\n0 0\n0 0\n", "t.ranks:5: rank 0 is given twice" },
		{ "chakra-rank-map 1\nranks 2\nclass 0 a\n0 0\n", "t.ranks:5: rank 1 has no class" },
		{ "chakra-rank-map 1\nranks 2\nclass 0 a peers 3\n0 0 peers 1 2\n", "t.ranks:4: 2 peers, but class 0 declares 1" },
		{ "chakra-rank-map 1\nranks 2\nclass 0 a peers 3 groups g\n0 0 peers 1\n", "t.ranks:4: give the groups of class 0 too" },
		{ "chakra-rank-map 1\nranks 2\nclass 0 \"a\n", "t.ranks:3: a quoted token has no closing" },
		{ "chakra-rank-map 1\nranks 2\nclass 0 \"a\"b\n", "t.ranks:3: a quoted token must be followed" },
		{ "chakra-rank-map 1\nranks 2\nclass 0 a\nx 0\n", "t.ranks:4: expected a rank" },
		{ "chakra-rank-map 1\nranks 2\nranks 3\n", "t.ranks:3: 'ranks' is given twice" },
		{ "chakra-rank-map 1\nranks 1\nclass 0 a\nclass 1 b\n", "t.ranks:4: more classes than ranks" },
		{ "chakra-rank-map 1\nranks 2\nclass 0 a frob\n", "t.ranks:3: expected 'peers' or 'groups', not 'frob'" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		m = NULL;
		int rc = parse(bad[i].text, err, sizeof err, &m);
		CHECK_MSG(rc == CHAKRA_ECORRUPT && !m && strstr(err, bad[i].want), "case %zu: rc %d, '%s'",
		          i, rc, err);
	}
	/* A NUL inside the text is an error, not a short string. */
	const char nul[] = "chakra-rank-map 1\nranks 1\nclass 0 a\0b\n0 0\n";
	m = NULL;
	CHECK(chakra_rank_map_parse(&m, "n", nul, sizeof nul - 1, err, sizeof err) == CHAKRA_ECORRUPT &&
	      strstr(err, "n:3: a token holds a NUL byte"));
	CHECK(chakra_rank_map_load(&m, "/nonexistent/x.ranks", err, sizeof err) == CHAKRA_EIO &&
	      strstr(err, "/nonexistent/x.ranks: "));
}

/* A map over two class files: every rank's feeder sees its own values. */
static void test_workload(void)
{
	char path[512], a[512], b[512];
	snprintf(a, sizeof a, "%s/w.c0.et", dir);
	snprintf(b, sizeof b, "%s/w.c1.et", dir);
	write_class(a, 10, "grpA");
	write_class(b, 20, "grpB");
	snprintf(path, sizeof path, "%s/w.ranks", dir);
	FILE *f = fopen(path, "w");
	fputs("chakra-rank-map 1\nranks 4\nclass 0 w.c0.et peers 10 11 groups grpA\n"
	      "class 1 w.c1.et peers 20\n0 0\n1 0 peers 12 13 groups other\n2-3 1 peers 30\n", f);
	fclose(f);
	CHECK(chakra_rank_map_is(path) && !chakra_rank_map_is(a) && !chakra_rank_map_is(dir));
	char prefix[512];
	snprintf(prefix, sizeof prefix, "%s/w", dir);
	static const int64_t dst[4] = { 10, 12, 30, 30 }, src[4] = { 11, 13, 21, 21 };
	static const char *const pg[4] = { "grpA", "other", "grpB", "grpB" };
	/* Through PREFIX (PREFIX.ranks) and through the map's own path. */
	for (int via = 0; via < 2; via++) {
		chakra_workload *w = NULL;
		CHECK_MSG(chakra_workload_open(&w, via ? path : prefix, NULL) == 0, "%s",
		          w ? chakra_workload_errmsg(w) : "");
		CHECK(chakra_workload_size(w) == 4 && chakra_workload_rank_map(w));
		for (size_t r = 0; r < 4; r++) {
			chakra_feeder *fd = chakra_workload_feeder(w, r);
			CHECK(fd && chakra_workload_feeder(w, r) == fd); /* opened once */
			const chakra_node *n;
			int64_t v;
			const char *s;
			size_t len;
			int seen = 0;
			while (fd && chakra_feeder_next(fd, &n) > 0) {
				if (chakra_node_comm_dst(n, &v) == 0) {
					CHECK_EQ_U(v, dst[r]);
					seen++;
				}
				if (chakra_node_comm_src(n, &v) == 0) {
					CHECK_EQ_U(v, src[r]);
					seen++;
				}
				if (chakra_node_pg_name(n, &s, &len) == 0) {
					CHECK(len == strlen(pg[r]) && !memcmp(s, pg[r], len));
					seen++;
				}
				if (chakra_node_get_int(n, "comm_dstx", &v) == 0) { /* not a peer: as written */
					CHECK_EQ_U(v, r < 2 ? 10 : 20);
					seen++;
				}
				chakra_feeder_complete(fd, chakra_node_id(n));
			}
			CHECK_EQ_U(seen, 4);
		}
		chakra_workload_close(w);
	}
	/* A rank whose class file is missing: NULL and the reason, later ranks
	 * still open. */
	f = fopen(path, "w");
	fputs("chakra-rank-map 1\nranks 2\nclass 0 w.c0.et\nclass 1 gone.et\n0 0\n1 1\n", f);
	fclose(f);
	chakra_workload *w = NULL;
	CHECK(chakra_workload_open(&w, prefix, NULL) == 0);
	CHECK(chakra_workload_feeder(w, 1) == NULL && strstr(chakra_workload_errmsg(w), "rank 1: ") &&
	      strstr(chakra_workload_errmsg(w), "gone.et"));
	CHECK(chakra_workload_feeder(w, 0) != NULL);
	chakra_workload_close(w);
	/* A broken map: the open fails with its line. */
	f = fopen(path, "w");
	fputs("chakra-rank-map 1\nranks 2\nclass 0 w.c0.et\n0 0\n", f);
	fclose(f);
	w = NULL;
	CHECK(chakra_workload_open(&w, prefix, NULL) == CHAKRA_ECORRUPT &&
	      strstr(chakra_workload_errmsg(w), "w.ranks:5: rank 1 has no class"));
	chakra_workload_close(w);
	/* A bad options version is refused at open, as for files. */
	chakra_feeder_options o = CHAKRA_FEEDER_OPTIONS_INIT;
	o.version = 99;
	f = fopen(path, "w");
	fputs("chakra-rank-map 1\nranks 1\nclass 0 w.c0.et\n0 0\n", f);
	fclose(f);
	w = NULL;
	CHECK(chakra_workload_open(&w, prefix, &o) == CHAKRA_EINVAL &&
	      strstr(chakra_workload_errmsg(w), "version 99"));
	chakra_workload_close(w);
	unlink(a);
	unlink(b);
	unlink(path);
}

/* The feeder option by itself, and its copy (the caller's arrays may go). */
static void test_feeder_subst(void)
{
	char a[512];
	snprintf(a, sizeof a, "%s/f.et", dir);
	write_class(a, 5, "p");
	int64_t *from = malloc(2 * sizeof *from), *to = malloc(2 * sizeof *to);
	char *gf = strdup("p"), *gt = strdup("q");
	from[0] = 5;
	to[0] = 50;
	from[1] = 6;
	to[1] = 60;
	const char *gfa[1] = { gf }, *gta[1] = { gt };
	chakra_rank_subst s = { 2, from, to, 1, gfa, gta };
	chakra_feeder_options o = CHAKRA_FEEDER_OPTIONS_INIT;
	o.subst = &s;
	chakra_feeder *f = NULL;
	CHECK(chakra_feeder_open(&f, a, &o) == 0);
	free(from);
	free(to);
	free(gf);
	free(gt);
	const chakra_node *n;
	int64_t v = 0;
	CHECK(chakra_feeder_next(f, &n) > 0 && chakra_node_comm_dst(n, &v) == 0 && v == 50);
	chakra_feeder_complete(f, chakra_node_id(n));
	CHECK(chakra_feeder_next(f, &n) > 0 && chakra_node_comm_src(n, &v) == 0 && v == 60);
	chakra_feeder_complete(f, chakra_node_id(n));
	const char *pg;
	size_t len;
	CHECK(chakra_feeder_next(f, &n) > 0 && chakra_node_pg_name(n, &pg, &len) == 0 && len == 1 &&
	      pg[0] == 'q');
	chakra_feeder_close(f);
	/* Version 2 options have no subst: the file as written. */
	o.version = 2;
	CHECK(chakra_feeder_open(&f, a, &o) == 0);
	CHECK(chakra_feeder_next(f, &n) > 0 && chakra_node_comm_dst(n, &v) == 0 && v == 5);
	chakra_feeder_close(f);
	unlink(a);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_parse();
	test_workload();
	test_feeder_subst();
	rmdir(dir);
	return check_done();
}
