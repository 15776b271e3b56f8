/* SPDX-License-Identifier: Apache-2.0 */
/* White-box: the feeder's top-level scan against the library's full
 * walker (itself tested against nanopb) on every node of real traces, and
 * on random mutations of them: whenever the walker accepts a message the
 * scan must accept it with the same id and dependencies (the scan checks
 * less, so it may accept more; the rest is checked on lazy decode). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "chakra/chakra.h"
#include "check.h"
#include "feeder/feeder_impl.h"
#include "wire.h"

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static walk_scratch ws_full, ws_scan, ws_data, ws_ctrl;
static arena ar;
static char err[CHAKRA_ERRMSG_MAX];
static uint64_t compared, mismatches, scan_rejects_valid;

static void compare(const uint8_t *m, size_t len)
{
	node_full full;
	uint64_t id1, id2;
	chakra__arena_reset(&ar);
	int r1 = chakra__node_walk(m, len, 0, &id1, &full, &ar, &ws_full, err);
	int r2 = chakra__feeder_scan(m, len, 0, &id2, &ws_scan, CHAKRA_DEPS_BOTH, err);
	/* Data only: the same id and data deps; control only likewise. */
	uint64_t id3, id4;
	int r3 = chakra__feeder_scan(m, len, 0, &id3, &ws_data, CHAKRA_DEPS_DATA, err);
	int r4 = chakra__feeder_scan(m, len, 0, &id4, &ws_ctrl, CHAKRA_DEPS_CTRL, err);
	if (r1 != 0)
		return;
	compared++;
	if (r2 != 0) {
		if (scan_rejects_valid++ < 3)
			fprintf(stderr, "  scan rejects a valid message: %s\n", err);
		return;
	}
	if (r3 != 0 || id3 != id1 || full.n_data != walk_n_data(&ws_data) ||
	    (full.n_data && memcmp(full.data, walk_data(&ws_data), full.n_data * 8)))
		mismatches++;
	if (r4 != 0 || id4 != id1 || full.n_ctrl != walk_n_ctrl(&ws_ctrl) ||
	    (full.n_ctrl && memcmp(full.ctrl, walk_ctrl(&ws_ctrl), full.n_ctrl * 8)))
		mismatches++;
	if (id1 != id2 || full.n_data != walk_n_data(&ws_scan) || full.n_ctrl != walk_n_ctrl(&ws_scan) ||
	    (full.n_data && memcmp(full.data, walk_data(&ws_scan), full.n_data * 8)) ||
	    (full.n_ctrl && memcmp(full.ctrl, walk_ctrl(&ws_scan), full.n_ctrl * 8)))
		mismatches++;
}

/* Structural mutations of a valid message: its top-level fields moved,
 * repeated or dropped (and the message cut at a field boundary). These
 * keep it valid, so the walker accepts them and the scan must agree: they
 * exercise field orders, repeated lists and short tails, which byte flips
 * rarely produce. */
static void shuffle(const uint8_t *m, size_t len, int rounds)
{
	enum { MAXF = 64 };
	size_t fs[MAXF + 1], nf = 0;
	const uint8_t *p = m, *end = m + len;
	while (p < end && nf < MAXF) {
		uint64_t tag;
		fs[nf++] = (size_t)(p - m);
		if (wire_varint(&p, end, &tag) || chakra__wire_skip(&p, end, tag & 7))
			return;
	}
	if (p != end || nf < 2)
		return;
	fs[nf] = len;
	uint8_t *buf = malloc(4 * len); /* three repeats at most */
	CHECK(buf != NULL);
	for (int k = 0; k < rounds; k++) {
		size_t order[2 * MAXF], n = 0;
		for (size_t i = 0; i < nf; i++)
			order[n++] = i;
		for (int ops = 1 + (int)(rnd() % 3); ops > 0; ops--) {
			switch (rnd() % 3) {
			case 0: { /* move one field */
				size_t a = rnd() % n, b = rnd() % n, t = order[a];
				memmove(&order[a], &order[a + 1], (n - a - 1) * sizeof *order);
				memmove(&order[b + 1], &order[b], (n - 1 - b) * sizeof *order);
				order[b] = t;
				break;
			}
			case 1: { /* repeat one field somewhere */
				if (n == 2 * MAXF)
					break;
				size_t a = rnd() % n, b = rnd() % (n + 1), t = order[a];
				memmove(&order[b + 1], &order[b], (n - b) * sizeof *order);
				order[b] = t;
				n++;
				break;
			}
			default: /* keep the first fields only */
				n = 1 + rnd() % n;
			}
		}
		size_t L = 0;
		for (size_t i = 0; i < n; i++) {
			size_t f = order[i], fl = fs[f + 1] - fs[f];
			memcpy(buf + L, m + fs[f], fl);
			L += fl;
		}
		compare(buf, L);
	}
	free(buf);
}

/* Messages built field by field around the fast path's limits: varints of
 * 1-10 bytes in the id, type, start and duration (the tenth byte 0, 1 or
 * the invalid 2), lists of 0-4 values of 1-5 bytes with one- and two-byte
 * lengths, names and attributes with one- to three-byte lengths, each
 * field present or not, and every such message cut at each byte. */
static uint8_t *put_varint(uint8_t *d, uint64_t v)
{
	return d + wire_put_varint(d, v);
}

static uint64_t width_value(unsigned w) /* the smallest value of w bytes */
{
	return w == 1 ? 1 : 1ull << (7 * (w - 1));
}

static uint8_t *put_len(uint8_t *d, unsigned tag, const uint8_t *s, size_t n)
{
	*d++ = (uint8_t)tag;
	d = put_varint(d, n);
	memcpy(d, s, n);
	return d + n;
}

static size_t craft(uint8_t *buf, uint64_t r)
{
	static const uint8_t attr[] = { 0x0a, 0x01, 'a', 0x48, 0x05 };
	static uint8_t name[20000];
	uint8_t list[64], *d = buf, *q;
	memset(name, 'n', sizeof name);
	unsigned vw = 1 + (unsigned)(r % 10), which = (unsigned)(r / 10 % 4);
	r /= 40;
	/* id, type, start, duration: one of them (which) of width vw */
	uint64_t ids[4];
	for (unsigned f = 0; f < 4; f++)
		ids[f] = f == which ? width_value(vw) + (r & 3) : 1 + (r >> (2 * f) & 0x3f);
	r >>= 8;
	if (r % 8) {
		*d++ = 0x08;
		d = put_varint(d, ids[0]);
	}
	r /= 8;
	static const size_t names[] = { 0, 5, 127, 128, 300, 16384 };
	d = put_len(d, 0x12, name, names[r % 6]);
	r /= 6;
	if (r % 4) {
		*d++ = 0x18;
		d = put_varint(d, ids[1] % 4);
	}
	r /= 4;
	for (unsigned tag = 0x22; tag <= 0x2a; tag += 8) {
		unsigned n = (unsigned)(r % 6), w = 1 + (unsigned)(r / 6 % 5);
		r /= 30;
		if (n == 5)
			continue; /* absent */
		q = list;
		for (unsigned k = 0; k < n; k++)
			q = put_varint(q, width_value(w) + k + (r & 1 ? k * 1000 : 0));
		if (r & 2) { /* a two-byte length: padded with one-byte values */
			while (q - list < 130 && q < list + sizeof list - 1)
				*q++ = 0x07;
		}
		r >>= 2;
		d = put_len(d, tag, list, (size_t)(q - list));
	}
	if (r % 3 == 0 || which == 2) {
		*d++ = 0x30;
		d = put_varint(d, ids[2]);
	}
	r /= 3;
	if (r % 5 || which == 3) {
		*d++ = 0x38;
		d = put_varint(d, ids[3]);
	}
	r /= 5;
	if (vw == 10 && r % 3) /* the tenth byte 1, or the invalid 2 */
		for (uint8_t *x = buf; x + 10 <= d; x++)
			if (x[9] == 0x01 && x[8] == 0x80 && x[0] == 0x80)
				x[9] = (uint8_t)(r % 3);
	r /= 3;
	for (unsigned a = (unsigned)(r % 5); a > 0; a--) {
		if (a == 2 && r & 8) { /* a long one */
			uint8_t big[200];
			big[0] = 0x0a;
			big[1] = 190;
			big[2] = 1;
			memset(big + 3, 'b', 190);
			d = put_len(d, 0x52, big, 193);
		} else {
			d = put_len(d, 0x52, attr, sizeof attr);
		}
	}
	return (size_t)(d - buf);
}

static void crafted(int n)
{
	uint8_t *buf = malloc(40000);
	CHECK(buf != NULL);
	for (int i = 0; i < n; i++) {
		size_t len = craft(buf, rnd());
		for (size_t cut = 0; cut <= len; cut += cut < 40 || len - cut < 40 ? 1 : 97) {
			uint8_t *m = malloc(cut ? cut : 1); /* exactly: ASan sees a read past it */
			memcpy(m, buf, cut);
			compare(m, cut);
			free(m);
		}
	}
	free(buf);
}

static void run(const char *path, int mutations)
{
	chakra_reader *r;
	CHECK(chakra_reader_open(&r, path, NULL) == 0);
	const void *m;
	size_t len;
	uint8_t *buf = NULL;
	size_t cap = 0;
	while (chakra_reader_next_raw(r, &m, &len) > 0) {
		compare(m, len);
		shuffle(m, len, mutations);
		if (len > cap) {
			free(buf);
			buf = malloc(cap = len);
		}
		for (int k = 0; k < mutations && len; k++) {
			memcpy(buf, m, len);
			int flips = 1 + (int)(rnd() % 3);
			for (int j = 0; j < flips; j++)
				buf[rnd() % len] = (uint8_t)rnd();
			size_t cut = rnd() % 4 == 0 ? rnd() % len : len;
			compare(buf, cut);
		}
	}
	free(buf);
	chakra_reader_close(r);
}

int main(void)
{
	need_data("data/chakra/chakra.0.et.gz");
	need_data("data/astra-sim/microbenchmarks");
	run(shared_path("data/chakra/chakra.0.et.gz"), 20);
	run(shared_path("data/astra-sim/microbenchmarks/all_reduce/8npus_1MB/all_reduce.0.et"), 200);
	uint64_t before = compared;
	crafted(3000);
	printf("%llu crafted messages compared\n", (unsigned long long)(compared - before));
	CHECK(compared - before > 6000);
	CHECK(compared > 3664);
	CHECK_EQ_U(mismatches, 0);
	CHECK_EQ_U(scan_rejects_valid, 0);
	chakra__walk_scratch_free(&ws_full);
	chakra__walk_scratch_free(&ws_scan);
	chakra__walk_scratch_free(&ws_data);
	chakra__walk_scratch_free(&ws_ctrl);
	chakra__arena_free(&ar);
	printf("%llu messages compared\n", (unsigned long long)compared);
	return check_done();
}
