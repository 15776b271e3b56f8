/* SPDX-License-Identifier: Apache-2.0 */
/* The feeder core: reads a trace ahead in scan mode (id + deps only),
 * tracks unresolved parents with child lists, and issues ready nodes from
 * a ready queue, lowest id or file index first (bitmap + heap). Full decoding is deferred to the
 * node view's materialize hook. Design and numbers: docs/feeder.md. */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chakra/error.h"
#include "feeder_impl.h"
#include "pbref.h"
#include "wire.h"

int chakra__feeder_errf(chakra_feeder *f, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(f->err, sizeof f->err, fmt, ap);
	va_end(ap);
	chakra__errinfo_set(&f->einfo, code, 0, 0, 0, 0);
	return code;
}

int chakra__feeder_at(chakra_feeder *f, unsigned flags, uint64_t offset, uint64_t index,
                      uint64_t id)
{
	f->einfo.flags = flags;
	f->einfo.offset = offset;
	f->einfo.index = index;
	f->einfo.id = id;
	return f->einfo.code;
}

static int fail(chakra_feeder *f, int code)
{
	f->failed = code;
	return code;
}

#define ALL_POS (CHAKRA_ERRINFO_OFFSET | CHAKRA_ERRINFO_INDEX | CHAKRA_ERRINFO_ID)

/* The error just formatted is about node s (its message's offset). */
static int fail_node(chakra_feeder *f, const chakra_node *v)
{
	return fail(f, chakra__feeder_at(f, ALL_POS, v->offset, v->index, v->id));
}

static int oom(chakra_feeder *f)
{
	return fail(f, chakra__feeder_errf(f, CHAKRA_ENOMEM, "%s: out of memory", f->name));
}

/* Hot helpers called once per edge or node: inlined (a call cost about
 * as much as their body). */
#if defined(__GNUC__)
#  define FEEDER_INLINE static inline __attribute__((always_inline))
#else
#  define FEEDER_INLINE static inline
#endif

/* ---- slots and edges ---- */

static node_full *materialize(chakra_node *n);

/* A new slot at the end of the chunks (FT_NIL when out of memory). */
static uint32_t slot_grow(chakra_feeder *f)
{
	uint32_t i;
	{
		if (f->n_slots == FT_NIL - 1)
			return FT_NIL;
		if ((f->n_slots >> SLOT_CHUNK_BITS) == f->n_chunks) {
			fslot **c = (fslot **)chakra__realloc(f->chunks, (f->n_chunks + 1) * sizeof *c);
			if (!c)
				return FT_NIL;
			f->chunks = c;
			c[f->n_chunks] = (fslot *)chakra__malloc(SLOT_CHUNK * sizeof(fslot));
			if (!c[f->n_chunks])
				return FT_NIL;
			f->n_chunks++;
		}
		i = f->n_slots++;
		/* A slot taken but never set up (out of memory just after)
		 * must read as free to close(). */
		fslot *s = fslot_at(f, i);
		s->state = ST_FREE;
		s->v.full = NULL;
		s->v.materialize = materialize;
		s->v.owner = f;
		s->cls = 0xff;
	}
	return i;
}

/* A free slot, not initialised (FT_NIL when out of memory). */
FEEDER_INLINE uint32_t slot_take(chakra_feeder *f)
{
	uint32_t i = f->free_slot;
	if (i == FT_NIL)
		return slot_grow(f);
	f->free_slot = fslot_at(f, i)->more;
	return i;
}

/* A free slot, zeroed, with no children and no owned bytes. */
static uint32_t slot_new(chakra_feeder *f)
{
	uint32_t i = slot_take(f);
	if (i == FT_NIL)
		return i;
	fslot *s = fslot_at(f, i);
	memset(s, 0, sizeof *s);
	s->v.materialize = materialize;
	s->v.owner = f;
	s->more = s->last = FT_NIL;
	s->cls = 0xff;
	return i;
}

static void unpin(chakra_feeder *f, uint32_t i);

FEEDER_INLINE void slot_release(chakra_feeder *f, uint32_t i)
{
	fslot *s = fslot_at(f, i);
	/* (held_bytes counted the message unless it is the caller's buffer:
	 * exactly the pinned and copied ones) */
	if (s->cls == CLS_PINNED) {
		f->held_bytes -= s->v.len;
		if (f->pin_n == 1 && f->pins[f->pin_head].slot == i)
			f->pin_n = 0; /* (the usual case: the one node issued from the FIFO) */
		else
			unpin(f, i);
	} else if (s->cls != CLS_NONE) {
		f->held_bytes -= s->v.len;
		bytepool_release(&f->bytes, (void *)s->v.msg, s->cls);
	}
	if (s->v.full) {
		f->held_bytes -= s->v.full->size;
		bytepool_release(&f->bytes, s->v.full, s->full_cls);
		s->v.full = NULL;
	}
	s->v.msg = NULL;
	s->cls = 0xff;
	s->state = ST_FREE;
	s->more = f->free_slot;
	f->free_slot = i;
}

static void edge_free(chakra_feeder *f, uint32_t e)
{
	f->edges[e].next = f->free_edge;
	f->free_edge = e;
}

/* A child beyond the inline ones: onto the overflow edge list. */
static int edge_add(chakra_feeder *f, fslot *parent, uint32_t child)
{
	uint32_t e = f->free_edge;
	if (e != FT_NIL) {
		f->free_edge = f->edges[e].next;
	} else {
		if (f->n_edges == f->cap_edges) {
			uint32_t cap = f->cap_edges ? f->cap_edges * 2 : 4096;
			if (cap < f->cap_edges)
				return -1;
			fedge *n = (fedge *)chakra__realloc(f->edges, (size_t)cap * sizeof *n);
			if (!n)
				return -1;
			f->edges = n;
			f->cap_edges = cap;
		}
		e = f->n_edges++;
	}
	f->edges[e].child = child;
	f->edges[e].next = parent->more;
	parent->more = e;
	return 0;
}

FEEDER_INLINE int kid_add(chakra_feeder *f, fslot *parent, uint32_t child)
{
	parent->last = child & ~EDGE_CTRL;
	if (parent->nk < FEEDER_KIDS) {
		parent->kid[parent->nk++] = child;
		return 0;
	}
	return edge_add(f, parent, child);
}

int chakra__kid_next(const chakra_feeder *f, const fslot *p, kid_it *it, uint32_t *child)
{
	if (it->k < p->nk) {
		*child = p->kid[it->k++];
		return 1;
	}
	if (it->k == p->nk) {
		it->e = p->more;
		it->k = UINT32_MAX;
	}
	if (it->e == FT_NIL)
		return 0;
	*child = f->edges[it->e].child;
	it->e = f->edges[it->e].next;
	return 1;
}

int chakra__kid_remove(chakra_feeder *f, fslot *p, uint32_t child)
{
	p->last = FT_NIL; /* (the repeat check must not see a removed edge) */
	for (unsigned k = 0; k < p->nk; k++)
		if (p->kid[k] == child) {
			p->kid[k] = p->kid[--p->nk];
			return 1;
		}
	for (uint32_t *e = &p->more; *e != FT_NIL; e = &f->edges[*e].next)
		if (f->edges[*e].child == child) {
			uint32_t x = *e;
			*e = f->edges[x].next;
			edge_free(f, x);
			return 1;
		}
	return 0;
}

FEEDER_INLINE int make_ready(chakra_feeder *f, uint32_t i)
{
	fslot *s = fslot_at(f, i);
	s->state = ST_READY;
	uint64_t key = f->opts.order == CHAKRA_ORDER_FILE ? s->v.index : s->v.id;
	if (dqueue_push(&f->ready, key, i))
		return oom(f);
	return 0;
}

/* A parent is satisfied: release one pending count of the child. */
FEEDER_INLINE int release_child(chakra_feeder *f, uint32_t c)
{
	fslot *s = fslot_at(f, c);
	if (--s->pending == 0 && s->state == ST_BLOCKED)
		return make_ready(f, c);
	return 0;
}

/* ---- lazy decoding ---- */

static node_full *materialize(chakra_node *n)
{
	fslot *s = (fslot *)n;
	chakra_feeder *f = (chakra_feeder *)n->owner;
	if (n->full)
		return n->full;
	/* Decode into the feeder's scratch arena, then keep an exact-size
	 * copy with the node. */
	node_full tmp, *full = NULL;
	uint64_t id;
	if (f->failed)
		return NULL; /* (a failed feeder decodes nothing more) */
	chakra__arena_reset(&f->scratch);
	int rc = chakra__node_walk(n->msg, n->len, n->offset + wire_varint_size(n->len), &id, &tmp,
	                           &f->scratch, &f->ws_lazy, f->tmp);
	if (rc == 0) {
		full = chakra__node_full_compact(&tmp, &f->bytes, &s->full_cls);
		if (!full)
			rc = chakra__errf(f->tmp, CHAKRA_ENOMEM, "out of memory");
	}
	/* nanopb cross-check of the copy the simulator will read (the
	 * feeder's own copy of the reader options: nothing is read from the
	 * caller's memory after open). */
	if (rc == 0 && f->ropts.verify_with_nanopb)
		rc = chakra__pbref_verify_node(n->msg, n->len, id, full, f->tmp);
	if (rc == 0 && f->held_bytes + full->size > f->max_memory)
		rc = chakra__errf(f->tmp, CHAKRA_ETOOBIG,
		                  "decoding it would take the bytes held past %llu (max_memory)",
		                  (unsigned long long)f->max_memory);
	if (rc < 0) {
		/* The scan checked only the top level: a bad attribute (or a
		 * nanopb mismatch) shows up here. The accessor that asked gets
		 * empty values, and the feeder fails with this error from its
		 * next call, so the simulator cannot go on silently. */
		if (!f->failed) {
			int ok;
			uint64_t at = chakra__msg_byte(f->tmp, &ok);
			chakra__feeder_errf(f, rc, "%s: node index %llu (id %llu, message at byte %llu): %s",
			                    f->name, (unsigned long long)n->index, (unsigned long long)n->id,
			                    (unsigned long long)n->offset, f->tmp);
			fail(f, chakra__feeder_at(f, ALL_POS, ok ? at : n->offset, n->index, n->id));
		}
		if (full)
			bytepool_release(&f->bytes, full, s->full_cls);
		return NULL;
	}
	n->full = full;
	f->held_bytes += full->size;
	if (f->held_bytes > f->peak_bytes)
		f->peak_bytes = f->held_bytes;
	return full;
}

/* ---- reading ---- */

/* c, added last to parent's children as a control edge and now listed
 * as a data dependency too: the edge becomes a data edge. */
static void data_wins(chakra_feeder *f, fslot *parent, uint32_t c)
{
	if (chakra__kid_remove(f, parent, c | EDGE_CTRL))
		kid_add(f, parent, c); /* (cannot fail: a slot was just freed) */
	parent->last = c;
}

/* Record one gating parent p of child c: 1 when the child now waits for
 * it (the caller counts it in pending), 0 when not, or an error. */
FEEDER_INLINE int add_parent(chakra_feeder *f, uint32_t c, uint64_t p, int ctrl, int done_first)
{
	/* done_first: a node inserted late (lazy mode) finds most parents
	 * complete, and a completed id is never in the map. */
	if (done_first && doneset_has(&f->done, p))
		return 0;
	uint32_t ps = idmap_get(&f->ids, p);
	fslot *parent;
	if (ps == FT_NIL) {
		if (!done_first && doneset_has(&f->done, p))
			return 0; /* completed already */
		ps = slot_new(f);
		if (ps == FT_NIL || idmap_put(&f->ids, p, ps))
			return oom(f);
		parent = fslot_at(f, ps);
		parent->state = ST_PLACE;
		parent->v.id = p;
		f->n_place++;
	} else {
		parent = fslot_at(f, ps);
		if (parent->last == c) {
			/* Listed twice (children are added one node at a time, so a
			 * repeat is the child added last): count once; a data edge
			 * wins over a control one. */
			if (!ctrl)
				data_wins(f, parent, c);
			f->dup_deps++;
			return 0;
		}
	}
	if (kid_add(f, parent, c | (ctrl ? EDGE_CTRL : 0)))
		return oom(f);
	return 1;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Repeats among parents already completed (they make no edge, so the
 * repeat check in add_parent cannot see them), over the gating lists:
 * quadratic for short lists, sorted for long ones. 0 or -1 (no memory). */
static int count_done_repeats(chakra_feeder *f, const uint64_t *a, size_t na, const uint64_t *b,
                              size_t nb)
{
	size_t n = na + nb;
	if (n < 2)
		return 0;
	if (n <= 64) {
		for (size_t i = 1; i < n; i++) {
			uint64_t x = i < na ? a[i] : b[i - na];
			for (size_t j = 0; j < i; j++)
				if (x == (j < na ? a[j] : b[j - na])) {
					if (idmap_get(&f->ids, x) == FT_NIL)
						f->dup_deps++;
					break;
				}
		}
		return 0;
	}
	uint64_t *t = (uint64_t *)chakra__malloc(n * sizeof *t);
	if (!t)
		return -1;
	if (na) /* (an empty list may be a NULL buffer) */
		memcpy(t, a, na * sizeof *t);
	if (nb)
		memcpy(t + na, b, nb * sizeof *t);
	qsort(t, n, sizeof *t, cmp_u64);
	for (size_t i = 1; i < n; i++)
		if (t[i] == t[i - 1] && idmap_get(&f->ids, t[i]) == FT_NIL)
			f->dup_deps++;
	chakra__free(t);
	return 0;
}

static int at_eof(chakra_feeder *f);

/* The view of a node just read, and its message: used in place from the
 * caller's buffer, else copied into the byte pool. */
FEEDER_INLINE void slot_view(fslot *s, const uint8_t *msg, size_t len, uint64_t off,
                             uint64_t index, uint64_t id)
{
	/* (materialize and owner are set once, when the slot is made) */
	s->v.id = id;
	s->v.offset = off;
	s->v.index = index;
	s->v.len = len;
	s->v.full = NULL;
	s->v.msg = msg;
}

FEEDER_INLINE int slot_fill(chakra_feeder *f, fslot *s, const uint8_t *msg, size_t len,
                            uint64_t off, uint64_t index, uint64_t id)
{
	slot_view(s, msg, len, off, index, id);
	/* The caller's buffer outlives the feeder: used in place. */
	if (!(msg >= f->zc_lo && msg + len <= f->zc_hi)) {
		uint8_t *copy = (uint8_t *)bytepool_alloc(&f->bytes, len, &s->cls);
		if (!copy)
			return oom(f);
		if (len)
			memcpy(copy, msg, len);
		s->v.msg = copy;
	}
	return 0;
}

/* Node i (blocked, no parents yet) enters the graph with its gating
 * parents. When `direct` is set and the node is ready while no other is,
 * it is not queued: 1 is returned and the caller issues it. */
static int link_parents(chakra_feeder *f, uint32_t i, const uint64_t *dd, size_t nd,
                        const uint64_t *cd, size_t nc, int direct, int late)
{
	fslot *s = fslot_at(f, i);
	uint64_t id = s->v.id;
	int rc, no_edge = 0;
	for (size_t k = 0; k < nd; k++) {
		if (dd[k] == id)
			return chakra__feeder_errf(f, CHAKRA_ESELFDEP,
			                           "%s: node id %llu (node index %llu, byte %llu) "
			                           "lists itself as a data dependency",
			                           f->name, (unsigned long long)id,
			                           (unsigned long long)s->v.index,
			                           (unsigned long long)s->v.offset),
			       fail_node(f, &s->v);
		if ((rc = add_parent(f, i, dd[k], 0, late)) < 0)
			return rc;
		s->pending += (uint32_t)rc;
		no_edge |= rc == 0;
	}
	for (size_t k = 0; k < nc; k++) {
		if (cd[k] == id) {
			if (f->opts.strict)
				return chakra__feeder_errf(f, CHAKRA_ESELFDEP,
				                           "%s: node id %llu (node index %llu, byte %llu) "
				                           "lists itself as a control dependency (strict)",
				                           f->name, (unsigned long long)id,
				                           (unsigned long long)s->v.index,
				                           (unsigned long long)s->v.offset),
				       fail_node(f, &s->v);
			f->warnings++;
			continue;
		}
		if ((rc = add_parent(f, i, cd[k], 1, late)) < 0)
			return rc;
		s->pending += (uint32_t)rc;
		no_edge |= rc == 0;
	}
	/* A parent made no edge (completed, or listed twice): look for
	 * repeats among completed parents. When every parent made an edge,
	 * all are held and there is nothing to count. (The lazy path's
	 * common case, complete parents listed once, does not come here.) */
	if (no_edge && count_done_repeats(f, dd, nd, cd, nc))
		return oom(f);
	if (s->pending)
		return 0;
	if (direct && !f->ready.n) {
		s->state = ST_READY;
		return 1;
	}
	return make_ready(f, i);
}

/* ---- lazy mode ----
 *
 * While ids strictly increase in file order and every gating dependency
 * names a lower id (what converters and the generator write), a node read
 * ahead can only be issued after every node before it that is ready: its
 * id is higher, and a parent it names that has not been read by then never
 * will be. So nodes are read ahead as usual (same window, same file
 * positions, same errors) into a FIFO, and enter the dependency graph only
 * when no inserted node is ready, in file order; the first that is ready is
 * the one the eager feeder would issue. By then most parents are complete,
 * so no edges are made, and the work stays in cache instead of touching
 * each node again a window later. The first node that breaks the pattern
 * (and the end of the file, and any call that must see the whole graph:
 * lookup, ready_count, errors, stall diagnosis) inserts the FIFO; the
 * feeder is eager from the first break on. Test: feed-golden pins the
 * output against the eager feeder. */

/* The framer's bytes the feeder still needs start at the oldest pinned
 * message, or else the oldest queued node's (pins are older). */
static uint64_t lazy_keep(void *hook)
{
	const chakra_feeder *f = (const chakra_feeder *)hook;
	if (f->pin_n)
		return f->pins[f->pin_head].moff;
	return f->q_n ? f->q[f->q_head].off : UINT64_MAX;
}

/* The framer moved its bytes: the pinned nodes' views follow. */
static void lazy_moved(void *hook)
{
	chakra_feeder *f = (chakra_feeder *)hook;
	for (size_t k = 0; k < f->pin_n; k++) {
		const qpin *p = &f->pins[(f->pin_head + k) & (f->pin_cap - 1)];
		if (p->slot != FT_NIL)
			fslot_at(f, p->slot)->v.msg = f->fr->data + (p->moff - f->fr->base);
	}
}

/* A ring of n elements of `size` bytes from *head, capacity *cap (a power
 * of two), made twice as large with its elements in order from 0: the
 * FIFO's records and its pins. 0, or -1 when out of memory. */
static int ring_grow(void **ring, size_t *cap, size_t *head, size_t n, size_t size)
{
	size_t ncap = *cap ? *cap * 2 : 64;
	uint8_t *r = (uint8_t *)chakra__malloc(ncap * size);
	if (!r)
		return -1;
	for (size_t j = 0; j < n; j++)
		memcpy(r + j * size, (const uint8_t *)*ring + ((*head + j) & (*cap - 1)) * size, size);
	chakra__free(*ring);
	*ring = r;
	*cap = ncap;
	*head = 0;
	return 0;
}

static int pins_grow(chakra_feeder *f)
{
	void *r = f->pins;
	int rc = ring_grow(&r, &f->pin_cap, &f->pin_head, f->pin_n, sizeof *f->pins);
	f->pins = (qpin *)r;
	return rc;
}

/* Node i, issued with its message in the framer's buffer, is completed. */
static void unpin(chakra_feeder *f, uint32_t i)
{
	size_t mask = f->pin_cap - 1;
	for (size_t k = 0; k < f->pin_n; k++)
		if (f->pins[(f->pin_head + k) & mask].slot == i) {
			f->pins[(f->pin_head + k) & mask].slot = FT_NIL;
			break;
		}
	while (f->pin_n && f->pins[f->pin_head].slot == FT_NIL) {
		f->pin_head = (f->pin_head + 1) & mask;
		f->pin_n--;
	}
}

static int q_grow(chakra_feeder *f)
{
	void *r = f->q;
	int rc = ring_grow(&r, &f->q_cap, &f->q_head, f->q_n, sizeof *f->q);
	f->q = (qrec *)r;
	return rc;
}

/* A node read in lazy mode: 0 when queued, 1 when it breaks the pattern
 * (nothing done), or an error. */
FEEDER_INLINE int lazy_read(chakra_feeder *f, const uint8_t *msg, size_t len, uint64_t off,
                            uint64_t index, uint64_t id)
{
	if (f->any_read && id <= f->last_id)
		return 1;
	const uint64_t *dd = walk_data(&f->ws), *cd = walk_ctrl(&f->ws);
	size_t nd = (f->opts.deps & CHAKRA_DEPS_DATA) ? walk_n_data(&f->ws) : 0;
	size_t nc = (f->opts.deps & CHAKRA_DEPS_CTRL) ? walk_n_ctrl(&f->ws) : 0;
	if (f->q_n == f->q_cap && q_grow(f))
		return oom(f);
	/* One pass over the lists checks the pattern and writes the deltas
	 * in place (on a break the record is simply not committed). */
	qrec *r = &f->q[(f->q_head + f->q_n) & (f->q_cap - 1)];
	size_t n = nd + nc;
	uint64_t far = 0; /* the bits of every id - dep */
	int norep = 1;
	int fits = n <= QREC_DEPS; /* (else: scanned again when inserted) */
	for (size_t k = 0; k < nd; k++) {
		if (dd[k] >= id)
			return 1;
		far |= id - dd[k];
		if (fits)
			r->d[k] = (uint32_t)(id - dd[k]);
	}
	for (size_t k = 0; k < nc; k++) {
		if (cd[k] >= id)
			return 1;
		far |= id - cd[k];
		if (fits)
			r->d[nd + k] = (uint32_t)(id - cd[k]);
	}
	for (size_t k = 1; fits && k < n; k++)
		for (size_t j = 0; j < k; j++)
			norep &= r->d[j] != r->d[k];
	/* (deltas past 32 bits: stored truncated, not used) */
	int rescan = !fits || far > UINT32_MAX;
	r->id = id;
	r->off = off;
	r->len = (uint32_t)len; /* (the framer's limit keeps it below 4 GiB) */
	r->hdr = (uint8_t)(msg - (f->fr->data + (off - f->fr->base)));
	r->nd = (uint8_t)(rescan ? 0 : nd);
	r->nc = (uint8_t)(rescan ? 0 : nc);
	r->rescan = (uint8_t)rescan;
	r->norep = (uint8_t)norep;
	if (!f->q_n++)
		f->q_first = index; /* (queued nodes are consecutive in the file) */
	f->held++;
	if (!f->fr->zero_copy)
		f->held_bytes += len; /* (kept in the framer's buffer) */
	f->any_read = 1;
	f->last_id = id;
	return 0;
}

/* The oldest queued node enters the graph (see link_parents for direct):
 * the slot it gets is a recently freed one, warm in the cache. */
FEEDER_INLINE int insert_one(chakra_feeder *f, int direct, uint32_t *slot)
{
	const qrec *r = &f->q[f->q_head];
	uint64_t id = r->id, index = f->q_first, moff = r->off + r->hdr, r_off = r->off;
	const uint32_t *d = r->d;
	unsigned nd = r->nd, nc = r->nc;
	const uint8_t *msg = f->fr->data + (moff - f->fr->base);
	/* The common case: every parent listed once and complete (no edges
	 * to make, nothing to count). When the node is also the only one
	 * ready, it is issued at once and its message stays in the framer's
	 * buffer until it completes (pinned), instead of being copied. */
	unsigned k = 0;
	if (r->norep && !r->rescan)
		while (k < nd + nc && doneset_has(&f->done, id - d[k]))
			k++;
	int fast = r->norep && !r->rescan && k == nd + nc;
	int pin = fast && direct && !f->ready.n && !f->fr->zero_copy; /* (else: no copy anyway) */
	if (pin && f->pin_n == f->pin_cap && pins_grow(f))
		return oom(f);
	uint32_t i = slot_take(f);
	if (i == FT_NIL || idmap_put(&f->ids, id, i))
		return oom(f);
	fslot *s = fslot_at(f, i);
	s->state = ST_BLOCKED;
	s->pending = 0;
	s->more = s->last = FT_NIL;
	s->nk = 0;
	s->cls = CLS_NONE;
	int rc;
	if (pin) {
		slot_view(s, msg, r->len, r->off, index, id);
		s->cls = CLS_PINNED;
		qpin *np = &f->pins[(f->pin_head + f->pin_n++) & (f->pin_cap - 1)];
		np->moff = moff;
		np->slot = i;
	} else if ((rc = slot_fill(f, s, msg, r->len, r->off, index, id)) < 0) {
		return rc;
	}
	/* Done with the record (the node's bytes are in its slot now, or
	 * pinned); it stays in place: nothing is queued until this returns. */
	f->q_head = (f->q_head + 1) & (f->q_cap - 1);
	f->q_n--;
	f->q_first++;
	*slot = i;
	if (fast) {
		if (direct && !f->ready.n) {
			s->state = ST_READY;
			return 1;
		}
		return make_ready(f, i);
	}
	if (r->rescan) {
		uint64_t id2;
		rc = chakra__feeder_scan(s->v.msg, s->v.len, s->v.offset + wire_varint_size(s->v.len), &id2,
		                 &f->ws_ins, (unsigned)f->opts.deps, f->tmp);
		if (rc < 0) /* (scanned once already: only out of memory) */
			return chakra__feeder_errf(f, rc, "%s: node index %llu: %s", f->name,
			                           (unsigned long long)index, f->tmp),
			       fail(f, chakra__feeder_at(f, ALL_POS, r_off, index, id));
		return link_parents(f, i, walk_data(&f->ws_ins),
		                    (f->opts.deps & CHAKRA_DEPS_DATA) ? walk_n_data(&f->ws_ins) : 0,
		                    walk_ctrl(&f->ws_ins),
		                    (f->opts.deps & CHAKRA_DEPS_CTRL) ? walk_n_ctrl(&f->ws_ins) : 0,
		                    direct, 1);
	}
	uint64_t dd[QREC_DEPS];
	for (k = 0; k < nd + nc; k++)
		dd[k] = id - d[k];
	return link_parents(f, i, dd, nd, dd + nd, nc, direct, 1);
}

/* Every queued node enters the graph. */
static int flush(chakra_feeder *f)
{
	int rc;
	uint32_t i;
	while (f->q_n)
		if ((rc = insert_one(f, 0, &i)) < 0)
			return rc;
	return 0;
}

/* A node read, not queued: into the graph (eager mode, or the node that
 * ends lazy mode). */
static int read_eager(chakra_feeder *f, const uint8_t *msg, size_t len, uint64_t off,
                      uint64_t index, uint64_t id)
{
	int rc;
	if (f->lazy) {
		f->lazy = 0;
		if ((rc = flush(f)) < 0)
			return rc;
	}
	uint32_t i = idmap_get(&f->ids, id);
	if (i != FT_NIL) {
		fslot *o = fslot_at(f, i);
		if (o->state != ST_PLACE)
			return chakra__feeder_errf(f, CHAKRA_EDUP,
			                           "%s: node index %llu (message at byte %llu): duplicate "
			                           "node id %llu (first at node index %llu, byte %llu)",
			                           f->name, (unsigned long long)index,
			                           (unsigned long long)off, (unsigned long long)id,
			                           (unsigned long long)o->v.index,
			                           (unsigned long long)o->v.offset),
			       fail(f, chakra__feeder_at(f, ALL_POS, off, index, id));
		f->n_place--;
	} else {
		if (doneset_has(&f->done, id))
			return chakra__feeder_errf(f, CHAKRA_EDUP,
			                           "%s: node index %llu (message at byte %llu): duplicate "
			                           "node id %llu (an earlier node with this id was "
			                           "already completed)",
			                           f->name, (unsigned long long)index,
			                           (unsigned long long)off, (unsigned long long)id),
			       fail(f, chakra__feeder_at(f, ALL_POS, off, index, id));
		i = slot_take(f);
		if (i == FT_NIL || idmap_put(&f->ids, id, i))
			return oom(f);
		fslot *n = fslot_at(f, i);
		n->pending = 0;
		n->more = n->last = FT_NIL;
		n->nk = 0;
		n->cls = 0xff;
	}
	fslot *s = fslot_at(f, i);
	s->state = ST_BLOCKED;
	if ((rc = slot_fill(f, s, msg, len, off, index, id)) < 0)
		return rc;
	f->held++;
	if (s->cls != CLS_NONE)
		f->held_bytes += len; /* (a copy; not for the caller's buffer) */
	return link_parents(f, i, walk_data(&f->ws),
	                    (f->opts.deps & CHAKRA_DEPS_DATA) ? walk_n_data(&f->ws) : 0,
	                    walk_ctrl(&f->ws),
	                    (f->opts.deps & CHAKRA_DEPS_CTRL) ? walk_n_ctrl(&f->ws) : 0, 0, 0);
}

/* The end of the file, or a framing error. */
static int read_end(chakra_feeder *f, int rc)
{
	if (rc < 0) {
		chakra__feeder_errf(f, rc, "%s (node index %llu)", f->tmp, (unsigned long long)f->n_read);
		unsigned flags = f->fr->err_flags;
		if (rc != CHAKRA_EIO || flags) /* (not for read failures) */
			flags |= CHAKRA_ERRINFO_INDEX;
		return fail(f, chakra__feeder_at(f, flags, f->fr->err_off, f->n_read, 0));
	}
	f->eof = 1;
	if ((rc = flush(f)) < 0)
		return rc;
	return at_eof(f);
}

static int scan_failed(chakra_feeder *f, int rc, uint64_t index, uint64_t off)
{
	int ok;
	uint64_t at = chakra__msg_byte(f->tmp, &ok);
	chakra__feeder_errf(f, rc, "%s: node index %llu (message at byte %llu): %s", f->name,
	                    (unsigned long long)index, (unsigned long long)off, f->tmp);
	return fail(f, chakra__feeder_at(f, CHAKRA_ERRINFO_OFFSET | CHAKRA_ERRINFO_INDEX,
	                                 ok ? at : off, index, 0));
}

/* One node read: queued (lazy mode, inline: once per node), or into the
 * graph. */
FEEDER_INLINE int read_one(chakra_feeder *f)
{
	const uint8_t *msg;
	size_t len;
	uint64_t off;
	/* The framer directly (what chakra_reader_next_raw does, with the
	 * same error text), inline on the common path. */
	int rc = framer_next(f->fr, &msg, &len, &off, f->tmp);
	if (rc <= 0)
		return read_end(f, rc);
	uint64_t index = f->n_read++;
	uint64_t id;
	rc = chakra__feeder_scan(msg, len, off + wire_varint_size(len), &id, &f->ws, (unsigned)f->opts.deps,
	                 f->tmp);
	if (rc < 0)
		return scan_failed(f, rc, index, off);
	if (f->lazy && (rc = lazy_read(f, msg, len, off, index, id)) <= 0)
		return rc;
	return read_eager(f, msg, len, off, index, id);
}

/* The same, out of line, for the rare reads past the window. */
static int read_one_cold(chakra_feeder *f)
{
	return read_one(f);
}

/* A control edge from placeholder p (an id that never appears) to child
 * c: a warning and the child released, or an error when strict. */
static int drop_absent(chakra_feeder *f, const fslot *p, uint32_t c)
{
	fslot *cs = fslot_at(f, c);
	if (f->opts.strict)
		return chakra__feeder_errf(f, CHAKRA_EDEP,
		                           "%s: node id %llu (node index %llu, byte %llu) has a control "
		                           "dependency on id %llu, which never appears in the file (strict)",
		                           f->name, (unsigned long long)cs->v.id,
		                           (unsigned long long)cs->v.index, (unsigned long long)cs->v.offset,
		                           (unsigned long long)p->v.id),
		       fail_node(f, &cs->v);
	f->warnings++;
	return release_child(f, c);
}

/* Placeholder i at the end of the file: an id that never appears. */
static int absent_one(chakra_feeder *f, uint32_t i)
{
	fslot *p = fslot_at(f, i);
	/* Control-only edges to it are dropped and their children
	 * released, most recent first; data edges stay. */
	uint32_t *tail = &p->more;
	for (uint32_t e = p->more; e != FT_NIL;) {
		uint32_t nx = f->edges[e].next, c = f->edges[e].child;
		if (c & EDGE_CTRL) {
			int rc = drop_absent(f, p, c & ~EDGE_CTRL);
			if (rc < 0)
				return rc;
			edge_free(f, e);
		} else {
			*tail = e;
			tail = &f->edges[e].next;
		}
		e = nx;
	}
	*tail = FT_NIL;
	for (unsigned k = p->nk; k-- > 0;)
		if (p->kid[k] & EDGE_CTRL) {
			int rc = drop_absent(f, p, p->kid[k] & ~EDGE_CTRL);
			if (rc < 0)
				return rc;
		}
	unsigned n = 0;
	for (unsigned k = 0; k < p->nk; k++)
		if (!(p->kid[k] & EDGE_CTRL))
			p->kid[n++] = p->kid[k];
	p->nk = (uint8_t)n;
	p->last = FT_NIL;
	int keep = p->nk || p->more != FT_NIL;
	if (!keep) {
		idmap_del(&f->ids, p->v.id);
		slot_release(f, i);
		f->n_place--;
	} else {
		p->state = ST_ABSENT;
	}
	return 0;
}

/* End of file: every placeholder left is an id that never appears.
 * Control-only edges to it are dropped with a warning (an error when
 * strict); data edges stay, and the stall diagnosis names them. */
static int at_eof(chakra_feeder *f)
{
	if (f->eof_done)
		return 0;
	f->eof_done = 1;
	if (!f->n_place)
		return 0;
	/* In id order, so the outcome does not depend on slot numbers. */
	uint32_t *place = (uint32_t *)chakra__malloc(f->n_place * sizeof *place);
	size_t np = 0;
	if (!place)
		return oom(f);
	for (uint32_t i = 0; i < f->n_slots; i++)
		if (fslot_at(f, i)->state == ST_PLACE)
			place[np++] = i;
	if (chakra__feeder_sort_slots(f, place, np, 0)) {
		chakra__free(place);
		return oom(f);
	}
	int rc = 0;
	for (size_t k = 0; k < np && rc >= 0; k++)
		rc = absent_one(f, place[k]);
	chakra__free(place);
	return rc < 0 ? rc : 0;
}

/* The nodes held need more bytes than max_memory to make progress. */
static int over_memory(chakra_feeder *f)
{
	if (f->held_bytes > f->peak_bytes)
		f->peak_bytes = f->held_bytes;
	chakra__feeder_errf(f, CHAKRA_ETOOBIG,
	                    "%s: byte %llu: the feeder holds %llu bytes for %llu nodes read ahead "
	                    "(node index %llu) and needs more to make progress, past its budget of "
	                    "%llu bytes (max_memory; nothing is ready or in flight, so a parent must "
	                    "be further on in the file)",
	                    f->name, (unsigned long long)framer_offset(f->fr),
	                    (unsigned long long)f->held_bytes, (unsigned long long)f->held,
	                    (unsigned long long)f->n_read, (unsigned long long)f->max_memory);
	return fail(f, chakra__feeder_at(f, CHAKRA_ERRINFO_OFFSET | CHAKRA_ERRINFO_INDEX,
	                                 framer_offset(f->fr), f->n_read, 0));
}

/* Read ahead up to the window; beyond it only while nothing can progress
 * (no ready node, none in flight): parents may come later in the file. */
FEEDER_INLINE int feeder_fill(chakra_feeder *f)
{
	int rc;
	while (f->held < f->opts.window && f->held_bytes < f->window_bytes && !f->eof)
		if ((rc = read_one(f)) < 0)
			return rc;
	while (f->q_n == 0 && !f->eof && f->ready.n == 0 && f->inflight == 0) {
		/* Reading on cannot resolve a cycle among the nodes held; look
		 * for one once past the window, then again only after as many
		 * new nodes were read as were held at the last look (a look
		 * costs O(held), so the cost stays linear), so a trace whose
		 * control edges contradict its data edges stays within about
		 * two windows of memory. */
		if (f->held >= f->opts.window && f->n_read >= f->next_cycle_check) {
			if ((rc = chakra__feeder_resolve_stall(f, 0)) < 0)
				return fail(f, rc);
			f->next_cycle_check = f->n_read + f->held;
			if (f->ready.n)
				break;
		}
		if ((rc = read_one_cold(f)) < 0)
			return rc;
		if (f->held_bytes > f->max_memory)
			return over_memory(f);
	}
	/* (bytes held grow only here and in materialize: the peak is exact) */
	if (f->held_bytes > f->peak_bytes)
		f->peak_bytes = f->held_bytes;
	if (f->held_bytes > f->max_memory) /* (window_bytes <= max_memory: by one message) */
		return over_memory(f);
	return 0;
}

/* Issue one ready node: 1, 0 (none ready), or an error (stall). */
FEEDER_INLINE int pick(chakra_feeder *f, fslot **out)
{
	if (f->failed)
		return f->failed;
	int rc = feeder_fill(f);
	if (rc < 0)
		return rc;
	uint32_t i;
	while ((i = dqueue_pop(&f->ready)) == FT_NIL) {
		if (f->q_n) {
			/* Nothing inserted is ready: insert queued nodes in file
			 * order until one is (issued at once when it is the only
			 * ready node). */
			uint32_t next = FT_NIL;
			rc = 0;
			while (f->q_n && !f->ready.n) {
				if ((rc = insert_one(f, 1, &next)) < 0)
					return rc;
				if (rc)
					break;
			}
			if (rc)
				i = next;
			if (i != FT_NIL)
				break;
			continue;
		}
		if (f->inflight || !f->held)
			return 0;
		if (!f->eof)
			rc = feeder_fill(f); /* (fill returns only at the end, or with progress) */
		else
			rc = chakra__feeder_resolve_stall(f, 1);
		if (rc < 0)
			return fail(f, rc);
	}
	fslot *s = fslot_at(f, i);
	s->state = ST_INFLIGHT;
	f->inflight++;
	f->issued++;
	*out = s;
	return 1;
}

/* Callback style: issue everything ready. Re-entrant calls (complete()
 * from inside ready_cb) only release children; this loop issues them, so
 * the stack never grows with the chain length. */
static void feeder_free(chakra_feeder *f);

static int drain(chakra_feeder *f)
{
	if (f->in_drive)
		return 0;
	f->in_drive = 1;
	int rc;
	const chakra_node *n;
	/* (through the public call: one copy of the inlined issue path) */
	while ((rc = chakra_feeder_next(f, &n)) > 0) {
		f->opts.ready_cb(f->opts.data, f, n);
		if (f->close_pending)
			break;
	}
	f->in_drive = 0;
	if (f->close_pending) { /* closed from inside ready_cb: now it is safe */
		feeder_free(f);
		return 0;
	}
	return rc < 0 ? rc : 0;
}

/* ---- public API ---- */

/* Size of each version of chakra_feeder_options (see reader.c): nothing
 * past the caller's version is read. */
static const size_t feeder_opts_size[] = {
	0,
	offsetof(chakra_feeder_options, reader) + sizeof(const chakra_reader_options *),
	offsetof(chakra_feeder_options, max_memory) + sizeof(uint64_t),
};
#define N_VERSIONS (sizeof feeder_opts_size / sizeof feeder_opts_size[0])

int chakra_feeder_options_init(chakra_feeder_options *opts, unsigned version)
{
	return chakra__opts_init(opts, version, feeder_opts_size, N_VERSIONS);
}

static int setup(chakra_feeder **out, const chakra_feeder_options *o, const char *defname)
{
	*out = NULL;
	chakra_feeder *f = (chakra_feeder *)chakra__calloc(1, sizeof *f);
	if (!f)
		return CHAKRA_ENOMEM;
	f->free_slot = f->free_edge = FT_NIL;
	f->lazy = 1;
	/* Everything the options point to is copied now (issue 13: reader
	 * options on a helper's stack were read after it returned). */
	int bad = 0, bad_reader = 0;
	if (!o) {
		chakra_feeder_options def = CHAKRA_FEEDER_OPTIONS_INIT;
		f->opts = def;
	} else if (chakra__opts_copy(&f->opts, sizeof f->opts, o, feeder_opts_size, N_VERSIONS)) {
		bad = 1;
	}
	if (!bad && chakra__reader_opts_copy(&f->ropts, f->opts.reader))
		bad_reader = 1;
	const char *nm = !bad && !bad_reader && f->ropts.display_name ? f->ropts.display_name
	                                                                : defname;
	f->name = chakra__strdup(nm);
	if (!f->name) {
		chakra__free(f);
		return CHAKRA_ENOMEM;
	}
	f->ropts.display_name = f->name; /* (the feeder's own copy) */
	f->opts.reader = &f->ropts;
	*out = f;
	if (bad)
		return fail(f, chakra__feeder_errf(f, CHAKRA_EINVAL,
		                                   "%s: chakra_feeder_options version %u is not one this "
		                                   "library knows (1 to %u)",
		                                   f->name, o->version,
		                                   (unsigned)CHAKRA_FEEDER_OPTIONS_VERSION));
	if (bad_reader)
		return fail(f, chakra__feeder_errf(f, CHAKRA_EINVAL,
		                                   "%s: chakra_reader_options version %u is not one this "
		                                   "library knows (1 to %u)",
		                                   f->name, o->reader->version,
		                                   (unsigned)CHAKRA_READER_OPTIONS_VERSION));
	if (f->opts.deps == 0)
		f->opts.deps = CHAKRA_DEPS_DATA;
	if (f->opts.window == 0)
		f->opts.window = FEEDER_DEFAULT_WINDOW;
	f->max_memory = f->opts.max_memory ? f->opts.max_memory : FEEDER_DEFAULT_MAX_MEMORY;
	f->window_bytes = f->opts.window_bytes ? f->opts.window_bytes : FEEDER_DEFAULT_WINDOW_BYTES;
	if (f->window_bytes > f->max_memory)
		f->window_bytes = f->max_memory;
	/* One node's dependency lists and decoded form within max_node_memory. */
	uint64_t node_max = f->ropts.max_node_memory ? f->ropts.max_node_memory
	                                             : CHAKRA_DEFAULT_MAX_NODE_MEMORY;
	f->ws.limit = f->ws_lazy.limit = f->ws_ins.limit = node_max;
	f->scratch.limit = (size_t)(node_max < SIZE_MAX ? node_max : SIZE_MAX);

	if (f->opts.deps < CHAKRA_DEPS_DATA || f->opts.deps > CHAKRA_DEPS_BOTH)
		return fail(f, chakra__feeder_errf(f, CHAKRA_EINVAL, "%s: bad deps option %d", f->name,
		                           (int)f->opts.deps));
	if (f->opts.order != CHAKRA_ORDER_ID && f->opts.order != CHAKRA_ORDER_FILE)
		return fail(f, chakra__feeder_errf(f, CHAKRA_EINVAL, "%s: bad order option %d", f->name,
		                           (int)f->opts.order));
	return 0;
}

static int opened(chakra_feeder *f, int rc)
{
	if (rc < 0) {
		chakra_error_info ei;
		chakra_reader_error(f->rd, &ei, sizeof ei);
		chakra__feeder_errf(f, rc, "%s", f->rd ? ei.message : "out of memory");
		return fail(f, chakra__feeder_at(f, ei.flags, ei.offset, ei.node_index, ei.node_id));
	}
	f->fr = chakra__reader_framer(f->rd);
	/* Lazy mode leaves queued and pinned messages in the framer's buffer. */
	f->fr->keep = lazy_keep;
	f->fr->moved = lazy_moved;
	f->fr->hook = f;
	return 0;
}

int chakra_feeder_open(chakra_feeder **out, const char *path, const chakra_feeder_options *o)
{
	int rc = setup(out, o, !strcmp(path, "-") ? "<stdin>" : path);
	if (rc < 0)
		return rc;
	return opened(*out, chakra_reader_open(&(*out)->rd, path, (*out)->opts.reader));
}

int chakra_feeder_open_buffer(chakra_feeder **out, const void *buf, size_t len,
                              const chakra_feeder_options *o)
{
	int rc = setup(out, o, "<memory>");
	if (rc < 0)
		return rc;
	chakra_feeder *f = *out;
	/* A plain buffer is framed in place: its messages need no copy. */
	f->zc_lo = (const uint8_t *)buf;
	f->zc_hi = (const uint8_t *)buf + len;
	return opened(f, chakra_reader_open_buffer(&f->rd, buf, len, f->opts.reader));
}

int chakra_feeder_open_cb(chakra_feeder **out, chakra_read_cb cb, void *cbdata,
                          const chakra_feeder_options *o)
{
	int rc = setup(out, o, "<callback>");
	if (rc < 0)
		return rc;
	return opened(*out, chakra_reader_open_cb(&(*out)->rd, cb, cbdata, (*out)->opts.reader));
}

void chakra_feeder_close(chakra_feeder *f)
{
	if (!f)
		return;
	if (f->in_drive) {
		/* From inside ready_cb: the feeder's own frames are still on the
		 * stack. Every later call fails; drain() frees it on the way out. */
		f->close_pending = 1;
		chakra__feeder_errf(f, CHAKRA_ESTATE, "%s: closed from inside ready_cb", f->name);
		f->failed = CHAKRA_ESTATE;
		return;
	}
	feeder_free(f);
}

static void feeder_free(chakra_feeder *f)
{
	for (uint32_t i = 0; i < f->n_slots; i++) {
		fslot *s = fslot_at(f, i);
		if (s->state != ST_FREE) {
			if (s->cls != CLS_NONE && s->cls != CLS_PINNED) /* (the framer's bytes) */
				bytepool_release(&f->bytes, (void *)s->v.msg, s->cls);
			if (s->v.full)
				bytepool_release(&f->bytes, s->v.full, s->full_cls);
		}
	}
	for (size_t c = 0; c < f->n_chunks; c++)
		chakra__free(f->chunks[c]);
	chakra__free(f->chunks);
	chakra__free(f->edges);
	chakra__idmap_free(&f->ids);
	chakra__doneset_free(&f->done);
	chakra__dqueue_free(&f->ready);
	chakra__bytepool_free(&f->bytes);
	chakra__walk_scratch_free(&f->ws);
	chakra__walk_scratch_free(&f->ws_lazy);
	chakra__walk_scratch_free(&f->ws_ins);
	chakra__free(f->q);
	chakra__free(f->pins);
	chakra__arena_free(&f->scratch);
	chakra_reader_close(f->rd);
	chakra__free(f->name);
	chakra__free(f);
}

int chakra_feeder_next(chakra_feeder *f, const chakra_node **node)
{
	fslot *s = NULL;
	int rc = pick(f, &s);
	if (rc > 0)
		*node = &s->v;
	return rc;
}

/* The children of s, completed: each loses a pending parent. */
static int release_children(chakra_feeder *f, fslot *s)
{
	/* Their slots were last touched when they were read, up to a window
	 * ago: start loading them all first, so the misses overlap instead
	 * of queueing behind each other. */
	unsigned nk = s->nk;
#if defined(__GNUC__)
	for (unsigned k = 0; k < nk; k++)
		__builtin_prefetch(&fslot_at(f, s->kid[k] & ~EDGE_CTRL)->pending, 1);
#endif
	for (unsigned k = 0; k < nk; k++) {
		int rc = release_child(f, s->kid[k] & ~EDGE_CTRL);
		if (rc < 0)
			return rc;
	}
	s->nk = 0;
	for (uint32_t e = s->more; e != FT_NIL;) {
		uint32_t nx = f->edges[e].next;
		int rc = release_child(f, f->edges[e].child & ~EDGE_CTRL);
		if (rc < 0)
			return rc;
		edge_free(f, e);
		e = nx;
	}
	s->more = FT_NIL;
	return 0;
}

/* Why an id cannot be completed, for CHAKRA_ESTATE. */
static int not_inflight(chakra_feeder *f, const char *what, uint64_t id)
{
	int rc = flush(f); /* (the answer needs the whole graph) */
	if (rc < 0)
		return rc;
	uint32_t i = idmap_get(&f->ids, id);
	const char *why;
	if (i != FT_NIL) {
		switch (fslot_at(f, i)->state) {
		case ST_READY: why = "it is ready but not issued"; break;
		case ST_BLOCKED: why = "it is waiting for its parents"; break;
		default: why = "it has not been read (only referenced as a parent)"; break;
		}
	} else if (doneset_has(&f->done, id)) {
		why = "it was already completed";
	} else {
		why = "no node with this id has been read";
	}
	chakra__feeder_errf(f, CHAKRA_ESTATE, "%s: %s node id %llu: not in flight: %s", f->name, what,
	                    (unsigned long long)id, why);
	return chakra__feeder_at(f, CHAKRA_ERRINFO_ID, 0, 0, id);
}

int chakra_feeder_complete(chakra_feeder *f, uint64_t id)
{
	if (f->failed)
		return f->failed;
	idmap_ent *ent = idmap_find(&f->ids, id);
	if (!ent || fslot_at(f, ent->val)->state != ST_INFLIGHT)
		return not_inflight(f, "complete", id);
	uint32_t i = ent->val;
	fslot *s = fslot_at(f, i);
	if (doneset_add(&f->done, id))
		return oom(f);
	if (s->nk || s->more != FT_NIL) {
		int rc = release_children(f, s);
		if (rc < 0)
			return rc;
	}
	idmap_erase(&f->ids, ent); /* (releasing children does not change the map) */
	slot_release(f, i);
	f->held--;
	f->inflight--;
	f->completed++;
	if (f->opts.ready_cb)
		return drain(f);
	return 0;
}

int chakra_feeder_push_back(chakra_feeder *f, uint64_t id)
{
	if (f->failed)
		return f->failed;
	uint32_t i = idmap_get(&f->ids, id);
	if (i == FT_NIL || fslot_at(f, i)->state != ST_INFLIGHT)
		return not_inflight(f, "push back", id);
	f->inflight--;
	return make_ready(f, i);
}

int chakra_feeder_drive(chakra_feeder *f)
{
	if (f->failed)
		return f->failed;
	if (!f->opts.ready_cb)
		return chakra__feeder_errf(f, CHAKRA_EINVAL, "%s: chakra_feeder_drive needs a ready_cb option",
		                   f->name);
	return drain(f);
}

const chakra_node *chakra_feeder_lookup(chakra_feeder *f, uint64_t id)
{
	uint32_t i = idmap_get(&f->ids, id);
	if (i == FT_NIL && f->q_n && flush(f) == 0) /* queued, perhaps */
		i = idmap_get(&f->ids, id);
	if (i == FT_NIL)
		return NULL;
	fslot *s = fslot_at(f, i);
	return s->state >= ST_BLOCKED ? &s->v : NULL;
}

int chakra_feeder_has_more(const chakra_feeder *f)
{
	return !f->eof || f->held > 0;
}

uint64_t chakra_feeder_held_count(const chakra_feeder *f) { return f->held; }
uint64_t chakra_feeder_ready_count(const chakra_feeder *f)
{
	/* The ready set only: inserting the read-ahead FIFO here (as this did
	 * before) turned lazy feeding off for every caller that asked once
	 * per node, 2-3x slower (issue 13). */
	return f->ready.n;
}

int chakra_feeder_stats(const chakra_feeder *f, struct chakra_feeder_stats *st, size_t size)
{
	if (!f || !st)
		return CHAKRA_EINVAL;
	struct chakra_feeder_stats s;
	memset(&s, 0, sizeof s);
	s.read = f->n_read;
	s.held = f->held;
	s.ready = f->ready.n;
	s.inflight = f->inflight;
	s.issued = f->issued;
	s.completed = f->completed;
	s.warnings = f->warnings;
	s.cycle_breaks = f->cycle_drops;
	s.duplicate_deps = f->dup_deps;
	s.held_bytes = f->held_bytes;
	s.peak_held_bytes = f->peak_bytes;
	memcpy(st, &s, size < sizeof s ? size : sizeof s);
	return 0;
}
uint64_t chakra_feeder_inflight_count(const chakra_feeder *f) { return f->inflight; }
uint64_t chakra_feeder_issued_count(const chakra_feeder *f) { return f->issued; }
uint64_t chakra_feeder_warning_count(const chakra_feeder *f) { return f->warnings; }
uint64_t chakra_feeder_duplicate_dep_count(const chakra_feeder *f) { return f->dup_deps; }
uint64_t chakra_feeder_cycle_break_count(const chakra_feeder *f) { return f->cycle_drops; }
uint64_t chakra_feeder_completed_count(const chakra_feeder *f) { return f->completed; }

const chakra_metadata *chakra_feeder_metadata(const chakra_feeder *f)
{
	return f->rd ? chakra_reader_metadata(f->rd) : NULL;
}

const char *chakra_feeder_errmsg(const chakra_feeder *f)
{
	return f ? f->err : "out of memory (no feeder was created)";
}

int chakra_feeder_error(const chakra_feeder *f, chakra_error_info *info, size_t size)
{
	if (!f) {
		chakra__errinfo e = { CHAKRA_ENOMEM, 0, 0, 0, 0 };
		return chakra__errinfo_get(&e, chakra_feeder_errmsg(f), info, size);
	}
	return chakra__errinfo_get(&f->einfo, f->err, info, size);
}
