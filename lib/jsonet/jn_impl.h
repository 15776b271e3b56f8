/* SPDX-License-Identifier: Apache-2.0 */
/* JSON -> Chakra ET, the state shared by its files (internal to the jsonet
 * module). A small explicit state machine over YAJL's callbacks: a stack of
 * frames says where the parse is (top level, metadata, node, attribute
 * list...), the last map key says which field the next value fills.
 * Attribute values are kept as tokens until the attribute object ends,
 * because "kind" may come after "value".
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
 * memory stays bounded either way.
 *
 * Files: jn_keys.c (known keys, free-form key sets), jn_attr.c (attribute
 * tokens to builder attributes), jn_parse.c (values by frame and key),
 * jn_spool.c (the output and the spool), jn_pack.c (YAJL callbacks, the
 * driver, the public entry points), jn_num.c (number text). */
#ifndef CHAKRA_JSONET_JN_IMPL_H
#define CHAKRA_JSONET_JN_IMPL_H

#include <stdint.h>
#include <stdio.h>
#include <yajl/yajl_parse.h>

#include "chakra/experimental/jsonet.h"
#include "jdrive.h"
#include "../modmem.h"

#if defined(__GNUC__)
#define JN_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define JN_PRINTF(f, a)
#endif


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


enum ev { EV_MAP, EV_ARRAY, EV_SCALAR };

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
	chakra__json_ctx j; /* first: lib/json's driver (jdrive.h) */
	const char *in_name, *out;
	int gzip;
	chakra_write_cb cb;
	void *cb_data;
	uint64_t lines_before; /* newlines in the chunks before the current one */
	char err[1024];
	int failed;
	int code;          /* the chakra_error to return when failed (0: ECORRUPT) */

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


/* jn_pack.c: record the first error (with line and byte) and stop the
 * parse; returns 0 so that callbacks can `return chakra__jn_fail(...)`. */
int chakra__jn_fail(pack *P, const char *fmt, ...) JN_PRINTF(2, 3);
const char *chakra__jn_tok_name(int type);

/* jn_keys.c */
void chakra__jn_key_init(void);
int chakra__jn_key_lookup(const char *k, size_t len, int *kind);
int chakra__jn_key_canon(int kid);
int chakra__jn_keyset_add(pack *P, keyset *k, const char *s, size_t len);
int chakra__jn_keyset_check(pack *P, keyset *k, const char *where);
void chakra__jn_keyset_free(keyset *k);

/* jn_attr.c */
int chakra__jn_room(pack *P, void *p, size_t *cap, size_t need, size_t elem, size_t first);
int chakra__jn_pool_add(pack *P, const void *s, size_t len, size_t *off);
int chakra__jn_tok_add(pack *P, int type, const void *s, size_t len);
void chakra__jn_attr_begin(pack *P);
const char *chakra__jn_attr_name(pack *P);
int chakra__jn_pb_intstr(const char *s, size_t len);
int chakra__jn_attr_emit(pack *P, chakra_builder *b, int kind);
int chakra__jn_attr_end(pack *P);
int chakra__jn_attr_infer(pack *P, chakra_builder *b);

/* jn_parse.c */
int chakra__jn_is_object_frame(int f);
int chakra__jn_set_form(pack *P, int form);
int chakra__jn_on_value(pack *P, int ev, int type, const char *s, size_t len);

/* jn_spool.c */
int chakra__jn_writer_fail(pack *P, chakra_writer *w, const char *what);
int chakra__jn_sink_node(pack *P);
int chakra__jn_finalize_meta(pack *P);

/* jn_num.c: exact integer / real parsing of JSON number text (never via
 * double for integers). 0 on success; -1 if the text is not an integer
 * in range. */
int chakra__jn_num_u64(const char *s, size_t len, uint64_t *out);
int chakra__jn_num_i64(const char *s, size_t len, int64_t *out);
/* Any JSON number, or the strings "nan", "nan:0xBITS" (a NaN's exact bit
 * pattern: 8 hex digits for a float, 16 for a double), "inf", "-inf"
 * (is_str set). is_float: parse as float (strtof) so the value keeps its
 * float bits. */
int chakra__jn_num_real(const char *s, size_t len, int is_str, int is_float, double *out);
/* Does the number text look like an integer (no '.', 'e', 'E')? */
int chakra__jn_num_is_int(const char *s, size_t len);

#endif
