/* SPDX-License-Identifier: Apache-2.0 */
/* The allocation-failure sweeps' allocator (test_oom.c, test_oom_modules.c):
 * the fail_at-th call fails, live counts the blocks still held, and every
 * block starts 16 bytes into the C library's, so a block of the hook's
 * that reaches the C library's free (or one of the C library's that
 * reaches the hook's) crashes instead of passing unseen. */
#ifndef CHAKRA_TEST_OOMHOOK_H
#define CHAKRA_TEST_OOMHOOK_H

#include <stdlib.h>

static unsigned long n_calls, fail_at, live;
static int failed_once;

enum { OOM_PAD = 16 };

static void *t_malloc(void *data, size_t n)
{
	(void)data;
	if (++n_calls == fail_at) {
		failed_once = 1;
		return NULL;
	}
	char *p = (char *)malloc(n + OOM_PAD);
	if (!p)
		return NULL;
	live++;
	return p + OOM_PAD;
}

static void *t_realloc(void *data, void *p, size_t n)
{
	(void)data;
	if (++n_calls == fail_at) {
		failed_once = 1;
		return NULL;
	}
	char *q = (char *)realloc(p ? (char *)p - OOM_PAD : NULL, n + OOM_PAD);
	if (!q)
		return NULL;
	if (!p)
		live++;
	return q + OOM_PAD;
}

static void t_free(void *data, void *p)
{
	(void)data;
	if (!p)
		return;
	live--;
	free((char *)p - OOM_PAD);
}

#endif
