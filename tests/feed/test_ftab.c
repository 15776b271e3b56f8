/* SPDX-License-Identifier: Apache-2.0 */
/* White-box: the feeder's id map, heap and done set against naive models,
 * under random operations with dense, strided and random ids (the strided
 * ones force the map off its identity hash). */
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "feeder/ftab.h"

static uint64_t rng = 88172645463325252ull;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

enum { UNIVERSE = 4096 };

static void test_idmap(int pattern)
{
	idmap m = { 0 };
	static uint32_t model[UNIVERSE]; /* FT_NIL = absent */
	static uint64_t key_of[UNIVERSE];
	for (int i = 0; i < UNIVERSE; i++) {
		model[i] = FT_NIL;
		key_of[i] = pattern == 0 ? (uint64_t)i
		          : pattern == 1 ? (uint64_t)i << 20   /* all collide under id & mask */
		                         : rnd();
	}
	for (int step = 0; step < 200000; step++) {
		int k = (int)(rnd() % UNIVERSE);
		uint32_t got = idmap_get(&m, key_of[k]);
		if (got != model[k]) {
			CHECK_EQ_U(got, model[k]);
			break;
		}
		if (model[k] == FT_NIL && rnd() % 3) {
			CHECK(idmap_put(&m, key_of[k], (uint32_t)step) == 0);
			model[k] = (uint32_t)step;
		} else if (model[k] != FT_NIL) {
			idmap_del(&m, key_of[k]);
			model[k] = FT_NIL;
		}
	}
	size_t n = 0;
	for (int i = 0; i < UNIVERSE; i++) {
		n += model[i] != FT_NIL;
		if (idmap_get(&m, key_of[i]) != model[i])
			CHECK_EQ_U(idmap_get(&m, key_of[i]), model[i]);
	}
	CHECK_EQ_U(m.n, n);
	if (pattern == 1)
		CHECK(m.mixed); /* the clustered ids switched the hash */
	if (pattern == 0)
		CHECK(!m.mixed);
	chakra__idmap_free(&m);
}

static void test_heap(void)
{
	heap q = { 0 };
	static uint64_t keys[5000];
	for (int i = 0; i < 5000; i++) {
		keys[i] = rnd() % 1000;
		CHECK(chakra__heap_push(&q, keys[i], (uint32_t)i) == 0);
	}
	uint64_t last = 0;
	for (int i = 0; i < 5000; i++) {
		uint32_t s = chakra__heap_pop(&q);
		CHECK(s < 5000);
		if (s >= 5000)
			break;
		CHECK(keys[s] >= last);
		last = keys[s];
	}
	CHECK(chakra__heap_pop(&q) == FT_NIL);
	chakra__heap_free(&q);
}

/* The ready queue against a naive model: unique keys, mostly rising and
 * dense (bitmap window), with keys below the window, far above it, and
 * across window boundaries (heap), popped interleaved with pushes. */
static void test_dqueue(void)
{
	dqueue q = { 0 };
	enum { N = 300 };
	static uint64_t live[N];
	static uint32_t live_slot[N];
	size_t nlive = 0;
	uint64_t next = DQ_SIZE - 3000, used = 0;
	int bad = 0;
	for (uint32_t step = 0; step < 60000; step++) {
		uint64_t r = rnd();
		if (nlive < N && (r % 3 != 0 || nlive == 0)) {
			uint64_t key;
			switch (r % 17) {
			case 0: key = (uint64_t)1 << 40 | rnd(); break; /* far above */
			case 1: key = rnd() % 1000; break;              /* below */
			default: key = next + (r >> 8) % 64; next += 1 + (r >> 16) % 3; break;
			}
			int dup = 0;
			for (size_t k = 0; k < nlive; k++)
				dup |= live[k] == key;
			if (dup)
				continue;
			CHECK(dqueue_push(&q, key, (uint32_t)used) == 0);
			live[nlive] = key;
			live_slot[nlive++] = (uint32_t)used++;
		} else {
			size_t m = 0;
			for (size_t k = 1; k < nlive; k++)
				if (live[k] < live[m])
					m = k;
			uint32_t s = dqueue_pop(&q);
			bad += s != live_slot[m];
			live[m] = live[--nlive];
			live_slot[m] = live_slot[nlive];
		}
		bad += q.n != nlive;
	}
	while (nlive) {
		size_t m = 0;
		for (size_t k = 1; k < nlive; k++)
			if (live[k] < live[m])
				m = k;
		bad += dqueue_pop(&q) != live_slot[m];
		live[m] = live[--nlive];
		live_slot[m] = live_slot[nlive];
	}
	CHECK_EQ_U(bad, 0);
	CHECK(dqueue_pop(&q) == FT_NIL);
	CHECK(q.nbits == 0 && q.leaf != NULL);
	chakra__dqueue_free(&q);
}

static void test_doneset(void)
{
	doneset d = { 0 };
	for (uint64_t i = 0; i < 100000; i += 3)
		CHECK(doneset_add(&d, i) == 0);
	CHECK(doneset_add(&d, UINT64_MAX) == 0);
	CHECK(doneset_add(&d, (uint64_t)1 << 60) == 0);
	int bad = 0;
	for (uint64_t i = 0; i < 100010; i++)
		bad += doneset_has(&d, i) != (i % 3 == 0 && i < 100000);
	CHECK_EQ_U(bad, 0);
	CHECK(doneset_has(&d, UINT64_MAX));
	CHECK(doneset_has(&d, (uint64_t)1 << 60));
	CHECK(!doneset_has(&d, ((uint64_t)1 << 60) + 1));
	chakra__doneset_free(&d);

	/* A page first kept in the idmap (far above the dense ids) must still
	 * be found once the dense directory grows over it. */
	doneset e = { 0 };
	uint64_t far = (uint64_t)512 * 20000 + 7;
	CHECK(doneset_add(&e, far) == 0);
	for (uint64_t i = 0; i < (uint64_t)512 * 30000; i += 511)
		CHECK(doneset_add(&e, i) == 0);
	CHECK(e.ndir > 20000);
	CHECK(doneset_has(&e, far));
	CHECK(!doneset_has(&e, far + 1));
	CHECK(doneset_has(&e, 511 * 7));
	CHECK(!doneset_has(&e, 511 * 7 + 1));
	chakra__doneset_free(&e);

	/* Ids first kept in pages (beyond what the flat bitmap may cover
	 * yet), then covered as dense ids fill in: merged, still found. (Id 0
	 * stays incomplete, so the bitmap cannot slide and must grow.) */
	doneset g = { 0 };
	uint64_t hi = 2000000;
	for (uint64_t i = hi; i < hi + 100; i++)
		CHECK(doneset_add(&g, i) == 0);
	CHECK(g.nflat * 64 <= hi);
	for (uint64_t i = 1; i < 1500000; i++)
		CHECK(doneset_add(&g, i) == 0);
	CHECK(g.base == 0 && g.nflat * 64 > hi + 100);
	bad = 0;
	for (uint64_t i = 1400000; i < hi + 300; i++)
		bad += doneset_has(&g, i) != (i < 1500000 || (i >= hi && i < hi + 100));
	bad += doneset_has(&g, 0);
	CHECK_EQ_U(bad, 0);
	chakra__doneset_free(&g);

	/* Dense ids completed in about id order (a window of 1000 in flight):
	 * the bitmap slides and stays the size of the window, not of the 20M
	 * ids; completed ids far below are still known, pages above merge in
	 * as the front passes them. */
	doneset h = { 0 };
	uint64_t N = 20000000, W = 1000, far2 = N - 12345;
	CHECK(doneset_add(&h, far2) == 0);
	size_t most = 0;
	for (uint64_t i = 0; i < N; i++) {
		uint64_t id = i < W ? i : (i - W) ^ 5; /* a little out of order */
		if (i >= W && id >= N - W)
			id = i - W;
		if (id == far2)
			continue;
		if (!doneset_has(&h, id))
			CHECK(doneset_add(&h, id) == 0);
		if (h.nflat > most)
			most = h.nflat;
	}
	CHECK_MSG(most <= 4096, "flat bitmap grew to %zu words", most);
	CHECK(h.base > 0);
	bad = 0;
	for (uint64_t i = 0; i < N - W; i += 997)
		bad += !doneset_has(&h, i);
	CHECK_EQ_U(bad, 0);
	CHECK(doneset_has(&h, far2) && doneset_has(&h, 0) && doneset_has(&h, 64));
	chakra__doneset_free(&h);
}

static void test_bytepool(void)
{
	bytepool b = { 0 };
	void *p[3000];
	uint8_t cls[3000];
	for (int i = 0; i < 3000; i++) {
		size_t n = 1 + (size_t)(rnd() % (i % 100 == 0 ? 200000 : 3000));
		p[i] = bytepool_alloc(&b, n, &cls[i]);
		CHECK(p[i] != NULL);
		memset(p[i], i & 0xff, n); /* ASan/valgrind catch overruns */
		if (i % 2)
			bytepool_release(&b, p[i], cls[i]), p[i] = NULL;
	}
	for (int i = 0; i < 3000; i++)
		if (p[i])
			bytepool_release(&b, p[i], cls[i]);
	chakra__bytepool_free(&b);
}

int main(void)
{
	test_idmap(0);
	test_idmap(1);
	test_idmap(2);
	test_heap();
	test_dqueue();
	test_doneset();
	test_bytepool();
	return check_done();
}
