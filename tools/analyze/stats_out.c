/* SPDX-License-Identifier: Apache-2.0 */
/* chakra stats: the figures of a trace as text and as JSON (stats.h). */
#include <string.h>

#include "stats.h"

static const char *deps_name(int kinds)
{
	return kinds == CHAKRA_GRAPH_DATA ? "data" : kinds == CHAKRA_GRAPH_CTRL ? "ctrl" : "both";
}

void stats_print_text(FILE *f, const stats *s, int kinds, int full_path)
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

void stats_json(yajl_gen g, const stats *s, int kinds)
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
