/* SPDX-License-Identifier: Apache-2.0 */
/* chakra timeline: a simulator's event log (Chakra's timeline-visualizer
 * format) to Chrome / Perfetto trace-event JSON.
 *
 *   issue,npu_id=N,cycle=C,node_id=I,node_name=S      node I starts on NPU N
 *   callback,npu_id=N,cycle=C,node_id=I,node_name=S   node I ends
 *
 * and ASTRA-sim's own debug lines, with or without its logger's prefix:
 *
 *   [2024-05-01T10:00:00+0000] [D] <workload>: issue,sys->id=0, tick=12,
 *       node->id=3, node->name=gemm, node->type=4
 *
 * node_name is the rest of the line (names may hold commas; ASTRA-sim's
 * trailing ", node->type=T" is not part of it). In a log with the prefix,
 * lines that are not issue/callback events are skipped (counted). The
 * whole log is checked before anything is written: a bad line, an NPU out
 * of range, a callback with no open issue or one before its issue stops
 * with FILE:LINE. Each NPU is one process; overlapping nodes of an NPU go
 * to separate threads ("lanes", lowest free lane first, O(log n) per node
 * with two heaps) so that no two complete events on one thread overlap,
 * which trace viewers require. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../common.h"
#include "opts.h"
#include "jsonout.h"
#ifndef CHAKRA_EXPERIMENTAL
#define CHAKRA_EXPERIMENTAL
#endif
#include "chakra/experimental/astralog.h"

static void meta_event(yajl_gen g, const char *what, uint64_t pid, uint64_t tid, int has_tid,
                       const char *name_key, const char *name, int64_t sort)
{
	yajl_gen_map_open(g);
	jo_kv_str(g, "name", what);
	jo_kv_str(g, "ph", "M");
	jo_kv_u64(g, "ts", 0);
	jo_kv_u64(g, "pid", pid);
	jo_kv_u64(g, "tid", has_tid ? tid : 0);
	jo_str(g, "args");
	yajl_gen_map_open(g);
	if (name) {
		jo_kv_str(g, name_key, name);
	} else {
		jo_str(g, name_key);
		yajl_gen_integer(g, sort);
	}
	yajl_gen_map_close(g);
	yajl_gen_map_close(g);
}

static void write_json(const chakra_astralog *t, const char *file, uint64_t npus, FILE *f,
                       double per_us, double ghz, const uint32_t *lanes)
{
	size_t n_ev, n_iss;
	const chakra_astralog_event *ev = chakra_astralog_events(t, &n_ev);
	const chakra_astralog_issue *iss = chakra_astralog_issues(t, &n_iss);
	const char *pool = chakra_astralog_names(t, NULL);
	yajl_gen g = jo_open(f, 0);
	yajl_gen_map_open(g);
	jo_kv_str(g, "displayTimeUnit", "ns");
	jo_str(g, "otherData");
	yajl_gen_map_open(g);
	jo_kv_str(g, "source", file);
	jo_str(g, "frequency_ghz");
	jo_fixed(g, ghz);
	yajl_gen_map_close(g);
	jo_str(g, "traceEvents");
	yajl_gen_array_open(g);
	char buf[64];
	for (uint64_t npu = 0; npu < npus; npu++) {
		snprintf(buf, sizeof buf, "NPU %llu", (unsigned long long)npu);
		meta_event(g, "process_name", npu, 0, 0, "name", buf, 0);
		meta_event(g, "process_sort_index", npu, 0, 0, "sort_index", NULL, (int64_t)npu);
		for (uint32_t l = 0; l < lanes[npu]; l++) {
			snprintf(buf, sizeof buf, "lane %u", l);
			meta_event(g, "thread_name", npu, l, 1, "name", buf, 0);
		}
	}
	for (size_t i = 0; i < n_ev; i++) {
		const chakra_astralog_event *e = &ev[i];
		yajl_gen_map_open(g);
		jo_str(g, "name");
		jo_strn(g, pool + e->name_off, e->name_len);
		jo_kv_str(g, "cat", "node");
		jo_kv_str(g, "ph", "X");
		jo_str(g, "ts");
		jo_fixed(g, (double)e->start / per_us);
		jo_str(g, "dur");
		jo_fixed(g, (double)(e->end - e->start) / per_us);
		jo_kv_u64(g, "pid", e->npu);
		jo_kv_u64(g, "tid", e->lane);
		jo_str(g, "args");
		yajl_gen_map_open(g);
		jo_kv_u64(g, "node_id", e->node_id);
		jo_kv_u64(g, "issue_cycle", e->start);
		jo_kv_u64(g, "callback_cycle", e->end);
		yajl_gen_map_close(g);
		yajl_gen_map_close(g);
	}
	/* Issues that never completed: instant events, so they stay visible. */
	for (size_t i = 0; i < n_iss; i++) {
		const chakra_astralog_issue *is = &iss[i];
		if (!is->open)
			continue;
		yajl_gen_map_open(g);
		jo_str(g, "name");
		jo_strn(g, pool + is->name_off, is->name_len);
		jo_kv_str(g, "cat", "unfinished");
		jo_kv_str(g, "ph", "i");
		jo_kv_str(g, "s", "p");
		jo_str(g, "ts");
		jo_fixed(g, (double)is->cycle / per_us);
		jo_kv_u64(g, "pid", is->npu);
		jo_kv_u64(g, "tid", 0);
		jo_str(g, "args");
		yajl_gen_map_open(g);
		jo_kv_u64(g, "node_id", is->node_id);
		jo_kv_u64(g, "issue_cycle", is->cycle);
		jo_str(g, "unfinished");
		yajl_gen_bool(g, 1);
		yajl_gen_map_close(g);
		yajl_gen_map_close(g);
	}
	yajl_gen_array_close(g);
	yajl_gen_map_close(g);
	yajl_gen_free(g);
	fputc('\n', f);
}

/* "1.5", "1.5GHz", "1500MHz", "1e9Hz": GHz (bare numbers are GHz). */
static int parse_freq(const char *s, double *ghz)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || !(v > 0) || v > 1e12)
		return -1;
	double scale = 1;
	if (!*end || !strcasecmp(end, "ghz"))
		scale = 1;
	else if (!strcasecmp(end, "mhz"))
		scale = 1e-3;
	else if (!strcasecmp(end, "khz"))
		scale = 1e-6;
	else if (!strcasecmp(end, "hz"))
		scale = 1e-9;
	else
		return -1;
	*ghz = v * scale;
	return *ghz > 0 ? 0 : -1;
}

int cmd_timeline(int argc, char **argv)
{
	const char *out = NULL, *freq = NULL;
	uint64_t npus = UINT64_MAX; /* = not given */
	double ghz = 0;
	int force = 0;
	const tool_option opts[] = {
		{ "--npus", "N", TOOL_U64, &npus, NULL, "NPUs in the log (npu_id must be below N)" },
		{ "--frequency", "F", TOOL_STR, &freq, NULL,
		  "clock in GHz (cycles per ns); a unit may follow: 1.5GHz,\n"
		  "1500MHz, 1e9Hz" },
		{ "-o, --output", "OUT", TOOL_STR, &out, NULL, "output JSON ('-' = stdout)" },
		{ "-f, --force", NULL, TOOL_FLAG, &force, NULL, "replace OUT if it exists" },
		{ NULL, NULL, 0, NULL, NULL, NULL },
	};
	const tool_command cmd = {
		"EVENTS.csv --npus N --frequency F -o OUT.json [-f]",
		"Chrome / Perfetto trace-event JSON from a simulator event log, one line per\n"
		"event ('-' = stdin):\n"
		"  issue,npu_id=N,cycle=C,node_id=I,node_name=S      (node starts)\n"
		"  callback,npu_id=N,cycle=C,node_id=I,node_name=S   (node ends)\n"
		"or ASTRA-sim's own log lines, with or without its logger's prefix:\n"
		"  [time] [D] <workload>: issue,sys->id=N, tick=C, node->id=I, node->name=S, node->type=T\n"
		"(in a prefixed log, other lines are skipped).\n"
		"Each NPU becomes a process, each node a complete (\"X\") event with its node_id;\n"
		"nodes that overlap on one NPU go to separate lanes (threads). Timestamps are\n"
		"microseconds: ts = cycle / (F * 1000) for F in GHz.",
		opts, NULL, 1, 1, "EVENTS file"
	};
	const char **args;
	int nargs, prc = tool_parse(&cmd, argc, argv, &args, &nargs);
	if (prc != TOOL_PARSED)
		return prc == TOOL_HELP_SHOWN ? 0 : prc;
	const char *input = args[0];
	free(args);
	if (npus == UINT64_MAX)
		return tool_usage(argv[0], "missing --npus N");
	if (npus == 0 || npus > (1u << 24))
		return tool_usage(argv[0], "--npus must be between 1 and %u", 1u << 24);
	if (!freq)
		return tool_usage(argv[0], "missing --frequency F (GHz)");
	if (parse_freq(freq, &ghz) < 0)
		return tool_usage(argv[0], "--frequency: expected a positive number of GHz "
		                           "(or with a unit: 1500MHz), got '%s'", freq);
	if (!out)
		return tool_usage(argv[0], "missing -o OUT.json");
	const char *inputs[] = { input };
	if (tool_input_missing(input))
		return 1;
	FILE *in = strcmp(input, "-") ? fopen(input, "r") : stdin;
	if (!in)
		return tool_err("%s: cannot open: %s", input, strerror(errno));
	if (tool_out_check(out, force, inputs, 1) < 0) {
		if (in != stdin)
			fclose(in);
		return 1;
	}
	const char *file = strcmp(input, "-") ? input : "<stdin>";
	chakra_astralog *t = NULL;
	chakra_astralog_options lo = CHAKRA_ASTRALOG_OPTIONS_INIT;
	lo.npus = npus;
	lo.name = file;
	int rc = 1;
	uint32_t *lanes = NULL;
	char *line = NULL;
	size_t cap = 0;
	if (chakra_astralog_new(&lo, &t) < 0) {
		tool_err("out of memory");
		goto out;
	}
	ssize_t n;
	uint64_t lineno = 0;
	tool_progress prog;
	tool_progress_start(&prog, "reading events", 0);
	/* a failed allocation inside getline ends the loop like the end of
	 * the file: errno tells them apart */
	errno = 0;
	while ((n = getline(&line, &cap, in)) > 0) {
		lineno++;
		if ((size_t)n != strlen(line)) {
			tool_err("%s:%llu: NUL byte in the line", file, (unsigned long long)lineno);
			goto out;
		}
		if (chakra_astralog_line(t, line, (size_t)n, lineno) < 0) {
			tool_err("%s", chakra_astralog_errmsg(t));
			goto out;
		}
		if ((lineno & 4095) == 0)
			tool_progress_update(&prog, lineno);
		errno = 0;
	}
	tool_progress_end(&prog);
	if (ferror(in) || errno == ENOMEM) {
		tool_err("%s: %s after line %llu: %s", file, errno == ENOMEM ? "out of memory"
		         : "read error", (unsigned long long)lineno, strerror(errno ? errno : EIO));
		goto out;
	}
	size_t n_iss, n_ev;
	const chakra_astralog_issue *iss = chakra_astralog_issues(t, &n_iss);
	uint64_t first_skipped, skipped = chakra_astralog_skipped(t, &first_skipped);
	if (skipped && !n_iss) {
		tool_err("%s: no issue/callback events: %llu lines with a logger prefix hold other "
		         "messages (first: line %llu)", file, (unsigned long long)skipped,
		         (unsigned long long)first_skipped);
		goto out;
	}
	if (skipped)
		fprintf(stderr, "chakra: %s: note: %llu log lines that are not issue/callback events "
		                "skipped (first: line %llu)\n",
		        file, (unsigned long long)skipped, (unsigned long long)first_skipped);
	size_t unfinished = 0;
	for (size_t i = 0; i < n_iss; i++) {
		if (!iss[i].open)
			continue;
		if (unfinished++ < 5)
			fprintf(stderr, "chakra: %s:%llu: warning: node %llu issued on npu %u at cycle %llu "
			                "never got a callback\n",
			        file, (unsigned long long)iss[i].line, (unsigned long long)iss[i].node_id,
			        iss[i].npu, (unsigned long long)iss[i].cycle);
	}
	if (unfinished)
		fprintf(stderr, "chakra: %s: warning: %zu issue(s) without a callback at the end of the "
		                "log; written as instant events with args.unfinished = true\n",
		        file, unfinished);
	if (!n_iss)
		fprintf(stderr, "chakra: %s: warning: no events in the log\n", file);
	uint32_t lanes_max;
	lanes = calloc(npus, sizeof *lanes);
	if (!lanes || chakra_astralog_lanes(t, &lanes_max) < 0) {
		tool_err("out of memory");
		goto out;
	}
	const chakra_astralog_event *ev = chakra_astralog_events(t, &n_ev);
	for (size_t i = 0; i < n_ev; i++)
		if (ev[i].lane + 1 > lanes[ev[i].npu])
			lanes[ev[i].npu] = ev[i].lane + 1;
	for (size_t i = 0; i < n_iss; i++)
		if (iss[i].open && !lanes[iss[i].npu])
			lanes[iss[i].npu] = 1;
	tool_out of;
	if (tool_out_open(&of, out, force, inputs, 1) < 0)
		goto out;
	write_json(t, file, npus, of.f, ghz * 1e3, ghz, lanes);
	if (tool_out_commit(&of) < 0)
		goto out; /* reported; the temporary is gone, nothing was replaced */
	rc = 0;
out:
	if (in != stdin)
		fclose(in);
	free(line);
	free(lanes);
	chakra_astralog_free(t);
	return rc;
}
