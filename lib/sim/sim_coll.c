/* Collectives as the system layer runs them: each chunk goes through one
 * phase per dimension, and each phase is a sequence of steps in which every
 * member sends one message (or, for `direct`, one to every peer) and
 * receives the matching ones. The engine times the steps; this file only
 * says what the steps are.
 *
 * All-reduce over several dimensions with localBWAware = reduce-scatter on
 * dimensions 0..k-2, all-reduce on the last, all-gather back on k-2..0; the
 * chunk shrinks by n after each reduce-scatter and grows back after each
 * all-gather. Ring steps (n members, x bytes entering the phase):
 *   all-reduce 2(n-1) x x/n (the first n-1 reduced), reduce-scatter n-1 x
 *   x/n (reduced), all-gather n-1 x x, all-to-all n(n-1)/2 x x/n.
 * Beyond the reference: broadcast n-1 x x, reduce n-1 x x (reduced),
 * barrier n-1 empty messages; halving-doubling (log2 n steps each way);
 * double binary tree: two trees of x/2 each (member i is node i of the
 * first heap-ordered tree and node n-1-i of the second, so the leaves of
 * one are inner nodes of the other), reduced up level by level, then
 * broadcast down; a member with nothing to receive in a step waits. */
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
	if (alg == CHAKRA_SIM_ALG_DOUBLE_BINARY_TREE && op != SIM_OP_AR && op != SIM_OP_REDUCE && op != SIM_OP_BCAST &&
	    op != SIM_OP_BARRIER)
		return fail(err, "doubleBinaryTree runs all-reduce, reduce, broadcast and barrier "
		            "phases only (this collective needs a %s phase)",
		            op == SIM_OP_RS ? "reduce-scatter" : op == SIM_OP_AG ? "all-gather"
		                                                                  : "all-to-all");
	return 0;
}

/* Depth of heap node k (root 0) and the tree height for n nodes. */
static uint32_t depth(uint32_t k)
{
	uint32_t d = 0;
	while (k) {
		k = (k - 1) / 2;
		d++;
	}
	return d;
}

static chakra_sim_algorithm pick(const chakra_sim_system *sys, int impl, int slot, const char **which)
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

static int add(sim_phase *out, int *np, const chakra_sim_network *net, const chakra_sim_system *sys,
               int dim, uint32_t gn, sim_op op, int impl, double x, char *err)
{
	uint32_t n = dim < 0 ? gn : net->size[dim];
	if (n <= 1)
		return 0; /* nothing to exchange in this dimension */
	const char *which;
	chakra_sim_algorithm alg = pick(sys, impl, dim < 0 ? 0 : dim, &which);
	if ((int)alg < 0)
		return fail(err, "system key '%s' has no entry for dimension %d", which, dim);
	if (chakra__sim_alg_check(alg, op, n, err))
		return -1;
	sim_phase *p = &out[(*np)++];
	p->dim = dim;
	p->op = op;
	p->alg = alg;
	p->n = n;
	p->x = x;
	return 0;
}

int chakra__sim_coll_plan(const chakra_sim_network *net, const chakra_sim_system *sys, int comm_type,
                  double chunk_bytes, const int *dims, int k, uint32_t gn,
                  sim_phase *out, char *err)
{
	int np = 0;
	double x = chunk_bytes;
	switch (comm_type) {
	case 0: /* ALL_REDUCE */
		if (sys->local_bw_aware && k > 1) {
			for (int i = 0; i < k - 1; i++) {
				if (add(out, &np, net, sys, dims[i], gn, SIM_OP_RS, CHAKRA_SIM_IMPL_ALL_REDUCE, x, err))
					return -1;
				x /= dims[i] < 0 ? gn : net->size[dims[i]];
			}
			if (add(out, &np, net, sys, dims[k - 1], gn, SIM_OP_AR, CHAKRA_SIM_IMPL_ALL_REDUCE, x, err))
				return -1;
			for (int i = k - 2; i >= 0; i--) {
				if (add(out, &np, net, sys, dims[i], gn, SIM_OP_AG, CHAKRA_SIM_IMPL_ALL_REDUCE, x, err))
					return -1;
				x *= dims[i] < 0 ? gn : net->size[dims[i]];
			}
		} else {
			for (int i = 0; i < k; i++)
				if (add(out, &np, net, sys, dims[i], gn, SIM_OP_AR, CHAKRA_SIM_IMPL_ALL_REDUCE, x, err))
					return -1;
		}
		return np;
	case 7: /* REDUCE_SCATTER */
	case 8: /* REDUCE_SCATTER_BLOCK */
		for (int i = 0; i < k; i++) {
			if (add(out, &np, net, sys, dims[i], gn, SIM_OP_RS, CHAKRA_SIM_IMPL_REDUCE_SCATTER, x, err))
				return -1;
			x /= dims[i] < 0 ? gn : net->size[dims[i]];
		}
		return np;
	case 2: /* ALL_GATHER: comm_size is each rank's input; the last dimension first */
		for (int i = k - 1; i >= 0; i--) {
			if (add(out, &np, net, sys, dims[i], gn, SIM_OP_AG, CHAKRA_SIM_IMPL_ALL_GATHER, x, err))
				return -1;
			x *= dims[i] < 0 ? gn : net->size[dims[i]];
		}
		return np;
	case 6: /* ALL_TO_ALL */
		for (int i = 0; i < k; i++)
			if (add(out, &np, net, sys, dims[i], gn, SIM_OP_A2A, CHAKRA_SIM_IMPL_ALL_TO_ALL, x, err))
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

uint64_t chakra__sim_phase_steps(const sim_phase *ph)
{
	uint64_t n = ph->n;
	if (n <= 1)
		return 0;
	switch (ph->alg) {
	case CHAKRA_SIM_ALG_RING:
		if (ph->op == SIM_OP_AR)
			return 2 * (n - 1);
		if (ph->op == SIM_OP_A2A)
			return n * (n - 1) / 2;
		return n - 1;
	case CHAKRA_SIM_ALG_DIRECT:
		return ph->op == SIM_OP_AR ? 2 : 1;
	case CHAKRA_SIM_ALG_HALVING_DOUBLING:
		return ph->op == SIM_OP_AR ? 2 * (uint64_t)log2u(ph->n) : log2u(ph->n);
	case CHAKRA_SIM_ALG_DOUBLE_BINARY_TREE:
		return ph->op == SIM_OP_AR || ph->op == SIM_OP_BARRIER ? 2 * (uint64_t)depth(ph->n - 1)
		                                                       : depth(ph->n - 1);
	}
	return 0;
}

double chakra__sim_step_bytes(const sim_phase *ph, uint64_t s)
{
	double x = ph->x, n = ph->n;
	if (ph->alg == CHAKRA_SIM_ALG_DOUBLE_BINARY_TREE)
		return x / 2; /* each tree carries half */
	if (ph->alg == CHAKRA_SIM_ALG_HALVING_DOUBLING) {
		uint32_t L = log2u(ph->n);
		switch (ph->op) {
		case SIM_OP_AR:
			return s < L ? x / ldexp(1.0, (int)s + 1) : x / ldexp(1.0, (int)(2 * L - s));
		case SIM_OP_RS:
			return x / ldexp(1.0, (int)s + 1);
		case SIM_OP_AG:
			return x * ldexp(1.0, (int)s);
		case SIM_OP_A2A:
			return x / 2;
		default:
			return x;
		}
	}
	switch (ph->op) {
	case SIM_OP_AR:
	case SIM_OP_RS:
	case SIM_OP_A2A:
		return x / n;
	default:
		return x; /* all-gather: each rank's input; broadcast, reduce; barrier: 0 */
	}
}

int chakra__sim_step_reduces(const sim_phase *ph, uint64_t s)
{
	switch (ph->op) {
	case SIM_OP_RS:
	case SIM_OP_REDUCE:
		return 1;
	case SIM_OP_AR:
		return s < chakra__sim_phase_steps(ph) / 2;
	default:
		return 0;
	}
}

/* Double binary tree: is step s an up (reduce) step, and which level does
 * it move? Up steps carry depth H-s to H-s-1; down steps depth d-1 to d. */
static int dbt_up(const sim_phase *ph, uint64_t s)
{
	return ph->op == SIM_OP_REDUCE ||
	       ((ph->op == SIM_OP_AR || ph->op == SIM_OP_BARRIER) && s < depth(ph->n - 1));
}

/* Tree neighbours of member i in step s, in both trees: senders to i
 * (want_src) or receivers from i. */
static uint32_t dbt_peers(const sim_phase *ph, uint64_t s, uint32_t i, uint32_t *out,
                          int want_src)
{
	uint32_t n = ph->n, H = depth(n - 1), c = 0;
	int up = dbt_up(ph, s);
	uint64_t down_s = ph->op == SIM_OP_BCAST ? s : s - H;
	for (int t = 0; t < 2; t++) {
		uint32_t k = t ? n - 1 - i : i; /* i's node in tree t */
		uint32_t dk = depth(k);
		/* The level whose nodes send in this step. */
		uint32_t send_depth = up ? H - (uint32_t)s : (uint32_t)down_s;
		/* Up: depth send_depth sends to its parent; down: it sends to its
		 * children. */
		int to_parent = up;
		if (want_src) {
			if (to_parent && dk + 1 == send_depth) { /* my children send to me */
				for (uint32_t ch = 2 * k + 1; ch <= 2 * k + 2 && ch < n; ch++)
					out[c++] = t ? n - 1 - ch : ch;
			} else if (!to_parent && k && dk == send_depth + 1) { /* my parent sends */
				uint32_t pk = (k - 1) / 2;
				out[c++] = t ? n - 1 - pk : pk;
			}
		} else {
			if (to_parent && k && dk == send_depth) {
				uint32_t pk = (k - 1) / 2;
				out[c++] = t ? n - 1 - pk : pk;
			} else if (!to_parent && dk == send_depth) {
				for (uint32_t ch = 2 * k + 1; ch <= 2 * k + 2 && ch < n; ch++)
					out[c++] = t ? n - 1 - ch : ch;
			}
		}
	}
	return c;
}

/* Halving-doubling partner distance at step s. */
static uint32_t hd_dist(const sim_phase *ph, uint64_t s)
{
	uint32_t L = log2u(ph->n);
	if (ph->op == SIM_OP_AR && s >= L)
		return 1u << (2 * L - 1 - s);
	return 1u << s;
}

uint32_t chakra__sim_step_sources(const sim_phase *ph, uint64_t s, uint32_t i, uint32_t *src)
{
	uint32_t n = ph->n, c = 0;
	switch (ph->alg) {
	case CHAKRA_SIM_ALG_RING:
		src[0] = (i + n - 1) % n;
		return 1;
	case CHAKRA_SIM_ALG_DIRECT:
		for (uint32_t j = 0; j < n; j++)
			if (j != i)
				src[c++] = j;
		return c;
	case CHAKRA_SIM_ALG_HALVING_DOUBLING:
		src[0] = i ^ hd_dist(ph, s);
		return 1;
	case CHAKRA_SIM_ALG_DOUBLE_BINARY_TREE:
		return dbt_peers(ph, s, i, src, 1);
	}
	return 0;
}

uint32_t chakra__sim_step_dests(const sim_phase *ph, uint64_t s, uint32_t i, uint32_t *dst)
{
	if (ph->alg == CHAKRA_SIM_ALG_RING) {
		dst[0] = (i + 1) % ph->n;
		return 1;
	}
	if (ph->alg == CHAKRA_SIM_ALG_DOUBLE_BINARY_TREE)
		return dbt_peers(ph, s, i, dst, 0);
	return chakra__sim_step_sources(ph, s, i, dst); /* direct and halving-doubling are symmetric */
}

/* "local-mem-bw" GB/s is decimal: bytes per ns = lbw. One write and two
 * reads per reduced byte. */
uint64_t chakra__sim_reduce_cost(const chakra_sim_system *sys, double bytes)
{
	return 3 * (uint64_t)floor(bytes / sys->local_mem_bw);
}
