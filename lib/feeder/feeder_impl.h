/* SPDX-License-Identifier: Apache-2.0 */
/* Feeder internals shared by its files: the public API and issue loop
 * (feeder.c), the dependency graph (depgraph.c), the lazy read-ahead
 * (lazy.c, with its per-node path inline in lazy.h), the stall diagnosis
 * (diag.c), the scan (scan.c), decoded-node copies (compact.c) and the
 * workload opener (workload.c). The graph helpers that run once per node
 * or edge are static inline below: the hot paths (chakra_feeder_next,
 * chakra_feeder_complete) must not pay a call for them. */
#ifndef CHAKRA_FEEDER_IMPL_H
#define CHAKRA_FEEDER_IMPL_H

#include <string.h>

#include "chakra/error.h"
#include "chakra/feeder.h"
#include "ftab.h"
#include "node_impl.h"
#include "util.h"
#include "wire.h"

#define FEEDER_ERRMSG_MAX 4096
/* 16384 nodes: the whole of chakra.0.et (exact reference order), ~6 MiB
 * on the synthetic benchmark and ~20 MiB with real ~600-byte nodes and
 * their edges; docs/feeder.md has the measurements. */
#define FEEDER_DEFAULT_WINDOW 16384

/* Slot states. */
enum {
	ST_FREE = 0,
	ST_PLACE,    /* placeholder: id referenced as a parent, not read yet */
	ST_ABSENT,   /* placeholder at end of file: the id never appears */
	ST_BLOCKED,  /* read, waiting for parents */
	ST_READY,    /* in the ready queue */
	ST_INFLIGHT  /* issued, not completed */
};

/* Children kept inline in the parent's slot: nodes in traces have few
 * children (the synthetic benchmark ~2), and a separate edge array cost a
 * cache miss per edge at completion; more children spill to edge lists. */
#define FEEDER_KIDS 4

/* One node (or placeholder). Slots live in fixed chunks that never move,
 * so the embedded view stays valid until the node is completed. The lazily
 * decoded fields (v.full) are one bytepool block of class full_cls. */
typedef struct fslot {
	chakra_node v;     /* first member: a view pointer is a slot pointer */
	uint32_t pending;  /* unresolved gating parents */
	uint32_t more;     /* children beyond kid[]: edge list; free-list link when free */
	uint32_t last;     /* the child added last (a parent listed twice), FT_NIL */
	uint32_t kid[FEEDER_KIDS]; /* children (slot | EDGE_CTRL) */
	uint8_t nk;        /* children in kid[] */
	uint8_t state;
	uint8_t cls;       /* bytepool class of v.msg; CLS_NONE: not owned; CLS_PINNED: in the framer's buffer (lazy mode) */
	uint8_t full_cls;  /* bytepool class of v.full */
} fslot;

#define CLS_NONE 0xff
#define CLS_PINNED 0xfe

#define SLOT_CHUNK_BITS 10
#define SLOT_CHUNK ((uint32_t)1 << SLOT_CHUNK_BITS)

/* Edge parent -> child beyond the inline ones. The top bit of a child
 * value marks an edge that only a control dependency created (ignorable
 * when the parent never appears). */
#define EDGE_CTRL 0x80000000u
typedef struct fedge {
	uint32_t child, next;
} fedge;

/* A node issued straight from the lazy FIFO keeps its message in the
 * framer's buffer until completed (a pin; slot FT_NIL once completed);
 * moff: the message's stream offset. */
typedef struct qpin {
	uint64_t moff;
	uint32_t slot;
} qpin;

/* A node read ahead in lazy mode, waiting to enter the dependency graph
 * (lazy.c explains the mode): a record in a ring, with its gating
 * dependencies as id - dep > 0 (data first; a node with more than
 * QREC_DEPS, or farther ones, is scanned again when inserted). Its
 * message stays where the framer read it (the framer keeps the bytes
 * from the oldest queued or pinned message on, see lazy_keep), so
 * nothing is copied until the node enters the graph, and then only when
 * it is not issued at once. */
#define QREC_DEPS 6
typedef struct qrec {
	uint64_t id, off;           /* off: of the length prefix */
	uint32_t len;               /* message bytes, from off + hdr */
	uint8_t hdr;                /* length prefix bytes */
	uint8_t nd, nc;             /* deltas stored */
	uint8_t rescan;
	uint8_t norep;              /* the stored deltas hold no repeat */
	uint32_t d[QREC_DEPS];
} qrec;

struct chakra_feeder {
	chakra_feeder_options opts;   /* copied; opts.reader points to ropts */
	chakra_reader_options ropts;  /* the caller's reader options, copied */
	chakra_reader *rd;
	framer *fr;      /* rd's framer: the feeder reads messages through it */
	char *name;
	const uint8_t *zc_lo, *zc_hi; /* caller's plain buffer: messages used in place */

	fslot **chunks;
	size_t n_chunks;
	uint32_t n_slots, free_slot;

	fedge *edges;
	uint32_t n_edges, cap_edges, free_edge;

	idmap ids;       /* id -> slot, for held nodes and placeholders */
	doneset done;    /* completed ids */
	dqueue ready;
	bytepool bytes;
	walk_scratch ws, ws_lazy, ws_ins;
	/* Lazy mode: nodes read ahead in a FIFO (ring), inserted into the
	 * graph only when no inserted node is ready. */
	qrec *q;
	size_t q_cap, q_head, q_n;            /* records; cap a power of two */
	uint64_t q_first;                     /* node index of the oldest */
	qpin *pins;                           /* pins, oldest first (qpin) */
	size_t pin_cap, pin_head, pin_n;      /* a ring of pins; cap a power of two */
	int lazy;                             /* 0 once the trace left the lazy pattern */
	int any_read;
	uint64_t last_id;                     /* id of the last node read */
	arena scratch;

	uint64_t held, inflight, issued, completed, n_place;
	uint64_t n_read, next_cycle_check; /* nodes read; n_read for the next cycle check */
	uint64_t warnings, dup_deps, cycle_drops;
	/* Budgets (docs/hardening.md): bytes held for held nodes (messages the
	 * feeder keeps, not the caller's buffer, and their decoded fields). */
	uint64_t held_bytes, peak_bytes, window_bytes, max_memory;
	int eof, failed, in_drive, eof_done;
	int close_pending; /* chakra_feeder_close from inside ready_cb */
	chakra__errinfo einfo;
	char err[FEEDER_ERRMSG_MAX];
	char tmp[CHAKRA_ERRMSG_MAX];
	/* A rank map's substitution (opts.subst, copied at open): applied to
	 * each node as it is decoded (rankmap_apply, depgraph.c). */
	size_t sub_np, sub_ng;
	int64_t *sub_pf, *sub_pt;
	char **sub_gf, **sub_gt;
};

static inline fslot *fslot_at(const chakra_feeder *f, uint32_t i)
{
	return &f->chunks[i >> SLOT_CHUNK_BITS][i & (SLOT_CHUNK - 1)];
}

/* reader.c: the reader's framer, which the feeder drives directly, and
 * the versioned copy of reader options (defaults for NULL; CHAKRA_EINVAL
 * for an unknown version). */
framer *chakra__reader_framer(chakra_reader *r);
int chakra__reader_opts_copy(chakra_reader_options *dst, const chakra_reader_options *src);
/* feeder.c: the versioned copy of feeder options (CHAKRA_EINVAL for an
 * unknown version); what they point to is not copied. */
int chakra__feeder_opts_copy(chakra_feeder_options *dst, const chakra_feeder_options *src);

/* Feeder defaults for the version 2 budgets. */
#define FEEDER_DEFAULT_WINDOW_BYTES ((uint64_t)64 << 20)
#define FEEDER_DEFAULT_MAX_MEMORY ((uint64_t)1 << 30)

/* scan.c: id and deps of a Node message (into ws->data / ws->ctrl), with
 * the top-level structure validated; "byte N: what" in err on failure.
 * want: the lists to decode (chakra_deps bits); a packed list not wanted
 * in canonical position is skipped by its length (and may be left empty). */
int chakra__feeder_scan(const uint8_t *msg, size_t len, uint64_t base, uint64_t *id, walk_scratch *ws,
                unsigned want, char *err);

/* compact.c: a deep copy of a decoded node in one block of the feeder's
 * byte pool (*cls receives its class for bytepool_release); NULL when out
 * of memory. */
node_full *chakra__node_full_compact(const node_full *src, bytepool *pool, uint8_t *cls);

/* diag.c: a stall (nothing ready, nothing in flight, nodes held). Breaks
 * cycles at control-only edges (not when strict) and returns 1 when nodes
 * became ready. Otherwise, when final (file fully read), sets f->err and
 * returns CHAKRA_ECYCLE or CHAKRA_EDEP; before the end of the file a cycle
 * of data edges is already CHAKRA_ECYCLE (no later node can break it), and
 * anything else returns 0 (parents may come later). CHAKRA_ENOMEM too. */
int chakra__feeder_resolve_stall(chakra_feeder *f, int final);
/* diag.c: sort slot numbers by file index (by_index) or id; -1 when out
 * of memory. */
int chakra__feeder_sort_slots(const chakra_feeder *f, uint32_t *slots, size_t n, int by_index);
/* Errors into f->err (larger than CHAKRA_ERRMSG_MAX); the error's values
 * (f->einfo) get the code and no position, which chakra__feeder_at adds. */
int chakra__feeder_errf(chakra_feeder *f, int code, const char *fmt, ...) CHAKRA_PRINTF(3, 4);
/* The position of the error just formatted (CHAKRA_ERRINFO_* flags);
 * returns its code. */
int chakra__feeder_at(chakra_feeder *f, unsigned flags, uint64_t offset, uint64_t index,
                      uint64_t id);

/* depgraph.c: children of a slot, for the cold paths (end of file, stall
 * diagnosis). Iterate with `kid_it it = KID_IT_INIT; while (chakra__kid_next(f, p,
 * &it, &c))`; chakra__kid_remove takes out one child value (with its EDGE_CTRL
 * bit) and returns 1, or 0 when p has no such child. */
typedef struct kid_it {
	uint32_t k, e;
} kid_it;
#define KID_IT_INIT { 0, FT_NIL }
int chakra__kid_next(const chakra_feeder *f, const fslot *p, kid_it *it, uint32_t *child);
int chakra__kid_remove(chakra_feeder *f, fslot *p, uint32_t child);

/* depgraph.c: the dependency graph (slots, edges, parents, absent ids).
 * A new slot at the end of the chunks (FT_NIL when out of memory); a
 * child beyond the inline ones onto the parent's edge list (-1 when out
 * of memory); node i (blocked, no parents yet) entering the graph with its
 * gating parents (`direct`: when the node is ready while no other is, it
 * is not queued and 1 is returned for the caller to issue it; `late`: a
 * node inserted from the lazy FIFO, whose parents are mostly complete);
 * the end of the file (placeholders left are ids that never appear). */
uint32_t chakra__feeder_slot_grow(chakra_feeder *f);
int chakra__feeder_edge_add(chakra_feeder *f, fslot *parent, uint32_t child);
int chakra__feeder_link_parents(chakra_feeder *f, uint32_t i, const uint64_t *dd, size_t nd,
                                const uint64_t *cd, size_t nc, int direct, int late);
int chakra__feeder_at_eof(chakra_feeder *f);

/* lazy.c: the read-ahead's cold half (lazy.h has the per-node path).
 * Framer hooks installed on open; growing the FIFO and the pins; node i
 * completed with its message pinned in the framer's buffer; every queued
 * node into the graph; a node read that is not queued; the end of the
 * file or a framing error; a message that fails the scan; one read out of
 * line; the memory budget exceeded. */
void chakra__feeder_lazy_hooks(chakra_feeder *f);
int chakra__feeder_q_grow(chakra_feeder *f);
int chakra__feeder_pins_grow(chakra_feeder *f);
void chakra__feeder_unpin(chakra_feeder *f, uint32_t i);
int chakra__feeder_flush(chakra_feeder *f);
int chakra__feeder_read_eager(chakra_feeder *f, const uint8_t *msg, size_t len, uint64_t off,
                              uint64_t index, uint64_t id);
int chakra__feeder_read_end(chakra_feeder *f, int rc);
int chakra__feeder_scan_failed(chakra_feeder *f, int rc, uint64_t index, uint64_t off);
int chakra__feeder_read_one_cold(chakra_feeder *f);
int chakra__feeder_over_memory(chakra_feeder *f);

/* ---- errors and the graph's per-node helpers, inline ---- */

static inline int feeder_fail(chakra_feeder *f, int code)
{
	f->failed = code;
	return code;
}

#define ALL_POS (CHAKRA_ERRINFO_OFFSET | CHAKRA_ERRINFO_INDEX | CHAKRA_ERRINFO_ID)

/* The error just formatted is about node s (its message's offset). */
static inline int feeder_fail_node(chakra_feeder *f, const chakra_node *v)
{
	return feeder_fail(f, chakra__feeder_at(f, ALL_POS, v->offset, v->index, v->id));
}

static inline int feeder_oom(chakra_feeder *f)
{
	return feeder_fail(f, chakra__feeder_errf(f, CHAKRA_ENOMEM, "%s: out of memory", f->name));
}

/* Hot helpers called once per edge or node: inlined (a call cost about
 * as much as their body). */
#if defined(__GNUC__)
#  define FEEDER_INLINE static inline __attribute__((always_inline))
#else
#  define FEEDER_INLINE static inline
#endif

/* A free slot, not initialised (FT_NIL when out of memory). */
FEEDER_INLINE uint32_t slot_take(chakra_feeder *f)
{
	uint32_t i = f->free_slot;
	if (i == FT_NIL)
		return chakra__feeder_slot_grow(f);
	f->free_slot = fslot_at(f, i)->more;
	return i;
}

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
			chakra__feeder_unpin(f, i);
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

static inline void edge_free(chakra_feeder *f, uint32_t e)
{
	f->edges[e].next = f->free_edge;
	f->free_edge = e;
}

FEEDER_INLINE int kid_add(chakra_feeder *f, fslot *parent, uint32_t child)
{
	parent->last = child & ~EDGE_CTRL;
	if (parent->nk < FEEDER_KIDS) {
		parent->kid[parent->nk++] = child;
		return 0;
	}
	return chakra__feeder_edge_add(f, parent, child);
}

FEEDER_INLINE int make_ready(chakra_feeder *f, uint32_t i)
{
	fslot *s = fslot_at(f, i);
	s->state = ST_READY;
	uint64_t key = f->opts.order == CHAKRA_ORDER_FILE ? s->v.index : s->v.id;
	if (dqueue_push(&f->ready, key, i))
		return feeder_oom(f);
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
			return feeder_oom(f);
		if (len)
			memcpy(copy, msg, len);
		s->v.msg = copy;
	}
	return 0;
}

/* The children of s, completed: each loses a pending parent. */
static inline int release_children(chakra_feeder *f, fslot *s)
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

#endif
