/* SPDX-License-Identifier: Apache-2.0 */
/* The timeline's event log (tlog.h). */
#include "tlog.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common.h"

#define CLOSED (CHAKRA_GRAPH_NONE - 1)

static int push(void **arr, size_t *n, size_t *cap, size_t elem)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 1024;
		void *na = realloc(*arr, nc * elem);
		if (!na)
			return -1;
		*arr = na;
		*cap = nc;
	}
	(*n)++;
	return 0;
}

static long long pool_add(tlog *t, const char *s, size_t len)
{
	if (t->pool_len + len + 1 > t->pool_cap) {
		size_t nc = t->pool_cap ? t->pool_cap : 4096;
		while (nc < t->pool_len + len + 1)
			nc *= 2;
		char *np = realloc(t->pool, nc);
		if (!np)
			return -1;
		t->pool = np;
		t->pool_cap = nc;
	}
	memcpy(t->pool + t->pool_len, s, len);
	t->pool[t->pool_len + len] = 0;
	size_t off = t->pool_len;
	t->pool_len += len + 1;
	return (long long)off;
}

/* Strict decimal: digits only, no sign, no overflow. */
static int parse_dec(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;
	if (!len)
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		unsigned d = (unsigned)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

#define LINE_ERR(...) (fprintf(stderr, "chakra: %s:%llu: ", t->file, (unsigned long long)lineno), \
                       fprintf(stderr, __VA_ARGS__), fputc('\n', stderr), -1)

/* Where the event starts in a line with a logger prefix ("[time] [level]
 * <name>: issue,..."): "issue," or "callback," after a space, ':', ']' or
 * '>'; NULL when the line holds no event. */
static const char *after_prefix(const char *s, size_t len)
{
	for (size_t i = 1; i < len; i++) {
		char c = s[i - 1];
		if (c != ' ' && c != ':' && c != ']' && c != '>' && c != '\t')
			continue;
		if ((len - i >= 6 && !memcmp(s + i, "issue,", 6)) ||
		    (len - i >= 9 && !memcmp(s + i, "callback,", 9)))
			return s + i;
	}
	return NULL;
}

/* Field names: ours, Chakra's timeline tool's (curr_cycle) and ASTRA-sim's. */
static int field_of(const char *f, size_t n)
{
#define IS(lit) (n == sizeof lit - 1 && !memcmp(f, lit, n))
	if (IS("npu_id") || IS("sys->id"))
		return 0;
	if (IS("cycle") || IS("tick") || IS("curr_cycle"))
		return 1;
	if (IS("node_id") || IS("node->id"))
		return 2;
	if (IS("node_name") || IS("node->name"))
		return 3;
	if (IS("node_type") || IS("node->type"))
		return 4;
#undef IS
	return -1;
}

int tlog_line(tlog *t, char *s, size_t len, uint64_t lineno)
{
	while (len && (s[len - 1] == '\n' || s[len - 1] == '\r'))
		s[--len] = 0;
	size_t k = 0;
	while (k < len && isspace((unsigned char)s[k]))
		k++;
	if (k == len)
		return 0; /* blank line */
	if (s[k] == '[') {
		/* ASTRA-sim's logger prefix: the event follows it, or the line
		 * is another message */
		const char *ev = after_prefix(s + k, len - k);
		if (!ev) {
			if (!t->skipped++)
				t->first_skipped = lineno;
			return 0;
		}
		len -= (size_t)(ev - s);
		s = (char *)ev;
	}
	const char *comma = memchr(s, ',', len);
	size_t kl = comma ? (size_t)(comma - s) : len;
	int is_issue;
	if (kl == 5 && !memcmp(s, "issue", 5))
		is_issue = 1;
	else if (kl == 8 && !memcmp(s, "callback", 8))
		is_issue = 0;
	else
		return LINE_ERR("expected a line starting with 'issue,' or 'callback,', got '%.40s'", s);
	uint64_t npu = 0, cycle = 0, node = 0, ntype = 0;
	const char *name = NULL;
	size_t name_len = 0;
	int have[5] = { 0, 0, 0, 0, 0 };
	size_t p = kl;
	while (p < len) {
		p++; /* the comma */
		while (p < len && s[p] == ' ')
			p++; /* ASTRA-sim writes ", tick=" */
		const char *f = s + p;
		const char *eq = memchr(f, '=', len - p);
		if (!eq)
			return LINE_ERR("field '%.40s' is not key=value", f);
		size_t fkl = (size_t)(eq - f);
		int which = field_of(f, fkl);
		if (which == 3) {
			/* The name is the rest of the line, but for ASTRA-sim's
			 * trailing ", node->type=T". */
			name = eq + 1;
			name_len = len - (size_t)(name - s);
			for (size_t q = name_len; q-- > 0;) {
				static const char tail[] = ", node->type=";
				if (name[q] != ',' || name_len - q < sizeof tail - 1 ||
				    memcmp(name + q, tail, sizeof tail - 1))
					continue;
				const char *tv = name + q + sizeof tail - 1;
				if (parse_dec(tv, name_len - q - (sizeof tail - 1), &ntype) == 0) {
					have[4] = 1;
					name_len = q;
				}
				break;
			}
			p = len;
			break;
		}
		const char *vend = memchr(eq + 1, ',', len - (size_t)(eq + 1 - s));
		size_t vl = vend ? (size_t)(vend - (eq + 1)) : len - (size_t)(eq + 1 - s);
		if (which < 0)
			return LINE_ERR("unknown field '%.*s' (expected npu_id, cycle, node_id, node_name, or "
			                "ASTRA-sim's sys->id, tick, node->id, node->name)",
			                (int)(fkl > 40 ? 40 : fkl), f);
		if (have[which])
			return LINE_ERR("field '%.*s' given twice", (int)fkl, f);
		uint64_t *dst = which == 0 ? &npu : which == 1 ? &cycle : which == 2 ? &node : &ntype;
		if (parse_dec(eq + 1, vl, dst) < 0)
			return LINE_ERR("%.*s: expected a non-negative integer, got '%.*s'", (int)fkl, f,
			                (int)(vl > 40 ? 40 : vl), eq + 1);
		have[which] = 1;
		p = (size_t)(eq + 1 - s) + vl;
	}
	if (!have[0] || !have[1] || !have[2] || !name)
		return LINE_ERR("missing field(s):%s%s%s%s (format: %s,npu_id=N,cycle=C,node_id=I,"
		                "node_name=S)",
		                have[0] ? "" : " npu_id", have[1] ? "" : " cycle",
		                have[2] ? "" : " node_id", name ? "" : " node_name",
		                is_issue ? "issue" : "callback");
	if (npu >= t->npus)
		return LINE_ERR("npu_id %llu is out of range: --npus is %llu", (unsigned long long)npu,
		                (unsigned long long)t->npus);
	if (!t->open[npu] && !(t->open[npu] = chakra_idmap_new(16)))
		return LINE_ERR("out of memory");
	chakra_idmap *m = t->open[npu];
	uint32_t slot = chakra_idmap_get(m, node);
	if (is_issue) {
		if (slot != CHAKRA_GRAPH_NONE && slot != CLOSED)
			return LINE_ERR("node %llu issued again on npu %llu before its callback (issued "
			                "on line %llu)",
			                (unsigned long long)node, (unsigned long long)npu,
			                (unsigned long long)t->iss[slot].line);
		if (t->n_iss >= CLOSED)
			return LINE_ERR("too many issues");
		long long off = pool_add(t, name, name_len);
		if (off < 0 || push((void **)&t->iss, &t->n_iss, &t->iss_cap, sizeof *t->iss) < 0 ||
		    chakra_idmap_set(m, node, (uint32_t)(t->n_iss - 1)) < 0)
			return LINE_ERR("out of memory");
		t->iss[t->n_iss - 1] = (tl_issue){ cycle, lineno, node, (size_t)off, name_len,
		                                (uint32_t)npu, 1 };
		return 0;
	}
	if (slot == CHAKRA_GRAPH_NONE || slot == CLOSED)
		return LINE_ERR("callback of node %llu on npu %llu without an open issue",
		                (unsigned long long)node, (unsigned long long)npu);
	tl_issue *is = &t->iss[slot];
	if (cycle < is->cycle)
		return LINE_ERR("callback of node %llu on npu %llu at cycle %llu is before its issue at "
		                "cycle %llu (line %llu)",
		                (unsigned long long)node, (unsigned long long)npu,
		                (unsigned long long)cycle, (unsigned long long)is->cycle,
		                (unsigned long long)is->line);
	if (push((void **)&t->ev, &t->n_ev, &t->ev_cap, sizeof *t->ev) < 0 ||
	    chakra_idmap_set(m, node, CLOSED) < 0)
		return LINE_ERR("out of memory");
	is->open = 0;
	t->ev[t->n_ev - 1] = (tl_event){ is->cycle, cycle, node, is->line, is->name_off, is->name_len,
	                              (uint32_t)npu, 0 };
	return 0;
}

static int ev_cmp(const void *a, const void *b)
{
	const tl_event *x = a, *y = b;
	if (x->npu != y->npu)
		return x->npu < y->npu ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1; /* longer first */
	return x->line < y->line ? -1 : x->line > y->line;
}

/* Binary min-heap of (key, lane) pairs. */
typedef struct lheap {
	uint64_t *key;
	uint32_t *lane;
	size_t n, cap;
} lheap;

static int lh_push(lheap *h, uint64_t key, uint32_t lane)
{
	if (h->n == h->cap) {
		size_t cap = h->cap ? h->cap * 2 : 16;
		uint64_t *k = realloc(h->key, cap * sizeof *k);
		if (!k)
			return -1;
		h->key = k;
		uint32_t *l = realloc(h->lane, cap * sizeof *l);
		if (!l)
			return -1;
		h->lane = l;
		h->cap = cap;
	}
	size_t i = h->n++;
	while (i && h->key[(i - 1) / 2] > key) {
		h->key[i] = h->key[(i - 1) / 2];
		h->lane[i] = h->lane[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->key[i] = key;
	h->lane[i] = lane;
	return 0;
}

static uint32_t lh_pop(lheap *h)
{
	uint32_t top = h->lane[0];
	uint64_t key = h->key[--h->n];
	uint32_t lane = h->lane[h->n];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && h->key[c + 1] < h->key[c])
			c++;
		if (h->key[c] >= key)
			break;
		h->key[i] = h->key[c];
		h->lane[i] = h->lane[c];
		i = c;
	}
	h->key[i] = key;
	h->lane[i] = lane;
	return top;
}

/* Each event (sorted by NPU, then start) takes the lowest lane whose last
 * event has ended: lanes in use wait in a heap by end time, lanes free
 * again in a heap by number. Starts only grow, so a lane freed for one
 * event stays free for the next: O(n log n) in all. */
int tlog_lanes(tlog *t, uint32_t *max_lanes)
{
	lheap busy = { 0 }, idle = { 0 };
	uint32_t nl = 0;
	int rc = 0;
	*max_lanes = 0;
	if (t->n_ev)
		qsort(t->ev, t->n_ev, sizeof *t->ev, ev_cmp);
	for (size_t i = 0; i < t->n_ev && rc == 0; i++) {
		tl_event *e = &t->ev[i];
		if (i == 0 || e->npu != t->ev[i - 1].npu)
			busy.n = idle.n = nl = 0;
		while (busy.n && busy.key[0] <= e->start) {
			uint32_t l = lh_pop(&busy);
			if (lh_push(&idle, l, l) < 0)
				rc = -1;
		}
		uint32_t l = idle.n ? lh_pop(&idle) : nl++;
		if (lh_push(&busy, e->end, l) < 0)
			rc = -1;
		e->lane = l;
		if (l + 1 > *max_lanes)
			*max_lanes = l + 1;
	}
	free(busy.key);
	free(busy.lane);
	free(idle.key);
	free(idle.lane);
	return rc;
}


int tlog_init(tlog *t, const char *file, uint64_t npus)
{
	memset(t, 0, sizeof *t);
	t->file = file;
	t->npus = npus;
	t->open = calloc(npus ? npus : 1, sizeof *t->open);
	if (!t->open) {
		tool_err("out of memory");
		return -1;
	}
	return 0;
}

void tlog_free(tlog *t)
{
	if (t->open)
		for (uint64_t k = 0; k < t->npus; k++)
			chakra_idmap_free(t->open[k]);
	free(t->open);
	free(t->iss);
	free(t->ev);
	free(t->pool);
	memset(t, 0, sizeof *t);
}
