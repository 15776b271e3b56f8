/* SPDX-License-Identifier: Apache-2.0 */
/* Rank-independent workload graph -> one Chakra ET per NPU + group file
 * (gen_impl.h). */
#include "gen_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "chakra/chakra.h"
#include "../cbprintf.h"
#include "../modmem.h"
#include "../outfile.h"

void gen_err(const gen_sink *s, const char *fmt, ...)
{
	if (!s || !s->cb)
		return;
	chakra__cbout o = { s->cb, s->data, 0 };
	va_list ap;
	va_start(ap, fmt);
	chakra__vcbprintf(&o, fmt, ap);
	va_end(ap);
	if (o.rc == CHAKRA_ENOMEM) {
		static const char oom[] = "out of memory";
		s->cb(s->data, oom, sizeof oom - 1);
	}
}

/* The output rule's calls with their message to the sink: 0 or rc. */
static int out_report(const gen_sink *s, int rc, const char *err)
{
	if (rc < 0)
		gen_err(s, "%s", err);
	return rc;
}

static chakra__out_opts out_opts(const gen_write_opts *o, const char *const *in)
{
	chakra__out_opts oo = { o->force, 1, in, o->input ? 1u : 0u, NULL };
	return oo;
}

static void progress(const gen_write_opts *o, int what, uint64_t done, uint64_t total)
{
	if (o->progress)
		o->progress(o->progress_data, what, done, total);
}

void gen_graph_init(gen_graph *g, uint32_t npus, const uint32_t *dims, uint32_t ndims)
{
	memset(g, 0, sizeof *g);
	g->npus = npus;
	g->ndims = ndims > 16 ? 16 : ndims;
	for (uint32_t i = 0; i < g->ndims; i++)
		g->dims[i] = dims[i];
}

void gen_graph_free(gen_graph *g)
{
	for (size_t i = 0; i < g->n; i++)
		chakra_free(g->nodes[i].name);
	chakra_free(g->nodes);
	chakra_free(g->deps);
	memset(g, 0, sizeof *g);
}

static gen_node *add_node(gen_graph *g, const char *name, const uint64_t *deps, size_t ndeps)
{
	if (g->n >= GEN_MAX_NODES) {
		g->too_many = 1;
		return NULL;
	}
	if (g->n == g->cap) {
		size_t nc = g->cap ? g->cap * 2 : 64;
		gen_node *nn = chakra_realloc(g->nodes, nc * sizeof *nn);
		if (!nn) {
			g->oom = 1;
			return NULL;
		}
		g->nodes = nn;
		g->cap = nc;
	}
	if (g->ndeps + ndeps > g->depcap) {
		size_t nc = g->depcap ? g->depcap * 2 : 256;
		while (nc < g->ndeps + ndeps)
			nc *= 2;
		uint64_t *nd = chakra_realloc(g->deps, nc * sizeof *nd);
		if (!nd) {
			g->oom = 1;
			return NULL;
		}
		g->deps = nd;
		g->depcap = nc;
	}
	gen_node *n = &g->nodes[g->n];
	memset(n, 0, sizeof *n);
	n->name = chakra__mstrdup(name);
	if (!n->name) {
		g->oom = 1;
		return NULL;
	}
	n->dep_off = g->ndeps;
	for (size_t i = 0; i < ndeps; i++) {
		if (deps[i] == UINT64_MAX)
			continue;
		/* A parent listed twice is one dependency. */
		int dup = 0;
		for (size_t j = n->dep_off; j < g->ndeps; j++)
			dup |= g->deps[j] == deps[i];
		if (!dup)
			g->deps[g->ndeps++] = deps[i];
	}
	n->dep_n = g->ndeps - n->dep_off;
	g->n++;
	return n;
}

uint64_t gen_graph_comp(gen_graph *g, const char *name, uint64_t dur_ns, uint64_t num_ops,
                        uint64_t tensor_size, const uint64_t *deps, size_t ndeps)
{
	gen_node *n = add_node(g, name, deps, ndeps);
	if (!n)
		return UINT64_MAX;
	n->type = CHAKRA_COMP_NODE;
	n->dur_ns = dur_ns;
	n->num_ops = num_ops;
	n->tensor_size = tensor_size;
	return g->n - 1;
}

static uint32_t group_size(const gen_graph *g, gen_group grp)
{
	if (!grp.block || grp.block > g->npus || g->npus % grp.block)
		return 0;
	return grp.inner ? grp.block : g->npus / grp.block;
}

uint64_t gen_graph_coll(gen_graph *g, const char *name, int comm_type, uint64_t comm_size,
                        gen_group group, const uint64_t *deps, size_t ndeps)
{
	/* A collective over one NPU moves nothing: it is left out, and its
	 * dependants depend on its parents through the caller's chain. */
	if (group_size(g, group) < 2)
		return UINT64_MAX;
	gen_node *n = add_node(g, name, deps, ndeps);
	if (!n)
		return UINT64_MAX;
	n->type = CHAKRA_COMM_COLL_NODE;
	n->comm_type = comm_type;
	n->comm_size = comm_size;
	n->group = group;
	return g->n - 1;
}

void gen_chain_init(gen_chain *c)
{
	memset(c, 0, sizeof *c);
	c->last = UINT64_MAX;
}

void gen_chain_wait(gen_chain *c, uint64_t id)
{
	if (id != UINT64_MAX && c->npending < 8)
		c->pending[c->npending++] = id;
}

uint64_t gen_chain_comp(gen_graph *g, gen_chain *c, const char *name, uint64_t dur_ns,
                        uint64_t num_ops, uint64_t tensor_size, uint64_t extra)
{
	uint64_t deps[10];
	size_t n = 0;
	deps[n++] = c->last;
	for (int i = 0; i < c->npending; i++)
		deps[n++] = c->pending[i];
	deps[n++] = extra;
	uint64_t id = gen_graph_comp(g, name, dur_ns, num_ops, tensor_size, deps, n);
	if (id == UINT64_MAX)
		c->failed = 1;
	c->last = id;
	c->npending = 0;
	return id;
}

uint32_t gen_default_dims(uint32_t n, uint32_t *dims)
{
	uint32_t d0 = 1;
	for (uint32_t d = 1; (uint64_t)d * d <= n; d++)
		if (n % d == 0)
			d0 = d;
	dims[0] = d0;
	dims[1] = n / d0;
	return 2;
}

void gen_group_dims(const gen_graph *g, gen_group grp, int *flags)
{
	uint64_t before = 1;
	for (uint32_t i = 0; i < g->ndims; i++) {
		uint64_t after = before * g->dims[i];
		if (grp.block >= g->npus && grp.inner)
			flags[i] = 1;
		else if (grp.inner)
			flags[i] = before < grp.block; /* the block reaches into dim i */
		else
			flags[i] = after > grp.block;  /* the stride leaves dim i partly free */
		before = after;
	}
}

/* Communicator groups: every distinct (block, inner) kind gets consecutive
 * integer ids (ASTRA-sim reads the keys with stoi), in order of first use. */
typedef struct kind {
	gen_group grp;
	uint32_t base, count;
} kind;

typedef struct kinds {
	kind *k;
	size_t n;
} kinds;

static int kinds_build(const gen_graph *g, kinds *ks)
{
	ks->k = NULL;
	ks->n = 0;
	uint32_t next = 1;
	for (size_t i = 0; i < g->n; i++) {
		const gen_node *n = &g->nodes[i];
		if (n->type != CHAKRA_COMM_COLL_NODE)
			continue;
		size_t j = 0;
		while (j < ks->n && !(ks->k[j].grp.block == n->group.block &&
		                      ks->k[j].grp.inner == n->group.inner))
			j++;
		if (j < ks->n)
			continue;
		kind *nk = chakra_realloc(ks->k, (ks->n + 1) * sizeof *nk);
		if (!nk)
			return -1;
		ks->k = nk;
		nk[ks->n].grp = n->group;
		nk[ks->n].base = next;
		nk[ks->n].count = n->group.inner ? g->npus / n->group.block : n->group.block;
		next += nk[ks->n].count;
		ks->n++;
	}
	return 0;
}

static uint32_t group_id(const kinds *ks, gen_group grp, uint32_t rank)
{
	for (size_t j = 0; j < ks->n; j++)
		if (ks->k[j].grp.block == grp.block && ks->k[j].grp.inner == grp.inner)
			return ks->k[j].base + (grp.inner ? rank / grp.block : rank % grp.block);
	return 0;
}

static int write_groups(const gen_graph *g, const kinds *ks, chakra__out *o, const gen_sink *E)
{
	FILE *f = o->f;
	fputs("{", f);
	int first = 1;
	for (size_t j = 0; j < ks->n; j++) {
		const kind *k = &ks->k[j];
		for (uint32_t i = 0; i < k->count; i++) {
			fprintf(f, "%s\n  \"%u\": [", first ? "" : ",", k->base + i);
			first = 0;
			uint32_t size = k->grp.inner ? k->grp.block : g->npus / k->grp.block;
			for (uint32_t m = 0; m < size; m++) {
				uint32_t r = k->grp.inner ? i * k->grp.block + m : i + m * k->grp.block;
				fprintf(f, "%s%u", m ? ", " : "", r);
			}
			fputs("]", f);
		}
	}
	fputs("\n}\n", f);
	char err[1200];
	return out_report(E, chakra__out_close(o, err, sizeof err), err);
}

static int write_rank(const gen_graph *g, const kinds *ks, uint32_t rank, chakra__out *out,
                      const gen_write_opts *o, chakra_builder *b, uint64_t total,
                      uint64_t *done)
{
	chakra_writer_options wo = CHAKRA_WRITER_OPTIONS_INIT;
	wo.gzip = o->gzip;
	chakra_writer *w = NULL;
	const char *path = out->path;
	int rc = chakra_writer_open_cb(&w, chakra__out_write_cb, out, &wo);
	if (rc == 0)
		rc = chakra_writer_write_metadata(w, "0.0.4", NULL);
	int flags[16];
	uint64_t dimv[16];
	char pg[16];
	for (size_t i = 0; rc == 0 && i < g->n; i++) {
		const gen_node *n = &g->nodes[i];
		chakra_builder_reset(b);
		chakra_builder_set_id(b, i);
		chakra_builder_set_name(b, n->name, (size_t)-1);
		chakra_builder_set_type(b, n->type);
		for (size_t d = 0; d < n->dep_n; d++)
			chakra_builder_add_data_dep(b, g->deps[n->dep_off + d]);
		if (n->type == CHAKRA_COMP_NODE) {
			chakra_builder_set_duration_micros(b, n->dur_ns / 1000);
			chakra_builder_attr_int(b, "is_cpu_op", CHAKRA_ATTR_BOOL, 0);
			chakra_builder_attr_uint(b, "duration_nanos", CHAKRA_ATTR_UINT64, n->dur_ns);
			if (n->num_ops)
				chakra_builder_attr_uint(b, "num_ops", CHAKRA_ATTR_INT64, n->num_ops);
			if (n->tensor_size)
				chakra_builder_attr_uint(b, "tensor_size", CHAKRA_ATTR_UINT64,
				                         n->tensor_size);
		} else {
			chakra_builder_attr_int(b, "is_cpu_op", CHAKRA_ATTR_BOOL, 0);
			chakra_builder_attr_int(b, "comm_type", CHAKRA_ATTR_INT64, n->comm_type);
			chakra_builder_attr_uint(b, "comm_size", CHAKRA_ATTR_INT64, n->comm_size);
			gen_group_dims(g, n->group, flags);
			for (uint32_t d = 0; d < g->ndims; d++)
				dimv[d] = (uint64_t)flags[d];
			chakra_builder_attr_list_uint(b, "involved_dim", CHAKRA_ATTR_BOOL_LIST, dimv,
			                              g->ndims);
			snprintf(pg, sizeof pg, "%u", group_id(ks, n->group, rank));
			chakra_builder_attr_string(b, "pg_name", CHAKRA_ATTR_STRING, pg, (size_t)-1);
		}
		rc = chakra_writer_write_node(w, b);
		++*done;
		progress(o, CHAKRA_GEN_PROGRESS_UPDATE, *done, total);
	}
	if (rc == 0)
		rc = chakra_writer_finish(w);
	if (rc < 0 && !ferror(out->f))
		gen_err(&o->err, "%s: %s", path, w && *chakra_writer_errmsg(w) ? chakra_writer_errmsg(w)
		                                                       : chakra_strerror(rc));
	chakra_writer_close(w);
	/* close now (a write error is reported here); the rename waits until
	 * every file is complete */
	char err[1200];
	int crc = out_report(&o->err, chakra__out_close(out, err, sizeof err), err);
	if (rc >= 0)
		rc = crc;
	/* a failed write: the stream's error, else the writer's */
	return rc < 0 ? (rc == CHAKRA_ENOMEM ? rc : CHAKRA_EIO) : 0;
}

/* A rank map (docs/feeder.md): the class file's name as a token of the map
 * (quoted when it has blanks, quotes or '#'), relative to the map's folder
 * when both share it. */
static void rank_map_file(FILE *f, const char *map_path, const char *file)
{
	const char *ms = strrchr(map_path, '/'), *fs = strrchr(file, '/');
	size_t md = ms ? (size_t)(ms - map_path) + 1 : 0, fd = fs ? (size_t)(fs - file) + 1 : 0;
	if (md == fd && !strncmp(map_path, file, md))
		file += fd; /* (the same folder: the name alone, so the files can move together) */
	int quote = !*file || strpbrk(file, " \t\r\n\"#\\") != NULL;
	if (!quote) {
		fputs(file, f);
		return;
	}
	fputc('"', f);
	for (const char *c = file; *c; c++) {
		if (*c == '"' || *c == '\\')
			fputc('\\', f);
		fputc(*c == '\n' || *c == '\r' ? ' ' : *c, f);
	}
	fputc('"', f);
}

/* The rank map of a graph: rank 0's file is the class, every other rank
 * its own group ids (docs/feeder.md). */
static int write_rank_map(const gen_graph *g, const kinds *ks, chakra__out *o, const char *cfile,
                          const gen_sink *E)
{
	FILE *f = o->f;
	fprintf(f, "chakra-rank-map 1\n# %u ranks running one trace, written for rank 0; each "
	        "rank has its own communicator groups\nranks %u\nclass 0 ", g->npus, g->npus);
	rank_map_file(f, o->path, cfile);
	if (ks->n) {
		fputs(" groups", f);
		for (size_t j = 0; j < ks->n; j++)
			fprintf(f, " %u", group_id(ks, ks->k[j].grp, 0));
	}
	fputs("\n0 0\n", f);
	for (uint32_t r = 1; r < g->npus; r++) {
		if (!ks->n) {
			fprintf(f, "1-%u 0\n", g->npus - 1);
			break;
		}
		fprintf(f, "%u 0 groups", r);
		for (size_t j = 0; j < ks->n; j++)
			fprintf(f, " %u", group_id(ks, ks->k[j].grp, r));
		fputc('\n', f);
	}
	char err[1200];
	return out_report(E, chakra__out_close(o, err, sizeof err), err);
}

int gen_graph_write(const gen_graph *g, const gen_write_opts *o)
{
	size_t plen = strlen(o->prefix) + 32;
	char *gpath = NULL;
	/* one name per rank: an output keeps the path it was given */
	char *paths = chakra_malloc((size_t)plen * (g->npus > 2 ? g->npus : 2));
	chakra__out *outs = NULL;
	kinds ks = { NULL, 0 };
	chakra_builder *b = chakra_builder_new();
	char err[1200];
	int ret = CHAKRA_ENOMEM;
	if (!paths || !b || kinds_build(g, &ks) < 0) {
		gen_err(&o->err, "out of memory");
		goto out;
	}
	if (!o->groups_path) {
		gpath = chakra_malloc(plen);
		if (!gpath) {
			gen_err(&o->err, "out of memory");
			goto out;
		}
		snprintf(gpath, plen, "%s.comm_groups.json", o->prefix);
	} else if (*o->groups_path) {
		gpath = chakra__mstrdup(o->groups_path);
		if (!gpath) {
			gen_err(&o->err, "out of memory");
			goto out;
		}
	}
	/* Check every output first so a refusal leaves nothing half written,
	 * and move the files into place only once all of them are complete. */
	const char *in[1] = { o->input };
	chakra__out_opts oo = out_opts(o, in);
	/* A rank map: rank 0's trace as the class file, then the map. */
	uint32_t files = o->rank_map ? 2 : g->npus;
	uint32_t nout = files + (gpath ? 1 : 0);
	outs = chakra_calloc(nout, sizeof *outs);
	if (!outs) {
		gen_err(&o->err, "out of memory");
		goto out;
	}
	for (uint32_t r = 0; r < nout; r++) {
		const char *p = gpath;
		if (r < files) {
			if (!o->rank_map)
				snprintf(paths + (size_t)r * plen, plen, "%s.%u.et%s", o->prefix, r,
				         o->gzip ? ".gz" : "");
			else if (r == 0)
				snprintf(paths, plen, "%s.c0.et%s", o->prefix, o->gzip ? ".gz" : "");
			else
				snprintf(paths + plen, plen, "%s.ranks", o->prefix);
			p = paths + (size_t)r * plen;
		}
		if ((ret = out_report(&o->err, chakra__out_check(p, &oo, err, sizeof err), err)) < 0)
			goto out;
	}
	uint64_t done = 0, total = (uint64_t)g->n * (o->rank_map ? 1 : g->npus);
	progress(o, CHAKRA_GEN_PROGRESS_START, 0, total);
	for (uint32_t r = 0; r < nout; r++) {
		const char *p = r < files ? paths + (size_t)r * plen : gpath;
		if ((ret = out_report(&o->err, chakra__out_open(&outs[r], p, &oo, err, sizeof err),
		                      err)) < 0) {
			progress(o, CHAKRA_GEN_PROGRESS_END, done, total);
			goto out;
		}
		if (r >= files)
			ret = write_groups(g, &ks, &outs[r], &o->err);
		else if (o->rank_map && r == 1)
			ret = write_rank_map(g, &ks, &outs[r], paths, &o->err);
		else
			ret = write_rank(g, &ks, r, &outs[r], o, b, total, &done);
		if (ret < 0) {
			progress(o, CHAKRA_GEN_PROGRESS_END, done, total);
			goto out;
		}
	}
	progress(o, CHAKRA_GEN_PROGRESS_END, done, total);
	ret = out_report(&o->err, chakra__out_commit_set(outs, nout, err, sizeof err), err);
out:
	if (outs)
		for (uint32_t r = 0; r < (o->rank_map ? 2 : g->npus) + (gpath ? 1 : 0); r++)
			chakra__out_abort(&outs[r]); /* nothing left to do after a commit */
	chakra_free(outs);
	chakra_free(paths);
	chakra_builder_free(b);
	chakra_free(ks.k);
	chakra_free(gpath);
	return ret;
}
