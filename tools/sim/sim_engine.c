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
 * every message crosses FIFO links as events (sim_net.c). */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "chakra/chakra.h"
#include "common.h"
#include "sim.h"

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

static int fifo_push(fifo *q, qitem item)
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

static int fifo_pop(fifo *q, qitem *item)
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
	EV_SEND,        /* aware: p = phase run, a = member, b = step */
	EV_HOP,         /* aware: p = message reaches its next device */
	EV_P2P_SENT,    /* p = p2p op: a send or recv node completes */
	EV_COLL_DONE    /* a = rank: a collective with nothing to exchange */
};

typedef struct event {
	uint64_t t, seq;
	void *p;
	uint64_t b;
	uint32_t a;
	uint32_t type;
} event;

typedef struct heap {
	event *e;
	size_t n, cap;
	uint64_t seq;
} heap;

static int ev_less(const event *x, const event *y)
{
	return x->t < y->t || (x->t == y->t && x->seq < y->seq);
}

static int heap_push(heap *h, uint64_t t, uint32_t type, uint32_t a, void *p, uint64_t b)
{
	if (h->n == h->cap) {
		size_t nc = h->cap ? h->cap * 2 : 256;
		event *ne = realloc(h->e, nc * sizeof *ne);
		if (!ne)
			return -1;
		h->e = ne;
		h->cap = nc;
	}
	event ev = { t, h->seq++, p, b, a, type };
	size_t i = h->n++;
	while (i) {
		size_t parent = (i - 1) / 2;
		if (!ev_less(&ev, &h->e[parent]))
			break;
		h->e[i] = h->e[parent];
		i = parent;
	}
	h->e[i] = ev;
	return 0;
}

static event heap_pop(heap *h)
{
	event top = h->e[0], last = h->e[--h->n];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && ev_less(&h->e[c + 1], &h->e[c]))
			c++;
		if (!ev_less(&h->e[c], &last))
			break;
		h->e[i] = h->e[c];
		i = c;
	}
	if (h->n)
		h->e[i] = last;
	return top;
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
	const sim_group *group;
	uint32_t chunks;
	int nph;
	sim_phase ph[2 * SIM_MAX_DIMS];
	/* Per (chunk, phase): start time per rank and members arrived per
	 * ring (indexed by the ring's base rank). */
	uint64_t *start;
	uint32_t *count;
	size_t slots;               /* allocated (chunk, phase) * npus */
	uint32_t refs;              /* NPUs inside it */
} inst;

typedef struct p2p_op {
	struct p2p_op *next;
	const chakra_node *node;
	uint32_t rank, peer;
	int64_t tag;
	double bytes;
	uint64_t start, arrived;
	int is_send, has_arrived;
} p2p_op;

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
	p2p_op *recvs;              /* posted receives, and arrived unmatched sends */
	p2p_op *arrived;
	uint32_t p2p_inflight;
	uint64_t comm_since;        /* start of the current communication span */
	sim_npu_result res;
} npu;

/* Congestion-aware: one phase on one ring, message by message. */
typedef struct phase_run {
	struct phase_run *prev, *next; /* live runs, freed on errors */
	inst *in;
	uint32_t chunk, phase, base, n, members_done;
	uint64_t steps;
	uint32_t *rank;             /* member -> rank */
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
	const sim_network *net;
	const sim_system *sys;
	const sim_options *opt;
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
	char *err;
	size_t errlen;
	uint32_t *tmp_src;
	uint64_t *tmp_a, *tmp_b;
	tool_progress prog;
} engine;

static int eng_fail(engine *E, const char *fmt, ...) TOOL_PRINTF(2, 3);
static int eng_fail(engine *E, const char *fmt, ...)
{
	if (E->failed)
		return -1;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(E->err, E->errlen, fmt, ap);
	va_end(ap);
	E->failed = 1;
	return -1;
}

static const char *node_name(const chakra_node *n)
{
	size_t len;
	const char *s = chakra_node_name(n, &len);
	return s ? s : "";
}

/* ---------------- outputs ---------------- */

static void out_csv(engine *E, const char *what, uint32_t rank, const chakra_node *n)
{
	if (!E->opt->events)
		return;
	fprintf(E->opt->events, "%s,npu_id=%" PRIu32 ",cycle=%" PRIu64 ",node_id=%" PRIu64
	        ",node_name=", what, rank, E->now, chakra_node_id(n));
	/* One event a line; the name is the rest of the line (commas allowed). */
	for (const char *s = node_name(n); *s; s++)
		fputc(*s == '\n' || *s == '\r' ? ' ' : *s, E->opt->events);
	fputc('\n', E->opt->events);
}

static void out_timeline(engine *E, uint32_t rank, int thread, const chakra_node *n,
                         uint64_t start)
{
	FILE *f = E->opt->timeline;
	if (!f)
		return;
	fprintf(f, ",\n{\"ph\":\"X\",\"pid\":%" PRIu32 ",\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f,"
	        "\"name\":\"", rank, thread, (double)start / 1000.0,
	        (double)(E->now - start) / 1000.0);
	for (const unsigned char *s = (const unsigned char *)node_name(n); *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if (*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fprintf(f, "\",\"args\":{\"node_id\":%" PRIu64 "}}", chakra_node_id(n));
}

/* ---------------- node flow ---------------- */

static void pump(engine *E, npu *u);
static int zero_cost(const chakra_node *n);

static void comm_begin(engine *E, npu *u)
{
	if (!u->coll && !u->p2p_inflight)
		u->comm_since = E->now;
}

static void comm_end(engine *E, npu *u)
{
	if (!u->coll && !u->p2p_inflight)
		u->res.comm_busy += E->now - u->comm_since;
}

/* The node finished now: release its children and issue what is ready. */
static void complete(engine *E, npu *u, const chakra_node *n)
{
	out_csv(E, "callback", u->rank, n);
	u->res.nodes++;
	u->res.finish = E->now;
	E->nodes_done++;
	if ((E->nodes_done & 0xffff) == 0)
		tool_progress_update(&E->prog, E->nodes_done);
	int rc = chakra_feeder_complete(u->f, chakra_node_id(n));
	if (rc < 0) {
		eng_fail(E, "rank %" PRIu32 ": %s", u->rank, chakra_feeder_errmsg(u->f));
		return;
	}
	pump(E, u);
}

static uint64_t compute_time(engine *E, npu *u, const chakra_node *n)
{
	uint64_t ns, ops, bytes;
	double t;
	if (chakra_node_get_uint(n, "duration_nanos", &ns) == 0) {
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
	return (uint64_t)t;
}

static void try_compute(engine *E, npu *u)
{
	qitem q;
	if (u->comp || !fifo_pop(&u->comp_q, &q))
		return;
	const chakra_node *n = q.node;
	u->comp = n;
	u->comp_start = E->now;
	out_csv(E, "issue", u->rank, n);
	uint64_t d = compute_time(E, u, n);
	u->res.compute += d;
	if (heap_push(&E->h, E->now + d, EV_COMPUTE, u->rank, NULL, 0))
		eng_fail(E, "out of memory");
}

static void start_collective(engine *E, npu *u, const chakra_node *n);

static void try_collective(engine *E, npu *u)
{
	qitem q;
	if (u->coll || !fifo_pop(&u->coll_q, &q))
		return;
	start_collective(E, u, q.node);
}

static void start_p2p(engine *E, npu *u, const chakra_node *n, int is_send);

static void dispatch(engine *E, npu *u, const chakra_node *n)
{
	switch (chakra_node_type_of(n)) {
	case CHAKRA_COMP_NODE:
		if (fifo_push(&u->comp_q, (qitem){ .node = n }))
			eng_fail(E, "out of memory");
		try_compute(E, u);
		break;
	case CHAKRA_COMM_COLL_NODE:
		if (fifo_push(&u->coll_q, (qitem){ .node = n }))
			eng_fail(E, "out of memory");
		try_collective(E, u);
		break;
	case CHAKRA_COMM_SEND_NODE:
		start_p2p(E, u, n, 1);
		break;
	case CHAKRA_COMM_RECV_NODE:
		start_p2p(E, u, n, 0);
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
	while (!E->failed && (rc = chakra_feeder_next(u->f, &n)) > 0) {
		if (!zero_cost(n)) {
			dispatch(E, u, n);
			continue;
		}
		/* Completed in place: releasing children here keeps long chains
		 * of such nodes from recursing. */
		out_csv(E, "issue", u->rank, n);
		out_csv(E, "callback", u->rank, n);
		u->res.nodes++;
		u->res.finish = E->now;
		E->nodes_done++;
		if (chakra_feeder_complete(u->f, chakra_node_id(n)) < 0)
			eng_fail(E, "rank %" PRIu32 ": %s", u->rank, chakra_feeder_errmsg(u->f));
	}
	if (!E->failed && rc < 0)
		eng_fail(E, "rank %" PRIu32 ": %s", u->rank, chakra_feeder_errmsg(u->f));
}

/* ---------------- collectives ---------------- */

static uint32_t ring_base(engine *E, const inst *in, const sim_phase *ph, uint32_t rank)
{
	if (ph->dim < 0)
		return in->group->ranks[0];
	return E->ring0[(size_t)rank * (size_t)E->net->ndims + (size_t)ph->dim];
}

static uint32_t member_rank(engine *E, const inst *in, const sim_phase *ph, uint32_t base,
                            uint32_t j)
{
	if (ph->dim < 0)
		return in->group->ranks[j];
	return base + j * E->net->stride[ph->dim];
}

static void phase_done(engine *E, inst *in, uint32_t chunk, uint32_t p, uint32_t rank);
static void run_phase(engine *E, inst *in, uint32_t chunk, uint32_t p, uint32_t base);

/* Member `rank` starts phase p of a chunk now; the phase runs once every
 * member of its ring has. */
static void register_phase(engine *E, inst *in, uint32_t chunk, uint32_t p, uint32_t rank)
{
	size_t idx = ((size_t)chunk * (size_t)in->nph + p) * E->N;
	const sim_phase *ph = &in->ph[p];
	uint32_t base = ring_base(E, in, ph, rank);
	in->start[idx + rank] = E->now;
	if (++in->count[idx + base] == ph->n)
		run_phase(E, in, chunk, p, base);
}

static int server_of(const sim_phase *ph)
{
	return ph->dim < 0 ? SIM_MAX_DIMS : ph->dim;
}

static void request_phase(engine *E, npu *u, inst *in, uint32_t chunk, uint32_t p)
{
	int s = server_of(&in->ph[p]);
	if (u->busy[s] < E->sys->active_chunks) {
		u->busy[s]++;
		register_phase(E, in, chunk, p, u->rank);
	} else {
		qitem q = { .req = { in, chunk, p } };
		if (fifo_push(&u->wait[s], q))
			eng_fail(E, "out of memory");
	}
}

static void inst_release(engine *E, inst *in)
{
	if (--in->refs)
		return;
	for (inst **pp = &E->live; *pp; pp = &(*pp)->next)
		if (*pp == in) {
			*pp = in->next;
			break;
		}
	in->next = E->pool;
	E->pool = in;
}

static void finish_collective(engine *E, npu *u)
{
	const chakra_node *n = u->coll;
	inst *in = u->coll_in;
	u->coll = NULL;
	u->coll_in = NULL;
	comm_end(E, u);
	out_timeline(E, u->rank, 1, n, u->coll_start);
	inst_release(E, in);
	complete(E, u, n);
	try_collective(E, u);
}

static void phase_done(engine *E, inst *in, uint32_t chunk, uint32_t p, uint32_t rank)
{
	npu *u = &E->npu[rank];
	int s = server_of(&in->ph[p]);
	qitem q;
	u->busy[s]--;
	/* The freed server takes the oldest waiting chunk-phase first. */
	while (u->busy[s] < E->sys->active_chunks && fifo_pop(&u->wait[s], &q)) {
		u->busy[s]++;
		register_phase(E, q.req.in, q.req.chunk, q.req.phase, rank);
	}
	if (p + 1 < (uint32_t)in->nph) {
		request_phase(E, u, in, chunk, p + 1);
	} else if (--u->chunks_left == 0) {
		finish_collective(E, u);
	}
}

/* Which ranks a collective spans: a communicator group (pg_name), the
 * dimensions flagged by involved_dim, or every dimension. */
static int coll_scope(engine *E, npu *u, const chakra_node *n, int *dims, int *k,
                      const sim_group **grp, uint32_t *key, int *kind)
{
	const char *pg;
	size_t len;
	*grp = NULL;
	if (E->opt->groups && chakra_node_pg_name(n, &pg, &len) == 0 && len) {
		const sim_group *g = sim_groups_find(E->opt->groups, pg, len);
		if (!g)
			return eng_fail(E, "rank %" PRIu32 " node %" PRIu64 ": pg_name '%.*s' is not in "
			                "the communicator-group file", u->rank, chakra_node_id(n),
			                (int)len, pg);
		if (E->group_pos[g - E->opt->groups->g][u->rank] == UINT32_MAX)
			return eng_fail(E, "rank %" PRIu32 " node %" PRIu64 ": rank is not a member of "
			                "communicator group '%s'", u->rank, chakra_node_id(n), g->name);
		*grp = g;
		*key = (uint32_t)(g - E->opt->groups->g);
		*kind = 1;
		int mask = E->group_mask[*key];
		*k = 0;
		if (mask < 0) {
			dims[(*k)++] = -1; /* one ring, in the listed order */
		} else {
			for (int d = 0; d < E->net->ndims; d++)
				if (mask & (1 << d))
					dims[(*k)++] = d;
		}
		return 0;
	}
	int flags[SIM_MAX_DIMS + 1];
	int nf = chakra_node_involved_dim(n, flags, SIM_MAX_DIMS + 1);
	*kind = 0;
	*k = 0;
	*key = 0;
	if (nf == CHAKRA_ENOTFOUND || nf == 0) {
		for (int d = 0; d < E->net->ndims; d++)
			dims[(*k)++] = d;
		*key = (1u << E->net->ndims) - 1;
		return 0;
	}
	if (nf < 0)
		return eng_fail(E, "rank %" PRIu32 " node %" PRIu64 ": involved_dim: %s", u->rank,
		                chakra_node_id(n), chakra_strerror(nf));
	if (nf != E->net->ndims)
		return eng_fail(E, "rank %" PRIu32 " node %" PRIu64 ": involved_dim has %d entries "
		                "but the network has %d dimensions", u->rank, chakra_node_id(n), nf,
		                E->net->ndims);
	for (int d = 0; d < nf; d++)
		if (flags[d]) {
			dims[(*k)++] = d;
			*key |= 1u << d;
		}
	return 0;
}

static inst *inst_get(engine *E, int kind, uint32_t key, uint32_t seq)
{
	for (inst *in = E->live; in; in = in->next)
		if (in->kind == kind && in->key == key && in->seq == seq)
			return in;
	return NULL;
}

static inst *inst_new(engine *E, size_t slots)
{
	inst *in = E->pool;
	if (in && in->slots >= slots) {
		E->pool = in->next;
	} else {
		in = calloc(1, sizeof *in);
		if (!in)
			return NULL;
		in->start = malloc(slots * sizeof *in->start);
		in->count = malloc(slots * sizeof *in->count);
		in->slots = slots;
		if (!in->start || !in->count) {
			free(in->start);
			free(in->count);
			free(in);
			return NULL;
		}
	}
	memset(in->count, 0, slots * sizeof *in->count);
	in->next = E->live;
	E->live = in;
	return in;
}

static void start_collective(engine *E, npu *u, const chakra_node *n)
{
	int64_t type;
	uint64_t size = 0;
	int dims[SIM_MAX_DIMS], k = 0, kind = 0;
	const sim_group *grp = NULL;
	uint32_t key = 0;
	if (chakra_node_comm_type(n, &type) < 0) {
		eng_fail(E, "rank %" PRIu32 " node %" PRIu64 " (%s): collective without an integer "
		         "comm_type", u->rank, chakra_node_id(n), node_name(n));
		return;
	}
	if (type != CHAKRA_BARRIER && chakra_node_comm_size(n, &size) < 0) {
		eng_fail(E, "rank %" PRIu32 " node %" PRIu64 " (%s): collective without an integer "
		         "comm_size", u->rank, chakra_node_id(n), node_name(n));
		return;
	}
	if (coll_scope(E, u, n, dims, &k, &grp, &key, &kind))
		return;
	uint32_t seq = kind ? u->seq_group[key]++ : u->seq_mask[key]++;
	inst *in = inst_get(E, kind, key, seq);
	if (in) {
		if (in->comm_type != type || in->comm_size != size) {
			eng_fail(E, "rank %" PRIu32 " node %" PRIu64 " (%s): %s of %" PRIu64 " bytes, but "
			         "rank %" PRIu32 " issued %s of %" PRIu64 " bytes as the same collective "
			         "(#%" PRIu32 " on these NPUs)", u->rank, chakra_node_id(n), node_name(n),
			         chakra_comm_type_name((int)type) ? chakra_comm_type_name((int)type) : "?",
			         size, in->first_rank,
			         chakra_comm_type_name((int)in->comm_type)
			                 ? chakra_comm_type_name((int)in->comm_type) : "?",
			         in->comm_size, seq);
			return;
		}
	} else {
		sim_phase ph[2 * SIM_MAX_DIMS];
		char perr[SIM_ERR_LEN];
		/* A barrier carries no data: one chunk. */
		uint32_t chunks = type == CHAKRA_BARRIER ? 1 : E->sys->splits;
		int nph = sim_coll_plan(E->net, E->sys, (int)type, (double)size / chunks, dims, k,
		                        grp ? (uint32_t)grp->n : 0, ph, perr);
		if (nph < 0) {
			eng_fail(E, "rank %" PRIu32 " node %" PRIu64 " (%s): %s", u->rank,
			         chakra_node_id(n), node_name(n), perr);
			return;
		}
		in = inst_new(E, (size_t)chunks * (size_t)(nph ? nph : 1) * E->N);
		if (!in) {
			eng_fail(E, "out of memory");
			return;
		}
		in->kind = kind;
		in->key = key;
		in->seq = seq;
		in->comm_type = type;
		in->comm_size = size;
		in->first_rank = u->rank;
		in->group = grp;
		in->chunks = chunks;
		in->nph = nph;
		memcpy(in->ph, ph, sizeof ph);
		in->refs = 0;
	}
	in->refs++;
	comm_begin(E, u);
	u->coll = n;
	u->coll_in = in;
	u->coll_start = E->now;
	out_csv(E, "issue", u->rank, n);
	if (in->nph == 0) { /* a single NPU: nothing to exchange */
		if (heap_push(&E->h, E->now, EV_COLL_DONE, u->rank, NULL, 0))
			eng_fail(E, "out of memory");
		return;
	}
	u->chunks_left = in->chunks;
	for (uint32_t c = 0; c < in->chunks && !E->failed; c++)
		request_phase(E, u, in, c, 0);
}

/* Congestion-unaware phase: every member's step times in closed form. */
static void run_phase_unaware(engine *E, inst *in, uint32_t chunk, uint32_t p, uint32_t base)
{
	const sim_phase *ph = &in->ph[p];
	const uint64_t e = E->sys->endpoint_delay;
	const uint64_t steps = sim_phase_steps(ph);
	size_t idx = ((size_t)chunk * (size_t)in->nph + p) * E->N;
	uint32_t n = ph->n, *src = E->tmp_src;
	uint64_t *cur = E->tmp_a, *nxt = E->tmp_b;
	int same = 1;
	for (uint32_t j = 0; j < n; j++) {
		cur[j] = in->start[idx + member_rank(E, in, ph, base, j)] + e;
		same &= cur[j] == cur[0];
	}
	if (same && ph->dim >= 0 && ph->alg != SIM_ALG_DBT) {
		/* Every member starts together and sees the same distances (a
		 * dimension is vertex-transitive and ring, direct and
		 * halving-doubling treat members alike): time member 0 only. */
		uint64_t t = cur[0];
		for (uint64_t s = 0; s < steps; s++) {
			double m = sim_step_bytes(ph, s);
			uint64_t dmax = 0;
			uint32_t ns = sim_step_sources(ph, s, 0, src);
			for (uint32_t i = 0; i < ns; i++) {
				uint64_t d = sim_unaware_delay(E->net, member_rank(E, in, ph, base, src[i]),
				                               base, m);
				if (d > dmax)
					dmax = d;
			}
			t += dmax + e + (sim_step_reduces(ph, s) ? sim_reduce_cost(E->sys, m) : 0);
			/* Identical steps repeat: skip ahead while nothing changes. */
			if (ph->alg == SIM_ALG_RING && s + 1 < steps) {
				uint64_t run = ph->op == SIM_OP_AR && s < steps / 2 ? steps / 2 : steps;
				uint64_t more = run - 1 - s;
				t += more * (dmax + e + (sim_step_reduces(ph, s) ? sim_reduce_cost(E->sys, m) : 0));
				s += more;
			}
		}
		if (heap_push(&E->h, t, EV_PHASE, base, in, ((uint64_t)chunk << 32) | p << 1 | 1))
			eng_fail(E, "out of memory");
		return;
	}
	for (uint64_t s = 0; s < steps; s++) {
		double m = sim_step_bytes(ph, s);
		uint64_t r = sim_step_reduces(ph, s) ? sim_reduce_cost(E->sys, m) : 0;
		for (uint32_t j = 0; j < n; j++) {
			uint64_t t = cur[j];
			uint32_t rj = member_rank(E, in, ph, base, j);
			uint32_t ns = sim_step_sources(ph, s, j, src);
			for (uint32_t i = 0; i < ns; i++) {
				uint64_t a = cur[src[i]] +
				             sim_unaware_delay(E->net, member_rank(E, in, ph, base, src[i]),
				                               rj, m);
				if (a > t)
					t = a;
			}
			/* Nothing to receive in this step (a tree leaf): no cost. */
			nxt[j] = ns ? t + e + r : cur[j];
		}
		uint64_t *sw = cur;
		cur = nxt;
		nxt = sw;
	}
	for (uint32_t j = 0; j < n; j++)
		if (heap_push(&E->h, cur[j], EV_PHASE, member_rank(E, in, ph, base, j), in,
		              ((uint64_t)chunk << 32) | p << 1))
			eng_fail(E, "out of memory");
}

/* ---- congestion-aware: messages over FIFO links ---- */

static void pr_free(engine *E, phase_run *pr)
{
	if (pr->prev)
		pr->prev->next = pr->next;
	else if (E->runs == pr)
		E->runs = pr->next;
	if (pr->next)
		pr->next->prev = pr->prev;
	free(pr->rank);
	free(pr->p_last);
	free(pr->done);
	free(pr->arr_max);
	free(pr->arr_cnt);
	free(pr);
}

static void run_phase_aware(engine *E, inst *in, uint32_t chunk, uint32_t p, uint32_t base)
{
	const sim_phase *ph = &in->ph[p];
	uint64_t steps = sim_phase_steps(ph);
	uint32_t n = ph->n;
	if ((double)steps * n > 64e6) {
		eng_fail(E, "collective phase too large for the congestion-aware model (%" PRIu64
		         " steps x %" PRIu32 " NPUs)", steps, n);
		return;
	}
	phase_run *pr = calloc(1, sizeof *pr);
	if (!pr || !(pr->rank = malloc(n * sizeof *pr->rank)) ||
	    !(pr->p_last = malloc(n * sizeof *pr->p_last)) ||
	    !(pr->done = calloc(n, sizeof *pr->done)) ||
	    !(pr->arr_max = calloc(steps * n, sizeof *pr->arr_max)) ||
	    !(pr->arr_cnt = calloc(steps * n, sizeof *pr->arr_cnt))) {
		if (pr)
			pr_free(E, pr);
		eng_fail(E, "out of memory");
		return;
	}
	pr->next = E->runs;
	if (E->runs)
		E->runs->prev = pr;
	E->runs = pr;
	pr->in = in;
	pr->chunk = chunk;
	pr->phase = p;
	pr->base = base;
	pr->n = n;
	pr->steps = steps;
	size_t idx = ((size_t)chunk * (size_t)in->nph + p) * E->N;
	for (uint32_t j = 0; j < n; j++) {
		pr->rank[j] = member_rank(E, in, ph, base, j);
		pr->p_last[j] = in->start[idx + pr->rank[j]] + E->sys->endpoint_delay;
		if (heap_push(&E->h, pr->p_last[j], EV_SEND, j, pr, 0))
			eng_fail(E, "out of memory");
	}
}

static void send_msg(engine *E, uint32_t from, uint32_t to, double bytes, phase_run *pr,
                     p2p_op *op, uint32_t member, uint64_t step)
{
	msg *m = malloc(sizeof *m);
	if (!m) {
		eng_fail(E, "out of memory");
		return;
	}
	m->hop.at = from;
	m->hop.dst = to;
	m->hop.at_switch = 0;
	m->hop.sw_dim = 0;
	m->bytes = bytes;
	m->pr = pr;
	m->op = op;
	m->member = member;
	m->step = step;
	m->arrived = from == to;
	if (heap_push(&E->h, E->now, EV_HOP, 0, m, 0))
		eng_fail(E, "out of memory");
}

static void advance(engine *E, phase_run *pr, uint32_t j);

static void on_send(engine *E, phase_run *pr, uint32_t j, uint64_t s)
{
	const sim_phase *ph = &pr->in->ph[pr->phase];
	uint32_t nd = sim_step_dests(ph, s, j, E->tmp_src);
	double m = sim_step_bytes(ph, s);
	for (uint32_t i = 0; i < nd; i++)
		send_msg(E, pr->rank[j], pr->rank[E->tmp_src[i]], m, pr, NULL, E->tmp_src[i], s);
	advance(E, pr, j); /* a step with nothing to receive ends at once */
}

/* Member j finishes every step whose messages are all in. May free pr. */
static void advance(engine *E, phase_run *pr, uint32_t j)
{
	const sim_phase *ph = &pr->in->ph[pr->phase];
	if (pr->done[j] == pr->steps)
		return;
	while (pr->done[j] < pr->steps) {
		uint64_t s = pr->done[j];
		size_t a = (size_t)j * pr->steps + s;
		uint32_t ns = sim_step_sources(ph, s, j, E->tmp_src);
		if (pr->arr_cnt[a] < ns)
			return;
		uint64_t t = pr->p_last[j] > pr->arr_max[a] ? pr->p_last[j] : pr->arr_max[a];
		double m = sim_step_bytes(ph, s);
		if (ns) /* nothing to receive (a tree leaf): no cost */
			t += E->sys->endpoint_delay +
			     (sim_step_reduces(ph, s) ? sim_reduce_cost(E->sys, m) : 0);
		pr->p_last[j] = t;
		pr->done[j]++;
		if (pr->done[j] < pr->steps) {
			if (heap_push(&E->h, t, EV_SEND, j, pr, pr->done[j]))
				eng_fail(E, "out of memory");
		} else if (heap_push(&E->h, t, EV_PHASE, pr->rank[j], pr->in,
		                     ((uint64_t)pr->chunk << 32) | pr->phase << 1)) {
			eng_fail(E, "out of memory");
		}
	}
	if (++pr->members_done == pr->n)
		pr_free(E, pr);
}

static void p2p_arrived(engine *E, p2p_op *op);

static void on_hop(engine *E, msg *m)
{
	if (!m->arrived) {
		int done = 0;
		uint64_t t = sim_links_step(E->links, &m->hop, m->bytes, E->now, &done);
		m->arrived = done;
		if (heap_push(&E->h, t, EV_HOP, 0, m, 0))
			eng_fail(E, "out of memory");
		return;
	}
	if (m->pr) {
		phase_run *pr = m->pr;
		size_t a = (size_t)m->member * pr->steps + m->step;
		pr->arr_cnt[a]++;
		if (E->now > pr->arr_max[a])
			pr->arr_max[a] = E->now;
		advance(E, pr, m->member);
	} else {
		p2p_arrived(E, m->op);
	}
	free(m);
}

static void run_phase(engine *E, inst *in, uint32_t chunk, uint32_t p, uint32_t base)
{
	if (E->opt->model == SIM_AWARE)
		run_phase_aware(E, in, chunk, p, base);
	else
		run_phase_unaware(E, in, chunk, p, base);
}

/* ---------------- send / recv ---------------- */

/* A send completes when its message has arrived; a receive completes
 * endpoint-delay after both it is posted and the matching message (same
 * source and tag) has arrived. */
static void recv_done(engine *E, p2p_op *recv, uint64_t arrived)
{
	uint64_t t = (arrived > recv->start ? arrived : recv->start) + E->sys->endpoint_delay;
	recv->arrived = t;
	if (heap_push(&E->h, t, EV_P2P_SENT, 0, recv, 0))
		eng_fail(E, "out of memory");
}

static void p2p_arrived(engine *E, p2p_op *send)
{
	npu *dst = &E->npu[send->peer];
	/* The send node itself completes now. */
	if (heap_push(&E->h, E->now, EV_P2P_SENT, 0, send, 0)) {
		eng_fail(E, "out of memory");
		return;
	}
	for (p2p_op **pp = &dst->recvs; *pp; pp = &(*pp)->next) {
		p2p_op *r = *pp;
		if (r->peer == send->rank && r->tag == send->tag) {
			*pp = r->next;
			recv_done(E, r, E->now);
			return;
		}
	}
	/* No receive posted yet: remember the arrival. */
	p2p_op *a = malloc(sizeof *a);
	if (!a) {
		eng_fail(E, "out of memory");
		return;
	}
	*a = *send;
	a->node = NULL;
	a->arrived = E->now;
	a->next = NULL;
	p2p_op **tail = &dst->arrived;
	while (*tail)
		tail = &(*tail)->next;
	*tail = a;
}

static void start_p2p(engine *E, npu *u, const chakra_node *n, int is_send)
{
	int64_t peer, tag = 0;
	uint64_t size = 0;
	int rc = is_send ? chakra_node_comm_dst(n, &peer) : chakra_node_comm_src(n, &peer);
	if (rc < 0 || peer < 0 || (uint64_t)peer >= E->N) {
		eng_fail(E, "rank %" PRIu32 " node %" PRIu64 " (%s): %s without a valid %s (0..%"
		         PRIu32 ")", u->rank, chakra_node_id(n), node_name(n),
		         is_send ? "send" : "recv", is_send ? "comm_dst" : "comm_src", E->N - 1);
		return;
	}
	chakra_node_comm_tag(n, &tag);
	chakra_node_comm_size(n, &size);
	p2p_op *op = calloc(1, sizeof *op);
	if (!op) {
		eng_fail(E, "out of memory");
		return;
	}
	op->node = n;
	op->rank = u->rank;
	op->peer = (uint32_t)peer;
	op->tag = tag;
	op->bytes = (double)size;
	op->start = E->now;
	op->is_send = is_send;
	comm_begin(E, u);
	u->p2p_inflight++;
	out_csv(E, "issue", u->rank, n);
	if (is_send) {
		if (E->opt->model == SIM_AWARE) {
			send_msg(E, u->rank, op->peer, op->bytes, NULL, op, 0, 0);
		} else {
			uint64_t d = op->peer == u->rank ? 0
			             : sim_unaware_delay(E->net, u->rank, op->peer, op->bytes);
			/* Arrival is handled as an event so that receives see it in time order. */
			msg *m = malloc(sizeof *m);
			if (!m) {
				eng_fail(E, "out of memory");
				return;
			}
			memset(m, 0, sizeof *m);
			m->op = op;
			m->arrived = 1;
			if (heap_push(&E->h, E->now + d, EV_HOP, 0, m, 0))
				eng_fail(E, "out of memory");
		}
		return;
	}
	for (p2p_op **pp = &u->arrived; *pp; pp = &(*pp)->next) {
		p2p_op *a = *pp;
		if (a->rank == op->peer && a->tag == tag) {
			*pp = a->next;
			recv_done(E, op, a->arrived);
			free(a);
			return;
		}
	}
	op->next = u->recvs;
	u->recvs = op;
}

static void p2p_complete(engine *E, p2p_op *op)
{
	npu *u = &E->npu[op->rank];
	const chakra_node *n = op->node;
	u->p2p_inflight--;
	comm_end(E, u);
	out_timeline(E, u->rank, 1, n, op->start);
	free(op);
	complete(E, u, n);
}

/* ---------------- the loop ---------------- */

static void handle(engine *E, const event *ev)
{
	switch (ev->type) {
	case EV_START:
		pump(E, &E->npu[ev->a]);
		break;
	case EV_COMPUTE: {
		npu *u = &E->npu[ev->a];
		const chakra_node *n = u->comp;
		u->comp = NULL;
		out_timeline(E, u->rank, 0, n, u->comp_start);
		complete(E, u, n);
		try_compute(E, u);
		break;
	}
	case EV_PHASE: {
		inst *in = ev->p;
		uint32_t chunk = (uint32_t)(ev->b >> 32), p = (uint32_t)(ev->b & 0xffffffff) >> 1;
		if (ev->b & 1) { /* the whole ring finishes now, in ring order */
			const sim_phase *ph = &in->ph[p];
			uint32_t n = ph->n;
			for (uint32_t j = 0; j < n && !E->failed; j++)
				phase_done(E, in, chunk, p, member_rank(E, in, ph, ev->a, j));
		} else {
			phase_done(E, in, chunk, p, ev->a);
		}
		break;
	}
	case EV_SEND:
		on_send(E, ev->p, ev->a, ev->b);
		break;
	case EV_HOP:
		on_hop(E, ev->p);
		break;
	case EV_P2P_SENT:
		p2p_complete(E, ev->p);
		break;
	case EV_COLL_DONE:
		finish_collective(E, &E->npu[ev->a]);
		break;
	}
}

/* Nothing left to do but nodes remain: say who waits for what. */
static void diagnose(engine *E)
{
	for (uint32_t r = 0; r < E->N && !E->failed; r++) {
		npu *u = &E->npu[r];
		if (u->coll) {
			eng_fail(E, "rank %" PRIu32 " node %" PRIu64 " (%s): the collective never "
			         "completes: some of its peers never issue the matching collective",
			         r, chakra_node_id(u->coll), node_name(u->coll));
		} else if (u->recvs) {
			eng_fail(E, "rank %" PRIu32 " node %" PRIu64 " (%s): recv from rank %" PRIu32
			         " tag %" PRId64 " never matched by a send", r,
			         chakra_node_id(u->recvs->node), node_name(u->recvs->node),
			         u->recvs->peer, u->recvs->tag);
		} else if (chakra_feeder_has_more(u->f)) {
			const chakra_node *n;
			int rc = chakra_feeder_next(u->f, &n);
			if (rc < 0)
				eng_fail(E, "rank %" PRIu32 ": %s", r, chakra_feeder_errmsg(u->f));
			else
				eng_fail(E, "rank %" PRIu32 ": %" PRIu64 " nodes never became ready", r,
				         chakra_feeder_held_count(u->f));
		}
	}
}

static void engine_free(engine *E)
{
	for (uint32_t r = 0; E->npu && r < E->N; r++) {
		npu *u = &E->npu[r];
		free(u->comp_q.buf);
		free(u->coll_q.buf);
		for (int s = 0; s <= SIM_MAX_DIMS; s++)
			free(u->wait[s].buf);
		free(u->seq_mask);
		free(u->seq_group);
		for (p2p_op *o = u->recvs, *nx; o; o = nx) {
			nx = o->next;
			free(o);
		}
		for (p2p_op *o = u->arrived, *nx; o; o = nx) {
			nx = o->next;
			free(o);
		}
	}
	/* Events still queued after an error own messages and phase runs. */
	for (size_t i = 0; i < E->h.n; i++) {
		if (E->h.e[i].type == EV_HOP) {
			msg *m = E->h.e[i].p;
			if (!m->pr)
				free(m->op); /* a send's op travels with its message */
			free(m);
		} else if (E->h.e[i].type == EV_P2P_SENT) {
			free(E->h.e[i].p);
		}
	}
	while (E->runs)
		pr_free(E, E->runs);
	free(E->h.e);
	for (int pass = 0; pass < 2; pass++)
		for (inst *in = pass ? E->pool : E->live, *nx; in; in = nx) {
			nx = in->next;
			free(in->start);
			free(in->count);
			free(in);
		}
	free(E->group_mask);
	if (E->group_pos) {
		for (size_t g = 0; g < E->opt->groups->n; g++)
			free(E->group_pos[g]);
		free(E->group_pos);
	}
	free(E->npu);
	free(E->ring0);
	free(E->tmp_src);
	free(E->tmp_a);
	free(E->tmp_b);
	sim_links_free(E->links);
}

void sim_result_free(sim_result *res)
{
	free(res->npu);
	res->npu = NULL;
}

int sim_run(const char *prefix, const sim_network *net, const sim_system *sys,
            const sim_options *opt, sim_result *res, char *err, size_t errlen)
{
	engine E;
	memset(&E, 0, sizeof E);
	memset(res, 0, sizeof *res);
	E.net = net;
	E.sys = sys;
	E.opt = opt;
	E.err = err;
	E.errlen = errlen;
	E.N = net->npus;

	chakra_workload *w = NULL;
	chakra_feeder_options fo = CHAKRA_FEEDER_OPTIONS_INIT;
	fo.window = opt->window;
	if (opt->deps)
		fo.deps = (chakra_deps)opt->deps;
	int rc = chakra_workload_open(&w, prefix, &fo);
	if (rc < 0) {
		snprintf(err, errlen, "%s", w ? chakra_workload_errmsg(w) : chakra_strerror(rc));
		chakra_workload_close(w);
		return -1;
	}
	if (chakra_workload_size(w) != net->npus) {
		snprintf(err, errlen, "workload %s has %zu ranks but the network has %" PRIu32
		         " NPUs", prefix, chakra_workload_size(w), net->npus);
		chakra_workload_close(w);
		return -1;
	}
	E.npu = calloc(E.N, sizeof *E.npu);
	E.tmp_src = malloc((size_t)E.N * sizeof *E.tmp_src);
	E.tmp_a = malloc((size_t)E.N * sizeof *E.tmp_a);
	E.tmp_b = malloc((size_t)E.N * sizeof *E.tmp_b);
	if (opt->model == SIM_AWARE)
		E.links = sim_links_new(net);
	E.ring0 = malloc((size_t)E.N * (size_t)(net->ndims ? net->ndims : 1) * sizeof *E.ring0);
	for (uint32_t r = 0; E.ring0 && r < E.N; r++)
		for (int d = 0; d < net->ndims; d++)
			E.ring0[(size_t)r * (size_t)net->ndims + (size_t)d] =
				r - sim_coord(net, r, d) * net->stride[d];
	if (!E.npu || !E.tmp_src || !E.tmp_a || !E.tmp_b || !E.ring0 ||
	    (opt->model == SIM_AWARE && !E.links))
		eng_fail(&E, "out of memory");
	if (!E.failed && opt->groups && opt->groups->n) {
		E.group_pos = calloc(opt->groups->n, sizeof *E.group_pos);
		for (size_t g = 0; E.group_pos && g < opt->groups->n; g++) {
			E.group_pos[g] = malloc((size_t)E.N * sizeof **E.group_pos);
			if (!E.group_pos[g])
				break;
			for (uint32_t r = 0; r < E.N; r++)
				E.group_pos[g][r] = UINT32_MAX;
			for (size_t j = 0; j < opt->groups->g[g].n; j++)
				E.group_pos[g][opt->groups->g[g].ranks[j]] = (uint32_t)j;
		}
		if (!E.group_pos || !E.group_pos[opt->groups->n - 1])
			eng_fail(&E, "out of memory");
		/* A group that is exactly the NPUs spanned by some dimensions (a
		 * row, a plane...) runs on those dimensions, as involved_dim
		 * would; any other group is one ring in its listed order. */
		E.group_mask = malloc(opt->groups->n * sizeof *E.group_mask);
		for (size_t g = 0; E.group_mask && g < opt->groups->n; g++) {
			const sim_group *gr = &opt->groups->g[g];
			int mask = 0;
			uint64_t span = 1;
			for (int d = 0; d < net->ndims; d++) {
				uint32_t c0 = sim_coord(net, gr->ranks[0], d);
				for (size_t j = 1; j < gr->n; j++)
					if (sim_coord(net, gr->ranks[j], d) != c0) {
						mask |= 1 << d;
						span *= net->size[d];
						break;
					}
			}
			E.group_mask[g] = span == gr->n ? mask : -1;
		}
		if (!E.group_mask)
			eng_fail(&E, "out of memory");
	}
	for (uint32_t r = 0; r < E.N && !E.failed; r++) {
		npu *u = &E.npu[r];
		u->f = chakra_workload_feeder(w, r);
		u->rank = r;
		u->seq_mask = calloc((size_t)1 << net->ndims, sizeof *u->seq_mask);
		u->seq_group = calloc(opt->groups && opt->groups->n ? opt->groups->n : 1,
		                      sizeof *u->seq_group);
		if (!u->seq_mask || !u->seq_group)
			eng_fail(&E, "out of memory");
		if (heap_push(&E.h, opt->start_delay ? opt->start_delay[r] : 0, EV_START, r, NULL, 0))
			eng_fail(&E, "out of memory");
	}
	if (opt->timeline && !E.failed) {
		fprintf(opt->timeline, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n"
		        "{\"ph\":\"M\",\"pid\":0,\"name\":\"process_name\",\"args\":{\"name\":\"NPU 0\"}}");
		for (uint32_t r = 0; r < E.N; r++) {
			if (r)
				fprintf(opt->timeline, ",\n{\"ph\":\"M\",\"pid\":%" PRIu32 ",\"name\":"
				        "\"process_name\",\"args\":{\"name\":\"NPU %" PRIu32 "\"}}", r, r);
			fprintf(opt->timeline, ",\n{\"ph\":\"M\",\"pid\":%" PRIu32 ",\"tid\":0,\"name\":"
			        "\"thread_name\",\"args\":{\"name\":\"compute\"}}", r);
			fprintf(opt->timeline, ",\n{\"ph\":\"M\",\"pid\":%" PRIu32 ",\"tid\":1,\"name\":"
			        "\"thread_name\",\"args\":{\"name\":\"communication\"}}", r);
		}
	}
	if (opt->progress)
		tool_progress_start(&E.prog, "simulated nodes", 0);
	else
		E.prog.enabled = 0;

	uint64_t events = 0;
	while (!E.failed && E.h.n) {
		event ev = heap_pop(&E.h);
		E.now = ev.t;
		events++;
		handle(&E, &ev);
	}
	if (opt->progress)
		tool_progress_end(&E.prog);
	if (!E.failed)
		diagnose(&E);
	if (opt->timeline && !E.failed)
		fprintf(opt->timeline, "\n]}\n");
	if (!E.failed) {
		res->npus = E.N;
		res->npu = calloc(E.N, sizeof *res->npu);
		if (!res->npu)
			eng_fail(&E, "out of memory");
		for (uint32_t r = 0; r < E.N && res->npu; r++) {
			res->npu[r] = E.npu[r].res;
			if (res->npu[r].finish > res->finish)
				res->finish = res->npu[r].finish;
		}
		res->events = events;
		res->nodes = E.nodes_done;
	}
	int failed = E.failed;
	engine_free(&E);
	chakra_workload_close(w);
	return failed ? -1 : 0;
}
