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
#include "../modmem.h"

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
	chakra_sim_options opt;     /* groups, compute_scale, start_delay: the copies below */
	chakra_sim_groups groups;   /* the caller's groups, copied */
	double *scale;              /* ... and per-NPU arrays (NULL: none given) */
	uint64_t *delay;
	char err[SIM_ERR_LEN];
	chakra_sim_npu_result *res; /* npus entries after a successful run */
	uint32_t npus;
	uint64_t finish, events, nodes;
	uint64_t window, window_bytes; /* chakra_sim_run_prefix: the read-ahead used */
	size_t read_chunk;
	char warning[SIM_ERR_LEN];  /* the last run's warnings, "" if none */
	chakra_sim_rules rules_used; /* of the last run */
	/* The symmetry reduction of the last chakra_sim_run_prefix (sim_sym.c):
	 * the classes it simulated one NPU of (sym_n), or why it simulated every
	 * NPU (sym_note, "" when it did not try). cls/rep stay for the outputs. */
	uint32_t sym_n;             /* NPUs simulated: classes, or every NPU */
	int sym_outputs;            /* the reduced run's outputs are asked (event_cb, span_cb) */
	uint32_t *sym_cls, *sym_rep; /* rank -> class, class -> representative; NULL: none */
	char sym_note[SIM_ERR_LEN];
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
		qitem *nb = chakra_malloc(nc * sizeof *nb);
		if (!nb)
			return -1;
		for (size_t i = 0; i < q->n; i++)
			nb[i] = q->buf[(q->head + i) & (q->cap - 1)];
		chakra_free(q->buf);
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

/* The symmetry reduction (sim_sym.c; docs/sim.md, "Symmetry"): ranks in
 * classes that run the same trace from equivalent places, one simulated
 * per class (its lowest rank, the representative). */
typedef struct sim_sym {
	uint32_t n, nclasses;
	uint32_t *cls;              /* rank -> class */
	uint32_t *rep;              /* class -> its representative */
	uint32_t *first, *members;  /* class c's ranks: members[first[c] .. first[c+1]) */
} sim_sym;
struct sym_state;               /* the reduction's checks during a run (sim_sym.c) */

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
 * event earlier than the engine does (a collective timed in closed form).
 * seq counts pushes in blocks (SEQ_BLOCK_BITS): every event handled starts
 * a block, so the reduction can tell which handling scheduled an event
 * (sim_sym.c); the order is unchanged. */
typedef struct event {
	uint64_t t, reg, seq;
	void *p;
	uint64_t b;
	uint32_t a;
	uint32_t type;
	uint64_t org;               /* who scheduled it (the reduction's tie check: ORG_*) */
	uint64_t preg;              /* the reg of the event whose handling scheduled it */
} event;

/* Who scheduled an event, for the reduction (sim_sym.c): 0, the handling of
 * the rank's (or member's) own event; else another rank's handling: a ring
 * completed by its last member (ORG_RING | handling's block | ring), a
 * message (ORG_MSG | sender), a send's end at its arrival (ORG_SENT |
 * sender). */
#define ORG_RING ((uint64_t)1 << 62)
#define ORG_MSG ((uint64_t)2 << 62)
#define ORG_SENT ((uint64_t)3 << 62)
/* And whether another rank's handling is among the events that scheduled
 * it, back to the start (its place among the events of its time and reg,
 * between ranks, is then not known to be the full simulation's). */
#define ORG_TAINT ((uint64_t)1 << 61)

typedef struct heap {
	event *e;
	size_t n, cap;
	uint64_t seq;
	uint64_t now;               /* the time of the event being handled */
	uint64_t org;               /* what the events pushed now get (0 but in reduced runs) */
	uint64_t taint;             /* ORG_TAINT when the event being handled has it, or an org */
	uint64_t preg;              /* the reg of the event being handled */
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
		event *ne = chakra_realloc(h->e, nc * sizeof *ne);
		if (!ne)
			return -1;
		h->e = ne;
		h->cap = nc;
	}
	event ev = { t, reg, h->seq++, p, b, a, type, h->org | h->taint, h->preg };
	ev_heap_push(h->e, &h->n, ev);
	return 0;
}

/* Scheduled now: (reg, seq) then orders as seq alone did. */
static inline int heap_push(heap *h, uint64_t t, uint32_t type, uint32_t a, void *p, uint64_t b)
{
	return heap_push_reg(h, t, h->now, type, a, p, b);
}

#define SEQ_BLOCK_BITS 24
/* The pushes from here on are another block (another handling). */
static inline void heap_new_block(heap *h)
{
	h->seq = ((h->seq >> SEQ_BLOCK_BITS) + 1) << SEQ_BLOCK_BITS;
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
	uint32_t width;             /* NPUs its bookkeeping has room for: its group's, or all */
	uint32_t chunks;
	int nph;
	sim_phase ph[2 * SIM_MAX_DIMS];
	/* Per (chunk, phase): start time per rank and members arrived per
	 * ring (indexed by the ring's base rank; a group's by their places in
	 * it: inst_pos); congestion-aware: the ring's phase run (by base). */
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
	int64_t v0;                 /* the peer as its class file writes it */
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
	uint32_t *seq_mask;         /* collectives issued per dimension mask */
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
	/* The reduction: the last event of this NPU (time, reg, org, preg, type). */
	uint64_t tie[5];
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
	/* The reduction, congestion-aware: each member's end (a class must end
	 * together: same[j] is the first member of j's class), the last event
	 * of each member not simulated (time, reg, org, preg, type: the tie check), and
	 * the ring's entry in the reduction's table. */
	uint64_t *fin, *tie;
	uint32_t *same;
	struct sym_ring *ring;
} phase_run;

typedef struct msg {
	sim_hop hop;
	double bytes;
	phase_run *pr;              /* NULL: a p2p message */
	p2p_op *op;
	uint32_t member;
	uint64_t step;
	int arrived;
	uint64_t org;               /* ORG_MSG | its sender (reduced runs) */
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
	int *group_mask;            /* per group: its dimensions, or -1: not aligned */
	/* Group lookups: name -> group (gname, open addressing, index + 1) and
	 * (group, rank) -> member index (gpos: keys group << 32 | rank). */
	uint32_t *gname;
	size_t gname_cap;
	uint64_t *gpos_key;
	uint32_t *gpos_val;
	uint32_t *gpos_seq;         /* (group, rank): the collectives the rank issued over it */
	size_t gpos_cap;
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
	/* The workload's rank map: each rank's peers and groups (the engine
	 * substitutes them; feeders read the class files as written). */
	const chakra_rank_map *map;
	/* The symmetry reduction (sim_sym.c): one NPU per class is simulated
	 * (npu[] holds the representatives, by class) and every interaction is
	 * checked to be one the full simulation would have; asym: it is not,
	 * and the run stops (err says why) to be redone in full. */
	const sim_sym *sym;
	uint32_t nsim;              /* NPUs simulated (npu[]) */
	struct sym_state *ss;
	int asym;
	int sym_outputs;            /* outputs are asked: their order between ranks is checked */
	const event *cur;           /* the event being handled */
	uint32_t *reps;             /* scratch: a ring's simulated members */
	uint32_t nreps;
} engine;

/* The simulated NPU of a rank: itself, or (reduced) its class's
 * representative. */
static inline npu *npu_of(engine *E, uint32_t rank)
{
	return E->sym ? &E->npu[E->sym->cls[rank]] : &E->npu[rank];
}

/* Is rank simulated (every rank, or a representative)? */
static inline int sim_simulated(const engine *E, uint32_t rank)
{
	return !E->sym || E->sym->rep[E->sym->cls[rank]] == rank;
}

/* sim_engine.c: group lookups (a file of 16,384 groups is searched per
 * collective): the group named name (NULL if none), and rank's member
 * index in group g (UINT32_MAX: not a member). */
const chakra_sim_group *chakra__sim_group_find(engine *E, const char *name, size_t len);
uint32_t chakra__sim_group_pos(engine *E, uint32_t g, uint32_t rank);
/* The count of collectives rank issued over group g (a member: NULL if not). */
uint32_t *chakra__sim_group_seq(engine *E, uint32_t g, uint32_t rank);

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
	return chakra__sim_group_pos(E, (uint32_t)(in->group - E->opt->groups->g), rank);
}

/* sim_api.c: the rules a run follows (rank0: the metadata of rank 0). */
chakra_sim_rules chakra__sim_rules_for(const chakra_sim *s, const chakra_metadata *rank0);

/* sim_workload.c: a workload's ranks (PREFIX.r.et files, or a rank map),
 * their classes, and their feeders, each reading through a callback of at
 * most `chunk` bytes, with windows from the memory budget. */
#define CHAKRA_SIM_MAX_WINDOW 16384 /* the feeder's default */
typedef struct sim_src {
	int fd;
	size_t chunk;
	char *name;
} sim_src;
typedef struct sim_workload {
	size_t n;                   /* ranks */
	char *prefix;
	chakra_rank_map *map;       /* a rank map, or NULL: PREFIX.r.et files */
	chakra_feeder **f;          /* every rank's, or the representatives' (nf) */
	sim_src *src;
	size_t nf;
	size_t chunk;
	uint64_t window, window_bytes;
	int window_cut;             /* ASTRA-sim rules, but the traces exceed the read-ahead */
	int recorded;               /* rank 0's metadata says it was converted from a recording */
} sim_workload;
void chakra__sim_budget(uint64_t memory, size_t ranks, double node_bytes, size_t *chunk,
                        uint64_t *window, uint64_t *window_bytes);
/* Finds the ranks and sizes the reads and windows; opens no feeder. */
int chakra__sim_workload_open(chakra_sim *S, const char *prefix, sim_workload *w, char *err,
                              size_t errlen);
/* Opens the feeders: every rank's (sym NULL), or the representatives'. */
int chakra__sim_workload_feeders(chakra_sim *S, sim_workload *w, const sim_sym *sym, char *err,
                                 size_t errlen);
void chakra__sim_workload_close_feeders(sim_workload *w);
void chakra__sim_workload_close(sim_workload *w);
/* The classes of the workload's ranks (same trace: the same class of a
 * rank map, or the same file or bytes; the same start delay and compute
 * scale): 0 with sym filled when there are fewer than ranks, 1 when there
 * is nothing to reduce (why in note), or an error. */
int chakra__sim_classes(chakra_sim *S, sim_workload *w, sim_sym *sym, char *note, size_t notelen,
                        char *err, size_t errlen);
void chakra__sim_sym_free(sim_sym *sym);

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
/* A node that takes no time, completed as it issues (its events, counts
 * and the feeder told); a node type outside the schema is noted for the
 * run's report. Its children are not issued here: the caller's loop or
 * the NPU's next event takes them. */
void chakra__sim_zero_time(engine *E, npu *u, const chakra_node *n);
/* u completed its last node: finish_cb (for its whole class, reduced). */
void chakra__sim_finished(engine *E, npu *u);
void chakra__sim_try_collective(engine *E, npu *u);
void chakra__sim_p2p_arrived(engine *E, p2p_op *send);
void chakra__sim_start_p2p(engine *E, npu *u, const chakra_node *n, int is_send);
/* Run the engine on one feeder per NPU, under ASTRA-sim's workload rules
 * or the model's; results into S. 0 or a negative chakra_error with S->err
 * set. */
int chakra__sim_engine_run(chakra_sim *S, chakra_feeder *const *feeders, int astra);
/* The same with a rank map (each rank's peers and groups), and reduced:
 * feeders are the representatives' (one per class, in class order); a run
 * the reduction finds not symmetric returns CHAKRA_ESTATE with the reason
 * in S->err. */
int chakra__sim_engine_run_ex(chakra_sim *S, chakra_feeder *const *feeders, int astra,
                              const chakra_rank_map *map, const sim_sym *sym);

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

/* sim_sym.c: the symmetry reduction during a run (docs/sim.md, "Symmetry").
 * A ring of a reduced run: its members' start times as their classes
 * arrive, or (congestion-aware) its phase run. */
typedef struct sym_ring {
	const inst *in;
	uint32_t chunk, phase, base;
	uint32_t count;             /* members arrived */
	uint64_t *start;            /* per member, as its class arrived */
	phase_run *run;
} sym_ring;
int chakra__sym_init(engine *E);
void chakra__sym_free(engine *E);
/* The workload is not symmetric after all (why: fmt): the run stops, -1. */
int chakra__sym_fail(engine *E, const char *fmt, ...) SIM_PRINTF(2, 3);
/* The event being handled is one of simulated rank's (or of a member of a
 * congestion-aware run, or takes a link), of kind type (EV_*): a second one
 * at the same time and reg scheduled by another rank's handling would run
 * in the full simulation's order between ranks, which the reduction does not
 * know: not symmetric. */
void chakra__sym_tie(engine *E, uint32_t rank, uint32_t type);
void chakra__sym_tie_key(engine *E, uint64_t *last, const char *what, uint32_t who,
                         uint32_t type);
void chakra__sym_tie_link(engine *E, size_t link);
/* The origin of the events a ring's completion schedules now (ORG_RING):
 * the same for rings of the same members completed in one handling, whose
 * last member is then the same one. */
uint64_t chakra__sym_ring_org(engine *E, const inst *in, const sim_phase *ph, uint32_t base);
/* The first member of each member's class in a ring (same[j], n members of
 * the phase at base); -1 when out of memory. Members of one class must end
 * a phase together: chakra__sym_same_end checks fin[] (0: they do not). */
int chakra__sym_same(engine *E, const inst *in, const sim_phase *ph, uint32_t base, uint32_t *same);
int chakra__sym_same_end(engine *E, const phase_run *pr, const uint64_t *fin, const uint32_t *same);
/* May the reduction run rank's class on dimension d (1; *uniform when its
 * rings hold that class alone), or over group g (the class file's name for
 * it: pg, len)? 0: not symmetric (failed). */
int chakra__sym_dim(engine *E, int d, uint32_t rank, int *uniform);
int chakra__sym_group(engine *E, uint32_t rank, const char *pg, size_t len,
                      const chakra_sim_group *g);
/* A representative's send to (or receive from) peer, written v0 in its
 * class file: 1 when every rank of its class has the equivalent peer. */
int chakra__sym_p2p(engine *E, uint32_t rank, int64_t v0, uint32_t peer, int is_send);
/* A send met its receive: every rank of the sender's class meets its own. */
int chakra__sym_pair(engine *E, const p2p_op *send, const p2p_op *recv);
/* The state of a ring in a reduced run (created when create; NULL when
 * absent or out of memory), and its end. */
sym_ring *chakra__sym_ring(engine *E, const inst *in, uint32_t chunk, uint32_t p, uint32_t base,
                           int create);
void chakra__sym_ring_drop(engine *E, sym_ring *r);
/* Rank maps: rank's own value of a class-file peer, and of a group name. */
int64_t chakra__sim_peer(engine *E, uint32_t rank, int64_t v0);
const char *chakra__sim_pg(engine *E, uint32_t rank, const char *pg, size_t *len);

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
