/* SPDX-License-Identifier: Apache-2.0 */
/* The device side of a Kineto trace, and the CPU side when there is no ET:
 *
 * - CPU threads: events of one thread are nested by time (a child starts
 *   inside its parent; ends are clamped to the parent's). Without an ET
 *   (mode A) every top-level cpu_op becomes nodes cut at the runtime calls
 *   that matter (launches of device work in the window, host
 *   synchronisation): pieces of the op between calls, and the calls
 *   themselves, so each node is a span of the thread and consecutive nodes
 *   tile it. With an ET (mode B) a runtime call belongs to the host op its
 *   enclosing cpu_ops are linked to.
 * - Device ops (kernels, memcpys, memsets) become nodes on their stream,
 *   each depending on its launch (data) and on the previous op of the stream
 *   (ctrl); NCCL kernels are the collectives.
 * - Synchronisation: host waits (device/stream/event synchronize, blocking
 *   copies) depend on the device ops they wait for; cudaStreamWaitEvent
 *   makes the first op launched onto the waiting stream depend on the op
 *   the event recorded. From cuda_sync rows when the trace has them, else
 *   inferred (docs/convert.md says how).
 *
 * Launches are matched by correlation id; flows are not used. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_tree.h>

#include "cv.h"

enum { RT_OTHER = 0, RT_DEVSYNC, RT_STREAMSYNC, RT_EVENTSYNC, RT_WAIT, RT_RECORD, RT_MEMCPY_SYNC };

typedef struct stream_t {
	int64_t device, stream;
	uint32_t *ops;     /* device events, by launch time */
	size_t n, cap;
	int64_t busy_until; /* end of its work launched before the window, CV_UNSET */
} stream_t;

typedef struct thread_t {
	int64_t pid, tid;
	uint32_t *ev;      /* CPU-side events (cpu_op, runtime), by time */
	size_t n, cap;
	uint32_t *launch;  /* device events launched from here, by launch time */
	size_t nl, lcap;
	uint32_t *gn;      /* mode A: its graph nodes, in time order */
	size_t ngn, gcap;
} thread_t;

typedef struct dv {
	cv_kin *k;
	cv_graph *g;
	const cv_dev_opts *o;
	chakra_convert_summary *s;
	cv_err *err;
	const char *file;
	size_t n;
	uint32_t *thr;     /* event -> thread index (CPU side) */
	uint32_t *par;     /* innermost enclosing cpu_op */
	uint32_t *top;     /* outermost enclosing cpu_op (self for a top-level op) */
	int64_t *end;      /* end, clamped into the parent */
	uint32_t *launch;  /* device event -> runtime call (CV_NONE) */
	uint32_t *node;    /* event -> graph node */
	uint32_t *anchor;  /* runtime call -> the CPU node it belongs to */
	uint8_t *rtkind;   /* runtime call: RT_* */
	uint32_t *lastrec; /* CPU-side event -> last cudaEventRecord before it, same thread */
	uint8_t *inwin;    /* device event included / runtime significant */
	int64_t *lkey;     /* device event: launch time (else own start) */
	cv_map rt_corr, sync_corr;
	cv_pmap thmap, stmap;
	stream_t *st;
	size_t nst, stcap;
	thread_t *th;
	size_t nth, thcap;
	uint32_t *next_cpu; /* mode A: graph node -> next CPU node of its thread */
	size_t next_cap;
} dv;

static int nomem(dv *d)
{
	return chakra__cv_fail(d->err, CHAKRA_ENOMEM, d->file, NULL, -1, -1, "out of memory");
}

static const char *ename(const dv *d, uint32_t i)
{
	return cv_str(&d->k->strs, d->k->ev[i].name);
}

static int is_device(int kind)
{
	return kind == CV_K_KERNEL || kind == CV_K_MEMCPY || kind == CV_K_MEMSET;
}

/* ---- sorting event indices by (key1 asc, key2 desc, index asc) ---- */
static int before(const int64_t *k1, const int64_t *k2, uint32_t a, uint32_t b)
{
	if (k1[a] != k1[b])
		return k1[a] < k1[b];
	if (k2 && k2[a] != k2[b])
		return k2[a] > k2[b];
	return a < b;
}

static void msort(uint32_t *v, size_t n, const int64_t *k1, const int64_t *k2, uint32_t *tmp)
{
	if (n < 12) {
		for (size_t i = 1; i < n; i++) {
			uint32_t x = v[i];
			size_t j = i;
			while (j && before(k1, k2, x, v[j - 1])) {
				v[j] = v[j - 1];
				j--;
			}
			v[j] = x;
		}
		return;
	}
	size_t h = n / 2;
	msort(v, h, k1, k2, tmp);
	msort(v + h, n - h, k1, k2, tmp);
	size_t i = 0, j = h, o = 0;
	while (i < h && j < n)
		tmp[o++] = before(k1, k2, v[j], v[i]) ? v[j++] : v[i++];
	while (i < h)
		tmp[o++] = v[i++];
	while (j < n)
		tmp[o++] = v[j++];
	memcpy(v, tmp, n * sizeof *v);
}

/* Threads and streams by (pid, tid) / (device, stream): exact pair maps. */
static uint32_t thread_of(dv *d, int64_t pid, int64_t tid)
{
	uint32_t t = chakra__cv_pmap_get(&d->thmap, pid, tid);
	if (t != CV_NONE)
		return t;
	thread_t *n = CV_PUSH(d->th, d->nth, d->thcap);
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

/* More GPU streams than any real trace has: every host wait looks at each
 * stream, so a hostile file could make that quadratic. */
#define MAX_STREAMS 4096

static uint32_t stream_of(dv *d, int64_t dev, int64_t stream, int create)
{
	uint32_t s = chakra__cv_pmap_get(&d->stmap, dev, stream);
	if (s != CV_NONE)
		return s;
	if (!create || d->nst >= MAX_STREAMS)
		return CV_NONE;
	stream_t *n = CV_PUSH(d->st, d->nst, d->stcap);
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

/* CUDA (cuda*, cu*), HIP (hip*) and MTIA runtime names. */
static int rt_kind(const char *nm)
{
	if (strstr(nm, "DeviceSynchronize") || strstr(nm, "CtxSynchronize") ||
	    !strcmp(nm, "synchronize"))
		return RT_DEVSYNC;
	if (strstr(nm, "StreamSynchronize") || !strcmp(nm, "synchronizeStream"))
		return RT_STREAMSYNC;
	if (strstr(nm, "EventSynchronize") || !strcmp(nm, "synchronizeEvent"))
		return RT_EVENTSYNC;
	if (strstr(nm, "StreamWaitEvent") || strstr(nm, "waitOnEvent"))
		return RT_WAIT;
	if (strstr(nm, "EventRecord") || !strcmp(nm, "recordEvent"))
		return RT_RECORD;
	/* synchronous copies: cudaMemcpy, cudaMemcpy2D, ...ToSymbol/FromSymbol
	 * without Async */
	if ((!strncmp(nm, "cudaMemcpy", 10) || !strncmp(nm, "hipMemcpy", 9) ||
	     !strncmp(nm, "cuMemcpy", 8)) && !strstr(nm, "Async"))
		return RT_MEMCPY_SYNC;
	return RT_OTHER;
}

static int in_window(const dv *d, int64_t t)
{
	if (d->o->none)
		return 0;
	if (d->o->w1 < d->o->w0)
		return 1;
	/* [w0, w1): an op starting where the window ends is the next one's */
	return t >= d->o->w0 && t < d->o->w1;
}

/* ---- 1. index: threads, streams, correlations, nesting ---- */
static int index_events(dv *d)
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
				return nomem(d);
			d->thr[i] = t;
			uint32_t *p = CV_PUSH(d->th[t].ev, d->th[t].n, d->th[t].cap);
			if (!p)
				return nomem(d);
			*p = (uint32_t)i;
			if (e->kind == CV_K_RUNTIME) {
				d->rtkind[i] = (uint8_t)rt_kind(ename(d, (uint32_t)i));
				if (e->corr != CV_UNSET && chakra__cv_map_get(&d->rt_corr, (uint64_t)e->corr) ==
				                               CV_NONE &&
				    chakra__cv_map_put(&d->rt_corr, (uint64_t)e->corr, (uint32_t)i) < 0)
					return nomem(d);
			}
		} else if (e->kind == CV_K_SYNC && e->corr != CV_UNSET) {
			if (chakra__cv_map_put(&d->sync_corr, (uint64_t)e->corr, (uint32_t)i) < 0)
				return nomem(d);
		}
	}
	/* nesting per thread: sort by (start, longer first, cpu_op before a
	 * runtime call of the same span) and sweep with a stack */
	int64_t *k1 = chakra_malloc((n + 1) * sizeof *k1), *k2 = chakra_malloc((n + 1) * sizeof *k2);
	uint32_t *tmp = chakra_malloc((n + 1) * sizeof *tmp);
	uint32_t *stack = chakra_malloc((n + 1) * sizeof *stack);
	if (!k1 || !k2 || !tmp || !stack) {
		chakra_free(k1), chakra_free(k2), chakra_free(tmp), chakra_free(stack);
		return nomem(d);
	}
	for (size_t i = 0; i < n; i++) {
		k1[i] = k->ev[i].ts;
		k2[i] = k->ev[i].dur * 2 + (k->ev[i].kind == CV_K_CPU_OP);
	}
	for (size_t t = 0; t < d->nth; t++) {
		thread_t *th = &d->th[t];
		msort(th->ev, th->n, k1, k2, tmp);
		size_t sp = 0;
		uint32_t rec = CV_NONE;
		for (size_t j = 0; j < th->n; j++) {
			uint32_t i = th->ev[j];
			const cv_kev *e = &k->ev[i];
			d->lastrec[i] = rec;
			if (e->kind == CV_K_RUNTIME && d->rtkind[i] == RT_RECORD)
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

/* ---- 2. device ops: launch, window, streams ---- */
static int index_device(dv *d)
{
	cv_kin *k = d->k;
	for (size_t i = 0; i < d->n; i++) {
		cv_kev *e = &k->ev[i];
		if (!is_device(e->kind))
			continue;
		uint32_t r = e->corr != CV_UNSET && e->corr > 0
		                 ? chakra__cv_map_get(&d->rt_corr, (uint64_t)e->corr)
		                 : CV_NONE;
		d->launch[i] = r;
		d->lkey[i] = r != CV_NONE ? k->ev[r].ts : e->ts;
		if (!in_window(d, d->lkey[i]))
			continue;
		d->inwin[i] = 1;
		uint32_t s = stream_of(d, e->pid, e->stream, 1);
		if (s == CV_NONE && d->nst >= MAX_STREAMS)
			return chakra__cv_fail(d->err, CHAKRA_ECORRUPT, d->file, "event", e->index, -1,
			                       "more than %d GPU streams (device %lld, stream %lld)",
			                       MAX_STREAMS, (long long)e->pid, (long long)e->stream);
		if (s == CV_NONE)
			return nomem(d);
		uint32_t *p = CV_PUSH(d->st[s].ops, d->st[s].n, d->st[s].cap);
		if (!p)
			return nomem(d);
		*p = (uint32_t)i;
		if (r != CV_NONE) {
			d->inwin[r] = 1; /* a significant call */
			thread_t *th = &d->th[d->thr[r]];
			if (!(p = CV_PUSH(th->launch, th->nl, th->lcap)))
				return nomem(d);
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
			if (!is_device(e->kind) || d->inwin[i] || d->lkey[i] >= d->o->w0 ||
			    d->end[i] <= d->o->w0)
				continue;
			uint32_t s = stream_of(d, e->pid, e->stream, 0);
			if (s != CV_NONE && (d->st[s].busy_until == CV_UNSET || d->end[i] > d->st[s].busy_until))
				d->st[s].busy_until = d->end[i];
		}
	/* host waits are significant too */
	for (size_t i = 0; i < d->n; i++) {
		const cv_kev *e = &k->ev[i];
		if (e->kind == CV_K_RUNTIME && in_window(d, e->ts) &&
		    (d->rtkind[i] == RT_DEVSYNC || d->rtkind[i] == RT_STREAMSYNC ||
		     d->rtkind[i] == RT_EVENTSYNC))
			d->inwin[i] = 1;
	}
	size_t mx = d->n + 1;
	uint32_t *tmp = chakra_malloc(mx * sizeof *tmp);
	if (!tmp)
		return nomem(d);
	int64_t *startk = chakra_malloc(mx * sizeof *startk), *neglk = chakra_malloc(mx * sizeof *neglk);
	if (!startk || !neglk) {
		chakra_free(tmp), chakra_free(startk), chakra_free(neglk);
		return nomem(d);
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
		stream_t *st = &d->st[s];
		msort(st->ops, st->n, startk, neglk, tmp);
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
		msort(d->th[t].launch, d->th[t].nl, d->lkey, NULL, tmp);
	chakra_free(startk);
	chakra_free(neglk);
	chakra_free(tmp);
	return 0;
}

/* ---- 3a. mode A: CPU nodes (pieces of top-level ops, calls) ---- */
static uint32_t add_cpu_node(dv *d, const char *name, int cat, uint32_t ev, int64_t t0, int64_t t1,
                             uint32_t *prev)
{
	const cv_kev *e = &d->k->ev[ev];
	uint32_t gi = chakra__cv_graph_add(d->g, name, strlen(name), CHAKRA_COMP_NODE,
	                                   cat == CV_K_RUNTIME ? CV_NK_CALL : CV_NK_PIECE);
	if (gi == CV_NONE)
		return CV_NONE;
	cv_node *n = &d->g->nodes[gi];
	n->is_cpu = 1;
	n->has_time = 1;
	n->start_ns = t0;
	n->dur_ns = t1 > t0 ? t1 - t0 : 0;
	n->tid = e->tid;
	n->kineto_cat = (uint8_t)cat;
	if (cat == CV_K_RUNTIME) {
		n->corr = e->corr;
	} else {
		n->ext_id = e->ext_id;
		if (e->rf_id != CV_UNSET)
			n->rf_id = e->rf_id;
	}
	if (*prev != CV_NONE) {
		if (chakra__cv_graph_edge(d->g, *prev, gi, 1) < 0)
			return CV_NONE;
		if (!CV_RESERVE(d->next_cpu, d->next_cap, d->g->n))
			return CV_NONE;
		d->next_cpu[*prev] = gi;
	}
	if (!CV_RESERVE(d->next_cpu, d->next_cap, d->g->n))
		return CV_NONE;
	d->next_cpu[gi] = CV_NONE;
	*prev = gi;
	thread_t *th = &d->th[d->thr[ev]];
	uint32_t *p = CV_PUSH(th->gn, th->ngn, th->gcap);
	if (!p)
		return CV_NONE;
	*p = gi;
	return gi;
}

/* A CPU collective (gloo): its kind and input size from the annotation. */
static int cpu_comm(dv *d, uint32_t i, uint32_t gi)
{
	const cv_kcomm *c = &d->k->comms[d->k->ev[i].comm];
	cv_node *n = &d->g->nodes[gi];
	if (c->coll == CV_COLL_UNKNOWN || c->coll == CV_COLL_WAIT) {
		d->s->unclassified_ops++;
		return 0;
	}
	if (c->coll == CV_COLL_SEND || c->coll == CV_COLL_RECV) {
		n->type = c->coll == CV_COLL_SEND ? CHAKRA_COMM_SEND_NODE : CHAKRA_COMM_RECV_NODE;
		n->peer = n->tag = -1;
	} else {
		n->type = CHAKRA_COMM_COLL_NODE;
		n->coll = c->coll;
	}
	int dsz = c->dtype ? chakra__cv_dtype_size(cv_str(&d->k->strs, c->dtype),
	                                           cv_strlen(&d->k->strs, c->dtype))
	                   : 0;
	n->comm_size = dsz && c->in_nelems != CV_UNSET && c->in_nelems >= 0 &&
	                       c->in_nelems <= INT64_MAX / dsz
	                   ? c->in_nelems * dsz
	                   : 0;
	return 0;
}

static int cpu_nodes(dv *d)
{
	cv_kin *k = d->k;
	for (size_t t = 0; t < d->nth; t++) {
		thread_t *th = &d->th[t];
		uint32_t prev = CV_NONE;
		for (size_t j = 0; j < th->n; j++) {
			uint32_t i = th->ev[j];
			const cv_kev *e = &k->ev[i];
			if (e->kind == CV_K_ANNOT) {
				/* a CPU collective with nothing inside it on its thread: the
				 * thread ran the collective */
				if (d->top[i] != CV_NONE || !in_window(d, e->ts) ||
				    (j + 1 < th->n && k->ev[th->ev[j + 1]].ts < d->end[i]))
					continue;
				uint32_t gi = add_cpu_node(d, ename(d, i), CV_K_ANNOT, i, e->ts, d->end[i], &prev);
				if (gi == CV_NONE || cpu_comm(d, i, gi) < 0)
					return nomem(d);
				d->node[i] = gi;
				d->s->host_ops++;
				continue;
			}
			if (e->kind == CV_K_RUNTIME && d->top[i] == CV_NONE) {
				/* a call outside any op */
				if (!d->inwin[i])
					continue;
				uint32_t gi = add_cpu_node(d, ename(d, i), CV_K_RUNTIME, i, e->ts, d->end[i], &prev);
				if (gi == CV_NONE)
					return nomem(d);
				d->anchor[i] = d->node[i] = gi;
				continue;
			}
			if (e->kind != CV_K_CPU_OP || d->top[i] != i || !in_window(d, e->ts))
				continue;
			/* the significant calls inside it follow it in th->ev; cut the
			 * op into pieces between them */
			int64_t cut = e->ts, stop = d->end[i];
			uint32_t first = CV_NONE;
			for (size_t q = j + 1; q < th->n; q++) {
				uint32_t r = th->ev[q];
				if (d->top[r] != i)
					break;
				if (k->ev[r].kind != CV_K_RUNTIME || !d->inwin[r])
					continue;
				int64_t cs = k->ev[r].ts < cut ? cut : k->ev[r].ts;
				if (cs > cut) {
					uint32_t gi = add_cpu_node(d, ename(d, i), CV_K_CPU_OP, i, cut, cs, &prev);
					if (gi == CV_NONE)
						return nomem(d);
					if (first == CV_NONE)
						first = gi;
				}
				int64_t ce = d->end[r] < cs ? cs : d->end[r];
				uint32_t gi = add_cpu_node(d, ename(d, r), CV_K_RUNTIME, r, cs, ce, &prev);
				if (gi == CV_NONE)
					return nomem(d);
				if (first == CV_NONE)
					first = gi;
				d->anchor[r] = d->node[r] = gi;
				cut = ce;
			}
			if (stop > cut) {
				uint32_t gi = add_cpu_node(d, ename(d, i), CV_K_CPU_OP, i, cut, stop, &prev);
				if (gi == CV_NONE)
					return nomem(d);
				if (first == CV_NONE)
					first = gi;
			}
			if (first == CV_NONE)
				continue; /* an empty op: nothing to replay */
			d->node[i] = first;
			d->s->host_ops++;
		}
	}
	return 0;
}

/* ---- 3b. mode B: calls belong to linked host ops ---- */
static void anchor_linked(dv *d)
{
	for (size_t i = 0; i < d->n; i++) {
		if (d->k->ev[i].kind != CV_K_RUNTIME || !d->inwin[i])
			continue;
		uint32_t j = d->par[i], steps = 0;
		while (j != CV_NONE && d->o->link[j] == CV_NONE && steps++ < 256)
			j = d->par[j];
		d->anchor[i] = j != CV_NONE ? d->o->link[j] : CV_NONE;
	}
}

static uint32_t next_on_thread(const dv *d, uint32_t node)
{
	if (node == CV_NONE)
		return CV_NONE;
	if (d->o->link)
		return node < d->o->n_host ? d->o->host_next[node] : CV_NONE;
	return node < d->next_cap ? d->next_cpu[node] : CV_NONE;
}

/* ---- 4. device nodes ---- */
static int parse_ranks(const char *s, int64_t **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	yajl_val v;
	int jr = chakra__json_tree(s, strlen(s), &v, NULL, 0);
	if (jr == CHAKRA_ENOMEM)
		return -1;
	if (jr < 0)
		return 0; /* not a list: the group's ranks stay unknown */
	if (YAJL_IS_ARRAY(v) && v->u.array.len) {
		*out = chakra_malloc(v->u.array.len * sizeof **out);
		if (!*out) {
			chakra__json_tree_free(v);
			return -1;
		}
		for (size_t i = 0; i < v->u.array.len; i++)
			if (YAJL_IS_INTEGER(v->u.array.values[i]))
				(*out)[(*n)++] = YAJL_GET_INTEGER(v->u.array.values[i]);
	}
	chakra__json_tree_free(v);
	return 0;
}

/* A Kineto comm record (on the kernel, else on the op that launched it). */
static const cv_kcomm *comm_of(const dv *d, uint32_t i)
{
	const cv_kev *e = &d->k->ev[i];
	if (e->comm != CV_NONE)
		return &d->k->comms[e->comm];
	uint32_t r = d->launch[i];
	for (uint32_t j = r != CV_NONE ? d->par[r] : CV_NONE, steps = 0; j != CV_NONE && steps < 64;
	     j = d->par[j], steps++)
		if (d->k->ev[j].comm != CV_NONE)
			return &d->k->comms[d->k->ev[j].comm];
	return NULL;
}

static int set_comm(dv *d, uint32_t i, uint32_t gi)
{
	cv_kin *k = d->k;
	const cv_kev *e = &k->ev[i];
	const char *nm = ename(d, i);
	int kcoll = chakra__cv_coll_from_kernel(nm, strlen(nm));
	const cv_kcomm *c = comm_of(d, i);
	int coll = c && c->coll != CV_COLL_UNKNOWN && c->coll != CV_COLL_WAIT ? c->coll : kcoll;
	uint32_t anc = d->launch[i] != CV_NONE ? d->anchor[d->launch[i]] : CV_NONE;
	cv_node *host = d->o->link && anc != CV_NONE ? &d->g->nodes[anc] : NULL;
	int host_comm = host && (host->type == CHAKRA_COMM_COLL_NODE ||
	                         host->type == CHAKRA_COMM_SEND_NODE ||
	                         host->type == CHAKRA_COMM_RECV_NODE);
	if (coll == CV_COLL_UNKNOWN && !host_comm) {
		if (kcoll == CV_COLL_UNKNOWN && !strncmp(nm, "nccl", 4))
			d->s->unclassified_ops++;
		return 0;
	}
	cv_node *n = &d->g->nodes[gi];
	if (host_comm) {
		/* the ET's record says what the kernel does; the host op is the launch */
		n->type = host->type;
		n->coll = host->coll;
		n->comm_size = host->comm_size;
		n->pg_name = host->pg_name;
		n->peer = host->peer;
		n->tag = host->tag;
		host->type = CHAKRA_COMP_NODE;
		if (coll == CV_COLL_SEND || coll == CV_COLL_RECV || n->coll >= 0)
			return 0;
	}
	if (coll == CV_COLL_SEND || coll == CV_COLL_RECV) {
		n->type = coll == CV_COLL_SEND ? CHAKRA_COMM_SEND_NODE : CHAKRA_COMM_RECV_NODE;
		n->peer = -1;
		n->tag = -1;
	} else {
		n->type = CHAKRA_COMM_COLL_NODE;
		n->coll = coll;
	}
	n->comm_size = 0;
	if (c) {
		int dsz = c->dtype ? chakra__cv_dtype_size(cv_str(&k->strs, c->dtype),
		                                           cv_strlen(&k->strs, c->dtype))
		                   : 0;
		if (dsz && c->in_nelems != CV_UNSET && c->in_nelems >= 0 &&
		    __builtin_mul_overflow(c->in_nelems, (int64_t)dsz, &n->comm_size)) {
			chakra__cv_fail(d->err, CHAKRA_ECORRUPT, d->file, "event", (int64_t)e->index, -1,
			                "In msg nelems %lld x %d bytes overflows a 64-bit size",
			                (long long)c->in_nelems, dsz);
			return -1;
		}
		if (c->pg_name) {
			n->pg_name = chakra__cv_intern(&d->g->strs, cv_str(&k->strs, c->pg_name),
			                               cv_strlen(&k->strs, c->pg_name));
			if (n->pg_name == CV_NONE)
				return -1;
			/* the ranks string is parsed once per group, not per kernel */
			const cv_pg *known = chakra__cv_graph_pg_find(d->g, n->pg_name);
			int64_t *r = NULL;
			size_t nr = 0;
			if (c->pg_ranks && !(known && known->n_ranks) &&
			    parse_ranks(cv_str(&k->strs, c->pg_ranks), &r, &nr) < 0)
				return -1;
			uint32_t ds = c->pg_desc ? chakra__cv_intern(&d->g->strs, cv_str(&k->strs, c->pg_desc),
			                                             cv_strlen(&k->strs, c->pg_desc))
			                         : 0;
			int have_range = c->rank_start != CV_UNSET && c->rank_stride != CV_UNSET;
			cv_where w = { d->file, "event", (int64_t)e->index, NULL };
			int rc = ds == CV_NONE ? -1
			                       : chakra__cv_graph_pg(d->g, d->g->nodes[gi].pg_name, ds, 0,
			                                             c->group_size != CV_UNSET ? c->group_size
			                                                                       : -1,
			                                             r, nr, have_range ? c->rank_start : 0,
			                                             have_range ? c->rank_stride : 0,
			                                             d->err, &w);
			chakra_free(r);
			if (rc < 0)
				return -1;
		}
	} else if (e->bytes != CV_UNSET) {
		n->comm_size = e->bytes;
	}
	return 0;
}

static int device_nodes(dv *d)
{
	cv_kin *k = d->k;
	cv_map hosts = { 0 };
	for (size_t s = 0; s < d->nst; s++) {
		stream_t *st = &d->st[s];
		uint32_t prev = CV_NONE;
		for (size_t j = 0; j < st->n; j++) {
			uint32_t i = st->ops[j];
			const cv_kev *e = &k->ev[i];
			uint32_t gi = chakra__cv_graph_add(d->g, ename(d, i), cv_strlen(&k->strs, e->name),
			                                   CHAKRA_COMP_NODE, CV_NK_GPU);
			if (gi == CV_NONE)
				goto nomem;
			cv_node *n = &d->g->nodes[gi];
			n->is_cpu = 0;
			n->has_time = 1;
			n->start_ns = e->ts;
			n->dur_ns = e->dur;
			n->stream = e->stream;
			n->device = e->pid;
			n->corr = e->corr;
			n->kineto_cat = e->kind;
			if ((e->kind == CV_K_MEMCPY || e->kind == CV_K_MEMSET) && e->bytes > 0)
				n->tensor_size = (uint64_t)e->bytes;
			d->node[i] = gi;
			if (e->kind == CV_K_KERNEL && set_comm(d, i, gi) < 0)
				goto nomem;
			/* launch (data), stream order (ctrl) */
			uint32_t r = d->launch[i];
			uint32_t anc = r != CV_NONE ? d->anchor[r] : CV_NONE;
			if (anc != CV_NONE) {
				if (chakra__cv_graph_edge(d->g, anc, gi, 0) < 0)
					goto nomem;
				if (d->o->link) {
					d->s->kernels_linked++;
					if (chakra__cv_map_get(&hosts, anc) == CV_NONE) {
						if (chakra__cv_map_put(&hosts, anc, 1) < 0)
							goto nomem;
						d->s->host_ops_with_kernels++;
					}
				}
			}
			if (prev != CV_NONE && chakra__cv_graph_edge(d->g, prev, gi, 1) < 0)
				goto nomem;
			if (prev == CV_NONE && st->busy_until != CV_UNSET)
				d->g->nodes[gi].backlog = st->busy_until;
			prev = gi;
		}
	}
	chakra__cv_map_free(&hosts);
	return 0;
nomem:
	chakra__cv_map_free(&hosts);
	return nomem(d);
}

/* ---- 5. synchronisation ---- */
/* The last op of stream s launched strictly before t (CV_NONE). */
static uint32_t last_before(const dv *d, const stream_t *st, int64_t t)
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

static uint32_t first_after(const dv *d, const stream_t *st, int64_t t)
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
static uint32_t done_before(const dv *d, const stream_t *st, int64_t t, int64_t by)
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
static uint32_t last_record(const dv *d, uint32_t i)
{
	return d->lastrec[i];
}

/* The device op thread t launched last before time ts. */
static uint32_t last_launch(const dv *d, uint32_t t, int64_t ts)
{
	if (t == CV_NONE)
		return CV_NONE;
	const thread_t *th = &d->th[t];
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
static int host_waits(dv *d, uint32_t a, uint32_t s_node)
{
	if (a == CV_NONE || s_node == CV_NONE || d->node[a] == CV_NONE)
		return 0;
	if (chakra__cv_graph_wait(d->g, s_node, d->node[a]) < 0)
		return -1;
	uint32_t r = d->launch[a];
	uint32_t own = r != CV_NONE ? d->anchor[r] : CV_NONE;
	uint32_t to = s_node;
	if (own == s_node) /* it launched the work itself: the next node waits */
		to = next_on_thread(d, s_node);
	if (to == CV_NONE)
		return 0;
	d->s->sync_edges++;
	return chakra__cv_graph_edge(d->g, d->node[a], to, 0);
}

/* The `sync` attribute of a node that blocks until device work is done. */
static int mark_sync(dv *d, uint32_t node, int rk)
{
	const char *k = rk == RT_DEVSYNC ? "device" : rk == RT_STREAMSYNC ? "stream"
	              : rk == RT_EVENTSYNC ? "event" : "copy";
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
static int all_stream_waits(dv *d, allwait *w, size_t nw)
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

static int host_syncs(dv *d)
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
		if (rk == RT_MEMCPY_SYNC || rk == RT_DEVSYNC || rk == RT_STREAMSYNC || rk == RT_EVENTSYNC)
			if (mark_sync(d, sn, rk) < 0) {
				chakra_free(aw);
				return nomem(d);
			}
		if (rk == RT_MEMCPY_SYNC) {
			/* the copy it launched */
			for (size_t s = 0; s < d->nst; s++) {
				uint32_t a = last_before(d, &d->st[s], e->ts + 1);
				if (a != CV_NONE && d->launch[a] == i && host_waits(d, a, sn) < 0) {
					chakra_free(aw);
					return nomem(d);
				}
			}
			continue;
		}
		if (rk != RT_DEVSYNC && rk != RT_STREAMSYNC && rk != RT_EVENTSYNC)
			continue;
		uint32_t row = e->corr != CV_UNSET ? chakra__cv_map_get(&d->sync_corr, (uint64_t)e->corr)
		                                   : CV_NONE;
		int64_t t = e->ts, only = CV_UNSET;
		int guessed = 0;
		if (row != CV_NONE) {
			const cv_kev *w = &k->ev[row];
			const char *rn = ename(d, row);
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
		} else if (rk == RT_EVENTSYNC) {
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
		} else if (rk != RT_DEVSYNC) {
			guessed = 1;
			d->s->inferred_wait_edges++; /* stream unknown: wait for all */
		}
		if (only == CV_UNSET) {
			allwait *x = CV_PUSH(aw, naw, awcap);
			if (!x) {
				chakra_free(aw);
				return nomem(d);
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
				return nomem(d);
			}
		}
	}
	int arc = naw ? all_stream_waits(d, aw, naw) : 0;
	chakra_free(aw);
	if (arc < 0)
		return nomem(d);
	/* blocking copies into pageable memory return when the copy is done */
	for (size_t s = 0; s < d->nst; s++) {
		const stream_t *st = &d->st[s];
		for (size_t j = 0; j < st->n; j++) {
			uint32_t a = st->ops[j];
			if (k->ev[a].kind != CV_K_MEMCPY || d->launch[a] == CV_NONE)
				continue;
			const char *nm = ename(d, a);
			if (!strstr(nm, "DtoH") || !strstr(nm, "Pageable"))
				continue;
			uint32_t r = d->launch[a];
			if (d->rtkind[r] == RT_MEMCPY_SYNC)
				continue; /* done above */
			if (d->anchor[r] != CV_NONE && mark_sync(d, d->anchor[r], RT_MEMCPY_SYNC) < 0)
				return nomem(d);
			if (host_waits(d, a, d->anchor[r]) < 0)
				return nomem(d);
		}
	}
	return 0;
}

/* Whether cpu_op j (a 'wait' record_param_comms, c10d wait...) waits for
 * communication. */
static int is_wait_op(const dv *d, uint32_t j)
{
	for (int steps = 0; j != CV_NONE && steps < 8; j = d->par[j], steps++) {
		const cv_kev *e = &d->k->ev[j];
		if (e->comm != CV_NONE && d->k->comms[e->comm].coll == CV_COLL_WAIT)
			return 1;
		const char *nm = ename(d, j);
		if (strstr(nm, "::wait") || !strcmp(nm, "wait"))
			return 1;
	}
	return 0;
}

static int stream_waits(dv *d)
{
	cv_kin *k = d->k;
	for (size_t i = 0; i < d->n; i++) {
		const cv_kev *e = &k->ev[i];
		if (e->kind != CV_K_RUNTIME || d->rtkind[i] != RT_WAIT || !in_window(d, e->ts))
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
			thread_t *th = d->thr[i] != CV_NONE ? &d->th[d->thr[i]] : NULL;
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
				const stream_t *st = &d->st[s];
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
			return nomem(d);
		if (inferred)
			d->s->inferred_wait_edges++;
		else
			d->s->stream_wait_edges++;
	}
	return 0;
}

/* ---- 6. fwdbwd flows: forward op -> its backward on another thread ---- */
/* The innermost cpu_op of the flow's thread that starts at (or else
 * encloses) the flow's time, CV_NONE. */
static uint32_t flow_event(const dv *d, const cv_kflow *f)
{
	uint32_t t = chakra__cv_pmap_get(&d->thmap, f->pid, f->tid);
	if (t == CV_NONE || d->th[t].pid != f->pid || d->th[t].tid != f->tid) {
		t = CV_NONE;
		for (size_t i = 0; i < d->nth && t == CV_NONE; i++)
			if (d->th[i].pid == f->pid && d->th[i].tid == f->tid)
				t = (uint32_t)i;
		if (t == CV_NONE)
			return CV_NONE;
	}
	const thread_t *th = &d->th[t];
	size_t lo = 0, hi = th->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (d->k->ev[th->ev[mid]].ts <= f->ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return CV_NONE;
	/* the last to start by then (equal starts: the innermost), up to
	 * the first cpu_op that holds the time */
	uint32_t c = th->ev[lo - 1];
	for (int steps = 0; c != CV_NONE && steps < CV_JSON_MAX_DEPTH; steps++, c = d->par[c])
		if (d->k->ev[c].kind == CV_K_CPU_OP &&
		    (d->k->ev[c].ts == f->ts || d->end[c] > f->ts))
			return c;
	return CV_NONE;
}

/* Mode A: the node of thread t that holds time x (at its end when
 * at_end: the node in which an op ending at x ended), CV_NONE. */
static uint32_t node_at(const dv *d, uint32_t t, int64_t x, int at_end)
{
	const thread_t *th = &d->th[t];
	size_t lo = 0, hi = th->ngn;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int64_t st = d->g->nodes[th->gn[mid]].start_ns;
		if (at_end ? st < x : st <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo && at_end && th->ngn && d->g->nodes[th->gn[0]].start_ns == x)
		lo = 1; /* an op of no duration at the very start */
	if (!lo)
		return CV_NONE;
	uint32_t gi = th->gn[lo - 1];
	const cv_node *n = &d->g->nodes[gi];
	return x <= cv_node_end(n) ? gi : CV_NONE;
}

/* Mode B: the first linked op inside event ev, in time order (a backward
 * label's first operator); the scan is bounded. */
static uint32_t first_linked_in(const dv *d, uint32_t ev)
{
	const thread_t *th = &d->th[d->thr[ev]];
	int64_t t = d->k->ev[ev].ts;
	size_t lo = 0, hi = th->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (d->k->ev[th->ev[mid]].ts < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t j = lo, n = 0; j < th->n && n < 4096; j++, n++) {
		uint32_t c = th->ev[j];
		if (d->k->ev[c].ts >= d->end[ev] && c != ev)
			break;
		if (d->o->link[c] != CV_NONE)
			return d->o->link[c];
	}
	return CV_NONE;
}

/* The graph node a CPU event's time belongs to: its end (at_end: the
 * forward op's side) or its start (the backward op's). */
static uint32_t flow_node(const dv *d, uint32_t ev, int at_end)
{
	if (d->o->link) {
		/* the host op that folds it in, else (a label) its first op */
		for (uint32_t j = ev, steps = 0; j != CV_NONE && steps < CV_JSON_MAX_DEPTH;
		     steps++, j = d->par[j])
			if (d->o->link[j] != CV_NONE)
				return d->o->link[j];
		return at_end ? CV_NONE : first_linked_in(d, ev);
	}
	return node_at(d, d->thr[ev], at_end ? d->end[ev] : d->k->ev[ev].ts, at_end);
}

static int cmp_flow(const void *a, const void *b)
{
	const cv_kflow *x = a, *y = b;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->start != y->start)
		return x->start ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static int flow_edges(dv *d)
{
	cv_kin *k = d->k;
	if (!k->nflows || d->o->none)
		return 0;
	qsort(k->flows, k->nflows, sizeof *k->flows, cmp_flow);
	/* each 'f' with the latest 's' of its id at or before it */
	const cv_kflow *s = NULL;
	for (size_t i = 0; i < k->nflows; i++) {
		const cv_kflow *f = &k->flows[i];
		if (s && s->id != f->id)
			s = NULL;
		if (f->start) {
			s = f;
			continue;
		}
		if (!s)
			continue;
		uint32_t a = flow_event(d, s), b = flow_event(d, f);
		if (a == CV_NONE || b == CV_NONE)
			continue;
		uint32_t u = flow_node(d, a, 1), v = flow_node(d, b, 0);
		if (u == CV_NONE || v == CV_NONE || u == v)
			continue;
		const cv_node *nu = &d->g->nodes[u], *nv = &d->g->nodes[v];
		/* another thread's op, and in time order (never a cycle) */
		if (nu->tid == nv->tid || !nu->has_time || !nv->has_time ||
		    cv_node_end(nu) > nv->start_ns)
			continue;
		if (chakra__cv_graph_edge(d->g, u, v, 0) < 0)
			return nomem(d);
		d->s->flow_edges++;
	}
	return 0;
}

int chakra__cv_dev_build(cv_kin *k, cv_graph *g, const cv_dev_opts *o, chakra_convert_summary *s,
                         cv_err *err)
{
	dv d;
	memset(&d, 0, sizeof d);
	d.k = k;
	d.g = g;
	d.o = o;
	d.s = s;
	d.err = err;
	d.file = err->file;
	d.n = k->n;
	size_t n = k->n + 1;
	d.thr = chakra_malloc(n * sizeof *d.thr);
	d.par = chakra_malloc(n * sizeof *d.par);
	d.top = chakra_malloc(n * sizeof *d.top);
	d.end = chakra_malloc(n * sizeof *d.end);
	d.launch = chakra_malloc(n * sizeof *d.launch);
	d.node = chakra_malloc(n * sizeof *d.node);
	d.anchor = chakra_malloc(n * sizeof *d.anchor);
	d.rtkind = chakra_calloc(n, 1);
	d.inwin = chakra_calloc(n, 1);
	d.lkey = chakra_malloc(n * sizeof *d.lkey);
	d.lastrec = chakra_malloc(n * sizeof *d.lastrec);
	int rc;
	if (!d.thr || !d.par || !d.top || !d.end || !d.launch || !d.node || !d.anchor || !d.rtkind ||
	    !d.inwin || !d.lkey || !d.lastrec) {
		rc = nomem(&d);
		goto out;
	}
	/* process groups the trace describes (distributedInfo.pg_config) */
	if (k->pg_config) {
		cv_pg *pgs = NULL;
		size_t npg = 0, pgcap = 0;
		const char *txt = cv_str(&k->strs, k->pg_config);
		rc = chakra__cv_pg_parse(&k->strs, txt, strlen(txt), &pgs, &npg, &pgcap);
		for (size_t i = 0; i < npg && rc == 0; i++) {
			uint32_t nm = chakra__cv_intern(&g->strs, cv_str(&k->strs, pgs[i].name),
			                                cv_strlen(&k->strs, pgs[i].name));
			uint32_t ds = chakra__cv_intern(&g->strs, cv_str(&k->strs, pgs[i].desc),
			                                cv_strlen(&k->strs, pgs[i].desc));
			uint32_t be = chakra__cv_intern(&g->strs, cv_str(&k->strs, pgs[i].backend),
			                                cv_strlen(&k->strs, pgs[i].backend));
			cv_where w = { d.file, NULL, -1, "distributedInfo.pg_config" };
			if (nm == CV_NONE || ds == CV_NONE || be == CV_NONE ||
			    chakra__cv_graph_pg(g, nm, ds, be, pgs[i].size, pgs[i].ranks, pgs[i].n_ranks, 0,
			                        0, d.err, &w) < 0)
				rc = -1;
		}
		for (size_t i = 0; i < npg; i++)
			chakra_free(pgs[i].ranks);
		chakra_free(pgs);
		if (rc < 0) {
			rc = nomem(&d);
			goto out;
		}
	}
	if ((rc = index_events(&d)) < 0 || (rc = index_device(&d)) < 0)
		goto out;
	if (o->link)
		anchor_linked(&d);
	else if ((rc = cpu_nodes(&d)) < 0)
		goto out;
	if ((rc = device_nodes(&d)) < 0 || (rc = host_syncs(&d)) < 0 || (rc = stream_waits(&d)) < 0 ||
	    (rc = flow_edges(&d)) < 0)
		goto out;
out:
	for (size_t i = 0; i < d.nst; i++)
		chakra_free(d.st[i].ops);
	for (size_t i = 0; i < d.nth; i++) {
		chakra_free(d.th[i].ev);
		chakra_free(d.th[i].launch);
		chakra_free(d.th[i].gn);
	}
	chakra_free(d.st), chakra_free(d.th);
	chakra_free(d.thr), chakra_free(d.par), chakra_free(d.top), chakra_free(d.end);
	chakra_free(d.launch), chakra_free(d.node);
	chakra_free(d.anchor), chakra_free(d.rtkind), chakra_free(d.inwin), chakra_free(d.lkey);
	chakra_free(d.next_cpu);
	chakra_free(d.lastrec);
	chakra__cv_map_free(&d.rt_corr);
	chakra__cv_pmap_free(&d.thmap);
	chakra__cv_pmap_free(&d.stmap);
	chakra__cv_map_free(&d.sync_corr);
	return rc;
}
