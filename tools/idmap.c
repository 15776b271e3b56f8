/* SPDX-License-Identifier: Apache-2.0 */
#include "idmap.h"

#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

/* A random key per map: from getrandom, else from the clock and the pid
 * (still unknown to whoever wrote the file). */
static uint64_t new_seed(void)
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

/* The key mixed into the id before a full-avalanche finaliser (every
 * input bit flips each output bit with probability ~1/2), so which ids
 * share a slot depends on a secret the file cannot know. */
static size_t slot_of(const tool_idmap *m, uint64_t x)
{
	x ^= m->seed;
	x ^= x >> 32;
	x *= 0xd6e8feb86659fd93ULL;
	x ^= x >> 32;
	x *= 0xd6e8feb86659fd93ULL;
	x ^= x >> 32;
	return (size_t)x & (m->cap - 1);
}

static int alloc_table(tool_idmap *m, size_t cap)
{
	m->keys = malloc(cap * sizeof *m->keys);
	m->vals = malloc(cap * sizeof *m->vals);
	if (!m->keys || !m->vals) {
		free(m->keys);
		free(m->vals);
		m->keys = NULL;
		m->vals = NULL;
		return -1;
	}
	memset(m->vals, 0xff, cap * sizeof *m->vals);
	m->cap = cap;
	return 0;
}

int tool_idmap_init(tool_idmap *m, size_t expected)
{
	size_t cap = 16;
	while (cap < expected * 2)
		cap <<= 1;
	memset(m, 0, sizeof *m);
	m->seed = new_seed();
	return alloc_table(m, cap);
}

void tool_idmap_free(tool_idmap *m)
{
	free(m->keys);
	free(m->vals);
	m->keys = NULL;
	m->vals = NULL;
	m->cap = m->count = 0;
}

static int grow(tool_idmap *m)
{
	tool_idmap old = *m;
	if (!old.cap)
		m->seed = new_seed(); /* a zeroed map, never initialised */
	if (alloc_table(m, old.cap ? old.cap * 2 : 16) < 0) {
		*m = old;
		return -1;
	}
	for (size_t i = 0; i < old.cap; i++)
		if (old.vals[i] != IDMAP_NONE) {
			size_t s = slot_of(m, old.keys[i]);
			while (m->vals[s] != IDMAP_NONE)
				s = (s + 1) & (m->cap - 1);
			m->keys[s] = old.keys[i];
			m->vals[s] = old.vals[i];
		}
	free(old.keys);
	free(old.vals);
	return 0;
}

int tool_idmap_put(tool_idmap *m, uint64_t key, uint32_t val, uint32_t *old)
{
	if ((m->count + 1) * 2 > m->cap && grow(m) < 0)
		return -1;
	size_t mask = m->cap - 1, i = slot_of(m, key);
	while (m->vals[i] != IDMAP_NONE) {
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

uint32_t tool_idmap_get(const tool_idmap *m, uint64_t key)
{
	if (!m->cap)
		return IDMAP_NONE;
	size_t mask = m->cap - 1, i = slot_of(m, key);
	while (m->vals[i] != IDMAP_NONE) {
		if (m->keys[i] == key)
			return m->vals[i];
		i = (i + 1) & mask;
	}
	return IDMAP_NONE;
}

int tool_idmap_set(tool_idmap *m, uint64_t key, uint32_t val)
{
	if ((m->count + 1) * 2 > m->cap && grow(m) < 0)
		return -1;
	size_t mask = m->cap - 1, i = slot_of(m, key);
	while (m->vals[i] != IDMAP_NONE && m->keys[i] != key)
		i = (i + 1) & mask;
	if (m->vals[i] == IDMAP_NONE)
		m->count++;
	m->keys[i] = key;
	m->vals[i] = val;
	return 0;
}
