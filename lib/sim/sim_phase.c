/* SPDX-License-Identifier: Apache-2.0 */
/* Collectives in the engine: which NPUs a collective spans and how its
 * issues on different NPUs are matched (the k-th over the same scope is
 * the k-th of its peers), the per-dimension chunk servers of each NPU, and
 * the timing of one phase on one ring.
 *
 * A phase follows the reference's packet protocol (sim_coll.c), member by
 * member. Congestion-aware, every member starts when it reaches the phase
 * and its messages cross FIFO links as events. Congestion-unaware,
 * messages never interact, so the phase is timed offline once its last
 * member arrives: when they all start together on a dimension (which is
 * symmetric), member 0 alone, in closed form for one packet at a time
 * (ring, halving-doubling) or with a small event loop (direct); otherwise
 * every member with that event loop. Our double binary tree is timed in
 * steps: a member sends step s when it has finished step s-1, and finishes
 * step s at max(own step s-1, last arrival of step s) + e (+ reduction). */
#include <inttypes.h>
#include <math.h>

#include "coll/coll.h"
#include "sim_engine_impl.h"
#include "../modmem.h"

static void run_phase_unaware(engine *E, inst *in, uint32_t chunk, uint32_t p, uint32_t base,
                              const uint64_t *start);
static void member_start(engine *E, inst *in, uint32_t chunk, uint32_t p, uint32_t base,
                         uint32_t rank, phase_run **run);
static void sym_register(engine *E, inst *in, uint32_t chunk, uint32_t p, uint32_t base,
                         uint32_t rank);

static size_t slot_of(engine *E, const inst *in, uint32_t chunk, uint32_t p)
{
	(void)E;
	return ((size_t)chunk * (size_t)in->nph + p) * in->width;
}

/* A rank's place in an instance's bookkeeping: itself, or in a group's
 * collective its place in the group (the bookkeeping has the group's
 * size, not the system's: 2,048 live collectives of 8-GPU groups at
 * 16,384 GPUs took 800 MiB). */
static uint32_t inst_pos(engine *E, const inst *in, uint32_t rank)
{
	if (in->kind != 1)
		return rank;
	return chakra__sim_group_pos(E, (uint32_t)(in->group - E->opt->groups->g), rank);
}

/* Member `rank` starts phase p of a chunk now. Congestion-aware it runs at
 * once; unaware, once every member of its ring has arrived. */
static void register_phase(engine *E, inst *in, uint32_t chunk, uint32_t p, uint32_t rank)
{
	const sim_phase *ph = &in->ph[p];
	uint32_t base = ring_base(E, in, ph, rank);
	if (E->sym) {
		sym_register(E, in, chunk, p, base, rank);
		return;
	}
	size_t idx = slot_of(E, in, chunk, p);
	if (E->opt->model == CHAKRA_SIM_AWARE) {
		member_start(E, in, chunk, p, base, rank, &in->run[idx + inst_pos(E, in, base)]);
		return;
	}
	in->start[idx + inst_pos(E, in, rank)] = E->now;
	if (++in->count[idx + inst_pos(E, in, base)] == ph->n) {
		uint64_t *start = E->tmp_a;
		for (uint32_t j = 0; j < ph->n; j++)
			start[j] = in->start[idx + inst_pos(E, in, member_rank(E, in, ph, base, j))];
		run_phase_unaware(E, in, chunk, p, base, start);
	}
}

/* A reduced run: rank, a representative, reaches phase p of a chunk, and
 * with it every rank of its class in the ring (they run alike). The ring
 * runs once every class in it has arrived; congestion-aware, each member
 * starts as its class arrives. */
static void sym_register(engine *E, inst *in, uint32_t chunk, uint32_t p, uint32_t base,
                         uint32_t rank)
{
	const sim_phase *ph = &in->ph[p];
	uint32_t n = ph->n, c = E->sym->cls[rank];
	int uniform = 0, aware = E->opt->model == CHAKRA_SIM_AWARE;
	if (ph->dim >= 0 && !chakra__sym_dim(E, ph->dim, rank, &uniform))
		return;
	if (ph->dim < 0) { /* a group ring: one class alone? */
		uniform = 1;
		for (uint32_t j = 0; j < n && uniform; j++)
			uniform = E->sym->cls[member_rank(E, in, ph, base, j)] == c;
	}
	if (uniform) { /* the whole ring arrives now */
		if (aware) {
			phase_run *run = NULL;
			for (uint32_t j = 0; j < n && !E->failed; j++)
				member_start(E, in, chunk, p, base, member_rank(E, in, ph, base, j), &run);
			return;
		}
		for (uint32_t j = 0; j < n; j++)
			E->tmp_a[j] = E->now;
		run_phase_unaware(E, in, chunk, p, base, E->tmp_a);
		return;
	}
	sym_ring *r = chakra__sym_ring(E, in, chunk, p, base, 1);
	if (!r)
		return;
	for (uint32_t j = 0; j < n && !E->failed; j++) {
		uint32_t m = member_rank(E, in, ph, base, j);
		if (E->sym->cls[m] != c)
			continue;
		r->start[j] = E->now;
		r->count++;
		if (aware)
			member_start(E, in, chunk, p, base, m, &r->run);
	}
	if (E->failed)
		return;
	if (aware) {
		if (r->run)
			r->run->ring = r; /* (dropped with the run) */
		return;
	}
	if (r->count == n) {
		memcpy(E->tmp_a, r->start, n * sizeof *E->tmp_a);
		chakra__sym_ring_drop(E, r);
		run_phase_unaware(E, in, chunk, p, base, E->tmp_a);
	}
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
			chakra__sim_nomem(E);
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

void chakra__sim_finish_collective(engine *E, npu *u)
{
	const chakra_node *n = u->coll;
	inst *in = u->coll_in;
	u->coll = NULL;
	u->coll_in = NULL;
	chakra__sim_comm_end(E, u);
	chakra__sim_out_timeline(E, u->rank, 1, n, u->coll_start);
	inst_release(E, in);
	if (E->astra) {
		u->slots[SLOT_COMM].busy = NULL;
		chakra__sim_complete(E, u, n);
		return;
	}
	chakra__sim_complete(E, u, n);
	chakra__sim_try_collective(E, u);
}

void chakra__sim_phase_done(engine *E, inst *in, uint32_t chunk, uint32_t p, uint32_t rank)
{
	npu *u = npu_of(E, rank);
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
		if (!E->astra) {
			chakra__sim_finish_collective(E, u);
			return;
		}
		/* ASTRA-sim ends a member's collective in the event that makes its
		 * last packet ready, scheduled endpoint-delay earlier; events
		 * scheduled before that at this time (a message arriving, another
		 * node's end) come first. */
		uint64_t e = in->ph[p].e;
		if (heap_push_reg(&E->h, E->now, E->now > e ? E->now - e : 0, EV_COLL_DONE, rank,
		                  NULL, 0))
			chakra__sim_nomem(E);
	}
}

/* Which ranks a collective spans: a communicator group (pg_name), the
 * dimensions flagged by involved_dim, or every dimension. */
static int coll_scope(engine *E, npu *u, const chakra_node *n, int *dims, int *k,
                      const chakra_sim_group **grp, uint32_t *key, int *kind)
{
	const char *pg = NULL;
	size_t len = 0;
	*grp = NULL;
	/* ASTRA-sim: group "0" (PyTorch's default group) is every NPU, whatever
	 * the communicator-group file says. */
	const char *pg0 = NULL;
	size_t len0 = 0;
	if (E->opt->groups && chakra_node_pg_name(n, &pg, &len) == 0 && len && E->map) {
		pg0 = pg; /* (a rank map: the rank's own group) */
		len0 = len;
		pg = chakra__sim_pg(E, u->rank, pg, &len);
	}
	if (E->opt->groups && pg && len && !(E->astra && len == 1 && pg[0] == '0')) {
		const chakra_sim_group *g = chakra__sim_group_find(E, pg, len);
		if (!g)
			return chakra__sim_fail(E, "rank %" PRIu32 " node %" PRIu64 ": pg_name '%.*s' is "
			                        "not in the communicator-group file", u->rank,
			                        chakra_node_id(n), (int)len, pg);
		if (chakra__sim_group_pos(E, (uint32_t)(g - E->opt->groups->g), u->rank) == UINT32_MAX)
			return chakra__sim_fail(E, "rank %" PRIu32 " node %" PRIu64 ": rank is not a "
			                        "member of communicator group '%s'", u->rank,
			                        chakra_node_id(n), g->name);
		if (E->sym && !chakra__sym_group(E, u->rank, pg0 ? pg0 : pg, pg0 ? len0 : len, g))
			return -1;
		*grp = g;
		*key = (uint32_t)(g - E->opt->groups->g);
		*kind = 1;
		int mask = E->group_mask[*key];
		/* ASTRA-sim: a group of fewer than all NPUs is one ring in its
		 * listed order, whatever dimensions it spans. */
		if (E->astra && g->n < E->N)
			mask = -1;
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
		return chakra__sim_fail(E, "rank %" PRIu32 " node %" PRIu64 ": involved_dim: %s",
		                        u->rank, chakra_node_id(n), chakra_strerror(nf));
	if (nf != E->net->ndims)
		return chakra__sim_fail(E, "rank %" PRIu32 " node %" PRIu64 ": involved_dim has %d "
		                        "entries but the network has %d dimensions", u->rank,
		                        chakra_node_id(n), nf, E->net->ndims);
	for (int d = 0; d < nf; d++)
		if (flags[d]) {
			dims[(*k)++] = d;
			*key |= 1u << d;
		}
	return 0;
}

/* ASTRA-sim runs a communicator group smaller than the system on a ring
 * topology of its own ("local" dimension), and its collective algorithms
 * treat that dimension apart: every packet is ready a fixed 10 ns after its
 * insertion (the memory bus's fast path) instead of endpoint-delay, and
 * direct's rounds hold P zero-latency packets then (n-1) x P others, not P
 * (which decides the packets an all-reduce reduces). */
#define ASTRA_LOCAL_DELAY 10

static void astra_group_ring(sim_phase *ph, int nph)
{
	for (int q = 0; q < nph; q++) {
		ph[q].e = ASTRA_LOCAL_DELAY;
		if (ph[q].coll->group_ring)
			ph[q].coll->group_ring(&ph[q]);
	}
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
	int aware = E->opt->model == CHAKRA_SIM_AWARE;
	if (E->sym) /* (reduced: rings live in the reduction's table) */
		slots = 0;
	inst *in = E->pool;
	if (in && in->slots >= slots) {
		E->pool = in->next;
	} else {
		in = chakra_calloc(1, sizeof *in);
		if (!in)
			return NULL;
		if (!slots) {
		} else if (aware) {
			in->run = chakra_malloc(slots * sizeof *in->run);
		} else {
			in->start = chakra_malloc(slots * sizeof *in->start);
			in->count = chakra_malloc(slots * sizeof *in->count);
		}
		in->slots = slots;
		if (slots && (aware ? !in->run : !in->start || !in->count)) {
			chakra_free(in->start);
			chakra_free(in->count);
			chakra_free(in->run);
			chakra_free(in);
			return NULL;
		}
	}
	if (slots && aware)
		memset(in->run, 0, slots * sizeof *in->run);
	else if (slots)
		memset(in->count, 0, slots * sizeof *in->count);
	in->next = E->live;
	E->live = in;
	return in;
}

void chakra__sim_start_collective(engine *E, npu *u, const chakra_node *n)
{
	int64_t type;
	uint64_t size = 0;
	int dims[SIM_MAX_DIMS], k = 0, kind = 0;
	const chakra_sim_group *grp = NULL;
	uint32_t key = 0;
	if (chakra_node_comm_type(n, &type) < 0) {
		chakra__sim_fail(E, "rank %" PRIu32 " node %" PRIu64 " (%s): collective without an "
		                 "integer comm_type", u->rank, chakra_node_id(n),
		                 chakra__sim_node_name(n));
		return;
	}
	if (type != CHAKRA_BARRIER && chakra_node_comm_size(n, &size) < 0) {
		chakra__sim_fail(E, "rank %" PRIu32 " node %" PRIu64 " (%s): collective without an "
		                 "integer comm_size", u->rank, chakra_node_id(n),
		                 chakra__sim_node_name(n));
		return;
	}
	if (coll_scope(E, u, n, dims, &k, &grp, &key, &kind))
		return;
	/* oneRing / oneDirect / oneHalvingDoubling: one flat ring over every
	 * NPU instead of a phase per dimension (ASTRA-sim's flat logical
	 * topology). */
	int row = type == CHAKRA_ALL_GATHER ? CHAKRA_SIM_IMPL_ALL_GATHER
	          : type == CHAKRA_REDUCE_SCATTER || type == CHAKRA_REDUCE_SCATTER_BLOCK
	          ? CHAKRA_SIM_IMPL_REDUCE_SCATTER
	          : type == CHAKRA_ALL_TO_ALL ? CHAKRA_SIM_IMPL_ALL_TO_ALL
	                                       : CHAKRA_SIM_IMPL_ALL_REDUCE;
	if (!grp && E->sys->n_impl[row] && chakra__sim_alg_flat(E->sys->impl[row][0])) {
		if (k != E->net->ndims) {
			chakra__sim_fail(E, "rank %" PRIu32 " node %" PRIu64 " (%s): involved_dim picks "
			                 "some dimensions, but %s runs over every NPU", u->rank,
			                 chakra_node_id(n), chakra__sim_node_name(n),
			                 chakra__sim_alg_name(E->sys->impl[row][0]));
			return;
		}
		if (!E->all.ranks) {
			E->all.ranks = chakra_malloc((size_t)E->N * sizeof *E->all.ranks);
			if (!E->all.ranks) {
				chakra__sim_nomem(E);
				return;
			}
			for (uint32_t r = 0; r < E->N; r++)
				E->all.ranks[r] = r;
			E->all.n = E->N;
			E->all.name = (char *)"all NPUs";
		}
		grp = &E->all;
		dims[0] = -1;
		k = 1;
	}
	uint32_t seq = kind ? (*chakra__sim_group_seq(E, key, u->rank))++ : u->seq_mask[key]++;
	inst *in = inst_get(E, kind, key, seq);
	if (in) {
		if (in->comm_type != type || in->comm_size != size) {
			chakra__sim_fail(E, "rank %" PRIu32 " node %" PRIu64 " (%s): %s of %" PRIu64 " "
			                 "bytes, but rank %" PRIu32 " issued %s of %" PRIu64 " bytes as the "
			                 "same collective (#%" PRIu32 " on these NPUs)", u->rank,
			                 chakra_node_id(n), chakra__sim_node_name(n),
			                 chakra_comm_type_name((int)type) ? chakra_comm_type_name((int)type)
			                                                  : "?",
			                 size, in->first_rank,
			                 chakra_comm_type_name((int)in->comm_type)
			                         ? chakra_comm_type_name((int)in->comm_type) : "?",
			                 in->comm_size, seq);
			return;
		}
	} else {
		sim_phase ph[2 * SIM_MAX_DIMS];
		char perr[SIM_ERR_LEN];
		uint64_t chunk_bytes;
		uint32_t chunks;
		chakra__sim_coll_chunks(E->net, E->sys, (int)type, size, &chunk_bytes, &chunks);
		chakra_sim_system gsys;
		const chakra_sim_system *sys = E->sys;
		if (E->astra && grp && grp != &E->all && dims[0] < 0 && E->sys->n_impl[row] > 1) {
			/* ASTRA-sim runs such a group ring with a ring when the
			 * implementation list names more than one dimension. */
			gsys = *E->sys;
			gsys.impl[row][0] = CHAKRA_SIM_ALG_RING;
			sys = &gsys;
		}
		int nph = chakra__sim_coll_plan(E->net, sys, (int)type, chunk_bytes, dims, k,
		                                grp ? (uint32_t)grp->n : 0, ph, perr);
		if (nph < 0) {
			chakra__sim_fail(E, "rank %" PRIu32 " node %" PRIu64 " (%s): %s", u->rank,
			                 chakra_node_id(n), chakra__sim_node_name(n), perr);
			return;
		}
		if (E->astra && grp && grp != &E->all && dims[0] < 0)
			astra_group_ring(ph, nph);
		/* Per chunk and member (every NPU, or a group's): a start time and
		 * count (or a run pointer) per phase and a place in a server's
		 * queue. Within the budget or a clear refusal (a split count of 1e6
		 * once needed 19 GB). */
		uint32_t width = kind == 1 ? (uint32_t)grp->n : E->N;
		double need = (double)chunks * width * ((nph ? nph : 1) * 12.0 + 16.0);
		if (need > (double)E->opt->memory) {
			chakra__sim_fail(E, "rank %" PRIu32 " node %" PRIu64 " (%s): this collective "
			                 "needs %.0f MiB of bookkeeping (%" PRIu32 " chunks x %d phases x %"
			                 PRIu32 " NPUs), more than the simulation's memory budget of %.0f "
			                 "MiB (--memory; or fewer preferred-dataset-splits)", u->rank,
			                 chakra_node_id(n), chakra__sim_node_name(n), need / 1048576.0, chunks,
			                 nph, width, (double)E->opt->memory / 1048576.0);
			return;
		}
		in = inst_new(E, (size_t)chunks * (size_t)(nph ? nph : 1) * width);
		if (!in) {
			chakra__sim_nomem(E);
			return;
		}
		in->kind = kind;
		in->key = key;
		in->seq = seq;
		in->comm_type = type;
		in->comm_size = size;
		in->first_rank = u->rank;
		in->group = grp;
		in->width = width;
		in->chunks = chunks;
		in->nph = nph;
		for (int q = 0; q < nph; q++)
			E->tree_used |= ph[q].coll->steps;
		memcpy(in->ph, ph, sizeof ph);
		in->refs = 0;
	}
	in->refs++;
	chakra__sim_comm_begin(E, u);
	u->coll = n;
	u->coll_in = in;
	u->coll_start = E->now;
	chakra__sim_out_event(E, CHAKRA_SIM_ISSUE, u->rank, n);
	if (in->nph == 0) { /* a single NPU: nothing to exchange */
		if (heap_push(&E->h, E->now, EV_COLL_DONE, u->rank, NULL, 0))
			chakra__sim_nomem(E);
		return;
	}
	u->chunks_left = in->chunks;
	for (uint32_t c = 0; c < in->chunks && !E->failed; c++)
		request_phase(E, u, in, c, 0);
}

/* ---------------- phase runs ---------------- */

void chakra__sim_pr_free(engine *E, phase_run *pr)
{
	if (pr->prev)
		pr->prev->next = pr->next;
	else if (E->runs == pr)
		E->runs = pr->next;
	if (pr->next)
		pr->next->prev = pr->prev;
	if (pr->ring)
		chakra__sym_ring_drop(E, pr->ring);
	else if (pr->mode == PR_AWARE && pr->in->run)
		pr->in->run[slot_of(E, pr->in, pr->chunk, pr->phase) + inst_pos(E, pr->in, pr->base)] =
			NULL;
	if (pr->mode == PR_AWARE)
		inst_release(E, pr->in); /* (a run holds its instance: member_start) */
	chakra_free(pr->fin);
	chakra_free(pr->tie);
	chakra_free(pr->same);
	chakra_free(pr->rank);
	chakra_free(pr->finish);
	chakra_free(pr->m);
	chakra_free(pr->early);
	chakra_free(pr->started);
	chakra_free(pr->p_last);
	chakra_free(pr->done);
	chakra_free(pr->arr_max);
	chakra_free(pr->arr_cnt);
	chakra_free(pr);
}

/* A run for n members (members: how many are simulated). */
static phase_run *pr_new(engine *E, inst *in, uint32_t chunk, uint32_t p, uint32_t base,
                         int mode, uint32_t members)
{
	const sim_phase *ph = &in->ph[p];
	uint32_t n = ph->n;
	int tree = ph->coll->steps;
	uint64_t per = tree ? chakra__sim_tree_steps(ph) : ph->K;
	/* The bookkeeping is per member and message (tree: per step, 12
	 * bytes); refuse what could not fit rather than thrash. */
	double need = (double)members * (tree ? (double)per * 12 + 24 : (double)per / 8 + 40);
	if (need > (double)E->opt->memory) {
		chakra__sim_fail(E, "a collective phase needs %.0f MiB to be timed message by message "
		                 "(%" PRIu32 " NPUs x %" PRIu64 " %s), more than the simulation's memory "
		                 "budget of %.0f MiB (--memory)", need / 1048576.0, n, per,
		                 tree ? "steps" : "messages", (double)E->opt->memory / 1048576.0);
		return NULL;
	}
	phase_run *pr = chakra_calloc(1, sizeof *pr);
	if (!pr || !(pr->rank = chakra_malloc(n * sizeof *pr->rank))) {
		chakra_free(pr);
		chakra__sim_nomem(E);
		return NULL;
	}
	pr->next = E->runs;
	if (E->runs)
		E->runs->prev = pr;
	E->runs = pr;
	pr->in = in;
	pr->ph = ph;
	pr->chunk = chunk;
	pr->phase = p;
	pr->base = base;
	pr->n = n;
	pr->mode = mode;
	pr->h = &E->h;
	for (uint32_t j = 0; j < n; j++)
		pr->rank[j] = member_rank(E, in, ph, base, j);
	int ok;
	if (tree) {
		pr->steps = per;
		ok = (pr->started = chakra_calloc(members, sizeof *pr->started)) &&
		     (pr->p_last = chakra_calloc(members, sizeof *pr->p_last)) &&
		     (pr->done = chakra_calloc(members, sizeof *pr->done)) &&
		     (pr->arr_max = chakra_calloc(per * members + 1, sizeof *pr->arr_max)) &&
		     (pr->arr_cnt = chakra_calloc(per * members + 1, sizeof *pr->arr_cnt));
	} else {
		pr->words = (size_t)(per / 64 + 1);
		ok = (pr->m = chakra_calloc(members, sizeof *pr->m)) &&
		     (pr->early = chakra_calloc(pr->words * members, sizeof *pr->early));
	}
	if (ok && mode != PR_AWARE)
		ok = (pr->finish = chakra_calloc(members, sizeof *pr->finish)) != NULL;
	if (!ok) {
		chakra__sim_pr_free(E, pr);
		chakra__sim_nomem(E);
		return NULL;
	}
	return pr;
}

/* ---- the reference's packet protocol, one member at a time ---- */

static void pr_sched(engine *E, phase_run *pr, uint64_t t, uint32_t type, uint32_t j,
                     uint64_t b)
{
	if (heap_push(pr->h, t, type, j, pr, b))
		chakra__sim_nomem(E);
}

static void member_done(engine *E, phase_run *pr, uint32_t j, uint64_t t);

/* A packet enters now: it is ready after e (and its reduction). */
static void pkt_insert(engine *E, phase_run *pr, uint32_t j, uint64_t t)
{
	pmember *m = &pr->m[j];
	pr_sched(E, pr, sim_add(t, chakra__sim_pkt_delay(pr->ph, E->sys, m->ins)), EV_PGEN, j, 0);
	m->ins++;
}

static void proto_start(engine *E, phase_run *pr, uint32_t j, uint64_t t)
{
	for (uint32_t q = 0; q < pr->ph->P && !E->failed; q++)
		pkt_insert(E, pr, j, t);
}

/* A receive completes: the next packet enters. */
static void proto_received(engine *E, phase_run *pr, uint32_t j, uint64_t t)
{
	pr->m[j].recv++;
	pkt_insert(E, pr, j, t);
}

/* Message k of member j arrives (from its packet-k source). */
static void proto_arrive(engine *E, phase_run *pr, uint32_t j, uint64_t k, uint64_t t)
{
	if (k < pr->m[j].sent) /* its receive is posted */
		proto_received(E, pr, j, t);
	else
		pr->early[(size_t)j * pr->words + k / 64] |= (uint64_t)1 << (k % 64);
}

/* Member j sends its next message now and posts the matching receive. */
static void proto_send(engine *E, phase_run *pr, uint32_t j, uint64_t t)
{
	const sim_phase *ph = pr->ph;
	pmember *m = &pr->m[j];
	uint64_t k = m->sent++;
	uint64_t bytes = chakra__sim_pkt_bytes(ph, k);
	uint64_t *w = &pr->early[(size_t)j * pr->words + k / 64];
	if (*w & ((uint64_t)1 << (k % 64))) { /* already here: completes now, after this */
		*w &= ~((uint64_t)1 << (k % 64));
		pr_sched(E, pr, t, EV_PRECV, j, 0);
	}
	if (pr->mode == PR_AWARE) {
		uint32_t d = chakra__sim_pkt_dest(ph, j, k);
		chakra__sim_send_msg(E, pr->rank[j], pr->rank[d], (double)bytes, pr, NULL, d, k);
	} else if (pr->mode == PR_OFFLINE) {
		uint32_t d = chakra__sim_pkt_dest(ph, j, k);
		pr_sched(E, pr, sim_add(t, chakra__sim_unaware_delay(E->net, pr->rank[j], pr->rank[d],
		                                                     (double)bytes)), EV_PARR, d, k);
	} else { /* symmetric: member 0's message k comes from its source, sent now too */
		uint32_t s = chakra__sim_pkt_src(ph, 0, k);
		pr_sched(E, pr, sim_add(t, chakra__sim_unaware_delay(E->net, pr->rank[s], pr->rank[0],
		                                                     (double)bytes)), EV_PARR, 0, k);
	}
}

/* A packet is ready: the member may send (one message; direct all-reduce's
 * second half waits for every first-half message, then goes at once), and
 * is done once every packet is ready and every message sent. */
static void proto_general(engine *E, phase_run *pr, uint32_t j, uint64_t t)
{
	const sim_phase *ph = pr->ph;
	pmember *m = &pr->m[j];
	m->gen++;
	if (ph->coll->halves && ph->op == SIM_OP_AR && m->sent >= ph->K - (ph->n - 1)) {
		if (m->recv < ph->n - 1)
			return;
		for (uint32_t q = 0; q < ph->P && m->sent < ph->K && m->gen > m->sent; q++)
			proto_send(E, pr, j, t);
	} else if (m->sent < ph->K && m->gen > m->sent) {
		proto_send(E, pr, j, t);
	}
	if (!m->done && m->sent == ph->K && m->gen - m->sent == ph->P)
		member_done(E, pr, j, t);
}

/* ---- tree steps ---- */

static void tree_advance(engine *E, phase_run *pr, uint32_t j);

static void tree_start(engine *E, phase_run *pr, uint32_t j, uint64_t t)
{
	pr->started[j] = 1;
	pr->p_last[j] = sim_add(t, pr->ph->e);
	pr_sched(E, pr, pr->p_last[j], EV_SEND, j, 0);
}

/* Member j sends its step-s messages at t. */
static void tree_send(engine *E, phase_run *pr, uint32_t j, uint64_t s, uint64_t t)
{
	const sim_phase *ph = pr->ph;
	uint32_t nd = chakra__sim_tree_dests(ph, s, j, E->tmp_src);
	double m = (double)chakra__sim_tree_bytes(ph);
	for (uint32_t i = 0; i < nd; i++) {
		uint32_t d = E->tmp_src[i];
		if (pr->mode == PR_AWARE)
			chakra__sim_send_msg(E, pr->rank[j], pr->rank[d], m, pr, NULL, d, s);
		else
			pr_sched(E, pr, sim_add(t, chakra__sim_unaware_delay(E->net, pr->rank[j],
			                                                     pr->rank[d], m)), EV_PARR, d, s);
	}
	tree_advance(E, pr, j); /* a step with nothing to receive ends at once */
}

/* A step-s message reaches member j at t. */
static void tree_arrive(engine *E, phase_run *pr, uint32_t j, uint64_t s, uint64_t t)
{
	size_t a = (size_t)j * pr->steps + s;
	pr->arr_cnt[a]++;
	if (t > pr->arr_max[a])
		pr->arr_max[a] = t;
	tree_advance(E, pr, j);
}

/* Member j finishes every step whose messages are all in. */
static void tree_advance(engine *E, phase_run *pr, uint32_t j)
{
	const sim_phase *ph = pr->ph;
	if (!pr->started[j] || pr->done[j] == pr->steps)
		return;
	while (pr->done[j] < pr->steps) {
		uint64_t s = pr->done[j];
		size_t a = (size_t)j * pr->steps + s;
		uint32_t ns = chakra__sim_tree_sources(ph, s, j, E->tmp_src);
		if (pr->arr_cnt[a] < ns)
			return;
		uint64_t t = pr->p_last[j] > pr->arr_max[a] ? pr->p_last[j] : pr->arr_max[a];
		if (ns) /* nothing to receive (a leaf): no cost */
			t = sim_add(sim_add(t, ph->e),
			            chakra__sim_tree_reduces(ph, s)
			            ? chakra__sim_reduce_cost(E->sys, chakra__sim_tree_bytes(ph)) : 0);
		pr->p_last[j] = t;
		pr->done[j]++;
		if (pr->done[j] < pr->steps)
			pr_sched(E, pr, t, EV_SEND, j, pr->done[j]);
	}
	/* Done with the last step: the phase ends for j then. */
	pr_sched(E, pr, pr->p_last[j], EV_PGEN, j, 1);
}

/* ---- completion, dispatch ---- */

static void member_done(engine *E, phase_run *pr, uint32_t j, uint64_t t)
{
	if (pr->m)
		pr->m[j].done = 1;
	pr->members_done++;
	if (pr->mode != PR_AWARE) {
		pr->finish[j] = t;
		return;
	}
	if (E->sym) {
		/* Reduced: the members not simulated only load the links; a class
		 * must end together (checked once all are done). */
		pr->fin[j] = t;
		if (pr->members_done == pr->n && !chakra__sym_same_end(E, pr, pr->fin, pr->same))
			return;
		if (!sim_simulated(E, pr->rank[j]))
			return;
	}
	chakra__sim_phase_done(E, pr->in, pr->chunk, pr->phase, pr->rank[j]);
}

/* A phase-run event (protocol or tree) at time t. Returns 1 when the run
 * is over (every member done). */
static int pr_event(engine *E, phase_run *pr, uint32_t type, uint32_t j, uint64_t b, uint64_t t)
{
	switch (type) {
	case EV_PGEN:
		if (pr->ph->coll->steps)
			member_done(E, pr, j, t); /* b = 1: the last step ended */
		else
			proto_general(E, pr, j, t);
		break;
	case EV_PRECV:
		proto_received(E, pr, j, t);
		break;
	case EV_PARR:
		if (pr->ph->coll->steps)
			tree_arrive(E, pr, j, b, t);
		else
			proto_arrive(E, pr, j, b, t);
		break;
	case EV_SEND:
		tree_send(E, pr, j, b, t);
		break;
	}
	return pr->members_done == (pr->mode == PR_SYMMETRIC ? 1 : pr->n);
}

void chakra__sim_pr_event(engine *E, phase_run *pr, uint32_t type, uint32_t j, uint64_t b)
{
	if (E->sym) { /* (congestion-aware: an event of member j) */
		if (sim_simulated(E, pr->rank[j]))
			chakra__sym_tie(E, pr->rank[j], type);
		else
			chakra__sym_tie_key(E, &pr->tie[5 * (size_t)j], "member", pr->rank[j], type);
		if (E->failed)
			return;
	}
	if (pr_event(E, pr, type, j, b, E->now))
		chakra__sim_pr_free(E, pr);
}

/* Congestion-aware: member `rank` enters its ring's run (*run, made by the
 * first member) now. */
static void member_start(engine *E, inst *in, uint32_t chunk, uint32_t p, uint32_t base,
                         uint32_t rank, phase_run **run)
{
	phase_run *pr = *run;
	if (!pr) {
		pr = pr_new(E, in, chunk, p, base, PR_AWARE, in->ph[p].n);
		if (!pr)
			return;
		*run = pr;
		/* The run holds its instance: the members leave the collective in
		 * the run's last event, and one of them may start another at once,
		 * which must not get this instance back (its run table would then
		 * lose the new ring's run when this one is freed); reduced, its
		 * members not simulated may still run when the representatives
		 * have left. */
		in->refs++;
		uint32_t n = in->ph[p].n;
		if (E->sym && (!(pr->fin = chakra_calloc(n, sizeof *pr->fin)) ||
		               !(pr->tie = chakra_malloc(5 * (size_t)n * sizeof *pr->tie)) ||
		               !(pr->same = chakra_malloc(n * sizeof *pr->same)))) {
			chakra__sim_nomem(E);
			return;
		}
		if (E->sym) {
			memset(pr->tie, 0xff, 5 * (size_t)n * sizeof *pr->tie);
			if (chakra__sym_same(E, in, &in->ph[p], base, pr->same) < 0)
				return;
		}
	}
	uint32_t j = member_index(E, in, &in->ph[p], base, rank);
	if (pr->ph->coll->steps) {
		tree_start(E, pr, j, E->now);
		tree_advance(E, pr, j);
	} else {
		proto_start(E, pr, j, E->now);
	}
}

/* Congestion-unaware, every member timed offline by a small event loop
 * of its own (messages are fixed delays). Members start at their
 * recorded times; the ends go into pr->finish. */
static int run_offline(engine *E, phase_run *pr, const uint64_t *start)
{
	heap h;
	memset(&h, 0, sizeof h);
	pr->h = &h;
	uint32_t members = pr->mode == PR_SYMMETRIC ? 1 : pr->n;
	for (uint32_t j = 0; j < members && !E->failed; j++) {
		if (pr->ph->coll->steps)
			tree_start(E, pr, j, start[j]);
		else
			proto_start(E, pr, j, start[j]);
	}
	int over = 0;
	while (!E->failed && h.n && !over) {
		event ev = heap_pop(&h);
		over = pr_event(E, pr, ev.type, ev.a, ev.b, ev.t);
	}
	chakra_free(h.e);
	pr->h = &E->h;
	if (!E->failed && !over)
		return chakra__sim_fail(E, "internal error: a collective phase stopped before its "
		                        "end (%s, %" PRIu32 " NPUs)", chakra__sim_alg_name(pr->ph->alg),
		                        pr->n);
	return E->failed ? -1 : 0;
}

/* One packet at a time (ring, halving-doubling), every member alike:
 * packet k+1 enters when message k arrives, D after it was sent, so the
 * sends follow T(k+1) = T(k) + D(k) + ready(k+1). Ring steps repeat: runs
 * of equal ones are added at once. */
static uint64_t symmetric_one(engine *E, const inst *in, const sim_phase *ph, uint32_t base,
                              uint64_t start)
{
	uint64_t T = sim_add(start, chakra__sim_pkt_delay(ph, E->sys, 0));
	uint64_t D = 0;
	for (uint64_t k = 0; k < ph->K; k++) {
		if (!ph->coll->repeats || k == 0) {
			uint32_t s = chakra__sim_pkt_src(ph, 0, k);
			D = chakra__sim_unaware_delay(E->net, member_rank(E, in, ph, base, s), base,
			                              (double)chakra__sim_pkt_bytes(ph, k));
		}
		uint64_t g = chakra__sim_pkt_delay(ph, E->sys, k + 1);
		if (ph->coll->repeats) {
			/* Packets k+1 .. end of its half-round are alike. */
			uint64_t q = (k + 1) % ph->round;
			uint64_t last = q < ph->P ? k + 1 : (k + 1) - q + ph->round - 1;
			if (last > ph->K)
				last = ph->K;
			uint64_t more = last - (k + 1);
			T = sim_add(T, sim_mul(more + 1, sim_add(D, g)));
			k += more;
		} else {
			T = sim_add(T, sim_add(D, g));
		}
	}
	return T;
}

/* Congestion-unaware: the last member of a ring reached phase p; its
 * members started at start[j]. (Reduced: this is the full simulation's
 * handling of that last member, another than this one: its events are a
 * block of their own.) */
static void run_phase_unaware(engine *E, inst *in, uint32_t chunk, uint32_t p, uint32_t base,
                              const uint64_t *start)
{
	const sim_phase *ph = &in->ph[p];
	uint32_t n = ph->n;
	int same = 1;
	for (uint32_t j = 0; j < n; j++)
		same &= start[j] == start[0];
	if (E->sym)
		E->h.org = chakra__sym_ring_org(E, in, ph, base);
	/* Every member starts together and sees the same distances (a
	 * dimension is vertex-transitive and the protocols treat members
	 * alike): time member 0 only. */
	int symmetric = same && ph->dim >= 0 && !ph->coll->steps;
	uint64_t b = ((uint64_t)chunk << 32) | p << 1;
	if (symmetric && ph->P == 1) { /* the common case: no bookkeeping at all */
		uint64_t t = symmetric_one(E, in, ph, base, start[0]);
		if (heap_push(&E->h, t < E->now ? E->now : t, EV_PHASE, base, in, b | 1))
			chakra__sim_nomem(E);
		E->h.org = 0;
		return;
	}
	phase_run *pr = pr_new(E, in, chunk, p, base, symmetric ? PR_SYMMETRIC : PR_OFFLINE,
	                       symmetric ? 1 : n);
	if (!pr) {
		E->h.org = 0;
		return;
	}
	uint64_t org = E->h.org;
	E->h.org = 0;
	if (run_offline(E, pr, start)) {
		chakra__sim_pr_free(E, pr);
		return;
	}
	E->h.org = org;
	uint64_t t = pr->finish[0];
	if (symmetric) {
		/* The whole ring finishes now, in ring order. */
		if (heap_push(&E->h, t < E->now ? E->now : t, EV_PHASE, base, in, b | 1))
			chakra__sim_nomem(E);
	} else if (E->sym) {
		/* Reduced: a class ends together, and only its simulated members
		 * are told. */
		uint32_t *same = E->tmp_src;
		if (chakra__sym_same(E, in, ph, base, same) == 0 &&
		    chakra__sym_same_end(E, pr, pr->finish, same))
			for (uint32_t j = 0; j < n && !E->failed; j++) {
				if (!sim_simulated(E, pr->rank[j]))
					continue;
				uint64_t f = pr->finish[j] < E->now ? E->now : pr->finish[j];
				if (heap_push(&E->h, f, EV_PHASE, pr->rank[j], in, b))
					chakra__sim_nomem(E);
			}
	} else {
		for (uint32_t j = 0; j < n; j++) {
			uint64_t f = pr->finish[j] < E->now ? E->now : pr->finish[j];
			if (heap_push(&E->h, f, EV_PHASE, pr->rank[j], in, b))
				chakra__sim_nomem(E);
		}
	}
	E->h.org = 0;
	chakra__sim_pr_free(E, pr);
}

/* ---- messages (congestion-aware) ---- */

void chakra__sim_send_msg(engine *E, uint32_t from, uint32_t to, double bytes, phase_run *pr,
                          p2p_op *op, uint32_t member, uint64_t step)
{
	msg *m = chakra_malloc(sizeof *m);
	if (!m) {
		chakra__sim_nomem(E);
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
	m->org = E->sym ? ORG_MSG | from : 0;
	E->h.org = m->org;
	if (heap_push(&E->h, E->now, EV_HOP, 0, m, 0))
		chakra__sim_nomem(E);
	E->h.org = 0;
}

void chakra__sim_on_hop(engine *E, msg *m)
{
	if (!m->arrived) {
		int done = 0;
		uint64_t t = chakra__sim_links_step(E->links, &m->hop, m->bytes, E->now, &done);
		if (E->sym && chakra__sim_links_last(E->links) != (size_t)-1) /* (a link was taken) */
			chakra__sym_tie_link(E, chakra__sim_links_last(E->links));
		m->arrived = done;
		E->h.org = m->org;
		if (heap_push(&E->h, t, EV_HOP, 0, m, 0))
			chakra__sim_nomem(E);
		E->h.org = 0;
		return;
	}
	phase_run *pr = m->pr;
	if (!pr) {
		chakra__sim_p2p_arrived(E, m->op);
	} else {
		chakra__sim_pr_event(E, pr, EV_PARR, m->member, m->step);
	}
	chakra_free(m);
}
