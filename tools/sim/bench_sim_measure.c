/* SPDX-License-Identifier: Apache-2.0 */
/* chakra bench sim's measurements: the simulation timed (wall, CPU, peak
 * RSS) and the floor it is compared with (the feeders alone). */
#include <sys/resource.h>

#include "bench_sim.h"
#include "common.h"

double bench_sim_cpu_now(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
	       ru.ru_stime.tv_usec / 1e6;
}

/* The floor: every node of every rank through its feeder, no model, the
 * ranks interleaved one node at a time as a simulator must (so the caches
 * see the same spread of feeders), reading what the model reads: the type
 * and the attributes that time the node (decoded on demand). ranks: the
 * first that many of the workload (all of them: 0). */
int bench_sim_feed_all(const char *prefix, uint64_t window, uint64_t window_bytes, size_t ranks,
                       uint64_t *count)
{
	chakra_workload *w = NULL;
	chakra_feeder_options fo = CHAKRA_FEEDER_OPTIONS_INIT;
	fo.window = window;
	fo.window_bytes = window_bytes;
	int rc = chakra_workload_open(&w, prefix, &fo);
	*count = 0;
	size_t n = rc < 0 ? 0 : chakra_workload_size(w);
	if (ranks && ranks < n)
		n = ranks;
	for (int more = 1; rc >= 0 && more;) {
		more = 0;
		for (size_t r = 0; rc >= 0 && r < n; r++) {
			chakra_feeder *f = chakra_workload_feeder(w, r);
			const chakra_node *nd;
			if (!f) {
				rc = CHAKRA_EIO;
				break;
			}
			if ((rc = chakra_feeder_next(f, &nd)) <= 0)
				continue;
			more = 1;
			uint64_t v;
			int64_t t;
			if (chakra_node_type_of(nd) == CHAKRA_COMP_NODE) {
				(void)chakra_node_get_uint(nd, "duration_nanos", &v);
				(void)chakra_node_duration_micros(nd);
			} else {
				(void)chakra_node_comm_type(nd, &t);
				(void)chakra_node_comm_size(nd, &v);
				(void)chakra_node_involved_dim(nd, NULL, 0);
			}
			(*count)++;
			rc = chakra_feeder_complete(f, chakra_node_id(nd));
		}
	}
	if (rc < 0)
		tool_err("%s: %s", prefix, w ? chakra_workload_errmsg(w) : chakra_strerror(rc));
	chakra_workload_close(w);
	return rc < 0 ? -1 : 0;
}

/* runs runs of the simulation (best wall and CPU; the first run's peak
 * RSS: later ones may reuse a fragmented heap), on every NPU or one per
 * class. 0, or 1 after an error. */
int bench_sim_time(chakra_sim *sim, const char *prefix, uint64_t runs, bench_run *out)
{
	out->wall = out->cpu = 1e30;
	for (uint64_t k = 0; k < runs; k++) {
		double c0 = bench_sim_cpu_now(), t0 = tool_now();
		if (chakra_sim_run_prefix(sim, prefix) < 0)
			return tool_err("%s", chakra_sim_errmsg(sim));
		double t = tool_now() - t0, c = bench_sim_cpu_now() - c0;
		if (k == 0)
			out->rss_kib = tool_peak_rss_kib();
		out->wall = t < out->wall ? t : out->wall;
		out->cpu = c < out->cpu ? c : out->cpu;
	}
	out->finish = chakra_sim_finish(sim);
	out->nodes = chakra_sim_nodes(sim);
	out->events = chakra_sim_events(sim);
	out->classes = chakra_sim_classes(sim);
	return 0;
}

