/* SPDX-License-Identifier: Apache-2.0 */
/* Kahn's algorithm with the ready order and the cycle policy as
 * parameters (topo.h). */
#include <stdlib.h>
#include <string.h>

#include "../heap.h"
#include "../modmem.h"
#include "chakra/error.h"
#include "topo.h"

typedef struct ready_ent {
	uint64_t key;
	uint32_t node;
} ready_ent;

/* (key, node) is a total order, so the order does not depend on the
 * heap's handling of ties. */
static inline int ready_less(const ready_ent *a, const ready_ent *b)
{
	return a->key < b->key || (a->key == b->key && a->node < b->node);
}
CHAKRA__HEAP_DEFINE(topo_heap, ready_ent, ready_less)

/* The ready set: a heap by (key, node), or FIFO through the order array
 * itself (what is queued is what will be ordered, in that order). */
typedef struct ready {
	chakra__topo *t;
	ready_ent *h;
	size_t hn;
	size_t head, tail; /* FIFO: t->order[head .. tail) */
} ready;

static inline void ready_push(ready *r, uint32_t v)
{
	if (r->h)
		topo_heap_push(r->h, &r->hn, (ready_ent){ r->t->key[v], v });
	else
		r->t->order[r->tail++] = v;
}

static inline int ready_empty(const ready *r)
{
	return r->h ? !r->hn : r->head == r->tail;
}

static inline uint32_t ready_pop(ready *r)
{
	if (r->h)
		return topo_heap_pop(r->h, &r->hn).node;
	return r->t->order[r->head++];
}

/* The nodes by (key, node): the release order of RELEASE_LOWEST_KEY. */
static uint32_t *by_key(const chakra__topo *t)
{
	size_t n = t->n;
	uint32_t *v = chakra_malloc((n ? n : 1) * sizeof *v);
	ready_ent *h = chakra_malloc((n ? n : 1) * sizeof *h);
	if (!v || !h) {
		chakra_free(v);
		chakra_free(h);
		return NULL;
	}
	size_t hn = 0;
	for (size_t i = 0; i < n; i++)
		topo_heap_push(h, &hn, (ready_ent){ t->key[i], (uint32_t)i });
	for (size_t i = 0; i < n; i++)
		v[i] = topo_heap_pop(h, &hn).node;
	chakra_free(h);
	return v;
}

int chakra__topo_order(chakra__topo *t)
{
	size_t n = t->n;
	uint32_t ne = t->in_off[n];
	uint32_t *out_off = chakra_calloc(n + 1, sizeof *out_off);
	uint32_t *out_list = chakra_malloc((ne ? ne : 1) * sizeof *out_list);
	uint32_t *indeg = t->indeg ? t->indeg : chakra_malloc((n ? n : 1) * sizeof *indeg);
	uint8_t *done = chakra_calloc(n ? n : 1, 1);
	ready r = { t, NULL, 0, 0, 0 };
	if (t->ready == CHAKRA__TOPO_BY_KEY)
		r.h = chakra_malloc((n ? n : 1) * sizeof *r.h);
	uint32_t *rel_order = NULL; /* RELEASE_LOWEST_KEY, made at the first stall */
	int rc = 0;
	t->norder = 0;
	t->dropped = 0;
	if (!out_off || !out_list || !indeg || !done || (t->ready == CHAKRA__TOPO_BY_KEY && !r.h)) {
		rc = CHAKRA_ENOMEM;
		goto out;
	}
	if (t->released)
		memset(t->released, 0, n);
	/* children in CSR, each in the order of its parents' lists */
	for (size_t i = 0; i < n; i++) {
		uint32_t d = 0;
		for (uint32_t k = t->in_off[i]; k < t->in_off[i + 1]; k++)
			if (!t->skip || !t->skip[k]) {
				out_off[t->in_src[k] + 1]++;
				d++;
			}
		indeg[i] = d;
	}
	for (size_t i = 0; i < n; i++)
		out_off[i + 1] += out_off[i];
	{
		uint32_t *fill = t->order; /* a cursor until the order is written */
		memcpy(fill, out_off, n * sizeof *fill);
		for (size_t i = 0; i < n; i++)
			for (uint32_t k = t->in_off[i]; k < t->in_off[i + 1]; k++)
				if (!t->skip || !t->skip[k])
					out_list[fill[t->in_src[k]]++] = (uint32_t)i;
	}
	for (size_t i = 0; i < n; i++)
		if (!indeg[i])
			ready_push(&r, (uint32_t)i);
	size_t k = 0, scan = 0; /* scan: no node before it is left */
	while (k < n) {
		if (ready_empty(&r)) {
			/* everything left waits on a cycle */
			if (t->cycle == CHAKRA__TOPO_REPORT) {
				rc = CHAKRA_ECYCLE;
				break;
			}
			uint32_t v;
			if (t->cycle == CHAKRA__TOPO_RELEASE_LOWEST_KEY) {
				if (!rel_order && !(rel_order = by_key(t))) {
					rc = CHAKRA_ENOMEM;
					goto out;
				}
				while (done[rel_order[scan]])
					scan++;
				v = rel_order[scan];
			} else {
				while (done[scan])
					scan++;
				v = (uint32_t)scan;
			}
			t->dropped += indeg[v];
			indeg[v] = 0;
			if (t->released)
				t->released[v] = 1;
			ready_push(&r, v);
		}
		uint32_t v = ready_pop(&r);
		done[v] = 1;
		if (r.h)
			t->order[k] = v;
		k++;
		for (uint32_t e = out_off[v]; e < out_off[v + 1]; e++) {
			uint32_t w = out_list[e];
			if (done[w])
				continue;
			if (t->carry && t->carry[w] && t->key[v] > t->key[w])
				t->key[w] = t->key[v];
			if (indeg[w] && --indeg[w] == 0)
				ready_push(&r, w);
		}
	}
	t->norder = k;
out:
	chakra_free(out_off);
	chakra_free(out_list);
	if (indeg != t->indeg)
		chakra_free(indeg);
	chakra_free(done);
	chakra_free(r.h);
	chakra_free(rel_order);
	return rc;
}
