/* SPDX-License-Identifier: Apache-2.0 */
/* `chakra generate basic`: the one- and two-node traces Chakra's
 * chakra_generator writes to exercise a simulator (every node type, every
 * attribute kind), byte for byte: same file names (NAME.R.et), metadata
 * version "1.0.0", node names, types and attributes, and node ids from one
 * counter running through every file in the order the generator writes
 * them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "opts.h"

typedef struct gen {
	const char *dir;
	int force;
	uint64_t npus, runtime, tensor, comm;
	uint64_t next_id;        /* the generator's one counter */
	chakra_builder *b, *b2;
	unsigned written;
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
	char path[4096];
	int m = snprintf(path, sizeof path, "%s%s%s.%llu.et", g->dir ? g->dir : "",
	                 g->dir && *g->dir ? "/" : "", base, (unsigned long long)npu);
	if (m < 0 || (size_t)m >= sizeof path)
		return tool_err("%s: output path too long", base), -1;
	tool_out o;
	if (tool_out_open(&o, path, g->force, NULL, 0) < 0)
		return -1;
	chakra_writer_options wo = CHAKRA_WRITER_OPTIONS_INIT;
	chakra_writer *w = NULL;
	int rc = chakra_writer_open_cb(&w, tool_out_write_cb, &o, &wo);
	if (rc == 0)
		rc = chakra_writer_write_metadata(w, "1.0.0", NULL);
	if (rc == 0)
		rc = chakra_writer_write_node(w, g->b);
	if (rc == 0 && nnodes > 1)
		rc = chakra_writer_write_node(w, g->b2);
	if (rc == 0)
		rc = chakra_writer_finish(w);
	if (rc < 0 && !ferror(o.f))
		tool_err("%s: %s", path, w && *chakra_writer_errmsg(w) ? chakra_writer_errmsg(w)
		                                                       : chakra_strerror(rc));
	chakra_writer_close(w);
	if (rc < 0) {
		if (ferror(o.f))
			tool_out_close(&o);
		tool_out_abort(&o);
		return -1;
	}
	g->written++;
	return tool_out_commit(&o);
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
		if (rc)
			return tool_err("%s: out of memory", base), -1;
		if (write_file(g, base, npu, n) < 0)
			return -1;
	}
	return 0;
}

int cmd_generate_basic(int argc, char **argv)
{
	gen g = { NULL, 0, 64, 5, 1024, 65536, 0, NULL, NULL, 0 };
	const tool_option opts[] = {
		{ "--npus", "N", TOOL_U64, &g.npus, NULL, "traces per kind (default 64)" },
		{ "--runtime", "US", TOOL_U64, &g.runtime, NULL,
		  "duration_micros of the compute nodes (default 5)" },
		{ "--tensor-size", "BYTES", TOOL_U64, &g.tensor, NULL,
		  "tensor_size of memory and send/recv nodes (default 1024)" },
		{ "--comm-size", "BYTES", TOOL_U64, &g.comm, NULL,
		  "comm_size of the collectives (default 65536)" },
		{ "-o, --output", "DIR", TOOL_STR, &g.dir, NULL,
		  "write the files in DIR (default: the current directory)" },
		{ "-f, --force", NULL, TOOL_FLAG, &g.force, NULL, "replace existing files" },
		{ NULL, NULL, 0, NULL, NULL, NULL },
	};
	const tool_command cmd = {
		"[--npus N] [--runtime US] [--tensor-size BYTES] [--comm-size BYTES] [-o DIR] [-f]",
		"Write the basic traces Chakra's chakra_generator writes, NAME.0.et .. NAME.{N-1}.et for\n"
		"each NAME: one_metadata_node_all_types (an attribute of every kind),\n"
		"one_remote_mem_load_node, one_remote_mem_store_node, one_comp_node,\n"
		"two_comp_nodes_independent, two_comp_nodes_dependent, ALL_REDUCE, ALL_TO_ALL,\n"
		"ALL_GATHER, REDUCE_SCATTER, BROADCAST, BARRIER (one collective),\n"
		"one_comm_send_node, one_comm_recv_node. The bytes are the generator's: node ids\n"
		"count on through every file, in that order.",
		opts, NULL, 0, 0, NULL
	};
	const char **args;
	int nargs, prc = tool_parse(&cmd, argc, argv, &args, &nargs);
	if (prc != TOOL_PARSED)
		return prc == TOOL_HELP_SHOWN ? 0 : prc;
	free((void *)args);
	if (!g.npus || g.npus > (1u << 20))
		return tool_usage(argv[0], "--npus must be 1..1048576");
	g.b = chakra_builder_new();
	g.b2 = chakra_builder_new();
	if (!g.b || !g.b2) {
		chakra_builder_free(g.b);
		chakra_builder_free(g.b2);
		return tool_err("out of memory");
	}
	int rc = family(&g, K_META, "one_metadata_node_all_types", 0) ||
	         family(&g, K_LOAD, "one_remote_mem_load_node", 0) ||
	         family(&g, K_STORE, "one_remote_mem_store_node", 0) ||
	         family(&g, K_COMP, "one_comp_node", 0) ||
	         family(&g, K_TWO_INDEP, "two_comp_nodes_independent", 0) ||
	         family(&g, K_TWO_DEP, "two_comp_nodes_dependent", 0) ||
	         family(&g, K_COLL, "ALL_REDUCE", CHAKRA_ALL_REDUCE) ||
	         family(&g, K_COLL, "ALL_TO_ALL", CHAKRA_ALL_TO_ALL) ||
	         family(&g, K_COLL, "ALL_GATHER", CHAKRA_ALL_GATHER) ||
	         family(&g, K_COLL, "REDUCE_SCATTER", CHAKRA_REDUCE_SCATTER) ||
	         family(&g, K_COLL, "BROADCAST", CHAKRA_BROADCAST) ||
	         family(&g, K_COLL, "BARRIER", CHAKRA_BARRIER) ||
	         family(&g, K_SEND, "one_comm_send_node", 0) ||
	         family(&g, K_RECV, "one_comm_recv_node", 0);
	chakra_builder_free(g.b);
	chakra_builder_free(g.b2);
	if (rc)
		return 1;
	fprintf(stderr, "wrote %u traces (%llu per kind) in %s\n", g.written,
	        (unsigned long long)g.npus, g.dir && *g.dir ? g.dir : ".");
	return 0;
}
