/* SPDX-License-Identifier: Apache-2.0 */
/* libchakra (experimental): a simulator's event log, what `chakra
 * timeline` reads.
 *
 *   #define CHAKRA_EXPERIMENTAL
 *   #include <chakra/experimental/astralog.h>
 *
 *   chakra_astralog_options o = CHAKRA_ASTRALOG_OPTIONS_INIT;
 *   o.npus = 8;
 *   o.name = "events.csv";
 *   chakra_astralog *log;
 *   int rc = chakra_astralog_new(&o, &log);
 *   for (each line, numbered from 1)
 *       if ((rc = chakra_astralog_line(log, line, len, lineno)) < 0)
 *           puts(chakra_astralog_errmsg(log));  // "events.csv:LINE: what"
 *   uint32_t lanes;
 *   rc = chakra_astralog_lanes(log, &lanes);
 *   size_t n;
 *   const chakra_astralog_event *ev = chakra_astralog_events(log, &n);
 *   chakra_astralog_free(log);
 *
 * Lines, one at a time, become issues and complete events per NPU:
 * Chakra's timeline format (issue|callback,npu_id=N,cycle=C,node_id=I,
 * node_name=S) and ASTRA-sim's debug lines (issue,sys->id=N, tick=C,
 * node->id=I, node->name=S, node->type=T), the latter with or without its
 * logger's "[time] [L] <name>: " prefix; prefixed lines that hold no event
 * are counted as skipped. The name is the rest of the line but for
 * ASTRA-sim's trailing ", node->type=T". Then lanes: the events sorted by
 * NPU and start, each in the lowest lane of its NPU free at its start, so
 * that no two events of one lane overlap (O(n log n)). docs/analyze.md
 * describes the command. */
#ifndef CHAKRA_EXPERIMENTAL_ASTRALOG_H
#define CHAKRA_EXPERIMENTAL_ASTRALOG_H

#include "chakra/experimental.h"
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct chakra_astralog_options {
	unsigned version;  /* CHAKRA_ASTRALOG_OPTIONS_VERSION */
	uint64_t npus;     /* NPU ids must be below it (1 .. 2^24) */
	const char *name;  /* the log in messages (copied); NULL: "<log>" */
} chakra_astralog_options;

#define CHAKRA_ASTRALOG_OPTIONS_VERSION 1
#define CHAKRA_ASTRALOG_OPTIONS_INIT { CHAKRA_ASTRALOG_OPTIONS_VERSION, 1, NULL }

/* CHAKRA_EINVAL for a version this library does not know. */
CHAKRA_EXPERIMENTAL_API int chakra_astralog_options_init(chakra_astralog_options *opts,
                                                         unsigned version);

/* An issue line: a node started. open until its callback. */
typedef struct chakra_astralog_issue {
	uint64_t cycle, line, node_id;
	size_t name_off, name_len; /* in chakra_astralog_names() */
	uint32_t npu;
	int open;
} chakra_astralog_issue;

/* A node from its issue to its callback. */
typedef struct chakra_astralog_event {
	uint64_t start, end, node_id;
	uint64_t line;             /* of the issue */
	size_t name_off, name_len; /* in chakra_astralog_names() */
	uint32_t npu, lane;        /* lane: set by chakra_astralog_lanes */
} chakra_astralog_event;

typedef struct chakra_astralog chakra_astralog;

/* A log to feed lines to. CHAKRA_EINVAL (NULL out, unknown options
 * version, npus 0 or above 2^24), CHAKRA_ENOMEM. */
CHAKRA_EXPERIMENTAL_API int chakra_astralog_new(const chakra_astralog_options *opts,
                                                chakra_astralog **out);
CHAKRA_EXPERIMENTAL_API void chakra_astralog_free(chakra_astralog *log);

/* One line of len bytes (a trailing "\n" or "\r\n" allowed; blank lines
 * are skipped), lineno its number in messages. 0; CHAKRA_ECORRUPT for a
 * line that is not an event or does not fit the log so far (a callback
 * without an open issue, before its issue, an issue again before its
 * callback, an NPU out of range), CHAKRA_ENOMEM; then errmsg says
 * "NAME:LINE: what". */
CHAKRA_EXPERIMENTAL_API int chakra_astralog_line(chakra_astralog *log, const char *s,
                                                 size_t len, uint64_t lineno);

/* The last error's message ("" before any). */
CHAKRA_EXPERIMENTAL_API const char *chakra_astralog_errmsg(const chakra_astralog *log);

/* Sort the events by NPU and start (longer first, then by line) and give
 * each the lowest free lane of its NPU; *max_lanes: the most lanes of one
 * NPU. 0 or CHAKRA_ENOMEM. */
CHAKRA_EXPERIMENTAL_API int chakra_astralog_lanes(chakra_astralog *log, uint32_t *max_lanes);

/* The complete events (in line order of their callbacks until
 * chakra_astralog_lanes sorts them) and the issues in line order; valid
 * until the next line or the free. */
CHAKRA_EXPERIMENTAL_API const chakra_astralog_event *
chakra_astralog_events(const chakra_astralog *log, size_t *n);
CHAKRA_EXPERIMENTAL_API const chakra_astralog_issue *
chakra_astralog_issues(const chakra_astralog *log, size_t *n);
/* The names, each NUL-terminated at name_off + name_len; *len: the bytes
 * in use (may be NULL). Valid until the next line or the free. */
CHAKRA_EXPERIMENTAL_API const char *chakra_astralog_names(const chakra_astralog *log,
                                                          size_t *len);
/* Lines with a logger prefix that hold no event; *first_line: the first
 * of them (may be NULL). */
CHAKRA_EXPERIMENTAL_API uint64_t chakra_astralog_skipped(const chakra_astralog *log,
                                                         uint64_t *first_line);

#ifdef __cplusplus
}
#endif

#endif
