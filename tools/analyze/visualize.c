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
#include "hint.h"
#include "text.h"
#include "visualize.h"

static const char *const fmt_names[] = { "dot", "graphml", "svg", "pdf", "png" };

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
	if (o.cut == 2 && vis_select_around(&o, &st) < 0)
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
	int wrc = vis_write_graph(f, &o, &st, o.fmt == F_GRAPHML);
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
