/* SPDX-License-Identifier: Apache-2.0 */
/* Minimal test helpers: CHECK records a failure and goes on; the test's
 * exit status is the number of failures (0 = pass). */
#ifndef CHAKRA_TEST_CHECK_H
#define CHAKRA_TEST_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_failures;

#define CHECK(cond)                                                                  \
	do {                                                                             \
		if (!(cond)) {                                                               \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
			check_failures++;                                                        \
		}                                                                            \
	} while (0)

#define CHECK_MSG(cond, ...)                                                          \
	do {                                                                              \
		if (!(cond)) {                                                                \
			fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond);  \
			fprintf(stderr, __VA_ARGS__);                                             \
			fputc('\n', stderr);                                                      \
			check_failures++;                                                         \
		}                                                                             \
	} while (0)

#define CHECK_EQ_U(a, b)                                                                  \
	do {                                                                                  \
		unsigned long long _a = (unsigned long long)(a), _b = (unsigned long long)(b);    \
		if (_a != _b) {                                                                   \
			fprintf(stderr, "%s:%d: CHECK failed: %s == %s (%llu != %llu)\n", __FILE__,   \
			        __LINE__, #a, #b, _a, _b);                                            \
			check_failures++;                                                             \
		}                                                                                 \
	} while (0)

static inline int check_done(void)
{
	if (check_failures)
		fprintf(stderr, "%d check(s) failed\n", check_failures);
	return check_failures ? 1 : 0;
}

/* A file under tests/data (CHAKRA_SHARED is set by tests/meson.build to the
 * folder holding data/), e.g. shared_path("data/chakra/chakra.0.et.gz"). */
static inline const char *shared_path(const char *rel)
{
	static char buf[4096];
	snprintf(buf, sizeof buf, "%s/%s", CHAKRA_SHARED, rel);
	return buf;
}

/* Skip the test (meson's exit status 77) when an input it needs is not in
 * tests/data, e.g. in a copy of the sources without the test data: a test
 * that needs something absent says so and skips, never crashes. Call it
 * at the top of main for each file or folder the test reads. */
#include <sys/stat.h>
static inline void need_data(const char *rel)
{
	struct stat st;
	const char *p = shared_path(rel);
	if (stat(p, &st) != 0) {
		printf("SKIP: test input %s is absent (tests/data/SOURCES.md)\n", p);
		exit(77);
	}
}

/* Whole file into memory (gunzipped by the caller if needed). */
static inline unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	unsigned char *b = malloc(cap);
	size_t r;
	while (b && (r = fread(b + n, 1, cap - n, f)) > 0) {
		n += r;
		if (n == cap) {
			unsigned char *nb = realloc(b, cap *= 2);
			if (!nb) {
				free(b);
				b = NULL;
			}
			b = nb;
		}
	}
	fclose(f);
	*len = n;
	return b;
}

#endif
