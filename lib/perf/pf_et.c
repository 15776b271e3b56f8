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
int64_t chakra__pf_window_thread(chakra_perf *r, uint32_t rank, int64_t tid)
{
	if (tid == PF_NO_TID)
		return -1;
	return chakra_perf_resource(r, rank, 0, 0, tid);
}

/* One file's load: where its ops go, the ids seen, and the dependencies
 * kept until every node is in (a parent may come after its child). */
typedef struct load {
	chakra_perf *r;
	const char *fname;
	uint32_t rank;
	pf_map ids;              /* node id -> op, PF_NONE - 1 for a METADATA node */
	pf_map waits;            /* (from << 32 | to) of the sync_deps added */
	pend *pd;
	size_t npd, pdcap;
} load;

/* A node as an op: its kind, resource, recorded times, name and, for
 * communication, type, size and group. 0, or < 0 (r's error set). */
static int node_op(load *ld, const chakra_node *n, int type, chakra_perf_op *op, int *is_cpu_out,
                   int *is_comm_out)
{
	chakra_perf *r = ld->r;
	uint32_t rank = ld->rank;
	uint64_t id = chakra_node_id(n);
	int is_cpu = 0;
	chakra_node_is_cpu_op(n, &is_cpu);
	int is_comm = type == CHAKRA_COMM_COLL_NODE || type == CHAKRA_COMM_SEND_NODE ||
	              type == CHAKRA_COMM_RECV_NODE;
	*is_cpu_out = is_cpu;
	*is_comm_out = is_comm;
	const char *cat = NULL;
	size_t catn = 0;
	chakra_node_get_string(n, "kineto_cat", &cat, &catn);
	int64_t tid = 0, stream = 0, device = 0;
	int have_stream = get_i64(n, CHAKRA_ATTR_NAME_STREAM, &stream) == 0;
	get_i64(n, "tid", &tid);
	get_i64(n, "device", &device);
	memset(op, 0, sizeof *op);
	int64_t res;
	if (is_cpu) {
		op->kind = cat && str_eq(cat, catn, "cuda_runtime") ? CHAKRA_PERF_CALL
		                                                    : CHAKRA_PERF_CPU;
		res = chakra_perf_resource(r, rank, 0, 0, tid);
	} else {
		op->kind = is_comm ? CHAKRA_PERF_COMM
		           : (cat && (str_eq(cat, catn, "gpu_memcpy") ||
		                      str_eq(cat, catn, "gpu_memset"))) ||
		                     type == CHAKRA_MEM_LOAD_NODE || type == CHAKRA_MEM_STORE_NODE
		           ? CHAKRA_PERF_MEMORY : CHAKRA_PERF_KERNEL;
		/* without a stream (generated workloads): one compute and one
		 * communication queue per rank, as the analytical simulator */
		res = have_stream ? chakra_perf_resource(r, rank, 1, device, stream)
		                  : chakra_perf_resource(r, rank, 1, -1, is_comm ? -2 : -1);
	}
	if (res < 0)
		return (int)res;
	op->resource = (uint32_t)res;
	int64_t v;
	if (!get_i64(n, CHAKRA_ATTR_NAME_START_TIME_NANOS, &v))
		op->start_ns = v;
	else if (chakra_node_start_time_micros(n))
		op->start_ns = us_to_ns(chakra_node_start_time_micros(n));
	else
		op->start_ns = CHAKRA_PERF_NO_TIME;
	if (!get_i64(n, CHAKRA_ATTR_NAME_DURATION_NANOS, &v))
		op->dur_ns = v < 0 ? 0 : v;
	else if (is_comm && !chakra_node_duration_micros(n))
		op->dur_ns = -1; /* the network model decides */
	else { /* no integer duration_nanos: duration_micros, into int64 */
		uint64_t ns = chakra_node_duration_ns(n);
		op->dur_ns = ns > (uint64_t)INT64_MAX - 1 ? INT64_MAX - 1 : (int64_t)ns;
	}
	op->name = chakra_node_name(n, &op->name_len);
	op->id = id;
	if (is_comm) {
		int64_t ct = 0;
		uint64_t cs = 0;
		const char *pg;
		size_t pgl;
		chakra_node_comm_type(n, &ct);
		chakra_node_comm_size(n, &cs);
		op->comm_type = type == CHAKRA_COMM_COLL_NODE ? (int)ct : -1 - (type - CHAKRA_COMM_SEND_NODE);
		op->comm_size = cs;
		/* the reader's strings end in a NUL at their length: any
		 * length is passed whole (a name of 256 bytes or more used to
		 * be dropped, so the collective spanned every rank) */
		if (!chakra_node_pg_name(n, &pg, &pgl) && pgl) {
			if (memchr(pg, 0, pgl))
				return chakra__pf_fail(r, CHAKRA_EINVAL, "%s: node %llu (index %llu): "
				                       "pg_name holds a NUL byte", ld->fname,
				                       (unsigned long long)id,
				                       (unsigned long long)chakra_node_index(n));
			op->pg_name = pg;
		}
	}
	return 0;
}

/* The node's dependencies on its parents, kept for after the last node:
 * data and control ones, then the waits of sync_deps. */
static int keep_deps(load *ld, const chakra_node *n, uint32_t idx)
{
	chakra_perf *r = ld->r;
	for (int w = 0; w < 2; w++) {
		size_t cnt = w ? chakra_node_ctrl_dep_count(n) : chakra_node_data_dep_count(n);
		const uint64_t *d = w ? chakra_node_ctrl_deps(n) : chakra_node_data_deps(n);
		for (size_t i = 0; i < cnt; i++) {
			pend *p = PF_PUSH(ld->pd, ld->npd, ld->pdcap);
			if (!p)
				return chakra__pf_fail(r, CHAKRA_ENOMEM, "out of memory");
			p->op = idx;
			p->wait = 0;
			p->parent = d[i];
		}
	}
	const chakra_attr *sd = chakra_node_attr_find(n, "sync_deps");
	if (sd && chakra_attr_is_list(sd)) {
		for (size_t i = 0; i < chakra_attr_list_len(sd); i++) {
			int64_t v = -1;
			pend *p = chakra_attr_list_int(sd, i, &v) || v < 0 ? NULL
			        : PF_PUSH(ld->pd, ld->npd, ld->pdcap);
			if (!p && v >= 0)
				return chakra__pf_fail(r, CHAKRA_ENOMEM, "out of memory");
			if (!p)
				continue;
			p->op = idx;
			p->wait = 1;
			p->parent = (uint64_t)v;
		}
	}
	return 0;
}

/* One node: a METADATA node's process group, else its op (with what held
 * it back from before the window) and its dependencies kept. */
static int read_node(load *ld, const chakra_node *n)
{
	chakra_perf *r = ld->r;
	const char *fname = ld->fname;
	uint64_t id = chakra_node_id(n);
	if (chakra__pf_map_get(&ld->ids, id) != PF_NONE)
		return chakra__pf_fail(r, CHAKRA_EDUP, "%s: node %llu (index %llu): duplicate id",
		                       fname, (unsigned long long)id,
		                       (unsigned long long)chakra_node_index(n));
	int type = chakra_node_type_of(n);
	int rc;
	if (type == CHAKRA_METADATA_NODE) {
		if ((rc = add_group(r, n, fname)) < 0)
			return rc;
		if (chakra__pf_map_put(&ld->ids, id, PF_NONE - 1))
			return chakra__pf_fail(r, CHAKRA_ENOMEM, "out of memory");
		return 0;
	}
	chakra_perf_op op;
	int is_cpu, is_comm;
	if ((rc = node_op(ld, n, type, &op, &is_cpu, &is_comm)) < 0)
		return rc;
	int64_t idx = chakra_perf_op_add(r, &op);
	if (idx < 0) {
		char m[sizeof r->err];
		snprintf(m, sizeof m, "%s", r->err);
		return chakra__pf_fail(r, (int)idx, "%s: node index %llu: %s", fname,
		                       (unsigned long long)chakra_node_index(n), m);
	}
	if (chakra__pf_map_put(&ld->ids, id, (uint32_t)idx))
		return chakra__pf_fail(r, CHAKRA_ENOMEM, "out of memory");
	/* held back by work from before the window (converter format 3) */
	int64_t v;
	if (!is_cpu && !get_i64(n, CHAKRA_ATTR_NAME_BACKLOG_UNTIL_NANOS, &v) &&
	    (rc = chakra_perf_backlog(r, (uint64_t)idx, v)) < 0) {
		char m[sizeof r->err];
		snprintf(m, sizeof m, "%s", r->err);
		return chakra__pf_fail(r, rc, "%s: node %llu: backlog_until_nanos: %s", fname,
		                       (unsigned long long)id, m);
	}
	return keep_deps(ld, n, (uint32_t)idx);
}

/* The kept dependencies as edges, once every node is in: the waits first
 * (a dependency that repeats one is not another edge), then the others. */
static int add_deps(load *ld, int fmt)
{
	chakra_perf *r = ld->r;
	const pend *pd = ld->pd;
	int rc;
	for (size_t i = 0; i < ld->npd; i++) {
		if (!pd[i].wait)
			continue;
		uint32_t from = chakra__pf_map_get(&ld->ids, pd[i].parent);
		if (from == PF_NONE || from == PF_NONE - 1) {
			r->unknown_deps++;
			continue;
		}
		if ((rc = chakra_perf_dep_add(r, from, pd[i].op, CHAKRA_PERF_DEP_WAIT)) < 0) {
			char msg[sizeof r->err];
			snprintf(msg, sizeof msg, "%s", r->err);
			return chakra__pf_fail(r, rc, "%s: sync_deps of node %llu: %s", ld->fname,
			                       (unsigned long long)r->ops[pd[i].op].id, msg);
		}
		if (chakra__pf_map_put(&ld->waits, ((uint64_t)from << 32) | pd[i].op, 1))
			return chakra__pf_fail(r, CHAKRA_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < ld->npd; i++) {
		if (pd[i].wait)
			continue;
		uint32_t from = chakra__pf_map_get(&ld->ids, pd[i].parent);
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
			if (chakra__pf_map_get(&ld->waits, ((uint64_t)from << 32) | pd[i].op) != PF_NONE)
				continue;
			how = CHAKRA_PERF_DEP_START;
		}
		if ((rc = chakra_perf_dep_add(r, from, pd[i].op, how)) < 0)
			return rc;
	}
	return 0;
}

/* What the metadata says of the rank: its user annotations and the
 * recorded window, on the thread of the annotation that defines it. */
static int read_window(chakra_perf *r, const chakra_metadata *m, uint32_t rank)
{
	int64_t w0, w1;
	int rc;
	if ((rc = read_annotations(r, m, rank)) < 0)
		return rc;
	if (!meta_i64(m, CHAKRA_ATTR_NAME_WINDOW_START_NANOS, &w0) &&
	    !meta_i64(m, CHAKRA_ATTR_NAME_WINDOW_END_NANOS, &w1) &&
	    w1 >= w0) {
		/* the thread of the annotation that defines the window
		 * (converters since format 2), else the engine's choice */
		int64_t tid, th = meta_i64(m, "window_tid", &tid) ? -1
		                  : chakra__pf_window_thread(r, rank, tid);
		if (th < -1)
			return (int)th;
		if ((rc = chakra_perf_window(r, rank, w0, w1, th)) < 0)
			return rc;
	}
	return 0;
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
	load ld = { r, path ? path : "<memory>", rank, { 0 }, { 0 }, NULL, 0, 0 };
	if (rc < 0) {
		rc = chakra__pf_fail(r, rc, "%s", rd ? chakra_reader_errmsg(rd) : chakra_strerror(rc));
		goto out;
	}
	if (!chakra__pf_rank(r, rank)) {
		rc = chakra__pf_fail(r, CHAKRA_ENOMEM, "out of memory");
		goto out;
	}
	const chakra_node *n;
	while ((rc = chakra_reader_next(rd, &n)) > 0)
		if ((rc = read_node(&ld, n)) < 0)
			goto out;
	if (rc < 0) {
		rc = chakra__pf_fail(r, rc, "%s", chakra_reader_errmsg(rd));
		goto out;
	}
	const chakra_metadata *m = chakra_reader_metadata(rd);
	int fmt = converter_format(m);
	if ((rc = add_deps(&ld, fmt)) < 0)
		goto out;
	if (fmt >= 2 && (rc = chakra_perf_rank_given(r, rank, CHAKRA_PERF_GIVEN_THREAD_WAITS)) < 0)
		goto out;
	if ((rc = read_window(r, m, rank)) < 0)
		goto out;
	rc = 0;
out:
	chakra_reader_close(rd);
	chakra__pf_map_free(&ld.ids);
	chakra__pf_map_free(&ld.waits);
	chakra_free(ld.pd);
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
