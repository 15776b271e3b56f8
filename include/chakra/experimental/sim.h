/* SPDX-License-Identifier: Apache-2.0 */
/* libchakra-sim (experimental): the `chakra sim` simulator as a library.
 *
 * An ASTRA-sim-compatible analytical simulator over the feeder API: it
 * replays one feeder per NPU on a network (ASTRA-sim's network YAML) and a
 * system (its system JSON), and reports when each NPU finishes, to the
 * cycle of ASTRA-sim 2.0's analytical backends (docs/sim.md).
 *
 *   chakra_sim_network net;  chakra_sim_system sys;  char err[512];
 *   if (chakra_sim_network_load(&net, "net.yml", err, sizeof err) < 0 ||
 *       chakra_sim_system_load(&sys, "sys.json", err, sizeof err) < 0) { puts(err); ... }
 *   chakra_sim_options o = CHAKRA_SIM_OPTIONS_INIT;
 *   chakra_sim *s;
 *   int rc = chakra_sim_new(&s, &net, &sys, &o);
 *   if (rc == 0)
 *       rc = chakra_sim_run_prefix(s, "workload");   // or _run / _run_workload
 *   if (rc < 0) puts(s ? chakra_sim_errmsg(s) : chakra_strerror(rc));
 *   else printf("%llu cycles\n", (unsigned long long)chakra_sim_finish(s));
 *   chakra_sim_free(s);
 *
 * Configuration parsing is separate from the engine: the structs below can
 * be filled by the parsers or by hand (then chakra_sim_network_check fills
 * the derived fields). The engine reports through callbacks (node events,
 * timeline spans, per-NPU finish, progress), never to a FILE.
 *
 * Its parsers use libyaml and YAJL, which the core libchakra stays free
 * of: the module links from libchakra-experimental.a (pkg-config
 * chakra-experimental), and Python loads it as libchakra-sim.so.
 * Experimental: names and structs may change in any release; define
 * CHAKRA_EXPERIMENTAL to use this header (chakra/experimental.h). */
#ifndef CHAKRA_EXPERIMENTAL_SIM_H
#define CHAKRA_EXPERIMENTAL_SIM_H

#include "chakra/experimental.h"
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CHAKRA_SIM_MAX_DIMS 8

/* ---------------- network (ASTRA-sim network YAML) ---------------- */

typedef enum chakra_sim_topology {
	CHAKRA_SIM_RING = 0,
	CHAKRA_SIM_SWITCH = 1,
	CHAKRA_SIM_FULLY_CONNECTED = 2
} chakra_sim_topology;

typedef struct chakra_sim_network {
	int ndims;                                  /* 1..CHAKRA_SIM_MAX_DIMS */
	chakra_sim_topology topo[CHAKRA_SIM_MAX_DIMS];
	uint32_t size[CHAKRA_SIM_MAX_DIMS];         /* NPUs in each dimension (npus_count) */
	double bw[CHAKRA_SIM_MAX_DIMS];             /* GB/s per link and direction, as written */
	double latency[CHAKRA_SIM_MAX_DIMS];        /* ns per link */
	/* Derived (set by the parsers and chakra_sim_network_check): */
	uint32_t npus;                              /* product of size[] */
	uint32_t stride[CHAKRA_SIM_MAX_DIMS];       /* mixed radix, dimension 0 fastest */
} chakra_sim_network;

/* ---------------- system (ASTRA-sim system JSON) ---------------- */

typedef enum chakra_sim_algorithm {
	CHAKRA_SIM_ALG_RING = 0,
	CHAKRA_SIM_ALG_DIRECT = 1,
	CHAKRA_SIM_ALG_HALVING_DOUBLING = 2,
	CHAKRA_SIM_ALG_DOUBLE_BINARY_TREE = 3,
	/* ASTRA-sim's oneRing, oneDirect, oneHalvingDoubling: one phase over
	 * every NPU in rank order (a flat ring), not one per dimension. Only
	 * as the first entry of a list (the rest of it is then unused). */
	CHAKRA_SIM_ALG_ONE_RING = 4,
	CHAKRA_SIM_ALG_ONE_DIRECT = 5,
	CHAKRA_SIM_ALG_ONE_HALVING_DOUBLING = 6
} chakra_sim_algorithm;

/* Rows of chakra_sim_system.impl: the *-implementation keys. */
enum {
	CHAKRA_SIM_IMPL_ALL_REDUCE = 0,
	CHAKRA_SIM_IMPL_ALL_GATHER = 1,
	CHAKRA_SIM_IMPL_REDUCE_SCATTER = 2,
	CHAKRA_SIM_IMPL_ALL_TO_ALL = 3,
	CHAKRA_SIM_IMPL_COUNT = 4
};

typedef struct chakra_sim_system {
	int lifo;                       /* scheduling-policy LIFO (parsed; see docs/sim.md) */
	uint64_t endpoint_delay;        /* ns per received message */
	uint32_t active_chunks;         /* active-chunks-per-dimension, >= 1 */
	uint32_t splits;                /* preferred-dataset-splits, >= 1 */
	int n_impl[CHAKRA_SIM_IMPL_COUNT];  /* entries per implementation list */
	chakra_sim_algorithm impl[CHAKRA_SIM_IMPL_COUNT][CHAKRA_SIM_MAX_DIMS];
	int local_bw_aware;             /* collective-optimization: localBWAware */
	double local_mem_bw;            /* GB/s, decimal */
	int boost_mode;
	int roofline;                   /* roofline-enabled */
	double peak_perf;               /* TFLOP/s */
} chakra_sim_system;

/* ---------------- communicator groups ({"id": [ranks...]}) ---------------- */

typedef struct chakra_sim_group {
	char *name;
	uint32_t *ranks;
	size_t n;
} chakra_sim_group;

typedef struct chakra_sim_groups {
	chakra_sim_group *g;
	size_t n;
} chakra_sim_groups;

/* Parsers: 0, or CHAKRA_ECONFIG (CHAKRA_EIO for a file that cannot be
 * read, CHAKRA_ENOMEM) with a message in err naming the file (`name` for
 * text), the line and the key. */
CHAKRA_EXPERIMENTAL_API int chakra_sim_network_load(chakra_sim_network *net, const char *path, char *err,
                                       size_t errlen);
CHAKRA_EXPERIMENTAL_API int chakra_sim_network_parse(chakra_sim_network *net, const char *name,
                                        const char *text, size_t len, char *err,
                                        size_t errlen);
/* Checks a network filled by hand and sets npus and stride. */
CHAKRA_EXPERIMENTAL_API int chakra_sim_network_check(chakra_sim_network *net, char *err, size_t errlen);
CHAKRA_EXPERIMENTAL_API int chakra_sim_system_load(chakra_sim_system *sys, const char *path, char *err,
                                      size_t errlen);
CHAKRA_EXPERIMENTAL_API int chakra_sim_system_parse(chakra_sim_system *sys, const char *name,
                                       const char *text, size_t len, char *err,
                                       size_t errlen);
CHAKRA_EXPERIMENTAL_API int chakra_sim_groups_load(chakra_sim_groups *gs, const char *path, uint32_t npus,
                                      char *err, size_t errlen);
CHAKRA_EXPERIMENTAL_API int chakra_sim_groups_parse(chakra_sim_groups *gs, const char *name,
                                       const char *text, size_t len, uint32_t npus, char *err,
                                       size_t errlen);
CHAKRA_EXPERIMENTAL_API void chakra_sim_groups_free(chakra_sim_groups *gs);
CHAKRA_EXPERIMENTAL_API const chakra_sim_group *chakra_sim_groups_find(const chakra_sim_groups *gs,
                                                          const char *name, size_t len);

/* ---------------- the engine ---------------- */

typedef struct chakra_sim chakra_sim;

typedef enum chakra_sim_model {
	CHAKRA_SIM_UNAWARE = 0,         /* congestion-unaware (default) */
	CHAKRA_SIM_AWARE = 1            /* every directed link a FIFO queue */
} chakra_sim_model;

/* What one NPU did (cycles; 1 cycle = 1 ns). */
typedef struct chakra_sim_npu_result {
	uint64_t finish;                /* when its last node completed */
	uint64_t compute;               /* sum of its compute nodes' durations (ASTRA-sim
	                                 * rules: GPU compute only, as ASTRA-sim counts it) */
	uint64_t comm_busy;             /* cycles with a collective or send/recv in flight */
	uint64_t nodes;                 /* nodes completed */
	/* Since options version 3 (appended): the CPU nodes' durations under
	 * ASTRA-sim rules (0 under the model rules, which count them in compute). */
	uint64_t cpu;
} chakra_sim_npu_result;

/* Node events, in simulated-time order: CHAKRA_SIM_ISSUE when a node
 * starts, CHAKRA_SIM_DONE when it completes (zero-cost nodes: both at
 * once). The node view is valid during the call. */
enum { CHAKRA_SIM_ISSUE = 0, CHAKRA_SIM_DONE = 1 };
typedef void (*chakra_sim_event_cb)(void *data, int what, uint32_t npu, uint64_t cycle,
                                    const chakra_node *node);
/* A node that took time ended: it ran on `lane` (0 compute, 1
 * communication: collectives and send/recv) from start to end. */
typedef void (*chakra_sim_span_cb)(void *data, uint32_t npu, int lane,
                                   const chakra_node *node, uint64_t start, uint64_t end);
/* An NPU completed its last node (called once per NPU, as it happens). */
typedef void (*chakra_sim_finish_cb)(void *data, uint32_t npu,
                                     const chakra_sim_npu_result *result);
/* Every 65,536 simulated nodes: the total so far. */
typedef void (*chakra_sim_progress_cb)(void *data, uint64_t nodes_done);

/* The workload-layer rules of a run: which node takes which resource,
 * in what order ready nodes are issued, how long a node takes
 * (docs/sim.md, "Two rule sets"). */
typedef enum chakra_sim_rules {
	CHAKRA_SIM_RULES_AUTO = 0,      /* ASTRA_SIM for traces converted from a
	                                 * recording (rank 0's metadata has `source`, as
	                                 * chakra convert writes), MODEL otherwise */
	CHAKRA_SIM_RULES_ASTRA_SIM = 1, /* stock ASTRA-sim's workload layer: a CPU, a
	                                 * GPU-compute and a GPU-communication slot,
	                                 * duration_micros x 1000, data+ctrl deps */
	CHAKRA_SIM_RULES_MODEL = 2      /* this simulator's for modelled workloads: one
	                                 * compute and one collective slot, exact
	                                 * duration_nanos, data deps */
} chakra_sim_rules;
/* Where a compute node's time comes from (roofline aside). */
typedef enum chakra_sim_durations {
	CHAKRA_SIM_DURATIONS_DEFAULT = 0, /* the rules' own: ASTRA_SIM micros, MODEL nanos */
	CHAKRA_SIM_DURATIONS_MICROS = 1,  /* duration_micros x 1000 (ASTRA-sim) */
	CHAKRA_SIM_DURATIONS_NANOS = 2    /* duration_nanos when present, else micros x 1000 */
} chakra_sim_durations;

typedef struct chakra_sim_options {
	unsigned version;               /* CHAKRA_SIM_OPTIONS_VERSION */
	chakra_sim_model model;
	const chakra_sim_groups *groups;    /* pg_name lookups; NULL: pg_name ignored */
	const double *compute_scale;    /* per NPU factor on compute time; NULL: 1 */
	const uint64_t *start_delay;    /* per NPU start cycle; NULL: 0 */
	/* For chakra_sim_run_prefix, which opens the feeders: */
	chakra_deps deps;               /* 0: data dependencies, as the reference */
	uint64_t window;                /* nodes read ahead per rank; 0: from the memory budget */
	void *data;                     /* passed to the callbacks */
	chakra_sim_event_cb event_cb;   /* NULL: none (all callbacks optional) */
	chakra_sim_span_cb span_cb;
	chakra_sim_finish_cb finish_cb;
	chakra_sim_progress_cb progress_cb;
	/* Version 2: the memory budget in bytes (0: CHAKRA_SIM_DEFAULT_MEMORY).
	 * chakra_sim_run_prefix sizes every rank's read-ahead window and input
	 * reads from its share; see docs/sim.md for what else it bounds. */
	uint64_t memory;
	/* Version 3: the workload-layer rules (AUTO: from the workload), the
	 * duration source (DEFAULT: the rules' own), and, under ASTRA_SIM rules,
	 * streams != 0 for a slot per CPU thread (`tid`) and per GPU stream
	 * (`device`, `stream`) instead of one CPU and one GPU-compute slot.
	 * deps 0 then means data+ctrl under ASTRA_SIM rules, data under MODEL. */
	chakra_sim_rules rules;
	chakra_sim_durations durations;
	int streams;
	/* Version 4: chakra_sim_run_prefix simulates one NPU per class of
	 * ranks that run the same trace from equivalent places, with the full
	 * simulation's results for every NPU (docs/sim.md, "Symmetry"), unless
	 * no_symmetry is set. The callbacks then see the representatives:
	 * event_cb and span_cb their nodes, finish_cb every NPU of the class as
	 * its representative finishes. */
	int no_symmetry;
} chakra_sim_options;

#define CHAKRA_SIM_DEFAULT_MEMORY ((uint64_t)64 << 20)
#define CHAKRA_SIM_OPTIONS_VERSION 4
#define CHAKRA_SIM_OPTIONS_INIT \
	{ CHAKRA_SIM_OPTIONS_VERSION, CHAKRA_SIM_UNAWARE, NULL, NULL, NULL, \
	  (chakra_deps)0, 0, NULL, NULL, NULL, NULL, NULL, 0, \
	  CHAKRA_SIM_RULES_AUTO, CHAKRA_SIM_DURATIONS_DEFAULT, 0, 0 }
/* Same as CHAKRA_SIM_OPTIONS_INIT, for callers that cannot use the macro
 * (any version from 1 up: the fields that version has); CHAKRA_EINVAL for
 * NULL or a version this library does not know. */
CHAKRA_EXPERIMENTAL_API int chakra_sim_options_init(chakra_sim_options *opts, unsigned version);

/* A simulator for one network and system (both copied; checked here).
 * opts may be NULL (defaults); it is copied with what it points to: the
 * groups and the per-NPU arrays (compute_scale and start_delay, one entry
 * per NPU of the network), so nothing the caller passed is kept by
 * pointer. A version this library does not know is CHAKRA_EINVAL. On an
 * error *out may still be set: read chakra_sim_errmsg, then free it. */
CHAKRA_EXPERIMENTAL_API int chakra_sim_new(chakra_sim **out, const chakra_sim_network *net,
                              const chakra_sim_system *sys, const chakra_sim_options *opts);
CHAKRA_EXPERIMENTAL_API void chakra_sim_free(chakra_sim *s);

/* Simulate one feeder per NPU (n = the network's NPUs), freshly opened in
 * pull style; the feeders are consumed, not closed. 0 or a negative
 * error; results below are valid after a successful run. The feeders'
 * options stay the caller's: for stock ASTRA-sim's cycles under its rules,
 * open them with CHAKRA_DEPS_BOTH and a window that covers the trace, as
 * chakra_sim_run_prefix does. */
CHAKRA_EXPERIMENTAL_API int chakra_sim_run(chakra_sim *s, chakra_feeder *const *feeders, size_t n);
CHAKRA_EXPERIMENTAL_API int chakra_sim_run_workload(chakra_sim *s, chakra_workload *w);
/* Opens PREFIX.0.et .. PREFIX.{N-1}.et (or .et.gz), or the rank map
 * PREFIX.ranks (or PREFIX itself: a rank map), with the options' deps and
 * window, runs, closes. Ranks in classes (the same file or bytes, or the
 * same class of a rank map; the same start delay and compute scale) are
 * simulated one per class when the reduction finds their interactions
 * equivalent, else every NPU is (chakra_sim_symmetry says why). */
CHAKRA_EXPERIMENTAL_API int chakra_sim_run_prefix(chakra_sim *s, const char *prefix);

CHAKRA_EXPERIMENTAL_API const char *chakra_sim_errmsg(const chakra_sim *s);
/* What the last successful run wants the user to know (e.g. nodes whose
 * type is outside NodeType, simulated as taking no time), or NULL. */
CHAKRA_EXPERIMENTAL_API const char *chakra_sim_warning(const chakra_sim *s);
CHAKRA_EXPERIMENTAL_API uint32_t chakra_sim_npus(const chakra_sim *s);
/* The latest finish over all NPUs. */
CHAKRA_EXPERIMENTAL_API uint64_t chakra_sim_finish(const chakra_sim *s);
/* NPU npu's result (NULL when out of range or before a successful run). */
CHAKRA_EXPERIMENTAL_API const chakra_sim_npu_result *chakra_sim_npu(const chakra_sim *s, uint32_t npu);
CHAKRA_EXPERIMENTAL_API uint64_t chakra_sim_nodes(const chakra_sim *s);   /* nodes simulated */
/* The rules the last run followed (ASTRA_SIM or MODEL; AUTO before a run). */
CHAKRA_EXPERIMENTAL_API chakra_sim_rules chakra_sim_rules_used(const chakra_sim *s);
CHAKRA_EXPERIMENTAL_API uint64_t chakra_sim_events(const chakra_sim *s);  /* engine events processed */
/* The read-ahead window each rank's feeder had in the last
 * chakra_sim_run_prefix: nodes (returned), bytes held (*window_bytes) and
 * input read size (*read_bytes), chosen from the memory budget. */
CHAKRA_EXPERIMENTAL_API uint64_t chakra_sim_window(const chakra_sim *s, uint64_t *window_bytes,
                                      size_t *read_bytes);
/* The last run's symmetry reduction: the NPUs it simulated (one per class,
 * or every NPU), and why it simulated every NPU when it did (NULL when it
 * simulated one per class, or the run was not chakra_sim_run_prefix). */
CHAKRA_EXPERIMENTAL_API uint32_t chakra_sim_classes(const chakra_sim *s);
CHAKRA_EXPERIMENTAL_API const char *chakra_sim_symmetry(const chakra_sim *s);
/* Was npu simulated in the last run (a representative, or every NPU)?
 * Known from the start of chakra_sim_run_prefix's run, before the first
 * callback, so an output can name the NPUs it will hear of. */
CHAKRA_EXPERIMENTAL_API int chakra_sim_simulated(const chakra_sim *s, uint32_t npu);
/* npu's class in the last run and the NPU simulated for it (its lowest
 * rank); the class is npu itself when every NPU was simulated. */
CHAKRA_EXPERIMENTAL_API uint32_t chakra_sim_class_of(const chakra_sim *s, uint32_t npu);
CHAKRA_EXPERIMENTAL_API uint32_t chakra_sim_representative(const chakra_sim *s, uint32_t npu);

/* ---------------- the results as text ---------------- */

typedef enum chakra_sim_results_form {
	CHAKRA_SIM_RESULTS_JSON = 0,          /* one object (what `chakra sim --json` prints):
	                                       * finish_cycles, model, nodes, rules, classes,
	                                       * npus[] (npu, finish_cycles, compute_cycles,
	                                       * exposed_comm_cycles, comm_busy_cycles, nodes,
	                                       * cpu_cycles), then a newline */
	CHAKRA_SIM_RESULTS_ASTRA_SIM_LOG = 1  /* ASTRA-sim's "sys[N] finished, C cycles,
	                                       * exposed communication E cycles." lines */
} chakra_sim_results_form;
/* The last successful run's results through write: 0, CHAKRA_EINVAL (NULL,
 * an unknown form, or no results), CHAKRA_EIO (write failed) or
 * CHAKRA_ENOMEM. */
CHAKRA_EXPERIMENTAL_API int chakra_sim_write_results(const chakra_sim *s,
                                                     chakra_sim_results_form form,
                                                     chakra_write_cb write, void *data);

/* ---------------- the events as text ---------------- */

/* A writer of a run's events in the two text forms `chakra sim` writes
 * (docs/sim.md): the timeline-visualizer CSV (`--events`: a line per
 * issue or callback event) and the Chrome trace-event JSON (`--timeline`:
 * a process per NPU, threads compute, communication and, for CPU nodes,
 * cpu), each through its own chakra_write_cb. Give it to the simulator as
 * the data of chakra_sim_trace_event / chakra_sim_trace_span (or call them
 * from the caller's own callbacks), and end it with chakra_sim_trace_finish.
 *
 *   chakra_sim_trace_options to = CHAKRA_SIM_TRACE_OPTIONS_INIT;
 *   to.npus = net.npus;  to.timeline = write_cb;  to.timeline_data = file;
 *   chakra_sim_trace *t;  chakra_sim_trace_new(&t, &to);
 *   o.data = t;  o.span_cb = chakra_sim_trace_span;  // o: chakra_sim_options
 *   chakra_sim_new(&s, &net, &sys, &o);  chakra_sim_trace_set_sim(t, s);
 *   chakra_sim_run_prefix(s, "workload");  rc = chakra_sim_trace_finish(t);
 *   chakra_sim_trace_free(t);
 */
typedef struct chakra_sim_trace chakra_sim_trace;
typedef struct chakra_sim_trace_options {
	unsigned version;                   /* CHAKRA_SIM_TRACE_OPTIONS_VERSION */
	uint32_t npus;                      /* the network's NPUs */
	chakra_write_cb events;             /* the CSV; NULL: none */
	void *events_data;
	chakra_write_cb timeline;           /* the JSON; NULL: none */
	void *timeline_data;
} chakra_sim_trace_options;
#define CHAKRA_SIM_TRACE_OPTIONS_VERSION 1
#define CHAKRA_SIM_TRACE_OPTIONS_INIT { CHAKRA_SIM_TRACE_OPTIONS_VERSION, 0, NULL, NULL, NULL, NULL }
/* Same as CHAKRA_SIM_TRACE_OPTIONS_INIT; CHAKRA_EINVAL for NULL or a
 * version this library does not know. */
CHAKRA_EXPERIMENTAL_API int chakra_sim_trace_options_init(chakra_sim_trace_options *opts,
                                                          unsigned version);
/* 0, CHAKRA_EINVAL (bad options, npus 0) or CHAKRA_ENOMEM. Nothing is
 * written before the first event or span (or chakra_sim_trace_finish). */
CHAKRA_EXPERIMENTAL_API int chakra_sim_trace_new(chakra_sim_trace **out,
                                                 const chakra_sim_trace_options *opts);
/* The simulator whose run it writes: the timeline then names only the
 * NPUs it simulates (one per class under the symmetry reduction). Before
 * the run; the handle must outlive the writer's use of it. */
CHAKRA_EXPERIMENTAL_API void chakra_sim_trace_set_sim(chakra_sim_trace *t, const chakra_sim *s);
/* A chakra_sim_event_cb and a chakra_sim_span_cb (data: the writer). */
CHAKRA_EXPERIMENTAL_API void chakra_sim_trace_event(void *trace, int what, uint32_t npu,
                                                    uint64_t cycle, const chakra_node *node);
CHAKRA_EXPERIMENTAL_API void chakra_sim_trace_span(void *trace, uint32_t npu, int lane,
                                                   const chakra_node *node, uint64_t start,
                                                   uint64_t end);
/* Ends the timeline (with its metadata when no span came): 0, or the
 * first error of the writer's life: CHAKRA_ENOMEM, or CHAKRA_EIO when a
 * write callback failed. */
CHAKRA_EXPERIMENTAL_API int chakra_sim_trace_finish(chakra_sim_trace *t);
CHAKRA_EXPERIMENTAL_API void chakra_sim_trace_free(chakra_sim_trace *t);

#ifdef __cplusplus
}
#endif

#endif
