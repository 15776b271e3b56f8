/* chakra sim: an ASTRA-sim-compatible analytical simulator on the public
 * feeder API. This header ties the parts together:
 *   sim_config.c  network YAML, system JSON, communicator groups
 *   sim_net.c     topology, the congestion-unaware delay, aware links
 *   sim_coll.c    collective phases and algorithm steps
 *   sim_engine.c  the feeder loop, per-NPU resources, send/recv, outputs
 *   sim_phase.c   collectives in the engine: matching, chunk servers,
 *                 phase timing (closed form / message events)
 * Time is in cycles; 1 cycle = 1 ns (docs/sim.md). */
#ifndef CHAKRA_TOOLS_SIM_H
#define CHAKRA_TOOLS_SIM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define SIM_MAX_DIMS 8
#define SIM_ERR_LEN 512

/* ---- Network (YAML) ---- */
typedef enum sim_topo { SIM_RING = 0, SIM_SWITCH = 1, SIM_FC = 2 } sim_topo;

typedef struct sim_network {
	int ndims;
	sim_topo topo[SIM_MAX_DIMS];
	uint32_t size[SIM_MAX_DIMS];    /* NPUs in each dimension */
	double bw[SIM_MAX_DIMS];        /* GB/s per link per direction, as written */
	double latency[SIM_MAX_DIMS];   /* ns per link */
	uint32_t npus;                  /* product of size[] */
	uint32_t stride[SIM_MAX_DIMS];  /* mixed radix, dimension 0 fastest */
} sim_network;

/* ---- System (JSON) ---- */
typedef enum sim_alg { SIM_ALG_RING = 0, SIM_ALG_DIRECT, SIM_ALG_HD, SIM_ALG_DBT } sim_alg;
enum { SIM_IMPL_AR = 0, SIM_IMPL_AG, SIM_IMPL_RS, SIM_IMPL_A2A, SIM_IMPL_COUNT };

typedef struct sim_system {
	int lifo;                       /* scheduling-policy: parsed, see docs */
	uint64_t endpoint_delay;        /* ns per received message */
	uint32_t active_chunks;         /* chunk-phases per dimension at once */
	uint32_t splits;                /* preferred-dataset-splits */
	int n_impl[SIM_IMPL_COUNT];
	sim_alg impl[SIM_IMPL_COUNT][SIM_MAX_DIMS];
	int local_bw_aware;             /* collective-optimization: localBWAware */
	double local_mem_bw;            /* GB/s, decimal */
	int boost_mode;
	int roofline;
	double peak_perf;               /* TFLOP/s */
} sim_system;

/* ---- Communicator groups (ASTRA-sim: {"id": [ranks...]}) ---- */
typedef struct sim_group {
	char *name;
	uint32_t *ranks;
	size_t n;
} sim_group;

typedef struct sim_groups {
	sim_group *g;
	size_t n;
} sim_groups;

/* Each returns 0, or -1 with err naming the file, line and key. */
int sim_network_load(sim_network *net, const char *path, char *err);
int sim_network_parse(sim_network *net, const char *path, const char *text, size_t len,
                      char *err);
int sim_system_load(sim_system *sys, const char *path, char *err);
int sim_system_parse(sim_system *sys, const char *path, const char *text, size_t len,
                     char *err);
int sim_groups_load(sim_groups *gs, const char *path, uint32_t npus, char *err);
int sim_groups_parse(sim_groups *gs, const char *path, const char *text, size_t len,
                     uint32_t npus, char *err);
void sim_groups_free(sim_groups *gs);
const sim_group *sim_groups_find(const sim_groups *gs, const char *name, size_t len);

/* ---- Network models (sim_net.c) ---- */
/* Coordinate of rank in dimension d. */
uint32_t sim_coord(const sim_network *net, uint32_t rank, int d);
/* Bytes per ns of a link of dimension d (GB/s read as GiB/s). */
double sim_link_bpns(const sim_network *net, int d);
/* Congestion-unaware delivery time of `bytes` from a to b (a != b):
 * floor(hops * latency + bytes / B) in the first dimension that differs. */
uint64_t sim_unaware_delay(const sim_network *net, uint32_t a, uint32_t b, double bytes);

/* Congestion-aware: every directed link is a FIFO server. A message is
 * routed dimension by dimension (store and forward). */
typedef struct sim_links sim_links;
sim_links *sim_links_new(const sim_network *net);
void sim_links_free(sim_links *l);
/* A message in flight: where it is and where it goes. */
typedef struct sim_hop {
	uint32_t at;        /* current NPU */
	uint32_t dst;
	int at_switch;      /* between the up and down link of a switch */
	int sw_dim;
} sim_hop;
/* Take the next link from h at time t: returns the arrival time at the
 * next device and advances h; *done set when h reached dst. */
uint64_t sim_links_step(sim_links *l, sim_hop *h, double bytes, uint64_t t, int *done);

/* ---- Collectives (sim_coll.c) ---- */
/* The collective a phase performs on one dimension (or group). */
typedef enum sim_op {
	SIM_OP_AR = 0, SIM_OP_RS, SIM_OP_AG, SIM_OP_A2A, SIM_OP_BCAST, SIM_OP_REDUCE,
	SIM_OP_BARRIER
} sim_op;

/* One phase of a chunk: `op` by `alg` over n members, x bytes of input. */
typedef struct sim_phase {
	int dim;            /* network dimension, or -1: communicator group */
	sim_op op;
	sim_alg alg;
	uint32_t n;         /* members */
	double x;           /* bytes of this chunk entering the phase */
} sim_phase;

/* Phases of one chunk of a collective over dims[0..k-1] (dimension
 * numbers, or one -1 entry with group size gn). Returns the count (at most
 * 2*SIM_MAX_DIMS) or -1 with err for an unsupported comm_type. */
int sim_coll_plan(const sim_network *net, const sim_system *sys, int comm_type,
                  double chunk_bytes, const int *dims, int k, uint32_t gn,
                  sim_phase *out, char *err);

/* Steps of one phase: count, and for step s the message size and whether
 * the receiver reduces it. */
uint64_t sim_phase_steps(const sim_phase *ph);
double sim_step_bytes(const sim_phase *ph, uint64_t s);
int sim_step_reduces(const sim_phase *ph, uint64_t s);
/* Sources of member i's step-s message(s) (member indices); returns the
 * count written to src (cap >= n). */
uint32_t sim_step_sources(const sim_phase *ph, uint64_t s, uint32_t i, uint32_t *src);
/* Members that member i sends its step-s message to (inverse of above). */
uint32_t sim_step_dests(const sim_phase *ph, uint64_t s, uint32_t i, uint32_t *dst);
/* Local-memory cost of reducing one message: 3 * floor(bytes / lbw). */
uint64_t sim_reduce_cost(const sim_system *sys, double bytes);
/* Checks an algorithm fits n members and the operation (halving-doubling:
 * a power of two; double binary tree: all-reduce, reduce, broadcast,
 * barrier). */
int sim_alg_check(sim_alg alg, sim_op op, uint32_t n, char *err);
const char *sim_alg_name(sim_alg alg);

/* ---- Engine (sim_engine.c) ---- */
typedef enum sim_model { SIM_UNAWARE = 0, SIM_AWARE = 1 } sim_model;

typedef struct sim_options {
	sim_model model;
	const sim_groups *groups;   /* NULL: none */
	double *compute_scale;      /* per rank, NULL = 1.0 */
	uint64_t *start_delay;      /* per rank, NULL = 0 */
	FILE *timeline;             /* Chrome trace JSON, NULL = none */
	FILE *events;               /* timeline-visualizer CSV, NULL = none */
	int progress;               /* show progress on a terminal */
	uint64_t window;            /* feeder read-ahead per rank, 0 = library default */
	int deps;                   /* chakra_deps; 0 = data dependencies (the reference) */
} sim_options;

typedef struct sim_npu_result {
	uint64_t finish;
	uint64_t compute;
	uint64_t comm_busy;         /* cycles with a collective or p2p in flight */
	uint64_t nodes;
} sim_npu_result;

typedef struct sim_result {
	uint32_t npus;
	uint64_t finish;            /* max over NPUs */
	sim_npu_result *npu;
	uint64_t events;            /* engine events processed */
	uint64_t nodes;
} sim_result;

/* Simulate workload PREFIX on net/sys. 0, or -1 with err. The result's
 * arrays are freed by sim_result_free. */
int sim_run(const char *prefix, const sim_network *net, const sim_system *sys,
            const sim_options *opt, sim_result *res, char *err, size_t errlen);
void sim_result_free(sim_result *res);

#endif
