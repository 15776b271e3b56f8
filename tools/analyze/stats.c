/* SPDX-License-Identifier: Apache-2.0 */
/* chakra stats: counts, bytes, durations, critical path, depth and width of
 * a trace or of every rank of a workload (PREFIX.0.et ...).
 *
 * One streaming pass keeps, per node, only its id, type, duration and
 * parent edges (graph.h); the path figures come from a topological order
 * (Kahn) over those compact arrays, so parents that appear after their
 * children, absent parents and cycles are all handled, the last two as
 * warnings. */
#define CHAKRA_EXPERIMENTAL
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../common.h"
#include "opts.h"
#include "hint.h"
#include "chakra/experimental/graph.h"
#include "jsonout.h"

#define N_TYPES 8   /* NodeType 0..7; [N_TYPES] = other values */
#define N_COLL 10   /* CollectiveCommType 0..9; [N_COLL] = missing/other */

/* Found while building the graph; reported as warnings. */
typedef struct problems {
	uint64_t dup_ids, first_dup_id;        /* later nodes reusing an id */
	uint64_t self_deps, first_self_id;     /* node listing itself */
	uint64_t absent_refs, absent_ids;      /* references / distinct ids never defined */
	uint64_t first_absent_id, first_absent_child;
	uint64_t not_ordered, first_cycle_id;  /* nodes on or behind a cycle */
	chakra_idmap *absent;
	int oom;
} problems;

typedef struct stats {
	const char *file;
	chakra_graph *g; /* while analysing */
	uint64_t nodes, edges;
	uint64_t type_count[N_TYPES + 1], type_dur[N_TYPES + 1];
	uint64_t coll_count[N_COLL + 1], coll_bytes[N_COLL + 1];
	uint64_t send_bytes, recv_bytes;
	uint64_t dur_total, dur_cpu, dur_gpu, dur_unknown;
	uint64_t n_cpu, n_gpu, n_unknown;
	uint64_t crit_dur, depth, width;
	uint64_t *path; /* ids on the critical path, source first */
	size_t path_len;
	problems prob;
} stats;

static uint64_t sat_add(uint64_t a, uint64_t b) { return a + b < a ? UINT64_MAX : a + b; }

static const char *deps_name(int kinds)
{
	return kinds == CHAKRA_GRAPH_DATA ? "data" : kinds == CHAKRA_GRAPH_CTRL ? "ctrl" : "both";
}

/* Longest paths over the graph (lib/graph): dist holds the durations on
 * entry. */
static int path_figures(chakra_graph *g, uint64_t *dist, stats *s)
{
	size_t n = chakra_graph_count(g);
	uint32_t *pred = malloc((n ? n : 1) * sizeof *pred);
	uint32_t *depth = malloc((n ? n : 1) * sizeof *depth);
	chakra_graph_paths ps;
	int rc = -1;
	if (!pred || !depth || chakra_graph_longest(g, CHAKRA_GRAPH_BOTH, dist, pred, depth, &ps) < 0)
		goto out;
	s->prob.not_ordered = ps.unordered;
	if (ps.unordered)
		s->prob.first_cycle_id = chakra_graph_id(g, ps.first_unordered);
	s->depth = ps.max_depth;
	s->width = ps.width;
	if (ps.best != CHAKRA_GRAPH_NONE) {
		s->crit_dur = dist[ps.best];
		size_t len = 0;
		for (uint32_t v = ps.best; v != CHAKRA_GRAPH_NONE; v = pred[v])
			len++;
		s->path = malloc(len * sizeof *s->path);
		if (!s->path)
			goto out;
		s->path_len = len;
		for (uint32_t v = ps.best; v != CHAKRA_GRAPH_NONE; v = pred[v])
			s->path[--len] = chakra_graph_id(g, v);
	}
	rc = 0;
out:
	free(pred);
	free(depth);
	return rc;
}

/* A parent that is the node itself or not in the file (lib/graph). */
static void bad_edge(void *data, uint32_t node, uint64_t pid, int is_ctrl, int is_self)
{
	stats *s = data;
	problems *p = &s->prob;
	(void)is_ctrl;
	(void)node;
	if (is_self) {
		if (p->self_deps++ == 0)
			p->first_self_id = pid;
		return;
	}
	if (p->absent_refs++ == 0) {
		p->first_absent_id = pid;
		p->first_absent_child = chakra_graph_id(s->g, node);
	}
	int r = p->oom ? 0 : chakra_idmap_put(p->absent, pid, 0, NULL);
	if (r < 0)
		p->oom = 1;
	else
		p->absent_ids += (uint64_t)r;
}

static void problems_warn(const char *file, const problems *p)
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

static int analyze_file(const char *path, int kinds, uint64_t max_dups, stats *s)
{
	memset(s, 0, sizeof *s);
	s->file = path;
	chakra_reader *r;
	if (chakra_reader_open(&r, path, NULL) < 0) {
		tool_trace_err(path, chakra_reader_errmsg(r));
		chakra_reader_close(r);
		return -1;
	}
	chakra_graph *g = s->g = chakra_graph_new();
	s->prob.absent = chakra_idmap_new(16);
	uint64_t *dur = NULL;
	size_t dcap = 0;
	int rc = -1, nr;
	const chakra_node *n;
	tool_progress prog;
	tool_progress_start_trace(&prog, path, path);
	while ((nr = chakra_reader_next(r, &n)) > 0) {
		uint32_t first;
		long long idx = !g || !s->prob.absent ? CHAKRA_ENOMEM
		                : chakra_graph_add(g, chakra_node_id(n),
		                                   kinds & CHAKRA_GRAPH_DATA ? chakra_node_data_deps(n) : NULL,
		                                   kinds & CHAKRA_GRAPH_DATA ? chakra_node_data_dep_count(n) : 0,
		                                   kinds & CHAKRA_GRAPH_CTRL ? chakra_node_ctrl_deps(n) : NULL,
		                                   kinds & CHAKRA_GRAPH_CTRL ? chakra_node_ctrl_dep_count(n) : 0,
		                                   &first);
		if (idx < 0) {
			tool_err("%s: %s after %llu nodes", path, idx == CHAKRA_ETOOBIG ? "too many nodes or "
			         "dependencies" : "out of memory", (unsigned long long)(g ? chakra_graph_count(g) : 0));
			goto out;
		}
		if (first != CHAKRA_GRAPH_NONE && s->prob.dup_ids++ == 0)
			s->prob.first_dup_id = chakra_node_id(n);
		/* an endless or repetitive input (/dev/zero, a gzip of zeros: empty
		 * nodes, all id 0) must not grow memory without bound */
		if (max_dups && s->prob.dup_ids > max_dups) {
			tool_err("%s: byte %llu: more than %llu nodes reuse an earlier id (first: id %llu); "
			         "stopped: this is not a usable trace (--max-errors N raises the limit, "
			         "0 = none)",
			         path, (unsigned long long)chakra_node_offset(n),
			         (unsigned long long)max_dups, (unsigned long long)s->prob.first_dup_id);
			goto out;
		}
		if ((size_t)idx >= dcap) {
			size_t nc = dcap ? dcap + dcap / 2 : 4096;
			uint64_t *nd = realloc(dur, nc * sizeof *nd);
			if (!nd) {
				tool_err("%s: out of memory", path);
				goto out;
			}
			dur = nd;
			dcap = nc;
		}
		uint64_t d = chakra_node_duration_micros(n);
		dur[idx] = d;
		int t = chakra_node_type_of(n);
		int ti = (t >= 0 && t < N_TYPES) ? t : N_TYPES;
		s->type_count[ti]++;
		s->type_dur[ti] = sat_add(s->type_dur[ti], d);
		s->dur_total = sat_add(s->dur_total, d);
		int cpu;
		if (chakra_node_is_cpu_op(n, &cpu) == 0) {
			if (cpu) {
				s->n_cpu++;
				s->dur_cpu = sat_add(s->dur_cpu, d);
			} else {
				s->n_gpu++;
				s->dur_gpu = sat_add(s->dur_gpu, d);
			}
		} else {
			s->n_unknown++;
			s->dur_unknown = sat_add(s->dur_unknown, d);
		}
		uint64_t size = 0;
		int has_size = chakra_node_comm_size(n, &size) == 0;
		if (t == CHAKRA_COMM_COLL_NODE) {
			int64_t ct;
			int ci = (chakra_node_comm_type(n, &ct) == 0 && ct >= 0 && ct < N_COLL) ? (int)ct
			                                                                        : N_COLL;
			s->coll_count[ci]++;
			if (has_size)
				s->coll_bytes[ci] = sat_add(s->coll_bytes[ci], size);
		} else if (t == CHAKRA_COMM_SEND_NODE && has_size) {
			s->send_bytes = sat_add(s->send_bytes, size);
		} else if (t == CHAKRA_COMM_RECV_NODE && has_size) {
			s->recv_bytes = sat_add(s->recv_bytes, size);
		}
		if ((idx & 4095) == 0)
			tool_progress_trace(&prog, chakra_reader_offset(r), (uint64_t)idx);
	}
	tool_progress_end(&prog);
	if (nr < 0) {
		tool_trace_err(path, chakra_reader_errmsg(r));
		goto out;
	}
	s->nodes = chakra_graph_count(g);
	s->edges = chakra_graph_edge_count(g);
	/* the durations become the path lengths */
	if (chakra_graph_resolve(g, bad_edge, s) < 0 || s->prob.oom ||
	    path_figures(g, dur, s) < 0) {
		tool_err("%s: out of memory", path);
		goto out;
	}
	problems_warn(path, &s->prob);
	rc = 0;
out:
	free(dur);
	chakra_graph_free(g);
	chakra_idmap_free(s->prob.absent);
	s->g = NULL;
	s->prob.absent = NULL;
	chakra_reader_close(r);
	return rc;
}

/* ---- output ---- */

static void print_text(FILE *f, const stats *s, int kinds, int full_path)
{
	fprintf(f, "trace: %s\n", s->file);
	fprintf(f, "nodes: %llu   dependencies followed: %s (%llu edges listed)\n",
	        (unsigned long long)s->nodes, deps_name(kinds), (unsigned long long)s->edges);
	fprintf(f, "node types:                count   duration_us\n");
	for (int t = 0; t <= N_TYPES; t++) {
		if (!s->type_count[t])
			continue;
		const char *name = t < N_TYPES ? chakra_node_type_name(t) : "(other type)";
		fprintf(f, "  %-22s %8llu %13llu\n", name, (unsigned long long)s->type_count[t],
		        (unsigned long long)s->type_dur[t]);
	}
	int any = 0;
	for (int c = 0; c <= N_COLL; c++)
		any |= s->coll_count[c] != 0;
	if (any) {
		fprintf(f, "collectives:              count         bytes\n");
		for (int c = 0; c <= N_COLL; c++) {
			if (!s->coll_count[c])
				continue;
			const char *name = c < N_COLL ? chakra_comm_type_name(c) : "(no comm_type)";
			fprintf(f, "  %-22s %8llu %13llu\n", name, (unsigned long long)s->coll_count[c],
			        (unsigned long long)s->coll_bytes[c]);
		}
	}
	if (s->send_bytes || s->recv_bytes)
		fprintf(f, "point-to-point bytes: send %llu, recv %llu\n",
		        (unsigned long long)s->send_bytes, (unsigned long long)s->recv_bytes);
	fprintf(f, "duration_us: total %llu; cpu %llu (%llu ops), gpu %llu (%llu ops), "
	           "no is_cpu_op %llu (%llu nodes)\n",
	        (unsigned long long)s->dur_total, (unsigned long long)s->dur_cpu,
	        (unsigned long long)s->n_cpu, (unsigned long long)s->dur_gpu,
	        (unsigned long long)s->n_gpu, (unsigned long long)s->dur_unknown,
	        (unsigned long long)s->n_unknown);
	fprintf(f, "critical path: %llu us over %zu nodes\n", (unsigned long long)s->crit_dur,
	        s->path_len);
	if (s->path_len) {
		size_t show = full_path || s->path_len <= 40 ? s->path_len : 40;
		fputs("  ids:", f);
		for (size_t i = 0; i < show; i++)
			fprintf(f, " %llu", (unsigned long long)s->path[i]);
		if (show < s->path_len)
			fprintf(f, " ... (%zu more; --full-path lists all)", s->path_len - show);
		fputc('\n', f);
	}
	fprintf(f, "depth: %llu nodes   width: %llu nodes\n", (unsigned long long)s->depth,
	        (unsigned long long)s->width);
}

static void json_stats(yajl_gen g, const stats *s, int kinds)
{
	yajl_gen_map_open(g);
	jo_kv_str(g, "file", s->file);
	jo_kv_u64(g, "nodes", s->nodes);
	jo_kv_str(g, "deps", deps_name(kinds));
	jo_kv_u64(g, "edges", s->edges);
	jo_str(g, "node_types");
	yajl_gen_map_open(g);
	for (int t = 0; t <= N_TYPES; t++) {
		if (!s->type_count[t])
			continue;
		jo_str(g, t < N_TYPES ? chakra_node_type_name(t) : "OTHER");
		yajl_gen_map_open(g);
		jo_kv_u64(g, "count", s->type_count[t]);
		jo_kv_u64(g, "duration_micros", s->type_dur[t]);
		yajl_gen_map_close(g);
	}
	yajl_gen_map_close(g);
	jo_str(g, "collectives");
	yajl_gen_map_open(g);
	for (int c = 0; c <= N_COLL; c++) {
		if (!s->coll_count[c])
			continue;
		jo_str(g, c < N_COLL ? chakra_comm_type_name(c) : "NO_COMM_TYPE");
		yajl_gen_map_open(g);
		jo_kv_u64(g, "count", s->coll_count[c]);
		jo_kv_u64(g, "bytes", s->coll_bytes[c]);
		yajl_gen_map_close(g);
	}
	yajl_gen_map_close(g);
	jo_kv_u64(g, "send_bytes", s->send_bytes);
	jo_kv_u64(g, "recv_bytes", s->recv_bytes);
	jo_str(g, "duration_micros");
	yajl_gen_map_open(g);
	jo_kv_u64(g, "total", s->dur_total);
	jo_kv_u64(g, "cpu", s->dur_cpu);
	jo_kv_u64(g, "gpu", s->dur_gpu);
	jo_kv_u64(g, "unknown", s->dur_unknown);
	yajl_gen_map_close(g);
	jo_str(g, "op_counts");
	yajl_gen_map_open(g);
	jo_kv_u64(g, "cpu", s->n_cpu);
	jo_kv_u64(g, "gpu", s->n_gpu);
	jo_kv_u64(g, "unknown", s->n_unknown);
	yajl_gen_map_close(g);
	jo_str(g, "critical_path");
	yajl_gen_map_open(g);
	jo_kv_u64(g, "duration_micros", s->crit_dur);
	jo_str(g, "nodes");
	yajl_gen_array_open(g);
	for (size_t i = 0; i < s->path_len; i++)
		jo_u64(g, s->path[i]);
	yajl_gen_array_close(g);
	yajl_gen_map_close(g);
	jo_kv_u64(g, "depth", s->depth);
	jo_kv_u64(g, "width", s->width);
	jo_str(g, "warnings");
	yajl_gen_map_open(g);
	jo_kv_u64(g, "duplicate_ids", s->prob.dup_ids);
	jo_kv_u64(g, "self_deps", s->prob.self_deps);
	jo_kv_u64(g, "absent_refs", s->prob.absent_refs);
	jo_kv_u64(g, "absent_ids", s->prob.absent_ids);
	jo_kv_u64(g, "cycle_nodes", s->prob.not_ordered);
	yajl_gen_map_close(g);
	yajl_gen_map_close(g);
}

/* ---- inputs: one file, or PREFIX.0.et[.gz], PREFIX.1.et[.gz], ... ---- */

/* Path of rank r of prefix: 1 found (*out set), 0 neither .et nor .et.gz
 * exists, -1 one exists but is not a readable trace file (printed). */
static int rank_path(const char *prefix, size_t r, char **out)
{
	size_t len = strlen(prefix) + 48;
	char *p = malloc(len);
	if (!p) {
		tool_err("out of memory");
		return -1;
	}
	for (int gz = 0; gz < 2; gz++) {
		struct stat st;
		snprintf(p, len, "%s.%zu.et%s", prefix, r, gz ? ".gz" : "");
		if (stat(p, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			tool_err("%s: is a directory, not rank %zu's trace", p, r);
			free(p);
			return -1;
		}
		*out = p;
		return 1;
	}
	free(p);
	return 0;
}

/* The highest N of PREFIX.N.et[.gz] in PREFIX's directory, or -1: ranks
 * past a gap must not be dropped without a word. */
static long long highest_rank(const char *prefix)
{
	const char *slash = strrchr(prefix, '/');
	char *dir = slash ? strndup(prefix, (size_t)(slash - prefix) + 1) : strdup(".");
	const char *base = slash ? slash + 1 : prefix;
	size_t bl = strlen(base);
	long long best = -1;
	DIR *d = dir ? opendir(dir) : NULL;
	struct dirent *e;
	while (d && (e = readdir(d))) {
		const char *nm = e->d_name;
		if (strncmp(nm, base, bl) || nm[bl] != '.')
			continue;
		char *end;
		errno = 0;
		unsigned long long v = strtoull(nm + bl + 1, &end, 10);
		if (errno || end == nm + bl + 1 || nm[bl + 1] < '0' || nm[bl + 1] > '9' || v > (1ull << 40))
			continue;
		if ((!strcmp(end, ".et") || !strcmp(end, ".et.gz")) && (long long)v > best)
			best = (long long)v;
	}
	if (d)
		closedir(d);
	free(dir);
	return best;
}

int cmd_stats(int argc, char **argv)
{
	const char *out = "-";
	int json = 0, deps = 0, full_path = 0, force = 0;
	uint64_t max_dups = 100;
	const tool_option opts[] = {
		{ "--json", NULL, TOOL_FLAG, &json, NULL, "JSON output (all critical-path ids)" },
		{ "--deps", "KIND", TOOL_CHOICE, &deps, "data|ctrl|both", "data (default), ctrl or both" },
		{ "--full-path", NULL, TOOL_FLAG, &full_path, NULL, "list every critical-path id in text output" },
		{ "--max-errors", "N", TOOL_U64, &max_dups, NULL,
		  "stop when more than N nodes reuse an earlier id\n"
		  "(default 100; 0 = no limit): /dev/zero is not a trace" },
		{ "-o, --output", "OUT", TOOL_STR, &out, NULL, "write to OUT instead of stdout" },
		{ "-f, --force", NULL, TOOL_FLAG, &force, NULL, "replace OUT if it exists" },
		{ NULL, NULL, 0, NULL, NULL, NULL },
	};
	const tool_command cmd = {
		"TRACE|PREFIX [--json] [--deps data|ctrl|both] [--full-path]\n"
		"                    [--max-errors N] [-o OUT [-f]]",
		"Counts by node type and collective type, bytes per collective (comm_size),\n"
		"total / CPU / GPU duration (is_cpu_op), critical path (longest path by\n"
		"duration_micros through the chosen dependencies; default data) with its nodes,\n"
		"depth (longest path in nodes) and width (most nodes at one depth level).\n"
		"PREFIX: every rank PREFIX.0.et, PREFIX.1.et, ... (or .et.gz), reported per rank;\n"
		"missing ranks are named. Dependencies on absent ids, self-dependencies and\n"
		"cycles are warnings.",
		opts, NULL, 1, 1, "TRACE or PREFIX"
	};
	const char **args;
	int nargs, prc = tool_parse(&cmd, argc, argv, &args, &nargs);
	if (prc != TOOL_PARSED)
		return prc == TOOL_HELP_SHOWN ? 0 : prc;
	const char *input = args[0];
	free(args);
	int kinds = deps == 0 ? CHAKRA_GRAPH_DATA : deps == 1 ? CHAKRA_GRAPH_CTRL : CHAKRA_GRAPH_BOTH;

	/* Anything that exists (a file, stdin, a device, a FIFO) is one trace;
	 * otherwise a workload prefix. files[r] is NULL for a missing rank. */
	size_t nfiles = 0, nmissing = 0;
	char **files = NULL;
	int workload = 0, rc = 0;
	struct stat st;
	if (!strcmp(input, "-") || stat(input, &st) == 0) {
		if (strcmp(input, "-") && S_ISDIR(st.st_mode))
			return tool_err("%s: is a directory; expected a trace or a workload prefix "
			                "(PREFIX for PREFIX.0.et, PREFIX.1.et, ...)", input);
		files = malloc(sizeof *files);
		if (!files || !(files[0] = strdup(input)))
			return tool_err("out of memory");
		nfiles = 1;
	} else {
		workload = 1;
		long long last = highest_rank(input);
		for (size_t r = 0; (long long)r <= last; r++) {
			char **nf = realloc(files, (nfiles + 1) * sizeof *nf);
			if (!nf) {
				rc = tool_err("out of memory");
				goto done;
			}
			files = nf;
			files[nfiles] = NULL;
			int f = rank_path(input, r, &files[nfiles]);
			nfiles++;
			if (f < 0) {
				rc = 1;
				goto done;
			}
			nmissing += f == 0;
		}
		if (!nfiles)
			return tool_err("%s: no such file or directory, and no workload %s.0.et or "
			                "%s.0.et.gz", input, input, input);
		if (nmissing) {
			char list[256] = "";
			size_t pos = 0, shown = 0;
			for (size_t r = 0; r < nfiles; r++)
				if (!files[r] && shown++ < 10)
					pos += (size_t)snprintf(list + pos, sizeof list - pos, "%s%zu",
					                        shown > 1 ? ", " : "", r);
			fprintf(stderr, "chakra: %s: warning: %zu of ranks 0..%zu missing (no %s.R.et or "
			                ".et.gz for R = %s%s); the others are reported\n",
			        input, nmissing, nfiles - 1, input, list, nmissing > 10 ? ", ..." : "");
		}
	}
	/* refuse before the work, not after it */
	if (tool_out_check(out, force, (const char *const *)files, (int)nfiles) < 0) {
		rc = 1;
		goto done;
	}
	stats *all = calloc(nfiles, sizeof *all);
	if (!all) {
		rc = tool_err("out of memory");
		goto done;
	}
	for (size_t k = 0; k < nfiles && !rc; k++)
		if (files[k] && analyze_file(files[k], kinds, max_dups, &all[k]) < 0)
			rc = 1;
	tool_out of;
	if (!rc && tool_out_open(&of, out, force, (const char *const *)files, (int)nfiles) < 0)
		rc = 1;
	if (!rc) {
		FILE *f = of.f;
		if (json) {
			yajl_gen g = jo_open(f, 1);
			if (workload) {
				yajl_gen_map_open(g);
				jo_kv_str(g, "workload", input);
				jo_kv_u64(g, "ranks", nfiles - nmissing);
				jo_str(g, "missing_ranks");
				yajl_gen_array_open(g);
				for (size_t k = 0; k < nfiles; k++)
					if (!files[k])
						jo_u64(g, k);
				yajl_gen_array_close(g);
				jo_str(g, "per_rank");
				yajl_gen_array_open(g);
				for (size_t k = 0; k < nfiles; k++)
					if (files[k])
						json_stats(g, &all[k], kinds);
				yajl_gen_array_close(g);
				yajl_gen_map_close(g);
			} else {
				json_stats(g, &all[0], kinds);
			}
			yajl_gen_free(g);
			fputc('\n', f);
		} else {
			if (workload) {
				uint64_t nodes = 0, worst = 0;
				size_t wr = 0;
				for (size_t k = 0; k < nfiles; k++) {
					nodes += all[k].nodes;
					if (all[k].crit_dur > worst)
						worst = all[k].crit_dur, wr = k;
				}
				fprintf(f, "workload: %s: %zu ranks", input, nfiles - nmissing);
				if (nmissing)
					fprintf(f, " (%zu of 0..%zu missing)", nmissing, nfiles - 1);
				fprintf(f, ", %llu nodes; longest critical path %llu us (rank %zu)\n",
				        (unsigned long long)nodes, (unsigned long long)worst, wr);
			}
			for (size_t k = 0; k < nfiles; k++) {
				if (!files[k])
					continue;
				if (workload)
					fprintf(f, "\n== rank %zu ==\n", k);
				print_text(f, &all[k], kinds, full_path);
			}
		}
		if (tool_out_commit(&of) < 0)
			rc = 1;
	}
	for (size_t k = 0; k < nfiles; k++)
		free(all[k].path);
	free(all);
done:
	for (size_t k = 0; k < nfiles; k++)
		free(files[k]);
	free(files);
	return rc;
}
