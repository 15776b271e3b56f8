/* SPDX-License-Identifier: Apache-2.0 */
/* The generator module's insides (include/chakra/experimental/gen.h), for
 * its own files and for the generators in tools/gen that build on its
 * graph: a rank-independent workload graph written out as one Chakra ET
 * per NPU, and ASTRA-sim 1.0 text workloads.
 *
 * Generators (text converter, model generator) describe one rank's nodes
 * once; every rank has the same nodes, ids and dependencies, and only the
 * communicator group of each collective differs. gen_graph_write expands
 * that into PREFIX.r.et for every rank plus the communicator-group JSON.
 * Messages go to the caller's callback, one call each, without "chakra: "
 * or a newline. */
#ifndef CHAKRA_GEN_IMPL_H
#define CHAKRA_GEN_IMPL_H

#include <stddef.h>
#include <stdint.h>

#ifndef CHAKRA_EXPERIMENTAL
#define CHAKRA_EXPERIMENTAL
#endif
#include "chakra/experimental/gen.h"
#include "chakra/writer.h"
#include "../outfile.h"

/* Shared internals are chakra__*: these names are the module's own. */
#define gen_graph_init chakra__gen_graph_init
#define gen_graph_free chakra__gen_graph_free
#define gen_graph_comp chakra__gen_graph_comp
#define gen_graph_coll chakra__gen_graph_coll
#define gen_default_dims chakra__gen_default_dims
#define gen_group_dims chakra__gen_group_dims
#define gen_chain_init chakra__gen_chain_init
#define gen_chain_wait chakra__gen_chain_wait
#define gen_chain_comp chakra__gen_chain_comp
#define gen_graph_write chakra__gen_graph_write
#define gen_err chakra__gen_err
#define gen_options_take chakra__gen_options_take
#define gen_graph_finish chakra__gen_graph_finish
#define gen_write_nodes chakra__gen_write_nodes
#define text_policy_name chakra__text_policy_name
#define text_policy_from_name chakra__text_policy_from_name
#define text_coll_chakra chakra__text_coll_chakra
#define text_coll_name chakra__text_coll_name
#define text_workload_load chakra__text_workload_load
#define text_workload_free chakra__text_workload_free

/* Where messages go (NULL cb: nowhere). */
typedef struct gen_sink {
	chakra_write_cb cb;
	void *data;
} gen_sink;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void gen_err(const gen_sink *s, const char *fmt, ...);

/* A generator's chakra_gen_options: copied by version into *o (NULL: the
 * defaults), npus checked against max_npus, the default dimensions filled
 * in and their product checked; *E set to the caller's message sink. 0, or
 * CHAKRA_EINVAL after a message. */
int gen_options_take(chakra_gen_options *o, const chakra_gen_options *in, uint32_t max_npus,
                     gen_sink *E);

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
#define GEN_MAX_NODES CHAKRA_GEN_MAX_NODES

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

typedef struct gen_write_opts {
	const char *prefix;      /* PREFIX.r.et */
	const char *groups_path; /* NULL: PREFIX.comm_groups.json; "" : none */
	const char *input;       /* input file, never overwritten (may be NULL) */
	int force;               /* replace existing outputs */
	int gzip;
	int rank_map;            /* PREFIX.c0.et and PREFIX.ranks instead of PREFIX.r.et */
	gen_sink err;
	chakra_gen_progress_fn progress;
	void *progress_data;
} gen_write_opts;

/* Write every rank and the communicator groups: 0, or a negative
 * chakra_error after a message. */
int gen_graph_write(const gen_graph *g, const gen_write_opts *o);

/* ---- ASTRA-sim 1.0 text workloads (one layer per line) ---- */
typedef enum text_policy {
	TP_NONE = 0,
	TP_DATA,
	TP_MODEL,
	TP_HYBRID_DATA_MODEL,
	TP_HYBRID_MODEL_DATA,
	TP_HYBRID_TRANSFORMER,
	TP_HYBRID_TRANSFORMER_FWD_IN_BCKWD,
	TP_HYBRID_DLRM,
	TP_HYBRID_DLRM_ENHANCED,
	TP_HYBRID_CUSTOMIZED,
	TP_MICRO,
	TP_DISTRIBUTED_INFERENCE
} text_policy;

/* Collective of a phase; TC_NONE when the phase communicates nothing. */
typedef enum text_coll {
	TC_NONE = 0,
	TC_ALLREDUCE,
	TC_ALLGATHER,
	TC_REDUCESCATTER,
	TC_ALLTOALL
} text_coll;

enum { PH_FWD = 0, PH_IG = 1, PH_WG = 2 };

typedef struct text_layer {
	char name[128];
	uint64_t compute[3];   /* cycles: forward, input gradient, weight gradient */
	text_coll coll[3];
	uint64_t comm_size[3]; /* bytes */
	uint64_t update;       /* cycles after a collective (weight update) */
	text_policy policy;    /* HYBRID_CUSTOMIZED: this layer's; else the file's */
	int checkpoint;        /* FWD_IN_BCKWD: recomputation starts here */
	int initiates;         /* FWD_IN_BCKWD: recompute before this layer's backward */
	int line;
} text_layer;

typedef struct text_workload {
	text_policy policy;
	int64_t mp_group;          /* HYBRID_TRANSFORMER*: model-parallel NPU group */
	int64_t dlrm_last_bottom;  /* HYBRID_DLRM*: index of the last bottom-MLP layer */
	uint32_t nlayers;
	text_layer *layers;
} text_workload;

const char *text_policy_name(text_policy p);
text_policy text_policy_from_name(const char *s);
int text_coll_chakra(text_coll c); /* chakra_comm_type */
const char *text_coll_name(text_coll c);

/* Parse a file ("-": stdin): 0, or a negative chakra_error after a
 * message "FILE:LINE: what" (CHAKRA_EIO, CHAKRA_ECORRUPT, CHAKRA_ENOMEM). */
int text_workload_load(text_workload *w, const char *path, const gen_sink *err);
void text_workload_free(text_workload *w);

/* The end of a graph generator: built 0, the graph written (wo); else the
 * build's failure said ("WHAT: more than N nodes per rank; use fewer
 * FEWER", what may be NULL, or out of memory) and returned. */
int gen_graph_finish(const gen_graph *g, int built, const gen_write_opts *wo, const char *what,
                     const char *fewer);

/* One rank's file: metadata `version` and the n nodes, written to o
 * (opened here at path, closed, left for the caller's set to commit or
 * abort). 0, or a negative chakra_error after a message. */
int gen_write_nodes(chakra__out *o, const char *path, const chakra__out_opts *oo, int gzip,
                    const char *version, chakra_builder *const *nodes, int n, const gen_sink *E);

#endif
