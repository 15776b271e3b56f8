/* SPDX-License-Identifier: Apache-2.0 */
/* Communication nodes as non-blocking MPI (run.h): each channel's
 * operations posted in the plan's order, a node ready early parked until
 * its predecessors in the channel are posted; each post's MPI call chosen
 * from the collective and its layout, its bytes logged as the trace counts
 * them. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"

static MPI_Datatype dtype(unsigned esz)
{
	return esz == 4 ? MPI_FLOAT : MPI_UNSIGNED_CHAR;
}

void rp_mpi_check(rp_ctx *c, int rc, const chakra_replay_op *op, const char *call)
{
	if (rc == MPI_SUCCESS)
		return;
	char s[MPI_MAX_ERROR_STRING];
	int len = 0;
	MPI_Error_string(rc, s, &len);
	rp_stop_all(c, 1, "node %" PRIu64 " (%s of %" PRIu64 " bytes): %s: %s", op->id,
	            chakra_replay_op_name(op->kind, op->comm_type), op->size, call, s);
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
	rp_account(s, t_post); /* the time before this post is not communication */
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
	rp_mpi_check(c, rc, op, call);
	x->posted = t_post;
	s->nact++;
	if (!c->log)
		return;
	rp_logf(c, "I %u %" PRIu64 " %s %" PRIu64, s->iter, op->id,
	          chakra_replay_op_name(op->kind, op->comm_type), moved);
	if (op->kind == CHAKRA_REPLAY_COLL) {
		rp_logf(c, " ranks=");
		for (uint32_t j = 0; j < nm; j++)
			rp_logf(c, "%s%" PRIu32, j ? "," : "", mem[j]);
	} else {
		rp_logf(c, " peer=%" PRIu32 " tag=%" PRId64, op->peer, op->tag);
	}
	rp_logf(c, "\n");
}

/* Posts the channel's parked successors that are now next. */
void rp_post_in_order(rp_ctx *c, rp_run_state *s, const chakra_node *n,
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

