/* SPDX-License-Identifier: Apache-2.0 */
/* The symmetry reduction during a run (docs/sim.md, "Symmetry").
 *
 * Ranks are in classes that run the same trace (sim_workload.c finds
 * them); a reduced run simulates each class's lowest rank alone, as if
 * every rank of the class did what it does at the same cycles. That holds
 * when each interaction of a representative is one every rank of its class
 * has too, in an equivalent place; this file checks each kind as it first
 * happens and stops the run when one is not (chakra__sym_fail: the run is
 * redone with every NPU):
 *  - a dimension's rings: every ring that holds ranks of a class has the
 *    same classes in the same places, and the classes of the
 *    representative's ring have their representatives in it;
 *  - a group: the group of every rank of the class under the same name
 *    holds the same classes in the same places, using it under the same
 *    names, at the same distances (a ring in listed order);
 *  - a send or receive: every rank of the class has a peer of the same
 *    class at the same distance, and each pair of peers names each other;
 *  - a ring's members of one class end each phase together;
 *  - order: two events of one rank at one time and reg, from two different
 *    handlings, run in the full simulation in an order between ranks that
 *    the reduction does not know (same for a link, congestion-aware).
 * The network models do the rest: congestion-unaware delays depend only on
 * the coordinates that differ, and a dimension's links carry its own rings'
 * messages alone (congestion-aware runs take no group rings and no
 * send/recv). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "coll/coll.h"
#include "sim_engine_impl.h"
#include "../modmem.h"

/* A checked (class, name) of a group or (class, peer, direction). */
typedef struct sym_seen {
	uint64_t a, b;
	char *name;
} sym_seen;

struct sym_state {
	/* Dimensions: per dimension, per class: 0 unknown, 1 fine, 2 uniform
	 * (its rings hold it alone), 3 not symmetric. */
	uint8_t *dim[SIM_MAX_DIMS];
	/* Checked groups, peers and pairs (few: a set searched linearly per
	 * kind would do, but a map keeps rank maps of many names fast). */
	sym_seen *seen;
	size_t nseen, capseen;
	uint64_t *seen_h;           /* hash -> index + 1 */
	size_t hcap;
	/* Rings waiting for classes (open addressing, tombstones). */
	sym_ring **ring;
	size_t rcap, rused, rlive;
	/* Congestion-aware: each link's last hop (time, reg, org, preg, type). */
	uint64_t *link;
	/* Scratch for the group checks: per group, the orbit that saw it. */
	uint32_t *gmark;
	uint32_t orbit;
	/* The rings completed in the handling of block org_blk (ORG_RING). */
	uint64_t org_blk, org_key[64], nextra;
	uint32_t norg;
	/* With outputs: the last event of a simulated rank (time, reg, block,
	 * preg, rank). */
	uint64_t out_t, out_reg, out_blk, out_preg, out_org;
	uint32_t out_rank;
};

#define RING_TOMB ((sym_ring *)(uintptr_t)1)

static uint64_t str_mix(uint64_t h, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		h = sim_mulw(h ^ (unsigned char)s[i], 1099511628211ull);
	return sim_mix64(h);
}

int chakra__sym_fail(engine *E, const char *fmt, ...)
{
	if (E->failed)
		return -1;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(E->err, E->errlen, fmt, ap);
	va_end(ap);
	E->failed = 1;
	E->asym = 1;
	E->code = CHAKRA_ESTATE;
	return -1;
}

int chakra__sym_init(engine *E)
{
	struct sym_state *ss = chakra_calloc(1, sizeof *ss);
	if (!ss)
		return chakra__sim_nomem(E);
	E->ss = ss;
	ss->out_t = UINT64_MAX;
	if (E->opt->model == CHAKRA_SIM_AWARE) {
		size_t n = chakra__sim_links_count(E->links);
		ss->link = chakra_malloc(5 * (n ? n : 1) * sizeof *ss->link);
		if (!ss->link)
			return chakra__sim_nomem(E);
		memset(ss->link, 0xff, 5 * (n ? n : 1) * sizeof *ss->link);
	}
	return 0;
}

void chakra__sym_free(engine *E)
{
	struct sym_state *ss = E->ss;
	if (!ss)
		return;
	for (int d = 0; d < SIM_MAX_DIMS; d++)
		chakra_free(ss->dim[d]);
	for (size_t i = 0; i < ss->nseen; i++)
		chakra_free(ss->seen[i].name);
	chakra_free(ss->seen);
	chakra_free(ss->seen_h);
	for (size_t i = 0; i < ss->rcap; i++)
		if (ss->ring[i] && ss->ring[i] != RING_TOMB) {
			chakra_free(ss->ring[i]->start);
			chakra_free(ss->ring[i]);
		}
	chakra_free(ss->ring);
	chakra_free(ss->link);
	chakra_free(ss->gmark);
	chakra_free(ss);
	E->ss = NULL;
}

/* ---------------- order ---------------- */

static const char *kind(uint64_t type)
{
	switch (type) {
	case EV_START: return "its start";
	case EV_COMPUTE: return "a compute node's end";
	case EV_PHASE: return "a collective phase's end";
	case EV_SEND: return "a tree step";
	case EV_HOP: return "a message";
	case EV_PGEN: return "a packet ready";
	case EV_PRECV: return "a receive";
	case EV_PARR: return "a message's arrival";
	case EV_P2P_SENT: return "a send or receive's end";
	case EV_COLL_DONE: return "a collective's end";
	}
	return "an event";
}

/* Events of one member of a collective phase that commute (congestion-
 * aware): each arrival or ready packet counts one more of its kind (the
 * protocol's packets and messages are numbered as they come, not by who
 * sent them), so two at once do the same in either order. */
static int commutes(uint64_t type)
{
	return type == EV_PGEN || type == EV_PARR || type == EV_PRECV;
}

void chakra__sym_tie_key(engine *E, uint64_t *last, const char *what, uint32_t who,
                         uint32_t type)
{
	const event *ev = E->cur;
	if (!ev)
		return;
	/* Two events of one actor at one time and reg run in the order they
	 * were scheduled: the same for every rank of a class when both come from
	 * its own handlings (org 0: their order is its own), or both from one
	 * other origin (the rings one member completed in one handling; the
	 * messages of one sender), or from handlings of events with different
	 * regs (ordered by them); not when they come from two origins whose
	 * handlings had one time and reg (ordered between ranks). */
	uint64_t org = ev->org & ~ORG_TAINT;
	if (last[0] == ev->t && last[1] == ev->reg && last[2] != org && last[3] == ev->preg &&
	    !(last[4] == type && commutes(type))) {
		chakra__sym_fail(E, "%s %" PRIu32 " has two events at cycle %" PRIu64 " (scheduled at %"
		                 PRIu64 ": %s, %s) scheduled by different ranks' events, which the full "
		                 "simulation orders by its order between ranks", what, who, ev->t,
		                 ev->reg, kind(last[4]), kind(type));
		return;
	}
	last[0] = ev->t;
	last[1] = ev->reg;
	last[2] = org;
	last[3] = ev->preg;
	last[4] = type;
}

uint64_t chakra__sym_ring_org(engine *E, const inst *in, const sim_phase *ph, uint32_t base)
{
	struct sym_state *ss = E->ss;
	uint64_t blk = E->h.seq >> SEQ_BLOCK_BITS;
	/* The ring's members: a dimension's ring by its first rank, a group by
	 * itself (the same members complete together in one handling). */
	uint64_t key = ph->dim >= 0 ? ((uint64_t)(ph->dim + 1) << 32 | base)
	                            : (uint64_t)(uintptr_t)in->group;
	if (ss->org_blk != blk) {
		ss->org_blk = blk;
		ss->norg = 0;
	}
	uint32_t i = 0;
	while (i < ss->norg && ss->org_key[i] != key)
		i++;
	if (i == ss->norg && ss->norg < sizeof ss->org_key / sizeof *ss->org_key)
		ss->org_key[ss->norg++] = key;
	/* (past the table, each ring an origin of its own: more ties refused) */
	return ORG_RING | (blk & (((uint64_t)1 << 40) - 1)) << 20 |
	       (i < ss->norg ? i : (ss->nextra++ & 0x7ffff) | 0x80000);
}

void chakra__sym_tie(engine *E, uint32_t rank, uint32_t type)
{
	chakra__sym_tie_key(E, npu_of(E, rank)->tie, "rank", rank, type);
	/* With outputs (event lines, spans), the lines of two simulated ranks
	 * at one cycle must come in the full simulation's order too. Two events
	 * of two ranks at one time and reg do when they were scheduled by
	 * handlings of events of different regs (ordered by them), or by one
	 * handling, or when neither has another rank's handling among the
	 * events that scheduled it (by induction from the starts, in rank
	 * order, they are then in the full simulation's order); not else. */
	const event *ev = E->cur;
	struct sym_state *ss = E->ss;
	if (!E->sym_outputs || !ev || E->failed)
		return;
	uint64_t blk = ev->seq >> SEQ_BLOCK_BITS;
	if (ss->out_rank != rank && ss->out_t == ev->t && ss->out_reg == ev->reg &&
	    ss->out_blk != blk && ss->out_preg == ev->preg && (ss->out_org || ev->org)) {
		chakra__sym_fail(E, "ranks %" PRIu32 " and %" PRIu32 " have events at cycle %" PRIu64
		                 " (scheduled at %" PRIu64 ") whose order between them, in the event "
		                 "lines, the reduction does not know", ss->out_rank, rank, ev->t, ev->reg);
		return;
	}
	ss->out_rank = rank;
	ss->out_t = ev->t;
	ss->out_reg = ev->reg;
	ss->out_blk = blk;
	ss->out_preg = ev->preg;
	ss->out_org = ev->org;
}

void chakra__sym_tie_link(engine *E, size_t link)
{
	chakra__sym_tie_key(E, &E->ss->link[5 * link], "link", (uint32_t)link, EV_HOP);
}

/* ---------------- checked kinds ---------------- */

/* Has (a, b, name) been checked (1), or is it now recorded (0, -1 when out
 * of memory)? */
static int seen(engine *E, uint64_t a, uint64_t b, const char *name, size_t len)
{
	struct sym_state *ss = E->ss;
	uint64_t h = str_mix(sim_mix64(a * 31 + b) ^ a, name ? name : "", name ? len : 0);
	if (ss->hcap) {
		for (size_t at = h & (ss->hcap - 1); ss->seen_h[at]; at = (at + 1) & (ss->hcap - 1)) {
			const sym_seen *s = &ss->seen[ss->seen_h[at] - 1];
			if (s->a == a && s->b == b &&
			    (!s->name ? !name : name && strlen(s->name) == len && !memcmp(s->name, name, len)))
				return 1;
		}
	}
	if (2 * (ss->nseen + 1) > ss->hcap) {
		size_t nc = ss->hcap ? ss->hcap * 2 : 64;
		uint64_t *nh = chakra_calloc(nc, sizeof *nh);
		if (!nh)
			return chakra__sim_nomem(E);
		for (size_t i = 0; i < ss->nseen; i++) {
			const sym_seen *s = &ss->seen[i];
			uint64_t hh = str_mix(sim_mix64(s->a * 31 + s->b) ^ s->a, s->name ? s->name : "",
			                      s->name ? strlen(s->name) : 0);
			size_t at = hh & (nc - 1);
			while (nh[at])
				at = (at + 1) & (nc - 1);
			nh[at] = i + 1;
		}
		chakra_free(ss->seen_h);
		ss->seen_h = nh;
		ss->hcap = nc;
	}
	if (ss->nseen == ss->capseen) {
		size_t nc = ss->capseen ? ss->capseen * 2 : 16;
		sym_seen *n = chakra_realloc(ss->seen, nc * sizeof *n);
		if (!n)
			return chakra__sim_nomem(E);
		ss->seen = n;
		ss->capseen = nc;
	}
	sym_seen *s = &ss->seen[ss->nseen];
	s->a = a;
	s->b = b;
	s->name = NULL;
	if (name) {
		if (!(s->name = chakra_malloc(len + 1)))
			return chakra__sim_nomem(E);
		memcpy(s->name, name, len);
		s->name[len] = 0;
	}
	ss->nseen++;
	size_t at = h & (ss->hcap - 1);
	while (ss->seen_h[at])
		at = (at + 1) & (ss->hcap - 1);
	ss->seen_h[at] = ss->nseen;
	return 0;
}

/* Where a message between a and b sits in the network, as the
 * congestion-unaware delay sees it: the first dimension that differs and
 * the hops in it (0: the same NPU). */
static uint64_t where(const chakra_sim_network *net, uint32_t a, uint32_t b)
{
	for (int d = 0; d < net->ndims; d++) {
		uint32_t ca = chakra__sim_coord(net, a, d), cb = chakra__sim_coord(net, b, d);
		if (ca == cb)
			continue;
		uint32_t hops = 1, n = net->size[d];
		if (net->topo[d] == CHAKRA_SIM_RING) {
			uint32_t f = (cb + n - ca) % n;
			hops = f <= n - f ? f : n - f;
		} else if (net->topo[d] == CHAKRA_SIM_SWITCH) {
			hops = 2;
		}
		return (uint64_t)(d + 1) << 32 | hops;
	}
	return 0;
}

/* ---------------- dimensions ---------------- */

/* The classes along the dimension-d ring at base, compared with the ring
 * at other: 0 the same, else different. */
static int ring_differs(engine *E, int d, uint32_t base, uint32_t other)
{
	const sim_sym *S = E->sym;
	uint32_t n = E->net->size[d], st = E->net->stride[d];
	for (uint32_t j = 0; j < n; j++)
		if (S->cls[base + j * st] != S->cls[other + j * st])
			return 1;
	return 0;
}

/* Dimension d for every class at once: the first ring holding each class
 * is its model; a ring with the class elsewhere must match it. */
static int dim_classes(engine *E, int d)
{
	const sim_sym *S = E->sym;
	const chakra_sim_network *net = E->net;
	uint32_t C = S->nclasses, n = net->size[d], st = net->stride[d];
	uint8_t *st8 = chakra_calloc(C, 1);
	uint32_t *model = chakra_malloc(C * sizeof *model);
	if (!st8 || !model) {
		chakra_free(st8);
		chakra_free(model);
		return chakra__sim_nomem(E);
	}
	for (uint32_t c = 0; c < C; c++)
		model[c] = UINT32_MAX;
	for (uint32_t b = 0; b < E->N; b++) {
		if (chakra__sim_coord(net, b, d) != 0)
			continue; /* (rings start at coordinate 0) */
		uint32_t checked = UINT32_MAX; /* the model this ring matched last */
		for (uint32_t j = 0; j < n; j++) {
			uint32_t c = S->cls[b + j * st];
			if (model[c] == UINT32_MAX) {
				model[c] = b;
				continue;
			}
			if (model[c] == b || model[c] == checked || st8[c] == 3)
				continue;
			if (ring_differs(E, d, b, model[c]))
				st8[c] = 3;
			else
				checked = model[c];
		}
	}
	for (uint32_t c = 0; c < C; c++) {
		if (st8[c] == 3 || model[c] == UINT32_MAX)
			continue;
		/* The representative's ring: alone, or with the representatives of
		 * every class it holds. */
		uint32_t rep = S->rep[c], base = rep - chakra__sim_coord(net, rep, d) * st;
		int alone = 1, complete = 1;
		for (uint32_t j = 0; j < n; j++) {
			uint32_t m = base + j * st, y = S->cls[m];
			alone &= y == c;
			uint32_t ry = S->rep[y];
			complete &= ry - chakra__sim_coord(net, ry, d) * st == base;
		}
		st8[c] = alone ? 2 : complete ? 1 : 3;
	}
	chakra_free(model);
	E->ss->dim[d] = st8;
	return 0;
}

int chakra__sym_dim(engine *E, int d, uint32_t rank, int *uniform)
{
	if (!E->ss->dim[d] && dim_classes(E, d) < 0)
		return 0;
	uint32_t c = E->sym->cls[rank];
	uint8_t v = E->ss->dim[d][c];
	if (v == 3) {
		chakra__sym_fail(E, "rank %" PRIu32 "'s class is in rings of dimension %d that hold "
		                 "other classes in other places, or with their representatives "
		                 "elsewhere", rank, d);
		return 0;
	}
	*uniform = v == 2;
	return 1;
}

/* ---------------- groups ---------------- */

/* The names of rank m's class file that are, for m, the group named gname:
 * a bit set over the class's first 64 declared group names. (A name the map
 * does not declare is every rank's as written: a representative issuing
 * over it has that group checked under its own name.) */
static uint64_t roles(engine *E, uint32_t m, const char *gname)
{
	uint64_t set = 0;
	chakra_rank_subst s;
	if (E->map && chakra_rank_map_subst(E->map, m, &s) == 0)
		for (size_t j = 0; j < s.n_groups; j++)
			if (!strcmp(s.group_to[j], gname))
				set |= (uint64_t)1 << (j < 63 ? j : 63);
	return set;
}

/* Which pairs of a group ring the algorithms can use (SIM_PAIRS_*). */
static unsigned ring_pairs(engine *E)
{
	unsigned u = 0;
	for (int row = 0; row < CHAKRA_SIM_IMPL_COUNT; row++) {
		/* (ASTRA-sim runs a group ring with a ring when the list names
		 * more than one dimension, sim_phase.c) */
		const sim_coll *c = E->astra && E->sys->n_impl[row] > 1
		                            ? &chakra__sim_coll_ring
		                            : chakra__sim_coll_of(E->sys->impl[row][0], NULL);
		u |= c ? c->pairs : SIM_PAIRS_TREE;
	}
	return u;
}

/* Do group rings g and ref (listed order) put members at the same places
 * for every pair the algorithms use? */
static int same_places(engine *E, const chakra_sim_group *g, const chakra_sim_group *ref)
{
	const chakra_sim_network *net = E->net;
	size_t n = g->n;
	unsigned u = ring_pairs(E);
	for (size_t i = 0; i < n; i++) {
		if ((u & SIM_PAIRS_NEIGHBOURS) &&
		    where(net, g->ranks[i], g->ranks[(i + 1) % n]) !=
		            where(net, ref->ranks[i], ref->ranks[(i + 1) % n]))
			return 0;
		if (u & SIM_PAIRS_ALL)
			for (size_t j = 0; j < n; j++)
				if (where(net, g->ranks[i], g->ranks[j]) != where(net, ref->ranks[i], ref->ranks[j]))
					return 0;
		if (u & SIM_PAIRS_HD)
			for (size_t o = 1; o < n; o <<= 1)
				if ((i ^ o) < n && where(net, g->ranks[i], g->ranks[i ^ o]) !=
				                       where(net, ref->ranks[i], ref->ranks[i ^ o]))
					return 0;
		if ((u & SIM_PAIRS_TREE) && i) /* heap parents, in both trees */
			for (int t = 0; t < 2; t++) {
				size_t k = t ? n - 1 - i : i, pk = (k - 1) / 2;
				if (!k)
					continue;
				size_t a = t ? n - 1 - k : k, b = t ? n - 1 - pk : pk;
				if (where(net, g->ranks[a], g->ranks[b]) != where(net, ref->ranks[a], ref->ranks[b]))
					return 0;
			}
	}
	return 1;
}

int chakra__sym_group(engine *E, uint32_t rank, const char *pg, size_t len,
                      const chakra_sim_group *g)
{
	const sim_sym *S = E->sym;
	const chakra_sim_groups *gs = E->opt->groups;
	uint32_t c = S->cls[rank], gi = (uint32_t)(g - gs->g);
	int rc = seen(E, 1, c, pg, len);
	if (rc)
		return rc > 0;
	int mask = E->group_mask[gi];
	if (E->astra && g->n < E->N)
		mask = -1;
	if (mask < 0 && E->opt->model == CHAKRA_SIM_AWARE) {
		chakra__sym_fail(E, "group '%s' runs as one ring: its messages cross other rings' "
		                 "links (congestion-aware)", g->name);
		return 0;
	}
	/* Every class in a ring must have its representative there. */
	for (size_t i = 0; mask < 0 && i < g->n; i++)
		if (chakra__sim_group_pos(E, gi, S->rep[S->cls[g->ranks[i]]]) == UINT32_MAX) {
			chakra__sym_fail(E, "group '%s' holds rank %" PRIu32 " but not its class's "
			                 "representative, rank %" PRIu32, g->name, g->ranks[i],
			                 S->rep[S->cls[g->ranks[i]]]);
			return 0;
		}
	struct sym_state *ss = E->ss;
	if (!ss->gmark && !(ss->gmark = chakra_calloc(gs->n, sizeof *ss->gmark))) {
		chakra__sim_nomem(E);
		return 0;
	}
	uint32_t orbit = ++ss->orbit;
	/* Every rank of the class: its group under this name, a copy of g. */
	for (uint32_t k = S->first[c]; k < S->first[c + 1]; k++) {
		uint32_t m = S->members[k];
		size_t l = len;
		const char *name = E->map ? chakra__sim_pg(E, m, pg, &l) : pg;
		const chakra_sim_group *h = chakra__sim_group_find(E, name, l);
		if (!h || chakra__sim_group_pos(E, (uint32_t)(h - gs->g), m) == UINT32_MAX) {
			chakra__sym_fail(E, "rank %" PRIu32 " has no group '%.*s' of its own", m, (int)l,
			                 name);
			return 0;
		}
		uint32_t hi = (uint32_t)(h - gs->g);
		if (ss->gmark[hi] == orbit)
			continue;
		ss->gmark[hi] = orbit;
		int hmask = E->group_mask[hi];
		if (E->astra && h->n < E->N)
			hmask = -1;
		if (h->n != g->n || hmask != mask) {
			chakra__sym_fail(E, "groups '%s' and '%s' of one class differ in size or "
			                 "dimensions", g->name, h->name);
			return 0;
		}
		if (mask < 0 && h != g && !same_places(E, h, g)) {
			chakra__sym_fail(E, "groups '%s' and '%s' of one class put their members at "
			                 "different distances", g->name, h->name);
			return 0;
		}
		/* Member by member (a ring: in listed order; on dimensions: their
		 * rings are checked there, so by class alone): the same class,
		 * using the group under the same names. */
		for (size_t i = 0; i < h->n; i++) {
			uint32_t a = h->ranks[i], b = g->ranks[i];
			if (mask >= 0) { /* any member of g of a's class will do */
				b = UINT32_MAX;
				for (size_t j = 0; j < g->n && b == UINT32_MAX; j++)
					if (S->cls[g->ranks[j]] == S->cls[a])
						b = g->ranks[j];
			}
			if (b == UINT32_MAX || S->cls[a] != S->cls[b] ||
			    roles(E, a, h->name) != roles(E, b, g->name)) {
				chakra__sym_fail(E, "groups '%s' and '%s' of one class hold other classes, or "
				                 "ranks that name them otherwise (ranks %" PRIu32 " and %" PRIu32
				                 ")", g->name, h->name, a, b == UINT32_MAX ? a : b);
				return 0;
			}
		}
	}
	return 1;
}

/* ---------------- send / recv ---------------- */

int chakra__sym_p2p(engine *E, uint32_t rank, int64_t v0, uint32_t peer, int is_send)
{
	const sim_sym *S = E->sym;
	uint32_t c = S->cls[rank];
	if (E->opt->model == CHAKRA_SIM_AWARE) {
		chakra__sym_fail(E, "rank %" PRIu32 " sends or receives: point-to-point messages "
		                 "cross other rings' links (congestion-aware)", rank);
		return 0;
	}
	if (!sim_simulated(E, peer)) {
		chakra__sym_fail(E, "rank %" PRIu32 " %s rank %" PRIu32 ", which is not its class's "
		                 "representative", rank, is_send ? "sends to" : "receives from", peer);
		return 0;
	}
	char key[48];
	int kl = snprintf(key, sizeof key, "%" PRId64, v0);
	int rc = seen(E, 2 + (uint64_t)is_send, c, key, (size_t)kl);
	if (rc)
		return rc > 0;
	uint64_t at = where(E->net, rank, peer);
	uint32_t pc = S->cls[peer];
	for (uint32_t k = S->first[c]; k < S->first[c + 1]; k++) {
		uint32_t m = S->members[k];
		int64_t q = E->map ? chakra__sim_peer(E, m, v0) : v0;
		if (q < 0 || (uint64_t)q >= E->N || S->cls[q] != pc || where(E->net, m, (uint32_t)q) != at) {
			chakra__sym_fail(E, "rank %" PRIu32 " %s rank %" PRId64 ", not a rank in the place "
			                 "of its class's representative's peer", m,
			                 is_send ? "sends to" : "receives from", q);
			return 0;
		}
	}
	return 1;
}

int chakra__sym_pair(engine *E, const p2p_op *send, const p2p_op *recv)
{
	const sim_sym *S = E->sym;
	uint32_t a = S->cls[send->rank], b = S->cls[recv->rank];
	char key[64];
	int kl = snprintf(key, sizeof key, "%" PRId64 " %" PRIu32 " %" PRId64, send->v0, b, recv->v0);
	int rc = seen(E, 4, a, key, (size_t)kl);
	if (rc)
		return rc > 0;
	for (uint32_t k = S->first[a]; k < S->first[a + 1]; k++) {
		uint32_t m = S->members[k];
		int64_t to = E->map ? chakra__sim_peer(E, m, send->v0) : send->v0;
		int64_t back = to >= 0 && (uint64_t)to < E->N
		               ? (E->map ? chakra__sim_peer(E, (uint32_t)to, recv->v0) : recv->v0) : -1;
		if (back != (int64_t)m) {
			chakra__sym_fail(E, "rank %" PRIu32 " sends to rank %" PRId64 ", which receives from "
			                 "rank %" PRId64 ": the pairs of peers differ from the "
			                 "representatives'", m, to, back);
			return 0;
		}
	}
	return 1;
}

/* ---------------- rings ---------------- */

int chakra__sym_same(engine *E, const inst *in, const sim_phase *ph, uint32_t base, uint32_t *same)
{
	/* A class's first member: small rings are scanned, larger ones hashed. */
	uint32_t n = ph->n;
	if (n <= 64) {
		for (uint32_t j = 0; j < n; j++) {
			uint32_t c = E->sym->cls[member_rank(E, in, ph, base, j)];
			same[j] = j;
			for (uint32_t i = 0; i < j; i++)
				if (same[i] == i && E->sym->cls[member_rank(E, in, ph, base, i)] == c) {
					same[j] = i;
					break;
				}
		}
		return 0;
	}
	size_t cap = 128;
	while (cap < 2 * (size_t)n)
		cap *= 2;
	uint64_t *h = chakra_malloc(cap * sizeof *h);
	if (!h)
		return chakra__sim_nomem(E);
	memset(h, 0xff, cap * sizeof *h);
	for (uint32_t j = 0; j < n; j++) {
		uint32_t c = E->sym->cls[member_rank(E, in, ph, base, j)];
		size_t at = sim_mix64(c) & (cap - 1);
		while (h[at] != UINT64_MAX && (uint32_t)(h[at] >> 32) != c)
			at = (at + 1) & (cap - 1);
		if (h[at] == UINT64_MAX)
			h[at] = (uint64_t)c << 32 | j;
		same[j] = (uint32_t)h[at];
	}
	chakra_free(h);
	return 0;
}

int chakra__sym_same_end(engine *E, const phase_run *pr, const uint64_t *fin, const uint32_t *same)
{
	for (uint32_t j = 0; j < pr->n; j++)
		if (fin[j] != fin[same[j]]) {
			chakra__sym_fail(E, "ranks %" PRIu32 " and %" PRIu32 " of one class end a phase of "
			                 "a collective at cycles %" PRIu64 " and %" PRIu64, pr->rank[same[j]],
			                 pr->rank[j], fin[same[j]], fin[j]);
			return 0;
		}
	return 1;
}

static uint64_t ring_hash(const inst *in, uint32_t chunk, uint32_t p, uint32_t base)
{
	return sim_mix64((uint64_t)(uintptr_t)in ^
	                 sim_mix64((uint64_t)chunk << 40 ^ (uint64_t)p << 32 ^ base));
}

sym_ring *chakra__sym_ring(engine *E, const inst *in, uint32_t chunk, uint32_t p, uint32_t base,
                           int create)
{
	struct sym_state *ss = E->ss;
	uint64_t h = ring_hash(in, chunk, p, base);
	if (ss->rcap) {
		for (size_t at = h & (ss->rcap - 1); ss->ring[at]; at = (at + 1) & (ss->rcap - 1)) {
			sym_ring *r = ss->ring[at];
			if (r != RING_TOMB && r->in == in && r->chunk == chunk && r->phase == p &&
			    r->base == base)
				return r;
		}
	}
	if (!create)
		return NULL;
	if (2 * (ss->rused + 1) > ss->rcap) { /* grow (or clean tombstones) */
		size_t nc = ss->rcap ? ss->rcap : 64;
		while (2 * (ss->rlive + 1) > nc / 2)
			nc *= 2;
		sym_ring **nr = chakra_calloc(nc, sizeof *nr);
		if (!nr) {
			chakra__sim_nomem(E);
			return NULL;
		}
		for (size_t i = 0; i < ss->rcap; i++) {
			sym_ring *r = ss->ring[i];
			if (!r || r == RING_TOMB)
				continue;
			size_t at = ring_hash(r->in, r->chunk, r->phase, r->base) & (nc - 1);
			while (nr[at])
				at = (at + 1) & (nc - 1);
			nr[at] = r;
		}
		chakra_free(ss->ring);
		ss->ring = nr;
		ss->rcap = nc;
		ss->rused = ss->rlive;
	}
	sym_ring *r = chakra_calloc(1, sizeof *r);
	uint32_t n = in->ph[p].n;
	if (!r || !(r->start = chakra_malloc((n ? n : 1) * sizeof *r->start))) {
		chakra_free(r);
		chakra__sim_nomem(E);
		return NULL;
	}
	r->in = in;
	r->chunk = chunk;
	r->phase = p;
	r->base = base;
	size_t at = h & (ss->rcap - 1);
	while (ss->ring[at] && ss->ring[at] != RING_TOMB)
		at = (at + 1) & (ss->rcap - 1);
	if (!ss->ring[at])
		ss->rused++;
	ss->ring[at] = r;
	ss->rlive++;
	return r;
}

void chakra__sym_ring_drop(engine *E, sym_ring *r)
{
	struct sym_state *ss = E->ss;
	if (!ss || !r)
		return;
	uint64_t h = ring_hash(r->in, r->chunk, r->phase, r->base);
	for (size_t at = h & (ss->rcap - 1); ss->ring[at]; at = (at + 1) & (ss->rcap - 1))
		if (ss->ring[at] == r) {
			ss->ring[at] = RING_TOMB;
			ss->rlive--;
			break;
		}
	chakra_free(r->start);
	chakra_free(r);
}

/* ---------------- rank maps ---------------- */

int64_t chakra__sim_peer(engine *E, uint32_t rank, int64_t v0)
{
	chakra_rank_subst s;
	if (!E->map || chakra_rank_map_subst(E->map, rank, &s) < 0)
		return v0;
	for (size_t j = 0; j < s.n_peers; j++)
		if (s.peer_from[j] == v0)
			return s.peer_to[j];
	return v0;
}

const char *chakra__sim_pg(engine *E, uint32_t rank, const char *pg, size_t *len)
{
	chakra_rank_subst s;
	if (!E->map || chakra_rank_map_subst(E->map, rank, &s) < 0)
		return pg;
	for (size_t j = 0; j < s.n_groups; j++)
		if (strlen(s.group_from[j]) == *len && !memcmp(s.group_from[j], pg, *len)) {
			*len = strlen(s.group_to[j]);
			return s.group_to[j];
		}
	return pg;
}
