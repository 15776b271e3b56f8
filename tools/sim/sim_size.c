/* SPDX-License-Identifier: Apache-2.0 */
/* --memory sizes for chakra sim and bench sim. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "sim_size.h"

int sim_parse_size(const char *opt, const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	int shift = 0;
	if (end == s || errno || *s == '-') {
		tool_err("%s: '%s' is not a size (bytes, or with K, M, G)", opt, s);
		return -1;
	}
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	case 't': case 'T': shift = 40; end++; break;
	}
	if (shift && (!strcmp(end, "iB") || !strcmp(end, "B")))
		end += strlen(end);
	if (*end || (shift && v > (UINT64_MAX >> shift))) {
		tool_err("%s: '%s' is not a size (bytes, or with K, M, G)", opt, s);
		return -1;
	}
	*out = (uint64_t)v << shift;
	if (*out < ((uint64_t)1 << 20)) {
		tool_err("%s: %s is below the minimum of 1M", opt, s);
		return -1;
	}
	return 0;
}

