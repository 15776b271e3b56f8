#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int chakra__errf(char *dst, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(dst, CHAKRA_ERRMSG_MAX, fmt, ap);
	va_end(ap);
	return code;
}

int chakra__cbuf_reserve(cbuf *b, size_t need)
{
	if (need <= b->cap)
		return 0;
	size_t cap = b->cap ? b->cap : 4096;
	while (cap < need) {
		if (cap > SIZE_MAX / 2)
			return -1;
		cap *= 2;
	}
	uint8_t *p = realloc(b->p, cap);
	if (!p)
		return -1;
	b->p = p;
	b->cap = cap;
	return 0;
}

int chakra__cbuf_append(cbuf *b, const void *src, size_t n)
{
	if (n > SIZE_MAX - b->len || chakra__cbuf_reserve(b, b->len + n))
		return -1;
	if (n)
		memcpy(b->p + b->len, src, n);
	b->len += n;
	return 0;
}

void chakra__cbuf_free(cbuf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

struct arena_block {
	arena_block *next;
	size_t used, cap;
	uint8_t *data; /* follows the header */
};

#define ARENA_MIN 8192

void *chakra__arena_alloc(arena *a, size_t n)
{
	n = (n + 7) & ~(size_t)7;
	arena_block *b = a->head;
	if (!b || b->cap - b->used < n) {
		size_t cap = n > ARENA_MIN ? n : ARENA_MIN;
		if (b && b->cap * 2 > cap)
			cap = b->cap * 2;
		size_t hdr = (sizeof(arena_block) + 7) & ~(size_t)7;
		if (cap > SIZE_MAX - hdr)
			return NULL;
		b = malloc(hdr + cap);
		if (!b)
			return NULL;
		b->data = (uint8_t *)b + hdr;
		b->used = 0;
		b->cap = cap;
		b->next = a->head;
		a->head = b;
	}
	void *p = b->data + b->used;
	b->used += n;
	return p;
}

char *chakra__arena_strdup(arena *a, const uint8_t *s, size_t n)
{
	if (n == SIZE_MAX)
		return NULL;
	char *d = chakra__arena_alloc(a, n + 1);
	if (!d)
		return NULL;
	if (n)
		memcpy(d, s, n);
	d[n] = 0;
	return d;
}

void chakra__arena_reset(arena *a)
{
	/* Keep only the newest (largest) block. */
	arena_block *b = a->head;
	if (!b)
		return;
	arena_block *rest = b->next;
	while (rest) {
		arena_block *nx = rest->next;
		free(rest);
		rest = nx;
	}
	b->next = NULL;
	b->used = 0;
}

void chakra__arena_free(arena *a)
{
	arena_block *b = a->head;
	while (b) {
		arena_block *nx = b->next;
		free(b);
		b = nx;
	}
	a->head = NULL;
}
