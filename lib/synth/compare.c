/* SPDX-License-Identifier: Apache-2.0 */
/* Compare two sets of ranks distribution by distribution with the
 * two-sample Kolmogorov-Smirnov statistic D = sup |F_real - F_synth| (ties
 * handled: both empirical CDFs step past a value together). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "synth_impl.h"

double chakra__sy_ks(const uint64_t *a, size_t na, const uint64_t *b, size_t nb)
{
	if (!na || !nb)
		return na == nb ? 0.0 : 1.0;
	size_t i = 0, j = 0;
	double d = 0;
	while (i < na && j < nb) {
		uint64_t x = a[i] < b[j] ? a[i] : b[j];
		while (i < na && a[i] == x)
			i++;
		while (j < nb && b[j] == x)
			j++;
		double diff = fabs((double)i / (double)na - (double)j / (double)nb);
		if (diff > d)
			d = diff;
	}
	return d;
}

typedef struct dist {
	char name[64];
	sy_vec real, synth;
} dist;

struct chakra_synth_report {
	dist *d;
	size_t n;
	chakra_synth_ks *ks;
};

static dist *find(chakra_synth_report *R, const char *name)
{
	for (size_t i = 0; i < R->n; i++)
		if (!strcmp(R->d[i].name, name))
			return &R->d[i];
	dist *d = chakra_realloc(R->d, (R->n + 1) * sizeof *d);
	if (!d)
		return NULL;
	R->d = d;
	memset(&d[R->n], 0, sizeof *d);
	snprintf(d[R->n].name, sizeof d[R->n].name, "%s", name);
	return &d[R->n++];
}

static int add(chakra_synth_report *R, const char *name, int which, uint64_t v)
{
	dist *d = find(R, name);
	if (!d)
		return CHAKRA_ENOMEM;
	return chakra__sy_vec_push(which ? &d->synth : &d->real, v);
}

static int collect(chakra_synth_report *R, const sy_trace *t, int which)
{
	size_t n = t->nn;
	int rc = 0;
	uint32_t *fanout = chakra_calloc(n ? n : 1, sizeof *fanout);
	int64_t *cidx = chakra_malloc((n ? n : 1) * sizeof *cidx);
	int64_t *first = chakra_malloc((n ? n : 1) * sizeof *first);
	if (!fanout || !cidx || !first) {
		rc = CHAKRA_ENOMEM;
		goto out;
	}
	char name[64];
	int64_t ci = 0;
	for (size_t o = 0; o < n; o++) {
		uint32_t v = t->order[o];
		const sy_node *x = &t->n[v];
		first[v] = -1;
		cidx[v] = ci;
		if (x->tok == SY_TOK_COLL) {
			const char *tn = chakra_comm_type_name(x->cls);
			snprintf(name, sizeof name, "size/%s", tn ? tn : "?");
			if ((rc = add(R, "size/all", which, x->size)) < 0 ||
			    (rc = add(R, name, which, x->size)) < 0)
				goto out;
		} else {
			snprintf(name, sizeof name, "duration/%s", chakra__sy_class_name(x->cls));
			if ((rc = add(R, "duration/all", which, x->dur_ns)) < 0 ||
			    (rc = add(R, name, which, x->dur_ns)) < 0)
				goto out;
			/* First compute consumer of each collective parent. */
			for (uint32_t d = 0; d < x->ndep; d++) {
				uint32_t p = t->deps[x->dep0 + d];
				if (t->n[p].tok == SY_TOK_COLL && first[p] < 0)
					first[p] = ci;
			}
			ci++;
		}
		if ((rc = add(R, "fanin", which, x->ndep)) < 0)
			goto out;
		for (uint32_t d = 0; d < x->ndep; d++)
			fanout[t->deps[x->dep0 + d]]++;
	}
	for (size_t i = 0; i < n; i++) {
		if ((rc = add(R, "fanout", which, fanout[i])) < 0)
			goto out;
		/* Overlap: compute nodes issued between a collective and the
		 * first compute node that waits for it. */
		if (t->n[i].tok == SY_TOK_COLL && first[i] >= 0 &&
		    (rc = add(R, "overlap", which, (uint64_t)(first[i] - cidx[i]))) < 0)
			goto out;
	}
	/* Chains: runs of compute nodes, in issue order, where each depends
	 * on the one before. */
	uint64_t len = 0;
	int64_t prev = -1;
	for (size_t o = 0; o < n; o++) {
		uint32_t v = t->order[o];
		const sy_node *x = &t->n[v];
		if (x->tok != SY_TOK_COMPUTE)
			continue;
		int linked = 0;
		for (uint32_t d = 0; d < x->ndep && prev >= 0; d++)
			linked |= t->deps[x->dep0 + d] == (uint32_t)prev;
		if (!linked && len) {
			if ((rc = add(R, "chain_length", which, len)) < 0)
				goto out;
			len = 0;
		}
		len++;
		prev = v;
	}
	if (len)
		rc = add(R, "chain_length", which, len);
out:
	chakra_free(fanout);
	chakra_free(cidx);
	chakra_free(first);
	return rc;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return a < b ? -1 : a > b;
}

/* "all" first, then the rest by name within each family. */
static int cmp_dist(const void *x, const void *y)
{
	const dist *a = x, *b = y;
	return strcmp(a->name, b->name);
}

static double mean(const sy_vec *v)
{
	double s = 0;
	for (size_t i = 0; i < v->n; i++)
		s += (double)v->p[i];
	return v->n ? s / (double)v->n : 0.0;
}

static int load_side(chakra_synth_report *R, const char *const *paths, size_t n, int which,
                     char *err, size_t errlen)
{
	for (size_t i = 0; i < n; i++) {
		sy_trace t;
		int rc = chakra__sy_trace_load(&t, paths[i], err, errlen);
		if (rc == 0)
			rc = collect(R, &t, which);
		chakra__sy_trace_free(&t);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int synth_compare_impl(chakra_synth_report **out, const char *const *real, size_t nreal, const char *const *synth, size_t nsynth, char *err, size_t errlen)
{
	*out = NULL;
	if (!nreal || !nsynth)
		return chakra__sy_err(err, errlen, CHAKRA_EINVAL, "compare: no traces on one side");
	chakra_synth_report *R = chakra_calloc(1, sizeof *R);
	if (!R)
		return CHAKRA_ENOMEM;
	int rc = load_side(R, real, nreal, 0, err, errlen);
	if (rc == 0)
		rc = load_side(R, synth, nsynth, 1, err, errlen);
	if (rc == 0 && R->n) {
		qsort(R->d, R->n, sizeof *R->d, cmp_dist);
		R->ks = chakra_calloc(R->n, sizeof *R->ks);
		if (!R->ks)
			rc = CHAKRA_ENOMEM;
	}
	for (size_t i = 0; i < R->n && rc == 0; i++) {
		dist *d = &R->d[i];
		if (d->real.n)
			qsort(d->real.p, d->real.n, sizeof *d->real.p, cmp_u64);
		if (d->synth.n)
			qsort(d->synth.p, d->synth.n, sizeof *d->synth.p, cmp_u64);
		chakra_synth_ks *k = &R->ks[i];
		k->name = d->name;
		k->n_real = d->real.n;
		k->n_synth = d->synth.n;
		k->ks = chakra__sy_ks(d->real.p, d->real.n, d->synth.p, d->synth.n);
		k->crit05 = d->real.n && d->synth.n
		                ? 1.358 * sqrt((double)(d->real.n + d->synth.n) /
		                               ((double)d->real.n * (double)d->synth.n))
		                : 1.0;
		k->mean_real = mean(&d->real);
		k->mean_synth = mean(&d->synth);
	}
	if (rc < 0) {
		chakra_synth_report_free(R);
		return rc;
	}
	*out = R;
	return 0;
}

/* Every failure comes with a message (out of memory included). */
int chakra_synth_compare(chakra_synth_report **out, const char *const *real, size_t nreal,
                         const char *const *synth, size_t nsynth, char *err, size_t errlen)
{
	if (!out || (!real && nreal) || (!synth && nsynth))
		return chakra__sy_err(err, errlen, CHAKRA_EINVAL, "%s: NULL argument", __func__);
	if (errlen)
		err[0] = 0;
	return chakra__sy_msg(synth_compare_impl(out, real, nreal, synth, nsynth, err, errlen), err, errlen);
}

size_t chakra_synth_report_count(const chakra_synth_report *r)
{
	return r ? r->n : 0;
}

const chakra_synth_ks *chakra_synth_report_at(const chakra_synth_report *r, size_t i)
{
	return r && i < r->n ? &r->ks[i] : NULL;
}

int chakra_synth_report_quantiles(const chakra_synth_report *r, size_t i, int which, size_t q,
                                  double *out)
{
	if (!r || !out || i >= r->n || !q)
		return CHAKRA_EINVAL;
	const sy_vec *v = which ? &r->d[i].synth : &r->d[i].real;
	for (size_t j = 0; j < q; j++) {
		if (!v->n) {
			out[j] = NAN;
			continue;
		}
		size_t k = (size_t)(((double)j + 0.5) / (double)q * (double)v->n);
		out[j] = (double)v->p[k < v->n ? k : v->n - 1];
	}
	return 0;
}

void chakra_synth_report_free(chakra_synth_report *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++) {
		chakra__sy_vec_free(&r->d[i].real);
		chakra__sy_vec_free(&r->d[i].synth);
	}
	chakra_free(r->d);
	chakra_free(r->ks);
	chakra_free(r);
}
