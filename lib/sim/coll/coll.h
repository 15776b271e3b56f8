/* SPDX-License-Identifier: Apache-2.0 */
/* A collective algorithm as a table of parts: what the system JSON calls
 * it, what it can run, and the protocol its members follow in a phase.
 * One file per algorithm in this directory, each defining one sim_coll;
 * coll.def lists them and registry.c answers lookups by enum value and by
 * name. The engine asks the table, never the algorithm's kind. */
#ifndef CHAKRA_SIM_COLL_H
#define CHAKRA_SIM_COLL_H

#include "../sim_model.h"

/* Which pairs of a group's ring an algorithm uses (the symmetry
 * reduction compares group rings on these). */
enum {
	SIM_PAIRS_NEIGHBOURS = 1, /* i and i+1 */
	SIM_PAIRS_ALL = 2,        /* every pair */
	SIM_PAIRS_HD = 4,         /* i and i xor 2^j */
	SIM_PAIRS_TREE = 8        /* tree links */
};

struct sim_coll {
	/* Its names as the system JSON writes them and their enum values:
	 * one phase per dimension, and (flat_name non-NULL) one phase over
	 * every NPU in rank order, ASTRA-sim's "one*" spelling. */
	const char *name;
	chakra_sim_algorithm alg;
	const char *flat_name;
	chakra_sim_algorithm flat_alg;
	unsigned pairs;   /* SIM_PAIRS_* */
	/* Timed in steps (chakra__sim_tree_*) rather than by the packet
	 * protocol (P, K, round and the packet functions below). */
	int steps;
	/* Packets k+1 .. the end of a half-round take the same time when
	 * every member starts together, so a closed form adds them at once. */
	int repeats;
	/* All-reduce sends its second half only once every first-half
	 * message arrived. */
	int halves;
	/* 0, or -1 with err (SIM_ERR_LEN) when the algorithm cannot run op on
	 * n members. NULL: any. */
	int (*check)(sim_op op, uint32_t n, char *err);
	/* Sets P, K and round of a phase whose op, n, x, msg, out and reduce
	 * are set (and may change msg). */
	void (*protocol)(sim_phase *p);
	/* Packet k of member i: who it goes to, whose message its receive
	 * expects, its bytes (NULL: msg). */
	uint32_t (*dest)(const sim_phase *ph, uint32_t i, uint64_t k);
	uint32_t (*src)(const sim_phase *ph, uint32_t i, uint64_t k);
	uint64_t (*bytes)(const sim_phase *ph, uint64_t k);
	/* ASTRA-sim's own ring for a group smaller than the system: what
	 * changes beyond the packets' fixed delay (NULL: nothing). */
	void (*group_ring)(sim_phase *p);
};

/* The algorithm of an enum value and whether it is the flat spelling
 * (*flat may be NULL); NULL for a value no algorithm has. */
const sim_coll *chakra__sim_coll_of(chakra_sim_algorithm alg, int *flat);
/* The algorithm the system JSON names `name` (*alg: its enum value), or
 * NULL. */
const sim_coll *chakra__sim_coll_named(const char *name, chakra_sim_algorithm *alg);
/* Every name the system JSON accepts, per-dimension ones first, joined by
 * ", " into buf (truncated to len). */
void chakra__sim_coll_names(char *buf, size_t len);
/* Is alg a flat spelling (one phase over every NPU)? */
int chakra__sim_alg_flat(chakra_sim_algorithm alg);

/* ceil(log2(n)). */
static inline uint32_t sim_log2u(uint32_t n)
{
	uint32_t l = 0;
	while ((1u << l) < n)
		l++;
	return l;
}

int chakra__sim_coll_fail(char *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define SIM_COLL(x) extern const sim_coll chakra__sim_coll_##x;
#include "coll.def"
#undef SIM_COLL

#endif
