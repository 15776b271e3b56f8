/* SPDX-License-Identifier: Apache-2.0 */
/* The names of the node and metadata attributes libchakra's converter and
 * generators write and its simulator, replay and synthesis read, one
 * macro each, so that a writer and its readers cannot spell one apart
 * (docs/api.md "Attribute names"). Each expands to the string literal:
 *   chakra_node_get_uint(n, CHAKRA_ATTR_NAME_COMM_SIZE, &bytes);
 * The well-known shortcuts (chakra_node_comm_size ...) read the same names. */
#ifndef CHAKRA_ATTRS_H
#define CHAKRA_ATTRS_H

/* What a node computes or moves (Chakra's own attributes). */
#define CHAKRA_ATTR_NAME_IS_CPU_OP "is_cpu_op"
#define CHAKRA_ATTR_NAME_NUM_OPS "num_ops"
#define CHAKRA_ATTR_NAME_TENSOR_SIZE "tensor_size"
#define CHAKRA_ATTR_NAME_COMM_TYPE "comm_type"
#define CHAKRA_ATTR_NAME_COMM_SIZE "comm_size"
#define CHAKRA_ATTR_NAME_COMM_PRIORITY "comm_priority"
#define CHAKRA_ATTR_NAME_COMM_SRC "comm_src"
#define CHAKRA_ATTR_NAME_COMM_DST "comm_dst"
#define CHAKRA_ATTR_NAME_COMM_TAG "comm_tag"
#define CHAKRA_ATTR_NAME_PG_NAME "pg_name"
#define CHAKRA_ATTR_NAME_INVOLVED_DIM "involved_dim"

/* Measured times in nanoseconds beside duration_micros / start_time_micros
 * (chakra_node_duration_ns reads the first). */
#define CHAKRA_ATTR_NAME_DURATION_NANOS "duration_nanos"
#define CHAKRA_ATTR_NAME_START_TIME_NANOS "start_time_nanos"

/* Where a converted node ran and what it waits for. */
#define CHAKRA_ATTR_NAME_STREAM "stream"
#define CHAKRA_ATTR_NAME_SYNC "sync"
#define CHAKRA_ATTR_NAME_BACKLOG_UNTIL_NANOS "backlog_until_nanos"

/* Process groups, on a converted trace's METADATA node. */
#define CHAKRA_ATTR_NAME_PG_SIZE "pg_size"
#define CHAKRA_ATTR_NAME_PG_RANKS "pg_ranks"
#define CHAKRA_ATTR_NAME_PG_RANK_START "pg_rank_start"
#define CHAKRA_ATTR_NAME_PG_RANK_STRIDE "pg_rank_stride"

/* A converted trace's metadata: the rank, the job's size, the window
 * converted and the annotations in it. */
#define CHAKRA_ATTR_NAME_RANK "rank"
#define CHAKRA_ATTR_NAME_WORLD_SIZE "world_size"
#define CHAKRA_ATTR_NAME_WINDOW_START_NANOS "window_start_nanos"
#define CHAKRA_ATTR_NAME_WINDOW_END_NANOS "window_end_nanos"
#define CHAKRA_ATTR_NAME_ANNOTATION_NAMES "annotation_names"
#define CHAKRA_ATTR_NAME_ANNOTATION_START_NANOS "annotation_start_nanos"
#define CHAKRA_ATTR_NAME_ANNOTATION_DURATION_NANOS "annotation_duration_nanos"
#define CHAKRA_ATTR_NAME_ANNOTATION_TIDS "annotation_tids"

#endif
