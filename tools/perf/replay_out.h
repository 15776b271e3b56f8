/* SPDX-License-Identifier: Apache-2.0 */
/* chakra sim --replay in files by job: cmd_replay.c the command (options,
 * the runs, --between), replay_json.c the report as JSON, replay_text.c
 * the report as text and the Chrome trace-event timeline. */
#ifndef CHAKRA_TOOLS_PERF_REPLAY_OUT_H
#define CHAKRA_TOOLS_PERF_REPLAY_OUT_H

#include <stddef.h>
#include <stdint.h>

#ifndef CHAKRA_EXPERIMENTAL
#define CHAKRA_EXPERIMENTAL
#endif
#include "chakra/experimental/perf.h"
#include "common.h"

/* By-kind totals of the critical path (ns): the ops' own time by op kind,
 * the lags by edge kind. */
typedef struct path_sum {
	int64_t own[CHAKRA_PERF_KIND_COUNT];
	int64_t lag[CHAKRA_PERF_EDGE_KIND_COUNT];
} path_sum;

/* --between: the windows' iteration and recorded times, and their median. */
typedef struct between_res {
	const char *name;
	uint64_t skip;
	size_t n, med;
	const int64_t *it, *rec;
	int64_t rec_med;
} between_res;

/* ns as microseconds with three decimals ("-1.500"). */
void replay_us_str(int64_t ns, char *buf, size_t cap);
/* A resource's name ("thread 7", "stream 3 (device 0)", ...) in buf. */
const char *replay_res_name(const chakra_perf_resource_info *ri, char *buf, size_t cap);
void replay_sum_path(const chakra_perf *r, path_sum *ps);
/* The report on stdout, as JSON (bw: --between's windows, or NULL) and as
 * text (copies: iterations replayed; ntop: the longest ops listed). */
void replay_json_out(const chakra_perf *r, const between_res *bw);
void replay_text_out(const chakra_perf *r, unsigned copies, size_t ntop, double secs);
/* The timeline under the output rule, written and closed in *o for the
 * caller to commit: 0, -1 (not opened), 1 (a write failed). */
int replay_timeline_out(const chakra_perf *r, const char *path, int force,
                        const char *const *inputs, tool_out *o);

#endif
