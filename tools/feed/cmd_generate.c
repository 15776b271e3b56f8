/* SPDX-License-Identifier: Apache-2.0 */
/* chakra generate synthetic N -o FILE: a large, deterministic synthetic
 * trace for benchmarks (ids 0..N-1, ~80% compute, ~20% all-reduce, 1-3
 * data deps within the previous 64 ids and one control dep). */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "opts.h"

/* splitmix64: tiny, fast and the same everywhere. */
static uint64_t rnd(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static const char *const comp_names[] = {
	"aten::mm", "aten::addmm", "aten::relu", "aten::layer_norm", "aten::softmax",
	"aten::add", "aten::mul", "aten::bmm",
};

int cmd_generate_synthetic(int argc, char **argv)
{
	const char *out = NULL;
	uint64_t n = 0, seed = 1;
	int gzip = 0, force = 0;
	const tool_option opts[] = {
		{ "-o, --output", "FILE", TOOL_STR, &out, NULL, "trace to write ('-' = stdout)" },
		{ "--seed", "S", TOOL_U64, &seed, NULL, "random seed (default 1)" },
		{ "--gzip", NULL, TOOL_FLAG, &gzip, NULL, "gzip the output" },
		{ "-f, --force", NULL, TOOL_FLAG, &force, NULL, "replace FILE if it exists" },
		{ NULL, NULL, 0, NULL, NULL, NULL },
	};
	const tool_command cmd = {
		"N -o FILE [--seed S] [--gzip] [-f]",
		"Write a synthetic Chakra ET of N nodes with ids 0..N-1 in file order:\n"
		"about 80% COMP_NODE (name, duration_micros, is_cpu_op, num_ops,\n"
		"tensor_size) and 20% COMM_COLL_NODE all-reduces (comm_type, comm_size);\n"
		"each node has 1-3 data deps on distinct ids among the previous 64 and one\n"
		"control dep (node 0 has none). The same seed gives the same bytes.",
		opts, NULL, 1, 1, "N (node count)"
	};
	const char **args;
	int nargs, prc = tool_parse(&cmd, argc, argv, &args, &nargs);
	if (prc != TOOL_PARSED)
		return prc == TOOL_HELP_SHOWN ? 0 : prc;
	int bad = tool_parse_u64("N", args[0], &n) < 0;
	free(args);
	if (bad)
		return 2;
	if (!out)
		return tool_usage(argv[0], "missing -o FILE");

	chakra_writer_options wo = CHAKRA_WRITER_OPTIONS_INIT;
	wo.gzip = gzip;
	chakra_writer *w = NULL;
	tool_out of;
	if (tool_out_open(&of, out, force, NULL, 0) < 0)
		return 1;
	chakra_builder *b = chakra_builder_new();
	if (!b) {
		tool_out_abort(&of);
		return tool_err("out of memory");
	}
	int rc = chakra_writer_open_cb(&w, tool_out_write_cb, &of, &wo);
	if (rc >= 0)
		rc = chakra_writer_write_metadata(w, "0.0.4", NULL);
	tool_progress prog;
	tool_progress_start(&prog, "generate", n);
	uint64_t s = seed;
	char name[64];
	for (uint64_t id = 0; id < n && rc >= 0; id++) {
		chakra_builder_reset(b);
		chakra_builder_set_id(b, id);
		uint64_t r = rnd(&s);
		int coll = r % 5 == 0;
		if (coll) {
			snprintf(name, sizeof name, "all_reduce_%llu", (unsigned long long)id);
			chakra_builder_set_name(b, name, (size_t)-1);
			chakra_builder_set_type(b, CHAKRA_COMM_COLL_NODE);
		} else {
			chakra_builder_set_name(b, comp_names[(r >> 8) % 8], (size_t)-1);
			chakra_builder_set_type(b, CHAKRA_COMP_NODE);
			chakra_builder_set_duration_micros(b, 1 + (r >> 16) % 2000);
		}
		/* 1-3 distinct data deps among the previous 64 ids. */
		uint64_t deps[3];
		int nd = 0;
		if (id > 0) {
			int want = 1 + (int)((r >> 32) % 3);
			uint64_t span = id < 64 ? id : 64;
			for (int t = 0; t < 8 && nd < want; t++) {
				uint64_t d = id - 1 - rnd(&s) % span;
				int dup = 0;
				for (int k = 0; k < nd; k++)
					dup |= deps[k] == d;
				if (!dup)
					deps[nd++] = d;
			}
			for (int k = 0; k < nd && rc >= 0; k++)
				rc = chakra_builder_add_data_dep(b, deps[k]);
			if (rc >= 0)
				rc = chakra_builder_add_ctrl_dep(b, id - 1 - rnd(&s) % span);
		}
		if (rc < 0)
			break;
		if (coll) {
			rc = chakra_builder_attr_int(b, "is_cpu_op", CHAKRA_ATTR_BOOL, 0);
			if (rc >= 0)
				rc = chakra_builder_attr_int(b, "comm_type", CHAKRA_ATTR_INT64, CHAKRA_ALL_REDUCE);
			if (rc >= 0)
				rc = chakra_builder_attr_int(b, "comm_size", CHAKRA_ATTR_INT64,
				                             (int64_t)(1024 << (rnd(&s) % 16)));
		} else {
			rc = chakra_builder_attr_int(b, "is_cpu_op", CHAKRA_ATTR_BOOL, (r >> 40) % 4 == 0);
			if (rc >= 0)
				rc = chakra_builder_attr_int(b, "num_ops", CHAKRA_ATTR_INT64,
				                             (int64_t)(rnd(&s) % 1000000000));
			if (rc >= 0)
				rc = chakra_builder_attr_uint(b, "tensor_size", CHAKRA_ATTR_UINT64,
				                              rnd(&s) % (1u << 26));
		}
		if (rc >= 0)
			rc = chakra_writer_write_node(w, b);
		if ((id & 0xffff) == 0)
			tool_progress_update(&prog, id);
	}
	tool_progress_end(&prog);
	if (rc >= 0)
		rc = chakra_writer_finish(w);
	int status = 0;
	if (rc < 0) {
		/* a write error is the stream's (disk full...): say so */
		if (ferror(of.f))
			tool_out_close(&of);
		else
			tool_err("%s: %s", out, w ? chakra_writer_errmsg(w) : chakra_strerror(rc));
		status = 1;
		tool_out_abort(&of);
	} else if (tool_out_commit(&of) < 0) {
		status = 1;
	}
	chakra_writer_close(w);
	chakra_builder_free(b);
	return status;
}
