/* SPDX-License-Identifier: Apache-2.0 */
/* The one JSON string writer of the modules (internal): a string literal
 * (quotes and escapes) through a put callback. Inline, so that a writer
 * with a buffer of its own (the converter's) gets its put inlined in the
 * loop; clean 8-byte words are skipped whole.
 *
 * Two spellings of the escapes, both read back the same by any JSON reader:
 *  - 0: '"' and '\\' escaped, \n and \t, other control bytes as \u00xx,
 *    every other byte as it is (the converter's and the groups files');
 *  - CHAKRA__JSTR_YAJL: YAJL's generator's (\b \f \n \r \t, \u00XX), with
 *    bytes that are not UTF-8 written as U+FFFD (the simulator's
 *    timeline, beside the tools' YAJL output). */
#ifndef CHAKRA_JSON_JSTR_H
#define CHAKRA_JSON_JSTR_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../utf8.h"

#define CHAKRA__JSTR_YAJL 1

/* Does the 8-byte word hold a byte below 0x20, '"' or '\\' (or, high set,
 * one from 0x80)? (SWAR) */
static inline int chakra__jstr_word_dirty(uint64_t w, int high_too)
{
	const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
	uint64_t lt20 = (w - ones * 0x20) & ~w;
	uint64_t q = w ^ (ones * '"'), bs = w ^ (ones * '\\');
	uint64_t zq = (q - ones) & ~q, zb = (bs - ones) & ~bs;
	return ((lt20 | zq | zb | (high_too ? w : 0)) & high) != 0;
}

/* put(ctx, s, n) gets the text in pieces; the first non-zero it returns
 * stops the string and is returned. */
static inline int chakra__json_str(const char *s, size_t n, int flags,
                                   int (*put)(void *ctx, const char *s, size_t n), void *ctx)
{
	const unsigned char *u = (const unsigned char *)s;
	int yajl = flags & CHAKRA__JSTR_YAJL, rc;
	if ((rc = put(ctx, "\"", 1)) != 0)
		return rc;
	size_t run = 0, i = 0;
	for (;;) {
		/* skip clean words */
		while (i + 8 <= n) {
			uint64_t w;
			memcpy(&w, s + i, 8);
			if (chakra__jstr_word_dirty(w, yajl))
				break;
			i += 8;
		}
		if (i >= n)
			break;
		unsigned char c = u[i];
		if (c >= 0x20 && c != '"' && c != '\\' && (c < 0x80 || !yajl)) {
			i++;
			continue;
		}
		size_t k = 1;
		if (c >= 0x80) {
			k = chakra__utf8_len(u + i, n - i);
			if (k) {
				i += k;
				continue;
			}
		}
		if ((rc = put(ctx, s + run, i - run)) != 0)
			return rc;
		char esc[8];
		int m;
		if (c == '"' || c == '\\')
			m = snprintf(esc, sizeof esc, "\\%c", c);
		else if (c == '\n')
			m = snprintf(esc, sizeof esc, "\\n");
		else if (c == '\t')
			m = snprintf(esc, sizeof esc, "\\t");
		else if (!yajl)
			m = snprintf(esc, sizeof esc, "\\u%04x", c);
		else if (c >= 0x80)
			m = snprintf(esc, sizeof esc, "\xef\xbf\xbd"); /* not UTF-8 */
		else if (c == '\b' || c == '\f' || c == '\r')
			m = snprintf(esc, sizeof esc, "\\%c", c == '\b' ? 'b' : c == '\f' ? 'f' : 'r');
		else
			m = snprintf(esc, sizeof esc, "\\u%04X", c);
		if ((rc = put(ctx, esc, (size_t)m)) != 0)
			return rc;
		run = ++i;
	}
	if ((rc = put(ctx, s + run, n - run)) != 0)
		return rc;
	return put(ctx, "\"", 1);
}

#endif
