/* SPDX-License-Identifier: Apache-2.0 */
/* chakra project: a workload written at another data-parallel degree.
 *
 * Ranks are laid out as generators and launchers do: M consecutive ranks
 * form a model-parallel group, ranks equal modulo M a data-parallel group
 * (M is read from the groups). Rank r' of the output is a copy of the
 * input rank at the same model-parallel index in replica (r'/M mod D), its
 * groups renamed to the output's, its data-parallel collectives resized
 * (an all-gather's per-rank input shrinks to D/D' of it; all-reduce,
 * reduce-scatter, broadcast, reduce and barrier keep theirs) and their
 * recorded times scaled as a bandwidth-bound ring's, (n-1)/n. Per-rank
 * compute is unchanged (weak scaling). What cannot be projected honestly
 * (all-to-all across replicas, a collective spanning every rank of a
 * hybrid workload, another tensor-parallel degree) is an error. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "chakra/attrs.h"
#include "chakra/reader.h"
#include "chakra/writer.h"
#include "pf_impl.h"
#include "groups.h"
#include "../rankpath.h"
#include "outfile.h"

enum { G_ALL = 0, G_DATA = 1, G_MODEL = 2, G_ONE = 3 };

typedef struct pgrp {
	char *name;
	uint32_t *ranks;
	size_t n;
	int cls;
	uint32_t idx;            /* DATA: model-parallel index m; MODEL: replica d */
} pgrp;

typedef struct proj {
	char *err;
	size_t errlen;
	pgrp *g;
	size_t ng, gcap;
	uint32_t nfiles, world, m, d, d2, n2;
	const char *prefix, *out;
	const chakra_project_options *o;
	uint32_t dims[16];
	int ndims;
	int numeric;             /* every group name is a decimal number */
	uint64_t max_numeric;
	size_t name_cap;         /* room for any output group name */
	chakra__ixmap gix;       /* groups by name (a keyed index, not a scan per node) */
	uint32_t *model_of;      /* replica d -> its model group (G_MODEL), PF_NONE */
	uint64_t members;        /* ranks held by all groups (bounded) */
} proj;

/* Group members held in memory, all groups together (4 bytes each). */
#define PROJECT_MAX_MEMBERS ((uint64_t)1 << 24)

static int perr(proj *p, int code, const char *fmt, ...) PF_PRINTF(3, 4);
static int perr(proj *p, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (p->err && p->errlen)
		vsnprintf(p->err, p->errlen, fmt, ap);
	va_end(ap);
	return code;
}

/* A handle's message, or the code's when the handle itself did not fail
 * (a builder that ran out of memory leaves the writer's message empty). */
static const char *msg_or(const char *m, int rc)
{
	return m && *m ? m : chakra_strerror(rc);
}

static int exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

struct gname {
	const char *s;
	size_t n;
};

static int gname_eq(const void *ctx, uint32_t i, const void *key)
{
	const proj *p = ctx;
	const struct gname *k = key;
	return strlen(p->g[i].name) == k->n && !memcmp(p->g[i].name, k->s, k->n);
}

static uint64_t gname_hash(const void *ctx, uint32_t i, uint64_t seed)
{
	const proj *p = ctx;
	return chakra__graph_hash_bytes(p->g[i].name, strlen(p->g[i].name), seed);
}

static pgrp *find_group(proj *p, const char *name, size_t len)
{
	struct gname k = { name, len };
	uint32_t i = chakra__ixmap_find(&p->gix, chakra__graph_hash_bytes(name, len, p->gix.seed),
	                                gname_eq, p, &k);
	return i == CHAKRA__IXMAP_NONE ? NULL : &p->g[i];
}

static int add_group(proj *p, const char *name, size_t len, const uint32_t *ranks, size_t n)
{
	if (find_group(p, name, len))
		return 0;
	pgrp *g = PF_PUSH(p->g, p->ng, p->gcap);
	if (!g)
		return perr(p, CHAKRA_ENOMEM, "out of memory");
	memset(g, 0, sizeof *g);
	g->name = chakra_malloc(len + 1);
	g->ranks = chakra_malloc((n ? n : 1) * sizeof *g->ranks);
	if (!g->name || !g->ranks)
		return perr(p, CHAKRA_ENOMEM, "out of memory");
	memcpy(g->name, name, len);
	g->name[len] = 0;
	if (len + 32 > p->name_cap)
		p->name_cap = len + 32; /* out_name's buffers: never a cut name */
	memcpy(g->ranks, ranks, n * sizeof *ranks);
	g->n = n;
	if (chakra__ixmap_add(&p->gix, chakra__graph_hash_bytes(name, len, p->gix.seed),
	                      (uint32_t)(p->ng - 1), gname_hash, p) < 0)
		return perr(p, CHAKRA_ENOMEM, "out of memory");
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* Groups from the METADATA nodes of a file, and the world size it names. */
static int scan_file(proj *p, const char *path)
{
	chakra_reader *rd = NULL;
	int rc = chakra_reader_open(&rd, path, NULL);
	if (rc < 0) {
		rc = perr(p, rc, "%s", rd ? chakra_reader_errmsg(rd) : chakra_strerror(rc));
		chakra_reader_close(rd);
		return rc;
	}
	const chakra_attr *ws =
		chakra_metadata_attr_find(chakra_reader_metadata(rd), CHAKRA_ATTR_NAME_WORLD_SIZE);
	int64_t w;
	if (ws && !chakra_attr_int(ws, &w) && w > 0 && w < (1 << 20) && (uint32_t)w > p->world)
		p->world = (uint32_t)w;
	const chakra_node *n;
	while ((rc = chakra_reader_next(rd, &n)) > 0) {
		if (chakra_node_type_of(n) != CHAKRA_METADATA_NODE)
			continue;
		const char *name;
		size_t nl;
		const chakra_attr *a = chakra_node_attr_find(n, CHAKRA_ATTR_NAME_PG_RANKS);
		/* or the range the converter writes for global_rank_start/stride */
		const chakra_attr *r0 = chakra_node_attr_find(n, CHAKRA_ATTR_NAME_PG_RANK_START);
		const chakra_attr *rs = chakra_node_attr_find(n, CHAKRA_ATTR_NAME_PG_RANK_STRIDE);
		const chakra_attr *sz = chakra_node_attr_find(n, CHAKRA_ATTR_NAME_PG_SIZE);
		int64_t start = 0, stride = 0, size = 0;
		int range = !a && r0 && rs && sz && !chakra_attr_int(r0, &start) &&
		            !chakra_attr_int(rs, &stride) && !chakra_attr_int(sz, &size);
		if (chakra_node_pg_name(n, &name, &nl) || !nl ||
		    (!range && (!a || !chakra_attr_is_list(a))))
			continue;
		if (find_group(p, name, nl))
			continue; /* every rank lists the same groups */
		size_t cnt = range ? (size > 0 ? (size_t)size : 0) : chakra_attr_list_len(a);
		if (range && (size <= 0 || start < 0 || stride <= 0 || size > (1 << 24) ||
		              start + (size - 1) * stride >= (1 << 24))) {
			rc = perr(p, CHAKRA_EINVAL, "%s: node %llu: group '%.*s': pg_rank_start %lld, "
			          "pg_rank_stride %lld, pg_size %lld do not give ranks (0..16777215)",
			          path, (unsigned long long)chakra_node_id(n), (int)(nl > 200 ? 200 : nl),
			          name, (long long)start, (long long)stride, (long long)size);
			break;
		}
		if ((p->members += cnt) > PROJECT_MAX_MEMBERS) {
			rc = perr(p, CHAKRA_ETOOBIG, "%s: the process groups hold more than %llu ranks "
			          "in all", path, (unsigned long long)PROJECT_MAX_MEMBERS);
			break;
		}
		uint32_t *rk = chakra_malloc((cnt ? cnt : 1) * sizeof *rk);
		if (!rk) {
			rc = perr(p, CHAKRA_ENOMEM, "out of memory");
			break;
		}
		for (size_t i = 0; i < cnt; i++) {
			int64_t v = start + (int64_t)i * stride;
			if (!range)
				chakra_attr_list_int(a, i, &v);
			rk[i] = v < 0 || v >= (1 << 24) ? (1u << 24) : (uint32_t)v;
		}
		rc = add_group(p, name, nl, rk, cnt);
		chakra_free(rk);
		if (rc < 0)
			break;
	}
	if (rc < 0 && !*p->err)
		perr(p, rc, "%s", msg_or(chakra_reader_errmsg(rd), rc));
	chakra_reader_close(rd);
	return rc < 0 ? rc : 0;
}

/* M from the groups: data groups are strided by M, model groups are
 * blocks of M; every group is classified. */
static int classify_groups(proj *p)
{
	uint32_t m = 0;
	for (size_t i = 0; i < p->ng; i++) {
		pgrp *g = &p->g[i];
		qsort(g->ranks, g->n, sizeof *g->ranks, cmp_u32);
		for (size_t k = 0; k < g->n; k++)
			if (g->ranks[k] >= p->world)
				return perr(p, CHAKRA_EINVAL, "group '%s' has rank %u, but the workload has "
				            "%u ranks", g->name, g->ranks[k], p->world);
		if (g->n == p->world) {
			g->cls = G_ALL;
			continue;
		}
		if (g->n <= 1) {
			g->cls = G_ONE;
			continue;
		}
		uint32_t stride = g->ranks[1] - g->ranks[0];
		int regular = stride > 0;
		for (size_t k = 1; k < g->n && regular; k++)
			regular = g->ranks[k] - g->ranks[k - 1] == stride;
		uint32_t gm;
		if (regular && stride == 1 && g->ranks[0] % g->n == 0) {
			g->cls = G_MODEL;
			gm = (uint32_t)g->n;
			g->idx = g->ranks[0] / gm;
		} else if (regular && (uint64_t)stride * g->n == p->world && g->ranks[0] < stride) {
			g->cls = G_DATA;
			gm = stride;
			g->idx = g->ranks[0];
		} else
			return perr(p, CHAKRA_EINVAL, "group '%s' (%zu ranks from %u) is neither a block "
			            "of consecutive ranks (model parallel) nor the ranks equal modulo a "
			            "block size (data parallel): cannot tell how it grows", g->name, g->n,
			            g->ranks[0]);
		if (m && gm != m)
			return perr(p, CHAKRA_EINVAL, "groups disagree on the model-parallel size: %u "
			            "and %u (group '%s')", m, gm, g->name);
		m = gm;
	}
	p->m = m ? m : 1;
	if (p->world % p->m)
		return perr(p, CHAKRA_EINVAL, "%u ranks are not a whole number of model-parallel "
		            "groups of %u", p->world, p->m);
	p->d = p->world / p->m;
	/* each replica's model group, once (out_name asks per node) */
	p->model_of = chakra_malloc((p->d ? p->d : 1) * sizeof *p->model_of);
	if (!p->model_of)
		return perr(p, CHAKRA_ENOMEM, "out of memory");
	for (uint32_t k = 0; k < p->d; k++)
		p->model_of[k] = PF_NONE;
	for (size_t i = 0; i < p->ng; i++)
		if (p->g[i].cls == G_MODEL && p->g[i].idx < p->d && p->model_of[p->g[i].idx] == PF_NONE)
			p->model_of[p->g[i].idx] = (uint32_t)i;
	p->numeric = 1;
	p->max_numeric = 0;
	for (size_t i = 0; i < p->ng; i++) {
		char *end;
		errno = 0;
		unsigned long long v = strtoull(p->g[i].name, &end, 10);
		if (!*p->g[i].name || *end || errno)
			p->numeric = 0;
		else if (v > p->max_numeric)
			p->max_numeric = v;
	}
	return 0;
}

/* The output name of a group for output rank r2 (whose source rank is
 * in g). */
static void out_name(const proj *p, const pgrp *g, uint32_t r2, char *buf, size_t cap)
{
	if (g->cls != G_MODEL || r2 / p->m < p->d) {
		if (g->cls == G_MODEL && p->model_of && p->model_of[r2 / p->m] != PF_NONE) {
			/* the model group of replica r2/M: the input's of that replica */
			snprintf(buf, cap, "%s", p->g[p->model_of[r2 / p->m]].name);
			return;
		}
		snprintf(buf, cap, "%s", g->name);
		return;
	}
	/* a replica the input does not have: a fresh name */
	uint32_t extra = r2 / p->m - p->d;
	if (p->numeric)
		snprintf(buf, cap, "%llu", (unsigned long long)(p->max_numeric + 1 + extra));
	else
		snprintf(buf, cap, "%s.dp%u", g->name, r2 / p->m);
}

/* Ranks of an output group. */
static size_t out_ranks(const proj *p, const pgrp *g, uint32_t r2, uint32_t *buf)
{
	size_t n = 0;
	switch (g->cls) {
	case G_ALL:
		for (uint32_t i = 0; i < p->n2; i++)
			buf[n++] = i;
		break;
	case G_DATA:
		for (uint32_t i = 0; i < p->d2; i++)
			buf[n++] = i * p->m + g->idx;
		break;
	case G_MODEL:
		for (uint32_t i = 0; i < p->m; i++)
			buf[n++] = (r2 / p->m) * p->m + i;
		break;
	default:
		buf[n++] = r2;
	}
	return n;
}

static void involved(const proj *p, const uint32_t *ranks, size_t n, uint64_t *flags)
{
	for (int d = 0; d < p->ndims; d++) {
		uint32_t stride = 1;
		for (int k = 0; k < d; k++)
			stride *= p->dims[k];
		flags[d] = 0;
		for (size_t i = 1; i < n; i++)
			if ((ranks[i] / stride) % p->dims[d] != (ranks[0] / stride) % p->dims[d])
				flags[d] = 1;
	}
}

static double ring_factor(uint32_t n)
{
	return n > 1 ? (double)(n - 1) / n : 0;
}

static int attr_is(const chakra_attr *a, const char *name)
{
	size_t l;
	const char *s = chakra_attr_name(a, &l);
	return l == strlen(name) && !memcmp(s, name, l);
}

static int copy_io(chakra_builder *b, const chakra_node *n)
{
	for (int w = 0; w < 2; w++) {
		if (!chakra_node_has_io(n, (chakra_io)w))
			continue;
		for (int f = 0; f < 3; f++) {
			size_t l;
			const char *s = chakra_node_io(n, (chakra_io)w, (chakra_io_field)f, &l);
			int rc = chakra_builder_set_io(b, (chakra_io)w, (chakra_io_field)f, s, l);
			if (rc < 0)
				return rc;
		}
	}
	return 0;
}

/* Output rank r2 from input file src, into an opened member of the set. */
static int write_rank(proj *p, uint32_t r2, const char *src, chakra__out *out,
                      chakra_builder *b)
{
	const char *dst = out->path;
	chakra_reader *rd = NULL;
	chakra_writer *w = NULL;
	chakra_writer_options wo = CHAKRA_WRITER_OPTIONS_INIT;
	wo.gzip = p->o->gzip;
	char *name = NULL;
	uint32_t *rk = chakra_malloc((p->n2 + 1) * sizeof *rk);
	uint64_t *u = chakra_malloc((p->n2 + 16) * sizeof *u);
	int rc = rk && u ? chakra_reader_open(&rd, src, NULL) : CHAKRA_ENOMEM;
	if (rc < 0) {
		rc = perr(p, rc, "%s", rd ? chakra_reader_errmsg(rd) : chakra_strerror(rc));
		goto out;
	}
	if ((rc = chakra_writer_open_cb(&w, chakra__out_write_cb, out, &wo)) < 0) {
		rc = perr(p, rc, "%s", w ? chakra_writer_errmsg(w) : chakra_strerror(rc));
		goto out;
	}
	/* metadata: as read, with this rank and the new world size */
	const chakra_metadata *md = chakra_reader_metadata(rd);
	size_t vl;
	const char *ver = chakra_metadata_version(md, &vl);
	char vbuf[64];
	snprintf(vbuf, sizeof vbuf, "%.*s", (int)(vl < 63 ? vl : 63), ver);
	chakra_builder_reset(b);
	for (size_t i = 0; i < chakra_metadata_attr_count(md); i++) {
		const chakra_attr *a = chakra_metadata_attr_at(md, i);
		if (attr_is(a, CHAKRA_ATTR_NAME_RANK))
			rc = chakra_builder_attr_int(b, CHAKRA_ATTR_NAME_RANK, chakra_attr_kind_of(a), r2);
		else if (attr_is(a, CHAKRA_ATTR_NAME_WORLD_SIZE))
			rc = chakra_builder_attr_int(b, CHAKRA_ATTR_NAME_WORLD_SIZE, chakra_attr_kind_of(a), p->n2);
		else
			rc = chakra_builder_attr_copy(b, a);
		if (rc < 0)
			break;
	}
	if (rc >= 0)
		rc = chakra_writer_write_metadata(w, vbuf, b);
	const chakra_node *n;
	name = chakra_malloc(p->name_cap + 32);
	if (!name)
		rc = perr(p, CHAKRA_ENOMEM, "out of memory");
	while (rc >= 0 && (rc = chakra_reader_next(rd, &n)) > 0) {
		int type = chakra_node_type_of(n);
		const char *pg = NULL;
		size_t pgl = 0;
		chakra_node_pg_name(n, &pg, &pgl);
		const pgrp *g = pgl ? find_group(p, pg, pgl) : NULL;
		int is_coll = type == CHAKRA_COMM_COLL_NODE;
		if (pgl && !g && (type == CHAKRA_METADATA_NODE || is_coll)) {
			rc = perr(p, CHAKRA_EINVAL, "%s: node %llu: group '%.*s' is in no groups file or "
			          "METADATA node", src, (unsigned long long)chakra_node_id(n), (int)pgl,
			          pg);
			break;
		}
		/* a collective with no group spans every rank */
		int cls = g ? g->cls : is_coll ? G_ALL : G_ONE;
		int data = is_coll && (cls == G_DATA || (cls == G_ALL && p->m == 1));
		if (is_coll && cls == G_ALL && p->m > 1) {
			rc = perr(p, CHAKRA_EINVAL, "%s: node %llu (%s): a collective over every rank of "
			          "a hybrid workload (model-parallel groups of %u): how it grows with "
			          "data parallelism is not in the trace", src,
			          (unsigned long long)chakra_node_id(n), chakra_node_name(n, NULL), p->m);
			break;
		}
		int64_t ct = -1;
		chakra_node_comm_type(n, &ct);
		if (data && ct == CHAKRA_ALL_TO_ALL && p->d2 != p->d) {
			rc = perr(p, CHAKRA_EINVAL, "%s: node %llu (%s): an all-to-all across the "
			          "data-parallel ranks: its size depends on how the work is split, which "
			          "the trace does not say", src, (unsigned long long)chakra_node_id(n),
			          chakra_node_name(n, NULL));
			break;
		}
		double tf = data ? ring_factor(p->d2) / ring_factor(p->d) : 1.0;
		if (data && p->d < 2 && p->d2 != p->d) {
			rc = perr(p, CHAKRA_EINVAL, "%s: node %llu: a data-parallel collective over one "
			          "rank has no recorded transfer to scale", src,
			          (unsigned long long)chakra_node_id(n));
			break;
		}
		chakra_builder_reset(b);
		chakra_builder_set_id(b, chakra_node_id(n));
		size_t nl;
		const char *nm = chakra_node_name(n, &nl);
		if ((rc = chakra_builder_set_name(b, nm, nl)) < 0)
			break;
		chakra_builder_set_type(b, type);
		chakra_builder_set_start_time_micros(b, chakra_node_start_time_micros(n));
		uint64_t dm = chakra_node_duration_micros(n);
		int has_dn = chakra_node_attr_find(n, CHAKRA_ATTR_NAME_DURATION_NANOS) != NULL;
		/* duration_micros follows duration_nanos when both are there */
		if (data && !has_dn)
			dm = (uint64_t)((double)dm * tf + 0.5);
		chakra_builder_set_duration_micros(b, dm);
		for (size_t i = 0; rc >= 0 && i < chakra_node_data_dep_count(n); i++)
			rc = chakra_builder_add_data_dep(b, chakra_node_data_deps(n)[i]);
		for (size_t i = 0; rc >= 0 && i < chakra_node_ctrl_dep_count(n); i++)
			rc = chakra_builder_add_ctrl_dep(b, chakra_node_ctrl_deps(n)[i]);
		if (rc >= 0)
			rc = copy_io(b, n);
		size_t gn = g ? out_ranks(p, g, r2, rk) : 0;
		for (size_t i = 0; rc >= 0 && i < chakra_node_attr_count(n); i++) {
			const chakra_attr *a = chakra_node_attr_at(n, i);
			chakra_attr_kind k = chakra_attr_kind_of(a);
			if (g && attr_is(a, CHAKRA_ATTR_NAME_PG_NAME)) {
				out_name(p, g, r2, name, p->name_cap + 32);
				rc = chakra_builder_attr_string(b, CHAKRA_ATTR_NAME_PG_NAME, k, name, (size_t)-1);
			} else if (g && type == CHAKRA_METADATA_NODE &&
			           (attr_is(a, CHAKRA_ATTR_NAME_PG_RANKS) ||
			            attr_is(a, CHAKRA_ATTR_NAME_PG_RANK_START) ||
			            attr_is(a, CHAKRA_ATTR_NAME_PG_RANK_STRIDE))) {
				/* the output's members, as a list (below) */
			} else if (g && type == CHAKRA_METADATA_NODE && attr_is(a, CHAKRA_ATTR_NAME_PG_SIZE)) {
				rc = chakra_builder_attr_int(b, CHAKRA_ATTR_NAME_PG_SIZE, k, (int64_t)gn);
			} else if (data && attr_is(a, CHAKRA_ATTR_NAME_COMM_SIZE) && ct == CHAKRA_ALL_GATHER) {
				uint64_t s = 0;
				chakra_attr_uint(a, &s);
				s = (uint64_t)((double)s * p->d / p->d2 + 0.5);
				rc = chakra_builder_attr_uint(b, CHAKRA_ATTR_NAME_COMM_SIZE, k, s);
			} else if (data && attr_is(a, CHAKRA_ATTR_NAME_DURATION_NANOS)) {
				int64_t d = 0;
				chakra_attr_int(a, &d);
				d = (int64_t)((double)d * tf + 0.5);
				rc = chakra_builder_attr_int(b, CHAKRA_ATTR_NAME_DURATION_NANOS, k, d);
				chakra_builder_set_duration_micros(b, (uint64_t)d / 1000);
			} else if (is_coll && attr_is(a, CHAKRA_ATTR_NAME_INVOLVED_DIM)) {
				if (!g) {
					for (uint32_t q = 0; q < p->n2; q++)
						rk[q] = q;
					gn = p->n2;
				}
				involved(p, rk, gn, u);
				rc = chakra_builder_attr_list_uint(b, CHAKRA_ATTR_NAME_INVOLVED_DIM, k, u, (size_t)p->ndims);
			} else
				rc = chakra_builder_attr_copy(b, a);
		}
		if (rc >= 0 && g && type == CHAKRA_METADATA_NODE) {
			for (size_t q = 0; q < gn; q++)
				u[q] = rk[q];
			rc = chakra_builder_attr_list_uint(b, CHAKRA_ATTR_NAME_PG_RANKS, CHAKRA_ATTR_INT64_LIST, u, gn);
		}
		if (rc >= 0)
			rc = chakra_writer_write_node(w, b);
		if (rc < 0 && !*p->err)
			perr(p, rc, "%s: %s", dst, msg_or(chakra_writer_errmsg(w), rc));
	}
	if (rc < 0 && !*p->err)
		perr(p, rc, "%s", msg_or(chakra_reader_errmsg(rd), rc));
	if (rc >= 0 && (rc = chakra_writer_finish(w)) < 0)
		perr(p, rc, "%s: %s", dst, out->werr ? strerror(out->werr)
		                                     : msg_or(chakra_writer_errmsg(w), rc));
	/* closed now: one descriptor at a time, however many ranks */
	if (rc >= 0)
		rc = chakra__out_close(out, p->err, p->errlen);
out:
	chakra_writer_close(w);
	chakra_reader_close(rd);
	chakra_free(name);
	chakra_free(rk);
	chakra_free(u);
	return rc < 0 ? rc : 0;
}

/* A JSON string (group names are arbitrary bytes from the traces). */
/* The group file, into an opened member of the set, through the one writer
 * (lib/json/groups.c); a failed write is the output rule's to report. */
static int write_groups(proj *p, chakra__out *out)
{
	uint32_t *rk = chakra_malloc((p->n2 + 1) * sizeof *rk);
	char *name = chakra_malloc(p->name_cap + 32);
	if (!rk || !name) {
		chakra_free(rk);
		chakra_free(name);
		return perr(p, CHAKRA_ENOMEM, "out of memory");
	}
	chakra__groups_out w;
	chakra__groups_out_begin(&w, chakra__out_write_cb, out);
	/* every output group once: all-rank and data groups as they are,
	 * model groups once per replica */
	for (size_t i = 0; i < p->ng; i++) {
		const pgrp *g = &p->g[i];
		if (g->cls == G_MODEL && g->idx != 0)
			continue; /* written from replica 0's group below */
		uint32_t reps = g->cls == G_MODEL ? p->d2 : 1;
		for (uint32_t d = 0; d < reps; d++) {
			uint32_t r2 = g->cls == G_MODEL ? d * p->m : g->cls == G_ONE ? g->ranks[0] : 0;
			if (g->cls == G_ONE && r2 >= p->n2)
				continue;
			out_name(p, g, r2, name, p->name_cap + 32);
			size_t n = out_ranks(p, g, r2, rk);
			chakra__groups_out_list(&w, name, rk, n);
		}
	}
	chakra__groups_out_end(&w);
	chakra_free(rk);
	chakra_free(name);
	return 0;
}

static const size_t project_opts_size[2] = { 0, sizeof(chakra_project_options) };
static const chakra_project_options project_defaults = CHAKRA_PROJECT_OPTIONS_INIT;

int chakra_project_options_init(chakra_project_options *opts, unsigned version)
{
	return chakra__opts_init(opts, version, &project_defaults, project_opts_size, 2);
}

int chakra_project(const char *prefix, const char *out, const chakra_project_options *opts,
                   char *err, size_t errlen)
{
	proj p;
	memset(&p, 0, sizeof p);
	chakra__ixmap_init(&p.gix);
	char dummy[8];
	p.err = err && errlen ? err : dummy;
	p.errlen = err && errlen ? errlen : sizeof dummy;
	p.err[0] = 0;
	p.prefix = prefix;
	p.out = out;
	chakra_project_options o;
	if (!prefix || !out || !opts ||
	    chakra__opts_copy(&o, sizeof o, opts, &project_defaults, project_opts_size, 2) < 0)
		return perr(&p, CHAKRA_EINVAL, "project: bad arguments");
	opts = &o;
	p.o = opts;
	if (opts->dp < 1 || opts->dp > (1u << 20))
		return perr(&p, CHAKRA_EINVAL, "--dp must be in 1..%u", 1u << 20);
	size_t cap = strlen(prefix) + strlen(out) + 64;
	char *path = chakra_malloc(cap), *path2 = chakra_malloc(cap);
	chakra_builder *b = chakra_builder_new();
	chakra_sim_groups gs = { NULL, 0 };
	chakra__out *outs = NULL;
	char **onames = NULL, **inames = NULL;
	size_t nout = 0;
	const char *gpath = NULL;
	int rc = 0;
	if (!path || !path2 || !b) {
		rc = perr(&p, CHAKRA_ENOMEM, "out of memory");
		goto out;
	}
	while (chakra__rank_path(path, cap, prefix, p.nfiles))
		p.nfiles++;
	if (!p.nfiles) {
		struct stat st;
		rc = stat(prefix, &st) == 0 && S_ISDIR(st.st_mode)
		         ? perr(&p, CHAKRA_EIO, "%s: is a directory", prefix)
		         : perr(&p, CHAKRA_EIO, "%s: no such file or directory, and no workload %s.0.et "
		                "or %s.0.et.gz", prefix, prefix, prefix);
		goto out;
	}
	p.world = p.nfiles;
	for (uint32_t k = 0; k < p.nfiles; k++) {
		chakra__rank_path(path, cap, prefix, k);
		if ((rc = scan_file(&p, path)) < 0)
			goto out;
	}
	gpath = opts->groups_in;
	if (!gpath) {
		snprintf(path2, cap, "%s.comm_groups.json", prefix);
		if (!exists(path2))
			snprintf(path2, cap, "%s.groups.json", prefix);
		if (exists(path2))
			gpath = path2;
	}
	if (gpath) {
		if ((rc = chakra_sim_groups_load(&gs, gpath, 1u << 24, p.err, p.errlen)) < 0)
			goto out;
		for (size_t i = 0; i < gs.n; i++)
			if ((rc = add_group(&p, gs.g[i].name, strlen(gs.g[i].name), gs.g[i].ranks,
			                    gs.g[i].n)) < 0)
				goto out;
	}
	for (size_t i = 0; i < p.ng; i++)
		for (size_t k = 0; k < p.g[i].n; k++)
			if (p.g[i].ranks[k] < (1u << 24) && p.g[i].ranks[k] + 1 > p.world)
				p.world = p.g[i].ranks[k] + 1;
	if ((rc = classify_groups(&p)) < 0)
		goto out;
	if (opts->tp && opts->tp != p.m) {
		rc = perr(&p, CHAKRA_EINVAL, "--tp %u: the workload is tensor parallel over %u "
		          "ranks, and its traces hold the kernels of one shard at that degree; their "
		          "times at another degree depend on the shapes each kernel was given, which "
		          "a trace does not record (chakra generate model --mp-group writes a "
		          "workload at any degree)", opts->tp, p.m);
		goto out;
	}
	p.d2 = opts->dp;
	if ((uint64_t)p.m * p.d2 > (1u << 20)) {
		rc = perr(&p, CHAKRA_EINVAL, "--dp %u: %llu ranks is too many", p.d2,
		          (unsigned long long)p.m * p.d2);
		goto out;
	}
	p.n2 = p.m * p.d2;
	if (opts->dims && opts->ndims > 0) {
		uint64_t prod = 1;
		if (opts->ndims > 16) {
			rc = perr(&p, CHAKRA_EINVAL, "--dims: at most 16 dimensions");
			goto out;
		}
		for (int i = 0; i < opts->ndims; i++) {
			p.dims[i] = opts->dims[i];
			prod *= opts->dims[i] ? opts->dims[i] : 1;
		}
		p.ndims = opts->ndims;
		if (prod != p.n2) {
			rc = perr(&p, CHAKRA_EINVAL, "--dims: the shape holds %llu NPUs, the projected "
			          "workload has %u ranks", (unsigned long long)prod, p.n2);
			goto out;
		}
	} else {
		uint32_t d0 = 1;
		for (uint32_t d = 1; (uint64_t)d * d <= p.n2; d++)
			if (p.n2 % d == 0)
				d0 = d;
		p.dims[0] = d0;
		p.dims[1] = p.n2 / d0;
		p.ndims = 2;
	}
	/* The outputs are one set under the output rule (outfile.h): every
	 * one checked before anything is written (none may be an input: a
	 * rank's file or the groups file), renamed only once all are
	 * complete, so a failure leaves the previous files as they were. */
	nout = (size_t)p.n2 + (p.ng ? 1 : 0);
	outs = chakra_calloc(nout, sizeof *outs);
	onames = chakra_calloc(nout, sizeof *onames);
	inames = chakra_calloc((size_t)p.nfiles + 1, sizeof *inames);
	if (!outs || !onames || !inames || (gpath && !(inames[p.nfiles] = chakra__mstrdup(gpath)))) {
		rc = perr(&p, CHAKRA_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t k = 0; k < nout && rc == 0; k++) {
		if (k == p.n2)
			snprintf(path2, cap, "%s.comm_groups.json", out);
		else
			chakra__rank_name(path2, cap, out, k, opts->gzip);
		if (!(onames[k] = chakra__mstrdup(path2)))
			rc = perr(&p, CHAKRA_ENOMEM, "out of memory");
	}
	for (uint32_t k = 0; k < p.nfiles && rc == 0; k++) {
		chakra__rank_path(path, cap, prefix, k);
		if (!(inames[k] = chakra__mstrdup(path)))
			rc = perr(&p, CHAKRA_ENOMEM, "out of memory");
	}
	if (rc < 0)
		goto out;
	chakra__out_opts oo = { opts->overwrite, 0, (const char *const *)inames,
	                        (size_t)p.nfiles + 1, "use -f (--force)" };
	if ((rc = chakra__out_check_set((const char *const *)onames, nout, &oo, p.err,
	                                p.errlen)) < 0)
		goto out;
	oo.inputs = NULL; /* checked once, above */
	oo.n_inputs = 0;
	if (p.ng) {
		if ((rc = chakra__out_open(&outs[p.n2], onames[p.n2], &oo, p.err, p.errlen)) < 0 ||
		    (rc = write_groups(&p, &outs[p.n2])) < 0 ||
		    (rc = chakra__out_close(&outs[p.n2], p.err, p.errlen)) < 0)
			goto out;
	}
	for (uint32_t r2 = 0; r2 < p.n2; r2++) {
		uint32_t src = ((r2 / p.m) % p.d) * p.m + r2 % p.m;
		if (!chakra__rank_path(path, cap, prefix, src) &&
		    !chakra__rank_path(path, cap, prefix, r2 % p.m)) {
			rc = perr(&p, CHAKRA_EIO, "%s: no file for rank %u (nor for rank %u, the same "
			          "model-parallel index in the first replica)", prefix, src, r2 % p.m);
			goto out;
		}
		if ((rc = chakra__out_open(&outs[r2], onames[r2], &oo, p.err, p.errlen)) < 0 ||
		    (rc = write_rank(&p, r2, path, &outs[r2], b)) < 0)
			goto out;
	}
	rc = chakra__out_commit_set(outs, nout, p.err, p.errlen);
out:
	for (size_t k = 0; outs && k < nout; k++)
		chakra__out_abort(&outs[k]); /* after a failure: the temporaries go */
	for (size_t k = 0; onames && k < nout; k++)
		chakra_free(onames[k]);
	for (uint32_t k = 0; inames && k <= p.nfiles; k++)
		chakra_free(inames[k]);
	chakra_free(outs), chakra_free(onames), chakra_free(inames);
	for (size_t i = 0; i < p.ng; i++) {
		chakra_free(p.g[i].name);
		chakra_free(p.g[i].ranks);
	}
	chakra_free(p.g);
	chakra_free(p.model_of);
	chakra__ixmap_free(&p.gix);
	chakra_sim_groups_free(&gs);
	chakra_builder_free(b);
	chakra_free(path);
	chakra_free(path2);
	return rc < 0 ? rc : 0;
}
