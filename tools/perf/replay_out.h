/* SPDX-License-Identifier: Apache-2.0 */
/* chakra sim --replay in files by job: cmd_replay.c the command (options,
 * the runs, --between), replay_scale.c the what-if scale options,
 * replay_text.c the report as text and the Chrome trace-event timeline;
 * the JSON report is the library's (chakra_perf_report_json). */
#ifndef CHAKRA_TOOLS_PERF_REPLAY_OUT_H
#define CHAKRA_TOOLS_PERF_REPLAY_OUT_H

#include <stddef.h>
#include <stdint.h>

#ifndef CHAKRA_EXPERIMENTAL
#define CHAKRA_EXPERIMENTAL
#endif
#include "chakra/experimental/perf.h"
#include "common.h"
#include "opts.h"

/* --kernel-scale R=F...: the patterns and factors, n of them. */
typedef struct opt_list {
	const char **re;
	double *f;
	size_t n;
} opt_list;

/* --kernel-scale into ks (re and f hold one slot per argument): 0, 2
 * (usage, printed) or 1 (printed). */
int replay_kernel_scales(const char *name, const tool_list *ksl, opt_list *ks);
/* --compute-scale [K=]F... over nr ranks into *out (malloc'd, the
 * caller frees; NULL: none given): 0, 2 (usage, printed) or 1. */
int replay_compute_scales(const char *name, const tool_list *cscale, uint32_t nr, double **out);
/* The report on stdout as text (copies: iterations replayed; ntop: the
 * longest ops listed); as JSON: chakra_perf_report_json. */
void replay_text_out(const chakra_perf *r, unsigned copies, size_t ntop, double secs);
/* The timeline under the output rule, written and closed in *o for the
 * caller to commit: 0, -1 (not opened), 1 (a write failed). */
int replay_timeline_out(const chakra_perf *r, const char *path, int force,
                        const char *const *inputs, tool_out *o);

#endif
