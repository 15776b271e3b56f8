/* SPDX-License-Identifier: Apache-2.0 */
#include "text.h"

#include <stdint.h>

size_t text_utf8_len(const unsigned char *s, size_t n)
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
	/* Overlong forms, surrogates and values past U+10FFFF are invalid. */
	if ((k == 3 && cp < 0x800) || (k == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return k;
}

void text_dot(FILE *f, const char *s, size_t len, size_t max_chars)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t chars = 0;
	for (size_t i = 0; i < len;) {
		if (max_chars && chars == max_chars) {
			fputs("...", f);
			return;
		}
		size_t k = text_utf8_len(u + i, len - i);
		if (!k) {
			fputc('?', f);
			i++;
		} else if (k > 1) {
			fwrite(u + i, 1, k, f);
			i += k;
		} else {
			unsigned char c = u[i++];
			if (c == '"' || c == '\\')
				fputc('\\', f), fputc(c, f);
			else if (c < 0x20 || c == 0x7f)
				fputc(' ', f);
			else
				fputc(c, f);
		}
		chars++;
	}
}

void text_xml(FILE *f, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; i < len;) {
		size_t k = text_utf8_len(u + i, len - i);
		if (!k) {
			fputc('?', f);
			i++;
			continue;
		}
		if (k > 1) {
			/* U+FFFE and U+FFFF are not XML characters. */
			if (!(k == 3 && u[i] == 0xef && u[i + 1] == 0xbf && u[i + 2] >= 0xbe))
				fwrite(u + i, 1, k, f);
			i += k;
			continue;
		}
		unsigned char c = u[i++];
		switch (c) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default:
			if (c >= 0x20 || c == '\t' || c == '\n' || c == '\r')
				fputc(c, f);
		}
	}
}
