/* SPDX-License-Identifier: Apache-2.0 */
/* JSON -> ET: each value by the frame it is in and the key before it. */
#include "jn_impl.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- dispatch ---- */

static const char *ev_name(int ev, int type)
{
	return ev == EV_MAP ? "an object" : ev == EV_ARRAY ? "an array" : chakra__jn_tok_name(type);
}

static int key_is(const pack *P, int k) { return P->kid == k; }
#define KEY(k) key_is(P, k)

int chakra__jn_is_object_frame(int f)
{
	return f == F_TOP || f == F_META || f == F_ATTR || f == F_NODE || f == F_IO ||
	       f == F_WG_NODE || f == F_PB_META || f == F_PB_NODE || f == F_PB_ATTR ||
	       f == F_PB_LIST;
}

static int push(pack *P, int f)
{
	if (P->depth >= MAX_DEPTH)
		return chakra__jn_fail(P, "nesting too deep");
	P->seen[P->depth] = 0;
	P->stack[P->depth++] = f;
	return 1;
}

/* ---- values ---- */

static int want_u64(pack *P, int ev, int type, const char *s, size_t len, uint64_t *out)
{
	if (ev != EV_SCALAR || (type != T_NUM && !(P->pb && type == T_STR && chakra__jn_pb_intstr(s, len))))
		return chakra__jn_fail(P, "\"%s\": expected a non-negative integer, got %s", P->key,
		            ev_name(ev, type));
	if (chakra__jn_num_u64(s, len, out) < 0)
		return chakra__jn_fail(P, "\"%s\": %.*s is not an integer in 0..18446744073709551615", P->key,
		            (int)(len > 40 ? 40 : len), s);
	return 1;
}

static int want_str(pack *P, int ev, int type)
{
	if (ev != EV_SCALAR || type != T_STR)
		return chakra__jn_fail(P, "\"%s\": expected a string, got %s", P->key, ev_name(ev, type));
	return 1;
}

static int set_type(pack *P, int ev, int type, const char *s, size_t len)
{
	if (ev == EV_SCALAR && type == T_STR && !(P->pb && chakra__jn_pb_intstr(s, len))) {
		int t = chakra_node_type_from_name(s);
		if (t < 0)
			return chakra__jn_fail(P, "unknown node type \"%.*s\"", (int)(len > 40 ? 40 : len), s);
		chakra_builder_set_type(P->node, t);
		return 1;
	}
	int64_t v;
	if (ev != EV_SCALAR || (type != T_NUM && !(P->pb && type == T_STR)) ||
	    chakra__jn_num_i64(s, len, &v) < 0 || v < INT32_MIN || v > INT32_MAX)
		return chakra__jn_fail(P, "\"%s\": expected a node type name or a 32-bit integer, got %s", P->key,
		            ev_name(ev, type));
	/* The library's reader takes a type up to 2^32-1 on the wire and
	 * rejects the sign-extended encoding protobuf gives a negative one, so
	 * a trace with one could not be read back: refuse it (fuzz_pack). */
	if (v < 0)
		return chakra__jn_fail(P, "\"%s\": node type %lld: negative types are not supported (the "
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
/* The fields both node forms have, each form under its own keys (data
 * dependencies are K_data_deps in both): the callback's result, or -1 when
 * the key is none of them. */
static int node_field(pack *P, int ev, int type, const char *s, size_t len, int k_id, int k_name,
                      int k_type, int k_ctrl)
{
	if (KEY(k_id))
		return set_id(P, ev, type, s, len);
	if (KEY(k_name))
		return want_str(P, ev, type) &&
		       (chakra_builder_set_name(P->node, s, len) == 0 || chakra__jn_fail(P, "out of memory"));
	if (KEY(k_type))
		return set_type(P, ev, type, s, len);
	if (KEY(k_ctrl) || KEY(K_data_deps)) {
		if (ev != EV_ARRAY)
			return chakra__jn_fail(P, "\"%s\": expected an array, got %s", P->key, ev_name(ev, type));
		P->deps_ctrl = KEY(k_ctrl);
		return push(P, F_DEPS);
	}
	return -1;
}

static int attr_name_doc(pack *P, int ev, int type, const char *s, size_t len)
{
	if (!want_str(P, ev, type))
		return 0;
	int nm = KEY(K_name);
	P->a_name_len = nm ? len : P->a_name_len;
	P->a_doc_len = nm ? P->a_doc_len : len;
	return chakra__jn_pool_add(P, s, len, nm ? &P->a_name : &P->a_doc);
}

/* workload_graph: the top-level "version" held back while the form was
 * unknown is an ordinary metadata attribute. */
static int flush_version(pack *P)
{
	if (!P->version_pending)
		return 1;
	P->version_pending = 0;
	chakra__jn_attr_begin(P);
	if (!chakra__jn_pool_add(P, "version", 7, &P->a_name))
		return 0;
	P->a_name_len = 7;
	P->a_have_value = 1;
	int ok = chakra__jn_tok_add(P, T_STR, P->version, strlen(P->version)) && chakra__jn_attr_infer(P, P->meta) &&
	         chakra__jn_keyset_add(P, &P->ks_top, "version", 7);
	chakra_free(P->version);
	P->version = NULL;
	return ok;
}

int chakra__jn_set_form(pack *P, int form)
{
	if (P->form != FORM_UNKNOWN && P->form != form)
		return chakra__jn_fail(P, "top-level key \"%s\" mixes the jsonize form (metadata/nodes), the "
		               "workload_graph form and protobuf's JSON (version/attr)", P->key);
	P->form = form;
	P->pb = form == FORM_PB || form == FORM_PB_ARRAY;
	if (form == FORM_OURS && (P->first_extra_key_set || P->version_pending))
		return chakra__jn_fail(P, "unknown top-level key \"%s\" (expected \"metadata\" and \"nodes\")",
		            P->version_pending ? "version" : P->first_extra_key);
	if (form == FORM_PB && P->first_extra_key_set)
		return chakra__jn_fail(P, "unknown key \"%s\" in protobuf JSON's GlobalMetadata (expected version, "
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
		chakra_free(P->version);
		P->version = chakra__mstrdup(s);
		return P->version ? 1 : chakra__jn_fail(P, "out of memory");
	}
	if (KEY(K_attr)) {
		if (ev == EV_SCALAR && type == T_NULL)
			return 1;
		if (ev != EV_ARRAY)
			return chakra__jn_fail(P, "\"attr\": expected an array, got %s", ev_name(ev, type));
		P->attrs_meta = 1;
		return push(P, F_PB_ATTRS);
	}
	return chakra__jn_fail(P, "unknown key \"%s\" in GlobalMetadata (expected version, attr)", P->key);
}

static int pb_node_value(pack *P, int ev, int type, const char *s, size_t len)
{
	uint64_t u;
	if (ev == EV_SCALAR && type == T_NULL && P->kid != K_OTHER)
		return 1; /* null: the field keeps its default, as protobuf reads it */
	switch (chakra__jn_key_canon(P->kid)) {
	case K_id:
		return set_id(P, ev, type, s, len);
	case K_name:
		return want_str(P, ev, type) &&
		       (chakra_builder_set_name(P->node, s, len) == 0 || chakra__jn_fail(P, "out of memory"));
	case K_type:
		return set_type(P, ev, type, s, len);
	case K_ctrl_deps:
	case K_data_deps:
		if (ev != EV_ARRAY)
			return chakra__jn_fail(P, "\"%s\": expected an array, got %s", P->key, ev_name(ev, type));
		P->deps_ctrl = chakra__jn_key_canon(P->kid) == K_ctrl_deps;
		return push(P, F_DEPS);
	case K_start_time_micros:
	case K_duration_micros:
		if (!want_u64(P, ev, type, s, len, &u))
			return 0;
		if (chakra__jn_key_canon(P->kid) == K_start_time_micros)
			chakra_builder_set_start_time_micros(P->node, u);
		else
			chakra_builder_set_duration_micros(P->node, u);
		return 1;
	case K_inputs:
	case K_outputs:
		if (ev != EV_MAP)
			return chakra__jn_fail(P, "\"%s\": expected an object, got %s", P->key, ev_name(ev, type));
		P->io_which = KEY(K_inputs) ? CHAKRA_IO_INPUTS : CHAKRA_IO_OUTPUTS;
		if (chakra_builder_set_io(P->node, (chakra_io)P->io_which, CHAKRA_IO_VALUES, "", 0))
			return chakra__jn_fail(P, "out of memory");
		return push(P, F_IO);
	case K_attr:
		if (ev != EV_ARRAY)
			return chakra__jn_fail(P, "\"attr\": expected an array, got %s", ev_name(ev, type));
		P->attrs_meta = 0;
		return push(P, F_PB_ATTRS);
	}
	return chakra__jn_fail(P, "unknown key \"%s\" in node (protobuf JSON: id, name, type, ctrlDeps, "
	               "dataDeps, startTimeMicros, durationMicros, inputs, outputs, attr)", P->key);
}

static int pb_attr_value(pack *P, int ev, int type, const char *s, size_t len)
{
	if (ev == EV_SCALAR && type == T_NULL && P->kid != K_OTHER)
		return 1;
	if (KEY(K_name) || chakra__jn_key_canon(P->kid) == K_doc_string)
		return attr_name_doc(P, ev, type, s, len);
	if (!KEY(K_pbval))
		return chakra__jn_fail(P, "unknown key \"%s\" in attribute (expected name, docString and one "
		               "value such as int64Val or stringList)", P->key);
	P->a_kind = P->key_kind;
	P->a_have_kind = 1;
	P->a_have_value = 1;
	if (P->key_kind % 2 == 0) { /* a list: {"values": [...]} */
		if (ev != EV_MAP)
			return chakra__jn_fail(P, "\"%s\": expected an object {\"values\": [...]}, got %s", P->key,
			            ev_name(ev, type));
		P->a_is_list = 1;
		return push(P, F_PB_LIST);
	}
	if (ev != EV_SCALAR)
		return chakra__jn_fail(P, "\"%s\": expected a scalar, got %s", P->key, ev_name(ev, type));
	return chakra__jn_tok_add(P, type, s, len);
}

/* A value (scalar, or the start of a map/array) arrived. */
int chakra__jn_on_value(pack *P, int ev, int type, const char *s, size_t len)
{
	if (P->depth == 0) {
		if (P->top_done) {
			/* protobuf's stream: the messages after the GlobalMetadata */
			if (P->form != FORM_PB)
				return chakra__jn_fail(P, "more than one JSON value at the top level");
			if (ev != EV_MAP)
				return chakra__jn_fail(P, "expected a Node object, got %s", ev_name(ev, type));
			return node_begin(P, F_PB_NODE);
		}
		if (ev == EV_ARRAY) {
			if (!chakra__jn_set_form(P, FORM_PB_ARRAY))
				return 0;
			return push(P, F_PB_TOPARR);
		}
		if (ev != EV_MAP)
			return chakra__jn_fail(P, "expected a JSON object at the top level, got %s", ev_name(ev, type));
		return push(P, F_TOP);
	}
	uint64_t u;
	int rc;
	switch (P->stack[P->depth - 1]) {
	case F_TOP:
		if (P->form == FORM_PB)
			return pb_meta_value(P, ev, type, s);
		if (KEY(K_metadata)) {
			if (!chakra__jn_set_form(P, FORM_OURS))
				return 0;
			if (ev != EV_MAP)
				return chakra__jn_fail(P, "\"metadata\": expected an object, got %s", ev_name(ev, type));
			P->meta_seen = 1;
			return push(P, F_META);
		}
		if (KEY(K_nodes)) {
			if (!chakra__jn_set_form(P, FORM_OURS))
				return 0;
			if (ev != EV_ARRAY)
				return chakra__jn_fail(P, "\"nodes\": expected an array, got %s", ev_name(ev, type));
			return push(P, F_NODES);
		}
		if (KEY(K_workload_graph)) {
			if (!chakra__jn_set_form(P, FORM_WG))
				return 0;
			if (ev != EV_ARRAY)
				return chakra__jn_fail(P, "\"workload_graph\": expected an array, got %s", ev_name(ev, type));
			return push(P, F_WG_NODES);
		}
		if (P->form == FORM_UNKNOWN && KEY(K_attr) && ev == EV_ARRAY) {
			/* only protobuf's GlobalMetadata has an array "attr" here */
			if (!chakra__jn_set_form(P, FORM_PB))
				return 0;
			return pb_meta_value(P, ev, type, s);
		}
		if (P->form == FORM_UNKNOWN && KEY(K_version) && !P->first_extra_key_set &&
		    ev == EV_SCALAR && type == T_STR) {
			/* protobuf's metadata, or a workload_graph attribute: the
			 * next keys tell */
			chakra_free(P->version);
			P->version = chakra__mstrdup(s);
			P->version_pending = 1;
			return P->version ? 1 : chakra__jn_fail(P, "out of memory");
		}
		/* workload_graph files: other top-level keys are metadata attributes. */
		if (P->form == FORM_OURS)
			return chakra__jn_fail(P, "unknown top-level key \"%s\" (expected \"metadata\" and \"nodes\")",
			            P->wkey);
		if (!flush_version(P))
			return 0;
		if (!P->first_extra_key_set) {
			snprintf(P->first_extra_key, sizeof P->first_extra_key, "%s", P->wkey);
			P->first_extra_key_set = P->first_extra_key;
		}
		if (ev != EV_SCALAR)
			return chakra__jn_fail(P, "top-level key \"%s\": expected a scalar, got %s", P->wkey,
			            ev_name(ev, type));
		chakra__jn_attr_begin(P);
		if (!chakra__jn_pool_add(P, P->wkey, P->wkey_len, &P->a_name))
			return 0;
		P->a_name_len = P->wkey_len;
		P->a_have_value = 1;
		return chakra__jn_keyset_add(P, &P->ks_top, P->wkey, P->wkey_len) && chakra__jn_tok_add(P, type, s, len) &&
		       chakra__jn_attr_infer(P, P->meta);
	case F_META:
		if (KEY(K_version)) {
			if (!want_str(P, ev, type))
				return 0;
			chakra_free(P->version);
			P->version = chakra__mstrdup(s);
			return P->version ? 1 : chakra__jn_fail(P, "out of memory");
		}
		if (KEY(K_attr)) {
			if (ev != EV_ARRAY)
				return chakra__jn_fail(P, "\"attr\": expected an array, got %s", ev_name(ev, type));
			P->attrs_meta = 1;
			return push(P, F_ATTRS);
		}
		return chakra__jn_fail(P, "unknown key \"%s\" in metadata (expected version, attr)", P->key);
	case F_ATTRS:
		if (ev != EV_MAP)
			return chakra__jn_fail(P, "attribute list: expected an object, got %s", ev_name(ev, type));
		chakra__jn_attr_begin(P);
		return push(P, F_ATTR);
	case F_ATTR:
		if (KEY(K_name) || KEY(K_doc_string))
			return attr_name_doc(P, ev, type, s, len);
		if (KEY(K_kind)) {
			int k = -1;
			int64_t v;
			if (ev == EV_SCALAR && type == T_STR)
				k = chakra_attr_kind_from_name(s);
			else if (ev == EV_SCALAR && type == T_NUM && chakra__jn_num_i64(s, len, &v) == 0 &&
			         v >= 3 && v <= 32)
				k = (int)v;
			if (k < 0)
				return chakra__jn_fail(P, "unknown attribute kind %s%.*s%s (expected int64, string_list, ...)",
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
				return chakra__jn_fail(P, "\"value\": expected a scalar or an array, got an object");
			return chakra__jn_tok_add(P, type, s, len);
		}
		return chakra__jn_fail(P, "unknown key \"%s\" in attribute (expected name, doc_string, kind, value)",
		            P->key);
	case F_VALLIST:
	case F_WG_LIST:
		if (ev != EV_SCALAR)
			return chakra__jn_fail(P, "attribute value list: expected scalars, got %s", ev_name(ev, type));
		return chakra__jn_tok_add(P, type, s, len);
	case F_NODES:
		if (ev != EV_MAP)
			return chakra__jn_fail(P, "\"nodes\": expected objects, got %s", ev_name(ev, type));
		return node_begin(P, F_NODE);
	case F_WG_NODES:
		if (ev != EV_MAP)
			return chakra__jn_fail(P, "\"workload_graph\": expected objects, got %s", ev_name(ev, type));
		return node_begin(P, F_WG_NODE);
	case F_NODE:
		if ((rc = node_field(P, ev, type, s, len, K_id, K_name, K_type, K_ctrl_deps)) >= 0)
			return rc;
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
				return chakra__jn_fail(P, "\"%s\": expected an object, got %s", P->key, ev_name(ev, type));
			P->io_which = KEY(K_inputs) ? CHAKRA_IO_INPUTS : CHAKRA_IO_OUTPUTS;
			/* present even if every string is empty */
			if (chakra_builder_set_io(P->node, (chakra_io)P->io_which, CHAKRA_IO_VALUES, "", 0))
				return chakra__jn_fail(P, "out of memory");
			return push(P, F_IO);
		}
		if (KEY(K_attr)) {
			if (ev != EV_ARRAY)
				return chakra__jn_fail(P, "\"attr\": expected an array, got %s", ev_name(ev, type));
			P->attrs_meta = 0;
			return push(P, F_ATTRS);
		}
		return chakra__jn_fail(P, "unknown key \"%s\" in node", P->key);
	case F_DEPS: {
		if (!want_u64(P, ev, type, s, len, &u))
			return 0;
		int rc = P->deps_ctrl ? chakra_builder_add_ctrl_dep(P->node, u)
		                      : chakra_builder_add_data_dep(P->node, u);
		return rc == 0 ? 1 : chakra__jn_fail(P, "out of memory");
	}
	case F_IO: {
		int f = KEY(K_values) ? CHAKRA_IO_VALUES : KEY(K_shapes) ? CHAKRA_IO_SHAPES
		        : KEY(K_types) ? CHAKRA_IO_TYPES : -1;
		if (f < 0)
			return chakra__jn_fail(P, "unknown key \"%s\" in inputs/outputs (expected values, shapes, types)",
			            P->key);
		if (P->pb && ev == EV_SCALAR && type == T_NULL)
			return 1;
		if (!want_str(P, ev, type))
			return 0;
		return chakra_builder_set_io(P->node, (chakra_io)P->io_which, (chakra_io_field)f, s, len) == 0
		       ? 1 : chakra__jn_fail(P, "out of memory");
	}
	case F_WG_NODE:
		if ((rc = node_field(P, ev, type, s, len, K_Id, K_Name, K_NodeType, K_ctrlDeps)) >= 0)
			return rc;
		if (KEY(K_runtime)) {
			if (!want_u64(P, ev, type, s, len, &u))
				return 0;
			chakra_builder_set_duration_micros(P->node, u);
			return 1;
		}
		/* Anything else (is_cpu_op, comm_size, ...) is an attribute. */
		if (ev == EV_MAP)
			return chakra__jn_fail(P, "key \"%s\": objects are not supported as attribute values", P->wkey);
		chakra__jn_attr_begin(P);
		if (!chakra__jn_pool_add(P, P->wkey, P->wkey_len, &P->a_name) ||
		    !chakra__jn_keyset_add(P, &P->ks_node, P->wkey, P->wkey_len))
			return 0;
		P->a_name_len = P->wkey_len;
		P->a_have_value = 1;
		if (ev == EV_ARRAY) {
			P->a_is_list = 1;
			return push(P, F_WG_LIST);
		}
		return chakra__jn_tok_add(P, type, s, len) && chakra__jn_attr_infer(P, P->node);
	case F_PB_TOPARR:
		if (ev != EV_MAP)
			return chakra__jn_fail(P, "protobuf JSON array: expected objects (GlobalMetadata, then Nodes), "
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
			return chakra__jn_fail(P, "attribute list: expected an object, got %s", ev_name(ev, type));
		chakra__jn_attr_begin(P);
		return push(P, F_PB_ATTR);
	case F_PB_ATTR:
		return pb_attr_value(P, ev, type, s, len);
	case F_PB_LIST:
		if (!KEY(K_values))
			return chakra__jn_fail(P, "unknown key \"%s\" in a list value (expected \"values\")", P->key);
		if (ev == EV_SCALAR && type == T_NULL)
			return 1;
		if (ev != EV_ARRAY)
			return chakra__jn_fail(P, "\"values\": expected an array, got %s", ev_name(ev, type));
		return push(P, F_VALLIST);
	}
	return chakra__jn_fail(P, "internal error: bad parser state");
}

