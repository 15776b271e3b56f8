/* SPDX-License-Identifier: Apache-2.0 */
/* chakra-replay: one rank's trace executed through the feeder on MPI.
 *
 *   main.c     options, setup, the phases in order, the report
 *   comms.c    one communicator per collective scope the ranks use
 *   check.c    digests exchanged before running: refuse what would hang
 *   run.c      the executor: feeder, non-blocking MPI, compute slot, log
 *   ctl.c      waiting with a timeout, and stopping every rank together
 *   buffers.c  reusable message buffers, filled and checked by --verify
 *
 * Everything that needs no MPI is in the replay module (lib/replay). */
#ifndef CHAKRA_REPLAY_TOOL_H
#define CHAKRA_REPLAY_TOOL_H

#include <stdio.h>

#include "outfile.h"
#include <mpi.h>

#include "chakra/chakra.h"
#include "chakra/experimental/replay.h"

typedef enum rp_compute { RP_SLEEP = 0, RP_SPIN = 1, RP_SKIP = 2 } rp_compute;

typedef struct rp_opts {
	const char *prefix;
	rp_compute compute;
	unsigned iters, warmup;
	int json;
	double timeout;         /* seconds without progress; 0: none */
	double max_compute;     /* seconds of compute per rank and iteration; 0: no cap */
	const char *network, *system;
	const char *groups;     /* --comm-group */
	int no_groups;
	const char *dims;
	chakra_deps deps;
	const char *log;        /* per-rank log prefix */
	int force;              /* -f: replace existing logs */
	int verify;
	int quiet;
} rp_opts;

/* Buffers kept for reuse (so that page faults of a first use are not timed
 * again), best fit. */
typedef struct rp_buf {
	void *p;
	size_t cap;
} rp_buf;

typedef struct rp_pool {
	rp_buf *free;
	size_t n, cap;
} rp_pool;

typedef struct rp_ctx {
	rp_opts o;
	int rank, size;
	char path[4096];            /* this rank's trace */
	char groups_path[4096];     /* "" when none */
	chakra_sim_groups groups;   /* empty when none */
	chakra_sim_network net;     /* --network (net.npus == 0 when none) */
	chakra_sim_system sys;      /* --system */
	chakra_replay_topo topo;
	chakra_replay_plan *plan;
	size_t nslots;
	MPI_Comm *comm;             /* [slot]: this rank's communicator, or MPI_COMM_NULL */
	uint32_t **members;         /* [slot]: its members in communicator order */
	uint32_t *nmembers;
	MPI_Comm p2p;               /* send/recv */
	MPI_Comm ctl;               /* stop messages */
	MPI_Request ctl_req;
	int ctl_in[2];
	const char *phase;          /* what this rank is doing, for messages */
	rp_pool pool;
	FILE *log;              /* log_out.f, or NULL */
	chakra__out log_out;
	char log_path[4200];
	/* Results of the measured iterations. */
	chakra_replay_stats stats;
	chakra_replay_rank_times times;
	/* The executor's state, for the timeout message (run.c). */
	void *run;
} rp_ctx;

/* ctl.c */
double rp_now(void);
void rp_ctl_start(rp_ctx *c);
void rp_ctl_stop(rp_ctx *c);
/* Another rank said stop: print this rank's state and abort. */
void rp_ctl_poll(rp_ctx *c);
/* Wait for a request, polling for stop messages; a timeout stops all. */
void rp_wait(rp_ctx *c, MPI_Request *r);
/* Print why on this rank, tell every rank to stop, abort. code 1: failed,
 * 2: timeout. */
void rp_stop_all(rp_ctx *c, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));
/* Every rank passes ok; returns 1 when all ranks are ok. */
int rp_agree(rp_ctx *c, int ok);
/* The executor's view of what it waits for (run.c), for stop messages. */
void rp_run_describe(rp_ctx *c, FILE *out);

/* args.c: the usage text; rp_parse_args gives 0 (ok), 1 (help) or -1 (a
 * usage error, its message in err). */
extern const char rp_usage[];
int rp_parse_args(rp_opts *o, int argc, char **argv, char *err, size_t errlen);
const char *rp_deps_name(chakra_deps d);

/* setup.c: 0, or -1 with the message in err. */
int rp_setup_shared(rp_ctx *c, char *err, size_t errlen);
int rp_setup_rank(rp_ctx *c, char *err, size_t errlen);

/* report.c: the simulator's prediction (0, or -1 after every rank agreed
 * to stop) and the report. */
int rp_predict(rp_ctx *c, chakra_replay_sim *sim);
void rp_report(rp_ctx *c, const chakra_replay_sim *sim);

/* comms.c: 0, or -1 with a message printed. */
int rp_comms_build(rp_ctx *c);
void rp_comms_free(rp_ctx *c);

/* check.c: 1 when every rank agrees, 0 when refused (message printed). */
int rp_check(rp_ctx *c);

/* run.c: runs warmup + measured iterations; 0, or stops every rank. */
int rp_run(rp_ctx *c);

/* buffers.c */
void *rp_buf_get(rp_pool *p, size_t bytes, size_t *cap);
void rp_buf_put(rp_pool *p, void *ptr, size_t cap);
void rp_pool_free(rp_pool *p);
/* --verify: every element of rank r's contributions is r + 1 (as float or
 * byte), so results are known sums or copies. */
void rp_fill(void *buf, uint64_t elems, unsigned esz, uint32_t rank);
/* 1 when buf[from..from+elems) all equal value (a float or a byte). */
int rp_check_value(const void *buf, uint64_t from, uint64_t elems, unsigned esz, double value);

#endif
