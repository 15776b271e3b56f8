/* SPDX-License-Identifier: Apache-2.0 */
/* Communicator-group files: the one reader (a format of the driver,
 * jdrive.h, with the line of each key for the messages) and the one
 * writer. */
#include "groups.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chakra/error.h"
#include "jdrive.h"
#include "jstr.h"
#include "../modmem.h"

/* Deepest nesting accepted (the format needs 2). */
#define GROUPS_DEPTH 64

typedef struct gentry {
	int is_list, is_object; /* a nested value makes the entry an object */
	size_t n;               /* items seen */
	size_t bad;             /* first item that is not a rank, or SIZE_MAX */
	size_t cap;
} gentry;

typedef struct gparse {
	chakra__json_ctx j;     /* first: the driver's */
	const char *text;
	size_t len;
	uint32_t npus;
	int depth;              /* 1 = the top-level object */
	int list_depth;
	chakra__groups *gs;
	gentry *e;              /* beside gs->g */
	size_t cap;
	int bad_top;
	unsigned long bad_line;
	int oom, too_deep;      /* why a callback stopped the parse */
	int rc;                 /* the parse's error code */
	size_t errlen;
	size_t line_off;        /* line number of the text up to line_off */
	unsigned long line_no;
} gparse;

static int fail(char *err, size_t errlen, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int fail(char *err, size_t errlen, int rc, const char *fmt, ...)
{
	if (err && errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return rc;
}

void chakra__groups_free(chakra__groups *gs)
{
	if (!gs)
		return;
	for (size_t i = 0; i < gs->n; i++) {
		chakra_free(gs->g[i].name);
		chakra_free(gs->g[i].ranks);
	}
	chakra_free(gs->g);
	gs->g = NULL;
	gs->n = 0;
}

/* Line of the parser's position (counted on from the last call: keys come
 * in order, so the whole text is scanned once). */
static unsigned long gline(gparse *p)
{
	size_t off = (size_t)chakra__json_offset(&p->j);
	if (off < p->line_off) {
		p->line_off = 0;
		p->line_no = 1;
	}
	for (size_t i = p->line_off; i < off && p->text[i]; i++)
		p->line_no += p->text[i] == '\n';
	p->line_off = off;
	return p->line_no;
}

/* One scalar: a rank (rank >= 0) or not (rank < 0). */
static int gitem(gparse *p, double rank)
{
	if (!p->gs->n || p->depth != 1)
		return 1; /* before any key, or inside a nested object */
	gentry *e = &p->e[p->gs->n - 1];
	if (p->list_depth > 1) {
		e->is_object = 1; /* a nested list: a nested value */
		return 1;
	}
	chakra__group *g = &p->gs->g[p->gs->n - 1];
	size_t x = e->n++;
	if (e->bad != SIZE_MAX)
		return 1;
	if (!(rank >= 0 && rank < p->npus)) {
		e->bad = x;
		return 1;
	}
	if (!chakra__mgrow((void **)&g->ranks, &e->cap, g->n + 1, sizeof *g->ranks)) {
		p->oom = 1;
		return 0;
	}
	g->ranks[g->n++] = (uint32_t)rank;
	return 1;
}

static int g_null(void *ctx)
{
	return gitem(ctx, -1);
}

static int g_bool(void *ctx, int b)
{
	(void)b;
	return gitem(ctx, -1);
}

static int g_number(void *ctx, const char *s, size_t len)
{
	char buf[64];
	if (len >= sizeof buf)
		len = sizeof buf - 1;
	memcpy(buf, s, len);
	buf[len] = 0;
	double v = strtod(buf, NULL);
	return gitem(ctx, strpbrk(buf, ".eE") ? -1 : v);
}

static int g_string(void *ctx, const char *s, size_t len)
{
	(void)s;
	(void)len;
	return gitem(ctx, -1);
}

static int g_start_map(void *ctx)
{
	gparse *p = ctx;
	if (p->depth == 0 && p->gs->n == 0 && !p->bad_top) {
		p->depth = 1;
		return 1;
	}
	if (p->depth == 1 && p->gs->n)
		p->e[p->gs->n - 1].is_object = 1;
	if (p->depth + p->list_depth >= GROUPS_DEPTH) {
		p->too_deep = 1;
		return 0;
	}
	p->depth++;
	return 1;
}

static int g_map_key(void *ctx, const char *s, size_t len)
{
	gparse *p = ctx;
	if (p->depth != 1)
		return 1;
	chakra__groups *gs = p->gs;
	if (gs->n == p->cap) {
		size_t c = p->cap;
		if (!chakra__mgrow((void **)&gs->g, &c, gs->n + 1, sizeof *gs->g) ||
		    !chakra__mgrow((void **)&p->e, &p->cap, gs->n + 1, sizeof *p->e)) {
			p->oom = 1;
			return 0;
		}
	}
	chakra__group *g = &gs->g[gs->n];
	gentry *e = &p->e[gs->n];
	memset(g, 0, sizeof *g);
	memset(e, 0, sizeof *e);
	e->bad = SIZE_MAX;
	size_t n = strnlen(s, len); /* an escaped NUL ends the name */
	g->name = chakra_malloc(n + 1);
	if (!g->name) {
		p->oom = 1;
		return 0;
	}
	memcpy(g->name, s, n);
	g->name[n] = 0;
	g->line = gline(p);
	gs->n++;
	return 1;
}

static int g_end_map(void *ctx)
{
	((gparse *)ctx)->depth--;
	return 1;
}

static int g_start_array(void *ctx)
{
	gparse *p = ctx;
	if (p->depth == 0) {
		p->bad_top = 1;
		p->bad_line = gline(p);
		return 0;
	}
	if (p->depth == 1 && p->list_depth == 0 && p->gs->n)
		p->e[p->gs->n - 1].is_list = 1;
	if (p->depth + p->list_depth >= GROUPS_DEPTH) {
		p->too_deep = 1;
		return 0;
	}
	p->list_depth++;
	return 1;
}

static int g_end_array(void *ctx)
{
	((gparse *)ctx)->list_depth--;
	return 1;
}

static int g_scalar(void *ctx, char kind, const char *s, size_t len)
{
	switch (kind) {
	case 'z': return g_null(ctx);
	case 'b': return g_bool(ctx, len == 4);
	case 'n': return g_number(ctx, s, len);
	default: return g_string(ctx, s, len);
	}
}

static int g_open(void *ctx, int is_map)
{
	return is_map ? g_start_map(ctx) : g_start_array(ctx);
}

static int g_close(void *ctx, int is_map)
{
	return is_map ? g_end_map(ctx) : g_end_array(ctx);
}

static const chakra__json_fmt gfmt = { g_scalar, g_map_key, g_open, g_close };

/* The driver's failures: a handler stops only for the reasons it records. */
static void g_fail(chakra__json_ctx *c, int what, int code, const char *msg)
{
	gparse *p = (gparse *)c;
	char *err = c->err;
	size_t errlen = p->errlen;
	const char *path = c->name;
	(void)code;
	(void)msg;
	if (what == CHAKRA__JSON_STOPPED && p->oom) {
		p->rc = fail(err, errlen, CHAKRA_ENOMEM, "%s: out of memory", path);
	} else if (what == CHAKRA__JSON_STOPPED && p->too_deep) {
		p->rc = fail(err, errlen, CHAKRA_ECONFIG, "%s:%lu: nested deeper than %d levels", path,
		             gline(p), GROUPS_DEPTH);
	} else if (what == CHAKRA__JSON_STOPPED) {
		p->rc = fail(err, errlen, CHAKRA_ECONFIG,
		             "%s:%lu: expected a JSON object at the top level", path, p->bad_line);
	} else if (what == CHAKRA__JSON_SYNTAX || what == CHAKRA__JSON_TRUNC) {
		char m[256];
		int got = chakra__json_yajl_error(c, m, sizeof m);
		if (got < 0)
			goto nomem;
		/* the whole text is one chunk: YAJL's count is the offset */
		size_t off = yajl_get_bytes_consumed(c->h);
		unsigned long line = 1;
		for (size_t i = 0; i < off && i < p->len; i++)
			line += p->text[i] == '\n';
		p->rc = fail(err, errlen, CHAKRA_ECONFIG, "%s:%lu: JSON syntax error: %s", path, line,
		             got ? m : "invalid");
	} else {
nomem:
		p->rc = fail(err, errlen, CHAKRA_ENOMEM, "%s: out of memory", path);
	}
}

typedef struct keyref {
	const char *key;
	size_t i;
} keyref;

static int cmp_key(const void *a, const void *b)
{
	const keyref *x = a, *y = b;
	int c = strcmp(x->key, y->key);
	return c ? c : x->i < y->i ? -1 : x->i > y->i;
}

static int cmp_rank(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* What the parse found, checked in file order: a name defined twice (by
 * sorting the names: comparing each with every earlier one took 69 s on
 * 200,000 groups), then each group's shape, members and repeats. */
static int check(const chakra__groups *gs, const gentry *e, const char *path, uint32_t npus,
                 char *err, size_t errlen)
{
	size_t n = gs->n, most = 0;
	keyref *byname = chakra_malloc((n ? n : 1) * sizeof *byname);
	if (!byname)
		return fail(err, errlen, CHAKRA_ENOMEM, "%s: out of memory", path);
	for (size_t i = 0; i < n; i++) {
		byname[i].key = gs->g[i].name;
		byname[i].i = i;
		if (gs->g[i].n > most)
			most = gs->g[i].n;
	}
	qsort(byname, n, sizeof *byname, cmp_key);
	size_t dup = SIZE_MAX;
	for (size_t i = 1; i < n; i++)
		if (!strcmp(byname[i - 1].key, byname[i].key) && byname[i].i < dup)
			dup = byname[i].i; /* the first repeat in file order */
	chakra_free(byname);
	if (dup != SIZE_MAX)
		return fail(err, errlen, CHAKRA_ECONFIG, "%s:%lu: group '%s' is defined twice", path,
		            gs->g[dup].line, gs->g[dup].name);
	uint32_t *sorted = chakra_malloc((most ? most : 1) * sizeof *sorted);
	if (!sorted)
		return fail(err, errlen, CHAKRA_ENOMEM, "%s: out of memory", path);
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		const chakra__group *g = &gs->g[i];
		if (!e[i].is_list || e[i].is_object || e[i].n < 1)
			rc = fail(err, errlen, CHAKRA_ECONFIG,
			          "%s:%lu: group '%s': expected a non-empty list of ranks", path, g->line,
			          g->name);
		else if (e[i].bad != SIZE_MAX)
			rc = fail(err, errlen, CHAKRA_ECONFIG,
			          "%s:%lu: group '%s': entry %zu is not a rank in 0..%u", path, g->line,
			          g->name, e[i].bad, npus - 1);
		if (rc)
			break;
		memcpy(sorted, g->ranks, g->n * sizeof *sorted);
		qsort(sorted, g->n, sizeof *sorted, cmp_rank);
		for (size_t x = 1; x < g->n && rc == 0; x++)
			if (sorted[x] == sorted[x - 1])
				rc = fail(err, errlen, CHAKRA_ECONFIG,
				          "%s:%lu: group '%s': rank %u is listed twice", path, g->line, g->name,
				          sorted[x]);
	}
	chakra_free(sorted);
	return rc;
}

int chakra__groups_parse(chakra__groups *gs, const char *path, const char *text, size_t len,
                         uint32_t npus, char *err, size_t errlen)
{
	memset(gs, 0, sizeof *gs);
	/* the parse state lives on the heap: a failed allocation inside YAJL
	 * jumps back into the driver, and what it changed must still be
	 * readable */
	gparse *p = chakra_calloc(1, sizeof *p);
	if (!p)
		return fail(err, errlen, CHAKRA_ENOMEM, "%s: out of memory", path);
	p->text = text;
	p->len = len;
	p->npus = npus;
	p->gs = gs;
	p->line_no = 1;
	p->errlen = errlen;
	p->j.err = err;
	chakra__json_src src = { .name = path, .buf = text, .len = len, .whole = 1 };
	int rc = 0;
	if (chakra__json_run(&src, &gfmt, g_fail, &p->j) < 0)
		rc = p->rc;
	else if (p->depth != 0 || (gs->n == 0 && len && !memchr(text, '{', len)))
		rc = fail(err, errlen, CHAKRA_ECONFIG, "%s:1: expected a JSON object", path);
	if (rc == 0)
		rc = check(gs, p->e, path, npus, err, errlen);
	chakra_free(p->e);
	chakra_free(p);
	if (rc)
		chakra__groups_free(gs);
	return rc;
}

/* ---- the writer ---- */

static int put(chakra__groups_out *o, const char *s, size_t n)
{
	if (o->rc == 0 && n)
		o->rc = o->cb(o->data, s, n);
	return o->rc;
}

int chakra__groups_out_begin(chakra__groups_out *o, chakra_write_cb cb, void *data)
{
	memset(o, 0, sizeof *o);
	o->cb = cb;
	o->data = data;
	return put(o, "{", 1);
}

static int put_v(void *o, const char *s, size_t n)
{
	return put(o, s, n);
}

/* The name as a JSON string (jstr.h). */
int chakra__groups_out_group(chakra__groups_out *o, const char *name, size_t len)
{
	if (o->ngroups)
		put(o, "],\n  ", 5);
	else
		put(o, "\n  ", 3);
	o->ngroups++;
	o->nranks = 0;
	chakra__json_str(name, len, 0, put_v, o);
	return put(o, ": [", 3);
}

int chakra__groups_out_rank(chakra__groups_out *o, uint64_t rank)
{
	char b[32];
	int m = snprintf(b, sizeof b, "%s%llu", o->nranks ? ", " : "", (unsigned long long)rank);
	o->nranks++;
	return put(o, b, (size_t)m);
}

int chakra__groups_out_list(chakra__groups_out *o, const char *name, const uint32_t *ranks,
                            size_t n)
{
	chakra__groups_out_group(o, name, strlen(name));
	for (size_t i = 0; i < n; i++)
		chakra__groups_out_rank(o, ranks[i]);
	return o->rc;
}

int chakra__groups_out_end(chakra__groups_out *o)
{
	if (o->ngroups)
		put(o, "]", 1);
	return put(o, "\n}\n", 3);
}
