/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target: `chakra timeline`'s event-log parser and lane
 * assignment (tools/analyze/tlog.c): our issue/callback lines and
 * ASTRA-sim's, with and without its logger prefix. Byte 0 picks the NPU
 * count (1..8), the rest is the log. When the log is accepted, every event
 * must end at or after its start, and no two events of one NPU may share a
 * lane while they overlap (trace viewers require it). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_touch.h"
#include "tlog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	uint64_t npus = 1 + data[0] % 8;
	tlog t;
	if (tlog_init(&t, "<fuzz>", npus) < 0)
		abort();
	char *buf = malloc(size);
	if (!buf)
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
		memcpy(buf, data + p, len);
		buf[len] = 0;
		ok = tlog_line(&t, buf, len, lineno) == 0;
		p += len + 1;
	}
	uint32_t max_lanes = 0;
	if (ok && tlog_lanes(&t, &max_lanes) == 0) {
		/* per (npu, lane): the end of its last event, in sorted order */
		uint64_t *last = calloc((size_t)npus * (max_lanes ? max_lanes : 1), sizeof *last);
		if (!last)
			abort();
		for (size_t i = 0; i < t.n_ev; i++) {
			const tl_event *e = &t.ev[i];
			if (e->end < e->start)
				fuzz_fail("an event ends before it starts", (int)i, 0, "");
			if (e->npu >= npus || e->lane >= max_lanes)
				fuzz_fail("event outside the NPUs or lanes", (int)e->npu, (int)e->lane, "");
			if (i && (t.ev[i - 1].npu > e->npu ||
			          (t.ev[i - 1].npu == e->npu && t.ev[i - 1].start > e->start)))
				fuzz_fail("events not sorted by NPU and start", (int)i, 0, "");
			uint64_t *l = &last[(size_t)e->npu * max_lanes + e->lane];
			if (*l > e->start)
				fuzz_fail("two overlapping events share a lane", (int)e->npu, (int)e->lane, "");
			*l = e->end;
			if (e->name_off + e->name_len >= t.pool_len || t.pool[e->name_off + e->name_len])
				fuzz_fail("event name not NUL-terminated in the pool", (int)i, 0, "");
		}
		free(last);
	}
	free(buf);
	tlog_free(&t);
	return 0;
}
