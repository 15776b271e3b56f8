/* SPDX-License-Identifier: Apache-2.0 */
/* Empirical integer distributions (fan-in, distances, gaps): sorted
 * values with counts, sampled by inverse CDF. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "synth_impl.h"

int chakra__sy_vec_push(sy_vec *a, uint64_t v)
{
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 64;
		uint64_t *p = chakra_realloc(a->p, cap * sizeof *p);
		if (!p)
			return CHAKRA_ENOMEM;
		a->p = p;
		a->cap = cap;
	}
	a->p[a->n++] = v;
	return 0;
}

void chakra__sy_vec_free(sy_vec *a)
{
	chakra_free(a->p);
	memset(a, 0, sizeof *a);
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return a < b ? -1 : a > b;
}

int chakra__sy_hist_from(sy_hist *h, sy_vec *a)
{
	memset(h, 0, sizeof *h);
	if (!a->n)
		return 0;
	qsort(a->p, a->n, sizeof *a->p, cmp_u64);
	size_t d = 1;
	for (size_t i = 1; i < a->n; i++)
		d += a->p[i] != a->p[i - 1];
	h->v = chakra_malloc(d * sizeof *h->v);
	h->c = chakra_malloc(d * sizeof *h->c);
	if (!h->v || !h->c) {
		chakra__sy_hist_free(h);
		return CHAKRA_ENOMEM;
	}
	for (size_t i = 0; i < a->n; i++) {
		if (!h->n || h->v[h->n - 1] != a->p[i]) {
			h->v[h->n] = a->p[i];
			h->c[h->n++] = 0;
		}
		h->c[h->n - 1]++;
	}
	h->total = a->n;
	return chakra__sy_hist_adopt(h, h->v, h->c, h->n);
}

int chakra__sy_hist_adopt(sy_hist *h, uint64_t *v, uint64_t *c, size_t n)
{
	h->v = v;
	h->c = c;
	h->n = n;
	h->cum = chakra_malloc((n ? n : 1) * sizeof *h->cum);
	if (!h->cum) {
		chakra__sy_hist_free(h);
		return CHAKRA_ENOMEM;
	}
	uint64_t t = 0;
	for (size_t i = 0; i < n; i++)
		h->cum[i] = t += c[i];
	h->total = t;
	return 0;
}

void chakra__sy_hist_free(sy_hist *h)
{
	chakra_free(h->v);
	chakra_free(h->c);
	chakra_free(h->cum);
	memset(h, 0, sizeof *h);
}

int chakra__sy_hist_copy(sy_hist *dst, const sy_hist *src)
{
	memset(dst, 0, sizeof *dst);
	if (!src->n)
		return 0;
	uint64_t *v = chakra_malloc(src->n * sizeof *v), *c = chakra_malloc(src->n * sizeof *c);
	if (!v || !c) {
		chakra_free(v);
		chakra_free(c);
		return CHAKRA_ENOMEM;
	}
	memcpy(v, src->v, src->n * sizeof *v);
	memcpy(c, src->c, src->n * sizeof *c);
	return chakra__sy_hist_adopt(dst, v, c, src->n);
}

uint64_t chakra__sy_hist_quantile(const sy_hist *h, double u)
{
	if (!h->n)
		return 0;
	/* The first value whose cumulative count exceeds u * total. */
	double target = u * (double)h->total;
	size_t lo = 0, hi = h->n - 1;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if ((double)h->cum[mid] > target)
			hi = mid;
		else
			lo = mid + 1;
	}
	return h->v[lo];
}

double chakra__sy_hist_mean(const sy_hist *h)
{
	double s = 0;
	for (size_t i = 0; i < h->n; i++)
		s += (double)h->v[i] * (double)h->c[i];
	return h->total ? s / (double)h->total : 0.0;
}
