/* SPDX-License-Identifier: Apache-2.0 */
/* The graph module (lib/graph) against brute force on random graphs: ids
 * in the dense form and after leaving it (shuffled, sparse, duplicated),
 * parents added before and after their children, self and absent parents
 * reported in order, longest paths / depth / width against a fixed-point
 * computation, cycle checks and components against reachability, children
 * lists against the parents. Then the id map under chosen keys. */
#ifndef CHAKRA_EXPERIMENTAL
#define CHAKRA_EXPERIMENTAL
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chakra/chakra.h"
#include "chakra/experimental/graph.h"
#include "check.h"

static uint64_t rng = 88172645463325252ull;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

#define MAXN 60

typedef struct model {
	int n;
	uint64_t id[MAXN];
	int np[MAXN];
	uint64_t par[MAXN][6];
	int ctrl[MAXN][6];
	uint64_t w[MAXN];
} model;

/* the first node with an id, or -1 */
static int owner(const model *m, uint64_t id)
{
	for (int i = 0; i < m->n; i++)
		if (m->id[i] == id)
			return i;
	return -1;
}

typedef struct bad_log {
	int n;
	uint32_t node[MAXN * 6];
	uint64_t pid[MAXN * 6];
	int ctrl[MAXN * 6], self[MAXN * 6];
} bad_log;

static void on_bad(void *data, uint32_t node, uint64_t pid, int is_ctrl, int is_self)
{
	bad_log *b = data;
	b->node[b->n] = node;
	b->pid[b->n] = pid;
	b->ctrl[b->n] = is_ctrl;
	b->self[b->n++] = is_self;
}

static int ncyc;
static void on_cycle(void *data, const uint32_t *c, size_t len, size_t size)
{
	const chakra_graph *g = data;
	ncyc++;
	CHECK(len >= 2 && len <= size);
	/* consecutive members are parent edges, and the last closes on the first */
	for (size_t k = 0; k < len; k++) {
		const uint32_t *e;
		size_t np = chakra_graph_parents(g, c[k], &e);
		int found = 0;
		for (size_t j = 0; j < np; j++)
			found |= !CHAKRA_GRAPH_EDGE_IS_CTRL(e[j]) &&
			         CHAKRA_GRAPH_EDGE_NODE(e[j]) == c[(k + 1) % len];
		CHECK(found);
	}
}

static void one(int variant)
{
	model m;
	memset(&m, 0, sizeof m);
	m.n = 1 + (int)(rnd() % MAXN);
	uint64_t base = variant == 0 ? rnd() % 1000 : rnd();
	for (int i = 0; i < m.n; i++) {
		switch (variant) {
		case 0: m.id[i] = base + (uint64_t)i; break;               /* dense */
		case 1: m.id[i] = base + (uint64_t)i * 3; break;           /* sparse ascending */
		case 2: m.id[i] = rnd() % (uint64_t)(m.n + 5); break;      /* shuffled, duplicates */
		default: m.id[i] = i < m.n / 2 ? (uint64_t)i : rnd(); break; /* dense, then not */
		}
		m.w[i] = rnd() % 100;
		m.np[i] = (int)(rnd() % 5);
		for (int k = 0; k < m.np[i]; k++) {
			uint64_t r = rnd() % 10;
			/* mostly earlier nodes (a DAG), some later, self, absent */
			int j = r < 6 && i ? (int)(rnd() % (uint64_t)i) : (int)(rnd() % (uint64_t)m.n);
			m.par[i][k] = r == 9 ? 0xdead0000ull + rnd() % 7 : r == 8 ? m.id[i] : m.id[j];
			m.ctrl[i][k] = rnd() % 3 == 0;
		}
	}
	int cyc_allowed = variant >= 2;
	if (!cyc_allowed) /* keep only backward data edges: a DAG */
		for (int i = 0; i < m.n; i++)
			for (int k = 0; k < m.np[i]; k++)
				if (!m.ctrl[i][k] && owner(&m, m.par[i][k]) >= i)
					m.ctrl[i][k] = 1;
	chakra_graph *g = chakra_graph_new();
	CHECK(g);
	for (int i = 0; i < m.n; i++) {
		uint64_t d[6], c[6];
		size_t nd = 0, nc = 0;
		for (int k = 0; k < m.np[i]; k++)
			if (!m.ctrl[i][k])
				d[nd++] = m.par[i][k];
		for (int k = 0; k < m.np[i]; k++)
			if (m.ctrl[i][k])
				c[nc++] = m.par[i][k];
		uint32_t first;
		int64_t v = chakra_graph_add(g, m.id[i], d, nd, c, nc, &first);
		CHECK_EQ_U(v, i);
		int o = owner(&m, m.id[i]);
		CHECK_EQ_U(first, o == i ? CHAKRA_GRAPH_NONE : (uint32_t)o);
	}
	for (int i = 0; i < m.n; i++) {
		CHECK_EQ_U(chakra_graph_id(g, (uint32_t)i), m.id[i]);
		CHECK_EQ_U(chakra_graph_find(g, m.id[i]), owner(&m, m.id[i]));
	}
	CHECK_EQ_U(chakra_graph_find(g, 0xfeedbeefull), CHAKRA_GRAPH_NONE);
	bad_log b = { 0 };
	CHECK(chakra_graph_resolve(g, on_bad, &b) == 0);
	/* the expected parents and bad edges, in order: data then ctrl */
	int nb = 0;
	int par[MAXN][6], npar[MAXN];
	for (int i = 0; i < m.n; i++) {
		npar[i] = 0;
		for (int pass = 0; pass < 2; pass++)
			for (int k = 0; k < m.np[i]; k++) {
				if (m.ctrl[i][k] != pass)
					continue;
				uint64_t pid = m.par[i][k];
				int o = owner(&m, pid);
				const uint32_t *e;
				chakra_graph_parents(g, (uint32_t)i, &e);
				uint32_t got = e[npar[i]];
				CHECK_EQ_U(CHAKRA_GRAPH_EDGE_IS_CTRL(got), pass);
				if (pid == m.id[i] || o < 0) {
					CHECK(nb < b.n && b.node[nb] == (uint32_t)i && b.pid[nb] == pid &&
					      b.ctrl[nb] == pass && b.self[nb] == (pid == m.id[i]));
					nb++;
					CHECK_EQ_U(CHAKRA_GRAPH_EDGE_NODE(got), CHAKRA_GRAPH_EDGE_DROPPED);
					par[i][npar[i]++] = -1;
				} else {
					CHECK_EQ_U(CHAKRA_GRAPH_EDGE_NODE(got), o);
					par[i][npar[i]++] = o;
				}
			}
	}
	CHECK_EQ_U(b.n, nb);
	/* children lists: every usable edge once, in child order */
	for (int p = 0; p < m.n; p++) {
		const uint32_t *ch;
		int64_t k = chakra_graph_children(g, (uint32_t)p, &ch);
		int want = 0;
		for (int i = 0; i < m.n; i++)
			for (int k2 = 0; k2 < npar[i]; k2++)
				if (par[i][k2] == p) {
					CHECK(want < k && ch[want] == (uint32_t)i);
					want++;
				}
		CHECK_EQ_U(k, want);
	}
	/* longest paths over data edges against a fixed point; the nodes on or
	 * behind a data cycle get none */
	uint64_t dist[MAXN], ref[MAXN];
	uint32_t pred[MAXN], depth[MAXN], rdepth[MAXN];
	int bad[MAXN];
	for (int i = 0; i < m.n; i++) {
		dist[i] = m.w[i];
		bad[i] = 0;
	}
	/* bad: reaches a cycle over data parents (depth-first by repetition) */
	int reach[MAXN][MAXN];
	memset(reach, 0, sizeof reach);
	for (int i = 0; i < m.n; i++)
		for (int k = 0; k < npar[i]; k++)
			if (par[i][k] >= 0) {
				/* data edges are the first ones listed */
				const uint32_t *e;
				chakra_graph_parents(g, (uint32_t)i, &e);
				if (!CHAKRA_GRAPH_EDGE_IS_CTRL(e[k]))
					reach[i][par[i][k]] = 1;
			}
	for (int k = 0; k < m.n; k++)
		for (int i = 0; i < m.n; i++)
			if (reach[i][k])
				for (int j = 0; j < m.n; j++)
					if (reach[k][j])
						reach[i][j] = 1;
	int any_cycle = 0;
	for (int i = 0; i < m.n; i++)
		for (int j = 0; j < m.n; j++)
			if (reach[i][j] && reach[j][j])
				bad[i] = 1;
	for (int j = 0; j < m.n; j++)
		any_cycle |= reach[j][j];
	for (int i = 0; i < m.n; i++) {
		ref[i] = m.w[i];
		rdepth[i] = 1;
	}
	for (int round = 0; round < m.n + 1; round++)
		for (int i = 0; i < m.n; i++) {
			if (bad[i])
				continue;
			uint64_t best = 0;
			uint32_t dp = 0;
			const uint32_t *e;
			size_t np = chakra_graph_parents(g, (uint32_t)i, &e);
			for (size_t k = 0; k < np; k++)
				if (!CHAKRA_GRAPH_EDGE_IS_CTRL(e[k]) && CHAKRA_GRAPH_EDGE_NODE(e[k]) != CHAKRA_GRAPH_EDGE_DROPPED) {
					uint32_t u = CHAKRA_GRAPH_EDGE_NODE(e[k]);
					if (ref[u] > best)
						best = ref[u];
					if (rdepth[u] > dp)
						dp = rdepth[u];
				}
			ref[i] = m.w[i] + best;
			rdepth[i] = dp + 1;
		}
	chakra_graph_paths ps;
	CHECK(chakra_graph_longest(g, CHAKRA_GRAPH_DATA, dist, pred, depth, &ps) == 0);
	uint64_t unordered = 0, width = 0;
	uint32_t maxd = 0, best = CHAKRA_GRAPH_NONE;
	uint32_t count[MAXN + 2];
	memset(count, 0, sizeof count);
	for (int i = 0; i < m.n; i++) {
		if (bad[i]) {
			unordered++;
			CHECK_EQ_U(depth[i], 0);
			continue;
		}
		CHECK_EQ_U(dist[i], ref[i]);
		CHECK_EQ_U(depth[i], rdepth[i]);
		/* pred: the first data parent listed with the longest path */
		uint32_t want = CHAKRA_GRAPH_NONE;
		const uint32_t *e;
		size_t np = chakra_graph_parents(g, (uint32_t)i, &e);
		for (size_t k = 0; k < np; k++) {
			uint32_t u = CHAKRA_GRAPH_EDGE_NODE(e[k]);
			if (!CHAKRA_GRAPH_EDGE_IS_CTRL(e[k]) && u != CHAKRA_GRAPH_EDGE_DROPPED &&
			    (want == CHAKRA_GRAPH_NONE || ref[u] > ref[want]))
				want = u;
		}
		CHECK_EQ_U(pred[i], want);
		if (rdepth[i] > maxd)
			maxd = rdepth[i];
		if (++count[rdepth[i]] > width)
			width = count[rdepth[i]];
		if (best == CHAKRA_GRAPH_NONE || ref[i] > ref[best])
			best = (uint32_t)i;
	}
	CHECK_EQ_U(ps.unordered, unordered);
	CHECK_EQ_U(ps.max_depth, maxd);
	CHECK_EQ_U(ps.width, width);
	CHECK_EQ_U(ps.best, best);
	CHECK_EQ_U(chakra_graph_has_cycle(g, CHAKRA_GRAPH_DATA), any_cycle);
	/* components: one per nontrivial SCC of the data edges */
	int nscc = 0, seen[MAXN];
	memset(seen, 0, sizeof seen);
	for (int i = 0; i < m.n; i++)
		if (!seen[i] && reach[i][i]) {
			nscc++;
			for (int j = 0; j < m.n; j++)
				if (reach[i][j] && reach[j][i])
					seen[j] = 1;
		}
	ncyc = 0;
	CHECK_EQ_U(chakra_graph_cycles(g, CHAKRA_GRAPH_DATA, on_cycle, g), nscc);
	CHECK_EQ_U(ncyc, nscc);
	chakra_graph_free(g);
}

/* Ids chosen to share a slot under an unkeyed hash (multiples of 2^32, and
 * values whose low 32 bits agree): the keyed map still places them in
 * about one probe each. Counted through lookups of absent keys, which
 * stop at the first empty slot. */
static void map_keys(void)
{
	chakra_idmap *m = chakra_idmap_new(16);
	CHECK(m);
	const uint32_t n = 200000;
	for (uint32_t i = 0; i < n; i++)
		CHECK(chakra_idmap_put(m, (uint64_t)i << 32, i, NULL) == 1);
	uint32_t old = 0;
	CHECK(chakra_idmap_put(m, (uint64_t)7 << 32, 9, &old) == 0 && old == 7);
	CHECK(chakra_idmap_set(m, (uint64_t)7 << 32, 9) == 0);
	CHECK_EQ_U(chakra_idmap_get(m, (uint64_t)7 << 32), 9);
	CHECK_EQ_U(chakra_idmap_count(m), n);
	for (uint32_t i = 0; i < n; i++)
		if (i != 7)
			CHECK_EQ_U(chakra_idmap_get(m, (uint64_t)i << 32), i);
	CHECK_EQ_U(chakra_idmap_get(m, 12345), CHAKRA_GRAPH_NONE);
	chakra_idmap_free(m);
	/* the graph's own index the same way: leave the dense form at once */
	chakra_graph *g = chakra_graph_new();
	uint32_t first;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t p = ((uint64_t)(i ? i - 1 : 0) << 32) | 5;
		CHECK_EQ_U(chakra_graph_add(g, ((uint64_t)i << 32) | 5, &p, i ? 1 : 0, NULL, 0, &first), i);
	}
	CHECK(chakra_graph_resolve(g, NULL, NULL) == 0);
	chakra_graph_paths ps;
	uint64_t *dist = calloc(n, sizeof *dist);
	for (uint32_t i = 0; i < n; i++)
		dist[i] = 1;
	CHECK(chakra_graph_longest(g, CHAKRA_GRAPH_DATA, dist, NULL, NULL, &ps) == 0);
	CHECK_EQ_U(ps.max_depth, n);
	CHECK_EQ_U(dist[n - 1], n);
	free(dist);
	chakra_graph_free(g);
}

int main(void)
{
	for (int t = 0; t < 4000; t++)
		one(t % 4);
	map_keys();
	return check_done();
}
