/* SPDX-License-Identifier: Apache-2.0 */
/* The one Kahn's order (lib/graph/topo.c) against the three it replaced,
 * written here plainly (ready sets scanned, not heaps) on random graphs
 * with and without cycles:
 *   the converter's numbering: least (key, index) first, an untimed node's
 *     key raised to its parents' as they are ordered, a stall releasing the
 *     lowest index left and counting the edges it still waited on;
 *   synth's issue order: lowest id first, a stall releasing the lowest id
 *     left;
 *   perf's event order: FIFO, some edges skipped (cross-rank), a cycle an
 *     error whose remaining in-degrees name the blocked events.
 * Plus a small hand-made cycle for the perf case. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chakra/error.h"
#include "check.h"
#include "topo.h"

#define MAXN 40
#define MAXE 200

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

typedef struct g {
	size_t n;
	uint32_t in_off[MAXN + 1], in_src[MAXE];
	uint8_t skip[MAXE];
} g;

/* Random in-edge CSR: mostly forward edges, some back edges (cycles) when
 * cyclic, duplicates allowed. */
static void make(g *G, int cyclic)
{
	G->n = 1 + rnd() % MAXN;
	uint32_t k = 0;
	for (size_t i = 0; i < G->n; i++) {
		G->in_off[i] = k;
		int np = (int)(rnd() % 5);
		for (int j = 0; j < np && k < MAXE; j++) {
			uint32_t p = (uint32_t)(rnd() % G->n);
			if (p >= i && !(cyclic && rnd() % 3 == 0))
				continue;
			G->skip[k] = rnd() % 6 == 0;
			G->in_src[k++] = p;
		}
	}
	G->in_off[G->n] = k;
}

/* Children of v in the order the algorithms visit them: by child index,
 * then by position in its parent list. */
static size_t children(const g *G, uint32_t v, const uint8_t *skip, uint32_t *out)
{
	size_t m = 0;
	for (size_t i = 0; i < G->n; i++)
		for (uint32_t k = G->in_off[i]; k < G->in_off[i + 1]; k++)
			if (G->in_src[k] == v && !(skip && skip[k]))
				out[m++] = (uint32_t)i;
	return m;
}

/* The converter's and synth's order, plainly: the ready entry with the
 * least (key when it became ready, index). release_by_key: synth's choice
 * of the node to release, else the converter's. */
static void ref_by_key(const g *G, const uint64_t *key0, const uint8_t *carry, int release_by_key,
                       uint32_t *order, uint64_t *dropped, uint8_t *released)
{
	size_t n = G->n;
	uint64_t key[MAXN], pkey[MAXN];
	uint32_t indeg[MAXN], ch[MAXE];
	uint8_t done[MAXN] = { 0 }, ready[MAXN] = { 0 };
	memcpy(key, key0, n * sizeof *key);
	for (size_t i = 0; i < n; i++) {
		indeg[i] = G->in_off[i + 1] - G->in_off[i];
		released[i] = 0;
		if (!indeg[i]) {
			ready[i] = 1;
			pkey[i] = key[i];
		}
	}
	*dropped = 0;
	for (size_t k = 0; k < n; k++) {
		int any = 0;
		for (size_t i = 0; i < n; i++)
			any |= ready[i];
		if (!any) {
			size_t v = SIZE_MAX;
			for (size_t i = 0; i < n; i++)
				if (!done[i] && (v == SIZE_MAX || (release_by_key && key0[i] < key0[v])))
					v = i;
			*dropped += indeg[v];
			indeg[v] = 0;
			released[v] = 1;
			ready[v] = 1;
			pkey[v] = key[v];
		}
		size_t v = SIZE_MAX;
		for (size_t i = 0; i < n; i++)
			if (ready[i] && (v == SIZE_MAX || pkey[i] < pkey[v]))
				v = i;
		ready[v] = 0;
		done[v] = 1;
		order[k] = (uint32_t)v;
		size_t m = children(G, (uint32_t)v, NULL, ch);
		for (size_t e = 0; e < m; e++) {
			uint32_t w = ch[e];
			if (done[w])
				continue;
			if (carry && carry[w] && key[v] > key[w])
				key[w] = key[v];
			if (indeg[w] && --indeg[w] == 0) {
				ready[w] = 1;
				pkey[w] = key[w];
			}
		}
	}
}

/* perf's: FIFO, skipped edges ignored, stops at a cycle. */
static size_t ref_fifo(const g *G, uint32_t *order, uint32_t *indeg)
{
	size_t n = G->n, head = 0, tail = 0;
	uint32_t ch[MAXE];
	for (size_t i = 0; i < n; i++) {
		indeg[i] = 0;
		for (uint32_t k = G->in_off[i]; k < G->in_off[i + 1]; k++)
			indeg[i] += !G->skip[k];
		if (!indeg[i])
			order[tail++] = (uint32_t)i;
	}
	while (head < tail) {
		uint32_t v = order[head++];
		size_t m = children(G, v, G->skip, ch);
		for (size_t e = 0; e < m; e++)
			if (!--indeg[ch[e]])
				order[tail++] = ch[e];
	}
	return tail;
}

static int same(const uint32_t *a, const uint32_t *b, size_t n)
{
	return !memcmp(a, b, n * sizeof *a);
}

int main(void)
{
	int cycles_seen = 0, stalls_seen = 0;
	for (int it = 0; it < 3000; it++) {
		g G;
		make(&G, it % 2);
		size_t n = G.n;
		uint32_t want[MAXN], got[MAXN], wdeg[MAXN], gdeg[MAXN];
		uint8_t wrel[MAXN], grel[MAXN], carry[MAXN];
		uint64_t key[MAXN], key0[MAXN], wdrop;

		/* the converter: start times (some equal, some untimed) */
		for (size_t i = 0; i < n; i++) {
			int timed = rnd() % 4 != 0;
			int64_t start = timed ? (int64_t)(rnd() % 50) - 10 : INT64_MIN;
			key0[i] = key[i] = chakra__topo_key_i64(start);
			carry[i] = !timed;
		}
		ref_by_key(&G, key0, carry, 0, want, &wdrop, wrel);
		chakra__topo t = { .n = n, .in_off = G.in_off, .in_src = G.in_src,
		                   .ready = CHAKRA__TOPO_BY_KEY, .cycle = CHAKRA__TOPO_RELEASE_FIRST,
		                   .key = key, .carry = carry, .order = got, .released = grel };
		CHECK(chakra__topo_order(&t) == 0);
		CHECK(t.norder == n);
		CHECK_MSG(same(want, got, n), "converter order, graph %d", it);
		CHECK(t.dropped == wdrop);
		CHECK(!memcmp(wrel, grel, n));
		cycles_seen += wdrop > 0;

		/* synth: unique ids, in any order */
		for (size_t i = 0; i < n; i++) {
			key0[i] = key[i] = (rnd() % 1000) * MAXN + i;
		}
		ref_by_key(&G, key0, NULL, 1, want, &wdrop, wrel);
		chakra__topo s = { .n = n, .in_off = G.in_off, .in_src = G.in_src,
		                   .ready = CHAKRA__TOPO_BY_KEY, .cycle = CHAKRA__TOPO_RELEASE_LOWEST_KEY,
		                   .key = key, .order = got, .released = grel };
		CHECK(chakra__topo_order(&s) == 0);
		CHECK_MSG(same(want, got, n), "synth order, graph %d", it);
		CHECK(s.dropped == wdrop);
		CHECK(!memcmp(wrel, grel, n));

		/* perf: FIFO with skipped edges; a cycle stops it */
		size_t wn = ref_fifo(&G, want, wdeg);
		chakra__topo p = { .n = n, .in_off = G.in_off, .in_src = G.in_src, .skip = G.skip,
		                   .ready = CHAKRA__TOPO_FIFO, .cycle = CHAKRA__TOPO_REPORT,
		                   .order = got, .indeg = gdeg };
		int rc = chakra__topo_order(&p);
		CHECK(rc == (wn == n ? 0 : CHAKRA_ECYCLE));
		CHECK(p.norder == wn);
		CHECK_MSG(same(want, got, wn), "perf order, graph %d", it);
		CHECK(same(wdeg, gdeg, n));
		stalls_seen += wn < n;
	}
	/* the random graphs did reach the cycle paths */
	CHECK(cycles_seen > 100);
	CHECK(stalls_seen > 100);

	/* perf's case by hand: 0 -> 1 -> 2 -> 1 (a cycle), 0 -> 3, and a
	 * skipped edge 2 -> 3 (cross-rank) that must not hold 3 back. */
	{
		uint32_t in_off[] = { 0, 0, 2, 3, 5 };
		uint32_t in_src[] = { 0, 2, 1, 0, 2 };
		uint8_t skip[] = { 0, 0, 0, 0, 1 };
		uint32_t order[4], indeg[4];
		chakra__topo p = { .n = 4, .in_off = in_off, .in_src = in_src, .skip = skip,
		                   .ready = CHAKRA__TOPO_FIFO, .cycle = CHAKRA__TOPO_REPORT,
		                   .order = order, .indeg = indeg };
		CHECK(chakra__topo_order(&p) == CHAKRA_ECYCLE);
		CHECK(p.norder == 2 && order[0] == 0 && order[1] == 3);
		/* the blocked: 1 (waits for 2) and 2 (waits for 1) */
		CHECK(indeg[0] == 0 && indeg[1] == 1 && indeg[2] == 1 && indeg[3] == 0);
		skip[1] = 1; /* the back edge skipped: no cycle left */
		CHECK(chakra__topo_order(&p) == 0);
		CHECK(p.norder == 4 && order[0] == 0 && order[1] == 1 && order[2] == 3 && order[3] == 2);
	}
	if (!check_failures)
		printf("topo: 3000 random graphs x 3 policies, %d with cycles released, %d stalls "
		       "reported\n", cycles_seen, stalls_seen);
	return check_failures ? 1 : 0;
}
