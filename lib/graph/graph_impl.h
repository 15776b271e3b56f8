/* SPDX-License-Identifier: Apache-2.0 */
/* Shared by the graph module's files: the keyed hash of ids. */
#ifndef CHAKRA_GRAPH_IMPL_H
#define CHAKRA_GRAPH_IMPL_H

#include "../modmem.h"
#include <stddef.h>
#include <stdint.h>
#include <string.h>

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

/* The same key mixed into bytes (names, strings of a file): eight at a
 * time, the length first, so that which strings share a slot depends on
 * the key too. */
static inline uint64_t chakra__graph_hash_bytes(const void *p, size_t n, uint64_t seed)
{
	const unsigned char *s = (const unsigned char *)p;
	uint64_t h = chakra__graph_mix((uint64_t)n, seed);
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, s + i, 8);
		h = chakra__graph_mix(h ^ w, seed);
	}
	uint64_t w = 0;
	memcpy(&w, s + i, n - i);
	return chakra__graph_mix(h ^ w ^ 0x8000000000000000ULL, seed);
}

/* An index map for keys the caller stores itself (strings, pairs,
 * tuples): slots hold indices into the caller's array; the caller hashes a
 * key with the map's random seed (chakra__graph_mix, _hash_bytes) and says
 * whether an index holds it. So no file can choose keys that share a slot,
 * and equal hashes are told apart by the keys themselves (never a scan).
 * A zeroed struct after chakra__ixmap_init is empty. */
#define CHAKRA__IXMAP_NONE UINT32_MAX
typedef struct chakra__ixmap {
	uint32_t *slot;  /* index + 1; 0 = empty */
	size_t cap, count;
	uint64_t seed;
} chakra__ixmap;
typedef int (*chakra__ixmap_eq)(const void *ctx, uint32_t idx, const void *key);
typedef uint64_t (*chakra__ixmap_hash)(const void *ctx, uint32_t idx, uint64_t seed);
void chakra__ixmap_init(chakra__ixmap *m);
void chakra__ixmap_free(chakra__ixmap *m);
/* The index holding key (hash h), or CHAKRA__IXMAP_NONE. */
uint32_t chakra__ixmap_find(const chakra__ixmap *m, uint64_t h, chakra__ixmap_eq eq,
                            const void *ctx, const void *key);
/* Add idx (its key hashing to h; not present yet). hash_of rehashes the
 * stored keys when the table grows. 0 or -1 (out of memory). */
int chakra__ixmap_add(chakra__ixmap *m, uint64_t h, uint32_t idx, chakra__ixmap_hash hash_of,
                      const void *ctx);

#endif
