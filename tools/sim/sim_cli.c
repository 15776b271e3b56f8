/* SPDX-License-Identifier: Apache-2.0 */
/* chakra sim's command line: the options, their checks, and the per-rank
 * arrays of --compute-scale and --start-delay. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sim_cmd.h"

/* Reads argv into c: TOOL_PARSED, TOOL_HELP_SHOWN or an exit status. */
int sim_cli_parse(sim_cli *c, int argc, char **argv)
{
	const tool_option opts[] = {
		{ "--workload, --workload-configuration", "PREFIX", TOOL_STR, &c->workload, NULL,
		  "the workload: PREFIX.0.et .. PREFIX.{N-1}.et, or one\n"
		  "file (one rank; required)" },
		{ "--network, --network-configuration", "FILE", TOOL_STR, &c->network, NULL,
		  "network YAML (without it and --system: one NPU)" },
		{ "--system, --system-configuration", "FILE", TOOL_STR, &c->system, NULL,
		  "system JSON (with --network)" },
		{ "--comm-group, --comm-group-configuration", "FILE", TOOL_STR, &c->groups, NULL,
		  "communicator groups {\"id\": [ranks]} used by pg_name" },
		{ "--remote-memory-configuration", "FILE", TOOL_STR, &c->ignored, NULL,
		  "accepted and ignored" },
		{ "--model", "unaware|aware", TOOL_CHOICE, &c->model, "unaware|aware",
		  "congestion-unaware (default) or per-link FIFO queues" },
		{ "--json", NULL, TOOL_FLAG, &c->json, NULL,
		  "one JSON object on stdout instead of the summary" },
		{ "--astra-sim-log", NULL, TOOL_FLAG, &c->astra_log, NULL,
		  "ASTRA-sim's 'sys[N] finished, ...' lines instead" },
		{ "--rules", "auto|astra-sim|model", TOOL_CHOICE, &c->rules, "auto|astra-sim|model",
		  "workload rules: ASTRA-sim's (CPU, GPU and\n"
		  "communication slots, ascending ids, whole-us\n"
		  "durations, data+ctrl deps) or the model's (one\n"
		  "compute slot, exact duration_nanos, data deps);\n"
		  "auto (default): ASTRA-sim's for traces converted\n"
		  "from a recording, the model's otherwise" },
		{ "--durations", "micros|nanos", TOOL_CHOICE, &c->durations, "micros|nanos",
		  "compute times from duration_micros x 1000 or\n"
		  "duration_nanos (default: as the rules say)" },
		{ "--streams", NULL, TOOL_FLAG, &c->streams, NULL,
		  "ASTRA-sim rules with a slot per CPU thread and\nper GPU stream" },
		{ "--deps", "data|ctrl|both", TOOL_CHOICE, &c->deps, "data|ctrl|both",
		  "dependencies that gate issue (default: both under\n"
		  "ASTRA-sim's rules, data under the model's)" },
		{ "--timeline", "FILE", TOOL_STR, &c->timeline, NULL,
		  "Chrome/Perfetto trace (a process per NPU)" },
		{ "--events", "FILE", TOOL_STR, &c->events, NULL,
		  "timeline-visualizer CSV (issue/callback lines)" },
		{ "-f, --force", NULL, TOOL_FLAG, &c->force, NULL,
		  "replace an existing --timeline / --events file" },
		{ "--compute-scale", "[R=]F", TOOL_LIST, &c->scale, NULL,
		  "multiply compute times (of rank R) by F; repeatable" },
		{ "--start-delay", "R=C", TOOL_LIST, &c->delay, NULL,
		  "rank R starts C cycles late (a straggler); repeatable" },
		{ "--memory", "SIZE", TOOL_SIZE, &c->memory, NULL,
		  "memory budget (default 64M, at least 1M): each\n"
		  "rank's read-ahead window and input reads come from\n"
		  "its share (docs/sim.md)" },
		{ "--window", "N", TOOL_U64, &c->window, NULL,
		  "nodes each rank's feeder reads ahead (default: from\n--memory, at most 16384)" },
		{ "--no-symmetry", NULL, TOOL_FLAG, &c->no_symmetry, NULL,
		  "simulate every NPU, even where ranks in classes\n"
		  "run the same trace from equivalent places (by\n"
		  "default one per class is, with every NPU's results)" },
		{ "--replay", NULL, TOOL_FLAG, &c->replay, NULL,
		  "replay a converted trace with its recorded times\n"
		  "instead (chakra sim --replay --help, docs/replay.md)" },
		{ NULL, NULL, 0, NULL, NULL, NULL },
	};
	const tool_command cmd = {
		"--workload PREFIX|FILE [--network NET.yml --system SYS.json]\n"
		"                  [--comm-group GROUPS.json] [--model unaware|aware] [--json]\n"
		"                  [--timeline FILE.json] [--events FILE.csv] [-f]\n"
		"                  [--compute-scale [RANK=]FACTOR]... [--start-delay RANK=CYCLES]...\n"
		"                  [--memory SIZE] [--window N] [--deps data|ctrl|both]\n"
		"                  [--rules auto|astra-sim|model] [--durations micros|nanos] [--streams]\n"
		"                  [--no-symmetry]",
		"Simulates PREFIX.0.et .. PREFIX.{N-1}.et (N = NPUs of the network), or the rank\n"
		"map PREFIX.ranks (one file per class of ranks; docs/feeder.md), with ASTRA-sim's\n"
		"analytical model, to the cycle (1 cycle = 1 ns). Ranks that run the same trace\n"
		"from equivalent places are simulated one per class, with every NPU's results\n"
		"(--events and --timeline then hold the NPUs simulated). Without --network and\n"
		"--system, a one-rank workload (one file, e.g. a converted trace) runs on one NPU\n"
		"(a ring of one, 50 GB/s, 500 ns; ASTRA-sim's Ring_4chunks system), as the\n"
		"output says.",
		opts, NULL, 0, 0, NULL
	};
	const char **args;
	int nargs, rc = tool_parse(&cmd, argc, argv, &args, &nargs);
	if (rc != TOOL_PARSED)
		return rc;
	free((void *)args);
	if (!c->workload)
		return tool_usage(argv[0], "--workload is required");
	if (!c->network != !c->system)
		return tool_usage(argv[0], "--network and --system go together (without both: one NPU)");
	if (c->window == 0)
		return tool_usage(argv[0], "--window must be at least 1");
	if (c->memory < ((uint64_t)1 << 20))
		return tool_usage(argv[0], "--memory must be at least 1M (1048576 bytes)");
	if ((c->timeline && !strcmp(c->timeline, "-")) || (c->events && !strcmp(c->events, "-")))
		return tool_usage(argv[0], "--timeline and --events need a file: stdout carries the "
		                  "summary");
	return TOOL_PARSED;
}

/* The per-rank compute scales and start delays of --compute-scale and
 * --start-delay (NULL when not given): 0, or an exit status (printed). */
int sim_cli_rank_arrays(const char *cmd, const sim_cli *c, uint32_t npus, double **scale,
                        uint64_t **delay)
{
	for (size_t k = 0; k < c->scale.n + c->delay.n; k++) {
		int is_scale = k < c->scale.n;
		const char *opt = is_scale ? "--compute-scale" : "--start-delay";
		const char *s = is_scale ? c->scale.v[k] : c->delay.v[k - c->scale.n];
		const char *eq = strchr(s, '=');
		uint64_t r = 0, cycles = 0;
		double f = 0;
		if (eq) {
			char buf[32];
			size_t n = (size_t)(eq - s);
			if (n == 0 || n >= sizeof buf)
				return tool_usage(cmd, "%s: bad rank in '%s'", opt, s);
			memcpy(buf, s, n);
			buf[n] = 0;
			if (tool_parse_u64(opt, buf, &r))
				return TOOL_USAGE_ERROR;
			if (r >= npus)
				return tool_usage(cmd, "%s: rank %" PRIu64 " is not in 0..%" PRIu32, opt, r,
				                  npus - 1);
		} else if (!is_scale) {
			return tool_usage(cmd, "%s: expected RANK=CYCLES, got '%s'", opt, s);
		}
		const char *val = eq ? eq + 1 : s;
		if (is_scale ? tool_parse_double(opt, val, &f) : tool_parse_u64(opt, val, &cycles))
			return TOOL_USAGE_ERROR;
		if (is_scale && (!(f >= 0) || f > 1e9))
			return tool_usage(cmd, "%s: factor must be in 0..1e9", opt);
		if (!is_scale) {
			if (!*delay && !(*delay = calloc(npus, sizeof **delay)))
				return tool_err("out of memory");
			(*delay)[r] = cycles;
			continue;
		}
		if (!*scale) {
			if (!(*scale = malloc(npus * sizeof **scale)))
				return tool_err("out of memory");
			for (uint32_t x = 0; x < npus; x++)
				(*scale)[x] = 1.0;
		}
		for (uint32_t x = 0; x < npus; x++)
			if (!eq || r == x)
				(*scale)[x] = f;
	}
	return 0;
}
