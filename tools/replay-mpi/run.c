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

static void logf_line(rp_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void logf_line(rp_ctx *c, const char *fmt, ...)
{
	if (!c->log)
		return;
	va_list ap;
	va_start(ap, fmt);
	vfprintf(c->log, fmt, ap);
	va_end(ap);
}

static void complete(rp_ctx *c, rp_run_state *s, const chakra_node *n)
{
	uint64_t id = chakra_node_id(n);
	logf_line(c, "D %u %" PRIu64 "\n", s->iter, id);
	int rc = chakra_feeder_complete(s->f, id);
	if (rc < 0)
		rp_stop_all(c, 1, "%s", chakra_feeder_errmsg(s->f));
	s->done++;
	s->last_progress = rp_now();
}

static MPI_Datatype dtype(unsigned esz)
{
	return esz == 4 ? MPI_FLOAT : MPI_UNSIGNED_CHAR;
}

static void mpi_check(rp_ctx *c, int rc, const chakra_replay_op *op, const char *call)
{
	if (rc == MPI_SUCCESS)
		return;
	char s[MPI_MAX_ERROR_STRING];
	int len = 0;
	MPI_Error_string(rc, s, &len);
	rp_stop_all(c, 1, "node %" PRIu64 " (%s of %" PRIu64 " bytes): %s: %s", op->id,
	            chakra_replay_op_name(op->kind, op->comm_type), op->size, call, s);
}

/* Time since the last call, by state. A compute node counts until its
 * end time even when its end is noticed later (MPI progress, e.g. a large
 * reduction inside MPI_Testsome, runs on this thread). */
static void account(rp_run_state *s, double now)
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

/* Posts one operation; logs the bytes its MPI call moves as the trace
 * counts them (comm_size), computed from the call's own arguments. */
static void post(rp_ctx *c, rp_run_state *s, const chakra_node *n, const chakra_replay_op *op)
{
	if (s->nact == s->capact) {
		size_t cap = s->capact ? s->capact * 2 : 16;
		MPI_Request *r = realloc(s->req, cap * sizeof *r);
		if (r)
			s->req = r;
		rp_op *o = realloc(s->ops, cap * sizeof *o);
		if (o)
			s->ops = o;
		int *ix = realloc(s->idx, cap * sizeof *ix);
		if (ix)
			s->idx = ix;
		if (!r || !o || !ix)
			rp_stop_all(c, 1, "out of memory");
		s->capact = cap;
	}
	rp_op *x = &s->ops[s->nact];
	MPI_Request *req = &s->req[s->nact];
	memset(x, 0, sizeof *x);
	x->node = n;
	x->op = op;
	MPI_Comm comm = c->p2p;
	uint32_t nm = 2;
	const uint32_t *mem = NULL;
	size_t slot = 0;
	if (op->kind == CHAKRA_REPLAY_COLL) {
		slot = chakra_replay_scope_slot(&c->topo,
		                                chakra_replay_plan_channels(c->plan)[op->channel].scope);
		comm = c->comm[slot];
		nm = c->nmembers[slot];
		mem = c->members[slot];
		MPI_Comm_rank(comm, &x->me);
		chakra_replay_layout_of(op->comm_type, op->size, nm, (uint32_t)x->me, &x->l);
	} else {
		x->l.esz = 1;
		x->l.elems = op->size;
		x->l.send_elems = op->kind == CHAKRA_REPLAY_SEND ? op->size : 0;
		x->l.recv_elems = op->kind == CHAKRA_REPLAY_RECV ? op->size : 0;
	}
	unsigned esz = x->l.esz;
	x->sbuf = rp_buf_get(&c->pool, x->l.send_elems * esz, &x->scap);
	x->rbuf = rp_buf_get(&c->pool, x->l.recv_elems * esz, &x->rcap);
	if (!x->sbuf || !x->rbuf)
		rp_stop_all(c, 1, "node %" PRIu64 ": out of memory for %" PRIu64 " bytes", op->id,
		            (x->l.send_elems + x->l.recv_elems) * esz);
	if (c->o.verify)
		rp_fill(x->sbuf, x->l.send_elems, esz, (uint32_t)c->rank);
	MPI_Datatype dt = dtype(esz);
	int cnt = (int)x->l.elems, rc = MPI_SUCCESS;
	/* Timed from before the call: a post may do the work itself (an
	 * eager send, a receive that matches a waiting message and copies). */
	double t_post = rp_now();
	account(s, t_post); /* the time before this post is not communication */
	uint64_t moved = 0;
	const char *call = "?";
	if (op->kind != CHAKRA_REPLAY_COLL) {
		moved = op->size;
		if (op->kind == CHAKRA_REPLAY_SEND) {
			call = "MPI_Isend";
			rc = MPI_Isend(x->sbuf, cnt, MPI_BYTE, (int)op->peer, (int)op->tag, comm, req);
		} else {
			call = "MPI_Irecv";
			rc = MPI_Irecv(x->rbuf, cnt, MPI_BYTE, (int)op->peer, (int)op->tag, comm, req);
		}
	} else {
		switch (op->comm_type) {
		case CHAKRA_ALL_REDUCE:
			call = "MPI_Iallreduce";
			moved = (uint64_t)cnt * esz;
			rc = MPI_Iallreduce(x->sbuf, x->rbuf, cnt, dt, MPI_SUM, comm, req);
			break;
		case CHAKRA_REDUCE:
			call = "MPI_Ireduce";
			moved = (uint64_t)cnt * esz;
			rc = MPI_Ireduce(x->sbuf, x->rbuf, cnt, dt, MPI_SUM, 0, comm, req);
			break;
		case CHAKRA_BROADCAST:
			call = "MPI_Ibcast";
			moved = (uint64_t)cnt * esz;
			rc = MPI_Ibcast(x->me == 0 ? x->sbuf : x->rbuf, cnt, dt, 0, comm, req);
			break;
		case CHAKRA_ALL_GATHER:
			call = "MPI_Iallgather";
			moved = (uint64_t)cnt * esz;
			rc = MPI_Iallgather(x->sbuf, cnt, dt, x->rbuf, cnt, dt, comm, req);
			break;
		case CHAKRA_REDUCE_SCATTER:
		case CHAKRA_REDUCE_SCATTER_BLOCK:
			if (x->l.elems % nm == 0) {
				call = "MPI_Ireduce_scatter_block";
				moved = (uint64_t)(cnt / (int)nm) * nm * esz;
				rc = MPI_Ireduce_scatter_block(x->sbuf, x->rbuf, cnt / (int)nm, dt, MPI_SUM, comm,
				                               req);
			} else {
				call = "MPI_Ireduce_scatter";
				x->v = malloc(nm * sizeof *x->v);
				if (!x->v)
					rp_stop_all(c, 1, "out of memory");
				for (uint32_t j = 0; j < nm; j++) {
					x->v[j] = (int)chakra_replay_share(x->l.elems, nm, j);
					moved += (uint64_t)x->v[j] * esz;
				}
				rc = MPI_Ireduce_scatter(x->sbuf, x->rbuf, x->v, dt, MPI_SUM, comm, req);
			}
			break;
		case CHAKRA_ALL_TO_ALL:
			if (x->l.elems % nm == 0) {
				call = "MPI_Ialltoall";
				int per = cnt / (int)nm;
				moved = (uint64_t)per * nm * esz;
				rc = MPI_Ialltoall(x->sbuf, per, dt, x->rbuf, per, dt, comm, req);
			} else {
				call = "MPI_Ialltoallv";
				x->v = malloc(4 * (size_t)nm * sizeof *x->v);
				if (!x->v)
					rp_stop_all(c, 1, "out of memory");
				int *sc = x->v, *sd = sc + nm, *rcn = sd + nm, *rd = rcn + nm;
				int mine = (int)chakra_replay_share(x->l.elems, nm, (uint32_t)x->me), off = 0;
				for (uint32_t j = 0; j < nm; j++) {
					sc[j] = (int)chakra_replay_share(x->l.elems, nm, j);
					sd[j] = off;
					off += sc[j];
					moved += (uint64_t)sc[j] * esz;
					rcn[j] = mine;
					rd[j] = (int)j * mine;
				}
				rc = MPI_Ialltoallv(x->sbuf, sc, sd, dt, x->rbuf, rcn, rd, dt, comm, req);
			}
			break;
		case CHAKRA_BARRIER:
			call = "MPI_Ibarrier";
			rc = MPI_Ibarrier(comm, req);
			break;
		default:
			rp_stop_all(c, 1, "node %" PRIu64 ": comm_type %d cannot be replayed", op->id,
			            op->comm_type);
		}
	}
	mpi_check(c, rc, op, call);
	x->posted = t_post;
	s->nact++;
	if (!c->log)
		return;
	logf_line(c, "I %u %" PRIu64 " %s %" PRIu64, s->iter, op->id,
	          chakra_replay_op_name(op->kind, op->comm_type), moved);
	if (op->kind == CHAKRA_REPLAY_COLL) {
		logf_line(c, " ranks=");
		for (uint32_t j = 0; j < nm; j++)
			logf_line(c, "%s%" PRIu32, j ? "," : "", mem[j]);
	} else {
		logf_line(c, " peer=%" PRIu32 " tag=%" PRId64, op->peer, op->tag);
	}
	logf_line(c, "\n");
}

/* --verify: the result an operation must leave (contributions are rank+1). */
static void verify(rp_ctx *c, const rp_op *x)
{
	const chakra_replay_op *op = x->op;
	const chakra_replay_layout *l = &x->l;
	int ok = 1;
	double sum = 0;
	const uint32_t *mem = NULL;
	uint32_t nm = 0;
	if (op->kind == CHAKRA_REPLAY_COLL) {
		size_t slot = chakra_replay_scope_slot(&c->topo,
		                                       chakra_replay_plan_channels(c->plan)[op->channel].scope);
		mem = c->members[slot];
		nm = c->nmembers[slot];
		for (uint32_t j = 0; j < nm; j++)
			sum += mem[j] + 1;
	}
	const char *what = "";
	if (op->kind == CHAKRA_REPLAY_RECV) {
		ok = rp_check_value(x->rbuf, 0, l->recv_elems, 1, op->peer + 1);
		what = "received data is not the sender's";
	} else if (op->kind == CHAKRA_REPLAY_COLL) {
		switch (op->comm_type) {
		case CHAKRA_ALL_REDUCE:
		case CHAKRA_REDUCE_SCATTER:
		case CHAKRA_REDUCE_SCATTER_BLOCK:
			ok = rp_check_value(x->rbuf, 0, l->recv_elems, l->esz, sum);
			what = "result is not the sum over the communicator's ranks";
			break;
		case CHAKRA_REDUCE:
			ok = x->me != 0 || rp_check_value(x->rbuf, 0, l->recv_elems, l->esz, sum);
			what = "root's result is not the sum over the communicator's ranks";
			break;
		case CHAKRA_BROADCAST:
			ok = x->me == 0 || rp_check_value(x->rbuf, 0, l->recv_elems, l->esz, mem[0] + 1);
			what = "data is not the root's";
			break;
		case CHAKRA_ALL_GATHER:
		case CHAKRA_ALL_TO_ALL: {
			uint64_t per = l->recv_elems / (nm ? nm : 1);
			for (uint32_t j = 0; j < nm && ok; j++)
				ok = rp_check_value(x->rbuf, j * per, per, l->esz, mem[j] + 1);
			what = "block j is not rank j's";
			break;
		}
		default:
			break;
		}
	}
	if (!ok)
		rp_stop_all(c, 1, "--verify: node %" PRIu64 " (%s of %" PRIu64 " bytes, iteration %u): %s",
		            op->id, chakra_replay_op_name(op->kind, op->comm_type), op->size,
		            ((rp_run_state *)c->run)->iter, what);
}

static void finish_op(rp_ctx *c, rp_run_state *s, size_t i, double now)
{
	rp_op *x = &s->ops[i];
	if (c->o.verify)
		verify(c, x);
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
	complete(c, s, x->node);
}

/* Posts the channel's parked successors that are now next. */
static void post_in_order(rp_ctx *c, rp_run_state *s, const chakra_node *n,
                          const chakra_replay_op *op)
{
	rp_chan *ch = &s->ch[op->channel];
	if (op->seq != ch->next) {
		if (ch->npark == ch->cappark) {
			size_t cap = ch->cappark ? ch->cappark * 2 : 8;
			parked *p = realloc(ch->park, cap * sizeof *p);
			if (!p)
				rp_stop_all(c, 1, "out of memory");
			ch->park = p;
			ch->cappark = cap;
		}
		ch->park[ch->npark].seq = op->seq;
		ch->park[ch->npark++].node = n;
		return;
	}
	const chakra_replay_op *ops = chakra_replay_plan_ops(c->plan);
	const uint32_t *chops = chakra_replay_plan_channels(c->plan)[op->channel].ops;
	for (;;) {
		post(c, s, n, op);
		ch->next++;
		size_t k = 0;
		while (k < ch->npark && ch->park[k].seq != ch->next)
			k++;
		if (k == ch->npark)
			return;
		n = ch->park[k].node;
		ch->park[k] = ch->park[--ch->npark];
		op = &ops[chops[ch->next]];
	}
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
		post_in_order(c, s, n, op);
		return;
	}
	if (type == CHAKRA_COMP_NODE) {
		uint64_t ns = chakra_replay_compute_ns(n);
		logf_line(c, "I %u %" PRIu64 " COMP %" PRIu64 "\n", s->iter, id, ns);
		if (c->o.compute == RP_SKIP) {
			complete(c, s, n);
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
	logf_line(c, "I %u %" PRIu64 " OTHER 0\n", s->iter, id);
	complete(c, s, n);
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
		account(s, now);
		int progressed = 0;
		if (s->comp && now >= s->comp_end) {
			const chakra_node *done = s->comp;
			s->comp = NULL;
			complete(c, s, done);
			progressed = 1;
		}
		if (!s->comp && s->cq_n) {
			account(s, now = rp_now());
			s->comp = s->cq[s->cq_head];
			s->cq_head = (s->cq_head + 1) % s->cq_cap;
			s->cq_n--;
			s->comp_end = now + (double)chakra_replay_compute_ns(s->comp) * 1e-9;
		}
		if (s->nact) {
			int outc = 0;
			int mrc = MPI_Testsome((int)s->nact, s->req, &outc, s->idx, MPI_STATUSES_IGNORE);
			if (mrc != MPI_SUCCESS)
				mpi_check(c, mrc, s->ops[0].op, "MPI_Testsome");
			if (outc > 0 && outc != MPI_UNDEFINED) {
				double t = rp_now();
				account(s, t);
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
	account(s, t1);
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
