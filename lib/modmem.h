/* SPDX-License-Identifier: Apache-2.0 */
/* Allocation in the code built beside the core (the experimental modules
 * and the standalone output rule): through the allocator hook, like the
 * core's own (chakra_malloc, chakra_calloc, chakra_realloc, chakra_free
 * from allocator.h), so an embedder's allocator sees every block and a
 * failure is an error, never a crash. Memory a module hands to its caller
 * is freed with chakra_free or the type's own free function. */
#ifndef CHAKRA_MODMEM_H
#define CHAKRA_MODMEM_H

#include <stdint.h>
#include <string.h>
#include "chakra/allocator.h"

/* strdup through the hook; NULL when out of memory. */
static inline char *chakra__mstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = (char *)chakra_malloc(n);
	if (d)
		memcpy(d, s, n);
	return d;
}

/* Growable arrays: room for need elements of elem bytes in *p (capacity
 * *cap, doubling from 16). NULL when out of memory or the size overflows;
 * then *p and *cap are as they were, so the owner still frees what the
 * array holds. */
static inline void *chakra__mgrow(void **p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return *p;
	size_t c = *cap ? *cap : 16;
	while (c < need) {
		if (c > SIZE_MAX / 2 / elem)
			return NULL;
		c *= 2;
	}
	void *q = chakra_realloc(*p, c * elem);
	if (!q)
		return NULL;
	*p = q;
	*cap = c;
	return q;
}
/* The same for an array of any type: the array or NULL. */
#define CHAKRA__MRESERVE(p, cap, need)                                               \
	__extension__({                                                              \
		void *v_ = (void *)(p);                                              \
		void *q_ = chakra__mgrow(&v_, &(cap), (need), sizeof *(p));          \
		(p) = (__typeof__(p))v_;                                             \
		(__typeof__(p))q_;                                                   \
	})

/* zlib's zalloc / zfree through the hook (z_stream.zalloc, .zfree). */
static inline void *chakra__mzalloc(void *opaque, unsigned items, unsigned size)
{
	(void)opaque;
	return chakra_calloc(items, size);
}

static inline void chakra__mzfree(void *opaque, void *p)
{
	(void)opaque;
	chakra_free(p);
}

#endif
