/* SPDX-License-Identifier: Apache-2.0 */
/* The error model and the counters: chakra_err_name, the
 * structured error info of each handle, *_from_name codes, feeder stats,
 * ready_count without a hidden flush, closing a feeder from inside its
 * ready callback, the allocator hook. */
#include <chakra/chakra.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "check.h"
#include "tbuild.h"

static void test_names(void)
{
	CHECK(strcmp(chakra_err_name(CHAKRA_OK), "CHAKRA_OK") == 0);
	CHECK(strcmp(chakra_err_name(CHAKRA_ETOOBIG), "CHAKRA_ETOOBIG") == 0);
	CHECK(strcmp(chakra_err_name(CHAKRA_ECONFIG), "CHAKRA_ECONFIG") == 0);
	CHECK(chakra_err_name(-18) == NULL && chakra_err_name(1) == NULL);
	for (int c = 0; c >= CHAKRA_ECONFIG; c--)
		CHECK(chakra_err_name(c) != NULL && strcmp(chakra_strerror(c), "unknown error") != 0);
	/* Unknown names are CHAKRA_ENOTFOUND, not -1 (= CHAKRA_EIO). */
	CHECK(chakra_node_type_from_name("COMP_NODE") == CHAKRA_COMP_NODE);
	CHECK(chakra_node_type_from_name("NO_SUCH") == CHAKRA_ENOTFOUND);
	CHECK(chakra_comm_type_from_name("BARRIER") == CHAKRA_BARRIER);
	CHECK(chakra_comm_type_from_name("") == CHAKRA_ENOTFOUND);
	CHECK(chakra_attr_kind_from_name("none") == CHAKRA_ATTR_NONE);
	CHECK(chakra_attr_kind_from_name("bytes_list") == CHAKRA_ATTR_BYTES_LIST);
	CHECK(chakra_attr_kind_from_name("int65") == CHAKRA_ENOTFOUND);
	CHECK(chakra_attr_kind_from_name(NULL) == CHAKRA_EINVAL);
	CHECK(chakra_node_type_from_name(NULL) == CHAKRA_EINVAL);
}

/* The error info of a reader over these bytes after reading to the end. */
static int reader_info(const void *buf, size_t len, chakra_error_info *ei)
{
	chakra_reader *r;
	int rc = chakra_reader_open_buffer(&r, buf, len, NULL);
	const chakra_node *n;
	if (rc == 0)
		while ((rc = chakra_reader_next(r, &n)) > 0)
			;
	memset(ei, 0xee, sizeof *ei);
	int code = chakra_reader_error(r, ei, sizeof *ei);
	CHECK(code == rc || rc > 0);
	CHECK(ei->message && strcmp(ei->message, chakra_reader_errmsg(r)) == 0);
	static char msg[1024];
	snprintf(msg, sizeof msg, "%s", ei->message);
	ei->message = msg;
	chakra_reader_close(r);
	return code;
}

static void test_reader_info(void)
{
	uint64_t ids[3] = { 1, 2, 3 };
	tbuf t = { 0 };
	CHECK(tbuild(&t, 3, ids, NULL, NULL) == 0);
	chakra_error_info ei;
	/* No error. */
	CHECK(reader_info(t.p, t.len, &ei) == 0 && ei.code == 0 && ei.flags == 0);
	/* Truncated inside the last message: ETRUNC at that message's prefix. */
	CHECK(reader_info(t.p, t.len - 3, &ei) == CHAKRA_ETRUNC);
	CHECK(ei.flags == (CHAKRA_ERRINFO_OFFSET | CHAKRA_ERRINFO_INDEX));
	CHECK_EQ_U(ei.node_index, 2);
	char want[64];
	snprintf(want, sizeof want, "byte %llu:", (unsigned long long)ei.offset);
	CHECK_MSG(strstr(ei.message, want) != NULL, "%s / %s", ei.message, want);
	/* A corrupt field inside node 1: the offset is the bad field's. */
	unsigned char *bad = (unsigned char *)malloc(t.len);
	memcpy(bad, t.p, t.len);
	size_t meta = 1 + bad[0], second = meta + 1 + bad[meta];
	bad[second + 1] = 0x07; /* node 1's first tag: wire type 7 */
	CHECK(reader_info(bad, t.len, &ei) == CHAKRA_ECORRUPT);
	CHECK(ei.flags == (CHAKRA_ERRINFO_OFFSET | CHAKRA_ERRINFO_INDEX));
	CHECK_EQ_U(ei.node_index, 1);
	CHECK_EQ_U(ei.offset, second + 1);
	free(bad);
	/* Damaged gzip: the offset is in the compressed file. */
	unsigned char gz[8192];
	z_stream zs;
	memset(&zs, 0, sizeof zs);
	deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
	zs.next_in = t.p;
	zs.avail_in = (uInt)t.len;
	zs.next_out = gz;
	zs.avail_out = sizeof gz;
	deflate(&zs, Z_FINISH);
	size_t gzlen = sizeof gz - zs.avail_out;
	deflateEnd(&zs);
	CHECK(reader_info(gz, gzlen - 4, &ei) == CHAKRA_EGZIP);
	CHECK(ei.flags & CHAKRA_ERRINFO_COMPRESSED);
	/* A size smaller than the struct: only those bytes are written. */
	chakra_reader *r;
	CHECK(chakra_reader_open_buffer(&r, t.p, 2, NULL) < 0);
	struct {
		chakra_error_info head;
		int canary;
	} small;
	small.canary = 0x1234;
	CHECK(chakra_reader_error(r, &small.head, offsetof(chakra_error_info, offset)) < 0);
	CHECK(small.canary == 0x1234 && small.head.code < 0);
	chakra_reader_close(r);
	CHECK(chakra_reader_error(NULL, &ei, sizeof ei) == CHAKRA_ENOMEM);
	free(t.p);
}

static void test_feeder_info_and_stats(void)
{
	/* 3 depends on 9, which never appears: a stall naming node 3. */
	uint64_t ids[4] = { 1, 2, 3, 4 };
	uint64_t d2[] = { 1 }, d3[] = { 9 }, d4[] = { 3 };
	const uint64_t *deps[4] = { NULL, d2, d3, d4 };
	size_t nd[4] = { 0, 1, 1, 1 };
	tbuf t = { 0 };
	CHECK(tbuild(&t, 4, ids, deps, nd) == 0);
	chakra_feeder *f;
	CHECK(chakra_feeder_open_buffer(&f, t.p, t.len, NULL) == 0);
	const chakra_node *n;
	int rc;
	while ((rc = chakra_feeder_next(f, &n)) > 0)
		chakra_feeder_complete(f, chakra_node_id(n));
	CHECK(rc == CHAKRA_EDEP);
	chakra_error_info ei;
	CHECK(chakra_feeder_error(f, &ei, sizeof ei) == CHAKRA_EDEP);
	CHECK(ei.flags == (CHAKRA_ERRINFO_OFFSET | CHAKRA_ERRINFO_INDEX | CHAKRA_ERRINFO_ID));
	CHECK_EQ_U(ei.node_id, 3);
	CHECK_EQ_U(ei.node_index, 2);
	struct chakra_feeder_stats st;
	memset(&st, 0xee, sizeof st);
	CHECK(chakra_feeder_stats(f, &st, sizeof st) == 0);
	CHECK_EQ_U(st.read, 4);
	CHECK_EQ_U(st.completed, 2);
	CHECK_EQ_U(st.issued, 2);
	CHECK_EQ_U(st.held, 2);
	CHECK_EQ_U(st.inflight, 0);
	CHECK(st.held_bytes == 0); /* (messages in the caller's buffer: not the feeder's bytes) */
	CHECK(st.held == chakra_feeder_held_count(f) && st.completed == chakra_feeder_completed_count(f));
	chakra_feeder_close(f);

	/* ESTATE names the id; the feeder goes on. */
	CHECK(chakra_feeder_open_buffer(&f, t.p, t.len, NULL) == 0);
	CHECK(chakra_feeder_complete(f, 77) == CHAKRA_ESTATE);
	CHECK(chakra_feeder_error(f, &ei, sizeof ei) == CHAKRA_ESTATE);
	CHECK(ei.flags == CHAKRA_ERRINFO_ID && ei.node_id == 77);
	CHECK(chakra_feeder_next(f, &n) == 1 && chakra_node_id(n) == 1);
	chakra_feeder_close(f);

	/* A duplicate id: the second occurrence. */
	uint64_t dup[3] = { 5, 6, 5 };
	tbuf t2 = { 0 };
	CHECK(tbuild(&t2, 3, dup, NULL, NULL) == 0);
	CHECK(chakra_feeder_open_buffer(&f, t2.p, t2.len, NULL) == 0);
	while ((rc = chakra_feeder_next(f, &n)) > 0)
		chakra_feeder_complete(f, chakra_node_id(n));
	CHECK(rc == CHAKRA_EDUP);
	CHECK(chakra_feeder_error(f, &ei, sizeof ei) == CHAKRA_EDUP);
	CHECK(ei.node_id == 5 && ei.node_index == 2 && (ei.flags & CHAKRA_ERRINFO_OFFSET));
	chakra_feeder_close(f);
	CHECK(chakra_feeder_error(NULL, &ei, sizeof ei) == CHAKRA_ENOMEM);
	free(t.p);
	free(t2.p);
}

/* ready_count once per node: the same order and counts as without. */
static void test_ready_count_per_node(void)
{
	enum { N = 20000 };
	uint64_t *ids = (uint64_t *)malloc(N * sizeof *ids), *d = (uint64_t *)malloc(N * sizeof *d);
	const uint64_t **deps = (const uint64_t **)malloc(N * sizeof *deps);
	size_t *nd = (size_t *)malloc(N * sizeof *nd);
	for (size_t i = 0; i < N; i++) {
		ids[i] = i + 1;
		d[i] = i; /* a chain, 1 a root */
		deps[i] = &d[i];
		nd[i] = i > 0;
	}
	tbuf t = { 0 };
	CHECK(tbuild(&t, N, ids, deps, nd) == 0);
	chakra_feeder *f;
	CHECK(chakra_feeder_open_buffer(&f, t.p, t.len, NULL) == 0);
	const chakra_node *n;
	uint64_t expect = 1, sum = 0;
	int rc;
	while ((rc = chakra_feeder_next(f, &n)) > 0) {
		CHECK(chakra_node_id(n) == expect++);
		sum += chakra_feeder_ready_count(f); /* a chain: nothing else ready */
		chakra_feeder_complete(f, chakra_node_id(n));
	}
	CHECK(rc == 0 && expect == N + 1 && sum == 0);
	chakra_feeder_close(f);
	free(ids);
	free(d);
	free(deps);
	free(nd);
	free(t.p);
}

/* Closing the feeder from inside its own callback. */
typedef struct cbstate {
	chakra_feeder *f;
	int calls, close_at;
} cbstate;

static void on_ready(void *data, chakra_feeder *f, const chakra_node *n)
{
	cbstate *s = (cbstate *)data;
	s->calls++;
	if (s->calls == s->close_at) {
		chakra_feeder_close(f);
		/* Every call after the close fails instead of touching freed memory. */
		CHECK(chakra_feeder_complete(f, chakra_node_id(n)) == CHAKRA_ESTATE);
		const chakra_node *m;
		CHECK(chakra_feeder_next(f, &m) == CHAKRA_ESTATE);
		return;
	}
	chakra_feeder_complete(f, chakra_node_id(n));
}

static void test_close_in_callback(void)
{
	uint64_t ids[6] = { 1, 2, 3, 4, 5, 6 };
	tbuf t = { 0 };
	CHECK(tbuild(&t, 6, ids, NULL, NULL) == 0);
	for (int at = 1; at <= 6; at++) {
		cbstate s = { NULL, 0, at };
		chakra_feeder_options o = CHAKRA_FEEDER_OPTIONS_INIT;
		o.ready_cb = on_ready;
		o.data = &s;
		chakra_feeder *f;
		CHECK(chakra_feeder_open_buffer(&f, t.p, t.len, &o) == 0);
		CHECK(chakra_feeder_drive(f) == 0); /* f is freed now */
		CHECK(s.calls == at);
	}
	free(t.p);
}

/* The allocator hook sees every allocation, zlib's included. */
static size_t n_alloc, n_free, live;
static void *my_malloc(void *data, size_t n)
{
	(void)data;
	n_alloc++;
	live++;
	return malloc(n);
}
static void *my_realloc(void *data, void *p, size_t n)
{
	(void)data;
	if (!p) {
		n_alloc++;
		live++;
	}
	return realloc(p, n);
}
static void my_free(void *data, void *p)
{
	(void)data;
	if (p) {
		n_free++;
		live--;
	}
	free(p);
}

static void test_allocator(void)
{
	chakra_allocator a = { CHAKRA_ALLOCATOR_VERSION, my_malloc, my_realloc, my_free, NULL };
	chakra_allocator bad = a;
	bad.version = 2;
	CHECK(chakra_set_allocator(&bad) == CHAKRA_EINVAL);
	bad = a;
	bad.free_fn = NULL;
	CHECK(chakra_set_allocator(&bad) == CHAKRA_EINVAL);
	CHECK(chakra_set_allocator(&a) == 0);
	const char *path = shared_path("data/chakra/chakra.0.et.gz");
	chakra_reader *r;
	CHECK(chakra_reader_open(&r, path, NULL) == 0);
	const chakra_node *n;
	while (chakra_reader_next(r, &n) > 0)
		;
	chakra_reader_close(r);
	size_t after_reader = n_alloc;
	chakra_feeder *f;
	CHECK(chakra_feeder_open(&f, path, NULL) == 0);
	while (chakra_feeder_next(f, &n) > 0) {
		(void)chakra_node_name(n, NULL);
		chakra_feeder_complete(f, chakra_node_id(n));
	}
	chakra_feeder_close(f);
	chakra_writer_options wo = CHAKRA_WRITER_OPTIONS_INIT;
	wo.gzip = 1;
	chakra_writer *w;
	tbuf out = { 0 };
	CHECK(chakra_writer_open_cb(&w, tbuf_write, &out, &wo) == 0);
	CHECK(chakra_writer_write_metadata(w, "0.0.4", NULL) == 0 && chakra_writer_finish(w) == 0);
	chakra_writer_close(w);
	/* The hook's public face (what the modules allocate with). */
	size_t before = n_alloc;
	char *p = chakra_malloc(0), *q = chakra_calloc(4, 8);
	CHECK(p && q && !q[0] && !q[31]);
	p = chakra_realloc(p, 100);
	CHECK(p != NULL);
	CHECK(chakra_calloc(SIZE_MAX / 2, 4) == NULL); /* n * size overflows */
	chakra_free(p);
	chakra_free(q);
	chakra_free(NULL);
	CHECK_EQ_U(n_alloc - before, 2);
	CHECK(chakra_set_allocator(NULL) == 0);
	printf("allocator hook: %zu allocations (reader %zu), %zu frees\n", n_alloc, after_reader,
	       n_free);
	CHECK(after_reader > 2 && n_alloc > after_reader);
	CHECK_EQ_U(live, 0); /* everything went back through the hook */
	free(out.p);
}

int main(void)
{
	need_data("data/chakra/chakra.0.et.gz");
	test_names();
	test_reader_info();
	test_feeder_info_and_stats();
	test_ready_count_per_node();
	test_close_in_callback();
	test_allocator();
	return check_done();
}
