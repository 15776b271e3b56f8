/* SPDX-License-Identifier: Apache-2.0 */
/* From a parsed PyTorch ET to host-op nodes: rebuild the call tree (children
 * arrive before their parents), keep the outermost operators (labels such as
 * ProfilerStep#N, ## forward ## or record_function scopes are transparent,
 * ops below an operator are folded into it), classify communication, and
 * derive the dependencies: tensor producer -> consumer (data), program order
 * per thread (ctrl), a wait -> its collective (data). docs/convert.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cv.h"

typedef struct hb {
	cv_et *et;
	cv_graph *g;
	cv_err *err;
	const char *file;
	uint32_t *parent;   /* ET index of the parent, CV_NONE for roots */
	uint32_t *kid_off;  /* CSR children, sorted by id */
	uint32_t *kids;
	uint32_t *emitted;  /* ET indices of host ops, in id order */
	size_t n_emitted, em_cap;
} hb;

/* qsort_r is a GNU extension; keep a plain insertion/merge hybrid here so the
 * module builds anywhere. */
static void sort_ids(uint32_t *v, size_t n, const cv_et *et, uint32_t *tmp)
{
	if (n < 16) {
		for (size_t i = 1; i < n; i++) {
			uint32_t x = v[i];
			size_t j = i;
			while (j && et->nodes[v[j - 1]].id > et->nodes[x].id) {
				v[j] = v[j - 1];
				j--;
			}
			v[j] = x;
		}
		return;
	}
	size_t h = n / 2;
	sort_ids(v, h, et, tmp);
	sort_ids(v + h, n - h, et, tmp);
	size_t i = 0, j = h, k = 0;
	while (i < h && j < n)
		tmp[k++] = et->nodes[v[j]].id < et->nodes[v[i]].id ? v[j++] : v[i++];
	while (i < h)
		tmp[k++] = v[i++];
	while (j < n)
		tmp[k++] = v[j++];
	memcpy(v, tmp, n * sizeof *v);
}

static const char *nname(const hb *b, uint32_t i)
{
	return cv_str(&b->et->strs, b->et->nodes[i].name);
}

static int fail(hb *b, uint32_t i, int code, const char *fmt, const char *extra, uint64_t v)
{
	char what[600];
	snprintf(what, sizeof what, fmt, extra, (unsigned long long)v);
	return chakra__cv_fail(b->err, code, b->file, "node", (int64_t)b->et->nodes[i].index, -1,
	                       "id %llu ('%s'): %s", (unsigned long long)b->et->nodes[i].id,
	                       nname(b, i), what);
}

/* Parent links, children lists, and a check that every node hangs below a
 * root (no dangling parent ids, no parent cycles). */
static int build_tree(hb *b)
{
	cv_et *et = b->et;
	size_t n = et->n;
	cv_map idx = { 0 };
	b->parent = chakra_malloc((n + 1) * sizeof *b->parent);
	b->kid_off = chakra_calloc(n + 2, sizeof *b->kid_off);
	b->kids = chakra_malloc((n + 1) * sizeof *b->kids);
	uint32_t *tmp = chakra_malloc((n + 1) * sizeof *tmp);
	int rc = 0;
	if (!b->parent || !b->kid_off || !b->kids || !tmp) {
		rc = chakra__cv_fail(b->err, CHAKRA_ENOMEM, b->file, NULL, -1, -1, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t prev = chakra__cv_map_get(&idx, et->nodes[i].id);
		if (prev != CV_NONE) {
			rc = fail(b, (uint32_t)i, CHAKRA_EDUP, "the id is used twice (also node %s%llu)",
			          "", et->nodes[prev].index);
			goto out;
		}
		if (chakra__cv_map_put(&idx, et->nodes[i].id, (uint32_t)i) < 0) {
			rc = chakra__cv_fail(b->err, CHAKRA_ENOMEM, b->file, NULL, -1, -1, "out of memory");
			goto out;
		}
	}
	for (size_t i = 0; i < n; i++) {
		cv_etnode *e = &et->nodes[i];
		uint32_t p = e->parent == e->id ? CV_NONE : chakra__cv_map_get(&idx, e->parent);
		if (p == CV_NONE && e->parent != e->id) {
			/* a thread root whose process root is missing is still a root */
			if (!(e->flags & CV_ET_ROOT) && e->parent != 0) {
				rc = fail(b, (uint32_t)i, CHAKRA_EDEP, "its parent %s%llu never appears", "",
				          e->parent);
				goto out;
			}
		}
		/* a linked ET's device op hangs below its host op but is not part of
		 * the call tree (its host op does not fold it: cv_linked.c) */
		if (e->flags & CV_ET_GPU)
			p = CV_NONE;
		b->parent[i] = p;
		if (p != CV_NONE)
			b->kid_off[p + 1]++;
	}
	for (size_t i = 0; i < n; i++)
		b->kid_off[i + 1] += b->kid_off[i];
	{
		uint32_t *fill = tmp;
		memcpy(fill, b->kid_off, n * sizeof *fill);
		for (size_t i = 0; i < n; i++)
			if (b->parent[i] != CV_NONE)
				b->kids[fill[b->parent[i]]++] = (uint32_t)i;
	}
	for (size_t i = 0; i < n; i++)
		sort_ids(b->kids + b->kid_off[i], b->kid_off[i + 1] - b->kid_off[i], et, tmp);
	/* every node must reach a root: walk up with a step bound */
	{
		uint8_t *ok = chakra_calloc(n + 1, 1);
		if (!ok) {
			rc = chakra__cv_fail(b->err, CHAKRA_ENOMEM, b->file, NULL, -1, -1, "out of memory");
			goto out;
		}
		for (size_t i = 0; i < n && !rc; i++) {
			size_t steps = 0;
			uint32_t j = (uint32_t)i;
			while (j != CV_NONE && !ok[j] && steps <= n) {
				j = b->parent[j];
				steps++;
			}
			if (steps > n) {
				rc = fail(b, (uint32_t)i, CHAKRA_ECYCLE,
				          "its parent chain loops (parent %s%llu) and never reaches the root",
				          "", et->nodes[i].parent);
				break;
			}
			for (j = (uint32_t)i; j != CV_NONE && !ok[j]; j = b->parent[j])
				ok[j] = 1;
		}
		chakra_free(ok);
	}
out:
	chakra_free(tmp);
	chakra__cv_map_free(&idx);
	return rc;
}

/* Outermost operators, through labels; depth-first with an explicit stack. */
static int select_ops(hb *b, uint32_t *host_of, chakra_convert_summary *s)
{
	cv_et *et = b->et;
	size_t n = et->n;
	uint32_t *stack = chakra_malloc((n + 1) * sizeof *stack);
	if (!stack)
		return chakra__cv_fail(b->err, CHAKRA_ENOMEM, b->file, NULL, -1, -1, "out of memory");
	size_t sp = 0;
	for (size_t i = 0; i < n; i++) {
		host_of[i] = CV_NONE;
		if (b->parent[i] == CV_NONE)
			stack[sp++] = (uint32_t)i;
	}
	while (sp) {
		uint32_t i = stack[--sp];
		const cv_etnode *e = &et->nodes[i];
		if ((e->flags & CV_ET_OPERATOR) && !(e->flags & CV_ET_PGINIT)) {
			uint32_t *p = CV_PUSH(b->emitted, b->n_emitted, b->em_cap);
			if (!p) {
				chakra_free(stack);
				return chakra__cv_fail(b->err, CHAKRA_ENOMEM, b->file, NULL, -1, -1,
				                       "out of memory");
			}
			*p = i;
			continue;
		}
		for (uint32_t k = b->kid_off[i + 1]; k > b->kid_off[i]; k--)
			stack[sp++] = b->kids[k - 1];
	}
	chakra_free(stack);
	uint32_t *tmp = chakra_malloc((b->n_emitted + 1) * sizeof *tmp);
	if (!tmp)
		return chakra__cv_fail(b->err, CHAKRA_ENOMEM, b->file, NULL, -1, -1, "out of memory");
	sort_ids(b->emitted, b->n_emitted, et, tmp);
	chakra_free(tmp);
	s->host_ops = b->n_emitted;
	return 0;
}

/* Subtree of ET node r in id order (r first), into *out. */
static int subtree(hb *b, uint32_t r, uint32_t **out, size_t *n, size_t *cap, uint32_t **stk,
                   size_t *scap)
{
	*n = 0;
	size_t sp = 0;
	if (!CV_RESERVE(*stk, *scap, 1))
		return -1;
	(*stk)[sp++] = r;
	while (sp) {
		uint32_t i = (*stk)[--sp];
		uint32_t *p = CV_PUSH(*out, *n, *cap);
		if (!p)
			return -1;
		*p = i;
		uint32_t k0 = b->kid_off[i], k1 = b->kid_off[i + 1];
		if (!CV_RESERVE(*stk, *scap, sp + (k1 - k0) + 1))
			return -1;
		for (uint32_t k = k1; k > k0; k--)
			(*stk)[sp++] = b->kids[k - 1];
	}
	/* pre-order with children sorted by id is id order for a call tree;
	 * sort anyway for odd files */
	uint32_t *tmp = chakra_malloc((*n + 1) * sizeof *tmp);
	if (!tmp)
		return -1;
	sort_ids(*out, *n, b->et, tmp);
	chakra_free(tmp);
	return 0;
}

static uint64_t num_ops_of(hb *b, uint32_t i, int depth)
{
	const cv_etnode *e = &b->et->nodes[i];
	if (e->num_ops_known || depth > 64)
		return e->num_ops;
	uint64_t sum = 0;
	for (uint32_t k = b->kid_off[i]; k < b->kid_off[i + 1]; k++)
		sum += num_ops_of(b, b->kids[k], depth + 1);
	return sum;
}

static uint32_t gstr(cv_graph *g, const cv_strtab *src, uint32_t i)
{
	return chakra__cv_intern(&g->strs, cv_str(src, i), cv_strlen(src, i));
}

/* Canonical process-group name of a collective: its pg_name; else the
 * process_group:init entry with that backend id; else "pg<id>". */
static uint32_t pg_of(hb *b, const cv_comm *c)
{
	cv_et *et = b->et;
	if (c->pg_name && cv_strlen(&et->strs, c->pg_name))
		return gstr(b->g, &et->strs, c->pg_name);
	if (c->pg_id != CV_UNSET) {
		for (size_t i = 0; i < et->npg; i++)
			if (et->pgs[i].backend_id == c->pg_id)
				return gstr(b->g, &et->strs, et->pgs[i].name);
		char nm[40];
		int m = snprintf(nm, sizeof nm, "pg%lld", (long long)c->pg_id);
		return chakra__cv_intern(&b->g->strs, nm, (size_t)m);
	}
	return 0;
}

/* The group a collective names, with what it says about its members:
 * global_rank_start / stride stay a range. */
static int add_comm_pg(hb *b, const cv_comm *c, uint32_t name, const cv_etnode *e)
{
	uint32_t desc = c->pg_desc ? gstr(b->g, &b->et->strs, c->pg_desc) : 0;
	if (desc == CV_NONE)
		return chakra__cv_fail(b->err, CHAKRA_ENOMEM, b->file, NULL, -1, -1, "out of memory");
	int have_range = c->rank_start != CV_UNSET && c->rank_stride != CV_UNSET;
	cv_where w = { b->file, "node", (int64_t)e->index, NULL };
	return chakra__cv_graph_pg(b->g, name, desc, 0, c->world != CV_UNSET ? c->world : -1, NULL,
	                           0, have_range ? c->rank_start : 0,
	                           have_range ? c->rank_stride : 0, b->err, &w);
}

typedef struct pgkey {
	uint32_t name;   /* in graph strs */
	uint32_t last;   /* last collective node of the group */
} pgkey;

int chakra__cv_host_build(cv_et *et, cv_graph *g, uint32_t *host_of, chakra_convert_summary *s,
                          cv_err *err)
{
	hb b = { 0 };
	b.et = et;
	b.g = g;
	b.err = err;
	b.file = err->file;
	int rc = build_tree(&b);
	if (!rc)
		rc = select_ops(&b, host_of, s);
	uint32_t *sub = NULL, *stk = NULL;
	size_t nsub = 0, subcap = 0, stkcap = 0;
	cv_pmap producer = { 0 }, seen = { 0 }; /* by (tensor id, storage id), exactly */
	cv_map chain = { 0 }, pending = { 0 }, tagmap = { 0 },
	       pgmap = { 0 };
	pgkey *pgs = NULL;
	size_t npgs = 0, pgcap = 0;
	struct { uint64_t key; uint32_t count; } *tags = NULL;
	size_t ntags = 0, tagcap = 0;
	if (rc)
		goto out;
	/* process_group:init's table first: it names every group */
	for (size_t k = 0; k < et->npg; k++) {
		const cv_pg *p = &et->pgs[k];
		uint32_t nm = gstr(g, &et->strs, p->name), ds = gstr(g, &et->strs, p->desc),
		         be = gstr(g, &et->strs, p->backend);
		if (nm == CV_NONE || ds == CV_NONE || be == CV_NONE)
			goto nomem;
		cv_where w = { b.file, NULL, -1, "process_group:init" };
		if ((rc = chakra__cv_graph_pg(g, nm, ds, be, p->size, p->ranks, p->n_ranks, 0, 0, err,
		                              &w)) < 0)
			goto out;
	}
	/* waits name their collective by sequence number */
	for (size_t k = 0; k < b.n_emitted; k++) {
		uint32_t i = b.emitted[k];
		const cv_etnode *e = &et->nodes[i];
		if (e->comm != CV_NONE && et->comms[e->comm].coll == CV_COLL_WAIT &&
		    et->comms[e->comm].seq != CV_UNSET &&
		    chakra__cv_map_put(&pending, (uint64_t)et->comms[e->comm].seq, CV_NONE - 1) < 0)
			goto nomem;
	}
	for (size_t k = 0; k < b.n_emitted && !rc; k++) {
		uint32_t i = b.emitted[k];
		const cv_etnode *e = &et->nodes[i];
		if (subtree(&b, i, &sub, &nsub, &subcap, &stk, &stkcap) < 0)
			goto nomem;
		/* communication: the op itself or the first record_param_comms below */
		const cv_comm *c = NULL;
		int unclassified = 0;
		for (size_t j = 0; j < nsub; j++) {
			const cv_etnode *d = &et->nodes[sub[j]];
			if (d->comm != CV_NONE) {
				c = &et->comms[d->comm];
				break;
			}
		}
		int type = CHAKRA_COMP_NODE;
		if (c) {
			if (c->coll == CV_COLL_SEND)
				type = CHAKRA_COMM_SEND_NODE;
			else if (c->coll == CV_COLL_RECV)
				type = CHAKRA_COMM_RECV_NODE;
			else if (c->coll == CV_COLL_UNKNOWN)
				unclassified = 1;
			else if (c->coll != CV_COLL_WAIT)
				type = CHAKRA_COMM_COLL_NODE;
		} else if (e->flags & CV_ET_COMM_NAME) {
			unclassified = 1;
		}
		s->unclassified_ops += (uint64_t)unclassified;
		uint32_t gi = chakra__cv_graph_add(g, cv_str(&et->strs, e->name),
		                                   cv_strlen(&et->strs, e->name), type, CV_NK_HOST);
		if (gi == CV_NONE)
			goto nomem;
		cv_node *gn = &g->nodes[gi];
		gn->et = i;
		gn->is_cpu = 1;
		gn->tid = e->tid;
		gn->rf_id = e->rf_id;
		gn->num_ops = num_ops_of(&b, i, 0);
		for (size_t j = 0; j < nsub; j++)
			host_of[sub[j]] = gi;
		s->folded_ops += nsub - 1;
		if (c && type != CHAKRA_COMP_NODE) {
			gn->coll = type == CHAKRA_COMM_COLL_NODE ? c->coll : -1;
			gn->comm_size = (int64_t)(c->have_in_bytes ? c->in_bytes : c->out_bytes);
			gn->pg_name = pg_of(&b, c);
			if (gn->pg_name == CV_NONE)
				goto nomem;
			if (gn->pg_name && (rc = add_comm_pg(&b, c, gn->pg_name, e)) < 0)
				goto out;
			gn = &g->nodes[gi];
			if (type != CHAKRA_COMM_COLL_NODE) {
				/* group-local peer -> global rank; tag = how many earlier
				 * messages this pair exchanged in this direction */
				int64_t peer = c->rank;
				if (peer != CV_UNSET && c->rank_start != CV_UNSET && c->rank_stride != CV_UNSET &&
				    (__builtin_mul_overflow(peer, c->rank_stride, &peer) ||
				     __builtin_add_overflow(peer, c->rank_start, &peer)))
					peer = INT64_MIN + 1; /* refused below */
				if (peer != CV_UNSET && (peer < -1 || peer >= CV_RANK_LIMIT)) {
					rc = chakra__cv_fail(err, CHAKRA_ECORRUPT, b.file, "node",
					                     (int64_t)e->index, -1,
					                     "%s peer: group rank %lld, rank_start %lld, "
					                     "rank_stride %lld do not give a rank (0..%lld)",
					                     type == CHAKRA_COMM_SEND_NODE ? "send" : "recv",
					                     (long long)c->rank, (long long)c->rank_start,
					                     (long long)c->rank_stride,
					                     (long long)(CV_RANK_LIMIT - 1));
					goto out;
				}
				gn->peer = peer == CV_UNSET ? -1 : peer;
				/* (group, direction, peer) exactly: peer + 1 < 2^25 */
				uint64_t key = ((uint64_t)gn->pg_name << 26) | ((uint64_t)(type & 1) << 25) |
				               (uint64_t)(gn->peer + 1);
				uint32_t t = chakra__cv_map_get(&tagmap, key);
				if (t == CV_NONE) {
					if (!CV_PUSH(tags, ntags, tagcap) ||
					    chakra__cv_map_put(&tagmap, key, (uint32_t)(ntags - 1)) < 0)
						goto nomem;
					t = (uint32_t)(ntags - 1);
					tags[t].key = key;
					tags[t].count = 0;
				}
				gn->tag = tags[t].count++;
			}
		}
		/* tensors: inputs read from outside the op depend on their latest
		 * producer; outputs anywhere in the op make it the producer */
		uint64_t tbytes = 0;
		uint32_t gen = (uint32_t)k; /* `seen` holds this op's tensors when = gen */
		for (size_t j = 0; j < nsub; j++) {
			const cv_etnode *d = &et->nodes[sub[j]];
			for (uint32_t t = 0; t < d->tin_n; t++) {
				const cv_tensor *tt = &et->tensors[d->tin + t];
				if (!tt->sid)
					continue;
				int64_t ka = (int64_t)tt->tid, kb = (int64_t)tt->sid;
				if (j == 0 && chakra__cv_pmap_get(&seen, ka, kb) != gen) {
					if (__builtin_add_overflow(tbytes, tt->bytes, &tbytes) ||
					    tbytes > (uint64_t)INT64_MAX) {
						rc = chakra__cv_fail(err, CHAKRA_ECORRUPT, b.file, "node",
						                     (int64_t)e->index, -1, "the op's tensor "
						                     "sizes add up past a 64-bit size");
						goto out;
					}
					if (chakra__cv_pmap_put(&seen, ka, kb, gen) < 0)
						goto nomem;
				}
				uint32_t p = chakra__cv_pmap_get(&producer, ka, kb);
				if (p != CV_NONE && p != gi && chakra__cv_graph_edge(g, p, gi, 0) < 0)
					goto nomem;
			}
			for (uint32_t t = 0; t < d->tout_n; t++) {
				const cv_tensor *tt = &et->tensors[d->tout + t];
				if (!tt->sid)
					continue;
				int64_t ka = (int64_t)tt->tid, kb = (int64_t)tt->sid;
				if (j == 0 && chakra__cv_pmap_get(&seen, ka, kb) != gen) {
					if (__builtin_add_overflow(tbytes, tt->bytes, &tbytes) ||
					    tbytes > (uint64_t)INT64_MAX) {
						rc = chakra__cv_fail(err, CHAKRA_ECORRUPT, b.file, "node",
						                     (int64_t)e->index, -1, "the op's tensor "
						                     "sizes add up past a 64-bit size");
						goto out;
					}
					if (chakra__cv_pmap_put(&seen, ka, kb, gen) < 0)
						goto nomem;
				}
				if (chakra__cv_pmap_put(&producer, ka, kb, gi) < 0)
					goto nomem;
			}
		}
		gn = &g->nodes[gi];
		gn->tensor_size = tbytes;
		/* program order per thread; collectives hang off the chain (they
		 * run asynchronously: what needs their result depends on it through
		 * tensors or a wait) and follow the previous collective of their
		 * group (one NCCL stream per group runs them in order) */
		uint64_t tkeyid = (uint64_t)e->tid;
		uint32_t prev = chakra__cv_map_get(&chain, tkeyid);
		if (prev != CV_NONE && chakra__cv_graph_edge(g, prev, gi, 1) < 0)
			goto nomem;
		if (type == CHAKRA_COMM_COLL_NODE || type == CHAKRA_COMM_SEND_NODE ||
		    type == CHAKRA_COMM_RECV_NODE) {
			uint32_t q = chakra__cv_map_get(&pgmap, gn->pg_name);
			if (q == CV_NONE) {
				if (!CV_PUSH(pgs, npgs, pgcap) ||
				    chakra__cv_map_put(&pgmap, gn->pg_name, (uint32_t)(npgs - 1)) < 0)
					goto nomem;
				q = (uint32_t)(npgs - 1);
				pgs[q].name = gn->pg_name;
				pgs[q].last = CV_NONE;
			}
			if (pgs[q].last != CV_NONE && chakra__cv_graph_edge(g, pgs[q].last, gi, 1) < 0)
				goto nomem;
			pgs[q].last = gi;
			if (c->seq != CV_UNSET &&
			    chakra__cv_map_get(&pending, (uint64_t)c->seq) != CV_NONE &&
			    chakra__cv_map_put(&pending, (uint64_t)c->seq, gi) < 0)
				goto nomem;
		} else {
			if (c && c->coll == CV_COLL_WAIT && c->seq != CV_UNSET) {
				uint32_t coll = chakra__cv_map_get(&pending, (uint64_t)c->seq);
				if (coll < CV_NONE - 1 && chakra__cv_graph_edge(g, coll, gi, 0) < 0)
					goto nomem;
			}
			if (chakra__cv_map_put(&chain, tkeyid, gi) < 0)
				goto nomem;
		}
	}
	goto out;
nomem:
	rc = chakra__cv_fail(err, CHAKRA_ENOMEM, b.file, NULL, -1, -1, "out of memory");
out:
	chakra_free(sub);
	chakra_free(stk);
	chakra_free(pgs);
	chakra_free(tags);
	chakra__cv_pmap_free(&producer);
	chakra__cv_map_free(&chain);
	chakra__cv_map_free(&pending);
	chakra__cv_pmap_free(&seen);
	chakra__cv_map_free(&tagmap);
	chakra__cv_map_free(&pgmap);
	chakra_free(b.parent);
	chakra_free(b.kid_off);
	chakra_free(b.kids);
	chakra_free(b.emitted);
	return rc;
}
