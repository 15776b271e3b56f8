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

#include "chakra/attrs.h"
#include "chakra/reader.h"
#include "../rankpath.h"
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

/* A process group from a METADATA node: pg_name with pg_ranks, or with
 * pg_rank_start / pg_rank_stride / pg_size (a range, kept as one). Where
 * groups enter the replay from a trace, so they are checked here. */
static int add_group(chakra_perf *r, const chakra_node *n, const char *fname)
{
	const char *name;
	size_t nl;
	const chakra_attr *a = chakra_node_attr_find(n, CHAKRA_ATTR_NAME_PG_RANKS);
	const chakra_attr *r0 = chakra_node_attr_find(n, CHAKRA_ATTR_NAME_PG_RANK_START);
	const chakra_attr *rs = chakra_node_attr_find(n, CHAKRA_ATTR_NAME_PG_RANK_STRIDE);
	const chakra_attr *sz = chakra_node_attr_find(n, CHAKRA_ATTR_NAME_PG_SIZE);
	int64_t start = 0, stride = 0, size = 0;
	int list = a && chakra_attr_is_list(a);
	int range = !list && r0 && rs && sz && !chakra_attr_int(r0, &start) &&
	            !chakra_attr_int(rs, &stride) && !chakra_attr_int(sz, &size);
	if (chakra_node_pg_name(n, &name, &nl) || !nl || (!list && !range))
		return 0;
	if (memchr(name, 0, nl))
		return chakra__pf_fail(r, CHAKRA_EINVAL, "%s: node %llu (index %llu): pg_name holds a "
		                       "NUL byte", fname, (unsigned long long)chakra_node_id(n),
		                       (unsigned long long)chakra_node_index(n));
	if (chakra__pf_group_find(r, name, nl))
		return 0; /* every rank lists the same groups */
	size_t cnt = list ? chakra_attr_list_len(a) : 0;
	int64_t *ranks = list ? chakra_malloc((cnt ? cnt : 1) * sizeof *ranks) : NULL;
	if (list && !ranks)
		return chakra__pf_fail(r, CHAKRA_ENOMEM, "out of memory");
	for (size_t i = 0; i < cnt; i++)
		if (chakra_attr_list_int(a, i, &ranks[i]) < 0)
			ranks[i] = -1; /* not an integer: refused below */
	char why[160];
	int rc = chakra__pf_group_add(r, name, nl, ranks, list ? cnt : (size > 0 ? (size_t)size : 0),
	                              start, stride, why, sizeof why);
	chakra_free(ranks);
	if (rc == CHAKRA_ENOMEM)
		return chakra__pf_fail(r, rc, "out of memory");
	if (rc < 0)
		return chakra__pf_fail(r, rc, "%s: node %llu (index %llu): process group '%.*s': %s",
		                       fname, (unsigned long long)chakra_node_id(n),
		                       (unsigned long long)chakra_node_index(n),
		                       (int)(nl > 200 ? 200 : nl), name, why);
	return 0;
}

/* The user annotations the converter keeps in the metadata (names,
 * starts, durations as parallel lists). */
static int read_annotations(chakra_perf *r, const chakra_metadata *m, uint32_t rank)
{
	const chakra_attr *an = m ? chakra_metadata_attr_find(m, CHAKRA_ATTR_NAME_ANNOTATION_NAMES) : NULL;
	const chakra_attr *as =
		m ? chakra_metadata_attr_find(m, CHAKRA_ATTR_NAME_ANNOTATION_START_NANOS) : NULL;
	const chakra_attr *ad =
		m ? chakra_metadata_attr_find(m, CHAKRA_ATTR_NAME_ANNOTATION_DURATION_NANOS) : NULL;
	const chakra_attr *at = m ? chakra_metadata_attr_find(m, CHAKRA_ATTR_NAME_ANNOTATION_TIDS) : NULL;
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
			if ((rc = add_group(r, n, fname)) < 0)
				goto out;
			if (chakra__pf_map_put(&ids, id, PF_NONE - 1)) {
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
		int have_stream = get_i64(n, CHAKRA_ATTR_NAME_STREAM, &stream) == 0;
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
		if (!get_i64(n, CHAKRA_ATTR_NAME_START_TIME_NANOS, &v))
			op.start_ns = v;
		else if (chakra_node_start_time_micros(n))
			op.start_ns = us_to_ns(chakra_node_start_time_micros(n));
		else
			op.start_ns = CHAKRA_PERF_NO_TIME;
		if (!get_i64(n, CHAKRA_ATTR_NAME_DURATION_NANOS, &v))
			op.dur_ns = v < 0 ? 0 : v;
		else if (is_comm && !chakra_node_duration_micros(n))
			op.dur_ns = -1; /* the network model decides */
		else { /* no integer duration_nanos: duration_micros, into int64 */
			uint64_t ns = chakra_node_duration_ns(n);
			op.dur_ns = ns > (uint64_t)INT64_MAX - 1 ? INT64_MAX - 1 : (int64_t)ns;
		}
		op.name = chakra_node_name(n, &op.name_len);
		op.id = id;
		if (is_comm) {
			int64_t ct = 0;
			uint64_t cs = 0;
			const char *pg;
			size_t pgl;
			chakra_node_comm_type(n, &ct);
			chakra_node_comm_size(n, &cs);
			op.comm_type = type == CHAKRA_COMM_COLL_NODE ? (int)ct : -1 - (type - CHAKRA_COMM_SEND_NODE);
			op.comm_size = cs;
			/* the reader's strings end in a NUL at their length: any
			 * length is passed whole (a name of 256 bytes or more used to
			 * be dropped, so the collective spanned every rank) */
			if (!chakra_node_pg_name(n, &pg, &pgl) && pgl) {
				if (memchr(pg, 0, pgl)) {
					rc = chakra__pf_fail(r, CHAKRA_EINVAL, "%s: node %llu (index %llu): "
					                     "pg_name holds a NUL byte", fname,
					                     (unsigned long long)id,
					                     (unsigned long long)chakra_node_index(n));
					goto out;
				}
				op.pg_name = pg;
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
		if (!is_cpu && !get_i64(n, CHAKRA_ATTR_NAME_BACKLOG_UNTIL_NANOS, &v) &&
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
	if (!meta_i64(m, CHAKRA_ATTR_NAME_WINDOW_START_NANOS, &w0) &&
	    !meta_i64(m, CHAKRA_ATTR_NAME_WINDOW_END_NANOS, &w1) &&
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
	chakra_free(pd);
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
	char *p = chakra_malloc(len);
	if (!p)
		return chakra__pf_fail(r, CHAKRA_ENOMEM, "out of memory");
	int rc = 0;
	uint32_t k = 0;
	for (;; k++) {
		if (!chakra__rank_path(p, len, prefix, k))
			break;
		if ((rc = chakra_perf_load_file(r, p, NULL, 0, k)) < 0)
			break;
	}
	if (!rc && k == 0) {
		if (exists(prefix)) {
			/* one file: the rank it says it is (for its groups), else 0 */
			chakra_reader *rd = NULL;
			int64_t rank = 0;
			if (chakra_reader_open(&rd, prefix, NULL) == 0 &&
			    (meta_i64(chakra_reader_metadata(rd), CHAKRA_ATTR_NAME_RANK, &rank) || rank < 0 ||
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
	chakra_free(p);
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

/* Where op i's window starts: the last occurrence at or before t (its
 * index w, window [s[w], s[w+1])), or -1 when t is before the first or at
 * or after the last. */
static int64_t window_of(const occ *s, size_t m, int64_t t)
{
	size_t lo = 0, hi = m;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s[mid].start <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo == 0 || lo >= m ? -1 : (int64_t)lo - 1;
}

typedef struct between_ctx {
	const chakra_perf *r;
	size_t n;
	occ **starts;            /* per rank, sorted (NULL: not present) */
	size_t *nstarts;
	int64_t *win;            /* per op: window of a CPU op or an unlaunched device op, -1 */
	uint8_t *launched;       /* device op with a CPU launcher */
	uint32_t *out_first, *out_edge; /* CSR: edges (indices into xe) by source, xe order */
	uint32_t *stamp;         /* per op: tag of the window that holds it */
	uint32_t *map;           /* per op: index in the window's replay */
	uint32_t *list, *elist;  /* the window's ops, its edges */
	/* the state a window starts in (window_backlog) */
	uint32_t *gsort;         /* timed device ops by stream, then start */
	uint32_t *gpos;          /* per op: its place in gsort (UINT32_MAX: none) */
	int64_t *gbusy;          /* per place: latest end of the stream's ops before it */
	size_t ng;
	uint32_t *in_first, *in_edge; /* CSR: edges (indices into xe) by target */
	uint32_t *plist;         /* scratch: places of the window's device ops */
} between_ctx;

static int cmp_u32v(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static const chakra_perf *gs_ctx;
static int cmp_res_start(const void *x, const void *y)
{
	const pf_op *a = &gs_ctx->ops[*(const uint32_t *)x], *b = &gs_ctx->ops[*(const uint32_t *)y];
	if (a->res != b->res)
		return a->res < b->res ? -1 : 1;
	if (a->rs0 != b->rs0)
		return a->rs0 < b->rs0 ? -1 : 1;
	return *(const uint32_t *)x < *(const uint32_t *)y ? -1 : 1;
}

/* Where rank q's window w starts (INT64_MAX when it has none). */
static int64_t win_start(const between_ctx *bc, uint32_t q, uint64_t w)
{
	return bc->starts[q] && w + 1 < bc->nstarts[q] ? bc->starts[q][w].start : INT64_MAX;
}

/* The state a window cut from a longer replay starts in: a device op held
 * back by work outside the window (its stream's earlier work, or an event
 * it waited for) that ended after the window began. Each stream is walked
 * from the window's first op on it to its last, so the windows together
 * cost about one pass over the ops when they do not overlap. */
static int window_backlog(between_ctx *bc, uint64_t w, uint32_t tag, size_t nl, chakra_perf *d)
{
	const chakra_perf *r = bc->r;
	size_t np = 0;
	int rc = 0;
	for (size_t q = 0; q < nl; q++)
		if (bc->gpos[bc->list[q]] != UINT32_MAX)
			bc->plist[np++] = bc->gpos[bc->list[q]];
	qsort(bc->plist, np, sizeof *bc->plist, cmp_u32v);
	for (size_t q = 0; q < np && !rc;) {
		uint32_t res = r->ops[bc->gsort[bc->plist[q]]].res;
		size_t e = q;
		while (e + 1 < np && r->ops[bc->gsort[bc->plist[e + 1]]].res == res)
			e++;
		int64_t busy = bc->gbusy[bc->plist[q]];
		for (uint32_t pos = bc->plist[q]; pos <= bc->plist[e] && !rc; pos++) {
			uint32_t i = bc->gsort[pos];
			const pf_op *o = &r->ops[i];
			if (bc->stamp[i] == tag) {
				int64_t t = o->backlog;
				if (busy > win_start(bc, o->rank, w) && (t == PF_NO_BACKLOG || busy > t))
					t = busy;
				if (t != PF_NO_BACKLOG)
					rc = chakra_perf_backlog(d, bc->map[i], t);
			} else if (o->rd > 0 && o->rs0 + o->rd > busy) {
				busy = o->rs0 + o->rd;
			}
		}
		q = e + 1;
	}
	for (size_t q = 0; q < nl && !rc; q++) {
		uint32_t v = bc->list[q];
		if (!r->res[r->ops[v].res].gpu)
			continue;
		for (uint32_t k = bc->in_first[v]; k < bc->in_first[v + 1] && !rc; k++) {
			uint32_t u = r->xe[bc->in_edge[k]].from;
			const pf_op *a = &r->ops[u];
			if (bc->stamp[u] == tag || !r->res[a->res].gpu || !a->timed || a->rd < 0 ||
			    a->rs0 + a->rd <= win_start(bc, a->rank, w))
				continue;
			rc = chakra_perf_backlog(d, bc->map[v], a->rs0 + a->rd);
		}
	}
	return rc;
}

/* The replay of window w (ops listed in bc->list[0..nl), tagged). */
static int between_one(between_ctx *bc, uint64_t w, uint32_t tag, size_t nl, chakra_perf *d)
{
	const chakra_perf *r = bc->r;
	int rc = 0;
	/* the ops in the order they were added, and the edges among them in
	 * the order they were given: the replay the whole graph would make */
	qsort(bc->list, nl, sizeof *bc->list, cmp_u32v);
	size_t ne = 0;
	for (size_t q = 0; q < nl; q++) {
		uint32_t u = bc->list[q];
		for (uint32_t e = bc->out_first[u]; e < bc->out_first[u + 1]; e++)
			if (bc->stamp[r->xe[bc->out_edge[e]].to] == tag)
				bc->elist[ne++] = bc->out_edge[e];
	}
	qsort(bc->elist, ne, sizeof *bc->elist, cmp_u32v);
	for (size_t q = 0; q < nl && !rc; q++) {
		uint32_t i = bc->list[q];
		const pf_op *o = &r->ops[i];
		const pf_res *x = &r->res[o->res];
		/* the op's group, when the window has none of that name yet */
		if (o->pg_len && !chakra__pf_group_find(d, pf_str(r, o->pg_off), o->pg_len)) {
			const pf_group *g = chakra__pf_group_find(r, pf_str(r, o->pg_off), o->pg_len);
			int64_t *rk = g && g->ranks ? chakra_malloc((g->n ? g->n : 1) * sizeof *rk) : NULL;
			if (g && g->ranks && !rk) {
				rc = chakra__pf_fail(d, CHAKRA_ENOMEM, "out of memory");
				break;
			}
			for (size_t k = 0; rk && k < g->n; k++)
				rk[k] = g->ranks[k];
			char why[160];
			if (g && (rc = chakra__pf_group_add(d, pf_str(r, g->name_off), g->name_len, rk,
			                                    g->n, g->start, g->stride, why,
			                                    sizeof why)) < 0)
				rc = chakra__pf_fail(d, rc, "out of memory"); /* checked when it entered */
			chakra_free(rk);
			if (rc < 0)
				break;
		}
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
		bc->map[i] = (uint32_t)idx;
	}
	for (size_t q = 0; q < ne && !rc; q++) {
		const pf_xedge *e = &r->xe[bc->elist[q]];
		rc = chakra_perf_dep_add(d, bc->map[e->from], bc->map[e->to], (chakra_perf_dep)e->how);
	}
	if (!rc)
		rc = window_backlog(bc, w, tag, nl, d);
	for (uint32_t q = 0; q < r->nranks && !rc; q++)
		if (r->ranks[q].present && q < d->nranks && d->ranks[q].present && r->ranks[q].given)
			rc = chakra_perf_rank_given(d, q, r->ranks[q].given);
	for (uint32_t q = 0; q < r->nranks && !rc; q++)
		if (r->ranks[q].present && q < d->nranks && d->ranks[q].present) {
			const occ *st = bc->starts[q];
			int64_t th = window_thread(d, q, st[w].tid); /* the window's thread */
			rc = th < -1 ? (int)th : chakra_perf_window(d, q, st[w].start, st[w + 1].start, th);
		}
	return rc;
}

int chakra_perf_between_range(const chakra_perf *r, const char *annotation, uint64_t first,
                              size_t count, chakra_perf **outs)
{
	if (!r || !annotation || !outs || !count)
		return CHAKRA_EINVAL;
	for (size_t w = 0; w < count; w++)
		outs[w] = NULL;
	int64_t cnt = chakra_perf_between_count(r, annotation);
	chakra_perf *d = NULL;
	int rc = chakra_perf_new(&d);
	outs[0] = d;
	if (rc < 0)
		return rc;
	if (cnt < 0 || first >= (uint64_t)cnt || count > (uint64_t)cnt - first)
		return chakra__pf_fail(d, CHAKRA_EINVAL, "no window %llu between annotations '%s' "
		                       "(there are %lld)",
		                       (unsigned long long)(first >= (uint64_t)(cnt < 0 ? 0 : cnt)
		                                                ? first : first + count - 1),
		                       annotation, (long long)cnt);
	/* Every op is placed in its window once, and each window's replay is
	 * built from its own ops and their edges: O(ops + edges) for all the
	 * windows together (20,000 windows used to scan the whole graph each:
	 * 12 s for what takes 0.02 s). */
	between_ctx bc;
	memset(&bc, 0, sizeof bc);
	bc.r = r;
	size_t n = bc.n = r->nops_user, nr = r->nranks;
	bc.starts = chakra_calloc(nr ? nr : 1, sizeof *bc.starts);
	bc.nstarts = chakra_calloc(nr ? nr : 1, sizeof *bc.nstarts);
	bc.win = chakra_malloc((n ? n : 1) * sizeof *bc.win);
	bc.launched = chakra_calloc(n ? n : 1, 1);
	bc.out_first = chakra_calloc(n + 2, sizeof *bc.out_first);
	bc.out_edge = chakra_malloc((r->nxe ? r->nxe : 1) * sizeof *bc.out_edge);
	bc.stamp = chakra_calloc(n ? n : 1, sizeof *bc.stamp);
	bc.map = chakra_malloc((n ? n : 1) * sizeof *bc.map);
	bc.list = chakra_malloc((n ? n : 1) * sizeof *bc.list);
	bc.elist = chakra_malloc((r->nxe ? r->nxe : 1) * sizeof *bc.elist);
	bc.gsort = chakra_malloc((n ? n : 1) * sizeof *bc.gsort);
	bc.gpos = chakra_malloc((n ? n : 1) * sizeof *bc.gpos);
	bc.gbusy = chakra_malloc((n ? n : 1) * sizeof *bc.gbusy);
	bc.plist = chakra_malloc((n ? n : 1) * sizeof *bc.plist);
	bc.in_first = chakra_calloc(n + 2, sizeof *bc.in_first);
	bc.in_edge = chakra_malloc((r->nxe ? r->nxe : 1) * sizeof *bc.in_edge);
	uint32_t *first_of = chakra_calloc(count + 1, sizeof *first_of), *base = NULL;
	if (!bc.starts || !bc.nstarts || !bc.win || !bc.launched || !bc.out_first || !bc.out_edge ||
	    !bc.stamp || !bc.map || !bc.list || !bc.elist || !first_of || !bc.gsort || !bc.gpos ||
	    !bc.gbusy || !bc.plist || !bc.in_first || !bc.in_edge) {
		rc = chakra__pf_fail(d, CHAKRA_ENOMEM, "out of memory");
		goto done;
	}
	for (uint32_t q = 0; q < nr; q++) {
		if (!r->ranks[q].present)
			continue;
		int m = annot_starts(r, q, annotation, NULL, 0);
		bc.starts[q] = chakra_malloc((size_t)(m ? m : 1) * sizeof **bc.starts);
		if (!bc.starts[q]) {
			rc = chakra__pf_fail(d, CHAKRA_ENOMEM, "out of memory");
			goto done;
		}
		annot_starts(r, q, annotation, bc.starts[q], (size_t)m);
		qsort(bc.starts[q], (size_t)m, sizeof **bc.starts, cmp_occ);
		bc.nstarts[q] = (size_t)m;
	}
	/* edges by source (CSR, in xe order); device ops with a CPU launcher */
	for (size_t e = 0; e < r->nxe; e++) {
		uint32_t u = r->xe[e].from, v = r->xe[e].to;
		bc.out_first[u + 1]++;
		if (!r->res[r->ops[u].res].gpu && r->res[r->ops[v].res].gpu)
			bc.launched[v] = 1;
	}
	for (size_t i = 0; i < n; i++)
		bc.out_first[i + 1] += bc.out_first[i];
	/* edges by target, and the device ops by stream and start, with the
	 * latest end before each on its stream */
	for (size_t e = 0; e < r->nxe; e++)
		bc.in_first[r->xe[e].to + 1]++;
	for (size_t i = 0; i < n; i++)
		bc.in_first[i + 1] += bc.in_first[i];
	{
		uint32_t *fill = bc.gpos; /* cursor, before gpos is filled */
		memcpy(fill, bc.in_first, n * sizeof *fill);
		for (size_t e = 0; e < r->nxe; e++)
			bc.in_edge[fill[r->xe[e].to]++] = (uint32_t)e;
	}
	for (size_t i = 0; i < n; i++) {
		bc.gpos[i] = UINT32_MAX;
		if (r->res[r->ops[i].res].gpu && r->ops[i].timed)
			bc.gsort[bc.ng++] = (uint32_t)i;
	}
	gs_ctx = r;
	qsort(bc.gsort, bc.ng, sizeof *bc.gsort, cmp_res_start);
	{
		int64_t busy = INT64_MIN;
		for (size_t p = 0; p < bc.ng; p++) {
			const pf_op *o = &r->ops[bc.gsort[p]];
			if (p && o->res != r->ops[bc.gsort[p - 1]].res)
				busy = INT64_MIN;
			bc.gbusy[p] = busy;
			bc.gpos[bc.gsort[p]] = (uint32_t)p;
			if (o->rd > 0 && o->rs0 + o->rd > busy)
				busy = o->rs0 + o->rd;
		}
	}
	{
		uint32_t *fill = bc.map; /* cursor */
		memcpy(fill, bc.out_first, n * sizeof *fill);
		for (size_t e = 0; e < r->nxe; e++)
			bc.out_edge[fill[r->xe[e].from]++] = (uint32_t)e;
	}
	/* host ops that start in a window, device ops no host op launched by
	 * their own start; the launched ones follow their launcher below */
	for (size_t i = 0; i < n; i++) {
		const pf_op *o = &r->ops[i];
		int gpu = r->res[o->res].gpu;
		bc.win[i] = -1;
		if (!o->timed || (gpu && bc.launched[i]) || !bc.starts[o->rank])
			continue;
		int64_t w = window_of(bc.starts[o->rank], bc.nstarts[o->rank], o->rs0);
		if (w >= (int64_t)first && (uint64_t)w < first + count) {
			bc.win[i] = w - (int64_t)first;
			first_of[w - (int64_t)first + 1]++;
		}
	}
	for (size_t w = 0; w < count; w++)
		first_of[w + 1] += first_of[w];
	base = chakra_malloc((first_of[count] ? first_of[count] : 1) * sizeof *base);
	uint32_t *fill = chakra_malloc(count * sizeof *fill); /* a cursor per window (there may be more
	                                                  windows than ops) */
	if (!base || !fill) {
		chakra_free(fill);
		rc = chakra__pf_fail(d, CHAKRA_ENOMEM, "out of memory");
		goto done;
	}
	memcpy(fill, first_of, count * sizeof *fill);
	for (size_t i = 0; i < n; i++)
		if (bc.win[i] >= 0)
			base[fill[bc.win[i]]++] = (uint32_t)i;
	chakra_free(fill);
	for (size_t w = 0; w < count && !rc; w++) {
		if (w && (rc = chakra_perf_new(&outs[w])) < 0) {
			rc = chakra__pf_fail(d, rc, "out of memory");
			break;
		}
		chakra_perf *dw = outs[w];
		uint32_t tag = (uint32_t)w + 1;
		size_t nl = 0;
		for (uint32_t q = first_of[w]; q < first_of[w + 1]; q++) {
			uint32_t u = base[q];
			bc.stamp[u] = tag;
			bc.list[nl++] = u;
		}
		/* what the window's host ops launched */
		for (uint32_t q = first_of[w]; q < first_of[w + 1]; q++) {
			uint32_t u = base[q];
			if (r->res[r->ops[u].res].gpu)
				continue;
			for (uint32_t e = bc.out_first[u]; e < bc.out_first[u + 1]; e++) {
				uint32_t v = r->xe[bc.out_edge[e]].to;
				if (r->res[r->ops[v].res].gpu && bc.stamp[v] != tag) {
					bc.stamp[v] = tag;
					bc.list[nl++] = v;
				}
			}
		}
		rc = between_one(&bc, first + w, tag, nl, dw);
		if (rc < 0 && dw != d) {
			/* the message goes where the caller looks: the first */
			chakra__pf_fail(d, rc, "%s", chakra_perf_errmsg(dw));
		}
	}
done:
	if (rc < 0)
		for (size_t w = 1; w < count; w++) {
			chakra_perf_free(outs[w]);
			outs[w] = NULL;
		}
	for (uint32_t q = 0; bc.starts && q < nr; q++)
		chakra_free(bc.starts[q]);
	chakra_free(bc.starts), chakra_free(bc.nstarts), chakra_free(bc.win);
	chakra_free(bc.launched), chakra_free(bc.out_first);
	chakra_free(bc.out_edge), chakra_free(bc.stamp), chakra_free(bc.map), chakra_free(bc.list);
	chakra_free(bc.elist);
	chakra_free(bc.gsort), chakra_free(bc.gpos), chakra_free(bc.gbusy), chakra_free(bc.plist);
	chakra_free(bc.in_first);
	chakra_free(bc.in_edge);
	chakra_free(first_of), chakra_free(base);
	return rc < 0 ? rc : 0;
}

int chakra_perf_between(const chakra_perf *r, const char *annotation, uint64_t k,
                        chakra_perf **out)
{
	if (!r || !annotation || !out)
		return CHAKRA_EINVAL;
	return chakra_perf_between_range(r, annotation, k, 1, out);
}
