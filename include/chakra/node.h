/* SPDX-License-Identifier: Apache-2.0 */
/* libchakra: read-only views of trace nodes, metadata and attributes.
 *
 * A chakra_node is a view owned by whoever produced it (a reader or a
 * feeder); its memory, and every pointer obtained from it, stays valid as
 * documented by that producer (for a reader: until the next read or close;
 * for a feeder: until the node is completed). Strings are returned with
 * their length and are also NUL-terminated. */
#ifndef CHAKRA_NODE_H
#define CHAKRA_NODE_H

#include <stddef.h>
#include <stdint.h>
#include "chakra/export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct chakra_node chakra_node;
typedef struct chakra_attr chakra_attr;

/* Node types (ChakraProtoMsg.NodeType). */
typedef enum chakra_node_type {
	CHAKRA_INVALID_NODE = 0,
	CHAKRA_METADATA_NODE = 1,
	CHAKRA_MEM_LOAD_NODE = 2,
	CHAKRA_MEM_STORE_NODE = 3,
	CHAKRA_COMP_NODE = 4,
	CHAKRA_COMM_SEND_NODE = 5,
	CHAKRA_COMM_RECV_NODE = 6,
	CHAKRA_COMM_COLL_NODE = 7
} chakra_node_type;

/* Collective types (ChakraProtoMsg.CollectiveCommType), value of comm_type. */
typedef enum chakra_comm_type {
	CHAKRA_ALL_REDUCE = 0,
	CHAKRA_REDUCE = 1,
	CHAKRA_ALL_GATHER = 2,
	CHAKRA_GATHER = 3,
	CHAKRA_SCATTER = 4,
	CHAKRA_BROADCAST = 5,
	CHAKRA_ALL_TO_ALL = 6,
	CHAKRA_REDUCE_SCATTER = 7,
	CHAKRA_REDUCE_SCATTER_BLOCK = 8,
	CHAKRA_BARRIER = 9
} chakra_comm_type;

/* Attribute value kinds: the AttributeProto oneof field numbers (3..32).
 * Odd numbers are scalars, even numbers the matching lists. */
typedef enum chakra_attr_kind {
	CHAKRA_ATTR_NONE = 0, /* no value set */
	CHAKRA_ATTR_DOUBLE = 3, CHAKRA_ATTR_DOUBLE_LIST = 4,
	CHAKRA_ATTR_FLOAT = 5, CHAKRA_ATTR_FLOAT_LIST = 6,
	CHAKRA_ATTR_INT32 = 7, CHAKRA_ATTR_INT32_LIST = 8,
	CHAKRA_ATTR_INT64 = 9, CHAKRA_ATTR_INT64_LIST = 10,
	CHAKRA_ATTR_UINT32 = 11, CHAKRA_ATTR_UINT32_LIST = 12,
	CHAKRA_ATTR_UINT64 = 13, CHAKRA_ATTR_UINT64_LIST = 14,
	CHAKRA_ATTR_SINT32 = 15, CHAKRA_ATTR_SINT32_LIST = 16,
	CHAKRA_ATTR_SINT64 = 17, CHAKRA_ATTR_SINT64_LIST = 18,
	CHAKRA_ATTR_FIXED32 = 19, CHAKRA_ATTR_FIXED32_LIST = 20,
	CHAKRA_ATTR_FIXED64 = 21, CHAKRA_ATTR_FIXED64_LIST = 22,
	CHAKRA_ATTR_SFIXED32 = 23, CHAKRA_ATTR_SFIXED32_LIST = 24,
	CHAKRA_ATTR_SFIXED64 = 25, CHAKRA_ATTR_SFIXED64_LIST = 26,
	CHAKRA_ATTR_BOOL = 27, CHAKRA_ATTR_BOOL_LIST = 28,
	CHAKRA_ATTR_STRING = 29, CHAKRA_ATTR_STRING_LIST = 30,
	CHAKRA_ATTR_BYTES = 31, CHAKRA_ATTR_BYTES_LIST = 32
} chakra_attr_kind;

/* Which IOInfo and which of its strings. */
typedef enum chakra_io { CHAKRA_IO_INPUTS = 0, CHAKRA_IO_OUTPUTS = 1 } chakra_io;
typedef enum chakra_io_field {
	CHAKRA_IO_VALUES = 0, CHAKRA_IO_SHAPES = 1, CHAKRA_IO_TYPES = 2
} chakra_io_field;

/* Names for the enums above ("COMP_NODE", "ALL_REDUCE", "int64", ...);
 * NULL for values outside the enum. chakra_*_from_name returns the value
 * (>= 0), CHAKRA_ENOTFOUND for an unknown name or CHAKRA_EINVAL for NULL. */
CHAKRA_API const char *chakra_node_type_name(int type);
CHAKRA_API int chakra_node_type_from_name(const char *name);
CHAKRA_API const char *chakra_comm_type_name(int comm_type);
CHAKRA_API int chakra_comm_type_from_name(const char *name);
CHAKRA_API const char *chakra_attr_kind_name(int kind);
CHAKRA_API int chakra_attr_kind_from_name(const char *name);

/* ---- Node fields ---- */
CHAKRA_API uint64_t chakra_node_id(const chakra_node *n);
CHAKRA_API const char *chakra_node_name(const chakra_node *n, size_t *len);
/* The raw enum value: may lie outside chakra_node_type for odd files. */
CHAKRA_API int chakra_node_type_of(const chakra_node *n);
CHAKRA_API uint64_t chakra_node_start_time_micros(const chakra_node *n);
CHAKRA_API uint64_t chakra_node_duration_micros(const chakra_node *n);
/* The node's duration in nanoseconds: its duration_nanos attribute when it
 * has one that is a non-negative integer (the converter writes the measured
 * time there), else duration_micros x 1000, at most UINT64_MAX (a product
 * past it saturates rather than wraps). 0 for NULL. */
CHAKRA_API uint64_t chakra_node_duration_ns(const chakra_node *n);
CHAKRA_API size_t chakra_node_data_dep_count(const chakra_node *n);
CHAKRA_API const uint64_t *chakra_node_data_deps(const chakra_node *n);
CHAKRA_API size_t chakra_node_ctrl_dep_count(const chakra_node *n);
CHAKRA_API const uint64_t *chakra_node_ctrl_deps(const chakra_node *n);
/* 1 when the IOInfo message is present, 0 when absent. */
CHAKRA_API int chakra_node_has_io(const chakra_node *n, chakra_io which);
/* One string of an IOInfo ("" when absent). */
CHAKRA_API const char *chakra_node_io(const chakra_node *n, chakra_io which,
                                      chakra_io_field field, size_t *len);
/* Byte offset of the node's length prefix in the (uncompressed) stream and
 * its 0-based index among the file's nodes; used in error messages. */
CHAKRA_API uint64_t chakra_node_offset(const chakra_node *n);
CHAKRA_API uint64_t chakra_node_index(const chakra_node *n);

/* ---- Attributes ---- */
CHAKRA_API size_t chakra_node_attr_count(const chakra_node *n);
CHAKRA_API const chakra_attr *chakra_node_attr_at(const chakra_node *n, size_t i);
/* First attribute with this name, or NULL. */
CHAKRA_API const chakra_attr *chakra_node_attr_find(const chakra_node *n, const char *name);

CHAKRA_API const char *chakra_attr_name(const chakra_attr *a, size_t *len);
CHAKRA_API const char *chakra_attr_doc(const chakra_attr *a, size_t *len);
CHAKRA_API chakra_attr_kind chakra_attr_kind_of(const chakra_attr *a);
CHAKRA_API int chakra_attr_is_list(const chakra_attr *a);

/* Scalar getters. _int and _uint accept every integer kind and bool
 * (CHAKRA_ERANGE when the value does not fit); _double accepts double,
 * float and integer kinds; _bool accepts bool and integer kinds (non-zero
 * is true); _string accepts string and bytes. Anything else:
 * CHAKRA_ETYPE. */
CHAKRA_API int chakra_attr_int(const chakra_attr *a, int64_t *out);
CHAKRA_API int chakra_attr_uint(const chakra_attr *a, uint64_t *out);
CHAKRA_API int chakra_attr_double(const chakra_attr *a, double *out);
CHAKRA_API int chakra_attr_bool(const chakra_attr *a, int *out);
CHAKRA_API int chakra_attr_string(const chakra_attr *a, const char **s, size_t *len);

/* Lists: number of elements (0 for scalars), and element getters with the
 * same conversions as the scalar getters. Element access is O(1). */
CHAKRA_API size_t chakra_attr_list_len(const chakra_attr *a);
CHAKRA_API int chakra_attr_list_int(const chakra_attr *a, size_t i, int64_t *out);
CHAKRA_API int chakra_attr_list_uint(const chakra_attr *a, size_t i, uint64_t *out);
CHAKRA_API int chakra_attr_list_double(const chakra_attr *a, size_t i, double *out);
CHAKRA_API int chakra_attr_list_string(const chakra_attr *a, size_t i,
                                       const char **s, size_t *len);

/* By-name shortcuts: CHAKRA_ENOTFOUND when the node has no such
 * attribute, CHAKRA_ETYPE / CHAKRA_ERANGE as above. */
CHAKRA_API int chakra_node_get_int(const chakra_node *n, const char *name, int64_t *out);
CHAKRA_API int chakra_node_get_uint(const chakra_node *n, const char *name, uint64_t *out);
CHAKRA_API int chakra_node_get_bool(const chakra_node *n, const char *name, int *out);
CHAKRA_API int chakra_node_get_string(const chakra_node *n, const char *name,
                                      const char **s, size_t *len);

/* Well-known attributes (et-format.md); each accepts any integer kind. */
CHAKRA_API int chakra_node_is_cpu_op(const chakra_node *n, int *out);
CHAKRA_API int chakra_node_num_ops(const chakra_node *n, uint64_t *out);
CHAKRA_API int chakra_node_tensor_size(const chakra_node *n, uint64_t *out);
CHAKRA_API int chakra_node_comm_type(const chakra_node *n, int64_t *out);
CHAKRA_API int chakra_node_comm_size(const chakra_node *n, uint64_t *out);
CHAKRA_API int chakra_node_comm_priority(const chakra_node *n, int64_t *out);
CHAKRA_API int chakra_node_comm_src(const chakra_node *n, int64_t *out);
CHAKRA_API int chakra_node_comm_dst(const chakra_node *n, int64_t *out);
CHAKRA_API int chakra_node_comm_tag(const chakra_node *n, int64_t *out);
CHAKRA_API int chakra_node_pg_name(const chakra_node *n, const char **s, size_t *len);
/* involved_dim: fills up to cap flags, returns the list length (or an error). */
CHAKRA_API int chakra_node_involved_dim(const chakra_node *n, int *dims, size_t cap);

/* ---- Global metadata ---- */
typedef struct chakra_metadata chakra_metadata;
CHAKRA_API const char *chakra_metadata_version(const chakra_metadata *m, size_t *len);
CHAKRA_API size_t chakra_metadata_attr_count(const chakra_metadata *m);
CHAKRA_API const chakra_attr *chakra_metadata_attr_at(const chakra_metadata *m, size_t i);
CHAKRA_API const chakra_attr *chakra_metadata_attr_find(const chakra_metadata *m, const char *name);

#ifdef __cplusplus
}
#endif
#endif
