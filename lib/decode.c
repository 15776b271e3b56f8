/* SPDX-License-Identifier: Apache-2.0 */
/* Single-pass decoder for Node, GlobalMetadata and AttributeProto.
 *
 * Why hand-written: nanopb walks field descriptors for every field (the 32
 * member oneof of AttributeProto dominates), which costs 5-30x more per
 * node than a direct walk (docs/design.md). This walker is checked against
 * nanopb (pbref.c) on every real trace in the tests and under fuzzing. */
#include <string.h>

#include "chakra/error.h"
#include "node_impl.h"
#include "wire.h"

#define BAD(...) chakra__errf(err, CHAKRA_ECORRUPT, __VA_ARGS__)
#define POS(p) ((unsigned long long)(base + (uint64_t)((p) - start)))

void chakra__walk_scratch_free(walk_scratch *w)
{
	chakra__cbuf_free(&w->data);
	chakra__cbuf_free(&w->ctrl);
	chakra__cbuf_free(&w->attrs);
}

int chakra__attr_kind_scalar(int kind)
{
	return (kind >= 4 && kind <= 32 && kind % 2 == 0) ? kind - 1 : kind;
}

int chakra__attr_kind_is_signed(int kind)
{
	switch (chakra__attr_kind_scalar(kind)) {
	case CHAKRA_ATTR_INT32: case CHAKRA_ATTR_INT64: case CHAKRA_ATTR_SINT32:
	case CHAKRA_ATTR_SINT64: case CHAKRA_ATTR_SFIXED32: case CHAKRA_ATTR_SFIXED64:
		return 1;
	default:
		return 0;
	}
}

/* Wire type a scalar kind is encoded with. */
static unsigned kind_wt(int k)
{
	switch (k) {
	case CHAKRA_ATTR_DOUBLE: case CHAKRA_ATTR_FIXED64: case CHAKRA_ATTR_SFIXED64:
		return WT_I64;
	case CHAKRA_ATTR_FLOAT: case CHAKRA_ATTR_FIXED32: case CHAKRA_ATTR_SFIXED32:
		return WT_I32;
	case CHAKRA_ATTR_STRING: case CHAKRA_ATTR_BYTES:
		return WT_LEN;
	default:
		return WT_VARINT;
	}
}

/* A field tag: field numbers 0 and above 2^29-1 are invalid protobuf (and
 * nanopb rejects them), so they are errors here too, not unknown fields. */
static int bad_tag(const uint8_t **p, const uint8_t *end, uint64_t *tag)
{
	return wire_varint(p, end, tag) || (*tag >> 3) == 0 || (*tag >> 3) > 0x1fffffff;
}

static uint64_t rd64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8); /* little-endian hosts; see meson.build check */
	return v;
}

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

/* Read one element of scalar kind k (wire type already checked) and
 * convert it to its stored form: integer bits in *u, floating in *d. */
static int read_scalar(int k, const uint8_t **p, const uint8_t *end, uint64_t *u, double *d)
{
	uint64_t v;
	switch (kind_wt(k)) {
	case WT_I64:
		if (end - *p < 8)
			return -1;
		v = rd64(*p);
		*p += 8;
		if (k == CHAKRA_ATTR_DOUBLE)
			memcpy(d, &v, 8);
		else
			*u = v;
		return 0;
	case WT_I32: {
		if (end - *p < 4)
			return -1;
		uint32_t w = rd32(*p);
		*p += 4;
		if (k == CHAKRA_ATTR_FLOAT) {
			float f;
			memcpy(&f, &w, 4);
			*d = f;
		} else if (k == CHAKRA_ATTR_SFIXED32) {
			*u = (uint64_t)(int64_t)(int32_t)w;
		} else {
			*u = w;
		}
		return 0;
	}
	default:
		if (wire_varint(p, end, &v))
			return -1;
		switch (k) {
		case CHAKRA_ATTR_INT32: *u = (uint64_t)(int64_t)(int32_t)(uint32_t)v; break;
		case CHAKRA_ATTR_UINT32: *u = (uint32_t)v; break;
		case CHAKRA_ATTR_SINT32: {
			uint32_t z = (uint32_t)v;
			*u = (uint64_t)(int64_t)(int32_t)((z >> 1) ^ (~(z & 1) + 1));
			break;
		}
		case CHAKRA_ATTR_SINT64: *u = (v >> 1) ^ (~(v & 1) + 1); break;
		case CHAKRA_ATTR_BOOL: *u = v != 0; break;
		default: *u = v;
		}
		return 0;
	}
}

/* Scalar varints that do not fit their field are errors, not truncated
 * (nanopb, the reference, rejects them too): uint32 and the enum `type`
 * above 2^32-1, sint32 outside int32, bool outside 32 bits (a negative
 * int32 sign-extended to 64 bits is allowed, as protobuf encodes it). */
static int varint_fits(int k, const uint8_t *p, const uint8_t *end)
{
	uint64_t v;
	if (wire_varint(&p, end, &v))
		return 1; /* the caller reports the bad varint */
	switch (k) {
	case CHAKRA_ATTR_UINT32:
		return v <= UINT32_MAX;
	case CHAKRA_ATTR_SINT32: {
		int64_t z = (int64_t)((v >> 1) ^ (~(v & 1) + 1));
		return z >= INT32_MIN && z <= INT32_MAX;
	}
	case CHAKRA_ATTR_BOOL:
		return (v >> 32) == 0 || (v >> 31) == 0x1ffffffffull;
	default:
		return 1;
	}
}

/* Elements of a list value: the body of e.g. Int64List (field 1 repeated,
 * packed or not). Count first, then fill, so arrays are allocated once. */
static int list_walk(int lk, const uint8_t *p, const uint8_t *end, chakra_attr *out, arena *a,
                     uint64_t base, const uint8_t *start, char *err)
{
	int k = chakra__attr_kind_scalar(lk);
	unsigned ewt = kind_wt(k);
	for (int pass = (out ? 0 : 1); pass < 2; pass++) {
		/* pass 0: count (full mode only); pass 1: validate / fill */
		size_t n = 0;
		const uint8_t *q = p;
		while (q < end) {
			const uint8_t *fs = q;
			uint64_t tag;
			if (bad_tag(&q, end, &tag))
				return BAD("byte %llu: bad field tag in %s", POS(fs), chakra_attr_kind_name(lk));
			unsigned wt = tag & 7, f = (unsigned)(tag >> 3);
			if (f != 1) {
				if (chakra__wire_skip(&q, end, wt))
					return BAD("byte %llu: malformed field %u in %s", POS(fs), f,
					           chakra_attr_kind_name(lk));
				continue;
			}
			if (wt == WT_LEN && ewt != WT_LEN) { /* packed run */
				uint64_t L;
				if (wire_varint(&q, end, &L) || L > (uint64_t)(end - q))
					return BAD("byte %llu: packed %s overruns its message", POS(fs),
					           chakra_attr_kind_name(lk));
				const uint8_t *pe = q + L;
				while (q < pe) {
					uint64_t u = 0;
					double d = 0;
					if (read_scalar(k, &q, pe, &u, &d))
						return BAD("byte %llu: truncated element in packed %s", POS(q),
						           chakra_attr_kind_name(lk));
					if (pass == 1 && out) {
						if (out->lu) out->lu[n] = u;
						if (out->ld) out->ld[n] = d;
					}
					n++;
				}
				continue;
			}
			if (wt != ewt)
				return BAD("byte %llu: %s element has wire type %u, expected %u", POS(fs),
				           chakra_attr_kind_name(lk), wt, ewt);
			if (ewt == WT_LEN) {
				uint64_t L;
				if (wire_varint(&q, end, &L) || L > (uint64_t)(end - q))
					return BAD("byte %llu: %s element overruns its message", POS(fs),
					           chakra_attr_kind_name(lk));
				if (pass == 1 && out) {
					out->ls[n].s = chakra__arena_strdup(a, q, (size_t)L);
					out->ls[n].len = (size_t)L;
					if (!out->ls[n].s)
						return chakra__errf(err, CHAKRA_ENOMEM, "out of memory");
				}
				q += L;
			} else {
				uint64_t u = 0;
				double d = 0;
				if (read_scalar(k, &q, end, &u, &d))
					return BAD("byte %llu: truncated %s element", POS(fs),
					           chakra_attr_kind_name(lk));
				if (pass == 1 && out) {
					if (out->lu) out->lu[n] = u;
					if (out->ld) out->ld[n] = d;
				}
			}
			n++;
		}
		if (pass == 0) {
			out->n = n;
			if (n) {
				if (ewt == WT_LEN)
					out->ls = (cstr *)chakra__arena_alloc(a, n * sizeof(cstr));
				else if (k == CHAKRA_ATTR_DOUBLE || k == CHAKRA_ATTR_FLOAT)
					out->ld = (double *)chakra__arena_alloc(a, n * sizeof(double));
				else
					out->lu = (uint64_t *)chakra__arena_alloc(a, n * sizeof(uint64_t));
				if (!out->ls && !out->ld && !out->lu)
					return chakra__errf(err, CHAKRA_ENOMEM, "out of memory");
			}
		}
	}
	return 0;
}

/* out = prev's elements followed by out's (a list member seen twice). */
static int list_merge(chakra_attr *out, const chakra_attr *prev, arena *a, char *err)
{
	size_t n = prev->n + out->n;
	if (prev->ls) {
		cstr *v = (cstr *)chakra__arena_alloc(a, n * sizeof *v);
		if (!v)
			return chakra__errf(err, CHAKRA_ENOMEM, "out of memory");
		memcpy(v, prev->ls, prev->n * sizeof *v);
		if (out->n)
			memcpy(v + prev->n, out->ls, out->n * sizeof *v);
		out->ls = v;
	} else if (prev->ld) {
		double *v = (double *)chakra__arena_alloc(a, n * sizeof *v);
		if (!v)
			return chakra__errf(err, CHAKRA_ENOMEM, "out of memory");
		memcpy(v, prev->ld, prev->n * sizeof *v);
		if (out->n)
			memcpy(v + prev->n, out->ld, out->n * sizeof *v);
		out->ld = v;
	} else {
		uint64_t *v = (uint64_t *)chakra__arena_alloc(a, n * sizeof *v);
		if (!v)
			return chakra__errf(err, CHAKRA_ENOMEM, "out of memory");
		memcpy(v, prev->lu, prev->n * sizeof *v);
		if (out->n)
			memcpy(v + prev->n, out->lu, out->n * sizeof *v);
		out->lu = v;
	}
	out->n = n;
	return 0;
}

/* Field-by-field resets: gcc turns a memset of these structs into
 * `rep stos`, whose start-up cost was a quarter of the decode time per
 * attribute (perf, 1M-node synthetic trace). */
static inline void attr_clear(chakra_attr *o)
{
	o->name.s = NULL; o->name.len = 0;
	o->doc.s = NULL; o->doc.len = 0;
	o->kind = 0; o->u = 0; o->d = 0;
	o->s.s = NULL; o->s.len = 0;
	o->n = 0; o->lu = NULL; o->ld = NULL; o->ls = NULL;
}

static inline void full_clear(node_full *f)
{
	f->name.s = NULL; f->name.len = 0;
	f->type = 0; f->start = 0; f->dur = 0;
	f->data = NULL; f->ctrl = NULL; f->n_data = 0; f->n_ctrl = 0;
	f->has_io[0] = f->has_io[1] = 0;
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 3; j++) {
			f->io[i][j].s = NULL;
			f->io[i][j].len = 0;
		}
	f->attrs = NULL; f->n_attrs = 0; f->n_unknown = 0; f->size = 0;
}

/* One AttributeProto message body. out == NULL: validate only. */
static int attr_walk(const uint8_t *p, const uint8_t *end, chakra_attr *out, arena *a,
                     uint64_t base, const uint8_t *start, char *err)
{
	if (out)
		attr_clear(out);
	while (p < end) {
		const uint8_t *fs = p;
		uint64_t tag;
		if (bad_tag(&p, end, &tag))
			return BAD("byte %llu: bad field tag in attribute", POS(fs));
		unsigned wt = tag & 7;
		uint64_t f = tag >> 3;
		if (f == 1 || f == 2) {
			uint64_t L;
			if (wt != WT_LEN)
				return BAD("byte %llu: attribute %s has wire type %u, expected 2", POS(fs),
				           f == 1 ? "name" : "doc_string", wt);
			if (wire_varint(&p, end, &L) || L > (uint64_t)(end - p))
				return BAD("byte %llu: attribute %s overruns its message", POS(fs),
				           f == 1 ? "name" : "doc_string");
			if (out) {
				cstr *c = f == 1 ? &out->name : &out->doc;
				c->s = chakra__arena_strdup(a, p, (size_t)L);
				c->len = (size_t)L;
				if (!c->s)
					return chakra__errf(err, CHAKRA_ENOMEM, "out of memory");
			}
			p += L;
		} else if (f >= 3 && f <= 32) {
			int k = (int)f;
			chakra_attr tmp;
			chakra_attr *o = out ? out : &tmp;
			/* The same list member again merges (protobuf appends the
			 * elements); any other member replaces the value. */
			chakra_attr prev;
			attr_clear(&prev);
			if (out && k % 2 == 0 && out->kind == k)
				prev = *out;
			if (out) {
				/* A later oneof member replaces an earlier one. */
				o->u = 0; o->d = 0; o->s.s = NULL; o->s.len = 0;
				o->n = 0; o->lu = NULL; o->ld = NULL; o->ls = NULL;
			}
			o->kind = k;
			if (k % 2 == 0) { /* list: a submessage */
				uint64_t L;
				if (wt != WT_LEN || wire_varint(&p, end, &L) || L > (uint64_t)(end - p))
					return BAD("byte %llu: attribute value %s malformed", POS(fs),
					           chakra_attr_kind_name(k));
				int rc = list_walk(k, p, p + L, out, a, base, start, err);
				if (rc)
					return rc;
				if (prev.n && (rc = list_merge(out, &prev, a, err)))
					return rc;
				p += L;
			} else if (kind_wt(k) == WT_LEN) {
				uint64_t L;
				if (wt != WT_LEN || wire_varint(&p, end, &L) || L > (uint64_t)(end - p))
					return BAD("byte %llu: attribute value %s malformed", POS(fs),
					           chakra_attr_kind_name(k));
				if (out) {
					out->s.s = chakra__arena_strdup(a, p, (size_t)L);
					out->s.len = (size_t)L;
					if (!out->s.s)
						return chakra__errf(err, CHAKRA_ENOMEM, "out of memory");
				}
				p += L;
			} else {
				if (wt != kind_wt(k))
					return BAD("byte %llu: attribute value %s has wire type %u, expected %u",
					           POS(fs), chakra_attr_kind_name(k), wt, kind_wt(k));
				if (!varint_fits(k, p, end))
					return BAD("byte %llu: attribute value %s out of range", POS(fs),
					           chakra_attr_kind_name(k));
				if (read_scalar(k, &p, end, &o->u, &o->d))
					return BAD("byte %llu: attribute value %s truncated", POS(fs),
					           chakra_attr_kind_name(k));
			}
		} else {
			if (chakra__wire_skip(&p, end, wt))
				return BAD("byte %llu: malformed unknown field %llu in attribute", POS(fs),
				           (unsigned long long)f);
		}
	}
	if (out) { /* absent strings read as "", never NULL (find() strcmps names) */
		if (!out->name.s)
			out->name.s = "";
		if (!out->doc.s)
			out->doc.s = "";
	}
	return 0;
}

/* The decoded bytes a walk holds (scratch arrays and arena) plus `extra`
 * would pass the budget: sets `over` (the caller fails with ETOOBIG). */
static int walk_over_budget(walk_scratch *ws, const arena *a, size_t extra)
{
	if (!ws->limit)
		return 0;
	uint64_t used = (uint64_t)ws->data.len + ws->ctrl.len + ws->attrs.len + (a ? a->total : 0);
	if (used + extra > ws->limit || extra > ws->limit) {
		ws->over = 1;
		return 1;
	}
	return 0;
}

/* Append the varints of a repeated uint64 field (packed or not): 0, -1
 * (malformed) or -2 (out of memory, or over the budget). */
static int deps_append(walk_scratch *ws, const arena *a, cbuf *dst, unsigned wt,
                       const uint8_t **p, const uint8_t *end)
{
	uint64_t v;
	if (wt == WT_VARINT) {
		if (wire_varint(p, end, &v))
			return -1;
		if (walk_over_budget(ws, a, 8))
			return -2;
		return chakra__cbuf_append(dst, &v, 8) ? -2 : 0;
	}
	if (wt != WT_LEN)
		return -1;
	uint64_t L;
	if (wire_varint(p, end, &L) || L > (uint64_t)(end - *p))
		return -1;
	const uint8_t *e = *p + L;
	if (L == 0) /* dst->p may still be NULL: no pointer arithmetic on it */
		return 0;
	/* Each varint ends with the one byte below 0x80: the exact count for
	 * a well-formed run (a malformed one fails below, within the count). */
	size_t cnt = 0;
	for (const uint8_t *q = *p; q < e; q++)
		cnt += *q < 0x80;
	if (e[-1] >= 0x80)
		return -1; /* ends inside a varint */
	if (walk_over_budget(ws, a, cnt * 8) || chakra__cbuf_reserve(dst, dst->len + cnt * 8))
		return -2;
	uint64_t *o = (uint64_t *)(dst->p + dst->len);
	size_t n = 0;
	while (*p < e) {
		if (n == cnt || wire_varint(p, e, &o[n]))
			return -1;
		n++;
	}
	dst->len += n * 8;
	return 0;
}

static int copy_u64s(arena *a, const cbuf *src, uint64_t **dst, size_t *n, char *err)
{
	*n = src->len / 8;
	*dst = NULL;
	if (!*n)
		return 0;
	*dst = (uint64_t *)chakra__arena_alloc(a, src->len);
	if (!*dst)
		return chakra__errf(err, CHAKRA_ENOMEM, "out of memory");
	memcpy(*dst, src->p, src->len);
	return 0;
}

static int walk_attr_field(const uint8_t **p, const uint8_t *end, const uint8_t *fs, unsigned wt,
                           int full, arena *a, walk_scratch *ws, uint64_t base,
                           const uint8_t *start, char *err)
{
	uint64_t L;
	if (wt != WT_LEN || wire_varint(p, end, &L) || L > (uint64_t)(end - *p))
		return BAD("byte %llu: attr field malformed", POS(fs));
	chakra_attr *o = NULL;
	if (full) {
		if (walk_over_budget(ws, a, sizeof(chakra_attr)) ||
		    chakra__cbuf_reserve(&ws->attrs, ws->attrs.len + sizeof(chakra_attr)))
			return chakra__errf(err, CHAKRA_ENOMEM, "out of memory");
		o = (chakra_attr *)(ws->attrs.p + ws->attrs.len);
		ws->attrs.len += sizeof(chakra_attr);
	}
	int rc = attr_walk(*p, *p + L, o, a, base, start, err);
	if (rc)
		return rc;
	*p += L;
	return 0;
}

static int finish_attrs(walk_scratch *ws, arena *a, chakra_attr **attrs, size_t *n, char *err)
{
	*n = ws->attrs.len / sizeof(chakra_attr);
	*attrs = NULL;
	if (!*n)
		return 0;
	*attrs = (chakra_attr *)chakra__arena_alloc(a, ws->attrs.len);
	if (!*attrs)
		return chakra__errf(err, CHAKRA_ENOMEM, "out of memory");
	memcpy(*attrs, ws->attrs.p, ws->attrs.len);
	return 0;
}

static const char *const node_field_names[] = {
	"", "id", "name", "type", "ctrl_deps", "data_deps", "start_time_micros",
	"duration_micros", "inputs", "outputs", "attr",
};

static int node_walk(const uint8_t *msg, size_t len, uint64_t base, uint64_t *id, node_full *full,
                     arena *a, walk_scratch *ws, char *err);

/* A walk that stopped at the budget: CHAKRA_ETOOBIG, "byte N: ..." at the
 * message's first byte (the caller adds the node and the file). */
static int budget_error(walk_scratch *ws, const arena *a, int rc, uint64_t base, size_t len,
                        const char *what, char *err)
{
	if (rc < 0 && (ws->over || (a && a->over))) {
		uint64_t limit = ws->limit ? ws->limit : (a ? a->limit : 0);
		return chakra__errf(err, CHAKRA_ETOOBIG,
		                    "byte %llu: %s of %zu bytes needs more than %llu bytes decoded "
		                    "(max_node_memory)",
		                    (unsigned long long)base, what, len, (unsigned long long)limit);
	}
	return rc;
}

int chakra__node_walk(const uint8_t *msg, size_t len, uint64_t base, uint64_t *id,
                      node_full *full, arena *a, walk_scratch *ws, char *err)
{
	ws->over = 0;
	if (a)
		a->over = 0;
	int rc = node_walk(msg, len, base, id, full, a, ws, err);
	return budget_error(ws, a, rc, base, len, "node", err);
}

static int node_walk(const uint8_t *msg, size_t len, uint64_t base, uint64_t *id, node_full *full,
                     arena *a, walk_scratch *ws, char *err)
{
	const uint8_t *p = msg, *end = msg + len, *start = msg;
	ws->data.len = ws->ctrl.len = ws->attrs.len = 0;
	*id = 0;
	if (full)
		full_clear(full);
	while (p < end) {
		const uint8_t *fs = p;
		uint64_t tag, v;
		if (bad_tag(&p, end, &tag))
			return BAD("byte %llu: bad field tag", POS(fs));
		unsigned wt = tag & 7;
		uint64_t f = tag >> 3;
		switch (f) {
		case 1: case 3: case 6: case 7:
			if (wt != WT_VARINT || wire_varint(&p, end, &v))
				return BAD("byte %llu: field %s: %s", POS(fs), node_field_names[f],
				           wt != WT_VARINT ? "wrong wire type" : "bad varint");
			if (f == 3 && v > UINT32_MAX)
				return BAD("byte %llu: field type: value %llu out of range", POS(fs),
				           (unsigned long long)v);
			if (f == 1)
				*id = v;
			else if (full) {
				if (f == 3) full->type = (int)(int32_t)v;
				else if (f == 6) full->start = v;
				else full->dur = v;
			}
			break;
		case 4: case 5: {
			int rc = deps_append(ws, full ? a : NULL, f == 4 ? &ws->ctrl : &ws->data, wt, &p, end);
			if (rc == -2)
				return chakra__errf(err, CHAKRA_ENOMEM, "out of memory");
			if (rc)
				return BAD("byte %llu: field %s malformed", POS(fs), node_field_names[f]);
			break;
		}
		case 2: case 8: case 9: {
			uint64_t L;
			if (wt != WT_LEN || wire_varint(&p, end, &L) || L > (uint64_t)(end - p))
				return BAD("byte %llu: field %s malformed", POS(fs), node_field_names[f]);
			const uint8_t *e = p + L;
			if (f == 2) {
				if (full) {
					full->name.s = chakra__arena_strdup(a, p, (size_t)L);
					full->name.len = (size_t)L;
					if (!full->name.s)
						return chakra__errf(err, CHAKRA_ENOMEM, "out of memory");
				}
			} else {
				int which = f == 8 ? 0 : 1;
				if (full)
					full->has_io[which] = 1;
				const uint8_t *q = p;
				while (q < e) {
					const uint8_t *gs = q;
					uint64_t t2, L2;
					if (bad_tag(&q, e, &t2))
						return BAD("byte %llu: bad field tag in %s", POS(gs), node_field_names[f]);
					uint64_t f2 = t2 >> 3;
					if (f2 >= 1 && f2 <= 3) {
						if ((t2 & 7) != WT_LEN || wire_varint(&q, e, &L2) ||
						    L2 > (uint64_t)(e - q))
							return BAD("byte %llu: %s string malformed", POS(gs),
							           node_field_names[f]);
						if (full) {
							cstr *c = &full->io[which][f2 - 1];
							c->s = chakra__arena_strdup(a, q, (size_t)L2);
							c->len = (size_t)L2;
							if (!c->s)
								return chakra__errf(err, CHAKRA_ENOMEM, "out of memory");
						}
						q += L2;
					} else if (chakra__wire_skip(&q, e, t2 & 7)) {
						return BAD("byte %llu: malformed field in %s", POS(gs),
						           node_field_names[f]);
					} else if (full) {
						full->n_unknown++;
					}
				}
			}
			p = e;
			break;
		}
		case 10: {
			int rc = walk_attr_field(&p, end, fs, wt, full != NULL, a, ws, base, start, err);
			if (rc)
				return rc;
			break;
		}
		default:
			if (chakra__wire_skip(&p, end, wt))
				return BAD("byte %llu: malformed field %llu (wire type %u)", POS(fs),
				           (unsigned long long)f, wt);
			if (full)
				full->n_unknown++;
		}
	}
	if (full) {
		int rc;
		if ((rc = copy_u64s(a, &ws->data, &full->data, &full->n_data, err)) ||
		    (rc = copy_u64s(a, &ws->ctrl, &full->ctrl, &full->n_ctrl, err)) ||
		    (rc = finish_attrs(ws, a, &full->attrs, &full->n_attrs, err)))
			return rc;
		if (!full->name.s) {
			full->name.s = "";
		}
		for (int i = 0; i < 2; i++)
			for (int j = 0; j < 3; j++)
				if (!full->io[i][j].s)
					full->io[i][j].s = "";
	}
	return 0;
}

static int metadata_walk(const uint8_t *msg, size_t len, uint64_t base, chakra_metadata *m,
                         arena *a, walk_scratch *ws, char *err);

int chakra__metadata_walk(const uint8_t *msg, size_t len, uint64_t base, chakra_metadata *m,
                          arena *a, walk_scratch *ws, char *err)
{
	ws->over = 0;
	a->over = 0;
	int rc = metadata_walk(msg, len, base, m, a, ws, err);
	return budget_error(ws, a, rc, base, len, "metadata", err);
}

static int metadata_walk(const uint8_t *msg, size_t len, uint64_t base, chakra_metadata *m,
                         arena *a, walk_scratch *ws, char *err)
{
	const uint8_t *p = msg, *end = msg + len, *start = msg;
	memset(m, 0, sizeof *m);
	ws->attrs.len = 0;
	while (p < end) {
		const uint8_t *fs = p;
		uint64_t tag;
		if (bad_tag(&p, end, &tag))
			return BAD("byte %llu: bad field tag", POS(fs));
		unsigned wt = tag & 7;
		uint64_t f = tag >> 3;
		if (f == 1) {
			uint64_t L;
			if (wt != WT_LEN || wire_varint(&p, end, &L) || L > (uint64_t)(end - p))
				return BAD("byte %llu: version field malformed (wire type %u)", POS(fs), wt);
			m->version.s = chakra__arena_strdup(a, p, (size_t)L);
			m->version.len = (size_t)L;
			if (!m->version.s)
				return chakra__errf(err, CHAKRA_ENOMEM, "out of memory");
			p += L;
		} else if (f == 2) {
			int rc = walk_attr_field(&p, end, fs, wt, 1, a, ws, base, start, err);
			if (rc)
				return rc;
		} else {
			if (chakra__wire_skip(&p, end, wt))
				return BAD("byte %llu: malformed field %llu (wire type %u)", POS(fs),
				           (unsigned long long)f, wt);
			m->n_unknown++;
		}
	}
	if (!m->version.s)
		m->version.s = "";
	return finish_attrs(ws, a, &m->attrs, &m->n_attrs, err);
}
