/* SPDX-License-Identifier: Apache-2.0 */
/* The plan of one rank: its communication nodes in the order the feeder
 * issues them when every node completes at once (lowest ready id first),
 * grouped into channels. This is the order a replay posts each channel's
 * operations in, whatever the timing, so the ranks' orders can be compared
 * before anything runs. */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay_impl.h"

struct chakra_replay_plan {
	chakra_replay_op *ops;
	size_t nops, capops;
	chakra_replay_channel *ch;
	size_t nch, capch;
	long *coll_ch;      /* [scope slots]: channel index or -1 */
	size_t nslots;
	chakra__replay_map by_id;
	uint64_t nodes, compute, compute_ns;
	uint64_t longest_ns, longest_id; /* the longest compute node */
};

uint64_t chakra_replay_compute_ns(const chakra_node *n)
{
	return chakra_node_duration_ns(n);
}

static int supported(int64_t t)
{
	switch (t) {
	case CHAKRA_ALL_REDUCE:
	case CHAKRA_REDUCE:
	case CHAKRA_ALL_GATHER:
	case CHAKRA_BROADCAST:
	case CHAKRA_ALL_TO_ALL:
	case CHAKRA_REDUCE_SCATTER:
	case CHAKRA_REDUCE_SCATTER_BLOCK:
	case CHAKRA_BARRIER:
		return 1;
	default:
		return 0;
	}
}

static long channel_new(chakra_replay_plan *p)
{
	if (p->nch == p->capch) {
		size_t cap = p->capch ? p->capch * 2 : 16;
		chakra_replay_channel *c = chakra_realloc(p->ch, cap * sizeof *c);
		if (!c)
			return CHAKRA_ENOMEM;
		p->ch = c;
		p->capch = cap;
	}
	memset(&p->ch[p->nch], 0, sizeof *p->ch);
	return (long)p->nch++;
}

/* Send/recv channels during the build: found by a hash of (kind, peer,
 * tag) with the fields compared, probing on. */
typedef struct p2p_index {
	chakra__replay_map m;
} p2p_index;

static uint64_t p2p_hash(int kind, uint32_t peer, int64_t tag, uint64_t probe)
{
	uint64_t h = (uint64_t)tag * 0x9e3779b97f4a7c15ULL ^ ((uint64_t)peer << 2 | (uint64_t)kind);
	return h + probe * 0xc2b2ae3d27d4eb4fULL;
}

static long p2p_channel(chakra_replay_plan *p, p2p_index *ix, int kind, uint32_t peer, int64_t tag)
{
	for (uint64_t probe = 0;; probe++) {
		uint64_t h = p2p_hash(kind, peer, tag, probe);
		long c = chakra__replay_map_get(&ix->m, h);
		if (c < 0) {
			c = channel_new(p);
			if (c < 0)
				return c;
			p->ch[c].kind = (uint8_t)kind;
			p->ch[c].peer = peer;
			p->ch[c].tag = tag;
			if (chakra__replay_map_put(&ix->m, h, (uint32_t)c) < 0)
				return CHAKRA_ENOMEM;
			return c;
		}
		const chakra_replay_channel *ch = &p->ch[c];
		if (ch->kind == kind && ch->peer == peer && ch->tag == tag)
			return c;
	}
}

static int add_op(chakra_replay_plan *p, const chakra_replay_op *op)
{
	if (p->nops == p->capops) {
		size_t cap = p->capops ? p->capops * 2 : 64;
		chakra_replay_op *o = chakra_realloc(p->ops, cap * sizeof *o);
		if (!o)
			return CHAKRA_ENOMEM;
		p->ops = o;
		p->capops = cap;
	}
	p->ops[p->nops++] = *op;
	p->ch[op->channel].nops++;
	return 0;
}

/* Every count of one MPI call must fit an int. */
static int check_counts(const chakra_replay_op *op, char *why, size_t len)
{
	if (op->kind != CHAKRA_REPLAY_COLL) {
		if (op->size > INT_MAX) {
			snprintf(why, len, "%" PRIu64 " bytes do not fit one MPI message (at most %d)",
			         op->size, INT_MAX);
			return -1;
		}
		return 0;
	}
	chakra_replay_layout l;
	uint64_t worst = 0;
	for (uint32_t me = 0; me < op->nmembers && me < 2; me++) {
		if (chakra_replay_layout_of(op->comm_type, op->size, op->nmembers, me, &l) < 0)
			return -1;
		if (l.send_elems > worst)
			worst = l.send_elems;
		if (l.recv_elems > worst)
			worst = l.recv_elems;
	}
	if (worst > INT_MAX) {
		snprintf(why, len, "%s of %" PRIu64 " bytes on %" PRIu32 " ranks needs %" PRIu64
		         " elements of %u bytes in one MPI call (at most %d)",
		         chakra_replay_op_name(op->kind, op->comm_type), op->size, op->nmembers, worst,
		         l.esz, INT_MAX);
		return -1;
	}
	return 0;
}

static int plan_node(chakra_replay_plan *p, const chakra_replay_plan_options *o, p2p_index *ix,
                     uint32_t *members, const chakra_node *n, char *why, size_t len)
{
	int type = chakra_node_type_of(n);
	p->nodes++;
	if (type == CHAKRA_COMP_NODE) {
		uint64_t ns = chakra_replay_compute_ns(n);
		p->compute++;
		p->compute_ns = ns > UINT64_MAX - p->compute_ns ? UINT64_MAX : p->compute_ns + ns;
		if (ns > p->longest_ns || p->compute == 1) {
			p->longest_ns = ns;
			p->longest_id = chakra_node_id(n);
		}
		return 0;
	}
	if (type != CHAKRA_COMM_COLL_NODE && type != CHAKRA_COMM_SEND_NODE &&
	    type != CHAKRA_COMM_RECV_NODE)
		return 0;
	chakra_replay_op op;
	memset(&op, 0, sizeof op);
	op.id = chakra_node_id(n);
	if (type == CHAKRA_COMM_COLL_NODE) {
		int64_t ct;
		op.kind = CHAKRA_REPLAY_COLL;
		if (chakra_node_comm_type(n, &ct) < 0) {
			snprintf(why, len, "collective without an integer comm_type");
			return -1;
		}
		if (!supported(ct)) {
			snprintf(why, len, "comm_type %" PRId64 " (%s) is not replayed (supported: "
			         "ALL_REDUCE, REDUCE, ALL_GATHER, BROADCAST, ALL_TO_ALL, REDUCE_SCATTER, "
			         "BARRIER)", ct, chakra_comm_type_name((int)ct) ? chakra_comm_type_name((int)ct)
			                                                     : "unknown");
			return -1;
		}
		op.comm_type = (int32_t)ct;
		if (ct != CHAKRA_BARRIER && chakra_node_comm_size(n, &op.size) < 0) {
			snprintf(why, len, "%s without an integer comm_size",
			         chakra_replay_op_name(op.kind, op.comm_type));
			return -1;
		}
		chakra_replay_scope s;
		if (chakra_replay_scope_of(o->topo, o->rank, n, &s, why, len) < 0)
			return -1;
		op.nmembers = chakra_replay_scope_members(o->topo, s, o->rank, members);
		size_t slot = chakra_replay_scope_slot(o->topo, s);
		if (p->coll_ch[slot] < 0) {
			long c = channel_new(p);
			if (c < 0)
				return (int)c;
			p->ch[c].kind = CHAKRA_REPLAY_COLL;
			p->ch[c].scope = s;
			p->coll_ch[slot] = c;
		}
		op.channel = (uint32_t)p->coll_ch[slot];
	} else {
		int is_send = type == CHAKRA_COMM_SEND_NODE;
		int64_t peer, tag = 0;
		op.kind = is_send ? CHAKRA_REPLAY_SEND : CHAKRA_REPLAY_RECV;
		op.comm_type = -1;
		op.nmembers = 2;
		int rc = is_send ? chakra_node_comm_dst(n, &peer) : chakra_node_comm_src(n, &peer);
		if (rc < 0 || peer < 0 || (uint64_t)peer >= o->topo->nranks) {
			snprintf(why, len, "%s without a valid %s (0..%" PRIu32 ")", is_send ? "send" : "recv",
			         is_send ? "comm_dst" : "comm_src", o->topo->nranks - 1);
			return -1;
		}
		rc = chakra_node_comm_tag(n, &tag);
		if ((rc < 0 && rc != CHAKRA_ENOTFOUND) || tag < 0 || tag > INT_MAX) {
			snprintf(why, len, "comm_tag must be an integer in 0..%d (MPI tags)", INT_MAX);
			return -1;
		}
		/* As the simulator: an absent size is an empty message. */
		rc = chakra_node_comm_size(n, &op.size);
		if (rc < 0 && rc != CHAKRA_ENOTFOUND) {
			snprintf(why, len, "comm_size: %s", chakra_strerror(rc));
			return -1;
		}
		op.peer = (uint32_t)peer;
		op.tag = tag;
		long c = p2p_channel(p, ix, op.kind, op.peer, tag);
		if (c < 0)
			return (int)c;
		op.channel = (uint32_t)c;
	}
	if (check_counts(&op, why, len) < 0)
		return -1;
	op.seq = p->ch[op.channel].nops;
	return add_op(p, &op);
}

static int cmp_channel(const void *a, const void *b, const chakra_replay_plan *p,
                       const chakra_replay_topo *t)
{
	const chakra_replay_channel *x = &p->ch[*(const uint32_t *)a];
	const chakra_replay_channel *y = &p->ch[*(const uint32_t *)b];
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->kind == CHAKRA_REPLAY_COLL) {
		size_t sx = chakra_replay_scope_slot(t, x->scope), sy = chakra_replay_scope_slot(t, y->scope);
		return sx < sy ? -1 : sx > sy;
	}
	if (x->peer != y->peer)
		return x->peer < y->peer ? -1 : 1;
	return x->tag < y->tag ? -1 : x->tag > y->tag;
}

/* Channels sorted (collectives by scope slot, then send/recv by kind, peer,
 * tag), with the ops' channel indices renumbered and each channel's op list
 * filled in issue order. */
static int finish(chakra_replay_plan *p, const chakra_replay_topo *t)
{
	uint32_t *order = chakra_malloc((p->nch ? p->nch : 1) * sizeof *order);
	uint32_t *rank_of = chakra_malloc((p->nch ? p->nch : 1) * sizeof *rank_of);
	chakra_replay_channel *sorted = chakra_malloc((p->nch ? p->nch : 1) * sizeof *sorted);
	if (!order || !rank_of || !sorted) {
		chakra_free(order);
		chakra_free(rank_of);
		chakra_free(sorted);
		return CHAKRA_ENOMEM;
	}
	for (size_t i = 0; i < p->nch; i++)
		order[i] = (uint32_t)i;
	/* Insertion sort: few channels, and no qsort context argument in C11. */
	for (size_t i = 1; i < p->nch; i++) {
		uint32_t v = order[i];
		size_t j = i;
		while (j > 0 && cmp_channel(&order[j - 1], &v, p, t) > 0) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = v;
	}
	for (size_t i = 0; i < p->nch; i++) {
		sorted[i] = p->ch[order[i]];
		rank_of[order[i]] = (uint32_t)i;
		sorted[i].ops = chakra_malloc((sorted[i].nops ? sorted[i].nops : 1) * sizeof *sorted[i].ops);
		if (!sorted[i].ops) {
			for (size_t j = 0; j < i; j++)
				chakra_free(sorted[j].ops);
			chakra_free(order);
			chakra_free(rank_of);
			chakra_free(sorted);
			return CHAKRA_ENOMEM;
		}
	}
	for (size_t s = 0; s < p->nslots; s++)
		if (p->coll_ch[s] >= 0)
			p->coll_ch[s] = rank_of[p->coll_ch[s]];
	for (size_t i = 0; i < p->nops; i++) {
		chakra_replay_op *op = &p->ops[i];
		op->channel = rank_of[op->channel];
		sorted[op->channel].ops[op->seq] = (uint32_t)i;
	}
	chakra_free(p->ch);
	p->ch = sorted;
	p->capch = p->nch;
	chakra_free(order);
	chakra_free(rank_of);
	return 0;
}

static const size_t plan_opts_size[2] = { 0, sizeof(chakra_replay_plan_options) };
static const chakra_replay_plan_options plan_defaults = CHAKRA_REPLAY_PLAN_OPTIONS_INIT;

int chakra_replay_plan_options_init(chakra_replay_plan_options *opts, unsigned version)
{
	return chakra__opts_init(opts, version, &plan_defaults, plan_opts_size, 2);
}

int chakra_replay_plan_build(chakra_replay_plan **out, const char *path,
                             const chakra_replay_plan_options *o, char *err, size_t errlen)
{
	if (!out || !path || !o)
		return CHAKRA_EINVAL;
	*out = NULL;
	chakra_replay_plan_options oc;
	if (chakra__opts_copy(&oc, sizeof oc, o, &plan_defaults, plan_opts_size, 2) < 0 || !oc.topo ||
	    oc.rank >= oc.topo->nranks)
		return chakra__replay_fail(err, errlen, CHAKRA_EINVAL, "%s: bad plan options", path);
	o = &oc;
	chakra_replay_plan *p = chakra_calloc(1, sizeof *p);
	p2p_index ix;
	memset(&ix, 0, sizeof ix);
	uint32_t *members = chakra_malloc(o->topo->nranks * sizeof *members);
	if (p) {
		p->nslots = chakra_replay_scope_slots(o->topo);
		p->coll_ch = chakra_malloc(p->nslots * sizeof *p->coll_ch);
	}
	if (!p || !p->coll_ch || !members) {
		chakra_free(members);
		chakra_replay_plan_free(p);
		return chakra__replay_fail(err, errlen, CHAKRA_ENOMEM, "%s: out of memory", path);
	}
	for (size_t s = 0; s < p->nslots; s++)
		p->coll_ch[s] = -1;
	chakra_feeder_options fo = CHAKRA_FEEDER_OPTIONS_INIT;
	fo.deps = o->deps ? o->deps : CHAKRA_DEPS_DATA;
	chakra_feeder *f = NULL;
	int rc = chakra_feeder_open(&f, path, &fo);
	const chakra_node *n;
	char why[CHAKRA_REPLAY_ERR_LEN] = "";
	int told = 0; /* err already says what is wrong */
	if (rc < 0) {
		chakra__replay_fail(err, errlen, rc, "%s", f ? chakra_feeder_errmsg(f) : path);
		told = 1;
	} else {
		while ((rc = chakra_feeder_next(f, &n)) > 0) {
			uint64_t id = chakra_node_id(n);
			why[0] = 0;
			rc = plan_node(p, o, &ix, members, n, why, sizeof why);
			if (rc < 0 && *why) {
				size_t nl;
				const char *name = chakra_node_name(n, &nl);
				rc = chakra__replay_fail(err, errlen, CHAKRA_EINVAL,
				                         "%s: node %" PRIu64 " (%.*s): %s", path, id,
				                         (int)(nl > 200 ? 200 : nl), name ? name : "", why);
				told = 1;
			}
			if (rc < 0)
				break;
			rc = chakra_feeder_complete(f, id);
			if (rc < 0) {
				chakra__replay_fail(err, errlen, rc, "%s", chakra_feeder_errmsg(f));
				told = 1;
				break;
			}
		}
		if (rc < 0 && !told && rc != CHAKRA_ENOMEM) {
			chakra__replay_fail(err, errlen, rc, "%s", chakra_feeder_errmsg(f));
			told = 1;
		} else if (rc == 0 && chakra_feeder_has_more(f)) {
			rc = chakra__replay_fail(err, errlen, CHAKRA_EDEP, "%s: the feeder stopped with "
			                         "nodes left", path);
			told = 1;
		}
	}
	chakra_feeder_close(f);
	chakra_free(members);
	chakra__replay_map_free(&ix.m);
	for (size_t i = 0; rc == 0 && i < p->nops; i++)
		if (chakra__replay_map_put(&p->by_id, p->ops[i].id, (uint32_t)i) < 0)
			rc = CHAKRA_ENOMEM;
	if (rc == 0)
		rc = finish(p, o->topo);
	if (rc < 0) {
		if (!told)
			chakra__replay_fail(err, errlen, rc, "%s: out of memory", path);
		chakra_replay_plan_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

void chakra_replay_plan_free(chakra_replay_plan *p)
{
	if (!p)
		return;
	if (!p)
		return;
	for (size_t i = 0; i < p->nch; i++)
		chakra_free(p->ch[i].ops);
	chakra_free(p->ch);
	chakra_free(p->ops);
	chakra_free(p->coll_ch);
	chakra__replay_map_free(&p->by_id);
	chakra_free(p);
}

size_t chakra_replay_plan_op_count(const chakra_replay_plan *p)
{
	if (!p)
		return 0;
	return p->nops;
}

const chakra_replay_op *chakra_replay_plan_ops(const chakra_replay_plan *p)
{
	if (!p)
		return NULL;
	return p->ops;
}

size_t chakra_replay_plan_channel_count(const chakra_replay_plan *p)
{
	if (!p)
		return 0;
	return p->nch;
}

const chakra_replay_channel *chakra_replay_plan_channels(const chakra_replay_plan *p)
{
	if (!p)
		return NULL;
	return p->ch;
}

int64_t chakra_replay_plan_coll_channel(const chakra_replay_plan *p, chakra_replay_scope s)
{
	if (!p)
		return CHAKRA_EINVAL;
	for (size_t i = 0; i < p->nch; i++)
		if (p->ch[i].kind == CHAKRA_REPLAY_COLL && p->ch[i].scope.kind == s.kind &&
		    p->ch[i].scope.key == s.key)
			return (long)i;
	return -1;
}

const chakra_replay_op *chakra_replay_plan_find(const chakra_replay_plan *p, uint64_t id)
{
	if (!p)
		return NULL;
	long i = chakra__replay_map_get(&p->by_id, id);
	return i < 0 ? NULL : &p->ops[i];
}

uint64_t chakra_replay_plan_node_count(const chakra_replay_plan *p)
{
	if (!p)
		return 0;
	return p->nodes;
}

uint64_t chakra_replay_plan_compute_count(const chakra_replay_plan *p)
{
	if (!p)
		return 0;
	return p->compute;
}

uint64_t chakra_replay_plan_longest_compute(const chakra_replay_plan *p, uint64_t *id)
{
	if (id)
		*id = p ? p->longest_id : 0;
	return p ? p->longest_ns : 0;
}

uint64_t chakra_replay_plan_compute_ns(const chakra_replay_plan *p)
{
	if (!p)
		return 0;
	return p->compute_ns;
}
