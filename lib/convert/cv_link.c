/* SPDX-License-Identifier: Apache-2.0 */
/* Linking ET nodes to Kineto CPU events (cpu_op and user_annotation), in
 * order of preference:
 *   1. record-function id: ET rf_id == Kineto "Record function id" (when the
 *      Kineto ids are present and not all equal), names equal;
 *   2. external id: ET rf_id == Kineto "External id", names equal (PyTorch
 *      versions that numbered both the same way);
 *   3. name order: per thread, the ET's op sequence aligned to the Kineto
 *      one, pinned by (name, autograd sequence number) pairs when there are
 *      any, else at the best-matching start.
 * The method linking the most ET nodes wins; the summary names it. */
#include <stdlib.h>
#include <string.h>

#include "cv.h"

typedef struct lk {
	const cv_et *et;
	const cv_kin *k;
	uint32_t *kname;   /* ET name index -> Kineto name index (CV_NONE if absent) */
	size_t nnames;
} lk;

static int is_cpu(const cv_kev *e)
{
	return e->kind == CV_K_CPU_OP || e->kind == CV_K_ANNOT;
}

static int linkable(const cv_etnode *n)
{
	return !(n->flags & CV_ET_ROOT);
}

/* ET name -> Kineto name index, by looking the text up in the Kineto table. */
static int map_names(lk *l)
{
	const cv_strtab *es = &l->et->strs;
	l->nnames = es->n;
	l->kname = chakra_malloc((es->n + 1) * sizeof *l->kname);
	if (!l->kname)
		return -1;
	for (size_t i = 0; i < es->n; i++)
		l->kname[i] = CV_NONE;
	cv_strtab *ks = (cv_strtab *)&l->k->strs; /* lookups only */
	for (size_t i = 0; i < l->et->n; i++) {
		uint32_t nm = l->et->nodes[i].name;
		if (l->kname[nm] != CV_NONE)
			continue;
		size_t before = ks->n;
		uint32_t ki = chakra__cv_intern(ks, cv_str(es, nm), cv_strlen(es, nm));
		if (ki == CV_NONE)
			return -1;
		/* a name new to the Kineto table matches no event (the entry is harmless) */
		l->kname[nm] = ks->n > before ? CV_NONE - 1 : ki;
	}
	return 0;
}

static size_t by_id(const lk *l, uint32_t *ket, int use_rf)
{
	const cv_kin *k = l->k;
	cv_map m = { 0 };
	size_t linked = 0;
	for (size_t i = 0; i < k->n; i++) {
		const cv_kev *e = &k->ev[i];
		int64_t key = use_rf ? e->rf_id : e->ext_id;
		if (!is_cpu(e) || key == CV_UNSET || key <= 0)
			continue;
		if (chakra__cv_map_put(&m, (uint64_t)key, (uint32_t)i) < 0) {
			chakra__cv_map_free(&m);
			return (size_t)-1;
		}
	}
	for (size_t i = 0; i < l->et->n; i++) {
		const cv_etnode *n = &l->et->nodes[i];
		ket[i] = CV_NONE;
		if (!linkable(n) || n->rf_id <= 0)
			continue;
		uint32_t e = chakra__cv_map_get(&m, (uint64_t)n->rf_id);
		if (e != CV_NONE && k->ev[e].name == l->kname[n->name]) {
			ket[i] = e;
			linked++;
		}
	}
	chakra__cv_map_free(&m);
	return linked;
}

/* ---- name order ---- */
typedef struct seq {
	int64_t key;       /* ET tid, or Kineto thread (pid, tid) hashed */
	int64_t pid, tid;
	uint32_t *v;
	size_t n, cap;
} seq;

static int before_k(const cv_kin *k, uint32_t a, uint32_t b)
{
	const cv_kev *x = &k->ev[a], *y = &k->ev[b];
	if (x->ts != y->ts)
		return x->ts < y->ts;
	if (x->dur != y->dur)
		return x->dur > y->dur;
	return a < b;
}

static void sort_k(const cv_kin *k, uint32_t *v, size_t n, uint32_t *tmp)
{
	if (n < 12) {
		for (size_t i = 1; i < n; i++) {
			uint32_t x = v[i];
			size_t j = i;
			while (j && before_k(k, x, v[j - 1])) {
				v[j] = v[j - 1];
				j--;
			}
			v[j] = x;
		}
		return;
	}
	size_t h = n / 2;
	sort_k(k, v, h, tmp);
	sort_k(k, v + h, n - h, tmp);
	size_t i = 0, j = h, o = 0;
	while (i < h && j < n)
		tmp[o++] = before_k(k, v[j], v[i]) ? v[j++] : v[i++];
	while (i < h)
		tmp[o++] = v[i++];
	while (j < n)
		tmp[o++] = v[j++];
	memcpy(v, tmp, n * sizeof *v);
}

static void sort_e(const cv_et *et, uint32_t *v, size_t n, uint32_t *tmp)
{
	if (n < 12) {
		for (size_t i = 1; i < n; i++) {
			uint32_t x = v[i];
			size_t j = i;
			while (j && et->nodes[x].id < et->nodes[v[j - 1]].id) {
				v[j] = v[j - 1];
				j--;
			}
			v[j] = x;
		}
		return;
	}
	size_t h = n / 2;
	sort_e(et, v, h, tmp);
	sort_e(et, v + h, n - h, tmp);
	size_t i = 0, j = h, o = 0;
	while (i < h && j < n)
		tmp[o++] = et->nodes[v[j]].id < et->nodes[v[i]].id ? v[j++] : v[i++];
	while (i < h)
		tmp[o++] = v[i++];
	while (j < n)
		tmp[o++] = v[j++];
	memcpy(v, tmp, n * sizeof *v);
}

static seq *seq_get(seq **s, size_t *n, size_t *cap, cv_pmap *m, int64_t pid, int64_t tid)
{
	uint32_t i = chakra__cv_pmap_get(m, pid, tid);
	if (i != CV_NONE)
		return &(*s)[i];
	seq *q = CV_PUSH(*s, *n, *cap);
	if (!q)
		return NULL;
	memset(q, 0, sizeof *q);
	q->pid = pid;
	q->tid = tid;
	if (chakra__cv_pmap_put(m, pid, tid, (uint32_t)(*n - 1)) < 0)
		return NULL;
	return q;
}

#define LOOKAHEAD 48
/* Name-order alignment looks at this many threads on each side at most
 * (real traces have a handful; a hostile file must not make it quadratic). */
#define MAX_ALIGN_THREADS 16

/* Greedy in-order matching of es[ea..eb) into ks[ka..kb); returns matches. */
static size_t greedy(const lk *l, const seq *es, size_t ea, size_t eb, const seq *ks, size_t ka,
                     size_t kb, uint32_t *ket, int commit)
{
	size_t m = 0, kp = ka;
	for (size_t i = ea; i < eb && kp < kb; i++) {
		uint32_t want = l->kname[l->et->nodes[es->v[i]].name];
		size_t lim = kp + LOOKAHEAD < kb ? kp + LOOKAHEAD : kb;
		for (size_t q = kp; q < lim; q++) {
			if (l->k->ev[ks->v[q]].name == want) {
				if (commit)
					ket[es->v[i]] = ks->v[q];
				m++;
				kp = q + 1;
				break;
			}
		}
	}
	return m;
}

/* The same backwards: es[ea..eb) ends just before ks position kb (the first
 * anchor), so match from the end. */
static size_t greedy_rev(const lk *l, const seq *es, size_t ea, size_t eb, const seq *ks,
                         size_t ka, size_t kb, uint32_t *ket)
{
	size_t m = 0, kp = kb;
	for (size_t i = eb; i > ea && kp > ka; i--) {
		uint32_t want = l->kname[l->et->nodes[es->v[i - 1]].name];
		size_t lim = kp > ka + LOOKAHEAD ? kp - LOOKAHEAD : ka;
		for (size_t q = kp; q > lim; q--) {
			if (l->k->ev[ks->v[q - 1]].name == want) {
				ket[es->v[i - 1]] = ks->v[q - 1];
				m++;
				kp = q - 1;
				break;
			}
		}
	}
	return m;
}

static size_t by_order(const lk *l, uint32_t *ket)
{
	const cv_et *et = l->et;
	const cv_kin *k = l->k;
	seq *es = NULL, *ks = NULL;
	size_t nes = 0, escap = 0, nks = 0, kscap = 0, linked = 0;
	uint32_t *tmp = chakra_malloc((et->n > k->n ? et->n : k->n) * sizeof *tmp + 4);
	cv_map anchor = { 0 };
	cv_pmap esm = { 0 }, ksm = { 0 };
	if (!tmp)
		goto fail;
	for (size_t i = 0; i < et->n; i++) {
		ket[i] = CV_NONE;
		if (!linkable(&et->nodes[i]))
			continue;
		seq *q = seq_get(&es, &nes, &escap, &esm, 0, et->nodes[i].tid);
		if (!q || !CV_PUSH(q->v, q->n, q->cap))
			goto fail;
		q->v[q->n - 1] = (uint32_t)i;
	}
	for (size_t i = 0; i < k->n; i++) {
		if (!is_cpu(&k->ev[i]))
			continue;
		seq *q = seq_get(&ks, &nks, &kscap, &ksm, k->ev[i].pid, k->ev[i].tid);
		if (!q || !CV_PUSH(q->v, q->n, q->cap))
			goto fail;
		q->v[q->n - 1] = (uint32_t)i;
	}
	for (size_t i = 0; i < nes; i++)
		sort_e(et, es[i].v, es[i].n, tmp);
	for (size_t i = 0; i < nks; i++)
		sort_k(k, ks[i].v, ks[i].n, tmp);
	/* threads with anchors first; the others are then placed in time
	 * between the ops of the aligned threads that surround them in id
	 * (start) order */
	size_t nkt = nks < MAX_ALIGN_THREADS ? nks : MAX_ALIGN_THREADS;
	for (int pass = 0; pass < 2; pass++)
	for (size_t t = 0; t < nes && t < MAX_ALIGN_THREADS; t++) {
		seq *e = &es[t];
		if (pass == 1 && e->key)
			continue;
		/* (name, sequence number) pairs pin the alignment; pick the Kineto
		 * thread holding most of them, else the one whose start matches
		 * best */
		size_t best_k = (size_t)-1, best_votes = 0;
		for (size_t q = 0; q < nkt; q++) {
			chakra__cv_map_free(&anchor);
			for (size_t j = 0; j < ks[q].n; j++) {
				const cv_kev *v = &k->ev[ks[q].v[j]];
				if (v->seq == CV_UNSET || v->seq < 0)
					continue;
				uint64_t key = ((uint64_t)v->name << 40) ^ (uint64_t)v->seq;
				uint32_t old = chakra__cv_map_get(&anchor, key);
				if (chakra__cv_map_put(&anchor, key, old == CV_NONE ? (uint32_t)j : CV_NONE - 1) < 0)
					goto fail;
			}
			size_t votes = 0;
			for (size_t j = 0; j < e->n; j++) {
				const cv_etnode *n = &et->nodes[e->v[j]];
				uint32_t kn = l->kname[n->name];
				if (n->seq_id < 0 || kn >= CV_NONE - 1)
					continue;
				uint32_t p = chakra__cv_map_get(&anchor, ((uint64_t)kn << 40) ^ (uint64_t)n->seq_id);
				votes += p < CV_NONE - 1;
			}
			if (votes > best_votes) {
				best_votes = votes;
				best_k = q;
			}
		}
		size_t start_k = 0;
		if (pass == 0 && best_k == (size_t)-1)
			continue; /* second pass */
		e->key = 1;
		if (best_k == (size_t)-1) {
			/* no anchors: the thread and start where the first ops match best */
			size_t best = 0;
			size_t probe = e->n < 64 ? e->n : 64;
			int64_t tl = INT64_MIN, tu = INT64_MAX;
			if (e->n) {
				uint64_t x = et->nodes[e->v[0]].id, lo_id = 0, hi_id = UINT64_MAX;
				for (size_t i = 0; i < et->n; i++) {
					uint64_t id = et->nodes[i].id;
					if (ket[i] == CV_NONE)
						continue;
					if (id < x && id >= lo_id) {
						lo_id = id;
						tl = k->ev[ket[i]].ts;
					} else if (id > x && id < hi_id) {
						hi_id = id;
						tu = k->ev[ket[i]].ts + k->ev[ket[i]].dur;
					}
				}
			}
			for (int bounded = 1; bounded >= 0 && best_k == (size_t)-1; bounded--)
			for (size_t q = 0; q < nkt; q++) {
				uint32_t want = e->n ? l->kname[et->nodes[e->v[0]].name] : CV_NONE;
				size_t tried = 0;
				for (size_t p = 0; p < ks[q].n && tried < 64; p++) {
					if (k->ev[ks[q].v[p]].name != want)
						continue;
					if (bounded && (k->ev[ks[q].v[p]].ts < tl || k->ev[ks[q].v[p]].ts > tu))
						continue;
					tried++;
					size_t m = greedy(l, e, 0, probe, &ks[q], p, ks[q].n, ket, 0);
					if (m > best) {
						best = m;
						best_k = q;
						start_k = p;
					}
				}
			}
			if (best_k == (size_t)-1)
				continue;
			linked += greedy(l, e, 0, e->n, &ks[best_k], start_k, ks[best_k].n, ket, 1);
			continue;
		}
		/* anchors in the chosen thread, kept while monotone */
		seq *kq = &ks[best_k];
		chakra__cv_map_free(&anchor);
		for (size_t j = 0; j < kq->n; j++) {
			const cv_kev *v = &k->ev[kq->v[j]];
			if (v->seq == CV_UNSET || v->seq < 0)
				continue;
			uint64_t key = ((uint64_t)v->name << 40) ^ (uint64_t)v->seq;
			uint32_t old = chakra__cv_map_get(&anchor, key);
			if (chakra__cv_map_put(&anchor, key, old == CV_NONE ? (uint32_t)j : CV_NONE - 1) < 0)
				goto fail;
		}
		size_t ep = 0, kp = 0;
		for (size_t j = 0; j < e->n; j++) {
			const cv_etnode *n = &et->nodes[e->v[j]];
			uint32_t kn = l->kname[n->name];
			if (n->seq_id < 0 || kn >= CV_NONE - 1)
				continue;
			uint32_t p = chakra__cv_map_get(&anchor, ((uint64_t)kn << 40) ^ (uint64_t)n->seq_id);
			if (p >= CV_NONE - 1 || p < kp)
				continue;
			/* the ops between the previous anchor and this one (before the
			 * first: matched backwards from it) */
			if (ep == 0)
				linked += greedy_rev(l, e, 0, j, kq, 0, p, ket);
			else
				linked += greedy(l, e, ep, j, kq, kp, p, ket, 1);
			ket[e->v[j]] = kq->v[p];
			linked++;
			ep = j + 1;
			kp = p + 1;
		}
		/* after the last anchor: as far as the ops keep matching */
		linked += greedy(l, e, ep, e->n, kq, kp, kq->n, ket, 1);
	}
	goto out;
fail:
	linked = (size_t)-1;
out:
	for (size_t i = 0; i < nes; i++)
		chakra_free(es[i].v);
	for (size_t i = 0; i < nks; i++)
		chakra_free(ks[i].v);
	chakra_free(es), chakra_free(ks), chakra_free(tmp);
	chakra__cv_map_free(&anchor);
	chakra__cv_pmap_free(&esm);
	chakra__cv_pmap_free(&ksm);
	return linked;
}

/* ET ids are taken from one counter as ops start, on every thread: id
 * order is start order. Links whose Kineto starts go against it (a name
 * matched to another occurrence of the same op) are wrong; keep the largest
 * set that agrees with it (a longest non-decreasing subsequence of the
 * starts in id order) and drop the others. The number dropped, or -1. */
static long keep_ordered(const cv_et *et, const cv_kin *k, uint32_t *ket)
{
	size_t n = 0;
	for (size_t i = 0; i < et->n; i++)
		n += ket[i] != CV_NONE;
	if (n < 2)
		return 0;
	uint32_t *v = chakra_malloc(n * sizeof *v), *tmp = chakra_malloc(n * sizeof *tmp);
	uint32_t *tail = chakra_malloc(n * sizeof *tail), *prev = chakra_malloc(n * sizeof *prev);
	if (!v || !tmp || !tail || !prev) {
		chakra_free(v), chakra_free(tmp), chakra_free(tail), chakra_free(prev);
		return -1;
	}
	n = 0;
	for (size_t i = 0; i < et->n; i++)
		if (ket[i] != CV_NONE)
			v[n++] = (uint32_t)i;
	sort_e(et, v, n, tmp);
	/* tail[j]: position (in v) ending the best run of length j+1 */
	size_t len = 0;
	for (size_t p = 0; p < n; p++) {
		int64_t t = k->ev[ket[v[p]]].ts;
		size_t lo = 0, hi = len;
		while (lo < hi) { /* the first run whose end starts after t */
			size_t mid = (lo + hi) / 2;
			if (k->ev[ket[v[tail[mid]]]].ts <= t)
				lo = mid + 1;
			else
				hi = mid;
		}
		prev[p] = lo ? tail[lo - 1] : CV_NONE;
		tail[lo] = (uint32_t)p;
		if (lo == len)
			len++;
	}
	memset(tmp, 0, n * sizeof *tmp); /* 1: kept */
	for (uint32_t p = len ? tail[len - 1] : CV_NONE; p != CV_NONE; p = prev[p])
		tmp[p] = 1;
	long dropped = 0;
	for (size_t p = 0; p < n; p++)
		if (!tmp[p]) {
			ket[v[p]] = CV_NONE;
			dropped++;
		}
	chakra_free(v), chakra_free(tmp), chakra_free(tail), chakra_free(prev);
	return dropped;
}

int chakra__cv_link(const cv_et *et, const cv_kin *k, uint32_t *ket, chakra_convert_summary *s,
                    cv_err *err)
{
	lk l = { et, k, NULL, 0 };
	uint32_t *alt = chakra_malloc((et->n + 1) * sizeof *alt);
	if (!alt || map_names(&l) < 0) {
		chakra_free(alt);
		chakra_free(l.kname);
		return chakra__cv_fail(err, CHAKRA_ENOMEM, err->file, NULL, -1, -1, "out of memory");
	}
	size_t linkable_n = 0;
	for (size_t i = 0; i < et->n; i++)
		linkable_n += linkable(&et->nodes[i]);
	size_t best = 0;
	const char *method = "";
	for (size_t i = 0; i < et->n; i++)
		ket[i] = CV_NONE;
	struct {
		const char *name;
		int m;
	} tries[3] = { { "record-function id", 1 }, { "external id", 2 }, { "name order", 3 } };
	for (int t = 0; t < 3; t++) {
		if (tries[t].m == 1 && !k->rf_ids_usable)
			continue;
		size_t got = tries[t].m == 3 ? by_order(&l, alt) : by_id(&l, alt, tries[t].m == 1);
		if (got == (size_t)-1) {
			chakra_free(alt);
			chakra_free(l.kname);
			return chakra__cv_fail(err, CHAKRA_ENOMEM, err->file, NULL, -1, -1, "out of memory");
		}
		if (got > best) {
			best = got;
			method = tries[t].name;
			memcpy(ket, alt, et->n * sizeof *ket);
		}
		if (best * 10 >= linkable_n * 9)
			break; /* 90%: good enough, keep the preferred method */
	}
	long dropped = keep_ordered(et, k, ket);
	if (dropped < 0) {
		chakra_free(alt);
		chakra_free(l.kname);
		return chakra__cv_fail(err, CHAKRA_ENOMEM, err->file, NULL, -1, -1, "out of memory");
	}
	s->et_ops_linked = best - (size_t)dropped;
	s->link_method = method;
	chakra_free(alt);
	chakra_free(l.kname);
	return 0;
}
