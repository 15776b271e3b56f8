/* SPDX-License-Identifier: Apache-2.0 */
/* Memory budgets (docs/hardening.md): what a small file could make the
 * library allocate, and the budgets that now bound it.
 *  - One node with millions of empty attributes (2 bytes each on the wire,
 *    ~100 in memory): CHAKRA_ETOOBIG at max_node_memory, from the reader
 *    and from the feeder's lazy decode, instead of gigabytes.
 *  - A packed dependency list of 10-byte varints: the array is sized by the
 *    count, not 8 bytes per input byte.
 *  - 1 MiB nodes fed from a stream: the read-ahead stops at window_bytes
 *    (it held the whole node window, 16384 MiB, before).
 *  - Nodes that all wait for the last one: CHAKRA_ETOOBIG at max_memory,
 *    naming the budget.
 * Inputs are generated on the fly through a read callback. Each case checks
 * the peak RSS growth. */
#include <chakra/chakra.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static long peak_kb(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

static size_t put_varint(unsigned char *d, uint64_t v)
{
	size_t n = 0;
	while (v >= 0x80) {
		d[n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	d[n++] = (unsigned char)v;
	return n;
}

/* A stream: metadata, then n_nodes messages made by make() into msg. */
typedef struct gen {
	unsigned char *msg;  /* current framed message */
	size_t len, pos;
	uint64_t next, n_nodes;
	size_t (*make)(struct gen *g, uint64_t i, unsigned char *body);
	unsigned char *body; /* scratch for a node body */
	uint64_t param;
} gen;

static long gen_read(void *data, void *buf, size_t cap)
{
	gen *g = (gen *)data;
	if (g->pos == g->len) {
		size_t blen;
		if (g->next == 0) { /* metadata: version "0.0.4" */
			static const unsigned char meta[] = { 0x0a, 0x05, '0', '.', '0', '.', '4' };
			memcpy(g->body, meta, sizeof meta);
			blen = sizeof meta;
		} else if (g->next <= g->n_nodes) {
			blen = g->make(g, g->next - 1, g->body);
		} else {
			return 0;
		}
		g->next++;
		g->len = put_varint(g->msg, blen);
		memcpy(g->msg + g->len, g->body, blen);
		g->len += blen;
		g->pos = 0;
	}
	size_t n = g->len - g->pos < cap ? g->len - g->pos : cap;
	memcpy(buf, g->msg + g->pos, n);
	g->pos += n;
	return (long)n;
}

static void gen_init(gen *g, uint64_t n_nodes, size_t max_body,
                     size_t (*make)(gen *, uint64_t, unsigned char *), uint64_t param)
{
	memset(g, 0, sizeof *g);
	g->msg = (unsigned char *)malloc(max_body + 16);
	g->body = (unsigned char *)malloc(max_body + 16);
	g->n_nodes = n_nodes;
	g->make = make;
	g->param = param;
}

static void gen_free(gen *g)
{
	free(g->msg);
	free(g->body);
}

/* Node id 1 with param empty attributes (field 10, length 0). */
static size_t make_empty_attrs(gen *g, uint64_t i, unsigned char *b)
{
	size_t n = 0;
	b[n++] = 0x08;
	n += put_varint(b + n, i + 1);
	for (uint64_t k = 0; k < g->param; k++) {
		b[n++] = 0x52;
		b[n++] = 0x00;
	}
	return n;
}

static void test_empty_attributes(void)
{
	const uint64_t attrs = 5u << 20; /* 10 MiB on the wire, ~520 MiB decoded */
	long before = peak_kb();
	gen g;
	gen_init(&g, 1, attrs * 2 + 16, make_empty_attrs, attrs);
	chakra_reader *r;
	CHECK(chakra_reader_open_cb(&r, gen_read, &g, NULL) == 0);
	const chakra_node *n;
	CHECK(chakra_reader_next(r, &n) == CHAKRA_ETOOBIG);
	const char *e = chakra_reader_errmsg(r);
	CHECK_MSG(strstr(e, "node index 0") && strstr(e, "max_node_memory") &&
	                  strstr(e, "268435456"),
	          "%s", e);
	chakra_error_info ei;
	CHECK(chakra_reader_error(r, &ei, sizeof ei) == CHAKRA_ETOOBIG && ei.node_index == 0);
	chakra_reader_close(r);
	gen_free(&g);
	long grew = (peak_kb() - before) / 1024;
	printf("5M empty attributes: ETOOBIG at the 256 MiB default, peak RSS +%ld MiB\n", grew);
	CHECK(grew < 700);

	/* A budget as an option: 100k attributes need ~10 MiB. */
	gen_init(&g, 1, 200016, make_empty_attrs, 100000);
	chakra_reader_options ro = CHAKRA_READER_OPTIONS_INIT;
	ro.max_node_memory = 1 << 20;
	CHECK(chakra_reader_open_cb(&r, gen_read, &g, &ro) == 0);
	CHECK(chakra_reader_next(r, &n) == CHAKRA_ETOOBIG);
	CHECK(strstr(chakra_reader_errmsg(r), "more than 1048576 bytes"));
	chakra_reader_close(r);
	gen_free(&g);
	gen_init(&g, 1, 200016, make_empty_attrs, 100000);
	ro.max_node_memory = 64 << 20;
	CHECK(chakra_reader_open_cb(&r, gen_read, &g, &ro) == 0);
	CHECK(chakra_reader_next(r, &n) == 1 && chakra_node_attr_count(n) == 100000);
	chakra_reader_close(r);
	gen_free(&g);

	/* The feeder: decoding happens on access, and fails the feeder. */
	gen_init(&g, 1, 200016, make_empty_attrs, 100000);
	ro.max_node_memory = 1 << 20;
	chakra_feeder_options fo = CHAKRA_FEEDER_OPTIONS_INIT;
	fo.reader = &ro;
	chakra_feeder *f;
	CHECK(chakra_feeder_open_cb(&f, gen_read, &g, &fo) == 0);
	CHECK(chakra_feeder_next(f, &n) == 1);
	CHECK(chakra_node_attr_count(n) == 0); /* the accessor gets empty values */
	CHECK(chakra_feeder_complete(f, 1) == CHAKRA_ETOOBIG);
	CHECK_MSG(strstr(chakra_feeder_errmsg(f), "max_node_memory"), "%s", chakra_feeder_errmsg(f));
	chakra_feeder_close(f);
	gen_free(&g);
}

/* Node 1 with param data deps 2^63 + k: 10-byte varints, packed. */
static size_t make_far_deps(gen *g, uint64_t i, unsigned char *b)
{
	size_t n = 0;
	b[n++] = 0x08;
	n += put_varint(b + n, i + 1);
	b[n++] = 0x2a;
	n += put_varint(b + n, g->param * 10);
	for (uint64_t k = 0; k < g->param; k++)
		n += put_varint(b + n, ((uint64_t)1 << 63) + k);
	return n;
}

static void test_packed_deps(void)
{
	const uint64_t deps = 3u << 20; /* 30 MiB of varints */
	long before = peak_kb();
	gen g;
	gen_init(&g, 1, deps * 10 + 32, make_far_deps, deps);
	chakra_reader *r;
	CHECK(chakra_reader_open_cb(&r, gen_read, &g, NULL) == 0);
	const chakra_node *n;
	CHECK(chakra_reader_next(r, &n) == 1);
	CHECK_EQ_U(chakra_node_data_dep_count(n), deps);
	CHECK(chakra_node_data_deps(n)[deps - 1] == ((uint64_t)1 << 63) + deps - 1);
	chakra_reader_close(r);
	gen_free(&g);
	long grew = (peak_kb() - before) / 1024;
	/* 60 MiB of input buffers, 24 MiB of array, its 24 MiB copy; the old
	 * reservation alone was 240 MiB. */
	printf("3M packed 10-byte deps: peak RSS +%ld MiB\n", grew);
	CHECK(grew < 200);
}

/* Nodes of ~1 MiB (an unknown field), a chain (node i depends on i-1), or
 * when param is set, every node waiting for the last one. */
static size_t make_big(gen *g, uint64_t i, unsigned char *b)
{
	size_t n = 0;
	b[n++] = 0x08;
	n += put_varint(b + n, i + 1);
	uint64_t dep = g->param ? (i + 1 < g->n_nodes ? g->n_nodes : 0) : i;
	if (dep) {
		b[n++] = 0x2a;
		n += put_varint(b + n, 1 + (dep >= 128) + (dep >= 16384));
		n += put_varint(b + n, dep);
	}
	b[n++] = 0x7a; /* field 15, length-delimited: not in the schema */
	size_t L = 1 << 20;
	n += put_varint(b + n, L);
	memset(b + n, 'x', L);
	return n + L;
}

static void test_window_bytes(void)
{
	const uint64_t nodes = 300;
	long before = peak_kb();
	gen g;
	gen_init(&g, nodes, (1 << 20) + 64, make_big, 0);
	chakra_feeder *f;
	CHECK(chakra_feeder_open_cb(&f, gen_read, &g, NULL) == 0);
	const chakra_node *n;
	uint64_t expect = 1;
	int rc;
	while ((rc = chakra_feeder_next(f, &n)) > 0) {
		CHECK(chakra_node_id(n) == expect++);
		chakra_feeder_complete(f, chakra_node_id(n));
	}
	CHECK_MSG(rc == 0, "%s", chakra_feeder_errmsg(f));
	CHECK_EQ_U(expect, nodes + 1);
	struct chakra_feeder_stats st;
	chakra_feeder_stats(f, &st, sizeof st);
	chakra_feeder_close(f);
	gen_free(&g);
	long grew = (peak_kb() - before) / 1024;
	printf("300 x 1 MiB nodes: peak held %llu MiB (window_bytes 64 MiB), peak RSS +%ld MiB\n",
	       (unsigned long long)(st.peak_held_bytes >> 20), grew);
	CHECK(st.peak_held_bytes <= (65u << 20) && st.peak_held_bytes >= (60u << 20));
	CHECK(grew < 250);

	/* All wait for the last: the feeder must read the whole file. */
	gen_init(&g, 100, (1 << 20) + 64, make_big, 1);
	chakra_feeder_options fo = CHAKRA_FEEDER_OPTIONS_INIT;
	fo.max_memory = 32 << 20;
	CHECK(chakra_feeder_open_cb(&f, gen_read, &g, &fo) == 0);
	CHECK(chakra_feeder_next(f, &n) == CHAKRA_ETOOBIG);
	const char *e = chakra_feeder_errmsg(f);
	CHECK_MSG(strstr(e, "max_memory") && strstr(e, "33554432"), "%s", e);
	chakra_error_info ei;
	CHECK(chakra_feeder_error(f, &ei, sizeof ei) == CHAKRA_ETOOBIG &&
	      (ei.flags & CHAKRA_ERRINFO_INDEX));
	chakra_feeder_close(f);
	gen_free(&g);
	/* With room, the same file feeds (the last node first). */
	gen_init(&g, 100, (1 << 20) + 64, make_big, 1);
	fo.max_memory = 256 << 20;
	CHECK(chakra_feeder_open_cb(&f, gen_read, &g, &fo) == 0);
	CHECK(chakra_feeder_next(f, &n) == 1 && chakra_node_id(n) == 100);
	chakra_feeder_close(f);
	gen_free(&g);
}

/* Each case in its own process, so that each peak RSS is its own. */
static int run(void (*fn)(void))
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		fn();
		exit(check_done());
	}
	int st;
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return 1;
	return !WIFEXITED(st) || WEXITSTATUS(st) != 0;
}

int main(void)
{
	int bad = run(test_empty_attributes) + run(test_packed_deps) + run(test_window_bytes);
	if (bad)
		fprintf(stderr, "%d case(s) failed\n", bad);
	return bad != 0;
}
