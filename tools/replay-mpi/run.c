/* SPDX-License-Identifier: Apache-2.0 */
/* The executor: the rank's trace through the feeder, each node started as
 * soon as the feeder says it is ready.
 *  - Communication is posted as non-blocking MPI, so independent ready
 *    collectives run concurrently (as NCCL streams would). Within a channel
 *    (one communicator, or one peer, direction and tag) operations are
 *    posted in the plan's order, which every rank agreed on before the run;
 *    a node that becomes ready early waits, parked, for its predecessors in
 *    the channel to be posted (never for them to finish).
 *  - Compute nodes occupy one compute slot in issue order (as the
 *    simulator's NPU) for their recorded duration: sleeping when nothing
 *    else needs the CPU, spinning otherwise, or skipped.
 *  - Other nodes complete at once.
 * Times: each operation from its post to the moment its completion is
 * seen; per rank the time compute and communication were busy. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "run.h"

void rp_logf(rp_ctx *c, const char *fmt, ...)
{
	if (!c->log)
		return;
	va_list ap;
	va_start(ap, fmt);
	vfprintf(c->log, fmt, ap);
	va_end(ap);
}

void rp_complete(rp_ctx *c, rp_run_state *s, const chakra_node *n)
{
	uint64_t id = chakra_node_id(n);
	rp_logf(c, "D %u %" PRIu64 "\n", s->iter, id);
	int rc = chakra_feeder_complete(s->f, id);
	if (rc < 0)
		rp_stop_all(c, 1, "%s", chakra_feeder_errmsg(s->f));
	s->done++;
	s->last_progress = rp_now();
}

/* Time since the last call, by state. A compute node counts until its
 * end time even when its end is noticed later (MPI progress, e.g. a large
 * reduction inside MPI_Testsome, runs on this thread). */
void rp_account(rp_run_state *s, double now)
{
	double dt = now - s->last;
	if (s->measured && dt > 0) {
		double comp = 0;
		if (s->comp) {
			double end = now < s->comp_end ? now : s->comp_end;
			comp = end > s->last ? end - s->last : 0;
			s->t_compute += comp;
		}
		if (s->nact) {
			s->t_comm += dt;
			s->t_exposed += dt - comp;
		}
	}
	s->last = now;
}

static void finish_op(rp_ctx *c, rp_run_state *s, size_t i, double now)
{
	rp_op *x = &s->ops[i];
	if (c->o.verify)
		rp_verify(c, x);
	if (s->measured) {
		chakra_replay_stat *st = chakra_replay_stats_row(&c->stats, x->op);
		if (!st)
			rp_stop_all(c, 1, "out of memory");
		double t = now - x->posted;
		st->count++;
		st->sum += t;
		if (t < st->min)
			st->min = t;
		if (t > st->max)
			st->max = t;
	}
	rp_buf_put(&c->pool, x->sbuf, x->scap);
	rp_buf_put(&c->pool, x->rbuf, x->rcap);
	free(x->v);
	x->v = NULL;
	rp_complete(c, s, x->node);
}

static void dispatch(rp_ctx *c, rp_run_state *s, const chakra_node *n)
{
	int type = chakra_node_type_of(n);
	uint64_t id = chakra_node_id(n);
	if (type == CHAKRA_COMM_COLL_NODE || type == CHAKRA_COMM_SEND_NODE ||
	    type == CHAKRA_COMM_RECV_NODE) {
		const chakra_replay_op *op = chakra_replay_plan_find(c->plan, id);
		if (!op)
			rp_stop_all(c, 1, "node %" PRIu64 " is not in the plan (the trace changed?)", id);
		rp_post_in_order(c, s, n, op);
		return;
	}
	if (type == CHAKRA_COMP_NODE) {
		uint64_t ns = chakra_replay_compute_ns(n);
		rp_logf(c, "I %u %" PRIu64 " COMP %" PRIu64 "\n", s->iter, id, ns);
		if (c->o.compute == RP_SKIP) {
			rp_complete(c, s, n);
			return;
		}
		if (s->cq_n == s->cq_cap) {
			size_t cap = s->cq_cap ? s->cq_cap * 2 : 16;
			const chakra_node **q = malloc(cap * sizeof *q);
			if (!q)
				rp_stop_all(c, 1, "out of memory");
			for (size_t i = 0; i < s->cq_n; i++)
				q[i] = s->cq[(s->cq_head + i) % s->cq_cap];
			free(s->cq);
			s->cq = q;
			s->cq_head = 0;
			s->cq_cap = cap;
		}
		s->cq[(s->cq_head + s->cq_n++) % s->cq_cap] = n;
		return;
	}
	rp_logf(c, "I %u %" PRIu64 " OTHER 0\n", s->iter, id);
	rp_complete(c, s, n);
}

static void sleep_until(double t)
{
	double d = t - rp_now();
	if (d <= 0)
		return;
	if (d > 0.01) /* stay responsive to stop messages */
		d = 0.01;
	struct timespec ts = { 0, (long)(d * 1e9) };
	nanosleep(&ts, NULL);
}

void rp_run_describe(rp_ctx *c, FILE *out)
{
	rp_run_state *s = c->run;
	double now = rp_now();
	fprintf(out, " (iteration %u, %" PRIu64 " nodes done)", s->iter, s->done);
	int shown = 0;
	for (size_t i = 0; i < s->nact && shown < 8; i++, shown++) {
		const chakra_replay_op *op = s->ops[i].op;
		fprintf(out, "\n  waiting for node %" PRIu64 ": %s of %" PRIu64 " bytes", op->id,
		        chakra_replay_op_name(op->kind, op->comm_type), op->size);
		if (op->kind == CHAKRA_REPLAY_COLL) {
			char d[128];
			chakra_replay_scope sc = chakra_replay_plan_channels(c->plan)[op->channel].scope;
			chakra_replay_scope_describe(&c->topo, sc, d, sizeof d);
			size_t slot = chakra_replay_scope_slot(&c->topo, sc);
			fprintf(out, " on %s (%" PRIu32 " ranks)", d, c->nmembers[slot]);
		} else {
			fprintf(out, " %s rank %" PRIu32 " tag %" PRId64,
			        op->kind == CHAKRA_REPLAY_SEND ? "to" : "from", op->peer, op->tag);
		}
		fprintf(out, ", posted %.3f s ago", now - s->ops[i].posted);
	}
	if (s->nact > 8)
		fprintf(out, "\n  ... and %zu more", s->nact - 8);
	if (s->comp)
		fprintf(out, "\n  computing node %" PRIu64 " for %.3f s more", chakra_node_id(s->comp),
		        s->comp_end - now);
	if (!s->nact && !s->comp)
		fprintf(out, "\n  nothing in flight");
}

static void run_iteration(rp_ctx *c, rp_run_state *s)
{
	chakra_feeder_options fo = CHAKRA_FEEDER_OPTIONS_INIT;
	fo.deps = c->o.deps;
	int rc = chakra_feeder_open(&s->f, c->path, &fo);
	if (rc < 0)
		rp_stop_all(c, 1, "%s", s->f ? chakra_feeder_errmsg(s->f) : c->path);
	size_t nch = chakra_replay_plan_channel_count(c->plan);
	for (size_t i = 0; i < nch; i++) {
		s->ch[i].next = 0;
		s->ch[i].npark = 0;
	}
	s->done = 0;
	s->t_compute = s->t_comm = s->t_exposed = 0;
	/* Start together. */
	MPI_Request r;
	MPI_Ibarrier(MPI_COMM_WORLD, &r);
	rp_wait(c, &r);
	double t0 = rp_now();
	s->last = s->last_progress = t0;
	for (;;) {
		const chakra_node *n;
		while ((rc = chakra_feeder_next(s->f, &n)) > 0)
			dispatch(c, s, n);
		if (rc < 0)
			rp_stop_all(c, 1, "%s", chakra_feeder_errmsg(s->f));
		double now = rp_now();
		rp_account(s, now);
		int progressed = 0;
		if (s->comp && now >= s->comp_end) {
			const chakra_node *done = s->comp;
			s->comp = NULL;
			rp_complete(c, s, done);
			progressed = 1;
		}
		if (!s->comp && s->cq_n) {
			rp_account(s, now = rp_now());
			s->comp = s->cq[s->cq_head];
			s->cq_head = (s->cq_head + 1) % s->cq_cap;
			s->cq_n--;
			s->comp_end = now + (double)chakra_replay_compute_ns(s->comp) * 1e-9;
		}
		if (s->nact) {
			int outc = 0;
			int mrc = MPI_Testsome((int)s->nact, s->req, &outc, s->idx, MPI_STATUSES_IGNORE);
			if (mrc != MPI_SUCCESS)
				rp_mpi_check(c, mrc, s->ops[0].op, "MPI_Testsome");
			if (outc > 0 && outc != MPI_UNDEFINED) {
				double t = rp_now();
				rp_account(s, t);
				/* Finish them, then compact the arrays (completed
				 * requests are MPI_REQUEST_NULL now). */
				for (int k = 0; k < outc; k++)
					finish_op(c, s, (size_t)s->idx[k], t);
				size_t w = 0;
				for (size_t i = 0; i < s->nact; i++)
					if (s->req[i] != MPI_REQUEST_NULL) {
						s->req[w] = s->req[i];
						s->ops[w++] = s->ops[i];
					}
				s->nact = w;
				progressed = 1;
			}
		}
		if (!chakra_feeder_has_more(s->f))
			break;
		if (progressed)
			continue;
		rp_ctl_poll(c);
		if (!s->nact && !s->comp && !s->cq_n)
			rp_stop_all(c, 1, "internal error: nodes are left but nothing is ready or in "
			            "flight");
		if (s->comp) {
			s->last_progress = now; /* computing is not waiting */
			if (!s->nact && c->o.compute == RP_SLEEP)
				sleep_until(s->comp_end);
		} else if (c->o.timeout > 0 && now - s->last_progress > c->o.timeout) {
			rp_stop_all(c, 2, "timeout: no progress in %g s", c->o.timeout);
		}
		/* Waiting for peers spins in MPI_Testsome. With more ranks than
		 * cores, OpenMPI's progress engine yields the core itself
		 * (mpi_yield_when_idle); yielding here too made every message
		 * wait for a time slice on a busy machine. */
	}
	double t1 = rp_now();
	rp_account(s, t1);
	if (s->measured) {
		c->times.total += t1 - t0;
		c->times.compute += s->t_compute;
		c->times.comm += s->t_comm;
		c->times.exposed += s->t_exposed;
		c->times.nodes = s->done;
	}
	chakra_feeder_close(s->f);
	s->f = NULL;
}

int rp_run(rp_ctx *c)
{
	rp_run_state s;
	memset(&s, 0, sizeof s);
	size_t nch = chakra_replay_plan_channel_count(c->plan);
	s.ch = calloc(nch ? nch : 1, sizeof *s.ch);
	if (!s.ch)
		rp_stop_all(c, 1, "out of memory");
	c->run = &s;
	unsigned total = c->o.warmup + c->o.iters;
	for (unsigned it = 0; it < total; it++) {
		s.iter = it;
		s.measured = it >= c->o.warmup;
		c->phase = s.measured ? "replaying" : "replaying (warmup)";
		run_iteration(c, &s);
	}
	if (c->o.iters) {
		c->times.total /= c->o.iters;
		c->times.compute /= c->o.iters;
		c->times.comm /= c->o.iters;
		c->times.exposed /= c->o.iters;
	}
	c->run = NULL;
	c->phase = "reporting";
	for (size_t i = 0; i < nch; i++)
		free(s.ch[i].park);
	free(s.ch);
	free(s.req);
	free(s.ops);
	free(s.idx);
	free(s.cq);
	return 0;
}
