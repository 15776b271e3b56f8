/* SPDX-License-Identifier: Apache-2.0 */
/* The rank-path rule, in one place: rank R of a workload PREFIX is the file
 * PREFIX.R.et, read as PREFIX.R.et.gz when only that one is a regular file
 * (ASTRA-sim's naming, which the feeder, the simulator, perf, synth, the
 * converter and chakra-replay share); a multi-rank input pattern names the
 * rank as "{R}". Header-only (static inline): the core and every module
 * and tool built beside it include it, so no symbol crosses a library. */
#ifndef CHAKRA_RANKPATH_H
#define CHAKRA_RANKPATH_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "chakra/allocator.h"

/* The mark of the rank in a multi-rank input pattern. */
#define CHAKRA__RANK_MARK "{R}"

/* The name rank r's trace is written as: PREFIX.R.et, or PREFIX.R.et.gz
 * with gz. snprintf's return (the length it needed). */
/* Unused ones are no warning where the header lands in the one file of
 * the amalgamation (clang warns of unused static functions there). */
#if defined(__GNUC__)
#  define CHAKRA__RANK_FN static inline __attribute__((unused))
#else
#  define CHAKRA__RANK_FN static inline
#endif

CHAKRA__RANK_FN int chakra__rank_name(char *buf, size_t cap, const char *prefix, uint64_t r, int gz)
{
	return snprintf(buf, cap, "%s.%llu.et%s", prefix, (unsigned long long)r, gz ? ".gz" : "");
}

CHAKRA__RANK_FN int chakra__rank_is_file(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* The file rank r is read from, into buf: PREFIX.R.et if it is a regular
 * file, else PREFIX.R.et.gz; 1 if that one is, 0 if neither (buf then
 * holds the .gz name). cap: at least strlen(prefix) + 32. */
CHAKRA__RANK_FN int chakra__rank_path(char *buf, size_t cap, const char *prefix, uint64_t r)
{
	chakra__rank_name(buf, cap, prefix, r, 0);
	if (chakra__rank_is_file(buf))
		return 1;
	chakra__rank_name(buf, cap, prefix, r, 1);
	return chakra__rank_is_file(buf);
}

/* pat with its first "{R}" replaced by r, through the allocator hook
 * (chakra_free); NULL when pat has no mark or out of memory. */
CHAKRA__RANK_FN char *chakra__rank_expand(const char *pat, uint64_t r)
{
	const char *p = strstr(pat, CHAKRA__RANK_MARK);
	if (!p)
		return NULL;
	char num[24];
	int nl = snprintf(num, sizeof num, "%llu", (unsigned long long)r);
	size_t n = strlen(pat) - 3 + (size_t)nl + 1;
	char *s = (char *)chakra_malloc(n);
	if (s)
		snprintf(s, n, "%.*s%s%s", (int)(p - pat), pat, num, p + 3);
	return s;
}

#endif
