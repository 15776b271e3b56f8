/* SPDX-License-Identifier: Apache-2.0 */
/* lib/predict internals: kernels, layouts, the workload emitter. */
#ifndef CHAKRA_PD_IMPL_H
#define CHAKRA_PD_IMPL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "chakra/chakra.h"
#include "chakra/experimental/predict.h"
#include "chakra/experimental/sim.h"
#include "../modmem.h"
#include "../opts.h"

/* rc, with the message in err (printf style): lib/json's one helper. */
#include "../json/jflat.h"
#define chakra__pd_fail chakra__json_errf

/* A whole file in memory (at most 256 MiB), free() it; errors name path. */
int chakra__pd_slurp(const char *path, char **text, size_t *len, char *err, size_t errlen);

/* ---- kernels (pd_kernels.c) ---- */

enum { PD_GEMM = 0, PD_MEM = 1 };

typedef struct pd_kernel {
	const char *name;
	int kind;
	uint64_t m, n, k, batch;        /* GEMM: batch x (m x k) . (k x n) */
	double bytes;                   /* MEM: bytes read and written */
} pd_kernel;

/* Where a step's kernels go: a kernel, or a collective between kernels. */
enum {
	PD_STEP_KERNEL = 0,
	PD_STEP_TP_AR,      /* all-reduce over the tensor-parallel group */
	PD_STEP_TP_RS,      /* sequence parallelism: reduce-scatter, */
	PD_STEP_TP_AG       /* and all-gather */
};

typedef struct pd_step {
	int what;
	pd_kernel k;        /* PD_STEP_KERNEL */
	uint64_t bytes;     /* collectives: the full buffer (nccl-tests' size) */
} pd_step;

typedef struct pd_steps {
	pd_step *v;
	size_t n, cap;
	int oom;
} pd_steps;

void chakra__pd_steps_free(pd_steps *s);

/* The dimensions of one layout, resolved. */
typedef struct pd_shape {
	uint64_t b, s, h, a, f, t, vp;  /* micro batch, seq, hidden, heads, ffn, tp, padded vocab */
	int sp;                         /* sequence parallel */
	int recompute;
	double e;                       /* bytes per activation element */
	int fp8;
} pd_shape;

void chakra__pd_shape(const chakra_gpt_config *c, pd_shape *sh);
/* One transformer layer, forward and backward (with recomputation). */
int chakra__pd_layer_fwd(const pd_shape *sh, pd_steps *out);
int chakra__pd_layer_bwd(const pd_shape *sh, pd_steps *out);
/* Embedding (first stage) and LM head with the loss (last stage). */
int chakra__pd_embed_fwd(const pd_shape *sh, pd_steps *out);
int chakra__pd_embed_bwd(const pd_shape *sh, pd_steps *out);
int chakra__pd_head_fwd(const pd_shape *sh, pd_steps *out);
int chakra__pd_head_bwd(const pd_shape *sh, pd_steps *out);

/* Kernel time in ns (integer, >= the kernel floor), FLOPs of a GEMM. */
uint64_t chakra__pd_kernel_ns(const chakra_gpu_model *g, const pd_kernel *k, int fp8);
double chakra__pd_kernel_flops(const pd_kernel *k);

/* Parameters of one pipeline stage on one GPU. */
typedef struct pd_params {
	uint64_t layer;                 /* one layer, one tensor-parallel shard */
	uint64_t first_extra;           /* word and position embeddings (first stage) */
	uint64_t last_extra;            /* final norm, and the tied LM head when pp > 1 */
} pd_params;
void chakra__pd_params(const chakra_gpt_config *c, pd_params *p);
/* Parameters on the GPU of pipeline stage `stage` (all its chunks). */
uint64_t chakra__pd_stage_params(const chakra_gpt_config *c, uint32_t stage);
/* Bytes per gradient element in the data-parallel reduction. */
unsigned chakra__pd_grad_bytes(const chakra_gpt_config *c);

/* ---- layouts on a cluster (pd_layout.c) ---- */

enum { PD_AX_TP = 0, PD_AX_DP = 1, PD_AX_PP = 2 };

typedef struct pd_layout {
	uint32_t tp, dp, pp, v, g;      /* v: chunks per pipeline rank; g: GPUs per node */
	uint32_t gpus;
	uint64_t m;                     /* micro-batches per pipeline per iteration */
	int ndims;
	uint32_t size[CHAKRA_SIM_MAX_DIMS];
	int axis[CHAKRA_SIM_MAX_DIMS];  /* which parallel axis a dimension belongs to */
	int inter[CHAKRA_SIM_MAX_DIMS]; /* crosses nodes */
} pd_layout;

int chakra__pd_layout(const chakra_gpt_config *c, pd_layout *l, char *err, size_t errlen);
/* The configuration checked, as *cc with the network's GPUs per node when
 * it names none, and its layout. */
int chakra__pd_layout_on(const chakra_gpt_config *c, const chakra_cluster_net *net,
                         chakra_gpt_config *cc, pd_layout *l, char *err, size_t errlen);
/* Megatron's rank order: tensor fastest, then data, then pipeline. */
static inline uint32_t pd_rank(const pd_layout *l, uint32_t ti, uint32_t di, uint32_t pi)
{
	return ti + l->tp * (di + l->dp * pi);
}
/* The simulator's network and system for a layout. */
void chakra__pd_sim_network(const pd_layout *l, const chakra_cluster_net *net,
                            chakra_sim_network *sn);
void chakra__pd_sim_system(chakra_sim_system *sys);

/* ---- one collective, and in-memory workloads (pd_collective.c) ---- */

typedef struct pd_membuf {
	unsigned char *p;
	size_t n, cap;
} pd_membuf;

/* chakra_write_cb appending to a pd_membuf (data). */
int chakra__pd_mb_write(void *data, const void *buf, size_t len);

/* The cycles of one collective on network sn, every NPU a member (pair:
 * only the first and the last, a communicator group of two), all starting
 * at once. */
int chakra__pd_sim_collective(const chakra_sim_network *sn, int type, uint64_t size, int pair,
                              uint64_t *ns, char *err, size_t errlen);

/* ---- the workload (pd_emit.c, pd_layout.c's schedules) ---- */

/* The time a collective takes when every member starts it at once (the
 * reduced simulation's stand-in for it); 0 and *ns, or an error. */
typedef int (*pd_coll_fn)(void *ctx, int comm_type, uint64_t comm_size, uint64_t dims, int emb,
                          uint64_t *ns);

typedef struct pd_emit_opts {
	int fine;                       /* one node per kernel (else runs of kernels merged) */
	int gzip;
	int groups;                     /* a network of the caller's: collectives name their
	                                 * group only (pg_name), no dimensions (involved_dim) */
	/* Reduced: the workload of one GPU per pipeline stage, for a network of
	 * the pipeline dimensions only (rank = stage), whose collectives are
	 * compute nodes lasting what coll says they take. */
	int reduced;
	pd_coll_fn coll;
	void *coll_ctx;
} pd_emit_opts;

/* Rank `rank`'s workload through cb. */
int chakra__pd_emit_rank(const chakra_gpt_config *c, const chakra_gpu_model *gpu,
                         const chakra_cluster_net *net, const pd_layout *l, uint32_t rank,
                         const pd_emit_opts *o, chakra_write_cb cb, void *data, char *err,
                         size_t errlen);

/* The order in which one pipeline rank runs its forward and backward steps
 * (Megatron's 1F1B, or its interleaved schedule). */
typedef struct pd_op {
	int bwd;                        /* 0 forward, 1 backward */
	uint32_t chunk;                 /* model chunk (0 without interleaving) */
	uint64_t mb;                    /* micro-batch */
} pd_op;
int chakra__pd_schedule(const pd_layout *l, uint32_t stage, pd_op **ops, size_t *n);

/* Communicator groups, named by integers (ASTRA-sim reads them with stoi):
 * the tied-embedding all-reduce's (first and last stage; pp > 1), then,
 * with all_groups, the tensor-parallel and the data-parallel ones (every
 * workload names them; all_groups 0 is for the reduced simulation). */
int chakra__pd_groups(const pd_layout *l, int all_groups, chakra_sim_groups *gs);
uint32_t chakra__pd_group_emb(const pd_layout *l, uint32_t ti, uint32_t di);
uint32_t chakra__pd_group_tp(const pd_layout *l, uint32_t di, uint32_t pi);
uint32_t chakra__pd_group_dp(const pd_layout *l, uint32_t ti, uint32_t pi);

/* ---- fitting (pd_fit.c) ---- */

/* Levenberg-Marquardt on residuals r(x) (n of them) over p parameters,
 * each kept in [lo, hi]. fn returns 0 or a negative error. */
typedef int (*pd_resid_fn)(void *data, const double *x, double *r);
int chakra__pd_lm(pd_resid_fn fn, void *data, double *x, const double *lo, const double *hi,
                  size_t p, size_t n, unsigned max_iter,
                  void (*progress)(void *, unsigned, double), void *pdata, char *err,
                  size_t errlen);

/* The caller's options (NULL: the defaults) into dst, checked as every
 * options struct is (lib/opts.h); CHAKRA_EINVAL for an unknown version. */
int chakra__pd_options_copy(chakra_predict_options *dst, const chakra_predict_options *src);

#endif
