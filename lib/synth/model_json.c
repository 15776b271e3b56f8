/* SPDX-License-Identifier: Apache-2.0 */
/* MODEL.json: the model as JSON, written by hand (fixed key order, %.17g
 * numbers, so the same model gives the same bytes) and read with YAJL's
 * tree parser. The reader is a parser of untrusted input (fuzzed by
 * tests/fuzz/fuzz_synth_model.c): every value is checked for type and
 * range, and errors name the JSON path of the bad value. Format:
 * docs/synth.md. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yajl/yajl_tree.h>

#include "jguard.h"
#include "synth_impl.h"
#include "outfile.h"

#define FORMAT "chakra-synth-model"
#define VERSION 1

/* ---------------- the fields both directions share ---------------- */
/* A record's histograms, in the order they are written and read: key,
 * where the record holds it, the least value it may hold. */
typedef struct hist_field {
	const char *key;
	size_t off;
	uint64_t minv;
} hist_field;

#define HF(type, key, member, minv) { key, offsetof(type, member), minv }
static const hist_field class_hists[] = {
	HF(sy_class, "fanin", fanin, 0),
	HF(sy_class, "nearest", nearest, 1),
	HF(sy_class, "distance", dist, 1),
	HF(sy_class, "fanout", fanout, 0),
};
static const hist_field coll_hists[] = {
	HF(sy_coll, "fanin_compute", fanin_c, 0),
	HF(sy_coll, "nearest_compute", near_c, 1),
	HF(sy_coll, "distance_compute", dist_c, 1),
	HF(sy_coll, "fanin_collective", fanin_x, 0),
	HF(sy_coll, "distance_collective", dist_x, 1),
	HF(sy_coll, "later_consumer_distance", dist_f, 1),
};
static const hist_field tok_hists[] = {
	HF(sy_tok, "gap", gap, 0),
	HF(sy_tok, "first_consumer", first, 1),
	HF(sy_tok, "consumers", consumers, 0),
};
static const hist_field model_hists[] = {
	HF(struct chakra_synth_model, "lead", lead, 0),
	HF(struct chakra_synth_model, "tail", tail, 0),
};
#undef HF
#define NFIELDS(t) (sizeof(t) / sizeof *(t))

/* What fit left out ("dropped"): counts, read leniently (a model
 * without them is still a model). */
static const struct {
	const char *key;
	size_t off;
} dropped_fields[] = {
	{ "self_deps", offsetof(struct chakra_synth_model, self_deps) },
	{ "missing_deps", offsetof(struct chakra_synth_model, missing_deps) },
	{ "cycle_edges", offsetof(struct chakra_synth_model, cycle_edges) },
	{ "pg_name_without_groups", offsetof(struct chakra_synth_model, pg_ignored) },
};

static sy_hist *hist_at(void *rec, const hist_field *f)
{
	return (sy_hist *)((char *)rec + f->off);
}

static uint64_t *u64_at(void *rec, size_t off)
{
	return (uint64_t *)((char *)rec + off);
}

/* ---------------- writing ---------------- */
typedef struct sbuf {
	char *p;
	size_t n, cap;
	int oom;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...) SY_PRINTF(2, 3);
static void sb_printf(sbuf *b, const char *fmt, ...)
{
	if (b->oom)
		return;
	for (;;) {
		va_list ap;
		va_start(ap, fmt);
		int k = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? b->cap - b->n : 0, fmt, ap);
		va_end(ap);
		if (k < 0) {
			b->oom = 1;
			return;
		}
		if (b->p && (size_t)k < b->cap - b->n) {
			b->n += (size_t)k;
			return;
		}
		size_t cap = b->cap ? b->cap * 2 : 4096;
		while (cap < b->n + (size_t)k + 1)
			cap *= 2;
		char *p = chakra_realloc(b->p, cap);
		if (!p) {
			b->oom = 1;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
}

static void sb_num(sbuf *b, double x)
{
	if (!isfinite(x) || x == 0)
		x = 0; /* never produced by fit; keeps the output JSON; and -0
		        * as 0, since "-0" reads back as the integer 0 */
	char t[40];
	snprintf(t, sizeof t, "%.17g", x);
	/* Shortest form that reads back to the same double. */
	for (int prec = 6; prec < 17; prec++) {
		char s[40];
		snprintf(s, sizeof s, "%.*g", prec, x);
		if (strtod(s, NULL) == x) {
			memcpy(t, s, sizeof s);
			break;
		}
	}
	sb_printf(b, "%s", t);
}

static void put_hist(sbuf *b, const char *key, const sy_hist *h, const char *ind)
{
	sb_printf(b, "%s\"%s\": [", ind, key);
	for (size_t i = 0; i < h->n; i++)
		sb_printf(b, "%s[%llu, %llu]", i ? ", " : "", (unsigned long long)h->v[i],
		          (unsigned long long)h->c[i]);
	sb_printf(b, "]");
}

/* A record's histograms, each after ",\n" (the first too when sep_first). */
static void put_hists(sbuf *b, const void *rec, const hist_field *f, size_t n, int sep_first,
                      const char *ind)
{
	for (size_t i = 0; i < n; i++) {
		if (i || sep_first)
			sb_printf(b, ",\n");
		put_hist(b, f[i].key, hist_at((void *)rec, &f[i]), ind);
	}
}

static void put_gmm(sbuf *b, const char *key, const sy_gmm *g, const char *ind)
{
	sb_printf(b, "%s\"%s\": {\"n\": %llu, \"loglik\": ", ind, key, (unsigned long long)g->n);
	sb_num(b, g->loglik);
	sb_printf(b, ", \"bic\": [");
	for (int i = 0; i < g->ntried; i++) {
		sb_printf(b, "%s", i ? ", " : "");
		sb_num(b, g->bic[i]);
	}
	sb_printf(b, "],\n%s  \"components\": [", ind);
	for (int i = 0; i < g->k; i++) {
		sb_printf(b, "%s{\"weight\": ", i ? ", " : "");
		sb_num(b, g->w[i]);
		sb_printf(b, ", \"mean\": ");
		sb_num(b, g->mu[i]);
		sb_printf(b, ", \"sd\": ");
		sb_num(b, g->sd[i]);
		sb_printf(b, "}");
	}
	sb_printf(b, "]}");
}

static void put_markov(sbuf *b, const char *key, const sy_markov *m)
{
	sb_printf(b, "  \"%s\": {\"order\": %d, \"heldout_loglik_per_symbol\": [", key, m->order);
	for (int i = 0; i < m->ntried; i++) {
		sb_printf(b, "%s", i ? ", " : "");
		sb_num(b, m->heldout[i]);
	}
	sb_printf(b, "],\n    \"contexts\": [");
	for (size_t e = 0; e < m->nctx; e++) {
		sb_printf(b, "%s\n      {\"context\": [", e ? "," : "");
		for (int i = 0; i < m->order; i++)
			sb_printf(b, "%s%d", i ? ", " : "", m->ctx[e * (size_t)m->order + i]);
		sb_printf(b, "], \"next\": [");
		for (int s = 0; s < m->nsym; s++)
			sb_printf(b, "%s%llu", s ? ", " : "",
			          (unsigned long long)m->cnt[e * (size_t)m->nsym + s]);
		sb_printf(b, "]}");
	}
	sb_printf(b, "]}");
}

static const char *group_str(const sy_coll *c, char *buf, size_t cap)
{
	if (c->group == SY_GROUP_BLOCK)
		snprintf(buf, cap, "block:%u", c->gparam);
	else if (c->group == SY_GROUP_STRIDE)
		snprintf(buf, cap, "stride:%u", c->gparam);
	else
		snprintf(buf, cap, "all");
	return buf;
}

char *chakra_synth_model_json(const chakra_synth_model *m, size_t *len)
{
	if (!m)
		return NULL;
	sbuf b = { 0 };
	sb_printf(&b, "{\n  \"format\": \"%s\",\n  \"version\": %d,\n", FORMAT, VERSION);
	sb_printf(&b, "  \"ranks\": %u,\n  \"nodes_per_rank\": ", m->ranks);
	sb_num(&b, m->nodes_per_rank);
	sb_printf(&b, ",\n  \"duration_quantum_ns\": %llu,\n", (unsigned long long)m->quantum_ns);
	sb_printf(&b, "  \"dropped\": {");
	for (size_t i = 0; i < NFIELDS(dropped_fields); i++)
		sb_printf(&b, "%s\"%s\": %llu", i ? ", " : "", dropped_fields[i].key,
		          (unsigned long long)*u64_at((void *)m, dropped_fields[i].off));
	sb_printf(&b, "},\n");
	sb_printf(&b, "  \"compute_classes\": [");
	for (size_t i = 0; i < m->ncls; i++) {
		const sy_class *c = &m->cls[i];
		sb_printf(&b, "%s\n    {\"name\": \"%s\", \"node_type\": \"%s\", \"count\": %llu, "
		              "\"mean\": ", i ? "," : "", chakra__sy_class_name(c->vocab),
		          chakra_node_type_name(c->node_type), (unsigned long long)c->count);
		sb_num(&b, c->mean);
		sb_printf(&b, ",\n");
		put_gmm(&b, "duration", &c->dur, "     ");
		put_hists(&b, c, class_hists, NFIELDS(class_hists), 1, "     ");
		sb_printf(&b, "}");
	}
	sb_printf(&b, "],\n  \"collectives\": [");
	for (size_t i = 0; i < m->ncoll; i++) {
		const sy_coll *c = &m->coll[i];
		char g[32];
		sb_printf(&b, "%s\n    {\"comm_type\": \"%s\", \"group\": \"%s\", \"count\": %llu, "
		              "\"mean\": ", i ? "," : "", chakra_comm_type_name(c->comm_type),
		          group_str(c, g, sizeof g), (unsigned long long)c->count);
		sb_num(&b, c->mean);
		sb_printf(&b, ",\n");
		put_gmm(&b, "size", &c->size, "     ");
		put_hists(&b, c, coll_hists, NFIELDS(coll_hists), 1, "     ");
		sb_printf(&b, "}");
	}
	sb_printf(&b, "],\n  \"collective_tokens\": [");
	for (size_t i = 0; i < m->ntok; i++) {
		const sy_tok *t = &m->tok[i];
		sb_printf(&b, "%s\n    {\"collective\": %d, \"overlap\": %d, \"count\": %llu,\n",
		          i ? "," : "", t->coll, t->bucket, (unsigned long long)t->count);
		put_hists(&b, t, tok_hists, NFIELDS(tok_hists), 0, "     ");
		sb_printf(&b, "}");
	}
	sb_printf(&b, "],\n");
	put_markov(&b, "collective_sequence", &m->cseq);
	sb_printf(&b, ",\n");
	put_markov(&b, "compute_sequence", &m->kseq);
	put_hists(&b, m, model_hists, NFIELDS(model_hists), 1, "  ");
	sb_printf(&b, "\n}\n");
	if (b.oom) {
		chakra_free(b.p);
		return NULL;
	}
	if (len)
		*len = b.n;
	return b.p;
}

int chakra_synth_model_save(const chakra_synth_model *m, const char *path, int overwrite,
                            char *err, size_t errlen)
{
	if (!m || !path)
		return chakra__sy_err(err, errlen, CHAKRA_EINVAL, "%s: NULL argument", __func__);
	size_t len;
	char *text = chakra_synth_model_json(m, &len);
	if (!text)
		return chakra__sy_err(err, errlen, CHAKRA_ENOMEM, "out of memory");
	/* the output rule (outfile.h): "-" is stdout, a device is written
	 * into, a file replaced only with overwrite, through a temporary */
	chakra__out out;
	chakra__out_opts oo = { overwrite, 1, NULL, 0, "set overwrite (-f)" };
	int rc = chakra__out_open(&out, path, &oo, err, errlen);
	if (rc == 0 && fwrite(text, 1, len, out.f) != len)
		rc = chakra__sy_err(err, errlen, CHAKRA_EIO, "%s: write error", path);
	if (rc == 0)
		rc = chakra__out_commit(&out, err, errlen);
	chakra__out_abort(&out);
	chakra_free(text);
	return rc;
}

/* ---------------- reading ---------------- */
typedef struct rd {
	const char *name;
	char *err;
	size_t errlen;
	char path[256];        /* JSON path of the value being read */
} rd;

static int bad(rd *R, const char *fmt, ...) SY_PRINTF(2, 3);
static int bad(rd *R, const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return chakra__sy_err(R->err, R->errlen, CHAKRA_ECONFIG, "%s: %s: %s", R->name,
	                      R->path[0] ? R->path : "(top level)", msg);
}

/* Path handling: push ".key" or "[i]", pop back to a saved length. */
static size_t push_key(rd *R, const char *k)
{
	size_t at = strlen(R->path);
	snprintf(R->path + at, sizeof R->path - at, "%s%s", at ? "." : "", k);
	return at;
}

static size_t push_idx(rd *R, size_t i)
{
	size_t at = strlen(R->path);
	snprintf(R->path + at, sizeof R->path - at, "[%zu]", i);
	return at;
}

static void pop(rd *R, size_t at)
{
	R->path[at] = 0;
}

static yajl_val get(yajl_val obj, const char *key)
{
	if (!YAJL_IS_OBJECT(obj))
		return NULL;
	for (size_t i = 0; i < obj->u.object.len; i++)
		if (!strcmp(obj->u.object.keys[i], key))
			return obj->u.object.values[i];
	return NULL;
}

static int need(rd *R, yajl_val obj, const char *key, yajl_val *out)
{
	*out = get(obj, key);
	if (!*out) {
		size_t at = push_key(R, key);
		int rc = bad(R, "missing");
		pop(R, at);
		return rc;
	}
	return 0;
}

/* Unsigned integer in [lo, hi]. */
static int read_u64(rd *R, yajl_val obj, const char *key, uint64_t lo, uint64_t hi, uint64_t *out)
{
	yajl_val v;
	int rc = need(R, obj, key, &v);
	if (rc < 0)
		return rc;
	size_t at = push_key(R, key);
	if (!YAJL_IS_INTEGER(v) || YAJL_GET_INTEGER(v) < 0 || (uint64_t)YAJL_GET_INTEGER(v) < lo ||
	    (uint64_t)YAJL_GET_INTEGER(v) > hi)
		rc = bad(R, "expected an integer in [%llu, %llu]", (unsigned long long)lo,
		         (unsigned long long)hi);
	else
		*out = (uint64_t)YAJL_GET_INTEGER(v);
	pop(R, at);
	return rc;
}

static int num_of(yajl_val v, double *out)
{
	if (!YAJL_IS_NUMBER(v))
		return -1;
	if (YAJL_IS_INTEGER(v))
		*out = (double)YAJL_GET_INTEGER(v);
	else if (YAJL_IS_DOUBLE(v))
		*out = YAJL_GET_DOUBLE(v);
	else
		return -1;
	return isfinite(*out) ? 0 : -1;
}

static int read_num(rd *R, yajl_val obj, const char *key, double lo, double hi, double *out)
{
	yajl_val v;
	int rc = need(R, obj, key, &v);
	if (rc < 0)
		return rc;
	size_t at = push_key(R, key);
	double x;
	if (num_of(v, &x) < 0 || !(x >= lo && x <= hi))
		rc = bad(R, "expected a number in [%g, %g]", lo, hi);
	else
		*out = x;
	pop(R, at);
	return rc;
}

static int read_str(rd *R, yajl_val obj, const char *key, const char **out)
{
	yajl_val v;
	int rc = need(R, obj, key, &v);
	if (rc < 0)
		return rc;
	if (!YAJL_IS_STRING(v)) {
		size_t at = push_key(R, key);
		rc = bad(R, "expected a string");
		pop(R, at);
		return rc;
	}
	*out = YAJL_GET_STRING(v);
	return 0;
}

#define MAX_HIST 10000000u

/* [[value, count], ...], values ascending, counts >= 1. */
static int read_hist(rd *R, yajl_val obj, const char *key, uint64_t minv, sy_hist *h)
{
	yajl_val a;
	int rc = need(R, obj, key, &a);
	if (rc < 0)
		return rc;
	size_t at = push_key(R, key);
	if (!YAJL_IS_ARRAY(a)) {
		rc = bad(R, "expected a list of [value, count] pairs");
		pop(R, at);
		return rc;
	}
	size_t n = a->u.array.len;
	uint64_t *v = chakra_malloc((n ? n : 1) * sizeof *v), *c = chakra_malloc((n ? n : 1) * sizeof *c);
	if (!v || !c) {
		chakra_free(v);
		chakra_free(c);
		pop(R, at);
		return CHAKRA_ENOMEM;
	}
	uint64_t total = 0;
	for (size_t i = 0; i < n; i++) {
		yajl_val p = a->u.array.values[i];
		size_t at2 = push_idx(R, i);
		if (!YAJL_IS_ARRAY(p) || p->u.array.len != 2 || !YAJL_IS_INTEGER(p->u.array.values[0]) ||
		    !YAJL_IS_INTEGER(p->u.array.values[1]))
			rc = bad(R, "expected [value, count] integers");
		else if (YAJL_GET_INTEGER(p->u.array.values[0]) < 0 ||
		         (uint64_t)YAJL_GET_INTEGER(p->u.array.values[0]) < minv ||
		         (uint64_t)YAJL_GET_INTEGER(p->u.array.values[0]) > ((uint64_t)1 << 62))
			rc = bad(R, "value out of range [%llu, 2^62]", (unsigned long long)minv);
		else if (YAJL_GET_INTEGER(p->u.array.values[1]) < 1 ||
		         YAJL_GET_INTEGER(p->u.array.values[1]) > ((int64_t)1 << 50))
			rc = bad(R, "count out of range [1, 2^50]");
		else if (i && (uint64_t)YAJL_GET_INTEGER(p->u.array.values[0]) <= v[i - 1])
			rc = bad(R, "values must be strictly ascending");
		if (rc < 0) {
			pop(R, at2);
			break;
		}
		v[i] = (uint64_t)YAJL_GET_INTEGER(p->u.array.values[0]);
		c[i] = (uint64_t)YAJL_GET_INTEGER(p->u.array.values[1]);
		total += c[i];
		if (total > ((uint64_t)1 << 52)) {
			rc = bad(R, "counts add up to more than 2^52");
			pop(R, at2);
			break;
		}
		pop(R, at2);
	}
	pop(R, at);
	if (rc < 0) {
		chakra_free(v);
		chakra_free(c);
		return rc;
	}
	if (!n) {
		chakra_free(v);
		chakra_free(c);
		memset(h, 0, sizeof *h);
		return 0;
	}
	return chakra__sy_hist_adopt(h, v, c, n);
}

/* A record's histograms, in table order; the first error stops. */
static int read_hists(rd *R, yajl_val obj, void *rec, const hist_field *f, size_t n)
{
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = read_hist(R, obj, f[i].key, f[i].minv, hist_at(rec, &f[i]));
	return rc;
}

static int read_gmm(rd *R, yajl_val obj, const char *key, sy_gmm *g)
{
	yajl_val o;
	int rc = need(R, obj, key, &o);
	if (rc < 0)
		return rc;
	memset(g, 0, sizeof *g);
	size_t at = push_key(R, key);
	yajl_val comps;
	uint64_t n = 0;
	if (!YAJL_IS_OBJECT(o)) {
		rc = bad(R, "expected an object");
		goto out;
	}
	if ((rc = read_u64(R, o, "n", 0, (uint64_t)1 << 52, &n)) < 0)
		goto out;
	g->n = n;
	yajl_val ll = get(o, "loglik");
	if (ll && num_of(ll, &g->loglik) < 0)
		g->loglik = 0;
	yajl_val bic = get(o, "bic");
	if (YAJL_IS_ARRAY(bic))
		for (size_t i = 0; i < bic->u.array.len && i < SY_MAXK; i++)
			if (num_of(bic->u.array.values[i], &g->bic[i]) == 0)
				g->ntried = (int)i + 1;
	if ((rc = need(R, o, "components", &comps)) < 0)
		goto out;
	size_t at2 = push_key(R, "components");
	if (!YAJL_IS_ARRAY(comps) || comps->u.array.len > SY_MAXK ||
	    (!comps->u.array.len && n)) {
		rc = bad(R, "expected a list of 1 to %d components", SY_MAXK);
		pop(R, at2);
		goto out;
	}
	double wsum = 0;
	for (size_t i = 0; i < comps->u.array.len; i++) {
		yajl_val c = comps->u.array.values[i];
		size_t at3 = push_idx(R, i);
		if (!YAJL_IS_OBJECT(c))
			rc = bad(R, "expected {\"weight\", \"mean\", \"sd\"}");
		if (rc == 0)
			rc = read_num(R, c, "weight", 0, 1, &g->w[i]);
		if (rc == 0)
			rc = read_num(R, c, "mean", -745, 700, &g->mu[i]);
		if (rc == 0)
			rc = read_num(R, c, "sd", 1e-300, 100, &g->sd[i]);
		if (rc == 0 && !(g->sd[i] > 0)) {
			size_t at4 = push_key(R, "sd");
			rc = bad(R, "must be positive");
			pop(R, at4);
		}
		pop(R, at3);
		if (rc < 0)
			break;
		wsum += g->w[i];
	}
	if (rc == 0 && comps->u.array.len && fabs(wsum - 1.0) > 1e-6)
		rc = bad(R, "weights add up to %.9g, not 1", wsum);
	pop(R, at2);
	if (rc == 0)
		g->k = (int)comps->u.array.len;
out:
	pop(R, at);
	return rc;
}

static int read_markov(rd *R, yajl_val obj, const char *key, int nsym, int fixed_order,
                       sy_markov *m)
{
	yajl_val o;
	int rc = need(R, obj, key, &o);
	if (rc < 0)
		return rc;
	memset(m, 0, sizeof *m);
	m->nsym = nsym;
	size_t at = push_key(R, key);
	uint64_t order = 0;
	yajl_val ctxs;
	if (!YAJL_IS_OBJECT(o)) {
		rc = bad(R, "expected an object");
		goto out;
	}
	if ((rc = read_u64(R, o, "order", 0, SY_MAXORDER, &order)) < 0)
		goto out;
	if (fixed_order >= 0 && order != (uint64_t)fixed_order) {
		size_t at2 = push_key(R, "order");
		rc = bad(R, "must be %d", fixed_order);
		pop(R, at2);
		goto out;
	}
	m->order = (int)order;
	yajl_val ho = get(o, "heldout_loglik_per_symbol");
	if (YAJL_IS_ARRAY(ho))
		for (size_t i = 0; i < ho->u.array.len && i <= SY_MAXORDER; i++)
			if (num_of(ho->u.array.values[i], &m->heldout[i]) == 0)
				m->ntried = (int)i + 1;
	if ((rc = need(R, o, "contexts", &ctxs)) < 0)
		goto out;
	size_t at2 = push_key(R, "contexts");
	size_t n = YAJL_IS_ARRAY(ctxs) ? ctxs->u.array.len : 0;
	if (!YAJL_IS_ARRAY(ctxs) || (nsym > 0 && !n) || (order == 0 && n > 1)) {
		rc = bad(R, "expected a list of contexts (one when the order is 0)");
		pop(R, at2);
		goto out;
	}
	if ((uint64_t)n * (uint64_t)(nsym ? nsym : 1) > 50000000u) {
		rc = bad(R, "too large (%zu contexts x %d symbols)", n, nsym);
		pop(R, at2);
		goto out;
	}
	m->ctx = chakra_malloc((n * order + 1) * sizeof *m->ctx);
	m->cnt = chakra_calloc(n * (size_t)nsym + 1, sizeof *m->cnt);
	if (!m->ctx || !m->cnt) {
		pop(R, at2);
		rc = CHAKRA_ENOMEM;
		goto out;
	}
	for (size_t e = 0; e < n && rc == 0; e++) {
		yajl_val c = ctxs->u.array.values[e];
		size_t at3 = push_idx(R, e);
		yajl_val cx = get(c, "context"), nx = get(c, "next");
		if (!YAJL_IS_ARRAY(cx) || cx->u.array.len != order) {
			rc = bad(R, "\"context\" must list %llu symbols", (unsigned long long)order);
		} else if (!YAJL_IS_ARRAY(nx) || nx->u.array.len != (size_t)nsym) {
			rc = bad(R, "\"next\" must list %d counts", nsym);
		} else {
			for (size_t i = 0; i < order && rc == 0; i++) {
				yajl_val s = cx->u.array.values[i];
				if (!YAJL_IS_INTEGER(s) || YAJL_GET_INTEGER(s) < -1 ||
				    YAJL_GET_INTEGER(s) >= nsym)
					rc = bad(R, "context symbol %zu is not in [-1, %d)", i, nsym);
				else
					m->ctx[e * order + i] = (int32_t)YAJL_GET_INTEGER(s);
			}
			for (int s = 0; s < nsym && rc == 0; s++) {
				yajl_val v = nx->u.array.values[s];
				if (!YAJL_IS_INTEGER(v) || YAJL_GET_INTEGER(v) < 0 ||
				    YAJL_GET_INTEGER(v) > ((int64_t)1 << 50))
					rc = bad(R, "count %d is not an integer in [0, 2^50]", s);
				else
					m->cnt[e * (size_t)nsym + s] = (uint64_t)YAJL_GET_INTEGER(v);
			}
			/* A symbol after -1 cannot be followed by... -1 only at the
			 * start: the context is -1 ... -1 s ... s. */
			for (size_t i = 1; i < order && rc == 0; i++)
				if (m->ctx[e * order + i] == -1 && m->ctx[e * order + i - 1] != -1)
					rc = bad(R, "-1 (before the start) may only lead a context");
			for (size_t q = 0; q < e && rc == 0; q++)
				if (order && !memcmp(m->ctx + q * order, m->ctx + e * order,
				                     order * sizeof *m->ctx))
					rc = bad(R, "the same context as contexts[%zu]", q);
		}
		pop(R, at3);
		m->nctx = e + 1;
	}
	pop(R, at2);
out:
	pop(R, at);
	if (rc < 0)
		chakra__sy_markov_free(m);
	return rc;
}

static int read_tokens(rd *R, yajl_val root, chakra_synth_model *m)
{
	yajl_val a;
	int rc = need(R, root, "collective_tokens", &a);
	if (rc < 0)
		return rc;
	size_t at = push_key(R, "collective_tokens");
	if (!YAJL_IS_ARRAY(a) || a->u.array.len > SY_MAXSYM ||
	    (m->ncoll && !a->u.array.len)) {
		rc = bad(R, "expected a list of at most %d tokens (one at least per collective class)",
		         SY_MAXSYM);
		pop(R, at);
		return rc;
	}
	m->tok = chakra_calloc(a->u.array.len + 1, sizeof *m->tok);
	if (!m->tok) {
		pop(R, at);
		return CHAKRA_ENOMEM;
	}
	for (size_t i = 0; i < a->u.array.len && rc == 0; i++) {
		yajl_val t = a->u.array.values[i];
		sy_tok *k = &m->tok[i];
		size_t at2 = push_idx(R, i);
		uint64_t u = 0;
		m->ntok = i + 1;
		if (!YAJL_IS_OBJECT(t))
			rc = bad(R, "expected an object");
		if (rc == 0 && m->ncoll == 0)
			rc = bad(R, "a token without collective classes");
		if (rc == 0 && (rc = read_u64(R, t, "collective", 0, m->ncoll - 1, &u)) == 0)
			k->coll = (int)u;
		if (rc == 0 && (rc = read_u64(R, t, "overlap", 0, SY_NBUCKET - 1, &u)) == 0)
			k->bucket = (int)u;
		for (size_t j = 0; j < i && rc == 0; j++)
			if (m->tok[j].coll == k->coll && m->tok[j].bucket == k->bucket)
				rc = bad(R, "the same collective and overlap as collective_tokens[%zu]", j);
		if (rc == 0)
			rc = read_u64(R, t, "count", 1, (uint64_t)1 << 52, &k->count);
		if (rc == 0)
			rc = read_hists(R, t, k, tok_hists, NFIELDS(tok_hists));
		pop(R, at2);
	}
	pop(R, at);
	return rc;
}

static int read_model(rd *R, yajl_val root, chakra_synth_model *m)
{
	const char *s;
	uint64_t u;
	int rc;
	if (!YAJL_IS_OBJECT(root))
		return bad(R, "expected an object");
	if ((rc = read_str(R, root, "format", &s)) < 0)
		return rc;
	if (strcmp(s, FORMAT)) {
		size_t at = push_key(R, "format");
		rc = bad(R, "expected \"%s\"", FORMAT);
		pop(R, at);
		return rc;
	}
	if ((rc = read_u64(R, root, "version", VERSION, VERSION, &u)) < 0)
		return rc;
	if ((rc = read_u64(R, root, "ranks", 1, 1u << 24, &u)) < 0)
		return rc;
	m->ranks = (uint32_t)u;
	if ((rc = read_num(R, root, "nodes_per_rank", 1, 1e12, &m->nodes_per_rank)) < 0)
		return rc;
	if ((rc = read_u64(R, root, "duration_quantum_ns", 1, 1000000000, &m->quantum_ns)) < 0)
		return rc;
	yajl_val dr = get(root, "dropped");
	if (YAJL_IS_OBJECT(dr)) {
		for (size_t i = 0; i < NFIELDS(dropped_fields); i++) {
			yajl_val v = get(dr, dropped_fields[i].key);
			if (YAJL_IS_INTEGER(v) && YAJL_GET_INTEGER(v) >= 0)
				*u64_at(m, dropped_fields[i].off) = (uint64_t)YAJL_GET_INTEGER(v);
		}
	}
	yajl_val cl, co;
	if ((rc = need(R, root, "compute_classes", &cl)) < 0 ||
	    (rc = need(R, root, "collectives", &co)) < 0)
		return rc;
	size_t at = push_key(R, "compute_classes");
	if (!YAJL_IS_ARRAY(cl) || cl->u.array.len > (size_t)chakra__sy_class_count()) {
		rc = bad(R, "expected a list of at most %d classes", chakra__sy_class_count());
		pop(R, at);
		return rc;
	}
	m->cls = chakra_calloc(cl->u.array.len + 1, sizeof *m->cls);
	if (!m->cls) {
		pop(R, at);
		return CHAKRA_ENOMEM;
	}
	for (size_t i = 0; i < cl->u.array.len; i++) {
		yajl_val c = cl->u.array.values[i];
		sy_class *k = &m->cls[i];
		size_t at2 = push_idx(R, i);
		m->ncls = i + 1;
		if (!YAJL_IS_OBJECT(c)) {
			rc = bad(R, "expected an object");
		} else if ((rc = read_str(R, c, "name", &s)) == 0) {
			k->vocab = chakra__sy_class_find(s);
			if (k->vocab < 0) {
				size_t at3 = push_key(R, "name");
				rc = bad(R, "not an op class of the vocabulary (docs/synth.md)");
				pop(R, at3);
			}
			for (size_t j = 0; j < i && rc == 0; j++)
				if (m->cls[j].vocab == k->vocab)
					rc = bad(R, "class \"%s\" listed twice", s);
		}
		if (rc == 0 && (rc = read_str(R, c, "node_type", &s)) == 0) {
			k->node_type = chakra_node_type_from_name(s);
			if (k->node_type != CHAKRA_COMP_NODE && k->node_type != CHAKRA_MEM_LOAD_NODE &&
			    k->node_type != CHAKRA_MEM_STORE_NODE && k->node_type != CHAKRA_METADATA_NODE &&
			    k->node_type != CHAKRA_INVALID_NODE) {
				size_t at3 = push_key(R, "node_type");
				rc = bad(R, "expected COMP_NODE, MEM_LOAD_NODE, MEM_STORE_NODE, METADATA_NODE or "
				            "INVALID_NODE");
				pop(R, at3);
			}
		}
		if (rc == 0)
			rc = read_u64(R, c, "count", 1, (uint64_t)1 << 52, &k->count);
		if (rc == 0)
			rc = read_num(R, c, "mean", 0, 1e19, &k->mean);
		if (rc == 0)
			rc = read_gmm(R, c, "duration", &k->dur);
		if (rc == 0)
			rc = read_hists(R, c, k, class_hists, NFIELDS(class_hists));
		pop(R, at2);
		if (rc < 0)
			break;
	}
	pop(R, at);
	if (rc < 0)
		return rc;
	at = push_key(R, "collectives");
	if (!YAJL_IS_ARRAY(co) || co->u.array.len > SY_MAXSYM) {
		rc = bad(R, "expected a list of at most %d collective classes", SY_MAXSYM);
		pop(R, at);
		return rc;
	}
	m->coll = chakra_calloc(co->u.array.len + 1, sizeof *m->coll);
	if (!m->coll) {
		pop(R, at);
		return CHAKRA_ENOMEM;
	}
	for (size_t i = 0; i < co->u.array.len; i++) {
		yajl_val c = co->u.array.values[i];
		sy_coll *k = &m->coll[i];
		size_t at2 = push_idx(R, i);
		m->ncoll = i + 1;
		if (!YAJL_IS_OBJECT(c)) {
			rc = bad(R, "expected an object");
		} else if ((rc = read_str(R, c, "comm_type", &s)) == 0) {
			k->comm_type = chakra_comm_type_from_name(s);
			if (k->comm_type < 0) {
				size_t at3 = push_key(R, "comm_type");
				rc = bad(R, "not a collective type (ALL_REDUCE, ALL_GATHER, ...)");
				pop(R, at3);
			}
		}
		if (rc == 0 && (rc = read_str(R, c, "group", &s)) == 0) {
			unsigned long p = 0;
			char tail = 0;
			if (!strcmp(s, "all")) {
				k->group = SY_GROUP_ALL;
			} else if (sscanf(s, "block:%lu%c", &p, &tail) == 1 && p >= 1 && p <= (1u << 24)) {
				k->group = SY_GROUP_BLOCK;
				k->gparam = (uint32_t)p;
			} else if (sscanf(s, "stride:%lu%c", &p, &tail) == 1 && p >= 1 && p <= (1u << 24)) {
				k->group = SY_GROUP_STRIDE;
				k->gparam = (uint32_t)p;
			} else {
				size_t at3 = push_key(R, "group");
				rc = bad(R, "expected \"all\", \"block:M\" or \"stride:S\" (1..16777216)");
				pop(R, at3);
			}
			for (size_t j = 0; j < i && rc == 0; j++)
				if (m->coll[j].comm_type == k->comm_type && m->coll[j].group == k->group &&
				    m->coll[j].gparam == k->gparam)
					rc = bad(R, "the same type and group as collectives[%zu]", j);
		}
		if (rc == 0)
			rc = read_u64(R, c, "count", 1, (uint64_t)1 << 52, &k->count);
		if (rc == 0)
			rc = read_num(R, c, "mean", 0, 5e18, &k->mean);
		if (rc == 0)
			rc = read_gmm(R, c, "size", &k->size);
		if (rc == 0)
			rc = read_hists(R, c, k, coll_hists, NFIELDS(coll_hists));
		pop(R, at2);
		if (rc < 0)
			break;
	}
	pop(R, at);
	if (rc < 0)
		return rc;
	if (!m->ncls && !m->ncoll)
		return bad(R, "no compute classes and no collectives: nothing to sample");
	if ((rc = read_tokens(R, root, m)) < 0)
		return rc;
	if ((rc = read_markov(R, root, "collective_sequence", (int)m->ntok, -1, &m->cseq)) < 0)
		return rc;
	if ((rc = read_markov(R, root, "compute_sequence", (int)m->ncls, 1, &m->kseq)) < 0)
		return rc;
	/* Every class must be reachable by its chain's counts; otherwise a
	 * target could not be met without leaving the chain (the sampler
	 * copes, but such a model was not written by fit). */
	return read_hists(R, root, m, model_hists, NFIELDS(model_hists));
}

/* The most MODEL.json text read: the whole text is parsed into a tree of
 * about 23 bytes per byte, so a 38 MB file once took 883 MB. A model
 * fitted from real traces is far smaller (a 3,664-node ResNet rank at
 * Markov order 6: 182 KB), and the cap keeps the tree under ~400 MB. */
#define SY_MODEL_MAX_BYTES ((size_t)16 << 20)

static int too_big(const char *name, char *err, size_t errlen)
{
	return chakra__sy_err(err, errlen, CHAKRA_ETOOBIG,
	                      "%s: larger than %zu MiB, the most a model may be (a fitted model "
	                      "is far smaller)", name, SY_MODEL_MAX_BYTES >> 20);
}

static int synth_model_parse_impl(chakra_synth_model **out, const char *name, const char *text, size_t len, char *err, size_t errlen)
{
	*out = NULL;
	if (len > SY_MODEL_MAX_BYTES)
		return too_big(name, err, errlen);
	const char *nul = memchr(text, 0, len);
	if (nul)
		return chakra__sy_err(err, errlen, CHAKRA_ECONFIG, "%s: byte %zu: NUL character in JSON",
		                      name, (size_t)(nul - text));
	char ebuf[512];
	yajl_val root;
	int jr = chakra__json_tree(text, len, &root, ebuf, sizeof ebuf);
	if (jr == CHAKRA_ENOMEM)
		return chakra__sy_err(err, errlen, CHAKRA_ENOMEM, "%s: out of memory", name);
	if (jr < 0)
		return chakra__sy_err(err, errlen, CHAKRA_ECONFIG, "%s: not JSON: %s", name,
		                      ebuf[0] ? ebuf : "parse error");
	chakra_synth_model *m = chakra_calloc(1, sizeof *m);
	if (!m) {
		chakra__json_tree_free(root);
		return CHAKRA_ENOMEM;
	}
	rd R = { name, err, errlen, { 0 } };
	int rc = read_model(&R, root, m);
	chakra__json_tree_free(root);
	if (rc < 0) {
		chakra_synth_model_free(m);
		return rc;
	}
	*out = m;
	return 0;
}

/* Every failure comes with a message (out of memory included). */
int chakra_synth_model_parse(chakra_synth_model **out, const char *name, const char *text,
                             size_t len, char *err, size_t errlen)
{
	if (!out || (!text && len))
		return chakra__sy_err(err, errlen, CHAKRA_EINVAL, "%s: NULL argument", __func__);
	if (!text)
		text = "";
	if (!name)
		name = "<model>";
	if (errlen)
		err[0] = 0;
	return chakra__sy_msg(synth_model_parse_impl(out, name, text, len, err, errlen), err, errlen);
}

static int synth_model_load_impl(chakra_synth_model **out, const char *path, char *err, size_t errlen)
{
	*out = NULL;
	FILE *f = !strcmp(path, "-") ? stdin : fopen(path, "rb");
	if (!f)
		return chakra__sy_err(err, errlen, CHAKRA_EIO, "%s: %s", path, strerror(errno));
	size_t cap = 1 << 16, n = 0, r;
	char *b = chakra_malloc(cap);
	int big = 0;
	while (b && (r = fread(b + n, 1, cap - n, f)) > 0) {
		n += r;
		if (n > SY_MODEL_MAX_BYTES) {
			big = 1; /* stop reading: never more than the cap (+1 chunk) in memory */
			break;
		}
		if (n == cap) {
			char *nb = chakra_realloc(b, cap *= 2);
			if (!nb) {
				chakra_free(b);
				b = NULL;
				break;
			}
			b = nb;
		}
	}
	int bad_read = ferror(f);
	if (f != stdin)
		fclose(f);
	if (big) {
		chakra_free(b);
		return too_big(path, err, errlen);
	}
	if (!b)
		return chakra__sy_err(err, errlen, CHAKRA_ENOMEM, "%s: out of memory", path);
	if (bad_read) {
		chakra_free(b);
		return chakra__sy_err(err, errlen, CHAKRA_EIO, "%s: read error", path);
	}
	int rc = chakra_synth_model_parse(out, path, b, n, err, errlen);
	chakra_free(b);
	return rc;
}

/* Every failure comes with a message (out of memory included). */
int chakra_synth_model_load(chakra_synth_model **out, const char *path, char *err,
                            size_t errlen)
{
	if (!out || !path)
		return chakra__sy_err(err, errlen, CHAKRA_EINVAL, "%s: NULL argument", __func__);
	if (errlen)
		err[0] = 0;
	return chakra__sy_msg(synth_model_load_impl(out, path, err, errlen), err, errlen);
}
