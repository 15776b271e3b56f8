/* SPDX-License-Identifier: Apache-2.0 */
/* Small helpers of the replay module: error text, an id map, operation
 * names. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay_impl.h"

int chakra__replay_fail(char *err, size_t errlen, int code, const char *fmt, ...)
{
	if (err && errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return code;
}

static size_t map_home(uint64_t key, size_t cap)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdULL;
	key ^= key >> 33;
	return (size_t)key & (cap - 1);
}

static int map_grow(chakra__replay_map *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64;
	uint64_t *keys = malloc(cap * sizeof *keys);
	uint32_t *vals = malloc(cap * sizeof *vals);
	if (!keys || !vals) {
		free(keys);
		free(vals);
		return CHAKRA_ENOMEM;
	}
	memset(keys, 0xff, cap * sizeof *keys);
	for (size_t i = 0; i < m->cap; i++) {
		if (m->keys[i] == UINT64_MAX)
			continue;
		size_t h = map_home(m->keys[i], cap);
		while (keys[h] != UINT64_MAX)
			h = (h + 1) & (cap - 1);
		keys[h] = m->keys[i];
		vals[h] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	m->keys = keys;
	m->vals = vals;
	m->cap = cap;
	return 0;
}

int chakra__replay_map_put(chakra__replay_map *m, uint64_t key, uint32_t val)
{
	if (key == UINT64_MAX) {
		m->has_free_key = 1;
		m->free_key_val = val;
		return 0;
	}
	if ((m->n + 1) * 2 > m->cap && map_grow(m) < 0)
		return CHAKRA_ENOMEM;
	size_t h = map_home(key, m->cap);
	while (m->keys[h] != UINT64_MAX && m->keys[h] != key)
		h = (h + 1) & (m->cap - 1);
	if (m->keys[h] == UINT64_MAX)
		m->n++;
	m->keys[h] = key;
	m->vals[h] = val;
	return 0;
}

long chakra__replay_map_get(const chakra__replay_map *m, uint64_t key)
{
	if (key == UINT64_MAX)
		return m->has_free_key ? (long)m->free_key_val : -1;
	if (!m->cap)
		return -1;
	size_t h = map_home(key, m->cap);
	while (m->keys[h] != UINT64_MAX) {
		if (m->keys[h] == key)
			return (long)m->vals[h];
		h = (h + 1) & (m->cap - 1);
	}
	return -1;
}

void chakra__replay_map_free(chakra__replay_map *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof *m);
}

const char *chakra_replay_op_name(int kind, int comm_type)
{
	if (kind == CHAKRA_REPLAY_SEND)
		return "SEND";
	if (kind == CHAKRA_REPLAY_RECV)
		return "RECV";
	const char *s = chakra_comm_type_name(comm_type);
	return s ? s : "?";
}
