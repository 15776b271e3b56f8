/* SPDX-License-Identifier: Apache-2.0 */
/* chakra-replay's figures: the simulator's prediction (rank 0, asked with
 * --network) and the report rank 0 prints from every rank's stats. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "replay_tool.h"

/* chakra_write_cb over a stdio stream (data = the FILE *). */
static int file_write(void *data, const void *buf, size_t len)
{
	return fwrite(buf, 1, len, (FILE *)data) == len ? 0 : -1;
}

/* Rank 0 runs the simulator; every rank gets its nodes' simulated times
 * into its stats rows, rank 0 keeps the per-NPU finish times. */
int rp_predict(rp_ctx *c, chakra_replay_sim *sim)
{
	c->phase = "waiting for the simulator's prediction";
	int ok = 1;
	char err[CHAKRA_REPLAY_ERR_LEN] = "";
	if (c->rank == 0) {
		if (chakra_replay_sim_run(c->o.prefix, &c->net, &c->sys,
		                          c->groups_path[0] ? &c->groups : NULL, c->o.deps, sim, err,
		                          sizeof err) < 0)
			ok = 0;
		if (!ok)
			fprintf(stderr, "chakra-replay: prediction: %s\n", err);
	}
	if (!rp_agree(c, ok))
		return -1;
	/* Scatter each NPU's (id, ns) pairs to its rank. */
	int *counts = NULL, *displs = NULL, mine = 0;
	uint64_t *all = NULL;
	if (c->rank == 0) {
		counts = malloc((size_t)c->size * sizeof *counts);
		displs = malloc((size_t)c->size * sizeof *displs);
		size_t total = 0;
		for (int r = 0; r < c->size; r++)
			total += sim->nev[r];
		all = malloc((total ? total : 1) * 2 * sizeof *all);
		if (!counts || !displs || !all)
			rp_stop_all(c, 1, "out of memory");
		size_t o = 0;
		for (int r = 0; r < c->size; r++) {
			counts[r] = (int)(sim->nev[r] * 2);
			displs[r] = (int)o;
			for (size_t i = 0; i < sim->nev[r]; i++) {
				all[o++] = sim->ev_id[r][i];
				all[o++] = sim->ev_ns[r][i];
			}
		}
	}
	MPI_Request q;
	MPI_Iscatter(counts, 1, MPI_INT, &mine, 1, MPI_INT, 0, MPI_COMM_WORLD, &q);
	rp_wait(c, &q);
	uint64_t *pairs = malloc(mine ? (size_t)mine * sizeof *pairs : 1);
	if (!pairs)
		rp_stop_all(c, 1, "out of memory");
	MPI_Iscatterv(all, counts, displs, MPI_UINT64_T, pairs, mine, MPI_UINT64_T, 0, MPI_COMM_WORLD,
	              &q);
	rp_wait(c, &q);
	free(all);
	free(counts);
	free(displs);
	/* pairs are sorted by id (the module sorts them). */
	const chakra_replay_op *ops = chakra_replay_plan_ops(c->plan);
	size_t np = (size_t)mine / 2;
	for (size_t i = 0; i < chakra_replay_plan_op_count(c->plan); i++) {
		size_t lo = 0, hi = np;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (pairs[2 * mid] < ops[i].id)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == np || pairs[2 * lo] != ops[i].id)
			continue;
		chakra_replay_stat *st = chakra_replay_stats_row(&c->stats, &ops[i]);
		if (!st)
			rp_stop_all(c, 1, "out of memory");
		st->sim_count++;
		st->sim_sum += (double)pairs[2 * lo + 1] * 1e-9;
	}
	free(pairs);
	return 0;
}

void rp_report(rp_ctx *c, const chakra_replay_sim *sim)
{
	c->phase = "gathering the report";
	int bytes = (int)(c->stats.n * sizeof *c->stats.s);
	int *counts = NULL, *displs = NULL;
	char *rows = NULL;
	chakra_replay_rank_times *times = NULL;
	if (c->rank == 0) {
		counts = malloc((size_t)c->size * sizeof *counts);
		displs = malloc((size_t)c->size * sizeof *displs);
		times = malloc((size_t)c->size * sizeof *times);
		if (!counts || !displs || !times)
			rp_stop_all(c, 1, "out of memory");
	}
	MPI_Request q;
	MPI_Igather(&bytes, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD, &q);
	rp_wait(c, &q);
	if (c->rank == 0) {
		long total = 0;
		for (int r = 0; r < c->size; r++) {
			displs[r] = (int)total;
			total += counts[r];
		}
		rows = malloc(total ? (size_t)total : 1);
		if (!rows)
			rp_stop_all(c, 1, "out of memory");
	}
	MPI_Igatherv(c->stats.s ? (void *)c->stats.s : (void *)&bytes, bytes, MPI_BYTE, rows, counts,
	             displs, MPI_BYTE, 0, MPI_COMM_WORLD, &q);
	rp_wait(c, &q);
	MPI_Igather(&c->times, (int)sizeof c->times, MPI_BYTE, times, (int)sizeof c->times, MPI_BYTE,
	            0, MPI_COMM_WORLD, &q);
	rp_wait(c, &q);
	if (c->rank == 0) {
		chakra_replay_stats all = { NULL, 0, 0 };
		for (int r = 0; r < c->size; r++)
			if (chakra_replay_stats_merge(&all, (const chakra_replay_stat *)(rows + displs[r]),
			                              (size_t)counts[r] / sizeof *c->stats.s) < 0)
				rp_stop_all(c, 1, "out of memory");
		chakra_replay_stats_sort(&all);
		for (int r = 0; r < c->size; r++) {
			times[r].sim_finish = sim ? (double)sim->npu_finish[r] * 1e-9 : -1;
			times[r].sim_exposed = sim ? (double)sim->npu_exposed[r] * 1e-9 : -1;
		}
		chakra_replay_report rep;
		memset(&rep, 0, sizeof rep);
		rep.prefix = c->o.prefix;
		rep.nranks = (uint32_t)c->size;
		rep.iters = c->o.iters;
		rep.warmup = c->o.warmup;
		rep.compute = c->o.compute == RP_SPIN ? "spin" : c->o.compute == RP_SKIP ? "skip" : "sleep";
		rep.groups = c->groups_path[0] ? c->groups_path : NULL;
		rep.deps = rp_deps_name(c->o.deps);
		rep.simulated = sim != NULL;
		rep.stats = &all;
		rep.ranks = times;
		if (c->o.json)
			chakra_replay_report_json(file_write, stdout, &rep);
		else if (!c->o.quiet)
			chakra_replay_report_text(file_write, stdout, &rep);
		fflush(stdout);
		chakra_replay_stats_free(&all);
	}
	free(rows);
	free(counts);
	free(displs);
	free(times);
}

