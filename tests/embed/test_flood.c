/* SPDX-License-Identifier: Apache-2.0 */
/* Hash flooding (docs/hardening.md): ids chosen to collide in the feeder's
 * id map. The map used the identity hash, then, after a long probe, a
 * multiplicative hash with a fixed multiplier K: the ids j * K^-1 all land
 * in bucket 0 under it, so 200k of them after a few clustered ids made
 * every insert and lookup scan the whole map (the feeder ~450x slower).
 * The hash is now keyed at random per map, and fully mixed.
 *  1. White box: the map's probe lengths on those keys stay short (total
 *     displacement linear in the number of keys).
 *  2. The feeder on a trace of those ids runs within a small factor of the
 *     same trace with dense ids (printed side by side). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "chakra/chakra.h"
#include "check.h"
#include "feeder/ftab.h"
#include "tbuild.h"

#define K 0x9E3779B97F4A7C15ull /* the old fixed multiplier */

static uint64_t inverse(uint64_t a) /* a odd: a * x == 1 mod 2^64 */
{
	uint64_t x = a; /* Newton: each step doubles the correct low bits */
	for (int i = 0; i < 6; i++)
		x *= 2 - a * x;
	return x;
}

/* n adversarial ids: 100 ids 2^30 apart (one home bucket under the
 * identity hash: forces the multiplicative hash), then j * K^-1. */
static void adversarial_ids(uint64_t *ids, size_t n)
{
	uint64_t kinv = inverse(K);
	for (size_t i = 0; i < n; i++)
		ids[i] = i < 100 ? ((uint64_t)(i + 1) << 30) : (uint64_t)(i - 99) * kinv;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void test_map(void)
{
	enum { N = 200000 };
	static uint64_t ids[N];
	adversarial_ids(ids, N);
	idmap m;
	memset(&m, 0, sizeof m);
	for (size_t i = 0; i < N; i++)
		CHECK(idmap_put(&m, ids[i], (uint32_t)i) == 0);
	CHECK(m.mixed);
	/* Total and longest displacement from the home bucket. */
	uint64_t total = 0, longest = 0;
	for (size_t i = 0; i < m.cap; i++) {
		if (m.e[i].val == FT_NIL)
			continue;
		uint64_t d = (i - idmap_home(&m, m.e[i].key)) & (m.cap - 1);
		total += d;
		if (d > longest)
			longest = d;
	}
	printf("id map, %d adversarial keys: mean displacement %.2f, longest %llu (the fixed "
	       "multiplier: mean ~%d)\n",
	       N, (double)total / N, (unsigned long long)longest, N / 2);
	CHECK(total < 4 * (uint64_t)N);
	CHECK(longest < 64);
	for (size_t i = 0; i < N; i++)
		CHECK(idmap_get(&m, ids[i]) == (uint32_t)i);
	for (size_t i = 0; i < N; i += 2)
		CHECK(idmap_del(&m, ids[i]) == (uint32_t)i);
	for (size_t i = 0; i < N; i++)
		CHECK(idmap_get(&m, ids[i]) == (i % 2 ? (uint32_t)i : FT_NIL));
	chakra__idmap_free(&m);
}

/* Seconds to feed a trace of these ids (no dependencies) to the end. */
static double feed_time(const uint64_t *ids, size_t n)
{
	tbuf t = { 0 };
	CHECK(tbuild(&t, n, ids, NULL, NULL) == 0);
	double best = 1e9;
	for (int rep = 0; rep < 3; rep++) {
		double t0 = now();
		chakra_feeder *f;
		CHECK(chakra_feeder_open_buffer(&f, t.p, t.len, NULL) == 0);
		const chakra_node *node;
		size_t fed = 0;
		int rc;
		while ((rc = chakra_feeder_next(f, &node)) > 0) {
			chakra_feeder_complete(f, chakra_node_id(node));
			fed++;
		}
		CHECK(rc == 0 && fed == n);
		chakra_feeder_close(f);
		double dt = now() - t0;
		if (dt < best)
			best = dt;
	}
	free(t.p);
	return best;
}

static void test_feeder(void)
{
	enum { N = 200000 };
	static uint64_t adv[N], dense[N];
	adversarial_ids(adv, N);
	/* The same ids in a shuffled-looking but benign order: a stride. */
	for (size_t i = 0; i < N; i++)
		dense[i] = (i * 7919) % N;
	double ta = feed_time(adv, N), td = feed_time(dense, N);
	printf("feeder, %d nodes: adversarial ids %.3f s, benign ids %.3f s (%.1fx)\n", N, ta, td,
	       ta / td);
	/* Linear: within a small factor (the fixed multiplier: ~450x). */
	CHECK_MSG(ta < 10 * td + 0.5, "%.3f s vs %.3f s", ta, td);
}

int main(void)
{
	test_map();
	test_feeder();
	return check_done();
}
