/* SPDX-License-Identifier: Apache-2.0 */
/* UTF-8 validation, one copy for the modules and the tools (the JSON
 * writers and the DOT / XML escapers): a header-only internal, so neither
 * needs the other's library. */
#ifndef CHAKRA_UTF8_H
#define CHAKRA_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* The length of the valid UTF-8 sequence at s (1..4; n >= 1 bytes left),
 * or 0 when the bytes there are not valid UTF-8: overlong forms,
 * surrogates and values past U+10FFFF are not. */
static inline size_t chakra__utf8_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	size_t k;
	uint32_t cp;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		k = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		k = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		k = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if (k > n)
		return 0;
	for (size_t i = 1; i < k; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((k == 3 && cp < 0x800) || (k == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return k;
}

/* u's len bytes into dst (room for 3 * len), each byte that does not
 * start valid UTF-8 replaced by U+FFFD: the bytes written. */
static inline size_t chakra__utf8_repair(unsigned char *dst, const unsigned char *u, size_t len)
{
	size_t o = 0;
	for (size_t i = 0; i < len;) {
		size_t k = chakra__utf8_len(u + i, len - i);
		if (k) {
			for (size_t j = 0; j < k; j++)
				dst[o++] = u[i + j];
			i += k;
		} else {
			dst[o++] = 0xef;
			dst[o++] = 0xbf;
			dst[o++] = 0xbd;
			i++;
		}
	}
	return o;
}

#endif
