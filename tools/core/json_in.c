/* SPDX-License-Identifier: Apache-2.0 */
/* JSON -> Chakra ET (see json_in.h). A small explicit state machine over
 * YAJL's callbacks: a stack of frames says where we are (top level,
 * metadata, node, attribute list...), the last map key says which field the
 * next value fills. Attribute values are kept as tokens until the
 * attribute object ends, because "kind" may come after "value".
 *
 * Three forms, told apart by the top level: jsonize's {"metadata","nodes"},
 * Chakra's {"workload_graph", ...} and protobuf's JSON mapping (Chakra's
 * chakra_jsonizer): a GlobalMetadata object followed by one object per
 * Node, back to back or inside one array. Every object's keys are checked
 * for duplicates (a bit per known key; names of free-form attribute keys
 * are sorted and compared when the object ends).
 *
 * The metadata must precede the nodes in the .et file but may follow them
 * in the JSON (workload_graph files put workload_name/ngpus/soc last): nodes
 * seen before the metadata is complete are spooled, framed, to an
 * anonymous temporary file and copied behind the metadata at the end, so
 * memory stays bounded either way. */
#include "json_in.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#include "chakra/chakra.h"
#include "common.h"
#include "json_num.h"
#include "jsonout.h"

enum frame {
	F_TOP, F_META, F_ATTRS, F_ATTR, F_VALLIST, F_NODES, F_NODE, F_DEPS, F_IO,
	F_WG_NODES, F_WG_NODE, F_WG_LIST,
	/* protobuf form */
	F_PB_TOPARR, F_PB_META, F_PB_NODE, F_PB_ATTRS, F_PB_ATTR, F_PB_LIST
};

enum tok_type { T_NUM, T_STR, T_BOOL, T_NULL };
typedef struct tok {
	int type;
	size_t off, len; /* in pool; T_BOOL: len = value */
} tok;

/* Form of the input, from its top level. */
enum { FORM_UNKNOWN, FORM_OURS, FORM_WG, FORM_PB, FORM_PB_ARRAY };

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
	/* protobuf's lowerCamelCase names (the original names above are
	 * accepted too, as protobuf's parser does) */
	K_dataDeps,
	K_startTimeMicros,
	K_durationMicros,
	K_docString,
	K_pbval,   /* a member of AttributeProto's value oneof; kind in key_kind */
	K_COUNT
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
	"dataDeps",
	"startTimeMicros",
	"durationMicros",
	"docString",
};

/* Map keys are resolved once to an id (through a small hash table built on
 * first use), so each value is dispatched by integer compares. The table
 * also holds the 60 names of the oneof members ("int64Val", "int64_val",
 * "int64List", ...), all K_pbval with their kind. */
typedef struct key_ent {
	char name[24];
	unsigned char len, kid, kind;
} key_ent;
static key_ent key_tab[256];

static unsigned key_hash(const char *k, size_t len)
{
	unsigned h = 2166136261u;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)k[i]) * 16777619u;
	return h;
}

static void key_add(const char *name, int kid, int kind)
{
	size_t len = strlen(name);
	unsigned i = key_hash(name, len) & 255;
	while (key_tab[i].len)
		i = (i + 1) & 255;
	memcpy(key_tab[i].name, name, len);
	key_tab[i].len = (unsigned char)len;
	key_tab[i].kid = (unsigned char)kid;
	key_tab[i].kind = (unsigned char)kind;
}

static void key_init(void)
{
	static int done;
	if (done)
		return;
	done = 1;
	for (int i = 1; i < K_pbval; i++)
		key_add(key_names[i], i, 0);
	for (int k = CHAKRA_ATTR_DOUBLE; k <= CHAKRA_ATTR_BYTES_LIST; k++) {
		const char *kn = chakra_attr_kind_name(k);
		char camel[24], snake[24];
		size_t n = strlen(kn);
		if (k % 2 == 0) { /* "int64_list": as is, and "int64List" */
			snprintf(snake, sizeof snake, "%s", kn);
			snprintf(camel, sizeof camel, "%.*sList", (int)(n - 5), kn);
		} else {
			snprintf(snake, sizeof snake, "%s_val", kn);
			snprintf(camel, sizeof camel, "%sVal", kn);
		}
		key_add(snake, K_pbval, k);
		key_add(camel, K_pbval, k);
	}
}

static int key_lookup(const char *k, size_t len, int *kind)
{
	if (len == 0 || len >= sizeof key_tab[0].name)
		return K_OTHER;
	for (unsigned i = key_hash(k, len) & 255; key_tab[i].len; i = (i + 1) & 255)
		if (key_tab[i].len == len && !memcmp(key_tab[i].name, k, len)) {
			*kind = key_tab[i].kind;
			return key_tab[i].kid;
		}
	return K_OTHER;
}

/* For duplicate detection in the protobuf form, the two spellings of a
 * field are one key. */
static int key_canon(int kid)
{
	switch (kid) {
	case K_dataDeps: return K_data_deps;
	case K_ctrlDeps: return K_ctrl_deps;
	case K_startTimeMicros: return K_start_time_micros;
	case K_durationMicros: return K_duration_micros;
	case K_docString: return K_doc_string;
	default: return kid;
	}
}

#define MAX_DEPTH 16
/* Nodes that arrive before the metadata (workload_graph files put it last)
 * are spooled in memory up to this size, then in an anonymous file. */
#define SPOOL_MEM ((size_t)8 << 20)

typedef struct spool {
	unsigned char *mem;
	size_t len, cap, rd;
	FILE *f;
	int err;
} spool;

/* Free-form keys of one object (workload_graph attributes), checked for
 * duplicates when the object ends: sorting has no worst case that chosen
 * names could trigger, as a hash could. */
typedef struct keyset {
	char *pool;
	size_t plen, pcap;
	size_t *off; /* entries: offset of a size_t length then the bytes */
	size_t n, cap;
} keyset;

typedef struct pack {
	const char *in_name, *out;
	int gzip;
	chakra_write_cb cb;
	void *cb_data;
	yajl_handle h;
	/* position of the current chunk */
	const unsigned char *chunk;
	uint64_t chunk_base, lines_before;
	char err[1024];
	int failed;

	int stack[MAX_DEPTH];
	uint64_t seen[MAX_DEPTH]; /* per object frame: known keys met (1 << kid) */
	int depth;
	int top_done;      /* the first top-level value is complete */
	char key[64];      /* last map key (truncated copy, for messages) */
	int kid;           /* its enum key_id */
	int key_kind;      /* K_pbval: the attribute kind the key names */
	keyset ks_top, ks_node; /* workload_graph free-form keys */
	int version_pending;    /* top-level "version" before the form is known */
	char *wkey;        /* full last key in a workload_graph node / top level */
	size_t wkey_cap, wkey_len;
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
	spool sp;
	chakra_writer *sw;
	uint64_t nodes;
	int pb; /* protobuf form: strings may hold integers, bytes are base64 */
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
	spool *sp = data;
	if (!sp->f && sp->len + len <= SPOOL_MEM) {
		if (sp->len + len > sp->cap) {
			size_t cap = sp->cap ? sp->cap : 1 << 16;
			while (cap < sp->len + len)
				cap *= 2;
			unsigned char *m = realloc(sp->mem, cap);
			if (!m)
				return -1;
			sp->mem = m;
			sp->cap = cap;
		}
		memcpy(sp->mem + sp->len, buf, len);
		sp->len += len;
		return 0;
	}
	if (!sp->f) {
		if (!(sp->f = tmpfile())) {
			sp->err = errno;
			return -1;
		}
		if (fwrite(sp->mem, 1, sp->len, sp->f) != sp->len)
			return -1;
		free(sp->mem);
		sp->mem = NULL;
		sp->len = sp->cap = 0;
	}
	return fwrite(buf, 1, len, sp->f) == len ? 0 : -1;
}

static long spool_read(void *data, void *buf, size_t cap)
{
	spool *sp = data;
	if (!sp->f) {
		size_t n = sp->len - sp->rd < cap ? sp->len - sp->rd : cap;
		memcpy(buf, sp->mem + sp->rd, n);
		sp->rd += n;
		return (long)n;
	}
	size_t n = fread(buf, 1, cap, sp->f);
	return n == 0 && ferror(sp->f) ? -1 : (long)n;
}

static int writer_fail(pack *P, chakra_writer *w, const char *what)
{
	/* no writer: opening it failed, and only for want of memory */
	return fail(P, "%s: %s", what, w ? chakra_writer_errmsg(w) : "out of memory");
}

static int sink_node(pack *P)
{
	if (P->meta_final) {
		if (chakra_writer_write_node(P->w, P->node) < 0)
			return writer_fail(P, P->w, P->out);
	} else {
		if (!P->sw) {
			if (chakra_writer_open_cb(&P->sw, spool_write, &P->sp, NULL) < 0 ||
			    chakra_writer_write_metadata(P->sw, "spool", NULL) < 0)
				return writer_fail(P, P->sw, "temporary file");
		}
		if (chakra_writer_write_node(P->sw, P->node) < 0)
			return P->sp.err ? fail(P, "cannot create a temporary file: %s", strerror(P->sp.err))
			                 : writer_fail(P, P->sw, "temporary file");
	}
	P->nodes++;
	return 1;
}

/* Metadata complete: open the output, write it, copy spooled nodes. */
static int finalize_meta(pack *P)
{
	chakra_writer_options wo = CHAKRA_WRITER_OPTIONS_INIT;
	wo.gzip = P->gzip;
	if (chakra_writer_open_cb(&P->w, P->cb, P->cb_data, &wo) < 0)
		return writer_fail(P, P->w, P->out);
	if (chakra_writer_write_metadata(P->w, P->version ? P->version : "", P->meta) < 0)
		return writer_fail(P, P->w, P->out);
	P->meta_final = 1;
	if (!P->sw)
		return 1;
	if (chakra_writer_finish(P->sw) < 0 || (P->sp.f && fflush(P->sp.f) != 0))
		return writer_fail(P, P->sw, "temporary file");
	if (P->sp.f)
		rewind(P->sp.f);
	chakra_reader *r;
	chakra_reader_options ro = CHAKRA_READER_OPTIONS_INIT;
	ro.display_name = "temporary file";
	int rc = chakra_reader_open_cb(&r, spool_read, &P->sp, &ro);
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

/* Room for need elements of elem bytes in *p (capacity *cap, doubling):
 * 1, or 0 after fail(). */
static int room(pack *P, void *p, size_t *cap, size_t need, size_t elem, size_t first)
{
	if (need <= *cap)
		return 1;
	size_t c = *cap ? *cap : first;
	while (c < need)
		c *= 2;
	void *np = realloc(*(void **)p, c * elem);
	if (!np)
		return fail(P, "out of memory");
	*(void **)p = np;
	*cap = c;
	return 1;
}

static int pool_add(pack *P, const void *s, size_t len, size_t *off)
{
	if (!room(P, &P->pool, &P->pool_cap, P->pool_len + len + 1, 1, 4096))
		return 0;
	*off = P->pool_len;
	memcpy(P->pool + P->pool_len, s, len);
	P->pool[P->pool_len + len] = 0;
	P->pool_len += len + 1;
	return 1;
}

static int tok_add(pack *P, int type, const void *s, size_t len)
{
	if (!room(P, &P->toks, &P->toks_cap, P->n_toks + 1, sizeof *P->toks, 64))
		return 0;
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
		return fail(P, "attribute '%s': bytes value is not base64", attr_name(P));
	uint32_t acc = 0;
	int bits = 0;
	for (size_t i = 0; i < n; i++) {
		int v = b64val((unsigned char)s[i]);
		if (v < 0)
			return fail(P, "attribute '%s': bytes value is not base64 (character %zu)",
			            attr_name(P), i);
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
static int pb_intstr(const char *s, size_t len)
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
			return fail(P, "attribute '%s' (bool): expected true/false, got %s", attr_name(P),
			            tok_name(t->type));
		*out = t->len;
		return 1;
	}
	/* protobuf's mapping writes 64-bit integers as strings (and accepts
	 * strings for any integer) */
	if (t->type != T_NUM && !(P->pb && t->type == T_STR && pb_intstr(P->pool + t->off, t->len)))
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
	if (P->pb && t->type == T_STR) {
		const char *s = P->pool + t->off;
		if (!strcmp(s, "NaN"))
			*out = k == CHAKRA_ATTR_FLOAT ? (double)nanf("") : nan("");
		else if (!strcmp(s, "Infinity"))
			*out = INFINITY;
		else if (!strcmp(s, "-Infinity"))
			*out = -INFINITY;
		else if (!t->len || json_num_real(s, t->len, 0, k == CHAKRA_ATTR_FLOAT, out) < 0)
			return fail(P, "attribute '%s' (%s): string \"%.40s\" is not a number (only "
			               "\"NaN\", \"Infinity\", \"-Infinity\" or digits)", attr_name(P), kn, s);
		return 1;
	}
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
				ok = P->pb ? unb64(P, &P->toks[i], &lens[i]) : unhex(P, &P->toks[i], &lens[i]);
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

static int is_object_frame(int f)
{
	return f == F_TOP || f == F_META || f == F_ATTR || f == F_NODE || f == F_IO ||
	       f == F_WG_NODE || f == F_PB_META || f == F_PB_NODE || f == F_PB_ATTR ||
	       f == F_PB_LIST;
}

static int push(pack *P, int f)
{
	if (P->depth >= MAX_DEPTH)
		return fail(P, "nesting too deep");
	P->seen[P->depth] = 0;
	P->stack[P->depth++] = f;
	return 1;
}

/* ---- free-form keys: duplicates found by sorting when the object ends ---- */

static int keyset_add(pack *P, keyset *k, const char *s, size_t len)
{
	size_t need = k->plen + sizeof(size_t) + len;
	if (!room(P, &k->pool, &k->pcap, need, 1, 1024) ||
	    !room(P, &k->off, &k->cap, k->n + 1, sizeof *k->off, 64))
		return 0;
	k->off[k->n++] = k->plen;
	memcpy(k->pool + k->plen, &len, sizeof len);
	memcpy(k->pool + k->plen + sizeof len, s, len);
	k->plen = need;
	return 1;
}

static const char *ks_pool; /* for the qsort comparator */

static int ks_cmp(const void *a, const void *b)
{
	size_t la, lb;
	const char *pa = ks_pool + *(const size_t *)a, *pb = ks_pool + *(const size_t *)b;
	memcpy(&la, pa, sizeof la);
	memcpy(&lb, pb, sizeof lb);
	int c = memcmp(pa + sizeof la, pb + sizeof lb, la < lb ? la : lb);
	return c ? c : (la > lb) - (la < lb);
}

/* Fail on a key given twice, then empty the set. */
static int keyset_check(pack *P, keyset *k, const char *where)
{
	int ok = 1;
	if (k->n > 1) {
		ks_pool = k->pool;
		qsort(k->off, k->n, sizeof *k->off, ks_cmp);
		for (size_t i = 1; i < k->n && ok; i++)
			if (ks_cmp(&k->off[i - 1], &k->off[i]) == 0) {
				size_t len;
				memcpy(&len, k->pool + k->off[i], sizeof len);
				ok = fail(P, "key \"%.*s\" appears twice in %s", (int)(len > 60 ? 60 : len),
				          k->pool + k->off[i] + sizeof len, where);
			}
	}
	k->n = k->plen = 0;
	return ok;
}

static void keyset_free(keyset *k)
{
	free(k->pool);
	free(k->off);
}

/* ---- values ---- */

static int want_u64(pack *P, int ev, int type, const char *s, size_t len, uint64_t *out)
{
	if (ev != EV_SCALAR || (type != T_NUM && !(P->pb && type == T_STR && pb_intstr(s, len))))
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
	if (ev == EV_SCALAR && type == T_STR && !(P->pb && pb_intstr(s, len))) {
		int t = chakra_node_type_from_name(s);
		if (t < 0)
			return fail(P, "unknown node type \"%.*s\"", (int)(len > 40 ? 40 : len), s);
		chakra_builder_set_type(P->node, t);
		return 1;
	}
	int64_t v;
	if (ev != EV_SCALAR || (type != T_NUM && !(P->pb && type == T_STR)) ||
	    json_num_i64(s, len, &v) < 0 || v < INT32_MIN || v > INT32_MAX)
		return fail(P, "\"%s\": expected a node type name or a 32-bit integer, got %s", P->key,
		            ev_name(ev, type));
	/* The library's reader takes a type up to 2^32-1 on the wire and
	 * rejects the sign-extended encoding protobuf gives a negative one, so
	 * a trace with one could not be read back: refuse it (fuzz_pack). */
	if (v < 0)
		return fail(P, "\"%s\": node type %lld: negative types are not supported (the "
		               "reader cannot read them back)", P->key, (long long)v);
	chakra_builder_set_type(P->node, (int)v);
	return 1;
}

static int node_begin(pack *P, int frame)
{
	chakra_builder_reset(P->node);
	P->in_node = 1;
	P->node_has_id = 0;
	P->ks_node.n = P->ks_node.plen = 0;
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

/* An attribute's "name" or "doc_string" / "docString" (both forms). */
static int attr_name_doc(pack *P, int ev, int type, const char *s, size_t len)
{
	if (!want_str(P, ev, type))
		return 0;
	int nm = KEY(K_name);
	P->a_name_len = nm ? len : P->a_name_len;
	P->a_doc_len = nm ? P->a_doc_len : len;
	return pool_add(P, s, len, nm ? &P->a_name : &P->a_doc);
}

/* workload_graph: the top-level "version" held back while the form was
 * unknown is an ordinary metadata attribute. */
static int flush_version(pack *P)
{
	if (!P->version_pending)
		return 1;
	P->version_pending = 0;
	attr_begin(P);
	if (!pool_add(P, "version", 7, &P->a_name))
		return 0;
	P->a_name_len = 7;
	P->a_have_value = 1;
	int ok = tok_add(P, T_STR, P->version, strlen(P->version)) && attr_infer(P, P->meta) &&
	         keyset_add(P, &P->ks_top, "version", 7);
	free(P->version);
	P->version = NULL;
	return ok;
}

static int set_form(pack *P, int form)
{
	if (P->form != FORM_UNKNOWN && P->form != form)
		return fail(P, "top-level key \"%s\" mixes the jsonize form (metadata/nodes), the "
		               "workload_graph form and protobuf's JSON (version/attr)", P->key);
	P->form = form;
	P->pb = form == FORM_PB || form == FORM_PB_ARRAY;
	if (form == FORM_OURS && (P->first_extra_key_set || P->version_pending))
		return fail(P, "unknown top-level key \"%s\" (expected \"metadata\" and \"nodes\")",
		            P->version_pending ? "version" : P->first_extra_key);
	if (form == FORM_PB && P->first_extra_key_set)
		return fail(P, "unknown key \"%s\" in protobuf JSON's GlobalMetadata (expected version, "
		               "attr)", P->first_extra_key);
	if (form == FORM_WG)
		return flush_version(P);
	return 1;
}

/* GlobalMetadata in protobuf's form (the top-level object of the stream,
 * or the array's first element). */
static int pb_meta_value(pack *P, int ev, int type, const char *s)
{
	if (KEY(K_version)) {
		if (ev == EV_SCALAR && type == T_NULL)
			return 1;
		if (!want_str(P, ev, type))
			return 0;
		free(P->version);
		P->version = strdup(s);
		return P->version ? 1 : fail(P, "out of memory");
	}
	if (KEY(K_attr)) {
		if (ev == EV_SCALAR && type == T_NULL)
			return 1;
		if (ev != EV_ARRAY)
			return fail(P, "\"attr\": expected an array, got %s", ev_name(ev, type));
		P->attrs_meta = 1;
		return push(P, F_PB_ATTRS);
	}
	return fail(P, "unknown key \"%s\" in GlobalMetadata (expected version, attr)", P->key);
}

static int pb_node_value(pack *P, int ev, int type, const char *s, size_t len)
{
	uint64_t u;
	if (ev == EV_SCALAR && type == T_NULL && P->kid != K_OTHER)
		return 1; /* null: the field keeps its default, as protobuf reads it */
	switch (key_canon(P->kid)) {
	case K_id:
		return set_id(P, ev, type, s, len);
	case K_name:
		return want_str(P, ev, type) &&
		       (chakra_builder_set_name(P->node, s, len) == 0 || fail(P, "out of memory"));
	case K_type:
		return set_type(P, ev, type, s, len);
	case K_ctrl_deps:
	case K_data_deps:
		if (ev != EV_ARRAY)
			return fail(P, "\"%s\": expected an array, got %s", P->key, ev_name(ev, type));
		P->deps_ctrl = key_canon(P->kid) == K_ctrl_deps;
		return push(P, F_DEPS);
	case K_start_time_micros:
	case K_duration_micros:
		if (!want_u64(P, ev, type, s, len, &u))
			return 0;
		if (key_canon(P->kid) == K_start_time_micros)
			chakra_builder_set_start_time_micros(P->node, u);
		else
			chakra_builder_set_duration_micros(P->node, u);
		return 1;
	case K_inputs:
	case K_outputs:
		if (ev != EV_MAP)
			return fail(P, "\"%s\": expected an object, got %s", P->key, ev_name(ev, type));
		P->io_which = KEY(K_inputs) ? CHAKRA_IO_INPUTS : CHAKRA_IO_OUTPUTS;
		if (chakra_builder_set_io(P->node, (chakra_io)P->io_which, CHAKRA_IO_VALUES, "", 0))
			return fail(P, "out of memory");
		return push(P, F_IO);
	case K_attr:
		if (ev != EV_ARRAY)
			return fail(P, "\"attr\": expected an array, got %s", ev_name(ev, type));
		P->attrs_meta = 0;
		return push(P, F_PB_ATTRS);
	}
	return fail(P, "unknown key \"%s\" in node (protobuf JSON: id, name, type, ctrlDeps, "
	               "dataDeps, startTimeMicros, durationMicros, inputs, outputs, attr)", P->key);
}

static int pb_attr_value(pack *P, int ev, int type, const char *s, size_t len)
{
	if (ev == EV_SCALAR && type == T_NULL && P->kid != K_OTHER)
		return 1;
	if (KEY(K_name) || key_canon(P->kid) == K_doc_string)
		return attr_name_doc(P, ev, type, s, len);
	if (!KEY(K_pbval))
		return fail(P, "unknown key \"%s\" in attribute (expected name, docString and one "
		               "value such as int64Val or stringList)", P->key);
	P->a_kind = P->key_kind;
	P->a_have_kind = 1;
	P->a_have_value = 1;
	if (P->key_kind % 2 == 0) { /* a list: {"values": [...]} */
		if (ev != EV_MAP)
			return fail(P, "\"%s\": expected an object {\"values\": [...]}, got %s", P->key,
			            ev_name(ev, type));
		P->a_is_list = 1;
		return push(P, F_PB_LIST);
	}
	if (ev != EV_SCALAR)
		return fail(P, "\"%s\": expected a scalar, got %s", P->key, ev_name(ev, type));
	return tok_add(P, type, s, len);
}

/* A value (scalar, or the start of a map/array) arrived. */
static int on_value(pack *P, int ev, int type, const char *s, size_t len)
{
	if (P->depth == 0) {
		if (P->top_done) {
			/* protobuf's stream: the messages after the GlobalMetadata */
			if (P->form != FORM_PB)
				return fail(P, "more than one JSON value at the top level");
			if (ev != EV_MAP)
				return fail(P, "expected a Node object, got %s", ev_name(ev, type));
			return node_begin(P, F_PB_NODE);
		}
		if (ev == EV_ARRAY) {
			if (!set_form(P, FORM_PB_ARRAY))
				return 0;
			return push(P, F_PB_TOPARR);
		}
		if (ev != EV_MAP)
			return fail(P, "expected a JSON object at the top level, got %s", ev_name(ev, type));
		return push(P, F_TOP);
	}
	uint64_t u;
	switch (P->stack[P->depth - 1]) {
	case F_TOP:
		if (P->form == FORM_PB)
			return pb_meta_value(P, ev, type, s);
		if (KEY(K_metadata)) {
			if (!set_form(P, FORM_OURS))
				return 0;
			if (ev != EV_MAP)
				return fail(P, "\"metadata\": expected an object, got %s", ev_name(ev, type));
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
		if (P->form == FORM_UNKNOWN && KEY(K_attr) && ev == EV_ARRAY) {
			/* only protobuf's GlobalMetadata has an array "attr" here */
			if (!set_form(P, FORM_PB))
				return 0;
			return pb_meta_value(P, ev, type, s);
		}
		if (P->form == FORM_UNKNOWN && KEY(K_version) && !P->first_extra_key_set &&
		    ev == EV_SCALAR && type == T_STR) {
			/* protobuf's metadata, or a workload_graph attribute: the
			 * next keys tell */
			free(P->version);
			P->version = strdup(s);
			P->version_pending = 1;
			return P->version ? 1 : fail(P, "out of memory");
		}
		/* workload_graph files: other top-level keys are metadata attributes. */
		if (P->form == FORM_OURS)
			return fail(P, "unknown top-level key \"%s\" (expected \"metadata\" and \"nodes\")",
			            P->wkey);
		if (!flush_version(P))
			return 0;
		if (!P->first_extra_key_set) {
			snprintf(P->first_extra_key, sizeof P->first_extra_key, "%s", P->wkey);
			P->first_extra_key_set = P->first_extra_key;
		}
		if (ev != EV_SCALAR)
			return fail(P, "top-level key \"%s\": expected a scalar, got %s", P->wkey,
			            ev_name(ev, type));
		attr_begin(P);
		if (!pool_add(P, P->wkey, P->wkey_len, &P->a_name))
			return 0;
		P->a_name_len = P->wkey_len;
		P->a_have_value = 1;
		return keyset_add(P, &P->ks_top, P->wkey, P->wkey_len) && tok_add(P, type, s, len) &&
		       attr_infer(P, P->meta);
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
		if (KEY(K_name) || KEY(K_doc_string))
			return attr_name_doc(P, ev, type, s, len);
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
		if (P->pb && ev == EV_SCALAR && type == T_NULL)
			return 1;
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
		if (!pool_add(P, P->wkey, P->wkey_len, &P->a_name) ||
		    !keyset_add(P, &P->ks_node, P->wkey, P->wkey_len))
			return 0;
		P->a_name_len = P->wkey_len;
		P->a_have_value = 1;
		if (ev == EV_ARRAY) {
			P->a_is_list = 1;
			return push(P, F_WG_LIST);
		}
		return tok_add(P, type, s, len) && attr_infer(P, P->node);
	case F_PB_TOPARR:
		if (ev != EV_MAP)
			return fail(P, "protobuf JSON array: expected objects (GlobalMetadata, then Nodes), "
			               "got %s", ev_name(ev, type));
		if (!P->meta_seen) {
			P->meta_seen = 1;
			return push(P, F_PB_META);
		}
		return node_begin(P, F_PB_NODE);
	case F_PB_META:
		return pb_meta_value(P, ev, type, s);
	case F_PB_NODE:
		return pb_node_value(P, ev, type, s, len);
	case F_PB_ATTRS:
		if (ev != EV_MAP)
			return fail(P, "attribute list: expected an object, got %s", ev_name(ev, type));
		attr_begin(P);
		return push(P, F_PB_ATTR);
	case F_PB_ATTR:
		return pb_attr_value(P, ev, type, s, len);
	case F_PB_LIST:
		if (!KEY(K_values))
			return fail(P, "unknown key \"%s\" in a list value (expected \"values\")", P->key);
		if (ev == EV_SCALAR && type == T_NULL)
			return 1;
		if (ev != EV_ARRAY)
			return fail(P, "\"values\": expected an array, got %s", ev_name(ev, type));
		return push(P, F_VALLIST);
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
	/* yajl's buffer is not NUL-terminated */
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
	P->key_kind = 0;
	P->kid = key_lookup((const char *)s, len, &P->key_kind);
	if (len + 1 > P->wkey_cap) {
		char *w = realloc(P->wkey, len + 1);
		if (!w)
			return fail(P, "out of memory");
		P->wkey = w;
		P->wkey_cap = len + 1;
	}
	memcpy(P->wkey, s, len);
	P->wkey[len] = 0;
	P->wkey_len = len;
	/* a known key twice in one object (two spellings of one protobuf
	 * field, or two members of the value oneof, count as the same) */
	if (P->kid != K_OTHER && P->depth > 0 && is_object_frame(P->stack[P->depth - 1])) {
		int f = P->stack[P->depth - 1];
		int pbf = P->pb || f == F_PB_META || f == F_PB_NODE || f == F_PB_ATTR;
		uint64_t bit = (uint64_t)1 << (pbf ? key_canon(P->kid) : P->kid);
		if (P->seen[P->depth - 1] & bit)
			return fail(P, P->kid == K_pbval
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
		return attr_end(P);
	case F_PB_ATTR:
		return attr_emit(P, P->attrs_meta ? P->meta : P->node,
		                 P->a_have_kind ? P->a_kind : CHAKRA_ATTR_NONE);
	case F_NODE:
	case F_WG_NODE:
	case F_PB_NODE:
		if (f == F_WG_NODE && !keyset_check(P, &P->ks_node, "a node"))
			return 0;
		if (!sink_node(P))
			return 0;
		P->in_node = 0;
		return 1;
	case F_META:
	case F_PB_META:
		return finalize_meta(P);
	case F_TOP:
		P->top_done = 1;
		if (P->form == FORM_UNKNOWN) {
			if (P->first_extra_key_set)
				return fail(P, "no \"metadata\"/\"nodes\" (jsonize form), \"workload_graph\" key "
				               "or protobuf GlobalMetadata (version, attr)");
			/* {} or {"version": ...}: protobuf's GlobalMetadata */
			P->version_pending = 0;
			if (!set_form(P, FORM_PB))
				return 0;
		}
		if (P->form == FORM_PB)
			return finalize_meta(P);
		if (P->form == FORM_OURS && !P->meta_final)
			return fail(P, "no \"metadata\" object");
		if (P->form == FORM_WG) {
			if (!keyset_check(P, &P->ks_top, "the top-level object"))
				return 0;
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
	if (f == F_PB_TOPARR) {
		P->top_done = 1;
		if (!P->meta_seen)
			return fail(P, "empty array: expected the GlobalMetadata object, then Nodes");
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
		fail(P, "invalid JSON: parse error: trailing garbage");
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
	fail(P, "invalid JSON: %s", msg);
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

/* Either from `in` or from (mem, mem_len). */
static int run(const char *in_name, FILE *in, const void *mem, size_t mem_len,
               const json_pack_out *out, unsigned long long *n_nodes)
{
	key_init();
	pack *P = calloc(1, sizeof *P);
	if (!P)
		return tool_err("out of memory");
	P->in_name = in_name;
	P->out = out->name;
	P->gzip = out->gzip;
	P->cb = out->cb;
	P->cb_data = out->data;
	P->node = chakra_builder_new();
	P->meta = chakra_builder_new();
	P->h = yajl_alloc(&callbacks, tool_yajl_alloc(), P);
	int status = 1;
	unsigned char *buf = NULL;
	if (!P->node || !P->meta || !P->h) {
		tool_err("out of memory");
		goto done;
	}
	/* Names in real traces need not be UTF-8; jsonize writes them as is.
	 * Protobuf's stream puts messages back to back. */
	yajl_config(P->h, yajl_dont_validate_strings, 1);
	yajl_config(P->h, yajl_allow_multiple_values, 1);
	if (in) {
		enum { CHUNK = 1 << 16 };
		buf = malloc(CHUNK);
		if (!buf) {
			tool_err("out of memory");
			goto done;
		}
		size_t n;
		while ((n = fread(buf, 1, CHUNK, in)) > 0)
			if (feed(P, buf, n) < 0)
				break;
		if (!P->failed && ferror(in))
			fail(P, "read error: %s", strerror(errno));
	} else if (mem_len) {
		feed(P, mem, mem_len);
	}
	if (!P->failed) {
		P->chunk = NULL;
		if (yajl_complete_parse(P->h) != yajl_status_ok)
			report_yajl(P, NULL, 0);
	}
	if (!P->failed && P->chunk_base == 0)
		fail(P, "empty input");
	if (!P->failed && P->depth > 0)
		fail(P, "input ends inside an object or array");
	if (!P->failed && !P->meta_final)
		fail(P, "input ends before the document is complete");
	if (!P->failed && chakra_writer_finish(P->w) < 0)
		writer_fail(P, P->w, out->name);
	if (P->failed)
		tool_err("%s", P->err);
	else
		status = 0;
	if (n_nodes)
		*n_nodes = P->nodes;
done:
	free(buf);
	if (P->h)
		yajl_free(P->h);
	chakra_writer_close(P->w);
	chakra_writer_close(P->sw);
	if (P->sp.f)
		fclose(P->sp.f);
	free(P->sp.mem);
	chakra_builder_free(P->node);
	chakra_builder_free(P->meta);
	keyset_free(&P->ks_top);
	keyset_free(&P->ks_node);
	free(P->version);
	free(P->pool);
	free(P->toks);
	free(P->wkey);
	free(P);
	return status;
}

int json_pack(FILE *in, const char *in_name, const json_pack_out *out, unsigned long long *n_nodes)
{
	return run(in_name, in, NULL, 0, out, n_nodes);
}

int json_pack_mem(const void *buf, size_t len, const char *in_name, const json_pack_out *out,
                  unsigned long long *n_nodes)
{
	return run(in_name, NULL, buf, len, out, n_nodes);
}
