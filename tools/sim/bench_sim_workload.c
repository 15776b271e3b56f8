/* SPDX-License-Identifier: Apache-2.0 */
/* chakra bench sim's workload, written with the library's builder and
 * writer (one trace every NPU runs and a rank map, or a file per NPU), and
 * its network and system configurations. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bench_sim.h"
#include "common.h"

static const char SYS_HEAD[] =
	"{\n  \"scheduling-policy\": \"LIFO\",\n  \"endpoint-delay\": 10,\n"
	"  \"active-chunks-per-dimension\": 1,\n  \"preferred-dataset-splits\": 4,\n";
static const char SYS_TAIL[] =
	"  \"collective-optimization\": \"localBWAware\",\n  \"local-mem-bw\": 1600,\n"
	"  \"boost-mode\": 0\n}\n";

int bench_sim_write_text(const char *path, const char *text, int force)
{
	size_t n = strlen(text);
	char buf[1024];
	FILE *in = fopen(path, "rb");
	if (in) {
		size_t got = fread(buf, 1, sizeof buf, in);
		fclose(in);
		if (got == n && !memcmp(buf, text, n))
			return 0;
	}
	tool_out o;
	if (tool_out_open(&o, path, force, NULL, 0) < 0)
		return -1;
	fputs(text, o.f);
	return tool_out_commit(&o);
}

/* The chain every NPU runs: compute, all-reduce, compute, ... each on the
 * previous. */
static int write_chain(const char *path, uint64_t nodes, int force)
{
	static const uint64_t us[4] = { 5, 20, 50, 100 };
	static const uint64_t bytes[5] = { 64 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20 };
	chakra_writer_options wo = CHAKRA_WRITER_OPTIONS_INIT;
	wo.overwrite = force;
	chakra_writer *w = NULL;
	chakra_builder *b = chakra_builder_new();
	if (!b)
		return tool_err("out of memory");
	int rc = chakra_writer_open(&w, path, &wo);
	if (rc == 0)
		rc = chakra_writer_write_metadata(w, "0.0.4", NULL);
	for (uint64_t i = 0; rc == 0 && i < nodes; i++) {
		chakra_builder_reset(b);
		chakra_builder_set_id(b, i);
		if (i)
			chakra_builder_add_data_dep(b, i - 1);
		if (i % 2 == 0) {
			chakra_builder_set_name(b, "compute", (size_t)-1);
			chakra_builder_set_type(b, CHAKRA_COMP_NODE);
			chakra_builder_set_duration_micros(b, us[(i / 2) % 4]);
		} else {
			chakra_builder_set_name(b, "all_reduce", (size_t)-1);
			chakra_builder_set_type(b, CHAKRA_COMM_COLL_NODE);
			chakra_builder_attr_int(b, "comm_type", CHAKRA_ATTR_INT64, CHAKRA_ALL_REDUCE);
			chakra_builder_attr_int(b, "comm_size", CHAKRA_ATTR_INT64,
			                        (int64_t)bytes[(i / 2) % 5]);
		}
		rc = chakra_writer_write_node(w, b);
	}
	if (rc == 0)
		rc = chakra_writer_finish(w);
	if (rc < 0)
		tool_err("%s: %s", path, w ? chakra_writer_errmsg(w) : chakra_strerror(rc));
	chakra_writer_close(w);
	chakra_builder_free(b);
	return rc < 0 ? -1 : 0;
}

void bench_sim_configs(const uint32_t *dims, int nd, char *net_text, size_t net_len,
                       char *sys_text, size_t sys_len)
{
	/* The network: dimension 0 a Ring, the others Switches, 50 GB/s, 500 ns. */
	size_t o = (size_t)snprintf(net_text, net_len, "# chakra bench sim\ntopology: [");
	for (int d = 0; d < nd; d++)
		o += (size_t)snprintf(net_text + o, net_len - o, "%s %s", d ? "," : "",
		                      d ? "Switch" : "Ring");
	o += (size_t)snprintf(net_text + o, net_len - o, " ]\nnpus_count: [");
	for (int d = 0; d < nd; d++)
		o += (size_t)snprintf(net_text + o, net_len - o, "%s %u", d ? "," : "", dims[d]);
	o += (size_t)snprintf(net_text + o, net_len - o, " ]\nbandwidth: [");
	for (int d = 0; d < nd; d++)
		o += (size_t)snprintf(net_text + o, net_len - o, "%s 50.0", d ? "," : "");
	o += (size_t)snprintf(net_text + o, net_len - o, " ]  # GB/s\nlatency: [");
	for (int d = 0; d < nd; d++)
		o += (size_t)snprintf(net_text + o, net_len - o, "%s 500.0", d ? "," : "");
	snprintf(net_text + o, net_len - o, " ]  # ns\n");
	o = (size_t)snprintf(sys_text, sys_len, "%s", SYS_HEAD);
	static const char *const impl[] = { "all-reduce", "all-gather", "reduce-scatter",
		                            "all-to-all" };
	for (int k = 0; k < 4; k++) {
		o += (size_t)snprintf(sys_text + o, sys_len - o, "  \"%s-implementation\": [",
		                      impl[k]);
		for (int d = 0; d < nd; d++)
			o += (size_t)snprintf(sys_text + o, sys_len - o, "%s\"ring\"", d ? ", " : "");
		o += (size_t)snprintf(sys_text + o, sys_len - o, "],\n");
	}
	snprintf(sys_text + o, sys_len - o, "%s", SYS_TAIL);
}

int bench_sim_workload(const char *prefix, const char *dir, uint64_t npus, uint64_t nodes,
                       int files, int force, int *have, int *have_files)
{
	char p[1100];
	/* Generate unless it is there: per-rank files (a finished run renames
	 * files into place, so a present last file is complete), or the trace
	 * and its map (the map is written last). */
	snprintf(p, sizeof p, "%s.%" PRIu64 ".et", prefix, npus);
	if (access(p, F_OK) == 0)
		return tool_err("%s: a workload with more ranks is in %s; use another --dir", p, dir);
	snprintf(p, sizeof p, "%s.%" PRIu64 ".et", prefix, npus - 1);
	*have_files = access(p, R_OK) == 0; /* (they win over a map: PREFIX.0.et exists) */
	snprintf(p, sizeof p, "%s.ranks", prefix);
	*have = *have_files || (!files && access(p, R_OK) == 0);
	if (!*have && files) {
		for (uint64_t r = 0; r < npus; r++) {
			snprintf(p, sizeof p, "%s.%" PRIu64 ".et", prefix, r);
			if (tool_out_check(p, force, NULL, 0) < 0)
				return 1;
		}
		for (uint64_t r = 0; r < npus; r++) {
			/* (the same bytes in a file of their own each, as generators write) */
			snprintf(p, sizeof p, "%s.%" PRIu64 ".et", prefix, r);
			if (write_chain(p, nodes, force))
				return 1;
		}
		*have_files = 1;
	} else if (!*have) {
		snprintf(p, sizeof p, "%s.c0.et", prefix);
		if (tool_out_check(p, force, NULL, 0) < 0)
			return 1;
		snprintf(p, sizeof p, "%s.ranks", prefix);
		if (tool_out_check(p, force, NULL, 0) < 0)
			return 1;
		snprintf(p, sizeof p, "%s.c0.et", prefix);
		if (write_chain(p, nodes, force))
			return 1;
		snprintf(p, sizeof p, "%s.ranks", prefix);
		char map[256];
		snprintf(map, sizeof map, "chakra-rank-map 1\n# chakra bench sim: every NPU runs the "
		         "chain\nranks %" PRIu64 "\nclass 0 bench.c0.et\n0-%" PRIu64 " 0\n", npus,
		         npus - 1);
		if (bench_sim_write_text(p, map, force))
			return 1;
	}
	return 0;
}
