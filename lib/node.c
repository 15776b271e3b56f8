/* SPDX-License-Identifier: Apache-2.0 */
/* Accessors of the node, attribute and metadata views; enum names. */
#include <math.h>
#include <string.h>

#include "chakra/attrs.h"
#include "chakra/error.h"
#include "node_impl.h"

static const char *const type_names[] = {
	"INVALID_NODE", "METADATA_NODE", "MEM_LOAD_NODE", "MEM_STORE_NODE",
	"COMP_NODE", "COMM_SEND_NODE", "COMM_RECV_NODE", "COMM_COLL_NODE",
};
static const char *const comm_names[] = {
	"ALL_REDUCE", "REDUCE", "ALL_GATHER", "GATHER", "SCATTER",
	"BROADCAST", "ALL_TO_ALL", "REDUCE_SCATTER", "REDUCE_SCATTER_BLOCK", "BARRIER",
};
/* Index = kind - 3; names as the proto fields, without "_val". */
static const char *const kind_names[] = {
	"double", "double_list", "float", "float_list", "int32", "int32_list",
	"int64", "int64_list", "uint32", "uint32_list", "uint64", "uint64_list",
	"sint32", "sint32_list", "sint64", "sint64_list", "fixed32", "fixed32_list",
	"fixed64", "fixed64_list", "sfixed32", "sfixed32_list", "sfixed64", "sfixed64_list",
	"bool", "bool_list", "string", "string_list", "bytes", "bytes_list",
};

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* The index of name, CHAKRA_ENOTFOUND, or CHAKRA_EINVAL for NULL (never
 * -1, which is CHAKRA_EIO). */
static int lookup(const char *const *names, int n, const char *name)
{
	if (!name)
		return CHAKRA_EINVAL;
	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return i;
	return CHAKRA_ENOTFOUND;
}

const char *chakra_node_type_name(int t) { return t >= 0 && t < COUNT(type_names) ? type_names[t] : NULL; }
int chakra_node_type_from_name(const char *s) { return lookup(type_names, COUNT(type_names), s); }
const char *chakra_comm_type_name(int t) { return t >= 0 && t < COUNT(comm_names) ? comm_names[t] : NULL; }
int chakra_comm_type_from_name(const char *s) { return lookup(comm_names, COUNT(comm_names), s); }

const char *chakra_attr_kind_name(int k)
{
	if (k == CHAKRA_ATTR_NONE)
		return "none";
	return k >= 3 && k <= 32 ? kind_names[k - 3] : NULL;
}

int chakra_attr_kind_from_name(const char *s)
{
	if (s && !strcmp(s, "none"))
		return CHAKRA_ATTR_NONE;
	int i = lookup(kind_names, COUNT(kind_names), s);
	return i < 0 ? i : i + 3;
}

/* ---- node ---- */

static const node_full empty_full = {
	{ "", 0 }, 0, 0, 0, NULL, NULL, 0, 0, { 0, 0 },
	{ { { "", 0 }, { "", 0 }, { "", 0 } }, { { "", 0 }, { "", 0 }, { "", 0 } } },
	NULL, 0, 0, 0,
};

/* The NULL rule (chakra.h): a NULL node reads as an empty one. */
static const node_full *full(const chakra_node *n)
{
	if (!n)
		return &empty_full;
	if (n->full)
		return n->full;
	if (n->materialize) {
		/* Lazy decoding mutates the producer's cache, not the view. */
		const node_full *f = n->materialize((chakra_node *)n);
		if (f)
			return f;
	}
	return &empty_full; /* only when memory ran out */
}

uint64_t chakra_node_id(const chakra_node *n) { return n ? n->id : 0; }
uint64_t chakra_node_offset(const chakra_node *n) { return n ? n->offset : 0; }
uint64_t chakra_node_index(const chakra_node *n) { return n ? n->index : 0; }

const char *chakra_node_name(const chakra_node *n, size_t *len)
{
	const node_full *f = full(n);
	if (len)
		*len = f->name.len;
	return f->name.s;
}

int chakra_node_type_of(const chakra_node *n) { return full(n)->type; }
uint64_t chakra_node_start_time_micros(const chakra_node *n) { return full(n)->start; }
uint64_t chakra_node_duration_micros(const chakra_node *n) { return full(n)->dur; }

uint64_t chakra_node_duration_ns(const chakra_node *n)
{
	uint64_t ns;
	if (n && chakra_node_get_uint(n, CHAKRA_ATTR_NAME_DURATION_NANOS, &ns) == 0)
		return ns;
	uint64_t us = full(n)->dur;
	return us > UINT64_MAX / 1000 ? UINT64_MAX : us * 1000;
}

size_t chakra_node_data_dep_count(const chakra_node *n) { return full(n)->n_data; }
const uint64_t *chakra_node_data_deps(const chakra_node *n) { return full(n)->data; }
size_t chakra_node_ctrl_dep_count(const chakra_node *n) { return full(n)->n_ctrl; }
const uint64_t *chakra_node_ctrl_deps(const chakra_node *n) { return full(n)->ctrl; }

int chakra_node_has_io(const chakra_node *n, chakra_io which)
{
	return (which == CHAKRA_IO_INPUTS || which == CHAKRA_IO_OUTPUTS) && full(n)->has_io[which];
}

const char *chakra_node_io(const chakra_node *n, chakra_io which, chakra_io_field field, size_t *len)
{
	if ((unsigned)which > 1 || (unsigned)field > 2) {
		if (len)
			*len = 0;
		return "";
	}
	const cstr *c = &full(n)->io[which][field];
	if (len)
		*len = c->len;
	return c->s;
}

size_t chakra_node_attr_count(const chakra_node *n) { return full(n)->n_attrs; }

const chakra_attr *chakra_node_attr_at(const chakra_node *n, size_t i)
{
	const node_full *f = full(n);
	return i < f->n_attrs ? &f->attrs[i] : NULL;
}

static const chakra_attr *find(const chakra_attr *attrs, size_t n, const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(attrs[i].name.s, name))
			return &attrs[i];
	return NULL;
}

const chakra_attr *chakra_node_attr_find(const chakra_node *n, const char *name)
{
	const node_full *f = full(n);
	return find(f->attrs, f->n_attrs, name);
}

/* ---- attributes ---- */

const char *chakra_attr_name(const chakra_attr *a, size_t *len)
{
	if (len)
		*len = a ? a->name.len : 0;
	return a && a->name.s ? a->name.s : "";
}

const char *chakra_attr_doc(const chakra_attr *a, size_t *len)
{
	if (len)
		*len = a ? a->doc.len : 0;
	return a && a->doc.s ? a->doc.s : "";
}

chakra_attr_kind chakra_attr_kind_of(const chakra_attr *a)
{
	return a ? (chakra_attr_kind)a->kind : CHAKRA_ATTR_NONE;
}
int chakra_attr_is_list(const chakra_attr *a) { return a && a->kind >= 4 && a->kind % 2 == 0; }

static int is_int_kind(int k)
{
	k = chakra__attr_kind_scalar(k);
	return k != CHAKRA_ATTR_NONE && k != CHAKRA_ATTR_DOUBLE && k != CHAKRA_ATTR_FLOAT &&
	       k != CHAKRA_ATTR_STRING && k != CHAKRA_ATTR_BYTES;
}

static int conv_int(int kind, uint64_t u, int64_t *out)
{
	if (!chakra__attr_kind_is_signed(kind) && u > (uint64_t)INT64_MAX)
		return CHAKRA_ERANGE;
	*out = (int64_t)u;
	return 0;
}

static int conv_uint(int kind, uint64_t u, uint64_t *out)
{
	if (chakra__attr_kind_is_signed(kind) && (int64_t)u < 0)
		return CHAKRA_ERANGE;
	*out = u;
	return 0;
}

static int conv_double(int kind, uint64_t u, double d, double *out)
{
	int k = chakra__attr_kind_scalar(kind);
	if (k == CHAKRA_ATTR_DOUBLE || k == CHAKRA_ATTR_FLOAT)
		*out = d;
	else if (chakra__attr_kind_is_signed(kind))
		*out = (double)(int64_t)u;
	else
		*out = (double)u;
	return 0;
}

int chakra_attr_int(const chakra_attr *a, int64_t *out)
{
	if (!a || !out)
		return CHAKRA_EINVAL;
	if (chakra_attr_is_list(a) || !is_int_kind(a->kind))
		return CHAKRA_ETYPE;
	return conv_int(a->kind, a->u, out);
}

int chakra_attr_uint(const chakra_attr *a, uint64_t *out)
{
	if (!a || !out)
		return CHAKRA_EINVAL;
	if (chakra_attr_is_list(a) || !is_int_kind(a->kind))
		return CHAKRA_ETYPE;
	return conv_uint(a->kind, a->u, out);
}

int chakra_attr_double(const chakra_attr *a, double *out)
{
	if (!a || !out)
		return CHAKRA_EINVAL;
	int k = a->kind;
	if (chakra_attr_is_list(a) || k == CHAKRA_ATTR_NONE || k == CHAKRA_ATTR_STRING ||
	    k == CHAKRA_ATTR_BYTES)
		return CHAKRA_ETYPE;
	return conv_double(k, a->u, a->d, out);
}

int chakra_attr_bool(const chakra_attr *a, int *out)
{
	if (!a || !out)
		return CHAKRA_EINVAL;
	if (chakra_attr_is_list(a) || !is_int_kind(a->kind))
		return CHAKRA_ETYPE;
	*out = a->u != 0;
	return 0;
}

int chakra_attr_string(const chakra_attr *a, const char **s, size_t *len)
{
	if (!a || !s)
		return CHAKRA_EINVAL;
	if (a->kind != CHAKRA_ATTR_STRING && a->kind != CHAKRA_ATTR_BYTES)
		return CHAKRA_ETYPE;
	*s = a->s.s ? a->s.s : "";
	if (len)
		*len = a->s.len;
	return 0;
}

size_t chakra_attr_list_len(const chakra_attr *a) { return chakra_attr_is_list(a) ? a->n : 0; }

int chakra_attr_list_int(const chakra_attr *a, size_t i, int64_t *out)
{
	if (!a || !out)
		return CHAKRA_EINVAL;
	if (!chakra_attr_is_list(a) || !is_int_kind(a->kind))
		return CHAKRA_ETYPE;
	if (i >= a->n)
		return CHAKRA_ERANGE;
	return conv_int(a->kind, a->lu[i], out);
}

int chakra_attr_list_uint(const chakra_attr *a, size_t i, uint64_t *out)
{
	if (!a || !out)
		return CHAKRA_EINVAL;
	if (!chakra_attr_is_list(a) || !is_int_kind(a->kind))
		return CHAKRA_ETYPE;
	if (i >= a->n)
		return CHAKRA_ERANGE;
	return conv_uint(a->kind, a->lu[i], out);
}

int chakra_attr_list_double(const chakra_attr *a, size_t i, double *out)
{
	if (!a || !out)
		return CHAKRA_EINVAL;
	int k = a->kind;
	if (!chakra_attr_is_list(a) || k == CHAKRA_ATTR_STRING_LIST || k == CHAKRA_ATTR_BYTES_LIST)
		return CHAKRA_ETYPE;
	if (i >= a->n)
		return CHAKRA_ERANGE;
	return conv_double(k, a->lu ? a->lu[i] : 0, a->ld ? a->ld[i] : 0, out);
}

int chakra_attr_list_string(const chakra_attr *a, size_t i, const char **s, size_t *len)
{
	if (!a || !s)
		return CHAKRA_EINVAL;
	if (a->kind != CHAKRA_ATTR_STRING_LIST && a->kind != CHAKRA_ATTR_BYTES_LIST)
		return CHAKRA_ETYPE;
	if (i >= a->n)
		return CHAKRA_ERANGE;
	*s = a->ls[i].s;
	if (len)
		*len = a->ls[i].len;
	return 0;
}

/* ---- by name ---- */

int chakra_node_get_int(const chakra_node *n, const char *name, int64_t *out)
{
	if (!n || !name || !out)
		return CHAKRA_EINVAL;
	const chakra_attr *a = chakra_node_attr_find(n, name);
	return a ? chakra_attr_int(a, out) : CHAKRA_ENOTFOUND;
}

int chakra_node_get_uint(const chakra_node *n, const char *name, uint64_t *out)
{
	if (!n || !name || !out)
		return CHAKRA_EINVAL;
	const chakra_attr *a = chakra_node_attr_find(n, name);
	return a ? chakra_attr_uint(a, out) : CHAKRA_ENOTFOUND;
}

int chakra_node_get_bool(const chakra_node *n, const char *name, int *out)
{
	if (!n || !name || !out)
		return CHAKRA_EINVAL;
	const chakra_attr *a = chakra_node_attr_find(n, name);
	return a ? chakra_attr_bool(a, out) : CHAKRA_ENOTFOUND;
}

int chakra_node_get_string(const chakra_node *n, const char *name, const char **s, size_t *len)
{
	if (!n || !name || !s)
		return CHAKRA_EINVAL;
	const chakra_attr *a = chakra_node_attr_find(n, name);
	return a ? chakra_attr_string(a, s, len) : CHAKRA_ENOTFOUND;
}

int chakra_node_is_cpu_op(const chakra_node *n, int *o) { return chakra_node_get_bool(n, CHAKRA_ATTR_NAME_IS_CPU_OP, o); }
int chakra_node_num_ops(const chakra_node *n, uint64_t *o) { return chakra_node_get_uint(n, CHAKRA_ATTR_NAME_NUM_OPS, o); }
int chakra_node_tensor_size(const chakra_node *n, uint64_t *o) { return chakra_node_get_uint(n, CHAKRA_ATTR_NAME_TENSOR_SIZE, o); }
int chakra_node_comm_type(const chakra_node *n, int64_t *o) { return chakra_node_get_int(n, CHAKRA_ATTR_NAME_COMM_TYPE, o); }
int chakra_node_comm_size(const chakra_node *n, uint64_t *o) { return chakra_node_get_uint(n, CHAKRA_ATTR_NAME_COMM_SIZE, o); }
int chakra_node_comm_priority(const chakra_node *n, int64_t *o) { return chakra_node_get_int(n, CHAKRA_ATTR_NAME_COMM_PRIORITY, o); }
int chakra_node_comm_src(const chakra_node *n, int64_t *o) { return chakra_node_get_int(n, CHAKRA_ATTR_NAME_COMM_SRC, o); }
int chakra_node_comm_dst(const chakra_node *n, int64_t *o) { return chakra_node_get_int(n, CHAKRA_ATTR_NAME_COMM_DST, o); }
int chakra_node_comm_tag(const chakra_node *n, int64_t *o) { return chakra_node_get_int(n, CHAKRA_ATTR_NAME_COMM_TAG, o); }

int chakra_node_pg_name(const chakra_node *n, const char **s, size_t *len)
{
	return chakra_node_get_string(n, CHAKRA_ATTR_NAME_PG_NAME, s, len);
}

int chakra_node_involved_dim(const chakra_node *n, int *dims, size_t cap)
{
	if (!n || (!dims && cap))
		return CHAKRA_EINVAL;
	const chakra_attr *a = chakra_node_attr_find(n, CHAKRA_ATTR_NAME_INVOLVED_DIM);
	if (!a)
		return CHAKRA_ENOTFOUND;
	if (!chakra_attr_is_list(a) || !is_int_kind(a->kind))
		return CHAKRA_ETYPE;
	for (size_t i = 0; i < a->n && i < cap; i++)
		dims[i] = a->lu[i] != 0;
	return a->n > (size_t)INT32_MAX ? CHAKRA_ERANGE : (int)a->n;
}

/* ---- metadata ---- */

const char *chakra_metadata_version(const chakra_metadata *m, size_t *len)
{
	if (len)
		*len = m ? m->version.len : 0;
	return m && m->version.s ? m->version.s : "";
}

size_t chakra_metadata_attr_count(const chakra_metadata *m) { return m ? m->n_attrs : 0; }

const chakra_attr *chakra_metadata_attr_at(const chakra_metadata *m, size_t i)
{
	return m && i < m->n_attrs ? &m->attrs[i] : NULL;
}

const chakra_attr *chakra_metadata_attr_find(const chakra_metadata *m, const char *name)
{
	return m ? find(m->attrs, m->n_attrs, name) : NULL;
}
