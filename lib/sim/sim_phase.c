/* Collectives in the engine: which NPUs a collective spans and how its
 * issues on different NPUs are matched (the k-th over the same scope is
 * the k-th of its peers), the per-dimension chunk servers of each NPU, and
 * the timing of one phase on one ring: in closed form when messages never
 * interact (congestion-unaware), message by message over FIFO links
 * otherwise (congestion-aware). See sim_engine.c for the rule both follow. */
#include <inttypes.h>
#include <math.h>

#include "sim_engine_impl.h"

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
	chakra__sim_complete(E, u, n);
	chakra__sim_try_collective(E, u);
}

void chakra__sim_phase_done(engine *E, inst *in, uint32_t chunk, uint32_t p, uint32_t rank)
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
		chakra__sim_finish_collective(E, u);
	}
}

/* Which ranks a collective spans: a communicator group (pg_name), the
 * dimensions flagged by involved_dim, or every dimension. */
static int coll_scope(engine *E, npu *u, const chakra_node *n, int *dims, int *k,
                      const chakra_sim_group **grp, uint32_t *key, int *kind)
{
	const char *pg;
	size_t len;
	*grp = NULL;
	if (E->opt->groups && chakra_node_pg_name(n, &pg, &len) == 0 && len) {
		const chakra_sim_group *g = chakra_sim_groups_find(E->opt->groups, pg, len);
		if (!g)
			return chakra__sim_fail(E, "rank %" PRIu32 " node %" PRIu64 ": pg_name '%.*s' is not in "
			                "the communicator-group file", u->rank, chakra_node_id(n),
			                (int)len, pg);
		if (E->group_pos[g - E->opt->groups->g][u->rank] == UINT32_MAX)
			return chakra__sim_fail(E, "rank %" PRIu32 " node %" PRIu64 ": rank is not a member of "
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
		return chakra__sim_fail(E, "rank %" PRIu32 " node %" PRIu64 ": involved_dim: %s", u->rank,
		                chakra_node_id(n), chakra_strerror(nf));
	if (nf != E->net->ndims)
		return chakra__sim_fail(E, "rank %" PRIu32 " node %" PRIu64 ": involved_dim has %d entries "
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

void chakra__sim_start_collective(engine *E, npu *u, const chakra_node *n)
{
	int64_t type;
	uint64_t size = 0;
	int dims[SIM_MAX_DIMS], k = 0, kind = 0;
	const chakra_sim_group *grp = NULL;
	uint32_t key = 0;
	if (chakra_node_comm_type(n, &type) < 0) {
		chakra__sim_fail(E, "rank %" PRIu32 " node %" PRIu64 " (%s): collective without an integer "
		         "comm_type", u->rank, chakra_node_id(n), chakra__sim_node_name(n));
		return;
	}
	if (type != CHAKRA_BARRIER && chakra_node_comm_size(n, &size) < 0) {
		chakra__sim_fail(E, "rank %" PRIu32 " node %" PRIu64 " (%s): collective without an integer "
		         "comm_size", u->rank, chakra_node_id(n), chakra__sim_node_name(n));
		return;
	}
	if (coll_scope(E, u, n, dims, &k, &grp, &key, &kind))
		return;
	uint32_t seq = kind ? u->seq_group[key]++ : u->seq_mask[key]++;
	inst *in = inst_get(E, kind, key, seq);
	if (in) {
		if (in->comm_type != type || in->comm_size != size) {
			chakra__sim_fail(E, "rank %" PRIu32 " node %" PRIu64 " (%s): %s of %" PRIu64 " bytes, but "
			         "rank %" PRIu32 " issued %s of %" PRIu64 " bytes as the same collective "
			         "(#%" PRIu32 " on these NPUs)", u->rank, chakra_node_id(n), chakra__sim_node_name(n),
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
		int nph = chakra__sim_coll_plan(E->net, E->sys, (int)type, (double)size / chunks, dims, k,
		                        grp ? (uint32_t)grp->n : 0, ph, perr);
		if (nph < 0) {
			chakra__sim_fail(E, "rank %" PRIu32 " node %" PRIu64 " (%s): %s", u->rank,
			         chakra_node_id(n), chakra__sim_node_name(n), perr);
			return;
		}
		in = inst_new(E, (size_t)chunks * (size_t)(nph ? nph : 1) * E->N);
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
		in->chunks = chunks;
		in->nph = nph;
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

/* Congestion-unaware phase: every member's step times in closed form. */
static void run_phase_unaware(engine *E, inst *in, uint32_t chunk, uint32_t p, uint32_t base)
{
	const sim_phase *ph = &in->ph[p];
	const uint64_t e = E->sys->endpoint_delay;
	const uint64_t steps = chakra__sim_phase_steps(ph);
	size_t idx = ((size_t)chunk * (size_t)in->nph + p) * E->N;
	uint32_t n = ph->n, *src = E->tmp_src;
	uint64_t *cur = E->tmp_a, *nxt = E->tmp_b;
	int same = 1;
	for (uint32_t j = 0; j < n; j++) {
		cur[j] = in->start[idx + member_rank(E, in, ph, base, j)] + e;
		same &= cur[j] == cur[0];
	}
	if (same && ph->dim >= 0 && ph->alg != CHAKRA_SIM_ALG_DOUBLE_BINARY_TREE) {
		/* Every member starts together and sees the same distances (a
		 * dimension is vertex-transitive and ring, direct and
		 * halving-doubling treat members alike): time member 0 only. */
		uint64_t t = cur[0];
		for (uint64_t s = 0; s < steps; s++) {
			double m = chakra__sim_step_bytes(ph, s);
			uint64_t dmax = 0;
			uint32_t ns = chakra__sim_step_sources(ph, s, 0, src);
			for (uint32_t i = 0; i < ns; i++) {
				uint64_t d = chakra__sim_unaware_delay(E->net, member_rank(E, in, ph, base, src[i]),
				                               base, m);
				if (d > dmax)
					dmax = d;
			}
			t += dmax + e + (chakra__sim_step_reduces(ph, s) ? chakra__sim_reduce_cost(E->sys, m) : 0);
			/* Identical steps repeat: skip ahead while nothing changes. */
			if (ph->alg == CHAKRA_SIM_ALG_RING && s + 1 < steps) {
				uint64_t run = ph->op == SIM_OP_AR && s < steps / 2 ? steps / 2 : steps;
				uint64_t more = run - 1 - s;
				t += more * (dmax + e + (chakra__sim_step_reduces(ph, s) ? chakra__sim_reduce_cost(E->sys, m) : 0));
				s += more;
			}
		}
		if (heap_push(&E->h, t, EV_PHASE, base, in, ((uint64_t)chunk << 32) | p << 1 | 1))
			chakra__sim_nomem(E);
		return;
	}
	for (uint64_t s = 0; s < steps; s++) {
		double m = chakra__sim_step_bytes(ph, s);
		uint64_t r = chakra__sim_step_reduces(ph, s) ? chakra__sim_reduce_cost(E->sys, m) : 0;
		for (uint32_t j = 0; j < n; j++) {
			uint64_t t = cur[j];
			uint32_t rj = member_rank(E, in, ph, base, j);
			uint32_t ns = chakra__sim_step_sources(ph, s, j, src);
			for (uint32_t i = 0; i < ns; i++) {
				uint64_t a = cur[src[i]] +
				             chakra__sim_unaware_delay(E->net, member_rank(E, in, ph, base, src[i]),
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
			chakra__sim_nomem(E);
}

/* ---- congestion-aware: messages over FIFO links ---- */

void chakra__sim_pr_free(engine *E, phase_run *pr)
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
	uint64_t steps = chakra__sim_phase_steps(ph);
	uint32_t n = ph->n;
	if ((double)steps * n > 64e6) {
		chakra__sim_fail(E, "collective phase too large for the congestion-aware model (%" PRIu64
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
			chakra__sim_pr_free(E, pr);
		chakra__sim_nomem(E);
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
			chakra__sim_nomem(E);
	}
}

void chakra__sim_send_msg(engine *E, uint32_t from, uint32_t to, double bytes, phase_run *pr,
                     p2p_op *op, uint32_t member, uint64_t step)
{
	msg *m = malloc(sizeof *m);
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
	if (heap_push(&E->h, E->now, EV_HOP, 0, m, 0))
		chakra__sim_nomem(E);
}

static void advance(engine *E, phase_run *pr, uint32_t j);

void chakra__sim_on_send(engine *E, phase_run *pr, uint32_t j, uint64_t s)
{
	const sim_phase *ph = &pr->in->ph[pr->phase];
	uint32_t nd = chakra__sim_step_dests(ph, s, j, E->tmp_src);
	double m = chakra__sim_step_bytes(ph, s);
	for (uint32_t i = 0; i < nd; i++)
		chakra__sim_send_msg(E, pr->rank[j], pr->rank[E->tmp_src[i]], m, pr, NULL, E->tmp_src[i], s);
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
		uint32_t ns = chakra__sim_step_sources(ph, s, j, E->tmp_src);
		if (pr->arr_cnt[a] < ns)
			return;
		uint64_t t = pr->p_last[j] > pr->arr_max[a] ? pr->p_last[j] : pr->arr_max[a];
		double m = chakra__sim_step_bytes(ph, s);
		if (ns) /* nothing to receive (a tree leaf): no cost */
			t += E->sys->endpoint_delay +
			     (chakra__sim_step_reduces(ph, s) ? chakra__sim_reduce_cost(E->sys, m) : 0);
		pr->p_last[j] = t;
		pr->done[j]++;
		if (pr->done[j] < pr->steps) {
			if (heap_push(&E->h, t, EV_SEND, j, pr, pr->done[j]))
				chakra__sim_nomem(E);
		} else if (heap_push(&E->h, t, EV_PHASE, pr->rank[j], pr->in,
		                     ((uint64_t)pr->chunk << 32) | pr->phase << 1)) {
			chakra__sim_nomem(E);
		}
	}
	if (++pr->members_done == pr->n)
		chakra__sim_pr_free(E, pr);
}


void chakra__sim_on_hop(engine *E, msg *m)
{
	if (!m->arrived) {
		int done = 0;
		uint64_t t = chakra__sim_links_step(E->links, &m->hop, m->bytes, E->now, &done);
		m->arrived = done;
		if (heap_push(&E->h, t, EV_HOP, 0, m, 0))
			chakra__sim_nomem(E);
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
		chakra__sim_p2p_arrived(E, m->op);
	}
	free(m);
}

static void run_phase(engine *E, inst *in, uint32_t chunk, uint32_t p, uint32_t base)
{
	if (E->opt->model == CHAKRA_SIM_AWARE)
		run_phase_aware(E, in, chunk, p, base);
	else
		run_phase_unaware(E, in, chunk, p, base);
}
