/* SPDX-License-Identifier: Apache-2.0 */
/* chakra-replay's inputs, before the run: the shared ones every rank reads
 * (network, system, groups) and each rank's own plan of its trace. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rankpath.h"
#include "replay_tool.h"

const char *rp_deps_name(chakra_deps d)
{
	return d == CHAKRA_DEPS_CTRL ? "ctrl" : d == CHAKRA_DEPS_BOTH ? "both" : "data";
}

static int exists(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0;
}

/* Shared inputs: every rank reads them; only rank 0 reports a problem
 * (all ranks would say the same). */
int rp_setup_shared(rp_ctx *c, char *err, size_t errlen)
{
	chakra_replay_topo *t = &c->topo;
	t->nranks = (uint32_t)c->size;
	char tmp[4096];
	if (!chakra__rank_path(tmp, sizeof tmp, c->o.prefix, 0)) {
		snprintf(err, errlen, "%s: no workload: neither %s.0.et nor %s.0.et.gz exists",
		         c->o.prefix, c->o.prefix, c->o.prefix);
		return -1;
	}
	if (chakra__rank_path(tmp, sizeof tmp, c->o.prefix, c->size)) {
		long n = c->size;
		while (chakra__rank_path(tmp, sizeof tmp, c->o.prefix, n + 1) && n < INT_MAX)
			n++;
		snprintf(err, errlen, "%s: the workload has %ld ranks (%s.0.et ... %s.%ld.et) but %d "
		         "processes run it: use mpirun -np %ld", c->o.prefix, n + 1, c->o.prefix,
		         c->o.prefix, n, c->size, n + 1);
		return -1;
	}
	if (c->o.dims) {
		t->ndims = chakra_replay_dims_parse(c->o.dims, t->dims, CHAKRA_REPLAY_MAX_DIMS);
		if (t->ndims < 0) {
			snprintf(err, errlen, "--dims: '%s' is not a shape like 4x4 (at most %d dimensions)",
			         c->o.dims, CHAKRA_REPLAY_MAX_DIMS);
			return -1;
		}
	}
	if (c->o.network) {
		/* The simulator's parsers: the prediction needs both files whole. */
		if (chakra_sim_network_load(&c->net, c->o.network, err, errlen) < 0 ||
		    chakra_sim_system_load(&c->sys, c->o.system, err, errlen) < 0)
			return -1;
		if (c->net.npus != (uint32_t)c->size) {
			snprintf(err, errlen, "%.500s has %" PRIu32 " NPUs but %d processes run the workload",
			         c->o.network, c->net.npus, c->size);
			return -1;
		}
		if (!c->o.dims) {
			t->ndims = c->net.ndims;
			memcpy(t->dims, c->net.size, (size_t)t->ndims * sizeof *t->dims);
		}
	}
	if (t->ndims) {
		uint64_t prod = 1;
		for (int d = 0; d < t->ndims; d++)
			prod *= t->dims[d];
		if (prod != (uint64_t)c->size) {
			snprintf(err, errlen, "the network shape (%s) has %" PRIu64 " NPUs but %d processes "
			         "run the workload", c->o.dims ? c->o.dims : c->o.network, prod, c->size);
			return -1;
		}
	}
	if (c->o.groups) {
		snprintf(c->groups_path, sizeof c->groups_path, "%s", c->o.groups);
	} else if (!c->o.no_groups) {
		snprintf(c->groups_path, sizeof c->groups_path, "%s.comm_groups.json", c->o.prefix);
		if (!exists(c->groups_path))
			c->groups_path[0] = 0;
	}
	if (c->groups_path[0]) {
		if (chakra_sim_groups_load(&c->groups, c->groups_path, (uint32_t)c->size, err, errlen) < 0)
			return -1;
		t->groups = &c->groups;
	}
	return 0;
}

int rp_setup_rank(rp_ctx *c, char *err, size_t errlen)
{
	if (!chakra__rank_path(c->path, sizeof c->path, c->o.prefix, c->rank)) {
		snprintf(err, errlen, "%s: neither %s.%d.et nor %s.%d.et.gz exists", c->o.prefix,
		         c->o.prefix, c->rank, c->o.prefix, c->rank);
		return -1;
	}
	chakra_replay_plan_options po = CHAKRA_REPLAY_PLAN_OPTIONS_INIT;
	po.rank = (uint32_t)c->rank;
	po.topo = &c->topo;
	po.deps = c->o.deps;
	if (chakra_replay_plan_build(&c->plan, c->path, &po, err, errlen) < 0)
		return -1;
	/* Tags: MPI guarantees 0..MPI_TAG_UB. */
	int *ub = NULL, flag = 0;
	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
	const chakra_replay_op *ops = chakra_replay_plan_ops(c->plan);
	for (size_t i = 0; flag && ub && i < chakra_replay_plan_op_count(c->plan); i++)
		if (ops[i].kind != CHAKRA_REPLAY_COLL && ops[i].tag > *ub) {
			snprintf(err, errlen, "%.500s: node %" PRIu64 ": comm_tag %" PRId64 " is above this MPI's "
			         "largest tag (%d)", c->path, ops[i].id, ops[i].tag, *ub);
			return -1;
		}
	/* Compute is slept (or spun) for its recorded duration, and computing
	 * is progress, so --timeout never cuts it short: a duration of 2^64-1
	 * ns slept for ever. Capped as chakra sim refuses a simulated time that
	 * reaches 2^64-1: a rank whose compute per iteration passes
	 * --max-compute (or saturates) is refused before anything runs. */
	uint64_t lid, lns = chakra_replay_plan_longest_compute(c->plan, &lid);
	uint64_t tot = chakra_replay_plan_compute_ns(c->plan);
	if (c->o.compute != RP_SKIP &&
	    (tot == UINT64_MAX || (c->o.max_compute > 0 && (double)tot > c->o.max_compute * 1e9))) {
		snprintf(err, errlen, "%.500s: %s compute per iteration (node %" PRIu64 " alone: %.3g s) "
		         "passes --max-compute %g s: a replay would sleep through it (use --compute "
		         "skip, or raise --max-compute)", c->path,
		         tot == UINT64_MAX ? "2^64-1 ns of" : "the",
		         lid, (double)lns / 1e9, c->o.max_compute);
		return -1;
	}
	if (c->o.log) {
		/* the output rule (lib/outfile.h): a temporary renamed at the end,
		 * an existing log replaced only with -f, never a trace */
		snprintf(c->log_path, sizeof c->log_path, "%s.%d.log", c->o.log, c->rank);
		const char *in[] = { c->path, c->o.network, c->o.system, c->o.groups };
		chakra__out_opts oo = { c->o.force, 0, in, 4, "use -f (--force)" };
		if (chakra__out_open(&c->log_out, c->log_path, &oo, err, errlen) < 0)
			return -1;
		c->log = c->log_out.f;
		fprintf(c->log, "# chakra-replay log: rank %d of %d, %s, %u warmup + %u iterations, "
		        "deps %s\n", c->rank, c->size, c->path, c->o.warmup, c->o.iters,
		        rp_deps_name(c->o.deps));
	}
	return 0;
}

