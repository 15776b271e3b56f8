/* SPDX-License-Identifier: Apache-2.0 */
/* A linked ET's device side: the host ET with the device ops a linker
 * added as nodes (Chakra's chakra_trace_link, libchakra's `chakra link`),
 * each below the host op that launched it, with Kineto's times on the ops.
 * Its device ops become GPU nodes on their streams (launch and stream
 * order, collectives), as `convert pytorch --et ET --kineto K` makes them
 * from the two files; what `chakra link` adds beside chakra_trace_link's
 * keys (synchronisation, stream waits, fwdbwd flows, the Kineto trace's
 * process groups, annotations and rank) makes the two conversions equal
 * (docs/convert.md, "Linked files"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_tree.h>

#include "cv.h"

typedef struct lkb {
	cv_et *et;
	cv_graph *g;
	const uint32_t *host_of;
	chakra_convert_summary *s;
	cv_err *err;
	const char *file;
	cv_map idx;              /* ET id -> ET index */
	cv_map gpu;              /* ET id of a device op -> graph node */
} lkb;

static int nomem(lkb *b)
{
	return chakra__cv_fail(b->err, CHAKRA_ENOMEM, b->file, NULL, -1, -1, "out of memory");
}

static int bad_id(lkb *b, uint32_t i, const char *list, int64_t id)
{
	const cv_etnode *n = &b->et->nodes[i];
	return chakra__cv_fail(b->err, CHAKRA_EDEP, b->file, "node", (int64_t)n->index, -1,
	                       "id %llu ('%s'): its %s names %lld, which is no %s in the file",
	                       (unsigned long long)n->id, cv_str(&b->et->strs, n->name), list,
	                       (long long)id, strcmp(list, "fwdbwd_dep") ? "device op" : "node");
}

static uint32_t gstr(lkb *b, uint32_t s)
{
	return s ? chakra__cv_intern(&b->g->strs, cv_str(&b->et->strs, s), cv_strlen(&b->et->strs, s))
	         : 0;
}

/* Host ops take the times of their ET node (else the span of their timed
 * descendants), as they take their Kineto events' with --kineto; the window
 * is the span of every timed node. */
static void host_times(lkb *b, cv_linked *lo)
{
	cv_et *et = b->et;
	cv_graph *g = b->g;
	for (size_t i = 0; i < et->n; i++) {
		const cv_etnode *e = &et->nodes[i];
		if ((e->flags & CV_ET_GPU) || e->link == CV_NONE)
			continue;
		const cv_etlink *l = &et->link[e->link];
		if (l->ts == CV_UNSET)
			continue;
		int64_t dur = l->dur != CV_UNSET ? l->dur : 0, end = l->ts + dur;
		if (l->ts < lo->w0)
			lo->w0 = l->ts;
		if (end > lo->w1)
			lo->w1 = end;
		b->s->et_ops_linked++;
		uint32_t gi = b->host_of[i];
		if (gi == CV_NONE)
			continue;
		cv_node *n = &g->nodes[gi];
		if (n->et == i) {
			n->start_ns = l->ts;
			n->dur_ns = dur;
			n->has_time = 2;
			n->ext_id = l->ext_id;
			n->kineto_cat = CV_K_CPU_OP;
		} else if (n->has_time != 2) {
			int64_t ne = n->has_time ? n->start_ns + n->dur_ns : INT64_MIN;
			int64_t st = n->has_time && n->start_ns < l->ts ? n->start_ns : l->ts;
			if (end > ne)
				ne = end;
			n->start_ns = st;
			n->dur_ns = ne - st;
			n->has_time = 1;
		}
	}
	for (size_t i = 0; i < g->n; i++)
		if (g->nodes[i].has_time)
			g->nodes[i].has_time = 1;
}

/* `chakra link`'s device_trace: {"rank", "world_size", "process_groups"
 * (the Kineto trace's and its collectives' groups, as a process_group:init
 * string), "annotations" ([name, start ns, duration ns, tid], ...)}. */
static int device_trace(lkb *b, cv_linked *lo)
{
	cv_et *et = b->et;
	if (!et->device_trace)
		return 0;
	yajl_val v;
	char why[200];
	int jr = chakra__json_tree(cv_str(&et->strs, et->device_trace),
	                           cv_strlen(&et->strs, et->device_trace), &v, why, sizeof why);
	if (jr == CHAKRA_ENOMEM)
		return nomem(b);
	if (jr < 0 || !YAJL_IS_OBJECT(v)) {
		if (jr >= 0)
			chakra__json_tree_free(v);
		return chakra__cv_fail(b->err, CHAKRA_ECORRUPT, b->file, NULL, -1, -1,
		                       "'device_trace' is not a JSON object%s%s", jr < 0 ? ": " : "",
		                       jr < 0 ? why : "");
	}
	int rc = 0;
	const char *rk[] = { "rank", NULL }, *wk[] = { "world_size", NULL };
	const char *pk[] = { "process_groups", NULL }, *ak[] = { "annotations", NULL };
	yajl_val r = yajl_tree_get(v, rk, yajl_t_number);
	yajl_val w = yajl_tree_get(v, wk, yajl_t_number);
	if (r && YAJL_IS_INTEGER(r))
		lo->rank = YAJL_GET_INTEGER(r);
	if (w && YAJL_IS_INTEGER(w))
		lo->world = YAJL_GET_INTEGER(w);
	yajl_val p = yajl_tree_get(v, pk, yajl_t_string);
	if (p) {
		cv_pg *pgs = NULL;
		size_t npg = 0, cap = 0;
		const char *t = YAJL_GET_STRING(p);
		rc = chakra__cv_pg_parse(&et->strs, t, strlen(t), &pgs, &npg, &cap) < 0 ? -1 : 0;
		int bad = 0;
		for (size_t i = 0; i < npg && !rc; i++) {
			uint32_t nm = gstr(b, pgs[i].name), ds = gstr(b, pgs[i].desc);
			uint32_t be = gstr(b, pgs[i].backend);
			if (nm == CV_NONE || ds == CV_NONE || be == CV_NONE) {
				rc = -1;
				break;
			}
			/* checked where it enters: a rank twice or out of range is an error */
			cv_where wh = { b->file, NULL, -1, "device_trace.process_groups" };
			if (chakra__cv_graph_pg(b->g, nm, ds, be, pgs[i].size, pgs[i].ranks,
			                        pgs[i].n_ranks, 0, 0, b->err, &wh) < 0)
				rc = -1, bad = 1;
		}
		for (size_t i = 0; i < npg; i++)
			chakra_free(pgs[i].ranks);
		chakra_free(pgs);
		if (rc < 0) {
			chakra__json_tree_free(v);
			return bad ? -1 : nomem(b);
		}
	}
	yajl_val a = yajl_tree_get(v, ak, yajl_t_array);
	size_t cap = 0;
	for (size_t i = 0; a && i < a->u.array.len; i++) {
		yajl_val x = a->u.array.values[i];
		if (!YAJL_IS_ARRAY(x) || x->u.array.len != 4 || !YAJL_IS_STRING(x->u.array.values[0]) ||
		    !YAJL_IS_INTEGER(x->u.array.values[1]) || !YAJL_IS_INTEGER(x->u.array.values[2]) ||
		    !YAJL_IS_INTEGER(x->u.array.values[3]))
			continue;
		struct cv_annot *an = CV_PUSH(lo->annot, lo->n_annot, cap);
		const char *s = YAJL_GET_STRING(x->u.array.values[0]);
		if (!an || (an->name = chakra__cv_intern(&b->g->strs, s, strlen(s))) == CV_NONE) {
			chakra__json_tree_free(v);
			return nomem(b);
		}
		an->start = YAJL_GET_INTEGER(x->u.array.values[1]);
		an->dur = YAJL_GET_INTEGER(x->u.array.values[2]);
		an->tid = YAJL_GET_INTEGER(x->u.array.values[3]);
	}
	chakra__json_tree_free(v);
	return 0;
}

static int is_comm(int type)
{
	return type == CHAKRA_COMM_COLL_NODE || type == CHAKRA_COMM_SEND_NODE ||
	       type == CHAKRA_COMM_RECV_NODE;
}

/* One device op: a GPU node launched by its host op. */
static int device_op(lkb *b, uint32_t i, cv_map *hosts)
{
	cv_et *et = b->et;
	cv_graph *g = b->g;
	const cv_etnode *e = &et->nodes[i];
	const cv_etlink *l = &et->link[e->link];
	const char *nm = cv_str(&et->strs, e->name);
	size_t nl = cv_strlen(&et->strs, e->name);
	uint32_t p = chakra__cv_map_get(&b->idx, e->parent);
	uint32_t host = p != CV_NONE ? b->host_of[p] : CV_NONE;
	if (p == CV_NONE)
		return chakra__cv_fail(b->err, CHAKRA_EDEP, b->file, "node", (int64_t)e->index, -1,
		                       "id %llu ('%s'): the host op %llu of this device op never "
		                       "appears", (unsigned long long)e->id, nm,
		                       (unsigned long long)e->parent);
	int type = l->ntype >= 0 ? l->ntype : CHAKRA_COMP_NODE;
	int coll = (int)(l->comm_type != CV_UNSET ? l->comm_type : -1);
	if (l->ntype < 0) {
		/* as the linker wrote it: an NCCL kernel is a collective */
		int kc = chakra__cv_coll_from_kernel(nm, nl);
		if (kc == CV_COLL_SEND || kc == CV_COLL_RECV)
			type = kc == CV_COLL_SEND ? CHAKRA_COMM_SEND_NODE : CHAKRA_COMM_RECV_NODE;
		else if (kc != CV_COLL_UNKNOWN) {
			type = CHAKRA_COMM_COLL_NODE;
			coll = kc;
		}
	}
	uint32_t gi = chakra__cv_graph_add(g, nm, nl, type, CV_NK_GPU);
	if (gi == CV_NONE)
		return nomem(b);
	cv_node *n = &g->nodes[gi];
	n->is_cpu = 0;
	n->has_time = l->ts != CV_UNSET;
	n->start_ns = l->ts != CV_UNSET ? l->ts : 0;
	n->dur_ns = l->dur != CV_UNSET ? l->dur : 0;
	n->stream = l->stream != CV_UNSET ? l->stream : 0;
	n->device = l->device != CV_UNSET ? l->device : 0;
	n->corr = l->corr;
	n->kineto_cat = l->kind;
	n->backlog = l->backlog;
	if ((l->kind == CV_K_MEMCPY || l->kind == CV_K_MEMSET) && l->bytes > 0)
		n->tensor_size = (uint64_t)l->bytes;
	if (is_comm(type)) {
		cv_node *h = host != CV_NONE ? &g->nodes[host] : NULL;
		if (l->ntype < 0 && h && is_comm(h->type)) {
			/* the host op's record says what the kernel does */
			n->type = h->type;
			coll = h->coll;
			n->comm_size = h->comm_size;
			n->pg_name = h->pg_name;
			n->peer = h->peer;
			n->tag = h->tag;
		} else {
			n->comm_size = l->comm_size != CV_UNSET ? l->comm_size : 0;
			n->peer = l->comm_peer != CV_UNSET ? l->comm_peer : -1;
			n->tag = l->comm_tag != CV_UNSET ? l->comm_tag : -1;
			if ((n->pg_name = gstr(b, l->pg_name)) == CV_NONE)
				return nomem(b);
		}
		n->coll = n->type == CHAKRA_COMM_COLL_NODE ? coll : -1;
		if (h && is_comm(h->type))
			h->type = CHAKRA_COMP_NODE; /* the host op launched it */
	}
	if (chakra__cv_map_put(&b->gpu, e->id, gi) < 0)
		return nomem(b);
	b->s->kernels++;
	if (host == CV_NONE)
		return 0;
	b->s->kernels_linked++;
	if (chakra__cv_map_get(hosts, host) == CV_NONE) {
		if (chakra__cv_map_put(hosts, host, 1) < 0)
			return nomem(b);
		b->s->host_ops_with_kernels++;
	}
	return chakra__cv_graph_edge(g, host, gi, 0) < 0 ? nomem(b) : 0;
}

typedef struct sref {
	int64_t dev, stream, start;
	uint32_t node;
} sref;

static int cmp_sref(const void *a, const void *b)
{
	const sref *x = a, *y = b;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->stream != y->stream)
		return x->stream < y->stream ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->node < y->node ? -1 : x->node > y->node;
}

/* A stream runs its work in order: ctrl dependencies in start order (ties:
 * the order the ops are listed in). */
static int stream_order(lkb *b, size_t first)
{
	cv_graph *g = b->g;
	size_t m = g->n - first;
	if (!m)
		return 0;
	sref *v = chakra_malloc(m * sizeof *v);
	if (!v)
		return nomem(b);
	for (size_t i = 0; i < m; i++) {
		const cv_node *n = &g->nodes[first + i];
		v[i] = (sref){ n->device, n->stream, n->start_ns, (uint32_t)(first + i) };
	}
	qsort(v, m, sizeof *v, cmp_sref);
	int rc = 0;
	for (size_t i = 1; i < m && !rc; i++)
		if (v[i].dev == v[i - 1].dev && v[i].stream == v[i - 1].stream)
			rc = chakra__cv_graph_edge(g, v[i - 1].node, v[i].node, 1);
	chakra_free(v);
	return rc < 0 ? nomem(b) : 0;
}

/* The id lists: synchronisation, stream waits, flows. */
static int id_lists(lkb *b)
{
	cv_et *et = b->et;
	cv_graph *g = b->g;
	static const char *const names[CV_LD_N] = { "sync_dep", "sync_wait", "stream_wait_dep",
	                                            "fwdbwd_dep" };
	for (size_t i = 0; i < et->n; i++) {
		const cv_etnode *e = &et->nodes[i];
		if (e->link == CV_NONE)
			continue;
		const cv_etlink *l = &et->link[e->link];
		uint32_t t = e->flags & CV_ET_GPU ? chakra__cv_map_get(&b->gpu, e->id) : b->host_of[i];
		if (t == CV_NONE)
			continue;
		if (l->sync_kind && !(e->flags & CV_ET_GPU) &&
		    (g->nodes[t].sync = gstr(b, l->sync_kind)) == CV_NONE)
			return nomem(b);
		for (int w = 0; w < CV_LD_N; w++)
			for (uint32_t j = 0; j < l->ndep[w]; j++) {
				int64_t id = et->lint[l->dep[w] + j];
				uint32_t f;
				if (w == CV_LD_FLOW) {
					uint32_t x = chakra__cv_map_get(&b->idx, (uint64_t)id);
					if (x == CV_NONE)
						return bad_id(b, (uint32_t)i, names[w], id);
					if ((f = b->host_of[x]) == CV_NONE)
						continue;
				} else if ((f = chakra__cv_map_get(&b->gpu, (uint64_t)id)) == CV_NONE)
					return bad_id(b, (uint32_t)i, names[w], id);
				int rc;
				if (w == CV_LD_WAIT) {
					rc = chakra__cv_graph_wait(g, t, f);
				} else {
					rc = chakra__cv_graph_edge(g, f, t, 0);
					if (w == CV_LD_SYNC)
						b->s->sync_edges++;
					else if (w == CV_LD_STREAM)
						b->s->stream_wait_edges++;
					else
						b->s->flow_edges++;
				}
				if (rc < 0)
					return nomem(b);
			}
	}
	return 0;
}

int chakra__cv_linked_build(cv_et *et, cv_graph *g, const uint32_t *host_of, cv_linked *lo,
                            chakra_convert_summary *s, cv_err *err)
{
	lkb b = { et, g, host_of, s, err, err->file, { 0 }, { 0 } };
	memset(lo, 0, sizeof *lo);
	lo->w0 = INT64_MAX;
	lo->w1 = INT64_MIN;
	lo->rank = lo->world = -1;
	int rc = 0;
	cv_map hosts = { 0 };
	for (size_t i = 0; i < et->n && !rc; i++)
		if (chakra__cv_map_put(&b.idx, et->nodes[i].id, (uint32_t)i) < 0)
			rc = nomem(&b);
	if (!rc) {
		host_times(&b, lo);
		rc = device_trace(&b, lo);
	}
	size_t first = g->n;
	for (size_t i = 0; i < et->n && !rc; i++)
		if (et->nodes[i].flags & CV_ET_GPU)
			rc = device_op(&b, (uint32_t)i, &hosts);
	if (!rc)
		rc = stream_order(&b, first);
	if (!rc)
		rc = id_lists(&b);
	s->link_method = "a linked ET";
	chakra__cv_map_free(&hosts);
	chakra__cv_map_free(&b.idx);
	chakra__cv_map_free(&b.gpu);
	return rc;
}
