/* SPDX-License-Identifier: Apache-2.0 */
/* Message buffers: reused between operations (best fit), so that only the
 * first use of a size pays for page faults, as in an application that keeps
 * its tensors; warmup iterations take that first use out of the figures.
 * --verify fills contributions with rank + 1 and checks results. */
#include <stdlib.h>
#include <string.h>

#include "replay_tool.h"

static unsigned char zero_buf[64];

void *rp_buf_get(rp_pool *p, size_t bytes, size_t *cap)
{
	if (bytes == 0) {
		*cap = 0;
		return zero_buf;
	}
	size_t best = p->n;
	for (size_t i = 0; i < p->n; i++)
		if (p->free[i].cap >= bytes && (best == p->n || p->free[i].cap < p->free[best].cap))
			best = i;
	if (best < p->n) {
		void *ptr = p->free[best].p;
		*cap = p->free[best].cap;
		p->free[best] = p->free[--p->n];
		return ptr;
	}
	void *ptr = malloc(bytes);
	if (!ptr)
		return NULL;
	memset(ptr, 0, bytes); /* fault the pages in now, not while timed */
	*cap = bytes;
	return ptr;
}

void rp_buf_put(rp_pool *p, void *ptr, size_t cap)
{
	if (!ptr || ptr == zero_buf)
		return;
	if (p->n == p->cap) {
		size_t nc = p->cap ? p->cap * 2 : 16;
		rp_buf *f = realloc(p->free, nc * sizeof *f);
		if (!f) {
			free(ptr);
			return;
		}
		p->free = f;
		p->cap = nc;
	}
	p->free[p->n].p = ptr;
	p->free[p->n++].cap = cap;
}

void rp_pool_free(rp_pool *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->free[i].p);
	free(p->free);
	memset(p, 0, sizeof *p);
}

void rp_fill(void *buf, uint64_t elems, unsigned esz, uint32_t rank)
{
	if (esz == 4) {
		float v = (float)rank + 1, *f = buf;
		for (uint64_t i = 0; i < elems; i++)
			f[i] = v;
	} else {
		memset(buf, (int)((rank + 1) & 0xff), elems);
	}
}

int rp_check_value(const void *buf, uint64_t from, uint64_t elems, unsigned esz, double value)
{
	if (esz == 4) {
		const float *f = (const float *)buf + from;
		float v = (float)value;
		for (uint64_t i = 0; i < elems; i++)
			if (f[i] != v)
				return 0;
		return 1;
	}
	const unsigned char *b = (const unsigned char *)buf + from;
	unsigned char v = (unsigned char)((uint64_t)value & 0xff);
	for (uint64_t i = 0; i < elems; i++)
		if (b[i] != v)
			return 0;
	return 1;
}
