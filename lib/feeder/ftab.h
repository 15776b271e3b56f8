/* SPDX-License-Identifier: Apache-2.0 */
/* Feeder internals: the compact containers behind the feeder core.
 * Everything is indexed by 32-bit slot / edge numbers so containers can
 * grow by realloc, and nothing allocates per node once warm. */
#ifndef CHAKRA_FEEDER_FTAB_H
#define CHAKRA_FEEDER_FTAB_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define FT_NIL UINT32_MAX

/* ---- id -> u32 map: open addressing, linear probing, backward-shift
 * Robin Hood order and backward-shift deletion (no tombstones).
 * Trace ids are usually dense and read roughly in order, so the map
 * starts with the identity hash (id & mask): the live ids then sit in
 * adjacent buckets and lookups hit the cache. If a probe ever runs long
 * (strided or clustered ids) it rehashes with a keyed mixing hash whose
 * key is drawn at random for this map (ids chosen to
 * collide under a fixed multiplier made every probe scan the whole map,
 * hash flooding); a long probe under it draws a new one. ---- */
typedef struct idmap_ent {
	uint64_t key;
	uint32_t val; /* FT_NIL = empty */
	uint32_t pad;
} idmap_ent;

typedef struct idmap {
	idmap_ent *e;
	size_t cap, n; /* cap is a power of two (or 0) */
	unsigned bits;
	int mixed;     /* 0: identity hash; 1: keyed mix */
	uint64_t mult; /* the hash key (random, odd) when mixed */
	unsigned reseeds; /* new keys drawn after long probes */
} idmap;

static inline size_t idmap_home(const idmap *m, uint64_t key)
{
	if (!m->mixed)
		return (size_t)key & (m->cap - 1);
	/* The random key, then a full 64-bit mix: a product alone maps an
	 * arithmetic progression of ids (j * c) to j * (c * mult), which for
	 * some multipliers clusters (test embed-flood saw a mean probe of 14
	 * once in many runs); after the mix no id pattern stays a pattern. */
	uint64_t h = key ^ m->mult;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return (size_t)(h >> (64 - m->bits));
}

/* The entry of a key, NULL when absent; valid until the map changes.
 * (The map is not changed here: a const map gives an entry not to be
 * written, as strchr does.) Dense ids: the entry is at its home, or the
 * home is empty and the key absent, in the first round of the loop. */
static inline idmap_ent *idmap_find(const idmap *m, uint64_t key)
{
	if (!m->n)
		return NULL;
	size_t mask = m->cap - 1;
	for (size_t i = idmap_home(m, key), dist = 0;; i = (i + 1) & mask, dist++) {
		idmap_ent *x = &m->e[i];
		if (x->val == FT_NIL)
			return NULL;
		if (x->key == key)
			return x;
		/* Robin Hood order: the key would have been placed by now. */
		if (((i - idmap_home(m, x->key)) & mask) < dist)
			return NULL;
	}
}
static inline uint32_t idmap_get(const idmap *m, uint64_t key)
{
	const idmap_ent *x = idmap_find(m, key);
	return x ? x->val : FT_NIL;
}
/* Insert a key known to be absent: 0, or -1 on out of memory. */
int chakra__idmap_put_slow(idmap *m, uint64_t key, uint32_t val);
static inline int idmap_put(idmap *m, uint64_t key, uint32_t val)
{
	if (!m->mixed && (m->n + 1) * 2 <= m->cap) {
		/* Dense ids: the home bucket is usually free (Robin Hood puts
		 * an entry there at distance 0). */
		idmap_ent *h = &m->e[(size_t)key & (m->cap - 1)];
		if (h->val == FT_NIL) {
			h->key = key;
			h->val = val;
			m->n++;
			return 0;
		}
	}
	return chakra__idmap_put_slow(m, key, val);
}
/* Remove entry x (from idmap_find): inline when nothing is to be shifted
 * back (the next bucket is empty or at its home: dense ids). */
void chakra__idmap_erase_slow(idmap *m, idmap_ent *x);
static inline void idmap_erase(idmap *m, idmap_ent *x)
{
	size_t j = ((size_t)(x - m->e) + 1) & (m->cap - 1);
	if (m->e[j].val == FT_NIL || idmap_home(m, m->e[j].key) == j) {
		x->val = FT_NIL;
		m->n--;
		return;
	}
	chakra__idmap_erase_slow(m, x);
}
/* Remove a key if present; returns its value or FT_NIL. */
static inline uint32_t idmap_del(idmap *m, uint64_t key)
{
	idmap_ent *x = idmap_find(m, key);
	if (!x)
		return FT_NIL;
	uint32_t v = x->val;
	idmap_erase(m, x);
	return v;
}
void chakra__idmap_free(idmap *m);

/* ---- Binary min-heap of (key, slot): ready nodes by id or file index ---- */
typedef struct heap_ent {
	uint64_t key;
	uint32_t slot;
} heap_ent;
typedef struct heap {
	heap_ent *h;
	size_t n, cap;
} heap;
int chakra__heap_push(heap *q, uint64_t key, uint32_t slot); /* 0 or -1 (ENOMEM) */
uint32_t chakra__heap_pop(heap *q);                          /* FT_NIL when empty */
void chakra__heap_free(heap *q);

/* ---- Ready queue: lowest key first, exact. Ready keys (ids, or file
 * indices) are unique and, in traces, dense and close together, so keys
 * in an aligned window of DQ_SIZE sit in a three-level bitmap (a push
 * sets a bit, a pop finds the first set bit with three ctz); keys outside
 * the window go to a binary heap, and a pop takes the lower of the two
 * minima. The window moves to a new key's block whenever the bitmap is
 * empty. ---- */
#define DQ_BITS 12
#define DQ_SIZE ((uint64_t)1 << DQ_BITS)
typedef struct dqueue {
	uint64_t *leaf;     /* DQ_SIZE bits; NULL until first use (or out of memory) */
	uint32_t *slot;     /* slot of each key in the window */
	uint64_t mid[DQ_SIZE >> 12]; /* bit w: leaf word w is not zero */
	uint64_t top;       /* bit m: mid word m is not zero */
	uint64_t base;      /* window [base, base + DQ_SIZE), DQ_SIZE-aligned */
	size_t nbits;       /* keys in the bitmap */
	heap spill;         /* keys outside the window */
	size_t n;           /* keys in all */
} dqueue;
int chakra__dqueue_push_slow(dqueue *q, uint64_t key, uint32_t slot);
/* 0 or -1 (ENOMEM). Inline: a key in the window, not set yet. */
static inline int dqueue_push(dqueue *q, uint64_t key, uint32_t slot)
{
	uint64_t off = key - q->base;
	if (q->nbits && off < DQ_SIZE) {
		uint64_t *w = &q->leaf[off >> 6], bit = (uint64_t)1 << (off & 63);
		if (!(*w & bit)) {
			*w |= bit;
			q->slot[off] = slot;
			q->mid[off >> 12] |= (uint64_t)1 << ((off >> 6) & 63);
			q->top |= (uint64_t)1 << (off >> 12);
			q->nbits++;
			q->n++;
			return 0;
		}
	}
	return chakra__dqueue_push_slow(q, key, slot);
}
/* The lowest key in the bitmap (nbits > 0), as its offset from base. */
static inline uint64_t dqueue_bits_min(const dqueue *q)
{
	unsigned m = (unsigned)__builtin_ctzll(q->top);
	unsigned w = m * 64 + (unsigned)__builtin_ctzll(q->mid[m]);
	return (uint64_t)w * 64 + (unsigned)__builtin_ctzll(q->leaf[w]);
}
/* Take that lowest key out of the bitmap: its slot. */
static inline uint32_t dqueue_bits_take(dqueue *q, uint64_t off)
{
	unsigned w = (unsigned)(off >> 6), m = w >> 6;
	q->leaf[w] &= q->leaf[w] - 1; /* clear the lowest bit */
	if (!q->leaf[w]) {
		q->mid[m] &= q->mid[m] - 1;
		if (!q->mid[m])
			q->top &= q->top - 1;
	}
	q->nbits--;
	q->n--;
	return q->slot[off];
}
uint32_t chakra__dqueue_pop_slow(dqueue *q);
/* FT_NIL when empty. Inline: only the bitmap holds keys. */
static inline uint32_t dqueue_pop(dqueue *q)
{
	if (!q->n)
		return FT_NIL; /* (lazy mode asks an empty queue once per node) */
	if (q->nbits && !q->spill.n)
		return dqueue_bits_take(q, dqueue_bits_min(q));
	return chakra__dqueue_pop_slow(q);
}
void chakra__dqueue_free(dqueue *q);

/* ---- Set of completed ids: dense ids (the normal case) in one flat
 * bitmap, grown while it costs at most 8 bytes per id added; the others in
 * 512-id pages found through a directory or an idmap, so sparse ids still
 * work. The flat bitmap slides: words whose 64 ids are all completed are
 * dropped from its front (base), so completing a long trace in about id
 * order keeps it the size of the ids in flight, not of the trace. ---- */
typedef struct doneset {
	uint64_t *flat;    /* ids from 64 * base to 64 * (base + nflat) */
	size_t nflat;      /* words */
	uint64_t base;     /* words below it were full: every such id completed */
	uint64_t count;    /* ids added */
	uint32_t *dir;     /* id >> 9 -> page number, for dense ids (below ndir) */
	size_t ndir;
	idmap pages;       /* the same, for the other ids */
	uint64_t (*bits)[8];
	size_t n, cap;
	uint64_t last_key; /* one-entry cache: consecutive ids share a page */
	uint32_t last_page;
	int any;           /* an id beyond the flat bitmap was added; max is */
	uint64_t max;      /* the largest such (ids added within it are lower) */
} doneset;
int chakra__doneset_add_slow(doneset *d, uint64_t id); /* 0 or -1 (ENOMEM) */
int chakra__doneset_has_slow(doneset *d, uint64_t id);
void chakra__doneset_free(doneset *d);

/* Inline fast paths: the cached page, and "above every completed id"
 * (a node read ahead, or a parent not completed yet). */
static inline int doneset_add(doneset *d, uint64_t id)
{
	if ((id >> 6) - d->base < d->nflat) { /* (below base wraps: not taken) */
		/* (max and any are kept for the other ids only: every id above
		 * the flat range was added outside it) */
		d->flat[(id >> 6) - d->base] |= (uint64_t)1 << (id & 63);
		d->count++;
		return 0;
	}
	if (d->n && (id >> 9) == d->last_key && d->any) {
		d->count++;
		d->bits[d->last_page][(id >> 6) & 7] |= (uint64_t)1 << (id & 63);
		if (id > d->max)
			d->max = id;
		return 0;
	}
	return chakra__doneset_add_slow(d, id);
}
static inline int doneset_has(doneset *d, uint64_t id)
{
	if ((id >> 6) - d->base < d->nflat)
		return (int)((d->flat[(id >> 6) - d->base] >> (id & 63)) & 1);
	if ((id >> 6) < d->base)
		return 1;
	if (!d->any || id > d->max)
		return 0;
	uint32_t pg;
	if ((id >> 9) < d->ndir)
		pg = d->dir[id >> 9];
	else if ((id >> 9) == d->last_key && d->n)
		pg = d->last_page;
	else
		return chakra__doneset_has_slow(d, id);
	if (pg == FT_NIL)
		return 0;
	return (int)((d->bits[pg][(id >> 6) & 7] >> (id & 63)) & 1);
}

/* ---- Byte pool: power-of-two size classes carved from 256 KiB slabs and
 * recycled through free lists; raw messages of held nodes live here. ---- */
#define BP_CLASSES 13 /* 16 B .. 64 KiB; larger blocks use malloc */
typedef struct bytepool {
	void *free_[BP_CLASSES];
	void **slabs;
	size_t n_slabs, cap_slabs;
	uint8_t *cur;     /* current slab being carved */
	size_t cur_left;
} bytepool;
/* A block of at least n bytes; *cls receives its class (BP_CLASSES for a
 * malloc'd block). NULL on out of memory. */
void *chakra__bytepool_alloc_slow(bytepool *b, size_t n, uint8_t *cls);
static inline void *bytepool_alloc(bytepool *b, size_t n, uint8_t *cls)
{
	/* Inline: a block on its class's free list (the steady state). */
	if (n <= ((size_t)16 << (BP_CLASSES - 1))) {
		unsigned c = n <= 16 ? 0 : (unsigned)(64 - __builtin_clzll((unsigned long long)(n - 1))) - 4;
		void *p = b->free_[c];
		if (p) {
			memcpy(&b->free_[c], p, sizeof(void *));
			*cls = (uint8_t)c;
			return p;
		}
	}
	return chakra__bytepool_alloc_slow(b, n, cls);
}
static inline void bytepool_release(bytepool *b, void *p, uint8_t cls)
{
	if (!p)
		return;
	if (cls >= BP_CLASSES) {
		chakra__free(p);
		return;
	}
	memcpy(p, &b->free_[cls], sizeof(void *));
	b->free_[cls] = p;
}
void chakra__bytepool_free(bytepool *b);

#endif
