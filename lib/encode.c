/* SPDX-License-Identifier: Apache-2.0 */
/* Canonical protobuf encoding of a builder: fields in field-number order,
 * proto3 defaults omitted, packed repeated scalars, oneof values always
 * present - the way the reference (protobuf C++/Python) encoders write. */
#include <string.h>

#include "builder_impl.h"
#include "chakra/node.h"
#include "node_impl.h"
#include "wire.h"

#define TAG(f, wt) (((uint64_t)(f) << 3) | (wt))

static size_t len_field_size(unsigned f, size_t len)
{
	return wire_varint_size(TAG(f, WT_LEN)) + wire_varint_size(len) + len;
}

static uint8_t *put_len(uint8_t *d, unsigned f, size_t len)
{
	d += wire_put_varint(d, TAG(f, WT_LEN));
	return d + wire_put_varint(d, len);
}

static uint8_t *put_bytes(uint8_t *d, unsigned f, const void *s, size_t len)
{
	d = put_len(d, f, len);
	memcpy(d, s, len);
	return d + len;
}

static uint8_t *put_varint_field(uint8_t *d, unsigned f, uint64_t v)
{
	d += wire_put_varint(d, TAG(f, WT_VARINT));
	return d + wire_put_varint(d, v);
}

static int elem_wt(int k)
{
	switch (chakra__attr_kind_scalar(k)) {
	case CHAKRA_ATTR_DOUBLE: case CHAKRA_ATTR_FIXED64: case CHAKRA_ATTR_SFIXED64: return WT_I64;
	case CHAKRA_ATTR_FLOAT: case CHAKRA_ATTR_FIXED32: case CHAKRA_ATTR_SFIXED32: return WT_I32;
	case CHAKRA_ATTR_STRING: case CHAKRA_ATTR_BYTES: return WT_LEN;
	default: return WT_VARINT;
	}
}

/* Wire form of an integer element: zigzag for sint, as-is otherwise
 * (int32 negatives are sign-extended to 10 bytes, as protobuf does). */
static uint64_t varint_of(int k, uint64_t u)
{
	switch (chakra__attr_kind_scalar(k)) {
	case CHAKRA_ATTR_SINT32: {
		int32_t x = (int32_t)(uint32_t)u;
		return (uint32_t)(((uint32_t)x << 1) ^ (uint32_t)(x >> 31));
	}
	case CHAKRA_ATTR_SINT64: {
		int64_t x = (int64_t)u;
		return ((uint64_t)x << 1) ^ (uint64_t)(x >> 63);
	}
	default:
		return u;
	}
}

static size_t elem_size(int k, uint64_t u)
{
	switch (elem_wt(k)) {
	case WT_I64: return 8;
	case WT_I32: return 4;
	default: return wire_varint_size(varint_of(k, u));
	}
}

static uint8_t *put_elem(uint8_t *d, int k, uint64_t u, double dv)
{
	switch (elem_wt(k)) {
	case WT_I64:
		if (chakra__attr_kind_scalar(k) == CHAKRA_ATTR_DOUBLE)
			memcpy(&u, &dv, 8);
		memcpy(d, &u, 8);
		return d + 8;
	case WT_I32: {
		uint32_t w = (uint32_t)u;
		if (chakra__attr_kind_scalar(k) == CHAKRA_ATTR_FLOAT) {
			float f = (float)dv;
			memcpy(&w, &f, 4);
		}
		memcpy(d, &w, 4);
		return d + 4;
	}
	default:
		return d + wire_put_varint(d, varint_of(k, u));
	}
}

/* Body size of a list submessage (e.g. Int64List). */
static size_t list_body_size(const chakra_builder *b, const battr *a)
{
	if (!a->n)
		return 0;
	if (elem_wt(a->kind) == WT_LEN) {
		const span *t = (const span *)pool_at(b, a->list);
		size_t s = 0;
		for (size_t i = 0; i < a->n; i++)
			s += len_field_size(1, t[i].len);
		return s;
	}
	const uint64_t *v = (const uint64_t *)pool_at(b, a->list);
	size_t packed = 0;
	for (size_t i = 0; i < a->n; i++)
		packed += elem_size(a->kind, v[i]);
	return len_field_size(1, packed);
}

static size_t value_size(const chakra_builder *b, const battr *a)
{
	int k = a->kind;
	if (k == CHAKRA_ATTR_NONE)
		return 0;
	if (k % 2 == 0)
		return len_field_size((unsigned)k, list_body_size(b, a));
	if (elem_wt(k) == WT_LEN)
		return len_field_size((unsigned)k, a->s.len);
	return wire_varint_size(TAG(k, 0)) + elem_size(k, a->u);
}

static size_t attr_body_size(const chakra_builder *b, const battr *a)
{
	size_t s = value_size(b, a);
	if (a->name.len)
		s += len_field_size(1, a->name.len);
	if (a->doc.len)
		s += len_field_size(2, a->doc.len);
	return s;
}

static uint8_t *put_attr(const chakra_builder *b, const battr *a, unsigned field, uint8_t *d)
{
	d = put_len(d, field, attr_body_size(b, a));
	if (a->name.len)
		d = put_bytes(d, 1, pool_at(b, a->name.off), a->name.len);
	if (a->doc.len)
		d = put_bytes(d, 2, pool_at(b, a->doc.off), a->doc.len);
	int k = a->kind;
	if (k == CHAKRA_ATTR_NONE)
		return d;
	if (k % 2 == 0) {
		d = put_len(d, (unsigned)k, list_body_size(b, a));
		if (!a->n)
			return d;
		if (elem_wt(k) == WT_LEN) {
			const span *t = (const span *)pool_at(b, a->list);
			for (size_t i = 0; i < a->n; i++)
				d = put_bytes(d, 1, pool_at(b, t[i].off), t[i].len);
			return d;
		}
		const uint64_t *v = (const uint64_t *)pool_at(b, a->list);
		const double *dv = (const double *)pool_at(b, a->list);
		int dbl = chakra__attr_kind_scalar(k) == CHAKRA_ATTR_DOUBLE || chakra__attr_kind_scalar(k) == CHAKRA_ATTR_FLOAT;
		size_t packed = 0;
		for (size_t i = 0; i < a->n; i++)
			packed += elem_size(k, v[i]);
		d = put_len(d, 1, packed);
		for (size_t i = 0; i < a->n; i++)
			d = put_elem(d, k, dbl ? 0 : v[i], dbl ? dv[i] : 0);
		return d;
	}
	if (elem_wt(k) == WT_LEN)
		return put_bytes(d, (unsigned)k, pool_at(b, a->s.off), a->s.len);
	d += wire_put_varint(d, TAG(k, elem_wt(k)));
	return put_elem(d, k, a->u, a->d);
}

static size_t attrs_size(const chakra_builder *b, unsigned field)
{
	size_t s = 0;
	const battr *at = (const battr *)b->attrs.p;
	for (size_t i = 0, n = b->attrs.len / sizeof(battr); i < n; i++)
		s += len_field_size(field, attr_body_size(b, &at[i]));
	return s;
}

static uint8_t *put_attrs(const chakra_builder *b, unsigned field, uint8_t *d)
{
	const battr *at = (const battr *)b->attrs.p;
	for (size_t i = 0, n = b->attrs.len / sizeof(battr); i < n; i++)
		d = put_attr(b, &at[i], field, d);
	return d;
}

static size_t packed_size(const cbuf *c)
{
	const uint64_t *v = (const uint64_t *)c->p;
	size_t s = 0;
	for (size_t i = 0, n = c->len / 8; i < n; i++)
		s += wire_varint_size(v[i]);
	return s;
}

static uint8_t *put_packed(uint8_t *d, unsigned f, const cbuf *c)
{
	d = put_len(d, f, packed_size(c));
	const uint64_t *v = (const uint64_t *)c->p;
	for (size_t i = 0, n = c->len / 8; i < n; i++)
		d += wire_put_varint(d, v[i]);
	return d;
}

static size_t io_size(const chakra_builder *b, int w)
{
	size_t s = 0;
	for (int f = 0; f < 3; f++)
		if (b->io[w][f].len)
			s += len_field_size((unsigned)f + 1, b->io[w][f].len);
	return s;
}

size_t chakra__encode_node_size(const chakra_builder *b)
{
	size_t s = 0;
	if (b->id)
		s += 1 + wire_varint_size(b->id);
	if (b->name.len)
		s += len_field_size(2, b->name.len);
	if (b->type)
		s += 1 + wire_varint_size((uint64_t)(int64_t)b->type);
	if (b->ctrl.len)
		s += len_field_size(4, packed_size(&b->ctrl));
	if (b->data.len)
		s += len_field_size(5, packed_size(&b->data));
	if (b->start)
		s += 1 + wire_varint_size(b->start);
	if (b->dur)
		s += 1 + wire_varint_size(b->dur);
	for (int w = 0; w < 2; w++)
		if (b->has_io[w])
			s += len_field_size(8 + (unsigned)w, io_size(b, w));
	return s + attrs_size(b, 10);
}

uint8_t *chakra__encode_node(const chakra_builder *b, uint8_t *d)
{
	if (b->id)
		d = put_varint_field(d, 1, b->id);
	if (b->name.len)
		d = put_bytes(d, 2, pool_at(b, b->name.off), b->name.len);
	if (b->type)
		d = put_varint_field(d, 3, (uint64_t)(int64_t)b->type);
	if (b->ctrl.len)
		d = put_packed(d, 4, &b->ctrl);
	if (b->data.len)
		d = put_packed(d, 5, &b->data);
	if (b->start)
		d = put_varint_field(d, 6, b->start);
	if (b->dur)
		d = put_varint_field(d, 7, b->dur);
	for (int w = 0; w < 2; w++) {
		if (!b->has_io[w])
			continue;
		d = put_len(d, 8 + (unsigned)w, io_size(b, w));
		for (int f = 0; f < 3; f++)
			if (b->io[w][f].len)
				d = put_bytes(d, (unsigned)f + 1, pool_at(b, b->io[w][f].off), b->io[w][f].len);
	}
	return put_attrs(b, 10, d);
}

size_t chakra__encode_metadata_size(const char *version, size_t vlen, const chakra_builder *attrs)
{
	(void)version;
	size_t s = vlen ? len_field_size(1, vlen) : 0;
	return s + (attrs ? attrs_size(attrs, 2) : 0);
}

uint8_t *chakra__encode_metadata(const char *version, size_t vlen, const chakra_builder *attrs, uint8_t *d)
{
	if (vlen)
		d = put_bytes(d, 1, version, vlen);
	return attrs ? put_attrs(attrs, 2, d) : d;
}
