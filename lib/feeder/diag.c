/* SPDX-License-Identifier: Apache-2.0 */
/* Stalls: nothing is ready, nothing is in flight and nodes are still held
 * after the whole file was read. Real traces (chakra.0.et) have control
 * edges that contradict data edges (a CPU op with a control dependency on
 * the kernel that data-depends on it), so with control deps gating, a
 * cycle that contains a control-only edge is broken there, with a
 * warning. Otherwise say why: parents that never appear in the file, or a
 * dependency cycle (printed). Runs only on stalls, so it favours clarity
 * over speed. One function per step: stall_collect (the blocked nodes and
 * what each waits for), stall_find_cycles, stall_drop, stall_report. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chakra/error.h"
#include "feeder_impl.h"

typedef struct msgbuf {
	char *p;
	size_t cap, len;
} msgbuf;

static void put(msgbuf *m, const char *fmt, ...) CHAKRA_PRINTF(2, 3);
static void put(msgbuf *m, const char *fmt, ...)
{
	if (m->len + 1 >= m->cap)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(m->p + m->len, m->cap - m->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		m->len = m->len + (size_t)n < m->cap ? m->len + (size_t)n : m->cap - 1;
}

/* Remove the control-only edge parent -> child (made by a control
 * dependency that closes a cycle). */
static int drop_ctrl_edge(chakra_feeder *f, uint32_t child, uint32_t parent)
{
	fslot *p = fslot_at(f, parent);
	if (chakra__kid_remove(f, p, child | EDGE_CTRL)) {
		f->warnings++;
		f->cycle_drops++;
		fslot *c = fslot_at(f, child);
		if (--c->pending == 0) {
			c->state = ST_READY;
			uint64_t key = f->opts.order == CHAKRA_ORDER_FILE ? c->v.index : c->v.id;
			if (dqueue_push(&f->ready, key, child))
				return CHAKRA_ENOMEM;
		}
		return 1;
	}
	return 0; /* not found: cannot happen, the graph is built from the edges */
}

/* Sort keys: the report and the cycles found must not depend on slot
 * numbers (which depend on when nodes entered the graph), so blocked nodes
 * go in file order and each one's parents by id. */
typedef struct skey {
	uint64_t key;
	uint32_t slot;
	uint8_t kind;
} skey;

static int skey_cmp(const void *a, const void *b)
{
	const skey *x = (const skey *)a, *y = (const skey *)b;
	return x->key < y->key ? -1 : x->key > y->key;
}

int chakra__feeder_sort_slots(const chakra_feeder *f, uint32_t *slots, size_t n, int by_index)
{
	if (n < 2)
		return 0;
	skey *t = (skey *)chakra__malloc(n * sizeof *t);
	if (!t)
		return -1;
	for (size_t k = 0; k < n; k++) {
		const fslot *s = fslot_at(f, slots[k]);
		t[k].key = by_index ? s->v.index : s->v.id;
		t[k].slot = slots[k];
	}
	qsort(t, n, sizeof *t, skey_cmp);
	for (size_t k = 0; k < n; k++)
		slots[k] = t[k].slot;
	chakra__free(t);
	return 0;
}

/* What a stall diagnosis works on: the blocked nodes in file order and,
 * per blocked node, the parents it still waits for (CSR, by id), then
 * what the cycle search found. */
typedef struct stall {
	size_t nb;                 /* blocked nodes */
	uint32_t *blocked;         /* their slots, in file order */
	uint32_t *pos;             /* slot -> index in blocked */
	uint32_t *off, *par;       /* parents of blocked[b]: par[off[b] .. off[b+1]) */
	uint8_t *kind;             /* per parent edge: 1 = control-only */
	size_t n_par;
	uint8_t *color;            /* per slot, for the DFS: 1 on the stack, 2 done */
	uint32_t *stack, *it;      /* the DFS stack (blocked indices) and edge cursors */
	uint32_t *drops;           /* (child, parent) slot pairs of control edges to drop */
	size_t n_drops;
	int fatal;                 /* a cycle of data edges (or strict): stack[cyc_from..cyc_to) */
	size_t cyc_from, cyc_to;
	uint32_t cyc_p;            /* ... closed by the edge back to cyc_p */
} stall;

static void stall_free(stall *s)
{
	chakra__free(s->stack);
	chakra__free(s->it);
	chakra__free(s->drops);
	chakra__free(s->kind);
	chakra__free(s->blocked);
	chakra__free(s->off);
	chakra__free(s->par);
	chakra__free(s->color);
	chakra__free(s->pos);
}

/* The blocked nodes and the parents each waits for. 0, or -1 when out of
 * memory. */
static int stall_collect(chakra_feeder *f, stall *s)
{
	size_t held = (size_t)f->held, nslots = f->n_slots ? f->n_slots : 1;
	s->blocked = (uint32_t *)chakra__malloc(held * sizeof *s->blocked);
	s->off = (uint32_t *)chakra__malloc((held + 1) * sizeof *s->off);
	s->color = (uint8_t *)chakra__calloc(nslots, 1);
	s->pos = (uint32_t *)chakra__calloc(nslots, sizeof *s->pos);
	s->stack = (uint32_t *)chakra__malloc((held + 1) * sizeof *s->stack);
	s->it = (uint32_t *)chakra__malloc((held + 1) * sizeof *s->it);
	s->drops = (uint32_t *)chakra__malloc((held + 1) * 2 * sizeof *s->drops);
	if (!s->blocked || !s->off || !s->color || !s->pos || !s->stack || !s->it || !s->drops)
		return -1;
	for (uint32_t i = 0; i < f->n_slots; i++)
		if (fslot_at(f, i)->state == ST_BLOCKED)
			s->blocked[s->nb++] = i;
	if (chakra__feeder_sort_slots(f, s->blocked, s->nb, 1))
		return -1;
	for (size_t b = 0; b < s->nb; b++)
		s->pos[s->blocked[b]] = (uint32_t)b;
	/* Parents each blocked node waits for, in one flat array (CSR), from
	 * the live edge lists: exactly the edges still pending (deduplicated
	 * when added; dropped control edges are gone). kind = control-only. */
	memset(s->off, 0, (s->nb + 1) * sizeof *s->off);
	size_t cap_par = 1;
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t i = 0; i < f->n_slots; i++) {
			fslot *p = fslot_at(f, i);
			if (p->state == ST_FREE)
				continue;
			kid_it ki = KID_IT_INIT;
			uint32_t cv;
			while (chakra__kid_next(f, p, &ki, &cv)) {
				uint32_t c = cv & ~EDGE_CTRL;
				if (fslot_at(f, c)->state != ST_BLOCKED)
					continue;
				if (pass == 0) {
					s->off[s->pos[c] + 1]++;
					continue;
				}
				uint32_t k = s->it[s->pos[c]]++;
				s->par[k] = i;
				s->kind[k] = (cv & EDGE_CTRL) != 0;
			}
		}
		if (pass == 0) {
			for (size_t b = 0; b < s->nb; b++)
				s->off[b + 1] += s->off[b];
			s->n_par = s->off[s->nb];
			cap_par = s->n_par ? s->n_par : 1;
			s->par = (uint32_t *)chakra__malloc(cap_par * sizeof *s->par);
			s->kind = (uint8_t *)chakra__malloc(cap_par);
			if (!s->par || !s->kind)
				return -1;
			memcpy(s->it, s->off, s->nb * sizeof *s->it); /* fill cursors */
		}
	}
	/* Each node's parents by id (see skey). */
	skey *t = (skey *)chakra__malloc(cap_par * sizeof *t);
	if (!t)
		return -1;
	for (size_t k = 0; k < s->n_par; k++) {
		t[k].key = fslot_at(f, s->par[k])->v.id;
		t[k].slot = s->par[k];
		t[k].kind = s->kind[k];
	}
	for (size_t b = 0; b < s->nb; b++)
		if (s->off[b + 1] - s->off[b] > 1)
			qsort(t + s->off[b], s->off[b + 1] - s->off[b], sizeof *t, skey_cmp);
	for (size_t k = 0; k < s->n_par; k++) {
		s->par[k] = t[k].slot;
		s->kind[k] = t[k].kind;
	}
	chakra__free(t);
	return 0;
}

/* Cycles: iterative DFS over "waits for" edges between blocked nodes. A
 * cycle with a control-only edge is broken there (unless strict): the edge
 * goes to s->drops; a cycle of data edges is fatal and stops the search. */
static void stall_find_cycles(const chakra_feeder *f, stall *s)
{
	uint32_t *blocked = s->blocked, *off = s->off, *par = s->par, *stack = s->stack,
	         *it = s->it;
	uint8_t *color = s->color, *kind = s->kind;
	for (size_t r = 0; r < s->nb && !s->fatal; r++) {
		if (color[blocked[r]])
			continue;
		size_t sp = 0;
		stack[sp] = (uint32_t)r;
		it[sp++] = off[r];
		color[blocked[r]] = 1;
		while (sp && !s->fatal) {
			uint32_t b = stack[sp - 1];
			if (it[sp - 1] == off[b + 1]) {
				color[blocked[b]] = 2;
				sp--;
				continue;
			}
			uint32_t e = it[sp - 1]++;
			uint32_t p = par[e];
			if (fslot_at(f, p)->state != ST_BLOCKED)
				continue;
			if (color[p] == 0) {
				color[p] = 1;
				stack[sp] = s->pos[p];
				it[sp++] = off[s->pos[p]];
				continue;
			}
			if (color[p] != 1)
				continue;
			/* Back edge: the cycle is the stack from p to the top. */
			size_t from = sp;
			while (from > 0 && blocked[stack[from - 1]] != p)
				from--;
			from--;
			/* Its control-only edges: the back edge, else a tree edge
			 * (the edge stack[k] -> stack[k+1] is at it[k] - 1). */
			uint32_t dc = FT_NIL, dp = FT_NIL;
			if (kind[e]) {
				dc = blocked[b];
				dp = p;
			} else {
				for (size_t k = sp - 1; k-- > from;)
					if (kind[it[k] - 1]) {
						dc = blocked[stack[k]];
						dp = par[it[k] - 1];
						kind[it[k] - 1] = 0; /* drop it once */
						break;
					}
			}
			if (dc != FT_NIL && !f->opts.strict) {
				if (s->n_drops <= f->held) { /* more wait for the next round */
					s->drops[2 * s->n_drops] = dc;
					s->drops[2 * s->n_drops + 1] = dp;
					s->n_drops++;
				}
				kind[e] = 0;
				continue;
			}
			s->fatal = 1;
			s->cyc_from = from;
			s->cyc_to = sp;
			s->cyc_p = p;
		}
	}
}

/* Drop the control edges found: 1 when one was dropped (nodes may be
 * ready now), 0 when none, CHAKRA_ENOMEM. */
static int stall_drop(chakra_feeder *f, const stall *s)
{
	int dropped = 0;
	for (size_t k = 0; k < s->n_drops; k++) {
		int r = drop_ctrl_edge(f, s->drops[2 * k], s->drops[2 * k + 1]);
		if (r < 0)
			return r;
		dropped |= r;
	}
	return dropped;
}

/* Why the nodes cannot be issued: the cycle, parents that never appear,
 * a few blocked nodes with what they wait for. */
static void stall_report(const chakra_feeder *f, const stall *s, int final, msgbuf *m)
{
	size_t nb = s->nb, nodes_absent = 0, absent_refs = 0;
	const uint32_t *blocked = s->blocked, *off = s->off, *par = s->par;
	if (final)
		put(m, "%s: stall: %zu node%s cannot be issued (none ready, none in flight, file read "
		       "to the end)", f->name, nb, nb == 1 ? "" : "s");
	else
		put(m, "%s: stall: %zu node%s blocked (none ready, none in flight) by a dependency "
		       "cycle, which reading on cannot resolve", f->name, nb, nb == 1 ? "" : "s");
	if (s->fatal) {
		size_t len = s->cyc_to - s->cyc_from;
		put(m, "\ndependency cycle of %zu node%s (each waits for the next): ", len,
		    len == 1 ? "" : "s");
		/* Long cycles: the first 20 and the last 5 ids. */
		for (size_t k = s->cyc_from; k < s->cyc_to; k++) {
			if (len > 30 && k == s->cyc_from + 20) {
				put(m, "... -> ");
				k = s->cyc_to - 5;
			}
			put(m, "%llu -> ", (unsigned long long)fslot_at(f, blocked[s->stack[k]])->v.id);
		}
		put(m, "%llu", (unsigned long long)fslot_at(f, s->cyc_p)->v.id);
		if (f->opts.strict)
			put(m, " (strict: control edges in cycles are not dropped)");
	}

	/* Parents that never appear, per node (at most 8 nodes, 5 ids each). */
	for (size_t b = 0; b < nb; b++) {
		size_t cnt = 0;
		for (uint32_t k = off[b]; k < off[b + 1]; k++)
			cnt += fslot_at(f, par[k])->state == ST_ABSENT;
		if (!cnt)
			continue;
		absent_refs += cnt;
		if (nodes_absent++ >= 8)
			continue;
		const fslot *c = fslot_at(f, blocked[b]);
		put(m, "\nnode %llu (node index %llu, byte %llu) waits for ", (unsigned long long)c->v.id,
		    (unsigned long long)c->v.index, (unsigned long long)c->v.offset);
		if (cnt > 1)
			put(m, "%zu parents that never appear in the file:", cnt);
		else
			put(m, "parent");
		size_t shown = 0;
		for (uint32_t k = off[b]; k < off[b + 1] && shown < 5; k++) {
			const fslot *p = fslot_at(f, par[k]);
			if (p->state == ST_ABSENT)
				put(m, "%s %llu", shown++ ? "," : "", (unsigned long long)p->v.id);
		}
		if (cnt > 5)
			put(m, ", ...");
		if (cnt == 1)
			put(m, ", which never appears in the file");
	}
	if (nodes_absent > 8)
		put(m, "\n... and %zu more nodes waiting for absent parents (%zu references in all)",
		    nodes_absent - 8, absent_refs);

	/* A few blocked nodes with what they wait for. */
	put(m, "\nblocked:");
	for (size_t b = 0; b < nb && b < 8; b++) {
		const fslot *c = fslot_at(f, blocked[b]);
		put(m, "\n  node %llu waits for", (unsigned long long)c->v.id);
		for (uint32_t k = off[b]; k < off[b + 1] && k < off[b] + 6; k++) {
			const fslot *p = fslot_at(f, par[k]);
			put(m, " %llu (%s)", (unsigned long long)p->v.id,
			    p->state == ST_ABSENT ? "never appears" : "blocked");
		}
		if (off[b + 1] - off[b] > 6)
			put(m, " ...");
	}
	if (nb > 8)
		put(m, "\n  ... and %zu more", nb - 8);
}

/* 1: control edges in cycles were dropped (issue what is ready now); 0:
 * nothing to do yet (not final, no cycle: missing parents may come later);
 * else the error (CHAKRA_ECYCLE, CHAKRA_EDEP, CHAKRA_ENOMEM) with the
 * report in f->err. */
int chakra__feeder_resolve_stall(chakra_feeder *f, int final)
{
	stall s;
	memset(&s, 0, sizeof s);
	s.cyc_p = FT_NIL;
	msgbuf m = { f->err, sizeof f->err, 0 };
	int code;
	if (stall_collect(f, &s) < 0)
		goto nomem;
	stall_find_cycles(f, &s);
	if (!s.fatal && s.n_drops) {
		code = stall_drop(f, &s);
		if (code < 0)
			goto nomem;
		if (code) /* progress: the caller issues the nodes now ready */
			goto done;
	}
	if (!s.fatal && !final) {
		code = 0; /* no cycle: the missing parents may come later in the file */
		goto done;
	}
	stall_report(f, &s, final, &m);
	code = s.fatal ? CHAKRA_ECYCLE : CHAKRA_EDEP;
	goto done;
nomem:
	code = chakra__feeder_errf(f, CHAKRA_ENOMEM,
	                           "%s: stall: %llu nodes cannot be issued (out of memory while "
	                           "diagnosing)",
	                           f->name, (unsigned long long)f->held);
done:
	if (code < 0 && code != CHAKRA_ENOMEM) {
		/* The values name the first blocked node in file order. */
		const fslot *c = s.nb ? fslot_at(f, s.blocked[0]) : NULL;
		chakra__errinfo_set(&f->einfo, code,
		                    c ? CHAKRA_ERRINFO_OFFSET | CHAKRA_ERRINFO_INDEX | CHAKRA_ERRINFO_ID : 0,
		                    c ? c->v.offset : 0, c ? c->v.index : 0, c ? c->v.id : 0);
	}
	stall_free(&s);
	return code;
}
