/* JSON -> Chakra ET (see json_in.h). A small explicit state machine over
 * YAJL's callbacks: a stack of frames says where we are (top level,
 * metadata, node, attribute list...), the last map key says which field the
 * next value fills. Attribute values are kept as tokens until the
 * attribute object ends, because "kind" may come after "value".
 *
 * The metadata must precede the nodes in the .et file but may follow them
 * in the JSON (workload_graph files put workload_name/ngpus/soc last): nodes
 * seen before the metadata is complete are spooled, framed, to an
 * anonymous temporary file and copied behind the metadata at the end, so
 * memory stays bounded either way. */
#include "json_in.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#include "chakra/chakra.h"
#include "common.h"
#include "json_num.h"

enum frame {
	F_TOP, F_META, F_ATTRS, F_ATTR, F_VALLIST, F_NODES, F_NODE, F_DEPS, F_IO,
	F_WG_NODES, F_WG_NODE, F_WG_LIST
};

enum tok_type { T_NUM, T_STR, T_BOOL, T_NULL };
typedef struct tok {
	int type;
	size_t off, len; /* in pool; T_BOOL: len = value */
} tok;

/* Form of the input, from its top-level keys. */
enum { FORM_UNKNOWN, FORM_OURS, FORM_WG };

enum key_id {
	K_OTHER = 0,
	K_Id,
	K_Name,
	K_NodeType,
	K_attr,
	K_ctrlDeps,
	K_ctrl_deps,
	K_data_deps,
	K_doc_string,
	K_duration_micros,
	K_id,
	K_inputs,
	K_kind,
	K_metadata,
	K_name,
	K_nodes,
	K_outputs,
	K_runtime,
	K_shapes,
	K_start_time_micros,
	K_type,
	K_types,
	K_value,
	K_values,
	K_version,
	K_workload_graph,
};

static const char *const key_names[] = {
	"",
	"Id",
	"Name",
	"NodeType",
	"attr",
	"ctrlDeps",
	"ctrl_deps",
	"data_deps",
	"doc_string",
	"duration_micros",
	"id",
	"inputs",
	"kind",
	"metadata",
	"name",
	"nodes",
	"outputs",
	"runtime",
	"shapes",
	"start_time_micros",
	"type",
	"types",
	"value",
	"values",
	"version",
	"workload_graph",
};

/* Map keys are resolved once to an id, so each value is dispatched by
 * integer compares instead of a chain of strcmp. */
static int key_lookup(const char *k, size_t len)
{
	static size_t lens[sizeof key_names / sizeof *key_names];
	if (!lens[1])
		for (size_t i = 1; i < sizeof key_names / sizeof *key_names; i++)
			lens[i] = strlen(key_names[i]);
	for (size_t i = 1; i < sizeof key_names / sizeof *key_names; i++)
		if (lens[i] == len && k[0] == key_names[i][0] && !memcmp(k, key_names[i], len))
			return (int)i;
	return K_OTHER;
}

#define MAX_DEPTH 16

typedef struct pack {
	const char *in_name, *out;
	int gzip;
	yajl_handle h;
	/* position of the current chunk */
	const unsigned char *chunk;
	uint64_t chunk_base, lines_before;
	char err[1024];
	int failed;

	int stack[MAX_DEPTH];
	int depth;
	char key[64];      /* last map key (truncated copy, for messages) */
	int kid;           /* its enum key_id */
	char *wkey;        /* full last key in a workload_graph node / top level */
	size_t wkey_cap;
	int form;
	const char *first_extra_key_set; /* a top-level key only workload_graph allows */
	char first_extra_key[64];

	chakra_builder *node, *meta;
	char *version;
	int meta_seen, meta_final, in_node, node_has_id;
	uint64_t node_id;
	int deps_ctrl, io_which, attrs_meta;

	/* attribute being read */
	char *pool;
	size_t pool_len, pool_cap;
	tok *toks;
	size_t n_toks, toks_cap;
	size_t a_name, a_doc; /* pool offsets, (size_t)-1 = absent */
	size_t a_name_len, a_doc_len;
	int a_kind, a_have_kind, a_have_value, a_is_list;

	/* output */
	chakra_writer *w;
	FILE *spool;
	chakra_writer *sw;
	uint64_t nodes;
} pack;

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

static int fail(pack *P, const char *fmt, ...) TOOL_PRINTF(2, 3);
static int fail(pack *P, const char *fmt, ...)
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
	return 0; /* yajl: stop parsing */
}

static const char *tok_name(int type)
{
	switch (type) {
	case T_NUM: return "a number";
	case T_STR: return "a string";
	case T_BOOL: return "true/false";
	default: return "null";
	}
}

/* ---- output: final writer, or the spool while metadata is pending ---- */

static int spool_write(void *data, const void *buf, size_t len)
{
	return fwrite(buf, 1, len, (FILE *)data) == len ? 0 : -1;
}

static long spool_read(void *data, void *buf, size_t cap)
{
	size_t n = fread(buf, 1, cap, (FILE *)data);
	return n == 0 && ferror((FILE *)data) ? -1 : (long)n;
}

static int writer_fail(pack *P, chakra_writer *w, const char *what)
{
	return fail(P, "%s: %s", what, w ? chakra_writer_errmsg(w) : "cannot open");
}

static int sink_node(pack *P)
{
	if (P->meta_final) {
		if (chakra_writer_write_node(P->w, P->node) < 0)
			return writer_fail(P, P->w, P->out);
	} else {
		if (!P->sw) {
			P->spool = tmpfile();
			if (!P->spool)
				return fail(P, "cannot create a temporary file: %s", strerror(errno));
			if (chakra_writer_open_cb(&P->sw, spool_write, P->spool, NULL) < 0 ||
			    chakra_writer_write_metadata(P->sw, "spool", NULL) < 0)
				return writer_fail(P, P->sw, "temporary file");
		}
		if (chakra_writer_write_node(P->sw, P->node) < 0)
			return writer_fail(P, P->sw, "temporary file");
	}
	P->nodes++;
	return 1;
}

/* Metadata complete: open the output, write it, copy spooled nodes. */
static int finalize_meta(pack *P)
{
	chakra_writer_options wo = CHAKRA_WRITER_OPTIONS_INIT;
	wo.gzip = P->gzip;
	wo.overwrite = 1; /* -o is explicit; inputs are protected by tool_check_output */
	if (chakra_writer_open(&P->w, P->out, &wo) < 0)
		return writer_fail(P, P->w, P->out);
	if (chakra_writer_write_metadata(P->w, P->version ? P->version : "", P->meta) < 0)
		return writer_fail(P, P->w, P->out);
	P->meta_final = 1;
	if (!P->sw)
		return 1;
	if (chakra_writer_finish(P->sw) < 0 || fflush(P->spool) != 0)
		return writer_fail(P, P->sw, "temporary file");
	rewind(P->spool);
	chakra_reader *r;
	chakra_reader_options ro = CHAKRA_READER_OPTIONS_INIT;
	ro.display_name = "temporary file";
	int rc = chakra_reader_open_cb(&r, spool_read, P->spool, &ro);
	const void *m;
	size_t len;
	while (rc >= 0 && (rc = chakra_reader_next_raw(r, &m, &len)) > 0)
		if (chakra_writer_write_raw(P->w, m, len) < 0) {
			chakra_reader_close(r);
			return writer_fail(P, P->w, P->out);
		}
	if (rc < 0) {
		fail(P, "%s", chakra_reader_errmsg(r));
		chakra_reader_close(r);
		return 0;
	}
	chakra_reader_close(r);
	return 1;
}

/* ---- attribute tokens ---- */

static int pool_add(pack *P, const void *s, size_t len, size_t *off)
{
	if (P->pool_len + len + 1 > P->pool_cap) {
		size_t cap = P->pool_cap ? P->pool_cap : 4096;
		while (cap < P->pool_len + len + 1)
			cap *= 2;
		char *p = realloc(P->pool, cap);
		if (!p)
			return fail(P, "out of memory");
		P->pool = p;
		P->pool_cap = cap;
	}
	*off = P->pool_len;
	memcpy(P->pool + P->pool_len, s, len);
	P->pool[P->pool_len + len] = 0;
	P->pool_len += len + 1;
	return 1;
}

static int tok_add(pack *P, int type, const void *s, size_t len)
{
	if (P->n_toks == P->toks_cap) {
		size_t cap = P->toks_cap ? P->toks_cap * 2 : 64;
		tok *t = realloc(P->toks, cap * sizeof *t);
		if (!t)
			return fail(P, "out of memory");
		P->toks = t;
		P->toks_cap = cap;
	}
	tok *t = &P->toks[P->n_toks];
	t->type = type;
	t->len = len;
	t->off = 0;
	if ((type == T_NUM || type == T_STR) && !pool_add(P, s, len, &t->off))
		return 0;
	P->n_toks++;
	return 1;
}

static void attr_begin(pack *P)
{
	P->pool_len = 0;
	P->n_toks = 0;
	P->a_name = P->a_doc = (size_t)-1;
	P->a_name_len = P->a_doc_len = 0;
	P->a_kind = 0;
	P->a_have_kind = P->a_have_value = P->a_is_list = 0;
}

static const char *attr_name(pack *P) { return P->a_name == (size_t)-1 ? "" : P->pool + P->a_name; }

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
		return fail(P, "attribute '%s': bytes value must be an even number of hex digits",
		            attr_name(P));
	for (size_t i = 0; i < t->len / 2; i++) {
		int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return fail(P, "attribute '%s': bytes value is not hex", attr_name(P));
		s[i] = (char)(hi << 4 | lo);
	}
	*len = t->len / 2;
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
			return fail(P, "attribute '%s' (bool): expected true/false, got %s", attr_name(P),
			            tok_name(t->type));
		*out = t->len;
		return 1;
	}
	if (t->type != T_NUM)
		return fail(P, "attribute '%s' (%s): expected an integer, got %s", attr_name(P), kn,
		            tok_name(t->type));
	const char *s = P->pool + t->off;
	if (kind_signed(k)) {
		int64_t v;
		if (json_num_i64(s, t->len, &v) < 0 ||
		    (kind_32(k) && (v < INT32_MIN || v > INT32_MAX)))
			return fail(P, "attribute '%s': value %s is out of range for kind %s", attr_name(P),
			            s, kn);
		*out = (uint64_t)v;
	} else {
		uint64_t v;
		if (json_num_u64(s, t->len, &v) < 0 || (kind_32(k) && v > UINT32_MAX))
			return fail(P, "attribute '%s': value %s is out of range for kind %s", attr_name(P),
			            s, kn);
		*out = v;
	}
	return 1;
}

static int tok_real(pack *P, const tok *t, int k, double *out)
{
	const char *kn = chakra_attr_kind_name(k);
	if (t->type != T_NUM && t->type != T_STR)
		return fail(P, "attribute '%s' (%s): expected a number or \"nan\"/\"inf\"/\"-inf\", got %s",
		            attr_name(P), kn, tok_name(t->type));
	if (json_num_real(P->pool + t->off, t->len, t->type == T_STR, k == CHAKRA_ATTR_FLOAT, out) < 0)
		return fail(P, t->type == T_STR
		                   ? "attribute '%s' (%s): string \"%s\" is not a number (only \"nan\", \"nan:0xBITS\", \"inf\", \"-inf\")"
		                   : "attribute '%s' (%s): value %s is out of range",
		            attr_name(P), kn, P->pool + t->off);
	return 1;
}

/* Add the attribute collected in the tokens, of kind `kind`, to b. */
static int attr_emit(pack *P, chakra_builder *b, int kind)
{
	const char *name = attr_name(P);
	if (P->a_name != (size_t)-1 && strlen(name) != P->a_name_len)
		return fail(P, "attribute name contains a NUL byte (not supported)");
	int rc;
	if (kind == CHAKRA_ATTR_NONE) {
		if (P->a_have_value)
			return fail(P, "attribute '%s' of kind none must not have a value", name);
		rc = chakra_builder_attr_empty(b, name);
		goto doc;
	}
	int list = kind % 2 == 0, k = list ? kind - 1 : kind;
	const char *kn = chakra_attr_kind_name(kind);
	if (!P->a_have_value)
		return fail(P, "attribute '%s' (%s) has no value", name, kn);
	if (list != P->a_is_list)
		return fail(P, "attribute '%s': kind %s needs %s value", name, kn,
		            list ? "an array" : "a scalar (not an array)");
	size_t n = P->n_toks;
	if (k == CHAKRA_ATTR_STRING || k == CHAKRA_ATTR_BYTES) {
		for (size_t i = 0; i < n; i++)
			if (P->toks[i].type != T_STR)
				return fail(P, "attribute '%s' (%s): expected a string, got %s", name, kn,
				            tok_name(P->toks[i].type));
		/* Decoded element pointers and lengths, kept in the token array. */
		const char **v = malloc((n ? n : 1) * sizeof *v);
		size_t *lens = malloc((n ? n : 1) * sizeof *lens);
		if (!v || !lens) {
			free(v);
			free(lens);
			return fail(P, "out of memory");
		}
		int ok = 1;
		for (size_t i = 0; i < n && ok; i++) {
			lens[i] = P->toks[i].len;
			if (k == CHAKRA_ATTR_BYTES)
				ok = unhex(P, &P->toks[i], &lens[i]);
			v[i] = P->pool + P->toks[i].off;
		}
		if (ok)
			rc = list ? chakra_builder_attr_list_string(b, name, (chakra_attr_kind)kind, v, lens, n)
			          : chakra_builder_attr_string(b, name, (chakra_attr_kind)kind, v[0], lens[0]);
		free(v);
		free(lens);
		if (!ok)
			return 0;
	} else if (k == CHAKRA_ATTR_DOUBLE || k == CHAKRA_ATTR_FLOAT) {
		if (!list) {
			double d;
			if (!tok_real(P, &P->toks[0], k, &d))
				return 0;
			rc = chakra_builder_attr_double(b, name, (chakra_attr_kind)kind, d);
		} else {
			double *v = malloc((n ? n : 1) * sizeof *v);
			if (!v)
				return fail(P, "out of memory");
			for (size_t i = 0; i < n; i++)
				if (!tok_real(P, &P->toks[i], k, &v[i])) {
					free(v);
					return 0;
				}
			rc = chakra_builder_attr_list_double(b, name, (chakra_attr_kind)kind, v, n);
			free(v);
		}
	} else {
		uint64_t *v = malloc((n ? n : 1) * sizeof *v);
		if (!v)
			return fail(P, "out of memory");
		for (size_t i = 0; i < n; i++)
			if (!tok_int(P, &P->toks[i], k, &v[i])) {
				free(v);
				return 0;
			}
		if (list)
			rc = chakra_builder_attr_list_uint(b, name, (chakra_attr_kind)kind, v, n);
		else if (kind_signed(k) || k == CHAKRA_ATTR_BOOL)
			rc = chakra_builder_attr_int(b, name, (chakra_attr_kind)kind, (int64_t)v[0]);
		else
			rc = chakra_builder_attr_uint(b, name, (chakra_attr_kind)kind, v[0]);
		free(v);
	}
doc:
	if (rc == 0 && P->a_doc != (size_t)-1)
		rc = chakra_builder_attr_set_doc(b, P->pool + P->a_doc, P->a_doc_len);
	if (rc < 0)
		return fail(P, "attribute '%s': %s", name, chakra_strerror(rc));
	return 1;
}

/* Our form: {"name","doc_string","kind","value"} object ended. */
static int attr_end(pack *P)
{
	if (!P->a_have_kind)
		return fail(P, "attribute '%s' has no \"kind\"", attr_name(P));
	return attr_emit(P, P->attrs_meta ? P->meta : P->node, P->a_kind);
}

/* workload_graph form: an extra key becomes an attribute whose kind follows
 * the JSON value: bool, int64 (uint64 above INT64_MAX), double, string, or
 * the list of these. */
static int attr_infer(pack *P, chakra_builder *b)
{
	int kind = 0;
	for (size_t i = 0; i < P->n_toks; i++) {
		const tok *t = &P->toks[i];
		int k;
		if (t->type == T_BOOL)
			k = CHAKRA_ATTR_BOOL;
		else if (t->type == T_STR)
			k = CHAKRA_ATTR_STRING;
		else if (t->type == T_NUM && json_num_is_int(P->pool + t->off, t->len))
			k = P->pool[t->off] != '-' && t->len >= 19 ? CHAKRA_ATTR_UINT64 : CHAKRA_ATTR_INT64;
		else if (t->type == T_NUM)
			k = CHAKRA_ATTR_DOUBLE;
		else
			return fail(P, "key '%s': null is not a value", attr_name(P));
		if (k == CHAKRA_ATTR_UINT64) { /* only if it does not fit int64 */
			int64_t v;
			if (json_num_i64(P->pool + t->off, t->len, &v) == 0)
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
			return fail(P, "key '%s': array mixes value types", attr_name(P));
	}
	if (kind == CHAKRA_ATTR_UINT64) /* mixed int64/uint64: negatives do not fit */
		for (size_t i = 0; i < P->n_toks; i++)
			if (P->pool[P->toks[i].off] == '-')
				return fail(P, "key '%s': integers do not fit one kind", attr_name(P));
	if (kind == 0)
		kind = CHAKRA_ATTR_INT64; /* empty array */
	return attr_emit(P, b, P->a_is_list ? kind + 1 : kind);
}

/* ---- dispatch ---- */

enum ev { EV_MAP, EV_ARRAY, EV_SCALAR };

static const char *ev_name(int ev, int type)
{
	return ev == EV_MAP ? "an object" : ev == EV_ARRAY ? "an array" : tok_name(type);
}

static int key_is(const pack *P, int k) { return P->kid == k; }
#define KEY(k) key_is(P, k)

static int push(pack *P, int f)
{
	if (P->depth >= MAX_DEPTH)
		return fail(P, "nesting too deep");
	P->stack[P->depth++] = f;
	return 1;
}


static int want_u64(pack *P, int ev, int type, const char *s, size_t len, uint64_t *out)
{
	if (ev != EV_SCALAR || type != T_NUM)
		return fail(P, "\"%s\": expected a non-negative integer, got %s", P->key,
		            ev_name(ev, type));
	if (json_num_u64(s, len, out) < 0)
		return fail(P, "\"%s\": %.*s is not an integer in 0..18446744073709551615", P->key,
		            (int)(len > 40 ? 40 : len), s);
	return 1;
}

static int want_str(pack *P, int ev, int type)
{
	if (ev != EV_SCALAR || type != T_STR)
		return fail(P, "\"%s\": expected a string, got %s", P->key, ev_name(ev, type));
	return 1;
}

static int set_type(pack *P, int ev, int type, const char *s, size_t len)
{
	if (ev == EV_SCALAR && type == T_STR) {
		int t = chakra_node_type_from_name(s);
		if (t < 0)
			return fail(P, "unknown node type \"%.*s\"", (int)(len > 40 ? 40 : len), s);
		chakra_builder_set_type(P->node, t);
		return 1;
	}
	int64_t v;
	if (ev != EV_SCALAR || type != T_NUM || json_num_i64(s, len, &v) < 0 || v < INT32_MIN ||
	    v > INT32_MAX)
		return fail(P, "\"%s\": expected a node type name or a 32-bit integer, got %s", P->key,
		            ev_name(ev, type));
	chakra_builder_set_type(P->node, (int)v);
	return 1;
}

static int node_begin(pack *P, int frame)
{
	chakra_builder_reset(P->node);
	P->in_node = 1;
	P->node_has_id = 0;
	return push(P, frame);
}

static int set_id(pack *P, int ev, int type, const char *s, size_t len)
{
	uint64_t v;
	if (!want_u64(P, ev, type, s, len, &v))
		return 0;
	chakra_builder_set_id(P->node, v);
	P->node_id = v;
	P->node_has_id = 1;
	return 1;
}

static int set_form(pack *P, int form)
{
	if (P->form != FORM_UNKNOWN && P->form != form)
		return fail(P, "top-level key \"%s\" mixes the jsonize form (metadata/nodes) with the "
		               "workload_graph form", P->key);
	P->form = form;
	if (form == FORM_OURS && P->first_extra_key_set)
		return fail(P, "unknown top-level key \"%s\" (expected \"metadata\" and \"nodes\")",
		            P->first_extra_key);
	return 1;
}

/* A value (scalar, or the start of a map/array) arrived. */
static int on_value(pack *P, int ev, int type, const char *s, size_t len)
{
	if (P->depth == 0) {
		if (ev != EV_MAP)
			return fail(P, "expected a JSON object at the top level, got %s", ev_name(ev, type));
		return push(P, F_TOP);
	}
	uint64_t u;
	switch (P->stack[P->depth - 1]) {
	case F_TOP:
		if (KEY(K_metadata)) {
			if (!set_form(P, FORM_OURS))
				return 0;
			if (ev != EV_MAP)
				return fail(P, "\"metadata\": expected an object, got %s", ev_name(ev, type));
			if (P->meta_seen)
				return fail(P, "\"metadata\" appears twice");
			P->meta_seen = 1;
			return push(P, F_META);
		}
		if (KEY(K_nodes)) {
			if (!set_form(P, FORM_OURS))
				return 0;
			if (ev != EV_ARRAY)
				return fail(P, "\"nodes\": expected an array, got %s", ev_name(ev, type));
			return push(P, F_NODES);
		}
		if (KEY(K_workload_graph)) {
			if (!set_form(P, FORM_WG))
				return 0;
			if (ev != EV_ARRAY)
				return fail(P, "\"workload_graph\": expected an array, got %s", ev_name(ev, type));
			return push(P, F_WG_NODES);
		}
		/* workload_graph files: other top-level keys are metadata attributes. */
		if (P->form == FORM_OURS)
			return fail(P, "unknown top-level key \"%s\" (expected \"metadata\" and \"nodes\")",
			            P->wkey);
		if (!P->first_extra_key_set) {
			snprintf(P->first_extra_key, sizeof P->first_extra_key, "%s", P->wkey);
			P->first_extra_key_set = P->first_extra_key;
		}
		if (ev != EV_SCALAR)
			return fail(P, "top-level key \"%s\": expected a scalar, got %s", P->wkey,
			            ev_name(ev, type));
		attr_begin(P);
		if (!pool_add(P, P->wkey, strlen(P->wkey), &P->a_name))
			return 0;
		P->a_name_len = strlen(P->wkey);
		P->a_have_value = 1;
		return tok_add(P, type, s, len) && attr_infer(P, P->meta);
	case F_META:
		if (KEY(K_version)) {
			if (!want_str(P, ev, type))
				return 0;
			free(P->version);
			P->version = strdup(s);
			return P->version ? 1 : fail(P, "out of memory");
		}
		if (KEY(K_attr)) {
			if (ev != EV_ARRAY)
				return fail(P, "\"attr\": expected an array, got %s", ev_name(ev, type));
			P->attrs_meta = 1;
			return push(P, F_ATTRS);
		}
		return fail(P, "unknown key \"%s\" in metadata (expected version, attr)", P->key);
	case F_ATTRS:
		if (ev != EV_MAP)
			return fail(P, "attribute list: expected an object, got %s", ev_name(ev, type));
		attr_begin(P);
		return push(P, F_ATTR);
	case F_ATTR:
		if (KEY(K_name) || KEY(K_doc_string)) {
			if (!want_str(P, ev, type))
				return 0;
			int nm = KEY(K_name);
			P->a_name_len = nm ? len : P->a_name_len;
			P->a_doc_len = nm ? P->a_doc_len : len;
			return pool_add(P, s, len, nm ? &P->a_name : &P->a_doc);
		}
		if (KEY(K_kind)) {
			int k = -1;
			int64_t v;
			if (ev == EV_SCALAR && type == T_STR)
				k = chakra_attr_kind_from_name(s);
			else if (ev == EV_SCALAR && type == T_NUM && json_num_i64(s, len, &v) == 0 &&
			         v >= 3 && v <= 32)
				k = (int)v;
			if (k < 0)
				return fail(P, "unknown attribute kind %s%.*s%s (expected int64, string_list, ...)",
				            type == T_STR ? "\"" : "", (int)(len > 40 ? 40 : len), s ? s : "",
				            type == T_STR ? "\"" : "");
			P->a_kind = k;
			P->a_have_kind = 1;
			return 1;
		}
		if (KEY(K_value)) {
			if (P->a_have_value)
				return fail(P, "attribute has two values");
			P->a_have_value = 1;
			if (ev == EV_ARRAY) {
				P->a_is_list = 1;
				return push(P, F_VALLIST);
			}
			if (ev == EV_MAP)
				return fail(P, "\"value\": expected a scalar or an array, got an object");
			return tok_add(P, type, s, len);
		}
		return fail(P, "unknown key \"%s\" in attribute (expected name, doc_string, kind, value)",
		            P->key);
	case F_VALLIST:
	case F_WG_LIST:
		if (ev != EV_SCALAR)
			return fail(P, "attribute value list: expected scalars, got %s", ev_name(ev, type));
		return tok_add(P, type, s, len);
	case F_NODES:
		if (ev != EV_MAP)
			return fail(P, "\"nodes\": expected objects, got %s", ev_name(ev, type));
		return node_begin(P, F_NODE);
	case F_WG_NODES:
		if (ev != EV_MAP)
			return fail(P, "\"workload_graph\": expected objects, got %s", ev_name(ev, type));
		return node_begin(P, F_WG_NODE);
	case F_NODE:
		if (KEY(K_id))
			return set_id(P, ev, type, s, len);
		if (KEY(K_name))
			return want_str(P, ev, type) &&
			       (chakra_builder_set_name(P->node, s, len) == 0 || fail(P, "out of memory"));
		if (KEY(K_type))
			return set_type(P, ev, type, s, len);
		if (KEY(K_ctrl_deps) || KEY(K_data_deps)) {
			if (ev != EV_ARRAY)
				return fail(P, "\"%s\": expected an array, got %s", P->key, ev_name(ev, type));
			P->deps_ctrl = KEY(K_ctrl_deps);
			return push(P, F_DEPS);
		}
		if (KEY(K_start_time_micros) || KEY(K_duration_micros)) {
			if (!want_u64(P, ev, type, s, len, &u))
				return 0;
			if (KEY(K_start_time_micros))
				chakra_builder_set_start_time_micros(P->node, u);
			else
				chakra_builder_set_duration_micros(P->node, u);
			return 1;
		}
		if (KEY(K_inputs) || KEY(K_outputs)) {
			if (ev != EV_MAP)
				return fail(P, "\"%s\": expected an object, got %s", P->key, ev_name(ev, type));
			P->io_which = KEY(K_inputs) ? CHAKRA_IO_INPUTS : CHAKRA_IO_OUTPUTS;
			/* present even if every string is empty */
			if (chakra_builder_set_io(P->node, (chakra_io)P->io_which, CHAKRA_IO_VALUES, "", 0))
				return fail(P, "out of memory");
			return push(P, F_IO);
		}
		if (KEY(K_attr)) {
			if (ev != EV_ARRAY)
				return fail(P, "\"attr\": expected an array, got %s", ev_name(ev, type));
			P->attrs_meta = 0;
			return push(P, F_ATTRS);
		}
		return fail(P, "unknown key \"%s\" in node", P->key);
	case F_DEPS: {
		if (!want_u64(P, ev, type, s, len, &u))
			return 0;
		int rc = P->deps_ctrl ? chakra_builder_add_ctrl_dep(P->node, u)
		                      : chakra_builder_add_data_dep(P->node, u);
		return rc == 0 ? 1 : fail(P, "out of memory");
	}
	case F_IO: {
		int f = KEY(K_values) ? CHAKRA_IO_VALUES : KEY(K_shapes) ? CHAKRA_IO_SHAPES
		        : KEY(K_types) ? CHAKRA_IO_TYPES : -1;
		if (f < 0)
			return fail(P, "unknown key \"%s\" in inputs/outputs (expected values, shapes, types)",
			            P->key);
		if (!want_str(P, ev, type))
			return 0;
		return chakra_builder_set_io(P->node, (chakra_io)P->io_which, (chakra_io_field)f, s, len) == 0
		       ? 1 : fail(P, "out of memory");
	}
	case F_WG_NODE:
		if (KEY(K_Id))
			return set_id(P, ev, type, s, len);
		if (KEY(K_Name))
			return want_str(P, ev, type) &&
			       (chakra_builder_set_name(P->node, s, len) == 0 || fail(P, "out of memory"));
		if (KEY(K_NodeType))
			return set_type(P, ev, type, s, len);
		if (KEY(K_ctrlDeps) || KEY(K_data_deps)) {
			if (ev != EV_ARRAY)
				return fail(P, "\"%s\": expected an array, got %s", P->key, ev_name(ev, type));
			P->deps_ctrl = KEY(K_ctrlDeps);
			return push(P, F_DEPS);
		}
		if (KEY(K_runtime)) {
			if (!want_u64(P, ev, type, s, len, &u))
				return 0;
			chakra_builder_set_duration_micros(P->node, u);
			return 1;
		}
		/* Anything else (is_cpu_op, comm_size, ...) is an attribute. */
		if (ev == EV_MAP)
			return fail(P, "key \"%s\": objects are not supported as attribute values", P->wkey);
		attr_begin(P);
		if (!pool_add(P, P->wkey, strlen(P->wkey), &P->a_name))
			return 0;
		P->a_name_len = strlen(P->wkey);
		P->a_have_value = 1;
		if (ev == EV_ARRAY) {
			P->a_is_list = 1;
			return push(P, F_WG_LIST);
		}
		return tok_add(P, type, s, len) && attr_infer(P, P->node);
	}
	return fail(P, "internal error: bad parser state");
}

/* ---- yajl callbacks ---- */

static int cb_null(void *c) { return on_value(c, EV_SCALAR, T_NULL, "", 0); }

/* T_BOOL tokens keep their value in the length field. */
static int cb_bool(void *c, int b) { return on_value(c, EV_SCALAR, T_BOOL, "", (size_t)(b != 0)); }

static int cb_number(void *c, const char *s, size_t len)
{
	pack *P = c;
	char buf[64];
	/* on_value wants NUL-terminated text for messages and name lookups */
	if (len < sizeof buf) {
		memcpy(buf, s, len);
		buf[len] = 0;
		return on_value(P, EV_SCALAR, T_NUM, buf, len);
	}
	char *t = malloc(len + 1);
	if (!t)
		return fail(P, "out of memory");
	memcpy(t, s, len);
	t[len] = 0;
	int rc = on_value(P, EV_SCALAR, T_NUM, t, len);
	free(t);
	return rc;
}

static int cb_string(void *c, const unsigned char *s, size_t len)
{
	pack *P = c;
	/* yajl's buffer is not NUL-terminated: copy through the scratch key
	 * buffer's sibling (the pool would be reset by attr_begin). */
	char small[256];
	char *t = len < sizeof small ? small : malloc(len + 1);
	if (!t)
		return fail(P, "out of memory");
	memcpy(t, s, len);
	t[len] = 0;
	int rc = on_value(P, EV_SCALAR, T_STR, t, len);
	if (t != small)
		free(t);
	return rc;
}

static int cb_start_map(void *c) { return on_value(c, EV_MAP, 0, NULL, 0); }
static int cb_start_array(void *c) { return on_value(c, EV_ARRAY, 0, NULL, 0); }

static int cb_map_key(void *c, const unsigned char *s, size_t len)
{
	pack *P = c;
	size_t n = len < sizeof P->key - 1 ? len : sizeof P->key - 1;
	memcpy(P->key, s, n);
	P->key[n] = 0;
	P->kid = len < sizeof P->key - 1 ? key_lookup(P->key, len) : K_OTHER;
	if (len + 1 > P->wkey_cap) {
		char *w = realloc(P->wkey, len + 1);
		if (!w)
			return fail(P, "out of memory");
		P->wkey = w;
		P->wkey_cap = len + 1;
	}
	memcpy(P->wkey, s, len);
	P->wkey[len] = 0;
	return 1;
}

static int cb_end_map(void *c)
{
	pack *P = c;
	int f = P->stack[--P->depth];
	switch (f) {
	case F_ATTR:
		return attr_end(P);
	case F_NODE:
	case F_WG_NODE:
		if (!sink_node(P))
			return 0;
		P->in_node = 0;
		return 1;
	case F_META:
		return finalize_meta(P);
	case F_TOP:
		if (P->form == FORM_UNKNOWN)
			return fail(P, "no \"metadata\"/\"nodes\" (jsonize form) or \"workload_graph\" key");
		if (P->form == FORM_OURS && !P->meta_final)
			return fail(P, "no \"metadata\" object");
		if (P->form == FORM_WG) {
			free(P->version);
			/* The schema version the reference tools write (et-format.md). */
			P->version = strdup("0.0.4");
			if (!P->version)
				return fail(P, "out of memory");
			return finalize_meta(P);
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
		return attr_infer(P, P->node);
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
	unsigned char *e = yajl_get_error(P->h, 0, buf, len);
	char msg[256];
	snprintf(msg, sizeof msg, "%s", e ? (const char *)e : "parse error");
	if (e)
		yajl_free_error(P->h, e);
	/* yajl's messages end with a newline */
	size_t ml = strlen(msg);
	while (ml && (msg[ml - 1] == '\n' || msg[ml - 1] == ' '))
		msg[--ml] = 0;
	fail(P, "invalid JSON: %s", msg);
}

int json_pack(FILE *in, const char *in_name, const char *out, int gzip, unsigned long long *n_nodes)
{
	pack *P = calloc(1, sizeof *P);
	if (!P)
		return tool_err("out of memory");
	P->in_name = in_name;
	P->out = out;
	P->gzip = gzip;
	P->node = chakra_builder_new();
	P->meta = chakra_builder_new();
	P->h = yajl_alloc(&callbacks, NULL, P);
	int status = 1;
	if (!P->node || !P->meta || !P->h) {
		tool_err("out of memory");
		goto done;
	}
	/* Names in real traces need not be UTF-8; jsonize writes them as is. */
	yajl_config(P->h, yajl_dont_validate_strings, 1);
	enum { CHUNK = 1 << 16 };
	unsigned char *buf = malloc(CHUNK);
	if (!buf) {
		tool_err("out of memory");
		goto done;
	}
	size_t n;
	yajl_status st = yajl_status_ok;
	while ((n = fread(buf, 1, CHUNK, in)) > 0) {
		P->chunk = buf;
		st = yajl_parse(P->h, buf, n);
		if (st != yajl_status_ok) {
			report_yajl(P, buf, n);
			break;
		}
		P->chunk_base += n;
		P->lines_before += count_lines(buf, n);
	}
	if (!P->failed && ferror(in))
		fail(P, "read error: %s", strerror(errno));
	if (!P->failed) {
		P->chunk = NULL;
		st = yajl_complete_parse(P->h);
		if (st != yajl_status_ok)
			report_yajl(P, NULL, 0);
	}
	free(buf);
	if (!P->failed && P->chunk_base == 0)
		fail(P, "empty input");
	if (!P->failed && !P->meta_final)
		fail(P, "input ends before the document is complete");
	if (!P->failed && chakra_writer_finish(P->w) < 0)
		writer_fail(P, P->w, out);
	if (P->failed)
		tool_err("%s", P->err);
	else
		status = 0;
	if (n_nodes)
		*n_nodes = P->nodes;
done:
	if (P->h)
		yajl_free(P->h);
	/* close without finish drops the temporary output */
	chakra_writer_close(P->w);
	chakra_writer_close(P->sw);
	if (P->spool)
		fclose(P->spool);
	chakra_builder_free(P->node);
	chakra_builder_free(P->meta);
	free(P->version);
	free(P->pool);
	free(P->toks);
	free(P->wkey);
	free(P);
	return status;
}
