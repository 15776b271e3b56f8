/* SPDX-License-Identifier: Apache-2.0 */
/* chakra bench feed TRACE: feed the whole trace (one node in flight,
 * completing each) and, in the same run, the floor: reading and framing
 * the file without decoding. Prints both and their ratio. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common.h"
#include "feedopts.h"

/* CPU seconds of this process: on a shared machine wall time also counts
 * waiting for a core, so both are reported. */
static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int floor_run(const char *trace, uint64_t *nodes, double *secs, double *cpu)
{
	double c0 = cpu_now();
	chakra_reader *r;
	double t0 = tool_now();
	int rc = chakra_reader_open(&r, trace, NULL);
	const void *m;
	size_t len;
	uint64_t n = 0, bytes = 0;
	if (rc >= 0)
		while ((rc = chakra_reader_next_raw(r, &m, &len)) > 0) {
			n++;
			bytes += len;
		}
	*secs = tool_now() - t0;
	*cpu = cpu_now() - c0;
	if (rc < 0)
		tool_err("%s", r ? chakra_reader_errmsg(r) : chakra_strerror(rc));
	chakra_reader_close(r);
	*nodes = n + (bytes == (uint64_t)-1); /* keep the loop's work observable */
	return rc;
}

static int feed_run(const char *trace, const chakra_feeder_options *o, uint64_t *nodes,
                    double *secs, double *cpu)
{
	double c0 = cpu_now();
	chakra_feeder *f;
	double t0 = tool_now();
	int rc = chakra_feeder_open(&f, trace, o);
	const chakra_node *n;
	if (rc >= 0)
		while ((rc = chakra_feeder_next(f, &n)) > 0)
			if ((rc = chakra_feeder_complete(f, chakra_node_id(n))) < 0)
				break;
	*secs = tool_now() - t0;
	*cpu = cpu_now() - c0;
	if (rc < 0)
		tool_err("%s", chakra_feeder_errmsg(f));
	*nodes = f ? chakra_feeder_issued_count(f) : 0;
	chakra_feeder_close(f);
	return rc;
}

int cmd_bench_feed(int argc, char **argv)
{
	chakra_feeder_options o = CHAKRA_FEEDER_OPTIONS_INIT;
	feed_cli fc = { 0, 0, 0, 0 };
	uint64_t repeat = 3;
	const tool_option opts[] = {
		FEED_CLI_OPTIONS(&fc),
		{ "--repeat", "K", TOOL_U64, &repeat, NULL, "runs of each, the best counts (1..100, default 3)" },
		{ NULL, NULL, 0, NULL, NULL, NULL },
	};
	const tool_command cmd = {
		"TRACE [--deps data|ctrl|both] [--order id|file] [--window N] [--strict]\n"
		"                         [--repeat K]",
		"Time feeding TRACE to the end (issue a node, complete it, repeat) and,\n"
		"in the same run, the floor: reading and framing the file without\n"
		"decoding (chakra_reader_next_raw). Each is run K times and the best time\n"
		"is reported, with nodes/s, the ratio feed/floor and the process's peak\n"
		"resident memory.",
		opts, NULL, 1, 1, "TRACE"
	};
	const char **args;
	int nargs, prc = tool_parse(&cmd, argc, argv, &args, &nargs);
	if (prc != TOOL_PARSED)
		return prc == TOOL_HELP_SHOWN ? 0 : prc;
	const char *trace = args[0];
	free(args);
	if (repeat == 0 || repeat > 100)
		return tool_usage(argv[0], "--repeat takes 1..100");
	if (!strcmp(trace, "-"))
		return tool_usage(argv[0], "TRACE must be a file (it is read several times)");
	feed_cli_apply(&fc, &o);

	double best_floor = 1e300, best_feed = 1e300, cpu_floor = 1e300, cpu_feed = 1e300, t, c;
	uint64_t n_floor = 0, n_feed = 0;
	long rss_floor = 0;
	/* Floor first (also warms the page cache for both), then alternate. */
	for (uint64_t k = 0; k < repeat; k++) {
		if (floor_run(trace, &n_floor, &t, &c) < 0)
			return 1;
		if (t < best_floor)
			best_floor = t;
		if (c < cpu_floor)
			cpu_floor = c;
		if (k == 0)
			rss_floor = tool_peak_rss_kib();
		if (feed_run(trace, &o, &n_feed, &t, &c) < 0)
			return 1;
		if (t < best_feed)
			best_feed = t;
		if (c < cpu_feed)
			cpu_feed = c;
	}
	long rss = tool_peak_rss_kib();
	if (n_feed != n_floor)
		return tool_err("%s: fed %llu nodes but the file has %llu", trace,
		                (unsigned long long)n_feed, (unsigned long long)n_floor);
	printf("trace      %s\n", trace);
	printf("nodes      %llu\n", (unsigned long long)n_feed);
	printf("deps       %s, order %s, window %llu%s\n",
	       o.deps == CHAKRA_DEPS_CTRL ? "ctrl" : o.deps == CHAKRA_DEPS_BOTH ? "both" : "data",
	       o.order == CHAKRA_ORDER_FILE ? "file" : "id",
	       (unsigned long long)(o.window ? o.window : 16384), o.window ? "" : " (default)");
	printf("feed       %.3f s wall, %.3f s CPU  %.0f nodes/s  (best of %llu)\n", best_feed,
	       cpu_feed, n_feed / (best_feed > 0 ? best_feed : 1e-9), (unsigned long long)repeat);
	printf("floor      %.3f s wall, %.3f s CPU  %.0f nodes/s  (read + frame only)\n", best_floor,
	       cpu_floor, n_floor / (best_floor > 0 ? best_floor : 1e-9));
	printf("ratio      %.2fx the floor (wall), %.2fx (CPU)\n",
	       best_feed / (best_floor > 0 ? best_floor : 1e-9),
	       cpu_feed / (cpu_floor > 0 ? cpu_floor : 1e-9));
	printf("peak RSS   %.1f MiB (after the floor alone: %.1f MiB)\n", rss / 1024.0,
	       rss_floor / 1024.0);
	return 0;
}
