/* SPDX-License-Identifier: Apache-2.0 */
/* Direct (ASTRA-sim's AllToAll class; "direct", flat "oneDirect"): n-1
 * packets at the start, packet k of member i to member i+1+k mod (n-1);
 * all-reduce's second half waits for every first-half message. */
#include "coll.h"

static void protocol(sim_phase *p)
{
	uint64_t n = p->n;
	p->P = (uint32_t)(n - 1);
	p->K = p->op == SIM_OP_AR ? 2 * (n - 1) : n - 1;
	p->round = 2 * (n - 1);
}

static uint32_t dest(const sim_phase *ph, uint32_t i, uint64_t k)
{
	uint32_t n = ph->n;
	return (uint32_t)((i + 1 + k % (n - 1)) % n);
}

static uint32_t src(const sim_phase *ph, uint32_t i, uint64_t k)
{
	uint32_t n = ph->n;
	return (uint32_t)((i + n - 1 - k % (n - 1)) % n);
}

/* On a group's own ring ASTRA-sim's rounds hold P zero-latency packets,
 * then (n-1) x P others (which decides the packets an all-reduce reduces). */
static void group_ring(sim_phase *p)
{
	p->round = (uint64_t)p->P * p->n;
}

const sim_coll chakra__sim_coll_direct = {
	.name = "direct",
	.alg = CHAKRA_SIM_ALG_DIRECT,
	.flat_name = "oneDirect",
	.flat_alg = CHAKRA_SIM_ALG_ONE_DIRECT,
	.pairs = SIM_PAIRS_ALL,
	.halves = 1,
	.protocol = protocol,
	.dest = dest,
	.src = src,
	.group_ring = group_ring,
};
