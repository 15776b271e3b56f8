/* SPDX-License-Identifier: Apache-2.0 */
#include "text.h"

void text_dot(FILE *f, const char *s, size_t len, size_t max_chars)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t chars = 0;
	for (size_t i = 0; i < len;) {
		if (max_chars && chars == max_chars) {
			fputs("...", f);
			return;
		}
		size_t k = chakra__utf8_len(u + i, len - i);
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
		size_t k = chakra__utf8_len(u + i, len - i);
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
