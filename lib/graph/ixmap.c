/* SPDX-License-Identifier: Apache-2.0 */
/* The index map of graph_impl.h: slots hold indices into the caller's
 * array; the caller hashes with the map's secret key and says whether an
 * index holds a key. Open addressing, linear probing, at most half full. */
#include <stdlib.h>
#include <string.h>

#include "graph_impl.h"

void chakra__ixmap_init(chakra__ixmap *m)
{
	memset(m, 0, sizeof *m);
	m->seed = chakra__graph_seed();
}

void chakra__ixmap_free(chakra__ixmap *m)
{
	chakra_free(m->slot);
	m->slot = NULL;
	m->cap = m->count = 0;
}

uint32_t chakra__ixmap_find(const chakra__ixmap *m, uint64_t h, chakra__ixmap_eq eq,
                            const void *ctx, const void *key)
{
	if (!m->cap)
		return CHAKRA__IXMAP_NONE;
	for (size_t j = (size_t)h & (m->cap - 1);; j = (j + 1) & (m->cap - 1)) {
		uint32_t v = m->slot[j];
		if (!v)
			return CHAKRA__IXMAP_NONE;
		if (eq(ctx, v - 1, key))
			return v - 1;
	}
}

static void place(uint32_t *slot, size_t cap, uint64_t h, uint32_t idx)
{
	size_t j = (size_t)h & (cap - 1);
	while (slot[j])
		j = (j + 1) & (cap - 1);
	slot[j] = idx + 1;
}

int chakra__ixmap_add(chakra__ixmap *m, uint64_t h, uint32_t idx, chakra__ixmap_hash hash_of,
                      const void *ctx)
{
	if (idx >= UINT32_MAX - 1)
		return -1;
	if ((m->count + 1) * 2 > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 64;
		if (cap > SIZE_MAX / 2 / sizeof *m->slot)
			return -1;
		uint32_t *s = chakra_calloc(cap, sizeof *s);
		if (!s)
			return -1;
		for (size_t j = 0; j < m->cap; j++)
			if (m->slot[j])
				place(s, cap, hash_of(ctx, m->slot[j] - 1, m->seed), m->slot[j] - 1);
		chakra_free(m->slot);
		m->slot = s;
		m->cap = cap;
	}
	place(m->slot, m->cap, h, idx);
	m->count++;
	return 0;
}
