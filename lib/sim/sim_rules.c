/* SPDX-License-Identifier: Apache-2.0 */
/* ASTRA-sim's workload layer as rules of the engine (CHAKRA_SIM_RULES_ASTRA_SIM;
 * docs/sim.md, "Two rule sets"): what stock ASTRA-sim's Workload and
 * HardwareResource do with the nodes a FeederV3 gives them.
 *  - Three slots per NPU: a CPU node (is_cpu_op) takes the CPU slot, a GPU
 *    compute node the GPU slot, every other node but a receive the
 *    communication slot (collectives, sends, metadata); receives take none.
 *    With streams, each CPU thread and each GPU stream is a slot instead.
 *  - At each of an NPU's events (a node of it finishing, or its start), the
 *    nodes ready then are issued in ascending id, each if its slot is free.
 *    Nodes that take no time (metadata, invalid, roofline nodes without
 *    bytes) complete as they issue, but what they release waits for the
 *    NPU's next event (it is not in that event's snapshot).
 *  - A compute node (and a broadcast, which ASTRA-sim replays) lasts
 *    duration_micros x 1000 ns, at least 1 (or duration_nanos, by option);
 *    with roofline-enabled a GPU compute node takes its roofline time.
 *  - The nodes of an NPU ending at one tick end together, where the first
 *    of them was scheduled in the event order (ASTRA-sim queues events per
 *    system and tick).
 * Collectives, sends and receives then run on the engine's network models
 * (sim_phase.c, sim_engine.c). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "sim_engine_impl.h"
#include "../modmem.h"

/* ---------------- ready nodes, lowest id first ---------------- */

typedef struct nitem {
	uint64_t id;
	const chakra_node *n;
} nitem;

#define NITEM_LESS(x, y) ((x)->id < (y)->id)
CHAKRA__HEAP_DEFINE(nq, nitem, NITEM_LESS)

/* The heap stores nitems in the nheap's byte array (nheap keeps the type
 * out of the shared header). */
static int nheap_push(nheap *h, const chakra_node *n)
{
	if (h->n == h->cap) {
		size_t nc = h->cap ? h->cap * 2 : 16;
		void *na = chakra_realloc(h->a, nc * sizeof(nitem));
		if (!na)
			return -1;
		h->a = na;
		h->cap = nc;
	}
	nitem it = { chakra_node_id(n), n };
	nq_push((nitem *)(void *)h->a, &h->n, it);
	return 0;
}

static uint64_t nheap_top(const nheap *h)
{
	return ((const nitem *)(const void *)h->a)[0].id;
}

static const chakra_node *nheap_pop(nheap *h)
{
	return nq_pop((nitem *)(void *)h->a, &h->n).n;
}

/* ---------------- what the rules decide ---------------- */

int chakra__sim_recorded(const chakra_metadata *m)
{
	/* chakra convert writes `source` (and chakra project keeps it);
	 * generated and synthetic workloads have none. */
	return m && chakra_metadata_attr_find(m, "source") != NULL;
}

static int is_comm(int t)
{
	return t == CHAKRA_COMM_COLL_NODE || t == CHAKRA_COMM_SEND_NODE || t == CHAKRA_COMM_RECV_NODE;
}

/* The slot kind of a node (HardwareResource::occupy). */
static int slot_kind(engine *E, npu *u, const chakra_node *n)
{
	int cpu = 0, t = chakra_node_type_of(n);
	(void)chakra_node_is_cpu_op(n, &cpu);
	if (cpu && is_comm(t)) {
		/* ASTRA-sim takes the CPU slot, then refuses the node ("Comm node
		 * should not be on CPU") and never finishes the rank; run it as the
		 * GPU communication it stands for, and say so. */
		if (!E->cpu_comm++) {
			E->cpu_comm_rank = u->rank;
			E->cpu_comm_id = chakra_node_id(n);
		}
		cpu = 0;
	}
	return cpu ? SLOT_CPU : t == CHAKRA_COMP_NODE ? SLOT_GPU
	       : t == CHAKRA_COMM_RECV_NODE ? SLOT_NONE : SLOT_COMM;
}

static int64_t attr_or(const chakra_node *n, const char *name, int64_t dflt)
{
	int64_t v;
	return chakra_node_get_int(n, name, &v) == 0 ? v : dflt;
}

/* The slot of a node: its kind's, or with streams its thread's or
 * stream's (created on first use). (size_t)-1 when out of memory. */
static size_t slot_for(engine *E, npu *u, const chakra_node *n)
{
	int kind = slot_kind(E, u, n);
	if (!E->streams || (kind != SLOT_CPU && kind != SLOT_GPU))
		return (size_t)kind;
	int64_t k1 = kind == SLOT_CPU ? attr_or(n, "tid", -1) : attr_or(n, "device", -1);
	int64_t k2 = kind == SLOT_CPU ? 0 : attr_or(n, "stream", -1);
	size_t s = u->last_slot;
	if (s >= SLOT_NONE + 1 && s < u->nslots && u->slots[s].kind == kind && u->slots[s].k1 == k1 &&
	    u->slots[s].k2 == k2)
		return s;
	for (s = SLOT_NONE + 1; s < u->nslots; s++)
		if (u->slots[s].kind == kind && u->slots[s].k1 == k1 && u->slots[s].k2 == k2)
			return u->last_slot = s;
	if (u->nslots == u->capslots) {
		size_t nc = u->capslots * 2;
		aslot *ns = chakra_realloc(u->slots, nc * sizeof *ns);
		if (!ns)
			return (size_t)-1;
		u->slots = ns;
		u->capslots = nc;
	}
	s = u->nslots++;
	memset(&u->slots[s], 0, sizeof u->slots[s]);
	u->slots[s].kind = kind;
	u->slots[s].k1 = k1;
	u->slots[s].k2 = k2;
	return u->last_slot = s;
}

/* A node's recorded time: duration_micros x 1000 (or duration_nanos when
 * asked and present), scaled per rank, never 0 (ASTRA-sim takes 1 ns for a
 * zero duration). */
static uint64_t replay_time(engine *E, npu *u, const chakra_node *n)
{
	uint64_t d;
	if (!E->nanos || chakra_node_get_uint(n, "duration_nanos", &d) < 0)
		d = sim_mul(chakra_node_duration_micros(n), 1000);
	if (E->opt->compute_scale)
		d = sim_cycles(floor((double)d * E->opt->compute_scale[u->rank] + 0.5));
	return d ? d : 1;
}

/* Roofline time of a GPU compute node (Workload::issue_comp): 1 when it
 * has no bytes (then it takes no time: *zero), -1 when it lacks num_ops or
 * tensor_size (ASTRA-sim stops on it; the recorded time is used). */
static int roofline_time(engine *E, npu *u, const chakra_node *n, uint64_t *d)
{
	uint64_t ops, bytes;
	if (chakra_node_num_ops(n, &ops) < 0 || chakra_node_tensor_size(n, &bytes) < 0) {
		if (!E->no_roofline++) {
			E->no_roofline_rank = u->rank;
			E->no_roofline_id = chakra_node_id(n);
		}
		return -1;
	}
	if (bytes == 0)
		return 1;
	double oi = (double)ops / (double)bytes;
	double perf = E->sys->local_mem_bw * 1e9 * oi;
	if (perf > E->sys->peak_perf * 1e12)
		perf = E->sys->peak_perf * 1e12;
	double t = (double)ops / perf * 1e9;
	if (E->opt->compute_scale)
		t = floor(t * E->opt->compute_scale[u->rank] + 0.5);
	*d = sim_cycles(t);
	return 0;
}

/* ---------------- issue and completion ---------------- */

/* A node that takes d cycles on slot s; gpu_time: it counts as GPU compute
 * (ASTRA-sim's exposed communication subtracts it). */
static void timed(engine *E, npu *u, size_t s, const chakra_node *n, uint64_t d, int gpu_time)
{
	aslot *sl = &u->slots[s];
	if (sl->kind == SLOT_COMM) { /* a replayed broadcast: communication time */
		chakra__sim_comm_begin(E, u);
		u->comm_replay = 1;
	}
	sl->busy = n;
	sl->start = E->now;
	chakra__sim_out_event(E, CHAKRA_SIM_ISSUE, u->rank, n);
	if (sl->kind == SLOT_CPU)
		u->res.cpu = sim_add(u->res.cpu, d);
	else if (gpu_time)
		u->res.compute = sim_add(u->res.compute, d);
	/* ASTRA-sim queues an NPU's timed nodes per tick: the nodes ending at a
	 * tick all end at the place in the event order of the first one
	 * registered for it (a message arriving at that tick, scheduled in
	 * between, comes after all of them). */
	uint64_t t = sim_add(E->now, d);
	int queued = u->in_batch && u->batch_t == t;
	for (size_t k = 0; k < u->nslots && !queued; k++)
		queued = u->slots[k].pending && u->slots[k].done_t == t;
	sl->pending = 1;
	sl->done_t = t;
	sl->reg = ++u->reg_seq;
	if (!queued && heap_push(&E->h, t, EV_COMPUTE, u->rank, NULL, 0))
		chakra__sim_nomem(E);
}

static void issue(engine *E, npu *u, size_t s, const chakra_node *n)
{
	aslot *sl = &u->slots[s];
	uint64_t d = 0;
	int64_t ct;
	switch (chakra_node_type_of(n)) {
	case CHAKRA_COMP_NODE:
		if (E->sys->roofline && sl->kind == SLOT_GPU) {
			int r = roofline_time(E, u, n, &d);
			if (r > 0) {
				chakra__sim_zero_time(E, u, n);
				return;
			}
			if (r < 0)
				d = replay_time(E, u, n);
		} else {
			d = replay_time(E, u, n);
		}
		timed(E, u, s, n, d, sl->kind == SLOT_GPU);
		return;
	case CHAKRA_COMM_COLL_NODE:
		if (chakra_node_comm_type(n, &ct) == 0 && ct == CHAKRA_BROADCAST) {
			/* ASTRA-sim does not simulate broadcasts: it replays them. */
			timed(E, u, s, n, replay_time(E, u, n), 0);
			return;
		}
		if (chakra_node_comm_type(n, &ct) == 0 && ct != CHAKRA_ALL_REDUCE &&
		    ct != CHAKRA_ALL_TO_ALL && ct != CHAKRA_ALL_GATHER && ct != CHAKRA_REDUCE_SCATTER) {
			if (!E->odd_coll++) {
				E->odd_coll_rank = u->rank;
				E->odd_coll_id = chakra_node_id(n);
			}
		}
		sl->busy = n;
		chakra__sim_start_collective(E, u, n);
		return;
	case CHAKRA_COMM_SEND_NODE:
		sl->busy = n;
		chakra__sim_start_p2p(E, u, n, 1);
		return;
	case CHAKRA_COMM_RECV_NODE:
		chakra__sim_start_p2p(E, u, n, 0);
		return;
	default: /* metadata, invalid, memory, unknown: no time */
		chakra__sim_zero_time(E, u, n);
		return;
	}
}

void chakra__sim_astra_call(engine *E, npu *u)
{
	const chakra_node *n;
	int rc = 0;
	if (u->in_call)
		return;
	/* The snapshot: every node ready now. */
	while (!E->failed && (rc = chakra_feeder_next(u->f, &n)) > 0) {
		size_t s = slot_for(E, u, n);
		if (s == (size_t)-1 || nheap_push(&u->slots[s].ready, n)) {
			chakra__sim_nomem(E);
			return;
		}
	}
	if (E->failed)
		return;
	if (rc < 0) {
		chakra__sim_feeder_fail(E, u, rc);
		return;
	}
	/* Ascending id over the snapshot, each node if its slot is free: the
	 * lowest ready id among the free slots, until none is left. */
	u->in_call = 1;
	while (!E->failed) {
		size_t best = (size_t)-1;
		uint64_t bid = 0;
		for (size_t s = 0; s < u->nslots; s++) {
			aslot *sl = &u->slots[s];
			if (!sl->ready.n || (sl->busy && sl->kind != SLOT_NONE))
				continue;
			uint64_t id = nheap_top(&sl->ready);
			if (best == (size_t)-1 || id < bid) {
				best = s;
				bid = id;
			}
		}
		if (best == (size_t)-1)
			break;
		issue(E, u, best, nheap_pop(&u->slots[best].ready));
	}
	u->in_call = 0;
	if (E->opt->finish_cb && !E->failed && !u->finished && !chakra_feeder_has_more(u->f)) {
		u->finished = 1;
		chakra__sim_finished(E, u);
	}
}

static void slot_done(engine *E, npu *u, size_t s)
{
	aslot *sl = &u->slots[s];
	const chakra_node *n = sl->busy;
	sl->busy = NULL;
	if (sl->kind == SLOT_COMM) {
		u->comm_replay = 0;
		chakra__sim_comm_end(E, u);
	}
	int lane = sl->kind == SLOT_CPU ? 2 : sl->kind == SLOT_COMM ? 1 : 0;
	chakra__sim_out_timeline(E, u->rank, lane, n, sl->start);
	chakra__sim_complete(E, u, n);
}

void chakra__sim_astra_batch(engine *E, npu *u)
{
	/* In the order they were registered, those registered meanwhile for
	 * this tick included (a zero-time roofline node). */
	u->in_batch = 1;
	u->batch_t = E->now;
	while (!E->failed) {
		size_t best = (size_t)-1;
		for (size_t k = 0; k < u->nslots; k++) {
			aslot *sl = &u->slots[k];
			if (sl->pending && sl->done_t == E->now &&
			    (best == (size_t)-1 || sl->reg < u->slots[best].reg))
				best = k;
		}
		if (best == (size_t)-1)
			break;
		u->slots[best].pending = 0;
		slot_done(E, u, best);
	}
	u->in_batch = 0;
}

int chakra__sim_astra_diagnose(engine *E, npu *u)
{
	/* Nothing is left to happen: a node the feeder has ready now was
	 * released after the rank's last event, by a node that took no time. */
	const chakra_node *n;
	int rc = chakra_feeder_next(u->f, &n);
	if (rc > 0)
		return chakra__sim_fail(E, "rank %" PRIu32 " node %" PRIu64 " (%s): released by a node "
		                        "that takes no time (metadata, invalid) after the rank's last "
		                        "event; ASTRA-sim issues such nodes only at the rank's next "
		                        "event, so it never runs it and never reports this rank "
		                        "finished (--rules model runs it)", u->rank, chakra_node_id(n),
		                        chakra__sim_node_name(n));
	if (rc < 0) {
		chakra__sim_feeder_fail(E, u, rc);
		return -1;
	}
	return 0;
}

void chakra__sim_astra_free(npu *u)
{
	for (size_t s = 0; s < u->nslots; s++)
		chakra_free(u->slots[s].ready.a);
	chakra_free(u->slots);
	u->slots = NULL;
	u->nslots = u->capslots = 0;
}

int chakra__sim_astra_init(npu *u)
{
	u->capslots = 8;
	u->slots = chakra_calloc(u->capslots, sizeof *u->slots);
	if (!u->slots)
		return -1;
	u->nslots = SLOT_NONE + 1;
	for (int k = 0; k <= SLOT_NONE; k++)
		u->slots[k].kind = k;
	return 0;
}
