/* SPDX-License-Identifier: Apache-2.0 */
/* libchakra-sim engine internals, shared by sim_engine.c (the feeder loop,
 * per-NPU resources, send/recv, outputs), sim_phase.c (collectives:
 * instances, per-dimension servers, phase timing in both network models)
 * and sim_api.c (the public handle). Not a public interface. */
#ifndef CHAKRA_SIM_ENGINE_IMPL_H
#define CHAKRA_SIM_ENGINE_IMPL_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "chakra/chakra.h"
#include "../heap.h"
#include "sim_model.h"

#if defined(__GNUC__)
#  define SIM_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#  define SIM_PRINTF(a, b)
#endif

/* The public handle: a network and system, options, the last results. */
struct chakra_sim {
	int unusable;       /* chakra_sim_new failed: its error; every run refused */
	chakra_sim_network net;
	chakra_sim_system sys;
	chakra_sim_options opt;
	char err[SIM_ERR_LEN];
	chakra_sim_npu_result *res; /* npus entries after a successful run */
	uint32_t npus;
	uint64_t finish, events, nodes;
	uint64_t window, window_bytes; /* chakra_sim_run_prefix: the read-ahead used */
	size_t read_chunk;
	char warning[SIM_ERR_LEN];  /* the last run's warnings, "" if none */
	chakra_sim_rules rules_used; /* of the last run */
};

/* ---------------- small containers ---------------- */

struct inst;

/* A chunk-phase waiting for its dimension's server. */
typedef struct request {
	struct inst *in;
	uint32_t chunk, phase;
} request;

/* FIFO of nodes or requests in a growable ring buffer (one item type, so
 * copies stay inline). */
typedef union qitem {
	const chakra_node *node;
	request req;
} qitem;

typedef struct fifo {
	qitem *buf;
	size_t cap, head, n; /* cap: a power of two */
} fifo;

static inline int fifo_push(fifo *q, qitem item)
{
	if (q->n == q->cap) {
		size_t nc = q->cap ? q->cap * 2 : 8;
		qitem *nb = malloc(nc * sizeof *nb);
		if (!nb)
			return -1;
		for (size_t i = 0; i < q->n; i++)
			nb[i] = q->buf[(q->head + i) & (q->cap - 1)];
		free(q->buf);
		q->buf = nb;
		q->cap = nc;
		q->head = 0;
	}
	q->buf[(q->head + q->n) & (q->cap - 1)] = item;
	q->n++;
	return 0;
}

static inline int fifo_pop(fifo *q, qitem *item)
{
	if (!q->n)
		return 0;
	*item = q->buf[q->head];
	q->head = (q->head + 1) & (q->cap - 1);
	q->n--;
	return 1;
}

/* Events, ordered by time then by the order they were scheduled. */
enum ev_type {
	EV_START,       /* a = rank: the NPU starts (after its start delay) */
	EV_COMPUTE,     /* a = rank: its compute node finished */
	EV_PHASE,       /* p = instance, b = chunk/phase/ring-wide, a = rank */
	EV_SEND,        /* tree steps: p = phase run, a = member, b = step */
	EV_HOP,         /* aware: p = message reaches its next device */
	EV_PGEN,        /* protocol: p = phase run, a = member: a packet is ready */
	EV_PRECV,       /* protocol: p = phase run, a = member: a receive completes */
	EV_PARR,        /* protocol, unaware: p = phase run, a = member, b = k: arrival */
	EV_P2P_SENT,    /* p = p2p op: a send or recv node completes */
	EV_COLL_DONE    /* a = rank: a collective with nothing to exchange */
};

/* Events run in time order; at one time, in the order they were
 * scheduled: by the time they were scheduled (reg), then by sequence. reg
 * is the time of the push except where ASTRA-sim would have scheduled the
 * event earlier than the engine does (a collective timed in closed form). */
typedef struct event {
	uint64_t t, reg, seq;
	void *p;
	uint64_t b;
	uint32_t a;
	uint32_t type;
} event;

typedef struct heap {
	event *e;
	size_t n, cap;
	uint64_t seq;
	uint64_t now;               /* the time of the event being handled */
} heap;

static inline int ev_less(const event *x, const event *y)
{
	return x->t < y->t ||
	       (x->t == y->t && (x->reg < y->reg || (x->reg == y->reg && x->seq < y->seq)));
}

CHAKRA__HEAP_DEFINE(ev_heap, event, ev_less)

static inline int heap_push_reg(heap *h, uint64_t t, uint64_t reg, uint32_t type, uint32_t a,
                                void *p, uint64_t b)
{
	if (h->n == h->cap) {
		size_t nc = h->cap ? h->cap * 2 : 256;
		event *ne = realloc(h->e, nc * sizeof *ne);
		if (!ne)
			return -1;
		h->e = ne;
		h->cap = nc;
	}
	event ev = { t, reg, h->seq++, p, b, a, type };
	ev_heap_push(h->e, &h->n, ev);
	return 0;
}

/* Scheduled now: (reg, seq) then orders as seq alone did. */
static inline int heap_push(heap *h, uint64_t t, uint32_t type, uint32_t a, void *p, uint64_t b)
{
	return heap_push_reg(h, t, h->now, type, a, p, b);
}

static inline event heap_pop(heap *h)
{
	return ev_heap_pop(h->e, &h->n);
}

/* ---------------- model state ---------------- */

struct engine;

/* One collective, shared by the NPUs that issue it: the k-th collective an
 * NPU issues over the same dimensions (or group) is the k-th of its peers. */
typedef struct inst {
	struct inst *next;
	int kind;                   /* 0: dimension mask, 1: communicator group */
	uint32_t key, seq;
	int64_t comm_type;
	uint64_t comm_size;
	uint32_t first_rank;        /* who created it, for mismatch messages */
	const chakra_sim_group *group;
	uint32_t chunks;
	int nph;
	sim_phase ph[2 * SIM_MAX_DIMS];
	/* Per (chunk, phase): start time per rank and members arrived per
	 * ring (indexed by the ring's base rank); congestion-aware: the
	 * ring's phase run (by base rank). */
	uint64_t *start;
	uint32_t *count;
	struct phase_run **run;
	size_t slots;               /* allocated (chunk, phase) * npus */
	uint32_t refs;              /* NPUs inside it */
} inst;

typedef struct p2p_op {
	struct p2p_op *next;
	const chakra_node *node;
	uint64_t node_id;
	uint32_t rank, peer;
	int64_t tag;
	double bytes;
	uint64_t size;              /* comm_size (ASTRA-sim matches on it) */
	uint64_t start, arrived;
	int is_send, has_arrived;
} p2p_op;

/* ASTRA-sim's workload rules (sim_rules.c): the resources a node can take.
 * A CPU node (is_cpu_op) takes the CPU slot, a GPU compute node the GPU
 * slot, any other node but a receive the communication slot; receives
 * take none. With streams, every CPU thread and GPU stream is a slot. */
enum { SLOT_CPU = 0, SLOT_GPU = 1, SLOT_COMM = 2, SLOT_NONE = 3 };

typedef struct nheap {           /* nodes, lowest id first (sim_rules.c) */
	void *a;
	size_t n, cap;
} nheap;

typedef struct aslot {
	int kind;                    /* SLOT_* */
	int64_t k1, k2;              /* streams: tid, or device and stream */
	const chakra_node *busy;     /* the timed node in flight, or NULL */
	uint64_t start;
	int pending;                 /* its node ends at done_t (registered as reg) */
	uint64_t done_t, reg;
	nheap ready;                 /* ready, not issued yet */
} aslot;

typedef struct npu {
	chakra_feeder *f;
	uint32_t rank;
	const chakra_node *comp;    /* compute in flight */
	uint64_t comp_start;
	fifo comp_q;                /* nodes waiting for compute */
	const chakra_node *coll;    /* collective in flight */
	inst *coll_in;
	uint64_t coll_start;
	uint32_t chunks_left;
	fifo coll_q;
	uint32_t busy[SIM_MAX_DIMS + 1];
	fifo wait[SIM_MAX_DIMS + 1]; /* requests per server */
	uint32_t *seq_mask, *seq_group;
	p2p_op *recvs, **recvs_tail; /* posted receives (oldest first) */
	p2p_op *arrived, **arrived_tail; /* oldest first */
	uint32_t p2p_inflight;
	uint64_t comm_since;        /* start of the current communication span */
	int finished;               /* finish_cb called */
	chakra_sim_npu_result res;
	/* ASTRA-sim rules (sim_rules.c): */
	aslot *slots;               /* CPU, GPU, COMM, NONE first, then stream slots */
	size_t nslots, capslots;
	size_t last_slot;           /* streams: where the last lookup landed */
	int in_call;                /* inside its issue loop */
	int comm_replay;            /* a replayed broadcast holds the communication slot */
	uint64_t reg_seq;           /* registrations of timed nodes, in order */
	int in_batch;               /* ending the timed nodes of tick batch_t */
	uint64_t batch_t;
} npu;

/* A member's protocol counters (sim_coll.c): packets inserted and ready,
 * messages sent (= receives posted) and received. */
typedef struct pmember {
	uint64_t ins, gen, sent, recv;
	int done;
} pmember;

/* How a phase run is timed: message by message in global time (aware:
 * links), or offline when the last member arrives (unaware: fixed
 * delays), for every member or, when they all start together on a
 * symmetric dimension, for member 0 alone. */
enum { PR_AWARE = 0, PR_OFFLINE, PR_SYMMETRIC };

/* One phase of one chunk on one ring (or group). */
typedef struct phase_run {
	struct phase_run *prev, *next; /* live runs, freed on errors */
	inst *in;
	const sim_phase *ph;
	uint32_t chunk, phase, base, n, members_done;
	int mode;
	heap *h;                    /* where its events go */
	uint64_t *finish;           /* offline: each member's end */
	uint32_t *rank;             /* member -> rank */
	/* Protocol classes: */
	pmember *m;
	uint64_t *early;            /* bit [member * words * 64 + k]: arrived before posted */
	size_t words;
	/* Tree steps: */
	uint64_t steps;
	int *started;
	uint64_t *p_last;           /* finish of the member's last step */
	uint64_t *done;             /* steps finished per member */
	uint64_t *arr_max;          /* [member * steps + step] */
	uint32_t *arr_cnt;
} phase_run;

typedef struct msg {
	sim_hop hop;
	double bytes;
	phase_run *pr;              /* NULL: a p2p message */
	p2p_op *op;
	uint32_t member;
	uint64_t step;
	int arrived;
} msg;

typedef struct engine {
	const chakra_sim_network *net;
	const chakra_sim_system *sys;
	const chakra_sim_options *opt;
	uint32_t N;
	npu *npu;
	heap h;
	sim_links *links;
	inst *live, *pool;
	phase_run *runs;
	uint32_t **group_pos;       /* per group: rank -> member index */
	int *group_mask;            /* per group: its dimensions, or -1: not aligned */
	uint32_t *ring0;            /* [rank * ndims + d]: first rank of its ring in d */
	uint64_t now, nodes_done;
	int failed;
	int code;                   /* the chakra_error of the failure */
	char *err;
	size_t errlen;
	uint32_t *tmp_src;
	uint64_t *tmp_a, *tmp_b;
	chakra_sim_group all;       /* every NPU in rank order: the oneRing family */
	uint64_t odd_types, odd_id;  /* nodes of an unknown type, the first one */
	uint32_t odd_rank;
	int odd_type;
	int tree_used;              /* a doubleBinaryTree phase ran */
	/* The rules of this run (sim_rules.c): */
	int astra;                  /* ASTRA-sim's workload rules, else the model's */
	int nanos;                  /* durations from duration_nanos when present */
	int streams;                /* ASTRA-sim rules with a slot per thread / stream */
	uint64_t cpu_comm, cpu_comm_id, odd_coll, odd_coll_id, no_roofline, no_roofline_id;
	uint32_t cpu_comm_rank, odd_coll_rank, no_roofline_rank;
} engine;

/* The first rank of the ring that holds rank in phase ph, and member j of
 * the ring that starts at base. */
static inline uint32_t ring_base(engine *E, const inst *in, const sim_phase *ph, uint32_t rank)
{
	if (ph->dim < 0)
		return in->group->ranks[0];
	return E->ring0[(size_t)rank * (size_t)E->net->ndims + (size_t)ph->dim];
}

static inline uint32_t member_rank(engine *E, const inst *in, const sim_phase *ph, uint32_t base,
                            uint32_t j)
{
	if (ph->dim < 0)
		return in->group->ranks[j];
	return base + j * E->net->stride[ph->dim];
}

/* The inverse: rank's member index in phase ph (of the ring at base). */
static inline uint32_t member_index(engine *E, const inst *in, const sim_phase *ph,
                                    uint32_t base, uint32_t rank)
{
	if (ph->dim >= 0)
		return (rank - base) / E->net->stride[ph->dim];
	if (in->group == &E->all)
		return rank;
	return E->group_pos[in->group - E->opt->groups->g][rank];
}

/* sim_api.c: the rules a run follows (rank0: the metadata of rank 0). */
chakra_sim_rules chakra__sim_rules_for(const chakra_sim *s, const chakra_metadata *rank0);

/* sim_workload.c: a prefix's feeders, each reading through a callback of
 * at most `chunk` bytes, with windows from the memory budget. */
#define CHAKRA_SIM_MAX_WINDOW 16384 /* the feeder's default */
typedef struct sim_src {
	int fd;
	size_t chunk;
	char *name;
} sim_src;
typedef struct sim_workload {
	size_t n;
	chakra_feeder **f;
	sim_src *src;
	size_t chunk;
	uint64_t window, window_bytes;
	int window_cut;             /* ASTRA-sim rules, but the traces exceed the read-ahead */
} sim_workload;
void chakra__sim_budget(uint64_t memory, size_t ranks, double node_bytes, size_t *chunk,
                        uint64_t *window, uint64_t *window_bytes);
int chakra__sim_workload_open(chakra_sim *S, const char *prefix, sim_workload *w, char *err,
                              size_t errlen);
void chakra__sim_workload_close(sim_workload *w);

/* sim_engine.c */
/* Record the first failure (message, CHAKRA_EINVAL unless set); -1. */
int chakra__sim_fail(engine *E, const char *fmt, ...) SIM_PRINTF(2, 3);
int chakra__sim_nomem(engine *E); /* CHAKRA_ENOMEM */
/* The feeder's own error (a stall, a damaged file), with its code. */
void chakra__sim_feeder_fail(engine *E, npu *u, int rc);
const char *chakra__sim_node_name(const chakra_node *n);
void chakra__sim_out_event(engine *E, int what, uint32_t rank, const chakra_node *n);
void chakra__sim_out_timeline(engine *E, uint32_t rank, int thread, const chakra_node *n,
                              uint64_t start);
void chakra__sim_comm_begin(engine *E, npu *u);
void chakra__sim_comm_end(engine *E, npu *u);
/* The node finished now: release its children and issue what is ready. */
void chakra__sim_complete(engine *E, npu *u, const chakra_node *n);
void chakra__sim_try_collective(engine *E, npu *u);
void chakra__sim_p2p_arrived(engine *E, p2p_op *send);
void chakra__sim_start_p2p(engine *E, npu *u, const chakra_node *n, int is_send);
/* Run the engine on one feeder per NPU, under ASTRA-sim's workload rules
 * or the model's; results into S. 0 or a negative chakra_error with S->err
 * set. */
int chakra__sim_engine_run(chakra_sim *S, chakra_feeder *const *feeders, int astra);

/* sim_rules.c: ASTRA-sim's workload rules. */
/* An NPU's "call": take every node its feeder has ready, then issue them in
 * ascending id, each if its slot is free (ASTRA-sim's issue_dep_free_nodes). */
void chakra__sim_astra_call(engine *E, npu *u);
/* The timed nodes of this NPU that end now (one event per NPU and tick). */
void chakra__sim_astra_batch(engine *E, npu *u);
/* Nodes left when nothing else can happen: the error, or 0. */
int chakra__sim_astra_diagnose(engine *E, npu *u);
int chakra__sim_astra_init(npu *u);
void chakra__sim_astra_free(npu *u);
/* Does this metadata say the trace was converted from a recording? */
int chakra__sim_recorded(const chakra_metadata *m);

/* sim_phase.c */
void chakra__sim_start_collective(engine *E, npu *u, const chakra_node *n);
void chakra__sim_finish_collective(engine *E, npu *u);
void chakra__sim_phase_done(engine *E, inst *in, uint32_t chunk, uint32_t p, uint32_t rank);
/* A phase-run event (EV_SEND, EV_PGEN, EV_PRECV, EV_PARR) now. */
void chakra__sim_pr_event(engine *E, phase_run *pr, uint32_t type, uint32_t j, uint64_t b);
void chakra__sim_on_hop(engine *E, msg *m);
void chakra__sim_send_msg(engine *E, uint32_t from, uint32_t to, double bytes, phase_run *pr,
                  p2p_op *op, uint32_t member, uint64_t step);
void chakra__sim_pr_free(engine *E, phase_run *pr);

#endif
