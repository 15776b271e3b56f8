/* SPDX-License-Identifier: Apache-2.0 */
/* JSON -> ET: errors with their position, the YAJL callbacks and the
 * driver behind chakra_jsonet_pack_*. */
#include "jn_impl.h"

#include <setjmp.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- errors with position ---- */

static uint64_t count_lines(const unsigned char *p, size_t n)
{
	uint64_t c = 0;
	const unsigned char *e = p + n;
	while (p < e && (p = memchr(p, '\n', (size_t)(e - p))) != NULL) {
		c++;
		p++;
	}
	return c;
}

static void where(pack *P, uint64_t *line, uint64_t *byte)
{
	size_t off = P->h && P->chunk ? yajl_get_bytes_consumed(P->h) : 0;
	*byte = P->chunk_base + off;
	*line = P->lines_before + (P->chunk ? count_lines(P->chunk, off) : 0) + 1;
}

int chakra__jn_fail(pack *P, const char *fmt, ...) JN_PRINTF(2, 3);
int chakra__jn_fail(pack *P, const char *fmt, ...)
{
	if (P->failed)
		return 0;
	uint64_t line, byte;
	where(P, &line, &byte);
	char what[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	char node[48] = "";
	if (P->in_node && P->node_has_id)
		snprintf(node, sizeof node, "node %" PRIu64 ": ", P->node_id);
	snprintf(P->err, sizeof P->err, "%s:%" PRIu64 ": byte %" PRIu64 ": %s%s", P->in_name, line,
	         byte, node, what);
	P->failed = 1;
	/* the code: what the format names (never the input's text) */
	if (!P->code && strstr(fmt, "out of memory"))
		P->code = CHAKRA_ENOMEM;
	return 0; /* yajl: stop parsing */
}

const char *chakra__jn_tok_name(int type)
{
	switch (type) {
	case T_NUM: return "a number";
	case T_STR: return "a string";
	case T_BOOL: return "true/false";
	default: return "null";
	}
}

/* ---- yajl callbacks ---- */

static int cb_null(void *c) { return chakra__jn_on_value(c, EV_SCALAR, T_NULL, "", 0); }

/* T_BOOL tokens keep their value in the length field. */
static int cb_bool(void *c, int b) { return chakra__jn_on_value(c, EV_SCALAR, T_BOOL, "", (size_t)(b != 0)); }

static int cb_number(void *c, const char *s, size_t len)
{
	pack *P = c;
	char buf[64];
	/* on_value wants NUL-terminated text for messages and name lookups */
	if (len < sizeof buf) {
		memcpy(buf, s, len);
		buf[len] = 0;
		return chakra__jn_on_value(P, EV_SCALAR, T_NUM, buf, len);
	}
	char *t = chakra_malloc(len + 1);
	if (!t)
		return chakra__jn_fail(P, "out of memory");
	memcpy(t, s, len);
	t[len] = 0;
	int rc = chakra__jn_on_value(P, EV_SCALAR, T_NUM, t, len);
	chakra_free(t);
	return rc;
}

static int cb_string(void *c, const unsigned char *s, size_t len)
{
	pack *P = c;
	/* yajl's buffer is not NUL-terminated */
	char small[256];
	char *t = len < sizeof small ? small : chakra_malloc(len + 1);
	if (!t)
		return chakra__jn_fail(P, "out of memory");
	memcpy(t, s, len);
	t[len] = 0;
	int rc = chakra__jn_on_value(P, EV_SCALAR, T_STR, t, len);
	if (t != small)
		chakra_free(t);
	return rc;
}

static int cb_start_map(void *c) { return chakra__jn_on_value(c, EV_MAP, 0, NULL, 0); }
static int cb_start_array(void *c) { return chakra__jn_on_value(c, EV_ARRAY, 0, NULL, 0); }

static int cb_map_key(void *c, const unsigned char *s, size_t len)
{
	pack *P = c;
	size_t n = len < sizeof P->key - 1 ? len : sizeof P->key - 1;
	memcpy(P->key, s, n);
	P->key[n] = 0;
	P->key_kind = 0;
	P->kid = chakra__jn_key_lookup((const char *)s, len, &P->key_kind);
	if (len + 1 > P->wkey_cap) {
		char *w = chakra_realloc(P->wkey, len + 1);
		if (!w)
			return chakra__jn_fail(P, "out of memory");
		P->wkey = w;
		P->wkey_cap = len + 1;
	}
	memcpy(P->wkey, s, len);
	P->wkey[len] = 0;
	P->wkey_len = len;
	/* a known key twice in one object (two spellings of one protobuf
	 * field, or two members of the value oneof, count as the same) */
	if (P->kid != K_OTHER && P->depth > 0 && chakra__jn_is_object_frame(P->stack[P->depth - 1])) {
		int f = P->stack[P->depth - 1];
		int pbf = P->pb || f == F_PB_META || f == F_PB_NODE || f == F_PB_ATTR;
		uint64_t bit = (uint64_t)1 << (pbf ? chakra__jn_key_canon(P->kid) : P->kid);
		if (P->seen[P->depth - 1] & bit)
			return chakra__jn_fail(P, P->kid == K_pbval
			                   ? "attribute has two values (\"%s\" and another member of the "
			                     "value oneof)"
			                   : "key \"%s\" appears twice in one object", P->key);
		P->seen[P->depth - 1] |= bit;
	}
	return 1;
}

static int cb_end_map(void *c)
{
	pack *P = c;
	int f = P->stack[--P->depth];
	switch (f) {
	case F_ATTR:
		return chakra__jn_attr_end(P);
	case F_PB_ATTR:
		return chakra__jn_attr_emit(P, P->attrs_meta ? P->meta : P->node,
		                 P->a_have_kind ? P->a_kind : CHAKRA_ATTR_NONE);
	case F_NODE:
	case F_WG_NODE:
	case F_PB_NODE:
		if (f == F_WG_NODE && !chakra__jn_keyset_check(P, &P->ks_node, "a node"))
			return 0;
		if (!chakra__jn_sink_node(P))
			return 0;
		P->in_node = 0;
		return 1;
	case F_META:
	case F_PB_META:
		return chakra__jn_finalize_meta(P);
	case F_TOP:
		P->top_done = 1;
		if (P->form == FORM_UNKNOWN) {
			if (P->first_extra_key_set)
				return chakra__jn_fail(P, "no \"metadata\"/\"nodes\" (jsonize form), \"workload_graph\" key "
				               "or protobuf GlobalMetadata (version, attr)");
			/* {} or {"version": ...}: protobuf's GlobalMetadata */
			P->version_pending = 0;
			if (!chakra__jn_set_form(P, FORM_PB))
				return 0;
		}
		if (P->form == FORM_PB)
			return chakra__jn_finalize_meta(P);
		if (P->form == FORM_OURS && !P->meta_final)
			return chakra__jn_fail(P, "no \"metadata\" object");
		if (P->form == FORM_WG) {
			if (!chakra__jn_keyset_check(P, &P->ks_top, "the top-level object"))
				return 0;
			chakra_free(P->version);
			/* The schema version the reference tools write (et-format.md). */
			P->version = chakra__mstrdup("0.0.4");
			if (!P->version)
				return chakra__jn_fail(P, "out of memory");
			return chakra__jn_finalize_meta(P);
		}
		return 1;
	}
	return 1;
}

static int cb_end_array(void *c)
{
	pack *P = c;
	int f = P->stack[--P->depth];
	if (f == F_WG_LIST)
		return chakra__jn_attr_infer(P, P->node);
	if (f == F_PB_TOPARR) {
		P->top_done = 1;
		if (!P->meta_seen)
			return chakra__jn_fail(P, "empty array: expected the GlobalMetadata object, then Nodes");
	}
	return 1;
}

static const yajl_callbacks callbacks = {
	cb_null, cb_bool, NULL, NULL, cb_number, cb_string,
	cb_start_map, cb_map_key, cb_end_map, cb_start_array, cb_end_array
};

/* ---- driver ---- */

static void report_yajl(pack *P, const unsigned char *buf, size_t len)
{
	if (P->failed)
		return;
	if (P->top_done && P->form != FORM_PB) {
		/* only protobuf's stream has more than one top-level value */
		chakra__jn_fail(P, "invalid JSON: parse error: trailing garbage");
		return;
	}
	unsigned char *e = yajl_get_error(P->h, 0, buf, len);
	char msg[256];
	snprintf(msg, sizeof msg, "%s", e ? (const char *)e : "parse error");
	if (e)
		yajl_free_error(P->h, e);
	/* yajl's messages end with a newline */
	size_t ml = strlen(msg);
	while (ml && (msg[ml - 1] == '\n' || msg[ml - 1] == ' '))
		msg[--ml] = 0;
	chakra__jn_fail(P, "invalid JSON: %s", msg);
}

static int feed(pack *P, const unsigned char *buf, size_t n)
{
	P->chunk = buf;
	if (yajl_parse(P->h, buf, n) != yajl_status_ok) {
		report_yajl(P, buf, n);
		return -1;
	}
	P->chunk_base += n;
	P->lines_before += count_lines(buf, n);
	return 0;
}

enum { CHUNK = 1 << 16 };

/* The parse itself, in a frame of its own for the guard's setjmp. */
static void parse(pack *P)
{
	/* YAJL does not check what its allocator returns: a failure jumps
	 * back here, and every block it held is freed with the guard. */
	if (setjmp(P->jg->fail)) {
		P->h = NULL;
		chakra__jg_release(P->jg);
		P->jg = NULL;
		P->failed = 0;
		chakra__jn_fail(P, "out of memory");
		P->code = CHAKRA_ENOMEM;
		return;
	}
	/* yajl_alloc allocates through the guard too: after the setjmp */
	if (!(P->h = yajl_alloc(&callbacks, &P->jg->funcs, P))) {
		chakra__jn_fail(P, "out of memory");
		return;
	}
	/* Names in real traces need not be UTF-8; jsonize writes them as is.
	 * Protobuf's stream puts messages back to back. */
	yajl_config(P->h, yajl_dont_validate_strings, 1);
	yajl_config(P->h, yajl_allow_multiple_values, 1);
	if (P->rd) {
		long n;
		while ((n = P->rd(P->rd_data, P->buf, CHUNK)) > 0)
			if (feed(P, P->buf, (size_t)n) < 0)
				break;
		if (!P->failed && n < 0) {
			chakra__jn_fail(P, "read error: %s", strerror(errno));
			P->code = CHAKRA_EIO;
		}
	} else if (P->mem_len) {
		feed(P, P->mem, P->mem_len);
	}
	if (!P->failed) {
		P->chunk = NULL;
		if (yajl_complete_parse(P->h) != yajl_status_ok)
			report_yajl(P, NULL, 0);
	}
	if (!P->failed && P->chunk_base == 0)
		chakra__jn_fail(P, "empty input");
	if (!P->failed && P->depth > 0)
		chakra__jn_fail(P, "input ends inside an object or array");
	if (!P->failed && !P->meta_final)
		chakra__jn_fail(P, "input ends before the document is complete");
	if (!P->failed && chakra_writer_finish(P->w) < 0)
		chakra__jn_writer_fail(P, P->w, P->out);
}

/* Either through rd or from (mem, mem_len). */
static int run(chakra_read_cb rd, void *rd_data, const void *mem, size_t mem_len,
               chakra_write_cb cb, void *cb_data, const chakra_jsonet_options *opts,
               chakra_jsonet_result *res_in)
{
	chakra_jsonet_result scratch;
	chakra_jsonet_result *const res = res_in ? res_in : &scratch;
	memset(res, 0, sizeof *res);
	chakra_jsonet_options o = CHAKRA_JSONET_OPTIONS_INIT;
	if (opts) {
		if (opts->version < 1 || opts->version > CHAKRA_JSONET_OPTIONS_VERSION) {
			snprintf(res->errmsg, sizeof res->errmsg,
			         "chakra_jsonet_options: version %u is not one this library knows",
			         opts->version);
			return CHAKRA_EINVAL;
		}
		o = *opts;
	}
	chakra__jn_key_init();
	pack *P = chakra_calloc(1, sizeof *P);
	if (!P) {
		snprintf(res->errmsg, sizeof res->errmsg, "out of memory");
		return CHAKRA_ENOMEM;
	}
	P->in_name = o.in_name ? o.in_name : "<json>";
	P->out = o.out_name ? o.out_name : "<output>";
	P->gzip = o.gzip;
	P->cb = cb;
	P->cb_data = cb_data;
	P->node = chakra_builder_new();
	P->meta = chakra_builder_new();
	P->jg = chakra__jg_new();
	unsigned char *buf = rd ? chakra_malloc(CHUNK) : NULL;
	if (!P->node || !P->meta || !P->jg || (rd && !buf)) {
		chakra__jn_fail(P, "out of memory");
		goto done;
	}
	P->rd = rd;
	P->rd_data = rd_data;
	P->mem = mem;
	P->mem_len = mem_len;
	P->buf = buf;
	parse(P);
done:;
	int rc = P->failed ? (P->code ? P->code : CHAKRA_ECORRUPT) : 0;
	if (P->failed)
		snprintf(res->errmsg, sizeof res->errmsg, "%s", P->err);
	res->nodes = P->nodes;
	chakra_free(buf);
	if (P->h)
		yajl_free(P->h);
	chakra__jg_free(P->jg);
	chakra_writer_close(P->w);
	chakra_writer_close(P->sw);
	if (P->sp.f)
		fclose(P->sp.f);
	chakra_free(P->sp.mem);
	chakra_builder_free(P->node);
	chakra_builder_free(P->meta);
	chakra__jn_keyset_free(&P->ks_top);
	chakra__jn_keyset_free(&P->ks_node);
	chakra_free(P->version);
	chakra_free(P->pool);
	chakra_free(P->toks);
	chakra_free(P->wkey);
	chakra_free(P);
	return rc;
}

int chakra_jsonet_pack(chakra_read_cb rd, void *rd_data, chakra_write_cb cb, void *data,
                       const chakra_jsonet_options *opts, chakra_jsonet_result *res)
{
	return run(rd, rd_data, NULL, 0, cb, data, opts, res);
}

int chakra_jsonet_pack_buffer(const void *text, size_t len, chakra_write_cb cb, void *data,
                              const chakra_jsonet_options *opts, chakra_jsonet_result *res)
{
	return run(NULL, NULL, text, len, cb, data, opts, res);
}
