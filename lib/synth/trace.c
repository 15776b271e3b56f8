/* SPDX-License-Identifier: Apache-2.0 */
/* One rank's trace in memory, reduced to what the model needs: type,
 * class, duration, size, process group and resolved data parents, plus the
 * order a feeder issues the nodes in (lowest ready id first over data
 * dependencies, as the reference feeder). Data dependencies on ids absent
 * from the file, self dependencies and repeated parents are dropped and
 * counted; a cycle is broken at its lowest id and counted. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../graph/topo.h"
#include "chakra/experimental/graph.h"
#include "../rankpath.h"
#include "synth_impl.h"

int chakra__sy_err(char *err, size_t errlen, int code, const char *fmt, ...)
{
	if (err && errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return code;
}

void chakra__sy_trace_free(sy_trace *t)
{
	chakra_free(t->path);
	chakra_free(t->n);
	chakra_free(t->deps);
	chakra_free(t->order);
	for (size_t i = 0; i < t->npg; i++)
		chakra_free(t->pg[i]);
	chakra_free(t->pg);
	memset(t, 0, sizeof *t);
}

static int cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	return a < b ? -1 : a > b;
}

/* Kahn's order (lib/graph/topo.c), lowest id first (ids are unique:
 * duplicates are refused on load); a stall (cycle) releases the lowest id
 * left, whose parents not yet issued are dropped from its deps. */
static int issue_order(sy_trace *t)
{
	size_t n = t->nn;
	uint32_t *in_off = chakra_malloc((n + 1) * sizeof *in_off);
	uint64_t *id = chakra_malloc((n ? n : 1) * sizeof *id);
	uint8_t *released = chakra_malloc(n ? n : 1);
	t->order = chakra_malloc((n ? n : 1) * sizeof *t->order);
	int rc = 0;
	if (!in_off || !id || !released || !t->order) {
		rc = CHAKRA_ENOMEM;
		goto out;
	}
	/* each node's parents are contiguous in deps, in node order */
	for (size_t i = 0; i < n; i++) {
		in_off[i] = t->n[i].dep0;
		id[i] = t->n[i].id;
	}
	in_off[n] = (uint32_t)t->ndeps;
	chakra__topo T = { .n = n, .in_off = in_off, .in_src = t->deps, .ready = CHAKRA__TOPO_BY_KEY,
	                   .cycle = CHAKRA__TOPO_RELEASE_LOWEST_KEY, .key = id, .order = t->order,
	                   .released = released };
	if ((rc = chakra__topo_order(&T)) < 0)
		goto out;
	t->cycle_edges += T.dropped;
	if (T.dropped) {
		/* A released node is issued right after its release: it keeps
		 * the parents issued before it. */
		uint32_t *pos = in_off; /* no longer needed as offsets */
		for (size_t k = 0; k < n; k++)
			pos[t->order[k]] = (uint32_t)k;
		for (size_t v = 0; v < n; v++) {
			if (!released[v])
				continue;
			sy_node *nd = &t->n[v];
			uint32_t k = 0;
			for (uint32_t d = 0; d < nd->ndep; d++)
				if (pos[t->deps[nd->dep0 + d]] < pos[v])
					t->deps[nd->dep0 + k++] = t->deps[nd->dep0 + d];
			nd->ndep = k;
		}
	}
out:
	chakra_free(in_off);
	chakra_free(id);
	chakra_free(released);
	return rc;
}

static int32_t pg_index(sy_trace *t, const char *s, size_t len)
{
	for (size_t i = 0; i < t->npg; i++)
		if (strlen(t->pg[i]) == len && !memcmp(t->pg[i], s, len))
			return (int32_t)i;
	char **pg = chakra_realloc(t->pg, (t->npg + 1) * sizeof *pg);
	if (!pg)
		return CHAKRA_ENOMEM;
	t->pg = pg;
	char *c = chakra_malloc(len + 1);
	if (!c)
		return CHAKRA_ENOMEM;
	memcpy(c, s, len);
	c[len] = 0;
	t->pg[t->npg] = c;
	return (int32_t)t->npg++;
}

int chakra__sy_trace_load(sy_trace *t, const char *path, char *err, size_t errlen)
{
	memset(t, 0, sizeof *t);
	t->path = chakra__mstrdup(path);
	if (!t->path)
		return CHAKRA_ENOMEM;
	chakra_reader *r = NULL;
	int rc = chakra_reader_open(&r, path, NULL);
	if (rc < 0) {
		rc = chakra__sy_err(err, errlen, rc, "%s", r ? chakra_reader_errmsg(r) : chakra_strerror(rc));
		chakra_reader_close(r);
		return rc;
	}
	size_t cap = 0, dcap = 0;
	sy_vec rawdeps = { 0 };
	const chakra_node *n;
	while ((rc = chakra_reader_next(r, &n)) > 0) {
		if (t->nn == UINT32_MAX - 1) {
			rc = chakra__sy_err(err, errlen, CHAKRA_ETOOBIG, "%s: more than 4G nodes", path);
			goto fail;
		}
		if (t->nn == cap) {
			cap = cap ? cap * 2 : 1024;
			sy_node *nn = chakra_realloc(t->n, cap * sizeof *nn);
			if (!nn) {
				rc = CHAKRA_ENOMEM;
				goto fail;
			}
			t->n = nn;
		}
		sy_node *x = &t->n[t->nn];
		memset(x, 0, sizeof *x);
		x->id = chakra_node_id(n);
		x->type = chakra_node_type_of(n);
		x->pg = -1;
		int64_t ct;
		if (x->type == CHAKRA_COMM_SEND_NODE || x->type == CHAKRA_COMM_RECV_NODE) {
			rc = chakra__sy_err(err, errlen, CHAKRA_EINVAL,
			                    "%s: byte %llu: node %llu: send/recv nodes are not modelled by "
			                    "synth (collectives and compute only)",
			                    path, (unsigned long long)chakra_node_offset(n),
			                    (unsigned long long)x->id);
			goto fail;
		}
		if (x->type == CHAKRA_COMM_COLL_NODE && chakra_node_comm_type(n, &ct) == 0) {
			if (ct < 0 || ct > CHAKRA_BARRIER) {
				rc = chakra__sy_err(err, errlen, CHAKRA_EINVAL,
				                    "%s: byte %llu: node %llu: comm_type %lld is not a collective "
				                    "type", path, (unsigned long long)chakra_node_offset(n),
				                    (unsigned long long)x->id, (long long)ct);
				goto fail;
			}
			x->tok = SY_TOK_COLL;
			x->cls = (int)ct;
			uint64_t sz = 0;
			if (chakra_node_comm_size(n, &sz) < 0)
				sz = 0;
			x->size = sz;
			const char *pg;
			size_t pl;
			if (chakra_node_pg_name(n, &pg, &pl) == 0) {
				int32_t p = pg_index(t, pg, pl);
				if (p < 0) {
					rc = p;
					goto fail;
				}
				x->pg = p;
			}
		} else {
			x->tok = SY_TOK_COMPUTE;
			x->cls = chakra__sy_classify(n);
		}
		x->dur_ns = chakra_node_duration_ns(n);
		size_t nd = chakra_node_data_dep_count(n);
		const uint64_t *dd = chakra_node_data_deps(n);
		x->dep0 = (uint32_t)rawdeps.n;
		x->ndep = 0;
		for (size_t i = 0; i < nd; i++) {
			if (dd[i] == x->id) {
				t->self_deps++;
				continue;
			}
			if ((rc = chakra__sy_vec_push(&rawdeps, dd[i])) < 0)
				goto fail;
			x->ndep++;
		}
		if (rawdeps.n > UINT32_MAX) {
			rc = chakra__sy_err(err, errlen, CHAKRA_ETOOBIG, "%s: more than 4G dependencies", path);
			goto fail;
		}
		t->nn++;
	}
	if (rc < 0) {
		rc = chakra__sy_err(err, errlen, rc, "%s", chakra_reader_errmsg(r));
		goto fail;
	}
	chakra_reader_close(r);
	r = NULL;
	(void)dcap;
	/* Resolve ids. */
	chakra_idmap *m = chakra_idmap_new(t->nn);
	if (!m) {
		rc = CHAKRA_ENOMEM;
		goto fail;
	}
	for (size_t i = 0; i < t->nn; i++)
		if ((rc = chakra_idmap_put(m, t->n[i].id, (uint32_t)i, NULL)) <= 0) {
			if (rc < 0) {
				chakra_idmap_free(m);
				goto fail;
			}
			rc = chakra__sy_err(err, errlen, CHAKRA_EDUP, "%s: node id %llu appears twice", path,
			                    (unsigned long long)t->n[i].id);
			chakra_idmap_free(m);
			goto fail;
		}
	rc = 0;
	t->deps = chakra_malloc((rawdeps.n ? rawdeps.n : 1) * sizeof *t->deps);
	if (!t->deps) {
		chakra_idmap_free(m);
		rc = CHAKRA_ENOMEM;
		goto fail;
	}
	size_t w = 0;
	for (size_t i = 0; i < t->nn; i++) {
		sy_node *x = &t->n[i];
		uint32_t start = (uint32_t)w;
		for (uint32_t d = 0; d < x->ndep; d++) {
			uint32_t p = chakra_idmap_get(m, rawdeps.p[x->dep0 + d]);
			if (p == CHAKRA_GRAPH_NONE) {
				t->missing_deps++;
				continue;
			}
			t->deps[w++] = p;
		}
		/* Sorted, each parent once. */
		qsort(t->deps + start, w - start, sizeof *t->deps, cmp_u32);
		size_t k = start;
		for (size_t j = start; j < w; j++) {
			if (k > start && t->deps[k - 1] == t->deps[j]) {
				t->dup_deps++;
				continue;
			}
			t->deps[k++] = t->deps[j];
		}
		w = k;
		x->dep0 = start;
		x->ndep = (uint32_t)(w - start);
	}
	t->ndeps = w;
	chakra_idmap_free(m);
	chakra__sy_vec_free(&rawdeps);
	if ((rc = issue_order(t)) < 0)
		goto fail;
	return 0;
fail:
	chakra__sy_vec_free(&rawdeps);
	chakra_reader_close(r);
	return rc;
}

/* Whether a file is there (stat: no allocation, so running out of memory
 * is never taken for a missing file, as a failed fopen was). */
static int is_there(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && !S_ISDIR(st.st_mode);
}

static int expand_impl(const char *arg, char ***paths, size_t *n, char *err, size_t errlen)
{
	*paths = NULL;
	*n = 0;
	size_t cap = 0, len = strlen(arg) + 32;
	if (is_there(arg)) {
		char **p = chakra_malloc(sizeof *p);
		if (!p || !(p[0] = chakra__mstrdup(arg))) {
			chakra_free(p);
			return CHAKRA_ENOMEM;
		}
		*paths = p;
		*n = 1;
		return 0;
	}
	for (uint64_t r = 0;; r++) {
		char *path = chakra_malloc(len);
		if (!path)
			goto oom;
		if (!chakra__rank_path(path, len, arg, r)) {
			chakra_free(path);
			break;
		}
		if (*n == cap) {
			cap = cap ? cap * 2 : 16;
			char **p = chakra_realloc(*paths, cap * sizeof *p);
			if (!p) {
				chakra_free(path);
				goto oom;
			}
			*paths = p;
		}
		(*paths)[(*n)++] = path;
	}
	if (!*n)
		return chakra__sy_err(err, errlen, CHAKRA_EIO,
		                      "%s: no such file or directory, and no workload %s.0.et or "
		                      "%s.0.et.gz", arg, arg, arg);
	return 0;
oom:
	chakra_synth_paths_free(*paths, *n);
	*paths = NULL;
	*n = 0;
	return CHAKRA_ENOMEM;
}

/* Every failure comes with a message (out of memory included). */
int chakra_synth_expand(const char *arg, char ***paths, size_t *n, char *err, size_t errlen)
{
	if (!arg || !paths || !n)
		return chakra__sy_err(err, errlen, CHAKRA_EINVAL, "%s: NULL argument", __func__);
	if (errlen)
		err[0] = 0;
	return chakra__sy_msg(expand_impl(arg, paths, n, err, errlen), err, errlen);
}

void chakra_synth_paths_free(char **paths, size_t n)
{
	if (!paths)
		return;
	for (size_t i = 0; i < n; i++)
		chakra_free(paths[i]);
	chakra_free(paths);
}

int chakra__sy_msg(int rc, char *err, size_t errlen)
{
	if (rc < 0 && errlen && !err[0])
		snprintf(err, errlen, "%s", chakra_strerror(rc));
	return rc;
}
