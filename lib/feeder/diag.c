/* SPDX-License-Identifier: Apache-2.0 */
/* Stalls: nothing is ready, nothing is in flight and nodes are still held
 * after the whole file was read. Real traces (chakra.0.et) have control
 * edges that contradict data edges (a CPU op with a control dependency on
 * the kernel that data-depends on it), so with control deps gating, a
 * cycle that contains a control-only edge is broken there, with a
 * warning. Otherwise say why: parents that never appear in the file, or a
 * dependency cycle (printed). Runs only on stalls, so it favours clarity
 * over speed. */
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

int chakra__feeder_resolve_stall(chakra_feeder *f, int final)
{
	msgbuf m = { f->err, sizeof f->err, 0 };
	size_t nb = 0;
	uint32_t *blocked = NULL, *off = NULL, *par = NULL, *pos = NULL, *stack = NULL, *it = NULL;
	uint32_t *drops = NULL; /* (child, parent) slot pairs */
	uint8_t *color = NULL, *kind = NULL;
	size_t n_par = 0, cap_par = 0, n_drops = 0;
	int code = CHAKRA_EDEP;
	size_t cyc_from = 0, cyc_to = 0; /* stack range of the fatal cycle */
	uint32_t cyc_p = FT_NIL;
	int fatal = 0;
	size_t nodes_absent = 0, absent_refs = 0;

	blocked = (uint32_t *)chakra__malloc((size_t)f->held * sizeof *blocked);
	off = (uint32_t *)chakra__malloc(((size_t)f->held + 1) * sizeof *off);
	color = (uint8_t *)chakra__calloc(f->n_slots ? f->n_slots : 1, 1);
	pos = (uint32_t *)chakra__calloc(f->n_slots ? f->n_slots : 1, sizeof *pos); /* slot -> blocked index */
	stack = (uint32_t *)chakra__malloc(((size_t)f->held + 1) * sizeof *stack);
	it = (uint32_t *)chakra__malloc(((size_t)f->held + 1) * sizeof *it);
	drops = (uint32_t *)chakra__malloc(((size_t)f->held + 1) * 2 * sizeof *drops);
	if (!blocked || !off || !color || !pos || !stack || !it || !drops)
		goto nomem;
	for (uint32_t i = 0; i < f->n_slots; i++)
		if (fslot_at(f, i)->state == ST_BLOCKED)
			blocked[nb++] = i;
	if (chakra__feeder_sort_slots(f, blocked, nb, 1))
		goto nomem;
	for (size_t b = 0; b < nb; b++)
		pos[blocked[b]] = (uint32_t)b;
	/* Parents each blocked node waits for, in one flat array (CSR), from
	 * the live edge lists: exactly the edges still pending (deduplicated
	 * when added; dropped control edges are gone). kind = control-only. */
	memset(off, 0, ((size_t)nb + 1) * sizeof *off);
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
					off[pos[c] + 1]++;
					continue;
				}
				uint32_t k = it[pos[c]]++;
				par[k] = i;
				kind[k] = (cv & EDGE_CTRL) != 0;
			}
		}
		if (pass == 0) {
			for (size_t b = 0; b < nb; b++)
				off[b + 1] += off[b];
			n_par = off[nb];
			cap_par = n_par ? n_par : 1;
			par = (uint32_t *)chakra__malloc(cap_par * sizeof *par);
			kind = (uint8_t *)chakra__malloc(cap_par);
			if (!par || !kind)
				goto nomem;
			memcpy(it, off, (size_t)nb * sizeof *it); /* fill cursors */
		}
	}
	{
		/* Each node's parents by id (see skey). */
		skey *t = (skey *)chakra__malloc(cap_par * sizeof *t);
		if (!t)
			goto nomem;
		for (size_t k = 0; k < n_par; k++) {
			t[k].key = fslot_at(f, par[k])->v.id;
			t[k].slot = par[k];
			t[k].kind = kind[k];
		}
		for (size_t b = 0; b < nb; b++)
			if (off[b + 1] - off[b] > 1)
				qsort(t + off[b], off[b + 1] - off[b], sizeof *t, skey_cmp);
		for (size_t k = 0; k < n_par; k++) {
			par[k] = t[k].slot;
			kind[k] = t[k].kind;
		}
		chakra__free(t);
	}

	/* Cycles: iterative DFS over "waits for" edges between blocked nodes
	 * (color 1 = on the stack, 2 = done). A cycle with a control-only edge
	 * is broken there (unless strict); a cycle of data edges is fatal. */
	for (size_t r = 0; r < nb && !fatal; r++) {
		if (color[blocked[r]])
			continue;
		size_t sp = 0;
		stack[sp] = (uint32_t)r;
		it[sp++] = off[r];
		color[blocked[r]] = 1;
		while (sp && !fatal) {
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
				stack[sp] = pos[p];
				it[sp++] = off[pos[p]];
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
				if (n_drops <= f->held) { /* more wait for the next round */
					drops[2 * n_drops] = dc;
					drops[2 * n_drops + 1] = dp;
					n_drops++;
				}
				kind[e] = 0;
				continue;
			}
			fatal = 1;
			cyc_from = from;
			cyc_to = sp;
			cyc_p = p;
		}
		if (fatal)
			break;
	}
	if (!fatal && n_drops) {
		int dropped = 0;
		for (size_t k = 0; k < n_drops; k++) {
			int r = drop_ctrl_edge(f, drops[2 * k], drops[2 * k + 1]);
			if (r < 0)
				goto nomem;
			dropped |= r;
		}
		if (dropped) {
			code = 1; /* progress: the caller issues the nodes now ready */
			goto done;
		}
	}
	if (!fatal && !final) {
		code = 0; /* no cycle: the missing parents may come later in the file */
		goto done;
	}

	if (final)
		put(&m, "%s: stall: %zu node%s cannot be issued (none ready, none in flight, file read "
		        "to the end)", f->name, nb, nb == 1 ? "" : "s");
	else
		put(&m, "%s: stall: %zu node%s blocked (none ready, none in flight) by a dependency "
		        "cycle, which reading on cannot resolve", f->name, nb, nb == 1 ? "" : "s");
	if (fatal) {
		code = CHAKRA_ECYCLE;
		size_t len = cyc_to - cyc_from;
		put(&m, "\ndependency cycle of %zu node%s (each waits for the next): ", len,
		    len == 1 ? "" : "s");
		/* Long cycles: the first 20 and the last 5 ids. */
		for (size_t k = cyc_from; k < cyc_to; k++) {
			if (len > 30 && k == cyc_from + 20) {
				put(&m, "... -> ");
				k = cyc_to - 5;
			}
			put(&m, "%llu -> ", (unsigned long long)fslot_at(f, blocked[stack[k]])->v.id);
		}
		put(&m, "%llu", (unsigned long long)fslot_at(f, cyc_p)->v.id);
		if (f->opts.strict)
			put(&m, " (strict: control edges in cycles are not dropped)");
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
		fslot *c = fslot_at(f, blocked[b]);
		put(&m, "\nnode %llu (node index %llu, byte %llu) waits for ", (unsigned long long)c->v.id,
		    (unsigned long long)c->v.index, (unsigned long long)c->v.offset);
		if (cnt > 1)
			put(&m, "%zu parents that never appear in the file:", cnt);
		else
			put(&m, "parent");
		size_t shown = 0;
		for (uint32_t k = off[b]; k < off[b + 1] && shown < 5; k++) {
			fslot *p = fslot_at(f, par[k]);
			if (p->state == ST_ABSENT)
				put(&m, "%s %llu", shown++ ? "," : "", (unsigned long long)p->v.id);
		}
		if (cnt > 5)
			put(&m, ", ...");
		if (cnt == 1)
			put(&m, ", which never appears in the file");
	}
	if (nodes_absent > 8)
		put(&m, "\n... and %zu more nodes waiting for absent parents (%zu references in all)",
		    nodes_absent - 8, absent_refs);

	/* A few blocked nodes with what they wait for. */
	put(&m, "\nblocked:");
	for (size_t b = 0; b < nb && b < 8; b++) {
		fslot *c = fslot_at(f, blocked[b]);
		put(&m, "\n  node %llu waits for", (unsigned long long)c->v.id);
		for (uint32_t k = off[b]; k < off[b + 1] && k < off[b] + 6; k++) {
			fslot *p = fslot_at(f, par[k]);
			put(&m, " %llu (%s)", (unsigned long long)p->v.id,
			    p->state == ST_ABSENT ? "never appears" : "blocked");
		}
		if (off[b + 1] - off[b] > 6)
			put(&m, " ...");
	}
	if (nb > 8)
		put(&m, "\n  ... and %zu more", nb - 8);
	goto done;
nomem:
	code = chakra__feeder_errf(f, CHAKRA_ENOMEM,
	                           "%s: stall: %llu nodes cannot be issued (out of memory while "
	                           "diagnosing)",
	                           f->name, (unsigned long long)f->held);
done:
	if (code < 0 && code != CHAKRA_ENOMEM) {
		/* The values name the first blocked node in file order. */
		const fslot *c = nb ? fslot_at(f, blocked[0]) : NULL;
		chakra__errinfo_set(&f->einfo, code,
		                    c ? CHAKRA_ERRINFO_OFFSET | CHAKRA_ERRINFO_INDEX | CHAKRA_ERRINFO_ID : 0,
		                    c ? c->v.offset : 0, c ? c->v.index : 0, c ? c->v.id : 0);
	}
	chakra__free(stack);
	chakra__free(it);
	chakra__free(drops);
	chakra__free(kind);
	chakra__free(blocked);
	chakra__free(off);
	chakra__free(par);
	chakra__free(color);
	chakra__free(pos);
	return code;
}
