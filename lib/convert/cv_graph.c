/* SPDX-License-Identifier: Apache-2.0 */
/* The output graph: nodes and edges collected by the stages, then numbered
 * in a topological order (ready nodes by start time, then by the order the
 * stages added them: program order for host ops) and written through the
 * public writer. docs/convert.md lists the attributes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "chakra/attrs.h"
#include "cv.h"
#include "topo.h"

int chakra__cv_graph_init(cv_graph *g)
{
	memset(g, 0, sizeof *g);
	return chakra__cv_strtab_init(&g->strs);
}

uint32_t chakra__cv_graph_add(cv_graph *g, const char *name, size_t len, int type, int kind)
{
	if (g->n >= UINT32_MAX - 2)
		return CV_NONE;
	uint32_t nm = chakra__cv_intern(&g->strs, name, len);
	if (nm == CV_NONE)
		return CV_NONE;
	cv_node *n = CV_PUSH(g->nodes, g->n, g->cap);
	if (!n)
		return CV_NONE;
	memset(n, 0, sizeof *n);
	n->name = nm;
	n->type = (uint8_t)type;
	n->kind = (uint8_t)kind;
	n->tid = n->stream = n->device = CV_UNSET;
	n->corr = n->rf_id = n->ext_id = CV_UNSET;
	n->backlog = CV_UNSET;
	n->coll = -1;
	n->peer = -1;
	n->tag = -1;
	n->et = n->meta = CV_NONE;
	return (uint32_t)(g->n - 1);
}

int chakra__cv_graph_edge(cv_graph *g, uint32_t from, uint32_t to, int ctrl)
{
	if (from == to || from >= g->n || to >= g->n)
		return 0;
	cv_edge *e = CV_PUSH(g->edges, g->ne, g->ecap);
	if (!e)
		return -1;
	e->from = from;
	e->to = to;
	e->ctrl = (uint8_t)ctrl;
	return 0;
}

int chakra__cv_graph_wait(cv_graph *g, uint32_t call, uint32_t dev)
{
	if (call >= g->n || dev >= g->n)
		return 0;
	cv_wait *w = CV_PUSH(g->waits, g->nw, g->wcap);
	if (!w)
		return -1;
	w->call = call;
	w->dev = dev;
	return 0;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

static int pg_bad(cv_err *err, const cv_where *w, const cv_graph *g, uint32_t name,
                  const char *fmt, long long a, long long b)
{
	char what[160];
	snprintf(what, sizeof what, fmt, a, b);
	return chakra__cv_fail(err, CHAKRA_ECORRUPT, w ? w->file : NULL, w ? w->unit : NULL,
	                       w ? w->index : -1, -1, "%s%sprocess group '%.200s': %s",
	                       w && w->what ? w->what : "", w && w->what ? ": " : "",
	                       cv_str(&g->strs, name), what);
}

/* Members of a list: ranks in [0, CV_RANK_LIMIT), none twice (sorted copy:
 * O(n log n) whatever the list). */
static int pg_check_list(const cv_graph *g, uint32_t name, const int64_t *ranks, size_t n,
                         cv_err *err, const cv_where *w)
{
	for (size_t i = 0; i < n; i++)
		if (ranks[i] < 0 || ranks[i] >= CV_RANK_LIMIT)
			return pg_bad(err, w, g, name, "member %lld is not a rank (0..%lld)",
			              (long long)ranks[i], (long long)(CV_RANK_LIMIT - 1));
	int64_t *t = chakra_malloc((n ? n : 1) * sizeof *t);
	if (!t)
		return chakra__cv_fail(err, CHAKRA_ENOMEM, w ? w->file : NULL, NULL, -1, -1,
		                       "out of memory");
	memcpy(t, ranks, n * sizeof *t);
	qsort(t, n, sizeof *t, cmp_i64);
	int rc = 0;
	for (size_t i = 1; i < n && !rc; i++)
		if (t[i] == t[i - 1])
			rc = pg_bad(err, w, g, name, "rank %lld is listed twice%.0lld", (long long)t[i], 0);
	chakra_free(t);
	return rc;
}

const cv_pg *chakra__cv_graph_pg_find(const cv_graph *g, uint32_t name)
{
	uint32_t i = chakra__cv_map_get(&g->pg_index, name);
	return i == CV_NONE ? NULL : &g->pgs[i];
}

int chakra__cv_graph_pg(cv_graph *g, uint32_t name, uint32_t desc, uint32_t backend,
                        int64_t size, const int64_t *ranks, size_t nranks, int64_t rank_start,
                        int64_t rank_stride, cv_err *err, const cv_where *w)
{
	const char *file = w ? w->file : NULL;
	if (nranks && pg_check_list(g, name, ranks, nranks, err, w) < 0)
		return err->code;
	/* a range: start >= 0, stride > 0, every member below the limit
	 * (checked without overflow: start + (size - 1) * stride) */
	int range = !nranks && size > 0 && rank_start >= 0 && rank_stride > 0;
	if (range) {
		int64_t last;
		if (rank_start >= CV_RANK_LIMIT ||
		    __builtin_mul_overflow(size - 1, rank_stride, &last) ||
		    __builtin_add_overflow(last, rank_start, &last) || last >= CV_RANK_LIMIT)
			return pg_bad(err, w, g, name, "rank_start %lld + k * rank_stride %lld leaves the "
			              "ranks (0..16777215)", (long long)rank_start, (long long)rank_stride);
		if (size == 1)
			rank_stride = 1;
	}
	uint32_t at = chakra__cv_map_get(&g->pg_index, name);
	cv_pg *p = at == CV_NONE ? NULL : &g->pgs[at];
	if (!p) {
		if (!(p = CV_PUSH(g->pgs, g->npg, g->pgcap)))
			return chakra__cv_fail(err, CHAKRA_ENOMEM, file, NULL, -1, -1, "out of memory");
		memset(p, 0, sizeof *p);
		p->name = name;
		p->size = -1;
		p->backend_id = CV_UNSET;
		if (chakra__cv_map_put(&g->pg_index, name, (uint32_t)(g->npg - 1)) < 0)
			return chakra__cv_fail(err, CHAKRA_ENOMEM, file, NULL, -1, -1, "out of memory");
	}
	if (desc && !p->desc)
		p->desc = desc;
	if (backend && !p->backend)
		p->backend = backend;
	if (size >= 0 && p->size < 0)
		p->size = size;
	if (nranks && !p->n_ranks) {
		p->ranks = chakra_malloc(nranks * sizeof *p->ranks);
		if (!p->ranks)
			return chakra__cv_fail(err, CHAKRA_ENOMEM, file, NULL, -1, -1, "out of memory");
		memcpy(p->ranks, ranks, nranks * sizeof *p->ranks);
		p->n_ranks = nranks;
		p->rank_stride = 0; /* a list says more than a range */
		if (p->size < 0)
			p->size = (int64_t)nranks;
	} else if (range && !p->n_ranks && !p->rank_stride && p->size == size) {
		p->rank_start = rank_start;
		p->rank_stride = rank_stride;
	}
	return 0;
}

void chakra__cv_graph_free(cv_graph *g)
{
	for (size_t i = 0; i < g->npg; i++)
		chakra_free(g->pgs[i].ranks);
	chakra_free(g->pgs);
	chakra__cv_map_free(&g->pg_index);
	chakra_free(g->nodes);
	chakra_free(g->edges);
	chakra_free(g->waits);
	chakra__cv_strtab_free(&g->strs);
	memset(g, 0, sizeof *g);
}

/* ---- topological numbering ---- */
/* Kahn's order (lib/graph/topo.c) by key, then index; a node's key is its
 * start time when it has one, else the largest key of its parents (so
 * untimed nodes follow what they wait for). Edges that would close a
 * cycle (none by construction) are dropped, releasing the lowest-index
 * node left, rather than producing an unreadable trace. Fills order[] and
 * node ids. */
static int number_nodes(cv_graph *g, uint32_t *in_off, uint32_t *in_list, uint32_t *order,
                        uint64_t *dropped)
{
	size_t n = g->n;
	uint64_t *key = chakra_malloc((n + 1) * sizeof *key);
	uint8_t *untimed = chakra_malloc(n + 1);
	if (!key || !untimed) {
		chakra_free(key), chakra_free(untimed);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		key[i] = chakra__topo_key_i64(g->nodes[i].has_time ? g->nodes[i].start_ns : INT64_MIN);
		untimed[i] = !g->nodes[i].has_time;
	}
	chakra__topo t = { .n = n, .in_off = in_off, .in_src = in_list, .ready = CHAKRA__TOPO_BY_KEY,
	                   .cycle = CHAKRA__TOPO_RELEASE_FIRST, .key = key, .carry = untimed,
	                   .order = order };
	int rc = chakra__topo_order(&t);
	chakra_free(key), chakra_free(untimed);
	if (rc < 0)
		return -1;
	for (size_t k = 0; k < n; k++)
		g->nodes[order[k]].id = (uint32_t)k;
	*dropped += t.dropped;
	return 0;
}

/* ---- writing ---- */
typedef struct wctx {
	chakra_builder *b;
	const cv_graph *g;
	int err;
} wctx;

#define A_INT(name, v) (w->err |= chakra_builder_attr_int(w->b, name, CHAKRA_ATTR_INT64, (v)))
#define A_BOOL(name, v) (w->err |= chakra_builder_attr_int(w->b, name, CHAKRA_ATTR_BOOL, (v)))
#define A_STR(name, s, n) \
	(w->err |= chakra_builder_attr_string(w->b, name, CHAKRA_ATTR_STRING, (s), (n)))

static void write_attrs(wctx *w, const cv_node *n, int64_t base_ns)
{
	const cv_graph *g = w->g;
	if (n->type != CHAKRA_METADATA_NODE)
		A_BOOL(CHAKRA_ATTR_NAME_IS_CPU_OP, n->is_cpu);
	if (n->et != CV_NONE && g->et) {
		const cv_etnode *e = &g->et->nodes[n->et];
		A_INT("rf_id", e->rf_id);
		A_INT("fw_parent", e->fw_parent);
		A_INT("seq_id", e->seq_id);
		A_INT("scope", e->scope);
		A_INT("tid", e->tid);
		A_INT("fw_tid", e->fw_tid);
		A_STR("op_schema", cv_str(&g->et->strs, e->schema), cv_strlen(&g->et->strs, e->schema));
	} else if (n->tid != CV_UNSET) {
		A_INT("tid", n->tid);
	}
	if (n->has_time) {
		A_INT(CHAKRA_ATTR_NAME_START_TIME_NANOS, n->start_ns + base_ns);
		A_INT(CHAKRA_ATTR_NAME_DURATION_NANOS, n->dur_ns);
	}
	if (n->stream != CV_UNSET) {
		A_INT(CHAKRA_ATTR_NAME_STREAM, n->stream);
		A_INT("device", n->device);
	}
	if (n->backlog != CV_UNSET)
		A_INT(CHAKRA_ATTR_NAME_BACKLOG_UNTIL_NANOS, n->backlog + base_ns);
	if (n->kineto_cat)
		A_STR("kineto_cat", chakra__cv_cat_of_kind(n->kineto_cat), (size_t)-1);
	if (n->corr != CV_UNSET)
		A_INT("correlation", n->corr);
	if (n->ext_id != CV_UNSET)
		A_INT("external_id", n->ext_id);
	if (n->et == CV_NONE && n->rf_id != CV_UNSET)
		A_INT("rf_id", n->rf_id);
	if (n->sync)
		A_STR(CHAKRA_ATTR_NAME_SYNC, cv_str(&g->strs, n->sync), cv_strlen(&g->strs, n->sync));
	if (n->num_ops)
		A_INT(CHAKRA_ATTR_NAME_NUM_OPS, (int64_t)n->num_ops);
	if (n->tensor_size)
		w->err |= chakra_builder_attr_uint(w->b, CHAKRA_ATTR_NAME_TENSOR_SIZE, CHAKRA_ATTR_UINT64,
		                                   n->tensor_size);
	if (n->type == CHAKRA_COMM_COLL_NODE || n->type == CHAKRA_COMM_SEND_NODE ||
	    n->type == CHAKRA_COMM_RECV_NODE) {
		if (n->type == CHAKRA_COMM_COLL_NODE)
			A_INT(CHAKRA_ATTR_NAME_COMM_TYPE, n->coll);
		A_INT(CHAKRA_ATTR_NAME_COMM_SIZE, n->comm_size);
		if (n->pg_name)
			A_STR(CHAKRA_ATTR_NAME_PG_NAME, cv_str(&g->strs, n->pg_name), cv_strlen(&g->strs, n->pg_name));
		if (n->type != CHAKRA_COMM_COLL_NODE) {
			w->err |= chakra_builder_attr_int(
				w->b, n->type == CHAKRA_COMM_SEND_NODE ? "comm_dst" : "comm_src",
				CHAKRA_ATTR_INT32, n->peer);
			w->err |= chakra_builder_attr_int(w->b, CHAKRA_ATTR_NAME_COMM_TAG, CHAKRA_ATTR_INT32, n->tag);
		}
	}
	if (n->type == CHAKRA_METADATA_NODE && n->meta != CV_NONE) {
		const cv_pg *p = &g->pgs[n->meta];
		A_STR(CHAKRA_ATTR_NAME_PG_NAME, cv_str(&g->strs, p->name), cv_strlen(&g->strs, p->name));
		if (p->desc)
			A_STR("pg_desc", cv_str(&g->strs, p->desc), cv_strlen(&g->strs, p->desc));
		if (p->backend)
			A_STR("backend", cv_str(&g->strs, p->backend), cv_strlen(&g->strs, p->backend));
		if (p->size >= 0)
			A_INT(CHAKRA_ATTR_NAME_PG_SIZE, p->size);
		if (p->n_ranks) {
			w->err |= chakra_builder_attr_list_uint(w->b, CHAKRA_ATTR_NAME_PG_RANKS, CHAKRA_ATTR_INT64_LIST,
			                                        (const uint64_t *)p->ranks, p->n_ranks);
		} else if (p->rank_stride > 0) {
			/* a range stays a range: pg_size members from pg_rank_start */
			A_INT(CHAKRA_ATTR_NAME_PG_RANK_START, p->rank_start);
			A_INT(CHAKRA_ATTR_NAME_PG_RANK_STRIDE, p->rank_stride);
		}
	}
}

static void write_io(wctx *w, const cv_node *n)
{
	const cv_graph *g = w->g;
	if (n->et == CV_NONE || !g->et)
		return;
	const cv_etnode *e = &g->et->nodes[n->et];
	if (!e->io)
		return;
	const char *p = e->io;
	for (int i = 0; i < 6; i++) {
		size_t l = strlen(p);
		w->err |= chakra_builder_set_io(w->b, i < 3 ? CHAKRA_IO_INPUTS : CHAKRA_IO_OUTPUTS,
		                                (chakra_io_field)(i % 3), p, l);
		p += l + 1;
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int write_meta(chakra_writer *wr, wctx *w, const cv_meta *m)
{
	chakra_builder_reset(w->b);
	A_STR("source", m->source, (size_t)-1);
	A_STR("converter", "libchakra convert " CHAKRA_CONVERT_FORMAT, (size_t)-1);
	if (m->et) {
		const cv_et *et = m->et;
		if (et->schema)
			A_STR("schema", cv_str(&et->strs, et->schema), cv_strlen(&et->strs, et->schema));
		A_INT("pid", et->pid);
		if (et->time)
			A_STR("time", cv_str(&et->strs, et->time), cv_strlen(&et->strs, et->time));
		A_INT("start_ts", et->start_ts);
		A_INT("finish_ts", et->finish_ts);
	}
	int64_t rank = m->kin ? m->kin->rank : m->rank, world = m->kin ? m->kin->world : m->world;
	if (rank >= 0)
		A_INT(CHAKRA_ATTR_NAME_RANK, rank);
	if (world >= 0)
		A_INT(CHAKRA_ATTR_NAME_WORLD_SIZE, world);
	if (m->window_start != CV_UNSET) {
		if (m->window_name)
			A_STR("window", cv_str(&w->g->strs, m->window_name),
			      cv_strlen(&w->g->strs, m->window_name));
		A_INT(CHAKRA_ATTR_NAME_WINDOW_START_NANOS, m->window_start);
		A_INT(CHAKRA_ATTR_NAME_WINDOW_END_NANOS, m->window_end);
		if (m->window_tid != CV_UNSET)
			A_INT("window_tid", m->window_tid);
	}
	if (m->n_annot) {
		const char **names = chakra_malloc(m->n_annot * sizeof *names);
		uint64_t *st = chakra_malloc(m->n_annot * sizeof *st);
		uint64_t *du = chakra_malloc(m->n_annot * sizeof *du);
		uint64_t *td = chakra_malloc(m->n_annot * sizeof *td);
		if (names && st && du && td) {
			for (size_t i = 0; i < m->n_annot; i++) {
				names[i] = cv_str(&w->g->strs, m->annot[i].name);
				st[i] = (uint64_t)m->annot[i].start;
				du[i] = (uint64_t)m->annot[i].dur;
				td[i] = (uint64_t)m->annot[i].tid;
			}
			w->err |= chakra_builder_attr_list_string(w->b, CHAKRA_ATTR_NAME_ANNOTATION_NAMES,
			                                          CHAKRA_ATTR_STRING_LIST, names, NULL,
			                                          m->n_annot);
			w->err |= chakra_builder_attr_list_uint(w->b, CHAKRA_ATTR_NAME_ANNOTATION_START_NANOS,
			                                        CHAKRA_ATTR_INT64_LIST, st, m->n_annot);
			w->err |= chakra_builder_attr_list_uint(w->b, CHAKRA_ATTR_NAME_ANNOTATION_DURATION_NANOS,
			                                        CHAKRA_ATTR_INT64_LIST, du, m->n_annot);
			w->err |= chakra_builder_attr_list_uint(w->b, CHAKRA_ATTR_NAME_ANNOTATION_TIDS,
			                                        CHAKRA_ATTR_INT64_LIST, td, m->n_annot);
		} else {
			w->err |= CHAKRA_ENOMEM;
		}
		chakra_free(names), chakra_free(st), chakra_free(du), chakra_free(td);
	}
	if (w->err)
		return CHAKRA_ENOMEM;
	return chakra_writer_write_metadata(wr, "0.0.4", w->b);
}

int chakra__cv_graph_write(cv_graph *g, const cv_meta *meta, const char *out_path,
                           const chakra_convert_options *o, chakra_convert_summary *s,
                           cv_err *err)
{
	/* process groups become METADATA nodes */
	for (size_t i = 0; i < g->npg; i++) {
		char nm[300];
		int m = snprintf(nm, sizeof nm, "process_group:%s", cv_str(&g->strs, g->pgs[i].name));
		uint32_t gi = chakra__cv_graph_add(g, nm, (size_t)(m < (int)sizeof nm ? m : (int)sizeof nm - 1),
		                                   CHAKRA_METADATA_NODE, CV_NK_META);
		if (gi == CV_NONE)
			return chakra__cv_fail(err, CHAKRA_ENOMEM, out_path, NULL, -1, -1, "out of memory");
		g->nodes[gi].meta = (uint32_t)i;
	}
	size_t n = g->n;
	int rc = 0;
	uint32_t *in_off = chakra_calloc(n + 2, sizeof *in_off);
	uint32_t *in_list = chakra_malloc((g->ne + 1) * sizeof *in_list);
	uint8_t *in_ctrl = chakra_malloc(g->ne + 1);
	uint32_t *order = chakra_malloc((n + 1) * sizeof *order);
	uint64_t *deps = chakra_malloc((g->ne + 1) * sizeof *deps);
	uint32_t *w_off = chakra_calloc(n + 2, sizeof *w_off);
	uint32_t *w_list = chakra_malloc((g->nw + 1) * sizeof *w_list);
	uint64_t *wids = chakra_malloc((g->nw + 1) * sizeof *wids);
	chakra_writer *wr = NULL;
	wctx w = { chakra_builder_new(), g, 0 };
	if (!in_off || !in_list || !in_ctrl || !order || !deps || !w_off || !w_list || !wids || !w.b) {
		rc = chakra__cv_fail(err, CHAKRA_ENOMEM, out_path, NULL, -1, -1, "out of memory");
		goto out;
	}
	for (size_t e = 0; e < g->ne; e++)
		in_off[g->edges[e].to + 1]++;
	for (size_t i = 0; i < n; i++)
		in_off[i + 1] += in_off[i];
	{
		uint32_t *fill = order; /* cursor, overwritten by number_nodes */
		memcpy(fill, in_off, n * sizeof *fill);
		for (size_t e = 0; e < g->ne; e++) {
			uint32_t k = fill[g->edges[e].to]++;
			in_list[k] = g->edges[e].from;
			in_ctrl[k] = g->edges[e].ctrl;
		}
	}
	/* waits by the waiting node */
	for (size_t i = 0; i < g->nw; i++)
		w_off[g->waits[i].call + 1]++;
	for (size_t i = 0; i < n; i++)
		w_off[i + 1] += w_off[i];
	{
		uint32_t *fill = order; /* cursor, overwritten by number_nodes */
		memcpy(fill, w_off, n * sizeof *fill);
		for (size_t i = 0; i < g->nw; i++)
			w_list[fill[g->waits[i].call]++] = g->waits[i].dev;
	}
	uint64_t dropped = 0;
	if (number_nodes(g, in_off, in_list, order, &dropped) < 0) {
		rc = chakra__cv_fail(err, CHAKRA_ENOMEM, out_path, NULL, -1, -1, "out of memory");
		goto out;
	}
	/* checked here too, for a message that names the tools' -f (the
	 * writer's own says "set overwrite") */
	{
		struct stat st;
		if (!o->out_cb && !o->overwrite && strcmp(out_path, "-") && stat(out_path, &st) == 0 &&
		    S_ISREG(st.st_mode)) {
			rc = chakra__cv_fail(err, CHAKRA_EIO, out_path, NULL, -1, -1,
			                     "exists; not overwriting it (use -f to replace it)");
			goto out;
		}
	}
	chakra_writer_options wo = CHAKRA_WRITER_OPTIONS_INIT;
	wo.gzip = o->gzip;
	wo.overwrite = o->overwrite;
	rc = o->out_cb ? chakra_writer_open_cb(&wr, o->out_cb, o->out_data, &wo)
	               : chakra_writer_open(&wr, out_path, &wo);
	if (rc < 0) {
		if (wr && *chakra_writer_errmsg(wr))
			chakra__cv_fail(err, rc, NULL, NULL, -1, -1, "%s", chakra_writer_errmsg(wr));
		else
			chakra__cv_fail(err, rc, out_path, NULL, -1, -1, "cannot open the output: %s",
			                chakra_strerror(rc));
		goto out;
	}
	rc = write_meta(wr, &w, meta);
	if (rc < 0)
		goto werr;
	memset(s->nodes_by_type, 0, sizeof s->nodes_by_type);
	s->data_edges = s->ctrl_edges = s->dropped_edges = 0;
	for (size_t k = 0; k < n; k++) {
		const cv_node *nd = &g->nodes[order[k]];
		chakra_builder_reset(w.b);
		chakra_builder_set_id(w.b, nd->id);
		w.err |= chakra_builder_set_name(w.b, cv_str(&g->strs, nd->name),
		                                 cv_strlen(&g->strs, nd->name));
		chakra_builder_set_type(w.b, nd->type);
		/* data deps, then ctrl deps not already data deps; sorted, unique */
		uint32_t a = in_off[order[k]], z = in_off[order[k] + 1];
		for (int pass = 0; pass < 2; pass++) {
			size_t m = 0;
			for (uint32_t e = a; e < z; e++)
				if (in_ctrl[e] == pass)
					deps[m++] = g->nodes[in_list[e]].id;
			qsort(deps, m, sizeof *deps, cmp_u64);
			for (size_t i = 0; i < m; i++) {
				if (i && deps[i] == deps[i - 1])
					continue;
				if (deps[i] >= nd->id) {
					/* an edge that closed a cycle (number_nodes released
					 * the node it waited for): not written, so the file
					 * stays acyclic and numbered dependencies first */
					s->dropped_edges++;
					continue;
				}
				if (pass == 1) {
					int dup = 0;
					for (uint32_t e = a; e < z && !dup; e++)
						dup = !in_ctrl[e] && g->nodes[in_list[e]].id == deps[i];
					if (dup)
						continue;
					w.err |= chakra_builder_add_ctrl_dep(w.b, deps[i]);
					s->ctrl_edges++;
				} else {
					w.err |= chakra_builder_add_data_dep(w.b, deps[i]);
					s->data_edges++;
				}
			}
		}
		if (nd->has_time) {
			int64_t abs = nd->start_ns + meta->base_ns;
			chakra_builder_set_start_time_micros(w.b, abs > 0 ? (uint64_t)(abs / 1000) : 0);
			chakra_builder_set_duration_micros(w.b, nd->dur_ns > 0
			                                            ? (uint64_t)((nd->dur_ns + 500) / 1000)
			                                            : 0);
		}
		write_io(&w, nd);
		write_attrs(&w, nd, meta->base_ns);
		{
			/* sync_deps: ids of the device ops its return waits for */
			size_t m = 0;
			for (uint32_t e = w_off[order[k]]; e < w_off[order[k] + 1]; e++)
				wids[m++] = g->nodes[w_list[e]].id;
			qsort(wids, m, sizeof *wids, cmp_u64);
			size_t u = 0;
			for (size_t i = 0; i < m; i++)
				if (!u || wids[i] != wids[u - 1])
					wids[u++] = wids[i];
			if (u)
				w.err |= chakra_builder_attr_list_uint(w.b, "sync_deps",
				                                       CHAKRA_ATTR_INT64_LIST, wids, u);
		}
		if (w.err) {
			rc = CHAKRA_ENOMEM;
			chakra__cv_fail(err, rc, out_path, "node", (int64_t)nd->id, -1,
			                "cannot build the node (out of memory)");
			goto out;
		}
		rc = chakra_writer_write_node(wr, w.b);
		if (rc < 0)
			goto werr;
		if (nd->type < 8)
			s->nodes_by_type[nd->type]++;
	}
	s->nodes = n;
	s->collectives = s->nodes_by_type[CHAKRA_COMM_COLL_NODE] +
	                 s->nodes_by_type[CHAKRA_COMM_SEND_NODE] +
	                 s->nodes_by_type[CHAKRA_COMM_RECV_NODE];
	rc = chakra_writer_finish(wr);
	if (rc < 0)
		goto werr;
	goto out;
werr:
	/* the writer's own message, or the builder's failure (out of memory) */
	if (*chakra_writer_errmsg(wr))
		chakra__cv_fail(err, rc, NULL, NULL, -1, -1, "%s", chakra_writer_errmsg(wr));
	else
		chakra__cv_fail(err, rc, out_path, NULL, -1, -1, "%s", chakra_strerror(rc));
out:
	if (wr)
		chakra_writer_close(wr);
	chakra_builder_free(w.b);
	chakra_free(in_off), chakra_free(in_list), chakra_free(in_ctrl), chakra_free(order);
	chakra_free(deps);
	chakra_free(w_off), chakra_free(w_list), chakra_free(wids);
	return rc < 0 ? rc : 0;
}
