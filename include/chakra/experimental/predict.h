/* SPDX-License-Identifier: Apache-2.0 */
/* libchakra predict (experimental): the iteration time of a Megatron-LM
 * style GPT training run from its configuration, through a generated
 * Chakra workload and the simulator (lib/sim), with calibrated compute and
 * collective models.
 *
 *   chakra_gpt_config c = CHAKRA_GPT_CONFIG_INIT;
 *   c.layers = 30; c.hidden = 3072; c.heads = 32; c.seq = 2048;
 *   c.global_batch = 512; c.micro_batch = 8; c.tp = 1; c.pp = 1; c.dp = 64;
 *   chakra_gpu_model gpu;  chakra_cluster_net net;  char err[512];
 *   chakra_gpu_model_preset(&gpu, "a100");
 *   chakra_cluster_net_preset(&net, "dgx-a100");
 *   chakra_gpt_prediction p;
 *   if (chakra_gpt_predict(&c, &gpu, &net, NULL, &p, err, sizeof err) < 0) puts(err);
 *   else printf("%.3f s\n", p.iteration_s);
 *
 * The model (docs/predict.md): every GPU kernel of a layer (layer norms,
 * QKV, attention core, projection, MLP, dropout and residual adds), the
 * embedding, LM head, loss and optimizer step, timed by a roofline with a
 * shape-dependent GEMM efficiency and a per-kernel launch floor; Megatron's
 * tensor-parallel collectives (or sequence parallelism's reduce-scatter and
 * all-gather), pipeline send/recv under 1F1B or the interleaved schedule,
 * and the data-parallel gradient all-reduce (or the distributed optimizer's
 * reduce-scatter and all-gather), timed by the simulator on a network of
 * NVSwitch nodes joined by a scale-out fabric.
 *
 * Every call returns 0 or a negative chakra_error with a message in err
 * (which may be NULL). Nothing is kept by pointer beyond a call.
 * Experimental: define CHAKRA_EXPERIMENTAL to use this header. */
#ifndef CHAKRA_EXPERIMENTAL_PREDICT_H
#define CHAKRA_EXPERIMENTAL_PREDICT_H

#include <stddef.h>
#include <stdint.h>

#include "chakra/experimental.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------- the training configuration ---------------- */

typedef enum chakra_recompute {
	CHAKRA_RECOMPUTE_NONE = 0,
	CHAKRA_RECOMPUTE_SELECTIVE = 1, /* the attention core, in the backward pass */
	CHAKRA_RECOMPUTE_FULL = 2       /* every layer's forward, in the backward pass */
} chakra_recompute;

typedef enum chakra_precision {
	CHAKRA_PRECISION_FP16 = 0,
	CHAKRA_PRECISION_BF16 = 1,
	CHAKRA_PRECISION_FP8 = 2        /* GEMMs in FP8, the rest in BF16 */
} chakra_precision;

typedef struct chakra_gpt_config {
	unsigned version;               /* CHAKRA_GPT_CONFIG_VERSION */
	uint32_t layers, hidden, heads;
	uint32_t ffn;                   /* 0: 4 x hidden */
	uint32_t seq;
	uint32_t vocab;                 /* 0: 51200 (padded as Megatron pads it) */
	uint64_t global_batch;
	uint32_t micro_batch;
	uint32_t tp, pp, dp;
	uint32_t interleave;            /* model chunks per pipeline rank; 0 or 1: plain 1F1B */
	chakra_recompute recompute;
	int sequence_parallel;
	int distributed_optimizer;
	chakra_precision precision;
	uint32_t gpus_per_node;         /* 0: 8 */
} chakra_gpt_config;

#define CHAKRA_GPT_CONFIG_VERSION 1
#define CHAKRA_GPT_CONFIG_INIT \
	{ CHAKRA_GPT_CONFIG_VERSION, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, \
	  CHAKRA_RECOMPUTE_NONE, 0, 0, CHAKRA_PRECISION_FP16, 0 }
CHAKRA_EXPERIMENTAL_API int chakra_gpt_config_init(chakra_gpt_config *c, unsigned version);

/* A layout that cannot run (tp x pp x dp != gpus is the caller's check):
 * heads or ffn not divisible by tp, layers not divisible by pp x
 * interleave, global batch not divisible by micro batch x dp, interleaving
 * with fewer micro-batches than... Names the values. */
CHAKRA_EXPERIMENTAL_API int chakra_gpt_config_check(const chakra_gpt_config *c, char *err,
                                                    size_t errlen);

/* ---------------- the compute model (one GPU) ---------------- */

typedef struct chakra_gpu_model {
	unsigned version;               /* CHAKRA_GPU_MODEL_VERSION */
	char name[32];
	double peak_tflops;             /* dense FP16/BF16 tensor core peak */
	double peak_tflops_fp8;         /* 0: no FP8 */
	double hbm_gbps;                /* memory bandwidth, GB/s (decimal) */
	double memory_gib;              /* memory per GPU */
	/* Fitted by chakra_calibrate_compute: */
	double gemm_efficiency;         /* fraction of peak a large GEMM reaches */
	double gemm_knee;               /* a GEMM dimension of this many elements reaches half */
	double mem_efficiency;          /* fraction of hbm_gbps element-wise kernels reach */
	double kernel_floor_ns;         /* no kernel takes less (launch and host overhead) */
	double optimizer_bytes;         /* bytes moved per parameter by the optimizer step */
	double iteration_overhead_ns;   /* fixed per iteration (host work outside the kernels) */
} chakra_gpu_model;

#define CHAKRA_GPU_MODEL_VERSION 1
CHAKRA_EXPERIMENTAL_API int chakra_gpu_model_init(chakra_gpu_model *m, unsigned version);
/* Presets: "a100" (= "a100-80g"), "a100-40g", "h100" (SXM). Datasheet peaks
 * and the calibrated efficiencies (docs/predict.md says where each comes
 * from). CHAKRA_EINVAL for an unknown name (err lists the known ones). */
CHAKRA_EXPERIMENTAL_API int chakra_gpu_model_preset(chakra_gpu_model *m, const char *name,
                                                    char *err, size_t errlen);
/* A calibration file (JSON, as chakra_gpu_model_json writes it) read over
 * the model's current values: keys it lacks keep them. */
CHAKRA_EXPERIMENTAL_API int chakra_gpu_model_load(chakra_gpu_model *m, const char *path,
                                                  char *err, size_t errlen);
CHAKRA_EXPERIMENTAL_API int chakra_gpu_model_parse(chakra_gpu_model *m, const char *name,
                                                   const char *text, size_t len, char *err,
                                                   size_t errlen);

/* ---------------- the collective model (the cluster's network) ---------------- */

typedef struct chakra_cluster_net {
	unsigned version;               /* CHAKRA_CLUSTER_NET_VERSION */
	char name[32];
	uint32_t gpus_per_node;         /* GPUs behind one NVSwitch */
	double intra_gbps;              /* per GPU and direction inside a node, GB/s (decimal) */
	double intra_latency_ns;        /* per step of a ring inside a node */
	double inter_gbps;              /* per GPU and direction between nodes */
	double inter_latency_ns;        /* per step of a ring between nodes */
	double launch_ns;               /* fixed cost of every collective (launch, setup) */
} chakra_cluster_net;

#define CHAKRA_CLUSTER_NET_VERSION 1
CHAKRA_EXPERIMENTAL_API int chakra_cluster_net_init(chakra_cluster_net *n, unsigned version);
/* Presets: "dgx-a100" (calibrated on nccl-tests, docs/predict.md),
 * "dgx-h100" (datasheet figures). */
CHAKRA_EXPERIMENTAL_API int chakra_cluster_net_preset(chakra_cluster_net *n, const char *name,
                                                      char *err, size_t errlen);
CHAKRA_EXPERIMENTAL_API int chakra_cluster_net_load(chakra_cluster_net *n, const char *path,
                                                    char *err, size_t errlen);
CHAKRA_EXPERIMENTAL_API int chakra_cluster_net_parse(chakra_cluster_net *n, const char *name,
                                                     const char *text, size_t len, char *err,
                                                     size_t errlen);

/* The JSON text of a model or network (what the load calls read), through
 * the caller's callback; 0 or the callback's error. */
CHAKRA_EXPERIMENTAL_API int chakra_gpu_model_json(const chakra_gpu_model *m, chakra_write_cb cb,
                                                  void *data);
CHAKRA_EXPERIMENTAL_API int chakra_cluster_net_json(const chakra_cluster_net *n,
                                                    chakra_write_cb cb, void *data);

typedef enum chakra_collective_op {
	CHAKRA_OP_ALL_REDUCE = 0,
	CHAKRA_OP_ALL_GATHER = 1,
	CHAKRA_OP_REDUCE_SCATTER = 2,
	CHAKRA_OP_ALL_TO_ALL = 3
} chakra_collective_op;

/* The time of one collective of `bytes` (nccl-tests' size: the buffer of
 * the all-reduce, the output of the all-gather, the input of the
 * reduce-scatter) over `gpus` GPUs, ranks packed gpus_per_node to a node,
 * simulated by lib/sim on the network the model describes. */
CHAKRA_EXPERIMENTAL_API int chakra_collective_predict(const chakra_cluster_net *net,
                                                      chakra_collective_op op, uint32_t gpus,
                                                      uint64_t bytes, double *time_us,
                                                      char *err, size_t errlen);

/* ---------------- prediction ---------------- */

typedef struct chakra_gpt_memory {
	uint64_t weights, gradients, optimizer, activations, total;  /* bytes per GPU, most loaded */
	int fits;                       /* total <= the GPU's memory */
} chakra_gpt_memory;

CHAKRA_EXPERIMENTAL_API int chakra_gpt_memory_estimate(const chakra_gpt_config *c,
                                                       const chakra_gpu_model *gpu,
                                                       chakra_gpt_memory *out, char *err,
                                                       size_t errlen);

typedef struct chakra_gpt_prediction {
	double iteration_s;             /* the simulated iteration */
	uint64_t iteration_ns;          /* the same, exactly: the simulator's cycles */
	/* On the GPU that finishes last, seconds that add up to iteration_s: */
	double compute_s;               /* kernels (with their launch floor) */
	double tp_exposed_s;            /* waiting for tensor-parallel collectives */
	double pp_exposed_s;            /* waiting for pipeline send/recv in flight */
	double dp_exposed_s;            /* waiting for data-parallel collectives */
	double bubble_s;                /* idle: nothing to run, nothing in flight */
	double other_s;                 /* the per-iteration overhead */
	double bubble_fraction;         /* the schedule's ideal bubble: (pp-1)/(V m) */
	uint64_t microbatches;          /* per pipeline (m) */
	uint64_t flops_per_gpu;         /* model FLOPs of one GPU per iteration */
	double tflops_per_gpu;          /* flops_per_gpu / iteration_s */
	chakra_gpt_memory memory;
	uint64_t nodes;                 /* nodes simulated */
} chakra_gpt_prediction;

struct chakra_sim_network;
struct chakra_sim_system;

typedef struct chakra_predict_options {
	unsigned version;               /* CHAKRA_PREDICT_OPTIONS_VERSION */
	int fine;                       /* simulate every kernel as its own node (default: runs
	                                 * of kernels between communication as one node, which
	                                 * gives the same cycles, faster) */
	uint64_t memory;                /* the simulator's memory budget (0: its default) */
	int full;                       /* simulate every GPU (default: one per pipeline stage,
	                                 * each collective timed once, which gives the same
	                                 * cycles, far faster; fine implies full) */
	/* A network and system of the caller's (ASTRA-sim's formats, parsed by
	 * chakra/experimental/sim.h) instead of the cluster model's: its NPUs
	 * must be the layout's GPUs, and every collective then names its
	 * communicator group (pg_name). Both or neither; read during the call. */
	const struct chakra_sim_network *network;
	const struct chakra_sim_system *system;
} chakra_predict_options;

#define CHAKRA_PREDICT_OPTIONS_VERSION 1
#define CHAKRA_PREDICT_OPTIONS_INIT { CHAKRA_PREDICT_OPTIONS_VERSION, 0, 0, 0, NULL, NULL }
CHAKRA_EXPERIMENTAL_API int chakra_predict_options_init(chakra_predict_options *o,
                                                        unsigned version);

/* Predict one iteration. net may be NULL (the preset for the GPU's kind). */
CHAKRA_EXPERIMENTAL_API int chakra_gpt_predict(const chakra_gpt_config *c,
                                               const chakra_gpu_model *gpu,
                                               const chakra_cluster_net *net,
                                               const chakra_predict_options *opts,
                                               chakra_gpt_prediction *out, char *err,
                                               size_t errlen);

/* ---------------- the workload itself ---------------- */

/* Rank `rank`'s Chakra ET (metadata and nodes, one node per kernel)
 * through the caller's
 * writer callback, gzip'd when gzip is set. opts: as for
 * chakra_gpt_predict (its network decides how collectives name their
 * ranks); may be NULL. */
CHAKRA_EXPERIMENTAL_API int chakra_gpt_write_rank(const chakra_gpt_config *c,
                                                  const chakra_gpu_model *gpu,
                                                  const chakra_cluster_net *net,
                                                  const chakra_predict_options *opts,
                                                  uint32_t rank, int gzip, chakra_write_cb cb,
                                                  void *data, char *err, size_t errlen);
/* The workload as a rank map (docs/feeder.md): one class per pipeline
 * stage, whose GPUs run the same trace but for their groups and pipeline
 * peers. Class k's file is chakra_gpt_write_rank's trace of the stage's
 * first GPU (chakra_gpt_class_rank); the map names it class_files[k] and
 * gives every GPU its own groups and peers. chakra_gpt_classes: the
 * classes (0 for a configuration that does not check). */
CHAKRA_EXPERIMENTAL_API uint32_t chakra_gpt_classes(const chakra_gpt_config *c);
CHAKRA_EXPERIMENTAL_API uint32_t chakra_gpt_class_rank(const chakra_gpt_config *c, uint32_t cls);
CHAKRA_EXPERIMENTAL_API int chakra_gpt_write_rank_map(const chakra_gpt_config *c,
                                                      const chakra_cluster_net *net,
                                                      const char *const *class_files,
                                                      chakra_write_cb cb, void *data);
/* The files that run it in `chakra sim` or ASTRA-sim: the communicator
 * groups ({"id": [ranks]}; every group the workload names), the network
 * YAML and the system JSON of the cluster model. */
CHAKRA_EXPERIMENTAL_API int chakra_gpt_write_groups(const chakra_gpt_config *c,
                                                    const chakra_predict_options *opts,
                                                    chakra_write_cb cb, void *data);
CHAKRA_EXPERIMENTAL_API int chakra_gpt_write_network(const chakra_gpt_config *c,
                                                     const chakra_cluster_net *net,
                                                     chakra_write_cb cb, void *data);
CHAKRA_EXPERIMENTAL_API int chakra_gpt_write_system(const chakra_gpt_config *c,
                                                    const chakra_cluster_net *net,
                                                    chakra_write_cb cb, void *data);

/* ---------------- calibration ---------------- */

/* One measured iteration (a row of the measurement CSV). */
typedef struct chakra_gpt_measurement {
	chakra_gpt_config config;
	double iteration_s;
	char source[64];                /* FILE:LINE */
	/* The fit gives every group the same weight in all, however many rows
	 * it has (the loaders number each file's rows as one group). */
	uint32_t group;
} chakra_gpt_measurement;

/* Reads a measurement CSV (the columns of vTrain's ground-truth files: GPUs,
 * global batch, micro batch, hidden size, attention heads, layers,
 * sequence length, tensor, data and pipeline parallelism, iteration time in
 * ms; an optional leading parameter-count column) and appends its rows to
 * *rows (realloc'd; free with chakra_predict_free), in a group of their own
 * (one more than the last row's before them). Errors name FILE:LINE and the
 * column. */
CHAKRA_EXPERIMENTAL_API int chakra_gpt_measurements_load(const char *path,
                                                         chakra_gpt_measurement **rows,
                                                         size_t *n, char *err, size_t errlen);
CHAKRA_EXPERIMENTAL_API int chakra_gpt_measurements_parse(const char *name, const char *text,
                                                          size_t len,
                                                          chakra_gpt_measurement **rows,
                                                          size_t *n, char *err,
                                                          size_t errlen);

typedef struct chakra_calibrate_options {
	unsigned version;               /* CHAKRA_CALIBRATE_OPTIONS_VERSION */
	unsigned max_iterations;        /* 0: 30 */
	/* Rows whose index i satisfies i % holdout_mod != holdout_keep are
	 * left out of the fit (0: every row is used). */
	unsigned holdout_mod, holdout_keep;
	void (*progress_cb)(void *data, unsigned iteration, double rms);
	void *data;
	/* Compute calibration only: fit the scale-out bandwidth too, on the
	 * rows that span several nodes (net is then updated). */
	int fit_inter;
	/* Which of the compute model's fields to fit (CHAKRA_FIT_* bits; 0:
	 * all of them); the others keep their values. */
	unsigned fit;
} chakra_calibrate_options;

enum {
	CHAKRA_FIT_GEMM_EFFICIENCY = 1 << 0,
	CHAKRA_FIT_GEMM_KNEE = 1 << 1,
	CHAKRA_FIT_MEM_EFFICIENCY = 1 << 2,
	CHAKRA_FIT_KERNEL_FLOOR = 1 << 3,
	CHAKRA_FIT_OPTIMIZER_BYTES = 1 << 4,
	CHAKRA_FIT_ITERATION_OVERHEAD = 1 << 5
};

#define CHAKRA_CALIBRATE_OPTIONS_VERSION 1
#define CHAKRA_CALIBRATE_OPTIONS_INIT \
	{ CHAKRA_CALIBRATE_OPTIONS_VERSION, 0, 0, 0, NULL, NULL, 0, 0 }
CHAKRA_EXPERIMENTAL_API int chakra_calibrate_options_init(chakra_calibrate_options *o,
                                                          unsigned version);

/* Fit gpu's calibrated fields to measured iterations (least squares on the
 * log of predicted / measured). */
CHAKRA_EXPERIMENTAL_API int chakra_calibrate_compute(chakra_gpu_model *gpu,
                                                     chakra_cluster_net *net,
                                                     const chakra_gpt_measurement *rows,
                                                     size_t n,
                                                     const chakra_calibrate_options *opts,
                                                     char *err, size_t errlen);

/* One nccl-tests measurement: op, GPUs, bytes, out-of-place time. */
typedef struct chakra_nccl_measurement {
	chakra_collective_op op;
	uint32_t gpus, nodes;
	uint64_t bytes;
	double time_us;
	char source[64];
} chakra_nccl_measurement;

/* Reads nccl-tests output (all_reduce_perf, all_gather_perf,
 * reduce_scatter_perf, alltoall_perf; mpirun's "[1,0]<stdout>:" prefixes
 * allowed): the operation from its header or the file name, the GPUs and
 * nodes from the device list. Appends to *rows (free with chakra_predict_free). */
CHAKRA_EXPERIMENTAL_API int chakra_nccl_log_load(const char *path,
                                                 chakra_nccl_measurement **rows, size_t *n,
                                                 char *err, size_t errlen);
CHAKRA_EXPERIMENTAL_API int chakra_nccl_log_parse(const char *name, const char *text,
                                                  size_t len, chakra_nccl_measurement **rows,
                                                  size_t *n, char *err, size_t errlen);

/* Fit the network's per-level bandwidth and latency and the launch cost to
 * measurements (sizes of at least min_bytes): one node's measurements give
 * the NVSwitch level; measurements across nodes give the scale-out level,
 * and without any, the scale-out bandwidth is the datasheet's
 * (net->inter_gbps on entry) times the efficiency the NVSwitch level
 * reached against its datasheet (intra_gbps on entry). */
CHAKRA_EXPERIMENTAL_API int chakra_calibrate_nccl(chakra_cluster_net *net,
                                                  const chakra_nccl_measurement *rows, size_t n,
                                                  uint64_t min_bytes, char *err, size_t errlen);

/* ---------------- sweep ---------------- */

typedef struct chakra_gpt_layout_result {
	uint32_t tp, pp, dp, micro_batch, interleave;
	chakra_gpt_prediction prediction;
} chakra_gpt_layout_result;

/* Every valid (tp, pp, dp, micro batch) for `gpus` GPUs (tp within a node,
 * powers of two up to 8; micro batches dividing the per-replica batch),
 * each predicted; *out sorted fastest first (free with chakra_predict_free). The
 * model fields of c are kept; its tp, pp, dp and micro_batch are varied. */
CHAKRA_EXPERIMENTAL_API int chakra_gpt_sweep(const chakra_gpt_config *c, uint32_t gpus,
                                             const chakra_gpu_model *gpu,
                                             const chakra_cluster_net *net,
                                             const chakra_predict_options *opts,
                                             chakra_gpt_layout_result **out, size_t *n,
                                             char *err, size_t errlen);

/* Frees what the calls above hand back (NULL is fine). */
CHAKRA_EXPERIMENTAL_API void chakra_predict_free(void *p);

#ifdef __cplusplus
}
#endif

#endif
