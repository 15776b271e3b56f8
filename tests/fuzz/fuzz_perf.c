/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target: the performance model (lib/perf) on an arbitrary ET.
 * The input is one trace, loaded as rank 0 and replayed (one or two
 * iterations, with or without the model's gaps and a kernel-scale rule,
 * chosen from the input's size). A trace may be refused with a message;
 * what runs must satisfy the invariants docs/replay.md states: the
 * breakdown sums to the iteration, the critical path is contiguous from 0
 * to the iteration's end and each step follows an edge of the graph; and
 * the windows between annotations "it" split all at once
 * (chakra_perf_between_range) are the ones split one by one. */
#include <stdint.h>
#include <stdio.h>

#ifndef CHAKRA_EXPERIMENTAL
#define CHAKRA_EXPERIMENTAL
#endif
#include "chakra/chakra.h"
#include "chakra/experimental/perf.h"
#include "fuzz_touch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	chakra_perf *r = NULL;
	if (chakra_perf_new(&r) < 0)
		return 0;
	int rc = chakra_perf_load_file(r, NULL, data, size, 0);
	if (rc < 0) {
		fuzz_check_errmsg(chakra_perf_errmsg(r));
		chakra_perf_free(r);
		return 0;
	}
	chakra_perf_options o = CHAKRA_PERF_OPTIONS_INIT;
	const char *re[] = { "k" };
	double f[] = { 3.0 };
	o.copies = 1 + (unsigned)(size % 2);
	o.modelled_gaps = (int)((size >> 1) & 1);
	if (size & 4) {
		o.kernel_scale_re = re;
		o.kernel_scale = f;
		o.n_kernel_scale = 1;
	}
	rc = chakra_perf_run(r, &o);
	if (rc < 0) {
		fuzz_check_errmsg(chakra_perf_errmsg(r));
		chakra_perf_free(r);
		return 0;
	}
	const chakra_perf_breakdown *b = chakra_perf_breakdown_of(r, -1);
	if (!b)
		fuzz_fail("a run without a breakdown", 0, 0, "");
	if (b->gpu_compute_ns + b->comm_exposed_ns + b->cpu_bound_ns + b->idle_ns != b->iteration_ns ||
	    b->idle_ns < 0)
		fuzz_fail("the breakdown does not sum to the iteration", 0, 0, "");
	const chakra_perf_segment *p = chakra_perf_path(r);
	int64_t t = 0;
	for (size_t i = 0; i < chakra_perf_path_length(r); i++) {
		if (p[i].start_ns != t || p[i].end_ns < p[i].start_ns)
			fuzz_fail("the critical path is not contiguous", (int)i, 0, "");
		if (p[i].via >= 0 && p[i].from_op != p[i].op &&
		    !chakra_perf_has_edge(r, p[i].from_op, p[i].op))
			fuzz_fail("a critical-path step without an edge", (int)i, 0, "");
		t = p[i].end_ns;
	}
	if (chakra_perf_path_length(r) && t != b->iteration_ns)
		fuzz_fail("the critical path does not end the iteration", 0, 0, "");
	/* windows between occurrences of the annotation "it" (the seeds name
	 * theirs so): split all at once, they are the windows split one by one */
	int64_t nw = chakra_perf_between_count(r, "it");
	if (nw > 0) {
		size_t m = nw > 8 ? 8 : (size_t)nw;
		chakra_perf *ws[8] = { NULL };
		if (chakra_perf_between_range(r, "it", 0, m, ws) < 0) {
			fuzz_check_errmsg(ws[0] ? chakra_perf_errmsg(ws[0]) : "out of memory");
			chakra_perf_free(ws[0]);
		} else {
			for (size_t w = 0; w < m; w++) {
				chakra_perf *one = NULL;
				if (chakra_perf_between(r, "it", w, &one) < 0)
					fuzz_fail("a window splits at once, not alone", (int)w, 0,
					          chakra_perf_errmsg(one));
				if (chakra_perf_op_count(one) != chakra_perf_op_count(ws[w]) ||
				    chakra_perf_edge_count(one) != chakra_perf_edge_count(ws[w]))
					fuzz_fail("a window split at once differs from it split alone", (int)w,
					          (int)chakra_perf_op_count(ws[w]), "");
				int r1 = chakra_perf_run(one, &o), r2 = chakra_perf_run(ws[w], &o);
				if (r1 != r2 || (r1 == 0 && chakra_perf_breakdown_of(one, -1)->iteration_ns !=
				                                chakra_perf_breakdown_of(ws[w], -1)->iteration_ns))
					fuzz_fail("a window split at once replays otherwise", (int)w, r1, "");
				chakra_perf_free(one);
				chakra_perf_free(ws[w]);
			}
		}
	}
	chakra_perf_free(r);
	return 0;
}
