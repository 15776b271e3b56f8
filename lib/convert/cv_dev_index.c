/* SPDX-License-Identifier: Apache-2.0 */
/* Device pass, step 1: the CPU side indexed: threads by (pid, tid),
 * runtime calls by correlation id and kind, and each thread's events
 * nested by time (parent, outermost op, end clamped into the parent). */
#include <stdlib.h>
#include <string.h>

#include "cv.h"

/* Threads by (pid, tid): an exact pair map. */
static uint32_t thread_of(cv_dev *d, int64_t pid, int64_t tid)
{
	uint32_t t = chakra__cv_pmap_get(&d->thmap, pid, tid);
	if (t != CV_NONE)
		return t;
	cv_dev_thread *n = CV_PUSH(d->th, d->nth, d->thcap);
	if (!n)
		return CV_NONE;
	memset(n, 0, sizeof *n);
	n->pid = pid;
	n->tid = tid;
	t = (uint32_t)(d->nth - 1);
	if (chakra__cv_pmap_put(&d->thmap, pid, tid, t) < 0)
		return CV_NONE;
	return t;
}

int chakra__cv_dev_index_events(cv_dev *d)
{
	cv_kin *k = d->k;
	size_t n = k->n;
	for (size_t i = 0; i < n; i++) {
		cv_kev *e = &k->ev[i];
		d->thr[i] = d->par[i] = d->top[i] = d->launch[i] = d->node[i] = d->anchor[i] = CV_NONE;
		d->end[i] = e->ts + e->dur;
		/* CPU side: ops, runtime calls, and collectives a CPU library runs
		 * on a thread of its own (gloo: an annotation with its size) */
		if (e->kind == CV_K_CPU_OP || e->kind == CV_K_RUNTIME ||
		    (e->kind == CV_K_ANNOT && e->comm != CV_NONE)) {
			uint32_t t = thread_of(d, e->pid, e->tid);
			if (t == CV_NONE)
				return cv_dev_nomem(d);
			d->thr[i] = t;
			uint32_t *p = CV_PUSH(d->th[t].ev, d->th[t].n, d->th[t].cap);
			if (!p)
				return cv_dev_nomem(d);
			*p = (uint32_t)i;
			if (e->kind == CV_K_RUNTIME) {
				d->rtkind[i] = (uint8_t)chakra__cv_rt_kind(cv_dev_ename(d, (uint32_t)i));
				if (e->corr != CV_UNSET && chakra__cv_map_get(&d->rt_corr, (uint64_t)e->corr) ==
				                               CV_NONE &&
				    chakra__cv_map_put(&d->rt_corr, (uint64_t)e->corr, (uint32_t)i) < 0)
					return cv_dev_nomem(d);
			}
		} else if (e->kind == CV_K_SYNC && e->corr != CV_UNSET) {
			if (chakra__cv_map_put(&d->sync_corr, (uint64_t)e->corr, (uint32_t)i) < 0)
				return cv_dev_nomem(d);
		}
	}
	/* nesting per thread: sort by (start, longer first, cpu_op before a
	 * runtime call of the same span) and sweep with a stack */
	int64_t *k1 = chakra_malloc((n + 1) * sizeof *k1), *k2 = chakra_malloc((n + 1) * sizeof *k2);
	uint32_t *tmp = chakra_malloc((n + 1) * sizeof *tmp);
	uint32_t *stack = chakra_malloc((n + 1) * sizeof *stack);
	if (!k1 || !k2 || !tmp || !stack) {
		chakra_free(k1), chakra_free(k2), chakra_free(tmp), chakra_free(stack);
		return cv_dev_nomem(d);
	}
	for (size_t i = 0; i < n; i++) {
		k1[i] = k->ev[i].ts;
		k2[i] = k->ev[i].dur * 2 + (k->ev[i].kind == CV_K_CPU_OP);
	}
	for (size_t t = 0; t < d->nth; t++) {
		cv_dev_thread *th = &d->th[t];
		chakra__cv_dev_msort(th->ev, th->n, k1, k2, tmp);
		size_t sp = 0;
		uint32_t rec = CV_NONE;
		for (size_t j = 0; j < th->n; j++) {
			uint32_t i = th->ev[j];
			const cv_kev *e = &k->ev[i];
			d->lastrec[i] = rec;
			if (e->kind == CV_K_RUNTIME && d->rtkind[i] == CV_RT_RECORD)
				rec = i;
			while (sp && d->end[stack[sp - 1]] <= e->ts &&
			       !(d->end[stack[sp - 1]] == e->ts && k->ev[stack[sp - 1]].ts == e->ts &&
			         k->ev[stack[sp - 1]].dur > 0))
				sp--;
			d->par[i] = sp ? stack[sp - 1] : CV_NONE;
			d->top[i] = sp ? stack[0] : CV_NONE;
			if (sp && d->end[i] > d->end[stack[sp - 1]])
				d->end[i] = d->end[stack[sp - 1]];
			if (e->kind == CV_K_CPU_OP) {
				if (!sp)
					d->top[i] = i;
				stack[sp++] = i;
			}
		}
	}
	chakra_free(k1), chakra_free(k2), chakra_free(tmp), chakra_free(stack);
	return 0;
}
