/* SPDX-License-Identifier: Apache-2.0 */
/* chakra_builder: collects one node's fields and attributes. */
#include <stdlib.h>
#include <string.h>

#include "builder_impl.h"
#include "chakra/error.h"
#include "node_impl.h"

chakra_builder *chakra_builder_new(void) { return (chakra_builder *)chakra__calloc(1, sizeof(chakra_builder)); }

void chakra_builder_free(chakra_builder *b)
{
	if (!b)
		return;
	chakra__cbuf_free(&b->pool);
	chakra__cbuf_free(&b->data);
	chakra__cbuf_free(&b->ctrl);
	chakra__cbuf_free(&b->attrs);
	chakra__free(b);
}

void chakra_builder_reset(chakra_builder *b)
{
	if (!b)
		return;
	b->id = b->start = b->dur = 0;
	b->type = 0;
	memset(&b->name, 0, sizeof b->name);
	memset(b->has_io, 0, sizeof b->has_io);
	memset(b->io, 0, sizeof b->io);
	b->pool.len = b->data.len = b->ctrl.len = b->attrs.len = 0;
}

static int pool_add(chakra_builder *b, const void *s, size_t len, span *out)
{
	/* Keep 8-byte alignment for the numeric arrays stored here too. */
	size_t pad = (8 - (b->pool.len & 7)) & 7;
	static const uint8_t zeros[8] = { 0 };
	if (chakra__cbuf_append(&b->pool, zeros, pad))
		return CHAKRA_ENOMEM;
	size_t off = b->pool.len;
	if (chakra__cbuf_append(&b->pool, s, len))
		return CHAKRA_ENOMEM; /* *out unchanged: never a span past the pool */
	out->off = off;
	out->len = len;
	return 0;
}

static size_t slen(const char *s, size_t len) { return len == (size_t)-1 ? strlen(s) : len; }

/* The NULL rule (chakra.h): setters of no builder do nothing. */
void chakra_builder_set_id(chakra_builder *b, uint64_t id) { if (b) b->id = id; }
void chakra_builder_set_type(chakra_builder *b, int type) { if (b) b->type = type; }
void chakra_builder_set_start_time_micros(chakra_builder *b, uint64_t v) { if (b) b->start = v; }
void chakra_builder_set_duration_micros(chakra_builder *b, uint64_t v) { if (b) b->dur = v; }

int chakra_builder_set_name(chakra_builder *b, const char *s, size_t len)
{
	if (!b || !s)
		return CHAKRA_EINVAL;
	return pool_add(b, s, slen(s, len), &b->name);
}

int chakra_builder_add_data_dep(chakra_builder *b, uint64_t id)
{
	if (!b)
		return CHAKRA_EINVAL;
	return chakra__cbuf_append(&b->data, &id, 8) ? CHAKRA_ENOMEM : 0;
}

int chakra_builder_add_ctrl_dep(chakra_builder *b, uint64_t id)
{
	if (!b)
		return CHAKRA_EINVAL;
	return chakra__cbuf_append(&b->ctrl, &id, 8) ? CHAKRA_ENOMEM : 0;
}

int chakra_builder_set_io(chakra_builder *b, chakra_io which, chakra_io_field field,
                          const char *s, size_t len)
{
	if (!b || (unsigned)which > 1 || (unsigned)field > 2 || !s)
		return CHAKRA_EINVAL;
	b->has_io[which] = 1;
	return pool_add(b, s, slen(s, len), &b->io[which][field]);
}

/* Append an attribute record with its name; returns it or NULL. */
static battr *attr_new(chakra_builder *b, const char *name, int kind, int *rc)
{
	span nm;
	if (!b || !name) {
		*rc = CHAKRA_EINVAL;
		return NULL;
	}
	if ((*rc = pool_add(b, name, strlen(name), &nm)) < 0)
		return NULL;
	if (chakra__cbuf_reserve(&b->attrs, b->attrs.len + sizeof(battr))) {
		*rc = CHAKRA_ENOMEM;
		return NULL;
	}
	battr *a = (battr *)(b->attrs.p + b->attrs.len);
	b->attrs.len += sizeof(battr);
	memset(a, 0, sizeof *a);
	a->name = nm;
	a->kind = kind;
	return a;
}

static int is_intish(int k)
{
	k = chakra__attr_kind_scalar(k);
	return k >= 3 && k <= 28 && k != CHAKRA_ATTR_DOUBLE && k != CHAKRA_ATTR_FLOAT;
}

/* Keep the value the way the decoder stores it (sign-extended 32-bit
 * kinds, 0/1 bools), so build -> encode -> decode is the identity. */
static uint64_t norm(int kind, uint64_t v)
{
	switch (chakra__attr_kind_scalar(kind)) {
	case CHAKRA_ATTR_INT32: case CHAKRA_ATTR_SINT32: case CHAKRA_ATTR_SFIXED32:
		return (uint64_t)(int64_t)(int32_t)(uint32_t)v;
	case CHAKRA_ATTR_UINT32: case CHAKRA_ATTR_FIXED32:
		return (uint32_t)v;
	case CHAKRA_ATTR_BOOL:
		return v != 0;
	default:
		return v;
	}
}

int chakra_builder_attr_uint(chakra_builder *b, const char *name, chakra_attr_kind kind, uint64_t v)
{
	if (!is_intish(kind) || kind % 2 == 0)
		return CHAKRA_EINVAL;
	int rc;
	battr *a = attr_new(b, name, kind, &rc);
	if (!a)
		return rc;
	a->u = norm(kind, v);
	return 0;
}

int chakra_builder_attr_int(chakra_builder *b, const char *name, chakra_attr_kind kind, int64_t v)
{
	return chakra_builder_attr_uint(b, name, kind, (uint64_t)v);
}

int chakra_builder_attr_double(chakra_builder *b, const char *name, chakra_attr_kind kind, double v)
{
	if (kind != CHAKRA_ATTR_DOUBLE && kind != CHAKRA_ATTR_FLOAT)
		return CHAKRA_EINVAL;
	int rc;
	battr *a = attr_new(b, name, kind, &rc);
	if (!a)
		return rc;
	a->d = kind == CHAKRA_ATTR_FLOAT ? (double)(float)v : v;
	return 0;
}

int chakra_builder_attr_string(chakra_builder *b, const char *name, chakra_attr_kind kind,
                               const char *s, size_t len)
{
	if (!b || !name || (kind != CHAKRA_ATTR_STRING && kind != CHAKRA_ATTR_BYTES) || !s)
		return CHAKRA_EINVAL;
	span sp;
	int rc = pool_add(b, s, slen(s, len), &sp);
	if (rc < 0)
		return rc;
	battr *a = attr_new(b, name, kind, &rc);
	if (!a)
		return rc;
	a->s = sp;
	return 0;
}

int chakra_builder_attr_list_uint(chakra_builder *b, const char *name, chakra_attr_kind kind,
                                  const uint64_t *v, size_t n)
{
	if (!b || !name || !is_intish(kind) || kind % 2 != 0 || (n && !v) || n > SIZE_MAX / 8)
		return CHAKRA_EINVAL;
	span sp;
	int rc = pool_add(b, NULL, 0, &sp);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < n; i++) {
		uint64_t x = norm(kind, v[i]);
		if (chakra__cbuf_append(&b->pool, &x, 8))
			return CHAKRA_ENOMEM;
	}
	battr *a = attr_new(b, name, kind, &rc);
	if (!a)
		return rc;
	a->n = n;
	a->list = sp.off;
	return 0;
}

int chakra_builder_attr_list_double(chakra_builder *b, const char *name, chakra_attr_kind kind,
                                    const double *v, size_t n)
{
	if (!b || !name || (kind != CHAKRA_ATTR_DOUBLE_LIST && kind != CHAKRA_ATTR_FLOAT_LIST) ||
	    (n && !v) ||
	    n > SIZE_MAX / 8)
		return CHAKRA_EINVAL;
	span sp;
	int rc = pool_add(b, NULL, 0, &sp);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < n; i++) {
		double x = kind == CHAKRA_ATTR_FLOAT_LIST ? (double)(float)v[i] : v[i];
		if (chakra__cbuf_append(&b->pool, &x, 8))
			return CHAKRA_ENOMEM;
	}
	battr *a = attr_new(b, name, kind, &rc);
	if (!a)
		return rc;
	a->n = n;
	a->list = sp.off;
	return 0;
}

int chakra_builder_attr_list_string(chakra_builder *b, const char *name, chakra_attr_kind kind,
                                    const char *const *v, const size_t *lens, size_t n)
{
	if (!b || !name || (kind != CHAKRA_ATTR_STRING_LIST && kind != CHAKRA_ATTR_BYTES_LIST) ||
	    (n && !v) ||
	    n > SIZE_MAX / sizeof(span))
		return CHAKRA_EINVAL;
	/* Strings first, then the span table that points at them. */
	span *tmp = n ? (span *)chakra__malloc(n * sizeof(span)) : NULL;
	if (n && !tmp)
		return CHAKRA_ENOMEM;
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = v[i] ? pool_add(b, v[i], lens ? lens[i] : strlen(v[i]), &tmp[i]) : CHAKRA_EINVAL;
	span table = { 0, 0 };
	if (rc == 0)
		rc = pool_add(b, tmp, n * sizeof(span), &table);
	chakra__free(tmp);
	if (rc < 0)
		return rc;
	battr *a = attr_new(b, name, kind, &rc);
	if (!a)
		return rc;
	a->n = n;
	a->list = table.off;
	return 0;
}

int chakra_builder_attr_empty(chakra_builder *b, const char *name)
{
	int rc;
	return attr_new(b, name, CHAKRA_ATTR_NONE, &rc) ? 0 : rc;
}

int chakra_builder_attr_set_doc(chakra_builder *b, const char *s, size_t len)
{
	if (!b || b->attrs.len == 0 || !s)
		return CHAKRA_EINVAL;
	span sp;
	int rc = pool_add(b, s, slen(s, len), &sp);
	if (rc < 0)
		return rc;
	battr *a = (battr *)(b->attrs.p + b->attrs.len) - 1;
	a->doc = sp;
	return 0;
}

int chakra_builder_attr_copy(chakra_builder *b, const chakra_attr *a)
{
	if (!b || !a)
		return CHAKRA_EINVAL;
	int rc;
	chakra_attr_kind k = (chakra_attr_kind)a->kind;
	const char *name = a->name.s ? a->name.s : "";
	if (k == CHAKRA_ATTR_NONE)
		rc = chakra_builder_attr_empty(b, name);
	else if (k == CHAKRA_ATTR_DOUBLE || k == CHAKRA_ATTR_FLOAT)
		rc = chakra_builder_attr_double(b, name, k, a->d);
	else if (k == CHAKRA_ATTR_STRING || k == CHAKRA_ATTR_BYTES)
		rc = chakra_builder_attr_string(b, name, k, a->s.s ? a->s.s : "", a->s.len);
	else if (k == CHAKRA_ATTR_DOUBLE_LIST || k == CHAKRA_ATTR_FLOAT_LIST)
		rc = chakra_builder_attr_list_double(b, name, k, a->ld, a->n);
	else if (k == CHAKRA_ATTR_STRING_LIST || k == CHAKRA_ATTR_BYTES_LIST) {
		const char **v = a->n ? (const char **)chakra__malloc(a->n * sizeof *v) : NULL;
		size_t *l = a->n ? (size_t *)chakra__malloc(a->n * sizeof *l) : NULL;
		if (a->n && (!v || !l)) {
			chakra__free(v);
			chakra__free(l);
			return CHAKRA_ENOMEM;
		}
		for (size_t i = 0; i < a->n; i++) {
			v[i] = a->ls[i].s;
			l[i] = a->ls[i].len;
		}
		rc = chakra_builder_attr_list_string(b, name, k, v, l, a->n);
		chakra__free(v);
		chakra__free(l);
	} else if (k % 2 == 0)
		rc = chakra_builder_attr_list_uint(b, name, k, a->lu, a->n);
	else
		rc = chakra_builder_attr_uint(b, name, k, a->u);
	if (rc == 0 && a->doc.len)
		rc = chakra_builder_attr_set_doc(b, a->doc.s, a->doc.len);
	return rc;
}

int chakra_builder_copy_node(chakra_builder *b, const chakra_node *n)
{
	if (!b || !n)
		return CHAKRA_EINVAL;
	int rc;
	size_t len;
	chakra_builder_reset(b);
	b->id = chakra_node_id(n);
	const char *nm = chakra_node_name(n, &len);
	if ((rc = chakra_builder_set_name(b, nm, len)) < 0)
		return rc;
	b->type = chakra_node_type_of(n);
	b->start = chakra_node_start_time_micros(n);
	b->dur = chakra_node_duration_micros(n);
	const uint64_t *d = chakra_node_data_deps(n);
	for (size_t i = 0, c = chakra_node_data_dep_count(n); i < c; i++)
		if ((rc = chakra_builder_add_data_dep(b, d[i])) < 0)
			return rc;
	d = chakra_node_ctrl_deps(n);
	for (size_t i = 0, c = chakra_node_ctrl_dep_count(n); i < c; i++)
		if ((rc = chakra_builder_add_ctrl_dep(b, d[i])) < 0)
			return rc;
	for (int w = 0; w < 2; w++) {
		if (!chakra_node_has_io(n, (chakra_io)w))
			continue;
		for (int f = 0; f < 3; f++) {
			const char *s = chakra_node_io(n, (chakra_io)w, (chakra_io_field)f, &len);
			if ((rc = chakra_builder_set_io(b, (chakra_io)w, (chakra_io_field)f, s, len)) < 0)
				return rc;
		}
	}
	for (size_t i = 0, c = chakra_node_attr_count(n); i < c; i++)
		if ((rc = chakra_builder_attr_copy(b, chakra_node_attr_at(n, i))) < 0)
			return rc;
	return 0;
}
