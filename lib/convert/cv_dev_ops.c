/* SPDX-License-Identifier: Apache-2.0 */
/* Device pass, step 2: device ops (kernels, memcpys, memsets) matched to
 * their launches, kept or left out by the window, and ordered on their
 * streams. */
#include <stdlib.h>
#include <string.h>

#include "cv.h"

/* Streams by (device, stream): an exact pair map. */
static uint32_t stream_of(cv_dev *d, int64_t dev, int64_t stream, int create)
{
	uint32_t s = chakra__cv_pmap_get(&d->stmap, dev, stream);
	if (s != CV_NONE)
		return s;
	if (!create || d->nst >= CV_DEV_MAX_STREAMS)
		return CV_NONE;
	cv_dev_stream *n = CV_PUSH(d->st, d->nst, d->stcap);
	if (!n)
		return CV_NONE;
	memset(n, 0, sizeof *n);
	n->device = dev;
	n->stream = stream;
	n->busy_until = CV_UNSET;
	s = (uint32_t)(d->nst - 1);
	if (chakra__cv_pmap_put(&d->stmap, dev, stream, s) < 0)
		return CV_NONE;
	return s;
}

int chakra__cv_dev_index_device(cv_dev *d)
{
	cv_kin *k = d->k;
	for (size_t i = 0; i < d->n; i++) {
		cv_kev *e = &k->ev[i];
		if (!cv_dev_is_device(e->kind))
			continue;
		uint32_t r = e->corr != CV_UNSET && e->corr > 0
		                 ? chakra__cv_map_get(&d->rt_corr, (uint64_t)e->corr)
		                 : CV_NONE;
		d->launch[i] = r;
		d->lkey[i] = r != CV_NONE ? k->ev[r].ts : e->ts;
		if (!cv_dev_in_window(d, d->lkey[i]))
			continue;
		d->inwin[i] = 1;
		uint32_t s = stream_of(d, e->pid, e->stream, 1);
		if (s == CV_NONE && d->nst >= CV_DEV_MAX_STREAMS)
			return chakra__cv_fail(d->err, CHAKRA_ECORRUPT, d->file, "event", e->index, -1,
			                       "more than %d GPU streams (device %lld, stream %lld)",
			                       CV_DEV_MAX_STREAMS, (long long)e->pid, (long long)e->stream);
		if (s == CV_NONE)
			return cv_dev_nomem(d);
		uint32_t *p = CV_PUSH(d->st[s].ops, d->st[s].n, d->st[s].cap);
		if (!p)
			return cv_dev_nomem(d);
		*p = (uint32_t)i;
		if (r != CV_NONE) {
			d->inwin[r] = 1; /* a significant call */
			cv_dev_thread *th = &d->th[d->thr[r]];
			if (!(p = CV_PUSH(th->launch, th->nl, th->lcap)))
				return cv_dev_nomem(d);
			*p = (uint32_t)i;
		} else {
			d->s->launches_unmatched++;
		}
		d->s->kernels++;
	}
	/* The state a window starts in: work launched before it that was
	 * still running (or queued) when it began keeps its stream busy; the
	 * first op of the stream in the window could not start earlier. */
	if (d->o->w1 >= d->o->w0 && !d->o->none)
		for (size_t i = 0; i < d->n; i++) {
			const cv_kev *e = &k->ev[i];
			if (!cv_dev_is_device(e->kind) || d->inwin[i] || d->lkey[i] >= d->o->w0 ||
			    d->end[i] <= d->o->w0)
				continue;
			uint32_t s = stream_of(d, e->pid, e->stream, 0);
			if (s != CV_NONE && (d->st[s].busy_until == CV_UNSET || d->end[i] > d->st[s].busy_until))
				d->st[s].busy_until = d->end[i];
		}
	/* host waits are significant too */
	for (size_t i = 0; i < d->n; i++) {
		const cv_kev *e = &k->ev[i];
		if (e->kind == CV_K_RUNTIME && cv_dev_in_window(d, e->ts) &&
		    (d->rtkind[i] == CV_RT_DEVSYNC || d->rtkind[i] == CV_RT_STREAMSYNC ||
		     d->rtkind[i] == CV_RT_EVENTSYNC))
			d->inwin[i] = 1;
	}
	size_t mx = d->n + 1;
	uint32_t *tmp = chakra_malloc(mx * sizeof *tmp);
	if (!tmp)
		return cv_dev_nomem(d);
	int64_t *startk = chakra_malloc(mx * sizeof *startk), *neglk = chakra_malloc(mx * sizeof *neglk);
	if (!startk || !neglk) {
		chakra_free(tmp), chakra_free(startk), chakra_free(neglk);
		return cv_dev_nomem(d);
	}
	for (size_t i = 0; i < d->n; i++) {
		startk[i] = k->ev[i].ts;
		neglk[i] = d->lkey[i] == INT64_MIN ? INT64_MAX : -d->lkey[i];
	}
	/* A stream runs its work in the order it was enqueued, so its order is
	 * the order the work ran in (ties: launch order). Work whose launch is
	 * not in the trace (enqueued before tracing began) then takes its
	 * place among the rest, and its search key is no later than that of
	 * the work after it, which keeps the launch keys sorted. */
	for (size_t s = 0; s < d->nst; s++) {
		cv_dev_stream *st = &d->st[s];
		chakra__cv_dev_msort(st->ops, st->n, startk, neglk, tmp);
		int64_t nxt = INT64_MAX;
		for (size_t j = st->n; j-- > 0;) {
			uint32_t i = st->ops[j];
			if (d->launch[i] == CV_NONE && d->lkey[i] > nxt)
				d->lkey[i] = nxt;
			if (d->lkey[i] < nxt)
				nxt = d->lkey[i];
		}
	}
	for (size_t t = 0; t < d->nth; t++)
		chakra__cv_dev_msort(d->th[t].launch, d->th[t].nl, d->lkey, NULL, tmp);
	chakra_free(startk);
	chakra_free(neglk);
	chakra_free(tmp);
	return 0;
}
