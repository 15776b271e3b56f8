/* SPDX-License-Identifier: Apache-2.0 */
/* chakra bench replay's trace: cmd_bench_replay.c runs it, bench_trace.c
 * writes it. */
#ifndef CHAKRA_TOOLS_PERF_BENCH_TRACE_H
#define CHAKRA_TOOLS_PERF_BENCH_TRACE_H

#include <stdint.h>

/* A trace shaped like a converted Kineto iteration of about target ops at
 * path (replaced only with force), with the times a GPU and a runtime
 * would have produced: kernels start 10 us after their launch or 1 us
 * after what they wait for, a stream synchronize returns 3 us after the
 * last kernel. *window: the recorded window (ns). 0, or non-zero
 * (printed). */
int bench_write_trace(const char *path, uint64_t target, int64_t *window, int force);

#endif
