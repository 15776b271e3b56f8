/* SPDX-License-Identifier: Apache-2.0 */
/* ET -> JSON in protobuf's JSON mapping (chakra_jsonet_options.protobuf). */
#include "jn_gen.h"
#include "../modmem.h"
#include "../utf8.h"

#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- protobuf's JSON mapping ----
 * What google.protobuf.json_format.MessageToJson prints for each message
 * (Chakra's jsonizer writes GlobalMetadata, then every Node, back to
 * back): fields in field-number order under their lowerCamelCase names,
 * fields at their default value left out (a oneof member is always
 * written, and a present IOInfo even when empty), 64-bit integers as
 * decimal strings, 32-bit ones as numbers, enums by name (a number outside
 * the enum as a number), bytes in base64, floats and doubles as the
 * shortest decimal that reads back to the same value, NaN and infinities
 * as "NaN", "Infinity", "-Infinity". Strings must be UTF-8. */

static int utf8_ok(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; i < len;) {
		size_t k = chakra__utf8_len(u + i, len - i);
		if (!k)
			return 0;
		i += k;
	}
	return 1;
}

/* Shortest "%.Ng" that strtod / strtof reads back to v, as protobuf's printer
 * chooses it. */
static void pb_real(chakra_jsonet_writer *o, double v, int is_float)
{
	yajl_gen g = o->g;
	if (isnan(v)) {
		uint64_t u;
		uint32_t f32;
		float f = (float)v;
		memcpy(&u, &v, sizeof u);
		memcpy(&f32, &f, sizeof f32);
		/* anything but the plain quiet NaN loses bits (payload or sign) */
		if (is_float ? f32 != 0x7fc00000u : u != 0x7ff8000000000000ull)
			o->nan_payloads++;
		STR(g, "NaN");
		return;
	}
	if (isinf(v)) {
		STR(g, v < 0 ? "-Infinity" : "Infinity");
		return;
	}
	if (v == 0 && signbit(v)) {
		/* "-0" reads back as the integer 0 in many JSON parsers
		 * (Python's), losing the sign */
		yajl_gen_number(g, "-0.0", 4);
		return;
	}
	char b[40];
	int n = 0;
	/* doubles: the shortest that reads back (Python's repr); floats: from
	 * 6 digits up, as protobuf's Python printer does */
	for (int p = is_float ? 6 : 1; p <= 17; p++) {
		n = snprintf(b, sizeof b, "%.*g", p, v);
		if (is_float ? strtof(b, NULL) == (float)v : strtod(b, NULL) == v)
			break;
	}
	yajl_gen_number(g, b, (size_t)n);
}

static void pb_b64(yajl_gen g, chakra__jg *jg, const char *s, size_t len)
{
	static const char tab[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t outlen = (len + 2) / 3 * 4;
	char small[256], *b = outlen <= sizeof small ? small : chakra_malloc(outlen ? outlen : 1);
	if (!b)
		longjmp(jg->fail, 1); /* as YAJL's allocator does: the call fails */
	const unsigned char *u = (const unsigned char *)s;
	size_t o = 0;
	for (size_t i = 0; i < len; i += 3) {
		uint32_t x = (uint32_t)u[i] << 16;
		if (i + 1 < len)
			x |= (uint32_t)u[i + 1] << 8;
		if (i + 2 < len)
			x |= u[i + 2];
		b[o++] = tab[x >> 18];
		b[o++] = tab[(x >> 12) & 63];
		b[o++] = i + 1 < len ? tab[(x >> 6) & 63] : '=';
		b[o++] = i + 2 < len ? tab[x & 63] : '=';
	}
	STRN(g, b, o);
	if (b != small)
		chakra_free(b);
}

/* A JSON string field; 0 or -2 when it is not UTF-8. */
static int pb_str(chakra_jsonet_writer *o, const char *s, size_t len, const char *what)
{
	if (!utf8_ok(s, len)) {
		snprintf(o->err, sizeof o->err, "%s is not valid UTF-8", what);
		return -2;
	}
	STRN(o->g, s, len);
	return 0;
}

/* Scalar of kind k (not a list kind), element i of a list when list. */
static int pb_elem(chakra_jsonet_writer *o, const chakra_attr *a, int list, size_t i, int k, const char *what)
{
	yajl_gen g = o->g;
	jn_val v;
	chakra__jn_attr_value(a, list, i, k, &v);
	switch (k) {
	case CHAKRA_ATTR_DOUBLE:
	case CHAKRA_ATTR_FLOAT:
		pb_real(o, v.d, k == CHAKRA_ATTR_FLOAT);
		return 0;
	case CHAKRA_ATTR_BOOL:
		yajl_gen_bool(g, v.u != 0);
		return 0;
	case CHAKRA_ATTR_BYTES:
		pb_b64(g, o->jg, v.s, v.len);
		return 0;
	case CHAKRA_ATTR_STRING:
		return pb_str(o, v.s, v.len, what);
	}
	/* 64-bit kinds are strings in the mapping, 32-bit ones numbers */
	int wide = k == CHAKRA_ATTR_INT64 || k == CHAKRA_ATTR_UINT64 || k == CHAKRA_ATTR_SINT64 ||
	           k == CHAKRA_ATTR_FIXED64 || k == CHAKRA_ATTR_SFIXED64;
	char b[24];
	if (chakra__jn_kind_is_signed(k))
		snprintf(b, sizeof b, "%" PRId64, v.i);
	else
		snprintf(b, sizeof b, "%" PRIu64, v.u);
	if (wide)
		STR(g, b);
	else
		yajl_gen_number(g, b, strlen(b));
	return 0;
}

/* "double" -> "doubleVal", "int64_list" -> "int64List" */
static void pb_value_key(yajl_gen g, int kind)
{
	const char *kn = chakra_attr_kind_name(kind);
	char key[32];
	size_t n = strlen(kn);
	if (kind % 2 == 0) /* list kinds are even */
		snprintf(key, sizeof key, "%.*sList", (int)(n - 5), kn);
	else
		snprintf(key, sizeof key, "%sVal", kn);
	STR(g, key);
}

static int pb_attr(chakra_jsonet_writer *o, const chakra_attr *a, const char *where)
{
	yajl_gen g = o->g;
	size_t len;
	int k = chakra_attr_kind_of(a), rc;
	char what[128];
	const char *s = chakra_attr_name(a, &len);
	snprintf(what, sizeof what, "%sattribute '%.*s'", where, (int)(len > 40 ? 40 : len), s);
	yajl_gen_map_open(g);
	if (len) {
		STR(g, "name");
		if ((rc = pb_str(o, s, len, what)) < 0)
			return rc;
	}
	s = chakra_attr_doc(a, &len);
	if (len) {
		STR(g, "docString");
		if ((rc = pb_str(o, s, len, what)) < 0)
			return rc;
	}
	if (k != CHAKRA_ATTR_NONE && chakra_attr_kind_name(k)) {
		pb_value_key(g, k);
		if (chakra_attr_is_list(a)) {
			size_t n = chakra_attr_list_len(a);
			yajl_gen_map_open(g);
			if (n) {
				STR(g, "values");
				yajl_gen_array_open(g);
				for (size_t i = 0; i < n; i++)
					if ((rc = pb_elem(o, a, 1, i, k - 1, what)) < 0)
						return rc;
				yajl_gen_array_close(g);
			}
			yajl_gen_map_close(g);
		} else if ((rc = pb_elem(o, a, 0, 0, k, what)) < 0) {
			return rc;
		}
	}
	yajl_gen_map_close(g);
	return 0;
}

static void pb_u64(yajl_gen g, const char *key, uint64_t v)
{
	char b[24];
	if (key)
		STR(g, key);
	snprintf(b, sizeof b, "%" PRIu64, v);
	STR(g, b);
}

/* Write the generator's buffer: one message per line in compact mode. */
static int pb_flush(chakra_jsonet_writer *o)
{
	const unsigned char *buf;
	size_t len = 0;
	/* beautify mode already ends the document with a newline */
	if (yajl_gen_get_buf(o->g, &buf, &len) != yajl_gen_status_ok || !len || buf[len - 1] != '\n')
		len = 0;
	chakra__jn_flush(o);
	if (!len)
		chakra__jn_put(o, "\n", 1);
	return o->io_failed ? -1 : 0;
}

int chakra__jn_pb_begin(chakra_jsonet_writer *o, const chakra_metadata *m)
{
	yajl_gen g = o->g;
	size_t len;
	/* every message is a document of its own */
	yajl_gen_config(g, yajl_gen_beautify, o->pretty);
	yajl_gen_map_open(g);
	const char *v = chakra_metadata_version(m, &len);
	int rc;
	if (len) {
		STR(g, "version");
		if ((rc = pb_str(o, v, len, "metadata version")) < 0)
			return rc;
	}
	size_t na = chakra_metadata_attr_count(m);
	if (na) {
		STR(g, "attr");
		yajl_gen_array_open(g);
		for (size_t i = 0; i < na; i++)
			if ((rc = pb_attr(o, chakra_metadata_attr_at(m, i), "metadata ")) < 0)
				return rc;
		yajl_gen_array_close(g);
	}
	yajl_gen_map_close(g);
	return pb_flush(o);
}

static void pb_deps(yajl_gen g, const char *key, const uint64_t *d, size_t n)
{
	if (!n)
		return;
	STR(g, key);
	yajl_gen_array_open(g);
	for (size_t i = 0; i < n; i++)
		pb_u64(g, NULL, d[i]);
	yajl_gen_array_close(g);
}

static int pb_io(chakra_jsonet_writer *o, const chakra_node *n, chakra_io which)
{
	static const char *const fields[] = { "values", "shapes", "types" };
	yajl_gen g = o->g;
	if (!chakra_node_has_io(n, which))
		return 0;
	STR(g, which == CHAKRA_IO_INPUTS ? "inputs" : "outputs");
	yajl_gen_map_open(g);
	for (int f = 0; f < 3; f++) {
		size_t len;
		const char *s = chakra_node_io(n, which, (chakra_io_field)f, &len);
		char what[32];
		snprintf(what, sizeof what, "%s.%s", which == CHAKRA_IO_INPUTS ? "inputs" : "outputs",
		         fields[f]);
		if (!len)
			continue;
		STR(g, fields[f]);
		if (pb_str(o, s, len, what) < 0)
			return -2;
	}
	yajl_gen_map_close(g);
	return 0;
}

int chakra__jn_pb_node(chakra_jsonet_writer *o, const chakra_node *n)
{
	yajl_gen g = o->g;
	size_t len;
	int rc;
	/* a failed node leaves the generator mid-object: start it afresh */
	yajl_gen_reset(g, NULL);
	yajl_gen_clear(g);
	yajl_gen_map_open(g);
	uint64_t v = chakra_node_id(n);
	if (v)
		pb_u64(g, "id", v);
	const char *s = chakra_node_name(n, &len);
	if (len) {
		STR(g, "name");
		if ((rc = pb_str(o, s, len, "name")) < 0)
			return rc;
	}
	int t = chakra_node_type_of(n);
	if (t) {
		STR(g, "type");
		const char *tn = chakra_node_type_name(t);
		if (tn)
			STR(g, tn);
		else
			chakra__jn_gen_i64(g, t);
	}
	pb_deps(g, "ctrlDeps", chakra_node_ctrl_deps(n), chakra_node_ctrl_dep_count(n));
	pb_deps(g, "dataDeps", chakra_node_data_deps(n), chakra_node_data_dep_count(n));
	if ((v = chakra_node_start_time_micros(n)))
		pb_u64(g, "startTimeMicros", v);
	if ((v = chakra_node_duration_micros(n)))
		pb_u64(g, "durationMicros", v);
	if (pb_io(o, n, CHAKRA_IO_INPUTS) < 0 || pb_io(o, n, CHAKRA_IO_OUTPUTS) < 0)
		return -2;
	size_t c = chakra_node_attr_count(n);
	if (c) {
		STR(g, "attr");
		yajl_gen_array_open(g);
		for (size_t i = 0; i < c; i++)
			if ((rc = pb_attr(o, chakra_node_attr_at(n, i), "")) < 0)
				return rc;
		yajl_gen_array_close(g);
	}
	yajl_gen_map_close(g);
	return pb_flush(o);
}


