/* SPDX-License-Identifier: Apache-2.0 */
/* The GPT configuration options shared by `chakra predict gpt` and
 * `chakra generate model --model gpt`, and writing the workload files. */
#ifndef CHAKRA_TOOLS_GPT_CLI_H
#define CHAKRA_TOOLS_GPT_CLI_H

#ifndef CHAKRA_EXPERIMENTAL
#define CHAKRA_EXPERIMENTAL
#endif
#include <stdint.h>

#include "chakra/experimental/predict.h"
#include "chakra/experimental/sim.h"
#include "opts.h"

typedef struct gpt_cli {
	uint64_t layers, hidden, heads, ffn, seq, vocab, global_batch, micro_batch;
	uint64_t tp, pp, dp, interleave, gpus, gpus_per_node;
	int recompute, precision, sp, distopt;
	const char *gpu, *calibration, *nccl_calibration, *network, *system;
} gpt_cli;

/* Unset values: UINT64_MAX (a given 0 stays an error); choices 0. */
void gpt_cli_init(gpt_cli *g);

#define GPT_CLI_OPTIONS(g)                                                                     \
	{ "--layers", "L", TOOL_U64, &(g)->layers, NULL, "transformer layers (required)" },       \
	{ "--hidden", "H", TOOL_U64, &(g)->hidden, NULL, "hidden size (required)" },              \
	{ "--heads", "A", TOOL_U64, &(g)->heads, NULL, "attention heads (required)" },            \
	{ "--ffn", "F", TOOL_U64, &(g)->ffn, NULL, "MLP size (default 4 x hidden)" },             \
	{ "--seq", "S", TOOL_U64, &(g)->seq, NULL, "sequence length (required)" },                \
	{ "--vocab", "V", TOOL_U64, &(g)->vocab, NULL,                                            \
	  "vocabulary (default 51200; padded to 128 x tp)" },                                     \
	{ "--global-batch", "B", TOOL_U64, &(g)->global_batch, NULL,                              \
	  "sequences per iteration (required)" },                                                 \
	{ "--micro-batch", "B", TOOL_U64, &(g)->micro_batch, NULL,                                \
	  "sequences per micro-batch (default 1)" },                                              \
	{ "--tp", "N", TOOL_U64, &(g)->tp, NULL, "tensor-parallel size (default 1)" },            \
	{ "--pp", "N", TOOL_U64, &(g)->pp, NULL, "pipeline-parallel size (default 1)" },          \
	{ "--dp", "N", TOOL_U64, &(g)->dp, NULL,                                                  \
	  "data-parallel size (default: GPUs / (tp x pp))" },                                     \
	{ "--gpus", "N", TOOL_U64, &(g)->gpus, NULL, "GPUs in all (must be tp x pp x dp)" },      \
	{ "--interleave", "V", TOOL_U64, &(g)->interleave, NULL,                                  \
	  "model chunks per pipeline rank (interleaved\n1F1B; default 1)" },                      \
	{ "--recompute", "none|selective|full", TOOL_CHOICE, &(g)->recompute,                     \
	  "none|selective|full", "activation recomputation (default none)" },                     \
	{ "--sequence-parallel", NULL, TOOL_FLAG, &(g)->sp, NULL,                                 \
	  "Megatron's sequence parallelism (reduce-scatter\nand all-gather instead of "           \
	  "all-reduce)" },                                                                        \
	{ "--distributed-optimizer", NULL, TOOL_FLAG, &(g)->distopt, NULL,                        \
	  "optimizer state split over data-parallel ranks\n(gradients reduce-scattered, "         \
	  "parameters all-gathered)" },                                                           \
	{ "--precision", "fp16|bf16|fp8", TOOL_CHOICE, &(g)->precision, "fp16|bf16|fp8",          \
	  "training precision (default fp16)" },                                                  \
	{ "--gpu", "NAME", TOOL_STR, &(g)->gpu, NULL,                                             \
	  "a100 (= a100-80g), a100-40g or h100 (required)" },                                     \
	{ "--gpus-per-node", "N", TOOL_U64, &(g)->gpus_per_node, NULL,                            \
	  "GPUs behind one NVSwitch (default 8)" },                                               \
	{ "--calibration", "CAL.json", TOOL_STR, &(g)->calibration, NULL,                         \
	  "compute model from `chakra calibrate compute`\n(default: the GPU's preset)" },         \
	{ "--nccl-calibration", "NET", TOOL_STR, &(g)->nccl_calibration, NULL,                    \
	  "collective model: a file from `chakra calibrate\nnccl` or a preset (dgx-a100, "       \
	  "vtrain-a100,\ndgx-h100; default dgx-a100, dgx-h100 for h100)" },                                                                              \
	{ "--network", "NET.yml", TOOL_STR, &(g)->network, NULL,                                  \
	  "an ASTRA-sim network instead of the collective\nmodel's (with --system)" },            \
	{ "--system", "SYS.json", TOOL_STR, &(g)->system, NULL,                                   \
	  "its ASTRA-sim system configuration" }

/* What a measurement CSV does not say, for every row of it. */
typedef struct gpt_rows {
	int recompute, precision, sp, distopt;
	uint64_t vocab;
} gpt_rows;

#define GPT_ROWS_OPTIONS(r)                                                                    \
	{ "--recompute", "none|selective|full", TOOL_CHOICE, &(r)->recompute,                     \
	  "none|selective|full", "every row's recomputation (default none; vTrain's\nruns: full)" }, \
	{ "--vocab", "V", TOOL_U64, &(r)->vocab, NULL,                                            \
	  "every row's vocabulary (default 51200; vTrain's\nruns: 50257)" },                       \
	{ "--precision", "fp16|bf16|fp8", TOOL_CHOICE, &(r)->precision, "fp16|bf16|fp8",          \
	  "every row's precision (default fp16)" },                                                \
	{ "--sequence-parallel", NULL, TOOL_FLAG, &(r)->sp, NULL, "every row: sequence parallel" }, \
	{ "--distributed-optimizer", NULL, TOOL_FLAG, &(r)->distopt, NULL,                        \
	  "every row: distributed optimizer" }

void gpt_rows_init(gpt_rows *r);
/* Applies r to rows[from..n); 0, or 2 (usage error printed). */
int gpt_rows_apply(const gpt_rows *r, const char *cmd, chakra_gpt_measurement *rows, size_t from,
                   size_t n);

/* Everything a prediction needs, from the options. */
typedef struct gpt_setup {
	chakra_gpt_config c;
	chakra_gpu_model gpu;
	chakra_cluster_net net;
	chakra_predict_options po;   /* its network and system point into the two below */
	chakra_sim_network sn;
	chakra_sim_system ss;
} gpt_setup;

/* need_layout: tp, pp, dp must resolve (not for a sweep, which varies
 * them). Returns 0, 1 (error printed) or 2 (usage error printed). */
int gpt_cli_resolve(gpt_cli *g, const char *cmd, int need_layout, gpt_setup *s);

/* The collective model named by arg: a file, or else a preset name. 0, or
 * 1 (error printed). */
int gpt_cli_net(chakra_cluster_net *net, const char *arg);

/* PREFIX.r.et for every rank (rank_map: PREFIX.c<k>.et for each pipeline
 * stage and the rank map PREFIX.ranks), PREFIX.comm_groups.json and, with
 * the collective model's network, PREFIX.network.yml and
 * PREFIX.system.json; all or none (the tools' output rule). 0 or 1
 * (printed). */
int gpt_cli_write(const char *prefix, const gpt_setup *s, int force, int gzip, int rank_map);

#endif
