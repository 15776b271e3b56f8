/* SPDX-License-Identifier: Apache-2.0 */
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "chakra/allocator.h"
#include "chakra/error.h"

/* ---- allocation ---- */

static void *libc_malloc(void *data, size_t n)
{
	(void)data;
	return malloc(n);
}

static void *libc_realloc(void *data, void *p, size_t n)
{
	(void)data;
	return realloc(p, n);
}

static void libc_free(void *data, void *p)
{
	(void)data;
	free(p);
}

static chakra_allocator allocator = { CHAKRA_ALLOCATOR_VERSION, libc_malloc, libc_realloc,
                                      libc_free, NULL };

int chakra_set_allocator(const chakra_allocator *a)
{
	if (!a) {
		chakra_allocator def = { CHAKRA_ALLOCATOR_VERSION, libc_malloc, libc_realloc,
		                         libc_free, NULL };
		allocator = def;
		return 0;
	}
	if (a->version != CHAKRA_ALLOCATOR_VERSION || !a->malloc_fn || !a->realloc_fn || !a->free_fn)
		return CHAKRA_EINVAL;
	allocator = *a;
	return 0;
}

void *chakra__malloc(size_t n)
{
	return allocator.malloc_fn(allocator.data, n ? n : 1);
}

void *chakra__calloc(size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	void *p = chakra__malloc(n * size);
	if (p)
		memset(p, 0, n * size);
	return p;
}

void *chakra__realloc(void *p, size_t n)
{
	return allocator.realloc_fn(allocator.data, p, n ? n : 1);
}

void chakra__free(void *p)
{
	if (p)
		allocator.free_fn(allocator.data, p);
}

char *chakra__strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = (char *)chakra__malloc(n);
	if (d)
		memcpy(d, s, n);
	return d;
}

/* The same, public (allocator.h). */
void *chakra_malloc(size_t size)
{
	return chakra__malloc(size);
}

void *chakra_calloc(size_t n, size_t size)
{
	return chakra__calloc(n, size);
}

void *chakra_realloc(void *ptr, size_t size)
{
	return chakra__realloc(ptr, size);
}

void chakra_free(void *ptr)
{
	chakra__free(ptr);
}

void *chakra__zalloc(void *opaque, unsigned items, unsigned size)
{
	(void)opaque;
	if (size && items > SIZE_MAX / size)
		return NULL;
	return chakra__malloc((size_t)items * size);
}

void chakra__zfree(void *opaque, void *p)
{
	(void)opaque;
	chakra__free(p);
}

/* ---- random seeds ---- */

static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

uint64_t chakra__random64(void)
{
	uint64_t v = 0;
#if defined(__linux__) || defined(__APPLE__) || defined(__OpenBSD__) || defined(__FreeBSD__)
	if (getentropy(&v, sizeof v) == 0)
		return v;
#endif
	/* No entropy source: a mix of the time, a stack address and a counter. */
	static uint64_t counter;
	struct timespec ts;
	timespec_get(&ts, TIME_UTC);
	uint64_t s = ((uint64_t)ts.tv_sec << 32) ^ (uint64_t)ts.tv_nsec ^
	             (uint64_t)(uintptr_t)&v ^ (++counter << 48);
	return splitmix64(&s);
}

/* ---- options and error values ---- */

int chakra__errinfo_get(const chakra__errinfo *e, const char *msg, void *info, size_t size)
{
	chakra_error_info full;
	memset(&full, 0, sizeof full);
	full.code = e->code;
	full.flags = e->flags;
	full.offset = e->offset;
	full.node_index = e->index;
	full.node_id = e->id;
	full.message = msg ? msg : "";
	if (info)
		memcpy(info, &full, size < sizeof full ? size : sizeof full);
	return e->code;
}

uint64_t chakra__msg_byte(const char *msg, int *ok)
{
	*ok = 0;
	if (strncmp(msg, "byte ", 5) != 0 || msg[5] < '0' || msg[5] > '9')
		return 0;
	char *end;
	unsigned long long v = strtoull(msg + 5, &end, 10);
	*ok = *end == ':';
	return *ok ? (uint64_t)v : 0;
}

/* ---- messages, buffers, arena ---- */

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
	uint8_t *p = (uint8_t *)chakra__realloc(b->p, cap);
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
	chakra__free(b->p);
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
	if (a->limit && (n > a->limit || a->total > a->limit - n)) {
		a->over = 1;
		return NULL;
	}
	arena_block *b = a->head;
	if (!b || b->cap - b->used < n) {
		size_t cap = n > ARENA_MIN ? n : ARENA_MIN;
		if (b && b->cap * 2 > cap)
			cap = b->cap * 2;
		size_t hdr = (sizeof(arena_block) + 7) & ~(size_t)7;
		if (cap > SIZE_MAX - hdr)
			return NULL;
		b = (arena_block *)chakra__malloc(hdr + cap);
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
	a->total += n;
	return p;
}

char *chakra__arena_strdup(arena *a, const uint8_t *s, size_t n)
{
	if (n == SIZE_MAX)
		return NULL;
	char *d = (char *)chakra__arena_alloc(a, n + 1);
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
	a->total = 0;
	a->over = 0;
	arena_block *b = a->head;
	if (!b)
		return;
	arena_block *rest = b->next;
	while (rest) {
		arena_block *nx = rest->next;
		chakra__free(rest);
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
		chakra__free(b);
		b = nx;
	}
	a->head = NULL;
	a->total = 0;
	a->over = 0;
}
