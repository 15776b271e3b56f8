/* SPDX-License-Identifier: Apache-2.0 */
/* The results as text (chakra_sim_write_results: the JSON object and
 * ASTRA-sim's lines, each NPU at the reference's 64440 cycles) and the
 * events as text (chakra_sim_trace, sim.h): on the shared all-reduce
 * microbenchmark the CSV has an issue and a callback line per NPU and the
 * Chrome trace a process per NPU and the span of each all-reduce, to the
 * cycle of simulation-model.md; without a run, the trace is its metadata
 * alone; names are escaped (JSON) or kept on one line (CSV); a failing
 * write callback is reported; bad options are refused. */
#ifndef CHAKRA_EXPERIMENTAL
#define CHAKRA_EXPERIMENTAL
#endif
#include "chakra/experimental/sim.h"

#include <stdlib.h>
#include <string.h>

#include "check.h"

static char err[512];

typedef struct buf {
	char *p;
	size_t n;
	int fail; /* the callback fails */
} buf;

static int put(void *data, const void *s, size_t len)
{
	buf *b = data;
	if (b->fail)
		return -1;
	char *p = realloc(b->p, b->n + len + 1);
	if (!p)
		return -1;
	memcpy(p + b->n, s, len);
	b->n += len;
	p[b->n] = 0;
	b->p = p;
	return 0;
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;
	for (const char *p = s; (p = strstr(p, what)); p++)
		n++;
	return n;
}

static chakra_sim_trace *trace_new(uint32_t npus, buf *ev, buf *tl)
{
	chakra_sim_trace_options to;
	CHECK(chakra_sim_trace_options_init(&to, CHAKRA_SIM_TRACE_OPTIONS_VERSION) == 0);
	to.npus = npus;
	to.events = ev ? put : NULL;
	to.events_data = ev;
	to.timeline = tl ? put : NULL;
	to.timeline_data = tl;
	chakra_sim_trace *t = NULL;
	CHECK(chakra_sim_trace_new(&t, &to) == 0 && t);
	return t;
}

/* A run of the 8-NPU all-reduce with the writer attached. */
static int run(const chakra_sim_network *net, const chakra_sim_system *sys, chakra_sim_trace *t)
{
	chakra_sim_options o = CHAKRA_SIM_OPTIONS_INIT;
	o.data = t;
	o.event_cb = chakra_sim_trace_event;
	o.span_cb = chakra_sim_trace_span;
	chakra_sim *s = NULL;
	CHECK(chakra_sim_new(&s, net, sys, &o) == 0);
	chakra_sim_trace_set_sim(t, s);
	int rc = chakra_sim_run_prefix(
		s, shared_path("data/astra-sim/microbenchmarks/all_reduce/8npus_1MB/all_reduce"));
	CHECK_MSG(rc == 0, "%s", chakra_sim_errmsg(s));
	CHECK_EQ_U(chakra_sim_finish(s), 64440);
	rc = chakra_sim_trace_finish(t);
	buf j = { 0 }, l = { 0 }, bad = { .fail = 1 };
	CHECK(chakra_sim_write_results(s, CHAKRA_SIM_RESULTS_JSON, put, &j) == 0);
	CHECK(chakra_sim_write_results(s, CHAKRA_SIM_RESULTS_ASTRA_SIM_LOG, put, &l) == 0);
	CHECK(chakra_sim_write_results(s, CHAKRA_SIM_RESULTS_JSON, put, &bad) == CHAKRA_EIO);
	CHECK(chakra_sim_write_results(s, (chakra_sim_results_form)7, put, &j) == CHAKRA_EINVAL);
	CHECK(chakra_sim_write_results(NULL, CHAKRA_SIM_RESULTS_JSON, put, &j) == CHAKRA_EINVAL);
	CHECK_MSG(j.p && !strncmp(j.p, "{\"finish_cycles\":64440,\"model\":\"unaware\",\"nodes\":8,"
	                          "\"rules\":\"model\",\"classes\":", 77) &&
	          count(j.p, "\"finish_cycles\":64440") == 9 && !strcmp(j.p + j.n - 3, "]}\n"),
	          "%s", j.p);
	CHECK_MSG(l.p && count(l.p, " finished, 64440 cycles, exposed communication 64440 cycles.\n")
	          == 8 && !strncmp(l.p, "sys[0] finished", 15), "%s", l.p);
	free(j.p);
	free(l.p);
	chakra_sim_free(s);
	return rc;
}

int main(void)
{
	need_data("data/astra-sim/microbenchmarks/all_reduce/8npus_1MB/all_reduce.0.et");
	chakra_sim_network net;
	chakra_sim_system sys;
	CHECK_MSG(chakra_sim_network_load(&net, shared_path("data/astra-sim/network/Ring_8npus.yml"),
	                                  err, sizeof err) == 0, "%s", err);
	CHECK_MSG(chakra_sim_system_load(&sys, shared_path("data/astra-sim/system/Ring_4chunks.json"),
	                                 err, sizeof err) == 0, "%s", err);

	/* Bad options. */
	chakra_sim_trace_options to = CHAKRA_SIM_TRACE_OPTIONS_INIT;
	chakra_sim_trace *t = NULL;
	CHECK(chakra_sim_trace_options_init(&to, 99) == CHAKRA_EINVAL);
	CHECK(chakra_sim_trace_options_init(NULL, 1) == CHAKRA_EINVAL);
	CHECK(chakra_sim_trace_new(&t, &to) == CHAKRA_EINVAL && !t); /* npus 0 */
	to.npus = 8;
	to.version = 99;
	CHECK(chakra_sim_trace_new(&t, &to) == CHAKRA_EINVAL && !t);
	CHECK(chakra_sim_trace_new(&t, NULL) == CHAKRA_EINVAL);
	CHECK(chakra_sim_trace_finish(NULL) == CHAKRA_EINVAL);
	chakra_sim_trace_free(NULL);

	/* No run yet: no results. */
	chakra_sim *s0 = NULL;
	buf none = { 0 };
	CHECK(chakra_sim_new(&s0, &net, &sys, NULL) == 0);
	CHECK(chakra_sim_write_results(s0, CHAKRA_SIM_RESULTS_JSON, put, &none) == CHAKRA_EINVAL &&
	      none.n == 0);
	chakra_sim_free(s0);

	/* Both outputs of a run. */
	buf ev = { 0 }, tl = { 0 };
	t = trace_new(8, &ev, &tl);
	CHECK(run(&net, &sys, t) == 0);
	chakra_sim_trace_free(t);
	CHECK(ev.p && count(ev.p, "\n") == 16);
	CHECK(count(ev.p, "issue,npu_id=") == 8 && count(ev.p, "callback,npu_id=") == 8);
	CHECK_MSG(ev.p && strstr(ev.p, "callback,npu_id=3,cycle=64440,node_id="), "%s", ev.p);
	static const char head[] =
		"{\"displayTimeUnit\":\"ns\",\"traceEvents\":[{\"ph\":\"M\",\"pid\":0,"
		"\"name\":\"process_name\",\"args\":{\"name\":\"NPU 0\"}},{\"ph\":\"M\",\"pid\":0,"
		"\"tid\":0,\"name\":\"thread_name\",\"args\":{\"name\":\"compute\"}},";
	CHECK_MSG(tl.p && !strncmp(tl.p, head, sizeof head - 1), "%s", tl.p);
	CHECK(tl.n > 3 && !strcmp(tl.p + tl.n - 3, "]}\n"));
	CHECK(count(tl.p, "\"ph\":\"M\"") == 24 && count(tl.p, "\"ph\":\"X\"") == 8);
	/* 64440 cycles = 64.44 us, one all-reduce per NPU on lane 1 */
	CHECK_MSG(count(tl.p, ",\"tid\":1,\"ts\":0,\"dur\":64.44,\"name\":") == 8, "%s", tl.p);
	free(ev.p);
	free(tl.p);

	/* No run: the metadata alone, and no CSV at all. */
	ev = (buf){ 0 };
	tl = (buf){ 0 };
	t = trace_new(2, &ev, &tl);
	CHECK(chakra_sim_trace_finish(t) == 0);
	chakra_sim_trace_free(t);
	CHECK(ev.n == 0);
	CHECK_MSG(tl.p && count(tl.p, "\"ph\":\"M\"") == 6 && count(tl.p, "\"pid\":1,") == 3 &&
	          !strcmp(tl.p + tl.n - 3, "]}\n"), "%s", tl.p);
	free(tl.p);

	/* Names: JSON escapes and U+FFFD for bytes that are not UTF-8; the CSV
	 * line keeps the name on it. A node written with the builder. */
	chakra_builder *b = chakra_builder_new();
	chakra_writer *w = NULL;
	buf et = { 0 };
	CHECK(b && chakra_writer_open_cb(&w, put, &et, NULL) == 0);
	CHECK(chakra_writer_write_metadata(w, "0.0.4", NULL) == 0);
	chakra_builder_set_id(b, 7);
	chakra_builder_set_name(b, "a\"b\\c\x01\n\xff/d\r\xc3\xa9", (size_t)-1);
	chakra_builder_set_type(b, CHAKRA_COMP_NODE);
	chakra_builder_set_duration_micros(b, 3);
	CHECK(chakra_writer_write_node(w, b) == 0 && chakra_writer_finish(w) == 0);
	chakra_writer_close(w);
	chakra_builder_free(b);
	static const char one_net[] = "topology: [ Ring ]\nnpus_count: [ 1 ]\n"
	                              "bandwidth: [ 50.0 ]\nlatency: [ 500.0 ]\n";
	chakra_sim_network net1;
	CHECK_MSG(chakra_sim_network_parse(&net1, "one", one_net, sizeof one_net - 1, err,
	                                   sizeof err) == 0, "%s", err);
	chakra_feeder *f = NULL;
	CHECK(chakra_feeder_open_buffer(&f, et.p, et.n, NULL) == 0);
	ev = (buf){ 0 };
	tl = (buf){ 0 };
	t = trace_new(1, &ev, &tl);
	chakra_sim_options o = CHAKRA_SIM_OPTIONS_INIT;
	o.data = t;
	o.event_cb = chakra_sim_trace_event;
	o.span_cb = chakra_sim_trace_span;
	chakra_sim *s = NULL;
	CHECK(chakra_sim_new(&s, &net1, &sys, &o) == 0);
	CHECK_MSG(chakra_sim_run(s, &f, 1) == 0, "%s", chakra_sim_errmsg(s));
	CHECK(chakra_sim_trace_finish(t) == 0);
	chakra_sim_free(s);
	chakra_sim_trace_free(t);
	chakra_feeder_close(f);
	CHECK_MSG(tl.p && strstr(tl.p, "\"name\":\"a\\\"b\\\\c\\u0001\\n\xef\xbf\xbd/d\\r\xc3\xa9\""),
	          "%s", tl.p);
	CHECK_MSG(tl.p && strstr(tl.p, "\"dur\":3,"), "%s", tl.p);
	CHECK_MSG(ev.p && count(ev.p, "\n") == 2 &&
	          strstr(ev.p, "issue,npu_id=0,cycle=0,node_id=7,node_name=a\"b\\c\x01 \xff/d \xc3\xa9\n"),
	          "%s", ev.p);
	free(ev.p);
	free(tl.p);
	free(et.p);

	/* A write that fails: reported at the end. */
	tl = (buf){ .fail = 1 };
	t = trace_new(8, NULL, &tl);
	CHECK(run(&net, &sys, t) == CHAKRA_EIO);
	chakra_sim_trace_free(t);
	return check_done();
}
