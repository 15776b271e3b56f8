/* SPDX-License-Identifier: Apache-2.0 */
/* Every real .et in tests/data: decode -> re-encode gives the same
 * bytes; node and per-type counts; nanopb agrees with the fast decoder on
 * every node. */
#include <glob.h>
#include <zlib.h>

#include "chakra/chakra.h"
#include "check.h"
#include "membuf.h"

/* Decompressed bytes of a (possibly gzip) file. */
static unsigned char *load_plain(const char *path, size_t *len)
{
	gzFile g = gzopen(path, "rb");
	if (!g)
		return NULL;
	membuf m = { 0 };
	char buf[65536];
	int n;
	while ((n = gzread(g, buf, sizeof buf)) > 0)
		mem_write(&m, buf, (size_t)n);
	gzclose(g);
	*len = m.len;
	return m.p;
}

/* Re-encode a file through reader -> builder -> writer; compare bytes.
 * Returns the node count; counts per type in types[8]. */
static long roundtrip(const char *path, unsigned long types[8])
{
	chakra_reader_options ro = CHAKRA_READER_OPTIONS_INIT;
	ro.verify_with_nanopb = 1;
	chakra_reader *r;
	int rc = chakra_reader_open(&r, path, &ro);
	CHECK_MSG(rc == 0, "%s", chakra_reader_errmsg(r));
	if (rc) {
		chakra_reader_close(r);
		return -1;
	}
	membuf out = { 0 };
	chakra_writer *w;
	CHECK(chakra_writer_open_cb(&w, mem_write, &out, NULL) == 0);
	CHECK(chakra_writer_copy_metadata(w, chakra_reader_metadata(r)) == 0);
	chakra_builder *b = chakra_builder_new();
	const chakra_node *n;
	long count = 0;
	while ((rc = chakra_reader_next(r, &n)) > 0) {
		int t = chakra_node_type_of(n);
		if (t >= 0 && t < 8)
			types[t]++;
		CHECK(chakra_builder_copy_node(b, n) == 0);
		CHECK(chakra_writer_write_node(w, b) == 0);
		count++;
	}
	CHECK_MSG(rc == 0, "%s", chakra_reader_errmsg(r));
	CHECK(chakra_writer_finish(w) == 0);
	chakra_writer_close(w);
	size_t len;
	unsigned char *orig = load_plain(path, &len);
	CHECK_MSG(orig && len == out.len && memcmp(orig, out.p, len) == 0,
	          "%s: re-encoded bytes differ (%zu vs %zu)", path, len, out.len);
	free(orig);
	free(out.p);
	chakra_builder_free(b);
	chakra_reader_close(r);
	return count;
}

int main(void)
{
	need_data("data/chakra/chakra.0.et.gz");
	need_data("data/astra-sim/microbenchmarks");
	unsigned long types[8] = { 0 };
	long n = roundtrip(shared_path("data/chakra/chakra.0.et.gz"), types);
	CHECK_EQ_U(n, 3664);
	for (int i = 0; i < 8; i++)
		printf("type %d: %lu\n", i, types[i]);
	/* chakra.0.et: 3643 compute nodes and 21 collectives, nothing else */
	CHECK_EQ_U(types[CHAKRA_COMP_NODE], 3643);
	CHECK_EQ_U(types[CHAKRA_COMM_COLL_NODE], 21);
	CHECK_EQ_U(types[CHAKRA_COMP_NODE] + types[CHAKRA_COMM_COLL_NODE], 3664);

	glob_t g;
	CHECK(glob(shared_path("data/astra-sim/microbenchmarks/*/*/*.et"), 0, NULL, &g) == 0);
	/* 4 collectives x (4 + 8 + 16) ranks */
	CHECK_EQ_U(g.gl_pathc, 112);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		unsigned long t[8] = { 0 };
		long c = roundtrip(g.gl_pathv[i], t);
		printf("%s: %ld nodes\n", g.gl_pathv[i], c);
		/* each microbenchmark rank file is one collective node */
		CHECK_EQ_U(c, 1);
		CHECK_EQ_U(t[CHAKRA_COMM_COLL_NODE], 1);
	}
	globfree(&g);
	return check_done();
}
