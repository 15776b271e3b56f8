/* SPDX-License-Identifier: Apache-2.0 */
/* libchakra synth module: internal types shared by its files.
 *   rng.c       deterministic random numbers (xoshiro256**)
 *   gmm.c       Gaussian mixtures in log space fitted to integer data (EM on
 *               bins, components by BIC), quantiles
 *   hist.c      empirical integer distributions
 *   markov.c    order-k chains, order by held-out likelihood, sampling
 *               with count targets
 *   classify.c  op classes from names and attributes (docs/synth.md)
 *   trace.c     one rank in memory: nodes, resolved data deps, issue order
 *   fit.c       traces -> model, by stages: fit_groups.c the communicator
 *               groups, fit_walk.c one rank's walk (fit_impl.h)
 *   model.c     the model in memory;   sample.c  model -> per-rank traces
 *   model_json.c  MODEL.json out and in;  compare.c  KS statistics
 *   anonymize.c   names -> classes, identifying attributes dropped
 * Values are integers (bytes, duration quanta, counts, distances); the
 * mixtures live in log space over the bins [v, v+1). */
#ifndef CHAKRA_SYNTH_IMPL_H
#define CHAKRA_SYNTH_IMPL_H

#include "../modmem.h"
#include "../opts.h"
#include <stddef.h>
#include <stdint.h>

#ifndef CHAKRA_EXPERIMENTAL
#define CHAKRA_EXPERIMENTAL
#endif
#include "chakra/chakra.h"
#include "chakra/experimental/synth.h"

#if defined(__GNUC__)
#  define SY_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#  define SY_PRINTF(a, b)
#endif

#define SY_MAXK 16        /* mixture components */
#define SY_MAXORDER 6     /* Markov order */
#define SY_MAXSYM 4096    /* Markov alphabet */

/* Message into err (may be NULL), returns code. */
int chakra__sy_err(char *err, size_t errlen, int code, const char *fmt, ...) SY_PRINTF(4, 5);
/* rc; when rc is a failure and err is still empty, chakra_strerror(rc) in it. */
int chakra__sy_msg(int rc, char *err, size_t errlen);
/* The communicator-group reader of synth fit on text (for the fuzzer):
 * 0 with the group count and the world (highest rank + 1), or an error
 * with its message. CHAKRA_EINVAL also when what the fitter relies on does
 * not hold (each group's ranks sorted and unique, each found by name). */
int chakra__sy_groups_probe(const char *name, const char *text, size_t len, size_t *ngroups,
                            uint32_t *world, char *err, size_t errlen);

/* ---- rng.c ---- */
typedef struct sy_rng {
	uint64_t s[4];
} sy_rng;
void chakra__sy_rng_seed(sy_rng *r, uint64_t seed);
uint64_t chakra__sy_rng_u64(sy_rng *r);
double chakra__sy_rng_uniform(sy_rng *r);        /* (0, 1) */
double chakra__sy_rng_normal(sy_rng *r);
uint64_t chakra__sy_rng_below(sy_rng *r, uint64_t n); /* [0, n), n > 0 */
void chakra__sy_shuffle_u32(sy_rng *r, uint32_t *a, size_t n);

/* ---- hist.c: value -> count, values ascending ---- */
typedef struct sy_hist {
	size_t n;
	uint64_t *v;
	uint64_t *c;
	uint64_t *cum;         /* cum[i] = c[0] + ... + c[i] */
	uint64_t total;
} sy_hist;
/* Growable list of raw observations. */
typedef struct sy_vec {
	uint64_t *p;
	size_t n, cap;
} sy_vec;
int chakra__sy_vec_push(sy_vec *a, uint64_t v);
void chakra__sy_vec_free(sy_vec *a);
/* Sorts the list and counts it into h (h is overwritten). */
int chakra__sy_hist_from(sy_hist *h, sy_vec *a);
void chakra__sy_hist_free(sy_hist *h);
/* Inverse CDF: the value at probability u in (0, 1); 0 for an empty hist. */
uint64_t chakra__sy_hist_quantile(const sy_hist *h, double u);
double chakra__sy_hist_mean(const sy_hist *h);
int chakra__sy_hist_copy(sy_hist *dst, const sy_hist *src);
/* Build h from n (value, count) pairs, values strictly ascending, counts
 * >= 1 (checked by the caller); takes ownership of v and c. */
int chakra__sy_hist_adopt(sy_hist *h, uint64_t *v, uint64_t *c, size_t n);

/* ---- gmm.c ---- */
typedef struct sy_gmm {
	int k;
	double w[SY_MAXK], mu[SY_MAXK], sd[SY_MAXK];
	uint64_t n;            /* observations */
	double loglik;         /* of the bins, natural log */
	int ntried;            /* component counts tried: 1..ntried */
	double bic[SY_MAXK];   /* BIC for k = 1..ntried (lower is better) */
} sy_gmm;
/* Fit to the observations in h (values >= 0), k = 1..maxk by BIC. Each
 * observation v is the bin [v, v+1) and the mixture is over log(x).
 * min_sd: lower bound on every sd (0: only the numeric floor). */
int chakra__sy_gmm_fit(sy_gmm *g, const sy_hist *h, int maxk, double min_sd);
/* Fit with exactly k components (restarts included); for tests. */
int chakra__sy_gmm_fit_k(sy_gmm *g, const sy_hist *h, int k, double min_sd);
/* Mixture CDF of log(x) at y, and its inverse. */
double chakra__sy_gmm_cdf(const sy_gmm *g, double y);
double chakra__sy_gmm_quantile_log(const sy_gmm *g, double u);
/* Value at probability u: floor(exp(quantile)), clamped to [0, 2^62]. */
uint64_t chakra__sy_gmm_value(const sy_gmm *g, double u);
/* Standard normal CDF and log of the probability of [a, b] under N(0,1). */
double chakra__sy_phi_cdf(double z);
double chakra__sy_log_interval(double a, double b);

/* ---- markov.c ---- */
typedef struct sy_markov {
	int order;             /* k */
	int nsym;
	size_t nctx;
	int32_t *ctx;          /* nctx * order symbols, -1 = before the start */
	uint64_t *cnt;         /* nctx * nsym */
	int ntried;            /* orders 0..ntried-1 evaluated */
	double heldout[SY_MAXORDER + 1]; /* held-out log-likelihood per symbol */
} sy_markov;
/* Sequences: seqs[i] of lens[i] symbols in [0, nsym). Tries orders
 * 0..maxorder by 5-fold held-out likelihood (maxorder < 0: fit exactly
 * order -maxorder-1 without selection). */
int chakra__sy_markov_fit(sy_markov *m, int nsym, const int32_t *const *seqs,
                          const size_t *lens, size_t nseq, int maxorder);
void chakra__sy_markov_free(sy_markov *m);
/* Draw a sequence of len symbols whose symbol counts equal target[]
 * (sum = len), following the chain where the counts allow. */
int chakra__sy_markov_sample(const sy_markov *m, sy_rng *r, const uint64_t *target,
                             int32_t *out, size_t len);
/* Transition probabilities of an order-1 chain (nsym x nsym, row = from);
 * rows never seen are zero. */
int chakra__sy_markov_matrix(const sy_markov *m, double *p);

/* ---- classify.c ---- */
/* Vocabulary of compute classes (never a part of a node name). */
int chakra__sy_class_count(void);
const char *chakra__sy_class_name(int i);
int chakra__sy_class_find(const char *name);
/* Class index of a node that is not a collective with a comm_type. */
int chakra__sy_classify(const chakra_node *n);
/* "gemm", "conv", ... part without the device prefix, for a name. */
const char *chakra__sy_kind_of_name(const char *name, size_t len);

/* ---- trace.c: one rank ---- */
enum { SY_TOK_COMPUTE = 0, SY_TOK_COLL = 1 };
typedef struct sy_node {
	uint64_t id;
	int type;              /* raw node type */
	int tok;               /* SY_TOK_* */
	int cls;               /* compute class, or comm_type for collectives */
	int32_t pg;            /* index into the trace's pg names, -1 = none */
	uint64_t dur_ns;
	uint64_t size;
	uint32_t dep0, ndep;   /* resolved data parents: indices into nodes */
} sy_node;
typedef struct sy_trace {
	char *path;
	sy_node *n;
	size_t nn;
	uint32_t *deps;
	size_t ndeps;
	uint32_t *order;       /* issue order: lowest ready id first */
	char **pg;             /* distinct pg_name strings */
	size_t npg;
	uint64_t self_deps, missing_deps, cycle_edges, dup_deps;
} sy_trace;
/* Load a trace; send/recv nodes are an error (not modelled). */
int chakra__sy_trace_load(sy_trace *t, const char *path, char *err, size_t errlen);
void chakra__sy_trace_free(sy_trace *t);

/* ---- the model ---- */
enum { SY_GROUP_ALL = 0, SY_GROUP_BLOCK = 1, SY_GROUP_STRIDE = 2 };

typedef struct sy_class {
	int vocab;             /* chakra__sy_class_name index */
	int node_type;         /* type written */
	uint64_t count;
	double mean;           /* mean duration in quanta */
	sy_gmm dur;            /* duration in quanta */
	sy_hist fanin;         /* compute parents per node */
	sy_hist nearest;       /* distance back to the nearest one, in compute index */
	sy_hist dist;          /* distance back to the others */
	sy_hist fanout;        /* children per node (compute and collectives) */
} sy_class;

typedef struct sy_coll {
	int comm_type;
	int group;             /* SY_GROUP_* */
	uint32_t gparam;       /* block size or stride */
	uint64_t count;
	double mean;           /* mean size in bytes */
	sy_gmm size;           /* bytes */
	sy_hist fanin_c, near_c, dist_c; /* compute parents; distance back to the nearest
	                                  * (1 = last compute before) and to the others */
	sy_hist fanin_x, dist_x;   /* collective parents; distance back in collective index */
	sy_hist dist_f;        /* consumers after the first: distance ahead (1 = next compute) */
} sy_coll;

/* Overlap bucket of a collective: how far ahead its first compute consumer
 * is. 0 = none, 1 = the next compute node, then 2, 3-4, 5-8, 9-16, ... */
#define SY_NBUCKET 24
int chakra__sy_bucket(uint64_t first_consumer);
uint64_t chakra__sy_bucket_lo(int b);
uint64_t chakra__sy_bucket_hi(int b);

/* What the collective chain runs over: a collective class with the
 * overlap bucket of the occurrence, so that the sequence carries which
 * collectives block the compute right after them and which overlap it. */
typedef struct sy_tok {
	int coll;              /* index into coll */
	int bucket;
	uint64_t count;
	sy_hist gap;           /* compute nodes since the previous collective */
	sy_hist first;         /* distance ahead of the first compute consumer */
	sy_hist consumers;     /* compute consumers (>= 1 unless bucket 0) */
} sy_tok;

struct chakra_synth_model {
	uint32_t ranks;
	double nodes_per_rank;
	uint64_t quantum_ns;   /* 1000: microsecond durations; 1: nanoseconds */
	size_t ncls;
	sy_class *cls;
	size_t ncoll;
	sy_coll *coll;
	size_t ntok;
	sy_tok *tok;
	sy_markov cseq;        /* collective tokens */
	sy_markov kseq;        /* compute classes, order 1 */
	sy_hist lead;          /* compute nodes before the first collective, per rank */
	sy_hist tail;          /* compute nodes after the last collective, per rank */
	uint64_t self_deps, missing_deps, cycle_edges, pg_ignored;
};

void chakra__sy_model_clear(chakra_synth_model *m);
/* "ALL_REDUCE", "ALL_REDUCE/block4", "ALL_GATHER/stride4". */
void chakra__sy_coll_name(const sy_coll *c, char *buf, size_t cap);

/* ---- compare.c ---- */
/* Two-sample Kolmogorov-Smirnov statistic of two sorted samples. */
double chakra__sy_ks(const uint64_t *a, size_t na, const uint64_t *b, size_t nb);

#endif
