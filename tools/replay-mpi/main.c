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

/* chakra_write_cb over a stdio stream (data = the FILE *). */
static int file_write(void *data, const void *buf, size_t len)
{
	return fwrite(buf, 1, len, (FILE *)data) == len ? 0 : -1;
}

static const char usage[] =
	"usage: mpirun -np N chakra-replay PREFIX [options]\n"
	"\n"
	"Rank r replays PREFIX.r.et (or .et.gz) in dependency order: collectives with MPI\n"
	"collectives on the trace's communicators, send/recv with their peers and tags,\n"
	"compute nodes as timed waits. Before running, the ranks compare their collective\n"
	"and message sequences and refuse traces that would hang.\n"
	"\n"
	"options:\n"
	"  --compute sleep|spin|skip  compute nodes: sleep or busy-wait for their duration\n"
	"                             (duration_nanos, else duration_micros), or skip [sleep]\n"
	"  --iters K                  measured iterations [1]\n"
	"  --warmup W                 iterations run first and not measured [1]\n"
	"  --json                     the report as JSON\n"
	"  --max-compute S            refuse a rank whose compute per iteration passes S\n"
	"                             seconds (computing is progress: --timeout never\n"
	"                             cuts it short); 0 = no cap [3600]\n"
	"  --timeout S                a rank waiting S seconds with no progress stops every\n"
	"                             rank with what each waits for; 0 = never [600]\n"
	"  --network NET.yml --system SYS.json\n"
	"                             also print the simulator's prediction (as chakra sim)\n"
	"                             beside the measurement\n"
	"  --comm-group FILE          communicator groups {\"id\": [ranks]} named by pg_name\n"
	"                             [PREFIX.comm_groups.json when it exists]\n"
	"  --no-comm-group            ignore pg_name (as chakra sim without --comm-group)\n"
	"  --dims D0xD1..             network shape for involved_dim [npus_count of --network]\n"
	"  --deps data|ctrl|both      dependencies that gate a node [data]\n"
	"  -f, --force                replace existing --log files\n"
	"  --log PREFIX               write each rank's issued and completed nodes to\n"
	"                             PREFIX.r.log\n"
	"  --verify                   check every result (sums, blocks, messages) against\n"
	"                             the contributions of the communicator's ranks\n"
	"  -q, --quiet                no report (errors only)\n";

static int parse_uint(const char *s, unsigned *out)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v > 1000000000UL || *s == '-')
		return -1;
	*out = (unsigned)v;
	return 0;
}

/* 0 ok, 1 help, -1 usage error (message in err). */
static int parse_args(rp_opts *o, int argc, char **argv, char *err, size_t errlen)
{
	memset(o, 0, sizeof *o);
	o->iters = 1;
	o->warmup = 1;
	o->timeout = 600;
	o->max_compute = 3600;
	o->deps = CHAKRA_DEPS_DATA;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = NULL;
		if (!strcmp(a, "-h") || !strcmp(a, "--help"))
			return 1;
		if (a[0] != '-' || !a[1]) {
			if (o->prefix) {
				snprintf(err, errlen, "more than one PREFIX ('%s' and '%s')", o->prefix, a);
				return -1;
			}
			o->prefix = a;
			continue;
		}
		char name[64];
		const char *eq = strchr(a, '=');
		size_t nl = eq ? (size_t)(eq - a) : strlen(a);
		if (nl >= sizeof name)
			nl = sizeof name - 1;
		memcpy(name, a, nl);
		name[nl] = 0;
		int flag = !strcmp(name, "--json") || !strcmp(name, "--no-comm-group") ||
		           !strcmp(name, "--verify") || !strcmp(name, "-q") || !strcmp(name, "--quiet") ||
		           !strcmp(name, "-f") || !strcmp(name, "--force");
		if (flag) {
			if (eq) {
				snprintf(err, errlen, "%s takes no value", name);
				return -1;
			}
			if (!strcmp(name, "--json"))
				o->json = 1;
			else if (!strcmp(name, "--no-comm-group"))
				o->no_groups = 1;
			else if (!strcmp(name, "--verify"))
				o->verify = 1;
			else if (!strcmp(name, "-f") || !strcmp(name, "--force"))
				o->force = 1;
			else
				o->quiet = 1;
			continue;
		}
		if (eq) {
			v = eq + 1;
		} else if (i + 1 < argc) {
			v = argv[++i];
		} else {
			snprintf(err, errlen, "%s needs a value", name);
			return -1;
		}
		if (!strcmp(name, "--compute")) {
			if (!strcmp(v, "sleep"))
				o->compute = RP_SLEEP;
			else if (!strcmp(v, "spin"))
				o->compute = RP_SPIN;
			else if (!strcmp(v, "skip"))
				o->compute = RP_SKIP;
			else {
				snprintf(err, errlen, "--compute: '%s' is not sleep, spin or skip", v);
				return -1;
			}
		} else if (!strcmp(name, "--iters") || !strcmp(name, "--warmup")) {
			unsigned *dst = name[2] == 'i' ? &o->iters : &o->warmup;
			if (parse_uint(v, dst) < 0) {
				snprintf(err, errlen, "%s: '%s' is not a count", name, v);
				return -1;
			}
		} else if (!strcmp(name, "--max-compute")) {
			char *end;
			errno = 0;
			o->max_compute = strtod(v, &end);
			if (errno || end == v || *end || !(o->max_compute >= 0) || o->max_compute > 1e9) {
				snprintf(err, errlen, "--max-compute: '%s' is not a number of seconds", v);
				return -1;
			}
		} else if (!strcmp(name, "--timeout")) {
			char *end;
			errno = 0;
			o->timeout = strtod(v, &end);
			if (errno || end == v || *end || !(o->timeout >= 0) || o->timeout > 1e9) {
				snprintf(err, errlen, "--timeout: '%s' is not a number of seconds", v);
				return -1;
			}
		} else if (!strcmp(name, "--network")) {
			o->network = v;
		} else if (!strcmp(name, "--system")) {
			o->system = v;
		} else if (!strcmp(name, "--comm-group")) {
			o->groups = v;
		} else if (!strcmp(name, "--dims")) {
			o->dims = v;
		} else if (!strcmp(name, "--deps")) {
			if (!strcmp(v, "data"))
				o->deps = CHAKRA_DEPS_DATA;
			else if (!strcmp(v, "ctrl"))
				o->deps = CHAKRA_DEPS_CTRL;
			else if (!strcmp(v, "both"))
				o->deps = CHAKRA_DEPS_BOTH;
			else {
				snprintf(err, errlen, "--deps: '%s' is not data, ctrl or both", v);
				return -1;
			}
		} else if (!strcmp(name, "--log")) {
			o->log = v;
		} else {
			snprintf(err, errlen, "unknown option '%s'", name);
			return -1;
		}
	}
	if (!o->prefix) {
		snprintf(err, errlen, "no PREFIX given");
		return -1;
	}
	if (!o->network != !o->system) {
		snprintf(err, errlen, "--network and --system go together");
		return -1;
	}
	if (o->groups && o->no_groups) {
		snprintf(err, errlen, "--comm-group and --no-comm-group contradict each other");
		return -1;
	}
	return 0;
}

static int exists(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0;
}

static const char *deps_name(chakra_deps d)
{
	return d == CHAKRA_DEPS_CTRL ? "ctrl" : d == CHAKRA_DEPS_BOTH ? "both" : "data";
}

/* Shared inputs: every rank reads them; only rank 0 reports a problem
 * (all ranks would say the same). */
static int setup_shared(rp_ctx *c, char *err, size_t errlen)
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

static int setup_rank(rp_ctx *c, char *err, size_t errlen)
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
		        deps_name(c->o.deps));
	}
	return 0;
}

/* Rank 0 runs the simulator; every rank gets its nodes' simulated times
 * into its stats rows, rank 0 keeps the per-NPU finish times. */
static int predict(rp_ctx *c, chakra_replay_sim *sim)
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

static void report(rp_ctx *c, const chakra_replay_sim *sim)
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
		rep.deps = deps_name(c->o.deps);
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
	int pa = parse_args(&c->o, argc, argv, err, sizeof err);
	if (pa != 0) {
		if (c->rank == 0) {
			if (pa > 0)
				fputs(usage, stdout);
			else
				fprintf(stderr, "chakra-replay: %s\n%s", err, usage);
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
	int ok = setup_shared(c, err, sizeof err) == 0;
	if (!ok && c->rank == 0)
		fprintf(stderr, "chakra-replay: %s\n", err);
	if (!rp_agree(c, ok))
		goto out;
	c->phase = "planning";
	ok = setup_rank(c, err, sizeof err) == 0;
	if (!ok)
		fprintf(stderr, "chakra-replay: rank %d: %s\n", c->rank, err);
	if (!rp_agree(c, ok))
		goto out;
	if (rp_comms_build(c) < 0)
		goto out;
	if (!rp_check(c))
		goto out;
	if (c->o.network) {
		if (predict(c, &sim) < 0)
			goto out;
		have_sim = c->rank == 0;
	}
	rp_run(c);
	report(c, c->o.network ? &sim : NULL);
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
