/* SPDX-License-Identifier: Apache-2.0 */
/* The executor's state (run.c: the schedule loop; post.c: communication as
 * non-blocking MPI in channel order; verify.c: --verify's checks). */
#ifndef CHAKRA_REPLAY_RUN_H
#define CHAKRA_REPLAY_RUN_H

#include "replay_tool.h"

typedef struct rp_op {
	const chakra_node *node;
	const chakra_replay_op *op;
	double posted;
	void *sbuf, *rbuf;
	size_t scap, rcap;
	int *v; /* counts and displacements of the v-variants */
	chakra_replay_layout l;
	int me; /* rank in the communicator */
} rp_op;

typedef struct parked {
	uint32_t seq;
	const chakra_node *node;
} parked;

typedef struct rp_chan {
	uint32_t next; /* seq of the next op to post */
	parked *park;
	size_t npark, cappark;
} rp_chan;

typedef struct rp_run_state {
	chakra_feeder *f;
	unsigned iter;
	int measured;
	/* communication in flight: requests and ops side by side (Testsome) */
	MPI_Request *req;
	rp_op *ops;
	size_t nact, capact;
	int *idx;
	rp_chan *ch;
	/* compute slot and its FIFO */
	const chakra_node **cq;
	size_t cq_head, cq_n, cq_cap;
	const chakra_node *comp;
	double comp_end;
	/* time accounting */
	double last, t_compute, t_comm, t_exposed;
	uint64_t done;
	double last_progress;
} rp_run_state;

void rp_logf(rp_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Time since the last call, by state. */
void rp_account(rp_run_state *s, double now);
/* The node done: the feeder told, progress noted. */
void rp_complete(rp_ctx *c, rp_run_state *s, const chakra_node *n);
/* Post op (n's) now if it is next in its channel, then its parked
 * successors; else park it. */
void rp_post_in_order(rp_ctx *c, rp_run_state *s, const chakra_node *n,
                      const chakra_replay_op *op);
/* An MPI call's failure stops every rank, naming the node and the call. */
void rp_mpi_check(rp_ctx *c, int rc, const chakra_replay_op *op, const char *call);
/* --verify: stops every rank when x's result is wrong. */
void rp_verify(rp_ctx *c, const rp_op *x);

#endif
