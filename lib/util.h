/* SPDX-License-Identifier: Apache-2.0 */
/* Internal helpers: error text, growable buffers, block arena. */
#ifndef CHAKRA_UTIL_H
#define CHAKRA_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>

#define CHAKRA_ERRMSG_MAX 1024

#if defined(__GNUC__)
#  define CHAKRA_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#  define CHAKRA_PRINTF(a, b)
#endif

/* Allocation: every allocation goes through the hook set by
 * chakra_set_allocator (malloc/realloc/free by default). calloc and strdup
 * are built on it; sizes that overflow fail like an allocation. */
void *chakra__malloc(size_t n);
void *chakra__calloc(size_t n, size_t size);
void *chakra__realloc(void *p, size_t n);
void chakra__free(void *p);
char *chakra__strdup(const char *s);
/* zlib's zalloc / zfree, routed through the same hook (opaque unused). */
void *chakra__zalloc(void *opaque, unsigned items, unsigned size);
void chakra__zfree(void *opaque, void *p);

/* Versioned options: opts.h (shared with the modules). */
#include "opts.h"

/* A handle's last error as values (chakra_error_info without the
 * message, which the handle keeps). */
typedef struct chakra__errinfo {
	int code;
	unsigned flags; /* CHAKRA_ERRINFO_* */
	uint64_t offset, index, id;
} chakra__errinfo;
static inline void chakra__errinfo_set(chakra__errinfo *e, int code, unsigned flags,
                                       uint64_t offset, uint64_t index, uint64_t id)
{
	e->code = code;
	e->flags = flags;
	e->offset = offset;
	e->index = index;
	e->id = id;
}
/* Fill the first `size` bytes of a chakra_error_info (void *: util.h does
 * not include the public headers); returns e->code. */
int chakra__errinfo_get(const chakra__errinfo *e, const char *msg, void *info, size_t size);
/* N from an internal message that starts with "byte N: " (the walker's
 * convention); 0 and *ok = 0 otherwise. */
uint64_t chakra__msg_byte(const char *msg, int *ok);

/* 64 random bits for keyed hashes (the OS's entropy; a time and address
 * mix where it has none): never the same across handles or runs. */
uint64_t chakra__random64(void);

/* Format into a fixed message buffer (truncating); returns code. */
int chakra__errf(char *dst, int code, const char *fmt, ...) CHAKRA_PRINTF(3, 4);

/* Growable byte buffer; reused across messages so the steady state does
 * not allocate. */
typedef struct cbuf {
	uint8_t *p;
	size_t len, cap;
} cbuf;
int chakra__cbuf_reserve(cbuf *b, size_t need); /* ensure cap >= need; 0 or -ENOMEM */
int chakra__cbuf_append(cbuf *b, const void *src, size_t n);
void chakra__cbuf_free(cbuf *b);

/* Block arena: pointers into it stay put until reset; reset keeps the
 * largest block so a reader decoding node after node stops allocating. */
typedef struct arena_block arena_block;
typedef struct arena {
	arena_block *head;
	/* Budget: bytes handed out since the last reset, and the most allowed
	 * (0 = none); an allocation past it fails and sets `over`, so the
	 * caller reports CHAKRA_ETOOBIG instead of CHAKRA_ENOMEM. */
	size_t total, limit;
	int over;
} arena;
void *chakra__arena_alloc(arena *a, size_t n); /* 8-byte aligned; NULL on ENOMEM */
char *chakra__arena_strdup(arena *a, const uint8_t *s, size_t n); /* NUL-terminated copy */
void chakra__arena_reset(arena *a);
void chakra__arena_free(arena *a);

#endif
