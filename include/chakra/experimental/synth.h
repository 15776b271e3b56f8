/* SPDX-License-Identifier: Apache-2.0 */
/* libchakra synth (experimental): learn the statistics of execution traces
 * and sample new ones that share them but no name or model detail.
 *
 *   const char *ranks[] = { "trace.0.et", "trace.1.et" };
 *   chakra_synth_model *m;  char err[512];
 *   if (chakra_synth_fit(&m, ranks, 2, NULL, err, sizeof err) < 0) { puts(err); ... }
 *   chakra_synth_model_save(m, "model.json", 0, err, sizeof err);
 *   chakra_synth_sample_options so = CHAKRA_SYNTH_SAMPLE_OPTIONS_INIT;
 *   so.npus = 64;  so.seed = 7;
 *   chakra_synth_sample(m, "synthetic", &so, err, sizeof err);  // synthetic.0.et ...
 *   chakra_synth_model_free(m);
 *
 * The model (docs/synth.md): the collective sequence as a Markov chain of
 * order k (chosen by held-out likelihood) over collective classes (type and
 * process-group shape) marked with how far ahead their first compute
 * consumer is; message sizes per class and compute durations per op class
 * as Gaussian mixtures in log space (EM on the integer bins, components by
 * BIC); how many compute nodes separate collectives; fan-in, fan-out and
 * dependency distances per class; ranks and group shapes. Names are never
 * stored: nodes are reduced to op classes by fixed rules.
 *
 * Every call returns 0 or a negative chakra_error, with a message in err
 * (which may be NULL) naming the file and what is wrong. Experimental:
 * define CHAKRA_EXPERIMENTAL to use this header. */
#ifndef CHAKRA_EXPERIMENTAL_SYNTH_H
#define CHAKRA_EXPERIMENTAL_SYNTH_H

#include "chakra/experimental.h"

#include <stddef.h>
#include <stdint.h>

#include "chakra/chakra.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct chakra_synth_model chakra_synth_model;

/* ---- inputs ---- */
/* Trace files named by one argument: the file itself when it exists,
 * otherwise the workload PREFIX.0.et ... (or .et.gz) up to the first
 * missing rank. Free *paths with chakra_synth_paths_free (or each path
 * and the array with chakra_free). */
CHAKRA_EXPERIMENTAL_API int chakra_synth_expand(const char *arg, char ***paths, size_t *n,
                                                char *err, size_t errlen);
CHAKRA_EXPERIMENTAL_API void chakra_synth_paths_free(char **paths, size_t n);

/* ---- fit ---- */
typedef struct chakra_synth_fit_options {
	unsigned version;          /* CHAKRA_SYNTH_FIT_OPTIONS_VERSION */
	int max_order;             /* highest Markov order tried; 0 = 3 */
	int max_components;        /* most mixture components tried; 0 = 8 (at most 16) */
	/* ASTRA-sim communicator groups ({"id": [ranks]}) giving pg_name its
	 * ranks; NULL: none, and pg_name is ignored as the simulator does. */
	const char *comm_groups;
	/* Lower bound on every component's standard deviation in log space:
	 * 0 reproduces sizes that repeat exactly; 0.05 blurs every value by
	 * about 5% (less to learn about the model, larger KS). */
	double min_log_sd;
} chakra_synth_fit_options;

#define CHAKRA_SYNTH_FIT_OPTIONS_VERSION 1
#define CHAKRA_SYNTH_FIT_OPTIONS_INIT { CHAKRA_SYNTH_FIT_OPTIONS_VERSION, 0, 0, NULL, 0.0 }
/* The defaults of that version's fields: 0, or CHAKRA_EINVAL (NULL, a
 * version this library does not know); the same for every options struct. */
CHAKRA_EXPERIMENTAL_API int chakra_synth_fit_options_init(chakra_synth_fit_options *opts,
                                                          unsigned version);

/* Learn from one trace per rank (paths[r] is rank r). */
CHAKRA_EXPERIMENTAL_API int chakra_synth_fit(chakra_synth_model **out, const char *const *paths,
                                             size_t n, const chakra_synth_fit_options *opts,
                                             char *err, size_t errlen);
CHAKRA_EXPERIMENTAL_API void chakra_synth_model_free(chakra_synth_model *m);

/* ---- MODEL.json ---- */
/* The model as JSON text (NUL-terminated; free it with chakra_free);
 * NULL on ENOMEM. */
CHAKRA_EXPERIMENTAL_API char *chakra_synth_model_json(const chakra_synth_model *m, size_t *len);
/* Write through a temporary file and rename; an existing file is replaced
 * only with overwrite set. */
CHAKRA_EXPERIMENTAL_API int chakra_synth_model_save(const chakra_synth_model *m, const char *path,
                                                    int overwrite, char *err, size_t errlen);
/* Parse text (name is used in messages) or a file. Errors name the JSON
 * path of the bad value, e.g. "m.json: collectives[2].size.components[0].sd:
 * must be positive". */
CHAKRA_EXPERIMENTAL_API int chakra_synth_model_parse(chakra_synth_model **out, const char *name,
                                                     const char *text, size_t len, char *err,
                                                     size_t errlen);
CHAKRA_EXPERIMENTAL_API int chakra_synth_model_load(chakra_synth_model **out, const char *path,
                                                    char *err, size_t errlen);

/* A few facts about a model. */
CHAKRA_EXPERIMENTAL_API uint32_t chakra_synth_model_ranks(const chakra_synth_model *m);
/* What fit dropped from the traces, counted. */
typedef struct chakra_synth_fit_notes {
	uint64_t self_deps;        /* data dependencies of a node on itself */
	uint64_t missing_deps;     /* on ids absent from the file */
	uint64_t cycle_edges;      /* dropped to break dependency cycles */
	uint64_t pg_name_without_groups; /* collectives whose pg_name had no group file */
} chakra_synth_fit_notes;
CHAKRA_EXPERIMENTAL_API void chakra_synth_model_notes(const chakra_synth_model *m,
                                                      chakra_synth_fit_notes *out);
CHAKRA_EXPERIMENTAL_API double chakra_synth_model_nodes_per_rank(const chakra_synth_model *m);
CHAKRA_EXPERIMENTAL_API int chakra_synth_model_markov_order(const chakra_synth_model *m);

/* ---- sample ---- */
typedef struct chakra_synth_sample_options {
	unsigned version;          /* CHAKRA_SYNTH_SAMPLE_OPTIONS_VERSION */
	uint32_t npus;             /* ranks to write (required, >= 1) */
	uint64_t nodes;            /* nodes per rank; 0 = as in the fitted traces */
	uint64_t seed;
	int gzip;                  /* write PREFIX.r.et.gz */
	int overwrite;             /* replace existing outputs */
	/* Group file written when the model has process groups other than
	 * "all ranks"; NULL = PREFIX.comm_groups.json. */
	const char *comm_groups;
} chakra_synth_sample_options;

#define CHAKRA_SYNTH_SAMPLE_OPTIONS_VERSION 1
#define CHAKRA_SYNTH_SAMPLE_OPTIONS_INIT \
	{ CHAKRA_SYNTH_SAMPLE_OPTIONS_VERSION, 0, 0, 0, 0, 0, NULL }
CHAKRA_EXPERIMENTAL_API int chakra_synth_sample_options_init(chakra_synth_sample_options *opts,
                                                             unsigned version);

/* Write PREFIX.0.et ... PREFIX.{npus-1}.et: one master sequence (the same
 * collectives, in the same order, with the same sizes, on every member of
 * every group), then one file per rank. The same model, options and seed
 * give the same bytes. */
CHAKRA_EXPERIMENTAL_API int chakra_synth_sample(const chakra_synth_model *m, const char *prefix,
                                                const chakra_synth_sample_options *opts, char *err,
                                                size_t errlen);

/* ---- compare ---- */
typedef struct chakra_synth_ks {
	const char *name;          /* "size/ALL_REDUCE", "duration/gpu.gemm", "fanin", ... */
	uint64_t n_real, n_synth;
	double ks;                 /* two-sample Kolmogorov-Smirnov statistic */
	double crit05;             /* its asymptotic 5% critical value for these sizes */
	double mean_real, mean_synth;
} chakra_synth_ks;

typedef struct chakra_synth_report chakra_synth_report;

/* Distributions of two sets of ranks: message size per collective type
 * (and all), compute duration per op class (and all), fan-in, fan-out,
 * chain length, overlap (compute nodes between a collective and its first
 * consumer). */
CHAKRA_EXPERIMENTAL_API int chakra_synth_compare(chakra_synth_report **out, const char *const *real,
                                                 size_t nreal, const char *const *synth,
                                                 size_t nsynth, char *err, size_t errlen);
CHAKRA_EXPERIMENTAL_API size_t chakra_synth_report_count(const chakra_synth_report *r);
CHAKRA_EXPERIMENTAL_API const chakra_synth_ks *
	chakra_synth_report_at(const chakra_synth_report *r, size_t i);
/* The i-th distribution's value at probabilities (j + 0.5) / q, j < q,
 * of the real (which = 0) or synthetic (1) sample, into out[q]. */
CHAKRA_EXPERIMENTAL_API int chakra_synth_report_quantiles(const chakra_synth_report *r, size_t i,
                                                          int which, size_t q, double *out);
CHAKRA_EXPERIMENTAL_API void chakra_synth_report_free(chakra_synth_report *r);

/* ---- anonymize, and a simulator-ready copy ---- */
typedef struct chakra_synth_anonymize_options {
	unsigned version;          /* CHAKRA_SYNTH_ANONYMIZE_OPTIONS_VERSION */
	/* Durations and sizes multiplied by a factor in [1 - perturb, 1 + perturb]
	 * (0 = unchanged, at most 0.5). A size gets the same factor wherever it
	 * occurs, so the ranks of a group still agree. */
	double perturb;
	uint64_t seed;
	int gzip;
	int overwrite;
} chakra_synth_anonymize_options;

#define CHAKRA_SYNTH_ANONYMIZE_OPTIONS_VERSION 1
#define CHAKRA_SYNTH_ANONYMIZE_OPTIONS_INIT \
	{ CHAKRA_SYNTH_ANONYMIZE_OPTIONS_VERSION, 0.0, 0, 0, 0 }
CHAKRA_EXPERIMENTAL_API int
	chakra_synth_anonymize_options_init(chakra_synth_anonymize_options *opts, unsigned version);

typedef struct chakra_synth_anonymize_stats {
	uint64_t nodes;
	uint64_t names;            /* node names replaced by op classes */
	uint64_t attrs_dropped;
	uint64_t io_dropped;       /* inputs/outputs (values, shapes, types) */
	uint64_t pg_dropped;       /* pg_name values that were not group numbers */
} chakra_synth_anonymize_stats;

/* Names become op classes; kept: ids, types, dependencies, times and the
 * attributes a simulator needs (list in docs/synth.md); the rest, the
 * metadata attributes and the inputs/outputs are dropped. stats may be NULL. */
CHAKRA_EXPERIMENTAL_API int chakra_synth_anonymize(const char *in, const char *out,
                                                   const chakra_synth_anonymize_options *opts,
                                                   chakra_synth_anonymize_stats *stats, char *err,
                                                   size_t errlen);

/* Copy of a trace a simulator can run: a COMM_COLL_NODE without comm_type
 * (the CPU-side call of a collective whose kernel is a separate node)
 * becomes a COMP_NODE of the same duration. *changed = nodes changed. */
CHAKRA_EXPERIMENTAL_API int chakra_synth_simready(const char *in, const char *out, int overwrite,
                                                  uint64_t *changed, char *err, size_t errlen);

/* The op class of a node ("gpu.gemm", "cpu.elementwise", "ALL_REDUCE"...),
 * by the rules of docs/synth.md; a static string. */
CHAKRA_EXPERIMENTAL_API const char *chakra_synth_op_class(const chakra_node *n);

#ifdef __cplusplus
}
#endif
#endif
