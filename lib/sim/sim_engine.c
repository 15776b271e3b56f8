/* SPDX-License-Identifier: Apache-2.0 */
/* The simulation engine: one feeder per NPU (the public feeder API), one
 * event queue for all of them.
 *
 * Each NPU runs at most one compute node and one collective at a time
 * (later ones wait in issue order); send/recv and zero-cost nodes do not
 * take a slot. A collective is split into chunks; each chunk runs one phase
 * per dimension (sim_coll.c), and each NPU serves at most
 * active-chunks-per-dimension chunk-phases per dimension at once, the rest
 * waiting first in, first out.
 *
 * A phase on one ring (the NPUs that differ only in that dimension, or a
 * communicator group) starts once every member has reached it. Its steps
 * follow one rule in both network models: member i sends step s when it
 * has finished step s-1, and finishes step s at
 *     max(own step s-1, last arrival of step s) + endpoint-delay (+ reduce)
 * starting from phase start + endpoint-delay. Congestion-unaware, arrivals
 * are computed in closed form (messages never interact); congestion-aware,
 * every message crosses FIFO links as events (sim_net.c). Collectives
 * live in sim_phase.c; this file runs the feeders, the compute slots,
 * send/recv and the outputs. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "sim_engine_impl.h"
#include "../modmem.h"

int chakra__sim_fail(engine *E, const char *fmt, ...)
{
	if (E->failed)
		return -1;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(E->err, E->errlen, fmt, ap);
	va_end(ap);
	E->failed = 1;
	if (!E->code)
		E->code = CHAKRA_EINVAL; /* the workload does not fit the model */
	return -1;
}

int chakra__sim_nomem(engine *E)
{
	if (!E->failed)
		E->code = CHAKRA_ENOMEM;
	return chakra__sim_fail(E, "out of memory");
}

void chakra__sim_feeder_fail(engine *E, npu *u, int rc)
{
	if (!E->failed)
		E->code = rc;
	chakra__sim_fail(E, "rank %" PRIu32 ": %s", u->rank, chakra_feeder_errmsg(u->f));
}

const char *chakra__sim_node_name(const chakra_node *n)
{
	size_t len;
	const char *s = chakra_node_name(n, &len);
	return s ? s : "";
}

/* ---------------- outputs (the caller's callbacks) ---------------- */

void chakra__sim_out_event(engine *E, int what, uint32_t rank, const chakra_node *n)
{
	if (E->opt->event_cb)
		E->opt->event_cb(E->opt->data, what, rank, E->now, n);
}

void chakra__sim_out_timeline(engine *E, uint32_t rank, int thread, const chakra_node *n,
                              uint64_t start)
{
	if (E->opt->span_cb)
		E->opt->span_cb(E->opt->data, rank, thread, n, start, E->now);
}

/* ---------------- node flow ---------------- */

static void pump(engine *E, npu *u);
static int zero_cost(const chakra_node *n);

void chakra__sim_comm_begin(engine *E, npu *u)
{
	if (!u->coll && !u->p2p_inflight && !u->comm_replay)
		u->comm_since = E->now;
}

void chakra__sim_comm_end(engine *E, npu *u)
{
	if (!u->coll && !u->p2p_inflight && !u->comm_replay)
		u->res.comm_busy += E->now - u->comm_since;
}

/* The node finished now: release its children and issue what is ready. */
/* One more node done on u: the count (a representative's counts for its
 * whole class) and, when progress is asked (timed nodes), the progress
 * callback every 65,536. */
static void count_node(engine *E, npu *u, int progress)
{
	uint64_t k = E->sym ? E->sym->first[E->sym->cls[u->rank] + 1] -
	                      E->sym->first[E->sym->cls[u->rank]] : 1;
	uint64_t before = E->nodes_done;
	E->nodes_done += k;
	if (progress && (before >> 16) != (E->nodes_done >> 16) && E->opt->progress_cb)
		E->opt->progress_cb(E->opt->data, E->nodes_done & ~(uint64_t)0xffff);
}

void chakra__sim_zero_time(engine *E, npu *u, const chakra_node *n)
{
	/* A type outside the schema's enum takes no time either, but is
	 * counted: the run reports it. */
	int ty = chakra_node_type_of(n);
	if (ty < CHAKRA_INVALID_NODE || ty > CHAKRA_COMM_COLL_NODE) {
		if (!E->odd_types++) {
			E->odd_rank = u->rank;
			E->odd_id = chakra_node_id(n);
			E->odd_type = ty;
		}
	}
	chakra__sim_out_event(E, CHAKRA_SIM_ISSUE, u->rank, n);
	chakra__sim_out_event(E, CHAKRA_SIM_DONE, u->rank, n);
	u->res.nodes++;
	u->res.finish = E->now;
	count_node(E, u, 0);
	int rc = chakra_feeder_complete(u->f, chakra_node_id(n));
	if (rc < 0)
		chakra__sim_feeder_fail(E, u, rc);
}

void chakra__sim_complete(engine *E, npu *u, const chakra_node *n)
{
	chakra__sim_out_event(E, CHAKRA_SIM_DONE, u->rank, n);
	u->res.nodes++;
	u->res.finish = E->now;
	count_node(E, u, 1);
	int rc = chakra_feeder_complete(u->f, chakra_node_id(n));
	if (rc < 0) {
		chakra__sim_feeder_fail(E, u, rc);
		return;
	}
	pump(E, u);
}

static uint64_t compute_time(engine *E, npu *u, const chakra_node *n)
{
	uint64_t ns, ops, bytes;
	double t;
	if (E->nanos && chakra_node_get_uint(n, "duration_nanos", &ns) == 0) {
		if (!E->opt->compute_scale)
			return ns; /* exact (a double has 53 bits) */
		t = (double)ns;
	} else if (E->sys->roofline && chakra_node_num_ops(n, &ops) == 0) {
		/* Roofline: min(peak, bandwidth x operational intensity). */
		double perf = E->sys->peak_perf * 1e12;
		if (chakra_node_tensor_size(n, &bytes) == 0 && bytes > 0) {
			double mem = E->sys->local_mem_bw * 1e9 * ((double)ops / (double)bytes);
			if (mem < perf)
				perf = mem;
		}
		t = floor((double)ops / perf * 1e9);
	} else {
		t = (double)chakra_node_duration_micros(n) * 1000.0;
	}
	if (E->opt->compute_scale)
		t = floor(t * E->opt->compute_scale[u->rank] + 0.5);
	return sim_cycles(t);
}

static void try_compute(engine *E, npu *u)
{
	qitem q;
	if (u->comp || !fifo_pop(&u->comp_q, &q))
		return;
	const chakra_node *n = q.node;
	u->comp = n;
	u->comp_start = E->now;
	chakra__sim_out_event(E, CHAKRA_SIM_ISSUE, u->rank, n);
	uint64_t d = compute_time(E, u, n);
	u->res.compute = sim_add(u->res.compute, d);
	if (heap_push(&E->h, sim_add(E->now, d), EV_COMPUTE, u->rank, NULL, 0))
		chakra__sim_nomem(E);
}


void chakra__sim_try_collective(engine *E, npu *u)
{
	qitem q;
	if (u->coll || !fifo_pop(&u->coll_q, &q))
		return;
	chakra__sim_start_collective(E, u, q.node);
}

static void dispatch(engine *E, npu *u, const chakra_node *n)
{
	switch (chakra_node_type_of(n)) {
	case CHAKRA_COMP_NODE:
		if (fifo_push(&u->comp_q, (qitem){ .node = n }))
			chakra__sim_nomem(E);
		try_compute(E, u);
		break;
	case CHAKRA_COMM_COLL_NODE:
		if (fifo_push(&u->coll_q, (qitem){ .node = n }))
			chakra__sim_nomem(E);
		chakra__sim_try_collective(E, u);
		break;
	case CHAKRA_COMM_SEND_NODE:
		chakra__sim_start_p2p(E, u, n, 1);
		break;
	case CHAKRA_COMM_RECV_NODE:
		chakra__sim_start_p2p(E, u, n, 0);
		break;
	default: /* handled by pump */
		break;
	}
}

/* Metadata, memory and invalid nodes take no time. */
static int zero_cost(const chakra_node *n)
{
	int t = chakra_node_type_of(n);
	return t != CHAKRA_COMP_NODE && t != CHAKRA_COMM_COLL_NODE && t != CHAKRA_COMM_SEND_NODE &&
	       t != CHAKRA_COMM_RECV_NODE;
}

static void pump(engine *E, npu *u)
{
	const chakra_node *n;
	int rc;
	if (E->astra) {
		chakra__sim_astra_call(E, u);
		return;
	}
	while (!E->failed && (rc = chakra_feeder_next(u->f, &n)) > 0) {
		if (!zero_cost(n)) {
			dispatch(E, u, n);
			continue;
		}
		/* Completed in place: releasing children here keeps long chains
		 * of such nodes from recursing. */
		chakra__sim_zero_time(E, u, n);
	}
	if (!E->failed && rc < 0)
		chakra__sim_feeder_fail(E, u, rc);
	/* Every node issued and completed: this NPU is done. */
	if (E->opt->finish_cb && !E->failed && !u->finished && !chakra_feeder_has_more(u->f)) {
		u->finished = 1;
		chakra__sim_finished(E, u);
	}
}

/* u completed its last node: the caller hears of it (reduced: of every
 * rank of its class, in rank order). */
void chakra__sim_finished(engine *E, npu *u)
{
	if (!E->sym) {
		E->opt->finish_cb(E->opt->data, u->rank, &u->res);
		return;
	}
	uint32_t c = E->sym->cls[u->rank];
	for (uint32_t i = E->sym->first[c]; i < E->sym->first[c + 1]; i++)
		E->opt->finish_cb(E->opt->data, E->sym->members[i], &u->res);
}

/* ---------------- send / recv ---------------- */

/* A send completes when its message has arrived; a receive completes
 * endpoint-delay after both it is posted and the matching message (same
 * source and tag) has arrived. ASTRA-sim's rules: a receive completes as
 * the message arrives, or as it is posted when the message is there
 * already, and a message matches on source, tag and size. */
static void recv_done(engine *E, p2p_op *recv, uint64_t arrived)
{
	uint64_t t = sim_add(arrived > recv->start ? arrived : recv->start,
	                     E->astra ? 0 : E->sys->endpoint_delay);
	recv->arrived = t;
	if (heap_push(&E->h, t, EV_P2P_SENT, 0, recv, 0))
		chakra__sim_nomem(E);
}

static int p2p_match(const engine *E, const p2p_op *recv, const p2p_op *send)
{
	return recv->peer == send->rank && recv->tag == send->tag &&
	       (!E->astra || recv->size == send->size);
}

static void p2p_complete(engine *E, p2p_op *op);

void chakra__sim_p2p_arrived(engine *E, p2p_op *send)
{
	npu *dst = npu_of(E, send->peer);
	p2p_op *matched = NULL, copy;
	if (E->sym)
		chakra__sym_tie(E, send->peer, EV_HOP);
	for (p2p_op **pp = &dst->recvs; *pp; pp = &(*pp)->next) {
		p2p_op *r = *pp;
		if (p2p_match(E, r, send)) {
			*pp = r->next;
			if (!r->next)
				dst->recvs_tail = pp;
			matched = r;
			break;
		}
	}
	if (matched && E->sym && !chakra__sym_pair(E, send, matched)) {
		chakra_free(matched); /* the run stops: neither op will complete */
		chakra_free(send);
		return;
	}
	if (E->astra) {
		/* ASTRA-sim's network calls the sender back, then the receiver, as
		 * the message arrives. */
		if (E->sym)
			chakra__sym_tie(E, send->rank, EV_HOP);
		if (E->failed) {
			chakra_free(matched);
			chakra_free(send);
			return;
		}
		copy = *send; /* p2p_complete frees it */
		p2p_complete(E, send);
		if (matched) {
			if (!E->failed)
				p2p_complete(E, matched);
			return;
		}
		send = &copy;
	} else {
		/* The send node itself completes now. */
		if (E->sym) /* (scheduled in its message's arrival) */
			E->h.org = ORG_SENT | send->rank;
		int prc = heap_push(&E->h, E->now, EV_P2P_SENT, 0, send, 0);
		E->h.org = 0;
		if (prc) {
			chakra__sim_nomem(E);
			return;
		}
		if (matched) {
			recv_done(E, matched, E->now);
			return;
		}
	}
	/* No receive posted yet: remember the arrival. */
	p2p_op *a = chakra_malloc(sizeof *a);
	if (!a) {
		chakra__sim_nomem(E);
		return;
	}
	*a = *send;
	a->node = NULL;
	a->arrived = E->now;
	a->next = NULL;
	if (!dst->arrived)
		dst->arrived_tail = &dst->arrived;
	*dst->arrived_tail = a;
	dst->arrived_tail = &a->next;
}

void chakra__sim_start_p2p(engine *E, npu *u, const chakra_node *n, int is_send)
{
	int64_t peer, tag = 0;
	uint64_t size = 0;
	int rc = is_send ? chakra_node_comm_dst(n, &peer) : chakra_node_comm_src(n, &peer);
	int64_t v0 = peer;
	if (rc == 0 && E->map) /* (a rank map: the rank's own peer) */
		peer = chakra__sim_peer(E, u->rank, v0);
	if (rc < 0 || peer < 0 || (uint64_t)peer >= E->N) {
		chakra__sim_fail(E, "rank %" PRIu32 " node %" PRIu64 " (%s): %s without a valid %s (0..%"
		         PRIu32 ")", u->rank, chakra_node_id(n), chakra__sim_node_name(n),
		         is_send ? "send" : "recv", is_send ? "comm_dst" : "comm_src", E->N - 1);
		return;
	}
	chakra_node_comm_tag(n, &tag);
	chakra_node_comm_size(n, &size);
	if (E->astra) /* Sys::front_end_sim_send/recv: native tags live below 5e8 */
		tag %= 500000000;
	p2p_op *op = chakra_calloc(1, sizeof *op);
	if (!op) {
		chakra__sim_nomem(E);
		return;
	}
	op->node = n;
	op->node_id = chakra_node_id(n);
	op->rank = u->rank;
	op->peer = (uint32_t)peer;
	op->tag = tag;
	op->bytes = (double)size;
	op->size = size;
	op->start = E->now;
	op->is_send = is_send;
	op->v0 = v0;
	if (E->sym && !chakra__sym_p2p(E, u->rank, v0, op->peer, is_send)) {
		chakra_free(op);
		return;
	}
	chakra__sim_comm_begin(E, u);
	u->p2p_inflight++;
	chakra__sim_out_event(E, CHAKRA_SIM_ISSUE, u->rank, n);
	if (is_send) {
		if (E->opt->model == CHAKRA_SIM_AWARE) {
			chakra__sim_send_msg(E, u->rank, op->peer, op->bytes, NULL, op, 0, 0);
		} else {
			uint64_t d = op->peer == u->rank ? 0
			             : chakra__sim_unaware_delay(E->net, u->rank, op->peer, op->bytes);
			/* Arrival is handled as an event so that receives see it in time order. */
			msg *m = chakra_malloc(sizeof *m);
			if (!m) {
				chakra_free(op); /* (nothing else holds it yet) */
				chakra__sim_nomem(E);
				return;
			}
			memset(m, 0, sizeof *m);
			m->op = op;
			m->arrived = 1;
			if (E->sym) /* (for its receiver, an event another rank scheduled) */
				E->h.org = ORG_MSG | u->rank;
			if (heap_push(&E->h, sim_add(E->now, d), EV_HOP, 0, m, 0)) {
				chakra_free(m);
				chakra_free(op);
				chakra__sim_nomem(E);
			}
			E->h.org = 0;
		}
		return;
	}
	for (p2p_op **pp = &u->arrived; *pp; pp = &(*pp)->next) {
		p2p_op *a = *pp;
		if (p2p_match(E, op, a)) {
			*pp = a->next;
			if (!a->next)
				u->arrived_tail = pp;
			if (E->sym && !chakra__sym_pair(E, a, op)) {
				chakra_free(a);
				chakra_free(op);
				return;
			}
			recv_done(E, op, a->arrived);
			chakra_free(a);
			return;
		}
	}
	/* Oldest first: receives with the same source and tag match in the
	 * order they were posted (as MPI's do). */
	op->next = NULL;
	if (!u->recvs)
		u->recvs_tail = &u->recvs;
	*u->recvs_tail = op;
	u->recvs_tail = &op->next;
}

static void p2p_complete(engine *E, p2p_op *op)
{
	npu *u = npu_of(E, op->rank);
	const chakra_node *n = op->node;
	if (E->astra && op->is_send)
		u->slots[SLOT_COMM].busy = NULL;
	u->p2p_inflight--;
	chakra__sim_comm_end(E, u);
	chakra__sim_out_timeline(E, u->rank, 1, n, op->start);
	chakra_free(op);
	chakra__sim_complete(E, u, n);
}

/* ---------------- the loop ---------------- */

static void handle(engine *E, const event *ev)
{
	if (E->sym && (ev->type == EV_START || ev->type == EV_COMPUTE || ev->type == EV_COLL_DONE))
		chakra__sym_tie(E, ev->a, ev->type);
	switch (ev->type) {
	case EV_START:
		pump(E, npu_of(E, ev->a));
		break;
	case EV_COMPUTE: {
		npu *u = npu_of(E, ev->a);
		if (E->astra) {
			chakra__sim_astra_batch(E, u);
			break;
		}
		const chakra_node *n = u->comp;
		u->comp = NULL;
		chakra__sim_out_timeline(E, u->rank, 0, n, u->comp_start);
		chakra__sim_complete(E, u, n);
		try_compute(E, u);
		break;
	}
	case EV_PHASE: {
		inst *in = ev->p;
		uint32_t chunk = (uint32_t)(ev->b >> 32), p = (uint32_t)(ev->b & 0xffffffff) >> 1;
		if (ev->b & 1) { /* the whole ring finishes now, in ring order */
			const sim_phase *ph = &in->ph[p];
			uint32_t n = ph->n;
			if (!E->sym) {
				for (uint32_t j = 0; j < n && !E->failed; j++)
					chakra__sim_phase_done(E, in, chunk, p, member_rank(E, in, ph, ev->a, j));
				break;
			}
			/* Reduced: its simulated members alone (the others are their
			 * images), found first: the last of them to finish its
			 * collective hands the instance back for reuse. */
			uint32_t k = 0;
			for (uint32_t j = 0; j < n; j++) {
				uint32_t r = member_rank(E, in, ph, ev->a, j);
				if (!sim_simulated(E, r))
					continue;
				if (k == E->nreps) {
					uint32_t *nr = chakra_realloc(E->reps, (k ? 2 * k : 8) * sizeof *nr);
					if (!nr) {
						chakra__sim_nomem(E);
						break;
					}
					E->reps = nr;
					E->nreps = k ? 2 * k : 8;
				}
				E->reps[k++] = r;
			}
			for (uint32_t j = 0; j < k && !E->failed; j++) {
				uint32_t r = E->reps[j];
				chakra__sym_tie(E, r, EV_PHASE);
				if (!E->failed)
					chakra__sim_phase_done(E, in, chunk, p, r);
			}
		} else {
			if (E->sym)
				chakra__sym_tie(E, ev->a, ev->type);
			if (!E->failed)
				chakra__sim_phase_done(E, in, chunk, p, ev->a);
		}
		break;
	}
	case EV_SEND:
	case EV_PGEN:
	case EV_PRECV:
	case EV_PARR:
		chakra__sim_pr_event(E, ev->p, ev->type, ev->a, ev->b);
		break;
	case EV_HOP:
		chakra__sim_on_hop(E, ev->p);
		break;
	case EV_P2P_SENT:
		if (E->sym)
			chakra__sym_tie(E, ((p2p_op *)ev->p)->rank, EV_P2P_SENT);
		if (!E->failed)
			p2p_complete(E, ev->p);
		else
			chakra_free(ev->p); /* popped: engine_free no longer sees it */
		break;
	case EV_COLL_DONE:
		chakra__sim_finish_collective(E, npu_of(E, ev->a));
		break;
	}
}

/* Nothing left to do but nodes remain: say who waits for what. */
static void diagnose(engine *E)
{
	/* ASTRA-sim's rules: a rank stalled by its own issue rule is the cause
	 * of whatever its peers wait for. */
	for (uint32_t i = 0; E->astra && i < E->nsim && !E->failed; i++)
		chakra__sim_astra_diagnose(E, &E->npu[i]);
	for (uint32_t i = 0; i < E->nsim && !E->failed; i++) {
		npu *u = &E->npu[i];
		uint32_t r = u->rank;
		if (u->coll) {
			chakra__sim_fail(E, "rank %" PRIu32 " node %" PRIu64 " (%s): the collective never "
			         "completes: some of its peers never issue the matching collective",
			         r, chakra_node_id(u->coll), chakra__sim_node_name(u->coll));
		} else if (u->recvs) {
			chakra__sim_fail(E, "rank %" PRIu32 " node %" PRIu64 " (%s): recv from rank %" PRIu32
			         " tag %" PRId64 " never matched by a send", r,
			         chakra_node_id(u->recvs->node), chakra__sim_node_name(u->recvs->node),
			         u->recvs->peer, u->recvs->tag);
		} else if (u->arrived) {
			/* As an unmatched receive is: a message nobody takes. */
			chakra__sim_fail(E, "rank %" PRIu32 " node %" PRIu64 ": send to rank %" PRIu32
			                 " tag %" PRId64 " never matched by a receive", u->arrived->rank,
			                 u->arrived->node_id, r, u->arrived->tag);
		} else if (chakra_feeder_has_more(u->f)) {
			const chakra_node *n;
			int rc = chakra_feeder_next(u->f, &n);
			if (rc < 0)
				chakra__sim_feeder_fail(E, u, rc);
			else
				chakra__sim_fail(E, "rank %" PRIu32 ": %" PRIu64 " nodes never became ready", r,
				         chakra_feeder_held_count(u->f));
		}
	}
}

static void engine_free(engine *E)
{
	for (uint32_t i = 0; E->npu && i < E->nsim; i++) {
		npu *u = &E->npu[i];
		chakra_free(u->comp_q.buf);
		chakra_free(u->coll_q.buf);
		for (int s = 0; s <= SIM_MAX_DIMS; s++)
			chakra_free(u->wait[s].buf);
		chakra_free(u->seq_mask);
		for (p2p_op *o = u->recvs, *nx; o; o = nx) {
			nx = o->next;
			chakra_free(o);
		}
		for (p2p_op *o = u->arrived, *nx; o; o = nx) {
			nx = o->next;
			chakra_free(o);
		}
		chakra__sim_astra_free(u);
	}
	/* Events still queued after an error own messages and phase runs. */
	for (size_t i = 0; i < E->h.n; i++) {
		if (E->h.e[i].type == EV_HOP) {
			msg *m = E->h.e[i].p;
			if (!m->pr)
				chakra_free(m->op); /* a send's op travels with its message */
			chakra_free(m);
		} else if (E->h.e[i].type == EV_P2P_SENT) {
			chakra_free(E->h.e[i].p);
		}
	}
	while (E->runs)
		chakra__sim_pr_free(E, E->runs);
	chakra_free(E->h.e);
	for (int pass = 0; pass < 2; pass++)
		for (inst *in = pass ? E->pool : E->live, *nx; in; in = nx) {
			nx = in->next;
			chakra_free(in->start);
			chakra_free(in->count);
			chakra_free(in->run);
			chakra_free(in);
		}
	chakra_free(E->group_mask);
	chakra_free(E->reps);
	chakra_free(E->gname);
	chakra_free(E->gpos_key);
	chakra_free(E->gpos_val);
	chakra_free(E->gpos_seq);
	chakra__sym_free(E);
	chakra_free(E->npu);
	chakra_free(E->ring0);
	chakra_free(E->tmp_src);
	chakra_free(E->all.ranks);
	chakra_free(E->tmp_a);
	chakra_free(E->tmp_b);
	chakra__sim_links_free(E->links);
}

/* ---------------- group lookups ---------------- */

static uint64_t name_hash(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < len; i++)
		h = sim_mulw(h ^ (unsigned char)s[i], 1099511628211ull);
	return h;
}

static uint64_t pos_hash(uint64_t k)
{
	k ^= k >> 33;
	k = sim_mulw(k, 0xff51afd7ed558ccdull);
	k ^= k >> 33;
	return k;
}

const chakra_sim_group *chakra__sim_group_find(engine *E, const char *name, size_t len)
{
	const chakra_sim_groups *gs = E->opt->groups;
	if (!E->gname)
		return NULL;
	for (size_t at = name_hash(name, len) & (E->gname_cap - 1); E->gname[at];
	     at = (at + 1) & (E->gname_cap - 1)) {
		const chakra_sim_group *g = &gs->g[E->gname[at] - 1];
		if (strlen(g->name) == len && !memcmp(g->name, name, len))
			return g;
	}
	return NULL;
}

/* The slot of (g, rank) in the table, or (size_t)-1. */
static size_t gpos_at(engine *E, uint32_t g, uint32_t rank)
{
	uint64_t key = (uint64_t)g << 32 | rank;
	if (!E->gpos_key)
		return (size_t)-1;
	for (size_t at = pos_hash(key) & (E->gpos_cap - 1); E->gpos_val[at] != UINT32_MAX;
	     at = (at + 1) & (E->gpos_cap - 1))
		if (E->gpos_key[at] == key)
			return at;
	return (size_t)-1;
}

uint32_t chakra__sim_group_pos(engine *E, uint32_t g, uint32_t rank)
{
	size_t at = gpos_at(E, g, rank);
	return at == (size_t)-1 ? UINT32_MAX : E->gpos_val[at];
}

uint32_t *chakra__sim_group_seq(engine *E, uint32_t g, uint32_t rank)
{
	size_t at = gpos_at(E, g, rank);
	return at == (size_t)-1 ? NULL : &E->gpos_seq[at];
}

/* The tables behind the two lookups, and each group's dimensions. */
static int groups_index(engine *E)
{
	const chakra_sim_groups *gs = E->opt->groups;
	const chakra_sim_network *net = E->net;
	size_t members = 0;
	for (size_t g = 0; g < gs->n; g++)
		members += gs->g[g].n;
	for (E->gname_cap = 16; E->gname_cap < 2 * gs->n; E->gname_cap *= 2)
		;
	for (E->gpos_cap = 16; E->gpos_cap < 2 * members; E->gpos_cap *= 2)
		;
	E->gname = chakra_calloc(E->gname_cap, sizeof *E->gname);
	E->gpos_key = chakra_malloc(E->gpos_cap * sizeof *E->gpos_key);
	E->gpos_val = chakra_malloc(E->gpos_cap * sizeof *E->gpos_val);
	E->gpos_seq = chakra_calloc(E->gpos_cap, sizeof *E->gpos_seq);
	E->group_mask = chakra_malloc(gs->n * sizeof *E->group_mask);
	if (!E->gname || !E->gpos_key || !E->gpos_val || !E->gpos_seq || !E->group_mask)
		return chakra__sim_nomem(E);
	memset(E->gpos_val, 0xff, E->gpos_cap * sizeof *E->gpos_val);
	for (size_t g = 0; g < gs->n; g++) {
		const chakra_sim_group *gr = &gs->g[g];
		size_t len = strlen(gr->name), at = name_hash(gr->name, len) & (E->gname_cap - 1);
		int dup = 0;
		for (; E->gname[at]; at = (at + 1) & (E->gname_cap - 1))
			dup |= !strcmp(gs->g[E->gname[at] - 1].name, gr->name);
		if (!dup) /* (the first of a name, as a search in file order finds) */
			E->gname[at] = (uint32_t)(g + 1);
		for (size_t j = 0; j < gr->n; j++) {
			uint64_t key = (uint64_t)g << 32 | gr->ranks[j];
			size_t k = pos_hash(key) & (E->gpos_cap - 1);
			for (; E->gpos_val[k] != UINT32_MAX && E->gpos_key[k] != key;
			     k = (k + 1) & (E->gpos_cap - 1))
				;
			E->gpos_key[k] = key; /* (a rank listed twice: its last place) */
			E->gpos_val[k] = (uint32_t)j;
		}
		/* A group that is exactly the NPUs spanned by some dimensions (a
		 * row, a plane...) runs on those dimensions, as involved_dim
		 * would; any other group is one ring in its listed order. */
		int mask = 0;
		uint64_t span = 1;
		for (int d = 0; d < net->ndims; d++) {
			uint32_t c0 = chakra__sim_coord(net, gr->ranks[0], d);
			for (size_t j = 1; j < gr->n; j++)
				if (chakra__sim_coord(net, gr->ranks[j], d) != c0) {
					mask |= 1 << d;
					span *= net->size[d];
					break;
				}
		}
		E->group_mask[g] = span == gr->n ? mask : -1;
	}
	return 0;
}

int chakra__sim_engine_run(chakra_sim *S, chakra_feeder *const *feeders, int astra)
{
	return chakra__sim_engine_run_ex(S, feeders, astra, NULL, NULL);
}

int chakra__sim_engine_run_ex(chakra_sim *S, chakra_feeder *const *feeders, int astra,
                              const chakra_rank_map *map, const sim_sym *sym)
{
	const chakra_sim_network *net = &S->net;
	const chakra_sim_options *opt = &S->opt;
	engine E;
	memset(&E, 0, sizeof E);
	E.net = net;
	E.sys = &S->sys;
	E.opt = opt;
	E.err = S->err;
	E.errlen = sizeof S->err;
	E.N = net->npus;
	E.astra = astra;
	E.nanos = opt->durations ? opt->durations == CHAKRA_SIM_DURATIONS_NANOS : !astra;
	E.streams = astra && opt->streams;
	E.map = map;
	E.sym = sym;
	E.sym_outputs = sym && S->sym_outputs;
	E.nsim = sym ? sym->nclasses : E.N;

	E.npu = chakra_calloc(E.nsim, sizeof *E.npu);
	E.tmp_src = chakra_malloc((size_t)E.N * sizeof *E.tmp_src);
	E.tmp_a = chakra_malloc((size_t)E.N * sizeof *E.tmp_a);
	E.tmp_b = chakra_malloc((size_t)E.N * sizeof *E.tmp_b);
	if (opt->model == CHAKRA_SIM_AWARE)
		E.links = chakra__sim_links_new(net);
	E.ring0 = chakra_malloc((size_t)E.N * (size_t)(net->ndims ? net->ndims : 1) * sizeof *E.ring0);
	for (uint32_t r = 0; E.ring0 && r < E.N; r++)
		for (int d = 0; d < net->ndims; d++)
			E.ring0[(size_t)r * (size_t)net->ndims + (size_t)d] =
				r - chakra__sim_coord(net, r, d) * net->stride[d];
	if (!E.npu || !E.tmp_src || !E.tmp_a || !E.tmp_b || !E.ring0 ||
	    (opt->model == CHAKRA_SIM_AWARE && !E.links))
		chakra__sim_nomem(&E);
	if (!E.failed && opt->groups && opt->groups->n)
		groups_index(&E);
	if (!E.failed && sym)
		chakra__sym_init(&E);
	for (uint32_t i = 0; i < E.nsim && !E.failed; i++) {
		uint32_t r = sym ? sym->rep[i] : i;
		npu *u = &E.npu[i];
		u->f = feeders[i];
		u->rank = r;
		u->seq_mask = chakra_calloc((size_t)1 << net->ndims, sizeof *u->seq_mask);
		u->tie[0] = UINT64_MAX;
		if (!u->seq_mask || (astra && chakra__sim_astra_init(u)))
			chakra__sim_nomem(&E);
		if (heap_push(&E.h, opt->start_delay ? opt->start_delay[r] : 0, EV_START, r, NULL, 0))
			chakra__sim_nomem(&E);
	}

	uint64_t events = 0;
	while (!E.failed && E.h.n) {
		event ev = heap_pop(&E.h);
		E.now = E.h.now = ev.t;
		if (ev.t == UINT64_MAX) { /* saturated: never a wrapped result */
			chakra__sim_fail(&E, "simulated time reaches 2^64-1 cycles (%s): a duration, "
			                 "delay, start delay or configured latency/bandwidth is too large "
			                 "to simulate", ev.type == EV_START ? "a start delay"
			                 : ev.type == EV_COMPUTE ? "compute" : "communication");
			/* Back in the queue, so that engine_free frees what it carries. */
			heap_push(&E.h, ev.t, ev.type, ev.a, ev.p, ev.b);
			break;
		}
		events++;
		heap_new_block(&E.h);
		E.h.org = 0;
		E.h.taint = ev.org ? ORG_TAINT : 0;
		E.h.preg = ev.reg;
		E.cur = &ev;
		handle(&E, &ev);
		E.cur = NULL;
	}
	if (!E.failed)
		diagnose(&E);
	/* The warnings name the first rank to meet a node: the reduction knows
	 * its representative only. */
	if (!E.failed && sym && (E.odd_types || E.cpu_comm || E.odd_coll || E.no_roofline))
		chakra__sym_fail(&E, "a warning names the first rank that met its node");
	if (!E.failed) {
		S->res = chakra_calloc(E.N, sizeof *S->res);
		if (!S->res)
			chakra__sim_nomem(&E);
		for (uint32_t r = 0; r < E.N && S->res; r++) {
			S->res[r] = npu_of(&E, r)->res;
			if (S->res[r].finish > S->finish)
				S->finish = S->res[r].finish;
		}
		S->npus = E.N;
		S->events = events;
		S->nodes = E.nodes_done;
	}
	S->warning[0] = 0;
	if (!E.failed && E.odd_types)
		snprintf(S->warning, sizeof S->warning, "%" PRIu64 " node(s) have a type outside "
		         "NodeType (first: rank %" PRIu32 " node %" PRIu64 ", type %d); they were "
		         "simulated as taking no time", E.odd_types, E.odd_rank, E.odd_id, E.odd_type);
	if (!E.failed && E.cpu_comm) {
		size_t l = strlen(S->warning);
		snprintf(S->warning + l, sizeof S->warning - l, "%s%" PRIu64 " communication node(s) "
		         "are marked is_cpu_op (first: rank %" PRIu32 " node %" PRIu64 "): simulated as "
		         "GPU communication; ASTRA-sim refuses them and never finishes such a rank",
		         l ? "; " : "", E.cpu_comm, E.cpu_comm_rank, E.cpu_comm_id);
	}
	if (!E.failed && E.odd_coll) {
		size_t l = strlen(S->warning);
		snprintf(S->warning + l, sizeof S->warning - l, "%s%" PRIu64 " collective(s) of a type "
		         "ASTRA-sim does not run (first: rank %" PRIu32 " node %" PRIu64 "): simulated "
		         "with this simulator's model; ASTRA-sim stops on them", l ? "; " : "",
		         E.odd_coll, E.odd_coll_rank, E.odd_coll_id);
	}
	if (!E.failed && E.no_roofline) {
		size_t l = strlen(S->warning);
		snprintf(S->warning + l, sizeof S->warning - l, "%s%" PRIu64 " GPU compute node(s) lack "
		         "num_ops or tensor_size for the roofline (first: rank %" PRIu32 " node %" PRIu64
		         "): their recorded duration was used; ASTRA-sim stops on them", l ? "; " : "",
		         E.no_roofline, E.no_roofline_rank, E.no_roofline_id);
	}
	if (!E.failed && E.tree_used) {
		size_t l = strlen(S->warning);
		snprintf(S->warning + l, sizeof S->warning - l, "%sdoubleBinaryTree is this "
		         "simulator's own model (two mirrored trees, docs/sim.md), not ASTRA-sim's "
		         "DoubleBinaryTreeAllReduce: its cycles differ from ASTRA-sim's",
		         l ? "; " : "");
	}
	int code = E.failed ? E.asym ? CHAKRA_ESTATE : E.code : 0;
	engine_free(&E);
	return code;
}
