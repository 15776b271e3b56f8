/* SPDX-License-Identifier: Apache-2.0 */
/* chakra bench read TRACE [--repeat N]: reader speed against its floor.
 * The floor reads and frames every message without decoding
 * (chakra_reader_next_raw); the measured pass decodes every node
 * (chakra_reader_next) and touches its name, dependencies and attributes,
 * as a consumer would. Best of N runs each, alternated. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "opts.h"
#include "hint.h"

typedef struct pass {
	double best;
	uint64_t nodes, bytes, sum;
} pass;

static int run(const char *path, int decode, pass *p)
{
	chakra_reader *r;
	double t0 = tool_now();
	if (chakra_reader_open(&r, path, NULL) < 0) {
		tool_trace_err(path, chakra_reader_errmsg(r));
		chakra_reader_close(r);
		return -1;
	}
	int rc;
	uint64_t sum = 0;
	if (!decode) {
		const void *m;
		size_t len;
		while ((rc = chakra_reader_next_raw(r, &m, &len)) > 0)
			sum += len;
	} else {
		const chakra_node *n;
		while ((rc = chakra_reader_next(r, &n)) > 0) {
			size_t len;
			sum += chakra_node_id(n);
			chakra_node_name(n, &len);
			sum += len + chakra_node_data_dep_count(n) + chakra_node_ctrl_dep_count(n);
			for (size_t i = 0, c = chakra_node_attr_count(n); i < c; i++) {
				const chakra_attr *a = chakra_node_attr_at(n, i);
				uint64_t v = 0;
				chakra_attr_name(a, &len);
				sum += len + (uint64_t)chakra_attr_kind_of(a);
				if (chakra_attr_uint(a, &v) == 0)
					sum += v;
			}
		}
	}
	double t = tool_now() - t0;
	if (rc < 0) {
		tool_err("%s", chakra_reader_errmsg(r));
		chakra_reader_close(r);
		return -1;
	}
	p->nodes = chakra_reader_node_count(r);
	p->bytes = chakra_reader_offset(r);
	p->sum = sum;
	if (p->best == 0 || t < p->best)
		p->best = t;
	chakra_reader_close(r);
	return 0;
}

static void show(const char *label, const pass *p)
{
	double mb = (double)p->bytes / 1e6;
	printf("  %-22s %9.3f s %9.1f ns/node %9.1f MB/s\n", label, p->best,
	       p->nodes ? p->best * 1e9 / (double)p->nodes : 0.0, p->best > 0 ? mb / p->best : 0.0);
}

int cmd_bench_read(int argc, char **argv)
{
	uint64_t repeat = 3;
	const tool_option opts[] = {
		{ "--repeat", "N", TOOL_U64, &repeat, NULL, "runs of each pass, the best counts (default 3)" },
		{ NULL, NULL, 0, NULL, NULL, NULL },
	};
	const tool_command cmd = {
		"TRACE [--repeat N]",
		"Time reading TRACE two ways, best of N runs each:\n"
		"  read+frame     every message framed, nothing decoded (the floor)\n"
		"  decode         every node decoded, its name, deps and attributes read\n"
		"and print ns/node, MB/s (uncompressed bytes), their ratio and the\n"
		"process's peak resident memory.",
		opts, NULL, 1, 1, "TRACE"
	};
	const char **args;
	int nargs, prc = tool_parse(&cmd, argc, argv, &args, &nargs);
	if (prc != TOOL_PARSED)
		return prc == TOOL_HELP_SHOWN ? 0 : prc;
	const char *path = args[0];
	free(args);
	if (repeat == 0)
		return tool_usage(argv[0], "--repeat must be at least 1");
	if (!strcmp(path, "-"))
		return tool_usage(argv[0], "needs a file it can read several times, not stdin");
	pass frame = { 0 }, dec = { 0 };
	for (uint64_t k = 0; k < repeat; k++)
		if (run(path, 0, &frame) < 0 || run(path, 1, &dec) < 0)
			return 1;
	if (frame.nodes != dec.nodes)
		return tool_err("%s: the two passes saw different node counts", path);
	printf("bench read %s: %" PRIu64 " nodes, %.1f MB uncompressed, best of %" PRIu64 " runs\n",
	       path, dec.nodes, (double)dec.bytes / 1e6, repeat);
	show("read+frame (floor)", &frame);
	show("decode every node", &dec);
	printf("  decode / frame         %9.2fx\n", frame.best > 0 ? dec.best / frame.best : 0.0);
	printf("  peak RSS (whole run)   %9.1f MiB\n", (double)tool_peak_rss_kib() / 1024.0);
	printf("  checksum %" PRIu64 "\n", dec.sum ^ frame.sum);
	return 0;
}
