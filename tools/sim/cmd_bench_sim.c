/* SPDX-License-Identifier: Apache-2.0 */
/* chakra bench sim: the reference's scale workload, generated with the
 * library's builder and writer (one trace every NPU runs, and a rank map),
 * then simulated: every NPU (the full path), and one NPU per class (the
 * symmetry reduction); prints time, peak memory, CPU per node and the
 * finish cycle next to a floor (feeding the same nodes through the feeder
 * with no model) measured in the same run. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_sim.h"
#include "common.h"
#include "opts.h"

/* The scale targets (docs/sim.md): time (0: none) and peak memory, and
 * which path they are for (1: the symmetry reduction). */
static const struct {
	uint64_t npus, nodes;
	double secs, mib;
	int sym;
} targets[] = {
	{ 64, 20000, 0, 100, 0 },
	{ 1024, 20000, 30, 1024, 0 },
	{ 4096, 5000, 60, 2048, 0 },
	{ 131072, 5000, 300, 4096, 1 },
};

/* The full path's CPU per node may not grow with ranks: at
 * 16,384 ranks within 1.5x of 64 ranks' (the same nodes per rank). */
#define FLAT_FACTOR 1.5

/* --shape D0xD1x...: 0, or -1 after a usage error. */
static int parse_shape(const char *cmd, const char *s, uint32_t *dims, int *nd)
{
	*nd = 0;
	for (const char *p = s; *p;) {
		char *end;
		errno = 0;
		unsigned long v = strtoul(p, &end, 10);
		if (end == p || errno || v < 1 || v > 65536 || *nd == CHAKRA_SIM_MAX_DIMS ||
		    (*end && *end != 'x') || (*end && !end[1]))
			return tool_usage(cmd, "--shape '%s': expected sizes like 8x16x1024 (each "
			                  "1..65536, at most %d)", s, CHAKRA_SIM_MAX_DIMS), -1;
		dims[(*nd)++] = (uint32_t)v;
		p = *end ? end + 1 : end;
	}
	return *nd ? 0 : (tool_usage(cmd, "--shape: empty"), -1);
}

int cmd_bench_sim(int argc, char **argv)
{
	uint64_t npus = 64, nodes = 20000, window = 0, runs = 3, memory = CHAKRA_SIM_DEFAULT_MEMORY;
	const char *dir = NULL, *shape = NULL;
	int aware = 0, path = -1, files = 0, force = 0;
	const tool_option opts[] = {
		{ "--npus", "N", TOOL_U64, &npus, NULL,
		  "NPUs (default 64): [Ring, Switch] 8 x N/8, N a multiple\nof 8" },
		{ "--shape", "D0xD1..", TOOL_STR, &shape, NULL,
		  "the network instead: dimension 0 a Ring, the others\nSwitches (e.g. 8x16x1024)" },
		{ "--nodes", "M", TOOL_U64, &nodes, NULL, "nodes per NPU (default 20000)" },
		{ "--dir", "DIR", TOOL_STR, &dir, NULL,
		  "where the workload is written (or reused)\n"
		  "(default /tmp/chakra-bench-sim-N-M)" },
		{ "--files", NULL, TOOL_FLAG, &files, NULL,
		  "write DIR/bench.r.et for every NPU instead of one\n"
		  "trace and the rank map DIR/bench.ranks" },
		{ "--path", "full|symmetry|both", TOOL_CHOICE, &path, "full|symmetry|both",
		  "simulate every NPU, one per class, or both\n"
		  "(default: both up to 16,384 NPUs, else symmetry)" },
		{ "-f, --force", NULL, TOOL_FLAG, &force, NULL,
		  "replace files of DIR that are not this workload's" },
		{ "--model", "unaware|aware", TOOL_CHOICE, &aware, "unaware|aware",
		  "the network model (default unaware)" },
		{ "--memory", "SIZE", TOOL_SIZE, &memory, NULL,
		  "chakra sim's memory budget (default 64M, at least 1M)" },
		{ "--window", "W", TOOL_U64, &window, NULL,
		  "nodes read ahead per rank (default: from the budget)" },
		{ "--runs", "R", TOOL_U64, &runs, NULL, "runs, the best counts (1..100, default 3)" },
		{ NULL, NULL, 0, NULL, NULL, NULL },
	};
	const tool_command cmd = {
		"[--npus N | --shape D0xD1..] [--nodes M] [--dir DIR] [--files]\n"
		"                        [--path full|symmetry|both] [--model unaware|aware]\n"
		"                        [--memory SIZE] [--window W] [--runs R] [-f]",
		"N NPUs on [Ring, Switch] 8 x N/8 (50/50 GB/s, 500/500 ns; ring per dimension,\n"
		"4 splits, 1 active chunk, endpoint delay 10, local-mem-bw 1600). Each NPU runs a\n"
		"chain of M nodes alternating compute (5, 20, 50, 100 us cycling) and all-reduce\n"
		"(64 KiB, 256 KiB, 1 MiB, 4 MiB, 16 MiB cycling), written once with a rank map\n"
		"(--files: a file per NPU). Defaults: N=64, M=20000, DIR=/tmp/chakra-bench-sim-N-M\n"
		"(reused when it holds the workload), and chakra sim's: the memory budget 64M,\n"
		"windows and reads from it (or W nodes read ahead per rank). The full path\n"
		"(--no-symmetry) is timed against the floor, the feeders alone; the symmetry\n"
		"reduction simulates one NPU per class. Times are the best of R=3 runs (wall and\n"
		"CPU separately); peak RSS is the first run's. The scale targets are printed\n"
		"beside the figures: 64 x 20000 in 100 MiB, 1024 x 20000 in 30 s and 1 GiB,\n"
		"4096 x 5000 in 60 s and 2 GiB (full path); 131072 x 5000 in 300 s and 4 GiB\n"
		"(symmetry). ASTRA-sim on N=64, M=20000: 146.6 s, 1.5 GiB, 2,405,152,000 cycles.",
		opts, NULL, 0, 0, NULL
	};
	const char **args;
	int nargs, prc = tool_parse(&cmd, argc, argv, &args, &nargs);
	if (prc != TOOL_PARSED)
		return prc == TOOL_HELP_SHOWN ? 0 : prc;
	free((void *)args);
	const char *model = aware ? "aware" : "unaware";
	uint32_t dims[CHAKRA_SIM_MAX_DIMS];
	int nd = 0;
	if (memory < ((uint64_t)1 << 20))
		return tool_usage(argv[0], "--memory: %llu bytes is below the minimum of 1M",
		                  (unsigned long long)memory);
	if (shape) {
		if (parse_shape(argv[0], shape, dims, &nd) < 0)
			return TOOL_USAGE_ERROR;
		uint64_t prod = 1;
		for (int d = 0; d < nd; d++)
			prod *= dims[d];
		if (prod > (1u << 24))
			return tool_usage(argv[0], "--shape: %llu NPUs, at most %u",
			                  (unsigned long long)prod, 1u << 24);
		npus = prod;
	} else {
		if (npus < 8 || npus % 8 || npus > (1u << 24))
			return tool_usage(argv[0], "--npus must be a multiple of 8 (8 x N/8), at most %u",
			                  1u << 24);
		dims[0] = 8;
		dims[1] = (uint32_t)(npus / 8);
		nd = 2;
	}
	if (nodes < 1)
		return tool_usage(argv[0], "--nodes must be at least 1");
	if (runs < 1 || runs > 100)
		return tool_usage(argv[0], "--runs must be in 1..100");
	if (path < 0)
		path = npus <= 16384 ? 2 : 1;
	int full = path != 1, sym = path != 0;
	char dbuf[256], p[1100], prefix[1024], err[512], net_text[1024], sys_text[2048];
	if (!dir) {
		snprintf(dbuf, sizeof dbuf, "/tmp/chakra-bench-sim-%" PRIu64 "-%" PRIu64, npus, nodes);
		dir = dbuf;
	}
	if (strlen(dir) > 900)
		return tool_usage(argv[0], "--dir is too long");
	struct stat st;
	if (mkdir(dir, dir == dbuf ? 0700 : 0777) && errno != EEXIST)
		return tool_err("%s: %s", dir, strerror(errno));
	/* the default lies in a shared /tmp: it must be ours, not a link */
	if (dir == dbuf && (lstat(dir, &st) || !S_ISDIR(st.st_mode) || st.st_uid != geteuid()))
		return tool_err("%s: not a directory of this user; use --dir", dir);
	snprintf(prefix, sizeof prefix, "%s/bench", dir);
	bench_sim_configs(dims, nd, net_text, sizeof net_text, sys_text, sizeof sys_text);
	/* Generate unless it is there. */
	double t0 = tool_now();
	int have, have_files, wrc = bench_sim_workload(prefix, dir, npus, nodes, files, force, &have,
	                                               &have_files);
	if (wrc)
		return wrc;
	double t_gen = tool_now() - t0;
	snprintf(p, sizeof p, "%s/network.yml", dir);
	if (bench_sim_write_text(p, net_text, force))
		return 1;
	snprintf(p, sizeof p, "%s/system.json", dir);
	if (bench_sim_write_text(p, sys_text, force))
		return 1;

	chakra_sim_network net;
	chakra_sim_system sys;
	if (chakra_sim_network_parse(&net, "bench network", net_text, strlen(net_text), err,
	                             sizeof err) ||
	    chakra_sim_system_parse(&sys, "bench system", sys_text, strlen(sys_text), err,
	                            sizeof err))
		return tool_err("%s", err);
	chakra_sim_options opt = CHAKRA_SIM_OPTIONS_INIT;
	opt.model = aware ? CHAKRA_SIM_AWARE : CHAKRA_SIM_UNAWARE;
	opt.window = window;
	opt.memory = memory;
	chakra_sim *sim = NULL;
	if (chakra_sim_new(&sim, &net, &sys, &opt) < 0) {
		tool_err("%s", sim ? chakra_sim_errmsg(sim) : "out of memory");
		chakra_sim_free(sim);
		return 1;
	}
	printf("workload: %" PRIu64 " NPUs (%s) x %" PRIu64 " nodes in %s, %s (%s %.2f s)\n", npus,
	       shape ? shape : "[Ring, Switch] 8 x N/8", nodes, dir,
	       have_files ? "a file per NPU" : "one trace and a rank map",
	       have ? "reused; generated earlier" : "generated in", t_gen);
	long rss0 = tool_peak_rss_kib();
	bench_run F = { 0 }, S = { 0 };
	int bad = 0;
	double t_floor = 1e30, c_floor = 1e30;
	uint64_t fed = 0;
	/* The symmetry reduction first (its peak RSS is then its own). */
	if (sym) {
		chakra_sim_free(sim);
		opt.no_symmetry = 0;
		if (chakra_sim_new(&sim, &net, &sys, &opt) < 0 || bench_sim_time(sim, prefix, runs, &S)) {
			chakra_sim_free(sim);
			return 1;
		}
		printf("symmetry (%s): %" PRIu32 " class%s simulated for %" PRIu64 " NPUs: %.3f s wall, "
		       "%.3f s CPU, peak RSS %.1f MiB (%.1f MiB before the run), %" PRIu64 " events, "
		       "finish %" PRIu64 " cycles\n", model, S.classes, S.classes == 1 ? "" : "es", npus,
		       S.wall, S.cpu, S.rss_kib / 1024.0, rss0 / 1024.0, S.events, S.finish);
		if (chakra_sim_symmetry(sim))
			printf("symmetry: every NPU simulated: %s\n", chakra_sim_symmetry(sim));
	}
	if (full) {
		chakra_sim_free(sim);
		opt.no_symmetry = 1;
		if (chakra_sim_new(&sim, &net, &sys, &opt) < 0 || bench_sim_time(sim, prefix, runs, &F)) {
			chakra_sim_free(sim);
			return 1;
		}
		for (uint64_t k = 0; k < runs; k++) {
			double c0 = bench_sim_cpu_now();
			t0 = tool_now();
			uint64_t fwb, fw = chakra_sim_window(sim, &fwb, NULL);
			if (bench_sim_feed_all(prefix, fw, fwb, 0, &fed)) {
				chakra_sim_free(sim);
				return 1;
			}
			double t = tool_now() - t0, c = bench_sim_cpu_now() - c0;
			t_floor = t < t_floor ? t : t_floor;
			c_floor = c < c_floor ? c : c_floor;
		}
		size_t rd;
		uint64_t wb, win = chakra_sim_window(sim, &wb, &rd);
		printf("full path (%s, memory %.0f MiB, window %" PRIu64 " nodes / %" PRIu64 " KiB, "
		       "reads of %zu KiB, best of %" PRIu64 "): %.3f s wall, %.3f s CPU, peak RSS %.1f "
		       "MiB, %" PRIu64 " events, %.1f M nodes/s\n", model, (double)memory / 1048576.0, win,
		       wb / 1024, rd / 1024, runs, F.wall, F.cpu, F.rss_kib / 1024.0, F.events,
		       (double)F.nodes / F.wall / 1e6);
		printf("finish: %" PRIu64 " cycles\n", F.finish);
		printf("floor (feeders interleaved + attribute reads, same %" PRIu64 " nodes, no model): "
		       "%.3f s wall, %.3f s CPU; sim / floor = %.2f (CPU)\n", fed, t_floor, c_floor,
		       c_floor > 0 ? F.cpu / c_floor : 0.0);
		printf("CPU per node: %.3f us (full path), %.3f us (floor); flat within %.1fx of 64 "
		       "ranks' is the target (compare runs of this command at 64, 1024, 16384 NPUs)\n",
		       F.cpu / (double)F.nodes * 1e6, c_floor / (double)fed * 1e6, FLAT_FACTOR);
		if (sym && S.finish != F.finish) {
			printf("symmetry: DIFFERENT FINISH from the full path (%" PRIu64 " vs %" PRIu64 ")\n",
			       S.finish, F.finish);
			bad = 1;
		}
	}
	uint64_t finish = full ? F.finish : S.finish;
	if (npus == 64 && nodes == 20000 && nd == 2)
		printf("reference (ASTRA-sim, simulation-model.md): 146.6 s, 1.5 GiB, 2405152000 "
		       "cycles -> %s, %.0fx faster\n",
		       finish == 2405152000ull ? "same cycles" : "DIFFERENT CYCLES",
		       146.6 / (full ? F.wall : S.wall));
	for (size_t k = 0; k < sizeof targets / sizeof *targets; k++) {
		if (targets[k].npus != npus || targets[k].nodes != nodes || !(targets[k].sym ? sym : full))
			continue;
		const bench_run *R = targets[k].sym ? &S : &F;
		double mib = R->rss_kib / 1024.0;
		if (targets[k].secs > 0)
			printf("target (%s): %.0f s, %.0f MiB -> %.1f s wall (%s), %.1f s CPU (%s), %.0f MiB "
			       "(%s)\n", targets[k].sym ? "symmetry" : "full path", targets[k].secs,
			       targets[k].mib, R->wall, R->wall <= targets[k].secs ? "met" : "OVER", R->cpu,
			       R->cpu <= targets[k].secs ? "met" : "OVER", mib,
			       mib <= targets[k].mib ? "met" : "OVER");
		else
			printf("target (full path): %.0f MiB with default options -> %.0f MiB (%s)\n",
			       targets[k].mib, mib, mib <= targets[k].mib ? "met" : "OVER");
	}
	bad |= npus == 64 && nodes == 20000 && nd == 2 && finish != 2405152000ull;
	chakra_sim_free(sim);
	return bad ? 1 : 0;
}
