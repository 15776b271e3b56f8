/* SPDX-License-Identifier: Apache-2.0 */
/* Rank-independent workload graph -> one Chakra ET per NPU + group file. */
#include "graph.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common.h"

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
		free(g->nodes[i].name);
	free(g->nodes);
	free(g->deps);
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
		gen_node *nn = realloc(g->nodes, nc * sizeof *nn);
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
		uint64_t *nd = realloc(g->deps, nc * sizeof *nd);
		if (!nd) {
			g->oom = 1;
			return NULL;
		}
		g->deps = nd;
		g->depcap = nc;
	}
	gen_node *n = &g->nodes[g->n];
	memset(n, 0, sizeof *n);
	n->name = strdup(name);
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

/* "8x8" / "4x4x2": 0, or -1 after a usage error of cmd. */
static int parse_dims(const char *cmd, const char *s, uint32_t *dims, uint32_t *ndims)
{
	uint32_t k = 0;
	const char *p = s;
	while (*p) {
		char *end;
		errno = 0;
		unsigned long v = strtoul(p, &end, 10);
		if (end == p || errno || v == 0 || v > 1u << 20 || k == 16 ||
		    (*end && *end != 'x' && *end != 'X') || (*end && !end[1])) {
			tool_usage(cmd, "--dims '%s': expected sizes like 8x8 or 4x4x2 (each 1..%u, at "
			           "most 16)", s, 1u << 20);
			return -1;
		}
		dims[k++] = (uint32_t)v;
		p = *end ? end + 1 : end;
	}
	if (!k) {
		tool_usage(cmd, "--dims: empty");
		return -1;
	}
	*ndims = k;
	return 0;
}

int gen_cli_check(gen_cli *c, const char *cmd, uint64_t max_npus)
{
	if (!c->out || !strcmp(c->out, "-")) {
		tool_usage(cmd, "missing -o PREFIX (files PREFIX.r.et)");
		return -1;
	}
	if (!c->npus || c->npus > max_npus) {
		tool_usage(cmd, "--npus N (1..%llu) is required", (unsigned long long)max_npus);
		return -1;
	}
	if (c->no_groups && c->groups) {
		tool_usage(cmd, "--no-groups and --groups exclude each other");
		return -1;
	}
	if (c->dims_arg && parse_dims(cmd, c->dims_arg, c->dims, &c->ndims) < 0)
		return -1;
	if (!c->ndims)
		c->ndims = gen_default_dims((uint32_t)c->npus, c->dims);
	uint64_t prod = 1;
	for (uint32_t d = 0; d < c->ndims; d++)
		prod *= c->dims[d];
	if (prod != c->npus) {
		tool_usage(cmd, "--dims multiply to %llu, not --npus %llu", (unsigned long long)prod,
		           (unsigned long long)c->npus);
		return -1;
	}
	return 0;
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
		kind *nk = realloc(ks->k, (ks->n + 1) * sizeof *nk);
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

static int write_groups(const gen_graph *g, const kinds *ks, tool_out *o)
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
	return tool_out_close(o);
}

static int write_rank(const gen_graph *g, const kinds *ks, uint32_t rank, tool_out *out,
                      const gen_write_opts *o, chakra_builder *b, tool_progress *pr,
                      uint64_t *done)
{
	chakra_writer_options wo = CHAKRA_WRITER_OPTIONS_INIT;
	wo.gzip = o->gzip;
	chakra_writer *w = NULL;
	const char *path = out->path;
	int rc = chakra_writer_open_cb(&w, tool_out_write_cb, out, &wo);
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
		tool_progress_update(pr, ++*done);
	}
	if (rc == 0)
		rc = chakra_writer_finish(w);
	if (rc < 0 && !ferror(out->f))
		tool_err("%s: %s", path, w && *chakra_writer_errmsg(w) ? chakra_writer_errmsg(w)
		                                                       : chakra_strerror(rc));
	chakra_writer_close(w);
	/* close now (a write error is reported here); the rename waits until
	 * every file is complete */
	if (tool_out_close(out) < 0)
		rc = -1;
	return rc < 0 ? -1 : 0;
}

/* The rank map of a graph: rank 0's file is the class, every other rank
 * its own group ids (docs/feeder.md). */
static int write_rank_map(const gen_graph *g, const kinds *ks, tool_out *o, const char *cfile)
{
	FILE *f = o->f;
	fprintf(f, "chakra-rank-map 1\n# %u ranks running one trace, written for rank 0; each "
	        "rank has its own communicator groups\nranks %u\nclass 0 ", g->npus, g->npus);
	tool_rank_map_file(f, o->path, cfile);
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
	return tool_out_close(o);
}

int gen_graph_write(const gen_graph *g, const gen_write_opts *o)
{
	size_t plen = strlen(o->prefix) + 32;
	char *path = malloc(plen);
	char *gpath = NULL;
	/* one name per rank: a tool_out keeps the path it was given */
	char *paths = malloc((size_t)plen * (g->npus > 2 ? g->npus : 2));
	tool_out *outs = NULL;
	kinds ks = { NULL, 0 };
	chakra_builder *b = chakra_builder_new();
	int ret = 1;
	if (!path || !paths || !b || kinds_build(g, &ks) < 0) {
		tool_err("out of memory");
		goto out;
	}
	if (!o->groups_path) {
		gpath = malloc(plen);
		if (!gpath) {
			tool_err("out of memory");
			goto out;
		}
		snprintf(gpath, plen, "%s.comm_groups.json", o->prefix);
	} else if (*o->groups_path) {
		gpath = strdup(o->groups_path);
		if (!gpath) {
			tool_err("out of memory");
			goto out;
		}
	}
	/* Check every output first so a refusal leaves nothing half written,
	 * and move the files into place only once all of them are complete. */
	const char *in[1] = { o->input };
	/* A rank map: rank 0's trace as the class file, then the map. */
	uint32_t files = o->rank_map ? 2 : g->npus;
	uint32_t nout = files + (gpath ? 1 : 0);
	outs = calloc(nout, sizeof *outs);
	if (!outs) {
		tool_err("out of memory");
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
		if (tool_out_check(p, o->force, in, o->input ? 1 : 0) < 0)
			goto out;
	}
	tool_progress pr;
	uint64_t done = 0;
	tool_progress_start(&pr, "writing", (uint64_t)g->n * (o->rank_map ? 1 : g->npus));
	for (uint32_t r = 0; r < nout; r++) {
		const char *p = r < files ? paths + (size_t)r * plen : gpath;
		int wrc;
		if (tool_out_open(&outs[r], p, o->force, in, o->input ? 1 : 0) < 0) {
			tool_progress_end(&pr);
			goto out;
		}
		if (r >= files)
			wrc = write_groups(g, &ks, &outs[r]);
		else if (o->rank_map && r == 1)
			wrc = write_rank_map(g, &ks, &outs[r], paths);
		else
			wrc = write_rank(g, &ks, r, &outs[r], o, b, &pr, &done);
		if (wrc < 0) {
			tool_progress_end(&pr);
			goto out;
		}
	}
	tool_progress_end(&pr);
	if (tool_out_commit_set(outs, nout) < 0)
		goto out;
	ret = 0;
out:
	if (outs)
		for (uint32_t r = 0; r < (o->rank_map ? 2 : g->npus) + (gpath ? 1 : 0); r++)
			tool_out_abort(&outs[r]); /* nothing left to do after a commit */
	free(outs);
	free(paths);
	chakra_builder_free(b);
	free(ks.k);
	free(path);
	free(gpath);
	return ret;
}
