/* SPDX-License-Identifier: Apache-2.0 */
/* Every window between occurrences of an annotation, replayed, and the
 * median one (chakra_perf_between_windows, behind `chakra replay
 * --between`). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chakra/experimental/perf.h"
#include "../modmem.h"

typedef struct vi {
	int64_t v;
	size_t i;
} vi;

static int cmp_vi(const void *a, const void *b)
{
	const vi *x = a, *y = b;
	if (x->v != y->v)
		return x->v < y->v ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* Index of the median (the lower middle; ties: the earlier index) of
 * v[0..n), n > 0; n when memory runs out. */
static size_t median_index(const int64_t *v, size_t n)
{
	vi *t = chakra_malloc(n * sizeof *t);
	if (!t)
		return n;
	for (size_t i = 0; i < n; i++) {
		t[i].v = v[i];
		t[i].i = i;
	}
	qsort(t, n, sizeof *t, cmp_vi);
	size_t m = t[(n - 1) / 2].i;
	chakra_free(t);
	return m;
}

static int fail(chakra_perf_windows *w, int rc, const char *msg)
{
	snprintf(w->errmsg, sizeof w->errmsg, "%s", msg);
	return rc;
}

int chakra_perf_between_windows(const chakra_perf *r, const char *annotation, uint64_t first,
                                size_t count, const chakra_perf_options *opts,
                                chakra_perf_windows *w)
{
	memset(w, 0, sizeof *w);
	if (!count)
		return fail(w, CHAKRA_EINVAL, "no window to replay");
	w->predicted_ns = chakra_malloc(count * sizeof *w->predicted_ns);
	w->recorded_ns = chakra_malloc(count * sizeof *w->recorded_ns);
	/* the windows split off a batch at a time (one pass over the graph per
	 * batch; a batch's replays held at once), each replayed and dropped */
	const size_t batch = 4096;
	chakra_perf **ws = chakra_calloc(count < batch ? count : batch, sizeof *ws);
	if (!w->predicted_ns || !w->recorded_ns || !ws) {
		chakra_free(ws);
		return fail(w, CHAKRA_ENOMEM, "out of memory");
	}
	for (size_t w0 = 0; w0 < count; w0 += batch) {
		size_t nb = count - w0 < batch ? count - w0 : batch;
		int rc = chakra_perf_between_range(r, annotation, first + w0, nb, ws);
		if (rc < 0) {
			fail(w, rc, ws[0] ? chakra_perf_errmsg(ws[0]) : "out of memory");
			chakra_perf_free(ws[0]);
			chakra_free(ws);
			return rc;
		}
		for (size_t k = 0; k < nb; k++) {
			chakra_perf *d = ws[k];
			ws[k] = NULL;
			if ((rc = chakra_perf_run(d, opts)) < 0) {
				snprintf(w->errmsg, sizeof w->errmsg, "iteration %zu: %s",
				         (size_t)first + w0 + k, chakra_perf_errmsg(d));
				chakra_perf_free(d);
				for (size_t q = k + 1; q < nb; q++)
					chakra_perf_free(ws[q]);
				chakra_free(ws);
				return rc;
			}
			w->predicted_ns[w0 + k] = chakra_perf_breakdown_of(d, -1)->iteration_ns;
			w->recorded_ns[w0 + k] = chakra_perf_breakdown_of(d, -1)->recorded_ns;
			chakra_perf_free(d);
		}
	}
	chakra_free(ws);
	size_t med = median_index(w->predicted_ns, count);
	size_t rec = median_index(w->recorded_ns, count);
	if (med == count || rec == count)
		return fail(w, CHAKRA_ENOMEM, "out of memory");
	w->count = count;
	w->median = med;
	w->recorded_median_ns = w->recorded_ns[rec];
	return 0;
}

void chakra_perf_windows_free(chakra_perf_windows *w)
{
	if (!w)
		return;
	chakra_free(w->predicted_ns);
	chakra_free(w->recorded_ns);
	w->predicted_ns = w->recorded_ns = NULL;
	w->count = 0;
}

int chakra_perf_between_median(const chakra_perf *r, const char *annotation, uint64_t first,
                               size_t count, const chakra_perf_options *opts,
                               chakra_perf_windows *w, chakra_perf **out)
{
	if (!w || !out)
		return CHAKRA_EINVAL;
	*out = NULL;
	int rc = chakra_perf_between_windows(r, annotation, first, count, opts, w);
	if (rc < 0)
		return rc;
	chakra_perf *d = NULL;
	if ((rc = chakra_perf_between(r, annotation, first + w->median, &d)) < 0 ||
	    (rc = chakra_perf_run(d, opts)) < 0) {
		fail(w, rc, d ? chakra_perf_errmsg(d) : "out of memory");
		chakra_perf_free(d);
		return rc;
	}
	*out = d;
	return 0;
}
