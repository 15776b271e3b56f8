/* SPDX-License-Identifier: Apache-2.0 */
/* Allocation-failure sweep (docs/hardening.md). Through the allocator hook,
 * the k-th allocation fails, for every k from 1 to the number a clean run
 * makes, in scenarios that go through the reader (plain, gzip, nanopb
 * cross-check), the writer (plain and gzip) and the feeder (lazy and
 * eager, with decoding on access and a stall diagnosis). Each run must end
 * in success or in CHAKRA_ENOMEM reported by the library (never another
 * code, never a crash), and leave no allocation behind (the hook counts
 * them; ASan and valgrind in CI watch the rest). A feeder whose per-slot
 * allocation failed used to crash in chakra_feeder_close (free() of a
 * pointer into the framer's buffer). */
#include <chakra/chakra.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "oomhook.h"
#include "tbuild.h"

/* The first negative code, or 0. */
#define STEP(expr)                          \
	do {                                    \
		int rc_ = (expr);                   \
		if (rc_ < 0 && first == 0)          \
			first = rc_;                    \
	} while (0)

static const char *gz_trace;
/* The issue order of a feeder run (FNV-1a over the ids): a run in which an
 * allocation failed gracefully (a fallback) must issue the same order. */
static uint64_t order_hash;
static tbuf plain_trace, eager_trace, stall_trace, big_trace;

static int scenario_reader(const void *buf, size_t len, const char *path, int verify)
{
	int first = 0;
	chakra_reader_options ro = CHAKRA_READER_OPTIONS_INIT;
	ro.verify_with_nanopb = verify;
	chakra_reader *r;
	int rc = path ? chakra_reader_open(&r, path, &ro) : chakra_reader_open_buffer(&r, buf, len, &ro);
	STEP(rc);
	if (rc == 0) {
		const chakra_node *n;
		int k = 0;
		while ((rc = chakra_reader_next(r, &n)) > 0 && k++ < 400)
			(void)chakra_node_name(n, NULL);
		STEP(rc);
	}
	if (r)
		CHECK(chakra_reader_errmsg(r)[0] || first == 0);
	chakra_reader_close(r);
	return first;
}

static int scenario_writer(int gzip)
{
	int first = 0;
	chakra_writer_options wo = CHAKRA_WRITER_OPTIONS_INIT;
	wo.gzip = gzip;
	tbuf out = { 0 };
	chakra_writer *w;
	int rc = chakra_writer_open_cb(&w, tbuf_write, &out, &wo);
	STEP(rc);
	chakra_builder *b = chakra_builder_new();
	if (!b)
		STEP(CHAKRA_ENOMEM);
	if (rc == 0 && b) {
		STEP(chakra_builder_attr_string(b, "meta", CHAKRA_ATTR_STRING, "x", 1));
		STEP(chakra_writer_write_metadata(w, "0.0.4", b));
		for (uint64_t i = 0; i < 300 && first == 0; i++) {
			chakra_builder_reset(b);
			chakra_builder_set_id(b, i);
			STEP(chakra_builder_set_name(b, "node", (size_t)-1));
			STEP(chakra_builder_add_data_dep(b, i ? i - 1 : 0));
			uint64_t v[3] = { i, i + 1, i + 2 };
			STEP(chakra_builder_attr_list_uint(b, "l", CHAKRA_ATTR_INT64_LIST, v, 3));
			const char *s[2] = { "a", "bb" };
			STEP(chakra_builder_attr_list_string(b, "s", CHAKRA_ATTR_STRING_LIST, s, NULL, 2));
			STEP(chakra_writer_write_node(w, b));
		}
		STEP(chakra_writer_finish(w));
	}
	chakra_builder_free(b);
	chakra_writer_close(w);
	free(out.p);
	return first;
}

/* The writer on a path (the output rule, lib/outfile.c): an existing file
 * replaced through a temporary. A failed run leaves the old file as it was
 * and no temporary; a clean one the new file. */
static char out_dir[64];

static int count_tmps(void)
{
	char cmd[160];
	snprintf(cmd, sizeof cmd, "ls -a %s | grep -c 'tmp-\\|old-'", out_dir);
	FILE *p = popen(cmd, "r");
	int n = -1;
	if (p) {
		if (fscanf(p, "%d", &n) != 1)
			n = -1;
		pclose(p);
	}
	return n;
}

static int scenario_writer_path(void)
{
	char path[128];
	snprintf(path, sizeof path, "%s/out.et", out_dir);
	FILE *f = fopen(path, "w");
	if (f) {
		fputs("old", f);
		fclose(f);
	}
	int first = 0;
	chakra_writer_options wo = CHAKRA_WRITER_OPTIONS_INIT;
	wo.overwrite = 1;
	chakra_writer *w = NULL;
	int rc = chakra_writer_open(&w, path, &wo);
	STEP(rc);
	chakra_builder *b = chakra_builder_new();
	if (!b)
		STEP(CHAKRA_ENOMEM);
	if (rc == 0 && b) {
		STEP(chakra_writer_write_metadata(w, "0.0.4", NULL));
		for (uint64_t i = 0; i < 50 && first == 0; i++) {
			chakra_builder_reset(b);
			chakra_builder_set_id(b, i);
			STEP(chakra_builder_set_name(b, "node", (size_t)-1));
			STEP(chakra_writer_write_node(w, b));
		}
		if (first == 0) /* a run that failed drops its output */
			STEP(chakra_writer_finish(w));
	}
	chakra_builder_free(b);
	chakra_writer_close(w);
	char got[8] = "";
	f = fopen(path, "r");
	size_t n = f ? fread(got, 1, sizeof got - 1, f) : 0;
	got[n] = 0;
	if (f)
		fclose(f);
	CHECK_MSG(first ? !strcmp(got, "old") : strcmp(got, "old") != 0,
	          "writer to a path: %s run left '%s'", first ? "a failed" : "a clean", got);
	CHECK_MSG(count_tmps() == 0, "writer to a path: a temporary left");
	return first;
}

/* A read callback over a buffer: the feeder copies what it holds. */
typedef struct cbsrc {
	const unsigned char *p;
	size_t len, pos;
} cbsrc;

static long cb_read(void *data, void *buf, size_t cap)
{
	cbsrc *s = (cbsrc *)data;
	size_t n = s->len - s->pos < cap ? s->len - s->pos : cap;
	memcpy(buf, s->p + s->pos, n);
	s->pos += n;
	return (long)n;
}

static int scenario_feeder(const void *buf, size_t len, const char *path, int deps_both,
                           int decode)
{
	int first = 0;
	chakra_feeder_options fo = CHAKRA_FEEDER_OPTIONS_INIT;
	if (deps_both)
		fo.deps = CHAKRA_DEPS_BOTH;
	fo.window = 64; /* read past the window and back: more code paths */
	chakra_feeder *f;
	cbsrc src = { (const unsigned char *)buf, len, 0 };
	int rc = path ? chakra_feeder_open(&f, path, &fo)
	              : decode == 2 ? chakra_feeder_open_cb(&f, cb_read, &src, &fo)
	                            : chakra_feeder_open_buffer(&f, buf, len, &fo);
	STEP(rc);
	order_hash = 1469598103934665603ull;
	if (rc == 0) {
		const chakra_node *n;
		while ((rc = chakra_feeder_next(f, &n)) > 0) {
			order_hash = (order_hash ^ chakra_node_id(n)) * 1099511628211ull;
			if (decode)
				(void)chakra_node_attr_count(n);
			int c = chakra_feeder_complete(f, chakra_node_id(n));
			if (c < 0) {
				rc = c;
				break;
			}
		}
		STEP(rc);
	}
	chakra_feeder_close(f);
	return first;
}

typedef struct scen {
	const char *name;
	int which;
	int expect; /* the code of a clean run */
} scen;

static int run(int which)
{
	switch (which) {
	case 0: return scenario_reader(NULL, 0, gz_trace, 0);
	case 1: return scenario_reader(NULL, 0, gz_trace, 1);
	case 2: return scenario_reader(eager_trace.p, eager_trace.len, NULL, 1);
	case 3: return scenario_writer(0);
	case 4: return scenario_writer(1);
	case 5: return scenario_feeder(NULL, 0, gz_trace, 1, 1);
	case 6: return scenario_feeder(plain_trace.p, plain_trace.len, NULL, 0, 1);
	case 7: return scenario_feeder(eager_trace.p, eager_trace.len, NULL, 0, 0);
	case 8: return scenario_feeder(stall_trace.p, stall_trace.len, NULL, 0, 0);
	case 10: return scenario_writer_path();
	default: return scenario_feeder(big_trace.p, big_trace.len, NULL, 0, 2);
	}
}

int main(void)
{
	need_data("data/chakra/chakra.0.et.gz");
	static char path[4096];
	snprintf(path, sizeof path, "%s", shared_path("data/chakra/chakra.0.et.gz"));
	gz_trace = path;
	/* Generated traces: a chain in file order (lazy mode), the same ids
	 * shuffled with fan-in (eager mode, placeholders and edge lists), and
	 * one with a missing parent (the stall diagnosis allocates). */
	enum { N = 600 };
	static uint64_t ids[N], d[N][6], shuf[N];
	static const uint64_t *deps[N];
	static size_t nd[N];
	for (size_t i = 0; i < N; i++) {
		ids[i] = i + 1;
		shuf[i] = (i * 389) % N + 1;
	}
	for (size_t i = 0; i < N; i++) {
		nd[i] = i ? (i % 6) + 1 : 0;
		for (size_t k = 0; k < nd[i]; k++)
			d[i][k] = i > k ? i - k : 1;
		deps[i] = d[i];
	}
	CHECK(tbuild(&plain_trace, N, ids, deps, nd) == 0);
	static const uint64_t *sdeps[N];
	static uint64_t sd[N][6];
	for (size_t i = 0; i < N; i++) {
		for (size_t k = 0; k < nd[i]; k++)
			sd[i][k] = shuf[i] > k + 1 ? shuf[i] - k - 1 : 0;
		size_t m = 0;
		for (size_t k = 0; k < nd[i]; k++)
			if (sd[i][k])
				sd[i][m++] = sd[i][k];
		nd[i] = m;
		sdeps[i] = sd[i];
	}
	CHECK(tbuild(&eager_trace, N, shuf, sdeps, nd) == 0);
	uint64_t sids[4] = { 1, 2, 3, 4 }, s2[] = { 1 }, s3[] = { 99 }, s4[] = { 3 };
	const uint64_t *stdeps[4] = { NULL, s2, s3, s4 };
	size_t snd[4] = { 0, 1, 1, 1 };
	CHECK(tbuild(&stall_trace, 4, sids, stdeps, snd) == 0);
	/* Nodes of 100 KB, out of id order (eager: each copied by the feeder,
	 * in blocks too large for its pool, i.e. malloc'd one by one). */
	{
		chakra_writer *w;
		CHECK(chakra_writer_open_cb(&w, tbuf_write, &big_trace, NULL) == 0);
		chakra_builder *b = chakra_builder_new();
		static char name[100000];
		memset(name, 'n', sizeof name - 1);
		chakra_writer_write_metadata(w, "0.0.4", NULL);
		for (uint64_t i = 0; i < 8; i++) {
			chakra_builder_reset(b);
			chakra_builder_set_id(b, 8 - i);
			chakra_builder_set_name(b, name, sizeof name - 1);
			chakra_writer_write_node(w, b);
		}
		CHECK(chakra_writer_finish(w) == 0);
		chakra_writer_close(w);
		chakra_builder_free(b);
	}

	static const scen scens[] = {
		{ "reader, gzip", 0, 0 },           { "reader, gzip, nanopb check", 1, 0 },
		{ "reader, nanopb check", 2, 0 },   { "writer", 3, 0 },
		{ "writer, gzip", 4, 0 },           { "feeder, gzip, ctrl+data, decoding", 5, 0 },
		{ "feeder, lazy, decoding", 6, 0 }, { "feeder, eager", 7, 0 },
		{ "feeder, stall", 8, CHAKRA_EDEP },
		{ "feeder, callback, 100 KB nodes", 9, 0 },
		{ "writer to a path, replacing a file", 10, 0 },
	};
	snprintf(out_dir, sizeof out_dir, "/tmp/chakra-oom-XXXXXX");
	CHECK(mkdtemp(out_dir) != NULL);
	chakra_allocator a = { CHAKRA_ALLOCATOR_VERSION, t_malloc, t_realloc, t_free, NULL };
	CHECK(chakra_set_allocator(&a) == 0);
	unsigned long total_runs = 0;
	for (size_t s = 0; s < sizeof scens / sizeof scens[0]; s++) {
		/* A clean run counts the allocations. */
		n_calls = 0;
		fail_at = 0;
		live = 0;
		int clean = run(scens[s].which);
		CHECK_MSG(clean == scens[s].expect, "%s: clean run %d", scens[s].name, clean);
		CHECK_MSG(live == 0, "%s: %lu allocations left", scens[s].name, live);
		unsigned long total = n_calls, enomem = 0;
		uint64_t clean_order = order_hash;
		for (unsigned long k = 1; k <= total; k++) {
			n_calls = 0;
			fail_at = k;
			live = 0;
			failed_once = 0;
			int rc = run(scens[s].which);
			total_runs++;
			if (failed_once) {
				CHECK_MSG(rc == CHAKRA_ENOMEM || rc == scens[s].expect,
				          "%s: allocation %lu of %lu failed: got %d (%s), not CHAKRA_ENOMEM",
				          scens[s].name, k, total, rc, chakra_err_name(rc));
				enomem += rc == CHAKRA_ENOMEM;
				if (rc != CHAKRA_ENOMEM && scens[s].which >= 5)
					CHECK_MSG(order_hash == clean_order,
					          "%s: allocation %lu failed without an error, and the order "
					          "changed", scens[s].name, k);
			}
			CHECK_MSG(live == 0, "%s: allocation %lu failed: %lu allocations left",
			          scens[s].name, k, live);
		}
		printf("%-36s %4lu allocations, each failed in turn: %lu ENOMEM\n", scens[s].name, total,
		       enomem);
	}
	chakra_set_allocator(NULL);
	printf("%lu runs\n", total_runs);
	char rm[128];
	snprintf(rm, sizeof rm, "rm -rf %s", out_dir);
	if (system(rm) != 0)
		fprintf(stderr, "could not remove %s\n", out_dir);
	free(plain_trace.p);
	free(eager_trace.p);
	free(stall_trace.p);
	free(big_trace.p);
	return check_done();
}
