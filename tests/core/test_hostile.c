/* SPDX-License-Identifier: Apache-2.0 */
/* Hostile input through the public reader API: truncated files (inside a
 * message, inside a length prefix), random bytes, an empty file, a file
 * without metadata, an oversized length prefix, a truncated .gz. Each must
 * give its own error code with the byte offset in the message: never a
 * crash and never a clean-looking early end. Also pins the writer's
 * guarantee that an unfinished output leaves no file. */
#include <stdint.h>
#include <unistd.h>
#include <zlib.h>

#include "chakra/chakra.h"
#include "check.h"

static unsigned char *gunzip_file(const char *path, size_t *len)
{
	gzFile g = gzopen(path, "rb");
	if (!g)
		return NULL;
	size_t cap = 1 << 20, n = 0;
	unsigned char *b = malloc(cap);
	int r;
	while (b && (r = gzread(g, b + n, (unsigned)(cap - n))) > 0) {
		n += (size_t)r;
		if (n == cap) {
			unsigned char *nb = realloc(b, cap *= 2);
			if (!nb)
				free(b);
			b = nb;
		}
	}
	gzclose(g);
	*len = n;
	return b;
}

/* Read a buffer to the end; returns the final rc (0 = clean end) and
 * copies the error message. */
static int read_all(const void *buf, size_t len, const chakra_reader_options *o, char *msg,
                    size_t cap, uint64_t *nodes)
{
	chakra_reader *r;
	int rc = chakra_reader_open_buffer(&r, buf, len, o);
	const chakra_node *n;
	while (rc >= 0 && (rc = chakra_reader_next(r, &n)) > 0)
		;
	snprintf(msg, cap, "%s", r ? chakra_reader_errmsg(r) : "");
	if (nodes)
		*nodes = r ? chakra_reader_node_count(r) : 0;
	if (rc == 0 && r) /* a clean end must mean every byte was consumed */
		CHECK_EQ_U(chakra_reader_offset(r), len);
	chakra_reader_close(r);
	return rc;
}

/* A source that hands out at most `step` bytes per call: gzip members
 * and their magic split across reads. */
typedef struct {
	const unsigned char *p;
	size_t len, pos, step;
} trickle;

static long trickle_read(void *data, void *buf, size_t cap)
{
	trickle *t = data;
	size_t n = t->len - t->pos;
	if (n > t->step)
		n = t->step;
	if (n > cap)
		n = cap;
	memcpy(buf, t->p + t->pos, n);
	t->pos += n;
	return (long)n;
}

/* Read gz (+ tail) through a trickle of `step` bytes: final rc, message, nodes. */
static int read_trickle(const unsigned char *p, size_t len, size_t step, char *msg, size_t cap,
                        uint64_t *nodes)
{
	trickle t = { p, len, 0, step };
	chakra_reader *r;
	int rc = chakra_reader_open_cb(&r, trickle_read, &t, NULL);
	const chakra_node *n;
	while (rc >= 0 && (rc = chakra_reader_next(r, &n)) > 0)
		;
	snprintf(msg, cap, "%s", r ? chakra_reader_errmsg(r) : "");
	*nodes = r ? chakra_reader_node_count(r) : 0;
	chakra_reader_close(r);
	return rc;
}

static int has(const char *msg, const char *what)
{
	if (strstr(msg, what))
		return 1;
	fprintf(stderr, "message \"%s\" lacks \"%s\"\n", msg, what);
	return 0;
}

static void write_file(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	CHECK(f && fwrite(p, 1, n, f) == n);
	if (f)
		fclose(f);
}

int main(void)
{
	need_data("data/chakra/chakra.0.et.gz");
	size_t len;
	unsigned char *et = gunzip_file(shared_path("data/chakra/chakra.0.et.gz"), &len);
	CHECK(et && len > 100000);
	if (!et)
		return check_done();
	char msg[1024];
	uint64_t nodes;

	/* The intact file: 3664 nodes, clean end. The first node starts at
	 * byte 95 (after the metadata) with a 2-byte length prefix, the second
	 * at byte 6045 (as `chakra validate` reports them). */
	CHECK(read_all(et, len, NULL, msg, sizeof msg, &nodes) == 0);
	CHECK_EQ_U(nodes, 3664);

	/* Cut inside the second node's message. */
	CHECK(read_all(et, 6045 + 100, NULL, msg, sizeof msg, &nodes) == CHAKRA_ETRUNC);
	CHECK(has(msg, "<memory>: byte 6045: message declares"));
	CHECK(has(msg, "(truncated file)"));
	CHECK(has(msg, "node index 1"));
	CHECK_EQ_U(nodes, 1);

	/* Cut inside the first node's 2-byte length prefix. */
	CHECK(read_all(et, 96, NULL, msg, sizeof msg, &nodes) == CHAKRA_ETRUNC);
	CHECK(has(msg, "<memory>: byte 95: file ends inside a length prefix (1 byte(s) left)"));
	CHECK_EQ_U(nodes, 0);

	/* Cut inside the metadata. */
	CHECK(read_all(et, 50, NULL, msg, sizeof msg, NULL) == CHAKRA_ETRUNC);
	CHECK(has(msg, "byte 0: message declares"));

	/* Empty file. */
	CHECK(read_all(et, 0, NULL, msg, sizeof msg, NULL) == CHAKRA_ENOMETA);
	CHECK(has(msg, "<memory>: byte 0: empty file: no GlobalMetadata message"));

	/* No metadata: the file starts with a Node. */
	CHECK(read_all(et + 95, len - 95, NULL, msg, sizeof msg, NULL) == CHAKRA_ENOMETA);
	CHECK(has(msg, "byte 0: first message is not a GlobalMetadata"));

	/* Oversized length prefix after a valid metadata: 2^35 declared. */
	unsigned char big[95 + 6];
	memcpy(big, et, 95);
	memcpy(big + 95, "\x80\x80\x80\x80\x80\x01", 6);
	CHECK(read_all(big, sizeof big, NULL, msg, sizeof msg, NULL) == CHAKRA_ETOOBIG);
	CHECK(has(msg, "<memory>: byte 95: length prefix 34359738368 exceeds the maximum message size "
	               "268435456"));
	/* ... and a prefix above a configured maximum, though the bytes exist. */
	chakra_reader_options o = CHAKRA_READER_OPTIONS_INIT;
	o.max_message_size = 1000;
	CHECK(read_all(et, len, &o, msg, sizeof msg, NULL) == CHAKRA_ETOOBIG);
	CHECK(has(msg, "byte 95: length prefix 5948 exceeds the maximum message size 1000"));
	/* A length varint longer than 10 bytes is corruption, not truncation. */
	unsigned char longv[95 + 12];
	memcpy(longv, et, 95);
	memset(longv + 95, 0x80, 12);
	CHECK(read_all(longv, sizeof longv, NULL, msg, sizeof msg, NULL) == CHAKRA_ECORRUPT);
	CHECK(has(msg, "byte 95: malformed length prefix"));

	/* Random bytes (fixed-seed xorshift), alone and after valid metadata:
	 * an error, or a clean end only after consuming every byte (checked in
	 * read_all); never a crash. */
	uint64_t x = 88172645463325252ULL;
	unsigned char *rnd = malloc(4096 + 95);
	CHECK(rnd != NULL);
	int errors = 0;
	for (int round = 0; rnd && round < 200; round++) {
		size_t n = 1 + (size_t)(x % 4096);
		for (size_t i = 0; i < n + 95; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			rnd[i] = (unsigned char)x;
		}
		if (round % 2)
			memcpy(rnd, et, 95);
		int rc = read_all(rnd, n + (round % 2 ? 95 : 0), NULL, msg, sizeof msg, NULL);
		if (rc < 0) {
			errors++;
			CHECK_MSG(strstr(msg, "byte ") != NULL, "error without offset: %s", msg);
		}
	}
	CHECK(errors >= 190); /* random bytes are almost never a valid trace */

	/* Truncated .gz through a path (the gzip layer's own error). */
	char dir[] = "/tmp/core-hostile.XXXXXX";
	const char *tmp = getenv("TMPDIR");
	char tdir[4096];
	snprintf(tdir, sizeof tdir, "%s/core-hostile.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	char *d = mkdtemp(tdir);
	if (!d)
		d = mkdtemp(dir);
	CHECK(d != NULL);
	if (d) {
		size_t gzlen = 0;
		unsigned char *gz = slurp(shared_path("data/chakra/chakra.0.et.gz"), &gzlen);
		CHECK(gz && gzlen > 1000);
		char path[4200];
		snprintf(path, sizeof path, "%s/cut.et.gz", d);
		write_file(path, gz, gzlen / 2);
		chakra_reader *r;
		int rc = chakra_reader_open(&r, path, NULL);
		const chakra_node *n;
		while (rc >= 0 && (rc = chakra_reader_next(r, &n)) > 0)
			;
		CHECK(rc == CHAKRA_EGZIP);
		CHECK(has(chakra_reader_errmsg(r), "gzip stream ends early (truncated .gz file)"));
		CHECK(has(chakra_reader_errmsg(r), path));
		CHECK(chakra_reader_node_count(r) > 0 && chakra_reader_node_count(r) < 3664);
		chakra_reader_close(r);
		unlink(path);

		/* What follows a complete member: another member reads on;
		 * anything else (even one byte, even 0x1f alone) is garbage at
		 * the byte where it starts, reported after every node before
		 * it, whatever the read sizes. */
		uint64_t all = 0;
		char m[512];
		CHECK(read_trickle(gz, gzlen, 1 << 16, m, sizeof m, &all) == 0 && all > 1000);
		unsigned char *two = malloc(2 * gzlen + 3);
		CHECK(two != NULL);
		if (two) {
			static const struct {
				const char *tail;
				size_t n;
			} tails[] = { { "x", 1 }, { "\x1f", 1 }, { "\0\0\0", 3 }, { "\x1f\x8c", 2 } };
			static const size_t steps[] = { 1, 7, 4096, 1 << 20 };
			char want[64];
			snprintf(want, sizeof want, "compressed byte %zu: garbage after gzip stream", gzlen);
			for (size_t i = 0; i < sizeof tails / sizeof *tails; i++)
				for (size_t k = 0; k < sizeof steps / sizeof *steps; k++) {
					uint64_t got = 0;
					memcpy(two, gz, gzlen);
					memcpy(two + gzlen, tails[i].tail, tails[i].n);
					int rc2 = read_trickle(two, gzlen + tails[i].n, steps[k], m, sizeof m, &got);
					CHECK_MSG(rc2 == CHAKRA_EGZIP, "tail %zu step %zu: rc %d", i, steps[k], rc2);
					CHECK(has(m, want));
					CHECK_EQ_U(got, all);
				}
			/* two members, the second's magic split across reads */
			memcpy(two + gzlen, gz, gzlen);
			for (size_t k = 0; k < sizeof steps / sizeof *steps; k++) {
				uint64_t got = 0;
				int rc2 = read_trickle(two, 2 * gzlen, steps[k], m, sizeof m, &got);
				/* the second member is read on: its metadata message
				 * happens to decode as a node too, then its nodes */
				CHECK_MSG(rc2 == 0 && got == 2 * all + 1, "two members, step %zu: rc %d, %llu nodes",
				          steps[k], rc2, (unsigned long long)got);
			}
			free(two);
		}

		/* A writer that is not finished leaves nothing behind. */
		snprintf(path, sizeof path, "%s/unfinished.et", d);
		chakra_writer *w;
		CHECK(chakra_writer_open(&w, path, NULL) == 0);
		CHECK(chakra_writer_write_metadata(w, "0.0.4", NULL) == 0);
		chakra_writer_close(w);
		CHECK(access(path, F_OK) != 0);

		/* A negative node type would be written sign-extended to 10
		 * bytes, which the reader (and nanopb) refuse as out of range:
		 * the writer refuses it, naming the node, and leaves no file. */
		snprintf(path, sizeof path, "%s/negtype.et", d);
		CHECK(chakra_writer_open(&w, path, NULL) == 0);
		CHECK(chakra_writer_write_metadata(w, "0.0.4", NULL) == 0);
		chakra_builder *b = chakra_builder_new();
		CHECK(b != NULL);
		if (b) {
			chakra_builder_set_id(b, 7);
			chakra_builder_set_type(b, -1);
			CHECK(chakra_writer_write_node(w, b) == CHAKRA_EINVAL);
			CHECK(has(chakra_writer_errmsg(w), "node 7: type -1 is negative"));
			CHECK(chakra_writer_finish(w) < 0);
			chakra_builder_free(b);
		}
		chakra_writer_close(w);
		CHECK(access(path, F_OK) != 0);
		/* ... and reading one so encoded is an error naming the field */
		static const unsigned char neg[] = { 7, 0x0a, 5, '0', '.', '0', '.', '4', 13, 0x08, 1, 0x18,
			                             0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
			                             0x01 };
		char m2[512];
		CHECK(read_all(neg, sizeof neg, NULL, m2, sizeof m2, NULL) == CHAKRA_ECORRUPT);
		CHECK(has(m2, "field type: value 18446744073709551615 out of range"));
		free(gz);
		rmdir(d);
	}
	free(rnd);
	free(et);
	return check_done();
}
