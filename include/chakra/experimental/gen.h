/* SPDX-License-Identifier: Apache-2.0 */
/* libchakra (experimental): workload generation, what `chakra convert
 * text` does: an ASTRA-sim 1.0 text workload (one layer per line) as one
 * Chakra ET per NPU and the communicator groups.
 *
 *   #define CHAKRA_EXPERIMENTAL
 *   #include <chakra/experimental/gen.h>
 *
 *   chakra_gen_options o = CHAKRA_GEN_OPTIONS_INIT;
 *   o.npus = 8;
 *   o.messages = my_write;   // each error: one call, "FILE:LINE: what"
 *   chakra_gen_text_options t = CHAKRA_GEN_TEXT_OPTIONS_INIT;
 *   int rc = chakra_gen_text("Resnet50_DataParallel.txt", "out/resnet", &o, &t);
 *   // out/resnet.0.et .. out/resnet.7.et, out/resnet.comm_groups.json
 *
 * Every rank has the same nodes, ids and dependencies; only the
 * communicator group of each collective differs. The dependency structure
 * follows ASTRA-sim 1.0's training loops; docs/generate.md lists every
 * rule. Outputs follow the output rule (docs/hardening.md): all files are
 * written first and renamed into place together, an existing file is
 * replaced only with force, the input never. */
#ifndef CHAKRA_EXPERIMENTAL_GEN_H
#define CHAKRA_EXPERIMENTAL_GEN_H

#include "chakra/experimental.h"
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Nodes per rank held in memory at most (about 100 bytes each):
 * CHAKRA_ETOOBIG past it. */
#define CHAKRA_GEN_MAX_NODES 5000000u

/* Progress of the writing: what is CHAKRA_GEN_PROGRESS_START (done 0),
 * _UPDATE or _END; total is nodes times the files written. */
enum { CHAKRA_GEN_PROGRESS_START = 0, CHAKRA_GEN_PROGRESS_UPDATE = 1, CHAKRA_GEN_PROGRESS_END = 2 };
typedef void (*chakra_gen_progress_fn)(void *data, int what, uint64_t done, uint64_t total);

/* The outputs, for every generator. */
typedef struct chakra_gen_options {
	unsigned version;         /* CHAKRA_GEN_OPTIONS_VERSION */
	uint32_t npus;            /* ranks (required) */
	uint32_t ndims;           /* network dimensions; 0: two, near square */
	uint32_t dims[16];        /* dim 0 fastest; their product is npus */
	const char *groups_path;  /* NULL: PREFIX.comm_groups.json; "": none */
	int force;                /* replace existing files */
	int gzip;                 /* PREFIX.r.et.gz */
	/* PREFIX.c0.et and the rank map PREFIX.ranks (docs/feeder.md) instead
	 * of PREFIX.r.et for every rank */
	int rank_map;
	/* Error messages, one call each, without a newline; NULL: none. */
	chakra_write_cb messages;
	void *messages_data;
	chakra_gen_progress_fn progress; /* may be NULL */
	void *progress_data;
} chakra_gen_options;

#define CHAKRA_GEN_OPTIONS_VERSION 1
#define CHAKRA_GEN_OPTIONS_INIT \
	{ CHAKRA_GEN_OPTIONS_VERSION, 0, 0, { 0 }, NULL, 0, 0, 0, NULL, NULL, NULL, NULL }

/* CHAKRA_EINVAL for a version this library does not know. */
CHAKRA_EXPERIMENTAL_API int chakra_gen_options_init(chakra_gen_options *opts, unsigned version);

/* How the text's numbers become a trace. */
typedef struct chakra_gen_text_options {
	unsigned version;       /* CHAKRA_GEN_TEXT_OPTIONS_VERSION */
	uint32_t passes;        /* training iterations, 1..1000000 */
	double ghz;             /* clock of the text's cycles (> 0) */
	double compute_scale;   /* multiplies compute times (>= 0) */
	double comm_scale;      /* multiplies communication sizes (>= 0) */
	/* The text is one data-parallel replica running the whole batch:
	 * each layer's compute and forward/input-gradient collective sizes
	 * are divided by its data-parallel degree. */
	int strong_scaling;
} chakra_gen_text_options;

#define CHAKRA_GEN_TEXT_OPTIONS_VERSION 1
#define CHAKRA_GEN_TEXT_OPTIONS_INIT { CHAKRA_GEN_TEXT_OPTIONS_VERSION, 1, 1.0, 1.0, 1.0, 0 }

CHAKRA_EXPERIMENTAL_API int chakra_gen_text_options_init(chakra_gen_text_options *opts,
                                                         unsigned version);

/* Convert the text workload at path ("-": stdin) to PREFIX.r.et for every
 * rank and the group file. 0; CHAKRA_EINVAL (bad options: a message says
 * which), CHAKRA_ECORRUPT (the workload: "FILE:LINE: what"), CHAKRA_EIO (a
 * file could not be read or written), CHAKRA_ETOOBIG (more than
 * CHAKRA_GEN_MAX_NODES nodes per rank), CHAKRA_ENOMEM. Nothing is left
 * under the output names on an error. */
CHAKRA_EXPERIMENTAL_API int chakra_gen_text(const char *path, const char *prefix,
                                            const chakra_gen_options *opts,
                                            const chakra_gen_text_options *text);

/* `chakra generate model`: one training iteration per pass of an MLP, DLRM
 * or Transformer under data, model or hybrid parallelism (the Chakra
 * paper's set), its compute timed by a roofline (tflops, mem_gbps) and its
 * collectives over the model- and data-parallel groups. docs/generate.md
 * lists the layers, formulas and assumptions. */
enum {
	CHAKRA_GEN_MODEL_MLP = 0,
	CHAKRA_GEN_MODEL_DLRM = 1,
	CHAKRA_GEN_MODEL_TRANSFORMER = 2
};
enum {
	CHAKRA_GEN_PARALLEL_DATA = 0,
	CHAKRA_GEN_PARALLEL_MODEL = 1,
	CHAKRA_GEN_PARALLEL_HYBRID = 2
};

/* Sizes left 0 take the model's default (docs/generate.md). */
typedef struct chakra_gen_model_options {
	unsigned version;     /* CHAKRA_GEN_MODEL_OPTIONS_VERSION */
	int model;            /* CHAKRA_GEN_MODEL_* */
	int parallel;         /* CHAKRA_GEN_PARALLEL_* */
	uint64_t batch;       /* global batch in samples (mlp 1024, dlrm 2048, transformer 64) */
	uint64_t layers;      /* mlp layers / transformer blocks (mlp 8, transformer 12) */
	uint64_t hidden;      /* width (mlp 4096, dlrm and transformer 1024) */
	uint64_t seq;         /* transformer sequence length (1024) */
	uint64_t tables;      /* dlrm embedding tables (64) */
	uint64_t emb_dim;     /* dlrm embedding width (128) */
	uint64_t pooling;     /* dlrm lookups per table and sample (32) */
	uint64_t dense;       /* dlrm dense input features (512) */
	uint64_t bottom, top; /* dlrm bottom- and top-MLP layers (3, 3) */
	uint64_t dtype_bytes; /* bytes per element, 1..64 */
	/* hybrid: model-parallel group size (0: network dimension 0); data
	 * parallelism takes 1 and model parallelism npus */
	uint64_t mp_group;
	double tflops;        /* compute rate per NPU, TFLOP/s (> 0) */
	double mem_gbps;      /* memory bandwidth per NPU, GB/s (> 0) */
	uint32_t passes;      /* iterations, 1..100000 */
} chakra_gen_model_options;

#define CHAKRA_GEN_MODEL_OPTIONS_VERSION 1
#define CHAKRA_GEN_MODEL_OPTIONS_INIT                                                       \
	{ CHAKRA_GEN_MODEL_OPTIONS_VERSION, CHAKRA_GEN_MODEL_MLP, CHAKRA_GEN_PARALLEL_DATA, 0, 0, \
	  0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 100.0, 2000.0, 1 }

CHAKRA_EXPERIMENTAL_API int chakra_gen_model_options_init(chakra_gen_model_options *opts,
                                                          unsigned version);

/* Write the model's iterations as PREFIX.r.et for every rank and the group
 * file (npus at most 65536). 0; CHAKRA_EINVAL (bad options: a message says
 * which), CHAKRA_EIO, CHAKRA_ETOOBIG (more than CHAKRA_GEN_MAX_NODES nodes
 * per rank), CHAKRA_ENOMEM. Nothing is left under the output names on an
 * error. */
CHAKRA_EXPERIMENTAL_API int chakra_gen_model(const char *prefix, const chakra_gen_options *opts,
                                             const chakra_gen_model_options *model);

/* `chakra generate micro`: one collective per NPU, byte for byte the files
 * of ASTRA-sim's microbenchmarks (node name "all_reduce_8npus_1MB", id =
 * rank), or a ring where each rank sends size bytes to rank + 1 and
 * receives from rank - 1. Writes PREFIX.r.et only: no group file, no rank
 * map (rank_map is refused), groups_path and the dimensions unused. */
#define CHAKRA_GEN_MICRO_RING (-1)

typedef struct chakra_gen_micro_options {
	unsigned version; /* CHAKRA_GEN_MICRO_OPTIONS_VERSION */
	/* CHAKRA_ALL_REDUCE, _ALL_GATHER, _REDUCE_SCATTER, _ALL_TO_ALL,
	 * _BROADCAST, or CHAKRA_GEN_MICRO_RING */
	int comm_type;
	uint64_t size;    /* bytes of the collective (of each send) */
} chakra_gen_micro_options;

#define CHAKRA_GEN_MICRO_OPTIONS_VERSION 1
#define CHAKRA_GEN_MICRO_OPTIONS_INIT { CHAKRA_GEN_MICRO_OPTIONS_VERSION, 0 /* all-reduce */, 0 }

CHAKRA_EXPERIMENTAL_API int chakra_gen_micro_options_init(chakra_gen_micro_options *opts,
                                                          unsigned version);

/* 0; CHAKRA_EINVAL (a message says which option), CHAKRA_EIO, CHAKRA_ENOMEM.
 * Nothing is left under the output names on an error. */
CHAKRA_EXPERIMENTAL_API int chakra_gen_micro(const char *prefix, const chakra_gen_options *opts,
                                             const chakra_gen_micro_options *micro);

/* `chakra generate basic`: the one- and two-node traces Chakra's
 * chakra_generator writes (an attribute of every kind, memory, compute,
 * every collective, send, receive), byte for byte, as DIR/NAME.r.et for
 * every NAME and rank (opts->npus of each; DIR NULL or "": the current
 * directory). Node ids count on through every file, as the generator's.
 * No group file, no rank map, no gzip. */
typedef struct chakra_gen_basic_options {
	unsigned version;     /* CHAKRA_GEN_BASIC_OPTIONS_VERSION */
	uint64_t runtime;     /* duration_micros of the compute nodes */
	uint64_t tensor_size; /* of the memory and send/receive nodes */
	uint64_t comm_size;   /* of the collectives */
} chakra_gen_basic_options;

#define CHAKRA_GEN_BASIC_OPTIONS_VERSION 1
#define CHAKRA_GEN_BASIC_OPTIONS_INIT { CHAKRA_GEN_BASIC_OPTIONS_VERSION, 5, 1024, 65536 }

CHAKRA_EXPERIMENTAL_API int chakra_gen_basic_options_init(chakra_gen_basic_options *opts,
                                                          unsigned version);

/* 0; CHAKRA_EINVAL, CHAKRA_EIO, CHAKRA_ENOMEM. Every file is written
 * first and all are renamed into place together: nothing is left under
 * the output names on an error. */
CHAKRA_EXPERIMENTAL_API int chakra_gen_basic(const char *dir, const chakra_gen_options *opts,
                                             const chakra_gen_basic_options *basic);

#ifdef __cplusplus
}
#endif

#endif
