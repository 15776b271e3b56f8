/* SPDX-License-Identifier: Apache-2.0 */
/* ET -> JSON: the jsonize form and the chakra_jsonet_writer entry points.
 * Integers are written as exact digit strings (never through a double),
 * doubles with 17 and floats with 9 significant digits so they parse back
 * to the same bits; NaN and infinities, which JSON lacks, as the strings
 * "nan", "inf", "-inf". */
#include "jn_gen.h"
#include "../modmem.h"

#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

/* The generator buffers a whole node; it goes to the callback in one call
 * per node (a print callback would cost a call per token). */
void chakra__jn_put(chakra_jsonet_writer *o, const char *s, size_t len)
{
	if (!o->io_failed && o->cb(o->data, s, len) < 0)
		o->io_failed = 1;
}

void chakra__jn_flush(chakra_jsonet_writer *o)
{
	const unsigned char *buf;
	size_t len;
	if (yajl_gen_get_buf(o->g, &buf, &len) == yajl_gen_status_ok && len) {
		chakra__jn_put(o, (const char *)buf, len);
		yajl_gen_clear(o->g);
	}
}


/* Decimal digits by hand: snprintf dominated the profile. */
static void gen_digits(yajl_gen g, uint64_t v, int neg)
{
	char b[24], *p = b + sizeof b;
	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	if (neg)
		*--p = '-';
	yajl_gen_number(g, p, (size_t)(b + sizeof b - p));
}

static void gen_u64(yajl_gen g, uint64_t v) { gen_digits(g, v, 0); }

void chakra__jn_gen_i64(yajl_gen g, int64_t v)
{
	/* negate in unsigned arithmetic: INT64_MIN has no positive int64 */
	gen_digits(g, v < 0 ? 0 - (uint64_t)v : (uint64_t)v, v < 0);
}

static void gen_real(yajl_gen g, double v, int is_float)
{
	if (isnan(v)) {
		/* The plain quiet NaN is "nan"; any other NaN keeps its bits, as
		 * "nan:0x" + the float's or double's bit pattern in hex. */
		char b[32];
		if (is_float) {
			float f = (float)v;
			uint32_t u;
			memcpy(&u, &f, sizeof u);
			if (u == 0x7fc00000u)
				STR(g, "nan");
			else {
				snprintf(b, sizeof b, "nan:0x%08lx", (unsigned long)u);
				STR(g, b);
			}
		} else {
			uint64_t u;
			memcpy(&u, &v, sizeof u);
			if (u == 0x7ff8000000000000ull)
				STR(g, "nan");
			else {
				snprintf(b, sizeof b, "nan:0x%016llx", (unsigned long long)u);
				STR(g, b);
			}
		}
		return;
	}
	if (isinf(v)) {
		STR(g, v < 0 ? "-inf" : "inf");
		return;
	}
	char b[40];
	int n = snprintf(b, sizeof b, is_float ? "%.9g" : "%.17g", v);
	yajl_gen_number(g, b, (size_t)n);
}

static void gen_hex(yajl_gen g, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	char small[256], *buf = len * 2 <= sizeof small ? small : chakra_malloc(len * 2 + 1);
	if (!buf) { /* cannot happen in practice; keep the output well formed */
		STR(g, "");
		return;
	}
	for (size_t i = 0; i < len; i++) {
		buf[2 * i] = hex[(unsigned char)s[i] >> 4];
		buf[2 * i + 1] = hex[(unsigned char)s[i] & 15];
	}
	STRN(g, buf, len * 2);
	if (buf != small)
		chakra_free(buf);
}

int chakra__jn_kind_is_signed(int k)
{
	switch (k) {
	case CHAKRA_ATTR_INT32: case CHAKRA_ATTR_INT64: case CHAKRA_ATTR_SINT32:
	case CHAKRA_ATTR_SINT64: case CHAKRA_ATTR_SFIXED32: case CHAKRA_ATTR_SFIXED64:
		return 1;
	default:
		return 0;
	}
}

void chakra__jn_attr_value(const chakra_attr *a, int list, size_t i, int k, jn_val *v)
{
	memset(v, 0, sizeof *v);
	v->s = "";
	switch (k) {
	case CHAKRA_ATTR_DOUBLE:
	case CHAKRA_ATTR_FLOAT:
		if (list)
			chakra_attr_list_double(a, i, &v->d);
		else
			chakra_attr_double(a, &v->d);
		return;
	case CHAKRA_ATTR_STRING:
	case CHAKRA_ATTR_BYTES:
		if (list)
			chakra_attr_list_string(a, i, &v->s, &v->len);
		else
			chakra_attr_string(a, &v->s, &v->len);
		return;
	}
	if (chakra__jn_kind_is_signed(k)) {
		if (list)
			chakra_attr_list_int(a, i, &v->i);
		else
			chakra_attr_int(a, &v->i);
	} else if (list) {
		chakra_attr_list_uint(a, i, &v->u);
	} else {
		chakra_attr_uint(a, &v->u);
	}
}

/* One element (or the scalar) of kind k (the scalar kind). */
static void gen_elem(yajl_gen g, const chakra_attr *a, int list, size_t i, int k)
{
	jn_val v;
	chakra__jn_attr_value(a, list, i, k, &v);
	switch (k) {
	case CHAKRA_ATTR_DOUBLE:
	case CHAKRA_ATTR_FLOAT:
		gen_real(g, v.d, k == CHAKRA_ATTR_FLOAT);
		break;
	case CHAKRA_ATTR_BOOL:
		yajl_gen_bool(g, v.u != 0);
		break;
	case CHAKRA_ATTR_STRING:
		STRN(g, v.s, v.len);
		break;
	case CHAKRA_ATTR_BYTES:
		gen_hex(g, v.s, v.len);
		break;
	default:
		if (chakra__jn_kind_is_signed(k))
			chakra__jn_gen_i64(g, v.i);
		else
			gen_u64(g, v.u);
	}
}

static void gen_attr(yajl_gen g, const chakra_attr *a)
{
	size_t len;
	int k = chakra_attr_kind_of(a);
	yajl_gen_map_open(g);
	STR(g, "name");
	const char *s = chakra_attr_name(a, &len);
	STRN(g, s, len);
	s = chakra_attr_doc(a, &len);
	if (len) {
		STR(g, "doc_string");
		STRN(g, s, len);
	}
	STR(g, "kind");
	const char *kn = chakra_attr_kind_name(k);
	if (kn)
		STR(g, kn);
	else
		chakra__jn_gen_i64(g, k);
	if (k != CHAKRA_ATTR_NONE) {
		STR(g, "value");
		if (chakra_attr_is_list(a)) {
			size_t n = chakra_attr_list_len(a);
			yajl_gen_array_open(g);
			for (size_t i = 0; i < n; i++)
				gen_elem(g, a, 1, i, k - 1);
			yajl_gen_array_close(g);
		} else {
			gen_elem(g, a, 0, 0, k);
		}
	}
	yajl_gen_map_close(g);
}

static void gen_deps(yajl_gen g, const char *key, const uint64_t *d, size_t n)
{
	STR(g, key);
	yajl_gen_array_open(g);
	for (size_t i = 0; i < n; i++)
		gen_u64(g, d[i]);
	yajl_gen_array_close(g);
}

static void gen_io(yajl_gen g, const chakra_node *n, chakra_io which)
{
	static const char *const fields[] = { "values", "shapes", "types" };
	if (!chakra_node_has_io(n, which))
		return;
	STR(g, which == CHAKRA_IO_INPUTS ? "inputs" : "outputs");
	yajl_gen_map_open(g);
	for (int f = 0; f < 3; f++) {
		size_t len;
		const char *s = chakra_node_io(n, which, (chakra_io_field)f, &len);
		STR(g, fields[f]);
		STRN(g, s, len);
	}
	yajl_gen_map_close(g);
}

/* ---- the entry points ---- */

int chakra_jsonet_options_init(chakra_jsonet_options *opts, unsigned version)
{
	if (!opts || version < 1 || version > CHAKRA_JSONET_OPTIONS_VERSION)
		return CHAKRA_EINVAL;
	chakra_jsonet_options d = CHAKRA_JSONET_OPTIONS_INIT;
	d.version = version;
	*opts = d;
	return 0;
}

/* A failed writer stays failed; the generator is not trusted after a jump
 * out of YAJL, so it is released and not used again. */
static int set_err(chakra_jsonet_writer *o, int code, const char *msg)
{
	if (!o->code) {
		o->code = code;
		if (msg)
			snprintf(o->err, sizeof o->err, "%s", msg);
	}
	return o->code;
}

/* Each entry point runs the generator under the guard's setjmp: YAJL's
 * allocator (and the base64 buffer) jump back here when memory runs out. */
#define GUARD(o)                                                                     \
	do {                                                                             \
		if (setjmp((o)->jg->fail)) {                                                 \
			(o)->g = NULL;                                                           \
			chakra__jg_release((o)->jg);                                             \
			(o)->jg = NULL;                                                          \
			return set_err((o), CHAKRA_ENOMEM, "out of memory");                     \
		}                                                                            \
	} while (0)

/* The generator's status after a call: 0, or the error it becomes. */
static int status(chakra_jsonet_writer *o, int rc)
{
	if (rc == -2)
		return set_err(o, CHAKRA_ETYPE, NULL); /* o->err says which string */
	if (rc < 0 || o->io_failed)
		return set_err(o, CHAKRA_EIO, "write failed");
	return 0;
}

int chakra_jsonet_writer_open(chakra_jsonet_writer **out, chakra_write_cb cb, void *data,
                              const chakra_jsonet_options *opts)
{
	*out = NULL;
	chakra_jsonet_writer *o = chakra_calloc(1, sizeof *o);
	if (!o)
		return CHAKRA_ENOMEM;
	*out = o;
	o->cb = cb;
	o->data = data;
	if (opts && (opts->version < 1 || opts->version > CHAKRA_JSONET_OPTIONS_VERSION)) {
		snprintf(o->err, sizeof o->err, "chakra_jsonet_options: version %u is not one this "
		         "library knows", opts->version);
		return o->code = CHAKRA_EINVAL;
	}
	if (!cb)
		return set_err(o, CHAKRA_EINVAL, "no write callback");
	o->pretty = opts ? opts->pretty : 0;
	o->protobuf = opts ? opts->protobuf : 0;
	if (!(o->jg = chakra__jg_new()))
		return set_err(o, CHAKRA_ENOMEM, "out of memory");
	GUARD(o);
	o->g = yajl_gen_alloc(&o->jg->funcs);
	yajl_gen_config(o->g, yajl_gen_beautify, o->pretty);
	/* MessageToJson's indent */
	if (o->protobuf)
		yajl_gen_config(o->g, yajl_gen_indent_string, "  ");
	return 0;
}

int chakra_jsonet_writer_begin(chakra_jsonet_writer *o, const chakra_metadata *m)
{
	if (o->code)
		return o->code;
	if (o->state != 0)
		return set_err(o, CHAKRA_ESTATE, "begin called twice");
	o->state = 1;
	GUARD(o);
	if (o->protobuf)
		return status(o, chakra__jn_pb_begin(o, m));
	yajl_gen g = o->g;
	size_t len;
	yajl_gen_map_open(g);
	STR(g, "metadata");
	yajl_gen_map_open(g);
	STR(g, "version");
	const char *v = chakra_metadata_version(m, &len);
	STRN(g, v, len);
	STR(g, "attr");
	yajl_gen_array_open(g);
	for (size_t i = 0, n = chakra_metadata_attr_count(m); i < n; i++)
		gen_attr(g, chakra_metadata_attr_at(m, i));
	yajl_gen_array_close(g);
	yajl_gen_map_close(g);
	STR(g, "nodes");
	yajl_gen_array_open(g);
	chakra__jn_flush(o);
	if (!o->pretty)
		chakra__jn_put(o, "\n", 1);
	return status(o, 0);
}

int chakra_jsonet_writer_node(chakra_jsonet_writer *o, const chakra_node *n)
{
	if (o->code)
		return o->code;
	if (o->state != 1)
		return set_err(o, CHAKRA_ESTATE, "node before begin or after finish");
	GUARD(o);
	if (o->protobuf)
		return status(o, chakra__jn_pb_node(o, n));
	yajl_gen g = o->g;
	size_t len;
	yajl_gen_map_open(g);
	STR(g, "id");
	gen_u64(g, chakra_node_id(n));
	STR(g, "name");
	const char *s = chakra_node_name(n, &len);
	STRN(g, s, len);
	STR(g, "type");
	int t = chakra_node_type_of(n);
	const char *tn = chakra_node_type_name(t);
	if (tn)
		STR(g, tn);
	else
		chakra__jn_gen_i64(g, t);
	gen_deps(g, "ctrl_deps", chakra_node_ctrl_deps(n), chakra_node_ctrl_dep_count(n));
	gen_deps(g, "data_deps", chakra_node_data_deps(n), chakra_node_data_dep_count(n));
	STR(g, "start_time_micros");
	gen_u64(g, chakra_node_start_time_micros(n));
	STR(g, "duration_micros");
	gen_u64(g, chakra_node_duration_micros(n));
	gen_io(g, n, CHAKRA_IO_INPUTS);
	gen_io(g, n, CHAKRA_IO_OUTPUTS);
	STR(g, "attr");
	yajl_gen_array_open(g);
	for (size_t i = 0, c = chakra_node_attr_count(n); i < c; i++)
		gen_attr(g, chakra_node_attr_at(n, i));
	yajl_gen_array_close(g);
	yajl_gen_map_close(g);
	chakra__jn_flush(o);
	if (!o->pretty)
		chakra__jn_put(o, "\n", 1);
	return status(o, 0);
}

int chakra_jsonet_writer_finish(chakra_jsonet_writer *o)
{
	if (o->code)
		return o->code;
	if (o->state != 1)
		return set_err(o, CHAKRA_ESTATE, "finish before begin or twice");
	o->state = 2;
	if (o->protobuf)
		return status(o, 0);
	GUARD(o);
	yajl_gen_array_close(o->g);
	yajl_gen_map_close(o->g);
	chakra__jn_flush(o);
	chakra__jn_put(o, "\n", 1);
	return status(o, 0);
}

const char *chakra_jsonet_writer_errmsg(const chakra_jsonet_writer *o)
{
	return o ? o->err : "out of memory";
}

uint64_t chakra_jsonet_writer_nan_payloads(const chakra_jsonet_writer *o)
{
	return o ? o->nan_payloads : 0;
}

void chakra_jsonet_writer_close(chakra_jsonet_writer *o)
{
	if (!o)
		return;
	if (o->g)
		yajl_gen_free(o->g);
	chakra__jg_free(o->jg);
	chakra_free(o);
}

int chakra_jsonet_jsonize(chakra_reader *r, chakra_write_cb cb, void *data,
                          const chakra_jsonet_options *opts, chakra_jsonet_result *res)
{
	chakra_jsonet_result scratch;
	if (!res)
		res = &scratch;
	memset(res, 0, sizeof *res);
	chakra_jsonet_writer *w;
	int rc = chakra_jsonet_writer_open(&w, cb, data, opts);
	if (rc == 0)
		rc = chakra_jsonet_writer_begin(w, chakra_reader_metadata(r));
	if (rc == CHAKRA_ETYPE)
		snprintf(res->errmsg, sizeof res->errmsg, "metadata: %s; protobuf's JSON mapping cannot "
		         "hold it", w->err);
	const chakra_node *n;
	int more = 0;
	while (rc == 0 && (more = chakra_reader_next(r, &n)) > 0) {
		rc = chakra_jsonet_writer_node(w, n);
		if (rc == CHAKRA_ETYPE)
			snprintf(res->errmsg, sizeof res->errmsg, "byte %" PRIu64 ": node %" PRIu64 ": %s; "
			         "protobuf's JSON mapping cannot hold it", chakra_node_offset(n),
			         chakra_node_id(n), w->err);
		else if (rc == 0)
			res->nodes++;
	}
	if (rc == 0 && more < 0) {
		rc = more;
		snprintf(res->errmsg, sizeof res->errmsg, "%s", chakra_reader_errmsg(r));
	}
	if (rc == 0)
		rc = chakra_jsonet_writer_finish(w);
	if (rc < 0 && !res->errmsg[0])
		snprintf(res->errmsg, sizeof res->errmsg, "%s", chakra_jsonet_writer_errmsg(w));
	res->nan_payloads = chakra_jsonet_writer_nan_payloads(w);
	chakra_jsonet_writer_close(w);
	return rc;
}
