/* SPDX-License-Identifier: Apache-2.0 */
/* chakra visualize: the dependency graph of a trace (or of a cut of it) as
 * DOT or GraphML, or rendered to SVG/PDF/PNG by Graphviz's `dot`.
 *
 * Nodes are streamed: only the ids in the cut and their parent edges are
 * kept (--around needs one extra pass that keeps ids and edges, no node
 * bodies). Edges are written after the nodes, and only when both ends are
 * in the cut; the rest are counted and named in the graph's caption. */
#define CHAKRA_EXPERIMENTAL
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../common.h"
#include "opts.h"
#include "chakra/experimental/graph.h"
#include "hint.h"
#include "text.h"

enum fmt { F_DOT, F_GRAPHML, F_SVG, F_PDF, F_PNG };
static const char *const fmt_names[] = { "dot", "graphml", "svg", "pdf", "png" };

typedef struct vopts {
	const char *input, *out;
	enum fmt fmt;
	int durations, sizes;
	int cut; /* 0 none, 1 range, 2 around */
	uint64_t lo, hi, center, depth, max_nodes;
	size_t name_chars;
} vopts;

typedef struct pend_edge {
	uint64_t parent, child;
	int ctrl;
} pend_edge;

typedef struct vstate {
	chakra_idmap *seen; /* ids drawn */
	pend_edge *edges; /* parent edges of the drawn nodes */
	size_t ne, ecap;
	uint64_t nodes, dup_skipped;
	/* --around: the selected node indices of the first pass. */
	chakra_graph *g;    /* --around: ids and both kinds of edges */
	size_t n_all;
	unsigned char *sel;
} vstate;

/* ---- cut ---- */

/* --around: collect ids and both kinds of edges, then walk K steps from
 * the centre over parents and children. */
static int select_around(const vopts *o, vstate *st)
{
	chakra_reader *r;
	if (chakra_reader_open(&r, o->input, NULL) < 0) {
		tool_trace_err(o->input, chakra_reader_errmsg(r));
		chakra_reader_close(r);
		return -1;
	}
	st->g = chakra_graph_new();
	if (!st->g) {
		chakra_reader_close(r);
		return tool_err("out of memory"), -1;
	}
	const chakra_node *n;
	int nr;
	tool_progress prog;
	tool_progress_start(&prog, "collecting edges", 0);
	while ((nr = chakra_reader_next(r, &n)) > 0) {
		uint32_t first;
		long long idx = chakra_graph_add(st->g, chakra_node_id(n), chakra_node_data_deps(n),
		                                 chakra_node_data_dep_count(n), chakra_node_ctrl_deps(n),
		                                 chakra_node_ctrl_dep_count(n), &first);
		if (idx < 0) {
			chakra_reader_close(r);
			return tool_err("%s: out of memory", o->input), -1;
		}
		if ((idx & 4095) == 0)
			tool_progress_update(&prog, (uint64_t)idx);
	}
	tool_progress_end(&prog);
	if (nr < 0) {
		tool_trace_err(o->input, chakra_reader_errmsg(r));
		chakra_reader_close(r);
		return -1;
	}
	chakra_reader_close(r);
	const uint32_t *list;
	if (chakra_graph_resolve(st->g, NULL, NULL) < 0 || chakra_graph_children(st->g, 0, &list) < 0)
		return tool_err("%s: out of memory", o->input), -1;
	uint32_t c = chakra_graph_find(st->g, o->center);
	if (c == CHAKRA_GRAPH_NONE)
		return tool_err("%s: --around %llu: no node with that id", o->input,
		                (unsigned long long)o->center), -1;
	size_t n_all = st->n_all = chakra_graph_count(st->g);
	st->sel = calloc(n_all ? n_all : 1, 1);
	uint32_t *queue = malloc((n_all ? n_all : 1) * sizeof *queue);
	uint64_t *dist = malloc((n_all ? n_all : 1) * sizeof *dist);
	if (!st->sel || !queue || !dist) {
		free(queue);
		free(dist);
		return tool_err("out of memory"), -1;
	}
	size_t head = 0, tail = 0;
	queue[tail++] = c;
	st->sel[c] = 1;
	dist[c] = 0;
	while (head < tail) {
		uint32_t v = queue[head++];
		if (dist[v] >= o->depth)
			continue;
		/* Parents, then children: both edge kinds, both directions. */
		size_t k = chakra_graph_parents(st->g, v, &list);
		for (size_t e = 0; e < k; e++) {
			uint32_t u = CHAKRA_GRAPH_EDGE_NODE(list[e]);
			if (u != CHAKRA_GRAPH_EDGE_DROPPED && !st->sel[u]) {
				st->sel[u] = 1;
				dist[u] = dist[v] + 1;
				queue[tail++] = u;
			}
		}
		long long kc = chakra_graph_children(st->g, v, &list);
		for (long long e = 0; e < kc; e++) {
			uint32_t u = list[e];
			if (!st->sel[u]) {
				st->sel[u] = 1;
				dist[u] = dist[v] + 1;
				queue[tail++] = u;
			}
		}
	}
	free(queue);
	free(dist);
	return 0;
}

/* Is the node at file index idx with this id in the cut? */
static int in_cut(const vopts *o, const vstate *st, uint64_t idx, uint64_t id)
{
	if (o->cut == 1)
		return id >= o->lo && id <= o->hi;
	if (o->cut == 2)
		return idx < st->n_all && st->sel[idx];
	return 1;
}

/* ---- writers ---- */

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
static int write_graph(FILE *f, const vopts *o, vstate *st, int graphml)
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
		if (!in_cut(o, st, idx, id))
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

/* ---- Graphviz ---- */

/* Full path of `dot` from PATH, or NULL. */
static char *find_dot(void)
{
	const char *path = getenv("PATH");
	if (!path || !*path)
		return NULL;
	const char *p = path;
	while (1) {
		const char *end = strchr(p, ':');
		size_t dl = end ? (size_t)(end - p) : strlen(p);
		char *cand = malloc(dl + 6);
		if (!cand)
			return NULL;
		if (dl)
			memcpy(cand, p, dl);
		else
			cand[0] = '.', dl = 1; /* empty PATH entry = current directory */
		memcpy(cand + dl, "/dot", 5);
		struct stat sb;
		if (stat(cand, &sb) == 0 && S_ISREG(sb.st_mode) && access(cand, X_OK) == 0)
			return cand;
		free(cand);
		if (!end)
			return NULL;
		p = end + 1;
	}
}

static int run_dot(const char *dot, const char *fmt, const char *in, const char *out)
{
	char tflag[32];
	snprintf(tflag, sizeof tflag, "-T%s", fmt);
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		return tool_err("cannot start %s: %s", dot, strerror(errno)), -1;
	if (pid == 0) {
		char *args[] = { (char *)dot, tflag, (char *)"-o", (char *)out, (char *)in, NULL };
		execv(dot, args);
		fprintf(stderr, "chakra: cannot run %s: %s\n", dot, strerror(errno));
		_exit(127);
	}
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return tool_err("waiting for %s: %s", dot, strerror(errno)), -1;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return tool_err("%s -T%s failed (%s %d); the DOT input was fine for chakra, see "
		                "Graphviz's message above",
		                dot, fmt, WIFEXITED(status) ? "exit status" : "signal",
		                WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status)),
		       -1;
	return 0;
}

/* ---- command ---- */

static int parse_fmt(const char *s, enum fmt *f)
{
	for (int i = 0; i <= F_PNG; i++)
		if (!strcmp(s, fmt_names[i])) {
			*f = (enum fmt)i;
			return 0;
		}
	if (!strcmp(s, "gv")) {
		*f = F_DOT;
		return 0;
	}
	return -1;
}

int cmd_visualize(int argc, char **argv)
{
	vopts o = { .depth = 2, .name_chars = 40 };
	const char *fmt = NULL, *range = NULL, *around = NULL;
	uint64_t depth = UINT64_MAX, max_nodes = UINT64_MAX, name_chars = 40; /* MAX = not given */
	int force = 0;
	const tool_option opts[] = {
		{ "-o, --output", "OUT", TOOL_STR, &o.out, NULL,
		  "output file ('-' = stdout, DOT/GraphML only)" },
		{ "-f, --force", NULL, TOOL_FLAG, &force, NULL, "replace OUT if it exists" },
		{ "--format", "FMT", TOOL_STR, &fmt, NULL,
		  "dot, graphml, svg, pdf or png (default: OUT's extension)" },
		{ "--range", "A:B", TOOL_STR, &range, NULL, "only nodes with A <= id <= B" },
		{ "--around", "ID", TOOL_STR, &around, NULL,
		  "only nodes within --depth steps of node ID over data and\n"
		  "control edges, both directions (reads TRACE twice)" },
		{ "--depth", "K", TOOL_U64, &depth, NULL, "steps for --around (default 2)" },
		{ "--durations", NULL, TOOL_FLAG, &o.durations, NULL, "add duration_micros to the labels" },
		{ "--sizes", NULL, TOOL_FLAG, &o.sizes, NULL,
		  "add comm_size (else tensor_size) bytes to the labels" },
		{ "--name-chars", "N", TOOL_U64, &name_chars, NULL,
		  "cut names to N characters in DOT labels (default 40, 0 = all)" },
		{ "--max-nodes", "N", TOOL_U64, &max_nodes, NULL,
		  "refuse to draw more nodes (default 300 for svg/pdf/png,\n"
		  "no limit for dot/graphml; 0 = no limit)" },
		{ NULL, NULL, 0, NULL, NULL, NULL },
	};
	const tool_command cmd = {
		"TRACE -o OUT.{dot,graphml,svg,pdf,png} [options]",
		"The dependency graph: one vertex per node labelled with its name, type and id;\n"
		"edges from parent to child, data dependencies solid, control dependencies\n"
		"dashed. DOT and GraphML are written directly; SVG, PDF and PNG are rendered\n"
		"by Graphviz's `dot` (found in PATH). Edges to nodes outside the cut are not\n"
		"drawn: the caption counts them.",
		opts, NULL, 1, 1, "TRACE"
	};
	const char **args;
	int nargs, prc = tool_parse(&cmd, argc, argv, &args, &nargs);
	if (prc != TOOL_PARSED)
		return prc == TOOL_HELP_SHOWN ? 0 : prc;
	o.input = args[0];
	free(args);
	if (range && around)
		return tool_usage(argv[0], "--range and --around exclude each other");
	if (range) {
		const char *colon = strchr(range, ':');
		char a[32];
		size_t al = colon ? (size_t)(colon - range) : 0;
		if (!colon || al == 0 || al >= sizeof a)
			return tool_usage(argv[0], "--range expects A:B (node ids), got '%s'", range);
		memcpy(a, range, al);
		a[al] = 0;
		if (tool_parse_u64("--range", a, &o.lo) < 0 ||
		    tool_parse_u64("--range", colon + 1, &o.hi) < 0)
			return 2;
		if (o.lo > o.hi)
			return tool_usage(argv[0], "--range %s: A is larger than B", range);
		o.cut = 1;
	}
	if (around) {
		if (tool_parse_u64("--around", around, &o.center) < 0)
			return 2;
		o.cut = 2;
	}
	int have_depth = depth != UINT64_MAX, have_max = max_nodes != UINT64_MAX;
	if (have_depth)
		o.depth = depth;
	if (have_max)
		o.max_nodes = max_nodes;
	o.name_chars = (size_t)name_chars;
	if (!o.out)
		return tool_usage(argv[0], "missing -o OUT");
	if (have_depth && o.cut != 2)
		return tool_usage(argv[0], "--depth goes with --around");
	if (fmt) {
		if (parse_fmt(fmt, &o.fmt) < 0)
			return tool_usage(argv[0], "--format: expected dot, graphml, svg, pdf or png");
	} else {
		const char *dot = strrchr(o.out, '.');
		const char *slash = strrchr(o.out, '/');
		if (!strcmp(o.out, "-"))
			o.fmt = F_DOT;
		else if (!dot || (slash && dot < slash) || parse_fmt(dot + 1, &o.fmt) < 0)
			return tool_usage(argv[0], "%s: cannot tell the format from the extension; "
			                           "use .dot, .graphml, .svg, .pdf, .png or --format",
			                  o.out);
	}
	int render = o.fmt >= F_SVG;
	if (render && !strcmp(o.out, "-"))
		return tool_usage(argv[0], "%s output needs a file, not stdout", fmt_names[o.fmt]);
	struct stat ist;
	if (o.cut == 2 && (!strcmp(o.input, "-") ||
	                   (stat(o.input, &ist) == 0 && !S_ISREG(ist.st_mode))))
		/* a pipe's data would be gone for the second pass, which would
		 * then wait forever for a writer */
		return tool_usage(argv[0], "--around reads TRACE twice: give a regular file, not stdin, "
		                  "a pipe or a device");
	if (!have_max)
		o.max_nodes = render ? 300 : 0; /* dot: ~20 s at 300 nodes */
	const char *inputs[] = { o.input };
	if (tool_out_check(o.out, force, inputs, 1) < 0)
		return 1;

	char *dot = NULL;
	if (render && !(dot = find_dot()))
		return tool_err("Graphviz's `dot` is not in PATH: install graphviz "
		                "(e.g. apt-get install graphviz) to write %s, or write .dot and render "
		                "it elsewhere",
		                fmt_names[o.fmt]);

	vstate st;
	memset(&st, 0, sizeof st);
	int rc = 1;
	char tmp[4096] = "";
	tool_out of = { 0 };
	FILE *f = NULL;
	if (o.cut == 2 && select_around(&o, &st) < 0)
		goto out;
	if (render) {
		/* the DOT text for Graphviz: a private temporary file */
		const char *td = getenv("TMPDIR");
		snprintf(tmp, sizeof tmp, "%s/chakra-visualize-XXXXXX", td && *td ? td : "/tmp");
		int fd = tool_mkstemp(tmp);
		if (fd < 0) {
			tool_err("%s: cannot create a temporary file: %s", tmp, strerror(errno));
			tmp[0] = 0;
			goto out;
		}
		f = fdopen(fd, "w");
		if (!f) {
			close(fd);
			tool_err("%s: %s", tmp, strerror(errno));
			goto out;
		}
	}
	/* the output under the rule (temporary + rename): for a rendering,
	 * Graphviz writes the temporary */
	if (tool_out_open(&of, o.out, force, inputs, 1) < 0)
		goto out;
	if (!render)
		f = of.f;
	int wrc = write_graph(f, &o, &st, o.fmt == F_GRAPHML);
	int crc = render ? tool_fclose_out(f, tmp) : tool_out_close(&of);
	f = NULL;
	if (wrc < 0 || crc < 0)
		goto out; /* nothing half-written is left under the user's name */
	if (render) {
		tool_out_close(&of);
		if (run_dot(dot, fmt_names[o.fmt], tmp, of.tmp ? of.tmp : o.out) < 0)
			goto out;
	}
	if (tool_out_commit(&of) < 0)
		goto out;
	rc = 0;
out:
	if (f && f != of.f)
		fclose(f);
	tool_out_abort(&of);
	if (tmp[0])
		tool_tmp_remove(tmp);
	free(dot);
	free(st.edges);
	free(st.sel);
	chakra_idmap_free(st.seen);
	chakra_graph_free(st.g);
	return rc;
}
