/* SPDX-License-Identifier: Apache-2.0 */
/* Collectives as ASTRA-sim's system layer runs them: how a collective is cut
 * into chunks, the phases a chunk goes through (one per dimension), and
 * the protocol each member follows in a phase. The engine (sim_phase.c)
 * times the protocol; this file only says what it is.
 *
 * Sizes are integers divided as the reference divides them: a collective
 * of S bytes is cut into chunks of S / splits bytes (at least one byte per
 * NPU of the system, except for all-gather), ceil(S / chunk) of them; a
 * phase on n members sends x / n (all-reduce, reduce-scatter, all-to-all)
 * or x (all-gather) per message and hands x / n (reduce-scatter), x * n
 * (all-gather) or x on to the next phase.
 *
 * The protocol (the reference's Ring, AllToAll = direct and
 * HalvingDoubling classes): a member inserts P "packets" when the phase
 * starts and one more each time a message arrives. A packet is ready e
 * (endpoint-delay; under ASTRA-sim's rules 10 ns on a group's own ring,
 * sim_phase.c) after its insertion, plus a reduction of its own size
 * (3 * trunc(bytes / lbw)) when it is "processed"; each ready packet lets
 * the member send its next message (in packet order), and posting a
 * message posts the matching receive. Packets come in rounds of P then
 * the rest; the later ones of a round are processed for reduce-scatter,
 * and for all-reduce in every other round. A member is done when it has
 * sent its K messages and every packet is ready. Direct all-reduce sends
 * its second half only once all first-half messages arrived.
 *   ring: P = 1, to the next member;
 *   direct: P = n-1, packet k to member i+1+k mod (n-1);
 *   halvingDoubling: P = 1, partner i xor 1, 2, 4.. (all-gather n/2, n/4..),
 *     sizes halving (all-gather: doubling; all-reduce: then back).
 * Beyond the reference (same protocol): broadcast (n-1 x x), reduce (x,
 * processed), barrier (empty messages) on ring/direct/halvingDoubling,
 * all-to-all on halvingDoubling (x/2 to each partner). The double binary
 * tree is ours (steps, see sim_engine.c): two trees of x/2 each (member i
 * is node i of the first heap-ordered tree and node n-1-i of the second),
 * reduced up level by level, then broadcast down. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "chakra/chakra.h"
#include "sim_model.h"

static int fail(char *err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, SIM_ERR_LEN, fmt, ap);
	va_end(ap);
	return -1;
}

const char *chakra__sim_alg_name(chakra_sim_algorithm alg)
{
	switch (alg) {
	case CHAKRA_SIM_ALG_RING: return "ring";
	case CHAKRA_SIM_ALG_DIRECT: return "direct";
	case CHAKRA_SIM_ALG_HALVING_DOUBLING: return "halvingDoubling";
	case CHAKRA_SIM_ALG_DOUBLE_BINARY_TREE: return "doubleBinaryTree";
	case CHAKRA_SIM_ALG_ONE_RING: return "oneRing";
	case CHAKRA_SIM_ALG_ONE_DIRECT: return "oneDirect";
	case CHAKRA_SIM_ALG_ONE_HALVING_DOUBLING: return "oneHalvingDoubling";
	}
	return "?";
}

static uint32_t log2u(uint32_t n)
{
	uint32_t l = 0;
	while ((1u << l) < n)
		l++;
	return l;
}

int chakra__sim_alg_check(chakra_sim_algorithm alg, sim_op op, uint32_t n, char *err)
{
	if (alg == CHAKRA_SIM_ALG_HALVING_DOUBLING && (n & (n - 1)))
		return fail(err, "halvingDoubling needs a power-of-two number of NPUs, not %u", n);
	if (alg == CHAKRA_SIM_ALG_DOUBLE_BINARY_TREE && op != SIM_OP_AR && op != SIM_OP_REDUCE &&
	    op != SIM_OP_BCAST && op != SIM_OP_BARRIER)
		return fail(err, "doubleBinaryTree runs all-reduce, reduce, broadcast and barrier "
		            "phases only (this collective needs a %s phase)",
		            op == SIM_OP_RS ? "reduce-scatter" : op == SIM_OP_AG ? "all-gather"
		                                                                  : "all-to-all");
	return 0;
}

/* Depth of heap node k (root 0). */
static uint32_t depth(uint32_t k)
{
	uint32_t d = 0;
	while (k) {
		k = (k - 1) / 2;
		d++;
	}
	return d;
}

static chakra_sim_algorithm pick(const chakra_sim_system *sys, int impl, int slot,
                                 const char **which)
{
	static const char *const names[CHAKRA_SIM_IMPL_COUNT] = {
		"all-reduce-implementation", "all-gather-implementation",
		"reduce-scatter-implementation", "all-to-all-implementation"
	};
	*which = names[impl];
	if (slot >= sys->n_impl[impl])
		return (chakra_sim_algorithm)-1;
	return sys->impl[impl][slot];
}

/* The protocol constants of a phase (see the file comment). */
static void protocol(sim_phase *p)
{
	uint64_t n = p->n, x = p->x;
	p->msg = x;
	p->out = x;
	p->reduce = SIM_REDUCE_NONE;
	switch (p->op) {
	case SIM_OP_AR:
		p->msg = x / n;
		p->reduce = SIM_REDUCE_TOGGLE;
		break;
	case SIM_OP_RS:
		p->msg = x / n;
		p->out = x / n;
		p->reduce = SIM_REDUCE_ALL;
		break;
	case SIM_OP_AG:
		p->out = x * n;
		break;
	case SIM_OP_A2A:
		p->msg = x / n;
		break;
	case SIM_OP_REDUCE:
		p->reduce = SIM_REDUCE_ALL;
		break;
	case SIM_OP_BARRIER:
		p->msg = 0;
		break;
	case SIM_OP_BCAST:
		break;
	}
	switch (p->alg) {
	case CHAKRA_SIM_ALG_RING:
		p->cls = SIM_CLS_RING;
		p->P = 1;
		p->K = p->op == SIM_OP_AR ? 2 * (n - 1) : p->op == SIM_OP_A2A ? n * (n - 1) / 2 : n - 1;
		p->round = n; /* 1 + (n-1) */
		break;
	case CHAKRA_SIM_ALG_DIRECT:
		p->cls = SIM_CLS_DIRECT;
		p->P = (uint32_t)(n - 1);
		p->K = p->op == SIM_OP_AR ? 2 * (n - 1) : n - 1;
		p->round = 2 * (n - 1);
		break;
	case CHAKRA_SIM_ALG_HALVING_DOUBLING:
		p->cls = SIM_CLS_HD;
		p->P = 1;
		p->K = (p->op == SIM_OP_AR ? 2 : 1) * (uint64_t)log2u(p->n);
		p->round = log2u(p->n); /* 1 + (log n - 1) */
		if (p->op == SIM_OP_A2A)
			p->msg = x / 2;
		break;
	default: /* (the flat-ring kinds are mapped to these before) */
	case CHAKRA_SIM_ALG_DOUBLE_BINARY_TREE:
		p->cls = SIM_CLS_TREE;
		p->P = 0;
		p->K = 0;
		p->round = 1;
		break;
	}
}

static int add(sim_phase *out, int *np, const chakra_sim_network *net,
               const chakra_sim_system *sys, int dim, uint32_t gn, sim_op op, int impl,
               uint64_t x, char *err)
{
	uint32_t n = dim < 0 ? gn : net->size[dim];
	if (n <= 1)
		return 0; /* nothing to exchange in this dimension */
	const char *which;
	chakra_sim_algorithm alg = pick(sys, impl, dim < 0 ? 0 : dim, &which);
	if ((int)alg < 0)
		return fail(err, "system key '%s' has no entry for dimension %d", which, dim);
	if (alg >= CHAKRA_SIM_ALG_ONE_RING) /* the flat ring's own algorithm */
		alg = (chakra_sim_algorithm)(alg - CHAKRA_SIM_ALG_ONE_RING);
	if (chakra__sim_alg_check(alg, op, n, err))
		return -1;
	sim_phase *p = &out[(*np)++];
	p->dim = dim;
	p->op = op;
	p->alg = alg;
	p->n = n;
	p->x = x;
	p->e = sys->endpoint_delay;
	protocol(p);
	return 0;
}

void chakra__sim_coll_chunks(const chakra_sim_network *net, const chakra_sim_system *sys,
                             int comm_type, uint64_t size, uint64_t *chunk_bytes,
                             uint32_t *chunks)
{
	if (comm_type == CHAKRA_BARRIER) { /* no data: one empty chunk */
		*chunk_bytes = 0;
		*chunks = 1;
		return;
	}
	uint64_t chunk = size / sys->splits;
	/* The reference keeps chunks of at least one byte per NPU of the
	 * system (all-gather excepted), growing the collective to fit. */
	if (comm_type != CHAKRA_ALL_GATHER && net->npus > chunk) {
		chunk = net->npus;
		size = (uint64_t)sys->splits * chunk;
	}
	if (chunk == 0) { /* an all-gather smaller than the split count */
		*chunk_bytes = size;
		*chunks = 1;
		return;
	}
	uint64_t c = size / chunk + (size % chunk != 0);
	*chunk_bytes = chunk;
	*chunks = c > UINT32_MAX ? UINT32_MAX : (uint32_t)c;
}

int chakra__sim_coll_plan(const chakra_sim_network *net, const chakra_sim_system *sys,
                          int comm_type, uint64_t chunk_bytes, const int *dims, int k,
                          uint32_t gn, sim_phase *out, char *err)
{
	int np = 0;
	uint64_t x = chunk_bytes;
	switch (comm_type) {
	case 0: /* ALL_REDUCE */
		if (sys->local_bw_aware && k > 1) {
			for (int i = 0; i < k - 1; i++) {
				if (add(out, &np, net, sys, dims[i], gn, SIM_OP_RS,
				        CHAKRA_SIM_IMPL_ALL_REDUCE, x, err))
					return -1;
				if (np)
					x = out[np - 1].out;
			}
			if (add(out, &np, net, sys, dims[k - 1], gn, SIM_OP_AR,
			        CHAKRA_SIM_IMPL_ALL_REDUCE, x, err))
				return -1;
			for (int i = k - 2; i >= 0; i--) {
				int before = np;
				if (add(out, &np, net, sys, dims[i], gn, SIM_OP_AG,
				        CHAKRA_SIM_IMPL_ALL_REDUCE, x, err))
					return -1;
				if (np > before)
					x = out[np - 1].out;
			}
		} else {
			for (int i = 0; i < k; i++)
				if (add(out, &np, net, sys, dims[i], gn, SIM_OP_AR,
				        CHAKRA_SIM_IMPL_ALL_REDUCE, x, err))
					return -1;
		}
		return np;
	case 7: /* REDUCE_SCATTER */
	case 8: /* REDUCE_SCATTER_BLOCK */
		for (int i = 0; i < k; i++) {
			int before = np;
			if (add(out, &np, net, sys, dims[i], gn, SIM_OP_RS, CHAKRA_SIM_IMPL_REDUCE_SCATTER,
			        x, err))
				return -1;
			if (np > before)
				x = out[np - 1].out;
		}
		return np;
	case 2: /* ALL_GATHER: comm_size is each rank's input; the last dimension first */
		for (int i = k - 1; i >= 0; i--) {
			int before = np;
			if (add(out, &np, net, sys, dims[i], gn, SIM_OP_AG, CHAKRA_SIM_IMPL_ALL_GATHER, x,
			        err))
				return -1;
			if (np > before)
				x = out[np - 1].out;
		}
		return np;
	case 6: /* ALL_TO_ALL */
		for (int i = 0; i < k; i++)
			if (add(out, &np, net, sys, dims[i], gn, SIM_OP_A2A, CHAKRA_SIM_IMPL_ALL_TO_ALL, x,
			        err))
				return -1;
		return np;
	case 1: /* REDUCE */
	case 5: /* BROADCAST */
	case 9: /* BARRIER */
		for (int i = 0; i < k; i++) {
			sim_op op = comm_type == 1 ? SIM_OP_REDUCE : comm_type == 5 ? SIM_OP_BCAST
			            : SIM_OP_BARRIER;
			if (add(out, &np, net, sys, dims[i], gn, op, CHAKRA_SIM_IMPL_ALL_REDUCE,
			        comm_type == 9 ? 0 : x, err))
				return -1;
		}
		return np;
	default:
		return fail(err, "comm_type %d (%s) is not simulated (all-reduce, reduce-scatter, "
		            "all-gather, all-to-all, broadcast, reduce, barrier are)", comm_type,
		            chakra_comm_type_name(comm_type) ? chakra_comm_type_name(comm_type) : "?");
	}
}

/* ---------------- the protocol, packet by packet ---------------- */

/* Halving-doubling: the partner distance and the size of packet k, as the
 * reference updates them after each packet (the offset doubles and the
 * size halves; all-reduce turns back at n; all-gather starts at n/2 and
 * halves the offset while the size doubles). */
static void hd_packet(const sim_phase *ph, uint64_t k, uint32_t *off, uint64_t *bytes)
{
	if (ph->op != SIM_OP_AR && ph->op != SIM_OP_RS && ph->op != SIM_OP_AG) {
		/* Ours: partners 1, 2, 4.. with a fixed size. */
		*off = (uint32_t)1 << (k % log2u(ph->n));
		*bytes = ph->msg;
		return;
	}
	uint64_t o = ph->op == SIM_OP_AG ? ph->n / 2 : 1;
	uint64_t m = ph->op == SIM_OP_AG ? ph->x : ph->x / 2;
	int up = ph->op != SIM_OP_AG;
	for (uint64_t i = 0; i < k; i++) {
		if (up) {
			o *= 2;
			m /= 2;
			if (o == ph->n && ph->op == SIM_OP_AR) {
				up = 0;
				o /= 2;
				m *= 2;
			}
		} else {
			o /= 2;
			m *= 2;
		}
	}
	*off = (uint32_t)o;
	*bytes = m;
}

uint32_t chakra__sim_pkt_dest(const sim_phase *ph, uint32_t i, uint64_t k)
{
	uint32_t n = ph->n, off;
	uint64_t b;
	switch (ph->cls) {
	case SIM_CLS_RING:
		return i + 1 == n ? 0 : i + 1;
	case SIM_CLS_DIRECT:
		return (uint32_t)((i + 1 + k % (n - 1)) % n);
	case SIM_CLS_HD:
		hd_packet(ph, k, &off, &b);
		return i ^ off;
	}
	return i;
}

uint32_t chakra__sim_pkt_src(const sim_phase *ph, uint32_t i, uint64_t k)
{
	uint32_t n = ph->n;
	switch (ph->cls) {
	case SIM_CLS_RING:
		return i ? i - 1 : n - 1;
	case SIM_CLS_DIRECT:
		return (uint32_t)((i + n - 1 - k % (n - 1)) % n);
	default:
		return chakra__sim_pkt_dest(ph, i, k); /* partners are mutual */
	}
}

uint64_t chakra__sim_pkt_bytes(const sim_phase *ph, uint64_t k)
{
	if (ph->cls != SIM_CLS_HD)
		return ph->msg;
	uint32_t off;
	uint64_t b;
	hd_packet(ph, k, &off, &b);
	return b;
}

int chakra__sim_pkt_reduced(const sim_phase *ph, uint64_t k)
{
	if (ph->reduce == SIM_REDUCE_NONE || k % ph->round < ph->P)
		return 0; /* a round's first P packets are never processed */
	return ph->reduce == SIM_REDUCE_ALL || (k / ph->round) % 2 == 0;
}

/* Reduction of one message by local memory: one write and two reads,
 * each truncated to the nanosecond (lbw GB/s, decimal). */
uint64_t chakra__sim_reduce_cost(const chakra_sim_system *sys, uint64_t bytes)
{
	double lbw = sys->local_mem_bw * 1e9;
	return sim_mul(3, sim_cycles((double)bytes / lbw * 1e9));
}

uint64_t chakra__sim_pkt_delay(const sim_phase *ph, const chakra_sim_system *sys, uint64_t k)
{
	uint64_t d = ph->e;
	if (chakra__sim_pkt_reduced(ph, k))
		d = sim_add(d, chakra__sim_reduce_cost(sys, chakra__sim_pkt_bytes(ph, k)));
	return d;
}

/* ---------------- the double binary tree (steps) ---------------- */

uint64_t chakra__sim_tree_steps(const sim_phase *ph)
{
	if (ph->n <= 1)
		return 0;
	uint64_t h = depth(ph->n - 1);
	return ph->op == SIM_OP_AR || ph->op == SIM_OP_BARRIER ? 2 * h : h;
}

uint64_t chakra__sim_tree_bytes(const sim_phase *ph)
{
	return ph->op == SIM_OP_BARRIER ? 0 : ph->x / 2; /* each tree carries half */
}

/* Up (reduce) steps carry depth H-s to H-s-1; down steps d-1 to d. */
static int tree_up(const sim_phase *ph, uint64_t s)
{
	return ph->op == SIM_OP_REDUCE ||
	       ((ph->op == SIM_OP_AR || ph->op == SIM_OP_BARRIER) && s < depth(ph->n - 1));
}

int chakra__sim_tree_reduces(const sim_phase *ph, uint64_t s)
{
	return ph->op != SIM_OP_BARRIER && ph->op != SIM_OP_BCAST && tree_up(ph, s);
}

/* Tree neighbours of member i in step s, in both trees: senders to i
 * (want_src) or receivers from i. */
static uint32_t tree_peers(const sim_phase *ph, uint64_t s, uint32_t i, uint32_t *out,
                           int want_src)
{
	uint32_t n = ph->n, H = depth(n - 1), c = 0;
	int up = tree_up(ph, s);
	uint64_t down_s = up ? 0 : ph->op == SIM_OP_BCAST ? s : s - H;
	for (int t = 0; t < 2; t++) {
		uint32_t k = t ? n - 1 - i : i; /* i's node in tree t */
		uint32_t dk = depth(k);
		/* The level whose nodes send in this step. */
		uint32_t send_depth = up ? H - (uint32_t)s : (uint32_t)down_s;
		if (want_src) {
			if (up && dk + 1 == send_depth) { /* my children send to me */
				for (uint32_t ch = 2 * k + 1; ch <= 2 * k + 2 && ch < n; ch++)
					out[c++] = t ? n - 1 - ch : ch;
			} else if (!up && k && dk == send_depth + 1) { /* my parent sends */
				uint32_t pk = (k - 1) / 2;
				out[c++] = t ? n - 1 - pk : pk;
			}
		} else {
			if (up && k && dk == send_depth) {
				uint32_t pk = (k - 1) / 2;
				out[c++] = t ? n - 1 - pk : pk;
			} else if (!up && dk == send_depth) {
				for (uint32_t ch = 2 * k + 1; ch <= 2 * k + 2 && ch < n; ch++)
					out[c++] = t ? n - 1 - ch : ch;
			}
		}
	}
	return c;
}

uint32_t chakra__sim_tree_sources(const sim_phase *ph, uint64_t s, uint32_t i, uint32_t *src)
{
	return tree_peers(ph, s, i, src, 1);
}

uint32_t chakra__sim_tree_dests(const sim_phase *ph, uint64_t s, uint32_t i, uint32_t *dst)
{
	return tree_peers(ph, s, i, dst, 0);
}
