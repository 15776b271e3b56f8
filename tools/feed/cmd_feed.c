/* SPDX-License-Identifier: Apache-2.0 */
/* chakra feed TRACE: print node ids in the order a feeder issues them,
 * driven like a simulator with N nodes in flight. */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "hint.h"
#include "feedopts.h"

int cmd_feed(int argc, char **argv)
{
	chakra_feeder_options o = CHAKRA_FEEDER_OPTIONS_INIT;
	feed_cli fc = { 0, 0, 0, 0 };
	uint64_t inflight = 1;
	const tool_option opts[] = {
		FEED_CLI_OPTIONS(&fc),
		{ "--inflight", "N", TOOL_U64, &inflight, NULL, "nodes in flight at most (default 1)" },
		{ NULL, NULL, 0, NULL, NULL, NULL },
	};
	const tool_command cmd = {
		"TRACE [--deps data|ctrl|both] [--order id|file] [--inflight N] [--window N]\n"
		"                   [--strict]",
		"Feed a trace and print the issued node ids, one per line. Loop: issue\n"
		"ready nodes (in the chosen order) until N are in flight or none is\n"
		"ready; then complete the oldest node in flight; repeat. With the\n"
		"defaults this is the order of Chakra's reference feeder.",
		opts,
		"A stall (nodes left that can never be issued), a bad graph or a bad file\n"
		"is reported on stderr with exit status 1.",
		1, 1, "TRACE"
	};
	const char **args;
	int nargs, prc = tool_parse(&cmd, argc, argv, &args, &nargs);
	if (prc != TOOL_PARSED)
		return prc == TOOL_HELP_SHOWN ? 0 : prc;
	const char *trace = args[0];
	free(args);
	if (inflight == 0 || inflight > ((uint64_t)1 << 30))
		return tool_usage(argv[0], "--inflight must be 1..2^30");
	feed_cli_apply(&fc, &o);

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
