/* chakra feed TRACE: print node ids in the order a feeder issues them,
 * driven like a simulator with N nodes in flight. */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "hint.h"
#include "feedopts.h"

static int help(void)
{
	puts("usage: chakra feed TRACE [--deps data|ctrl|both] [--order id|file]\n"
	     "                   [--inflight N] [--window N] [--strict]\n\n"
	     "Feed a trace and print the issued node ids, one per line. Loop: issue\n"
	     "ready nodes (in the chosen order) until N are in flight or none is\n"
	     "ready; then complete the oldest node in flight; repeat. With the\n"
	     "defaults this is the order of Chakra's reference feeder.\n\n"
	     "  --deps data|ctrl|both  dependencies that gate issue (default data)\n"
	     "  --order id|file        among ready nodes: lowest id first (default) or\n"
	     "                         file order\n"
	     "  --inflight N           nodes in flight at most (default 1)\n"
	     "  --window N             nodes read ahead (default 16384; see docs/feeder.md)\n"
	     "  --strict               control deps on absent ids / self: errors, not\n"
	     "                         warnings\n\n"
	     "A stall (nodes left that can never be issued), a bad graph or a bad file\n"
	     "is reported on stderr with exit status 1.");
	return 0;
}

int cmd_feed(int argc, char **argv)
{
	chakra_feeder_options o = CHAKRA_FEEDER_OPTIONS_INIT;
	const char *trace = NULL, *v;
	uint64_t inflight = 1;
	int missing;
	for (int i = 1; i < argc; i++) {
		if (tool_is_help(argv[i]))
			return help();
		int r = feedopt_parse(argv[0], argc, argv, &i, &o);
		if (r < 0)
			return 2;
		if (r)
			continue;
		if ((v = tool_opt(argc, argv, &i, "--inflight", &missing)) || missing) {
			if (!v)
				return tool_usage(argv[0], "--inflight needs a count");
			if (tool_parse_u64("--inflight", v, &inflight) < 0)
				return 2;
			if (inflight == 0 || inflight > ((uint64_t)1 << 30))
				return tool_usage(argv[0], "--inflight must be 1..2^30");
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return tool_usage(argv[0], "unknown option '%s'", argv[i]);
		} else if (trace) {
			return tool_usage(argv[0], "one trace only (got '%s' and '%s')", trace, argv[i]);
		} else {
			trace = argv[i];
		}
	}
	if (!trace)
		return tool_usage(argv[0], "missing TRACE");

	chakra_feeder *f;
	int rc = chakra_feeder_open(&f, trace, &o);
	if (rc < 0) {
		tool_trace_err(trace, chakra_feeder_errmsg(f));
		chakra_feeder_close(f);
		return 1;
	}
	/* In-flight ids, oldest first (a ring of capacity inflight). */
	uint64_t *ring = malloc((size_t)inflight * sizeof *ring);
	if (!ring) {
		chakra_feeder_close(f);
		return tool_err("out of memory");
	}
	static char obuf[1 << 16];
	setvbuf(stdout, obuf, _IOFBF, sizeof obuf);
	size_t head = 0, n = 0;
	for (;;) {
		const chakra_node *node;
		while (n < inflight && (rc = chakra_feeder_next(f, &node)) > 0) {
			uint64_t id = chakra_node_id(node);
			printf("%llu\n", (unsigned long long)id);
			ring[(head + n++) % inflight] = id;
		}
		if (rc < 0 || n == 0)
			break;
		rc = chakra_feeder_complete(f, ring[head]);
		if (rc < 0)
			break;
		head = (head + 1) % inflight;
		n--;
	}
	free(ring);
	int status = 0;
	if (fflush(stdout) != 0 || ferror(stdout))
		status = tool_err("writing the ids failed");
	if (rc < 0)
		status = tool_trace_err(trace, chakra_feeder_errmsg(f));
	else if (chakra_feeder_warning_count(f))
		fprintf(stderr, "chakra feed: %s: %llu control dependenc%s ignored (parent never appears, "
		        "the node itself, or closing a cycle: %llu)\n", trace,
		        (unsigned long long)chakra_feeder_warning_count(f),
		        chakra_feeder_warning_count(f) == 1 ? "y" : "ies",
		        (unsigned long long)chakra_feeder_cycle_break_count(f));
	chakra_feeder_close(f);
	return status;
}
