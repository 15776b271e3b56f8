/* SPDX-License-Identifier: Apache-2.0 */
/* Internal to the converter module (lib/convert): shared types and helpers.
 * Every non-static name is chakra__cv_*. */
#ifndef CHAKRA_CV_H
#define CHAKRA_CV_H

#include "../modmem.h"
#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>
#include <string.h>

#define CHAKRA_EXPERIMENTAL
#include "chakra/experimental/convert.h"
#include "chakra/writer.h"
#include <yajl/yajl_parse.h>

#include "graph_impl.h"
#include "jdrive.h"

#if defined(__GNUC__)
#  define CV_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#  define CV_PRINTF(a, b)
#endif

/* The output's format, in the metadata's `converter` ("libchakra convert
 * N"); docs/convert.md lists what each adds. 2: sync_deps on blocking
 * calls, cross-thread dependencies, window_tid, annotation_tids. 3:
 * backlog_until_nanos on device ops held back by work from before the
 * window. */
#define CHAKRA_CONVERT_FORMAT "3"
#define CV_NONE UINT32_MAX
#define CV_UNSET INT64_MIN

/* ---- errors ---- */
typedef struct cv_err {
	int code;            /* 0 or a negative chakra_error */
	const char *file;    /* input being read */
	int64_t index;       /* node / event index, -1 */
	int64_t offset;      /* byte offset, -1 */
	char msg[1024];      /* the complete message */
} cv_err;
/* Record "FILE: [node|event N ][(byte B)]: what"; returns code. what names the
 * unit ("node", "event"); index/offset < 0 leave that part out. */
int chakra__cv_fail(cv_err *e, int code, const char *file, const char *unit, int64_t index,
                    int64_t offset, const char *fmt, ...) CV_PRINTF(7, 8);

/* ---- growable arrays: CV_PUSH(ptr, n, cap) returns a slot or NULL ---- */
/* p and cap stay as they were when growing fails (NULL is returned): the
 * array's owner still frees what it holds. */
#define CV_RESERVE(p, cap, need) CHAKRA__MRESERVE(p, cap, need)
/* A new slot at the end (uninitialised), or NULL when out of memory. */
static inline void *cv_push_(void *base, size_t *n, size_t elem)
{
	return base ? (char *)base + elem * (*n)++ : NULL;
}
#define CV_PUSH(p, n, cap) \
	((__typeof__(p))cv_push_(CV_RESERVE(p, cap, (n) + 1), &(n), sizeof *(p)))

/* ---- text buffer ---- */
typedef struct cv_buf {
	char *p;
	size_t len, cap;
} cv_buf;
int chakra__cv_buf_grow(cv_buf *b, const void *s, size_t n); /* slow path of _add */
static inline int chakra__cv_buf_add(cv_buf *b, const void *s, size_t n)
{
	if (b->len + n + 1 > b->cap)
		return chakra__cv_buf_grow(b, s, n);
	if (n)
		memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = 0;
	return 0;
}
static inline int chakra__cv_buf_addc(cv_buf *b, char c)
{
	if (b->len + 2 > b->cap)
		return chakra__cv_buf_grow(b, &c, 1);
	b->p[b->len++] = c;
	b->p[b->len] = 0;
	return 0;
}
/* JSON string literal (quotes and escapes). */
int chakra__cv_buf_add_jstr(cv_buf *b, const char *s, size_t n);
void chakra__cv_buf_free(cv_buf *b);

/* ---- string table: interned strings, index 0 = "" ---- */
typedef struct cv_strtab {
	char *text;
	size_t len, cap;
	struct cv_sref { uint32_t off, len; } *ent; /* NUL-terminated in text */
	size_t n, ncap;
	chakra__ixmap index; /* keyed per table: names a file chooses never collide */
} cv_strtab;
int chakra__cv_strtab_init(cv_strtab *t);
/* Index of s (added if new), CV_NONE on ENOMEM. */
uint32_t chakra__cv_intern(cv_strtab *t, const char *s, size_t n);
static inline const char *cv_str(const cv_strtab *t, uint32_t i)
{
	return t->text + t->ent[i].off;
}
static inline size_t cv_strlen(const cv_strtab *t, uint32_t i)
{
	return t->ent[i].len;
}
void chakra__cv_strtab_free(cv_strtab *t);

/* ---- u64 -> u32 map: the graph module's keyed id map (chakra_idmap),
 * created on the first put so that `cv_map m = { 0 }` is an empty map ---- */
typedef struct cv_map {
	struct chakra_idmap *m;
} cv_map;
uint32_t chakra__cv_map_get(const cv_map *m, uint64_t key); /* CV_NONE if absent */
int chakra__cv_map_put(cv_map *m, uint64_t key, uint32_t val); /* replaces */
size_t chakra__cv_map_count(const cv_map *m);
void chakra__cv_map_free(cv_map *m);

/* ---- (a, b) -> u32 map: (pid, tid), (device, stream), (tensor id,
 * storage id). Both values are stored and compared, and the hash is keyed
 * per map, so no file can make pairs share a key or a slot (a hash of the
 * pair as the key let chosen pairs collide into one scan). A zeroed
 * struct is an empty map. ---- */
typedef struct cv_pmap {
	chakra__ixmap ix;
	struct cv_pair { int64_t a, b; uint32_t val; } *e;
	size_t n, cap;
	int ready;
} cv_pmap;
uint32_t chakra__cv_pmap_get(const cv_pmap *m, int64_t a, int64_t b); /* CV_NONE if absent */
int chakra__cv_pmap_put(cv_pmap *m, int64_t a, int64_t b, uint32_t val); /* replaces */
void chakra__cv_pmap_free(cv_pmap *m);

/* ---- numbers ---- */
/* JSON number text to int64: exact for integers; a number with a fraction
 * or exponent is accepted when it is integral. 0 or -1. */
int chakra__cv_parse_i64(const char *s, size_t n, int64_t *out);
/* The common case inline: up to 18 digits, optional minus. */
static inline int cv_parse_i64(const char *s, size_t n, int64_t *out)
{
	size_t i = n && s[0] == '-';
	if (n - i == 0 || n - i > 18)
		return chakra__cv_parse_i64(s, n, out);
	int64_t v = 0;
	for (size_t k = i; k < n; k++) {
		unsigned d = (unsigned)(s[k] - '0');
		if (d > 9)
			return chakra__cv_parse_i64(s, n, out);
		v = v * 10 + d;
	}
	*out = i ? -v : v;
	return 0;
}
/* The largest time (or duration) a Kineto trace may give, in ns: 2^61 ns,
 * about 73 years. Kept well inside int64 so that a start plus a duration,
 * or the difference of two times, never overflows. */
#define CV_TIME_MAX_NS (INT64_C(1) << 61)
/* Microseconds (integer or decimal, e.g. "4458676522690.655") to
 * nanoseconds, exactly for up to 3 decimals, rounded beyond; magnitudes
 * above CV_TIME_MAX_NS are refused. 0 or -1. */
int chakra__cv_parse_us_ns(const char *s, size_t n, int64_t *out);
/* Normalise a collective name ("all_reduce", "AllReduce", "allreduce"):
 * returns a CV_COLL_* value, or CV_COLL_UNKNOWN. */
enum {
	CV_COLL_UNKNOWN = -1,
	CV_COLL_ALL_REDUCE = 0, CV_COLL_REDUCE = 1, CV_COLL_ALL_GATHER = 2, CV_COLL_GATHER = 3,
	CV_COLL_SCATTER = 4, CV_COLL_BROADCAST = 5, CV_COLL_ALL_TO_ALL = 6,
	CV_COLL_REDUCE_SCATTER = 7, CV_COLL_BARRIER = 9,
	CV_COLL_SEND = 100, CV_COLL_RECV = 101, CV_COLL_WAIT = 102
};
int chakra__cv_coll_from_name(const char *s, size_t n);
/* From an NCCL kernel name (ncclKernel_AllReduce_..., ncclDevKernel_...). */
int chakra__cv_coll_from_kernel(const char *s, size_t n);
const char *chakra__cv_coll_name(int coll);
/* Bytes of one element of a PyTorch dtype spelling ("Float", "float",
 * "Tensor(float)", "c10::BFloat16", "Long"...); 0 if unknown. */
int chakra__cv_dtype_size(const char *s, size_t n);

/* ---- JSON input: lib/json's driver (jdrive.h) over a gzip/plain file or
 * a buffer ---- */
/* Runs the parser to the end. ctx receives the callbacks; the callbacks
 * return 0 to stop after setting an error through chakra__cv_jfail. The
 * formats keep the nesting depth (limit CV_JSON_MAX_DEPTH) in ctx.depth;
 * the driver keeps the byte offset. The source's name is the file name
 * for messages. */
#define CV_JSON_MAX_DEPTH CHAKRA__JSON_MAX_DEPTH
typedef struct cv_json_src {
	const char *path, *name;
	const void *buf;
	size_t len;
} cv_json_src;
/* A format's handlers (jdrive.h): 1 to go on, 0 to stop (after
 * chakra__cv_jfail). */
typedef chakra__json_fmt cv_jfmt;
/* The parser's ctx starts with a cv_jctx; its err is the cv_err the
 * messages go to, its unit "node" / "event". */
typedef chakra__json_ctx cv_jctx;
/* Set an error at the current unit; returns 0 (YAJL: stop parsing). */
int chakra__cv_jfail(cv_jctx *c, int code, const char *fmt, ...) CV_PRINTF(3, 4);
int chakra__cv_json_run(const cv_json_src *src, const cv_jfmt *fmt, cv_jctx *ctx);
/* Copy the JSON text of the container just opened (call from its start
 * callback) into dst, as written, until _raw_end (call from its end
 * callback); chunk boundaries are handled. 0 or -1 (out of memory). */
int chakra__cv_json_raw_begin(cv_jctx *c, cv_buf *dst);
int chakra__cv_json_raw_end(cv_jctx *c);

/* ======================================================================
 * PyTorch execution trace, parsed
 * ====================================================================== */
enum {
	CV_ET_OPERATOR = 1,      /* op_schema set, record_param_comms, triton */
	CV_ET_RPC = 2,           /* record_param_comms */
	CV_ET_PGINIT = 4,        /* ## process_group:init ## */
	CV_ET_ROOT = 8,          /* process / thread root */
	CV_ET_THREAD_ROOT = 16,
	CV_ET_COMM_NAME = 32,    /* c10d::* / nccl:* (comm-like name) */
	CV_ET_GPU = 64           /* a linked ET's device op (it has a `cat`) */
};

typedef struct cv_tensor {
	uint64_t tid, sid, bytes;
} cv_tensor;

typedef struct cv_comm {
	int coll;                /* CV_COLL_* */
	uint32_t coll_name;      /* as written */
	int64_t seq;
	uint32_t pg_name, pg_desc; /* interned, 0 = none */
	int64_t pg_id;           /* layout A/B opaque group id, CV_UNSET */
	int64_t rank, world;     /* group-local rank / peer, group size */
	int64_t rank_start, rank_stride;
	uint64_t in_bytes, out_bytes;
	int have_in_bytes, have_out_bytes;
} cv_comm;

typedef struct cv_etnode {
	uint64_t id, parent;
	uint32_t name, schema;   /* interned */
	uint32_t flags;
	int32_t scope;
	int64_t rf_id, seq_id, fw_parent, fw_tid, tid;
	uint32_t tin, tin_n, tout, tout_n; /* ranges into cv_et.tensors */
	uint32_t comm;           /* index into cv_et.comms or CV_NONE */
	uint32_t index;          /* position in the nodes array */
	uint32_t next_sib;       /* next node with the same parent id (CV_NONE) */
	uint64_t num_ops;        /* derived from shapes (0: not derivable) */
	int num_ops_known;
	char *io;                /* inputs/outputs JSON (6 strings, NUL-separated) or NULL */
	uint32_t io_len;
	uint32_t link;           /* into cv_et.link (times of a linked ET), CV_NONE */
} cv_etnode;

/* What a linked ET says about a node: chakra_trace_link's output (the host
 * ET with the device ops added as nodes, Kineto times on the ops), and
 * what libchakra's `chakra link` adds to it so that converting it gives
 * what converting the ET with its Kineto trace gives (docs/convert.md,
 * "Linked files"). Times are in ns as written (absolute). */
enum { CV_LD_SYNC = 0, CV_LD_WAIT, CV_LD_STREAM, CV_LD_FLOW, CV_LD_N };
typedef struct cv_etlink {
	int64_t ts, dur;         /* ts, inclusive_dur; CV_UNSET */
	uint8_t kind;            /* device op: CV_K_KERNEL / _MEMCPY / _MEMSET (from cat) */
	int64_t stream, device, corr, bytes, ext_id, backlog;
	int32_t ntype;           /* chakra_type: the node's type, -1 */
	int64_t comm_type, comm_size, comm_peer, comm_tag;
	uint32_t pg_name, sync_kind; /* interned, 0 = none */
	/* id lists: sync_dep (device ops this op starts after), sync_wait (the
	 * device ops its return waits for), stream_wait_dep (device ops this
	 * one waits for through an event), fwdbwd_dep (ops of another thread
	 * this one follows); ranges into cv_et.lint */
	uint32_t dep[CV_LD_N], ndep[CV_LD_N];
} cv_etlink;

typedef struct cv_pg {
	uint32_t name, desc, backend; /* interned */
	int64_t backend_id;
	int64_t size;
	int64_t *ranks;
	size_t n_ranks;
	/* members given as a range: rank_start + k * rank_stride, k < size
	 * (rank_stride 0: none), kept as a range (never materialised) */
	int64_t rank_start, rank_stride;
} cv_pg;

/* Ranks are below this (as ASTRA-sim's group files and the synth module
 * take them): a member past it is corrupt input, not a rank. */
#define CV_RANK_LIMIT (INT64_C(1) << 24)

typedef struct cv_et {
	cv_strtab strs;
	cv_etnode *nodes;
	size_t n, cap;
	cv_tensor *tensors;
	size_t nt, tcap;
	cv_comm *comms;
	size_t nc, ccap;
	cv_pg *pgs;
	size_t npg, pgcap;
	cv_map kids;             /* parent id -> last node with that parent (next_sib chain) */
	uint32_t schema, time;   /* interned */
	int64_t pid, start_ts, finish_ts;
	int keep_io;
	/* a linked ET (cv_etlink) */
	cv_etlink *link;
	size_t nlink, linkcap;
	int64_t *lint;
	size_t nlint, lintcap;
	size_t n_gpu;            /* device-op nodes */
	uint32_t device_trace;   /* the `device_trace` object's JSON text, 0 */
	uint64_t max_id;         /* largest node, tensor or storage id */
} cv_et;

int chakra__cv_et_parse(cv_et *et, const cv_json_src *src, cv_err *err);
void chakra__cv_et_free(cv_et *et);
/* Process-group table from a process_group:init JSON string. */
int chakra__cv_pg_parse(cv_strtab *strs, const char *s, size_t n, cv_pg **pgs, size_t *npg,
                        size_t *pgcap);

/* ======================================================================
 * Kineto trace, parsed
 * ====================================================================== */
enum {
	CV_K_OTHER = 0, CV_K_CPU_OP, CV_K_ANNOT, CV_K_RUNTIME, CV_K_KERNEL, CV_K_MEMCPY,
	CV_K_MEMSET, CV_K_SYNC, CV_K_GPU_ANNOT
};
/* A Kineto category's kind (cv_util.c's table; current_only: not the
 * capitalised names of older profilers), CV_K_OTHER if none; and the
 * category a kind is written as (NULL: kinds never written as one). */
int chakra__cv_kind_of_cat(const char *s, size_t n, int current_only);
const char *chakra__cv_cat_of_kind(int kind);

typedef struct cv_kcomm {
	int coll;
	uint32_t coll_name, dtype, pg_name, pg_desc, pg_ranks; /* interned */
	int64_t in_nelems, out_nelems, group_size, rank_start, rank_stride;
} cv_kcomm;

typedef struct cv_kev {
	int64_t ts, dur;         /* ns; ts relative to the file's base */
	int64_t pid, tid;
	int64_t ext_id, rf_id, corr, stream, seq, bytes;
	int64_t wait_stream, wait_corr; /* cuda_sync: wait_on_stream, record corr id */
	uint32_t name;
	uint32_t index;          /* event index in traceEvents */
	uint32_t comm;           /* into cv_kin.comms or CV_NONE */
	uint8_t kind;
} cv_kev;

/* One end of a Kineto fwdbwd flow: 's' on a forward op, 'f' on its
 * backward (on the autograd thread), at the op's start. */
typedef struct cv_kflow {
	int64_t id, pid, tid, ts;
	uint32_t index;          /* event index in traceEvents */
	uint8_t start;           /* 's' */
} cv_kflow;

typedef struct cv_kin {
	cv_strtab strs;
	cv_kev *ev;
	size_t n, cap;
	cv_kflow *flows;         /* fwdbwd flow ends */
	size_t nflows, fcap;
	cv_kcomm *comms;
	size_t nc, ccap;
	int64_t base_ns;         /* baseTimeNanoseconds, or 0 */
	int64_t rank, world;     /* distributedInfo, -1 */
	uint32_t pg_config;      /* distributedInfo.pg_config as JSON text, 0 */
	uint64_t events;         /* traceEvents entries read */
	uint64_t flows_s, flows_f, flows_dangling;
	int have_sync_rows;
	int rf_ids_usable;       /* Record function ids present and not all equal */
	/* complete events of categories the converter does not use: the first
	 * few category names (interned), for the message when nothing is left */
	uint32_t other_cats[6];
	size_t n_other_cats;
	uint64_t other_events;
} cv_kin;

int chakra__cv_kin_parse(cv_kin *k, const cv_json_src *src, cv_err *err);
void chakra__cv_kin_free(cv_kin *k);

/* ======================================================================
 * Output graph
 * ====================================================================== */
enum { CV_NK_HOST = 0, CV_NK_PIECE, CV_NK_CALL, CV_NK_GPU, CV_NK_META };

typedef struct cv_node {
	uint32_t name;           /* interned in the graph's strtab */
	uint8_t type;            /* chakra_node_type */
	uint8_t kind;            /* CV_NK_* */
	uint8_t is_cpu;
	uint8_t has_time;
	uint8_t kineto_cat;      /* CV_K_* of the Kineto event, 0 for ET host ops */
	int64_t start_ns, dur_ns; /* start relative to the Kineto file's base */
	int64_t tid, stream, device;
	int64_t corr, rf_id, ext_id; /* CV_UNSET if none */
	/* comm */
	int coll;
	int64_t comm_size, peer, tag;
	uint32_t pg_name;
	/* host op extras */
	uint32_t et;             /* ET node index or CV_NONE */
	uint32_t meta;           /* METADATA: pg index or CV_NONE */
	uint32_t call;           /* runtime call name for CALL/PIECE nodes */
	uint32_t sync;           /* sync kind string, 0 = none */
	uint64_t num_ops, tensor_size;
	/* device op in a window held back until then (ns, relative) by work
	 * launched before the window (its stream's, or another stream's it
	 * waited for), else CV_UNSET */
	int64_t backlog;
	/* dependencies: ranges into the edge list after finalise */
	uint32_t id;             /* output id, assigned by topological order */
} cv_node;

/* A node's end (start + duration), saturating on hostile times. */
static inline int64_t cv_node_end(const cv_node *n)
{
	int64_t e;
	return __builtin_add_overflow(n->start_ns, n->dur_ns, &e) ? INT64_MAX : e;
}

typedef struct cv_edge {
	uint32_t from, to;
	uint8_t ctrl;
} cv_edge;

/* A blocking call (or the host op holding it) returns after device op
 * `dev` has finished: the node's `sync_deps` attribute. Not a dependency:
 * `dev` may have been launched by `call` itself. */
typedef struct cv_wait {
	uint32_t call, dev;
} cv_wait;

typedef struct cv_graph {
	cv_strtab strs;
	cv_map pg_index;         /* group name (strtab index) -> pgs[] */
	cv_node *nodes;
	size_t n, cap;
	cv_edge *edges;
	size_t ne, ecap;
	cv_wait *waits;
	size_t nw, wcap;
	cv_pg *pgs;              /* process groups (names in strs): METADATA nodes */
	size_t npg, pgcap;
	const cv_et *et;         /* host ops' source (inputs/outputs, attributes) */
} cv_graph;

/* Add or complete a process group (name in the graph's strtab): where
 * every group enters the converter (process_group:init, a collective's
 * record, a Kineto kernel's args, distributedInfo.pg_config), so it is
 * validated here once. ranks may be NULL; size < 0 unknown; rank_stride >
 * 0 gives the members as the range rank_start + k * rank_stride, k < size.
 * A member listed twice, a rank below 0 or from CV_RANK_LIMIT on, a range
 * that leaves it, are refused: CHAKRA_ECORRUPT with the message in err,
 * naming `where` (file, unit and index as chakra__cv_fail takes them).
 * 0 or a negative chakra_error. */
typedef struct cv_where {
	const char *file, *unit;
	int64_t index;
	const char *what;        /* e.g. "distributedInfo.pg_config", or NULL */
} cv_where;
int chakra__cv_graph_pg(cv_graph *g, uint32_t name, uint32_t desc, uint32_t backend,
                        int64_t size, const int64_t *ranks, size_t nranks, int64_t rank_start,
                        int64_t rank_stride, cv_err *err, const cv_where *where);
/* The group of that name, or NULL. */
const cv_pg *chakra__cv_graph_pg_find(const cv_graph *g, uint32_t name);

int chakra__cv_graph_init(cv_graph *g);
/* A new node, zeroed with CV_UNSET ids; returns its index or CV_NONE. */
uint32_t chakra__cv_graph_add(cv_graph *g, const char *name, size_t len, int type, int kind);
int chakra__cv_graph_edge(cv_graph *g, uint32_t from, uint32_t to, int ctrl);
int chakra__cv_graph_wait(cv_graph *g, uint32_t call, uint32_t dev);
void chakra__cv_graph_free(cv_graph *g);

/* Metadata written on the GlobalMetadata message. */
typedef struct cv_meta {
	const char *source;      /* "pytorch" / "kineto" */
	const cv_et *et;
	const cv_kin *kin;
	int64_t window_start, window_end; /* absolute ns, CV_UNSET */
	uint32_t window_name;    /* in the graph's strtab */
	int64_t window_tid;      /* thread of the annotation defining it, CV_UNSET */
	int64_t base_ns;         /* added to every start time */
	struct cv_annot { uint32_t name; int64_t start, dur, tid; } *annot; /* absolute ns */
	size_t n_annot;
	int64_t rank, world;     /* without a Kineto trace (a linked ET's), -1 */
} cv_meta;

/* Order the nodes (dependencies first, then start time), assign ids, and
 * write them. */
int chakra__cv_graph_write(cv_graph *g, const cv_meta *meta, const char *out_path,
                           const chakra_convert_options *o, chakra_convert_summary *s,
                           cv_err *err);

/* ======================================================================
 * Stages
 * ====================================================================== */
/* Host ops of an ET into the graph (one node per outermost op, process
 * groups as METADATA nodes, tensor data deps, per-thread program order).
 * host_of[i] receives the graph node of ET node i's outermost op (CV_NONE if
 * none). */
int chakra__cv_host_build(cv_et *et, cv_graph *g, uint32_t *host_of, chakra_convert_summary *s,
                          cv_err *err);

/* Device side of a Kineto trace: nodes and edges. Mode A (host == NULL):
 * Kineto alone, CPU ops cut at their runtime calls. Mode B: runtime calls
 * attach to ET host ops through link[] (Kineto event -> graph host node). */
typedef struct cv_dev_opts {
	int64_t w0, w1;          /* window in relative ns; w1 < w0: whole trace */
	const uint32_t *link;    /* mode B: per Kineto event, graph node or CV_NONE */
	const uint32_t *host_pred; /* mode B: graph node -> previous host node on its thread */
	const uint32_t *host_next; /* mode B: graph node -> next host node on its thread */
	size_t n_host;           /* mode B: graph nodes 0 .. n_host-1 are host ops */
	int none;                /* mode B with nothing linked: no device ops at all */
} cv_dev_opts;
int chakra__cv_dev_build(cv_kin *k, cv_graph *g, const cv_dev_opts *o, chakra_convert_summary *s,
                         cv_err *err);

/* ---- the device pass's state, shared by its steps (cv_device.c drives
 * them; cv_dev_*.c hold one step each) ---- */
/* What a runtime call is to the device pass (chakra__cv_rt_kind). */
enum { CV_RT_OTHER = 0, CV_RT_DEVSYNC, CV_RT_STREAMSYNC, CV_RT_EVENTSYNC, CV_RT_WAIT, CV_RT_RECORD,
       CV_RT_MEMCPY_SYNC };
/* CUDA (cuda*, cu*), HIP (hip*) and MTIA runtime call names: CV_RT_*. */
int chakra__cv_rt_kind(const char *name);

/* More GPU streams than any real trace has: every host wait looks at each
 * stream, so a hostile file could make that quadratic. */
#define CV_DEV_MAX_STREAMS 4096

typedef struct cv_dev_stream {
	int64_t device, stream;
	uint32_t *ops;     /* device events, by launch time */
	size_t n, cap;
	int64_t busy_until; /* end of its work launched before the window, CV_UNSET */
} cv_dev_stream;

typedef struct cv_dev_thread {
	int64_t pid, tid;
	uint32_t *ev;      /* CPU-side events (cpu_op, runtime), by time */
	size_t n, cap;
	uint32_t *launch;  /* device events launched from here, by launch time */
	size_t nl, lcap;
	uint32_t *gn;      /* mode A: its graph nodes, in time order */
	size_t ngn, gcap;
} cv_dev_thread;

typedef struct cv_dev {
	cv_kin *k;
	cv_graph *g;
	const cv_dev_opts *o;
	chakra_convert_summary *s;
	cv_err *err;
	const char *file;
	size_t n;
	uint32_t *thr;     /* event -> thread index (CPU side) */
	uint32_t *par;     /* innermost enclosing cpu_op */
	uint32_t *top;     /* outermost enclosing cpu_op (self for a top-level op) */
	int64_t *end;      /* end, clamped into the parent */
	uint32_t *launch;  /* device event -> runtime call (CV_NONE) */
	uint32_t *node;    /* event -> graph node */
	uint32_t *anchor;  /* runtime call -> the CPU node it belongs to */
	uint8_t *rtkind;   /* runtime call: CV_RT_* */
	uint32_t *lastrec; /* CPU-side event -> last cudaEventRecord before it, same thread */
	uint8_t *inwin;    /* device event included / runtime significant */
	int64_t *lkey;     /* device event: launch time (else own start) */
	cv_map rt_corr, sync_corr;
	cv_pmap thmap, stmap;
	cv_dev_stream *st;
	size_t nst, stcap;
	cv_dev_thread *th;
	size_t nth, thcap;
	uint32_t *next_cpu; /* mode A: graph node -> next CPU node of its thread */
	size_t next_cap;
} cv_dev;

/* The steps, in the order chakra__cv_dev_build runs them; each returns 0 or
 * a negative chakra_error with d->err set (3b cannot fail). */
int chakra__cv_dev_index_events(cv_dev *d); /* 1: threads, correlations, nesting */
int chakra__cv_dev_index_device(cv_dev *d); /* 2: device ops, window, streams */
int chakra__cv_dev_cpu_nodes(cv_dev *d);    /* 3a: mode A, CPU nodes */
void chakra__cv_dev_anchor_linked(cv_dev *d); /* 3b: mode B, calls to host ops */
int chakra__cv_dev_device_nodes(cv_dev *d); /* 4: device nodes */
int chakra__cv_dev_host_syncs(cv_dev *d);   /* 5: host waits */
int chakra__cv_dev_stream_waits(cv_dev *d); /* 5: stream waits on events */
int chakra__cv_dev_flow_edges(cv_dev *d);   /* 6: fwdbwd flows */
/* Sort event indices v[0..n) by (k1 asc, k2 desc (k2 may be NULL), index
 * asc); tmp holds n. */
void chakra__cv_dev_msort(uint32_t *v, size_t n, const int64_t *k1, const int64_t *k2,
                          uint32_t *tmp);

static inline int cv_dev_nomem(cv_dev *d)
{
	return chakra__cv_fail(d->err, CHAKRA_ENOMEM, d->file, NULL, -1, -1, "out of memory");
}

static inline const char *cv_dev_ename(const cv_dev *d, uint32_t i)
{
	return cv_str(&d->k->strs, d->k->ev[i].name);
}

static inline int cv_dev_is_device(int kind)
{
	return kind == CV_K_KERNEL || kind == CV_K_MEMCPY || kind == CV_K_MEMSET;
}

static inline int cv_dev_in_window(const cv_dev *d, int64_t t)
{
	if (d->o->none)
		return 0;
	if (d->o->w1 < d->o->w0)
		return 1;
	/* [w0, w1): an op starting where the window ends is the next one's */
	return t >= d->o->w0 && t < d->o->w1;
}

/* The graph node after `node` on its thread (CV_NONE). */
static inline uint32_t cv_dev_next_on_thread(const cv_dev *d, uint32_t node)
{
	if (node == CV_NONE)
		return CV_NONE;
	if (d->o->link)
		return node < d->o->n_host ? d->o->host_next[node] : CV_NONE;
	return node < d->next_cap ? d->next_cpu[node] : CV_NONE;
}

/* Cross-thread waits by the idle-gap rule (cv_threads.c): control
 * dependencies between timed CPU nodes of different threads. w0: the
 * window's start (relative ns), CV_UNSET: the first timed node's. 0 or -1
 * (out of memory). */
int chakra__cv_thread_waits(cv_graph *g, int64_t w0, chakra_convert_summary *s);

/* A linked ET's device side (cv_linked.c): host-op times from the ET, its
 * device ops as GPU nodes on their streams, launch and stream order, the
 * synchronisation, stream waits and flows `chakra link` writes, and the
 * Kineto trace's process groups (into the graph), annotations and rank
 * (into *lo). */
typedef struct cv_linked {
	int64_t w0, w1;          /* span of the timed ET nodes (ns); w1 < w0: none */
	int64_t rank, world;     /* -1 */
	struct cv_annot *annot;  /* names in the graph's strtab; absolute ns */
	size_t n_annot;
} cv_linked;
int chakra__cv_linked_build(cv_et *et, cv_graph *g, const uint32_t *host_of, cv_linked *lo,
                            chakra_convert_summary *s, cv_err *err);

/* The linked ET (cv_linkout.c): the ET's JSON again (src), each node with
 * its Kineto times and what `chakra link` adds, and the graph's device ops
 * as nodes below their host ops; then the device_trace object. g's edges:
 * [0, ne_host) from the ET, [ne_host, ne_dev) from the Kineto trace, then
 * cross-thread waits; its nodes [0, nh) are host ops. */
int chakra__cv_link_write(const cv_json_src *src, const cv_et *et, const cv_kin *kin,
                          const uint32_t *ket, const cv_graph *g, size_t nh, size_t ne_host,
                          size_t ne_dev, const cv_meta *meta, const char *out_path,
                          const chakra_convert_options *o, chakra_convert_summary *s,
                          cv_err *err);

/* Link ET nodes to Kineto CPU events: ket[i] = Kineto event of ET node i
 * or CV_NONE. Sets s->link_method and s->et_ops_linked. */
int chakra__cv_link(const cv_et *et, const cv_kin *k, uint32_t *ket, chakra_convert_summary *s,
                    cv_err *err);

/* One conversion (et_path NULL: Kineto alone), reporting the process groups
 * it wrote when groups is not NULL (multi-rank consistency). */
typedef struct cv_groups {
	struct cv_group {
		char *name;
		int64_t size;
		int64_t *ranks;
		size_t n;
		int64_t rank_start, rank_stride; /* a range (stride > 0) when n == 0 */
	} *g;
	size_t n, cap;
} cv_groups;
int chakra__cv_run(const char *et_path, const char *kineto_path, const char *out_path,
                   const chakra_convert_options *opts, chakra_convert_result *r,
                   cv_groups *groups);
void chakra__cv_groups_free(cv_groups *gr);
/* The caller's options (any version we know; NULL: defaults) as the
 * current struct; CHAKRA_EINVAL with msg set for an unknown version. */
int chakra__cv_opts(const chakra_convert_options *in, chakra_convert_options *out, char *msg,
                    size_t len);

#endif
