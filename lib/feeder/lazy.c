/* SPDX-License-Identifier: Apache-2.0 */
/* The feeder's lazy read-ahead, cold half: the framer hooks, the FIFO's
 * and the pins' rings, flushing the FIFO into the graph, the eager read
 * (a node that is not queued), the end of the file and read errors. The
 * per-node path (queue a node, insert the oldest, read one, fill the
 * window) is inline in lazy.h, where chakra_feeder_next inlines it. */
#include <stdlib.h>
#include <string.h>

#include "feeder_impl.h"
#include "lazy.h"
#include "wire.h"

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

void chakra__feeder_lazy_hooks(chakra_feeder *f)
{
	f->fr->keep = lazy_keep;
	f->fr->moved = lazy_moved;
	f->fr->hook = f;
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

int chakra__feeder_pins_grow(chakra_feeder *f)
{
	void *r = f->pins;
	int rc = ring_grow(&r, &f->pin_cap, &f->pin_head, f->pin_n, sizeof *f->pins);
	f->pins = (qpin *)r;
	return rc;
}

/* Node i, issued with its message in the framer's buffer, is completed. */
void chakra__feeder_unpin(chakra_feeder *f, uint32_t i)
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

int chakra__feeder_q_grow(chakra_feeder *f)
{
	void *r = f->q;
	int rc = ring_grow(&r, &f->q_cap, &f->q_head, f->q_n, sizeof *f->q);
	f->q = (qrec *)r;
	return rc;
}

/* Every queued node enters the graph. */
int chakra__feeder_flush(chakra_feeder *f)
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
int chakra__feeder_read_eager(chakra_feeder *f, const uint8_t *msg, size_t len, uint64_t off,
                      uint64_t index, uint64_t id)
{
	int rc;
	if (f->lazy) {
		f->lazy = 0;
		if ((rc = chakra__feeder_flush(f)) < 0)
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
			       feeder_fail(f, chakra__feeder_at(f, ALL_POS, off, index, id));
		f->n_place--;
	} else {
		if (doneset_has(&f->done, id))
			return chakra__feeder_errf(f, CHAKRA_EDUP,
			                           "%s: node index %llu (message at byte %llu): duplicate "
			                           "node id %llu (an earlier node with this id was "
			                           "already completed)",
			                           f->name, (unsigned long long)index,
			                           (unsigned long long)off, (unsigned long long)id),
			       feeder_fail(f, chakra__feeder_at(f, ALL_POS, off, index, id));
		i = slot_take(f);
		if (i == FT_NIL || idmap_put(&f->ids, id, i))
			return feeder_oom(f);
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
	return chakra__feeder_link_parents(f, i, walk_data(&f->ws),
	                    (f->opts.deps & CHAKRA_DEPS_DATA) ? walk_n_data(&f->ws) : 0,
	                    walk_ctrl(&f->ws),
	                    (f->opts.deps & CHAKRA_DEPS_CTRL) ? walk_n_ctrl(&f->ws) : 0, 0, 0);
}

/* The end of the file, or a framing error. */
int chakra__feeder_read_end(chakra_feeder *f, int rc)
{
	if (rc < 0) {
		chakra__feeder_errf(f, rc, "%s (node index %llu)", f->tmp, (unsigned long long)f->n_read);
		unsigned flags = f->fr->err_flags;
		if (rc != CHAKRA_EIO || flags) /* (not for read failures) */
			flags |= CHAKRA_ERRINFO_INDEX;
		return feeder_fail(f, chakra__feeder_at(f, flags, f->fr->err_off, f->n_read, 0));
	}
	f->eof = 1;
	if ((rc = chakra__feeder_flush(f)) < 0)
		return rc;
	return chakra__feeder_at_eof(f);
}

int chakra__feeder_scan_failed(chakra_feeder *f, int rc, uint64_t index, uint64_t off)
{
	int ok;
	uint64_t at = chakra__msg_byte(f->tmp, &ok);
	chakra__feeder_errf(f, rc, "%s: node index %llu (message at byte %llu): %s", f->name,
	                    (unsigned long long)index, (unsigned long long)off, f->tmp);
	return feeder_fail(f, chakra__feeder_at(f, CHAKRA_ERRINFO_OFFSET | CHAKRA_ERRINFO_INDEX,
	                                 ok ? at : off, index, 0));
}

/* The same, out of line, for the rare reads past the window. */
int chakra__feeder_read_one_cold(chakra_feeder *f)
{
	return read_one(f);
}

/* The nodes held need more bytes than max_memory to make progress. */
int chakra__feeder_over_memory(chakra_feeder *f)
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
	return feeder_fail(f, chakra__feeder_at(f, CHAKRA_ERRINFO_OFFSET | CHAKRA_ERRINFO_INDEX,
	                                 framer_offset(f->fr), f->n_read, 0));
}
