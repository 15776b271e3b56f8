/* SPDX-License-Identifier: Apache-2.0 */
/* A run's events as text (sim.h, chakra_sim_trace): the timeline-visualizer
 * CSV and the Chrome trace-event JSON, through write callbacks. The JSON
 * is written by hand in YAJL's compact form (no spaces, control bytes as
 * \u00XX), so the output matches the other JSON the tools write; names
 * that are not UTF-8 get U+FFFD, as there. */
#include <inttypes.h>
#include <string.h>

#include "../cbprintf.h"
#include "chakra/experimental/sim.h"
#include "../modmem.h"
#include "../opts.h"
#include "jstr.h"

struct chakra_sim_trace {
	chakra__cbout events, timeline;
	int has_events, has_timeline;
	uint32_t npus;
	const chakra_sim *sim;    /* which NPUs are simulated (one per class) */
	unsigned char *cpu_named; /* NPUs whose thread 2 (CPU) has its name */
	int started;              /* the timeline's head is written */
	int nomem;
};

static const size_t opts_size[CHAKRA_SIM_TRACE_OPTIONS_VERSION + 1] = {
	0, sizeof(chakra_sim_trace_options)
};

int chakra_sim_trace_options_init(chakra_sim_trace_options *opts, unsigned version)
{
	return chakra__opts_init(opts, version, NULL, opts_size,
	                         CHAKRA_SIM_TRACE_OPTIONS_VERSION + 1);
}

int chakra_sim_trace_new(chakra_sim_trace **out, const chakra_sim_trace_options *opts)
{
	chakra_sim_trace_options o;
	if (!out)
		return CHAKRA_EINVAL;
	*out = NULL;
	if (!opts || chakra__opts_copy(&o, sizeof o, opts, NULL, opts_size,
	                               CHAKRA_SIM_TRACE_OPTIONS_VERSION + 1) || o.npus == 0)
		return CHAKRA_EINVAL;
	chakra_sim_trace *t = chakra_calloc(1, sizeof *t);
	if (!t)
		return CHAKRA_ENOMEM;
	t->events = (chakra__cbout){ o.events, o.events_data, 0 };
	t->timeline = (chakra__cbout){ o.timeline, o.timeline_data, 0 };
	t->has_events = o.events != NULL;
	t->has_timeline = o.timeline != NULL;
	t->npus = o.npus;
	*out = t;
	return 0;
}

void chakra_sim_trace_set_sim(chakra_sim_trace *t, const chakra_sim *s)
{
	if (t)
		t->sim = s;
}

void chakra_sim_trace_free(chakra_sim_trace *t)
{
	if (!t)
		return;
	chakra_free(t->cpu_named);
	chakra_free(t);
}

static const char *node_name(const chakra_node *n, size_t *len)
{
	const char *s = chakra_node_name(n, len);
	if (!s) {
		*len = 0;
		return "";
	}
	return s;
}

void chakra_sim_trace_event(void *trace, int what, uint32_t npu, uint64_t cycle,
                            const chakra_node *n)
{
	chakra_sim_trace *t = trace;
	if (!t || !n || !t->has_events)
		return;
	chakra__cbout *o = &t->events;
	chakra__cbprintf(o, "%s,npu_id=%" PRIu32 ",cycle=%" PRIu64 ",node_id=%" PRIu64
	                 ",node_name=", what == CHAKRA_SIM_ISSUE ? "issue" : "callback", npu, cycle,
	                 chakra_node_id(n));
	/* One event a line; the name is the rest of the line (commas allowed):
	 * written in runs between the line breaks it replaces. */
	size_t len;
	const char *s = node_name(n, &len), *run = s;
	for (; *s; s++) {
		if (*s != '\n' && *s != '\r')
			continue;
		chakra__cbprintf(o, "%.*s ", (int)(s - run), run);
		run = s + 1;
	}
	chakra__cbprintf(o, "%.*s\n", (int)(s - run), run);
}

static int put_out(void *p, const char *s, size_t n)
{
	chakra__cbout *o = p;
	if (!o->rc && n && o->write(o->data, s, n) < 0)
		o->rc = CHAKRA_EIO;
	return o->rc;
}

/* A JSON string: YAJL's escapes, invalid UTF-8 as U+FFFD (jstr.h). */
static void json_str(chakra__cbout *o, const char *s, size_t len)
{
	chakra__json_str(s, len, CHAKRA__JSTR_YAJL, put_out, o);
}

/* A time in microseconds from nanoseconds: six decimals, trailing zeros
 * (and a bare point) dropped. */
static void json_us(chakra__cbout *o, uint64_t ns)
{
	char b[64];
	int n = snprintf(b, sizeof b, "%.6f", (double)ns / 1000.0);
	while (n > 1 && b[n - 1] == '0')
		n--;
	if (b[n - 1] == '.')
		n--;
	chakra__cbprintf(o, "%.*s", n, b);
}

/* A metadata event: the name of a process (tid < 0) or of a thread. */
static void meta(chakra_sim_trace *t, uint32_t pid, int tid, const char *name)
{
	chakra__cbout *o = &t->timeline;
	chakra__cbprintf(o, "%s{\"ph\":\"M\",\"pid\":%" PRIu32, t->started > 1 ? "," : "", pid);
	t->started = 2;
	if (tid >= 0)
		chakra__cbprintf(o, ",\"tid\":%d", tid);
	chakra__cbprintf(o, ",\"name\":\"%s\",\"args\":{\"name\":",
	                 tid < 0 ? "process_name" : "thread_name");
	json_str(o, name, strlen(name));
	chakra__cbprintf(o, "}}");
}

/* The head: a process per NPU, threads compute (0) and communication (1).
 * Written with the first span (or at the end), so a workload that cannot
 * be opened leaves the output empty. */
static void timeline_begin(chakra_sim_trace *t)
{
	static const char *const threads[2] = { "compute", "communication" };
	t->started = 1;
	chakra__cbprintf(&t->timeline, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
	for (uint32_t r = 0; r < t->npus; r++) {
		char label[32];
		if (t->sim && !chakra_sim_simulated(t->sim, r))
			continue; /* (one NPU per class: the others have no events) */
		snprintf(label, sizeof label, "NPU %" PRIu32, r);
		for (int k = -1; k < 2; k++)
			meta(t, r, k, k < 0 ? label : threads[k]);
	}
}

void chakra_sim_trace_span(void *trace, uint32_t npu, int lane, const chakra_node *n,
                           uint64_t start, uint64_t end)
{
	chakra_sim_trace *t = trace;
	if (!t || !n || !t->has_timeline || t->nomem)
		return;
	if (!t->started)
		timeline_begin(t);
	chakra__cbout *o = &t->timeline;
	size_t len;
	const char *name = node_name(n, &len);
	if (lane == 2 && npu < t->npus) {
		/* ASTRA-sim's rules: CPU nodes on a third thread, named when first used. */
		if (!t->cpu_named && !(t->cpu_named = chakra_calloc(t->npus, 1))) {
			t->nomem = 1;
			return;
		}
		if (!t->cpu_named[npu]) {
			t->cpu_named[npu] = 1;
			meta(t, npu, 2, "cpu");
		}
	}
	chakra__cbprintf(o, "%s{\"ph\":\"X\",\"pid\":%" PRIu32 ",\"tid\":%" PRIu64 ",\"ts\":",
	                 t->started > 1 ? "," : "", npu, (uint64_t)lane);
	t->started = 2;
	json_us(o, start);
	chakra__cbprintf(o, ",\"dur\":");
	json_us(o, end - start);
	chakra__cbprintf(o, ",\"name\":");
	json_str(o, name, len);
	chakra__cbprintf(o, ",\"args\":{\"node_id\":%" PRIu64 "}}", chakra_node_id(n));
}

int chakra_sim_trace_finish(chakra_sim_trace *t)
{
	if (!t)
		return CHAKRA_EINVAL;
	if (t->has_timeline && !t->nomem) {
		if (!t->started)
			timeline_begin(t);
		chakra__cbprintf(&t->timeline, "]}\n");
	}
	if (t->nomem)
		return CHAKRA_ENOMEM;
	if (t->events.rc == CHAKRA_ENOMEM || t->timeline.rc == CHAKRA_ENOMEM)
		return CHAKRA_ENOMEM;
	return t->events.rc ? t->events.rc : t->timeline.rc;
}
