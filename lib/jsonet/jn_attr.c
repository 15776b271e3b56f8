/* SPDX-License-Identifier: Apache-2.0 */
/* JSON -> ET: attribute values, collected as tokens and turned into
 * builder attributes when the attribute ends. */
#include "jn_impl.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- attribute tokens ---- */

/* Room for need elements of elem bytes in *p (capacity *cap, doubling):
 * 1, or 0 after chakra__jn_fail(). */
int chakra__jn_room(pack *P, void *p, size_t *cap, size_t need, size_t elem, size_t first)
{
	if (need <= *cap)
		return 1;
	size_t c = *cap ? *cap : first;
	while (c < need)
		c *= 2;
	void *np = chakra_realloc(*(void **)p, c * elem);
	if (!np)
		return chakra__jn_fail(P, "out of memory");
	*(void **)p = np;
	*cap = c;
	return 1;
}

int chakra__jn_pool_add(pack *P, const void *s, size_t len, size_t *off)
{
	if (!chakra__jn_room(P, &P->pool, &P->pool_cap, P->pool_len + len + 1, 1, 4096))
		return 0;
	*off = P->pool_len;
	memcpy(P->pool + P->pool_len, s, len);
	P->pool[P->pool_len + len] = 0;
	P->pool_len += len + 1;
	return 1;
}

int chakra__jn_tok_add(pack *P, int type, const void *s, size_t len)
{
	if (!chakra__jn_room(P, &P->toks, &P->toks_cap, P->n_toks + 1, sizeof *P->toks, 64))
		return 0;
	tok *t = &P->toks[P->n_toks];
	t->type = type;
	t->len = len;
	t->off = 0;
	if ((type == T_NUM || type == T_STR) && !chakra__jn_pool_add(P, s, len, &t->off))
		return 0;
	P->n_toks++;
	return 1;
}

void chakra__jn_attr_begin(pack *P)
{
	P->pool_len = 0;
	P->n_toks = 0;
	P->a_name = P->a_doc = (size_t)-1;
	P->a_name_len = P->a_doc_len = 0;
	P->a_kind = 0;
	P->a_have_kind = P->a_have_value = P->a_is_list = 0;
}

const char *chakra__jn_attr_name(pack *P) { return P->a_name == (size_t)-1 ? "" : P->pool + P->a_name; }

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Decode a hex token in place (the pool copy); new length in *len. */
static int unhex(pack *P, tok *t, size_t *len)
{
	char *s = P->pool + t->off;
	if (t->len % 2)
		return chakra__jn_fail(P, "attribute '%s': bytes value must be an even number of hex digits",
		            chakra__jn_attr_name(P));
	for (size_t i = 0; i < t->len / 2; i++) {
		int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return chakra__jn_fail(P, "attribute '%s': bytes value is not hex", chakra__jn_attr_name(P));
		s[i] = (char)(hi << 4 | lo);
	}
	*len = t->len / 2;
	return 1;
}

static int b64val(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+' || c == '-')
		return 62; /* standard and URL-safe alphabets, as protobuf accepts */
	if (c == '/' || c == '_')
		return 63;
	return -1;
}

/* Decode a base64 token in place; padding optional. */
static int unb64(pack *P, tok *t, size_t *len)
{
	char *s = P->pool + t->off;
	size_t n = t->len, o = 0;
	while (n && s[n - 1] == '=')
		n--;
	if (t->len - n > 2 || n % 4 == 1)
		return chakra__jn_fail(P, "attribute '%s': bytes value is not base64", chakra__jn_attr_name(P));
	uint32_t acc = 0;
	int bits = 0;
	for (size_t i = 0; i < n; i++) {
		int v = b64val((unsigned char)s[i]);
		if (v < 0)
			return chakra__jn_fail(P, "attribute '%s': bytes value is not base64 (character %zu)",
			            chakra__jn_attr_name(P), i);
		acc = acc << 6 | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			s[o++] = (char)(acc >> bits & 0xff);
		}
	}
	*len = o;
	return 1;
}

/* A protobuf-JSON string holding an integer: digits, optional leading '-'. */
int chakra__jn_pb_intstr(const char *s, size_t len)
{
	size_t i = len && s[0] == '-';
	if (i == len)
		return 0;
	for (; i < len; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

static int kind_signed(int k)
{
	return k == CHAKRA_ATTR_INT32 || k == CHAKRA_ATTR_INT64 || k == CHAKRA_ATTR_SINT32 ||
	       k == CHAKRA_ATTR_SINT64 || k == CHAKRA_ATTR_SFIXED32 || k == CHAKRA_ATTR_SFIXED64;
}

static int kind_32(int k)
{
	return k == CHAKRA_ATTR_INT32 || k == CHAKRA_ATTR_SINT32 || k == CHAKRA_ATTR_SFIXED32 ||
	       k == CHAKRA_ATTR_UINT32 || k == CHAKRA_ATTR_FIXED32;
}

/* Integer token of scalar kind k as a uint64 bit pattern (signed values
 * sign-extended), with the kind's range checked. */
static int tok_int(pack *P, const tok *t, int k, uint64_t *out)
{
	const char *kn = chakra_attr_kind_name(k);
	if (k == CHAKRA_ATTR_BOOL) {
		if (t->type != T_BOOL)
			return chakra__jn_fail(P, "attribute '%s' (bool): expected true/false, got %s", chakra__jn_attr_name(P),
			            chakra__jn_tok_name(t->type));
		*out = t->len;
		return 1;
	}
	/* protobuf's mapping writes 64-bit integers as strings (and accepts
	 * strings for any integer) */
	if (t->type != T_NUM && !(P->pb && t->type == T_STR && chakra__jn_pb_intstr(P->pool + t->off, t->len)))
		return chakra__jn_fail(P, "attribute '%s' (%s): expected an integer, got %s", chakra__jn_attr_name(P), kn,
		            chakra__jn_tok_name(t->type));
	const char *s = P->pool + t->off;
	if (kind_signed(k)) {
		int64_t v;
		if (chakra__jn_num_i64(s, t->len, &v) < 0 ||
		    (kind_32(k) && (v < INT32_MIN || v > INT32_MAX)))
			return chakra__jn_fail(P, "attribute '%s': value %s is out of range for kind %s", chakra__jn_attr_name(P),
			            s, kn);
		*out = (uint64_t)v;
	} else {
		uint64_t v;
		if (chakra__jn_num_u64(s, t->len, &v) < 0 || (kind_32(k) && v > UINT32_MAX))
			return chakra__jn_fail(P, "attribute '%s': value %s is out of range for kind %s", chakra__jn_attr_name(P),
			            s, kn);
		*out = v;
	}
	return 1;
}

static int tok_real(pack *P, const tok *t, int k, double *out)
{
	const char *kn = chakra_attr_kind_name(k);
	if (P->pb && t->type == T_STR) {
		const char *s = P->pool + t->off;
		if (!strcmp(s, "NaN"))
			*out = k == CHAKRA_ATTR_FLOAT ? (double)nanf("") : nan("");
		else if (!strcmp(s, "Infinity"))
			*out = INFINITY;
		else if (!strcmp(s, "-Infinity"))
			*out = -INFINITY;
		else if (!t->len || chakra__jn_num_real(s, t->len, 0, k == CHAKRA_ATTR_FLOAT, out) < 0)
			return chakra__jn_fail(P, "attribute '%s' (%s): string \"%.40s\" is not a number (only "
			               "\"NaN\", \"Infinity\", \"-Infinity\" or digits)", chakra__jn_attr_name(P), kn, s);
		return 1;
	}
	if (t->type != T_NUM && t->type != T_STR)
		return chakra__jn_fail(P, "attribute '%s' (%s): expected a number or \"nan\"/\"inf\"/\"-inf\", got %s",
		            chakra__jn_attr_name(P), kn, chakra__jn_tok_name(t->type));
	if (chakra__jn_num_real(P->pool + t->off, t->len, t->type == T_STR, k == CHAKRA_ATTR_FLOAT, out) < 0)
		return chakra__jn_fail(P, t->type == T_STR
		                   ? "attribute '%s' (%s): string \"%s\" is not a number (only \"nan\", \"nan:0xBITS\", \"inf\", \"-inf\")"
		                   : "attribute '%s' (%s): value %s is out of range",
		            chakra__jn_attr_name(P), kn, P->pool + t->off);
	return 1;
}

/* Add the attribute collected in the tokens, of kind `kind`, to b. */
int chakra__jn_attr_emit(pack *P, chakra_builder *b, int kind)
{
	const char *name = chakra__jn_attr_name(P);
	if (P->a_name != (size_t)-1 && strlen(name) != P->a_name_len)
		return chakra__jn_fail(P, "attribute name contains a NUL byte (not supported)");
	int rc;
	if (kind == CHAKRA_ATTR_NONE) {
		if (P->a_have_value)
			return chakra__jn_fail(P, "attribute '%s' of kind none must not have a value", name);
		rc = chakra_builder_attr_empty(b, name);
		goto doc;
	}
	int list = kind % 2 == 0, k = list ? kind - 1 : kind;
	const char *kn = chakra_attr_kind_name(kind);
	if (!P->a_have_value)
		return chakra__jn_fail(P, "attribute '%s' (%s) has no value", name, kn);
	if (list != P->a_is_list)
		return chakra__jn_fail(P, "attribute '%s': kind %s needs %s value", name, kn,
		            list ? "an array" : "a scalar (not an array)");
	size_t n = P->n_toks;
	if (k == CHAKRA_ATTR_STRING || k == CHAKRA_ATTR_BYTES) {
		for (size_t i = 0; i < n; i++)
			if (P->toks[i].type != T_STR)
				return chakra__jn_fail(P, "attribute '%s' (%s): expected a string, got %s", name, kn,
				            chakra__jn_tok_name(P->toks[i].type));
		/* Decoded element pointers and lengths, kept in the token array. */
		const char **v = chakra_malloc((n ? n : 1) * sizeof *v);
		size_t *lens = chakra_malloc((n ? n : 1) * sizeof *lens);
		if (!v || !lens) {
			chakra_free(v);
			chakra_free(lens);
			return chakra__jn_fail(P, "out of memory");
		}
		int ok = 1;
		for (size_t i = 0; i < n && ok; i++) {
			lens[i] = P->toks[i].len;
			if (k == CHAKRA_ATTR_BYTES)
				ok = P->pb ? unb64(P, &P->toks[i], &lens[i]) : unhex(P, &P->toks[i], &lens[i]);
			v[i] = P->pool + P->toks[i].off;
		}
		if (ok)
			rc = list ? chakra_builder_attr_list_string(b, name, (chakra_attr_kind)kind, v, lens, n)
			          : chakra_builder_attr_string(b, name, (chakra_attr_kind)kind, v[0], lens[0]);
		chakra_free(v);
		chakra_free(lens);
		if (!ok)
			return 0;
	} else if (k == CHAKRA_ATTR_DOUBLE || k == CHAKRA_ATTR_FLOAT) {
		if (!list) {
			double d;
			if (!tok_real(P, &P->toks[0], k, &d))
				return 0;
			rc = chakra_builder_attr_double(b, name, (chakra_attr_kind)kind, d);
		} else {
			double *v = chakra_malloc((n ? n : 1) * sizeof *v);
			if (!v)
				return chakra__jn_fail(P, "out of memory");
			for (size_t i = 0; i < n; i++)
				if (!tok_real(P, &P->toks[i], k, &v[i])) {
					chakra_free(v);
					return 0;
				}
			rc = chakra_builder_attr_list_double(b, name, (chakra_attr_kind)kind, v, n);
			chakra_free(v);
		}
	} else {
		uint64_t *v = chakra_malloc((n ? n : 1) * sizeof *v);
		if (!v)
			return chakra__jn_fail(P, "out of memory");
		for (size_t i = 0; i < n; i++)
			if (!tok_int(P, &P->toks[i], k, &v[i])) {
				chakra_free(v);
				return 0;
			}
		if (list)
			rc = chakra_builder_attr_list_uint(b, name, (chakra_attr_kind)kind, v, n);
		else if (kind_signed(k) || k == CHAKRA_ATTR_BOOL)
			rc = chakra_builder_attr_int(b, name, (chakra_attr_kind)kind, (int64_t)v[0]);
		else
			rc = chakra_builder_attr_uint(b, name, (chakra_attr_kind)kind, v[0]);
		chakra_free(v);
	}
doc:
	if (rc == 0 && P->a_doc != (size_t)-1)
		rc = chakra_builder_attr_set_doc(b, P->pool + P->a_doc, P->a_doc_len);
	if (rc < 0) {
		if (rc == CHAKRA_ENOMEM && !P->code)
			P->code = CHAKRA_ENOMEM; /* the builder's, not the input's */
		return chakra__jn_fail(P, "attribute '%s': %s", name, chakra_strerror(rc));
	}
	return 1;
}

/* Our form: {"name","doc_string","kind","value"} object ended. */
int chakra__jn_attr_end(pack *P)
{
	if (!P->a_have_kind)
		return chakra__jn_fail(P, "attribute '%s' has no \"kind\"", chakra__jn_attr_name(P));
	return chakra__jn_attr_emit(P, P->attrs_meta ? P->meta : P->node, P->a_kind);
}

/* workload_graph form: an extra key becomes an attribute whose kind follows
 * the JSON value: bool, int64 (uint64 above INT64_MAX), double, string, or
 * the list of these. */
int chakra__jn_attr_infer(pack *P, chakra_builder *b)
{
	int kind = 0;
	for (size_t i = 0; i < P->n_toks; i++) {
		const tok *t = &P->toks[i];
		int k;
		if (t->type == T_BOOL)
			k = CHAKRA_ATTR_BOOL;
		else if (t->type == T_STR)
			k = CHAKRA_ATTR_STRING;
		else if (t->type == T_NUM && chakra__jn_num_is_int(P->pool + t->off, t->len))
			k = P->pool[t->off] != '-' && t->len >= 19 ? CHAKRA_ATTR_UINT64 : CHAKRA_ATTR_INT64;
		else if (t->type == T_NUM)
			k = CHAKRA_ATTR_DOUBLE;
		else
			return chakra__jn_fail(P, "key '%s': null is not a value", chakra__jn_attr_name(P));
		if (k == CHAKRA_ATTR_UINT64) { /* only if it does not fit int64 */
			int64_t v;
			if (chakra__jn_num_i64(P->pool + t->off, t->len, &v) == 0)
				k = CHAKRA_ATTR_INT64;
		}
		if (kind == 0 || kind == k)
			kind = k;
		else if ((kind == CHAKRA_ATTR_INT64 || kind == CHAKRA_ATTR_UINT64 ||
		          kind == CHAKRA_ATTR_DOUBLE) &&
		         (k == CHAKRA_ATTR_INT64 || k == CHAKRA_ATTR_UINT64 || k == CHAKRA_ATTR_DOUBLE))
			kind = kind == CHAKRA_ATTR_DOUBLE || k == CHAKRA_ATTR_DOUBLE ? CHAKRA_ATTR_DOUBLE
			                                                             : CHAKRA_ATTR_UINT64;
		else
			return chakra__jn_fail(P, "key '%s': array mixes value types", chakra__jn_attr_name(P));
	}
	if (kind == CHAKRA_ATTR_UINT64) /* mixed int64/uint64: negatives do not fit */
		for (size_t i = 0; i < P->n_toks; i++)
			if (P->pool[P->toks[i].off] == '-')
				return chakra__jn_fail(P, "key '%s': integers do not fit one kind", chakra__jn_attr_name(P));
	if (kind == 0)
		kind = CHAKRA_ATTR_INT64; /* empty array */
	return chakra__jn_attr_emit(P, b, P->a_is_list ? kind + 1 : kind);
}

