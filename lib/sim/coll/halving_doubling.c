/* SPDX-License-Identifier: Apache-2.0 */
/* Halving-doubling (ASTRA-sim's HalvingDoubling class; "halvingDoubling",
 * flat "oneHalvingDoubling"): one packet at a time, partner i xor 1, 2,
 * 4.. (all-gather n/2, n/4..), sizes halving (all-gather: doubling;
 * all-reduce: then back). Beyond the reference: all-to-all, broadcast,
 * reduce and barrier with a fixed size (all-to-all x/2 to each partner).
 * Needs a power-of-two number of members. */
#include "coll.h"

static int check(sim_op op, uint32_t n, char *err)
{
	(void)op;
	if (n & (n - 1))
		return chakra__sim_coll_fail(err, "halvingDoubling needs a power-of-two number of "
		                             "NPUs, not %u", n);
	return 0;
}

static void protocol(sim_phase *p)
{
	p->P = 1;
	p->K = (p->op == SIM_OP_AR ? 2 : 1) * (uint64_t)sim_log2u(p->n);
	p->round = sim_log2u(p->n); /* 1 + (log n - 1) */
	if (p->op == SIM_OP_A2A)
		p->msg = p->x / 2;
}

/* The partner distance and the size of packet k, as the reference updates
 * them after each packet (the offset doubles and the size halves;
 * all-reduce turns back at n; all-gather starts at n/2 and halves the
 * offset while the size doubles). */
static void packet(const sim_phase *ph, uint64_t k, uint32_t *off, uint64_t *bytes)
{
	if (ph->op != SIM_OP_AR && ph->op != SIM_OP_RS && ph->op != SIM_OP_AG) {
		/* Ours: partners 1, 2, 4.. with a fixed size. */
		*off = (uint32_t)1 << (k % sim_log2u(ph->n));
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

/* Partners are mutual: the same function gives dest and src. */
static uint32_t partner(const sim_phase *ph, uint32_t i, uint64_t k)
{
	uint32_t off;
	uint64_t b;
	packet(ph, k, &off, &b);
	return i ^ off;
}

static uint64_t bytes(const sim_phase *ph, uint64_t k)
{
	uint32_t off;
	uint64_t b;
	packet(ph, k, &off, &b);
	return b;
}

const sim_coll chakra__sim_coll_halving_doubling = {
	.name = "halvingDoubling",
	.alg = CHAKRA_SIM_ALG_HALVING_DOUBLING,
	.flat_name = "oneHalvingDoubling",
	.flat_alg = CHAKRA_SIM_ALG_ONE_HALVING_DOUBLING,
	.pairs = SIM_PAIRS_HD,
	.check = check,
	.protocol = protocol,
	.dest = partner,
	.src = partner,
	.bytes = bytes,
};
