/* SPDX-License-Identifier: Apache-2.0 */
/* The feeder on crafted traces (one per diagnostic) and on real data. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chakra/chakra.h"
#include "check.h"
#include "membuf.h"
#include "memsrc.h"

/* ---- crafted traces, written through the public writer into memory ---- */

#define END UINT64_MAX
typedef struct spec {
	uint64_t id;
	uint64_t data[8]; /* END-terminated */
	uint64_t ctrl[8];
} spec;

/* Trace of the given nodes in this file order; name "n<id>". */
static membuf build(const spec *s, size_t n)
{
	membuf m = { 0 };
	chakra_writer *w;
	chakra_builder *b = chakra_builder_new();
	CHECK(chakra_writer_open_cb(&w, mem_write, &m, NULL) == 0);
	CHECK(chakra_writer_write_metadata(w, "0.0.4", NULL) == 0);
	char name[32];
	for (size_t i = 0; i < n; i++) {
		chakra_builder_reset(b);
		chakra_builder_set_id(b, s[i].id);
		snprintf(name, sizeof name, "n%llu", (unsigned long long)s[i].id);
		chakra_builder_set_name(b, name, (size_t)-1);
		chakra_builder_set_type(b, CHAKRA_COMP_NODE);
		chakra_builder_set_duration_micros(b, s[i].id * 10);
		for (int k = 0; k < 8 && s[i].data[k] != END; k++)
			chakra_builder_add_data_dep(b, s[i].data[k]);
		for (int k = 0; k < 8 && s[i].ctrl[k] != END; k++)
			chakra_builder_add_ctrl_dep(b, s[i].ctrl[k]);
		chakra_builder_attr_int(b, "num_ops", CHAKRA_ATTR_INT64, (int64_t)s[i].id + 1000);
		CHECK(chakra_writer_write_node(w, b) == 0);
	}
	CHECK(chakra_writer_finish(w) == 0);
	chakra_writer_close(w);
	chakra_builder_free(b);
	return m;
}

#define N(id_, ...) { id_, { __VA_ARGS__ }, { END } }
#define D(...) { __VA_ARGS__, END }
#define NONE { END }
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static chakra_feeder *open_mem(const membuf *m, chakra_deps deps, chakra_order order,
                               uint64_t window, int strict)
{
	chakra_feeder_options o = CHAKRA_FEEDER_OPTIONS_INIT;
	o.deps = deps;
	o.order = order;
	o.window = window;
	o.strict = strict;
	chakra_feeder *f;
	int rc = chakra_feeder_open_buffer(&f, m->p, m->len, &o);
	CHECK_MSG(rc == 0, "%s", chakra_feeder_errmsg(f));
	return f;
}

/* Feed one node at a time to the end: ids into out; returns the final rc
 * (0 = clean end). */
static int feed_all(chakra_feeder *f, uint64_t *out, size_t cap, size_t *n)
{
	const chakra_node *node;
	int rc;
	*n = 0;
	while ((rc = chakra_feeder_next(f, &node)) > 0) {
		if (*n < cap)
			out[*n] = chakra_node_id(node);
		(*n)++;
		int c = chakra_feeder_complete(f, chakra_node_id(node));
		CHECK(c == 0);
	}
	return rc;
}

static int has(const char *s, const char *sub)
{
	int ok = strstr(s, sub) != NULL;
	if (!ok)
		fprintf(stderr, "  message lacks \"%s\":\n%s\n", sub, s);
	return ok;
}

/* ---- tests ---- */

static void test_ctrl_only_dep(void)
{
	spec s[] = { { 1, NONE, NONE }, { 2, NONE, D(1) } };
	membuf m = build(s, COUNT(s));
	const chakra_node *n;
	/* Control deps gate: 2 waits until 1 completes. */
	for (int deps = CHAKRA_DEPS_CTRL; deps <= CHAKRA_DEPS_BOTH; deps++) {
		chakra_feeder *f = open_mem(&m, (chakra_deps)deps, CHAKRA_ORDER_ID, 0, 0);
		CHECK(chakra_feeder_next(f, &n) == 1 && chakra_node_id(n) == 1);
		CHECK(chakra_feeder_next(f, &n) == 0);
		CHECK_EQ_U(chakra_feeder_held_count(f), 2);
		CHECK_EQ_U(chakra_feeder_ready_count(f), 0);
		CHECK_EQ_U(chakra_feeder_inflight_count(f), 1);
		CHECK(chakra_feeder_complete(f, 1) == 0);
		CHECK(chakra_feeder_next(f, &n) == 1 && chakra_node_id(n) == 2);
		CHECK(chakra_feeder_complete(f, 2) == 0);
		CHECK(chakra_feeder_next(f, &n) == 0);
		CHECK(!chakra_feeder_has_more(f));
		chakra_feeder_close(f);
	}
	/* Data deps only (the reference): 2 is ready at once. */
	chakra_feeder *f = open_mem(&m, CHAKRA_DEPS_DATA, CHAKRA_ORDER_ID, 0, 0);
	CHECK(chakra_feeder_next(f, &n) == 1 && chakra_node_id(n) == 1);
	CHECK(chakra_feeder_next(f, &n) == 1 && chakra_node_id(n) == 2);
	chakra_feeder_close(f);
	free(m.p);
}

static void test_missing_parent(void)
{
	spec s[] = { { 1, NONE, NONE }, { 2, D(1), NONE }, { 3, D(99), NONE }, { 4, D(3), NONE } };
	membuf m = build(s, COUNT(s));
	chakra_feeder *f = open_mem(&m, CHAKRA_DEPS_DATA, CHAKRA_ORDER_ID, 0, 0);
	uint64_t ids[8];
	size_t n;
	int rc = feed_all(f, ids, 8, &n);
	CHECK(rc == CHAKRA_EDEP);
	CHECK_EQ_U(n, 2);
	const char *e = chakra_feeder_errmsg(f);
	CHECK(has(e, "2 nodes cannot be issued"));
	CHECK(has(e, "node 3 (node index 2, byte "));
	CHECK(has(e, "waits for parent 99, which never appears in the file"));
	CHECK(has(e, "node 4 waits for 3 (blocked)"));
	CHECK(!strstr(e, "cycle"));
	/* The error sticks. */
	const chakra_node *node;
	CHECK(chakra_feeder_next(f, &node) == CHAKRA_EDEP);
	chakra_feeder_close(f);
	free(m.p);
}

static void test_cycle(void)
{
	spec s[] = { { 1, NONE, NONE }, { 2, D(4), NONE }, { 3, D(2), NONE }, { 4, D(3), NONE },
	             { 5, D(2, 77), NONE } };
	membuf m = build(s, COUNT(s));
	chakra_feeder *f = open_mem(&m, CHAKRA_DEPS_DATA, CHAKRA_ORDER_ID, 0, 0);
	uint64_t ids[8];
	size_t n;
	CHECK(feed_all(f, ids, 8, &n) == CHAKRA_ECYCLE);
	CHECK_EQ_U(n, 1);
	const char *e = chakra_feeder_errmsg(f);
	CHECK(has(e, "dependency cycle of 3 nodes (each waits for the next): "));
	CHECK(strstr(e, "2 -> 4 -> 3 -> 2") || strstr(e, "4 -> 3 -> 2 -> 4") ||
	      strstr(e, "3 -> 2 -> 4 -> 3"));
	CHECK(has(e, "waits for parent 77, which never appears"));
	chakra_feeder_close(f);
	free(m.p);
}

/* A control edge that closes a cycle with a data edge (as real traces
 * have): dropped with a warning, or a cycle error when strict. */
static void test_ctrl_cycle(void)
{
	spec s[] = { { 1, NONE, D(2) }, { 2, D(1), NONE }, { 3, D(2), D(1) } };
	membuf m = build(s, COUNT(s));
	uint64_t ids[8];
	size_t n;
	chakra_feeder *f = open_mem(&m, CHAKRA_DEPS_BOTH, CHAKRA_ORDER_ID, 0, 0);
	CHECK(feed_all(f, ids, 8, &n) == 0);
	CHECK(n == 3 && ids[0] == 1 && ids[1] == 2 && ids[2] == 3);
	CHECK_EQ_U(chakra_feeder_warning_count(f), 1);
	CHECK_EQ_U(chakra_feeder_cycle_break_count(f), 1);
	chakra_feeder_close(f);
	f = open_mem(&m, CHAKRA_DEPS_BOTH, CHAKRA_ORDER_ID, 0, 1);
	CHECK(feed_all(f, ids, 8, &n) == CHAKRA_ECYCLE);
	CHECK(n == 0);
	CHECK(strstr(chakra_feeder_errmsg(f), "1 -> 2 -> 1") || strstr(chakra_feeder_errmsg(f), "2 -> 1 -> 2"));
	CHECK(has(chakra_feeder_errmsg(f), "strict"));
	chakra_feeder_close(f);
	free(m.p);
}

/* Many such cycles in a long trace: they are broken while reading on
 * (reading further cannot resolve a cycle), so memory stays within a few
 * windows instead of growing to the end of the file. */
static void test_ctrl_cycles_bounded(void)
{
	enum { K = 20000 };
	spec *s = calloc(K, sizeof *s);
	for (int i = 0; i < K; i++) {
		s[i].id = (uint64_t)i;
		s[i].data[0] = i % 2 ? (uint64_t)i - 1 : END; /* odd waits for even (data) */
		s[i].data[1] = END;
		s[i].ctrl[0] = i % 2 ? END : (uint64_t)i + 1; /* even waits for odd (ctrl) */
		s[i].ctrl[1] = END;
	}
	membuf m = build(s, K);
	chakra_feeder *f = open_mem(&m, CHAKRA_DEPS_BOTH, CHAKRA_ORDER_ID, 100, 0);
	const chakra_node *n;
	uint64_t count = 0, max_held = 0, last_even = 0;
	int rc, order_ok = 1;
	while ((rc = chakra_feeder_next(f, &n)) > 0) {
		uint64_t id = chakra_node_id(n);
		if (id % 2 == 0)
			last_even = id;
		else if (last_even != id - 1)
			order_ok = 0; /* the data edge is always honoured */
		if (chakra_feeder_held_count(f) > max_held)
			max_held = chakra_feeder_held_count(f);
		count++;
		CHECK(chakra_feeder_complete(f, id) == 0);
	}
	CHECK_MSG(rc == 0, "%s", chakra_feeder_errmsg(f));
	CHECK_EQ_U(count, K);
	CHECK(order_ok);
	CHECK_EQ_U(chakra_feeder_cycle_break_count(f), K / 2);
	CHECK_MSG(max_held <= 400, "held up to %llu nodes", (unsigned long long)max_held);
	chakra_feeder_close(f);
	/* Strict: the first cycle is an error before the end of the file. */
	f = open_mem(&m, CHAKRA_DEPS_BOTH, CHAKRA_ORDER_ID, 100, 1);
	CHECK(chakra_feeder_next(f, &n) == CHAKRA_ECYCLE);
	CHECK(has(chakra_feeder_errmsg(f), "reading on cannot resolve"));
	chakra_feeder_close(f);
	free(m.p);
	free(s);
}

static void test_duplicate_id(void)
{
	spec s[] = { { 1, NONE, NONE }, { 2, D(1), NONE }, { 1, NONE, NONE } };
	membuf m = build(s, COUNT(s));
	uint64_t ids[8];
	size_t n;
	/* Both copies held at once. */
	chakra_feeder *f = open_mem(&m, CHAKRA_DEPS_DATA, CHAKRA_ORDER_ID, 0, 0);
	CHECK(feed_all(f, ids, 8, &n) == CHAKRA_EDUP);
	CHECK(has(chakra_feeder_errmsg(f), "node index 2 (message at byte "));
	CHECK(has(chakra_feeder_errmsg(f), "duplicate node id 1 (first at node index 0"));
	chakra_feeder_close(f);
	/* The first copy already completed when the second is read. */
	f = open_mem(&m, CHAKRA_DEPS_DATA, CHAKRA_ORDER_ID, 1, 0);
	CHECK(feed_all(f, ids, 8, &n) == CHAKRA_EDUP);
	CHECK(has(chakra_feeder_errmsg(f), "already completed"));
	chakra_feeder_close(f);
	free(m.p);
}

static void test_self_deps(void)
{
	spec s[] = { { 1, NONE, NONE }, { 2, D(2), NONE } };
	membuf m = build(s, COUNT(s));
	uint64_t ids[8];
	size_t n;
	chakra_feeder *f = open_mem(&m, CHAKRA_DEPS_DATA, CHAKRA_ORDER_ID, 0, 0);
	CHECK(feed_all(f, ids, 8, &n) == CHAKRA_ESELFDEP);
	CHECK(has(chakra_feeder_errmsg(f), "node id 2 (node index 1, byte "));
	CHECK(has(chakra_feeder_errmsg(f), "lists itself as a data dependency"));
	chakra_feeder_close(f);
	/* A data self edge does not gate in ctrl mode. */
	f = open_mem(&m, CHAKRA_DEPS_CTRL, CHAKRA_ORDER_ID, 0, 0);
	CHECK(feed_all(f, ids, 8, &n) == 0 && n == 2);
	chakra_feeder_close(f);
	free(m.p);

	/* Self control edges: a warning, or an error when strict. */
	spec c[] = { { 1, NONE, D(1) }, { 2, D(1), D(2, 50) } };
	m = build(c, COUNT(c));
	f = open_mem(&m, CHAKRA_DEPS_BOTH, CHAKRA_ORDER_ID, 0, 0);
	CHECK(feed_all(f, ids, 8, &n) == 0);
	CHECK(n == 2 && ids[0] == 1 && ids[1] == 2);
	CHECK_EQ_U(chakra_feeder_warning_count(f), 3); /* 1->1, 2->2, 2->50 (absent) */
	chakra_feeder_close(f);
	f = open_mem(&m, CHAKRA_DEPS_BOTH, CHAKRA_ORDER_ID, 0, 1);
	CHECK(feed_all(f, ids, 8, &n) == CHAKRA_ESELFDEP);
	CHECK(has(chakra_feeder_errmsg(f), "node id 1 (node index 0, byte "));
	CHECK(has(chakra_feeder_errmsg(f), "itself as a control dependency (strict)"));
	chakra_feeder_close(f);
	free(m.p);
}

static void test_strict_absent_ctrl(void)
{
	spec s[] = { { 1, NONE, NONE }, { 2, D(1), D(40) }, { 3, NONE, D(2) } };
	membuf m = build(s, COUNT(s));
	uint64_t ids[8];
	size_t n;
	chakra_feeder *f = open_mem(&m, CHAKRA_DEPS_BOTH, CHAKRA_ORDER_ID, 0, 0);
	CHECK(feed_all(f, ids, 8, &n) == 0);
	CHECK(n == 3 && ids[0] == 1 && ids[1] == 2 && ids[2] == 3);
	CHECK_EQ_U(chakra_feeder_warning_count(f), 1);
	chakra_feeder_close(f);
	f = open_mem(&m, CHAKRA_DEPS_BOTH, CHAKRA_ORDER_ID, 0, 1);
	CHECK(feed_all(f, ids, 8, &n) == CHAKRA_EDEP);
	CHECK(has(chakra_feeder_errmsg(f), "node id 2 (node index 1, byte "));
	CHECK(has(chakra_feeder_errmsg(f), "control dependency on id 40, which never appears"));
	chakra_feeder_close(f);
	/* Data mode never looks at control edges. */
	f = open_mem(&m, CHAKRA_DEPS_DATA, CHAKRA_ORDER_ID, 0, 1);
	CHECK(feed_all(f, ids, 8, &n) == 0 && n == 3);
	CHECK_EQ_U(chakra_feeder_warning_count(f), 0);
	chakra_feeder_close(f);
	free(m.p);
}

static void test_parent_twice(void)
{
	spec s[] = { { 1, NONE, NONE }, { 2, D(1, 1), NONE }, { 3, D(2, 1, 2), D(2) } };
	membuf m = build(s, COUNT(s));
	const chakra_node *n;
	for (uint64_t window = 0; window <= 1; window++) {
		chakra_feeder *f = open_mem(&m, CHAKRA_DEPS_BOTH, CHAKRA_ORDER_ID, window, 0);
		CHECK(chakra_feeder_next(f, &n) == 1 && chakra_node_id(n) == 1);
		CHECK(chakra_feeder_complete(f, 1) == 0);
		/* One completion of 1 is enough although 2 lists it twice. */
		CHECK(chakra_feeder_next(f, &n) == 1 && chakra_node_id(n) == 2);
		CHECK(chakra_feeder_complete(f, 2) == 0);
		CHECK(chakra_feeder_next(f, &n) == 1 && chakra_node_id(n) == 3);
		CHECK(chakra_feeder_complete(f, 3) == 0);
		CHECK(chakra_feeder_next(f, &n) == 0 && !chakra_feeder_has_more(f));
		/* 2: 1 twice; 3: 2 twice in data, once more in ctrl. */
		CHECK_EQ_U(chakra_feeder_duplicate_dep_count(f), 3);
		chakra_feeder_close(f);
	}
	free(m.p);
}

static void test_complete_errors_and_push_back(void)
{
	spec s[] = { { 1, NONE, NONE }, { 2, D(1), NONE }, { 3, NONE, NONE } };
	membuf m = build(s, COUNT(s));
	chakra_feeder *f = open_mem(&m, CHAKRA_DEPS_DATA, CHAKRA_ORDER_ID, 0, 0);
	const chakra_node *n;
	CHECK(chakra_feeder_complete(f, 1) == CHAKRA_ESTATE); /* nothing read yet */
	CHECK(has(chakra_feeder_errmsg(f), "no node with this id has been read"));
	CHECK(chakra_feeder_next(f, &n) == 1 && chakra_node_id(n) == 1);
	CHECK(chakra_feeder_complete(f, 3) == CHAKRA_ESTATE);
	CHECK(has(chakra_feeder_errmsg(f), "complete node id 3: not in flight: it is ready"));
	CHECK(chakra_feeder_complete(f, 2) == CHAKRA_ESTATE);
	CHECK(has(chakra_feeder_errmsg(f), "waiting for its parents"));
	/* push_back: 1 goes back to the ready set and is issued again. */
	CHECK(chakra_feeder_push_back(f, 1) == 0);
	CHECK_EQ_U(chakra_feeder_inflight_count(f), 0);
	CHECK_EQ_U(chakra_feeder_ready_count(f), 2);
	CHECK(chakra_feeder_push_back(f, 1) == CHAKRA_ESTATE);
	CHECK(chakra_feeder_next(f, &n) == 1 && chakra_node_id(n) == 1);
	CHECK_EQ_U(chakra_feeder_issued_count(f), 2);
	CHECK(chakra_feeder_complete(f, 1) == 0);
	CHECK(chakra_feeder_complete(f, 1) == CHAKRA_ESTATE);
	CHECK(has(chakra_feeder_errmsg(f), "it was already completed"));
	CHECK(chakra_feeder_complete(f, 12345) == CHAKRA_ESTATE);
	/* Nothing was corrupted: the rest feeds normally. */
	CHECK(chakra_feeder_next(f, &n) == 1 && chakra_node_id(n) == 2);
	CHECK(chakra_feeder_next(f, &n) == 1 && chakra_node_id(n) == 3);
	CHECK(chakra_feeder_complete(f, 3) == 0 && chakra_feeder_complete(f, 2) == 0);
	CHECK(chakra_feeder_next(f, &n) == 0 && !chakra_feeder_has_more(f));
	CHECK_EQ_U(chakra_feeder_completed_count(f), 3);
	chakra_feeder_close(f);
	free(m.p);
}

static void test_lookup_lazy(void)
{
	spec s[] = { { 10, NONE, NONE }, { 20, D(10), D(10) }, { 30, D(20), NONE } };
	membuf m = build(s, COUNT(s));
	chakra_feeder *f = open_mem(&m, CHAKRA_DEPS_DATA, CHAKRA_ORDER_ID, 0, 0);
	const chakra_node *n, *held;
	CHECK(chakra_feeder_next(f, &n) == 1 && chakra_node_id(n) == 10);
	held = chakra_feeder_lookup(f, 20); /* blocked, but held */
	CHECK(held != NULL);
	if (held) {
		size_t len;
		CHECK(!strcmp(chakra_node_name(held, &len), "n20") && len == 3);
		CHECK_EQ_U(chakra_node_duration_micros(held), 200);
		CHECK_EQ_U(chakra_node_data_dep_count(held), 1);
		CHECK_EQ_U(chakra_node_ctrl_dep_count(held), 1);
		uint64_t ops = 0;
		CHECK(chakra_node_num_ops(held, &ops) == 0 && ops == 1020);
		CHECK_EQ_U(chakra_node_index(held), 1);
	}
	CHECK(!strcmp(chakra_node_name(n, NULL), "n10"));
	CHECK(chakra_feeder_lookup(f, 99) == NULL);
	CHECK(chakra_feeder_complete(f, 10) == 0);
	CHECK(chakra_feeder_lookup(f, 10) == NULL); /* completed: gone */
	CHECK(chakra_feeder_next(f, &n) == 1 && n == held);
	chakra_feeder_close(f);
	free(m.p);
}

static void test_order_file(void)
{
	spec s[] = { { 3, NONE, NONE }, { 1, NONE, NONE }, { 2, NONE, NONE }, { 0, D(3), NONE } };
	membuf m = build(s, COUNT(s));
	uint64_t ids[8];
	size_t n;
	chakra_feeder *f = open_mem(&m, CHAKRA_DEPS_DATA, CHAKRA_ORDER_ID, 0, 0);
	CHECK(feed_all(f, ids, 8, &n) == 0 && n == 4);
	CHECK(ids[0] == 1 && ids[1] == 2 && ids[2] == 3 && ids[3] == 0);
	chakra_feeder_close(f);
	f = open_mem(&m, CHAKRA_DEPS_DATA, CHAKRA_ORDER_FILE, 0, 0);
	CHECK(feed_all(f, ids, 8, &n) == 0 && n == 4);
	CHECK(ids[0] == 3 && ids[1] == 1 && ids[2] == 2 && ids[3] == 0); /* ready: by file index */
	chakra_feeder_close(f);
	free(m.p);
}

/* Parents later in the file than their children, with a window of 1:
 * the feeder reads on as far as needed and stays small otherwise. */
static void test_parent_later_small_window(void)
{
	enum { K = 2000 };
	spec *s = calloc(K, sizeof *s);
	/* File order: child 0 needs the last node; then a chain 1..K-1. */
	for (int i = 0; i < K; i++) {
		s[i].id = (uint64_t)i;
		s[i].data[0] = i == 0 ? K - 1 : (i == 1 ? END : (uint64_t)i - 1);
		s[i].data[1] = END;
		s[i].ctrl[0] = END;
	}
	membuf m = build(s, K);
	chakra_feeder *f = open_mem(&m, CHAKRA_DEPS_DATA, CHAKRA_ORDER_ID, 1, 0);
	const chakra_node *n;
	uint64_t expect = 1, max_held = 0;
	int rc;
	while ((rc = chakra_feeder_next(f, &n)) > 0) {
		uint64_t want = expect == K ? 0 : expect;
		CHECK_EQ_U(chakra_node_id(n), want);
		expect++;
		if (chakra_feeder_held_count(f) > max_held)
			max_held = chakra_feeder_held_count(f);
		CHECK(chakra_feeder_complete(f, chakra_node_id(n)) == 0);
	}
	CHECK(rc == 0);
	CHECK_EQ_U(expect, K + 1);
	CHECK(max_held <= 3); /* node 0 waiting + the one in flight */
	chakra_feeder_close(f);
	free(m.p);
	free(s);
}

/* ---- callback style ---- */
typedef struct cbstate {
	int depth, max_depth;
	uint64_t count, last;
	int order_ok;
} cbstate;

static void on_ready(void *data, chakra_feeder *f, const chakra_node *n)
{
	cbstate *st = data;
	st->depth++;
	if (st->depth > st->max_depth)
		st->max_depth = st->depth;
	uint64_t id = chakra_node_id(n);
	if (st->count && id != st->last + 1)
		st->order_ok = 0;
	st->last = id;
	st->count++;
	/* Completing from inside the callback issues the child through the
	 * outer loop, not by recursing. */
	CHECK(chakra_feeder_complete(f, id) == 0);
	st->depth--;
}

static void test_callback_reentrant(void)
{
	enum { K = 20000 };
	spec *s = calloc(K, sizeof *s);
	for (int i = 0; i < K; i++) {
		s[i].id = (uint64_t)i;
		s[i].data[0] = i ? (uint64_t)i - 1 : END;
		s[i].data[1] = END;
		s[i].ctrl[0] = END;
	}
	membuf m = build(s, K);
	cbstate st = { 0, 0, 0, 0, 1 };
	chakra_feeder_options o = CHAKRA_FEEDER_OPTIONS_INIT;
	o.ready_cb = on_ready;
	o.data = &st;
	o.window = 100;
	chakra_feeder *f;
	CHECK(chakra_feeder_open_buffer(&f, m.p, m.len, &o) == 0);
	CHECK(chakra_feeder_drive(f) == 0);
	CHECK_EQ_U(st.count, K);
	CHECK(st.order_ok);
	CHECK_EQ_U(st.max_depth, 1);
	CHECK(!chakra_feeder_has_more(f));
	chakra_feeder_close(f);
	free(m.p);
	free(s);
}

/* Callback style where the simulator completes later (outside the
 * callback): complete() issues the newly ready children. */
static uint64_t later_ids[16];
static size_t later_n;
static void on_ready_later(void *data, chakra_feeder *f, const chakra_node *n)
{
	(void)data;
	(void)f;
	if (later_n < 16)
		later_ids[later_n++] = chakra_node_id(n);
}

static void test_callback_deferred(void)
{
	spec s[] = { { 1, NONE, NONE }, { 2, D(1), NONE }, { 3, D(1), NONE }, { 4, D(2, 3), NONE } };
	membuf m = build(s, COUNT(s));
	chakra_feeder_options o = CHAKRA_FEEDER_OPTIONS_INIT;
	o.ready_cb = on_ready_later;
	chakra_feeder *f;
	CHECK(chakra_feeder_open_buffer(&f, m.p, m.len, &o) == 0);
	CHECK(chakra_feeder_drive(f) == 0);
	CHECK(later_n == 1 && later_ids[0] == 1);
	CHECK(chakra_feeder_complete(f, 1) == 0);
	CHECK(later_n == 3 && later_ids[1] == 2 && later_ids[2] == 3);
	CHECK(chakra_feeder_complete(f, 3) == 0);
	CHECK(later_n == 3);
	CHECK(chakra_feeder_complete(f, 2) == 0);
	CHECK(later_n == 4 && later_ids[3] == 4);
	CHECK(chakra_feeder_complete(f, 4) == 0);
	CHECK(!chakra_feeder_has_more(f));
	chakra_feeder_close(f);
	free(m.p);
}

static void test_truncated(void)
{
	spec s[] = { { 1, NONE, NONE }, { 2, D(1), NONE }, { 3, D(2), NONE } };
	membuf m = build(s, COUNT(s));
	chakra_feeder *f;
	chakra_feeder_options o = CHAKRA_FEEDER_OPTIONS_INIT;
	CHECK(chakra_feeder_open_buffer(&f, m.p, m.len - 3, &o) == 0);
	uint64_t ids[8];
	size_t n;
	int rc = feed_all(f, ids, 8, &n);
	CHECK(rc == CHAKRA_ETRUNC);
	CHECK(has(chakra_feeder_errmsg(f), "<memory>"));
	CHECK(has(chakra_feeder_errmsg(f), "byte"));
	chakra_feeder_close(f);
	/* Not a trace at all. */
	CHECK(chakra_feeder_open_buffer(&f, "\x05garbage", 8, &o) < 0);
	CHECK(f != NULL && strlen(chakra_feeder_errmsg(f)) > 0);
	chakra_feeder_close(f);
	free(m.p);
}

/* Lazy mode issues a node with its message still in the framer's
 * buffer, which keeps it (and every queued node's) until the node
 * completes, moving the bytes as it compacts and grows: with several
 * nodes in flight, names growing to 24 KB and some of 70 KB, read in
 * 3000-byte pieces, must be intact when read right after issue and again
 * before completion, and when first read only before completion, after
 * the bytes moved (under ASan, a message freed too early shows; a view
 * left behind by a move decodes the wrong bytes). */
static void test_ring_pinned_messages(void)
{
	membuf m = { 0 };
	chakra_writer *w;
	chakra_builder *b = chakra_builder_new();
	CHECK(chakra_writer_open_cb(&w, mem_write, &m, NULL) == 0);
	CHECK(chakra_writer_write_metadata(w, "0.0.4", NULL) == 0);
	enum { NODES = 400 };
	static char name[70500];
	for (unsigned i = 0; i < NODES; i++) {
		chakra_builder_reset(b);
		chakra_builder_set_id(b, i);
		/* growing: the ring must grow; and some over 64 KiB, kept out of it */
		size_t len = i % 50 == 7 ? 70000 + i : i % 2 ? 60 * (size_t)i : 8 + i % 50;
		memset(name, 'a' + (char)(i % 26), len);
		snprintf(name, 20, "n%u-", i);
		name[strlen(name)] = 'x';
		chakra_builder_set_name(b, name, len);
		if (i >= 3 && i % 5 == 0)
			chakra_builder_add_data_dep(b, i - 3); /* some wait, most are free */
		CHECK(chakra_writer_write_node(w, b) == 0);
	}
	CHECK(chakra_writer_finish(w) == 0);
	chakra_writer_close(w);
	chakra_builder_free(b);

	for (int pass = 0; pass < 6; pass++) {
		int window = 4 << (pass / 2 * 2), at_issue = pass % 2;
		memsrc src = { m.p, m.len, 0, 3000 };
		chakra_feeder_options o = CHAKRA_FEEDER_OPTIONS_INIT;
		o.window = (uint64_t)window;
		chakra_feeder *f;
		CHECK(chakra_feeder_open_cb(&f, memsrc_read, &src, &o) == 0);
		const chakra_node *fl[4];
		size_t nfl = 0, done = 0, bad = 0;
		int rc = 0;
		for (;;) {
			while (nfl < 4 && (rc = chakra_feeder_next(f, &fl[nfl])) > 0) {
				if (!at_issue) {
					nfl++;
					continue;
				}
				size_t len;
				const char *nm = chakra_node_name(fl[nfl], &len);
				char want[24];
				snprintf(want, sizeof want, "n%llu-", (unsigned long long)chakra_node_id(fl[nfl]));
				bad += strncmp(nm, want, strlen(want)) != 0;
				nfl++;
			}
			if (rc < 0 || nfl == 0)
				break;
			/* Complete the oldest, after checking every name in flight
			 * (only its own when first read now: the others are read
			 * first when their turn comes, after more reading). */
			for (size_t k = 0; k < (at_issue ? nfl : 1); k++) {
				size_t len;
				const char *nm = chakra_node_name(fl[k], &len);
				uint64_t id = chakra_node_id(fl[k]);
				char want[24];
				snprintf(want, sizeof want, "n%llu-", (unsigned long long)id);
				bad += len != (id % 50 == 7 ? 70000 + id : id % 2 ? 60 * id : 8 + id % 50);
				bad += len < strlen(want) || strncmp(nm, want, strlen(want)) != 0;
				bad += len && nm[len - 1] != 'a' + (char)(id % 26);
			}
			CHECK(chakra_feeder_complete(f, chakra_node_id(fl[0])) == 0);
			memmove(fl, fl + 1, --nfl * sizeof fl[0]);
			done++;
		}
		CHECK_MSG(rc == 0, "%s", chakra_feeder_errmsg(f));
		CHECK_EQ_U(done, NODES);
		CHECK_EQ_U(bad, 0);
		chakra_feeder_close(f);
	}
	/* Closed with nodes queued, large ones among them: nothing leaks
	 * (ASan). */
	memsrc src = { m.p, m.len, 0, 3000 };
	chakra_feeder_options o = CHAKRA_FEEDER_OPTIONS_INIT;
	o.window = 16; /* (nodes 1-15 stay queued, node 7 of 70 KB among them) */
	chakra_feeder *f;
	CHECK(chakra_feeder_open_cb(&f, memsrc_read, &src, &o) == 0);
	const chakra_node *n;
	CHECK(chakra_feeder_next(f, &n) == 1);
	chakra_feeder_close(f);
	free(m.p);
}

/* An attribute whose bytes are bad passes the feeder's top-level scan;
 * the first access decodes it, and the feeder then fails with the error
 * (file, node, byte) instead of going on with empty fields. */
static void test_lazy_corrupt_attr(void)
{
	static const unsigned char t[] = {
		7, 0x0a, 5, '0', '.', '0', '.', '4',   /* GlobalMetadata version */
		6, 0x08, 1, 0x52, 2, 0x08, 0xff,       /* Node id 1, attr: bad */
		2, 0x08, 2,                            /* Node id 2 */
	};
	chakra_feeder *f;
	CHECK(chakra_feeder_open_buffer(&f, t, sizeof t, NULL) == 0);
	const chakra_node *n;
	CHECK(chakra_feeder_next(f, &n) == 1 && chakra_node_id(n) == 1);
	CHECK(chakra_node_attr_count(n) == 0); /* the access that fails */
	CHECK(chakra_feeder_complete(f, 1) == CHAKRA_ECORRUPT);
	CHECK(has(chakra_feeder_errmsg(f), "<memory>: node index 0 (id 1, message at byte 8)"));
	CHECK(chakra_feeder_next(f, &n) == CHAKRA_ECORRUPT);
	chakra_feeder_close(f);
	/* Node 2 alone is fine. */
	CHECK(chakra_feeder_open_buffer(&f, t, sizeof t, NULL) == 0);
	uint64_t ids[4];
	size_t k;
	CHECK(feed_all(f, ids, 4, &k) == 0 && k == 2);
	chakra_feeder_close(f);
}

/* Every attribute kind survives the lazy decode (one compact block per
 * node), cross-checked with nanopb. */
static void test_lazy_all_kinds(void)
{
	membuf m = { 0 };
	chakra_writer *w;
	chakra_builder *b = chakra_builder_new();
	CHECK(chakra_writer_open_cb(&w, mem_write, &m, NULL) == 0);
	CHECK(chakra_writer_write_metadata(w, "0.0.4", NULL) == 0);
	chakra_builder_set_id(b, 7);
	chakra_builder_set_name(b, "all-kinds", (size_t)-1);
	chakra_builder_set_io(b, CHAKRA_IO_INPUTS, CHAKRA_IO_SHAPES, "[[2, 3]]", (size_t)-1);
	chakra_builder_attr_int(b, "i", CHAKRA_ATTR_SINT64, -5);
	chakra_builder_attr_set_doc(b, "a doc", (size_t)-1);
	chakra_builder_attr_double(b, "d", CHAKRA_ATTR_DOUBLE, 2.5);
	chakra_builder_attr_string(b, "s", CHAKRA_ATTR_STRING, "hello", (size_t)-1);
	uint64_t lu[3] = { 1, 2, (uint64_t)-3 };
	chakra_builder_attr_list_uint(b, "lu", CHAKRA_ATTR_INT64_LIST, lu, 3);
	double ld[2] = { 0.5, -1.25 };
	chakra_builder_attr_list_double(b, "ld", CHAKRA_ATTR_FLOAT_LIST, ld, 2);
	const char *ls[2] = { "x", "yz" };
	chakra_builder_attr_list_string(b, "ls", CHAKRA_ATTR_STRING_LIST, ls, NULL, 2);
	chakra_builder_attr_empty(b, "none");
	CHECK(chakra_writer_write_node(w, b) == 0);
	CHECK(chakra_writer_finish(w) == 0);
	chakra_writer_close(w);
	chakra_builder_free(b);

	chakra_reader_options ro = CHAKRA_READER_OPTIONS_INIT;
	ro.verify_with_nanopb = 1;
	chakra_feeder_options o = CHAKRA_FEEDER_OPTIONS_INIT;
	o.reader = &ro;
	chakra_feeder *f;
	CHECK(chakra_feeder_open_buffer(&f, m.p, m.len, &o) == 0);
	const chakra_node *n;
	CHECK(chakra_feeder_next(f, &n) == 1);
	CHECK(!strcmp(chakra_node_name(n, NULL), "all-kinds"));
	CHECK(!strcmp(chakra_node_io(n, CHAKRA_IO_INPUTS, CHAKRA_IO_SHAPES, NULL), "[[2, 3]]"));
	CHECK(chakra_node_has_io(n, CHAKRA_IO_INPUTS) && !chakra_node_has_io(n, CHAKRA_IO_OUTPUTS));
	CHECK_EQ_U(chakra_node_attr_count(n), 7);
	int64_t i64 = 0;
	double dv = 0;
	const char *sv;
	size_t len;
	CHECK(chakra_node_get_int(n, "i", &i64) == 0 && i64 == -5);
	CHECK(!strcmp(chakra_attr_doc(chakra_node_attr_find(n, "i"), NULL), "a doc"));
	CHECK(chakra_attr_double(chakra_node_attr_find(n, "d"), &dv) == 0 && dv == 2.5);
	CHECK(chakra_node_get_string(n, "s", &sv, &len) == 0 && len == 5 && !strcmp(sv, "hello"));
	const chakra_attr *a = chakra_node_attr_find(n, "lu");
	CHECK(a && chakra_attr_list_len(a) == 3 && chakra_attr_list_int(a, 2, &i64) == 0 && i64 == -3);
	a = chakra_node_attr_find(n, "ld");
	CHECK(a && chakra_attr_list_len(a) == 2 && chakra_attr_list_double(a, 1, &dv) == 0 &&
	      dv == -1.25);
	a = chakra_node_attr_find(n, "ls");
	CHECK(a && chakra_attr_list_len(a) == 2 && chakra_attr_list_string(a, 1, &sv, &len) == 0 &&
	      len == 2 && !strcmp(sv, "yz"));
	a = chakra_node_attr_find(n, "none");
	CHECK(a && chakra_attr_kind_of(a) == CHAKRA_ATTR_NONE);
	CHECK(chakra_feeder_complete(f, 7) == 0); /* no decode error recorded */
	chakra_feeder_close(f);
	free(m.p);
}

/* ---- real data ---- */

static void test_real_reference_order(void)
{
	size_t olen;
	unsigned char *order = slurp(shared_path("data/chakra/chakra.0.order-v1.txt"), &olen);
	CHECK(order != NULL);
	if (!order)
		return;
	chakra_feeder *f;
	int rc = chakra_feeder_open(&f, shared_path("data/chakra/chakra.0.et.gz"), NULL);
	CHECK_MSG(rc == 0, "%s", chakra_feeder_errmsg(f));
	const chakra_node *n;
	char *p = (char *)order, *end = (char *)order + olen;
	uint64_t count = 0, mismatches = 0;
	while ((rc = chakra_feeder_next(f, &n)) > 0) {
		char *e;
		unsigned long long want = p < end ? strtoull(p, &e, 10) : ~0ull;
		if (p < end)
			p = e + 1;
		if (chakra_node_id(n) != want && mismatches++ < 5)
			fprintf(stderr, "  position %llu: got %llu, reference %llu\n",
			        (unsigned long long)count, (unsigned long long)chakra_node_id(n), want);
		count++;
		CHECK(chakra_feeder_complete(f, chakra_node_id(n)) == 0);
	}
	CHECK(rc == 0);
	CHECK_EQ_U(count, 3664);
	CHECK_EQ_U(mismatches, 0);
	CHECK(p >= end);
	chakra_feeder_close(f);
	free(order);
}

/* Every issued node decodes lazily to the same fields as the reader's
 * eager decode, cross-checked with nanopb. */
static void test_real_lazy_decode(void)
{
	const char *path = shared_path("data/chakra/chakra.0.et.gz");
	chakra_reader *r;
	CHECK(chakra_reader_open(&r, path, NULL) == 0);
	enum { MAXN = 8192 };
	static uint64_t rid[MAXN], rdur[MAXN], rnattr[MAXN], rnamelen[MAXN], rndata[MAXN];
	size_t nr = 0;
	const chakra_node *n;
	while (nr < MAXN && chakra_reader_next(r, &n) > 0) {
		rid[nr] = chakra_node_id(n);
		rdur[nr] = chakra_node_duration_micros(n);
		rnattr[nr] = chakra_node_attr_count(n);
		chakra_node_name(n, &rnamelen[nr]);
		rndata[nr] = chakra_node_data_dep_count(n);
		nr++;
	}
	chakra_reader_close(r);
	chakra_reader_options ro = CHAKRA_READER_OPTIONS_INIT;
	ro.verify_with_nanopb = 1;
	chakra_feeder_options o = CHAKRA_FEEDER_OPTIONS_INIT;
	o.reader = &ro;
	o.deps = CHAKRA_DEPS_BOTH;
	chakra_feeder *f;
	CHECK(chakra_feeder_open(&f, path, &o) == 0);
	int rc;
	uint64_t bad = 0, count = 0, data_order_violations = 0;
	static unsigned char issued[1 << 16];
	memset(issued, 0, sizeof issued);
	while ((rc = chakra_feeder_next(f, &n)) > 0) {
		uint64_t i = chakra_node_index(n);
		/* Data deps are never dropped: every parent was issued before. */
		for (size_t k = 0; k < chakra_node_data_dep_count(n); k++) {
			uint64_t p = chakra_node_data_deps(n)[k];
			if (p >= sizeof issued || !issued[p])
				data_order_violations++;
		}
		if (chakra_node_id(n) < sizeof issued)
			issued[chakra_node_id(n)] = 1;
		size_t len;
		chakra_node_name(n, &len);
		if (i >= nr || rid[i] != chakra_node_id(n) || rdur[i] != chakra_node_duration_micros(n) ||
		    rnattr[i] != chakra_node_attr_count(n) || rnamelen[i] != len ||
		    rndata[i] != chakra_node_data_dep_count(n))
			bad++;
		count++;
		CHECK(chakra_feeder_complete(f, chakra_node_id(n)) == 0);
	}
	/* --deps both feeds this real trace to the end (the reference V3
	 * refuses it): 383 self control edges and 1,277 references to 210
	 * absent ids are ignored with warnings. */
	CHECK_MSG(rc == 0, "%s", chakra_feeder_errmsg(f));
	CHECK_EQ_U(count, nr);
	CHECK_EQ_U(bad, 0);
	/* Plus control edges that close a cycle with data edges (a CPU op
	 * with a control dependency on its own kernel): dropped, counted. */
	CHECK_EQ_U(chakra_feeder_warning_count(f) - chakra_feeder_cycle_break_count(f), 383 + 1277);
	CHECK(chakra_feeder_cycle_break_count(f) > 0);
	CHECK_EQ_U(data_order_violations, 0);
	chakra_feeder_close(f);
}

static void test_workload(void)
{
	chakra_workload *w;
	const char *prefix = shared_path("data/astra-sim/microbenchmarks/all_reduce/8npus_1MB/all_reduce");
	int rc = chakra_workload_open(&w, prefix, NULL);
	CHECK_MSG(rc == 0, "%s", chakra_workload_errmsg(w));
	CHECK_EQ_U(chakra_workload_size(w), 8);
	for (size_t r = 0; r < chakra_workload_size(w); r++) {
		chakra_feeder *f = chakra_workload_feeder(w, r);
		uint64_t ids[64];
		size_t n;
		CHECK(feed_all(f, ids, 64, &n) == 0);
		CHECK(n >= 1);
		const chakra_node *node = NULL;
		(void)node;
	}
	CHECK(chakra_workload_feeder(w, 8) == NULL);
	chakra_workload_close(w);
	CHECK(chakra_workload_open(&w, shared_path("data/no/such/prefix"), NULL) == CHAKRA_ENOTFOUND);
	CHECK(has(chakra_workload_errmsg(w), "no/such/prefix.0.et"));
	chakra_workload_close(w);
}

int main(void)
{
	need_data("data/chakra/chakra.0.et.gz");
	need_data("data/chakra/chakra.0.order-v1.txt");
	need_data("data/astra-sim/microbenchmarks");
	test_ctrl_only_dep();
	test_missing_parent();
	test_cycle();
	test_ctrl_cycle();
	test_ctrl_cycles_bounded();
	test_duplicate_id();
	test_self_deps();
	test_strict_absent_ctrl();
	test_parent_twice();
	test_complete_errors_and_push_back();
	test_lookup_lazy();
	test_order_file();
	test_parent_later_small_window();
	test_callback_reentrant();
	test_callback_deferred();
	test_truncated();
	test_lazy_corrupt_attr();
	test_ring_pinned_messages();
	test_lazy_all_kinds();
	test_real_reference_order();
	test_real_lazy_decode();
	test_workload();
	return check_done();
}
