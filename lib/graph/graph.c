/* SPDX-License-Identifier: Apache-2.0 */
/* The graph module (chakra/experimental/graph.h): ids mapped once, parent
 * edges as 4-byte indices in CSR, then longest paths, cycle checks and
 * strongly connected components over them, all without recursion. */
#ifndef CHAKRA_EXPERIMENTAL
#define CHAKRA_EXPERIMENTAL
#endif
#include <stdlib.h>
#include <string.h>

#include "chakra/error.h"
#include "chakra/experimental/graph.h"
#include "graph_impl.h"

#define KIND_BIT 0x80000000u
#define SELF 0x7fffffffu    /* before resolve: the node itself (after: DROPPED) */
#define PENDING 0x7ffffffeu /* before resolve: a parent not added yet */
#define MAX_NODES 0x7ffffffdu

struct chakra_graph {
	size_t n, ncap;
	int dense;          /* ids are base, base + 1, ...: not stored */
	uint64_t base;
	uint64_t *ids;      /* !dense: every node's id */
	uint32_t *slots;    /* !dense: hash index over ids, index + 1 (0 = empty) */
	size_t scap, scount;
	uint64_t seed;
	uint32_t *eoff;     /* n + 1 offsets into edges */
	uint32_t *edges;
	size_t ne, ecap;
	uint32_t *pend_edge; /* parents not added yet: the edge and its id */
	uint64_t *pend_id;
	size_t npend, pcap;
	int resolved;
	uint32_t *coff, *child; /* children, built on demand */
};

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t nc = *cap ? *cap : 1024;
	while (nc < need)
		nc += nc / 2; /* 1.5x: big arrays move by mremap, small ones barely matter */
	void *np = chakra_realloc(*p, nc * elem);
	if (!np)
		return CHAKRA_ENOMEM;
	*p = np;
	*cap = nc;
	return 0;
}

chakra_graph *chakra_graph_new(void)
{
	chakra_graph *g = chakra_calloc(1, sizeof *g);
	if (g) {
		g->dense = 1;
		g->seed = chakra__graph_seed();
	}
	return g;
}

void chakra_graph_free(chakra_graph *g)
{
	if (!g)
		return;
	chakra_free(g->ids);
	chakra_free(g->slots);
	chakra_free(g->eoff);
	chakra_free(g->edges);
	chakra_free(g->pend_edge);
	chakra_free(g->pend_id);
	chakra_free(g->coff);
	chakra_free(g->child);
	chakra_free(g);
}

size_t chakra_graph_count(const chakra_graph *g) { return g ? g->n : 0; }
size_t chakra_graph_edge_count(const chakra_graph *g) { return g ? g->ne : 0; }

uint64_t chakra_graph_id(const chakra_graph *g, uint32_t v)
{
	if (!g || v >= g->n)
		return 0;
	return g->dense ? g->base + v : g->ids[v];
}

/* ---- the id index ---- */

static uint32_t slot_find(const chakra_graph *g, uint64_t id)
{
	size_t mask = g->scap - 1, i = (size_t)chakra__graph_mix(id, g->seed) & mask;
	for (uint32_t s; (s = g->slots[i]); i = (i + 1) & mask)
		if (g->ids[s - 1] == id)
			return s - 1;
	return CHAKRA_GRAPH_NONE;
}

/* Insert node v (its id in ids[v]) unless its id is there: returns the
 * owner's index or NONE when inserted. Room is made by the caller. */
static uint32_t slot_put(chakra_graph *g, uint32_t v)
{
	uint64_t id = g->ids[v];
	size_t mask = g->scap - 1, i = (size_t)chakra__graph_mix(id, g->seed) & mask;
	for (uint32_t s; (s = g->slots[i]); i = (i + 1) & mask)
		if (g->ids[s - 1] == id)
			return s - 1;
	g->slots[i] = v + 1;
	g->scount++;
	return CHAKRA_GRAPH_NONE;
}

/* At most 70% full: 4-byte slots keep that cheap. */
static int slots_room(chakra_graph *g)
{
	if ((g->scount + 1) * 10 <= g->scap * 7)
		return 0;
	size_t cap = g->scap ? g->scap * 2 : 1024;
	uint32_t *ns = chakra_calloc(cap, sizeof *ns);
	if (!ns)
		return CHAKRA_ENOMEM;
	uint32_t *old = g->slots;
	size_t ocap = g->scap;
	g->slots = ns;
	g->scap = cap;
	g->scount = 0;
	for (size_t i = 0; i < ocap; i++)
		if (old[i])
			slot_put(g, old[i] - 1);
	chakra_free(old);
	return 0;
}

/* Leave the dense form: store the ids so far and index them. */
static int undense(chakra_graph *g)
{
	size_t cap = g->ncap;
	uint64_t *ids = chakra_malloc((cap ? cap : 1) * sizeof *ids);
	if (!ids)
		return CHAKRA_ENOMEM;
	for (size_t i = 0; i < g->n; i++)
		ids[i] = g->base + i;
	g->ids = ids;
	g->dense = 0;
	for (size_t i = 0; i < g->n; i++) {
		if (slots_room(g) < 0)
			return CHAKRA_ENOMEM;
		slot_put(g, (uint32_t)i);
	}
	return 0;
}

uint32_t chakra_graph_find(const chakra_graph *g, uint64_t id)
{
	if (!g)
		return CHAKRA_GRAPH_NONE;
	if (g->dense)
		return id >= g->base && id - g->base < g->n ? (uint32_t)(id - g->base)
		                                            : CHAKRA_GRAPH_NONE;
	return g->scap ? slot_find(g, id) : CHAKRA_GRAPH_NONE;
}

/* ---- building ---- */

static int add_edges(chakra_graph *g, uint64_t id, const uint64_t *p, size_t k, uint32_t kind)
{
	if (!k)
		return 0;
	if (g->ne + k >= UINT32_MAX)
		return CHAKRA_ETOOBIG;
	if (grow((void **)&g->edges, &g->ecap, g->ne + k, sizeof *g->edges) < 0)
		return CHAKRA_ENOMEM;
	for (size_t j = 0; j < k; j++) {
		uint32_t e;
		if (p[j] == id) {
			e = SELF;
		} else if ((e = chakra_graph_find(g, p[j])) == CHAKRA_GRAPH_NONE) {
			size_t c1 = g->pcap, c2 = g->pcap;
			if (grow((void **)&g->pend_edge, &c1, g->npend + 1, sizeof *g->pend_edge) < 0 ||
			    grow((void **)&g->pend_id, &c2, g->npend + 1, sizeof *g->pend_id) < 0)
				return CHAKRA_ENOMEM;
			g->pcap = c1 < c2 ? c1 : c2;
			g->pend_edge[g->npend] = (uint32_t)g->ne;
			g->pend_id[g->npend++] = p[j];
			e = PENDING;
		}
		g->edges[g->ne++] = e | kind;
	}
	return 0;
}

int64_t chakra_graph_add(chakra_graph *g, uint64_t id, const uint64_t *data, size_t nd,
                           const uint64_t *ctrl, size_t nc, uint32_t *first)
{
	uint32_t first_ignored;
	if (!first)
		first = &first_ignored; /* may be NULL: not wanted */
	*first = CHAKRA_GRAPH_NONE;
	if (!g || (!data && nd) || (!ctrl && nc))
		return CHAKRA_EINVAL;
	if (g->resolved)
		return CHAKRA_EINVAL;
	if (g->n >= MAX_NODES)
		return CHAKRA_ETOOBIG;
	if (g->n + 2 > g->ncap) {
		size_t c1 = g->ncap, c2 = g->ncap;
		if (grow((void **)&g->eoff, &c1, g->n + 2, sizeof *g->eoff) < 0 ||
		    (!g->dense && grow((void **)&g->ids, &c2, g->n + 2, sizeof *g->ids) < 0))
			return CHAKRA_ENOMEM;
		if (!g->dense && c2 != c1) { /* keep both at one capacity */
			uint64_t *ids = chakra_realloc(g->ids, c1 * sizeof *ids);
			if (!ids)
				return CHAKRA_ENOMEM;
			g->ids = ids;
		}
		g->ncap = c1;
	}
	uint32_t v = (uint32_t)g->n;
	if (g->n == 0 && g->dense)
		g->base = id;
	else if (g->dense && id != g->base + g->n && undense(g) < 0)
		return CHAKRA_ENOMEM;
	if (!g->dense) {
		if (slots_room(g) < 0)
			return CHAKRA_ENOMEM;
		g->ids[v] = id;
		*first = slot_put(g, v);
	}
	g->eoff[v] = (uint32_t)g->ne;
	int rc = add_edges(g, id, data, nd, 0);
	if (rc == 0)
		rc = add_edges(g, id, ctrl, nc, KIND_BIT);
	if (rc < 0) {
		g->ne = g->eoff[v];
		return rc;
	}
	g->eoff[v + 1] = (uint32_t)g->ne;
	g->n++;
	return v;
}

int chakra_graph_resolve(chakra_graph *g, chakra_graph_edge_cb cb, void *data)
{
	if (!g)
		return CHAKRA_EINVAL;
	if (g->resolved)
		return 0;
	if (!g->eoff && !(g->eoff = chakra_calloc(1, sizeof *g->eoff)))
		return CHAKRA_ENOMEM;
	size_t k = 0;
	for (uint32_t v = 0; v < g->n; v++)
		for (uint32_t e = g->eoff[v]; e < g->eoff[v + 1]; e++) {
			uint32_t x = g->edges[e], kind = x & KIND_BIT, u = x & ~KIND_BIT;
			if (u == SELF) {
				if (cb)
					cb(data, v, chakra_graph_id(g, v), kind != 0, 1);
				g->edges[e] = CHAKRA_GRAPH_EDGE_DROPPED | kind;
			} else if (u == PENDING) {
				uint64_t pid = g->pend_id[k++];
				uint32_t p = chakra_graph_find(g, pid);
				if (p == CHAKRA_GRAPH_NONE) {
					if (cb)
						cb(data, v, pid, kind != 0, 0);
					p = CHAKRA_GRAPH_EDGE_DROPPED;
				}
				g->edges[e] = p | kind;
			}
		}
	chakra_free(g->pend_edge);
	chakra_free(g->pend_id);
	g->pend_edge = NULL;
	g->pend_id = NULL;
	g->npend = g->pcap = 0;
	g->resolved = 1;
	return 0;
}

size_t chakra_graph_parents(const chakra_graph *g, uint32_t v, const uint32_t **edges)
{
	if (!g || !edges || v >= g->n)
		return 0;
	*edges = g->edges + g->eoff[v];
	return g->eoff[v + 1] - g->eoff[v];
}

static int usable(uint32_t e, int kinds)
{
	return (e & ~KIND_BIT) < SELF - 1 && (kinds & (e & KIND_BIT ? CHAKRA_GRAPH_CTRL : CHAKRA_GRAPH_DATA));
}

int64_t chakra_graph_children(chakra_graph *g, uint32_t v, const uint32_t **children)
{
	if (!g || !children || v >= g->n)
		return CHAKRA_EINVAL;
	if (!g->coff) {
		uint32_t *coff = chakra_calloc(g->n + 1, sizeof *coff);
		uint32_t *child = chakra_malloc((g->ne ? g->ne : 1) * sizeof *child);
		if (!coff || !child) {
			chakra_free(coff);
			chakra_free(child);
			return CHAKRA_ENOMEM;
		}
		for (size_t e = 0; e < g->ne; e++)
			if (usable(g->edges[e], CHAKRA_GRAPH_BOTH))
				coff[(g->edges[e] & ~KIND_BIT) + 1]++;
		for (size_t i = 0; i < g->n; i++)
			coff[i + 1] += coff[i];
		uint32_t total = g->n ? coff[g->n] : 0;
		/* from the back, so that each list keeps the children's order:
		 * coff[p + 1] goes down from p's end to p's start */
		for (size_t i = g->n; i-- > 0;)
			for (uint32_t e = g->eoff[i + 1]; e-- > g->eoff[i];)
				if (usable(g->edges[e], CHAKRA_GRAPH_BOTH))
					child[--coff[(g->edges[e] & ~KIND_BIT) + 1]] = (uint32_t)i;
		memmove(coff, coff + 1, g->n * sizeof *coff); /* coff[i]: i's start */
		coff[g->n] = total;
		g->coff = coff;
		g->child = child;
	}
	*children = g->child + g->coff[v];
	return g->coff[v + 1] - g->coff[v];
}

/* ---- walks ---- */

typedef struct frame {
	uint32_t v, e; /* node, next edge to look at */
} frame;

typedef struct wstack {
	frame *f;
	size_t n, cap;
} wstack;

static int wpush(wstack *s, uint32_t v, uint32_t e)
{
	if (grow((void **)&s->f, &s->cap, s->n + 1, sizeof *s->f) < 0)
		return CHAKRA_ENOMEM;
	s->f[s->n].v = v;
	s->f[s->n++].e = e;
	return 0;
}

enum { WHITE, GRAY, GOOD, BAD };

/* Depth-first over parents, in index order (most files list parents first,
 * so the stack stays short). visit() runs when a node's parents are all
 * done; it returns the node's final state. */
typedef int (*visit_fn)(void *ctx, const chakra_graph *g, uint32_t v, const unsigned char *st);

static int walk(const chakra_graph *g, int kinds, unsigned char *st, visit_fn visit, void *ctx)
{
	wstack s = { 0 };
	int rc = 0;
	for (uint32_t r = 0; r < g->n && rc == 0; r++) {
		if (st[r] != WHITE)
			continue;
		st[r] = GRAY;
		if ((rc = wpush(&s, r, g->eoff[r])) < 0)
			break;
		while (s.n) {
			frame *f = &s.f[s.n - 1];
			uint32_t v = f->v, end = g->eoff[v + 1];
			int down = 0;
			for (; f->e < end; f->e++) {
				uint32_t x = g->edges[f->e];
				if (!usable(x, kinds))
					continue;
				uint32_t u = x & ~KIND_BIT;
				if (st[u] == WHITE) {
					f->e++;
					st[u] = GRAY;
					if ((rc = wpush(&s, u, g->eoff[u])) < 0)
						goto out;
					down = 1;
					break;
				}
			}
			if (down)
				continue;
			st[v] = (unsigned char)visit(ctx, g, v, st);
			s.n--;
		}
	}
out:
	chakra_free(s.f);
	return rc;
}

/* A node is bad when a parent is bad or still gray (an ancestor on the
 * stack: a cycle runs through it). */
static int parents_bad(const chakra_graph *g, uint32_t v, int kinds, const unsigned char *st)
{
	for (uint32_t e = g->eoff[v]; e < g->eoff[v + 1]; e++) {
		uint32_t x = g->edges[e];
		if (usable(x, kinds) && (st[x & ~KIND_BIT] == GRAY || st[x & ~KIND_BIT] == BAD))
			return 1;
	}
	return 0;
}

typedef struct cyc_ctx {
	int kinds, found;
} cyc_ctx;

static int visit_cycle(void *ctx, const chakra_graph *g, uint32_t v, const unsigned char *st)
{
	cyc_ctx *c = ctx;
	if (parents_bad(g, v, c->kinds, st)) {
		c->found = 1;
		return BAD;
	}
	return GOOD;
}

int chakra_graph_has_cycle(const chakra_graph *g, int kinds)
{
	if (!g)
		return CHAKRA_EINVAL;
	unsigned char *st = chakra_calloc(g->n ? g->n : 1, 1);
	if (!st)
		return CHAKRA_ENOMEM;
	cyc_ctx c = { kinds, 0 };
	int rc = walk(g, kinds, st, visit_cycle, &c);
	chakra_free(st);
	return rc < 0 ? rc : c.found;
}

typedef struct path_ctx {
	int kinds;
	uint64_t *dist;
	uint32_t *pred, *depth;
} path_ctx;

static uint64_t sat_add(uint64_t a, uint64_t b) { return a + b < a ? UINT64_MAX : a + b; }

static int visit_path(void *ctx, const chakra_graph *g, uint32_t v, const unsigned char *st)
{
	path_ctx *c = ctx;
	if (parents_bad(g, v, c->kinds, st)) {
		if (c->pred)
			c->pred[v] = CHAKRA_GRAPH_NONE;
		c->depth[v] = 0;
		return BAD;
	}
	uint64_t d = 0;
	uint32_t p = CHAKRA_GRAPH_NONE, dp = 0;
	for (uint32_t e = g->eoff[v]; e < g->eoff[v + 1]; e++) {
		uint32_t x = g->edges[e];
		if (!usable(x, c->kinds))
			continue;
		uint32_t u = x & ~KIND_BIT;
		/* ties keep the first parent listed */
		if (p == CHAKRA_GRAPH_NONE || c->dist[u] > d) {
			d = c->dist[u];
			p = u;
		}
		if (c->depth[u] > dp)
			dp = c->depth[u];
	}
	c->dist[v] = sat_add(d, c->dist[v]);
	if (c->pred)
		c->pred[v] = p;
	c->depth[v] = dp + 1;
	return GOOD;
}

int chakra_graph_longest(const chakra_graph *g, int kinds, uint64_t *dist, uint32_t *pred,
                         uint32_t *depth, chakra_graph_paths *out)
{
	if (!g || !out || (!dist && g->n))
		return CHAKRA_EINVAL;
	memset(out, 0, sizeof *out);
	out->best = out->first_unordered = CHAKRA_GRAPH_NONE;
	size_t n = g->n;
	unsigned char *st = chakra_calloc(n ? n : 1, 1);
	uint32_t *dep = depth ? depth : chakra_malloc((n ? n : 1) * sizeof *dep);
	if (!st || !dep) {
		chakra_free(st);
		if (!depth)
			chakra_free(dep);
		return CHAKRA_ENOMEM;
	}
	path_ctx c = { kinds, dist, pred, dep };
	int rc = walk(g, kinds, st, visit_path, &c);
	uint32_t *level = NULL;
	if (rc == 0) {
		for (uint32_t v = 0; v < n; v++) {
			if (st[v] != GOOD) {
				if (out->unordered++ == 0)
					out->first_unordered = v;
				continue;
			}
			if (dep[v] > out->max_depth)
				out->max_depth = dep[v];
			/* ties keep the node earliest in the file */
			if (out->best == CHAKRA_GRAPH_NONE || dist[v] > dist[out->best])
				out->best = v;
		}
		/* width: most nodes at one depth */
		level = chakra_calloc((size_t)out->max_depth + 1, sizeof *level);
		if (!level) {
			rc = CHAKRA_ENOMEM;
		} else {
			for (uint32_t v = 0; v < n; v++)
				if (st[v] == GOOD && ++level[dep[v]] > out->width)
					out->width = level[dep[v]];
		}
	}
	chakra_free(level);
	chakra_free(st);
	if (!depth)
		chakra_free(dep);
	return rc;
}

/* ---- strongly connected components (iterative Tarjan) ---- */

int64_t chakra_graph_cycles(const chakra_graph *g, int kinds, chakra_graph_cycle_cb cb,
                              void *data)
{
	if (!g)
		return CHAKRA_EINVAL;
	size_t n = g->n, m = n ? n : 1;
	uint32_t *index = chakra_malloc(m * sizeof *index), *low = chakra_malloc(m * sizeof *low);
	uint32_t *stk = chakra_malloc(m * sizeof *stk), *comp = chakra_malloc(m * sizeof *comp);
	uint32_t *cs = chakra_malloc(m * sizeof *cs), *ce = chakra_malloc(m * sizeof *ce);
	unsigned char *on = chakra_calloc(m, 1);
	int64_t found = 0;
	if (!index || !low || !stk || !comp || !cs || !ce || !on) {
		found = CHAKRA_ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		index[i] = comp[i] = CHAKRA_GRAPH_NONE;
	uint32_t counter = 0, sp = 0, ncomp = 0;
	for (uint32_t s = 0; s < n; s++) {
		if (index[s] != CHAKRA_GRAPH_NONE)
			continue;
		uint32_t csp = 0;
		cs[csp] = s;
		ce[csp++] = g->eoff[s];
		index[s] = low[s] = counter++;
		stk[sp++] = s;
		on[s] = 1;
		while (csp) {
			uint32_t v = cs[csp - 1], e = ce[csp - 1], end = g->eoff[v + 1];
			int descended = 0;
			for (; e < end; e++) {
				uint32_t x = g->edges[e];
				if (!usable(x, kinds))
					continue;
				uint32_t w = x & ~KIND_BIT;
				if (index[w] == CHAKRA_GRAPH_NONE) {
					ce[csp - 1] = e + 1;
					index[w] = low[w] = counter++;
					stk[sp++] = w;
					on[w] = 1;
					cs[csp] = w;
					ce[csp++] = g->eoff[w];
					descended = 1;
					break;
				}
				if (on[w] && index[w] < low[v])
					low[v] = index[w];
			}
			if (descended)
				continue;
			if (low[v] == index[v]) {
				/* pop the component; remember its first node in index order */
				uint32_t w, first = v, size = 0;
				do {
					w = stk[--sp];
					on[w] = 0;
					comp[w] = ncomp;
					if (w < first)
						first = w;
					size++;
				} while (w != v);
				if (size > 1) {
					/* walk inside the component from its first node until a
					 * node repeats; low[] marks the visits (members' low
					 * values are not needed any more) */
					uint32_t *path = stk + sp; /* free space above the stack */
					size_t len = 0;
					uint32_t cur = first;
					while (low[cur] != CHAKRA_GRAPH_NONE - 1 && len <= size) {
						low[cur] = CHAKRA_GRAPH_NONE - 1;
						path[len++] = cur;
						uint32_t next = CHAKRA_GRAPH_NONE;
						for (uint32_t f = g->eoff[cur]; f < g->eoff[cur + 1]; f++) {
							uint32_t x = g->edges[f];
							if (usable(x, kinds) && comp[x & ~KIND_BIT] == ncomp) {
								next = x & ~KIND_BIT;
								break;
							}
						}
						cur = next;
					}
					size_t startk = 0;
					while (path[startk] != cur)
						startk++;
					found++;
					if (cb)
						cb(data, path + startk, len - startk, size);
				}
				ncomp++;
				csp--;
			} else {
				csp--;
				uint32_t u = cs[csp - 1]; /* v's root has low == index, so csp > 0 */
				if (low[v] < low[u])
					low[u] = low[v];
			}
		}
	}
out:
	chakra_free(index);
	chakra_free(low);
	chakra_free(stk);
	chakra_free(comp);
	chakra_free(cs);
	chakra_free(ce);
	chakra_free(on);
	return found;
}
