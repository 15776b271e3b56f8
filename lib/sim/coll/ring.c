/* SPDX-License-Identifier: Apache-2.0 */
/* Ring (ASTRA-sim's Ring class; "ring", flat "oneRing"): one packet at a
 * time, each member sends to the next and receives from the previous. */
#include "coll.h"

static void protocol(sim_phase *p)
{
	uint64_t n = p->n;
	p->P = 1;
	p->K = p->op == SIM_OP_AR ? 2 * (n - 1) : p->op == SIM_OP_A2A ? n * (n - 1) / 2 : n - 1;
	p->round = n; /* 1 + (n-1) */
}

static uint32_t dest(const sim_phase *ph, uint32_t i, uint64_t k)
{
	(void)k;
	return i + 1 == ph->n ? 0 : i + 1;
}

static uint32_t src(const sim_phase *ph, uint32_t i, uint64_t k)
{
	(void)k;
	return i ? i - 1 : ph->n - 1;
}

const sim_coll chakra__sim_coll_ring = {
	.name = "ring",
	.alg = CHAKRA_SIM_ALG_RING,
	.flat_name = "oneRing",
	.flat_alg = CHAKRA_SIM_ALG_ONE_RING,
	.pairs = SIM_PAIRS_NEIGHBOURS,
	.repeats = 1,
	.protocol = protocol,
	.dest = dest,
	.src = src,
};
