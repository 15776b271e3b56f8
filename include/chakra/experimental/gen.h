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

#ifdef __cplusplus
}
#endif

#endif
