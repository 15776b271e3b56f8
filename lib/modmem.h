/* SPDX-License-Identifier: Apache-2.0 */
/* Allocation in the code built beside the core (the experimental modules
 * and the standalone output rule): through the allocator hook, like the
 * core's own (chakra_malloc, chakra_calloc, chakra_realloc, chakra_free
 * from allocator.h), so an embedder's allocator sees every block and a
 * failure is an error, never a crash. Memory a module hands to its caller
 * is freed with chakra_free or the type's own free function. */
#ifndef CHAKRA_MODMEM_H
#define CHAKRA_MODMEM_H

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
