/* SPDX-License-Identifier: Apache-2.0 */
/* LD_PRELOAD shim for the tools' allocation-failure sweep
 * (tools-alloc.sh): FAILALLOC_AT=k makes the k-th allocation of the
 * process (malloc, calloc, realloc, counted from 1) return NULL with
 * ENOMEM, once; FAILALLOC_REPORT=1 prints the number of allocations at
 * exit. glibc's own entry points do the real work. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);

static unsigned long count, fail_at;
static int armed = -1;

static int should_fail(void)
{
	if (armed < 0) {
		const char *s = getenv("FAILALLOC_AT");
		fail_at = s ? strtoul(s, NULL, 10) : 0;
		armed = 1;
	}
	return ++count == fail_at;
}

void *malloc(size_t n)
{
	if (should_fail()) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_malloc(n);
}

void *calloc(size_t a, size_t b)
{
	if (should_fail()) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_calloc(a, b);
}

void *realloc(void *p, size_t n)
{
	if (n && should_fail()) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_realloc(p, n);
}

__attribute__((destructor)) static void report(void)
{
	if (getenv("FAILALLOC_REPORT")) {
		char b[64];
		int len = snprintf(b, sizeof b, "failalloc: %lu allocations\n", count);
		if (write(2, b, (size_t)len) < 0)
			return;
	}
}
