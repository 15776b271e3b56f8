/* SPDX-License-Identifier: Apache-2.0 */
/* A simulator's event log (include/chakra/experimental/astralog.h): lines
 * into issues and events per NPU, then lanes. */
#include "chakra/experimental/astralog.h"
#include "chakra/experimental/graph.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cbprintf.h"
#include "../modmem.h"
#include "../opts.h"

/* In an NPU's map, a node whose callback came: issued again is fine. */
#define CLOSED (CHAKRA_GRAPH_NONE - 1)

struct chakra_astralog {
	char *name;
	uint64_t npus;
	uint64_t skipped, first_skipped; /* prefixed lines that are not events */
	chakra_idmap **open; /* per NPU (made on first use): node_id -> issue index, or CLOSED */
	chakra_astralog_issue *iss;
	size_t n_iss, iss_cap;
	chakra_astralog_event *ev;
	size_t n_ev, ev_cap;
	char *pool;
	size_t pool_len, pool_cap;
	char *err; /* the last message (the hook's), or NULL */
};

static const chakra_astralog_options defaults = CHAKRA_ASTRALOG_OPTIONS_INIT;
static const size_t opt_sizes[] = { 0, sizeof(chakra_astralog_options) };

int chakra_astralog_options_init(chakra_astralog_options *opts, unsigned version)
{
	return chakra__opts_init(opts, version, &defaults, opt_sizes, 2);
}

/* chakra_write_cb appending to log->err. */
static int err_append(void *data, const void *buf, size_t len)
{
	chakra_astralog *t = data;
	size_t have = t->err ? strlen(t->err) : 0;
	char *n = chakra_realloc(t->err, have + len + 1);
	if (!n)
		return -1;
	memcpy(n + have, buf, len);
	n[have + len] = 0;
	t->err = n;
	return 0;
}

/* "NAME:LINE: what" into log->err; returns rc. */
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static int fail(chakra_astralog *t, int rc, uint64_t lineno, const char *fmt, ...)
{
	chakra_free(t->err);
	t->err = NULL;
	chakra__cbout o = { err_append, t, 0 };
	chakra__cbprintf(&o, "%s:%llu: ", t->name, (unsigned long long)lineno);
	va_list ap;
	va_start(ap, fmt);
	chakra__vcbprintf(&o, fmt, ap);
	va_end(ap);
	return rc;
}

const char *chakra_astralog_errmsg(const chakra_astralog *log)
{
	return !log ? "" : log->err ? log->err : "";
}

static int push(void **arr, size_t *n, size_t *cap, size_t elem)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 1024;
		void *na = chakra_realloc(*arr, nc * elem);
		if (!na)
			return -1;
		*arr = na;
		*cap = nc;
	}
	(*n)++;
	return 0;
}

static long long pool_add(chakra_astralog *t, const char *s, size_t len)
{
	if (t->pool_len + len + 1 > t->pool_cap) {
		size_t nc = t->pool_cap ? t->pool_cap : 4096;
		while (nc < t->pool_len + len + 1)
			nc *= 2;
		char *np = chakra_realloc(t->pool, nc);
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

/* At most 40 bytes of what is left of the line, for messages. */
static int show(size_t left)
{
	return (int)(left > 40 ? 40 : left);
}

#define LINE_ERR(...) fail(t, CHAKRA_ECORRUPT, lineno, __VA_ARGS__)
#define LINE_OOM() fail(t, CHAKRA_ENOMEM, lineno, "out of memory")

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

int chakra_astralog_line(chakra_astralog *t, const char *s, size_t len, uint64_t lineno)
{
	if (!t || (!s && len))
		return CHAKRA_EINVAL;
	while (len && (s[len - 1] == '\n' || s[len - 1] == '\r'))
		len--;
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
		s = ev;
	}
	const char *comma = memchr(s, ',', len);
	size_t kl = comma ? (size_t)(comma - s) : len;
	int is_issue;
	if (kl == 5 && !memcmp(s, "issue", 5))
		is_issue = 1;
	else if (kl == 8 && !memcmp(s, "callback", 8))
		is_issue = 0;
	else
		return LINE_ERR("expected a line starting with 'issue,' or 'callback,', got '%.*s'",
		                show(len), s);
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
			return LINE_ERR("field '%.*s' is not key=value", show(len - p), f);
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
			                show(fkl), f);
		if (have[which])
			return LINE_ERR("field '%.*s' given twice", (int)fkl, f);
		uint64_t *dst = which == 0 ? &npu : which == 1 ? &cycle : which == 2 ? &node : &ntype;
		if (parse_dec(eq + 1, vl, dst) < 0)
			return LINE_ERR("%.*s: expected a non-negative integer, got '%.*s'", (int)fkl, f,
			                show(vl), eq + 1);
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
		return LINE_OOM();
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
		if (off < 0 || push((void **)&t->iss, &t->n_iss, &t->iss_cap, sizeof *t->iss) < 0)
			return LINE_OOM();
		if (chakra_idmap_set(m, node, (uint32_t)(t->n_iss - 1)) < 0) {
			t->n_iss--; /* not in the map: not an issue */
			return LINE_OOM();
		}
		t->iss[t->n_iss - 1] = (chakra_astralog_issue){ cycle, lineno, node, (size_t)off,
		                                                name_len, (uint32_t)npu, 1 };
		return 0;
	}
	if (slot == CHAKRA_GRAPH_NONE || slot == CLOSED)
		return LINE_ERR("callback of node %llu on npu %llu without an open issue",
		                (unsigned long long)node, (unsigned long long)npu);
	chakra_astralog_issue *is = &t->iss[slot];
	if (cycle < is->cycle)
		return LINE_ERR("callback of node %llu on npu %llu at cycle %llu is before its issue at "
		                "cycle %llu (line %llu)",
		                (unsigned long long)node, (unsigned long long)npu,
		                (unsigned long long)cycle, (unsigned long long)is->cycle,
		                (unsigned long long)is->line);
	if (push((void **)&t->ev, &t->n_ev, &t->ev_cap, sizeof *t->ev) < 0)
		return LINE_OOM();
	if (chakra_idmap_set(m, node, CLOSED) < 0) {
		t->n_ev--;
		return LINE_OOM();
	}
	is->open = 0;
	t->ev[t->n_ev - 1] = (chakra_astralog_event){ is->cycle, cycle, node, is->line,
	                                              is->name_off, is->name_len, (uint32_t)npu, 0 };
	return 0;
}

static int ev_cmp(const void *a, const void *b)
{
	const chakra_astralog_event *x = a, *y = b;
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
		uint64_t *k = chakra_realloc(h->key, cap * sizeof *k);
		if (!k)
			return -1;
		h->key = k;
		uint32_t *l = chakra_realloc(h->lane, cap * sizeof *l);
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
int chakra_astralog_lanes(chakra_astralog *t, uint32_t *max_lanes)
{
	if (!t || !max_lanes)
		return CHAKRA_EINVAL;
	lheap busy = { 0 }, idle = { 0 };
	uint32_t nl = 0;
	int rc = 0;
	*max_lanes = 0;
	if (t->n_ev)
		qsort(t->ev, t->n_ev, sizeof *t->ev, ev_cmp);
	for (size_t i = 0; i < t->n_ev && rc == 0; i++) {
		chakra_astralog_event *e = &t->ev[i];
		if (i == 0 || e->npu != t->ev[i - 1].npu)
			busy.n = idle.n = nl = 0;
		while (busy.n && busy.key[0] <= e->start && rc == 0) {
			uint32_t l = lh_pop(&busy);
			if (lh_push(&idle, l, l) < 0)
				rc = CHAKRA_ENOMEM;
		}
		if (rc)
			break;
		uint32_t l = idle.n ? lh_pop(&idle) : nl++;
		if (lh_push(&busy, e->end, l) < 0)
			rc = CHAKRA_ENOMEM;
		e->lane = l;
		if (l + 1 > *max_lanes)
			*max_lanes = l + 1;
	}
	chakra_free(busy.key);
	chakra_free(busy.lane);
	chakra_free(idle.key);
	chakra_free(idle.lane);
	return rc;
}

int chakra_astralog_new(const chakra_astralog_options *opts, chakra_astralog **out)
{
	if (!out)
		return CHAKRA_EINVAL;
	*out = NULL;
	chakra_astralog_options o;
	if (chakra__opts_copy(&o, sizeof o, opts, &defaults, opt_sizes, 2) < 0 || o.npus == 0 ||
	    o.npus > (1u << 24))
		return CHAKRA_EINVAL;
	chakra_astralog *t = chakra_calloc(1, sizeof *t);
	if (!t)
		return CHAKRA_ENOMEM;
	t->npus = o.npus;
	t->name = chakra__mstrdup(o.name ? o.name : "<log>");
	t->open = chakra_calloc(o.npus, sizeof *t->open);
	if (!t->name || !t->open) {
		chakra_astralog_free(t);
		return CHAKRA_ENOMEM;
	}
	*out = t;
	return 0;
}

void chakra_astralog_free(chakra_astralog *t)
{
	if (!t)
		return;
	if (t->open)
		for (uint64_t k = 0; k < t->npus; k++)
			chakra_idmap_free(t->open[k]);
	chakra_free(t->open);
	chakra_free(t->iss);
	chakra_free(t->ev);
	chakra_free(t->pool);
	chakra_free(t->name);
	chakra_free(t->err);
	chakra_free(t);
}

const chakra_astralog_event *chakra_astralog_events(const chakra_astralog *t, size_t *n)
{
	if (n)
		*n = t ? t->n_ev : 0;
	return t ? t->ev : NULL;
}

const chakra_astralog_issue *chakra_astralog_issues(const chakra_astralog *t, size_t *n)
{
	if (n)
		*n = t ? t->n_iss : 0;
	return t ? t->iss : NULL;
}

const char *chakra_astralog_names(const chakra_astralog *t, size_t *len)
{
	if (len)
		*len = t ? t->pool_len : 0;
	return t && t->pool ? t->pool : "";
}

uint64_t chakra_astralog_skipped(const chakra_astralog *t, uint64_t *first_line)
{
	if (first_line)
		*first_line = t ? t->first_skipped : 0;
	return t ? t->skipped : 0;
}
