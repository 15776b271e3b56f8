/* SPDX-License-Identifier: Apache-2.0 */
/* The fitter's pass over one rank: what fit.c describes, recorded into
 * the accumulators (fit_impl.h), and the overlap buckets. */
#include <stdlib.h>
#include <string.h>

#include "fit_impl.h"

static void cls_acc_free(sy_cls_acc *a)
{
	chakra__sy_vec_free(&a->dur);
	chakra__sy_vec_free(&a->fanin);
	chakra__sy_vec_free(&a->nearest);
	chakra__sy_vec_free(&a->dist);
	chakra__sy_vec_free(&a->fanout);
}

static void coll_acc_free(sy_coll_acc *a)
{
	sy_vec *v[] = { &a->size, &a->fanin_c, &a->near_c, &a->dist_c, &a->fanin_x, &a->dist_x,
	                &a->dist_f };
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
		chakra__sy_vec_free(v[i]);
}

void chakra__sy_fitter_free(sy_fitter *F)
{
	for (int i = 0; F->cls && i < F->nvocab; i++) /* (NULL: its allocation failed) */
		cls_acc_free(&F->cls[i]);
	chakra_free(F->cls);
	for (size_t i = 0; i < F->ncoll; i++)
		coll_acc_free(&F->coll[i]);
	chakra_free(F->coll);
	for (size_t i = 0; i < F->ntok; i++) {
		chakra__sy_vec_free(&F->tok[i].gap);
		chakra__sy_vec_free(&F->tok[i].first);
		chakra__sy_vec_free(&F->tok[i].consumers);
	}
	chakra_free(F->tok);
	chakra__sy_vec_free(&F->lead);
	chakra__sy_vec_free(&F->tail);
	for (size_t i = 0; i < F->ncs; i++)
		chakra_free(F->cseq[i]);
	for (size_t i = 0; i < F->nks; i++)
		chakra_free(F->kseq[i]);
	chakra_free(F->cseq);
	chakra_free(F->kseq);
	chakra_free(F->clen);
	chakra_free(F->klen);
	chakra__sy_groups_free(&F->G);
}

static int coll_class(sy_fitter *F, int ct, int group, uint32_t param)
{
	for (size_t i = 0; i < F->ncoll; i++)
		if (F->coll[i].comm_type == ct && F->coll[i].group == group && F->coll[i].gparam == param)
			return (int)i;
	sy_coll_acc *c = chakra_realloc(F->coll, (F->ncoll + 1) * sizeof *c);
	if (!c)
		return CHAKRA_ENOMEM;
	F->coll = c;
	memset(&c[F->ncoll], 0, sizeof *c);
	c[F->ncoll].comm_type = ct;
	c[F->ncoll].group = group;
	c[F->ncoll].gparam = param;
	return (int)F->ncoll++;
}

static int tok_of(sy_fitter *F, int coll, int bucket)
{
	for (size_t i = 0; i < F->ntok; i++)
		if (F->tok[i].coll == coll && F->tok[i].bucket == bucket)
			return (int)i;
	sy_tok_acc *t = chakra_realloc(F->tok, (F->ntok + 1) * sizeof *t);
	if (!t)
		return CHAKRA_ENOMEM;
	F->tok = t;
	memset(&t[F->ntok], 0, sizeof *t);
	t[F->ntok].coll = coll;
	t[F->ntok].bucket = bucket;
	return (int)F->ntok++;
}

int chakra__sy_bucket(uint64_t d)
{
	if (d <= 1)
		return (int)d;
	int b = 2;
	for (uint64_t x = d - 1; x > 1 && b < SY_NBUCKET - 1; x >>= 1)
		b++;
	return b;
}

uint64_t chakra__sy_bucket_lo(int b)
{
	return b <= 1 ? (uint64_t)b : b == 2 ? 2 : ((uint64_t)1 << (b - 2)) + 1;
}

uint64_t chakra__sy_bucket_hi(int b)
{
	return b <= 2 ? (uint64_t)b : b == SY_NBUCKET - 1 ? UINT64_MAX : ((uint64_t)1 << (b - 1));
}

/* Keep a sequence unless an identical one is already kept. */
static int keep_seq(int32_t ***seqs, size_t **lens, size_t *n, int32_t *s, size_t len)
{
	for (size_t i = 0; i < *n; i++)
		if ((*lens)[i] == len && !memcmp((*seqs)[i], s, len * sizeof *s)) {
			chakra_free(s);
			return 0;
		}
	int32_t **ns = chakra_realloc(*seqs, (*n + 1) * sizeof *ns);
	if (!ns) {
		chakra_free(s);
		return CHAKRA_ENOMEM;
	}
	*seqs = ns;
	size_t *nl = chakra_realloc(*lens, (*n + 1) * sizeof *nl);
	if (!nl) {
		chakra_free(s);
		return CHAKRA_ENOMEM;
	}
	*lens = nl;
	ns[*n] = s;
	nl[*n] = len;
	(*n)++;
	return 0;
}

#define PUSH(vec, val)                                              \
	do {                                                            \
		if ((rc = chakra__sy_vec_push(&(vec), (uint64_t)(val))) < 0) \
			goto out;                                               \
	} while (0)

int chakra__sy_fit_walk(sy_fitter *F, const sy_trace *t, char *err, size_t errlen)
{
	size_t n = t->nn;
	int rc = 0;
	/* Position of each node in its kind's index; for collectives also the
	 * compute index where it was issued, and its consumer count. */
	uint64_t *pos = chakra_malloc((n ? n : 1) * sizeof *pos);
	uint64_t *cbefore = chakra_malloc((n ? n : 1) * sizeof *cbefore);
	uint32_t *consumers = chakra_calloc(n ? n : 1, sizeof *consumers);
	uint64_t *first = chakra_calloc(n ? n : 1, sizeof *first);
	uint64_t *gapof = chakra_malloc((n ? n : 1) * sizeof *gapof);
	int32_t *xclass = chakra_malloc((n ? n : 1) * sizeof *xclass);
	int32_t *cs = chakra_malloc((n ? n : 1) * sizeof *cs);
	int32_t *ks = chakra_malloc((n ? n : 1) * sizeof *ks);
	/* pg index -> group class, resolved once per trace. */
	int *pgkind = chakra_malloc((t->npg ? t->npg : 1) * sizeof *pgkind);
	uint32_t *pgparam = chakra_malloc((t->npg ? t->npg : 1) * sizeof *pgparam);
	size_t ncs = 0, nks = 0;
	if (!pos || !cbefore || !consumers || !xclass || !cs || !ks || !pgkind || !pgparam || !first ||
	    !gapof) {
		rc = CHAKRA_ENOMEM;
		goto out;
	}
	for (size_t p = 0; p < t->npg; p++) {
		pgkind[p] = SY_GROUP_ALL;
		pgparam[p] = 0;
		if (!F->have_groups)
			continue;
		const chakra__group *gp = chakra__sy_groups_find(&F->G, t->pg[p]);
		if (!gp) {
			rc = chakra__sy_err(err, errlen, CHAKRA_ECONFIG,
			                    "%s: pg_name \"%s\" is not a group of %s", t->path, t->pg[p],
			                    F->gpath);
			goto out;
		}
		rc = chakra__sy_group_shape(F->gpath, gp, F->G.world, &pgkind[p], &pgparam[p], err, errlen);
		if (rc < 0)
			goto out;
	}
	uint64_t cidx = 0, xidx = 0, last = 0;
	for (size_t o = 0; o < n; o++) {
		uint32_t v = t->order[o];
		const sy_node *x = &t->n[v];
		const uint32_t *par = t->deps + x->dep0;
		if (x->tok == SY_TOK_COMPUTE) {
			sy_cls_acc *a = &F->cls[x->cls];
			PUSH(a->dur, x->dur_ns / F->quantum);
			uint64_t kc = 0, dmin = UINT64_MAX;
			for (uint32_t d = 0; d < x->ndep; d++)
				if (t->n[par[d]].tok == SY_TOK_COMPUTE && cidx - pos[par[d]] < dmin)
					dmin = cidx - pos[par[d]];
			for (uint32_t d = 0; d < x->ndep; d++) {
				const sy_node *p = &t->n[par[d]];
				if (p->tok == SY_TOK_COMPUTE) {
					uint64_t dist = cidx - pos[par[d]];
					if (dist == dmin) {
						PUSH(a->nearest, dist);
						dmin = 0; /* one nearest parent */
					} else
						PUSH(a->dist, dist);
					kc++;
				} else {
					/* Compute is walked in order: the first child seen
					 * is the nearest consumer. */
					if (!consumers[par[d]]++)
						first[par[d]] = cidx - cbefore[par[d]] + 1;
					else
						PUSH(F->coll[xclass[par[d]]].dist_f, cidx - cbefore[par[d]] + 1);
				}
			}
			/* The first compute node has nothing to depend on: counting
			 * its 0 would give later nodes a chance of starting a chain
			 * of their own, in parallel with the rest. */
			if (cidx > 0)
				PUSH(a->fanin, kc);
			ks[nks++] = x->cls;
			pos[v] = cidx++;
		} else {
			int kind = SY_GROUP_ALL;
			uint32_t param = 0;
			if (x->pg >= 0) {
				kind = pgkind[x->pg];
				param = pgparam[x->pg];
				if (!F->have_groups)
					F->pg_ignored++;
			}
			int c = coll_class(F, x->cls, kind, param);
			if (c < 0) {
				rc = c;
				goto out;
			}
			sy_coll_acc *a = &F->coll[c];
			xclass[v] = c;
			PUSH(a->size, x->size);
			gapof[v] = cidx - last;
			first[v] = 0;
			last = cidx;
			uint64_t kc = 0, kx = 0, dmin = UINT64_MAX;
			for (uint32_t d = 0; d < x->ndep; d++)
				if (t->n[par[d]].tok == SY_TOK_COMPUTE && cidx - pos[par[d]] < dmin)
					dmin = cidx - pos[par[d]];
			for (uint32_t d = 0; d < x->ndep; d++) {
				const sy_node *p = &t->n[par[d]];
				if (p->tok == SY_TOK_COMPUTE) {
					uint64_t dist = cidx - pos[par[d]];
					if (dist == dmin) {
						PUSH(a->near_c, dist);
						dmin = 0;
					} else
						PUSH(a->dist_c, dist);
					kc++;
				} else {
					kx++;
					PUSH(a->dist_x, xidx - pos[par[d]]);
				}
			}
			if (cidx > 0)
				PUSH(a->fanin_c, kc);
			if (xidx > 0)
				PUSH(a->fanin_x, kx);
			cs[ncs++] = (int32_t)v; /* node for now; its token after the walk */
			cbefore[v] = cidx;
			pos[v] = xidx++;
		}
	}
	PUSH(F->tail, cidx - last);
	/* Children of every node: consumers of collectives were counted on
	 * the way; compute nodes count all their children. */
	memset(cbefore, 0, n * sizeof *cbefore);
	for (size_t i = 0; i < n; i++)
		for (uint32_t d = 0; d < t->n[i].ndep; d++)
			cbefore[t->deps[t->n[i].dep0 + d]]++;
	for (size_t i = 0; i < n; i++)
		if (t->n[i].tok == SY_TOK_COMPUTE)
			PUSH(F->cls[t->n[i].cls].fanout, cbefore[i]);
	for (size_t i = 0; i < ncs; i++) {
		uint32_t v = (uint32_t)cs[i];
		int k = tok_of(F, xclass[v], chakra__sy_bucket(first[v]));
		if (k < 0) {
			rc = k;
			goto out;
		}
		/* The first collective's gap is the start of the iteration (a
		 * whole forward pass, say): a distribution of its own. */
		if (i == 0)
			PUSH(F->lead, gapof[v]);
		else
			PUSH(F->tok[k].gap, gapof[v]);
		PUSH(F->tok[k].consumers, consumers[v]);
		if (first[v])
			PUSH(F->tok[k].first, first[v]);
		cs[i] = k;
	}
	rc = keep_seq(&F->cseq, &F->clen, &F->ncs, cs, ncs);
	cs = NULL;
	if (rc == 0)
		rc = keep_seq(&F->kseq, &F->klen, &F->nks, ks, nks);
	else
		chakra_free(ks); /* keep_seq takes it, but was not called */
	ks = NULL;
out:
	chakra_free(pgkind);
	chakra_free(pgparam);
	chakra_free(pos);
	chakra_free(cbefore);
	chakra_free(consumers);
	chakra_free(first);
	chakra_free(gapof);
	chakra_free(xclass);
	chakra_free(cs);
	chakra_free(ks);
	return rc;
}
