/* SPDX-License-Identifier: Apache-2.0 */
/* The id map of the graph module (chakra/experimental/graph.h): open
 * addressing with linear probing at most half full, keyed per map. */
#ifndef CHAKRA_EXPERIMENTAL
#define CHAKRA_EXPERIMENTAL
#endif
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "chakra/error.h"
#include "chakra/experimental/graph.h"
#include "graph_impl.h"

uint64_t chakra__graph_seed(void)
{
	static uint64_t counter;
	uint64_t s = 0;
	if (getrandom(&s, sizeof s, GRND_NONBLOCK) != (ssize_t)sizeof s) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		s = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ULL ^ (uint64_t)ts.tv_sec ^
		    (uint64_t)getpid() << 32;
	}
	return s ^ ++counter * 0xd6e8feb86659fd93ULL;
}

struct chakra_idmap {
	uint64_t *keys;
	uint32_t *vals; /* CHAKRA_GRAPH_NONE = empty */
	size_t cap, count;
	uint64_t seed;
};

static int alloc_table(chakra_idmap *m, size_t cap)
{
	uint64_t *k = chakra_malloc(cap * sizeof *k);
	uint32_t *v = chakra_malloc(cap * sizeof *v);
	if (!k || !v) {
		chakra_free(k);
		chakra_free(v);
		return CHAKRA_ENOMEM;
	}
	memset(v, 0xff, cap * sizeof *v);
	m->keys = k;
	m->vals = v;
	m->cap = cap;
	return 0;
}

chakra_idmap *chakra_idmap_new(size_t expected)
{
	chakra_idmap *m = chakra_calloc(1, sizeof *m);
	size_t cap = 16;
	while (cap < expected * 2)
		cap <<= 1;
	if (!m || alloc_table(m, cap) < 0) {
		chakra_free(m);
		return NULL;
	}
	m->seed = chakra__graph_seed();
	return m;
}

void chakra_idmap_free(chakra_idmap *m)
{
	if (!m)
		return;
	chakra_free(m->keys);
	chakra_free(m->vals);
	chakra_free(m);
}

static size_t slot_of(const chakra_idmap *m, uint64_t key)
{
	return (size_t)chakra__graph_mix(key, m->seed) & (m->cap - 1);
}

static int grow(chakra_idmap *m)
{
	chakra_idmap old = *m;
	if (alloc_table(m, old.cap * 2) < 0) {
		*m = old;
		return CHAKRA_ENOMEM;
	}
	for (size_t i = 0; i < old.cap; i++)
		if (old.vals[i] != CHAKRA_GRAPH_NONE) {
			size_t s = slot_of(m, old.keys[i]);
			while (m->vals[s] != CHAKRA_GRAPH_NONE)
				s = (s + 1) & (m->cap - 1);
			m->keys[s] = old.keys[i];
			m->vals[s] = old.vals[i];
		}
	chakra_free(old.keys);
	chakra_free(old.vals);
	return 0;
}

int chakra_idmap_put(chakra_idmap *m, uint64_t key, uint32_t val, uint32_t *old)
{
	if (!m)
		return CHAKRA_EINVAL;
	if ((m->count + 1) * 2 > m->cap && grow(m) < 0)
		return CHAKRA_ENOMEM;
	size_t mask = m->cap - 1, i = slot_of(m, key);
	while (m->vals[i] != CHAKRA_GRAPH_NONE) {
		if (m->keys[i] == key) {
			if (old)
				*old = m->vals[i];
			return 0;
		}
		i = (i + 1) & mask;
	}
	m->keys[i] = key;
	m->vals[i] = val;
	m->count++;
	return 1;
}

int chakra_idmap_set(chakra_idmap *m, uint64_t key, uint32_t val)
{
	if (!m)
		return CHAKRA_EINVAL;
	if ((m->count + 1) * 2 > m->cap && grow(m) < 0)
		return CHAKRA_ENOMEM;
	size_t mask = m->cap - 1, i = slot_of(m, key);
	while (m->vals[i] != CHAKRA_GRAPH_NONE && m->keys[i] != key)
		i = (i + 1) & mask;
	if (m->vals[i] == CHAKRA_GRAPH_NONE)
		m->count++;
	m->keys[i] = key;
	m->vals[i] = val;
	return 0;
}

uint32_t chakra_idmap_get(const chakra_idmap *m, uint64_t key)
{
	if (!m)
		return CHAKRA_GRAPH_NONE;
	size_t mask = m->cap - 1, i = slot_of(m, key);
	while (m->vals[i] != CHAKRA_GRAPH_NONE) {
		if (m->keys[i] == key)
			return m->vals[i];
		i = (i + 1) & mask;
	}
	return CHAKRA_GRAPH_NONE;
}

size_t chakra_idmap_count(const chakra_idmap *m) { return m ? m->count : 0; }
