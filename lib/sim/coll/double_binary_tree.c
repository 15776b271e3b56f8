/* SPDX-License-Identifier: Apache-2.0 */
/* The double binary tree ("doubleBinaryTree", ours; no flat spelling),
 * timed in steps (sim_phase.c): two trees of x/2 each (member i is node i
 * of the first heap-ordered tree and node n-1-i of the second), reduced up
 * level by level, then broadcast down. Runs all-reduce, reduce, broadcast
 * and barrier phases. */
#include "coll.h"

static int check(sim_op op, uint32_t n, char *err)
{
	(void)n;
	if (op != SIM_OP_AR && op != SIM_OP_REDUCE && op != SIM_OP_BCAST && op != SIM_OP_BARRIER)
		return chakra__sim_coll_fail(err, "doubleBinaryTree runs all-reduce, reduce, broadcast "
		                             "and barrier phases only (this collective needs a %s "
		                             "phase)", op == SIM_OP_RS ? "reduce-scatter"
		                             : op == SIM_OP_AG ? "all-gather" : "all-to-all");
	return 0;
}

/* No packets: the steps below are the protocol. */
static void protocol(sim_phase *p)
{
	p->P = 0;
	p->K = 0;
	p->round = 1;
}

static uint32_t self(const sim_phase *ph, uint32_t i, uint64_t k)
{
	(void)ph;
	(void)k;
	return i;
}

const sim_coll chakra__sim_coll_double_binary_tree = {
	.name = "doubleBinaryTree",
	.alg = CHAKRA_SIM_ALG_DOUBLE_BINARY_TREE,
	.pairs = SIM_PAIRS_TREE,
	.steps = 1,
	.check = check,
	.protocol = protocol,
	.dest = self,
	.src = self,
};

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
