/* SPDX-License-Identifier: Apache-2.0 */
/* The linked ET `chakra link` writes (Chakra's chakra_trace_link format):
 * the ET's JSON copied as it is (read again as a stream: numbers keep their
 * text), each node that took Kineto's times gaining ts, inclusive_dur,
 * exclusive_dur (microseconds) and inter_thread_dep, the device ops added
 * after the last node below the host op that launched them (cat, ph, ts,
 * inclusive_dur, exclusive_dur, stream, pg_name, and the host op's inputs,
 * outputs and attributes, as chakra_trace_link copies them), and
 * libchakra's keys that make converting the file give what converting the
 * two files gives: on nodes external_id, sync_dep, sync_wait, sync_kind,
 * fwdbwd_dep; on device ops device, correlation, bytes, chakra_type,
 * comm_*, backlog_until, stream_wait_dep; and a top-level device_trace
 * object (rank, world_size, process_groups, annotations). docs/convert.md,
 * "Linked files". */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cv.h"

/* ---- the output: a buffer flushed to the caller's callback or a file ---- */
typedef struct sink {
	cv_buf b;
	chakra_write_cb cb;
	void *data;
	int fd;
	int err;                 /* 0, or a negative chakra_error */
	int sys;                 /* errno of a failed write */
} sink;

static void flush(sink *k)
{
	if (k->err || !k->b.len)
		return;
	if (k->cb) {
		if (k->cb(k->data, k->b.p, k->b.len) < 0)
			k->err = CHAKRA_EIO;
	} else {
		size_t o = 0;
		while (o < k->b.len) {
			ssize_t w = write(k->fd, k->b.p + o, k->b.len - o);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				k->sys = errno ? errno : EIO;
				k->err = CHAKRA_EIO;
				return;
			}
			o += (size_t)w;
		}
	}
	k->b.len = 0;
}

static void put(sink *k, const char *s, size_t n)
{
	if (!k->err && chakra__cv_buf_add(&k->b, s, n) < 0)
		k->err = CHAKRA_ENOMEM;
	if (k->b.len >= 1 << 16)
		flush(k);
}

static void puts_(sink *k, const char *s)
{
	put(k, s, strlen(s));
}

static void putstr(sink *k, const char *s, size_t n)
{
	if (!k->err && chakra__cv_buf_add_jstr(&k->b, s, n) < 0)
		k->err = CHAKRA_ENOMEM;
}

static void puti(sink *k, int64_t v)
{
	char t[32];
	put(k, t, (size_t)snprintf(t, sizeof t, "%lld", (long long)v));
}

/* ns as microseconds, exactly (three decimals) */
static void putus(sink *k, int64_t ns)
{
	char t[40];
	uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
	put(k, t, (size_t)snprintf(t, sizeof t, "%s%llu.%03llu", ns < 0 ? "-" : "",
	                           (unsigned long long)(a / 1000), (unsigned long long)(a % 1000)));
}

static void key(sink *k, const char *name)
{
	put(k, ",", 1);
	putstr(k, name, strlen(name));
	put(k, ":", 1);
}

/* ---- what each node gains ---- */
enum { X_SYNC = 0, X_WAIT, X_STREAM, X_FLOW, X_ITD };
typedef struct xref {
	uint32_t to;             /* graph node */
	uint8_t kind;            /* X_* */
	uint32_t from;           /* graph node */
	uint32_t seq;
} xref;

static int cmp_xref(const void *a, const void *b)
{
	const xref *x = a, *y = b;
	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

typedef struct lw {
	cv_jctx j;               /* first: the parser's context */
	sink *k;
	const cv_et *et;
	const cv_kin *kin;
	const uint32_t *ket;
	const cv_graph *g;
	const cv_meta *meta;
	size_t nh;
	cv_map idx;              /* ET id -> ET index */
	uint32_t *host_node;     /* ET index -> graph host node it is the op of, CV_NONE */
	uint32_t *parent_of;     /* graph device node -> graph host node (launch), CV_NONE */
	uint64_t *gid;           /* graph device node -> its id in the file */
	int64_t *excl;           /* ET index -> exclusive duration (ns) */
	xref *x;
	size_t nx;
	uint64_t root_id;        /* parent of a device op launched by no host op */
	/* streaming state */
	int depth, nodes_depth, in_node_id;
	uint8_t first[CV_JSON_MAX_DEPTH + 2];
	uint8_t top_key_nodes;
	int64_t cur_id;
	int have_cur;
} lw;

static const xref *xrange(const lw *w, uint32_t to, size_t *n)
{
	size_t lo = 0, hi = w->nx;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (w->x[mid].to < to)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t e = lo;
	while (e < w->nx && w->x[e].to == to)
		e++;
	*n = e - lo;
	return w->x + lo;
}

static uint64_t node_id_of(const lw *w, uint32_t gn)
{
	const cv_node *n = &w->g->nodes[gn];
	if (n->kind == CV_NK_GPU)
		return w->gid[gn];
	return w->et->nodes[n->et].id;
}

static void id_list(lw *w, const char *name, const xref *x, size_t n, int kind)
{
	int any = 0;
	for (size_t i = 0; i < n; i++) {
		if (x[i].kind != kind)
			continue;
		if (!any) {
			key(w->k, name);
			put(w->k, "[", 1);
		} else {
			put(w->k, ",", 1);
		}
		any = 1;
		puti(w->k, (int64_t)node_id_of(w, x[i].from));
	}
	if (any)
		put(w->k, "]", 1);
}

/* The keys a host-trace node gains, before its closing brace. */
static void node_extras(lw *w, uint32_t i)
{
	sink *k = w->k;
	uint32_t kv = w->ket[i];
	if (kv != CV_NONE) {
		const cv_kev *v = &w->kin->ev[kv];
		key(k, "ts");
		putus(k, v->ts + w->kin->base_ns);
		key(k, "inclusive_dur");
		putus(k, v->dur);
		key(k, "exclusive_dur");
		putus(k, w->excl[i]);
		if (v->ext_id != CV_UNSET) {
			key(k, "external_id");
			puti(k, v->ext_id);
		}
	}
	uint32_t h = w->host_node[i];
	if (h == CV_NONE)
		return;
	size_t n;
	const xref *x = xrange(w, h, &n);
	for (size_t q = 0; q < n; q++)
		if (x[q].kind == X_ITD) { /* chakra_trace_link's one inter-thread dependency */
			key(k, "inter_thread_dep");
			puti(k, (int64_t)node_id_of(w, x[q].from));
			break;
		}
	id_list(w, "sync_dep", x, n, X_SYNC);
	id_list(w, "sync_wait", x, n, X_WAIT);
	id_list(w, "fwdbwd_dep", x, n, X_FLOW);
	const cv_node *gn = &w->g->nodes[h];
	if (gn->sync) {
		key(k, "sync_kind");
		putstr(k, cv_str(&w->g->strs, gn->sync), cv_strlen(&w->g->strs, gn->sync));
	}
}

/* A device op's category: a copy, a set, else a kernel. */
static const char *cat_name(int kind)
{
	return chakra__cv_cat_of_kind(kind == CV_K_MEMCPY || kind == CV_K_MEMSET ? kind : CV_K_KERNEL);
}

/* The host op's inputs and outputs, as chakra_trace_link copies them onto
 * its device ops (the 1.0.2 form). */
static void io_of(lw *w, const cv_etnode *h)
{
	sink *k = w->k;
	const char *p = h ? h->io : NULL;
	static const char *const sub[3] = { "values", "shapes", "types" };
	for (int dir = 0; dir < 2; dir++) {
		key(k, dir ? "outputs" : "inputs");
		put(k, "{", 1);
		for (int f = 0; f < 3; f++) {
			if (f)
				put(k, ",", 1);
			putstr(k, sub[f], strlen(sub[f]));
			put(k, ":", 1);
			size_t l = p ? strlen(p) : 0;
			if (l)
				put(k, p, l);
			else
				put(k, "[]", 2);
			if (p)
				p += l + 1;
		}
		put(k, "}", 1);
	}
}

static void attr(sink *k, int *first, const char *name, const char *type, int64_t v)
{
	put(k, *first ? "{" : ",{", *first ? 1 : 2);
	*first = 0;
	puts_(k, "\"name\":");
	putstr(k, name, strlen(name));
	puts_(k, ",\"type\":");
	putstr(k, type, strlen(type));
	puts_(k, ",\"value\":");
	puti(k, v);
	put(k, "}", 1);
}

/* The device ops, after the host trace's last node. */
static void device_nodes(lw *w)
{
	sink *k = w->k;
	const cv_graph *g = w->g;
	const cv_et *et = w->et;
	for (size_t v = w->nh; v < g->n && !k->err; v++) {
		const cv_node *n = &g->nodes[v];
		if (n->kind != CV_NK_GPU)
			continue;
		uint32_t h = w->parent_of[v];
		const cv_etnode *he = h != CV_NONE ? &et->nodes[g->nodes[h].et] : NULL;
		put(k, w->first[w->nodes_depth] ? "{" : ",{", w->first[w->nodes_depth] ? 1 : 2);
		w->first[w->nodes_depth] = 0;
		puts_(k, "\"id\":");
		puti(k, (int64_t)w->gid[v]);
		key(k, "name");
		putstr(k, cv_str(&g->strs, n->name), cv_strlen(&g->strs, n->name));
		key(k, "ctrl_deps");
		puti(k, (int64_t)(he ? he->id : w->root_id));
		io_of(w, he);
		if (he) {
			key(k, "attrs");
			int first = 1;
			put(k, "[", 1);
			attr(k, &first, "rf_id", "uint64", he->rf_id);
			attr(k, &first, "fw_parent", "uint64", he->fw_parent);
			attr(k, &first, "seq_id", "int64", he->seq_id);
			attr(k, &first, "scope", "uint64", he->scope);
			attr(k, &first, "tid", "uint64", he->tid);
			attr(k, &first, "fw_tid", "uint64", he->fw_tid);
			puts_(k, ",{\"name\":\"op_schema\",\"type\":\"string\",\"value\":");
			putstr(k, cv_str(&et->strs, he->schema), cv_strlen(&et->strs, he->schema));
			puts_(k, "}]");
		}
		key(k, "cat");
		puts_(k, "\"");
		puts_(k, cat_name(n->kineto_cat));
		puts_(k, "\"");
		key(k, "ph");
		puts_(k, "\"X\"");
		key(k, "ts");
		putus(k, n->start_ns + w->meta->base_ns);
		key(k, "inclusive_dur");
		putus(k, n->dur_ns);
		key(k, "exclusive_dur");
		putus(k, n->dur_ns);
		key(k, "stream");
		puti(k, n->stream);
		if (n->pg_name) {
			key(k, "pg_name");
			putstr(k, cv_str(&g->strs, n->pg_name), cv_strlen(&g->strs, n->pg_name));
		}
		/* libchakra's keys */
		key(k, "device");
		puti(k, n->device);
		if (n->corr != CV_UNSET) {
			key(k, "correlation");
			puti(k, n->corr);
		}
		if (n->tensor_size) {
			key(k, "bytes");
			puti(k, (int64_t)n->tensor_size);
		}
		key(k, "chakra_type");
		puti(k, n->type);
		if (n->type == CHAKRA_COMM_COLL_NODE || n->type == CHAKRA_COMM_SEND_NODE ||
		    n->type == CHAKRA_COMM_RECV_NODE) {
			if (n->type == CHAKRA_COMM_COLL_NODE) {
				key(k, "comm_type");
				puti(k, n->coll);
			}
			key(k, "comm_size");
			puti(k, n->comm_size);
			if (n->type != CHAKRA_COMM_COLL_NODE) {
				key(k, "comm_peer");
				puti(k, n->peer);
				key(k, "comm_tag");
				puti(k, n->tag);
			}
		}
		if (n->backlog != CV_UNSET) {
			key(k, "backlog_until");
			putus(k, n->backlog + w->meta->base_ns);
		}
		size_t nx;
		const xref *x = xrange(w, (uint32_t)v, &nx);
		id_list(w, "stream_wait_dep", x, nx, X_STREAM);
		put(k, "}", 1);
	}
}

/* The Kineto trace's rank, process groups and annotations. */
static void device_trace(lw *w)
{
	sink *k = w->k;
	const cv_graph *g = w->g;
	const cv_meta *m = w->meta;
	key(k, "device_trace");
	puts_(k, "{\"rank\":");
	puti(k, w->kin->rank);
	puts_(k, ",\"world_size\":");
	puti(k, w->kin->world);
	/* as a process_group:init string */
	cv_buf t = { 0 };
	int bad = chakra__cv_buf_addc(&t, '[') < 0;
	for (size_t i = 0; i < g->npg && !bad; i++) {
		const cv_pg *p = &g->pgs[i];
		char num[64];
		bad |= (i && chakra__cv_buf_addc(&t, ',') < 0) ||
		       chakra__cv_buf_add(&t, "{\"pg_name\":", 11) < 0 ||
		       chakra__cv_buf_add_jstr(&t, cv_str(&g->strs, p->name), cv_strlen(&g->strs, p->name)) < 0 ||
		       chakra__cv_buf_add(&t, ",\"pg_desc\":", 11) < 0 ||
		       chakra__cv_buf_add_jstr(&t, cv_str(&g->strs, p->desc), cv_strlen(&g->strs, p->desc)) < 0 ||
		       chakra__cv_buf_add(&t, ",\"backend_config\":", 18) < 0 ||
		       chakra__cv_buf_add_jstr(&t, cv_str(&g->strs, p->backend),
		                               cv_strlen(&g->strs, p->backend)) < 0;
		if (p->size >= 0) {
			int l = snprintf(num, sizeof num, ",\"pg_size\":%lld", (long long)p->size);
			bad |= chakra__cv_buf_add(&t, num, (size_t)l) < 0;
		}
		bad |= chakra__cv_buf_add(&t, ",\"ranks\":[", 10) < 0;
		for (size_t r = 0; r < p->n_ranks && !bad; r++) {
			int l = snprintf(num, sizeof num, "%s%lld", r ? "," : "", (long long)p->ranks[r]);
			bad |= chakra__cv_buf_add(&t, num, (size_t)l) < 0;
		}
		bad |= chakra__cv_buf_add(&t, "]}", 2) < 0;
	}
	bad |= chakra__cv_buf_addc(&t, ']') < 0;
	if (bad)
		k->err = CHAKRA_ENOMEM;
	puts_(k, ",\"process_groups\":");
	putstr(k, t.p ? t.p : "[]", t.p ? t.len : 2);
	chakra__cv_buf_free(&t);
	puts_(k, ",\"annotations\":[");
	for (size_t i = 0; i < m->n_annot; i++) {
		put(k, i ? ",[" : "[", i ? 2 : 1);
		putstr(k, cv_str(&g->strs, m->annot[i].name), cv_strlen(&g->strs, m->annot[i].name));
		put(k, ",", 1);
		puti(k, m->annot[i].start);
		put(k, ",", 1);
		puti(k, m->annot[i].dur);
		put(k, ",", 1);
		puti(k, m->annot[i].tid);
		put(k, "]", 1);
	}
	puts_(k, "]}");
}

/* ---- the ET copied through ---- */
static int sep(lw *w)
{
	int d = w->depth;
	if (!w->first[d])
		put(w->k, ",", 1);
	w->first[d] = 0;
	return !w->k->err;
}

static int stop(lw *w)
{
	return chakra__cv_jfail(&w->j, w->k->err, "cannot write the linked ET%s%s",
	                        w->k->sys ? ": " : "", w->k->sys ? strerror(w->k->sys) : "");
}

static int scalar(void *p, char kind, const char *s, size_t n)
{
	lw *w = p;
	int str = kind == 's';
	if (!sep(w))
		return stop(w);
	if (w->in_node_id) {
		w->in_node_id = 0;
		if (!str && cv_parse_i64(s, n, &w->cur_id) == 0)
			w->have_cur = 1;
	}
	if (str)
		putstr(w->k, s, n);
	else
		put(w->k, s, n);
	return w->k->err ? stop(w) : 1;
}

static int open_c(void *p, int map)
{
	lw *w = p;
	if (!sep(w))
		return stop(w);
	if (w->depth >= CV_JSON_MAX_DEPTH)
		return chakra__cv_jfail(&w->j, CHAKRA_ECORRUPT, "JSON nested deeper than %d levels",
		                        CV_JSON_MAX_DEPTH);
	w->in_node_id = 0;
	put(w->k, map ? "{" : "[", 1);
	w->depth++;
	w->first[w->depth] = 1;
	if (!map && w->depth == 2 && w->top_key_nodes)
		w->nodes_depth = 2;
	if (map && w->nodes_depth && w->depth == w->nodes_depth + 1)
		w->have_cur = 0;
	return w->k->err ? stop(w) : 1;
}

static int key_cb(void *p, const char *s, size_t n)
{
	lw *w = p;
	if (!sep(w))
		return stop(w);
	putstr(w->k, (const char *)s, n);
	put(w->k, ":", 1);
	w->first[w->depth] = 1; /* the value follows without a comma */
	if (w->depth == 1)
		w->top_key_nodes = n == 5 && !memcmp(s, "nodes", 5);
	w->in_node_id = w->nodes_depth && w->depth == w->nodes_depth + 1 && n == 2 &&
	                !memcmp(s, "id", 2);
	return w->k->err ? stop(w) : 1;
}

static int close_c(void *p, int map)
{
	lw *w = p;
	if (map && w->nodes_depth && w->depth == w->nodes_depth + 1 && w->have_cur) {
		uint32_t i = chakra__cv_map_get(&w->idx, (uint64_t)w->cur_id);
		if (i != CV_NONE)
			node_extras(w, i);
	}
	if (!map && w->nodes_depth && w->depth == w->nodes_depth) {
		device_nodes(w);
		w->nodes_depth = 0;
	}
	if (map && w->depth == 1)
		device_trace(w);
	put(w->k, map ? "}" : "]", 1);
	w->depth--;
	w->first[w->depth] = 0;
	return w->k->err ? stop(w) : 1;
}

static const cv_jfmt format = { scalar, key_cb, open_c, close_c };

/* ---- what the graph says, per node ---- */
static int prepare(lw *w, size_t ne_host, size_t ne_dev)
{
	const cv_et *et = w->et;
	const cv_graph *g = w->g;
	size_t n = g->n;
	w->host_node = chakra_malloc((et->n + 1) * sizeof *w->host_node);
	w->parent_of = chakra_malloc((n + 1) * sizeof *w->parent_of);
	w->gid = chakra_calloc(n + 1, sizeof *w->gid);
	w->excl = chakra_calloc(et->n + 1, sizeof *w->excl);
	w->x = chakra_malloc((g->ne + g->nw + 1) * sizeof *w->x);
	if (!w->host_node || !w->parent_of || !w->gid || !w->excl || !w->x)
		return -1;
	for (size_t i = 0; i < et->n; i++) {
		w->host_node[i] = CV_NONE;
		if (chakra__cv_map_put(&w->idx, et->nodes[i].id, (uint32_t)i) < 0)
			return -1;
		if ((et->nodes[i].flags & CV_ET_ROOT) && et->nodes[i].parent == et->nodes[i].id)
			w->root_id = et->nodes[i].id;
	}
	if (!w->root_id && et->n)
		w->root_id = et->nodes[0].parent;
	for (size_t h = 0; h < w->nh; h++)
		if (g->nodes[h].kind == CV_NK_HOST && g->nodes[h].et != CV_NONE)
			w->host_node[g->nodes[h].et] = (uint32_t)h;
	uint64_t next = et->max_id + 1;
	for (size_t v = 0; v < n; v++) {
		w->parent_of[v] = CV_NONE;
		if (g->nodes[v].kind == CV_NK_GPU)
			w->gid[v] = next++;
	}
	/* exclusive time: the node's minus its timed children's */
	for (size_t i = 0; i < et->n; i++) {
		if (w->ket[i] == CV_NONE)
			continue;
		int64_t d = w->kin->ev[w->ket[i]].dur;
		size_t steps = 0;
		for (uint32_t c = chakra__cv_map_get(&et->kids, et->nodes[i].id);
		     c != CV_NONE && steps++ <= et->n; c = et->nodes[c].next_sib)
			if (c != i && w->ket[c] != CV_NONE)
				d -= w->kin->ev[w->ket[c]].dur;
		w->excl[i] = d > 0 ? d : 0;
	}
	uint32_t seq = 0;
	for (size_t e = ne_host; e < g->ne; e++) {
		const cv_edge *x = &g->edges[e];
		int hu = x->from < w->nh, hv = x->to < w->nh;
		int gu = g->nodes[x->from].kind == CV_NK_GPU, gv = g->nodes[x->to].kind == CV_NK_GPU;
		int kind = -1;
		if (e >= ne_dev) {
			if (hu && hv && x->ctrl)
				kind = X_ITD;
		} else if (hu && gv && !x->ctrl) {
			if (w->parent_of[x->to] == CV_NONE)
				w->parent_of[x->to] = x->from;
		} else if (gu && gv && !x->ctrl) {
			kind = X_STREAM;
		} else if (gu && hv && !x->ctrl) {
			kind = X_SYNC;
		} else if (hu && hv && !x->ctrl) {
			kind = X_FLOW;
		}
		if (kind >= 0)
			w->x[w->nx++] = (xref){ x->to, (uint8_t)kind, x->from, seq++ };
	}
	for (size_t i = 0; i < g->nw; i++)
		w->x[w->nx++] = (xref){ g->waits[i].call, X_WAIT, g->waits[i].dev, seq++ };
	qsort(w->x, w->nx, sizeof *w->x, cmp_xref);
	return 0;
}

int chakra__cv_link_write(const cv_json_src *src, const cv_et *et, const cv_kin *kin,
                          const uint32_t *ket, const cv_graph *g, size_t nh, size_t ne_host,
                          size_t ne_dev, const cv_meta *meta, const char *out_path,
                          const chakra_convert_options *o, chakra_convert_summary *s,
                          cv_err *err)
{
	sink k;
	memset(&k, 0, sizeof k);
	k.fd = -1;
	char *tmp = NULL;
	int rc = 0;
	lw *w = chakra_calloc(1, sizeof *w);
	if (!w)
		return chakra__cv_fail(err, CHAKRA_ENOMEM, out_path, NULL, -1, -1, "out of memory");
	w->j.err = err;
	w->j.unit = "node";
	w->k = &k;
	w->et = et;
	w->kin = kin;
	w->ket = ket;
	w->g = g;
	w->meta = meta;
	w->nh = nh;
	w->first[0] = 1;
	if (prepare(w, ne_host, ne_dev) < 0) {
		rc = chakra__cv_fail(err, CHAKRA_ENOMEM, out_path, NULL, -1, -1, "out of memory");
		goto out;
	}
	if (o->out_cb) {
		k.cb = o->out_cb;
		k.data = o->out_data;
	} else if (!strcmp(out_path, "-")) {
		k.fd = 1;
	} else {
		struct stat st;
		if (!o->overwrite && stat(out_path, &st) == 0) {
			rc = chakra__cv_fail(err, CHAKRA_EIO, out_path, NULL, -1, -1,
			                     "exists; not overwriting it (use -f to replace it)");
			goto out;
		}
		size_t l = strlen(out_path) + 16;
		if (!(tmp = chakra_malloc(l))) {
			rc = chakra__cv_fail(err, CHAKRA_ENOMEM, out_path, NULL, -1, -1, "out of memory");
			goto out;
		}
		snprintf(tmp, l, "%s.tmp-XXXXXX", out_path);
		if ((k.fd = mkstemp(tmp)) < 0) {
			rc = chakra__cv_fail(err, CHAKRA_EIO, out_path, NULL, -1, -1, "cannot create: %s",
			                     strerror(errno));
			chakra_free(tmp);
			tmp = NULL;
			goto out;
		}
		fchmod(k.fd, 0644 & ~(mode_t)0);
	}
	if ((rc = chakra__cv_json_run(src, &format, &w->j)) < 0)
		goto out;
	put(&k, "\n", 1);
	flush(&k);
	if (k.err) {
		rc = chakra__cv_fail(err, k.err, out_path, NULL, -1, -1, "cannot write: %s",
		                     k.sys ? strerror(k.sys) : chakra_strerror(k.err));
		goto out;
	}
	if (tmp) {
		if (close(k.fd) < 0 || rename(tmp, out_path) < 0) {
			k.fd = -1;
			rc = chakra__cv_fail(err, CHAKRA_EIO, out_path, NULL, -1, -1, "cannot write: %s",
			                     strerror(errno));
			goto out;
		}
		k.fd = -1;
		chakra_free(tmp);
		tmp = NULL;
	}
	/* the summary counts what the linked file holds */
	memset(s->nodes_by_type, 0, sizeof s->nodes_by_type);
	s->nodes = et->n;
	for (size_t v = 0; v < g->n; v++)
		s->nodes += g->nodes[v].kind == CV_NK_GPU;
out:
	if (tmp) {
		if (k.fd >= 0)
			close(k.fd);
		unlink(tmp);
		chakra_free(tmp);
	}
	chakra__cv_buf_free(&k.b);
	chakra__cv_map_free(&w->idx);
	chakra_free(w->host_node), chakra_free(w->parent_of), chakra_free(w->gid);
	chakra_free(w->excl), chakra_free(w->x);
	chakra_free(w);
	return rc;
}
