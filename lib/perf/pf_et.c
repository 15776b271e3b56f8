/* SPDX-License-Identifier: Apache-2.0 */
/* Chakra ETs into a replay graph: one op per node, on the thread (tid) or
 * stream (device, stream) the node names, with its recorded start and
 * duration; data and control dependencies become edges (docs/replay.md,
 * "Input"). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "chakra/reader.h"
#include "pf_impl.h"

typedef struct pend {
	uint32_t op;
	uint8_t wait;            /* from sync_deps: the op's return waits for parent */
	uint64_t parent;
} pend;

/* The format of an ET written by libchakra's converter ("libchakra convert
 * N" in the metadata; docs/convert.md), 0 for anything else. From 2 on the
 * ET says which call each wait reaches (sync_deps) and holds its
 * cross-thread waits, so the engine need not infer them. */
static int converter_format(const chakra_metadata *m)
{
	static const char pre[] = "libchakra convert ";
	const chakra_attr *a = m ? chakra_metadata_attr_find(m, "converter") : NULL;
	const char *s;
	size_t n;
	if (!a || chakra_attr_string(a, &s, &n) || n <= sizeof pre - 1 ||
	    memcmp(s, pre, sizeof pre - 1))
		return 0;
	int v = 0;
	for (size_t i = sizeof pre - 1; i < n && v < 1000; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

static int str_eq(const char *s, size_t n, const char *lit)
{
	return n == strlen(lit) && !memcmp(s, lit, n);
}

static int get_i64(const chakra_node *n, const char *name, int64_t *out)
{
	int rc = chakra_node_get_int(n, name, out);
	if (rc == CHAKRA_ERANGE) {
		uint64_t u;
		rc = chakra_node_get_uint(n, name, &u);
		if (!rc)
			*out = u > INT64_MAX ? INT64_MAX : (int64_t)u;
	}
	return rc;
}

/* Microseconds to ns; beyond int64 stays beyond the range op_add accepts
 * (it then names the node). */
static int64_t us_to_ns(uint64_t us)
{
	return us > (uint64_t)INT64_MAX / 1000 ? INT64_MAX - 1 : (int64_t)us * 1000;
}

static int meta_i64(const chakra_metadata *m, const char *name, int64_t *out)
{
	const chakra_attr *a = m ? chakra_metadata_attr_find(m, name) : NULL;
	return a ? chakra_attr_int(a, out) : CHAKRA_ENOTFOUND;
}

/* A process group from a METADATA node (pg_name, pg_ranks). */
static int add_group(chakra_perf *r, const chakra_node *n)
{
	const char *name;
	size_t nl;
	const chakra_attr *a = chakra_node_attr_find(n, "pg_ranks");
	if (chakra_node_pg_name(n, &name, &nl) || !nl || !a || !chakra_attr_is_list(a))
		return 0;
	for (size_t i = 0; i < r->ngroups; i++)
		if (r->groups[i].name_len == nl && !memcmp(pf_str(r, r->groups[i].name_off), name, nl))
			return 0; /* every rank lists the same groups */
	size_t cnt = chakra_attr_list_len(a);
	uint32_t *ranks = malloc((cnt ? cnt : 1) * sizeof *ranks);
	uint32_t off = chakra__pf_pool_add(r, name, nl);
	pf_group *g = ranks && off != PF_NONE ? PF_PUSH(r->groups, r->ngroups, r->groups_cap) : NULL;
	if (!g) {
		free(ranks);
		return CHAKRA_ENOMEM;
	}
	for (size_t i = 0; i < cnt; i++) {
		int64_t v = 0;
		chakra_attr_list_int(a, i, &v);
		ranks[i] = v < 0 || v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
	}
	g->name_off = off;
	g->name_len = (uint32_t)nl;
	g->ranks = ranks;
	g->n = cnt;
	return 0;
}

/* The user annotations the converter keeps in the metadata (names,
 * starts, durations as parallel lists). */
static int read_annotations(chakra_perf *r, const chakra_metadata *m, uint32_t rank)
{
	const chakra_attr *an = m ? chakra_metadata_attr_find(m, "annotation_names") : NULL;
	const chakra_attr *as = m ? chakra_metadata_attr_find(m, "annotation_start_nanos") : NULL;
	const chakra_attr *ad = m ? chakra_metadata_attr_find(m, "annotation_duration_nanos") : NULL;
	const chakra_attr *at = m ? chakra_metadata_attr_find(m, "annotation_tids") : NULL;
	if (!an || !as || !chakra_attr_is_list(an) || !chakra_attr_is_list(as))
		return 0;
	size_t n = chakra_attr_list_len(an);
	if (chakra_attr_list_len(as) < n)
		n = chakra_attr_list_len(as);
	pf_rank *k = &r->ranks[rank];
	for (size_t i = 0; i < n; i++) {
		const char *s;
		size_t l;
		int64_t st = 0, du = 0, tid = PF_NO_TID;
		if (chakra_attr_list_string(an, i, &s, &l) || chakra_attr_list_int(as, i, &st))
			continue;
		if (ad && chakra_attr_list_int(ad, i, &du))
			du = 0;
		if (!at || !chakra_attr_is_list(at) || chakra_attr_list_int(at, i, &tid))
			tid = PF_NO_TID;
		uint32_t off = chakra__pf_pool_add(r, s, l);
		struct pf_annot *a = off != PF_NONE ? PF_PUSH(k->annot, k->nannot, k->annot_cap) : NULL;
		if (!a)
			return chakra__pf_fail(r, CHAKRA_ENOMEM, "out of memory");
		a->name_off = off;
		a->name_len = (uint32_t)l;
		a->start = st;
		a->dur = du;
		a->tid = tid;
	}
	return 0;
}

/* The resource of the thread an annotation was recorded on (the window's
 * thread), or -1 to let the engine choose. */
static int64_t window_thread(chakra_perf *r, uint32_t rank, int64_t tid)
{
	if (tid == PF_NO_TID)
		return -1;
	return chakra_perf_resource(r, rank, 0, 0, tid);
}

int chakra_perf_load_file(chakra_perf *r, const char *path, const void *buf, size_t len,
                            uint32_t rank)
{
	if (!r || (!path && !buf))
		return CHAKRA_EINVAL;
	chakra_reader *rd = NULL;
	chakra_reader_options ro = CHAKRA_READER_OPTIONS_INIT;
	ro.display_name = path;
	int rc = buf ? chakra_reader_open_buffer(&rd, buf, len, &ro)
	             : chakra_reader_open(&rd, path, &ro);
	const char *fname = path ? path : "<memory>";
	pf_map ids = { 0 }, waits = { 0 };
	pend *pd = NULL;
	size_t npd = 0, pdcap = 0;
	if (rc < 0) {
		rc = chakra__pf_fail(r, rc, "%s", rd ? chakra_reader_errmsg(rd) : chakra_strerror(rc));
		goto out;
	}
	if (!chakra__pf_rank(r, rank)) {
		rc = chakra__pf_fail(r, CHAKRA_ENOMEM, "out of memory");
		goto out;
	}
	const chakra_node *n;
	while ((rc = chakra_reader_next(rd, &n)) > 0) {
		uint64_t id = chakra_node_id(n);
		if (chakra__pf_map_get(&ids, id) != PF_NONE) {
			rc = chakra__pf_fail(r, CHAKRA_EDUP, "%s: node %llu (index %llu): duplicate id",
			                     fname, (unsigned long long)id,
			                     (unsigned long long)chakra_node_index(n));
			goto out;
		}
		int type = chakra_node_type_of(n);
		if (type == CHAKRA_METADATA_NODE) {
			if (add_group(r, n) || chakra__pf_map_put(&ids, id, PF_NONE - 1)) {
				rc = chakra__pf_fail(r, CHAKRA_ENOMEM, "out of memory");
				goto out;
			}
			continue;
		}
		int is_cpu = 0;
		chakra_node_is_cpu_op(n, &is_cpu);
		int is_comm = type == CHAKRA_COMM_COLL_NODE || type == CHAKRA_COMM_SEND_NODE ||
		              type == CHAKRA_COMM_RECV_NODE;
		const char *cat = NULL;
		size_t catn = 0;
		chakra_node_get_string(n, "kineto_cat", &cat, &catn);
		int64_t tid = 0, stream = 0, device = 0;
		int have_stream = get_i64(n, "stream", &stream) == 0;
		get_i64(n, "tid", &tid);
		get_i64(n, "device", &device);
		chakra_perf_op op;
		memset(&op, 0, sizeof op);
		int64_t res;
		if (is_cpu) {
			op.kind = cat && str_eq(cat, catn, "cuda_runtime") ? CHAKRA_PERF_CALL
			                                                   : CHAKRA_PERF_CPU;
			res = chakra_perf_resource(r, rank, 0, 0, tid);
		} else {
			op.kind = is_comm ? CHAKRA_PERF_COMM
			          : (cat && (str_eq(cat, catn, "gpu_memcpy") ||
			                     str_eq(cat, catn, "gpu_memset"))) ||
			                    type == CHAKRA_MEM_LOAD_NODE || type == CHAKRA_MEM_STORE_NODE
			          ? CHAKRA_PERF_MEMORY : CHAKRA_PERF_KERNEL;
			/* without a stream (generated workloads): one compute and one
			 * communication queue per rank, as the analytical simulator */
			res = have_stream ? chakra_perf_resource(r, rank, 1, device, stream)
			                  : chakra_perf_resource(r, rank, 1, -1, is_comm ? -2 : -1);
		}
		if (res < 0) {
			rc = (int)res;
			goto out;
		}
		op.resource = (uint32_t)res;
		int64_t v;
		if (!get_i64(n, "start_time_nanos", &v))
			op.start_ns = v;
		else if (chakra_node_start_time_micros(n))
			op.start_ns = us_to_ns(chakra_node_start_time_micros(n));
		else
			op.start_ns = CHAKRA_PERF_NO_TIME;
		if (!get_i64(n, "duration_nanos", &v))
			op.dur_ns = v < 0 ? 0 : v;
		else if (is_comm && !chakra_node_duration_micros(n))
			op.dur_ns = -1; /* the network model decides */
		else
			op.dur_ns = us_to_ns(chakra_node_duration_micros(n));
		op.name = chakra_node_name(n, &op.name_len);
		op.id = id;
		char pgbuf[256];
		if (is_comm) {
			int64_t ct = 0;
			uint64_t cs = 0;
			const char *pg;
			size_t pgl;
			chakra_node_comm_type(n, &ct);
			chakra_node_comm_size(n, &cs);
			op.comm_type = type == CHAKRA_COMM_COLL_NODE ? (int)ct : -1 - (type - CHAKRA_COMM_SEND_NODE);
			op.comm_size = cs;
			if (!chakra_node_pg_name(n, &pg, &pgl) && pgl && pgl < sizeof pgbuf) {
				memcpy(pgbuf, pg, pgl);
				pgbuf[pgl] = 0;
				op.pg_name = pgbuf;
			}
		}
		int64_t idx = chakra_perf_op_add(r, &op);
		if (idx < 0) {
			char m[sizeof r->err];
			snprintf(m, sizeof m, "%s", r->err);
			rc = chakra__pf_fail(r, (int)idx, "%s: node index %llu: %s", fname,
			                     (unsigned long long)chakra_node_index(n), m);
			goto out;
		}
		if (chakra__pf_map_put(&ids, id, (uint32_t)idx)) {
			rc = chakra__pf_fail(r, CHAKRA_ENOMEM, "out of memory");
			goto out;
		}
		/* held back by work from before the window (converter format 3) */
		if (!is_cpu && !get_i64(n, "backlog_until_nanos", &v) &&
		    (rc = chakra_perf_backlog(r, (uint64_t)idx, v)) < 0) {
			char m[sizeof r->err];
			snprintf(m, sizeof m, "%s", r->err);
			rc = chakra__pf_fail(r, rc, "%s: node %llu: backlog_until_nanos: %s", fname,
			                     (unsigned long long)id, m);
			goto out;
		}
		for (int w = 0; w < 2; w++) {
			size_t cnt = w ? chakra_node_ctrl_dep_count(n) : chakra_node_data_dep_count(n);
			const uint64_t *d = w ? chakra_node_ctrl_deps(n) : chakra_node_data_deps(n);
			for (size_t i = 0; i < cnt; i++) {
				pend *p = PF_PUSH(pd, npd, pdcap);
				if (!p) {
					rc = chakra__pf_fail(r, CHAKRA_ENOMEM, "out of memory");
					goto out;
				}
				p->op = (uint32_t)idx;
				p->wait = 0;
				p->parent = d[i];
			}
		}
		const chakra_attr *sd = chakra_node_attr_find(n, "sync_deps");
		if (sd && chakra_attr_is_list(sd)) {
			for (size_t i = 0; i < chakra_attr_list_len(sd); i++) {
				int64_t v = -1;
				pend *p = chakra_attr_list_int(sd, i, &v) || v < 0 ? NULL
				        : PF_PUSH(pd, npd, pdcap);
				if (!p && v >= 0) {
					rc = chakra__pf_fail(r, CHAKRA_ENOMEM, "out of memory");
					goto out;
				}
				if (!p)
					continue;
				p->op = (uint32_t)idx;
				p->wait = 1;
				p->parent = (uint64_t)v;
			}
		}
	}
	if (rc < 0) {
		rc = chakra__pf_fail(r, rc, "%s", chakra_reader_errmsg(rd));
		goto out;
	}
	const chakra_metadata *m = chakra_reader_metadata(rd);
	int fmt = converter_format(m);
	/* the waits first: a dependency that repeats one is not another edge */
	for (size_t i = 0; i < npd; i++) {
		if (!pd[i].wait)
			continue;
		uint32_t from = chakra__pf_map_get(&ids, pd[i].parent);
		if (from == PF_NONE || from == PF_NONE - 1) {
			r->unknown_deps++;
			continue;
		}
		if ((rc = chakra_perf_dep_add(r, from, pd[i].op, CHAKRA_PERF_DEP_WAIT)) < 0) {
			char msg[sizeof r->err];
			snprintf(msg, sizeof msg, "%s", r->err);
			rc = chakra__pf_fail(r, rc, "%s: sync_deps of node %llu: %s", fname,
			                     (unsigned long long)r->ops[pd[i].op].id, msg);
			goto out;
		}
		if (chakra__pf_map_put(&waits, ((uint64_t)from << 32) | pd[i].op, 1)) {
			rc = chakra__pf_fail(r, CHAKRA_ENOMEM, "out of memory");
			goto out;
		}
	}
	for (size_t i = 0; i < npd; i++) {
		if (pd[i].wait)
			continue;
		uint32_t from = chakra__pf_map_get(&ids, pd[i].parent);
		if (from == PF_NONE) {
			r->unknown_deps++;
			continue;
		}
		if (from == PF_NONE - 1)
			continue; /* a METADATA node: no time */
		/* Since format 2 a device op -> CPU op dependency is a plain one
		 * (the waits are in sync_deps): the CPU op starts after it. */
		chakra_perf_dep how = CHAKRA_PERF_DEP_INFER;
		if (fmt >= 2) {
			if (chakra__pf_map_get(&waits, ((uint64_t)from << 32) | pd[i].op) != PF_NONE)
				continue;
			how = CHAKRA_PERF_DEP_START;
		}
		if ((rc = chakra_perf_dep_add(r, from, pd[i].op, how)) < 0)
			goto out;
	}
	if (fmt >= 2 && (rc = chakra_perf_rank_given(r, rank, CHAKRA_PERF_GIVEN_THREAD_WAITS)) < 0)
		goto out;
	int64_t w0, w1;
	if ((rc = read_annotations(r, m, rank)) < 0)
		goto out;
	if (!meta_i64(m, "window_start_nanos", &w0) && !meta_i64(m, "window_end_nanos", &w1) &&
	    w1 >= w0) {
		/* the thread of the annotation that defines the window
		 * (converters since format 2), else the engine's choice */
		int64_t tid, th = meta_i64(m, "window_tid", &tid) ? -1 : window_thread(r, rank, tid);
		if (th < -1) {
			rc = (int)th;
			goto out;
		}
		if ((rc = chakra_perf_window(r, rank, w0, w1, th)) < 0)
			goto out;
	}
	rc = 0;
out:
	chakra_reader_close(rd);
	chakra__pf_map_free(&ids);
	chakra__pf_map_free(&waits);
	free(pd);
	return rc;
}

static int exists(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

int chakra_perf_load(chakra_perf *r, const char *prefix)
{
	if (!r || !prefix)
		return CHAKRA_EINVAL;
	size_t len = strlen(prefix) + 32;
	char *p = malloc(len);
	if (!p)
		return chakra__pf_fail(r, CHAKRA_ENOMEM, "out of memory");
	int rc = 0;
	uint32_t k = 0;
	for (;; k++) {
		snprintf(p, len, "%s.%u.et", prefix, k);
		if (!exists(p)) {
			snprintf(p, len, "%s.%u.et.gz", prefix, k);
			if (!exists(p))
				break;
		}
		if ((rc = chakra_perf_load_file(r, p, NULL, 0, k)) < 0)
			break;
	}
	if (!rc && k == 0) {
		if (exists(prefix)) {
			/* one file: the rank it says it is (for its groups), else 0 */
			chakra_reader *rd = NULL;
			int64_t rank = 0;
			if (chakra_reader_open(&rd, prefix, NULL) == 0 &&
			    (meta_i64(chakra_reader_metadata(rd), "rank", &rank) || rank < 0 ||
			     rank > (1 << 20)))
				rank = 0;
			chakra_reader_close(rd);
			rc = chakra_perf_load_file(r, prefix, NULL, 0, (uint32_t)rank);
		} else {
			struct stat st;
			rc = stat(prefix, &st) == 0 && S_ISDIR(st.st_mode)
			         ? chakra__pf_fail(r, CHAKRA_EIO, "%s: is a directory", prefix)
			         : chakra__pf_fail(r, CHAKRA_EIO, "%s: no such file or directory, and no "
			                           "workload %s.0.et or %s.0.et.gz", prefix, prefix, prefix);
		}
	}
	free(p);
	return rc;
}

/* ---- windows between annotations ---- */

typedef struct occ {
	int64_t start, tid;
} occ;

static int annot_starts(const chakra_perf *r, uint32_t rank, const char *name, occ *out,
                        size_t cap)
{
	const pf_rank *k = &r->ranks[rank];
	size_t n = 0, nl = strlen(name);
	for (size_t i = 0; i < k->nannot; i++) {
		const struct pf_annot *a = &k->annot[i];
		if (a->name_len == nl && !memcmp(pf_str(r, a->name_off), name, nl)) {
			if (out && n < cap) {
				out[n].start = a->start;
				out[n].tid = a->tid;
			}
			n++;
		}
	}
	return (int)(n > INT32_MAX ? INT32_MAX : n);
}

int64_t chakra_perf_between_count(const chakra_perf *r, const char *annotation)
{
	if (!r || !annotation)
		return CHAKRA_EINVAL;
	int64_t best = -1;
	for (uint32_t k = 0; k < r->nranks; k++) {
		if (!r->ranks[k].present)
			continue;
		int n = annot_starts(r, k, annotation, NULL, 0);
		int64_t w = n > 0 ? n - 1 : 0;
		if (best < 0 || w < best)
			best = w;
	}
	return best < 0 ? 0 : best;
}

static int cmp_occ(const void *a, const void *b)
{
	const occ *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static const chakra_perf *bl_ctx;
static int cmp_res_start(const void *x, const void *y)
{
	const pf_op *a = &bl_ctx->ops[*(const uint32_t *)x], *b = &bl_ctx->ops[*(const uint32_t *)y];
	if (a->res != b->res)
		return a->res < b->res ? -1 : 1;
	if (a->rs0 != b->rs0)
		return a->rs0 < b->rs0 ? -1 : 1;
	return *(const uint32_t *)x < *(const uint32_t *)y ? -1 : 1;
}

/* The state a window cut from a longer replay starts in: a device op
 * held back by work outside the window (its stream's earlier work, or an
 * event it waited for) that ended after the window began. */
static int between_backlog(const chakra_perf *r, chakra_perf *d, const uint8_t *sel,
                           const uint32_t *map, const int64_t *win)
{
	size_t n = r->nops_user, m = 0;
	uint32_t *ix = malloc((n ? n : 1) * sizeof *ix);
	if (!ix)
		return chakra__pf_fail(d, CHAKRA_ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++)
		if (r->res[r->ops[i].res].gpu && r->ops[i].timed)
			ix[m++] = (uint32_t)i;
	bl_ctx = r;
	qsort(ix, m, sizeof *ix, cmp_res_start);
	int rc = 0;
	int64_t busy = INT64_MIN;
	for (size_t j = 0; j < m && !rc; j++) {
		const pf_op *o = &r->ops[ix[j]];
		if (j && o->res != r->ops[ix[j - 1]].res)
			busy = INT64_MIN;
		int64_t t = o->backlog;
		if (sel[ix[j]]) {
			if (busy > win[2 * o->rank] && (t == PF_NO_BACKLOG || busy > t))
				t = busy;
			if (t != PF_NO_BACKLOG)
				rc = chakra_perf_backlog(d, map[ix[j]], t);
		} else if (o->rd > 0 && o->rs0 + o->rd > busy)
			busy = o->rs0 + o->rd;
	}
	for (size_t i = 0; i < r->nxe && !rc; i++) {
		uint32_t u = r->xe[i].from, v = r->xe[i].to;
		const pf_op *a = &r->ops[u];
		if (sel[u] || !sel[v] || !r->res[a->res].gpu || !r->res[r->ops[v].res].gpu ||
		    !a->timed || a->rd < 0 || a->rs0 + a->rd <= win[2 * a->rank])
			continue;
		rc = chakra_perf_backlog(d, map[v], a->rs0 + a->rd);
	}
	free(ix);
	return rc;
}

int chakra_perf_between(const chakra_perf *r, const char *annotation, uint64_t k,
                          chakra_perf **out)
{
	if (!r || !annotation || !out)
		return CHAKRA_EINVAL;
	*out = NULL;
	int64_t cnt = chakra_perf_between_count(r, annotation);
	chakra_perf *d = NULL;
	int rc = chakra_perf_new(&d);
	*out = d;
	if (rc < 0)
		return rc;
	if ((uint64_t)cnt <= k)
		return chakra__pf_fail(d, CHAKRA_EINVAL, "no window %llu between annotations '%s' "
		                       "(there are %lld)", (unsigned long long)k, annotation,
		                       (long long)cnt);
	size_t n = r->nops_user;
	int64_t *a = malloc(3 * (r->nranks ? r->nranks : 1) * sizeof *a);
	uint32_t *map = malloc((n ? n : 1) * sizeof *map);
	uint8_t *sel = calloc(n ? n : 1, 1);
	occ *starts = NULL;
	if (!a || !map || !sel) {
		rc = chakra__pf_fail(d, CHAKRA_ENOMEM, "out of memory");
		goto done;
	}
	for (uint32_t q = 0; q < r->nranks; q++) {
		a[2 * q] = a[2 * q + 1] = 0;
		a[2 * r->nranks + q] = PF_NO_TID;
		if (!r->ranks[q].present)
			continue;
		int m = annot_starts(r, q, annotation, NULL, 0);
		free(starts);
		starts = malloc((size_t)(m ? m : 1) * sizeof *starts);
		if (!starts) {
			rc = chakra__pf_fail(d, CHAKRA_ENOMEM, "out of memory");
			goto done;
		}
		annot_starts(r, q, annotation, starts, (size_t)m);
		qsort(starts, (size_t)m, sizeof *starts, cmp_occ);
		a[2 * q] = starts[k].start;
		a[2 * q + 1] = starts[k + 1].start;
		a[2 * r->nranks + q] = starts[k].tid; /* the window's thread */
	}
	/* host ops that start in the window, then what they launch */
	for (size_t i = 0; i < n; i++) {
		const pf_op *o = &r->ops[i];
		int64_t lo = a[2 * o->rank], hi = a[2 * o->rank + 1];
		if (!r->res[o->res].gpu)
			sel[i] = o->timed && o->rs0 >= lo && o->rs0 < hi;
	}
	uint8_t *launched = calloc(n ? n : 1, 1);
	if (!launched) {
		rc = chakra__pf_fail(d, CHAKRA_ENOMEM, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < r->nxe; i++) {
		uint32_t u = r->xe[i].from, v = r->xe[i].to;
		if (!r->res[r->ops[u].res].gpu && r->res[r->ops[v].res].gpu) {
			launched[v] = 1;
			if (sel[u])
				sel[v] = 1;
		}
	}
	for (size_t i = 0; i < n; i++) {
		const pf_op *o = &r->ops[i];
		if (r->res[o->res].gpu && !launched[i])
			sel[i] = o->timed && o->rs0 >= a[2 * o->rank] && o->rs0 < a[2 * o->rank + 1];
	}
	free(launched);
	for (size_t i = 0; i < r->ngroups && !rc; i++) {
		const pf_group *g = &r->groups[i];
		uint32_t off = chakra__pf_pool_add(d, pf_str(r, g->name_off), g->name_len);
		pf_group *x = off != PF_NONE ? PF_PUSH(d->groups, d->ngroups, d->groups_cap) : NULL;
		uint32_t *rk = malloc((g->n ? g->n : 1) * sizeof *rk);
		if (!x || !rk) {
			free(rk);
			rc = chakra__pf_fail(d, CHAKRA_ENOMEM, "out of memory");
			break;
		}
		memcpy(rk, g->ranks, g->n * sizeof *rk);
		x->name_off = off;
		x->name_len = g->name_len;
		x->ranks = rk;
		x->n = g->n;
	}
	for (size_t i = 0; i < n && !rc; i++) {
		map[i] = PF_NONE;
		if (!sel[i])
			continue;
		const pf_op *o = &r->ops[i];
		const pf_res *x = &r->res[o->res];
		int64_t res = chakra_perf_resource(d, o->rank, x->gpu, x->device, x->id);
		if (res < 0) {
			rc = (int)res;
			break;
		}
		chakra_perf_op op;
		memset(&op, 0, sizeof op);
		op.resource = (uint32_t)res;
		op.kind = (chakra_perf_kind)o->kind0;
		op.start_ns = o->timed ? o->rs0 : CHAKRA_PERF_NO_TIME;
		op.dur_ns = o->rd;
		op.name = pf_str(r, o->name_off);
		op.name_len = o->name_len;
		op.id = o->id;
		op.comm_type = o->comm_type;
		op.comm_size = o->comm_size;
		op.pg_name = o->pg_len ? pf_str(r, o->pg_off) : NULL;
		int64_t idx = chakra_perf_op_add(d, &op);
		if (idx < 0) {
			rc = (int)idx;
			break;
		}
		map[i] = (uint32_t)idx;
	}
	for (size_t i = 0; i < r->nxe && !rc; i++) {
		uint32_t u = r->xe[i].from, v = r->xe[i].to;
		if (sel[u] && sel[v])
			rc = chakra_perf_dep_add(d, map[u], map[v], (chakra_perf_dep)r->xe[i].how);
	}
	if (!rc)
		rc = between_backlog(r, d, sel, map, a);
	for (uint32_t q = 0; q < r->nranks && !rc; q++)
		if (r->ranks[q].present && q < d->nranks && d->ranks[q].present && r->ranks[q].given)
			rc = chakra_perf_rank_given(d, q, r->ranks[q].given);
	for (uint32_t q = 0; q < r->nranks && !rc; q++)
		if (r->ranks[q].present && q < d->nranks && d->ranks[q].present) {
			int64_t th = window_thread(d, q, a[2 * r->nranks + q]);
			rc = th < -1 ? (int)th : chakra_perf_window(d, q, a[2 * q], a[2 * q + 1], th);
		}
done:
	free(a);
	free(map);
	free(sel);
	free(starts);
	return rc < 0 ? rc : 0;
}
