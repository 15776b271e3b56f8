/* SPDX-License-Identifier: Apache-2.0 */
/* Device pass, step 4: device ops as graph nodes on their streams, with
 * their launch and stream-order dependencies; NCCL kernels as
 * collectives with their communicator. */
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_tree.h>

#include "cv.h"

static int parse_ranks(const char *s, int64_t **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	yajl_val v;
	int jr = chakra__json_tree(s, strlen(s), &v, NULL, 0);
	if (jr == CHAKRA_ENOMEM)
		return -1;
	if (jr < 0)
		return 0; /* not a list: the group's ranks stay unknown */
	if (YAJL_IS_ARRAY(v) && v->u.array.len) {
		*out = chakra_malloc(v->u.array.len * sizeof **out);
		if (!*out) {
			chakra__json_tree_free(v);
			return -1;
		}
		for (size_t i = 0; i < v->u.array.len; i++)
			if (YAJL_IS_INTEGER(v->u.array.values[i]))
				(*out)[(*n)++] = YAJL_GET_INTEGER(v->u.array.values[i]);
	}
	chakra__json_tree_free(v);
	return 0;
}

/* A Kineto comm record (on the kernel, else on the op that launched it). */
static const cv_kcomm *comm_of(const cv_dev *d, uint32_t i)
{
	const cv_kev *e = &d->k->ev[i];
	if (e->comm != CV_NONE)
		return &d->k->comms[e->comm];
	uint32_t r = d->launch[i];
	for (uint32_t j = r != CV_NONE ? d->par[r] : CV_NONE, steps = 0; j != CV_NONE && steps < 64;
	     j = d->par[j], steps++)
		if (d->k->ev[j].comm != CV_NONE)
			return &d->k->comms[d->k->ev[j].comm];
	return NULL;
}

static int set_comm(cv_dev *d, uint32_t i, uint32_t gi)
{
	cv_kin *k = d->k;
	const cv_kev *e = &k->ev[i];
	const char *nm = cv_dev_ename(d, i);
	int kcoll = chakra__cv_coll_from_kernel(nm, strlen(nm));
	const cv_kcomm *c = comm_of(d, i);
	int coll = c && c->coll != CV_COLL_UNKNOWN && c->coll != CV_COLL_WAIT ? c->coll : kcoll;
	uint32_t anc = d->launch[i] != CV_NONE ? d->anchor[d->launch[i]] : CV_NONE;
	cv_node *host = d->o->link && anc != CV_NONE ? &d->g->nodes[anc] : NULL;
	int host_comm = host && (host->type == CHAKRA_COMM_COLL_NODE ||
	                         host->type == CHAKRA_COMM_SEND_NODE ||
	                         host->type == CHAKRA_COMM_RECV_NODE);
	if (coll == CV_COLL_UNKNOWN && !host_comm) {
		if (kcoll == CV_COLL_UNKNOWN && !strncmp(nm, "nccl", 4))
			d->s->unclassified_ops++;
		return 0;
	}
	cv_node *n = &d->g->nodes[gi];
	if (host_comm) {
		/* the ET's record says what the kernel does; the host op is the launch */
		n->type = host->type;
		n->coll = host->coll;
		n->comm_size = host->comm_size;
		n->pg_name = host->pg_name;
		n->peer = host->peer;
		n->tag = host->tag;
		host->type = CHAKRA_COMP_NODE;
		if (coll == CV_COLL_SEND || coll == CV_COLL_RECV || n->coll >= 0)
			return 0;
	}
	if (coll == CV_COLL_SEND || coll == CV_COLL_RECV) {
		n->type = coll == CV_COLL_SEND ? CHAKRA_COMM_SEND_NODE : CHAKRA_COMM_RECV_NODE;
		n->peer = -1;
		n->tag = -1;
	} else {
		n->type = CHAKRA_COMM_COLL_NODE;
		n->coll = coll;
	}
	n->comm_size = 0;
	if (c) {
		int dsz = c->dtype ? chakra__cv_dtype_size(cv_str(&k->strs, c->dtype),
		                                           cv_strlen(&k->strs, c->dtype))
		                   : 0;
		if (dsz && c->in_nelems != CV_UNSET && c->in_nelems >= 0 &&
		    __builtin_mul_overflow(c->in_nelems, (int64_t)dsz, &n->comm_size)) {
			chakra__cv_fail(d->err, CHAKRA_ECORRUPT, d->file, "event", (int64_t)e->index, -1,
			                "In msg nelems %lld x %d bytes overflows a 64-bit size",
			                (long long)c->in_nelems, dsz);
			return -1;
		}
		if (c->pg_name) {
			n->pg_name = chakra__cv_intern(&d->g->strs, cv_str(&k->strs, c->pg_name),
			                               cv_strlen(&k->strs, c->pg_name));
			if (n->pg_name == CV_NONE)
				return -1;
			/* the ranks string is parsed once per group, not per kernel */
			const cv_pg *known = chakra__cv_graph_pg_find(d->g, n->pg_name);
			int64_t *r = NULL;
			size_t nr = 0;
			if (c->pg_ranks && !(known && known->n_ranks) &&
			    parse_ranks(cv_str(&k->strs, c->pg_ranks), &r, &nr) < 0)
				return -1;
			uint32_t ds = c->pg_desc ? chakra__cv_intern(&d->g->strs, cv_str(&k->strs, c->pg_desc),
			                                             cv_strlen(&k->strs, c->pg_desc))
			                         : 0;
			int have_range = c->rank_start != CV_UNSET && c->rank_stride != CV_UNSET;
			cv_where w = { d->file, "event", (int64_t)e->index, NULL };
			int rc = ds == CV_NONE ? -1
			                       : chakra__cv_graph_pg(d->g, d->g->nodes[gi].pg_name, ds, 0,
			                                             c->group_size != CV_UNSET ? c->group_size
			                                                                       : -1,
			                                             r, nr, have_range ? c->rank_start : 0,
			                                             have_range ? c->rank_stride : 0,
			                                             d->err, &w);
			chakra_free(r);
			if (rc < 0)
				return -1;
		}
	} else if (e->bytes != CV_UNSET) {
		n->comm_size = e->bytes;
	}
	return 0;
}

int chakra__cv_dev_device_nodes(cv_dev *d)
{
	cv_kin *k = d->k;
	cv_map hosts = { 0 };
	for (size_t s = 0; s < d->nst; s++) {
		cv_dev_stream *st = &d->st[s];
		uint32_t prev = CV_NONE;
		for (size_t j = 0; j < st->n; j++) {
			uint32_t i = st->ops[j];
			const cv_kev *e = &k->ev[i];
			uint32_t gi = chakra__cv_graph_add(d->g, cv_dev_ename(d, i), cv_strlen(&k->strs, e->name),
			                                   CHAKRA_COMP_NODE, CV_NK_GPU);
			if (gi == CV_NONE)
				goto nomem;
			cv_node *n = &d->g->nodes[gi];
			n->is_cpu = 0;
			n->has_time = 1;
			n->start_ns = e->ts;
			n->dur_ns = e->dur;
			n->stream = e->stream;
			n->device = e->pid;
			n->corr = e->corr;
			n->kineto_cat = e->kind;
			if ((e->kind == CV_K_MEMCPY || e->kind == CV_K_MEMSET) && e->bytes > 0)
				n->tensor_size = (uint64_t)e->bytes;
			d->node[i] = gi;
			if (e->kind == CV_K_KERNEL && set_comm(d, i, gi) < 0)
				goto nomem;
			/* launch (data), stream order (ctrl) */
			uint32_t r = d->launch[i];
			uint32_t anc = r != CV_NONE ? d->anchor[r] : CV_NONE;
			if (anc != CV_NONE) {
				if (chakra__cv_graph_edge(d->g, anc, gi, 0) < 0)
					goto nomem;
				if (d->o->link) {
					d->s->kernels_linked++;
					if (chakra__cv_map_get(&hosts, anc) == CV_NONE) {
						if (chakra__cv_map_put(&hosts, anc, 1) < 0)
							goto nomem;
						d->s->host_ops_with_kernels++;
					}
				}
			}
			if (prev != CV_NONE && chakra__cv_graph_edge(d->g, prev, gi, 1) < 0)
				goto nomem;
			if (prev == CV_NONE && st->busy_until != CV_UNSET)
				d->g->nodes[gi].backlog = st->busy_until;
			prev = gi;
		}
	}
	chakra__cv_map_free(&hosts);
	return 0;
nomem:
	chakra__cv_map_free(&hosts);
	return cv_dev_nomem(d);
}
