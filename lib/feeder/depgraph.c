/* SPDX-License-Identifier: Apache-2.0 */
/* The feeder's dependency graph: slots (one per node read, or per parent
 * id referenced before it is read), child lists (inline in the slot, then
 * an edge list), linking a node to its gating parents, the node view's
 * decode on first access, and the ids that never appear (end of file).
 * The helpers that run once per node or edge are inline in feeder_impl.h.
 * Design and numbers: docs/feeder.md. */
#include <stdlib.h>
#include <string.h>

#include "feeder_impl.h"
#include "pbref.h"
#include "wire.h"

/* ---- slots and edges ---- */

static node_full *materialize(chakra_node *n);

/* A new slot at the end of the chunks (FT_NIL when out of memory). */
uint32_t chakra__feeder_slot_grow(chakra_feeder *f)
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

/* A child beyond the inline ones: onto the overflow edge list. */
int chakra__feeder_edge_add(chakra_feeder *f, fslot *parent, uint32_t child)
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

/* ---- lazy decoding ---- */

/* A rank map's substitution on a decoded node (in the scratch arena, before
 * the copy): its peers and group take the rank's values. */
static void rankmap_apply(const chakra_feeder *f, node_full *nf)
{
	for (size_t k = 0; k < nf->n_attrs; k++) {
		chakra_attr *a = &nf->attrs[k];
		const char *nm = a->name.s;
		if (!nm || (nm[0] != 'p' && nm[0] != 'c'))
			continue;
		if (a->kind == CHAKRA_ATTR_STRING && !strcmp(nm, "pg_name")) {
			for (size_t j = 0; j < f->sub_ng; j++)
				if (a->s.s && !strcmp(a->s.s, f->sub_gf[j])) {
					a->s.s = f->sub_gt[j];
					a->s.len = strlen(f->sub_gt[j]);
					break;
				}
		} else if (f->sub_np && a->kind != CHAKRA_ATTR_STRING && a->kind != CHAKRA_ATTR_BYTES &&
		           !chakra_attr_is_list((const chakra_attr *)a) &&
		           (!strcmp(nm, "comm_src") || !strcmp(nm, "comm_dst"))) {
			int64_t v;
			if (chakra_attr_int(a, &v) < 0)
				continue;
			for (size_t j = 0; j < f->sub_np; j++)
				if (v == f->sub_pf[j]) {
					a->u = (uint64_t)f->sub_pt[j]; /* (integer kinds: the value's bits) */
					break;
				}
		}
	}
}

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
	if (rc == 0 && (f->sub_np || f->sub_ng))
		rankmap_apply(f, &tmp);
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
			feeder_fail(f, chakra__feeder_at(f, ALL_POS, ok ? at : n->offset, n->index, n->id));
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

/* ---- a node's gating parents ---- */

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
			return feeder_oom(f);
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
		return feeder_oom(f);
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

/* Node i (blocked, no parents yet) enters the graph with its gating
 * parents. When `direct` is set and the node is ready while no other is,
 * it is not queued: 1 is returned and the caller issues it. */
int chakra__feeder_link_parents(chakra_feeder *f, uint32_t i, const uint64_t *dd, size_t nd,
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
			       feeder_fail_node(f, &s->v);
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
				       feeder_fail_node(f, &s->v);
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
		return feeder_oom(f);
	if (s->pending)
		return 0;
	if (direct && !f->ready.n) {
		s->state = ST_READY;
		return 1;
	}
	return make_ready(f, i);
}

/* ---- ids that never appear ---- */

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
		       feeder_fail_node(f, &cs->v);
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
int chakra__feeder_at_eof(chakra_feeder *f)
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
		return feeder_oom(f);
	for (uint32_t i = 0; i < f->n_slots; i++)
		if (fslot_at(f, i)->state == ST_PLACE)
			place[np++] = i;
	if (chakra__feeder_sort_slots(f, place, np, 0)) {
		chakra__free(place);
		return feeder_oom(f);
	}
	int rc = 0;
	for (size_t k = 0; k < np && rc >= 0; k++)
		rc = absent_one(f, place[k]);
	chakra__free(place);
	return rc < 0 ? rc : 0;
}
