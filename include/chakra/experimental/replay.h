/* SPDX-License-Identifier: Apache-2.0 */
/* libchakra (experimental): the MPI-independent half of trace replay.
 *
 * `chakra-replay` (tools/replay-mpi) runs each rank's trace on a real
 * machine through MPI. Everything it decides before and after talking MPI
 * lives here, so that it can be tested without MPI and reused by other
 * executors:
 *   - which ranks a collective spans (communicator groups by pg_name, the
 *     network dimensions flagged by involved_dim, or every rank), exactly as
 *     the simulator resolves them;
 *   - the plan: the communication nodes of one rank in the order the feeder
 *     issues them, split into channels (one per communicator and per peer,
 *     direction and tag) whose order every rank must agree on;
 *   - digests of those orders and, when ranks disagree, a message naming
 *     the first difference (rank, node id, what differs);
 *   - how many elements each MPI call moves, and algorithm and bus
 *     bandwidth as nccl-tests defines them;
 *   - the report (text and JSON), with the simulator's prediction (lib/sim)
 *     beside it.
 *
 * Unstable: define CHAKRA_EXPERIMENTAL before including it. Errors are
 * negative chakra_error codes with a message in the caller's buffer. */
#ifndef CHAKRA_EXPERIMENTAL_REPLAY_H
#define CHAKRA_EXPERIMENTAL_REPLAY_H

#include "chakra/experimental.h"
#include <stddef.h>
#include <stdint.h>
#include "chakra/feeder.h"
#include "chakra/node.h"
#include "chakra/experimental/sim.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CHAKRA_REPLAY_MAX_DIMS 8
#define CHAKRA_REPLAY_ERR_LEN 1024

/* ---- Network shape ---- */
/* "4x4" -> {4, 4}: the number of dimensions, or CHAKRA_EINVAL. (A network
 * YAML's shape, and communicator-group files, are read with the
 * simulator's parsers: chakra_sim_network_load, chakra_sim_groups_load.) */
CHAKRA_EXPERIMENTAL_API int chakra_replay_dims_parse(const char *s, uint32_t *dims, int cap);

/* ---- Scopes: which ranks a collective spans ---- */
typedef struct chakra_replay_topo {
	uint32_t nranks;
	int ndims; /* 0: unknown (then only involved_dim lists flagging every dimension work) */
	uint32_t dims[CHAKRA_REPLAY_MAX_DIMS]; /* dimension 0 varies fastest */
	const chakra_sim_groups *groups;       /* NULL: pg_name is ignored, as the simulator does */
} chakra_replay_topo;

typedef enum chakra_replay_scope_kind {
	CHAKRA_REPLAY_SCOPE_ALL = 0,   /* every rank */
	CHAKRA_REPLAY_SCOPE_DIMS = 1,  /* key: mask of the dimensions flagged by involved_dim */
	CHAKRA_REPLAY_SCOPE_GROUP = 2  /* key: index of the communicator group */
} chakra_replay_scope_kind;

typedef struct chakra_replay_scope {
	chakra_replay_scope_kind kind;
	uint32_t key;
} chakra_replay_scope;

/* The scope of a collective on `rank`, as the simulator resolves it: the
 * group named by pg_name when groups are loaded, else the dimensions of
 * involved_dim (all of them, or an absent list: every rank). Errors: a
 * pg_name not in the file, a rank outside its group, a list of the wrong
 * length, a partial list when the shape is unknown. */
CHAKRA_EXPERIMENTAL_API int chakra_replay_scope_of(const chakra_replay_topo *t, uint32_t rank,
                                                   const chakra_node *n, chakra_replay_scope *out,
                                                   char *err, size_t errlen);
/* Scopes as small integers 0..chakra_replay_scope_slots()-1 (for bitmaps
 * exchanged between ranks), and back. */
CHAKRA_EXPERIMENTAL_API size_t chakra_replay_scope_slots(const chakra_replay_topo *t);
CHAKRA_EXPERIMENTAL_API size_t chakra_replay_scope_slot(const chakra_replay_topo *t,
                                                        chakra_replay_scope s);
CHAKRA_EXPERIMENTAL_API chakra_replay_scope
	chakra_replay_scope_at(const chakra_replay_topo *t, size_t slot);
/* The ranks of rank's instance of the scope in communicator order (group:
 * as listed; dimensions: ascending); out needs room for nranks. Returns the
 * count, 0 when rank is not in the scope. */
CHAKRA_EXPERIMENTAL_API uint32_t
	chakra_replay_scope_members(const chakra_replay_topo *t, chakra_replay_scope s,
				    uint32_t rank, uint32_t *out);
/* Ranks with the same colour are in the same instance; -1: not a member. */
CHAKRA_EXPERIMENTAL_API int64_t chakra_replay_scope_color(const chakra_replay_topo *t,
                                                       chakra_replay_scope s, uint32_t rank);
/* "all ranks", "group '2'", "dimensions 0,2". */
CHAKRA_EXPERIMENTAL_API void chakra_replay_scope_describe(const chakra_replay_topo *t,
                                                          chakra_replay_scope s, char *buf,
                                                          size_t len);

/* ---- The plan of one rank ---- */
typedef enum chakra_replay_kind {
	CHAKRA_REPLAY_COLL = 0,
	CHAKRA_REPLAY_SEND = 1,
	CHAKRA_REPLAY_RECV = 2
} chakra_replay_kind;

/* One communication node. */
typedef struct chakra_replay_op {
	uint64_t id;
	uint64_t size;       /* comm_size in bytes (0 for a barrier) */
	int64_t tag;         /* send/recv: comm_tag (0 when absent, as the simulator) */
	uint32_t peer;       /* send/recv: comm_dst / comm_src */
	int32_t comm_type;   /* collectives: chakra_comm_type; -1 for send/recv */
	uint32_t nmembers;   /* collectives: ranks in its communicator; 2 for send/recv */
	uint32_t channel;    /* index of its channel */
	uint32_t seq;        /* position in that channel */
	uint8_t kind;        /* chakra_replay_kind */
} chakra_replay_op;

/* Operations every rank must post in the same order: the collectives of
 * one scope, or the messages of one direction, peer and tag. */
typedef struct chakra_replay_channel {
	uint8_t kind;              /* chakra_replay_kind */
	chakra_replay_scope scope; /* collectives */
	uint32_t peer;             /* send/recv */
	int64_t tag;
	uint32_t nops;
	uint32_t *ops;             /* indices into the plan's ops, in issue order */
} chakra_replay_channel;

typedef struct chakra_replay_plan chakra_replay_plan;

typedef struct chakra_replay_plan_options {
	unsigned version;               /* CHAKRA_REPLAY_PLAN_OPTIONS_VERSION */
	uint32_t rank;
	const chakra_replay_topo *topo; /* required */
	chakra_deps deps;               /* 0 = data, as the feeder */
} chakra_replay_plan_options;

#define CHAKRA_REPLAY_PLAN_OPTIONS_VERSION 1
#define CHAKRA_REPLAY_PLAN_OPTIONS_INIT \
	{ CHAKRA_REPLAY_PLAN_OPTIONS_VERSION, 0, NULL, CHAKRA_DEPS_DATA }
/* The defaults of that version's fields: 0, or CHAKRA_EINVAL (NULL, a
 * version this library does not know). */
CHAKRA_EXPERIMENTAL_API int chakra_replay_plan_options_init(chakra_replay_plan_options *opts,
                                                            unsigned version);

/* Feeds the whole trace once (each node completed as soon as it is issued:
 * the feeder's order, lowest ready id first) and records its communication.
 * Errors name the file and the node: unsupported collectives (gather,
 * scatter), missing comm_type / comm_size, peers outside 0..nranks-1, tags
 * MPI cannot carry, counts too large for one MPI call, feeder errors. */
CHAKRA_EXPERIMENTAL_API int chakra_replay_plan_build(chakra_replay_plan **out, const char *path,
                                                     const chakra_replay_plan_options *opts,
                                                     char *err, size_t errlen);
CHAKRA_EXPERIMENTAL_API void chakra_replay_plan_free(chakra_replay_plan *p);
CHAKRA_EXPERIMENTAL_API size_t chakra_replay_plan_op_count(const chakra_replay_plan *p);
CHAKRA_EXPERIMENTAL_API const chakra_replay_op *chakra_replay_plan_ops(const chakra_replay_plan *p);
/* Collective channels in scope-slot order, then send/recv channels by
 * (kind, peer, tag). */
CHAKRA_EXPERIMENTAL_API size_t chakra_replay_plan_channel_count(const chakra_replay_plan *p);
CHAKRA_EXPERIMENTAL_API const chakra_replay_channel *
	chakra_replay_plan_channels(const chakra_replay_plan *p);
/* The collective channel of a scope, or -1. */
CHAKRA_EXPERIMENTAL_API int64_t
	chakra_replay_plan_coll_channel(const chakra_replay_plan *p, chakra_replay_scope s);
/* The op of a node id, or NULL (not a communication node). */
CHAKRA_EXPERIMENTAL_API const chakra_replay_op *
	chakra_replay_plan_find(const chakra_replay_plan *p, uint64_t id);
CHAKRA_EXPERIMENTAL_API uint64_t chakra_replay_plan_node_count(const chakra_replay_plan *p);
CHAKRA_EXPERIMENTAL_API uint64_t chakra_replay_plan_compute_count(const chakra_replay_plan *p);
/* Sum of the compute nodes' durations in ns (duration_nanos, else
 * duration_micros * 1000: the simulator's rule without roofline). */
CHAKRA_EXPERIMENTAL_API uint64_t chakra_replay_plan_compute_ns(const chakra_replay_plan *p);
/* The longest compute node's duration in ns (2^64-1 when its duration
 * saturated), its id in *id (id may be NULL); 0 without compute nodes. */
CHAKRA_EXPERIMENTAL_API uint64_t
	chakra_replay_plan_longest_compute(const chakra_replay_plan *p, uint64_t *id);
/* A node's compute duration by the same rule. */
CHAKRA_EXPERIMENTAL_API uint64_t chakra_replay_compute_ns(const chakra_node *n);

/* ---- Digests and the first difference ---- */
typedef struct chakra_replay_digest {
	uint64_t count;
	uint64_t hash;
} chakra_replay_digest;

/* What a channel's peers must agree on, in order: collectives (type, size);
 * messages (size). */
CHAKRA_EXPERIMENTAL_API chakra_replay_digest
	chakra_replay_channel_digest(const chakra_replay_plan *p, size_t channel);
/* All messages of one direction and peer, tag by tag. */
CHAKRA_EXPERIMENTAL_API chakra_replay_digest
	chakra_replay_p2p_digest(const chakra_replay_plan *p, chakra_replay_kind kind,
				 uint32_t peer);

/* "ALL_REDUCE", "SEND", "RECV", ...: an op's kind and collective type. */
CHAKRA_EXPERIMENTAL_API const char *chakra_replay_op_name(int kind, int comm_type);

/* A communication node reduced to what ranks compare (exchanged as is). */
typedef struct chakra_replay_entry {
	uint64_t id;
	uint64_t size;
	int64_t tag;
	int64_t comm_type;
} chakra_replay_entry;

/* The channel's entries (collectives) or one peer's messages in tag order,
 * then issue order (send/recv). Returns the count; *out is freed with
 * chakra_free (NULL when the count is 0), or CHAKRA_ENOMEM. */
CHAKRA_EXPERIMENTAL_API int64_t chakra_replay_channel_entries(const chakra_replay_plan *p,
                                                           size_t channel,
                                                           chakra_replay_entry **out);
CHAKRA_EXPERIMENTAL_API int64_t chakra_replay_p2p_entries(const chakra_replay_plan *p,
                                                       chakra_replay_kind kind, uint32_t peer,
                                                       chakra_replay_entry **out);
/* The first place where the members' sequences of one scope differ
 * (members[i] issued seqs[i][0..lens[i]-1]): 1 and a message naming the
 * position, the ranks, node ids and what differs; 0 when they agree. */
CHAKRA_EXPERIMENTAL_API int chakra_replay_coll_diff(const char *scope, const uint32_t *members,
                                                    uint32_t n,
                                                    const chakra_replay_entry *const *seqs,
                                                    const size_t *lens, char *msg, size_t len);
/* Rank src's sends to dst against dst's receives from src (both in tag,
 * then issue order): 1 and a message naming the first unmatched message. */
CHAKRA_EXPERIMENTAL_API int chakra_replay_p2p_diff(uint32_t src, uint32_t dst,
                                                   const chakra_replay_entry *sends, size_t ns,
                                                   const chakra_replay_entry *recvs, size_t nr,
                                                   char *msg, size_t len);

/* ---- What one MPI call moves, and bandwidth (nccl-tests) ---- */
typedef struct chakra_replay_layout {
	unsigned esz;        /* element size: 4 (float) when size allows, else 1 */
	uint64_t elems;      /* comm_size / esz */
	uint64_t send_elems; /* this member's send buffer */
	uint64_t recv_elems; /* this member's receive buffer */
} chakra_replay_layout;

/* Collective of comm_size `size` on n ranks, seen by member `me` (root is
 * member 0 for broadcast and reduce). The Chakra / ASTRA-sim meaning of
 * comm_size: the buffer reduced (all-reduce, reduce), sent (broadcast) or
 * split (reduce-scatter, all-to-all: size/n to each member), or each
 * rank's input (all-gather). CHAKRA_EINVAL for other types. */
CHAKRA_EXPERIMENTAL_API int chakra_replay_layout_of(int comm_type, uint64_t size, uint32_t n,
                                                    uint32_t me, chakra_replay_layout *out);
/* Element count of part i of total split n ways (the first total % n
 * parts get one more). */
CHAKRA_EXPERIMENTAL_API uint64_t chakra_replay_share(uint64_t total, uint32_t n, uint32_t i);
/* nccl-tests: algbw = S / t with S the bytes below, busbw = algbw * factor.
 * comm_type -1 is send/recv. */
CHAKRA_EXPERIMENTAL_API double chakra_replay_nccl_bytes(int comm_type, uint64_t size, uint32_t n);
CHAKRA_EXPERIMENTAL_API double chakra_replay_busbw_factor(int comm_type, uint32_t n);

/* ---- The simulator's prediction (lib/sim, in process) ---- */
typedef struct chakra_replay_sim {
	uint32_t npus;
	uint64_t finish;          /* cycles = ns */
	uint64_t *npu_finish;     /* [npus] */
	uint64_t *npu_compute;
	uint64_t *npu_exposed;    /* finish - compute, as chakra sim reports it */
	/* Per NPU, the communication nodes the simulator ran: id and duration
	 * (start to end), sorted by id. */
	size_t *nev;
	uint64_t **ev_id;
	uint64_t **ev_ns;
} chakra_replay_sim;

/* Simulates PREFIX on the network and system (with the groups, NULL for
 * none, and the dependencies the replay uses). Errors name the file or
 * the node, as chakra sim does. */
CHAKRA_EXPERIMENTAL_API int chakra_replay_sim_run(const char *prefix, const chakra_sim_network *net,
                                                  const chakra_sim_system *sys,
                                                  const chakra_sim_groups *groups, chakra_deps deps,
                                                  chakra_replay_sim *out, char *err, size_t errlen);
/* The simulated duration of a communication node of one NPU, or -1. */
CHAKRA_EXPERIMENTAL_API int64_t chakra_replay_sim_node_ns(const chakra_replay_sim *s, uint32_t npu,
                                                          uint64_t id);
CHAKRA_EXPERIMENTAL_API void chakra_replay_sim_free(chakra_replay_sim *s);

/* ---- The report ---- */
/* Times of one kind of operation: collectives by (type, size, ranks),
 * messages by (direction, size). */
typedef struct chakra_replay_stat {
	int32_t kind;       /* chakra_replay_kind */
	int32_t comm_type;  /* -1 for send/recv */
	uint32_t nmembers;
	uint32_t pad;
	uint64_t size;
	uint64_t count;     /* measured operations over every rank and iteration */
	double sum, min, max; /* seconds */
	uint64_t sim_count;
	double sim_sum;     /* simulated seconds over sim_count operations */
} chakra_replay_stat;

typedef struct chakra_replay_stats {
	chakra_replay_stat *s;
	size_t n, cap;
} chakra_replay_stats;

/* The row of this operation, added when new; NULL when out of memory. */
CHAKRA_EXPERIMENTAL_API chakra_replay_stat *
	chakra_replay_stats_row(chakra_replay_stats *st, const chakra_replay_op *op);
/* Adds the rows of another table (count, sums, min, max). */
CHAKRA_EXPERIMENTAL_API int chakra_replay_stats_merge(chakra_replay_stats *st,
                                                      const chakra_replay_stat *rows, size_t n);
CHAKRA_EXPERIMENTAL_API void chakra_replay_stats_sort(chakra_replay_stats *st);
CHAKRA_EXPERIMENTAL_API void chakra_replay_stats_free(chakra_replay_stats *st);

/* One rank's times, per measured iteration (averages, seconds). */
typedef struct chakra_replay_rank_times {
	double total;    /* first node issued to last completed */
	double compute;  /* the compute slot busy */
	double comm;     /* at least one communication in flight */
	double exposed;  /* communication in flight while no compute runs */
	uint64_t nodes;  /* nodes per iteration */
	double sim_finish; /* simulated finish in seconds, < 0 when not simulated */
	double sim_exposed;
} chakra_replay_rank_times;

typedef struct chakra_replay_report {
	const char *prefix;
	uint32_t nranks;
	unsigned iters, warmup;
	const char *compute;   /* "sleep", "spin", "skip" */
	const char *groups;    /* group file used, or NULL */
	const char *deps;      /* "data", "ctrl", "both" */
	int simulated;         /* sim_* fields are filled */
	const chakra_replay_stats *stats;
	const chakra_replay_rank_times *ranks; /* [nranks] */
} chakra_replay_report;

/* The report as text or as one JSON object, through write (writer.h's
 * chakra_write_cb: all len bytes, 0 or negative). 0, CHAKRA_EINVAL (NULL
 * write or r), CHAKRA_EIO (write failed) or CHAKRA_ENOMEM. */
CHAKRA_EXPERIMENTAL_API int chakra_replay_report_text(chakra_write_cb write, void *data,
                                                      const chakra_replay_report *r);
CHAKRA_EXPERIMENTAL_API int chakra_replay_report_json(chakra_write_cb write, void *data,
                                                      const chakra_replay_report *r);

#ifdef __cplusplus
}
#endif
#endif
