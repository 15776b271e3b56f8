/* Emits the JSON form of a trace (see json_out.h). Integers are written as
 * exact digit strings (never through a double), doubles with 17 and floats
 * with 9 significant digits so they parse back to the same bits; NaN and
 * infinities, which JSON lacks, as the strings "nan", "inf", "-inf". */
#include "json_out.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The generator buffers a whole node; it is written out with one fwrite
 * per node (a print callback would cost a call per token). */
static void flush(json_out *o)
{
	const unsigned char *buf;
	size_t len;
	if (yajl_gen_get_buf(o->g, &buf, &len) == yajl_gen_status_ok && len) {
		fwrite(buf, 1, len, o->f);
		yajl_gen_clear(o->g);
	}
}

#define STR(g, s) yajl_gen_string((g), (const unsigned char *)(s), strlen(s))
#define STRN(g, s, n) yajl_gen_string((g), (const unsigned char *)(s), (n))

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

static void gen_i64(yajl_gen g, int64_t v)
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
	char small[256], *buf = len * 2 <= sizeof small ? small : malloc(len * 2 + 1);
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
		free(buf);
}

static int kind_is_signed(int k)
{
	switch (k) {
	case CHAKRA_ATTR_INT32: case CHAKRA_ATTR_INT64: case CHAKRA_ATTR_SINT32:
	case CHAKRA_ATTR_SINT64: case CHAKRA_ATTR_SFIXED32: case CHAKRA_ATTR_SFIXED64:
		return 1;
	default:
		return 0;
	}
}

/* One element (or the scalar) of kind k (the scalar kind). */
static void gen_elem(yajl_gen g, const chakra_attr *a, int list, size_t i, int k)
{
	switch (k) {
	case CHAKRA_ATTR_DOUBLE:
	case CHAKRA_ATTR_FLOAT: {
		double d = 0;
		if (list)
			chakra_attr_list_double(a, i, &d);
		else
			chakra_attr_double(a, &d);
		gen_real(g, d, k == CHAKRA_ATTR_FLOAT);
		break;
	}
	case CHAKRA_ATTR_BOOL: {
		uint64_t u = 0;
		if (list)
			chakra_attr_list_uint(a, i, &u);
		else
			chakra_attr_uint(a, &u);
		yajl_gen_bool(g, u != 0);
		break;
	}
	case CHAKRA_ATTR_STRING:
	case CHAKRA_ATTR_BYTES: {
		const char *s = "";
		size_t len = 0;
		if (list)
			chakra_attr_list_string(a, i, &s, &len);
		else
			chakra_attr_string(a, &s, &len);
		if (k == CHAKRA_ATTR_BYTES)
			gen_hex(g, s, len);
		else
			STRN(g, s, len);
		break;
	}
	default:
		if (kind_is_signed(k)) {
			int64_t v = 0;
			if (list)
				chakra_attr_list_int(a, i, &v);
			else
				chakra_attr_int(a, &v);
			gen_i64(g, v);
		} else {
			uint64_t v = 0;
			if (list)
				chakra_attr_list_uint(a, i, &v);
			else
				chakra_attr_uint(a, &v);
			gen_u64(g, v);
		}
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
		gen_i64(g, k);
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

static int ok(json_out *o) { return ferror(o->f) ? -1 : 0; }

int json_out_begin(json_out *o, FILE *f, int pretty, const chakra_metadata *m)
{
	o->f = f;
	o->pretty = pretty;
	o->g = yajl_gen_alloc(NULL);
	if (!o->g)
		return -1;
	yajl_gen_config(o->g, yajl_gen_beautify, pretty);
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
	flush(o);
	if (!pretty)
		fputc('\n', f);
	return ok(o);
}

int json_out_node(json_out *o, const chakra_node *n)
{
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
		gen_i64(g, t);
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
	flush(o);
	if (!o->pretty)
		fputc('\n', o->f);
	return ok(o);
}

int json_out_end(json_out *o)
{
	yajl_gen_array_close(o->g);
	yajl_gen_map_close(o->g);
	flush(o);
	fputc('\n', o->f);
	return ok(o);
}

void json_out_free(json_out *o)
{
	if (o->g)
		yajl_gen_free(o->g);
	o->g = NULL;
}
