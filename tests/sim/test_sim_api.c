/* SPDX-License-Identifier: Apache-2.0 */
/* The simulator's public API (include/chakra/experimental/sim.h): runs over
 * feeders, a workload and a prefix give the same results; a network and a
 * system filled by hand equal the parsed ones; the callbacks see every node
 * issued and completed, spans inside the run and each NPU's finish once;
 * bad arguments are refused with a message. Shared microbenchmarks, with
 * the reference cycles of simulation-model.md. */
#ifndef CHAKRA_EXPERIMENTAL
#define CHAKRA_EXPERIMENTAL
#endif
#include "chakra/experimental/sim.h"

#include <string.h>

#include "check.h"

static char err[512];

typedef struct seen {
	uint64_t issue[16], done[16], spans[16], finish_calls[16], last_cycle;
	chakra_sim_npu_result fin[16];
	int out_of_order;
} seen;

static void on_event(void *data, int what, uint32_t npu, uint64_t cycle, const chakra_node *n)
{
	seen *s = data;
	(void)n;
	if (cycle < s->last_cycle)
		s->out_of_order = 1;
	s->last_cycle = cycle;
	if (what == CHAKRA_SIM_ISSUE)
		s->issue[npu]++;
	else
		s->done[npu]++;
}

static void on_span(void *data, uint32_t npu, int lane, const chakra_node *n, uint64_t start,
                    uint64_t end)
{
	seen *s = data;
	(void)n;
	CHECK(lane == 1 && start == 0 && end >= start);
	s->spans[npu]++;
}

static void on_finish(void *data, uint32_t npu, const chakra_sim_npu_result *r)
{
	seen *s = data;
	s->finish_calls[npu]++;
	s->fin[npu] = *r;
}

static const char *micro(const char *coll, int n)
{
	static char p[4200];
	char rel[256];
	snprintf(rel, sizeof rel, "data/astra-sim/microbenchmarks/%s/%dnpus_1MB/%s", coll, n, coll);
	snprintf(p, sizeof p, "%s", shared_path(rel));
	return p;
}

int main(void)
{
	chakra_sim_network net, hand;
	chakra_sim_system sys;
	CHECK_MSG(chakra_sim_network_load(&net, shared_path("data/astra-sim/network/Ring_8npus.yml"),
	                                  err, sizeof err) == 0, "%s", err);
	CHECK_MSG(chakra_sim_system_load(&sys, shared_path("data/astra-sim/system/Ring_4chunks.json"),
	                                 err, sizeof err) == 0, "%s", err);

	/* The same network by hand: check fills npus and stride. */
	memset(&hand, 0, sizeof hand);
	hand.ndims = 1;
	hand.topo[0] = CHAKRA_SIM_RING;
	hand.size[0] = 8;
	hand.bw[0] = net.bw[0];
	hand.latency[0] = net.latency[0];
	CHECK(chakra_sim_network_check(&hand, err, sizeof err) == 0);
	CHECK(memcmp(&hand, &net, sizeof net) == 0);
	hand.bw[0] = 0;
	CHECK(chakra_sim_network_check(&hand, err, sizeof err) == CHAKRA_ECONFIG &&
	      strstr(err, "bandwidth"));
	hand.bw[0] = net.bw[0];
	hand.ndims = 9;
	CHECK(chakra_sim_network_check(&hand, err, sizeof err) == CHAKRA_ECONFIG);

	chakra_sim_options o;
	CHECK(chakra_sim_options_init(&o, CHAKRA_SIM_OPTIONS_VERSION) == 0);
	CHECK(chakra_sim_options_init(&o, 99) == CHAKRA_EINVAL);
	seen s;
	memset(&s, 0, sizeof s);
	o.data = &s;
	o.event_cb = on_event;
	o.span_cb = on_span;
	o.finish_cb = on_finish;

	/* Run over a workload's feeders. */
	chakra_sim *sim = NULL;
	CHECK(chakra_sim_new(&sim, &net, &sys, &o) == 0);
	chakra_workload *w = NULL;
	CHECK(chakra_workload_open(&w, micro("all_reduce", 8), NULL) == 0);
	CHECK_MSG(chakra_sim_run_workload(sim, w) == 0, "%s", chakra_sim_errmsg(sim));
	CHECK_EQ_U(chakra_sim_finish(sim), 64440);
	CHECK_EQ_U(chakra_sim_npus(sim), 8);
	CHECK_EQ_U(chakra_sim_nodes(sim), 8);
	CHECK(chakra_sim_events(sim) > 0);
	CHECK(!s.out_of_order);
	for (uint32_t r = 0; r < 8; r++) {
		const chakra_sim_npu_result *p = chakra_sim_npu(sim, r);
		CHECK(p && p->finish == 64440 && p->compute == 0 && p->nodes == 1 &&
		      p->comm_busy == 64440);
		CHECK_EQ_U(s.issue[r], 1);
		CHECK_EQ_U(s.done[r], 1);
		CHECK_EQ_U(s.spans[r], 1);
		CHECK_EQ_U(s.finish_calls[r], 1);
		CHECK(p && memcmp(&s.fin[r], p, sizeof *p) == 0);
	}
	CHECK(chakra_sim_npu(sim, 8) == NULL);
	chakra_workload_close(w);

	/* Explicit feeders; the wrong count is refused. */
	chakra_feeder *f[8];
	char path[4300];
	for (int r = 0; r < 8; r++) {
		snprintf(path, sizeof path, "%s.%d.et", micro("all_gather", 8), r);
		CHECK(chakra_feeder_open(&f[r], path, NULL) == 0);
	}
	CHECK(chakra_sim_run(sim, f, 7) == CHAKRA_EINVAL && strstr(chakra_sim_errmsg(sim), "7 feeders"));
	CHECK(chakra_sim_npu(sim, 0) == NULL); /* a failed run leaves no results */
	CHECK_MSG(chakra_sim_run(sim, f, 8) == 0, "%s", chakra_sim_errmsg(sim));
	CHECK_EQ_U(chakra_sim_finish(sim), 151016);
	for (int r = 0; r < 8; r++)
		chakra_feeder_close(f[r]);

	/* A prefix, aware model, reused handle freed; NULLs refused. */
	chakra_sim_free(sim);
	o.model = CHAKRA_SIM_AWARE;
	o.event_cb = NULL;
	o.span_cb = NULL;
	o.finish_cb = NULL;
	CHECK(chakra_sim_new(&sim, &net, &sys, &o) == 0);
	CHECK(chakra_sim_run_prefix(sim, micro("reduce_scatter", 8)) == 0);
	CHECK_EQ_U(chakra_sim_finish(sim), 33080);
	CHECK(chakra_sim_run_prefix(sim, micro("reduce_scatter", 4)) == CHAKRA_EINVAL &&
	      strstr(chakra_sim_errmsg(sim), "has 4 ranks but the network has 8 NPUs"));
	CHECK(chakra_sim_run_prefix(sim, "/nonexistent/prefix") < 0 &&
	      strstr(chakra_sim_errmsg(sim), "/nonexistent/prefix"));
	CHECK(chakra_sim_run(sim, NULL, 8) == CHAKRA_EINVAL);
	chakra_sim_free(sim);

	o.version = 7;
	CHECK(chakra_sim_new(&sim, &net, &sys, &o) == CHAKRA_EINVAL && sim &&
	      strstr(chakra_sim_errmsg(sim), "version"));
	chakra_sim_free(sim);
	o.version = CHAKRA_SIM_OPTIONS_VERSION;
	o.model = (chakra_sim_model)5;
	CHECK(chakra_sim_new(&sim, &net, &sys, &o) == CHAKRA_EINVAL);
	chakra_sim_free(sim);
	CHECK(chakra_sim_new(&sim, NULL, &sys, NULL) == CHAKRA_EINVAL);
	chakra_sim_free(sim);
	chakra_sim_system bad = sys;
	bad.n_impl[0] = 0;
	CHECK(chakra_sim_new(&sim, &net, &bad, NULL) == CHAKRA_ECONFIG);
	chakra_sim_free(sim);
	chakra_sim_free(NULL);
	CHECK(chakra_sim_network_parse(NULL, "x", "", 0, err, sizeof err) == CHAKRA_EINVAL);
	/* Nothing kept by pointer: the groups and the per-NPU arrays are
	 * copied by chakra_sim_new, so the caller may change or free them
	 * before the run (valgrind and ASan see a read of freed groups). */
	{
		uint64_t delay[8] = { 0 }, ref;
		double scale[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };
		chakra_sim_groups gs;
		static const char gtext[] = "{\"1\": [0, 1, 2, 3], \"2\": [4, 5, 6, 7]}";
		delay[3] = 5000;
		chakra_sim_options c = CHAKRA_SIM_OPTIONS_INIT;
		c.start_delay = delay;
		c.compute_scale = scale;
		CHECK(chakra_sim_new(&sim, &net, &sys, &c) == 0);
		CHECK(chakra_sim_run_prefix(sim, micro("all_reduce", 8)) == 0);
		ref = chakra_sim_finish(sim);
		CHECK_EQ_U(ref, 64440 + 5000);
		chakra_sim_free(sim);
		CHECK(chakra_sim_groups_parse(&gs, "g.json", gtext, sizeof gtext - 1, 8, err,
		                              sizeof err) == 0);
		c.groups = &gs;
		CHECK(chakra_sim_new(&sim, &net, &sys, &c) == 0);
		delay[3] = 0;
		scale[0] = 1e9;
		chakra_sim_groups_free(&gs);
		CHECK_MSG(chakra_sim_run_prefix(sim, micro("all_reduce", 8)) == 0, "%s",
		          chakra_sim_errmsg(sim));
		CHECK_EQ_U(chakra_sim_finish(sim), ref);
		chakra_sim_free(sim);
		/* an unknown options version is refused, naming it */
		c.version = 99;
		CHECK(chakra_sim_new(&sim, &net, &sys, &c) == CHAKRA_EINVAL &&
		      strstr(chakra_sim_errmsg(sim), "version 99"));
		chakra_sim_free(sim);
	}
	/* A tiny error buffer still gets a terminated prefix of the message. */
	char tiny[8];
	CHECK(chakra_sim_network_parse(&net, "net.yml", "topology: [ Ring ]\n", 19, tiny,
	                               sizeof tiny) == CHAKRA_ECONFIG && strlen(tiny) == 7);
	return check_done();
}
