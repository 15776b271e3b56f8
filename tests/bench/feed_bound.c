/* SPDX-License-Identifier: Apache-2.0 */
/* How close to the floor can any feeder get? Prints, in one run, the time
 * to feed a trace through the public API next to three lower stages of the
 * same work:
 *   floor  read and frame every message (what `chakra bench feed` calls
 *          the floor);
 *   scan   the floor plus the feeder's own scan of each message (id and
 *          dependency lists, top-level structure checked);
 *   bound  the scan plus the done-set: each gating dependency looked up,
 *          then the node's id added, as if issued and completed at once.
 * A feeder must at least frame, scan and check each node, so `bound` is a
 * lower limit on its time with today's scan, whatever its design (no
 * window, no ordering, no node view, no API calls are counted in it).
 * Usage: feed_bound TRACE [--repeat N] [--deps data|ctrl|both] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "chakra/chakra.h"
#include "feeder/feeder_impl.h"

static double now(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

enum { FLOOR, SCAN, BOUND, FEED, NSTAGE };
static const char *const stage_name[NSTAGE] = { "floor", "scan", "bound", "feed" };

typedef struct run {
	uint64_t nodes, blocked;
	double wall, cpu;
} run;

/* what: NULL when msg names the file already (the library's messages). */
static int fail(const char *what, const char *msg)
{
	if (what)
		fprintf(stderr, "feed_bound: %s: %s\n", what, msg);
	else
		fprintf(stderr, "feed_bound: %s\n", msg);
	return -1;
}

/* floor, scan or bound over the raw messages. */
static int raw_stage(const char *trace, int stage, unsigned deps, run *out)
{
	walk_scratch ws;
	doneset done;
	char err[CHAKRA_ERRMSG_MAX];
	const char *why = NULL; /* a failure of the scan or done-set (else the reader's) */
	chakra_reader *r;
	const void *m;
	size_t len;
	int rc;
	memset(&ws, 0, sizeof ws);
	memset(&done, 0, sizeof done);
	memset(out, 0, sizeof *out);
	double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
	if ((rc = chakra_reader_open(&r, trace, NULL)) < 0) {
		if (r)
			fail(NULL, chakra_reader_errmsg(r));
		else
			fail(trace, chakra_strerror(rc));
		chakra_reader_close(r);
		return -1;
	}
	while ((rc = chakra_reader_next_raw(r, &m, &len)) > 0) {
		out->nodes++;
		if (stage == FLOOR)
			continue;
		uint64_t id;
		/* base 0: offsets in errors are relative; none is expected. */
		if ((rc = chakra__feeder_scan(m, len, 0, &id, &ws, deps, err)) < 0) {
			why = err;
			break;
		}
		if (stage == SCAN)
			continue;
		const uint64_t *d[2] = { walk_data(&ws), walk_ctrl(&ws) };
		size_t n[2] = { (deps & CHAKRA_DEPS_DATA) ? walk_n_data(&ws) : 0,
		                (deps & CHAKRA_DEPS_CTRL) ? walk_n_ctrl(&ws) : 0 };
		int ready = 1;
		for (int l = 0; l < 2; l++)
			for (size_t k = 0; k < n[l]; k++)
				ready &= doneset_has(&done, d[l][k]);
		out->blocked += !ready;
		if (doneset_add(&done, id)) {
			rc = CHAKRA_ENOMEM;
			why = "out of memory";
			break;
		}
	}
	out->wall = now(CLOCK_MONOTONIC) - w0;
	out->cpu = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
	if (rc < 0)
		fail(why ? trace : NULL, why ? why : chakra_reader_errmsg(r));
	chakra_reader_close(r);
	chakra__walk_scratch_free(&ws);
	chakra__doneset_free(&done);
	return rc < 0 ? -1 : 0;
}

/* The feeder through the public API: next, complete, as `chakra bench feed`. */
static int feed_stage(const char *trace, unsigned deps, run *out)
{
	chakra_feeder_options o = CHAKRA_FEEDER_OPTIONS_INIT;
	chakra_feeder *f;
	const chakra_node *n;
	o.deps = (chakra_deps)deps;
	memset(out, 0, sizeof *out);
	double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
	int rc = chakra_feeder_open(&f, trace, &o);
	if (rc >= 0)
		while ((rc = chakra_feeder_next(f, &n)) > 0)
			if ((rc = chakra_feeder_complete(f, chakra_node_id(n))) < 0)
				break;
	out->wall = now(CLOCK_MONOTONIC) - w0;
	out->cpu = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
	if (rc < 0)
		fail(f ? NULL : trace, f ? chakra_feeder_errmsg(f) : chakra_strerror(rc));
	out->nodes = f ? chakra_feeder_issued_count(f) : 0;
	chakra_feeder_close(f);
	return rc < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
	const char *trace = NULL;
	unsigned long repeat = 3;
	unsigned deps = CHAKRA_DEPS_DATA;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--repeat") && i + 1 < argc) {
			repeat = strtoul(argv[++i], NULL, 10);
		} else if (!strcmp(argv[i], "--deps") && i + 1 < argc) {
			i++;
			deps = !strcmp(argv[i], "data")   ? CHAKRA_DEPS_DATA
			       : !strcmp(argv[i], "ctrl") ? CHAKRA_DEPS_CTRL
			       : !strcmp(argv[i], "both") ? CHAKRA_DEPS_BOTH
			                                  : 0;
		} else if (!trace && argv[i][0] != '-') {
			trace = argv[i];
		} else {
			trace = NULL;
			break;
		}
	}
	if (!trace || !deps || repeat < 1 || repeat > 100) {
		fprintf(stderr, "usage: feed_bound TRACE [--repeat 1..100] [--deps data|ctrl|both]\n");
		return 2;
	}
	run best[NSTAGE];
	for (int s = 0; s < NSTAGE; s++)
		best[s].cpu = best[s].wall = 1e300;
	/* Stages interleaved in each round, so that a slow spell of a shared
	 * host spreads over all of them. */
	for (unsigned long k = 0; k < repeat; k++)
		for (int s = 0; s < NSTAGE; s++) {
			run r;
			if ((s == FEED ? feed_stage(trace, deps, &r) : raw_stage(trace, s, deps, &r)) < 0)
				return 1;
			if (r.cpu < best[s].cpu)
				best[s].cpu = r.cpu;
			if (r.wall < best[s].wall)
				best[s].wall = r.wall;
			best[s].nodes = r.nodes;
			best[s].blocked = r.blocked;
		}
	for (int s = 1; s < NSTAGE; s++)
		if (best[s].nodes != best[FLOOR].nodes) {
			fprintf(stderr, "feed_bound: %s saw %llu nodes, the floor %llu\n", stage_name[s],
			        (unsigned long long)best[s].nodes, (unsigned long long)best[FLOOR].nodes);
			return 1;
		}
	printf("trace      %s\n", trace);
	printf("nodes      %llu (best of %lu, CPU seconds)\n", (unsigned long long)best[FLOOR].nodes,
	       repeat);
	for (int s = 0; s < NSTAGE; s++)
		printf("%-10s %.3f s CPU  %.3f s wall  %.2fx the floor (CPU)\n", stage_name[s],
		       best[s].cpu, best[s].wall, best[s].cpu / (best[FLOOR].cpu > 0 ? best[FLOOR].cpu : 1e-9));
	/* Nodes a real feeder would have to hold back: the bound is a lower
	 * limit for traces in dependency order (none blocked), as generated. */
	printf("blocked    %llu nodes had a dependency not completed before them in the file\n",
	       (unsigned long long)best[BOUND].blocked);
	return 0;
}
