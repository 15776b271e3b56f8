/* SPDX-License-Identifier: Apache-2.0 */
/* chakra_gen_basic: the one- and two-node traces Chakra's chakra_generator
 * writes to exercise a simulator (every node type, every attribute kind),
 * byte for byte: same file names (NAME.R.et), metadata version "1.0.0",
 * node names, types and attributes, and node ids from one counter running
 * through every file in the order the generator writes them. */
#include "gen_impl.h"

#include <stdio.h>
#include <string.h>

#include "chakra/chakra.h"
#include "../modmem.h"
#include "../opts.h"

typedef struct gen {
	const char *dir;
	uint64_t npus, runtime, tensor, comm;
	uint64_t next_id;        /* the generator's one counter */
	chakra_builder *b, *b2;
	chakra__out *outs;       /* every file, committed together */
	char *paths;             /* one name per file: an output keeps its path */
	size_t plen;
	uint32_t written;
	chakra__out_opts oo;
	gen_sink E;
} gen;

enum { K_META, K_LOAD, K_STORE, K_COMP, K_TWO_INDEP, K_TWO_DEP, K_COLL, K_SEND, K_RECV };

/* Attributes of every kind, as the generator's METADATA_NODE has them. */
static int all_kinds(chakra_builder *b)
{
	static const char *const s10[10] = { "12345", "12346", "12347", "12348", "12349",
	                                     "12350", "12351", "12352", "12353", "12354" };
	const uint64_t bools[10] = { 1, 0, 1, 0, 1, 0, 1, 0, 1, 0 };
	const double d2[2] = { 1.2345, 2.3456 };
	int rc = 0;
#define DOC(s) (rc |= chakra_builder_attr_set_doc(b, s, strlen(s)))
#define L2(name, kind, a, c) do { const uint64_t v_[2] = { (uint64_t)(a), (uint64_t)(c) }; \
	rc |= chakra_builder_attr_list_uint(b, name, CHAKRA_ATTR_##kind, v_, 2); } while (0)
	rc |= chakra_builder_attr_double(b, "double", CHAKRA_ATTR_DOUBLE, 1.2345);
	DOC("double");
	rc |= chakra_builder_attr_list_double(b, "double_list", CHAKRA_ATTR_DOUBLE_LIST, d2, 2);
	rc |= chakra_builder_attr_double(b, "float", CHAKRA_ATTR_FLOAT, 1.2345);
	DOC("float");
	rc |= chakra_builder_attr_list_double(b, "float_list", CHAKRA_ATTR_FLOAT_LIST, d2, 2);
	rc |= chakra_builder_attr_int(b, "int32", CHAKRA_ATTR_INT32, 12345);
	DOC("int32");
	L2("int32_list", INT32_LIST, 12345, 23456);
	rc |= chakra_builder_attr_int(b, "int64", CHAKRA_ATTR_INT64, 9876543210);
	DOC("int64");
	L2("int64_list", INT64_LIST, 9876543210, 1234567890);
	rc |= chakra_builder_attr_uint(b, "uint32", CHAKRA_ATTR_UINT32, 12345);
	DOC("uint32");
	L2("uint32_list", UINT32_LIST, 12345, 23456);
	rc |= chakra_builder_attr_uint(b, "uint64", CHAKRA_ATTR_UINT64, 9876543210);
	DOC("uint64");
	L2("uint64_list", UINT64_LIST, 9876543210, 1234567890);
	rc |= chakra_builder_attr_int(b, "sint32", CHAKRA_ATTR_SINT32, -12345);
	DOC("sint32");
	L2("sint32_list", SINT32_LIST, 12345, (int64_t)-23456);
	rc |= chakra_builder_attr_int(b, "sint64", CHAKRA_ATTR_SINT64, -9876543210);
	DOC("sint64");
	L2("sint64_list", SINT64_LIST, 9876543210, (int64_t)-1234567890);
	rc |= chakra_builder_attr_uint(b, "fixed32", CHAKRA_ATTR_FIXED32, 12345);
	L2("fixed32_list", FIXED32_LIST, 12345, 23456);
	rc |= chakra_builder_attr_uint(b, "fixed64", CHAKRA_ATTR_FIXED64, 9876543210);
	L2("fixed64_list", FIXED64_LIST, 9876543210, 1234567890);
	rc |= chakra_builder_attr_int(b, "sfixed32", CHAKRA_ATTR_SFIXED32, -12345);
	L2("sfixed32_list", SFIXED32_LIST, 12345, (int64_t)-23456);
	rc |= chakra_builder_attr_int(b, "sfixed64", CHAKRA_ATTR_SFIXED64, -9876543210);
	L2("sfixed64_list", SFIXED64_LIST, 9876543210, (int64_t)-1234567890);
	rc |= chakra_builder_attr_int(b, "bool", CHAKRA_ATTR_BOOL, 1);
	DOC("bool");
	rc |= chakra_builder_attr_list_uint(b, "bool_list", CHAKRA_ATTR_BOOL_LIST, bools, 10);
	rc |= chakra_builder_attr_string(b, "string", CHAKRA_ATTR_STRING, "12345", 5);
	DOC("string");
	rc |= chakra_builder_attr_list_string(b, "string_list", CHAKRA_ATTR_STRING_LIST, s10, NULL, 10);
	rc |= chakra_builder_attr_string(b, "bytes", CHAKRA_ATTR_BYTES, "12345", 5);
	rc |= chakra_builder_attr_list_string(b, "bytes_list", CHAKRA_ATTR_BYTES_LIST, s10, NULL, 10);
#undef DOC
#undef L2
	return rc;
}

/* One node in b: a fresh id, the name, the type, is_cpu_op false. */
static int node(gen *g, chakra_builder *b, const char *name, int type)
{
	chakra_builder_reset(b);
	chakra_builder_set_id(b, g->next_id++);
	int rc = chakra_builder_set_name(b, name, strlen(name));
	chakra_builder_set_type(b, type);
	return rc;
}

static int write_file(gen *g, const char *base, uint64_t npu, int nnodes)
{
	char *path = g->paths + (size_t)g->written * g->plen;
	int m = snprintf(path, g->plen, "%s%s%s.%llu.et", g->dir ? g->dir : "",
	                 g->dir && *g->dir ? "/" : "", base, (unsigned long long)npu);
	if (m < 0 || (size_t)m >= g->plen) {
		gen_err(&g->E, "%s: output path too long", base);
		return CHAKRA_EINVAL;
	}
	chakra_builder *nodes[2] = { g->b, g->b2 };
	int rc = gen_write_nodes(&g->outs[g->written], path, &g->oo, 0, "1.0.0", nodes, nnodes,
	                         &g->E);
	g->written++; /* opened or not, aborted with the rest */
	return rc;
}

/* One trace per NPU, in the generator's order (ids keep counting). */
static int family(gen *g, int kind, const char *base, int coll)
{
	for (uint64_t npu = 0; npu < g->npus; npu++) {
		int rc = 0, n = 1;
		chakra_builder *b = g->b;
		switch (kind) {
		case K_META:
			rc = node(g, b, "METADATA_NODE", CHAKRA_METADATA_NODE) | all_kinds(b);
			break;
		case K_LOAD:
		case K_STORE:
		case K_SEND:
		case K_RECV: {
			static const char *const nm[] = { [K_LOAD] = "MEM_LOAD_NODE",
			                                   [K_STORE] = "MEM_STORE_NODE",
			                                   [K_SEND] = "COMM_SEND_NODE",
			                                   [K_RECV] = "COMM_RECV_NODE" };
			static const int ty[] = { [K_LOAD] = CHAKRA_MEM_LOAD_NODE,
			                          [K_STORE] = CHAKRA_MEM_STORE_NODE,
			                          [K_SEND] = CHAKRA_COMM_SEND_NODE,
			                          [K_RECV] = CHAKRA_COMM_RECV_NODE };
			rc = node(g, b, nm[kind], ty[kind]);
			rc |= chakra_builder_attr_int(b, "is_cpu_op", CHAKRA_ATTR_BOOL, 0);
			rc |= chakra_builder_attr_uint(b, "tensor_size", CHAKRA_ATTR_UINT64, g->tensor);
			break;
		}
		case K_COMP:
		case K_TWO_INDEP:
		case K_TWO_DEP: {
			n = kind == K_COMP ? 1 : 2;
			for (int i = 0; i < n; i++) {
				chakra_builder *x = i ? g->b2 : b;
				rc |= node(g, x, "COMP_NODE", CHAKRA_COMP_NODE);
				rc |= chakra_builder_attr_int(x, "is_cpu_op", CHAKRA_ATTR_BOOL, 0);
				chakra_builder_set_duration_micros(x, g->runtime);
			}
			if (kind == K_TWO_DEP)
				rc |= chakra_builder_add_data_dep(g->b2, g->next_id - 2);
			break;
		}
		case K_COLL:
			rc = node(g, b, base, CHAKRA_COMM_COLL_NODE);
			rc |= chakra_builder_attr_int(b, "is_cpu_op", CHAKRA_ATTR_BOOL, 0);
			rc |= chakra_builder_attr_int(b, "comm_type", CHAKRA_ATTR_INT64, coll);
			rc |= chakra_builder_attr_int(b, "comm_size", CHAKRA_ATTR_INT64,
			                              coll == CHAKRA_BARRIER ? 0 : (int64_t)g->comm);
			break;
		}
		if (rc) {
			gen_err(&g->E, "%s: out of memory", base);
			return CHAKRA_ENOMEM;
		}
		if ((rc = write_file(g, base, npu, n)) < 0)
			return rc;
	}
	return 0;
}

static const chakra_gen_basic_options basic_defaults = CHAKRA_GEN_BASIC_OPTIONS_INIT;
static const size_t basic_sizes[] = { 0, sizeof(chakra_gen_basic_options) };

int chakra_gen_basic_options_init(chakra_gen_basic_options *opts, unsigned version)
{
	return chakra__opts_init(opts, version, &basic_defaults, basic_sizes, 2);
}

/* The families in the generator's order. */
static const struct {
	int kind;
	const char *base;
	int coll;
} families[] = {
	{ K_META, "one_metadata_node_all_types", 0 },
	{ K_LOAD, "one_remote_mem_load_node", 0 },
	{ K_STORE, "one_remote_mem_store_node", 0 },
	{ K_COMP, "one_comp_node", 0 },
	{ K_TWO_INDEP, "two_comp_nodes_independent", 0 },
	{ K_TWO_DEP, "two_comp_nodes_dependent", 0 },
	{ K_COLL, "ALL_REDUCE", CHAKRA_ALL_REDUCE },
	{ K_COLL, "ALL_TO_ALL", CHAKRA_ALL_TO_ALL },
	{ K_COLL, "ALL_GATHER", CHAKRA_ALL_GATHER },
	{ K_COLL, "REDUCE_SCATTER", CHAKRA_REDUCE_SCATTER },
	{ K_COLL, "BROADCAST", CHAKRA_BROADCAST },
	{ K_COLL, "BARRIER", CHAKRA_BARRIER },
	{ K_SEND, "one_comm_send_node", 0 },
	{ K_RECV, "one_comm_recv_node", 0 },
};
#define N_FAMILIES (sizeof families / sizeof families[0])

int chakra_gen_basic(const char *dir, const chakra_gen_options *opts,
                     const chakra_gen_basic_options *basic)
{
	chakra_gen_options o;
	chakra_gen_basic_options bo;
	gen g;
	memset(&g, 0, sizeof g);
	int rc = gen_options_take(&o, opts, 1u << 20, &g.E);
	if (rc < 0)
		return rc;
	if (chakra__opts_copy(&bo, sizeof bo, basic, &basic_defaults, basic_sizes, 2) < 0) {
		gen_err(&g.E, "unknown options version");
		return CHAKRA_EINVAL;
	}
	if (o.rank_map || o.gzip) {
		gen_err(&g.E, "the basic traces are plain files, one per rank: no rank map, no gzip");
		return CHAKRA_EINVAL;
	}
	g.dir = dir;
	g.npus = o.npus;
	g.runtime = bo.runtime;
	g.tensor = bo.tensor_size;
	g.comm = bo.comm_size;
	g.oo.force = o.force;
	g.oo.dash = 1;
	size_t nfiles = N_FAMILIES * (size_t)o.npus;
	g.plen = (dir ? strlen(dir) : 0) + 64;
	g.b = chakra_builder_new();
	g.b2 = chakra_builder_new();
	g.outs = chakra_calloc(nfiles, sizeof *g.outs);
	g.paths = chakra_malloc(nfiles * g.plen);
	rc = CHAKRA_ENOMEM;
	if (!g.b || !g.b2 || !g.outs || !g.paths) {
		gen_err(&g.E, "out of memory");
		goto out;
	}
	if (o.progress)
		o.progress(o.progress_data, CHAKRA_GEN_PROGRESS_START, 0, nfiles);
	rc = 0;
	for (size_t k = 0; k < N_FAMILIES && rc == 0; k++) {
		rc = family(&g, families[k].kind, families[k].base, families[k].coll);
		if (o.progress)
			o.progress(o.progress_data, CHAKRA_GEN_PROGRESS_UPDATE, g.written, nfiles);
	}
	if (o.progress)
		o.progress(o.progress_data, CHAKRA_GEN_PROGRESS_END, g.written, nfiles);
	char err[1200];
	if (rc == 0 && (rc = chakra__out_commit_set(g.outs, nfiles, err, sizeof err)) < 0)
		gen_err(&g.E, "%s", err);
out:
	for (size_t k = 0; g.outs && k < g.written; k++)
		chakra__out_abort(&g.outs[k]); /* nothing left to do after a commit */
	chakra_free(g.outs);
	chakra_free(g.paths);
	chakra_builder_free(g.b);
	chakra_builder_free(g.b2);
	return rc;
}
