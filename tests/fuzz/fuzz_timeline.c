/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target: `chakra timeline`'s event-log parser and lane
 * assignment (lib/astralog): our issue/callback lines and ASTRA-sim's,
 * with and without its logger prefix. Byte 0 picks the NPU count (1..8),
 * the rest is the log. When the log is accepted, every event must end at
 * or after its start, and no two events of one NPU may share a lane while
 * they overlap (trace viewers require it). A rejected line must say why. */
#ifndef CHAKRA_EXPERIMENTAL
#define CHAKRA_EXPERIMENTAL
#endif
#include <chakra/experimental/astralog.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_touch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	uint64_t npus = 1 + data[0] % 8;
	chakra_astralog_options o = CHAKRA_ASTRALOG_OPTIONS_INIT;
	o.npus = npus;
	o.name = "<fuzz>";
	chakra_astralog *t;
	if (chakra_astralog_new(&o, &t) < 0)
		abort();
	uint64_t lineno = 0;
	int ok = 1;
	for (size_t p = 1; p < size && ok;) {
		const uint8_t *nl = memchr(data + p, '\n', size - p);
		size_t len = nl ? (size_t)(nl - (data + p)) : size - p;
		lineno++;
		/* the command refuses lines with a NUL byte before parsing */
		if (memchr(data + p, 0, len)) {
			ok = 0;
			break;
		}
		/* the line as it is in the input, not terminated: the parser
		 * must stay within len */
		ok = chakra_astralog_line(t, (const char *)data + p, len, lineno) == 0;
		if (!ok && strncmp(chakra_astralog_errmsg(t), "<fuzz>:", 7))
			fuzz_fail("a rejected line without its message", (int)lineno, 0,
			          chakra_astralog_errmsg(t));
		p += len + 1;
	}
	uint32_t max_lanes = 0;
	if (ok && chakra_astralog_lanes(t, &max_lanes) == 0) {
		size_t n_ev, pool_len;
		const chakra_astralog_event *ev = chakra_astralog_events(t, &n_ev);
		const char *pool = chakra_astralog_names(t, &pool_len);
		/* per (npu, lane): the end of its last event, in sorted order */
		uint64_t *last = calloc((size_t)npus * (max_lanes ? max_lanes : 1), sizeof *last);
		if (!last)
			abort();
		for (size_t i = 0; i < n_ev; i++) {
			const chakra_astralog_event *e = &ev[i];
			if (e->end < e->start)
				fuzz_fail("an event ends before it starts", (int)i, 0, "");
			if (e->npu >= npus || e->lane >= max_lanes)
				fuzz_fail("event outside the NPUs or lanes", (int)e->npu, (int)e->lane, "");
			if (i && (ev[i - 1].npu > e->npu ||
			          (ev[i - 1].npu == e->npu && ev[i - 1].start > e->start)))
				fuzz_fail("events not sorted by NPU and start", (int)i, 0, "");
			uint64_t *l = &last[(size_t)e->npu * max_lanes + e->lane];
			if (*l > e->start)
				fuzz_fail("two overlapping events share a lane", (int)e->npu, (int)e->lane, "");
			*l = e->end;
			if (e->name_off + e->name_len >= pool_len || pool[e->name_off + e->name_len])
				fuzz_fail("event name not NUL-terminated in the pool", (int)i, 0, "");
		}
		free(last);
	}
	chakra_astralog_free(t);
	return 0;
}
