/* SPDX-License-Identifier: Apache-2.0 */
/* chakra bench replay: the performance model on a large converted-style
 * trace (written with the library's builder), next to a floor measured in
 * the same run: reading the same file and every field the replay's loader
 * reads, and nothing else. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHAKRA_EXPERIMENTAL
#include "chakra/experimental/perf.h"
#include "chakra/reader.h"
#include "bench_trace.h"
#include "common.h"
#include "opts.h"

int cmd_bench_replay(int argc, char **argv);

static double cpu_now(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
	       ru.ru_stime.tv_usec / 1e6;
}

/* The floor: every node decoded and every field the replay's loader
 * reads, summed so nothing is optimised away. */
static int floor_read(const char *path, uint64_t *sum, uint64_t *nodes)
{
	chakra_reader *r = NULL;
	int rc = chakra_reader_open(&r, path, NULL);
	const chakra_node *n;
	uint64_t s = 0, k = 0;
	while (rc >= 0 && (rc = chakra_reader_next(r, &n)) > 0) {
		int64_t v = 0;
		int b = 0;
		const char *str;
		size_t l = 0;
		s += (uint64_t)chakra_node_type_of(n) + chakra_node_id(n);
		chakra_node_is_cpu_op(n, &b);
		s += (uint64_t)b;
		static const char *const keys[] = { "tid", "stream", "device", "start_time_nanos",
		                                    "duration_nanos" };
		for (size_t i = 0; i < 5; i++)
			if (!chakra_node_get_int(n, keys[i], &v))
				s += (uint64_t)v;
		if (!chakra_node_get_string(n, "kineto_cat", &str, &l))
			s += l;
		chakra_node_name(n, &l);
		s += l;
		for (size_t i = 0; i < chakra_node_data_dep_count(n); i++)
			s += chakra_node_data_deps(n)[i];
		for (size_t i = 0; i < chakra_node_ctrl_dep_count(n); i++)
			s += chakra_node_ctrl_deps(n)[i];
		k++;
	}
	if (rc < 0)
		tool_err("%s", r ? chakra_reader_errmsg(r) : chakra_strerror(rc));
	chakra_reader_close(r);
	*sum = s;
	*nodes = k;
	return rc < 0 ? -1 : 0;
}

static int bench(const char *path, uint64_t runs, int64_t window, double t0);

int cmd_bench_replay(int argc, char **argv)
{
	uint64_t ops = 100000, runs = 3;
	const char *file = NULL;
	int force = 0;
	const tool_option opts[] = {
		{ "--ops", "N", TOOL_U64, &ops, NULL,
		  "about N ops in the trace (10..1e8, default 100000)" },
		{ "--file", "PATH", TOOL_STR, &file, NULL,
		  "where the trace is written (default: a private temporary\n"
		  "directory, removed at the end)" },
		{ "-f, --force", NULL, TOOL_FLAG, &force, NULL, "replace an existing PATH" },
		{ "--runs", "R", TOOL_U64, &runs, NULL, "runs, the best counts (1..100, default 3)" },
		{ NULL, NULL, 0, NULL, NULL, NULL },
	};
	const tool_command cmd = {
		"[--ops N] [--file PATH] [--runs R]",
		"Writes (or reuses) a trace shaped like a converted Kineto iteration of about N\n"
		"ops (default 100000): two host threads taking turns (forward / backward, 1,000\n"
		"launches each), host pieces and launch calls, kernels on two streams with an\n"
		"event wait every 7th kernel, a cudaStreamSynchronize every 50 launches; times\n"
		"recorded as a GPU would have run them. Then, best of R=3 runs: the floor (read\n"
		"every node and every field the replay reads), the replay's load, its model\n"
		"(two iterations back to back, breakdown, critical path) and the total; the\n"
		"replay must reproduce the recorded window exactly.\n"
		"The trace is written anew each time; an existing PATH is replaced only with -f.",
		opts, NULL, 0, 0, NULL
	};
	const char **args;
	int nargs, prc = tool_parse(&cmd, argc, argv, &args, &nargs);
	if (prc != TOOL_PARSED)
		return prc == TOOL_HELP_SHOWN ? 0 : prc;
	free((void *)args);
	if (ops < 10 || ops > 100000000)
		return tool_usage(argv[0], "--ops must be in 10..1e8");
	if (runs < 1 || runs > 100)
		return tool_usage(argv[0], "--runs must be in 1..100");
	char path[600], dir[512] = "";
	if (file) {
		if (strlen(file) >= sizeof path)
			return tool_usage(argv[0], "--file is too long");
		snprintf(path, sizeof path, "%s", file);
		if (tool_out_check(path, force, NULL, 0) < 0)
			return 1;
	} else {
		const char *tmp = getenv("TMPDIR");
		snprintf(dir, sizeof dir, "%s/chakra-bench-replay-XXXXXX",
		         tmp && *tmp && strlen(tmp) < 400 ? tmp : "/tmp");
		if (!mkdtemp(dir))
			return tool_err("%s: %s", dir, strerror(errno));
		snprintf(path, sizeof path, "%s/trace.et", dir);
	}
	int64_t window = 0;
	double t0 = tool_now();
	int rc = bench_write_trace(path, ops, &window, force) ? 1 : bench(path, runs, window, t0);
	if (*dir) {
		unlink(path);
		rmdir(dir);
	}
	return rc;
}

/* The runs on the written trace: 0, or 1 (printed). */
static int bench(const char *path, uint64_t runs, int64_t window, double t0)
{
	struct stat st;
	stat(path, &st);
	printf("trace: %s, %.1f MiB, recorded window %.3f ms (written in %.2f s)\n", path,
	       (double)st.st_size / 1048576.0, (double)window / 1e6, tool_now() - t0);
	double best[4][2];
	for (int k = 0; k < 4; k++)
		best[k][0] = best[k][1] = 1e30;
	uint64_t nodes = 0, sum = 0, nops = 0;
	int64_t it = 0;
	size_t path_len = 0;
	for (uint64_t run = 0; run < runs; run++) {
		double w0 = tool_now(), c0 = cpu_now();
		if (floor_read(path, &sum, &nodes))
			return 1;
		double w1 = tool_now(), c1 = cpu_now();
		chakra_perf *r = NULL;
		chakra_perf_options o = CHAKRA_PERF_OPTIONS_INIT;
		int rc = chakra_perf_new(&r);
		if (!rc)
			rc = chakra_perf_load(r, path);
		double w2 = tool_now(), c2 = cpu_now();
		if (!rc)
			rc = chakra_perf_run(r, &o);
		double w3 = tool_now(), c3 = cpu_now();
		if (rc) {
			tool_err("%s", r ? chakra_perf_errmsg(r) : chakra_strerror(rc));
			chakra_perf_free(r);
			return 1;
		}
		it = chakra_perf_breakdown_of(r, -1)->iteration_ns;
		nops = chakra_perf_op_count(r);
		path_len = chakra_perf_path_length(r);
		chakra_perf_free(r);
		double wv[4] = { w1 - w0, w2 - w1, w3 - w2, w3 - w1 };
		double cv[4] = { c1 - c0, c2 - c1, c3 - c2, c3 - c1 };
		for (int k = 0; k < 4; k++) {
			if (wv[k] < best[k][0])
				best[k][0] = wv[k];
			if (cv[k] < best[k][1])
				best[k][1] = cv[k];
		}
	}
	static const char *const rows[4] = { "floor: read every node and field", "replay: load",
		                              "replay: model (2 iterations, breakdown, path)",
		                              "replay: total" };
	printf("%" PRIu64 " nodes, %" PRIu64 " ops replayed, critical path %zu segments "
	       "(checksum %" PRIu64 ")\n", nodes, nops, path_len, sum);
	printf("%-46s %10s %10s\n", "best of runs", "wall s", "cpu s");
	for (int k = 0; k < 4; k++)
		printf("%-46s %10.3f %10.3f\n", rows[k], best[k][0], best[k][1]);
	printf("replay / floor: %.2fx (cpu); peak RSS %ld KiB\n",
	       best[3][1] / (best[0][1] > 1e-9 ? best[0][1] : 1e-9), tool_peak_rss_kib());
	if (it != window) {
		tool_err("the replay gave %" PRId64 " ns, the recorded window is %" PRId64 " ns", it,
		         window);
		return 1;
	}
	printf("iteration %" PRId64 " ns = the recorded window\n", it);
	return 0;
}
