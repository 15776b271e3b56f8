/* SPDX-License-Identifier: Apache-2.0 */
/* Hostile inputs, generated here (nothing big is committed): huge length
 * prefixes, a node with 10^6 parents, ids near UINT64_MAX, a million-node
 * dependency cycle, duplicate ids. Each must end in a clear error (or the
 * right result) within bounded time and memory.
 *
 *   test_hostile            run every check
 *   test_hostile write KIND FILE   write one generated trace (for the tool
 *                                  tests in hostile-tools.sh):
 *                                  KIND = cycle | parents | maxids */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "chakra/chakra.h"
#include "check.h"
#include "memsrc.h"

/* 10^6 by default; HOSTILE_N overrides it (scaling experiments). */
static uint32_t MILLION = 1000000u;
/* Generous: sanitizer builds are several times slower than release. */
#define TIME_LIMIT_S 60.0
#define RSS_LIMIT_KIB (1024L * 1024L) /* 1 GiB, ASan's shadow included */

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static long peak_rss_kib(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

static size_t put_varint(uint8_t *p, uint64_t v)
{
	size_t n = 0;
	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

/* ---- trace generation with the library's writer ---- */

typedef struct gen {
	chakra_writer *w;
	chakra_builder *b;
} gen;

static int gen_open(gen *g, const char *path)
{
	chakra_writer_options o = CHAKRA_WRITER_OPTIONS_INIT;
	o.overwrite = 1;
	g->b = chakra_builder_new();
	if (!g->b || chakra_writer_open(&g->w, path, &o) < 0 ||
	    chakra_writer_write_metadata(g->w, "0.0.4", NULL) < 0) {
		fprintf(stderr, "cannot write %s: %s\n", path, g->w ? chakra_writer_errmsg(g->w) : "");
		return -1;
	}
	return 0;
}

static int gen_node(gen *g, uint64_t id, const uint64_t *deps, size_t n)
{
	chakra_builder_reset(g->b);
	chakra_builder_set_id(g->b, id);
	chakra_builder_set_name(g->b, "n", (size_t)-1);
	chakra_builder_set_type(g->b, CHAKRA_COMP_NODE);
	for (size_t i = 0; i < n; i++)
		if (chakra_builder_add_data_dep(g->b, deps[i]) < 0)
			return -1;
	return chakra_writer_write_node(g->w, g->b);
}

static int gen_close(gen *g)
{
	int rc = chakra_writer_finish(g->w);
	if (rc < 0)
		fprintf(stderr, "finish: %s\n", chakra_writer_errmsg(g->w));
	chakra_writer_close(g->w);
	chakra_builder_free(g->b);
	return rc;
}

/* node i depends on (i + 1) % n: one cycle through every node */
static int write_cycle(const char *path, uint32_t n)
{
	gen g;
	if (gen_open(&g, path) < 0)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t d = (i + 1) % n;
		if (gen_node(&g, i, &d, 1) < 0)
			return -1;
	}
	return gen_close(&g);
}

/* n nodes without deps, then node n depending on all of them (present = 1)
 * or on n ids that never appear (present = 0) */
static int write_parents(const char *path, uint32_t n, int present)
{
	gen g;
	if (gen_open(&g, path) < 0)
		return -1;
	uint64_t *deps = malloc(n * sizeof *deps);
	if (!deps)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		deps[i] = present ? i : (uint64_t)n + 1 + i;
		if (present && gen_node(&g, i, NULL, 0) < 0)
			return -1;
	}
	int rc = gen_node(&g, n, deps, n);
	free(deps);
	return rc < 0 ? rc : gen_close(&g);
}

/* ids at the top of the range, in a chain: MAX <- MAX-1 <- MAX-2 <- 0 */
static int write_maxids(const char *path)
{
	gen g;
	if (gen_open(&g, path) < 0)
		return -1;
	uint64_t m = UINT64_MAX, d1 = UINT64_MAX, d2 = UINT64_MAX - 1, d3 = UINT64_MAX - 2;
	if (gen_node(&g, 0, &d3, 1) < 0 || gen_node(&g, m - 2, &d2, 1) < 0 ||
	    gen_node(&g, m - 1, &d1, 1) < 0 || gen_node(&g, m, NULL, 0) < 0)
		return -1;
	return gen_close(&g);
}

/* ---- checks ---- */

static char tmpdir[256];

static const char *tmp(const char *name)
{
	static char buf[4][512];
	static int k;
	k = (k + 1) % 4;
	snprintf(buf[k], sizeof buf[k], "%s/%s", tmpdir, name);
	return buf[k];
}

/* Read a buffer to the end; returns the final code (0 or an error). */
static int read_all(const void *buf, size_t len, uint64_t max, char *msg, size_t cap)
{
	chakra_reader_options o = CHAKRA_READER_OPTIONS_INIT;
	o.max_message_size = max;
	chakra_reader *r;
	int rc = chakra_reader_open_buffer(&r, buf, len, &o);
	const chakra_node *n;
	if (rc == 0)
		while ((rc = chakra_reader_next(r, &n)) > 0)
			;
	snprintf(msg, cap, "%s", chakra_reader_errmsg(r));
	chakra_reader_close(r);
	return rc;
}

static void check_huge_prefixes(void)
{
	uint8_t buf[64];
	char msg[8192];
	const uint8_t meta[] = { 0x07, 0x0a, 0x05, '0', '.', '0', '.', '4' };
	size_t m = sizeof meta;
	double t0 = now();

	/* A node length of 2^62: refused before any allocation. */
	memcpy(buf, meta, m);
	size_t n = m + put_varint(buf + m, (uint64_t)1 << 62);
	int rc = read_all(buf, n, 0, msg, sizeof msg);
	CHECK_MSG(rc == CHAKRA_ETOOBIG, "2^62 prefix: %d %s", rc, msg);
	CHECK_MSG(strstr(msg, "byte 8") != NULL, "message names the offset: %s", msg);

	/* Just above the configured maximum. */
	n = m + put_varint(buf + m, 4097);
	rc = read_all(buf, n, 4096, msg, sizeof msg);
	CHECK_MSG(rc == CHAKRA_ETOOBIG, "max+1: %d %s", rc, msg);

	/* 200 MiB announced, 10 bytes present: truncation, from memory and
	 * through a callback (which must not trust the prefix to allocate). */
	n = m + put_varint(buf + m, 200u << 20);
	memset(buf + n, 0x08, 10);
	n += 10;
	rc = read_all(buf, n, 0, msg, sizeof msg);
	CHECK_MSG(rc == CHAKRA_ETRUNC, "200 MiB prefix in memory: %d %s", rc, msg);
	long rss0 = peak_rss_kib();
	memsrc s = { buf, n, 0, 0 };
	chakra_reader *r;
	rc = chakra_reader_open_cb(&r, memsrc_read, &s, NULL);
	const chakra_node *node;
	if (rc == 0)
		rc = chakra_reader_next(r, &node);
	CHECK_MSG(rc == CHAKRA_ETRUNC, "200 MiB prefix via callback: %d %s", rc,
	          chakra_reader_errmsg(r));
	chakra_reader_close(r);
	long grew = peak_rss_kib() - rss0;
	CHECK_MSG(grew < 64 * 1024, "a 200 MiB prefix on a 20-byte input grew RSS by %ld KiB", grew);

	/* A varint that never ends (11 bytes of 0xff). */
	memcpy(buf, meta, m);
	memset(buf + m, 0xff, 11);
	rc = read_all(buf, m + 11, 0, msg, sizeof msg);
	CHECK_MSG(rc == CHAKRA_ECORRUPT || rc == CHAKRA_ETRUNC, "endless varint: %d %s", rc, msg);
	CHECK(msg[0] != 0);

	/* The metadata itself claims 2^40 bytes: open fails. */
	n = put_varint(buf, (uint64_t)1 << 40);
	rc = read_all(buf, n, 0, msg, sizeof msg);
	CHECK_MSG(rc == CHAKRA_ETOOBIG, "huge metadata prefix: %d %s", rc, msg);

	/* The same behind gzip. */
	uint8_t raw[32], gz[128];
	memcpy(raw, meta, m);
	size_t rn = m + put_varint(raw + m, (uint64_t)1 << 40);
	z_stream z;
	memset(&z, 0, sizeof z);
	CHECK(deflateInit2(&z, 6, Z_DEFLATED, 16 + 15, 8, Z_DEFAULT_STRATEGY) == Z_OK);
	z.next_in = raw;
	z.avail_in = (uInt)rn;
	z.next_out = gz;
	z.avail_out = sizeof gz;
	CHECK(deflate(&z, Z_FINISH) == Z_STREAM_END);
	size_t gzn = sizeof gz - z.avail_out;
	deflateEnd(&z);
	rc = read_all(gz, gzn, 0, msg, sizeof msg);
	CHECK_MSG(rc == CHAKRA_ETOOBIG, "huge prefix behind gzip: %d %s", rc, msg);

	/* The feeder reports the reader's error. */
	n = m + put_varint(buf + m, (uint64_t)1 << 62);
	memcpy(buf, meta, m);
	chakra_feeder *f;
	rc = chakra_feeder_open_buffer(&f, buf, n, NULL);
	if (rc == 0)
		rc = chakra_feeder_next(f, &node);
	CHECK_MSG(rc == CHAKRA_ETOOBIG, "feeder, 2^62 prefix: %d %s", rc, chakra_feeder_errmsg(f));
	chakra_feeder_close(f);
	CHECK(now() - t0 < TIME_LIMIT_S);
}

/* Pull everything, completing each node at once; returns the final code
 * and the issue order in ids (first cap entries). */
static int feed_all(const char *path, uint64_t *order, size_t cap, uint64_t *count, char *msg,
                    size_t mcap)
{
	chakra_feeder *f;
	int rc = chakra_feeder_open(&f, path, NULL);
	const chakra_node *n;
	*count = 0;
	while (rc == 0 && (rc = chakra_feeder_next(f, &n)) > 0) {
		uint64_t id = chakra_node_id(n);
		if (*count < cap)
			order[*count] = id;
		(*count)++;
		rc = chakra_feeder_complete(f, id);
	}
	snprintf(msg, mcap, "%s", f ? chakra_feeder_errmsg(f) : "");
	if (rc == 0 && chakra_feeder_has_more(f))
		rc = 1; /* stopped early without an error: a failure */
	chakra_feeder_close(f);
	return rc;
}

static void check_many_parents(void)
{
	char msg[8192];
	uint64_t count, last = 0;
	double t0 = now();
	const char *p = tmp("parents.et");
	CHECK(write_parents(p, MILLION, 1) == 0);
	/* The reader sees every dependency. */
	chakra_reader *r;
	const chakra_node *n;
	int rc = chakra_reader_open(&r, p, NULL);
	size_t deps = 0;
	if (rc == 0)
		while ((rc = chakra_reader_next(r, &n)) > 0)
			deps = chakra_node_data_dep_count(n);
	CHECK_MSG(rc == 0, "reader: %s", chakra_reader_errmsg(r));
	CHECK_EQ_U(deps, MILLION);
	chakra_reader_close(r);
	/* The feeder issues the child last. */
	chakra_feeder *f;
	rc = chakra_feeder_open(&f, p, NULL);
	count = 0;
	while (rc == 0 && (rc = chakra_feeder_next(f, &n)) > 0) {
		last = chakra_node_id(n);
		count++;
		rc = chakra_feeder_complete(f, last);
	}
	CHECK_MSG(rc == 0, "feeder: %d %s", rc, chakra_feeder_errmsg(f));
	CHECK_EQ_U(count, MILLION + 1);
	CHECK_EQ_U(last, MILLION);
	chakra_feeder_close(f);
	double t1 = now();
	printf("node with 10^6 present parents: read + fed in %.2f s\n", t1 - t0);
	CHECK(t1 - t0 < TIME_LIMIT_S);

	/* 10^6 parents, none in the file: a stall naming the node. */
	p = tmp("absent.et");
	CHECK(write_parents(p, MILLION, 0) == 0);
	rc = feed_all(p, NULL, 0, &count, msg, sizeof msg);
	CHECK_MSG(rc == CHAKRA_EDEP, "absent parents: %d %s", rc, msg);
	char idtxt[32];
	snprintf(idtxt, sizeof idtxt, "%u", MILLION);
	CHECK_MSG(strstr(msg, idtxt) != NULL, "message names the node: %s", msg);
	CHECK_MSG(strlen(msg) < 4096, "message stays short: %zu", strlen(msg));
	printf("node with 10^6 absent parents: %s (%.2f s)\n", msg, now() - t1);
	CHECK(now() - t1 < TIME_LIMIT_S);
	remove(tmp("parents.et"));
	remove(tmp("absent.et"));
}

static void check_max_ids(void)
{
	char msg[8192];
	uint64_t order[8], count;
	const char *p = tmp("maxids.et");
	CHECK(write_maxids(p) == 0);
	int rc = feed_all(p, order, 8, &count, msg, sizeof msg);
	CHECK_MSG(rc == 0, "max ids: %d %s", rc, msg);
	CHECK_EQ_U(count, 4);
	CHECK(order[0] == UINT64_MAX && order[1] == UINT64_MAX - 1 && order[2] == UINT64_MAX - 2 &&
	      order[3] == 0);
	/* A dependency on UINT64_MAX that is absent: EDEP, not a sentinel hit. */
	gen g;
	uint64_t d = UINT64_MAX;
	CHECK(gen_open(&g, p) == 0);
	CHECK(gen_node(&g, 5, &d, 1) == 0);
	CHECK(gen_close(&g) == 0);
	rc = feed_all(p, order, 8, &count, msg, sizeof msg);
	CHECK_MSG(rc == CHAKRA_EDEP, "absent UINT64_MAX parent: %d %s", rc, msg);
	CHECK_MSG(strstr(msg, "18446744073709551615") != NULL, "names the id: %s", msg);
	/* Duplicate id UINT64_MAX: an error, not two issues. */
	CHECK(gen_open(&g, p) == 0);
	CHECK(gen_node(&g, UINT64_MAX, NULL, 0) == 0);
	CHECK(gen_node(&g, UINT64_MAX, NULL, 0) == 0);
	CHECK(gen_close(&g) == 0);
	rc = feed_all(p, order, 8, &count, msg, sizeof msg);
	CHECK_MSG(rc == CHAKRA_EDUP, "duplicate max id: %d %s", rc, msg);
	remove(p);
}

static void check_cycle(void)
{
	char msg[8192];
	uint64_t count;
	double t0 = now();
	const char *p = tmp("cycle.et");
	CHECK(write_cycle(p, MILLION) == 0);
	int rc = feed_all(p, NULL, 0, &count, msg, sizeof msg);
	CHECK_MSG(rc == CHAKRA_ECYCLE, "million-node cycle: %d %s", rc, msg);
	CHECK_EQ_U(count, 0);
	CHECK_MSG(strstr(msg, "cycle") != NULL, "message says cycle: %s", msg);
	CHECK_MSG(strlen(msg) < 4096, "message stays short: %zu", strlen(msg));
	printf("million-node cycle: %s (%.2f s)\n", msg, now() - t0);
	CHECK(now() - t0 < TIME_LIMIT_S);
	remove(p);
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "write")) {
		if (!strcmp(argv[2], "cycle"))
			return write_cycle(argv[3], MILLION) < 0;
		if (!strcmp(argv[2], "parents"))
			return write_parents(argv[3], MILLION, 1) < 0;
		if (!strcmp(argv[2], "maxids"))
			return write_maxids(argv[3]) < 0;
		fprintf(stderr, "unknown kind %s\n", argv[2]);
		return 2;
	}
	if (getenv("HOSTILE_N"))
		MILLION = (uint32_t)strtoul(getenv("HOSTILE_N"), NULL, 10);
	const char *base = getenv("TMPDIR");
	snprintf(tmpdir, sizeof tmpdir, "%s/chakra-hostile-XXXXXX", base ? base : "/tmp");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	check_huge_prefixes();
	check_max_ids();
	check_many_parents();
	check_cycle();
	long rss = peak_rss_kib();
	printf("peak RSS %ld KiB\n", rss);
	CHECK_MSG(rss < RSS_LIMIT_KIB, "peak RSS %ld KiB", rss);
	rmdir(tmpdir);
	return check_done();
}
