/* SPDX-License-Identifier: Apache-2.0 */
/* libchakra: the allocator hook (as libuv's uv_replace_allocator, expat's
 * XML_Memory_Handling_Suite, zstd's ZSTD_customMem).
 *
 * Every allocation the library makes (its own, and zlib's for gzip input
 * and output) goes through these functions. Set them once, before any
 * other call, from one thread; memory is freed by the allocator that was
 * current when it was allocated, so never change it while a handle is
 * open. When an allocation fails the call reports CHAKRA_ENOMEM, and the
 * handle stays safe to read (errmsg) and to close. */
#ifndef CHAKRA_ALLOCATOR_H
#define CHAKRA_ALLOCATOR_H

#include <stddef.h>
#include "chakra/export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct chakra_allocator {
	unsigned version;                                     /* CHAKRA_ALLOCATOR_VERSION */
	/* malloc and realloc semantics (realloc(NULL, n) allocates; the
	 * library never asks for 0 bytes); NULL when out of memory. */
	void *(*malloc_fn)(void *data, size_t size);
	void *(*realloc_fn)(void *data, void *ptr, size_t size);
	void (*free_fn)(void *data, void *ptr);               /* ptr may be NULL */
	void *data;                                           /* passed to each */
} chakra_allocator;

#define CHAKRA_ALLOCATOR_VERSION 1

/* Use these functions for every later allocation; NULL restores the C
 * library's malloc, realloc and free. The struct is copied. Returns 0, or
 * CHAKRA_EINVAL (unknown version, a function missing). */
CHAKRA_API int chakra_set_allocator(const chakra_allocator *a);

/* The current allocator, for code built beside the library (its
 * experimental modules allocate through these) and for memory a function
 * hands to its caller: what the library returns for the caller to free is
 * freed with chakra_free (or the type's own free function), never the C
 * library's free. malloc/calloc/realloc semantics; a request for 0 bytes
 * gets a valid block of its own; calloc's n * size overflowing fails
 * (NULL). chakra_free(NULL) does nothing. */
CHAKRA_API void *chakra_malloc(size_t size);
CHAKRA_API void *chakra_calloc(size_t n, size_t size);
CHAKRA_API void *chakra_realloc(void *ptr, size_t size);
CHAKRA_API void chakra_free(void *ptr);

#ifdef __cplusplus
}
#endif
#endif
