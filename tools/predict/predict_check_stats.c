/* SPDX-License-Identifier: Apache-2.0 */
/* chakra predict check: error statistics (predict_check.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "predict_check.h"

void pc_acc_add(stat_acc *a, double e)
{
	a->sum += fabs(e);
	if (fabs(e) > a->max)
		a->max = fabs(e);
	a->n++;
}

int pc_cmp_dbl(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return a < b ? -1 : a > b;
}

typedef struct idx {
	double v;
	size_t i;
} idx;

static int cmp_idx(const void *x, const void *y)
{
	const idx *a = x, *b = y;
	return a->v < b->v ? -1 : a->v > b->v;
}

/* Average ranks (ties share theirs). */
static int ranks(const double *v, size_t n, double *r)
{
	idx *t = malloc((n ? n : 1) * sizeof *t);
	if (!t)
		return -1;
	for (size_t i = 0; i < n; i++)
		t[i] = (idx){ v[i], i };
	qsort(t, n, sizeof *t, cmp_idx);
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j + 1 < n && t[j + 1].v == t[i].v)
			j++;
		for (size_t k = i; k <= j; k++)
			r[t[k].i] = (double)(i + j) / 2.0 + 1.0;
		i = j + 1;
	}
	free(t);
	return 0;
}

double pc_spearman(const double *a, const double *b, size_t n)
{
	double *ra = malloc((n ? n : 1) * sizeof *ra), *rb = malloc((n ? n : 1) * sizeof *rb);
	double rho = NAN;
	if (ra && rb && n > 1 && ranks(a, n, ra) == 0 && ranks(b, n, rb) == 0) {
		double ma = 0, mb = 0, sab = 0, saa = 0, sbb = 0;
		for (size_t i = 0; i < n; i++) {
			ma += ra[i];
			mb += rb[i];
		}
		ma /= (double)n;
		mb /= (double)n;
		for (size_t i = 0; i < n; i++) {
			sab += (ra[i] - ma) * (rb[i] - mb);
			saa += (ra[i] - ma) * (ra[i] - ma);
			sbb += (rb[i] - mb) * (rb[i] - mb);
		}
		rho = saa > 0 && sbb > 0 ? sab / sqrt(saa * sbb) : NAN;
	}
	free(ra);
	free(rb);
	return rho;
}

void pc_kv_d(yajl_gen y, const char *k, double v)
{
	yajl_gen_string(y, (const unsigned char *)k, strlen(k));
	if (isfinite(v))
		yajl_gen_double(y, v);
	else
		yajl_gen_null(y);
}
