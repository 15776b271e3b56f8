/* SPDX-License-Identifier: Apache-2.0 */
/* chakra visualize: the cut streamed as DOT or GraphML (visualize.h).
 *
 * Nodes are streamed: only the ids in the cut and their parent edges are
 * kept. Edges are written after the nodes, and only when both ends are
 * in the cut; the rest are counted and named in the graph's caption. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../common.h"
#include "hint.h"
#include "text.h"
#include "visualize.h"

static const char *type_label(int t)
{
	const char *s = chakra_node_type_name(t);
	return s ? s : "UNKNOWN_TYPE";
}

static int node_size(const chakra_node *n, uint64_t *size)
{
	return chakra_node_comm_size(n, size) == 0 || chakra_node_tensor_size(n, size) == 0;
}

static void dot_node(FILE *f, const vopts *o, const chakra_node *n)
{
	size_t len;
	const char *name = chakra_node_name(n, &len);
	int t = chakra_node_type_of(n);
	static const char *const style[] = {
		[CHAKRA_COMP_NODE] = "shape=box, style=filled, fillcolor=\"#cfe2f3\"",
		[CHAKRA_COMM_COLL_NODE] = "shape=ellipse, style=filled, fillcolor=\"#f9cb9c\"",
		[CHAKRA_COMM_SEND_NODE] = "shape=cds, style=filled, fillcolor=\"#d9ead3\"",
		[CHAKRA_COMM_RECV_NODE] = "shape=cds, style=filled, fillcolor=\"#b6d7a8\"",
		[CHAKRA_MEM_LOAD_NODE] = "shape=folder, style=filled, fillcolor=\"#eeeeee\"",
		[CHAKRA_MEM_STORE_NODE] = "shape=folder, style=filled, fillcolor=\"#dddddd\"",
	};
	const char *st = (t >= 0 && t <= CHAKRA_COMM_COLL_NODE && style[t]) ? style[t] : "shape=box";
	fprintf(f, "  n%llu [%s, label=\"", (unsigned long long)chakra_node_id(n), st);
	text_dot(f, name, len, o->name_chars);
	fprintf(f, "\\n%s #%llu", type_label(t), (unsigned long long)chakra_node_id(n));
	if (o->durations)
		fprintf(f, "\\n%llu us", (unsigned long long)chakra_node_duration_micros(n));
	uint64_t size;
	if (o->sizes && node_size(n, &size))
		fprintf(f, "\\n%llu B", (unsigned long long)size);
	fputs("\"];\n", f);
}

static void graphml_node(FILE *f, const vopts *o, const chakra_node *n)
{
	size_t len;
	const char *name = chakra_node_name(n, &len);
	fprintf(f, "    <node id=\"n%llu\"><data key=\"name\">", (unsigned long long)chakra_node_id(n));
	text_xml(f, name, len);
	fprintf(f, "</data><data key=\"type\">%s</data>", type_label(chakra_node_type_of(n)));
	if (o->durations)
		fprintf(f, "<data key=\"duration\">%llu</data>",
		        (unsigned long long)chakra_node_duration_micros(n));
	uint64_t size;
	if (o->sizes && node_size(n, &size))
		fprintf(f, "<data key=\"size\">%llu</data>", (unsigned long long)size);
	fputs("</node>\n", f);
}

static int keep_edges(vstate *st, const uint64_t *ids, size_t k, uint64_t child, int ctrl)
{
	if (st->ne + k > st->ecap) {
		size_t nc = st->ecap ? st->ecap : 256;
		while (nc < st->ne + k)
			nc *= 2;
		pend_edge *ne = realloc(st->edges, nc * sizeof *ne);
		if (!ne)
			return -1;
		st->edges = ne;
		st->ecap = nc;
	}
	for (size_t i = 0; i < k; i++)
		st->edges[st->ne++] = (pend_edge){ ids[i], child, ctrl };
	return 0;
}

/* Second (or only) pass: write the nodes in the cut, then their edges. */
int vis_write_graph(FILE *f, const vopts *o, vstate *st, int graphml)
{
	chakra_reader *r;
	if (chakra_reader_open(&r, o->input, NULL) < 0) {
		tool_trace_err(o->input, chakra_reader_errmsg(r));
		chakra_reader_close(r);
		return -1;
	}
	if (!(st->seen = chakra_idmap_new(64))) {
		chakra_reader_close(r);
		return tool_err("out of memory"), -1;
	}
	if (graphml)
		fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		      "<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">\n"
		      "  <key id=\"name\" for=\"node\" attr.name=\"name\" attr.type=\"string\"/>\n"
		      "  <key id=\"type\" for=\"node\" attr.name=\"type\" attr.type=\"string\"/>\n"
		      "  <key id=\"duration\" for=\"node\" attr.name=\"duration_micros\" "
		      "attr.type=\"long\"/>\n"
		      "  <key id=\"size\" for=\"node\" attr.name=\"size_bytes\" attr.type=\"long\"/>\n"
		      "  <key id=\"kind\" for=\"edge\" attr.name=\"kind\" attr.type=\"string\"/>\n"
		      "  <graph id=\"G\" edgedefault=\"directed\">\n",
		      f);
	else
		fputs("digraph chakra {\n  graph [fontname=\"Helvetica\", fontsize=11];\n"
		      "  node [fontname=\"Helvetica\", fontsize=10];\n"
		      "  edge [arrowsize=0.6];\n",
		      f);
	const chakra_node *n;
	int nr, rc = -1;
	tool_progress prog;
	tool_progress_start(&prog, "writing graph", o->cut == 2 ? st->n_all : 0);
	while ((nr = chakra_reader_next(r, &n)) > 0) {
		uint64_t idx = chakra_reader_node_count(r) - 1, id = chakra_node_id(n);
		if ((idx & 4095) == 0)
			tool_progress_update(&prog, idx);
		if (!vis_in_cut(o, st, idx, id))
			continue;
		int put = chakra_idmap_put(st->seen, id, 0, NULL);
		if (put < 0) {
			tool_err("out of memory");
			goto out;
		}
		if (put == 0) {
			/* Same id again: one vertex per id, as dependencies name ids. */
			st->dup_skipped++;
			continue;
		}
		if (o->max_nodes && st->nodes == o->max_nodes) {
			tool_err("%s: more than %llu nodes to draw; cut the graph with --range or "
			         "--around, or raise --max-nodes (0 = no limit)",
			         o->input, (unsigned long long)o->max_nodes);
			goto out;
		}
		st->nodes++;
		if (graphml)
			graphml_node(f, o, n);
		else
			dot_node(f, o, n);
		if (keep_edges(st, chakra_node_data_deps(n), chakra_node_data_dep_count(n), id, 0) < 0 ||
		    keep_edges(st, chakra_node_ctrl_deps(n), chakra_node_ctrl_dep_count(n), id, 1) < 0) {
			tool_err("out of memory");
			goto out;
		}
	}
	tool_progress_end(&prog);
	if (nr < 0) {
		tool_trace_err(o->input, chakra_reader_errmsg(r));
		goto out;
	}
	uint64_t drawn = 0, outside = 0, self = 0;
	for (size_t e = 0; e < st->ne; e++) {
		const pend_edge *pe = &st->edges[e];
		if (pe->parent == pe->child) {
			self++;
			continue;
		}
		if (chakra_idmap_get(st->seen, pe->parent) == CHAKRA_GRAPH_NONE) {
			outside++;
			continue;
		}
		drawn++;
		if (graphml)
			fprintf(f, "    <edge source=\"n%llu\" target=\"n%llu\"><data key=\"kind\">%s</data>"
			           "</edge>\n",
			        (unsigned long long)pe->parent, (unsigned long long)pe->child,
			        pe->ctrl ? "ctrl" : "data");
		else
			fprintf(f, "  n%llu -> n%llu%s;\n", (unsigned long long)pe->parent,
			        (unsigned long long)pe->child, pe->ctrl ? " [style=dashed]" : "");
	}
	if (graphml) {
		fputs("  </graph>\n</graphml>\n", f);
	} else {
		/* Caption: what is drawn and what the cut left out. */
		const char *base = strrchr(o->input, '/');
		fputs("  labelloc=b;\n  label=\"", f);
		base = base ? base + 1 : strcmp(o->input, "-") ? o->input : "<stdin>";
		text_dot(f, base, strlen(base), 0);
		fprintf(f, ": %llu nodes, %llu edges (data solid, ctrl dashed)",
		        (unsigned long long)st->nodes, (unsigned long long)drawn);
		if (outside)
			fprintf(f, "; %llu edges to nodes outside the cut not drawn",
			        (unsigned long long)outside);
		if (self)
			fprintf(f, "; %llu self-dependencies not drawn", (unsigned long long)self);
		fputs("\";\n}\n", f);
	}
	if (st->dup_skipped)
		fprintf(stderr, "chakra: %s: warning: %llu node(s) reuse an earlier id; drawn once\n",
		        o->input, (unsigned long long)st->dup_skipped);
	if (self)
		fprintf(stderr, "chakra: %s: note: %llu self-dependencies not drawn\n", o->input,
		        (unsigned long long)self);
	if (!st->nodes)
		fprintf(stderr, "chakra: %s: warning: the cut holds no nodes\n", o->input);
	rc = 0;
out:
	chakra_reader_close(r);
	return rc;
}
