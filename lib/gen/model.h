/* SPDX-License-Identifier: Apache-2.0 */
/* The model generator (chakra_gen_model) in two files: model_layers.c the
 * layers of the model with their compute and collectives per phase, and
 * their training iterations as a workload graph; model.c its options and
 * defaults. docs/generate.md lists the formulas and assumptions. */
#ifndef CHAKRA_GEN_MODEL_H
#define CHAKRA_GEN_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "gen_impl.h"

#define model_build_layers chakra__gen_model_build_layers
#define model_emit_iterations chakra__gen_model_emit_iterations

enum { M_MLP = CHAKRA_GEN_MODEL_MLP, M_DLRM = CHAKRA_GEN_MODEL_DLRM,
       M_TRANSFORMER = CHAKRA_GEN_MODEL_TRANSFORMER };
enum { F, IG, WG };
enum { K_LINEAR, K_EMBEDDING, K_NOWEIGHT };

typedef struct mlayer {
	char name[48];
	int kind;
	uint64_t flops[3], bytes[3]; /* per rank: compute of each phase */
	int coll[3];                 /* chakra_comm_type, -1 = none */
	uint64_t csize[3];
	gen_group grp[3];
	int waits_emb;               /* DLRM interaction: needs the embedding exchange */
} mlayer;

typedef struct params {
	int model, par;
	uint64_t npus, mp, dp;
	uint64_t layers, hidden, batch, seq, bytes;
	uint64_t tables, emb_dim, pooling, dense, bottom, top;
	double tflops, gbps;
	uint64_t passes;
} params;

/* The layers of p's model as one rank sees them (*n of them, freed with
 * chakra_free; NULL when out of memory). */
mlayer *model_build_layers(const params *p, size_t *n);
/* p->passes training iterations of the layers into g: 0, or -1 (out of
 * memory, or too many nodes: g->too_many). */
int model_emit_iterations(gen_graph *g, const params *p, const mlayer *L, size_t n);

#endif
