/* SPDX-License-Identifier: Apache-2.0 */
#include "graph.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- graph ---- */

void ag_graph_init(ag_graph *g, int kinds)
{
	memset(g, 0, sizeof *g);
	g->kinds = kinds;
}

void ag_graph_free(ag_graph *g)
{
	free(g->id);
	free(g->eoff);
	free(g->eparent);
	free(g->ectrl);
	free(g->epidx);
	free(g->coff);
	free(g->child);
	tool_idmap_free(&g->map);
	memset(g, 0, sizeof *g);
}

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t nc = *cap ? *cap : 1024;
	while (nc < need)
		nc *= 2;
	void *np = realloc(*p, nc * elem);
	if (!np)
		return -1;
	*p = np;
	*cap = nc;
	return 0;
}

static int add_edges(ag_graph *g, const uint64_t *ids, size_t k, unsigned char ctrl)
{
	size_t cap = g->ecap;
	if (!k)
		return 0; /* ids may be NULL for an empty list */
	if (g->ne + k > cap) {
		size_t c1 = cap, c2 = cap;
		if (grow((void **)&g->eparent, &c1, g->ne + k, sizeof *g->eparent) < 0 ||
		    grow((void **)&g->ectrl, &c2, g->ne + k, 1) < 0)
			return -1;
		/* Both arrays grew to the same capacity (same start, same rule)
		 * unless the second realloc failed, handled above. */
		g->ecap = c1;
	}
	memcpy(g->eparent + g->ne, ids, k * sizeof *ids);
	memset(g->ectrl + g->ne, ctrl, k);
	g->ne += k;
	return 0;
}

long long ag_graph_add(ag_graph *g, const chakra_node *n)
{
	if (g->n >= AG_NONE - 1)
		return -1;
	/* eoff needs one slot more than id: grow both to n + 2. */
	if (g->n + 2 > g->ncap) {
		size_t c1 = g->ncap, c2 = g->ncap;
		if (grow((void **)&g->id, &c1, g->n + 2, sizeof *g->id) < 0 ||
		    grow((void **)&g->eoff, &c2, g->n + 2, sizeof *g->eoff) < 0)
			return -1;
		g->ncap = c1 < c2 ? c1 : c2;
	}
	uint64_t id = chakra_node_id(n);
	int put = tool_idmap_put(&g->map, id, (uint32_t)g->n, NULL);
	if (put < 0)
		return -1;
	if (put == 0 && g->dup_ids++ == 0)
		g->first_dup_id = id;
	g->id[g->n] = id;
	g->eoff[g->n] = g->ne;
	if ((g->kinds & AG_DATA) &&
	    add_edges(g, chakra_node_data_deps(n), chakra_node_data_dep_count(n), 0) < 0)
		return -1;
	if ((g->kinds & AG_CTRL) &&
	    add_edges(g, chakra_node_ctrl_deps(n), chakra_node_ctrl_dep_count(n), 1) < 0)
		return -1;
	g->eoff[g->n + 1] = g->ne;
	return (long long)g->n++;
}

int ag_graph_resolve(ag_graph *g, ag_problems *p)
{
	memset(p, 0, sizeof *p);
	if (!g->eoff) {
		/* Empty graph: keep the arrays valid for the callers. */
		g->eoff = calloc(1, sizeof *g->eoff);
		if (!g->eoff)
			return -1;
	}
	p->dup_ids = g->dup_ids;
	p->first_dup_id = g->first_dup_id;
	g->epidx = malloc((g->ne ? g->ne : 1) * sizeof *g->epidx);
	if (!g->epidx)
		return -1;
	tool_idmap absent;
	if (tool_idmap_init(&absent, 16) < 0)
		return -1;
	for (size_t v = 0; v < g->n; v++) {
		for (size_t e = g->eoff[v]; e < g->eoff[v + 1]; e++) {
			uint64_t pid = g->eparent[e];
			uint32_t pi = tool_idmap_get(&g->map, pid);
			g->epidx[e] = AG_NONE;
			if (pid == g->id[v]) {
				if (p->self_deps++ == 0)
					p->first_self_id = pid;
			} else if (pi == AG_NONE) {
				if (p->absent_refs++ == 0) {
					p->first_absent_id = pid;
					p->first_absent_child = g->id[v];
				}
				int r = tool_idmap_put(&absent, pid, 0, NULL);
				if (r < 0) {
					tool_idmap_free(&absent);
					return -1;
				}
				p->absent_ids += (uint64_t)r;
			} else {
				g->epidx[e] = pi;
			}
		}
	}
	tool_idmap_free(&absent);
	/* The ids are no longer needed as parents: free the larger array. */
	free(g->eparent);
	g->eparent = NULL;
	return 0;
}

int ag_graph_children(ag_graph *g)
{
	g->coff = calloc(g->n + 1, sizeof *g->coff);
	g->child = malloc((g->ne ? g->ne : 1) * sizeof *g->child);
	if (!g->coff || !g->child)
		return -1;
	for (size_t e = 0; e < g->ne; e++)
		if (g->epidx[e] != AG_NONE)
			g->coff[g->epidx[e] + 1]++;
	for (size_t v = 0; v < g->n; v++)
		g->coff[v + 1] += g->coff[v];
	size_t *fill = malloc((g->n ? g->n : 1) * sizeof *fill);
	if (!fill)
		return -1;
	memcpy(fill, g->coff, g->n * sizeof *fill);
	for (size_t v = 0; v < g->n; v++)
		for (size_t e = g->eoff[v]; e < g->eoff[v + 1]; e++)
			if (g->epidx[e] != AG_NONE)
				g->child[fill[g->epidx[e]]++] = (uint32_t)v;
	free(fill);
	return 0;
}

long long ag_graph_topo(const ag_graph *g, uint32_t *order)
{
	uint32_t *indeg = calloc(g->n ? g->n : 1, sizeof *indeg);
	if (!indeg)
		return -1;
	for (size_t v = 0; v < g->n; v++)
		for (size_t e = g->eoff[v]; e < g->eoff[v + 1]; e++)
			if (g->epidx[e] != AG_NONE)
				indeg[v]++;
	/* order doubles as the FIFO queue: head reads, tail appends. */
	size_t head = 0, tail = 0;
	for (size_t v = 0; v < g->n; v++)
		if (!indeg[v])
			order[tail++] = (uint32_t)v;
	while (head < tail) {
		uint32_t v = order[head++];
		for (size_t c = g->coff[v]; c < g->coff[v + 1]; c++)
			if (--indeg[g->child[c]] == 0)
				order[tail++] = g->child[c];
	}
	free(indeg);
	return (long long)tail;
}

void ag_problems_warn(const char *file, const ag_problems *p)
{
	if (p->dup_ids)
		fprintf(stderr,
		        "chakra: %s: warning: %llu node(s) reuse an earlier id (first: id %llu); "
		        "dependencies on such ids go to the first node\n",
		        file, (unsigned long long)p->dup_ids, (unsigned long long)p->first_dup_id);
	if (p->self_deps)
		fprintf(stderr, "chakra: %s: warning: %llu self-dependencies ignored (first: node %llu)\n",
		        file, (unsigned long long)p->self_deps, (unsigned long long)p->first_self_id);
	if (p->absent_refs)
		fprintf(stderr,
		        "chakra: %s: warning: %llu dependencies on %llu id(s) not in the file ignored "
		        "(first: node %llu -> %llu)\n",
		        file, (unsigned long long)p->absent_refs, (unsigned long long)p->absent_ids,
		        (unsigned long long)p->first_absent_child, (unsigned long long)p->first_absent_id);
	if (p->not_ordered)
		fprintf(stderr,
		        "chakra: %s: warning: dependency cycle: %llu node(s) are on or behind a cycle "
		        "and left out of the path figures (first in the file: node %llu)\n",
		        file, (unsigned long long)p->not_ordered, (unsigned long long)p->first_cycle_id);
}
