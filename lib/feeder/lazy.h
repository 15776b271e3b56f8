/* SPDX-License-Identifier: Apache-2.0 */
/* The feeder's lazy read-ahead, per-node path: inline in the callers
 * (chakra_feeder_next through pick(), and lazy.c's flush), since it runs
 * once per node. lazy.c explains the mode and has the cold half. */
#ifndef CHAKRA_FEEDER_LAZY_H
#define CHAKRA_FEEDER_LAZY_H

#include "feeder_impl.h"
#include "wire.h"

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
	if (f->q_n == f->q_cap && chakra__feeder_q_grow(f))
		return feeder_oom(f);
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

/* The oldest queued node enters the graph (see chakra__feeder_link_parents for direct):
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
	if (pin && f->pin_n == f->pin_cap && chakra__feeder_pins_grow(f))
		return feeder_oom(f);
	uint32_t i = slot_take(f);
	if (i == FT_NIL || idmap_put(&f->ids, id, i))
		return feeder_oom(f);
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
			       feeder_fail(f, chakra__feeder_at(f, ALL_POS, r_off, index, id));
		return chakra__feeder_link_parents(f, i, walk_data(&f->ws_ins),
		                    (f->opts.deps & CHAKRA_DEPS_DATA) ? walk_n_data(&f->ws_ins) : 0,
		                    walk_ctrl(&f->ws_ins),
		                    (f->opts.deps & CHAKRA_DEPS_CTRL) ? walk_n_ctrl(&f->ws_ins) : 0,
		                    direct, 1);
	}
	uint64_t dd[QREC_DEPS];
	for (k = 0; k < nd + nc; k++)
		dd[k] = id - d[k];
	return chakra__feeder_link_parents(f, i, dd, nd, dd + nd, nc, direct, 1);
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
		return chakra__feeder_read_end(f, rc);
	uint64_t index = f->n_read++;
	uint64_t id;
	rc = chakra__feeder_scan(msg, len, off + wire_varint_size(len), &id, &f->ws, (unsigned)f->opts.deps,
	                 f->tmp);
	if (rc < 0)
		return chakra__feeder_scan_failed(f, rc, index, off);
	if (f->lazy && (rc = lazy_read(f, msg, len, off, index, id)) <= 0)
		return rc;
	return chakra__feeder_read_eager(f, msg, len, off, index, id);
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
				return feeder_fail(f, rc);
			f->next_cycle_check = f->n_read + f->held;
			if (f->ready.n)
				break;
		}
		if ((rc = chakra__feeder_read_one_cold(f)) < 0)
			return rc;
		if (f->held_bytes > f->max_memory)
			return chakra__feeder_over_memory(f);
	}
	/* (bytes held grow only here and in materialize: the peak is exact) */
	if (f->held_bytes > f->peak_bytes)
		f->peak_bytes = f->held_bytes;
	if (f->held_bytes > f->max_memory) /* (window_bytes <= max_memory: by one message) */
		return chakra__feeder_over_memory(f);
	return 0;
}

#endif
