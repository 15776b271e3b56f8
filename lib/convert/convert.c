/* SPDX-License-Identifier: Apache-2.0 */
/* The converter's public entry points: parse, build the graph, write; and
 * the summary the tools print. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cbprintf.h"
#include "../opts.h"
#include "cv.h"
#include "outfile.h"

/* The bytes of the options struct a caller of each version has (fields
 * are only appended). */
static const size_t opts_size[] = {
	0,
	offsetof(chakra_convert_options, keep_io) + sizeof(int),
	offsetof(chakra_convert_options, to_next) + sizeof(int),
	sizeof(chakra_convert_options),
};
#define N_VERSIONS (sizeof opts_size / sizeof opts_size[0])
static const chakra_convert_options defaults = CHAKRA_CONVERT_OPTIONS_INIT;

int chakra_convert_options_init(chakra_convert_options *opts, unsigned version)
{
	return chakra__opts_init(opts, version, &defaults, opts_size, N_VERSIONS);
}

int chakra__cv_opts(const chakra_convert_options *in, chakra_convert_options *out, char *msg,
                    size_t len)
{
	if (chakra__opts_copy(out, sizeof *out, in, &defaults, opts_size, N_VERSIONS) < 0) {
		snprintf(msg, len, "convert options version %u (expected 1 to %u)", in->version,
		         CHAKRA_CONVERT_OPTIONS_VERSION);
		return CHAKRA_EINVAL;
	}
	out->version = CHAKRA_CONVERT_OPTIONS_VERSION;
	return 0;
}

static void result_init(chakra_convert_result *r)
{
	memset(r, 0, sizeof *r);
	r->summary.rank = -1;
	r->summary.link_method = "";
	r->index = -1;
	r->offset = -1;
}

static void result_from_err(chakra_convert_result *r, const cv_err *e)
{
	r->file = e->file;
	r->index = e->index;
	r->offset = e->offset;
	snprintf(r->errmsg, sizeof r->errmsg, "%s", e->msg);
}

/* o: normalised by chakra__cv_opts */
static int check_opts(const chakra_convert_options *o, cv_err *e)
{
	if (o->step >= 0 && o->annotation)
		return chakra__cv_fail(e, CHAKRA_EINVAL, NULL, NULL, -1, -1,
		                       "choose either a step or an annotation, not both");
	if (o->to_next && !o->annotation)
		return chakra__cv_fail(e, CHAKRA_EINVAL, NULL, NULL, -1, -1,
		                       "to_next (--to-next) goes with an annotation");
	return 0;
}

static int cmp_by_ts(const void *a, const void *b, const cv_kin *k)
{
	const cv_kev *x = &k->ev[*(const uint32_t *)a], *y = &k->ev[*(const uint32_t *)b];
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/* Insertion sort of a few occurrences by start (ties: file order). */
static void sort_by_ts(uint32_t *v, size_t n, const cv_kin *k)
{
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && cmp_by_ts(&v[j], &v[j - 1], k) < 0; j--) {
			uint32_t t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
}

/* The Kineto window the options ask for: [*w0, *w1) in relative ns, or the
 * whole trace (w1 < w0); *tid: the thread of the annotation that defines
 * it (CV_UNSET for the whole trace). Occurrences of a name are taken in
 * time order. */
static int find_window(const cv_kin *k, const chakra_convert_options *o, const char *file,
                       int64_t *w0, int64_t *w1, int64_t *tid, const char **wname,
                       int64_t *windex, cv_err *e)
{
	*w0 = 0;
	*w1 = -1;
	*tid = CV_UNSET;
	*wname = NULL;
	*windex = -1;
	char want[64];
	const char *name = o->annotation;
	unsigned inst = o->annotation ? o->instance : 0;
	if (o->step >= 0) {
		snprintf(want, sizeof want, "ProfilerStep#%lld", (long long)o->step);
		name = want;
	}
	if (!name)
		return 0;
	uint32_t *occ = NULL;
	size_t seen = 0, cap = 0;
	for (size_t i = 0; i < k->n; i++) {
		const cv_kev *v = &k->ev[i];
		if (v->kind != CV_K_ANNOT || strcmp(cv_str(&k->strs, v->name), name))
			continue;
		uint32_t *p = CV_PUSH(occ, seen, cap);
		if (!p) {
			chakra_free(occ);
			return chakra__cv_fail(e, CHAKRA_ENOMEM, file, NULL, -1, -1, "out of memory");
		}
		*p = (uint32_t)i;
	}
	if (inst < seen) {
		sort_by_ts(occ, seen, k);
		const cv_kev *v = &k->ev[occ[inst]];
		*w0 = v->ts;
		*w1 = v->ts + (v->dur > 0 ? v->dur : 0);
		*tid = v->tid;
		*wname = cv_str(&k->strs, v->name);
		*windex = v->index;
		int ok = 1;
		if (o->to_next) {
			/* the next occurrence that starts later (a duplicate at the
			 * same instant would make an empty window) */
			size_t j = inst + 1;
			while (j < seen && k->ev[occ[j]].ts <= v->ts)
				j++;
			if (j < seen)
				*w1 = k->ev[occ[j]].ts;
			else
				ok = 0;
		}
		chakra_free(occ);
		if (ok)
			return 0;
		return chakra__cv_fail(e, CHAKRA_ENOTFOUND, file, NULL, -1, -1,
		                       "annotation '%s' occurs %zu time(s): instance %u has no next "
		                       "occurrence to end the window (--to-next)", name, seen, inst);
	}
	chakra_free(occ);
	if (!seen) {
		/* list what there is, to help the user */
		char have[400] = "";
		size_t hl = 0;
		unsigned shown = 0;
		for (size_t i = 0; i < k->n && shown < 6; i++) {
			const cv_kev *v = &k->ev[i];
			if (v->kind != CV_K_ANNOT)
				continue;
			const char *nm = cv_str(&k->strs, v->name);
			if (strstr(have, nm))
				continue;
			int m = snprintf(have + hl, sizeof have - hl, "%s'%s'", shown ? ", " : "", nm);
			if (m < 0 || (size_t)m >= sizeof have - hl)
				break;
			hl += (size_t)m;
			shown++;
		}
		return chakra__cv_fail(e, CHAKRA_ENOTFOUND, file, NULL, -1, -1,
		                       "no user annotation '%s' in the trace%s%s", name,
		                       shown ? "; annotations seen: " : " (it has no annotations)", have);
	}
	return chakra__cv_fail(e, CHAKRA_ENOTFOUND, file, NULL, -1, -1,
	                       "annotation '%s' occurs %zu time(s); instance %u does not exist", name,
	                       seen, inst);
}

/* Annotations inside the window, for the metadata (absolute ns). */
static int collect_annots(const cv_kin *k, cv_graph *g, int64_t w0, int64_t w1, cv_meta *m)
{
	size_t cap = 0;
	for (size_t i = 0; i < k->n; i++) {
		const cv_kev *v = &k->ev[i];
		if (v->kind != CV_K_ANNOT)
			continue;
		if (w1 >= w0 && (v->ts < w0 || v->ts >= w1))
			continue;
		struct cv_annot *a = CV_PUSH(m->annot, m->n_annot, cap);
		if (!a)
			return -1;
		a->name = chakra__cv_intern(&g->strs, cv_str(&k->strs, v->name),
		                            cv_strlen(&k->strs, v->name));
		if (a->name == CV_NONE)
			return -1;
		a->start = v->ts + k->base_ns;
		a->dur = v->dur;
		a->tid = v->tid;
	}
	return 0;
}

/* Kineto timing onto linked host ops: the op's own Kineto event, else the
 * span of its linked descendants. */
static void host_times(cv_graph *g, const cv_et *et, const cv_kin *k, const uint32_t *host_of,
                       const uint32_t *ket)
{
	for (size_t i = 0; i < et->n; i++) {
		uint32_t gi = host_of[i], ki = ket[i];
		if (gi == CV_NONE || ki == CV_NONE)
			continue;
		cv_node *n = &g->nodes[gi];
		const cv_kev *v = &k->ev[ki];
		int own = n->et == i;
		if (own) {
			n->start_ns = v->ts;
			n->dur_ns = v->dur;
			n->has_time = 2; /* 2: its own event */
			n->ext_id = v->ext_id;
			n->kineto_cat = CV_K_CPU_OP; /* tid stays the ET's: chains are per ET thread */
		} else if (n->has_time != 2) {
			int64_t end = n->has_time ? n->start_ns + n->dur_ns : INT64_MIN;
			int64_t s = n->has_time && n->start_ns < v->ts ? n->start_ns : v->ts;
			if (v->ts + v->dur > end)
				end = v->ts + v->dur;
			n->start_ns = s;
			n->dur_ns = end - s;
			n->has_time = 1;
		}
	}
	for (size_t i = 0; i < g->n; i++)
		if (g->nodes[i].has_time)
			g->nodes[i].has_time = 1;
}

/* A conversion that would write no op is refused, saying why: the window
 * holds none, or the trace has no event of a kind the converter uses. */
static int nothing_left(const cv_graph *g, const cv_kin *k, const char *file, const char *wname,
                        int64_t windex, int64_t wlen, cv_err *e)
{
	for (size_t i = 0; i < g->n; i++)
		if (g->nodes[i].type != CHAKRA_METADATA_NODE)
			return 0;
	if (wname)
		return chakra__cv_fail(e, CHAKRA_ENOTFOUND, file, "event", windex, -1,
		                       "'%s' (%lld.%03lld us) holds nothing to convert: no CPU op, "
		                       "runtime call or device op starts in it", wname,
		                       (long long)(wlen / 1000), (long long)(wlen % 1000));
	char cats[300] = "";
	size_t l = 0;
	for (size_t i = 0; i < k->n_other_cats; i++) {
		int m = snprintf(cats + l, sizeof cats - l, "%s'%s'", i ? ", " : "",
		                 cv_str(&k->strs, k->other_cats[i]));
		if (m < 0 || (size_t)m >= sizeof cats - l)
			break;
		l += (size_t)m;
	}
	return chakra__cv_fail(e, CHAKRA_ENOTFOUND, file, NULL, -1, -1,
	                       "nothing to convert: of its %llu events none is a CPU op (cpu_op), a "
	                       "runtime call (cuda_runtime, cuda_driver, mtia_runtime) or device work "
	                       "(kernel, gpu_memcpy, gpu_memset, mtia_ccp_events)%s%s",
	                       (unsigned long long)k->events,
	                       l ? "; complete events of other categories: " : "", cats);
}

static int groups_from_graph(const cv_graph *g, cv_groups *out)
{
	for (size_t i = 0; i < g->npg; i++) {
		const cv_pg *p = &g->pgs[i];
		struct cv_group *q = CV_PUSH(out->g, out->n, out->cap);
		if (!q)
			return -1;
		memset(q, 0, sizeof *q);
		q->size = p->size;
		q->rank_start = p->rank_start;
		q->rank_stride = p->rank_stride;
		q->name = chakra__mstrdup(cv_str(&g->strs, p->name));
		if (!q->name)
			return -1;
		if (p->n_ranks) {
			q->ranks = chakra_malloc(p->n_ranks * sizeof *q->ranks);
			if (!q->ranks)
				return -1;
			memcpy(q->ranks, p->ranks, p->n_ranks * sizeof *q->ranks);
			q->n = p->n_ranks;
		}
	}
	return 0;
}

void chakra__cv_groups_free(cv_groups *gr)
{
	for (size_t i = 0; i < gr->n; i++) {
		chakra_free(gr->g[i].name);
		chakra_free(gr->g[i].ranks);
	}
	chakra_free(gr->g);
	memset(gr, 0, sizeof *gr);
}

/* linkout: write the linked ET (`chakra link`) instead of a Chakra ET. */
static int run_pytorch(const char *et_path, const char *out_path, const chakra_convert_options *o,
                       chakra_convert_result *r, cv_groups *groups, int linkout)
{
	cv_err e = { 0 };
	e.index = e.offset = -1;
	cv_et et;
	cv_kin kin;
	cv_graph g;
	memset(&et, 0, sizeof et);
	memset(&kin, 0, sizeof kin);
	uint32_t *host_of = NULL, *ket = NULL, *link = NULL, *pred = NULL, *next = NULL;
	cv_linked lo;
	memset(&lo, 0, sizeof lo);
	cv_meta meta;
	memset(&meta, 0, sizeof meta);
	meta.window_start = meta.window_tid = CV_UNSET;
	meta.rank = meta.world = -1;
	int rc = chakra__cv_graph_init(&g);
	if (rc < 0) {
		rc = chakra__cv_fail(&e, CHAKRA_ENOMEM, NULL, NULL, -1, -1, "out of memory");
		goto out;
	}
	if ((rc = check_opts(o, &e)) < 0)
		goto out;
	et.keep_io = o->keep_io;
	cv_json_src src = { et_path, et_path, o->et_buf, o->et_len };
	if ((rc = chakra__cv_et_parse(&et, &src, &e)) < 0)
		goto out;
	r->summary.et_nodes = et.n;
	g.et = &et;
	host_of = chakra_malloc((et.n + 1) * sizeof *host_of);
	if (!host_of) {
		rc = chakra__cv_fail(&e, CHAKRA_ENOMEM, NULL, NULL, -1, -1, "out of memory");
		goto out;
	}
	e.file = et_path;
	if ((rc = chakra__cv_host_build(&et, &g, host_of, &r->summary, &e)) < 0)
		goto out;
	if (!r->summary.host_ops) {
		rc = chakra__cv_fail(&e, CHAKRA_ENOTFOUND, et_path, NULL, -1, -1,
		                     "nothing to convert: none of its %zu nodes is an operator (a node "
		                     "with an op_schema, record_param_comms or a Triton kernel)", et.n);
		goto out;
	}
	meta.source = "pytorch";
	meta.et = &et;
	size_t ne_host = g.ne, ne_dev = g.ne, nh = g.n;
	if (et.nlink && (linkout || o->kineto_path || o->kineto_buf)) {
		rc = chakra__cv_fail(&e, CHAKRA_EINVAL, et_path, NULL, -1, -1,
		                     "a linked ET (times on its ops and its %zu device ops as nodes, as "
		                     "chakra_trace_link writes them): %s", et.n_gpu,
		                     linkout ? "it needs no linking" : "convert it without a Kineto trace");
		goto out;
	}
	if (linkout && !o->kineto_path && !o->kineto_buf) {
		rc = chakra__cv_fail(&e, CHAKRA_EINVAL, et_path, NULL, -1, -1,
		                     "linking needs the Kineto trace of the same run");
		goto out;
	}
	if (et.nlink) {
		/* a linked ET: times and device ops from the ET itself */
		if ((rc = chakra__cv_linked_build(&et, &g, host_of, &lo, &r->summary, &e)) < 0)
			goto out;
		r->summary.rank = (int)lo.rank;
		meta.rank = lo.rank;
		meta.world = lo.world;
		meta.annot = lo.annot;
		meta.n_annot = lo.n_annot;
		lo.annot = NULL;
		if (lo.w1 >= lo.w0) {
			if (chakra__cv_thread_waits(&g, lo.w0, &r->summary) < 0) {
				rc = chakra__cv_fail(&e, CHAKRA_ENOMEM, NULL, NULL, -1, -1, "out of memory");
				goto out;
			}
			meta.window_start = lo.w0;
			meta.window_end = lo.w1;
		}
	} else if (o->kineto_path || o->kineto_buf) {
		const char *kp = o->kineto_path ? o->kineto_path : "(kineto)";
		cv_json_src ks = { kp, kp, o->kineto_buf, o->kineto_len };
		if ((rc = chakra__cv_kin_parse(&kin, &ks, &e)) < 0)
			goto out;
		r->summary.kineto_events = kin.events;
		r->summary.flows_dangling = kin.flows_dangling;
		r->summary.rank = (int)kin.rank;
		ket = chakra_malloc((et.n + 1) * sizeof *ket);
		link = chakra_malloc((kin.n + 1) * sizeof *link);
		size_t nh = g.n;
		pred = chakra_malloc((nh + 1) * sizeof *pred);
		next = chakra_malloc((nh + 1) * sizeof *next);
		if (!ket || !link || !pred || !next) {
			rc = chakra__cv_fail(&e, CHAKRA_ENOMEM, NULL, NULL, -1, -1, "out of memory");
			goto out;
		}
		e.file = kp;
		if ((rc = chakra__cv_link(&et, &kin, ket, &r->summary, &e)) < 0)
			goto out;
		/* both have host ops and not one links: the two traces are of
		 * different programs or runs (it used to write the ET alone with
		 * exit 0 and no word about it) */
		size_t kcpu = 0;
		for (size_t i = 0; i < kin.n && !kcpu; i++)
			kcpu = kin.ev[i].kind == CV_K_CPU_OP;
		if (!r->summary.et_ops_linked && kcpu && r->summary.host_ops) {
			rc = chakra__cv_fail(&e, CHAKRA_ECORRUPT, NULL, NULL, -1, -1,
			                     "%s and %s: none of the ET's %llu host ops matches a Kineto "
			                     "op (by record-function id, external id or name order): "
			                     "traces of different programs or runs? Convert the ET alone "
			                     "(without --kineto) or give the Kineto trace of the same run",
			                     et_path, kp, (unsigned long long)r->summary.host_ops);
			goto out;
		}
		host_times(&g, &et, &kin, host_of, ket);
		/* Kineto event -> host node; the window is the span of the linked ops */
		int64_t w0 = INT64_MAX, w1 = INT64_MIN;
		for (size_t i = 0; i < kin.n; i++)
			link[i] = CV_NONE;
		for (size_t i = 0; i < et.n; i++) {
			if (ket[i] == CV_NONE)
				continue;
			link[ket[i]] = host_of[i];
			const cv_kev *v = &kin.ev[ket[i]];
			if (v->ts < w0)
				w0 = v->ts;
			if (v->ts + v->dur > w1)
				w1 = v->ts + v->dur;
		}
		/* neighbours on each ET thread, for waits on work an op launched itself */
		for (size_t i = 0; i < nh; i++)
			pred[i] = next[i] = CV_NONE;
		{
			cv_map last = { 0 };
			for (size_t i = 0; i < nh; i++) {
				const cv_node *n = &g.nodes[i];
				if (n->kind != CV_NK_HOST)
					continue;
				uint32_t p = chakra__cv_map_get(&last, (uint64_t)n->tid);
				if (p != CV_NONE) {
					pred[i] = p;
					next[p] = (uint32_t)i;
				}
				if (chakra__cv_map_put(&last, (uint64_t)n->tid, (uint32_t)i) < 0) {
					chakra__cv_map_free(&last);
					rc = chakra__cv_fail(&e, CHAKRA_ENOMEM, NULL, NULL, -1, -1, "out of memory");
					goto out;
				}
			}
			chakra__cv_map_free(&last);
		}
		cv_dev_opts dopt = { w0, w1, link, pred, next, nh, 0 };
		if (w1 < w0) /* nothing linked: no window to take kernels from */
			dopt.w0 = 1, dopt.w1 = 0, dopt.none = 1;
		ne_host = g.ne;
		if ((rc = chakra__cv_dev_build(&kin, &g, &dopt, &r->summary, &e)) < 0)
			goto out;
		ne_dev = g.ne;
		if (w1 >= w0 && chakra__cv_thread_waits(&g, w0, &r->summary) < 0) {
			rc = chakra__cv_fail(&e, CHAKRA_ENOMEM, NULL, NULL, -1, -1, "out of memory");
			goto out;
		}
		meta.kin = &kin;
		meta.base_ns = kin.base_ns;
		if (w1 >= w0) {
			meta.window_start = w0 + kin.base_ns;
			meta.window_end = w1 + kin.base_ns;
			if (collect_annots(&kin, &g, w0, w1, &meta) < 0) {
				rc = chakra__cv_fail(&e, CHAKRA_ENOMEM, NULL, NULL, -1, -1, "out of memory");
				goto out;
			}
		}
	}
	if (linkout)
		rc = chakra__cv_link_write(&src, &et, &kin, ket, &g, nh, ne_host, ne_dev, &meta, out_path,
		                           o, &r->summary, &e);
	else
		rc = chakra__cv_graph_write(&g, &meta, out_path, o, &r->summary, &e);
	if (rc == 0 && groups && groups_from_graph(&g, groups) < 0)
		rc = chakra__cv_fail(&e, CHAKRA_ENOMEM, NULL, NULL, -1, -1, "out of memory");
out:
	if (rc < 0)
		result_from_err(r, &e);
	chakra_free(lo.annot);
	chakra_free(host_of), chakra_free(ket), chakra_free(link), chakra_free(pred), chakra_free(next);
	chakra_free(meta.annot);
	chakra__cv_graph_free(&g);
	chakra__cv_kin_free(&kin);
	chakra__cv_et_free(&et);
	return rc < 0 ? rc : 0;
}

static int run_kineto(const char *kineto_path, const char *out_path,
                      const chakra_convert_options *o, chakra_convert_result *r,
                      cv_groups *groups)
{
	cv_err e = { 0 };
	e.index = e.offset = -1;
	cv_kin kin;
	cv_graph g;
	memset(&kin, 0, sizeof kin);
	cv_meta meta;
	memset(&meta, 0, sizeof meta);
	meta.window_start = meta.window_tid = CV_UNSET;
	meta.rank = meta.world = -1;
	int rc = chakra__cv_graph_init(&g);
	if (rc < 0) {
		rc = chakra__cv_fail(&e, CHAKRA_ENOMEM, NULL, NULL, -1, -1, "out of memory");
		goto out;
	}
	if ((rc = check_opts(o, &e)) < 0)
		goto out;
	cv_json_src src = { kineto_path, kineto_path, o->kineto_buf, o->kineto_len };
	if ((rc = chakra__cv_kin_parse(&kin, &src, &e)) < 0)
		goto out;
	r->summary.kineto_events = kin.events;
	r->summary.flows_dangling = kin.flows_dangling;
	r->summary.rank = (int)kin.rank;
	int64_t w0, w1, wtid, windex;
	const char *wname;
	if ((rc = find_window(&kin, o, kineto_path, &w0, &w1, &wtid, &wname, &windex, &e)) < 0)
		goto out;
	cv_dev_opts dopt = { w0, w1, NULL, NULL, NULL, 0, 0 };
	e.file = kineto_path;
	if ((rc = chakra__cv_dev_build(&kin, &g, &dopt, &r->summary, &e)) < 0)
		goto out;
	if ((rc = nothing_left(&g, &kin, kineto_path, wname, windex, w1 - w0, &e)) < 0)
		goto out;
	if (chakra__cv_thread_waits(&g, w1 >= w0 ? w0 : CV_UNSET, &r->summary) < 0) {
		rc = chakra__cv_fail(&e, CHAKRA_ENOMEM, NULL, NULL, -1, -1, "out of memory");
		goto out;
	}
	meta.source = "kineto";
	meta.kin = &kin;
	meta.base_ns = kin.base_ns;
	if (w1 >= w0) {
		meta.window_start = w0 + kin.base_ns;
		meta.window_end = w1 + kin.base_ns;
		meta.window_name = chakra__cv_intern(&g.strs, wname, strlen(wname));
		meta.window_tid = wtid;
	}
	if (collect_annots(&kin, &g, w0, w1, &meta) < 0 || meta.window_name == CV_NONE) {
		rc = chakra__cv_fail(&e, CHAKRA_ENOMEM, NULL, NULL, -1, -1, "out of memory");
		goto out;
	}
	rc = chakra__cv_graph_write(&g, &meta, out_path, o, &r->summary, &e);
	if (rc == 0 && groups && groups_from_graph(&g, groups) < 0)
		rc = chakra__cv_fail(&e, CHAKRA_ENOMEM, NULL, NULL, -1, -1, "out of memory");
out:
	if (rc < 0)
		result_from_err(r, &e);
	chakra_free(meta.annot);
	chakra__cv_graph_free(&g);
	chakra__cv_kin_free(&kin);
	return rc < 0 ? rc : 0;
}

int chakra_convert_link(const char *et_path, const char *out_path,
                        const chakra_convert_options *opts, chakra_convert_result *result)
{
	chakra_convert_result local, *r = result ? result : &local;
	result_init(r);
	if (!et_path || !out_path) {
		snprintf(r->errmsg, sizeof r->errmsg, "chakra_convert_link: no %s path",
		         et_path ? "output" : "input");
		return CHAKRA_EINVAL;
	}
	chakra_convert_options o;
	int rc = chakra__cv_opts(opts, &o, r->errmsg, sizeof r->errmsg);
	if (rc < 0)
		return rc;
	return run_pytorch(et_path, out_path, &o, r, NULL, 1);
}

int chakra__cv_run(const char *et_path, const char *kineto_path, const char *out_path,
                   const chakra_convert_options *opts, chakra_convert_result *r,
                   cv_groups *groups)
{
	result_init(r);
	chakra_convert_options o;
	int rc = chakra__cv_opts(opts, &o, r->errmsg, sizeof r->errmsg);
	if (rc < 0)
		return rc;
	cv_err e = { 0 };
	e.index = e.offset = -1;
	if ((rc = check_opts(&o, &e)) < 0) {
		result_from_err(r, &e);
		return rc;
	}
	if (!o.out_cb) {
		/* the output rule (outfile.h) before any work: never an input,
		 * an existing file only with overwrite */
		const char *ins[] = { et_path, kineto_path ? kineto_path : o.kineto_path };
		chakra__out_opts oo = { o.overwrite, 1, ins, 2, "use -f (--force)" };
		if ((rc = chakra__out_check(out_path, &oo, r->errmsg, sizeof r->errmsg)) < 0)
			return rc;
	}
	if (et_path) {
		if (kineto_path)
			o.kineto_path = kineto_path;
		return run_pytorch(et_path, out_path, &o, r, groups, 0);
	}
	return run_kineto(kineto_path, out_path, &o, r, groups);
}

int chakra_convert_pytorch(const char *et_path, const char *out_path,
                           const chakra_convert_options *opts, chakra_convert_result *result)
{
	chakra_convert_result local;
	if (!et_path || !out_path) {
		chakra_convert_result *r = result ? result : &local;
		result_init(r);
		snprintf(r->errmsg, sizeof r->errmsg, "chakra_convert_pytorch: no %s path",
		         et_path ? "output" : "input");
		return CHAKRA_EINVAL;
	}
	return chakra__cv_run(et_path, NULL, out_path, opts, result ? result : &local, NULL);
}

int chakra_convert_kineto(const char *kineto_path, const char *out_path,
                          const chakra_convert_options *opts, chakra_convert_result *result)
{
	chakra_convert_result local;
	if (!kineto_path || !out_path) {
		chakra_convert_result *r = result ? result : &local;
		result_init(r);
		snprintf(r->errmsg, sizeof r->errmsg, "chakra_convert_kineto: no %s path",
		         kineto_path ? "output" : "input");
		return CHAKRA_EINVAL;
	}
	return chakra__cv_run(NULL, kineto_path, out_path, opts, result ? result : &local, NULL);
}

int chakra_convert_summary_print(const chakra_convert_summary *s, chakra_write_cb write,
	void *data)
{
	if (!s || !write)
		return CHAKRA_EINVAL;
	chakra__cbout o = { write, data, 0 }, *f = &o;
	static const char *tn[8] = { "invalid", "metadata", "mem_load", "mem_store", "comp",
		"comm_send", "comm_recv", "comm_coll" };
	if (s->et_nodes)
		chakra__cbprintf(f, "read: %llu ET nodes -> %llu host ops (%llu folded into them)\n",
			(unsigned long long)s->et_nodes, (unsigned long long)s->host_ops,
			(unsigned long long)s->folded_ops);
	if (s->kineto_events && s->rank >= 0)
		chakra__cbprintf(f, "read: %llu Kineto events (rank %d)\n", (unsigned long long)s->kineto_events,
			s->rank);
	else if (s->kineto_events)
		chakra__cbprintf(f, "read: %llu Kineto events\n", (unsigned long long)s->kineto_events);
	if (s->link_method && *s->link_method)
		chakra__cbprintf(f, "linked by %s: %llu of %llu ET nodes; host ops with kernels %llu of %llu "
			"(%.1f%%); kernels with a host op %llu of %llu (%.1f%%)\n",
			s->link_method, (unsigned long long)s->et_ops_linked,
			(unsigned long long)s->et_nodes, (unsigned long long)s->host_ops_with_kernels,
			(unsigned long long)s->host_ops,
			s->host_ops ? 100.0 * (double)s->host_ops_with_kernels / (double)s->host_ops : 0.0,
			(unsigned long long)s->kernels_linked, (unsigned long long)s->kernels,
			s->kernels ? 100.0 * (double)s->kernels_linked / (double)s->kernels : 0.0);
	else if (s->kernels)
		chakra__cbprintf(f, "device ops: %llu (%llu without a runtime call in the trace)\n",
			(unsigned long long)s->kernels, (unsigned long long)s->launches_unmatched);
	if (s->sync_edges || s->stream_wait_edges || s->inferred_wait_edges)
		chakra__cbprintf(f, "synchronisation: %llu host-wait edges, %llu stream-wait edges "
			"(%llu inferred without cuda_sync events)\n",
			(unsigned long long)s->sync_edges, (unsigned long long)s->stream_wait_edges,
			(unsigned long long)s->inferred_wait_edges);
	if (s->flow_edges || s->thread_wait_edges)
		chakra__cbprintf(f, "cross-thread: %llu dependencies from fwdbwd flows, %llu waits after an "
			"idle gap (>= 1 ms)\n",
			(unsigned long long)s->flow_edges, (unsigned long long)s->thread_wait_edges);
	if (s->dropped_edges)
		chakra__cbprintf(f, "dropped: %llu dependencies that would have closed a cycle\n",
			(unsigned long long)s->dropped_edges);
	if (s->unclassified_ops)
		chakra__cbprintf(f, "unclassified: %llu communication-like ops of unknown kind kept as COMP\n",
			(unsigned long long)s->unclassified_ops);
	if (s->flows_dangling)
		chakra__cbprintf(f, "ignored: %llu flow events without a partner (correlation ids link "
			"instead)\n", (unsigned long long)s->flows_dangling);
	chakra__cbprintf(f, "wrote: %llu nodes (", (unsigned long long)s->nodes);
	int first = 1;
	for (int t = 0; t < 8; t++) {
		if (!s->nodes_by_type[t])
			continue;
		chakra__cbprintf(f, "%s%s %llu", first ? "" : ", ", tn[t],
			(unsigned long long)s->nodes_by_type[t]);
		first = 0;
	}
	chakra__cbprintf(f, "), %llu data + %llu ctrl dependencies, %llu collectives\n",
		(unsigned long long)s->data_edges, (unsigned long long)s->ctrl_edges,
		(unsigned long long)s->collectives);
	return o.rc;
}
