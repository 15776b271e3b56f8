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
} arena;
void *chakra__arena_alloc(arena *a, size_t n); /* 8-byte aligned; NULL on ENOMEM */
char *chakra__arena_strdup(arena *a, const uint8_t *s, size_t n); /* NUL-terminated copy */
void chakra__arena_reset(arena *a);
void chakra__arena_free(arena *a);

#endif
