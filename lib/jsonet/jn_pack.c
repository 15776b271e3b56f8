/* SPDX-License-Identifier: Apache-2.0 */
/* JSON -> ET: errors with their position, the format's handlers over
 * lib/json's driver (jdrive.h), and chakra_jsonet_pack_*. */
#include "jn_impl.h"

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
	const unsigned char *chunk = P->j.chunk;
	size_t off = P->j.h && chunk ? yajl_get_bytes_consumed(P->j.h) : 0;
	*byte = (uint64_t)P->j.chunk_base + off;
	*line = P->lines_before + (chunk ? count_lines(chunk, off) : 0) + 1;
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

/* ---- the format's handlers ---- */

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

static int cb_string(void *c, const char *s, size_t len)
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

static int cb_scalar(void *c, char kind, const char *s, size_t len)
{
	switch (kind) {
	case 's': return cb_string(c, s, len);
	case 'n': return cb_number(c, s, len);
	/* T_BOOL tokens keep their value in the length field */
	case 'b': return chakra__jn_on_value(c, EV_SCALAR, T_BOOL, "", (size_t)(len == 4));
	default: return chakra__jn_on_value(c, EV_SCALAR, T_NULL, "", 0);
	}
}

static int cb_open(void *c, int is_map)
{
	return chakra__jn_on_value(c, is_map ? EV_MAP : EV_ARRAY, 0, NULL, 0);
}

static int cb_map_key(void *c, const char *s, size_t len)
{
	pack *P = c;
	size_t n = len < sizeof P->key - 1 ? len : sizeof P->key - 1;
	memcpy(P->key, s, n);
	P->key[n] = 0;
	P->key_kind = 0;
	P->kid = chakra__jn_key_lookup(s, len, &P->key_kind);
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

static int cb_close(void *c, int is_map)
{
	return is_map ? cb_end_map(c) : cb_end_array(c);
}

static const chakra__json_fmt format = { cb_scalar, cb_map_key, cb_open, cb_close };

/* ---- the driver's failures ---- */

/* YAJL ran out of memory: its state is dropped, the message has no
 * position inside the chunk. */
static void fail_nomem(pack *P)
{
	P->j.h = NULL;
	P->failed = 0;
	chakra__jn_fail(P, "out of memory");
	P->code = CHAKRA_ENOMEM;
}

static void report_yajl(pack *P)
{
	if (P->failed)
		return;
	if (P->top_done && P->form != FORM_PB) {
		/* only protobuf's stream has more than one top-level value */
		chakra__jn_fail(P, "invalid JSON: parse error: trailing garbage");
		return;
	}
	char msg[256];
	int got = chakra__json_yajl_error(&P->j, msg, sizeof msg);
	if (got < 0) {
		fail_nomem(P);
		return;
	}
	if (!got)
		snprintf(msg, sizeof msg, "parse error");
	/* yajl's messages end with a newline */
	size_t ml = strlen(msg);
	while (ml && (msg[ml - 1] == '\n' || msg[ml - 1] == ' '))
		msg[--ml] = 0;
	chakra__jn_fail(P, "invalid JSON: %s", msg);
}

static void on_fail(chakra__json_ctx *c, int what, int code, const char *msg)
{
	pack *P = (pack *)c;
	(void)code;
	(void)msg;
	switch (what) {
	case CHAKRA__JSON_NOMEM_YAJL:
		fail_nomem(P);
		break;
	case CHAKRA__JSON_NOMEM:
		chakra__jn_fail(P, "out of memory");
		break;
	case CHAKRA__JSON_SOURCE:
		if (!P->failed) {
			chakra__jn_fail(P, "read error: %s", strerror(errno));
			P->code = CHAKRA_EIO;
		}
		break;
	default: /* bad JSON, or a handler stopped (after its own message) */
		report_yajl(P);
		break;
	}
}

/* Lines are counted a chunk at a time, for the messages. */
static void parsed(void *c, const unsigned char *p, size_t n)
{
	((pack *)c)->lines_before += count_lines(p, n);
}

enum { CHUNK = 1 << 16 };

/* The parse: from rd, or from memory in one piece. */
static void parse(pack *P, chakra_read_cb rd, void *rd_data, const void *mem, size_t mem_len)
{
	chakra__json_src src = { .name = P->in_name, .chunk = CHUNK, .parsed = parsed,
	                         /* Names in real traces need not be UTF-8; jsonize
	                          * writes them as is. Protobuf's stream puts
	                          * messages back to back. */
	                         .raw_strings = 1, .multiple = 1 };
	static const unsigned char none[1];
	if (rd) {
		src.rd = rd;
		src.rd_data = rd_data;
	} else {
		src.buf = mem_len ? mem : none;
		src.len = mem_len;
		src.whole = 1;
	}
	if (chakra__json_run(&src, &format, on_fail, &P->j) < 0)
		return;
	if (!P->failed && P->j.chunk_base == 0)
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
	if (!P->node || !P->meta)
		chakra__jn_fail(P, "out of memory");
	else
		parse(P, rd, rd_data, mem, mem_len);
	int rc = P->failed ? (P->code ? P->code : CHAKRA_ECORRUPT) : 0;
	if (P->failed)
		snprintf(res->errmsg, sizeof res->errmsg, "%s", P->err);
	res->nodes = P->nodes;
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
