/* SPDX-License-Identifier: Apache-2.0 */
/* Feeder containers (see ftab.h). */
#include "../heap.h"
#include "ftab.h"

#include <stdlib.h>
#include <string.h>

/* ---- idmap ---- */

/* Robin Hood insertion (an entry never sits farther from its home than
 * the one it passes), so lookups of absent keys and deletions stop at the
 * first entry that is closer to home; with the identity hash on dense ids
 * every entry is at home and both are O(1). Room is guaranteed by the
 * caller. Returns the longest probe distance seen. */
static size_t raw_insert(idmap *m, uint64_t key, uint32_t val)
{
	size_t mask = m->cap - 1;
	size_t i = idmap_home(m, key), dist = 0, longest = 0;
	idmap_ent cur = { key, val, 0 };
	for (;;) {
		idmap_ent *x = &m->e[i];
		if (x->val == FT_NIL) {
			*x = cur;
			m->n++;
			return longest > dist ? longest : dist;
		}
		size_t d = (i - idmap_home(m, x->key)) & mask;
		if (d < dist) {
			idmap_ent t = *x;
			*x = cur;
			cur = t;
			if (dist > longest)
				longest = dist;
			dist = d;
		}
		i = (i + 1) & mask;
		dist++;
	}
}

static int idmap_rehash(idmap *m, unsigned bits)
{
	size_t cap = (size_t)1 << bits;
	idmap_ent *e = (idmap_ent *)chakra__malloc(cap * sizeof *e);
	if (!e)
		return -1;
	for (size_t i = 0; i < cap; i++)
		e[i].val = FT_NIL;
	idmap old = *m;
	m->e = e;
	m->cap = cap;
	m->bits = bits;
	m->n = 0;
	for (size_t i = 0; i < old.cap; i++)
		if (old.e[i].val != FT_NIL)
			raw_insert(m, old.e[i].key, old.e[i].val);
	chakra__free(old.e);
	return 0;
}

#define IDMAP_LONG_PROBE 64
/* New multipliers drawn after long probes under a random one (each is
 * astronomically unlikely; the bound keeps a broken random source from
 * rehashing forever). */
#define IDMAP_MAX_RESEEDS 8

int chakra__idmap_put_slow(idmap *m, uint64_t key, uint32_t val)
{
	/* Load factor at most 1/2 keeps linear probes short. */
	if ((m->n + 1) * 2 > m->cap && idmap_rehash(m, m->bits ? m->bits + 1 : 10))
		return -1;
	if (raw_insert(m, key, val) >= IDMAP_LONG_PROBE && m->reseeds < IDMAP_MAX_RESEEDS) {
		/* Strided or clustered ids under the identity hash, or (never by
		 * chance) a cluster under the keyed one: a new random multiplier. */
		int was_mixed = m->mixed;
		uint64_t old = m->mult;
		m->mixed = 1;
		m->mult = chakra__random64() | 1;
		m->reseeds += was_mixed;
		if (idmap_rehash(m, m->bits)) { /* out of memory: keep the working table */
			m->mixed = was_mixed;
			m->mult = old;
		}
	}
	return 0;
}

void chakra__idmap_erase_slow(idmap *m, idmap_ent *x)
{
	size_t mask = m->cap - 1, i = (size_t)(x - m->e);
	/* Backward shift until an empty bucket or an entry at its home. */
	for (;;) {
		size_t j = (i + 1) & mask;
		if (m->e[j].val == FT_NIL || idmap_home(m, m->e[j].key) == j)
			break;
		m->e[i] = m->e[j];
		i = j;
	}
	m->e[i].val = FT_NIL;
	m->n--;
}

void chakra__idmap_free(idmap *m)
{
	chakra__free(m->e);
	memset(m, 0, sizeof *m);
}

/* ---- heap (the template in lib/heap.h) ---- */

static inline int heap_ent_less(const heap_ent *x, const heap_ent *y)
{
	return x->key < y->key;
}
CHAKRA__HEAP_DEFINE(ready_heap, heap_ent, heap_ent_less)

int chakra__heap_push(heap *q, uint64_t key, uint32_t slot)
{
	if (q->n == q->cap) {
		size_t cap = q->cap ? q->cap * 2 : 256;
		heap_ent *h = (heap_ent *)chakra__realloc(q->h, cap * sizeof *h);
		if (!h)
			return -1;
		q->h = h;
		q->cap = cap;
	}
	heap_ent e = { key, slot };
	ready_heap_push(q->h, &q->n, e);
	return 0;
}

uint32_t chakra__heap_pop(heap *q)
{
	return q->n ? ready_heap_pop(q->h, &q->n).slot : FT_NIL;
}

void chakra__heap_free(heap *q)
{
	chakra__free(q->h);
	memset(q, 0, sizeof *q);
}

/* ---- dqueue ---- */

int chakra__dqueue_push_slow(dqueue *q, uint64_t key, uint32_t slot)
{
	if (!q->leaf && !q->n) {
		/* Lazily, so a feeder that is never asked costs nothing; if
		 * this fails every key goes to the heap. */
		q->leaf = (uint64_t *)chakra__calloc(DQ_SIZE / 64, sizeof *q->leaf);
		q->slot = q->leaf ? (uint32_t *)chakra__malloc(DQ_SIZE * sizeof *q->slot) : NULL;
		if (!q->slot) {
			chakra__free(q->leaf);
			q->leaf = NULL;
		}
	}
	if (q->leaf) {
		if (!q->nbits)
			q->base = key & ~(DQ_SIZE - 1);
		uint64_t off = key - q->base;
		if (off < DQ_SIZE) {
			uint64_t *w = &q->leaf[off >> 6], bit = (uint64_t)1 << (off & 63);
			if (!(*w & bit)) { /* (keys are unique; a repeat would go to the heap) */
				*w |= bit;
				q->slot[off] = slot;
				q->mid[off >> 12] |= (uint64_t)1 << ((off >> 6) & 63);
				q->top |= (uint64_t)1 << (off >> 12);
				q->nbits++;
				q->n++;
				return 0;
			}
		}
	}
	if (chakra__heap_push(&q->spill, key, slot))
		return -1;
	q->n++;
	return 0;
}

uint32_t chakra__dqueue_pop_slow(dqueue *q)
{
	if (!q->n)
		return FT_NIL;
	if (q->nbits) {
		uint64_t off = dqueue_bits_min(q);
		if (!q->spill.n || q->base + off < q->spill.h[0].key)
			return dqueue_bits_take(q, off);
	}
	q->n--;
	return chakra__heap_pop(&q->spill);
}

void chakra__dqueue_free(dqueue *q)
{
	chakra__free(q->leaf);
	chakra__free(q->slot);
	chakra__heap_free(&q->spill);
	memset(q, 0, sizeof *q);
}

/* ---- doneset ---- */

/* Cover page keys up to key in the directory (pages already in the idmap
 * are entered too, so the directory alone answers for keys below ndir). */
static int dir_grow(doneset *d, uint64_t key)
{
	size_t n = d->ndir ? d->ndir : 1024;
	while (n <= key)
		n *= 2;
	uint32_t *dir = (uint32_t *)chakra__realloc(d->dir, n * sizeof *dir);
	if (!dir)
		return -1;
	for (size_t k = d->ndir; k < n; k++)
		dir[k] = FT_NIL;
	for (size_t i = 0; i < d->pages.cap; i++) {
		const idmap_ent *x = &d->pages.e[i];
		if (x->val != FT_NIL && x->key >= d->ndir && x->key < n)
			dir[x->key] = x->val;
	}
	d->dir = dir;
	d->ndir = n;
	return 0;
}

static uint32_t doneset_page(doneset *d, uint64_t key, int create)
{
	if (d->n && key == d->last_key)
		return d->last_page;
	uint32_t pg = key < d->ndir ? d->dir[key] : idmap_get(&d->pages, key);
	if (pg == FT_NIL) {
		if (!create)
			return FT_NIL;
		if (d->n == d->cap) {
			size_t cap = d->cap ? d->cap * 2 : 64;
			uint64_t(*b)[8] = (uint64_t (*)[8])chakra__realloc(d->bits, cap * sizeof *b);
			if (!b)
				return FT_NIL;
			d->bits = b;
			d->cap = cap;
		}
		/* Dense ids (the page keys stay within a few times the number
		 * of pages): the directory; anything else: the idmap. */
		if (key < d->ndir || (key < 4 * (d->n + 1024) && dir_grow(d, key) == 0))
			d->dir[key] = (uint32_t)d->n;
		else if (idmap_put(&d->pages, key, (uint32_t)d->n))
			return FT_NIL;
		memset(d->bits[d->n], 0, sizeof d->bits[0]);
		pg = (uint32_t)d->n++;
	}
	d->last_key = key;
	d->last_page = pg;
	return pg;
}

/* Pages whose words fall in the flat range's relative words [from, to)
 * now: merged into it, so the flat bitmap alone answers for its ids
 * (page key k covers absolute words 8k .. 8k+7). */
static void flat_merge(doneset *d, size_t from, size_t to)
{
	uint64_t lo = d->base + from, hi = d->base + to; /* absolute words */
	for (uint64_t k = lo / 8; k < d->ndir && k * 8 < hi; k++)
		if (d->dir[k] != FT_NIL)
			for (unsigned w = 0; w < 8; w++)
				if (k * 8 + w >= lo && k * 8 + w < hi)
					d->flat[k * 8 + w - d->base] |= d->bits[d->dir[k]][w];
	for (size_t i = 0; i < d->pages.cap; i++) {
		const idmap_ent *x = &d->pages.e[i];
		if (x->val == FT_NIL || x->key >= hi / 8 + 1)
			continue;
		for (unsigned w = 0; w < 8; w++)
			if (x->key * 8 + w >= lo && x->key * 8 + w < hi)
				d->flat[x->key * 8 + w - d->base] |= d->bits[x->val][w];
	}
}

/* Drop the full words at the front when they are at least half of the
 * bitmap (so each word is moved about once): 1 when it slid. */
static int flat_slide(doneset *d)
{
	size_t k = 0;
	while (k < d->nflat && d->flat[k] == ~(uint64_t)0)
		k++;
	if (k == 0 || k < d->nflat / 2)
		return 0;
	memmove(d->flat, d->flat + k, (d->nflat - k) * sizeof *d->flat);
	memset(d->flat + d->nflat - k, 0, k * sizeof *d->flat);
	d->base += k;
	flat_merge(d, d->nflat - k, d->nflat);
	return 1;
}

/* Extend the flat bitmap to cover id (at or above 64 * base) when that
 * keeps it within 8 bytes per id added (plus 128 KiB), sliding it first
 * when its front is complete; pages below the new cover are merged into
 * it. 1 when covered, 0 when not (sparse id, or out of memory: the pages
 * still work). */
static int flat_grow(doneset *d, uint64_t id)
{
	if (d->nflat && flat_slide(d) && (id >> 6) - d->base < d->nflat)
		return 1;
	uint64_t limit = d->count + 16384, need = (id >> 6) - d->base + 1;
	if (need > limit)
		return 0;
	size_t n = d->nflat ? d->nflat : 1024;
	while (n < need)
		n *= 2;
	if (n > limit)
		n = (size_t)limit;
	uint64_t *flat = (uint64_t *)chakra__realloc(d->flat, n * sizeof *flat);
	if (!flat)
		return 0;
	memset(flat + d->nflat, 0, (n - d->nflat) * sizeof *flat);
	size_t old = d->nflat;
	d->flat = flat;
	d->nflat = n;
	flat_merge(d, old, n);
	return 1;
}

int chakra__doneset_add_slow(doneset *d, uint64_t id)
{
	if (flat_grow(d, id))
		return doneset_add(d, id);
	d->count++;
	uint32_t pg = doneset_page(d, id >> 9, 1);
	if (pg == FT_NIL)
		return -1;
	d->bits[pg][(id >> 6) & 7] |= (uint64_t)1 << (id & 63);
	if (!d->any || id > d->max)
		d->max = id;
	d->any = 1;
	return 0;
}

int chakra__doneset_has_slow(doneset *d, uint64_t id)
{
	uint32_t pg = doneset_page(d, id >> 9, 0);
	if (pg == FT_NIL)
		return 0;
	return (int)((d->bits[pg][(id >> 6) & 7] >> (id & 63)) & 1);
}

void chakra__doneset_free(doneset *d)
{
	chakra__free(d->flat);
	chakra__free(d->dir);
	chakra__idmap_free(&d->pages);
	chakra__free(d->bits);
	memset(d, 0, sizeof *d);
}

/* ---- bytepool ---- */

/* Slabs grow from 8 KiB to 256 KiB: a feeder of a few nodes (thousands of
 * them in one simulation) never takes a 256 KiB slab. */
#define BP_SLAB_FIRST ((size_t)8 << 10)
#define BP_SLAB ((size_t)256 << 10)

/* Smallest c with 16 << c >= n (n >= 1). */
static unsigned size_class(size_t n)
{
	if (n <= 16)
		return 0;
	return (unsigned)(64 - __builtin_clzll((unsigned long long)(n - 1))) - 4;
}

void *chakra__bytepool_alloc_slow(bytepool *b, size_t n, uint8_t *cls)
{
	/* *cls is set only on success: a caller that failed keeps its "not
	 * owned" class, so closing never frees a pointer it does not own. */
	unsigned c = size_class(n ? n : 1);
	if (c >= BP_CLASSES) {
		void *big = chakra__malloc(n);
		if (big)
			*cls = BP_CLASSES;
		return big;
	}
	void *p = b->free_[c];
	if (p) {
		memcpy(&b->free_[c], p, sizeof(void *));
		*cls = (uint8_t)c;
		return p;
	}
	size_t sz = (size_t)16 << c;
	if (b->cur_left < sz) {
		/* The slab's tail, if any, is dropped into the smaller classes'
		 * free lists so nothing is wasted. */
		while (b->cur_left >= 16) {
			unsigned tc = size_class(b->cur_left);
			if (((size_t)16 << tc) > b->cur_left)
				tc--;
			memcpy(b->cur, &b->free_[tc], sizeof(void *));
			b->free_[tc] = b->cur;
			b->cur += (size_t)16 << tc;
			b->cur_left -= (size_t)16 << tc;
		}
		if (b->n_slabs == b->cap_slabs) {
			size_t cap = b->cap_slabs ? b->cap_slabs * 2 : 16;
			void **s = (void **)chakra__realloc(b->slabs, cap * sizeof *s);
			if (!s)
				return NULL;
			b->slabs = s;
			b->cap_slabs = cap;
		}
		size_t slab_sz = b->n_slabs < 5 ? BP_SLAB_FIRST << b->n_slabs : BP_SLAB;
		if (slab_sz < sz)
			slab_sz = sz;
		uint8_t *slab = (uint8_t *)chakra__malloc(slab_sz);
		if (!slab)
			return NULL;
		b->slabs[b->n_slabs++] = slab;
		b->cur = slab;
		b->cur_left = slab_sz;
	}
	p = b->cur;
	b->cur += sz;
	b->cur_left -= sz;
	*cls = (uint8_t)c;
	return p;
}

void chakra__bytepool_free(bytepool *b)
{
	for (size_t i = 0; i < b->n_slabs; i++)
		chakra__free(b->slabs[i]);
	chakra__free(b->slabs);
	memset(b, 0, sizeof *b);
}
