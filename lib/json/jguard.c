/* SPDX-License-Identifier: Apache-2.0 */
/* A YAJL allocator whose failures jump out of the parse (see jguard.h),
 * and a JSON tree built over it. */
#include "jguard.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#include "chakra/error.h"
#include "../modmem.h"

struct chakra__jg_block {
	chakra__jg_block *prev, *next;
	max_align_t align[]; /* the caller's bytes */
};

static void *link_block(chakra__jg *g, chakra__jg_block *b)
{
	b->prev = NULL;
	b->next = g->head;
	if (g->head)
		g->head->prev = b;
	g->head = b;
	return b->align;
}

static void unlink_block(chakra__jg *g, chakra__jg_block *b)
{
	if (b->prev)
		b->prev->next = b->next;
	else
		g->head = b->next;
	if (b->next)
		b->next->prev = b->prev;
}

static chakra__jg_block *block_of(void *p)
{
	return (chakra__jg_block *)((char *)p - offsetof(chakra__jg_block, align));
}

static void *jg_malloc(void *ctx, size_t n)
{
	chakra__jg *g = ctx;
	chakra__jg_block *b = n <= SIZE_MAX - sizeof *b ? chakra_malloc(sizeof *b + n) : NULL;
	if (!b)
		longjmp(g->fail, 1);
	return link_block(g, b);
}

static void jg_free(void *ctx, void *p)
{
	if (!p)
		return;
	chakra__jg_block *b = block_of(p);
	unlink_block(ctx, b);
	chakra_free(b);
}

static void *jg_realloc(void *ctx, void *p, size_t n)
{
	chakra__jg *g = ctx;
	if (!p)
		return jg_malloc(ctx, n);
	chakra__jg_block *b = block_of(p);
	unlink_block(g, b);
	chakra__jg_block *nb = n <= SIZE_MAX - sizeof *nb ? chakra_realloc(b, sizeof *nb + n) : NULL;
	if (!nb) {
		link_block(g, b); /* still ours: freed with the rest */
		longjmp(g->fail, 1);
	}
	return link_block(g, nb);
}

chakra__jg *chakra__jg_new(void)
{
	chakra__jg *g = chakra_malloc(sizeof *g);
	if (!g)
		return NULL;
	g->head = NULL;
	g->funcs.malloc = jg_malloc;
	g->funcs.realloc = jg_realloc;
	g->funcs.free = jg_free;
	g->funcs.ctx = g;
	return g;
}

void chakra__jg_free(chakra__jg *g)
{
	chakra_free(g);
}

void chakra__jg_release(chakra__jg *g)
{
	if (!g)
		return;
	while (g->head) {
		chakra__jg_block *b = g->head;
		g->head = b->next;
		chakra_free(b);
	}
	chakra_free(g);
}

/* ---- the tree: nodes through the allocator hook, freed by chakra__json_tree_free ---- */

typedef struct frame {
	yajl_val v;    /* an open object or array, not yet in its parent */
	char *key;     /* an object's key waiting for its value */
	size_t cap;    /* room in v's arrays */
} frame;

typedef struct tb {
	frame *st;
	size_t n, cap;
	yajl_val root;
	int oom;
} tb;

static int add(tb *t, yajl_val v)
{
	if (!v) {
		t->oom = 1;
		return 0;
	}
	if (t->n == 0) {
		t->root = v;
		return 1;
	}
	frame *f = &t->st[t->n - 1];
	int obj = f->v->type == yajl_t_object;
	size_t len = obj ? f->v->u.object.len : f->v->u.array.len;
	if (len == f->cap) {
		size_t cap = f->cap ? 2 * f->cap : 4;
		yajl_val *vals = chakra_realloc(obj ? f->v->u.object.values : f->v->u.array.values,
		                         cap * sizeof *vals);
		if (vals) {
			if (obj)
				f->v->u.object.values = vals;
			else
				f->v->u.array.values = vals;
		}
		const char **keys = NULL;
		if (vals && obj) {
			keys = chakra_realloc(f->v->u.object.keys, cap * sizeof *keys);
			if (keys)
				f->v->u.object.keys = keys;
		}
		if (!vals || (obj && !keys)) {
			chakra__json_tree_free(v);
			t->oom = 1;
			return 0;
		}
		f->cap = cap;
	}
	if (obj) {
		f->v->u.object.keys[len] = f->key;
		f->key = NULL;
		f->v->u.object.values[len] = v;
		f->v->u.object.len++;
	} else {
		f->v->u.array.values[len] = v;
		f->v->u.array.len++;
	}
	return 1;
}

void chakra__json_tree_free(yajl_val v)
{
	if (!v)
		return;
	switch (v->type) {
	case yajl_t_string:
		chakra_free(v->u.string);
		break;
	case yajl_t_number:
		chakra_free(v->u.number.r);
		break;
	case yajl_t_object:
		for (size_t i = 0; i < v->u.object.len; i++) {
			chakra_free((char *)v->u.object.keys[i]);
			chakra__json_tree_free(v->u.object.values[i]);
		}
		chakra_free(v->u.object.keys);
		chakra_free(v->u.object.values);
		break;
	case yajl_t_array:
		for (size_t i = 0; i < v->u.array.len; i++)
			chakra__json_tree_free(v->u.array.values[i]);
		chakra_free(v->u.array.values);
		break;
	default:
		break;
	}
	chakra_free(v);
}

static yajl_val node(yajl_type type)
{
	yajl_val v = chakra_calloc(1, sizeof *v);
	if (v)
		v->type = type;
	return v;
}

static int on_null(void *ctx)
{
	return add(ctx, node(yajl_t_null));
}

static int on_bool(void *ctx, int b)
{
	return add(ctx, node(b ? yajl_t_true : yajl_t_false));
}

static int on_number(void *ctx, const char *s, size_t n)
{
	yajl_val v = node(yajl_t_number);
	char *r = v ? chakra_malloc(n + 1) : NULL;
	if (!r) {
		chakra_free(v);
		return add(ctx, NULL);
	}
	memcpy(r, s, n);
	r[n] = 0;
	v->u.number.r = r;
	/* the flags as yajl_tree sets them: an integer that fits, a double
	 * strtod reads whole without a range error */
	char *end;
	errno = 0;
	long long i = strtoll(r, &end, 10);
	if (errno == 0 && *end == 0) {
		v->u.number.i = i;
		v->u.number.flags |= YAJL_NUMBER_INT_VALID;
	}
	errno = 0;
	double d = strtod(r, &end);
	v->u.number.d = d;
	if (errno == 0 && *end == 0)
		v->u.number.flags |= YAJL_NUMBER_DOUBLE_VALID;
	return add(ctx, v);
}

static int on_string(void *ctx, const unsigned char *s, size_t n)
{
	yajl_val v = node(yajl_t_string);
	char *c = v ? chakra_malloc(n + 1) : NULL;
	if (!c) {
		chakra_free(v);
		return add(ctx, NULL);
	}
	memcpy(c, s, n);
	c[n] = 0;
	v->u.string = c;
	return add(ctx, v);
}

static int open_(tb *t, yajl_type type)
{
	yajl_val v = node(type);
	if (!v) {
		t->oom = 1;
		return 0;
	}
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 16;
		frame *st = chakra_realloc(t->st, cap * sizeof *st);
		if (!st) {
			chakra_free(v);
			t->oom = 1;
			return 0;
		}
		t->st = st;
		t->cap = cap;
	}
	t->st[t->n++] = (frame){ v, NULL, 0 };
	return 1;
}

static int close_(tb *t)
{
	frame f = t->st[--t->n];
	chakra_free(f.key);
	return add(t, f.v);
}

static int on_start_map(void *ctx)
{
	return open_(ctx, yajl_t_object);
}

static int on_start_array(void *ctx)
{
	return open_(ctx, yajl_t_array);
}

static int on_end(void *ctx)
{
	return close_(ctx);
}

static int on_key(void *ctx, const unsigned char *s, size_t n)
{
	tb *t = ctx;
	frame *f = &t->st[t->n - 1];
	chakra_free(f->key);
	f->key = chakra_malloc(n + 1);
	if (!f->key) {
		t->oom = 1;
		return 0;
	}
	memcpy(f->key, s, n);
	f->key[n] = 0;
	return 1;
}

static const yajl_callbacks tree_cb = { on_null, on_bool, NULL, NULL, on_number, on_string,
	                                on_start_map, on_key, on_end, on_start_array, on_end };

static void tb_free(tb *t)
{
	while (t->n) {
		frame *f = &t->st[--t->n];
		chakra_free(f->key);
		chakra__json_tree_free(f->v);
	}
	chakra_free(t->st);
	chakra__json_tree_free(t->root);
	chakra_free(t);
}

int chakra__json_tree(const char *text, size_t len, yajl_val *out, char *err, size_t errlen)
{
	*out = NULL;
	if (errlen)
		err[0] = 0;
	/* on the heap: it changes between setjmp and a jump */
	tb *t = chakra_calloc(1, sizeof *t);
	chakra__jg *g = t ? chakra__jg_new() : NULL;
	if (!g) {
		chakra_free(t);
		return CHAKRA_ENOMEM;
	}
	if (setjmp(g->fail)) {
		chakra__jg_release(g);
		tb_free(t);
		return CHAKRA_ENOMEM;
	}
	yajl_handle h = yajl_alloc(&tree_cb, &g->funcs, t);
	yajl_config(h, yajl_allow_comments, 1);
	yajl_status st = yajl_parse(h, (const unsigned char *)text, len);
	if (st == yajl_status_ok)
		st = yajl_complete_parse(h);
	if (t->oom) {
		yajl_free(h);
		chakra__jg_free(g);
		tb_free(t);
		return CHAKRA_ENOMEM;
	}
	if (st != yajl_status_ok) {
		unsigned char *m = yajl_get_error(h, 1, (const unsigned char *)text, len);
		if (errlen) {
			snprintf(err, errlen, "%s", m ? (const char *)m : "parse error");
			/* YAJL's message spans lines with a caret: one line */
			for (char *p = err; *p; p++)
				if (*p == '\n' || *p == '\r')
					*p = ' ';
			for (size_t k = strlen(err); k && err[k - 1] == ' ';)
				err[--k] = 0;
		}
		if (m)
			yajl_free_error(h, m);
		yajl_free(h);
		chakra__jg_free(g);
		tb_free(t);
		return -1;
	}
	yajl_free(h);
	chakra__jg_free(g);
	*out = t->root;
	t->root = NULL;
	tb_free(t);
	return 0;
}
