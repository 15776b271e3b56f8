/* SPDX-License-Identifier: Apache-2.0 */
/* Shared by the graph module's files: the keyed hash of ids. */
#ifndef CHAKRA_GRAPH_IMPL_H
#define CHAKRA_GRAPH_IMPL_H

#include <stdint.h>

/* A random key per map or graph: from getrandom, else from the clock and
 * the pid (still unknown to whoever wrote the file). */
uint64_t chakra__graph_seed(void);

/* The key mixed into the id before a full-avalanche finaliser (every input
 * bit flips each output bit with probability ~1/2): which ids share a slot
 * depends on a secret the file cannot know. Not cryptographic, but no set
 * of ids is bad for every key. */
static inline uint64_t chakra__graph_mix(uint64_t x, uint64_t seed)
{
	x ^= seed;
	x ^= x >> 32;
	x *= 0xd6e8feb86659fd93ULL;
	x ^= x >> 32;
	x *= 0xd6e8feb86659fd93ULL;
	x ^= x >> 32;
	return x;
}

#endif
