/* SPDX-License-Identifier: Apache-2.0 */
/* Device pass, step 5: synchronisation. Host waits (device, stream and
 * event synchronize, blocking copies) depend on the device ops they wait
 * for; a stream that waits on an event depends on the op that recorded
 * it. From cuda_sync rows when the trace has them, else inferred. */
#include <stdlib.h>
#include <string.h>

#include "cv.h"

/* The last op of stream s launched strictly before t (CV_NONE). */
static uint32_t last_before(const cv_dev *d, const cv_dev_stream *st, int64_t t)
{
	size_t lo = 0, hi = st->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (d->lkey[st->ops[mid]] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? st->ops[lo - 1] : CV_NONE;
}

static uint32_t first_after(const cv_dev *d, const cv_dev_stream *st, int64_t t)
{
	size_t lo = 0, hi = st->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (d->lkey[st->ops[mid]] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < st->n ? st->ops[lo] : CV_NONE;
}

/* Of the ops of stream st launched before t, the last to end by `by`
 * (a stream runs its work in order, so ends follow the order), CV_NONE. */
static uint32_t done_before(const cv_dev *d, const cv_dev_stream *st, int64_t t, int64_t by)
{
	size_t lo = 0, hi = st->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (d->lkey[st->ops[mid]] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	hi = lo; /* ops [0, hi) were launched before t */
	lo = 0;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (d->end[st->ops[mid]] <= by)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? st->ops[lo - 1] : CV_NONE;
}

/* The cudaEventRecord this thread made last before runtime call i. */
static uint32_t last_record(const cv_dev *d, uint32_t i)
{
	return d->lastrec[i];
}

/* The device op thread t launched last before time ts. */
static uint32_t last_launch(const cv_dev *d, uint32_t t, int64_t ts)
{
	if (t == CV_NONE)
		return CV_NONE;
	const cv_dev_thread *th = &d->th[t];
	size_t lo = 0, hi = th->nl;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (d->lkey[th->launch[mid]] < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? th->launch[lo - 1] : CV_NONE;
}

/* The host node s (a sync call's node or host op) waits for device op a:
 * its return does (sync_deps, exact), and as a dependency, so simulators
 * that read only dependencies keep the wait: s itself, or the next node of
 * its thread when s launched the work (a dependency on it would be a
 * cycle). */
static int host_waits(cv_dev *d, uint32_t a, uint32_t s_node)
{
	if (a == CV_NONE || s_node == CV_NONE || d->node[a] == CV_NONE)
		return 0;
	if (chakra__cv_graph_wait(d->g, s_node, d->node[a]) < 0)
		return -1;
	uint32_t r = d->launch[a];
	uint32_t own = r != CV_NONE ? d->anchor[r] : CV_NONE;
	uint32_t to = s_node;
	if (own == s_node) /* it launched the work itself: the next node waits */
		to = cv_dev_next_on_thread(d, s_node);
	if (to == CV_NONE)
		return 0;
	d->s->sync_edges++;
	return chakra__cv_graph_edge(d->g, d->node[a], to, 0);
}

/* The `sync` attribute of a node that blocks until device work is done. */
static int mark_sync(cv_dev *d, uint32_t node, int rk)
{
	const char *k = rk == CV_RT_DEVSYNC ? "device" : rk == CV_RT_STREAMSYNC ? "stream"
	              : rk == CV_RT_EVENTSYNC ? "event" : "copy";
	uint32_t s = chakra__cv_intern(&d->g->strs, k, strlen(k));
	if (s == CV_NONE)
		return -1;
	d->g->nodes[node].sync = s;
	return 0;
}

/* A call that waits for every stream (cudaDeviceSynchronize, or a stream
 * unknown), kept for the pass below. */
typedef struct allwait {
	uint32_t thr, sn;
	int64_t t;
	int64_t end;   /* when the call returned */
	int guessed;   /* inferred, not recorded: the recording may contradict it */
} allwait;

static int cmp_allwait(const void *a, const void *b)
{
	const allwait *x = a, *y = b;
	if (x->thr != y->thr)
		return x->thr < y->thr ? -1 : 1;
	return x->t < y->t ? -1 : x->t > y->t;
}

typedef struct lop {
	int64_t key;   /* launch key (lkey) */
	uint32_t s;    /* its stream */
} lop;

static int cmp_lop(const void *a, const void *b)
{
	const lop *x = a, *y = b;
	return x->key < y->key ? -1 : x->key > y->key ? 1 : x->s < y->s ? -1 : x->s > y->s;
}

/* Calls that wait for every stream, thread by thread in time order: each
 * waits for the last op of a stream only when that stream got work since
 * the thread's previous such call (what was launched before it, the
 * previous call waited for, and program order carries that on). Every
 * call used to get an edge from every stream: 20k synchronisations x
 * 4,000 streams were 80M edges from a 9.8 MB trace. */
static int all_stream_waits(cv_dev *d, allwait *w, size_t nw)
{
	size_t nops = 0;
	for (size_t s = 0; s < d->nst; s++)
		nops += d->st[s].n;
	lop *byl = chakra_malloc((nops ? nops : 1) * sizeof *byl);
	uint32_t *stamp = chakra_calloc(d->nst ? d->nst : 1, sizeof *stamp);
	uint32_t *hit = chakra_malloc((d->nst ? d->nst : 1) * sizeof *hit);
	uint32_t *pend = chakra_malloc((d->nst ? d->nst : 1) * sizeof *pend);
	int rc = 0;
	if (!byl || !stamp || !hit || !pend) {
		rc = -1;
		goto out;
	}
	nops = 0;
	for (size_t s = 0; s < d->nst; s++)
		for (size_t j = 0; j < d->st[s].n; j++) {
			byl[nops].key = d->lkey[d->st[s].ops[j]];
			byl[nops++].s = (uint32_t)s;
		}
	qsort(byl, nops, sizeof *byl, cmp_lop);
	qsort(w, nw, sizeof *w, cmp_allwait);
	uint32_t gen = 0;
	/* streams a guessed wait of this thread skipped (the recording shows the
	 * call returned before their work ended): the thread's next wait looks
	 * at them again even without new work */
	size_t npend = 0;
	for (size_t q = 0; q < nw && !rc; q++) {
		int first = !q || w[q - 1].thr != w[q].thr || w[q].thr == CV_NONE;
		if (first)
			npend = 0;
		int64_t from = first ? INT64_MIN : w[q - 1].t;
		/* ops launched in [from, t): their streams have new work */
		size_t lo = 0, hi = nops;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (byl[mid].key < from)
				lo = mid + 1;
			else
				hi = mid;
		}
		gen++;
		size_t nh = 0;
		for (size_t j = lo; j < nops && byl[j].key < w[q].t; j++) {
			uint32_t s = byl[j].s;
			if (stamp[s] != gen) {
				stamp[s] = gen;
				hit[nh++] = s;
			}
		}
		for (size_t p = 0; p < npend; p++)
			if (stamp[pend[p]] != gen) {
				stamp[pend[p]] = gen;
				hit[nh++] = pend[p];
			}
		npend = 0;
		for (size_t h = 0; h < nh && !rc; h++) {
			uint32_t a = last_before(d, &d->st[hit[h]], w[q].t);
			/* a guess the recording contradicts is no wait */
			if (w[q].guessed && a != CV_NONE && d->end[a] > w[q].end) {
				pend[npend++] = hit[h];
				continue;
			}
			rc = host_waits(d, a, w[q].sn);
		}
	}
out:
	chakra_free(byl), chakra_free(stamp), chakra_free(hit), chakra_free(pend);
	return rc;
}

int chakra__cv_dev_host_syncs(cv_dev *d)
{
	cv_kin *k = d->k;
	allwait *aw = NULL;
	size_t naw = 0, awcap = 0;
	for (size_t i = 0; i < d->n; i++) {
		const cv_kev *e = &k->ev[i];
		if (e->kind != CV_K_RUNTIME || !d->inwin[i])
			continue;
		int rk = d->rtkind[i];
		uint32_t sn = d->anchor[i];
		if (sn == CV_NONE)
			continue;
		if (rk == CV_RT_MEMCPY_SYNC || rk == CV_RT_DEVSYNC || rk == CV_RT_STREAMSYNC ||
		    rk == CV_RT_EVENTSYNC)
			if (mark_sync(d, sn, rk) < 0) {
				chakra_free(aw);
				return cv_dev_nomem(d);
			}
		if (rk == CV_RT_MEMCPY_SYNC) {
			/* the copy it launched */
			for (size_t s = 0; s < d->nst; s++) {
				uint32_t a = last_before(d, &d->st[s], e->ts + 1);
				if (a != CV_NONE && d->launch[a] == i && host_waits(d, a, sn) < 0) {
					chakra_free(aw);
					return cv_dev_nomem(d);
				}
			}
			continue;
		}
		if (rk != CV_RT_DEVSYNC && rk != CV_RT_STREAMSYNC && rk != CV_RT_EVENTSYNC)
			continue;
		uint32_t row = e->corr != CV_UNSET ? chakra__cv_map_get(&d->sync_corr, (uint64_t)e->corr)
		                                   : CV_NONE;
		int64_t t = e->ts, only = CV_UNSET;
		int guessed = 0;
		if (row != CV_NONE) {
			const cv_kev *w = &k->ev[row];
			const char *rn = cv_dev_ename(d, row);
			int all = strstr(rn, "Context") || w->stream == -1 || w->stream == 4294967295LL;
			if (!all && strstr(rn, "Event")) {
				if (w->wait_stream == CV_UNSET || w->wait_stream < 0)
					continue; /* the event was never recorded */
				only = w->wait_stream;
				uint32_t rec = w->wait_corr != CV_UNSET && w->wait_corr > 0
				                   ? chakra__cv_map_get(&d->rt_corr, (uint64_t)w->wait_corr)
				                   : CV_NONE;
				if (rec != CV_NONE)
					t = k->ev[rec].ts;
			} else if (!all) {
				only = w->stream;
			}
		} else if (rk == CV_RT_EVENTSYNC) {
			guessed = 1;
			/* no cuda_sync row: the event this thread recorded last, on
			 * the stream it launched onto last before recording it */
			uint32_t rec = last_record(d, (uint32_t)i);
			if (rec != CV_NONE) {
				uint32_t l = last_launch(d, d->thr[i], k->ev[rec].ts);
				if (l != CV_NONE) {
					only = k->ev[l].stream;
					t = k->ev[rec].ts;
				}
			}
			d->s->inferred_wait_edges++;
		} else if (rk != CV_RT_DEVSYNC) {
			guessed = 1;
			d->s->inferred_wait_edges++; /* stream unknown: wait for all */
		}
		if (only == CV_UNSET) {
			allwait *x = CV_PUSH(aw, naw, awcap);
			if (!x) {
				chakra_free(aw);
				return cv_dev_nomem(d);
			}
			x->thr = d->thr[i];
			x->sn = sn;
			x->t = t;
			x->end = d->end[i];
			x->guessed = guessed;
			continue;
		}
		for (size_t s = 0; s < d->nst; s++) {
			if (d->st[s].stream != only)
				continue;
			uint32_t a = last_before(d, &d->st[s], t);
			/* A guess that the recording contradicts (the call returned
			 * before that op ended, so it did not wait for it) is no wait. */
			if (guessed && a != CV_NONE && d->end[a] > d->end[i])
				continue;
			if (host_waits(d, a, sn) < 0) {
				chakra_free(aw);
				return cv_dev_nomem(d);
			}
		}
	}
	int arc = naw ? all_stream_waits(d, aw, naw) : 0;
	chakra_free(aw);
	if (arc < 0)
		return cv_dev_nomem(d);
	/* blocking copies into pageable memory return when the copy is done */
	for (size_t s = 0; s < d->nst; s++) {
		const cv_dev_stream *st = &d->st[s];
		for (size_t j = 0; j < st->n; j++) {
			uint32_t a = st->ops[j];
			if (k->ev[a].kind != CV_K_MEMCPY || d->launch[a] == CV_NONE)
				continue;
			const char *nm = cv_dev_ename(d, a);
			if (!strstr(nm, "DtoH") || !strstr(nm, "Pageable"))
				continue;
			uint32_t r = d->launch[a];
			if (d->rtkind[r] == CV_RT_MEMCPY_SYNC)
				continue; /* done above */
			if (d->anchor[r] != CV_NONE && mark_sync(d, d->anchor[r], CV_RT_MEMCPY_SYNC) < 0)
				return cv_dev_nomem(d);
			if (host_waits(d, a, d->anchor[r]) < 0)
				return cv_dev_nomem(d);
		}
	}
	return 0;
}

/* Whether cpu_op j (a 'wait' record_param_comms, c10d wait...) waits for
 * communication. */
static int is_wait_op(const cv_dev *d, uint32_t j)
{
	for (int steps = 0; j != CV_NONE && steps < 8; j = d->par[j], steps++) {
		const cv_kev *e = &d->k->ev[j];
		if (e->comm != CV_NONE && d->k->comms[e->comm].coll == CV_COLL_WAIT)
			return 1;
		const char *nm = cv_dev_ename(d, j);
		if (strstr(nm, "::wait") || !strcmp(nm, "wait"))
			return 1;
	}
	return 0;
}

int chakra__cv_dev_stream_waits(cv_dev *d)
{
	cv_kin *k = d->k;
	for (size_t i = 0; i < d->n; i++) {
		const cv_kev *e = &k->ev[i];
		if (e->kind != CV_K_RUNTIME || d->rtkind[i] != CV_RT_WAIT || !cv_dev_in_window(d, e->ts))
			continue;
		uint32_t row = e->corr != CV_UNSET ? chakra__cv_map_get(&d->sync_corr, (uint64_t)e->corr)
		                                   : CV_NONE;
		uint32_t a = CV_NONE, b = CV_NONE;
		int inferred = 0;
		if (row != CV_NONE) {
			const cv_kev *w = &k->ev[row];
			uint32_t ws = CV_NONE, rs = CV_NONE;
			for (size_t s = 0; s < d->nst; s++) {
				if (d->st[s].stream == w->stream)
					ws = (uint32_t)s;
				if (d->st[s].stream == w->wait_stream)
					rs = (uint32_t)s;
			}
			if (ws == CV_NONE || rs == CV_NONE || ws == rs)
				continue;
			int64_t t = e->ts;
			uint32_t rec = w->wait_corr != CV_UNSET && w->wait_corr > 0
			                   ? chakra__cv_map_get(&d->rt_corr, (uint64_t)w->wait_corr)
			                   : CV_NONE;
			if (rec != CV_NONE)
				t = k->ev[rec].ts;
			a = last_before(d, &d->st[rs], t);
			b = first_after(d, &d->st[ws], e->ts);
		} else if (!k->have_sync_rows) {
			/* Inferred: the waiting stream is where this thread launches
			 * next (inside the same op, or anywhere next when the call is
			 * outside any op or in a wait op); the event is the last work
			 * launched on another stream before the call. A wait inside
			 * an op that launches nothing after it is left alone. */
			cv_dev_thread *th = d->thr[i] != CV_NONE ? &d->th[d->thr[i]] : NULL;
			if (!th)
				continue;
			size_t lo = 0, hi = th->nl;
			while (lo < hi) {
				size_t mid = (lo + hi) / 2;
				if (d->lkey[th->launch[mid]] <= e->ts)
					lo = mid + 1;
				else
					hi = mid;
			}
			if (lo == th->nl)
				continue;
			b = th->launch[lo];
			uint32_t top = d->top[i];
			if (top != CV_NONE && d->top[d->launch[b]] != top && !is_wait_op(d, d->par[i]))
				continue;
			/* The event marks a point in another stream's queue, before
			 * the call. b waited for it, so it ended before b started: of
			 * the work launched before the call, the latest to end before
			 * b's recorded start (what held b back, if anything did). */
			const cv_kev *be = &k->ev[b];
			int64_t best = INT64_MIN;
			for (size_t s = 0; s < d->nst; s++) {
				const cv_dev_stream *st = &d->st[s];
				if (st->stream == be->stream && st->device == be->pid)
					continue;
				uint32_t c = done_before(d, st, e->ts, be->ts);
				if (c != CV_NONE && d->end[c] > best) {
					best = d->end[c];
					a = c;
				}
				/* or the stream's work from before the window */
				if (st->busy_until != CV_UNSET && st->busy_until <= be->ts &&
				    st->busy_until > best) {
					best = st->busy_until;
					a = CV_NONE;
				}
			}
			inferred = 1;
			if (a == CV_NONE && best != INT64_MIN && d->node[b] != CV_NONE) {
				cv_node *nb = &d->g->nodes[d->node[b]];
				if (nb->backlog == CV_UNSET || best > nb->backlog)
					nb->backlog = best;
				d->s->inferred_wait_edges++;
				continue;
			}
		}
		if (a == CV_NONE || b == CV_NONE || d->node[a] == CV_NONE || d->node[b] == CV_NONE)
			continue;
		/* an inferred wait the recording contradicts (b started before a
		 * ended) was not the event b's stream waited for */
		if (inferred && d->end[a] > k->ev[b].ts)
			continue;
		if (chakra__cv_graph_edge(d->g, d->node[a], d->node[b], 0) < 0)
			return cv_dev_nomem(d);
		if (inferred)
			d->s->inferred_wait_edges++;
		else
			d->s->stream_wait_edges++;
	}
	return 0;
}
