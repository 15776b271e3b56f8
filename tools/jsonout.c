/* SPDX-License-Identifier: Apache-2.0 */
#include "jsonout.h"
#include "text.h"

#include <stdlib.h>
#include <string.h>

#include "common.h"

static void *ya_malloc(void *ctx, size_t n)
{
	(void)ctx;
	void *p = malloc(n ? n : 1);
	if (!p)
		tool_oom_exit("JSON");
	return p;
}

static void *ya_realloc(void *ctx, void *old, size_t n)
{
	(void)ctx;
	void *p = realloc(old, n ? n : 1);
	if (!p)
		tool_oom_exit("JSON");
	return p;
}

static void ya_free(void *ctx, void *p)
{
	(void)ctx;
	free(p);
}

yajl_alloc_funcs *tool_yajl_alloc(void)
{
	static yajl_alloc_funcs f = { ya_malloc, ya_realloc, ya_free, NULL };
	return &f;
}

static void print_cb(void *ctx, const char *s, size_t len)
{
	/* one call per token: the stream's lock would dominate (the tools
	 * are single-threaded) */
	fwrite_unlocked(s, 1, len, (FILE *)ctx);
}

yajl_gen jo_open(FILE *f, int pretty)
{
	yajl_gen g = yajl_gen_alloc(tool_yajl_alloc());
	if (!g)
		return NULL;
	yajl_gen_config(g, yajl_gen_print_callback, print_cb, (void *)f);
	if (pretty) {
		yajl_gen_config(g, yajl_gen_beautify, 1);
		yajl_gen_config(g, yajl_gen_indent_string, "  ");
	}
	return g;
}

void jo_strn(yajl_gen g, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;
	while (i < len && chakra__utf8_len(u + i, len - i))
		i += chakra__utf8_len(u + i, len - i);
	if (i == len) {
		yajl_gen_string(g, u, len);
		return;
	}
	/* Rare: rebuild with replacement characters. */
	unsigned char *b = malloc(len * 3 + 1);
	if (!b) {
		yajl_gen_string(g, (const unsigned char *)"?", 1);
		return;
	}
	size_t o = chakra__utf8_repair(b, u, len);
	yajl_gen_string(g, b, o);
	free(b);
}

void jo_str(yajl_gen g, const char *s) { jo_strn(g, s, strlen(s)); }

void jo_u64(yajl_gen g, uint64_t v)
{
	char b[32];
	int n = snprintf(b, sizeof b, "%llu", (unsigned long long)v);
	yajl_gen_number(g, b, (size_t)n);
}

void jo_fixed(yajl_gen g, double v)
{
	char b[64];
	int n = snprintf(b, sizeof b, "%.6f", v);
	if (n <= 0 || (size_t)n >= sizeof b) {
		yajl_gen_double(g, v);
		return;
	}
	while (n > 1 && b[n - 1] == '0')
		n--;
	if (b[n - 1] == '.')
		n--;
	if (n == 2 && b[0] == '-' && b[1] == '0')
		b[0] = '0', n = 1; /* "-0.000000" */
	yajl_gen_number(g, b, (size_t)n);
}

void jo_kv_u64(yajl_gen g, const char *key, uint64_t v)
{
	jo_str(g, key);
	jo_u64(g, v);
}

void jo_kv_str(yajl_gen g, const char *key, const char *v)
{
	jo_str(g, key);
	jo_str(g, v);
}
