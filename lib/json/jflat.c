/* SPDX-License-Identifier: Apache-2.0 */
/* The flat JSON reader (jflat.h): a format of the driver, jdrive.h. */
#include "jflat.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chakra/error.h"
#include "../modmem.h"

typedef chakra__jflat jflat;
typedef chakra__jentry jentry;
typedef chakra__jitem jitem;

int chakra__json_errf(char *err, size_t errlen, int rc, const char *fmt, ...)
{
	if (err && errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return rc;
}

#define fail(err, errlen, ...) chakra__json_errf(err, errlen, CHAKRA_ECONFIG, __VA_ARGS__)

static int nomem(char *err, size_t errlen, const char *path)
{
	return chakra__json_errf(err, errlen, CHAKRA_ENOMEM, "%s: out of memory", path);
}

static char *mstrndup(const char *s, size_t len)
{
	char *d = chakra_malloc(len + 1);
	if (d) {
		memcpy(d, s, len);
		d[len] = 0;
	}
	return d;
}

/* Line of the parser's position (counted on from the last call: keys come
 * in order, so the whole file is scanned once). */
static unsigned long jline(jflat *j)
{
	size_t off = (size_t)chakra__json_offset(&j->j);
	if (off < j->line_off) {
		j->line_off = 0;
		j->line_no = 1;
	}
	for (size_t i = j->line_off; i < off && j->text[i]; i++)
		j->line_no += j->text[i] == '\n';
	j->line_off = off;
	return j->line_no;
}

static jentry *jcur(jflat *j)
{
	return j->n ? &j->e[j->n - 1] : NULL;
}

static int jadd_item(jflat *j, jitem it)
{
	jentry *e = jcur(j);
	if (!e || j->depth != 1) {
		chakra_free(it.str);
		return 1; /* inside an ignored nested object */
	}
	if (j->list_depth > 1) {
		chakra_free(it.str);
		e->is_object = 1; /* nested list: treated like a nested value */
		return 1;
	}
	if (e->n == e->cap) {
		size_t nc = e->cap ? e->cap * 2 : 8;
		jitem *ni = chakra_realloc(e->items, nc * sizeof *ni);
		if (!ni) {
			chakra_free(it.str);
			j->oom = 1;
			return 0;
		}
		e->items = ni;
		e->cap = nc;
	}
	e->items[e->n++] = it;
	return 1;
}

static int j_null(void *ctx)
{
	jitem it = { 0 };
	it.is_str = -1;
	return jadd_item(ctx, it);
}

static int j_bool(void *ctx, int b)
{
	jitem it = { 0 };
	it.is_bool = 1;
	it.num = b;
	it.is_int = 1;
	return jadd_item(ctx, it);
}

static int j_number(void *ctx, const char *s, size_t len)
{
	char buf[64];
	jitem it = { 0 };
	if (len >= sizeof buf)
		len = sizeof buf - 1;
	memcpy(buf, s, len);
	buf[len] = 0;
	it.num = strtod(buf, NULL);
	it.is_int = !strpbrk(buf, ".eE");
	return jadd_item(ctx, it);
}

static int j_string(void *ctx, const char *s, size_t len)
{
	jitem it = { 0 };
	it.is_str = 1;
	it.str = mstrndup(s, len);
	if (!it.str) {
		((jflat *)ctx)->oom = 1;
		return 0;
	}
	return jadd_item(ctx, it);
}

static int j_start_map(void *ctx)
{
	jflat *j = ctx;
	if (j->depth == 0 && j->n == 0 && !j->bad_top) {
		j->depth = 1;
		return 1;
	}
	if (j->depth == 1 && jcur(j))
		jcur(j)->is_object = 1;
	if (j->depth + j->list_depth >= CHAKRA__JFLAT_DEPTH) {
		j->too_deep = 1;
		return 0;
	}
	j->depth++;
	return 1;
}

static int j_map_key(void *ctx, const char *s, size_t len)
{
	jflat *j = ctx;
	if (j->depth != 1)
		return 1;
	if (j->n == j->cap) {
		size_t nc = j->cap ? j->cap * 2 : 16;
		jentry *ne = chakra_realloc(j->e, nc * sizeof *ne);
		if (!ne) {
			j->oom = 1;
			return 0;
		}
		j->e = ne;
		j->cap = nc;
	}
	jentry *e = &j->e[j->n++];
	memset(e, 0, sizeof *e);
	e->key = mstrndup(s, len);
	e->line = jline(j);
	if (!e->key)
		j->oom = 1;
	return e->key != NULL;
}

static int j_end_map(void *ctx)
{
	((jflat *)ctx)->depth--;
	return 1;
}

static int j_start_array(void *ctx)
{
	jflat *j = ctx;
	if (j->depth == 0) {
		j->bad_top = 1;
		j->bad_line = jline(j);
		return 0;
	}
	if (j->depth == 1 && j->list_depth == 0 && jcur(j))
		jcur(j)->is_list = 1;
	if (j->depth + j->list_depth >= CHAKRA__JFLAT_DEPTH) {
		j->too_deep = 1;
		return 0;
	}
	j->list_depth++;
	return 1;
}

static int j_end_array(void *ctx)
{
	((jflat *)ctx)->list_depth--;
	return 1;
}

static int j_scalar(void *ctx, char kind, const char *s, size_t len)
{
	switch (kind) {
	case 'z': return j_null(ctx);
	case 'b': return j_bool(ctx, len == 4);
	case 'n': return j_number(ctx, s, len);
	default: return j_string(ctx, s, len);
	}
}

static int j_open(void *ctx, int is_map)
{
	return is_map ? j_start_map(ctx) : j_start_array(ctx);
}

static int j_close(void *ctx, int is_map)
{
	return is_map ? j_end_map(ctx) : j_end_array(ctx);
}

static const chakra__json_fmt jfmt = { j_scalar, j_map_key, j_open, j_close };

/* The driver's failures: a handler stops only for the reasons it records. */
static void j_fail(chakra__json_ctx *c, int what, int code, const char *msg)
{
	jflat *j = (jflat *)c;
	char *err = c->err;
	const char *path = c->name;
	(void)code;
	(void)msg;
	if (what == CHAKRA__JSON_STOPPED && j->oom) {
		j->rc = nomem(err, j->errlen, path);
	} else if (what == CHAKRA__JSON_STOPPED && j->too_deep) {
		j->rc = fail(err, j->errlen, "%s:%lu: nested deeper than %d levels", path, jline(j),
		             CHAKRA__JFLAT_DEPTH);
	} else if (what == CHAKRA__JSON_STOPPED) {
		j->rc = fail(err, j->errlen, "%s:%lu: expected a JSON object at the top level", path,
		             j->bad_line);
	} else if (what == CHAKRA__JSON_SYNTAX || what == CHAKRA__JSON_TRUNC) {
		char m[256];
		int got = chakra__json_yajl_error(c, m, sizeof m);
		/* the whole text is one chunk: YAJL's count is the offset */
		size_t off = yajl_get_bytes_consumed(c->h);
		unsigned long line = 1;
		for (size_t i = 0; i < off && i < j->len; i++)
			line += j->text[i] == '\n';
		j->rc = got < 0 ? nomem(err, j->errlen, path)
		                : fail(err, j->errlen, "%s:%lu: JSON syntax error: %s", path, line,
		                       got ? m : "invalid");
	} else {
		j->rc = nomem(err, j->errlen, path);
	}
}

void chakra__jflat_free(jflat *j)
{
	for (size_t i = 0; i < j->n; i++) {
		for (size_t k = 0; k < j->e[i].n; k++)
			chakra_free(j->e[i].items[k].str);
		chakra_free(j->e[i].items);
		chakra_free(j->e[i].key);
	}
	chakra_free(j->e);
	memset(j, 0, sizeof *j);
}

int chakra__jflat_parse(jflat *j, const char *path, const char *text, size_t len, char *err,
                        size_t errlen)
{
	memset(j, 0, sizeof *j);
	j->text = text;
	j->len = len;
	j->line_no = 1;
	j->errlen = errlen;
	j->j.err = err;
	chakra__json_src src = { .name = path, .buf = text, .len = len, .whole = 1 };
	int rc = 0;
	if (chakra__json_run(&src, &jfmt, j_fail, &j->j) < 0)
		rc = j->rc;
	else if (j->depth != 0 || (j->n == 0 && len && !memchr(text, '{', len)))
		rc = fail(err, errlen, "%s:1: expected a JSON object", path);
	if (rc)
		chakra__jflat_free(j);
	return rc;
}
