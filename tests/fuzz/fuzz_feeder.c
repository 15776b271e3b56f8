/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target: the feeder. The input is a small header, a sequence of
 * operations and a trace:
 *   byte 0: options: bits 0-1 deps (0 = default), bit 2 file order,
 *           bit 3 strict, bit 4 callback style, bit 5 (callback style)
 *           complete each node from inside ready_cb, bits 6-7 window
 *           (default, 1, 2, 8 nodes)
 *   byte 1: low 7 bits: number of operation bytes that follow; bit 7:
 *           the trace is streamed through a read callback in pieces of
 *           1-13 bytes (the framer then compacts and moves the bytes the
 *           feeder keeps for queued and in-flight nodes)
 *   ops:    low 2 bits: 0 next (pull) or drive (callback), 1 complete and
 *           2 push back the in-flight node chosen by the high bits, 3
 *           complete an arbitrary id (the high bits): must fail unless in
 *           flight
 *   rest:   the trace bytes
 * Then everything is drained. The harness keeps its own list of in-flight
 * nodes and checks the feeder against it: counts, lookups, no node issued
 * after it completed, every error with a message, and a clean end (nothing
 * ready and nothing in flight while nodes remain must be an error). Each
 * node's accessors are read when issued and again just before it is
 * completed, so a view freed too early shows up under ASan. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chakra/chakra.h"
#include "fuzz_touch.h"
#include "../memsrc.h"

#define FUZZ_MAX_MESSAGE (1u << 20)
#define MAX_STEPS 200000

typedef struct harness {
	chakra_feeder *f;
	const chakra_node **fl; /* in flight, as the harness saw them issued */
	size_t n, cap;
	uint64_t *done; /* completed ids, in order (small traces: linear search) */
	size_t ndone, capdone;
	int complete_in_cb;
	int failed; /* the feeder returned an error: later calls return it too */
} harness;

static int was_done(const harness *h, uint64_t id)
{
	for (size_t i = 0; i < h->ndone; i++)
		if (h->done[i] == id)
			return 1;
	return 0;
}

static void issued(harness *h, const chakra_node *n)
{
	uint64_t id = chakra_node_id(n);
	if (was_done(h, id))
		fuzz_fail("node issued again after it was completed", (int)id, 0, "");
	for (size_t i = 0; i < h->n; i++)
		if (chakra_node_id(h->fl[i]) == id)
			fuzz_fail("node issued twice while in flight", (int)id, 0, "");
	fuzz_touch_node(n);
	if (h->n == h->cap) {
		h->cap = h->cap ? 2 * h->cap : 16;
		h->fl = realloc(h->fl, h->cap * sizeof *h->fl);
		if (!h->fl)
			abort();
	}
	h->fl[h->n++] = n;
}

static void check_rc(harness *h, int rc)
{
	if (rc < 0) {
		if (rc < -17)
			fuzz_fail("undocumented error code", rc, 0, "");
		fuzz_check_errmsg(chakra_feeder_errmsg(h->f));
		if (rc != CHAKRA_ESTATE && rc != CHAKRA_EINVAL)
			h->failed = 1;
	}
}

/* Complete in-flight entry i (removing it from the list). */
static int complete_at(harness *h, size_t i)
{
	const chakra_node *n = h->fl[i];
	fuzz_touch_node(n); /* must still be valid: it is in flight */
	uint64_t id = chakra_node_id(n);
	h->fl[i] = h->fl[--h->n];
	int rc = chakra_feeder_complete(h->f, id);
	if (rc == 0) {
		if (h->ndone == h->capdone) {
			h->capdone = h->capdone ? 2 * h->capdone : 16;
			h->done = realloc(h->done, h->capdone * sizeof *h->done);
			if (!h->done)
				abort();
		}
		h->done[h->ndone++] = id;
	} else if (!h->failed && rc == CHAKRA_ESTATE) {
		fuzz_fail("completing an in-flight node failed", rc, 0, chakra_feeder_errmsg(h->f));
	}
	check_rc(h, rc);
	return rc;
}

static void ready(void *data, chakra_feeder *f, const chakra_node *n)
{
	harness *h = data;
	if (f != h->f)
		fuzz_fail("ready_cb got another feeder", 0, 0, "");
	issued(h, n);
	if (h->complete_in_cb)
		complete_at(h, h->n - 1);
}

static void check_counts(harness *h)
{
	if (h->failed)
		return;
	if (chakra_feeder_inflight_count(h->f) != h->n)
		fuzz_fail("in-flight count differs", (int)chakra_feeder_inflight_count(h->f),
		          (int)h->n, "");
	for (size_t i = 0; i < h->n; i++) {
		uint64_t id = chakra_node_id(h->fl[i]);
		if (chakra_feeder_lookup(h->f, id) != h->fl[i])
			fuzz_fail("lookup of an in-flight node", (int)id, 0, "");
	}
}

/* One pull or drive; returns the feeder's result. */
static int advance(harness *h, int cb)
{
	int rc;
	if (cb) {
		size_t before = h->n;
		rc = chakra_feeder_drive(h->f);
		if (rc == 0 && h->n > before)
			rc = 1;
	} else {
		const chakra_node *n;
		rc = chakra_feeder_next(h->f, &n);
		if (rc == 1)
			issued(h, n);
	}
	check_rc(h, rc);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	uint8_t flags = data[0];
	size_t nops = data[1] & 0x7f;
	if (nops > size - 2)
		nops = size - 2;
	const uint8_t *ops = data + 2, *trace = ops + nops;
	size_t tlen = size - 2 - nops;

	static const uint64_t windows[4] = { 0, 1, 2, 8 };
	chakra_reader_options ro = CHAKRA_READER_OPTIONS_INIT;
	ro.max_message_size = FUZZ_MAX_MESSAGE;
	chakra_feeder_options o = CHAKRA_FEEDER_OPTIONS_INIT;
	o.deps = (chakra_deps)(flags & 3);
	o.order = (flags & 4) ? CHAKRA_ORDER_FILE : CHAKRA_ORDER_ID;
	o.strict = (flags >> 3) & 1;
	o.window = windows[flags >> 6];
	o.reader = &ro;
	int cb = (flags >> 4) & 1;
	harness h = { 0 };
	h.complete_in_cb = cb && ((flags >> 5) & 1);
	if (cb) {
		o.ready_cb = ready;
		o.data = &h;
	}
	memsrc st = { trace, tlen, 0, 1 + tlen % 13 };
	int rc = (data[1] & 0x80) ? chakra_feeder_open_cb(&h.f, memsrc_read, &st, &o)
	                          : chakra_feeder_open_buffer(&h.f, trace, tlen, &o);
	if (rc < 0) {
		if (h.f)
			fuzz_check_errmsg(chakra_feeder_errmsg(h.f));
		chakra_feeder_close(h.f);
		return 0;
	}
	fuzz_touch_metadata(chakra_feeder_metadata(h.f));

	for (size_t k = 0; k < nops && !h.failed; k++) {
		uint8_t op = ops[k];
		size_t sel = op >> 2;
		switch (op & 3) {
		case 0:
			advance(&h, cb);
			break;
		case 1:
			if (h.n)
				complete_at(&h, sel % h.n);
			break;
		case 2:
			if (h.n) {
				size_t i = sel % h.n;
				uint64_t id = chakra_node_id(h.fl[i]);
				h.fl[i] = h.fl[--h.n];
				rc = chakra_feeder_push_back(h.f, id);
				if (rc == CHAKRA_ESTATE)
					fuzz_fail("push back of an in-flight node failed", rc, 0,
					          chakra_feeder_errmsg(h.f));
				check_rc(&h, rc);
			}
			break;
		case 3: {
			uint64_t id = sel;
			int inflight = 0;
			for (size_t i = 0; i < h.n; i++)
				if (chakra_node_id(h.fl[i]) == id)
					inflight = 1;
			if (inflight)
				break; /* a legal call: op 1 covers it */
			rc = chakra_feeder_complete(h.f, id);
			if (rc == 0)
				fuzz_fail("completed an id that is not in flight", (int)id, 0, "");
			check_rc(&h, rc);
			break;
		}
		}
		check_counts(&h);
	}

	/* Drain: issue and complete (oldest first) until the end or an error. */
	for (int steps = 0; !h.failed && steps < MAX_STEPS; steps++) {
		if (h.n) {
			complete_at(&h, 0);
			check_counts(&h);
			continue;
		}
		rc = advance(&h, cb);
		check_counts(&h);
		if (rc == 0 && h.n == 0) {
			/* Nothing ready, nothing in flight: must be the end. */
			if (chakra_feeder_has_more(h.f))
				fuzz_fail("feeder returned 0 with nodes left and nothing in flight", 0, 0,
				          chakra_feeder_errmsg(h.f));
			if (chakra_feeder_held_count(h.f) != 0)
				fuzz_fail("nodes held at the end", (int)chakra_feeder_held_count(h.f), 0, "");
			if (chakra_feeder_issued_count(h.f) < h.ndone)
				fuzz_fail("issued count below completed count",
				          (int)chakra_feeder_issued_count(h.f), (int)h.ndone, "");
			break;
		}
	}
	chakra_feeder_close(h.f);
	free(h.fl);
	free(h.done);
	return 0;
}
