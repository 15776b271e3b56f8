/* SPDX-License-Identifier: Apache-2.0 */
/* The feeder's public API and its issue loop: options, open, close,
 * next / complete / push_back, callback style (drive), lookup, counts and
 * errors. pick() issues ready nodes, lowest id or file index first (the
 * ready queue: bitmap + heap, ftab.c), reading ahead through lazy.h; the
 * graph is depgraph.c, the read-ahead lazy.c, stalls diag.c. Design and
 * numbers: docs/feeder.md. */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chakra/error.h"
#include "feeder_impl.h"
#include "lazy.h"

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
			return feeder_fail(f, rc);
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
	offsetof(chakra_feeder_options, subst) + sizeof(const chakra_rank_subst *),
};
#define N_VERSIONS (sizeof feeder_opts_size / sizeof feeder_opts_size[0])

int chakra__feeder_opts_copy(chakra_feeder_options *dst, const chakra_feeder_options *src)
{
	return chakra__opts_copy(dst, sizeof *dst, src, NULL, feeder_opts_size, N_VERSIONS) ? CHAKRA_EINVAL : 0;
}

int chakra_feeder_options_init(chakra_feeder_options *opts, unsigned version)
{
	return chakra__opts_init(opts, version, NULL, feeder_opts_size, N_VERSIONS);
}

/* The feeder's own copy of a rank's substitution (nothing is read from
 * the caller's memory after open). */
static int subst_copy(chakra_feeder *f, const chakra_rank_subst *s)
{
	size_t np = s->n_peers, ng = s->n_groups;
	if (np) {
		f->sub_pf = (int64_t *)chakra__malloc(np * sizeof *f->sub_pf);
		f->sub_pt = (int64_t *)chakra__malloc(np * sizeof *f->sub_pt);
		if (!f->sub_pf || !f->sub_pt)
			return CHAKRA_ENOMEM;
		memcpy(f->sub_pf, s->peer_from, np * sizeof *f->sub_pf);
		memcpy(f->sub_pt, s->peer_to, np * sizeof *f->sub_pt);
		f->sub_np = np;
	}
	if (ng) {
		f->sub_gf = (char **)chakra__calloc(ng, sizeof *f->sub_gf);
		f->sub_gt = (char **)chakra__calloc(ng, sizeof *f->sub_gt);
		if (!f->sub_gf || !f->sub_gt)
			return CHAKRA_ENOMEM;
		f->sub_ng = ng; /* (freed entry by entry from here on) */
		for (size_t j = 0; j < ng; j++)
			if (!(f->sub_gf[j] = chakra__strdup(s->group_from[j])) ||
			    !(f->sub_gt[j] = chakra__strdup(s->group_to[j])))
				return CHAKRA_ENOMEM;
	}
	return 0;
}

static int setup(chakra_feeder **out, const chakra_feeder_options *o, const char *defname)
{
	if (!out)
		return CHAKRA_EINVAL;
	*out = NULL;
	chakra_feeder *f = (chakra_feeder *)chakra__calloc(1, sizeof *f);
	if (!f)
		return CHAKRA_ENOMEM;
	f->free_slot = f->free_edge = FT_NIL;
	f->lazy = 1;
	/* Everything the options point to is copied now (the embedding rule: reader
	 * options on a helper's stack were read after it returned). */
	int bad = 0, bad_reader = 0;
	if (!o) {
		chakra_feeder_options def = CHAKRA_FEEDER_OPTIONS_INIT;
		f->opts = def;
	} else if (chakra__opts_copy(&f->opts, sizeof f->opts, o, NULL, feeder_opts_size, N_VERSIONS)) {
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
	if (!bad && f->opts.subst && subst_copy(f, f->opts.subst) < 0)
		return feeder_fail(f, chakra__feeder_errf(f, CHAKRA_ENOMEM, "%s: out of memory", f->name));
	f->opts.subst = NULL; /* (the feeder's own copy: sub_*) */
	if (bad)
		return feeder_fail(f, chakra__feeder_errf(f, CHAKRA_EINVAL,
		                                   "%s: chakra_feeder_options version %u is not one this "
		                                   "library knows (1 to %u)",
		                                   f->name, o->version,
		                                   (unsigned)CHAKRA_FEEDER_OPTIONS_VERSION));
	if (bad_reader)
		return feeder_fail(f, chakra__feeder_errf(f, CHAKRA_EINVAL,
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
		return feeder_fail(f, chakra__feeder_errf(f, CHAKRA_EINVAL, "%s: bad deps option %d", f->name,
		                           (int)f->opts.deps));
	if (f->opts.order != CHAKRA_ORDER_ID && f->opts.order != CHAKRA_ORDER_FILE)
		return feeder_fail(f, chakra__feeder_errf(f, CHAKRA_EINVAL, "%s: bad order option %d", f->name,
		                           (int)f->opts.order));
	return 0;
}

static int opened(chakra_feeder *f, int rc)
{
	if (rc < 0) {
		chakra_error_info ei;
		chakra_reader_error(f->rd, &ei, sizeof ei);
		chakra__feeder_errf(f, rc, "%s", f->rd ? ei.message : "out of memory");
		return feeder_fail(f, chakra__feeder_at(f, ei.flags, ei.offset, ei.node_index, ei.node_id));
	}
	f->fr = chakra__reader_framer(f->rd);
	/* Lazy mode leaves queued and pinned messages in the framer's buffer. */
	chakra__feeder_lazy_hooks(f);
	return 0;
}

int chakra_feeder_open(chakra_feeder **out, const char *path, const chakra_feeder_options *o)
{
	/* a NULL path: the reader says so, in the feeder's message */
	int rc = setup(out, o, !path ? "<no path>" : !strcmp(path, "-") ? "<stdin>" : path);
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
	chakra__free(f->sub_pf);
	chakra__free(f->sub_pt);
	for (size_t j = 0; j < f->sub_ng; j++) {
		chakra__free(f->sub_gf[j]);
		chakra__free(f->sub_gt[j]);
	}
	chakra__free(f->sub_gf);
	chakra__free(f->sub_gt);
	chakra__free(f);
}

int chakra_feeder_next(chakra_feeder *f, const chakra_node **node)
{
	if (!f || !node)
		return CHAKRA_EINVAL; /* a misuse: the feeder is not failed by it */
	fslot *s = NULL;
	int rc = pick(f, &s);
	if (rc > 0)
		*node = &s->v;
	return rc;
}


/* Why an id cannot be completed, for CHAKRA_ESTATE. */
static int not_inflight(chakra_feeder *f, const char *what, uint64_t id)
{
	int rc = chakra__feeder_flush(f); /* (the answer needs the whole graph) */
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
	if (!f)
		return CHAKRA_EINVAL;
	if (f->failed)
		return f->failed;
	idmap_ent *ent = idmap_find(&f->ids, id);
	if (!ent || fslot_at(f, ent->val)->state != ST_INFLIGHT)
		return not_inflight(f, "complete", id);
	uint32_t i = ent->val;
	fslot *s = fslot_at(f, i);
	if (doneset_add(&f->done, id))
		return feeder_oom(f);
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
	if (!f)
		return CHAKRA_EINVAL;
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
	if (!f)
		return CHAKRA_EINVAL;
	if (f->failed)
		return f->failed;
	if (!f->opts.ready_cb)
		return chakra__feeder_errf(f, CHAKRA_EINVAL, "%s: chakra_feeder_drive needs a ready_cb option",
		                   f->name);
	return drain(f);
}

const chakra_node *chakra_feeder_lookup(chakra_feeder *f, uint64_t id)
{
	if (!f)
		return NULL;
	uint32_t i = idmap_get(&f->ids, id);
	if (i == FT_NIL && f->q_n && chakra__feeder_flush(f) == 0) /* queued, perhaps */
		i = idmap_get(&f->ids, id);
	if (i == FT_NIL)
		return NULL;
	fslot *s = fslot_at(f, i);
	return s->state >= ST_BLOCKED ? &s->v : NULL;
}

int chakra_feeder_has_more(const chakra_feeder *f)
{
	return f && (!f->eof || f->held > 0);
}

/* The NULL rule (chakra.h): the counters of no feeder are 0. */
uint64_t chakra_feeder_held_count(const chakra_feeder *f) { return f ? f->held : 0; }
uint64_t chakra_feeder_ready_count(const chakra_feeder *f)
{
	if (!f)
		return 0;
	/* The ready set only: inserting the read-ahead FIFO here (as this did
	 * before) turned lazy feeding off for every caller that asked once
	 * per node, 2-3x slower. */
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
uint64_t chakra_feeder_inflight_count(const chakra_feeder *f) { return f ? f->inflight : 0; }
uint64_t chakra_feeder_issued_count(const chakra_feeder *f) { return f ? f->issued : 0; }
uint64_t chakra_feeder_warning_count(const chakra_feeder *f) { return f ? f->warnings : 0; }
uint64_t chakra_feeder_duplicate_dep_count(const chakra_feeder *f) { return f ? f->dup_deps : 0; }
uint64_t chakra_feeder_cycle_break_count(const chakra_feeder *f) { return f ? f->cycle_drops : 0; }
uint64_t chakra_feeder_completed_count(const chakra_feeder *f) { return f ? f->completed : 0; }

const chakra_metadata *chakra_feeder_metadata(const chakra_feeder *f)
{
	return f && f->rd ? chakra_reader_metadata(f->rd) : NULL;
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
