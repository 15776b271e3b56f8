/* SPDX-License-Identifier: Apache-2.0 */
/* Internal to the performance-model module (lib/perf). Non-static names are
 * chakra__pf_*. */
#ifndef CHAKRA_PF_IMPL_H
#define CHAKRA_PF_IMPL_H

#include "../modmem.h"
#include "../opts.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#ifndef CHAKRA_EXPERIMENTAL
#define CHAKRA_EXPERIMENTAL
#endif
#include "chakra/experimental/perf.h"
#include "graph_impl.h"

#if defined(__GNUC__)
#define PF_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define PF_PRINTF(a, b)
#endif

#define PF_NONE UINT32_MAX
#define PF_TIME_MAX ((int64_t)1 << 62) /* recorded starts, ns */
#define PF_DUR_MAX ((int64_t)1 << 50)  /* recorded durations, ns */
#define PF_REL_MAX ((int64_t)1 << 61)  /* starts relative to the window, ns */
#define PF_NO_TID INT64_MIN            /* an annotation's thread, unknown */

/* a + b, saturating (paths add up many lags and durations) */
static inline int64_t pf_add(int64_t a, int64_t b)
{
	int64_t x;
	if (__builtin_add_overflow(a, b, &x))
		return b > 0 ? INT64_MAX / 2 : INT64_MIN / 2;
	if (x > INT64_MAX / 2)
		return INT64_MAX / 2;
	if (x < INT64_MIN / 2)
		return INT64_MIN / 2;
	return x;
}

/* The options' sizes per version and defaults (lib/opts.h). */
extern const size_t chakra__pf_opts_size[2];
extern const chakra_perf_options chakra__pf_opts_default;

/* Growable arrays: PF_PUSH(p, n, cap) returns a slot or NULL. */
#define PF_RESERVE(p, cap, need) CHAKRA__MRESERVE(p, cap, need) /* NULL: p kept */
#define PF_PUSH(p, n, cap) (PF_RESERVE(p, cap, (n) + 1) ? &(p)[(n)++] : NULL)

/* u64 -> u32 map (PF_NONE: absent): the graph module's keyed id map
 * (chakra_idmap), created on the first put so `pf_map m = { 0 }` is empty. */
typedef struct pf_map {
	struct chakra_idmap *m;
} pf_map;
uint32_t chakra__pf_map_get(const pf_map *m, uint64_t key);
int chakra__pf_map_put(pf_map *m, uint64_t key, uint32_t val);
void chakra__pf_map_free(pf_map *m);
uint64_t chakra__pf_hash(uint64_t x);

typedef struct pf_res {
	uint32_t rank;
	uint8_t gpu;
	int64_t device, id;
	/* after prepare: its ops in run order are order[first .. first+n),
	 * nreal of them not markers (counted once: resource_info_of is asked
	 * per critical-path segment) */
	uint32_t first, n, nreal;
	int64_t busy;
} pf_res;

typedef struct pf_op {
	uint32_t res;
	uint32_t rank;
	uint8_t kind;            /* chakra_perf_kind (SYNC set by prepare) */
	uint8_t kind0;           /* as added */
	uint8_t timed;           /* recorded start known */
	uint32_t name_off, name_len; /* in the string pool */
	uint64_t id;
	int64_t rs0;             /* recorded start as given */
	int64_t rs;              /* recorded start relative to the rank's window
	                            start (set by prepare) */
	int64_t rd;              /* recorded duration, -1 none */
	int64_t dur;             /* model duration (after scaling / network) */
	uint32_t pos;            /* position on its resource */
	uint32_t coll;           /* collective instance or PF_NONE */
	int32_t comm_type;
	uint64_t comm_size;
	uint32_t pg_off, pg_len; /* group name in the pool (len 0: none) */
	uint32_t add;            /* order added */
	int64_t backlog;         /* held back by work from before the window until
	                            (absolute), or PF_NO_BACKLOG */
} pf_op;
#define PF_NO_BACKLOG INT64_MIN

typedef struct pf_xedge {
	uint32_t from, to;
	uint8_t how;             /* chakra_perf_dep */
} pf_xedge;

/* An in-edge of an event. Events: 2*op (start), 2*op+1 (end), then one
 * per collective instance (2*n_ops + c: the last member's arrival). */
typedef struct pf_in {
	uint32_t src;            /* source event */
	uint8_t kind;            /* chakra_perf_edge_kind, or PF_INTERNAL */
	uint8_t cross;           /* source is in the previous iteration */
	uint8_t first_only;      /* only in the first iteration (the recorded backlog) */
	int64_t lag;
} pf_in;
#define PF_INTERNAL 255      /* start -> end of the same op (its duration) */

/* A process group: its members listed (ranks, n), or the range start +
 * k * stride, k < n (ranks NULL), as the converter writes global rank
 * start/stride; never materialised. Checked where it enters (a METADATA
 * node, chakra_perf_group_add): ranks below PF_RANK_LIMIT, none twice. */
typedef struct pf_group {
	uint32_t name_off, name_len;
	uint32_t *ranks;
	size_t n;
	uint32_t start, stride;
} pf_group;
#define PF_RANK_LIMIT (1u << 24)
static inline uint32_t pf_member(const pf_group *g, size_t k)
{
	return g->ranks ? g->ranks[k] : g->start + (uint32_t)k * g->stride;
}
/* The group of that name, or NULL (a keyed index, not a scan). */
const pf_group *chakra__pf_group_find(const chakra_perf *r, const char *name, size_t len);
/* Add a group (the first one of a name wins: every rank lists the same
 * groups): ranks copied, or the range when ranks is NULL. 0, or
 * CHAKRA_EINVAL with the reason in why (a member out of range, a rank
 * listed twice), or CHAKRA_ENOMEM. */
int chakra__pf_group_add(chakra_perf *r, const char *name, size_t len, const int64_t *ranks,
                         size_t n, int64_t start, int64_t stride, char *why, size_t whylen);

typedef struct pf_coll {
	uint32_t first, n;       /* members in coll_members[first .. first+n) */
	int64_t t;               /* transfer time */
} pf_coll;

typedef struct pf_rank {
	int present;
	int timed;               /* some op has a recorded start */
	int have_window;
	int64_t w0, w1;          /* recorded window (absolute) */
	int64_t thread;          /* window's thread resource, -1: choose */
	unsigned given;          /* CHAKRA_PERF_GIVEN_* */
	uint32_t mark0, mark1;   /* start / end markers (PF_NONE if untimed) */
	int64_t launch_lat, queue_gap;
	chakra_perf_breakdown bd;
	int64_t end_last;        /* end of the reported iteration on this rank */
	struct pf_annot { uint32_t name_off, name_len; int64_t start, dur, tid; } *annot;
	size_t nannot, annot_cap; /* user annotations from the ET metadata */
} pf_rank;

struct chakra_perf {
	char err[1024];
	/* strings */
	char *pool;
	size_t pool_n, pool_cap;
	/* graph */
	pf_res *res;
	size_t nres, res_cap;
	chakra__ixmap res_ix;    /* (rank, gpu, device, id) -> resource, exactly */
	pf_op *ops;
	size_t nops, ops_cap;
	size_t nops_user;        /* ops added by the caller; markers follow */
	pf_xedge *xe;
	size_t nxe, xe_cap;
	pf_rank *ranks;
	size_t nranks, ranks_cap;
	pf_group *groups;        /* from METADATA nodes */
	size_t ngroups, groups_cap;
	chakra__ixmap group_ix;  /* by name */
	uint64_t dropped_edges;  /* edges against the recorded order */
	uint64_t unknown_deps;   /* dependencies on ids not in the file */
	uint64_t thread_waits;   /* cross-thread waits inferred */
	/* prepared */
	int prepared_dirty;
	uint32_t *order;         /* ops by resource, in run order */
	uint32_t *in_first;      /* CSR of in-edges per event (n_ev + 1) */
	pf_in *in;
	size_t nin;
	uint32_t *topo;          /* events in evaluation order */
	size_t nev;
	pf_coll *colls;
	size_t ncolls, colls_cap;
	uint32_t *coll_members;
	size_t ncm, cm_cap;
	/* results */
	unsigned copies;
	int64_t *val;            /* copies * nev */
	uint32_t *arg;           /* copies * nev: index into in[] or PF_NONE */
	int64_t *ends;           /* per copy: end of the iteration */
	int64_t base;            /* start of the reported iteration */
	int ran;
	uint32_t crit_rank;
	chakra_perf_segment *path;
	size_t npath, path_cap;
	/* network model results, by (type, size, group) */
	struct pf_netc *netc;
	size_t nnetc, netc_cap;
};

int chakra__pf_fail(chakra_perf *r, int code, const char *fmt, ...) PF_PRINTF(3, 4);
/* Intern a name in the pool: offset, PF_NONE on ENOMEM. */
uint32_t chakra__pf_pool_add(chakra_perf *r, const char *s, size_t n);
static inline const char *pf_str(const chakra_perf *r, uint32_t off)
{
	return r->pool + off;
}
pf_rank *chakra__pf_rank(chakra_perf *r, uint32_t rank);
/* "rank R node ID (name)" into buf. */
const char *chakra__pf_opname(const chakra_perf *r, uint32_t op, char *buf, size_t len);

static inline int pf_is_gpu_kind(int k)
{
	return k == CHAKRA_PERF_KERNEL || k == CHAKRA_PERF_MEMORY || k == CHAKRA_PERF_COMM;
}

/* A recorded duration, 0 when none. */
static inline int64_t pf_rec_dur(const pf_op *o)
{
	return o->rd > 0 ? o->rd : 0;
}

/* A duration times a factor, rounded, at most 2^60 ns. */
static inline int64_t pf_scaled(int64_t d, double f)
{
	if (d <= 0)
		return 0;
	if (f == 1.0)
		return d;
	double v = (double)d * f + 0.5;
	return v >= (double)((int64_t)1 << 60) ? (int64_t)1 << 60 : (int64_t)v;
}

/* An edge of the event graph being built (pf_events.c), before the CSR. */
typedef struct pf_tedge {
	uint32_t src, dst;
	uint8_t kind, cross, first_only;
	int64_t lag;
} pf_tedge;

/* An explicit edge between resources, named from its endpoints. */
typedef struct pf_xcls {
	uint32_t from, to;
	uint8_t kind;
} pf_xcls;

/* What one preparation carries from step to step (pf_engine.c). */
typedef struct pf_prep {
	chakra_perf *r;
	const chakra_perf_options *o;
	pf_tedge *te;
	size_t nte, te_cap;
	pf_xcls *xc;
	size_t nxc, xc_cap;
	uint32_t *launch;        /* per op: latest-starting launch source, PF_NONE */
} pf_prep;

/* pf_engine.c: the steps below in order, then evaluation and report. */
int chakra__pf_prepare(chakra_perf *r, const chakra_perf_options *o);
/* pf_recorded.c: markers, relative times, run order, edge classes
 * (p->xc, p->launch), thread waits, typical gaps. */
int chakra__pf_recorded(pf_prep *p);
/* pf_coll.c: collective instances and their transfer times (cscale: each
 * op's duration factor). */
int chakra__pf_collectives(pf_prep *p, const double *cscale);
/* pf_events.c: the in-edges of every event (CSR in r->in_first, r->in),
 * then their lags. */
int chakra__pf_build_edges(pf_prep *p);
void chakra__pf_set_lags(const pf_prep *p);
/* pf_topo.c: r->topo, or CHAKRA_ECYCLE naming ops of the cycle. */
int chakra__pf_topo_order(chakra_perf *r);
/* pf_eval.c: longest paths over r->copies iterations, critical path. */
int chakra__pf_evaluate(chakra_perf *r);
/* pf_et.c: the resource of the thread an annotation was recorded on (the
 * window's thread), or -1 to let the engine choose; < -1 an error. */
int64_t chakra__pf_window_thread(chakra_perf *r, uint32_t rank, int64_t tid);
/* pf_report.c */
int chakra__pf_report(chakra_perf *r);
/* pf_net.c: the network model's time for one collective over `ranks`. */
int chakra__pf_net_time(chakra_perf *r, const chakra_perf_options *o, int comm_type,
                        uint64_t size, const uint32_t *ranks, size_t n, int64_t *t);
void chakra__pf_net_free(chakra_perf *r);

#endif
