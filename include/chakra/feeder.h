/* SPDX-License-Identifier: Apache-2.0 */
/* libchakra: the feeder, a dependency-aware issue queue for simulators.
 *
 * A feeder reads one rank's trace and hands out the nodes whose parents
 * have all completed. Pull style:
 *
 *   chakra_feeder *f;
 *   chakra_feeder_open(&f, "wl.0.et", NULL);
 *   const chakra_node *n;
 *   while ((rc = chakra_feeder_next(f, &n)) > 0) {     // n is now in flight
 *       simulate(n);
 *       chakra_feeder_complete(f, chakra_node_id(n));  // releases children
 *   }
 *   // rc == 0: nothing ready; check chakra_feeder_has_more / in-flight
 *   // rc < 0: error, e.g. a stall with its blocked nodes and cycle named
 *
 * Callback style: set options.ready_cb; each node is passed to it when it
 * becomes issuable (it is then in flight), from chakra_feeder_drive() and
 * from chakra_feeder_complete(). Both styles share one core.
 *
 * Lifetime: a node's view, and every pointer obtained from it, stays valid
 * until that node is completed. Options are copied at open (the reader
 * options they point to as well). chakra_feeder_open_buffer uses the
 * caller's buffer in place: it must outlive the feeder.
 *
 * Memory: the feeder holds the nodes read ahead (up to `window` nodes and
 * `window_bytes` bytes) and reads further only when nothing else can make
 * progress; past `max_memory` it fails with CHAKRA_ETOOBIG instead of
 * growing (docs/hardening.md: budgets).
 *
 * Threads: one feeder is used by one thread at a time. Closing it from
 * inside its own ready_cb is allowed: the close happens when the callback
 * returns to the feeder, which then returns CHAKRA_ESTATE.
 *
 * Feeding reads only ids and dependencies; the other fields are decoded on
 * first access. If that decode finds a damaged attribute, the accessor
 * returns empty values and the feeder fails with the error (file, node,
 * byte) from its next call. Semantics, window and numbers: docs/feeder.md. */
#ifndef CHAKRA_FEEDER_H
#define CHAKRA_FEEDER_H

#include <stddef.h>
#include <stdint.h>
#include "chakra/error.h"
#include "chakra/export.h"
#include "chakra/node.h"
#include "chakra/reader.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct chakra_feeder chakra_feeder;

/* Which dependencies gate issue. */
typedef enum chakra_deps {
	CHAKRA_DEPS_DATA = 1, /* data_deps only: the reference feeder, default */
	CHAKRA_DEPS_CTRL = 2, /* ctrl_deps only */
	CHAKRA_DEPS_BOTH = 3
} chakra_deps;

/* Order among ready nodes. */
typedef enum chakra_order {
	CHAKRA_ORDER_ID = 0,  /* lowest id first: the reference feeder, default */
	CHAKRA_ORDER_FILE = 1 /* file order */
} chakra_order;

/* Called for each node as it becomes issuable; the node is in flight. */
typedef void (*chakra_ready_cb)(void *data, chakra_feeder *f, const chakra_node *node);

typedef struct chakra_feeder_options {
	unsigned version;            /* CHAKRA_FEEDER_OPTIONS_VERSION */
	chakra_deps deps;            /* 0 = CHAKRA_DEPS_DATA */
	chakra_order order;
	/* Nodes read ahead of what is needed: ready nodes are ordered among
	 * the nodes read so far, so a window that holds the file reproduces
	 * the reference order exactly. 0 = default (see docs/feeder.md). */
	uint64_t window;
	/* Non-zero: control dependencies on ids absent from the file, and
	 * self control dependencies, are errors instead of warnings. */
	int strict;
	chakra_ready_cb ready_cb;    /* NULL: pull style */
	void *data;                  /* passed to ready_cb */
	/* NULL: defaults. Copied at open (by its own version), so it may point
	 * to a temporary. */
	const chakra_reader_options *reader;
	/* ---- version 2 ---- */
	/* Read ahead also stops once the nodes held take this many bytes
	 * (their messages, and the fields decoded on access); 0 = default
	 * (64 MiB). Like `window`, it bounds the look-ahead, not correctness. */
	uint64_t window_bytes;
	/* Hard budget for those bytes: when a file needs more to make progress
	 * (a parent far ahead in the file), the feeder fails with
	 * CHAKRA_ETOOBIG naming the budget. 0 = default (1 GiB); UINT64_MAX =
	 * unlimited. */
	uint64_t max_memory;
	/* ---- version 3 ---- */
	/* NULL, or the rank's substitution of a rank map (below): the decoded
	 * comm_src, comm_dst and pg_name values of the class file are replaced
	 * by the rank's own. Copied at open. */
	const struct chakra_rank_subst *subst;
} chakra_feeder_options;

#define CHAKRA_FEEDER_OPTIONS_VERSION 3
#define CHAKRA_FEEDER_OPTIONS_INIT \
	{ CHAKRA_FEEDER_OPTIONS_VERSION, CHAKRA_DEPS_DATA, CHAKRA_ORDER_ID, 0, 0, NULL, NULL, NULL, 0, 0, \
	  NULL }

/* Defaults of that version, writing only its fields (as
 * chakra_reader_options_init). 0, or CHAKRA_EINVAL for an unknown version. */
CHAKRA_API int chakra_feeder_options_init(chakra_feeder_options *opts, unsigned version);

CHAKRA_API int chakra_feeder_open(chakra_feeder **out, const char *path,
                                  const chakra_feeder_options *opts);
CHAKRA_API int chakra_feeder_open_buffer(chakra_feeder **out, const void *buf, size_t len,
                                         const chakra_feeder_options *opts);
CHAKRA_API int chakra_feeder_open_cb(chakra_feeder **out, chakra_read_cb cb, void *cbdata,
                                     const chakra_feeder_options *opts);
/* On an open error *out is set unless memory ran out: read
 * chakra_feeder_errmsg, then close it. After any error other than
 * CHAKRA_ESTATE / CHAKRA_EINVAL from complete / push_back / drive, the
 * feeder keeps returning that error. */
CHAKRA_API void chakra_feeder_close(chakra_feeder *f);

/* Issue the next ready node: 1 and *node set (now in flight), 0 when none
 * is ready, negative on error. When nothing is ready, nothing is in flight
 * and nodes remain, the result is CHAKRA_EDEP or CHAKRA_ECYCLE and the
 * message names the blocked nodes and their missing parents or the cycle. */
CHAKRA_API int chakra_feeder_next(chakra_feeder *f, const chakra_node **node);
/* Complete an in-flight node; releases its children (and, in callback
 * style, issues those that become ready; an error while doing so, e.g. a
 * stall, is returned here although the completion itself took effect).
 * CHAKRA_ESTATE when id is not in flight (never issued, or already
 * completed); nothing changes then. */
CHAKRA_API int chakra_feeder_complete(chakra_feeder *f, uint64_t id);
/* Return an in-flight node to the ready set, to be issued again. */
CHAKRA_API int chakra_feeder_push_back(chakra_feeder *f, uint64_t id);
/* Callback style: issue every ready node through ready_cb. */
CHAKRA_API int chakra_feeder_drive(chakra_feeder *f);
/* A node still held (read, not yet completed), or NULL. */
CHAKRA_API const chakra_node *chakra_feeder_lookup(chakra_feeder *f, uint64_t id);
/* 1 while any node is unread, held, ready or in flight. */
CHAKRA_API int chakra_feeder_has_more(const chakra_feeder *f);

/* Counters, filled into the first `size` bytes of *st (pass sizeof *st:
 * fields are only appended). As POSIX's stat, the struct and the function
 * share a name: declare `struct chakra_feeder_stats st;`. O(1), changes
 * nothing. Returns 0, or CHAKRA_EINVAL for a NULL pointer. */
struct chakra_feeder_stats {
	uint64_t read;            /* nodes read from the input so far */
	uint64_t held;            /* read and not completed (ready, in flight, waiting) */
	uint64_t ready;           /* as chakra_feeder_ready_count */
	uint64_t inflight, issued, completed;
	uint64_t warnings, cycle_breaks, duplicate_deps; /* as the getters below */
	uint64_t held_bytes;      /* bytes held for the held nodes (window_bytes, max_memory) */
	uint64_t peak_held_bytes;
};
CHAKRA_API int chakra_feeder_stats(const chakra_feeder *f, struct chakra_feeder_stats *st,
                                   size_t size);

/* Single counters (kept until the next major version; chakra_feeder_stats
 * has them all). */
CHAKRA_API uint64_t chakra_feeder_held_count(const chakra_feeder *f);
/* Nodes ready to issue among those the feeder has examined. O(1); it
 * changes nothing. Nodes read ahead in file order are examined when
 * nothing examined is ready (docs/feeder.md: lazy mode), so a node whose
 * parents all completed may not be counted yet; 0 means the next
 * chakra_feeder_next may still issue one (it examines the read-ahead). */
CHAKRA_API uint64_t chakra_feeder_ready_count(const chakra_feeder *f);
CHAKRA_API uint64_t chakra_feeder_inflight_count(const chakra_feeder *f);
CHAKRA_API uint64_t chakra_feeder_issued_count(const chakra_feeder *f);
CHAKRA_API uint64_t chakra_feeder_completed_count(const chakra_feeder *f);
/* Control edges ignored with a warning, only counted when control
 * dependencies gate issue: parents that never appear in the file, self
 * edges, and control edges that close a dependency cycle (real traces
 * have all three; strict makes each an error). */
CHAKRA_API uint64_t chakra_feeder_warning_count(const chakra_feeder *f);
/* Of those, the control edges dropped to break a cycle. */
CHAKRA_API uint64_t chakra_feeder_cycle_break_count(const chakra_feeder *f);
/* Parents listed more than once by a node (each counted once). */
CHAKRA_API uint64_t chakra_feeder_duplicate_dep_count(const chakra_feeder *f);
CHAKRA_API const chakra_metadata *chakra_feeder_metadata(const chakra_feeder *f);
CHAKRA_API const char *chakra_feeder_errmsg(const chakra_feeder *f);
/* The last error as values (see chakra_error_info); returns its code. */
CHAKRA_API int chakra_feeder_error(const chakra_feeder *f, chakra_error_info *info, size_t size);

/* ---- Rank maps: N ranks written as one file per class (docs/feeder.md) ----
 * A text file (PREFIX.ranks) naming, for every rank, the file of its class
 * and the values its own trace has where the class file has others: its
 * peers (comm_src / comm_dst) and its groups (pg_name). */
typedef struct chakra_rank_map chakra_rank_map;

/* One rank's substitution: where a decoded comm_src or comm_dst equals
 * peer_from[i] the rank has peer_to[i], where pg_name equals group_from[j]
 * it has group_to[j]; other values are the class file's. */
typedef struct chakra_rank_subst {
	size_t n_peers;
	const int64_t *peer_from, *peer_to;
	size_t n_groups;
	const char *const *group_from;
	const char *const *group_to;
} chakra_rank_subst;

/* Reads a rank map: 0, or a negative error with "PATH:LINE: what" in err
 * (CHAKRA_EIO: the file cannot be read; CHAKRA_ECORRUPT: its contents).
 * Class files named by a relative path are relative to the map's folder. */
CHAKRA_API int chakra_rank_map_load(chakra_rank_map **out, const char *path, char *err,
                                    size_t errlen);
/* The same from memory (name: for messages and as the folder of relative
 * class files). */
CHAKRA_API int chakra_rank_map_parse(chakra_rank_map **out, const char *name, const char *text,
                                     size_t len, char *err, size_t errlen);
CHAKRA_API void chakra_rank_map_free(chakra_rank_map *m);
CHAKRA_API uint32_t chakra_rank_map_ranks(const chakra_rank_map *m);
CHAKRA_API uint32_t chakra_rank_map_classes(const chakra_rank_map *m);
/* The class of a rank (UINT32_MAX when out of range). */
CHAKRA_API uint32_t chakra_rank_map_class(const chakra_rank_map *m, uint32_t rank);
/* The class's file, a path to open (NULL when out of range). */
CHAKRA_API const char *chakra_rank_map_file(const chakra_rank_map *m, uint32_t cls);
/* The rank's substitution (pointers into the map, valid while it lives):
 * 0, or CHAKRA_EINVAL for a rank out of range. */
CHAKRA_API int chakra_rank_map_subst(const chakra_rank_map *m, uint32_t rank,
                                     chakra_rank_subst *s);
/* Is PATH a rank map (a regular file that starts "chakra-rank-map")? */
CHAKRA_API int chakra_rank_map_is(const char *path);

/* ---- Multi-rank workloads: PREFIX.0.et ... PREFIX.{N-1}.et, or a rank map ---- */
typedef struct chakra_workload chakra_workload;
/* Detects N (also accepts PREFIX.R.et.gz); one feeder per rank. Without
 * PREFIX.0.et(.gz), PREFIX.ranks (or PREFIX itself, when it is a rank map)
 * is read: each rank's feeder then reads its class file with the rank's
 * substitution, and is opened on the first chakra_workload_feeder call for
 * that rank (a map may name 131,072 ranks; NULL when that open fails: the
 * reason is in chakra_workload_errmsg). */
CHAKRA_API int chakra_workload_open(chakra_workload **out, const char *prefix,
                                    const chakra_feeder_options *opts);
CHAKRA_API size_t chakra_workload_size(const chakra_workload *w);
CHAKRA_API chakra_feeder *chakra_workload_feeder(chakra_workload *w, size_t rank);
/* The workload's rank map, or NULL for per-rank files. */
CHAKRA_API const chakra_rank_map *chakra_workload_rank_map(const chakra_workload *w);
CHAKRA_API const char *chakra_workload_errmsg(const chakra_workload *w);
CHAKRA_API void chakra_workload_close(chakra_workload *w);

#ifdef __cplusplus
}
#endif
#endif
