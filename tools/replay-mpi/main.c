/* SPDX-License-Identifier: Apache-2.0 */
/* chakra-replay: replay a workload's communication on a real machine.
 *
 *   mpirun -np N chakra-replay PREFIX [options]
 *
 * Rank r runs PREFIX.r.et through the feeder: collectives on communicators
 * built from the trace's groups, sends and receives with their peers and
 * tags, compute as timed waits. Phases, each agreed on by every rank before
 * the next: options and shared inputs; the plan of each rank's trace;
 * communicators; the digest check (refuse traces that would hang); the
 * simulator's prediction (rank 0, when asked); warmup and measured
 * iterations; the report (rank 0). docs/replay-mpi.md. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rankpath.h"
#include "replay_tool.h"

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	rp_ctx ctx, *c = &ctx;
	memset(c, 0, sizeof *c);
	c->ctl = MPI_COMM_NULL;
	c->ctl_req = MPI_REQUEST_NULL;
	c->p2p = MPI_COMM_NULL;
	MPI_Comm_rank(MPI_COMM_WORLD, &c->rank);
	MPI_Comm_size(MPI_COMM_WORLD, &c->size);
	/* Errors come back as codes: messages name the node, not MPI's abort. */
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	char err[CHAKRA_REPLAY_ERR_LEN] = "";
	int pa = rp_parse_args(&c->o, argc, argv, err, sizeof err);
	if (pa != 0) {
		if (c->rank == 0) {
			if (pa > 0)
				fputs(rp_usage, stdout);
			else
				fprintf(stderr, "chakra-replay: %s\n%s", err, rp_usage);
		}
		MPI_Finalize();
		return pa > 0 ? 0 : 2;
	}
	rp_ctl_start(c);
	MPI_Comm_dup(MPI_COMM_WORLD, &c->p2p);
	int status = 1;
	chakra_replay_sim sim;
	int have_sim = 0;
	memset(&sim, 0, sizeof sim);
	c->phase = "reading the inputs";
	int ok = rp_setup_shared(c, err, sizeof err) == 0;
	if (!ok && c->rank == 0)
		fprintf(stderr, "chakra-replay: %s\n", err);
	if (!rp_agree(c, ok))
		goto out;
	c->phase = "planning";
	ok = rp_setup_rank(c, err, sizeof err) == 0;
	if (!ok)
		fprintf(stderr, "chakra-replay: rank %d: %s\n", c->rank, err);
	if (!rp_agree(c, ok))
		goto out;
	if (rp_comms_build(c) < 0)
		goto out;
	if (!rp_check(c))
		goto out;
	if (c->o.network) {
		if (rp_predict(c, &sim) < 0)
			goto out;
		have_sim = c->rank == 0;
	}
	rp_run(c);
	rp_report(c, c->o.network ? &sim : NULL);
	status = 0;
out:
	if (c->log) {
		char e[600];
		/* a failed run keeps its log too: it says how far each rank got */
		if (chakra__out_commit(&c->log_out, e, sizeof e) < 0) {
			fprintf(stderr, "chakra-replay: rank %d: %s\n", c->rank, e);
			status = 1;
		}
	}
	chakra__out_abort(&c->log_out);
	c->log = NULL;
	if (have_sim)
		chakra_replay_sim_free(&sim);
	rp_comms_free(c);
	chakra_replay_plan_free(c->plan);
	chakra_sim_groups_free(&c->groups);
	chakra_replay_stats_free(&c->stats);
	rp_pool_free(&c->pool);
	if (c->p2p != MPI_COMM_NULL)
		MPI_Comm_free(&c->p2p);
	rp_ctl_stop(c);
	MPI_Finalize();
	return status;
}
