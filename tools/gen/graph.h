/* SPDX-License-Identifier: Apache-2.0 */
/* A rank-independent workload graph, written out as one Chakra ET per NPU.
 *
 * Generators (text converter, model generator) describe one rank's nodes
 * once; every rank has the same nodes, ids and dependencies, and only the
 * communicator group of each collective differs. gen_graph_write expands
 * that into PREFIX.r.et for every rank plus the communicator-group JSON. */
#ifndef CHAKRA_TOOLS_GEN_GRAPH_H
#define CHAKRA_TOOLS_GEN_GRAPH_H

#include <stddef.h>
#include <stdint.h>

/* Which ranks a collective spans. NPUs are numbered with network dimension
 * 0 varying fastest; a group is either a block of `block` consecutive ranks
 * (inner) or the ranks congruent modulo `block` (outer, stride block). A
 * block of N (inner) is the whole machine. block 0 means "no group": the
 * collective spans one NPU and is not emitted. */
typedef struct gen_group {
	uint32_t block;
	int inner;
} gen_group;

typedef struct gen_node {
	char *name;
	int type;              /* CHAKRA_COMP_NODE or CHAKRA_COMM_COLL_NODE */
	uint64_t dur_ns;       /* compute: exact duration in nanoseconds */
	uint64_t num_ops;      /* compute: 0 = not written */
	uint64_t tensor_size;  /* compute: 0 = not written */
	int comm_type;         /* collective */
	uint64_t comm_size;    /* collective: bytes */
	gen_group group;       /* collective */
	size_t dep_off, dep_n; /* into gen_graph.deps */
} gen_node;

typedef struct gen_graph {
	gen_node *nodes;
	size_t n, cap;
	uint64_t *deps;
	size_t ndeps, depcap;
	uint32_t npus;
	int too_many;          /* set when an append would pass GEN_MAX_NODES */
	int oom;               /* set when an append ran out of memory */
	uint32_t ndims;
	uint32_t dims[16];
} gen_graph;

/* Nodes per rank held in memory at most (about 100 bytes each): a guard
 * against --passes values that would exhaust memory. Generators check
 * nodes-per-pass x passes after the first pass, so they fail at once. */
#define GEN_MAX_NODES 5000000u

/* npus NPUs arranged as dims[0] x dims[1] x ... (product must be npus). */
void gen_graph_init(gen_graph *g, uint32_t npus, const uint32_t *dims, uint32_t ndims);
void gen_graph_free(gen_graph *g);

/* Append a node; ids are the append order starting at 0. deps are ids of
 * earlier nodes; UINT64_MAX entries are skipped (absent optional parents).
 * Return the new id, or UINT64_MAX when out of memory. */
uint64_t gen_graph_comp(gen_graph *g, const char *name, uint64_t dur_ns, uint64_t num_ops,
                        uint64_t tensor_size, const uint64_t *deps, size_t ndeps);
uint64_t gen_graph_coll(gen_graph *g, const char *name, int comm_type, uint64_t comm_size,
                        gen_group group, const uint64_t *deps, size_t ndeps);

/* Default network shape for n NPUs: two dimensions, d0 the largest divisor
 * of n not above sqrt(n) (4 -> 2x2, 16 -> 4x4, 64 -> 8x8, 8 -> 2x4). */
uint32_t gen_default_dims(uint32_t n, uint32_t *dims);

/* involved_dim flags of a group on the graph's network. */
void gen_group_dims(const gen_graph *g, gen_group grp, int *flags);

/* Compute in program order: each compute node depends on the previous one,
 * on the collectives queued with gen_chain_wait since, and on extra. */
typedef struct gen_chain {
	uint64_t last;        /* UINT64_MAX before the first compute */
	uint64_t pending[8];
	int npending;
	int failed;           /* an append failed (out of memory or node cap) */
} gen_chain;

void gen_chain_init(gen_chain *c);
/* The next compute waits for id (UINT64_MAX: nothing). */
void gen_chain_wait(gen_chain *c, uint64_t id);
uint64_t gen_chain_comp(gen_graph *g, gen_chain *c, const char *name, uint64_t dur_ns,
                        uint64_t num_ops, uint64_t tensor_size, uint64_t extra);

/* Command-line options shared by `convert text` and `generate model`. */
typedef struct gen_cli {
	const char *out, *groups;
	const char *dims_arg; /* --dims as given: gen_cli_check parses it into dims */
	uint64_t npus;
	uint32_t dims[16], ndims;
	int force, gzip, no_groups, rank_map;
} gen_cli;

/* Their rows of a tool_parse table (opts.h), for a gen_cli *c:
 * --npus, -o/--output, --dims, -g/--groups, --no-groups, --gzip, -f/--force. */
#define GEN_CLI_OPTIONS(c)                                                                    \
	{ "--npus", "N", TOOL_U64, &(c)->npus, NULL, "number of NPUs (ranks; required)" },       \
	{ "-o, --output", "PREFIX", TOOL_STR, &(c)->out, NULL,                                    \
	  "output prefix: PREFIX.0.et .. PREFIX.{N-1}.et\n(required)" },                          \
	{ "--dims", "D0xD1..", TOOL_STR, &(c)->dims_arg, NULL,                                    \
	  "network shape, dim 0 fastest (default: 2-D, near\nsquare)" },                          \
	{ "-g, --groups", "PATH", TOOL_STR, &(c)->groups, NULL,                                   \
	  "communicator-group file (default\nPREFIX.comm_groups.json)" },                         \
	{ "--no-groups", NULL, TOOL_FLAG, &(c)->no_groups, NULL, "write no group file" },        \
	{ "--gzip", NULL, TOOL_FLAG, &(c)->gzip, NULL, "write PREFIX.r.et.gz" },                  \
	{ "--rank-map", NULL, TOOL_FLAG, &(c)->rank_map, NULL,                                     \
	  "write rank 0's trace as PREFIX.c0.et and the rank\nmap PREFIX.ranks (every rank its "  \
	  "groups) instead\nof PREFIX.r.et for every rank (docs/feeder.md)" },                    \
	{ "-f, --force", NULL, TOOL_FLAG, &(c)->force, NULL, "replace existing output files" }

/* After parsing: required options, ranges, default --dims. 0, or -1 after
 * printing a usage error. */
int gen_cli_check(gen_cli *c, const char *cmd, uint64_t max_npus);

typedef struct gen_write_opts {
	const char *prefix;      /* PREFIX.r.et */
	const char *groups_path; /* NULL: PREFIX.comm_groups.json; "" : none */
	const char *input;       /* input file, never overwritten (may be NULL) */
	int force;               /* replace existing outputs */
	int gzip;
	int rank_map;            /* PREFIX.c0.et and PREFIX.ranks instead of PREFIX.r.et */
} gen_write_opts;

/* Write every rank and the communicator groups. Prints errors; 0 or 1. */
int gen_graph_write(const gen_graph *g, const gen_write_opts *o);

#endif
