/* SPDX-License-Identifier: Apache-2.0 */
/* Device pass, step 3a (mode A, no ET): CPU nodes, the pieces of each
 * top-level op between the runtime calls that matter, and those calls. */
#include <stdlib.h>
#include <string.h>

#include "cv.h"

static uint32_t add_cpu_node(cv_dev *d, const char *name, int cat, uint32_t ev, int64_t t0,
                             int64_t t1, uint32_t *prev)
{
	const cv_kev *e = &d->k->ev[ev];
	uint32_t gi = chakra__cv_graph_add(d->g, name, strlen(name), CHAKRA_COMP_NODE,
	                                   cat == CV_K_RUNTIME ? CV_NK_CALL : CV_NK_PIECE);
	if (gi == CV_NONE)
		return CV_NONE;
	cv_node *n = &d->g->nodes[gi];
	n->is_cpu = 1;
	n->has_time = 1;
	n->start_ns = t0;
	n->dur_ns = t1 > t0 ? t1 - t0 : 0;
	n->tid = e->tid;
	n->kineto_cat = (uint8_t)cat;
	if (cat == CV_K_RUNTIME) {
		n->corr = e->corr;
	} else {
		n->ext_id = e->ext_id;
		if (e->rf_id != CV_UNSET)
			n->rf_id = e->rf_id;
	}
	if (*prev != CV_NONE) {
		if (chakra__cv_graph_edge(d->g, *prev, gi, 1) < 0)
			return CV_NONE;
		if (!CV_RESERVE(d->next_cpu, d->next_cap, d->g->n))
			return CV_NONE;
		d->next_cpu[*prev] = gi;
	}
	if (!CV_RESERVE(d->next_cpu, d->next_cap, d->g->n))
		return CV_NONE;
	d->next_cpu[gi] = CV_NONE;
	*prev = gi;
	cv_dev_thread *th = &d->th[d->thr[ev]];
	uint32_t *p = CV_PUSH(th->gn, th->ngn, th->gcap);
	if (!p)
		return CV_NONE;
	*p = gi;
	return gi;
}

/* A CPU collective (gloo): its kind and input size from the annotation. */
static int cpu_comm(cv_dev *d, uint32_t i, uint32_t gi)
{
	const cv_kcomm *c = &d->k->comms[d->k->ev[i].comm];
	cv_node *n = &d->g->nodes[gi];
	if (c->coll == CV_COLL_UNKNOWN || c->coll == CV_COLL_WAIT) {
		d->s->unclassified_ops++;
		return 0;
	}
	if (c->coll == CV_COLL_SEND || c->coll == CV_COLL_RECV) {
		n->type = c->coll == CV_COLL_SEND ? CHAKRA_COMM_SEND_NODE : CHAKRA_COMM_RECV_NODE;
		n->peer = n->tag = -1;
	} else {
		n->type = CHAKRA_COMM_COLL_NODE;
		n->coll = c->coll;
	}
	int dsz = c->dtype ? chakra__cv_dtype_size(cv_str(&d->k->strs, c->dtype),
	                                           cv_strlen(&d->k->strs, c->dtype))
	                   : 0;
	n->comm_size = dsz && c->in_nelems != CV_UNSET && c->in_nelems >= 0 &&
	                       c->in_nelems <= INT64_MAX / dsz
	                   ? c->in_nelems * dsz
	                   : 0;
	return 0;
}

int chakra__cv_dev_cpu_nodes(cv_dev *d)
{
	cv_kin *k = d->k;
	for (size_t t = 0; t < d->nth; t++) {
		cv_dev_thread *th = &d->th[t];
		uint32_t prev = CV_NONE;
		for (size_t j = 0; j < th->n; j++) {
			uint32_t i = th->ev[j];
			const cv_kev *e = &k->ev[i];
			if (e->kind == CV_K_ANNOT) {
				/* a CPU collective with nothing inside it on its thread: the
				 * thread ran the collective */
				if (d->top[i] != CV_NONE || !cv_dev_in_window(d, e->ts) ||
				    (j + 1 < th->n && k->ev[th->ev[j + 1]].ts < d->end[i]))
					continue;
				uint32_t gi = add_cpu_node(d, cv_dev_ename(d, i), CV_K_ANNOT, i, e->ts, d->end[i], &prev);
				if (gi == CV_NONE || cpu_comm(d, i, gi) < 0)
					return cv_dev_nomem(d);
				d->node[i] = gi;
				d->s->host_ops++;
				continue;
			}
			if (e->kind == CV_K_RUNTIME && d->top[i] == CV_NONE) {
				/* a call outside any op */
				if (!d->inwin[i])
					continue;
				uint32_t gi = add_cpu_node(d, cv_dev_ename(d, i), CV_K_RUNTIME, i, e->ts, d->end[i], &prev);
				if (gi == CV_NONE)
					return cv_dev_nomem(d);
				d->anchor[i] = d->node[i] = gi;
				continue;
			}
			if (e->kind != CV_K_CPU_OP || d->top[i] != i || !cv_dev_in_window(d, e->ts))
				continue;
			/* the significant calls inside it follow it in th->ev; cut the
			 * op into pieces between them */
			int64_t cut = e->ts, stop = d->end[i];
			uint32_t first = CV_NONE;
			for (size_t q = j + 1; q < th->n; q++) {
				uint32_t r = th->ev[q];
				if (d->top[r] != i)
					break;
				if (k->ev[r].kind != CV_K_RUNTIME || !d->inwin[r])
					continue;
				int64_t cs = k->ev[r].ts < cut ? cut : k->ev[r].ts;
				if (cs > cut) {
					uint32_t gi = add_cpu_node(d, cv_dev_ename(d, i), CV_K_CPU_OP, i, cut, cs, &prev);
					if (gi == CV_NONE)
						return cv_dev_nomem(d);
					if (first == CV_NONE)
						first = gi;
				}
				int64_t ce = d->end[r] < cs ? cs : d->end[r];
				uint32_t gi = add_cpu_node(d, cv_dev_ename(d, r), CV_K_RUNTIME, r, cs, ce, &prev);
				if (gi == CV_NONE)
					return cv_dev_nomem(d);
				if (first == CV_NONE)
					first = gi;
				d->anchor[r] = d->node[r] = gi;
				cut = ce;
			}
			if (stop > cut) {
				uint32_t gi = add_cpu_node(d, cv_dev_ename(d, i), CV_K_CPU_OP, i, cut, stop, &prev);
				if (gi == CV_NONE)
					return cv_dev_nomem(d);
				if (first == CV_NONE)
					first = gi;
			}
			if (first == CV_NONE)
				continue; /* an empty op: nothing to replay */
			d->node[i] = first;
			d->s->host_ops++;
		}
	}
	return 0;
}
