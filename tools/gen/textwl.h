/* SPDX-License-Identifier: Apache-2.0 */
/* Parser for ASTRA-sim 1.0 text workloads (one layer per line). */
#ifndef CHAKRA_TOOLS_GEN_TEXTWL_H
#define CHAKRA_TOOLS_GEN_TEXTWL_H

#include <stdint.h>

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

/* Parse a file; on error prints "FILE:LINE: what" and returns -1. */
int text_workload_load(text_workload *w, const char *path);
void text_workload_free(text_workload *w);

#endif
