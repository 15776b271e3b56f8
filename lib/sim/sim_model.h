/* libchakra-sim internals: the network models and the collectives, shared
 * by the engine and the white-box tests. Not a public interface.
 *   sim_config.c  network YAML, system JSON, communicator groups (public)
 *   sim_net.c     topology, the congestion-unaware delay, aware links
 *   sim_coll.c    collective phases and algorithm steps
 *   sim_engine.c  the feeder loop, per-NPU resources, send/recv, outputs
 *   sim_phase.c   collectives in the engine: matching, chunk servers,
 *                 phase timing (closed form / message events)
 *   sim_api.c     the public handle (options, runs, results)
 * Time is in cycles; 1 cycle = 1 ns (docs/sim.md). */
#ifndef CHAKRA_SIM_MODEL_H
#define CHAKRA_SIM_MODEL_H

#include <stddef.h>
#include <stdint.h>

#ifndef CHAKRA_EXPERIMENTAL
#define CHAKRA_EXPERIMENTAL
#endif
#include "chakra/experimental/sim.h"

#define SIM_MAX_DIMS CHAKRA_SIM_MAX_DIMS
#define SIM_ERR_LEN 512

/* ---- Network models (sim_net.c) ---- */
/* Coordinate of rank in dimension d. */
uint32_t chakra__sim_coord(const chakra_sim_network *net, uint32_t rank, int d);
/* Bytes per ns of a link of dimension d (GB/s read as GiB/s). */
double chakra__sim_link_bpns(const chakra_sim_network *net, int d);
/* Congestion-unaware delivery time of `bytes` from a to b (a != b):
 * floor(hops * latency + bytes / B) in the first dimension that differs. */
uint64_t chakra__sim_unaware_delay(const chakra_sim_network *net, uint32_t a, uint32_t b,
                                   double bytes);

/* Congestion-aware: every directed link is a FIFO server. A message is
 * routed dimension by dimension (store and forward). */
typedef struct sim_links sim_links;
sim_links *chakra__sim_links_new(const chakra_sim_network *net);
void chakra__sim_links_free(sim_links *l);
/* A message in flight: where it is and where it goes. */
typedef struct sim_hop {
	uint32_t at;        /* current NPU */
	uint32_t dst;
	int at_switch;      /* between the up and down link of a switch */
	int sw_dim;
} sim_hop;
/* Take the next link from h at time t: returns the arrival time at the
 * next device and advances h; *done set when h reached dst. */
uint64_t chakra__sim_links_step(sim_links *l, sim_hop *h, double bytes, uint64_t t, int *done);

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
	chakra_sim_algorithm alg;
	uint32_t n;         /* members */
	double x;           /* bytes of this chunk entering the phase */
} sim_phase;

/* Phases of one chunk of a collective over dims[0..k-1] (dimension
 * numbers, or one -1 entry with group size gn). Returns the count (at most
 * 2*SIM_MAX_DIMS) or -1 with err (SIM_ERR_LEN) for an unsupported
 * comm_type. */
int chakra__sim_coll_plan(const chakra_sim_network *net, const chakra_sim_system *sys,
                          int comm_type, double chunk_bytes, const int *dims, int k,
                          uint32_t gn, sim_phase *out, char *err);

/* Steps of one phase: count, and for step s the message size and whether
 * the receiver reduces it. */
uint64_t chakra__sim_phase_steps(const sim_phase *ph);
double chakra__sim_step_bytes(const sim_phase *ph, uint64_t s);
int chakra__sim_step_reduces(const sim_phase *ph, uint64_t s);
/* Sources of member i's step-s message(s) (member indices); returns the
 * count written to src (cap >= n). */
uint32_t chakra__sim_step_sources(const sim_phase *ph, uint64_t s, uint32_t i, uint32_t *src);
/* Members that member i sends its step-s message to (inverse of above). */
uint32_t chakra__sim_step_dests(const sim_phase *ph, uint64_t s, uint32_t i, uint32_t *dst);
/* Local-memory cost of reducing one message: 3 * floor(bytes / lbw). */
uint64_t chakra__sim_reduce_cost(const chakra_sim_system *sys, double bytes);
/* Checks an algorithm fits n members and the operation (halving-doubling:
 * a power of two; double binary tree: all-reduce, reduce, broadcast,
 * barrier). */
int chakra__sim_alg_check(chakra_sim_algorithm alg, sim_op op, uint32_t n, char *err);
const char *chakra__sim_alg_name(chakra_sim_algorithm alg);

#endif
