/* SPDX-License-Identifier: Apache-2.0 */
#include "jn_impl.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Copy to a NUL-terminated buffer; numbers longer than this are not
 * integers we accept anyway. */
static int term(const char *s, size_t len, char *buf, size_t cap)
{
	if (len == 0 || len >= cap)
		return -1;
	memcpy(buf, s, len);
	buf[len] = 0;
	return 0;
}

int chakra__jn_num_is_int(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (s[i] == '.' || s[i] == 'e' || s[i] == 'E')
			return 0;
	return len > 0;
}

int chakra__jn_num_u64(const char *s, size_t len, uint64_t *out)
{
	char b[32], *end;
	if (term(s, len, b, sizeof b) || b[0] == '-' || !chakra__jn_num_is_int(s, len))
		return -1;
	errno = 0;
	unsigned long long v = strtoull(b, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

int chakra__jn_num_i64(const char *s, size_t len, int64_t *out)
{
	char b[32], *end;
	if (term(s, len, b, sizeof b) || !chakra__jn_num_is_int(s, len))
		return -1;
	errno = 0;
	long long v = strtoll(b, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

int chakra__jn_num_real(const char *s, size_t len, int is_str, int is_float, double *out)
{
	char b[512], *end;
	if (term(s, len, b, sizeof b))
		return -1;
	if (is_str) {
		if (!strcmp(b, "nan"))
			*out = is_float ? (double)nanf("") : nan("");
		else if (!strncmp(b, "nan:0x", 6)) {
			/* a NaN with its exact bits (jn_gen.c) */
			errno = 0;
			unsigned long long u = strtoull(b + 6, &end, 16);
			if (errno || *end || len != (is_float ? 14u : 22u))
				return -1;
			if (is_float) {
				uint32_t w = (uint32_t)u;
				float f;
				memcpy(&f, &w, sizeof f);
				if (!isnan(f))
					return -1;
				*out = (double)f;
			} else {
				double d;
				memcpy(&d, &u, sizeof d);
				if (!isnan(d))
					return -1;
				*out = d;
			}
		}
		else if (!strcmp(b, "inf"))
			*out = INFINITY;
		else if (!strcmp(b, "-inf"))
			*out = -INFINITY;
		else
			return -1;
		return 0;
	}
	errno = 0;
	/* Overflow to infinity is an error: "inf" is spelled as a string. */
	double v = is_float ? (double)strtof(b, &end) : strtod(b, &end);
	if (*end || (errno == ERANGE && isinf(v)))
		return -1;
	*out = v;
	return 0;
}
