/* SPDX-License-Identifier: Apache-2.0 */
/* chakra stats: counts, bytes, durations, critical path, depth and width of
 * a trace or of every rank of a workload (PREFIX.0.et ...).
 *
 * One streaming pass keeps, per node, only its id, type, duration and
 * parent edges (graph.h); the path figures come from a topological order
 * (Kahn) over those compact arrays, so parents that appear after their
 * children, absent parents and cycles are all handled, the last two as
 * warnings. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../common.h"
#include "opts.h"
#include "hint.h"
#include "graph.h"
#include "jsonout.h"

#define N_TYPES 8   /* NodeType 0..7; [N_TYPES] = other values */
#define N_COLL 10   /* CollectiveCommType 0..9; [N_COLL] = missing/other */

typedef struct stats {
	const char *file;
	uint64_t nodes, edges;
	uint64_t type_count[N_TYPES + 1], type_dur[N_TYPES + 1];
	uint64_t coll_count[N_COLL + 1], coll_bytes[N_COLL + 1];
	uint64_t send_bytes, recv_bytes;
	uint64_t dur_total, dur_cpu, dur_gpu, dur_unknown;
	uint64_t n_cpu, n_gpu, n_unknown;
	uint64_t crit_dur, depth, width;
	uint64_t *path; /* ids on the critical path, source first */
	size_t path_len;
	ag_problems prob;
} stats;

static uint64_t sat_add(uint64_t a, uint64_t b) { return a + b < a ? UINT64_MAX : a + b; }

static const char *deps_name(int kinds)
{
	return kinds == AG_DATA ? "data" : kinds == AG_CTRL ? "ctrl" : "both";
}

/* Longest paths over the resolved graph in topological order. */
static int path_figures(ag_graph *g, const uint64_t *dur, stats *s)
{
	size_t n = g->n;
	uint32_t *order = malloc((n ? n : 1) * sizeof *order);
	uint64_t *dist = malloc((n ? n : 1) * sizeof *dist);
	uint32_t *pred = malloc((n ? n : 1) * sizeof *pred);
	uint32_t *depth = calloc(n ? n : 1, sizeof *depth);
	int rc = -1;
	if (!order || !dist || !pred || !depth || ag_graph_children(g) < 0)
		goto out;
	long long ordered = ag_graph_topo(g, order);
	if (ordered < 0)
		goto out;
	s->prob.not_ordered = n - (size_t)ordered;
	uint32_t best = AG_NONE;
	uint64_t max_depth = 0;
	for (long long k = 0; k < ordered; k++) {
		uint32_t v = order[k];
		uint64_t d = 0;
		uint32_t p = AG_NONE, dp = 0;
		/* Ties keep the first parent listed: deterministic. */
		for (size_t e = g->eoff[v]; e < g->eoff[v + 1]; e++) {
			uint32_t u = g->epidx[e];
			if (u == AG_NONE)
				continue;
			if (p == AG_NONE || dist[u] > d) {
				d = dist[u];
				p = u;
			}
			if (depth[u] > dp)
				dp = depth[u];
		}
		dist[v] = sat_add(d, dur[v]);
		pred[v] = p;
		depth[v] = dp + 1;
		if (depth[v] > max_depth)
			max_depth = depth[v];
		/* Ties keep the node earliest in the file. */
		if (best == AG_NONE || dist[v] > dist[best] || (dist[v] == dist[best] && v < best))
			best = v;
	}
	s->depth = max_depth;
	/* Ordered nodes have depth >= 1: the first one without is on or
	 * behind a cycle. */
	for (size_t v = 0; v < n && s->prob.not_ordered; v++)
		if (!depth[v]) {
			s->prob.first_cycle_id = g->id[v];
			break;
		}
	/* Width: most nodes sharing one depth level. */
	uint64_t *level = calloc(max_depth + 1, sizeof *level);
	if (!level)
		goto out;
	for (long long k = 0; k < ordered; k++)
		if (++level[depth[order[k]]] > s->width)
			s->width = level[depth[order[k]]];
	free(level);
	if (best != AG_NONE) {
		s->crit_dur = dist[best];
		size_t len = 0;
		for (uint32_t v = best; v != AG_NONE; v = pred[v])
			len++;
		s->path = malloc(len * sizeof *s->path);
		if (!s->path)
			goto out;
		s->path_len = len;
		for (uint32_t v = best; v != AG_NONE; v = pred[v])
			s->path[--len] = g->id[v];
	}
	rc = 0;
out:
	free(order);
	free(dist);
	free(pred);
	free(depth);
	return rc;
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
	ag_graph g;
	ag_graph_init(&g, kinds);
	uint64_t *dur = NULL;
	size_t dcap = 0;
	int rc = -1, nr;
	const chakra_node *n;
	tool_progress prog;
	tool_progress_start_trace(&prog, path, path);
	while ((nr = chakra_reader_next(r, &n)) > 0) {
		long long idx = ag_graph_add(&g, n);
		if (idx < 0) {
			tool_err("%s: out of memory after %llu nodes", path, (unsigned long long)g.n);
			goto out;
		}
		/* an endless or repetitive input (/dev/zero, a gzip of zeros: empty
		 * nodes, all id 0) must not grow memory without bound */
		if (max_dups && g.dup_ids > max_dups) {
			tool_err("%s: byte %llu: more than %llu nodes reuse an earlier id (first: id %llu); "
			         "stopped: this is not a usable trace (--max-errors N raises the limit, "
			         "0 = none)",
			         path, (unsigned long long)chakra_node_offset(n),
			         (unsigned long long)max_dups, (unsigned long long)g.first_dup_id);
			goto out;
		}
		if ((size_t)idx >= dcap) {
			size_t nc = dcap ? dcap * 2 : 4096;
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
		if ((g.n & 4095) == 0)
			tool_progress_trace(&prog, chakra_reader_offset(r), g.n);
	}
	tool_progress_end(&prog);
	if (nr < 0) {
		tool_trace_err(path, chakra_reader_errmsg(r));
		goto out;
	}
	s->nodes = g.n;
	s->edges = g.ne;
	if (ag_graph_resolve(&g, &s->prob) < 0 || path_figures(&g, dur, s) < 0) {
		tool_err("%s: out of memory", path);
		goto out;
	}
	ag_problems_warn(path, &s->prob);
	rc = 0;
out:
	free(dur);
	ag_graph_free(&g);
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
	int kinds = deps == 0 ? AG_DATA : deps == 1 ? AG_CTRL : AG_BOTH;

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
			return tool_err("%s: no such trace file, and no workload %s.0.et or %s.0.et.gz",
			                input, input, input);
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
