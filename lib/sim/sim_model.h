/* SPDX-License-Identifier: Apache-2.0 */
/* libchakra-sim internals: the network models and the collectives, shared
 * by the engine and the white-box tests. Not a public interface.
 *   sim_config*.c network YAML, system JSON, communicator groups (public)
 *   sim_net.c     topology, the congestion-unaware delay, aware links
 *   sim_coll.c    collective phases and what the algorithms share
 *   coll/         one file per collective algorithm (coll/coll.h)
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

/* Time in cycles saturates at UINT64_MAX instead of wrapping (a latency of
 * 1e300, a duration of 2^64-1 us, sums of large ones); the engine refuses a
 * run whose events reach it, so no result is ever a wrapped number. */
static inline uint64_t sim_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}
static inline uint64_t sim_mul(uint64_t a, uint64_t b)
{
	return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}
/* Multiplication modulo 2^64, for hashes, where the wrap is the point (the
 * sanitizer's integer check, which CI runs on lib/sim, flags a plain *). */
static inline uint64_t sim_mulw(uint64_t a, uint64_t b)
{
	uint64_t r;
	(void)__builtin_mul_overflow(a, b, &r);
	return r;
}
/* A 64-bit finalizer (MurmurHash3's fmix64), for the hash tables. */
static inline uint64_t sim_mix64(uint64_t k)
{
	k ^= k >> 33;
	k = sim_mulw(k, 0xff51afd7ed558ccdull);
	k ^= k >> 33;
	k = sim_mulw(k, 0xc4ceb9fe1a85ec53ull);
	k ^= k >> 33;
	return k;
}
/* floor(v) as cycles: 0 below 1 (and for NaN), UINT64_MAX from 2^64 up. */
static inline uint64_t sim_cycles(double v)
{
	return v >= 18446744073709551616.0 ? UINT64_MAX : v >= 1 ? (uint64_t)v : 0;
}

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
/* Links in all (their numbering is the model's), and the one the last
 * step took ((size_t)-1: none, the message was there). */
size_t chakra__sim_links_count(const sim_links *l);
size_t chakra__sim_links_last(const sim_links *l);

/* ---- Collectives (sim_coll.c) ---- */
/* The collective a phase performs on one dimension (or group). */
typedef enum sim_op {
	SIM_OP_AR = 0, SIM_OP_RS, SIM_OP_AG, SIM_OP_A2A, SIM_OP_BCAST, SIM_OP_REDUCE,
	SIM_OP_BARRIER
} sim_op;

/* A collective algorithm's table of parts (coll/coll.h). */
typedef struct sim_coll sim_coll;
/* Which packets are processed (reduced) when they become ready. */
enum { SIM_REDUCE_NONE = 0, SIM_REDUCE_TOGGLE, SIM_REDUCE_ALL };

/* One phase of a chunk: `op` by `alg` over n members, x bytes of input. */
typedef struct sim_phase {
	int dim;            /* network dimension, or -1: communicator group */
	sim_op op;
	chakra_sim_algorithm alg;
	uint32_t n;         /* members */
	uint64_t x;         /* bytes of this chunk entering the phase */
	/* The protocol (see sim_coll.c): */
	const sim_coll *coll; /* alg's table */
	uint8_t reduce;     /* SIM_REDUCE_* */
	uint32_t P;         /* packets inserted at the start */
	uint64_t K;         /* messages each member sends */
	uint64_t round;     /* packets per round (P first, then the others) */
	uint64_t msg;       /* bytes of every message (halving-doubling: see pkt_bytes) */
	uint64_t out;       /* bytes handed on to the next phase */
	uint64_t e;         /* delay before a packet is ready: endpoint-delay, but
	                     * see sim_phase.c for ASTRA-sim's group rings */
} sim_phase;

/* A collective of `size` bytes: chunk size and count, as the reference cuts
 * it (a barrier is one empty chunk). */
void chakra__sim_coll_chunks(const chakra_sim_network *net, const chakra_sim_system *sys,
                             int comm_type, uint64_t size, uint64_t *chunk_bytes,
                             uint32_t *chunks);
/* Phases of one chunk of a collective over dims[0..k-1] (dimension
 * numbers, or one -1 entry with group size gn). Returns the count (at most
 * 2*SIM_MAX_DIMS) or -1 with err (SIM_ERR_LEN) for an unsupported
 * comm_type. */
int chakra__sim_coll_plan(const chakra_sim_network *net, const chakra_sim_system *sys,
                          int comm_type, uint64_t chunk_bytes, const int *dims, int k,
                          uint32_t gn, sim_phase *out, char *err);

/* The protocol, packet k of member i (the packet algorithms): who it
 * goes to, whose message its receive expects, its bytes, whether it is
 * processed, and how long after its insertion it is ready. */
uint32_t chakra__sim_pkt_dest(const sim_phase *ph, uint32_t i, uint64_t k);
uint32_t chakra__sim_pkt_src(const sim_phase *ph, uint32_t i, uint64_t k);
uint64_t chakra__sim_pkt_bytes(const sim_phase *ph, uint64_t k);
int chakra__sim_pkt_reduced(const sim_phase *ph, uint64_t k);
uint64_t chakra__sim_pkt_delay(const sim_phase *ph, const chakra_sim_system *sys, uint64_t k);
/* Local-memory cost of reducing one message: 3 * trunc(bytes / lbw). */
uint64_t chakra__sim_reduce_cost(const chakra_sim_system *sys, uint64_t bytes);

/* The double binary tree, in steps (coll/double_binary_tree.c): count, bytes per message, whether
 * step s is reduced, and member i's senders / receivers in step s. */
uint64_t chakra__sim_tree_steps(const sim_phase *ph);
uint64_t chakra__sim_tree_bytes(const sim_phase *ph);
int chakra__sim_tree_reduces(const sim_phase *ph, uint64_t s);
uint32_t chakra__sim_tree_sources(const sim_phase *ph, uint64_t s, uint32_t i, uint32_t *src);
uint32_t chakra__sim_tree_dests(const sim_phase *ph, uint64_t s, uint32_t i, uint32_t *dst);

/* The system JSON's name of an algorithm ("?" for none). */
const char *chakra__sim_alg_name(chakra_sim_algorithm alg);

#endif
