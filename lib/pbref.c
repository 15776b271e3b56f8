/* SPDX-License-Identifier: Apache-2.0 */
/* Reference decoding with nanopb (Debian's libprotobuf-nanopb), compared
 * field by field with the walker's output. The traps listed in
 * docs/reference/nanopb-notes.md are handled here: the whole
 * AttributeProto is zeroed before each decode (trap 2), string/bytes
 * values record their own kind (trap 1), and list values get their
 * `values` callback through submsg_callback (trap 3). */
#include <stdlib.h>
#include <string.h>

#include <pb_decode.h>

#include "chakra/error.h"
#include "et_def.pb.h"
#include "pbref.h"
#include "util.h"

/* A string field may occur several times; protobuf keeps the last one (as
 * the walker does), so the callback only records where it is and the
 * comparison happens once the enclosing message is decoded. */
typedef struct strarg {
	struct vctx *v;
	const cstr *want;
	const char *what;
	const uint8_t *got;
	size_t got_len;
} strarg;

/* (a function, not a compound literal: the file is also valid C++) */
static strarg strarg_of(struct vctx *v, const cstr *want, const char *what)
{
	strarg a;
	a.v = v;
	a.want = want;
	a.what = what;
	a.got = NULL;
	a.got_len = 0;
	return a;
}

typedef struct vctx {
	const node_full *full;
	char *err;
	int bad;
	size_t i;                 /* element index in the current list */
	const chakra_attr *attr;  /* attribute being compared */
	size_t attr_i;
	int seen_kind;            /* kind recorded by a value callback */
	struct strarg sval;       /* string/bytes value of the current attribute */
	cbuf *elems;              /* list elements nanopb decoded (elem records) */
	int nomem;                /* an allocation failed: CHAKRA_ENOMEM, not a mismatch */
} vctx;

/* One list element as nanopb decoded it. Elements are collected and
 * compared once the attribute is decoded: a later oneof member may still
 * replace the list, and the same list member again appends to it. */
typedef struct elem {
	uint64_t u;       /* integer value, or the bits of the double */
	const uint8_t *s; /* string / bytes element */
	size_t len;
} elem;

static bool mismatch(vctx *v, const char *what)
{
	if (!v->bad)
		chakra__errf(v->err, CHAKRA_ECORRUPT, "nanopb disagrees with the fast decoder: %s", what);
	v->bad = 1;
	return false;
}

/* ---- node-level callbacks ---- */

static bool cb_str(pb_istream_t *s, const pb_field_t *f, void **arg)
{
	(void)f;
	strarg *a = (strarg *)*arg;
	a->got = (const uint8_t *)s->state; /* a buffer stream: state is the read position */
	a->got_len = s->bytes_left;
	return pb_read(s, NULL, s->bytes_left);
}

/* After decoding: the last occurrence (or "" when absent) must match. */
static bool str_done(const strarg *a)
{
	size_t n = a->got ? a->got_len : 0;
	if (n != a->want->len || (n && memcmp(a->got, a->want->s, n) != 0))
		return mismatch(a->v, a->what);
	return true;
}

typedef struct deparg {
	vctx *v;
	const uint64_t *want;
	size_t n, i;
	const char *what;
} deparg;

static bool cb_deps(pb_istream_t *s, const pb_field_t *f, void **arg)
{
	(void)f;
	deparg *d = (deparg *)*arg;
	while (s->bytes_left) { /* packed and unpacked both land here (trap 5) */
		uint64_t x;
		if (!pb_decode_varint(s, &x))
			return false;
		if (d->i >= d->n || d->want[d->i] != x)
			return mismatch(d->v, d->what);
		d->i++;
	}
	return true;
}

/* ---- attribute values ---- */

static bool cb_string_val(pb_istream_t *s, const pb_field_t *f, void **arg);

static bool cb_list_elem(pb_istream_t *s, const pb_field_t *f, void **arg)
{
	/* string_val / bytes_val after a list: nanopb calls the callback left
	 * in the union slot they share with the list's `values`. */
	if (f->tag != 1)
		return cb_string_val(s, f, arg);
	vctx *v = (vctx *)*arg;
	int k = v->seen_kind;
	if (k == 30 || k == 32) {
		elem e = { 0, (const uint8_t *)s->state, s->bytes_left };
		if (chakra__cbuf_append(v->elems, &e, sizeof e))
			return v->nomem = 1, false;
		v->i++;
		return pb_read(s, NULL, s->bytes_left);
	}
	while (s->bytes_left) {
		uint64_t u = 0;
		double d = 0;
		bool ok;
		switch (k) {
		case 4: ok = pb_decode_fixed64(s, &d); break;
		case 6: { float x; ok = pb_decode_fixed32(s, &x); d = x; break; }
		case 20: { uint32_t x; ok = pb_decode_fixed32(s, &x); u = x; break; }
		case 24: { int32_t x; ok = pb_decode_fixed32(s, &x); u = (uint64_t)(int64_t)x; break; }
		case 22: case 26: ok = pb_decode_fixed64(s, &u); break;
		case 16: { int64_t x; ok = pb_decode_svarint(s, &x); u = (uint64_t)(int64_t)(int32_t)x; break; }
		case 18: { int64_t x; ok = pb_decode_svarint(s, &x); u = (uint64_t)x; break; }
		default:
			ok = pb_decode_varint(s, &u);
			if (k == 8) u = (uint64_t)(int64_t)(int32_t)(uint32_t)u;
			if (k == 12) u = (uint32_t)u;
			if (k == 28) u = u != 0;
		}
		if (!ok)
			return false;
		if (k == 4 || k == 6)
			memcpy(&u, &d, 8);
		elem e = { u, NULL, 0 };
		if (chakra__cbuf_append(v->elems, &e, sizeof e))
			return v->nomem = 1, false;
		v->i++;
	}
	return true;
}

/* The collected elements against the walker's list. */
static bool list_done(vctx *v, const chakra_attr *a)
{
	const elem *e = (const elem *)v->elems->p;
	size_t n = v->elems->len / sizeof(elem);
	if (n != a->n)
		return mismatch(v, "list length");
	int k = a->kind;
	for (size_t i = 0; i < n; i++) {
		if (k == 30 || k == 32) {
			if (e[i].len != a->ls[i].len || (e[i].len && memcmp(e[i].s, a->ls[i].s, e[i].len)))
				return mismatch(v, "string list element");
		} else if (k == 4 || k == 6) {
			if (memcmp(&e[i].u, &a->ld[i], 8) != 0)
				return mismatch(v, "list element value");
		} else if (e[i].u != a->lu[i]) {
			return mismatch(v, "list element value");
		}
	}
	return true;
}

/* Called by nanopb when a oneof member is chosen (submsg_callback). */
static bool cb_value(pb_istream_t *s, const pb_field_t *f, void **arg)
{
	(void)s;
	vctx *v = (vctx *)*arg;
	unsigned tag = f->tag;
	if (tag % 2 == 0 && tag >= 4 && tag <= 32) {
		/* Every list message has one callback member `values` at the
		 * start of the submessage struct. */
		pb_callback_t *cb = (pb_callback_t *)f->pData;
		/* nanopb clears the union when the member changes; a callback
		 * still in place means the same list again, whose elements
		 * append (protobuf merge), so the index goes on. */
		if (cb->funcs.decode != cb_list_elem || v->seen_kind != (int)tag) {
			v->i = 0;
			v->elems->len = 0;
		}
		cb->funcs.decode = cb_list_elem;
		cb->arg = v;
		v->seen_kind = (int)tag;
	}
	return true;
}

static bool cb_string_val(pb_istream_t *s, const pb_field_t *f, void **arg)
{
	vctx *v = (vctx *)*arg;
	v->seen_kind = (int)f->tag; /* which_value is not set for callbacks (trap 1) */
	v->sval.got = (const uint8_t *)s->state;     /* the last occurrence counts: see str_done */
	v->sval.got_len = s->bytes_left;
	return pb_read(s, NULL, s->bytes_left);
}

/* Scan an AttributeProto's fields with nanopb's tag reader: the oneof
 * member that wins (the last one), and whether decoding it directly is
 * unsafe. string_val / bytes_val are callbacks sharing the union with the
 * scalar members; nanopb does not clear the union for them, so a string
 * after a scalar member would have the scalar's bits called as a function
 * pointer (nanopb-notes.md trap 2). Returns the winning tag (0: none),
 * -1 when the scan fails (pb_decode then reports it). */
static int attr_scan(const uint8_t *p, size_t len, int *unsafe)
{
	pb_istream_t t = pb_istream_from_buffer(p, len);
	int last = 0, last_nonstring = 0;
	*unsafe = 0;
	while (t.bytes_left) {
		pb_wire_type_t wt;
		uint32_t tag;
		bool eof;
		if (!pb_decode_tag(&t, &wt, &tag, &eof) || !pb_skip_field(&t, wt))
			return -1;
		if (tag < 3 || tag > 32)
			continue;
		if (tag == 29 || tag == 31) {
			if (last_nonstring % 2 == 1)
				*unsafe = 1;
		} else {
			last_nonstring = (int)tag;
		}
		last = (int)tag;
	}
	return last;
}

/* The same attribute without the oneof members that a later, different
 * member replaces: name and doc fields, then the final run of the winning
 * member (repeats of one list member merge). Equivalent under protobuf's
 * rules, and safe to decode: only one oneof member remains. */
static size_t attr_filter(const uint8_t *p, size_t len, int last, uint8_t *out)
{
	pb_istream_t t = pb_istream_from_buffer(p, len);
	size_t n = 0, run_from = 0;
	/* First pass: where the final run of `last` starts. */
	while (t.bytes_left) {
		size_t st = len - t.bytes_left;
		pb_wire_type_t wt;
		uint32_t tag;
		bool eof;
		if (!pb_decode_tag(&t, &wt, &tag, &eof) || !pb_skip_field(&t, wt))
			return 0;
		if (tag >= 3 && tag <= 32 && (int)tag != last)
			run_from = len - t.bytes_left;
		(void)st;
	}
	t = pb_istream_from_buffer(p, len);
	while (t.bytes_left) {
		size_t st = len - t.bytes_left;
		pb_wire_type_t wt;
		uint32_t tag;
		bool eof;
		if (!pb_decode_tag(&t, &wt, &tag, &eof) || !pb_skip_field(&t, wt))
			return 0;
		size_t en = len - t.bytes_left;
		if (tag == 1 || tag == 2 || ((int)tag == last && st >= run_from)) {
			memcpy(out + n, p + st, en - st);
			n += en - st;
		}
	}
	return n;
}

static bool attr_check(vctx *v, const chakra_attr *a, const chakra__pb_AttributeProto *mp,
                       int kind, const strarg *na, const strarg *da);

static bool cb_attr(pb_istream_t *s, const pb_field_t *f, void **arg)
{
	(void)f;
	vctx *v = (vctx *)*arg;
	int unsafe;
	int last = attr_scan((const uint8_t *)s->state, s->bytes_left, &unsafe);
	if (v->attr_i >= v->full->n_attrs)
		return mismatch(v, "attribute count");
	const chakra_attr *a = &v->full->attrs[v->attr_i++];
	v->attr = a;
	v->seen_kind = 0;
	v->sval = strarg_of(v, &a->s, "string/bytes value");
	v->elems->len = 0;
	chakra__pb_AttributeProto m;
	memset(&m, 0, sizeof m); /* trap 2: stale union members are fatal */
	strarg na = { v, &a->name, "attribute name", NULL, 0 };
	strarg da = { v, &a->doc, "attribute doc_string", NULL, 0 };
	m.name.funcs.decode = cb_str;
	m.name.arg = &na;
	m.doc_string.funcs.decode = cb_str;
	m.doc_string.arg = &da;
	m.cb_value.funcs.decode = cb_value;
	m.cb_value.arg = v;
	/* string_val / bytes_val share the union; set both callbacks (same slot
	 * for each member since they overlap at offset 0). */
	m.value.string_val.funcs.decode = cb_string_val;
	m.value.string_val.arg = v;
	uint8_t *filtered = NULL;
	bool ok;
	if (last > 0 && unsafe) {
		size_t len = s->bytes_left;
		filtered = (uint8_t *)chakra__malloc(len ? len : 1);
		if (!filtered)
			return v->nomem = 1, false;
		pb_istream_t fs = pb_istream_from_buffer(filtered,
		                                         attr_filter((const uint8_t *)s->state, len, last, filtered));
		ok = pb_decode(&fs, chakra__pb_AttributeProto_fields, &m) &&
		     pb_read(s, NULL, s->bytes_left);
	} else {
		ok = pb_decode(s, chakra__pb_AttributeProto_fields, &m);
	}
	ok = ok && attr_check(v, a, &m, last < 0 ? 0 : last, &na, &da);
	chakra__free(filtered); /* after the checks: recorded strings point into it */
	return ok;
}

/* Compare what nanopb decoded for one attribute with the walker's. */
static bool attr_check(vctx *v, const chakra_attr *a, const chakra__pb_AttributeProto *mp,
                       int kind, const strarg *na, const strarg *da)
{
	const chakra__pb_AttributeProto m = *mp;
	if (!str_done(na) || !str_done(da))
		return false;
	/* nanopb must have chosen that member: which_value for the static
	 * members, the callbacks' record for lists and strings. */
	int got = (kind % 2 == 0 || kind == 29 || kind == 31) ? v->seen_kind : (int)m.which_value;
	if (kind != a->kind || (kind && got != kind))
		return mismatch(v, "attribute value kind");
	if ((kind == 29 || kind == 31) && !str_done(&v->sval))
		return false;
	uint64_t u = 0;
	double d = 0;
	switch (kind) {
	case 3: d = m.value.double_val; break;
	case 5: d = m.value.float_val; break;
	case 7: u = (uint64_t)(int64_t)m.value.int32_val; break;
	case 9: u = (uint64_t)m.value.int64_val; break;
	case 11: u = m.value.uint32_val; break;
	case 13: u = m.value.uint64_val; break;
	case 15: u = (uint64_t)(int64_t)m.value.sint32_val; break;
	case 17: u = (uint64_t)m.value.sint64_val; break;
	case 19: u = m.value.fixed32_val; break;
	case 21: u = m.value.fixed64_val; break;
	case 23: u = (uint64_t)(int64_t)m.value.sfixed32_val; break;
	case 25: u = (uint64_t)m.value.sfixed64_val; break;
	case 27: u = m.value.bool_val; break;
	default:
		if (kind % 2 == 0 && kind >= 4)
			return list_done(v, a);
		return true;
	}
	if (kind == 3 || kind == 5 ? memcmp(&d, &a->d, 8) != 0 : u != a->u)
		return mismatch(v, "attribute scalar value");
	return true;
}

static int verify(cbuf *elems, const uint8_t *msg, size_t len, uint64_t id,
                  const node_full *full, char *err)
{
	vctx v;
	memset(&v, 0, sizeof v);
	v.full = full;
	v.err = err;
	v.elems = elems;
	chakra__pb_Node n;
	memset(&n, 0, sizeof n);
	strarg name = { &v, &full->name, "name", NULL, 0 };
	strarg io[2][3];
	deparg ctrl = { &v, full->ctrl, full->n_ctrl, 0, "ctrl_deps" };
	deparg data = { &v, full->data, full->n_data, 0, "data_deps" };
	n.name.funcs.decode = cb_str;
	n.name.arg = &name;
	n.ctrl_deps.funcs.decode = cb_deps;
	n.ctrl_deps.arg = &ctrl;
	n.data_deps.funcs.decode = cb_deps;
	n.data_deps.arg = &data;
	chakra__pb_IOInfo *infos[2] = { &n.inputs, &n.outputs };
	static const char *const ionames[2][3] = {
		{ "inputs.values", "inputs.shapes", "inputs.types" },
		{ "outputs.values", "outputs.shapes", "outputs.types" },
	};
	for (int w = 0; w < 2; w++) {
		pb_callback_t *cbs[3] = { &infos[w]->values, &infos[w]->shapes, &infos[w]->types };
		for (int f = 0; f < 3; f++) {
			io[w][f] = strarg_of(&v, &full->io[w][f], ionames[w][f]);
			cbs[f]->funcs.decode = cb_str;
			cbs[f]->arg = &io[w][f];
		}
	}
	n.attr.funcs.decode = cb_attr;
	n.attr.arg = &v;
	pb_istream_t s = pb_istream_from_buffer(msg, len);
	if (!pb_decode(&s, chakra__pb_Node_fields, &n)) {
		if (v.nomem)
			return chakra__errf(err, CHAKRA_ENOMEM, "out of memory (nanopb check)");
		if (v.bad)
			return CHAKRA_ECORRUPT;
		return chakra__errf(err, CHAKRA_ECORRUPT, "nanopb rejects the message: %s", PB_GET_ERROR(&s));
	}
	if (v.bad)
		return CHAKRA_ECORRUPT;
	if (!str_done(&name))
		return CHAKRA_ECORRUPT;
	for (int w = 0; w < 2; w++)
		for (int f = 0; f < 3; f++)
			if (!str_done(&io[w][f]))
				return CHAKRA_ECORRUPT;
	if (n.id != id)
		return chakra__errf(err, CHAKRA_ECORRUPT, "nanopb disagrees: id");
	if ((int)n.type != full->type || n.start_time_micros != full->start ||
	    n.duration_micros != full->dur)
		return chakra__errf(err, CHAKRA_ECORRUPT, "nanopb disagrees: type/start/duration");
	if (n.has_inputs != (full->has_io[0] != 0) || n.has_outputs != (full->has_io[1] != 0))
		return chakra__errf(err, CHAKRA_ECORRUPT, "nanopb disagrees: inputs/outputs presence");
	if (ctrl.i != ctrl.n || data.i != data.n || v.attr_i != full->n_attrs)
		return chakra__errf(err, CHAKRA_ECORRUPT, "nanopb disagrees: dependency or attribute count");
	return 0;
}

int chakra__pbref_verify_node(const uint8_t *msg, size_t len, uint64_t id, const node_full *full, char *err)
{
	cbuf elems = { NULL, 0, 0 };
	int rc = verify(&elems, msg, len, id, full, err);
	chakra__cbuf_free(&elems);
	return rc;
}
