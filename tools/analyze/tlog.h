/* SPDX-License-Identifier: Apache-2.0 */
/* The event log behind `chakra timeline`: one line at a time into issues
 * and complete events per NPU, then lanes so that no two events of one
 * lane overlap. Apart from the command so that the fuzzer can drive it.
 *
 * Lines: ours (issue|callback,npu_id=N,cycle=C,node_id=I,node_name=S) and
 * ASTRA-sim's (issue,sys->id=N, tick=C, node->id=I, node->name=S,
 * node->type=T), the latter with or without its logger's "[time] [L]
 * <name>: " prefix; prefixed lines that hold no event are counted in
 * `skipped`. */
#ifndef CHAKRA_ANALYZE_TLOG_H
#define CHAKRA_ANALYZE_TLOG_H

#include <stddef.h>
#include <stdint.h>

#ifndef CHAKRA_EXPERIMENTAL
#define CHAKRA_EXPERIMENTAL
#endif
#include "chakra/experimental/graph.h"

typedef struct tl_issue {
	uint64_t cycle, line, node_id;
	size_t name_off, name_len;
	uint32_t npu;
	int open;
} tl_issue;

typedef struct tl_event {
	uint64_t start, end, node_id, line;
	size_t name_off, name_len;
	uint32_t npu, lane;
} tl_event;

typedef struct tlog {
	const char *file;
	uint64_t npus;
	uint64_t skipped, first_skipped; /* prefixed lines that are not events */
	chakra_idmap **open; /* per NPU (made on first use): node_id -> issue index, or CLOSED */
	tl_issue *iss;
	size_t n_iss, iss_cap;
	tl_event *ev;
	size_t n_ev, ev_cap;
	char *pool;
	size_t pool_len, pool_cap;
} tlog;

/* file names the log in messages. 0 or -1 (no memory, printed). */
int tlog_init(tlog *t, const char *file, uint64_t npus);
void tlog_free(tlog *t);
/* One line (s is modified; len without the NUL): 0, or -1 after printing
 * "chakra: FILE:LINE: what" on stderr. */
int tlog_line(tlog *t, char *s, size_t len, uint64_t lineno);
/* Sort the events by NPU and start and give each the lowest free lane;
 * *max_lanes: the most lanes of one NPU. 0 or -1 (no memory). */
int tlog_lanes(tlog *t, uint32_t *max_lanes);

#endif
