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
 * tree is ours (steps, see sim_phase.c). Each algorithm's own part (its
 * names, P, K, rounds, partners, sizes) is a table in lib/sim/coll/; this
 * file holds what they share. */
#include <stdarg.h>
#include <stdio.h>

#include "chakra/chakra.h"
#include "coll/coll.h"

int chakra__sim_coll_fail(char *err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, SIM_ERR_LEN, fmt, ap);
	va_end(ap);
	return -1;
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
	p->coll->protocol(p);
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
		return chakra__sim_coll_fail(err, "system key '%s' has no entry for dimension %d",
		                             which, dim);
	const sim_coll *c = chakra__sim_coll_of(alg, NULL);
	if (!c)
		return chakra__sim_coll_fail(err, "system key '%s' entry %d: unknown algorithm %d",
		                             which, dim < 0 ? 0 : dim, (int)alg);
	alg = c->alg; /* a flat spelling runs its algorithm's phase */
	if (c->check && c->check(op, n, err))
		return -1;
	sim_phase *p = &out[(*np)++];
	p->dim = dim;
	p->op = op;
	p->alg = alg;
	p->coll = c;
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
		return chakra__sim_coll_fail(err, "comm_type %d (%s) is not simulated (all-reduce, "
		                             "reduce-scatter, all-gather, all-to-all, broadcast, reduce, "
		                             "barrier are)", comm_type, chakra_comm_type_name(comm_type)
		                             ? chakra_comm_type_name(comm_type) : "?");
	}
}

/* ---------------- the protocol, packet by packet ---------------- */

uint32_t chakra__sim_pkt_dest(const sim_phase *ph, uint32_t i, uint64_t k)
{
	return ph->coll->dest(ph, i, k);
}

uint32_t chakra__sim_pkt_src(const sim_phase *ph, uint32_t i, uint64_t k)
{
	return ph->coll->src(ph, i, k);
}

uint64_t chakra__sim_pkt_bytes(const sim_phase *ph, uint64_t k)
{
	return ph->coll->bytes ? ph->coll->bytes(ph, k) : ph->msg;
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
