/* SPDX-License-Identifier: Apache-2.0 */
/* libchakra (experimental): trace-driven replay of a recorded iteration.
 *
 * A replay is a graph of ops on resources (CPU threads, GPU streams) with
 * their recorded start times and durations, and dependency edges of a few
 * kinds (program order, launch -> kernel, stream order, event record ->
 * wait, GPU -> blocking call, across threads, collectives across ranks).
 * The engine computes when every op would start and end under the model in
 * docs/replay.md, replays the recorded window back to back (so work that
 * spills from one iteration into the next is accounted for), and reports
 * the iteration time, a breakdown of it that sums to it, per-resource busy
 * time and the critical path.
 *
 *   #define CHAKRA_EXPERIMENTAL
 *   #include <chakra/experimental/perf.h>
 *
 *   chakra_perf *r;
 *   chakra_perf_options o = CHAKRA_PERF_OPTIONS_INIT;
 *   int rc = chakra_perf_new(&r);
 *   if (rc == 0) rc = chakra_perf_load(r, "trace");   // trace.0.et .. or one file
 *   if (rc == 0) rc = chakra_perf_run(r, &o);
 *   if (rc < 0) puts(r ? chakra_perf_errmsg(r) : chakra_strerror(rc));
 *   else printf("%.1f us\n", chakra_perf_breakdown_of(r, -1)->iteration_ns / 1e3);
 *   chakra_perf_free(r);
 *
 * Graphs can also be built by hand (chakra_perf_resource, _op_add,
 * _edge_add): the ET loader is a client of that API. Times are in
 * nanoseconds. Experimental: names and structs may change. */
#ifndef CHAKRA_EXPERIMENTAL_PERF_H
#define CHAKRA_EXPERIMENTAL_PERF_H

#include "chakra/experimental.h"
#include "chakra/experimental/sim.h"
#include "chakra/writer.h"
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct chakra_perf chakra_perf;

/* What an op is. SYNC is not given by the caller: a CPU op that some GPU
 * op must finish before (an edge GPU -> CPU) is a blocking call. */
typedef enum chakra_perf_kind {
	CHAKRA_PERF_CPU = 0,      /* host work on a thread */
	CHAKRA_PERF_CALL = 1,     /* a runtime call (launch, record, ...) */
	CHAKRA_PERF_SYNC = 2,     /* a blocking call: returns after what it waits for */
	CHAKRA_PERF_KERNEL = 3,   /* device compute on a stream */
	CHAKRA_PERF_MEMORY = 4,   /* device copy or memset on a stream */
	CHAKRA_PERF_COMM = 5,     /* collective or send/recv on a stream */
	CHAKRA_PERF_MARK = 6,     /* iteration start / end on the window's thread */
	CHAKRA_PERF_KIND_COUNT = 7
} chakra_perf_kind;

/* Edge kinds, named from the endpoints' resources. */
typedef enum chakra_perf_edge_kind {
	CHAKRA_PERF_EDGE_PROGRAM = 0, /* previous op on the same thread */
	CHAKRA_PERF_EDGE_STREAM = 1,  /* previous op on the same stream */
	CHAKRA_PERF_EDGE_LAUNCH = 2,  /* runtime call -> the device op it enqueued (from its start) */
	CHAKRA_PERF_EDGE_EVENT = 3,   /* device op -> device op on another stream */
	CHAKRA_PERF_EDGE_SYNC = 4,    /* device op -> the blocking call that waits for it (to its end) */
	CHAKRA_PERF_EDGE_THREAD = 5,  /* op on one thread -> op on another */
	CHAKRA_PERF_EDGE_WINDOW = 6,  /* iteration start -> a resource's first op */
	CHAKRA_PERF_EDGE_PEER = 7,    /* a collective member's arrival -> every member's end */
	CHAKRA_PERF_EDGE_NEXT = 8,    /* previous iteration -> this one (same resource, or end -> start mark) */
	CHAKRA_PERF_EDGE_AFTER = 9,   /* device op -> a CPU op that starts after it ends (not a wait
	                                 inside a call: CHAKRA_PERF_DEP_START) */
	CHAKRA_PERF_EDGE_BACKLOG = 10, /* work launched before the window -> an op it held back
	                                  (the first iteration only: chakra_perf_backlog) */
	CHAKRA_PERF_EDGE_KIND_COUNT = 11
} chakra_perf_edge_kind;

CHAKRA_EXPERIMENTAL_API const char *chakra_perf_kind_name(int kind);
CHAKRA_EXPERIMENTAL_API const char *chakra_perf_edge_kind_name(int kind);

/* An op as given to chakra_perf_op_add. */
typedef struct chakra_perf_op {
	uint32_t resource;       /* from chakra_perf_resource */
	chakra_perf_kind kind; /* CPU, CALL, KERNEL, MEMORY or COMM */
	int64_t start_ns;        /* recorded start (any origin shared by the rank), or
	                            CHAKRA_PERF_NO_TIME */
	int64_t dur_ns;          /* recorded duration; < 0: none (a COMM op then needs the
	                            network model) */
	const char *name;        /* copied; may be NULL */
	size_t name_len;         /* (size_t)-1: NUL-terminated */
	uint64_t id;             /* the caller's id (the ET node id), for messages and paths */
	/* COMM: collective type (chakra_comm_type values), bytes, group (NULL
	 * or "": every rank loaded). */
	int comm_type;
	uint64_t comm_size;
	const char *pg_name;
} chakra_perf_op;

#define CHAKRA_PERF_NO_TIME INT64_MIN

typedef struct chakra_perf_options {
	unsigned version;        /* CHAKRA_PERF_OPTIONS_VERSION */
	/* Iterations replayed back to back; the last one is reported. 0: 2
	 * when the trace has recorded times, else 1. */
	unsigned copies;
	/* Device compute ops (KERNEL, MEMORY) take factor x their time;
	 * rank_compute_scale (n_ranks entries, NULL: none) on top of it.
	 * Every factor is in 0..1e9; anything else (NaN, negative, inf) is
	 * CHAKRA_EINVAL. */
	double compute_scale;    /* 0 or 1: unchanged */
	const double *rank_compute_scale;
	/* Device ops whose name matches a POSIX extended regular expression
	 * take factor x their time (the first matching rule applies). */
	const char *const *kernel_scale_re;
	const double *kernel_scale;
	size_t n_kernel_scale;
	/* Both set: collectives take the network model's time (lib/sim:
	 * ASTRA-sim's configurations) instead of the recorded one. */
	const chakra_sim_network *network;
	const chakra_sim_system *system;
	chakra_sim_model network_model;
	/* Process groups (pg_name -> ranks). NULL: the METADATA nodes the
	 * converter writes (pg_name, pg_ranks); a name found nowhere spans
	 * every rank loaded. */
	const chakra_sim_groups *groups;
	/* Non-zero: a device op starts the model's launch latency after its
	 * launch, or the model's back-to-back gap after the op before it on
	 * its stream (the rank's medians), instead of its own recorded gap:
	 * the device timeline rebuilt from the host's launches and the
	 * kernels' durations alone. */
	int modelled_gaps;
} chakra_perf_options;

#define CHAKRA_PERF_OPTIONS_VERSION 1
#define CHAKRA_PERF_OPTIONS_INIT \
	{ CHAKRA_PERF_OPTIONS_VERSION, 0, 1.0, NULL, NULL, NULL, 0, NULL, NULL, \
	  CHAKRA_SIM_UNAWARE, NULL, 0 }
CHAKRA_EXPERIMENTAL_API int chakra_perf_options_init(chakra_perf_options *opts,
                                                       unsigned version);

CHAKRA_EXPERIMENTAL_API int chakra_perf_new(chakra_perf **out);
CHAKRA_EXPERIMENTAL_API void chakra_perf_free(chakra_perf *r);
CHAKRA_EXPERIMENTAL_API const char *chakra_perf_errmsg(const chakra_perf *r);

/* ---- loading Chakra ETs (the attributes docs/convert.md lists) ---- */
/* PREFIX.0.et .. PREFIX.{N-1}.et (or .et.gz), or one file as rank 0. */
CHAKRA_EXPERIMENTAL_API int chakra_perf_load(chakra_perf *r, const char *prefix_or_file);
/* One ET (path, or buf/len when buf is set) as the given rank. */
CHAKRA_EXPERIMENTAL_API int chakra_perf_load_file(chakra_perf *r, const char *path,
                                                    const void *buf, size_t len,
                                                    uint32_t rank);

/* Iterations marked by a user annotation the converter kept in the ET's
 * metadata (annotation_names / _start_nanos): windows from one occurrence
 * to the next (Optimizer.zero_grad to Optimizer.zero_grad). The number of
 * such windows (the fewest over the ranks), or a negative error. */
CHAKRA_EXPERIMENTAL_API int64_t chakra_perf_between_count(const chakra_perf *r,
                                                            const char *annotation);
/* A new replay holding the ops of the k-th window of every rank: CPU ops
 * that start in it, device ops launched from those (others: that start in
 * it), the edges among them. */
CHAKRA_EXPERIMENTAL_API int chakra_perf_between(const chakra_perf *r, const char *annotation,
                                                  uint64_t k, chakra_perf **out);
/* Windows first .. first+count-1 at once, into outs[count]: every op is
 * placed once, so all the windows of a trace cost about what one replay of
 * it does (chakra_perf_between per window reads the whole graph each
 * time). On an error every outs[] is NULL except outs[0], whose message
 * says why (NULL as well when out of memory at once). */
CHAKRA_EXPERIMENTAL_API int chakra_perf_between_range(const chakra_perf *r,
                                                        const char *annotation, uint64_t first,
                                                        size_t count, chakra_perf **outs);

/* Windows first .. first+count-1 each replayed with opts (`chakra replay
 * --between`): every window's predicted and recorded iteration time and
 * the median window. On an error w->errmsg says why ("iteration K: ..."
 * when a replay failed). Free the arrays with chakra_perf_windows_free
 * (also after an error). */
typedef struct chakra_perf_windows {
	size_t count;               /* windows replayed */
	int64_t *predicted_ns;      /* per window: iteration_ns of its replay */
	int64_t *recorded_ns;       /* per window: recorded_ns */
	size_t median;              /* the window whose prediction is the median (the
	                             * lower middle; ties: the earlier window) */
	int64_t recorded_median_ns; /* the median of recorded_ns (the lower middle) */
	char errmsg[1024];
} chakra_perf_windows;
CHAKRA_EXPERIMENTAL_API int chakra_perf_between_windows(const chakra_perf *r,
                                                        const char *annotation, uint64_t first,
                                                        size_t count,
                                                        const chakra_perf_options *opts,
                                                        chakra_perf_windows *w);
CHAKRA_EXPERIMENTAL_API void chakra_perf_windows_free(chakra_perf_windows *w);
/* What `chakra sim --replay --between` reports: windows first ..
 * first+count-1 each replayed with opts into *w (as
 * chakra_perf_between_windows), then the median window (w->median) cut
 * and replayed on its own into *out, for the reports. *out is a new replay
 * the caller owns (chakra_perf_free), NULL after an error; r is only read
 * and may be freed once this returns. 0, or < 0 with w->errmsg saying why.
 * Free w's arrays with chakra_perf_windows_free, also after an error. */
CHAKRA_EXPERIMENTAL_API int chakra_perf_between_median(const chakra_perf *r,
                                                       const char *annotation, uint64_t first,
                                                       size_t count,
                                                       const chakra_perf_options *opts,
                                                       chakra_perf_windows *w, chakra_perf **out);

/* ---- building a graph by hand ---- */
/* The resource (rank, gpu?, device, id): found or created; returns its
 * index or a negative error. id is the OS thread id or the stream id. */
CHAKRA_EXPERIMENTAL_API int64_t chakra_perf_resource(chakra_perf *r, uint32_t rank, int gpu,
                                                       int64_t device, int64_t id);
/* An op; returns its index (0, 1, ...) or a negative error. Ops run on
 * their resource in recorded start order (ties and untimed ops: in the
 * order added). */
CHAKRA_EXPERIMENTAL_API int64_t chakra_perf_op_add(chakra_perf *r, const chakra_perf_op *op);
/* "to cannot start before from" (the kind follows from the resources:
 * GPU -> CPU edges make `to` a blocking call that ends after `from`). The
 * same as chakra_perf_dep_add(r, from, to, CHAKRA_PERF_DEP_INFER). */
CHAKRA_EXPERIMENTAL_API int chakra_perf_edge_add(chakra_perf *r, uint64_t from, uint64_t to);

/* How a dependency is read; they differ for a device op -> CPU op edge. */
typedef enum chakra_perf_dep {
	/* The recording does not say which call waited: the CPU op is a
	 * blocking call, or rather the runtime call that was running on its
	 * thread when the device op ended, if that call ended after it (a
	 * blocking copy's cudaMemcpyAsync, which converters may tie to the op
	 * after it). What ETs from older converters need (docs/replay.md). */
	CHAKRA_PERF_DEP_INFER = 0,
	/* `to` starts after `from` ends (CHAKRA_PERF_EDGE_AFTER); never makes a
	 * blocking call. */
	CHAKRA_PERF_DEP_START = 1,
	/* `from` is a device op, `to` a CPU op that returns after it has ended
	 * (a blocking call; CHAKRA_PERF_EDGE_SYNC to its end). `to` may have
	 * launched `from` itself: the launch leaves its start, the wait reaches
	 * its end. From an ET's sync_deps (docs/convert.md). */
	CHAKRA_PERF_DEP_WAIT = 2
} chakra_perf_dep;
CHAKRA_EXPERIMENTAL_API int chakra_perf_dep_add(chakra_perf *r, uint64_t from, uint64_t to,
                                                chakra_perf_dep how);

/* What a rank's graph states itself, so that the engine does not infer it:
 * CHAKRA_PERF_GIVEN_THREAD_WAITS, its cross-thread waits are edges already
 * (a converter that writes them, docs/convert.md format 2), so no thread
 * idle for >= 1 ms is tied to another thread's op by the engine's rule. */
#define CHAKRA_PERF_GIVEN_THREAD_WAITS 1u
CHAKRA_EXPERIMENTAL_API int chakra_perf_rank_given(chakra_perf *r, uint32_t rank, unsigned what);
/* The recorded iteration window of a rank (same origin as its start
 * times) and the thread it belongs to (a resource index; -1: the thread
 * whose last op ends latest). Without a window: the span of the ops. */
CHAKRA_EXPERIMENTAL_API int chakra_perf_window(chakra_perf *r, uint32_t rank, int64_t start_ns,
                                                 int64_t end_ns, int64_t thread);

/* The state the window was recorded in: device op `op` could not start
 * before t_ns (same origin as the start times) because of work launched
 * before the window (its stream's, or another stream's it waited for).
 * Holds in the first iteration only (CHAKRA_PERF_EDGE_BACKLOG); later
 * iterations follow the previous iteration's own work instead. From the
 * converter's backlog_until_nanos (docs/convert.md). */
CHAKRA_EXPERIMENTAL_API int chakra_perf_backlog(chakra_perf *r, uint64_t op, int64_t t_ns);

/* ---- running ---- */
CHAKRA_EXPERIMENTAL_API int chakra_perf_run(chakra_perf *r, const chakra_perf_options *opts);

/* Where one iteration's time went (ns). gpu_compute + comm_exposed +
 * cpu_bound + idle == iteration, exactly: at each instant the first that
 * holds of "a compute or memory op runs on a GPU stream", "a
 * communication op runs", "a CPU thread works (in an op, or in a gap the
 * model keeps as host time)", else idle. */
typedef struct chakra_perf_breakdown {
	int64_t iteration_ns;
	int64_t gpu_compute_ns;
	int64_t comm_exposed_ns;
	int64_t cpu_bound_ns;       /* GPU idle while the host works: waiting for launches */
	int64_t idle_ns;
	int64_t comm_ns;            /* communication running at all */
	int64_t comm_overlapped_ns; /* comm_ns - comm_exposed_ns */
	int64_t recorded_ns;        /* the recorded window (0 if none) */
	/* The recorded window replayed once, from the state it was recorded in
	 * (the first iteration), measured as it was recorded: from its start to
	 * its end on the window's thread (0 if none). iteration_ns is instead the
	 * last of the iterations replayed back to back (a loop of this window),
	 * which differs where GPU work spills from one iteration into the next. */
	int64_t replayed_window_ns;
} chakra_perf_breakdown;

/* rank -1: the rank that ends the iteration last. NULL before a run or for
 * a rank out of range. */
CHAKRA_EXPERIMENTAL_API const chakra_perf_breakdown *chakra_perf_breakdown_of(
	const chakra_perf *r, int64_t rank);
CHAKRA_EXPERIMENTAL_API uint32_t chakra_perf_ranks(const chakra_perf *r);
CHAKRA_EXPERIMENTAL_API uint64_t chakra_perf_op_count(const chakra_perf *r);
CHAKRA_EXPERIMENTAL_API uint64_t chakra_perf_edge_count(const chakra_perf *r);
/* The rank that ends the iteration last. */
CHAKRA_EXPERIMENTAL_API uint32_t chakra_perf_critical_rank(const chakra_perf *r);
/* Iterations replayed back to back by the last run (the last is reported). */
CHAKRA_EXPERIMENTAL_API unsigned chakra_perf_iterations(const chakra_perf *r);
/* What the input had that the graph leaves out: dependencies on ids not
 * in the file (loader), and edges between two ops of one thread or stream
 * that point against their recorded order (run). */
CHAKRA_EXPERIMENTAL_API uint64_t chakra_perf_unknown_deps(const chakra_perf *r);
CHAKRA_EXPERIMENTAL_API uint64_t chakra_perf_dropped_edges(const chakra_perf *r);
/* Cross-thread waits the run inferred (a thread idle >= 1 ms resumes after
 * the op of another thread that ended last in that gap; docs/replay.md),
 * on ranks that do not give them (chakra_perf_rank_given). */
CHAKRA_EXPERIMENTAL_API uint64_t chakra_perf_thread_waits(const chakra_perf *r);

typedef struct chakra_perf_resource_info {
	uint32_t rank;
	int gpu;
	int64_t device, id;
	uint64_t ops;
	int64_t busy_ns;           /* time in its ops within the reported iteration (a
	                              blocking call: its own time, not its wait) */
	int64_t launch_latency_ns; /* GPU: the model's launch latency for its rank */
	int64_t queue_gap_ns;      /* GPU: gap between back-to-back ops (its rank) */
} chakra_perf_resource_info;
CHAKRA_EXPERIMENTAL_API size_t chakra_perf_resource_count(const chakra_perf *r);
CHAKRA_EXPERIMENTAL_API int chakra_perf_resource_info_of(const chakra_perf *r, size_t i,
                                                          chakra_perf_resource_info *out);

typedef struct chakra_perf_op_info {
	uint64_t id;
	uint32_t resource, rank;
	chakra_perf_kind kind;
	const char *name;
	size_t name_len;
	int64_t recorded_start_ns, recorded_dur_ns; /* relative to the rank's window start */
	int64_t start_ns, end_ns;  /* replayed, reported iteration (relative to its start) */
} chakra_perf_op_info;
CHAKRA_EXPERIMENTAL_API int chakra_perf_op_info_of(const chakra_perf *r, uint64_t op,
                                                    chakra_perf_op_info *out);
/* 1 when the graph has an edge (explicit or implicit: resource order,
 * window, collective peers) from -> to. */
CHAKRA_EXPERIMENTAL_API int chakra_perf_has_edge(const chakra_perf *r, uint64_t from,
                                                   uint64_t to);

/* The critical path of the reported iteration, earliest first: each
 * segment is either an op running (via = the edge by which the path
 * entered it, or -1 for the op's own time after a wait) or a lag on an
 * edge (op = the edge's target). Segments are contiguous and their
 * lengths add up to the iteration time. */
typedef struct chakra_perf_segment {
	uint64_t op;               /* op index */
	int is_lag;                /* 0: the op's own time; 1: the wait on an edge into op */
	int via;                   /* chakra_perf_edge_kind of the edge into op, -1: none */
	uint64_t from_op;          /* the edge's source (is_lag or via >= 0) */
	int64_t start_ns, end_ns;  /* within the iteration: 0 .. iteration_ns */
} chakra_perf_segment;
CHAKRA_EXPERIMENTAL_API size_t chakra_perf_path_length(const chakra_perf *r);
CHAKRA_EXPERIMENTAL_API const chakra_perf_segment *chakra_perf_path(const chakra_perf *r);

/* The critical path's time by kind (ns): the ops' own time by op kind
 * (chakra_perf_kind), the waits by the kind of the edge waited on. */
typedef struct chakra_perf_path_totals {
	int64_t own_ns[CHAKRA_PERF_KIND_COUNT];
	int64_t lag_ns[CHAKRA_PERF_EDGE_KIND_COUNT];
} chakra_perf_path_totals;
/* Fills *out (all zero before a run); out is the caller's. */
CHAKRA_EXPERIMENTAL_API void chakra_perf_path_sum(const chakra_perf *r,
                                                  chakra_perf_path_totals *out);

/* ---- reports ---- */

/* ns as microseconds with three decimals ("-1.500") into buf[cap]
 * (truncated to fit, NUL-terminated). */
CHAKRA_EXPERIMENTAL_API void chakra_perf_us_format(int64_t ns, char *buf, size_t cap);
/* A resource's name as the reports print it ("thread 7", "stream 3
 * (device 0)", "host", "compute", "comm") into buf[cap]; returns buf. */
CHAKRA_EXPERIMENTAL_API const char *chakra_perf_resource_name(const chakra_perf_resource_info *ri,
                                                              char *buf, size_t cap);
/* The report of a run as one JSON object on one line and a newline,
 * through write (called once or twice; writer.h): iteration_us, the
 * breakdown, per_rank, streams, threads, critical_path (docs/replay.md).
 * With annotation (not NULL): the windows of chakra_perf_between_median
 * (w, first: the first window's index), r the median window's replay.
 * Nothing is kept: r, annotation and w are only read during the call.
 * 0, CHAKRA_EINVAL (r has not run, or w missing or empty with an
 * annotation), CHAKRA_ENOMEM, or CHAKRA_EIO when write failed. */
CHAKRA_EXPERIMENTAL_API int chakra_perf_report_json(chakra_write_cb write, void *data,
                                                    const chakra_perf *r, const char *annotation,
                                                    uint64_t first, const chakra_perf_windows *w);

/* ---- projection: chakra project ---- */
typedef struct chakra_project_options {
	unsigned version;          /* CHAKRA_PROJECT_OPTIONS_VERSION */
	uint32_t dp;               /* data-parallel degree to write (> 0) */
	uint32_t tp;               /* tensor-parallel degree (0: unchanged) */
	/* Network shape of the output for involved_dim (dims, ndims); 0: the
	 * near-square two-dimensional shape chakra generate model uses. */
	const uint32_t *dims;
	int ndims;
	const char *groups_in;     /* NULL: PREFIX.comm_groups.json or PREFIX.groups.json if present */
	int gzip, overwrite;
} chakra_project_options;
#define CHAKRA_PROJECT_OPTIONS_VERSION 1
#define CHAKRA_PROJECT_OPTIONS_INIT { CHAKRA_PROJECT_OPTIONS_VERSION, 0, 0, NULL, 0, NULL, 0, 0 }
CHAKRA_EXPERIMENTAL_API int chakra_project_options_init(chakra_project_options *opts,
                                                        unsigned version);
/* Writes OUT.0.et .. OUT.{N'-1}.et and OUT.comm_groups.json. 0 or a
 * negative error with the message in err. */
CHAKRA_EXPERIMENTAL_API int chakra_project(const char *prefix, const char *out,
                                           const chakra_project_options *opts, char *err,
                                           size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
