/* SPDX-License-Identifier: Apache-2.0 */
/* Markov chains of order k over small alphabets (collective classes,
 * compute classes).
 *
 * The order is chosen by held-out likelihood: the positions of all
 * sequences are cut into 5 contiguous folds; for each order the chain is
 * counted on 4 folds and scores the 5th, and the order with the highest
 * log-likelihood per symbol wins, or rather the lowest order within one
 * standard error of it (the paired per-position differences). Held-out
 * probabilities need smoothing (a context seen once would give 0 to
 * everything else): P(s | c) = (n(c, s) + P0(s)) / (n(c) + 1), a Dirichlet
 * prior of weight 1 centred on the add-1/2 symbol frequencies P0; an unseen
 * context gives P0. The stored chain is the counts themselves. Positions
 * before the start of a sequence are the symbol -1, so every position has
 * a full context. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "synth_impl.h"

#define FOLDS 5

typedef struct counter {
	int k, nsym;
	size_t n, cap;
	int32_t *ctx;
	uint64_t *cnt;
	size_t hcap;
	int64_t *ht;
} counter;

static uint64_t hash_ctx(const int32_t *c, int k)
{
	uint64_t h = 1469598103934665603ULL;
	for (int i = 0; i < k; i++) {
		h ^= (uint32_t)c[i];
		h *= 1099511628211ULL;
	}
	return h ^ (h >> 29);
}

static void counter_free(counter *C)
{
	chakra_free(C->ctx);
	chakra_free(C->cnt);
	chakra_free(C->ht);
	memset(C, 0, sizeof *C);
}

static int counter_rehash(counter *C, size_t hcap)
{
	int64_t *ht = chakra_malloc(hcap * sizeof *ht);
	if (!ht)
		return CHAKRA_ENOMEM;
	for (size_t i = 0; i < hcap; i++)
		ht[i] = -1;
	for (size_t e = 0; e < C->n; e++) {
		size_t h = hash_ctx(C->ctx + e * (size_t)C->k, C->k) & (hcap - 1);
		while (ht[h] >= 0)
			h = (h + 1) & (hcap - 1);
		ht[h] = (int64_t)e;
	}
	chakra_free(C->ht);
	C->ht = ht;
	C->hcap = hcap;
	return 0;
}

/* Index of the context, inserting it when asked; -1 absent, or ENOMEM. */
static int64_t counter_find(counter *C, const int32_t *key, int insert)
{
	if (!C->hcap) {
		if (!insert)
			return -1;
		if (counter_rehash(C, 16) < 0)
			return CHAKRA_ENOMEM;
	}
	size_t h = hash_ctx(key, C->k) & (C->hcap - 1);
	while (C->ht[h] >= 0) {
		int64_t e = C->ht[h];
		if (!memcmp(C->ctx + (size_t)e * C->k, key, (size_t)C->k * sizeof *key))
			return e;
		h = (h + 1) & (C->hcap - 1);
	}
	if (!insert)
		return -1;
	if (C->n == C->cap) {
		size_t cap = C->cap ? C->cap * 2 : 16;
		int32_t *ctx = chakra_realloc(C->ctx, (cap * (size_t)C->k + 1) * sizeof *ctx);
		if (!ctx)
			return CHAKRA_ENOMEM;
		C->ctx = ctx;
		uint64_t *cnt = chakra_realloc(C->cnt, cap * (size_t)C->nsym * sizeof *cnt);
		if (!cnt)
			return CHAKRA_ENOMEM;
		C->cnt = cnt;
		C->cap = cap;
	}
	int64_t e = (int64_t)C->n++;
	memcpy(C->ctx + (size_t)e * C->k, key, (size_t)C->k * sizeof *key);
	memset(C->cnt + (size_t)e * C->nsym, 0, (size_t)C->nsym * sizeof *C->cnt);
	if (C->n * 2 > C->hcap) {
		if (counter_rehash(C, C->hcap * 2) < 0)
			return CHAKRA_ENOMEM;
	} else {
		C->ht[h] = e;
	}
	return e;
}

/* Context of position t of seq (order k) into key. */
static void context_of(const int32_t *seq, size_t t, int k, int32_t *key)
{
	for (int i = 0; i < k; i++) {
		size_t back = (size_t)(k - i);
		key[i] = t >= back ? seq[t - back] : -1;
	}
}

typedef struct seqset {
	const int32_t *const *s;
	const size_t *len;
	size_t n;
	size_t total;
} seqset;

/* Position index (over all sequences) -> fold. */
static int fold_of(size_t idx, size_t total)
{
	return (int)((uint64_t)idx * FOLDS / (total ? total : 1));
}

/* Count order k on all positions whose fold != skip (skip < 0: all). */
static int count(counter *C, const seqset *S, int k, int skip, uint64_t *uni)
{
	int32_t key[SY_MAXORDER + 1];
	size_t idx = 0;
	for (size_t q = 0; q < S->n; q++)
		for (size_t t = 0; t < S->len[q]; t++, idx++) {
			if (skip >= 0 && fold_of(idx, S->total) == skip)
				continue;
			context_of(S->s[q], t, k, key);
			int64_t e = counter_find(C, key, 1);
			if (e < 0)
				return (int)e;
			C->cnt[(size_t)e * C->nsym + S->s[q][t]]++;
			if (uni)
				uni[S->s[q][t]]++;
		}
	return 0;
}

/* Held-out log-probability of every position (in position order) into
 * lp[], and their mean into *out. */
static int heldout(const seqset *S, int nsym, int k, double *lp, double *out)
{
	double ll = 0;
	size_t scored = 0;
	uint64_t *uni = chakra_malloc((size_t)nsym * sizeof *uni);
	if (!uni)
		return CHAKRA_ENOMEM;
	int32_t key[SY_MAXORDER + 1];
	for (int f = 0; f < FOLDS; f++) {
		counter C = { .k = k, .nsym = nsym };
		memset(uni, 0, (size_t)nsym * sizeof *uni);
		int rc = count(&C, S, k, f, uni);
		if (rc < 0) {
			counter_free(&C);
			chakra_free(uni);
			return rc;
		}
		uint64_t ntrain = 0;
		for (int s = 0; s < nsym; s++)
			ntrain += uni[s];
		size_t idx = 0;
		for (size_t q = 0; q < S->n; q++)
			for (size_t t = 0; t < S->len[q]; t++, idx++) {
				if (fold_of(idx, S->total) != f)
					continue;
				int32_t sym = S->s[q][t];
				double p0 = ((double)uni[sym] + 0.5) / ((double)ntrain + 0.5 * nsym);
				double p = p0;
				if (k > 0) {
					context_of(S->s[q], t, k, key);
					int64_t e = counter_find(&C, key, 0);
					if (e >= 0) {
						uint64_t nc = 0;
						for (int s = 0; s < nsym; s++)
							nc += C.cnt[(size_t)e * nsym + s];
						p = ((double)C.cnt[(size_t)e * nsym + sym] + p0) / ((double)nc + 1.0);
					}
				}
				lp[idx] = log(p);
				ll += lp[idx];
				scored++;
			}
		counter_free(&C);
	}
	chakra_free(uni);
	*out = scored ? ll / (double)scored : 0.0;
	return 0;
}

void chakra__sy_markov_free(sy_markov *m)
{
	chakra_free(m->ctx);
	chakra_free(m->cnt);
	m->ctx = NULL;
	m->cnt = NULL;
	m->nctx = 0;
}

int chakra__sy_markov_fit(sy_markov *m, int nsym, const int32_t *const *seqs,
                          const size_t *lens, size_t nseq, int maxorder)
{
	memset(m, 0, sizeof *m);
	m->nsym = nsym;
	if (nsym <= 0) {
		m->order = maxorder < 0 ? -maxorder - 1 : 0;
		return 0;
	}
	seqset S = { seqs, lens, nseq, 0 };
	for (size_t q = 0; q < nseq; q++)
		S.total += lens[q];
	int order = 0;
	if (maxorder < 0) {
		order = -maxorder - 1;
	} else {
		if (maxorder > SY_MAXORDER)
			maxorder = SY_MAXORDER;
		/* Five folds need a few symbols each to say anything. */
		if (S.total < (size_t)FOLDS * 2)
			maxorder = 0;
		/* Per-position held-out log-probabilities of every order; the
		 * order is the lowest one within one standard error of the
		 * best (the paired differences' standard error): a higher
		 * order must earn its extra contexts. */
		double *lp = chakra_malloc(((size_t)maxorder + 1) * (S.total ? S.total : 1) * sizeof *lp);
		if (!lp)
			return CHAKRA_ENOMEM;
		int best = 0;
		for (int k = 0; k <= maxorder; k++) {
			int rc = heldout(&S, nsym, k, lp + (size_t)k * S.total, &m->heldout[k]);
			if (rc < 0) {
				chakra_free(lp);
				return rc;
			}
			m->ntried = k + 1;
			if (m->heldout[k] > m->heldout[best])
				best = k;
		}
		order = best;
		for (int k = 0; k < best; k++) {
			double s1 = 0, s2 = 0, n = (double)S.total;
			for (size_t i = 0; i < S.total; i++) {
				double d = lp[(size_t)best * S.total + i] - lp[(size_t)k * S.total + i];
				s1 += d;
				s2 += d * d;
			}
			double mean = s1 / n, var = n > 1 ? (s2 - s1 * s1 / n) / (n - 1) : 0;
			if (mean <= sqrt(var > 0 ? var : 0) / sqrt(n)) {
				order = k;
				break;
			}
		}
		chakra_free(lp);
	}
	if (order > SY_MAXORDER)
		order = SY_MAXORDER;
	counter C = { .k = order, .nsym = nsym };
	if (order == 0) {
		/* One empty context. */
		C.ctx = chakra_malloc(sizeof *C.ctx);
		C.cnt = chakra_calloc((size_t)nsym, sizeof *C.cnt);
		if (!C.ctx || !C.cnt) {
			counter_free(&C);
			return CHAKRA_ENOMEM;
		}
		C.n = 1;
		for (size_t q = 0; q < nseq; q++)
			for (size_t t = 0; t < lens[q]; t++)
				C.cnt[seqs[q][t]]++;
	} else {
		int rc = count(&C, &S, order, -1, NULL);
		if (rc < 0) {
			counter_free(&C);
			return rc;
		}
	}
	m->order = order;
	m->nctx = C.n;
	m->ctx = C.ctx;
	m->cnt = C.cnt;
	chakra_free(C.ht);
	return 0;
}

int chakra__sy_markov_sample(const sy_markov *m, sy_rng *r, const uint64_t *target,
                             int32_t *out, size_t len)
{
	int nsym = m->nsym, k = m->order;
	if (!len)
		return 0;
	if (nsym <= 0)
		return CHAKRA_EINVAL;
	uint64_t *rem = chakra_malloc((size_t)nsym * sizeof *rem);
	double *w = chakra_malloc((size_t)nsym * sizeof *w);
	double *uni = chakra_calloc((size_t)nsym, sizeof *uni);
	counter C = { .k = k, .nsym = 1 };
	int rc = 0;
	if (!rem || !w || !uni) {
		rc = CHAKRA_ENOMEM;
		goto out;
	}
	memcpy(rem, target, (size_t)nsym * sizeof *rem);
	for (size_t e = 0; e < m->nctx; e++)
		for (int s = 0; s < nsym; s++)
			uni[s] += (double)m->cnt[e * (size_t)nsym + s];
	/* Index the contexts (the counter's own counts are unused). */
	for (size_t e = 0; e < m->nctx && k > 0; e++) {
		int64_t x = counter_find(&C, m->ctx + e * (size_t)k, 1);
		if (x < 0) {
			rc = (int)x;
			goto out;
		}
	}
	int32_t key[SY_MAXORDER + 1];
	for (int i = 0; i < k; i++)
		key[i] = -1;
	for (size_t t = 0; t < len; t++) {
		const uint64_t *row = NULL;
		if (k == 0) {
			row = m->nctx ? m->cnt : NULL;
		} else {
			int64_t e = counter_find(&C, key, 0);
			if (e >= 0)
				row = m->cnt + (size_t)e * nsym;
		}
		double rowsum = 0, usum = 0;
		for (int s = 0; s < nsym; s++) {
			rowsum += row ? (double)row[s] : 0;
			usum += uni[s];
		}
		double left = (double)(len - t), tot = 0;
		for (int s = 0; s < nsym; s++) {
			double p = rowsum > 0 ? (double)row[s] / rowsum : usum > 0 ? uni[s] / usum : 0;
			/* The chain's probability, nudged by how far the symbol's
			 * remaining count is from what this many steps would
			 * give it: 1 while on track, so the targets are met
			 * exactly without distorting the transitions much. */
			double share = (double)target[s] / (double)len;
			w[s] = rem[s] && share > 0 ? p * (double)rem[s] / (share * left) : 0;
			tot += w[s];
		}
		if (!(tot > 0)) {
			for (int s = 0; s < nsym; s++)
				tot += w[s] = (double)rem[s];
		}
		if (!(tot > 0)) {
			rc = CHAKRA_EINVAL; /* targets sum to less than len */
			goto out;
		}
		double u = chakra__sy_rng_uniform(r) * tot, cum = 0;
		int pick = -1;
		for (int s = 0; s < nsym; s++) {
			if (w[s] <= 0)
				continue;
			pick = s;
			cum += w[s];
			if (cum > u)
				break;
		}
		out[t] = pick;
		rem[pick]--;
		for (int i = 0; i + 1 < k; i++)
			key[i] = key[i + 1];
		if (k > 0)
			key[k - 1] = pick;
	}
out:
	counter_free(&C);
	chakra_free(rem);
	chakra_free(w);
	chakra_free(uni);
	return rc;
}

int chakra__sy_markov_matrix(const sy_markov *m, double *p)
{
	if (m->order != 1)
		return CHAKRA_EINVAL;
	int n = m->nsym;
	memset(p, 0, (size_t)n * n * sizeof *p);
	for (size_t e = 0; e < m->nctx; e++) {
		int32_t from = m->ctx[e];
		if (from < 0)
			continue;
		double s = 0;
		for (int j = 0; j < n; j++)
			s += (double)m->cnt[e * n + j];
		for (int j = 0; j < n && s > 0; j++)
			p[(size_t)from * n + j] = (double)m->cnt[e * n + j] / s;
	}
	return 0;
}
