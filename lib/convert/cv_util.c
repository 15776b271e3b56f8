/* SPDX-License-Identifier: Apache-2.0 */
/* Converter helpers: error text, growable arrays, interned strings, an
 * integer map, exact number parsing and PyTorch/NCCL name tables. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include "cv.h"
#include "jstr.h"
#include "chakra/experimental/graph.h"

int chakra__cv_fail(cv_err *e, int code, const char *file, const char *unit, int64_t index,
                    int64_t offset, const char *fmt, ...)
{
	if (e->code)  /* keep the first (innermost) error */
		return e->code;
	e->code = code;
	e->file = file;
	e->index = index;
	e->offset = offset;
	size_t n = 0, cap = sizeof e->msg;
	int w = file ? snprintf(e->msg, cap, "%s: ", file) : 0;
	n = w > 0 ? (size_t)w : 0;
	if (index >= 0 && unit && n < cap) {
		w = snprintf(e->msg + n, cap - n, "%s %lld ", unit, (long long)index);
		n += w > 0 ? (size_t)w : 0;
	}
	if (offset >= 0 && n < cap) {
		w = snprintf(e->msg + n, cap - n, "(byte %lld) ", (long long)offset);
		n += w > 0 ? (size_t)w : 0;
	}
	if (n >= 2 && n < cap && e->msg[n - 1] == ' ' && e->msg[n - 2] != ':') {
		e->msg[n - 1] = ':';
		e->msg[n++] = ' ';
		e->msg[n] = 0;
	}
	if (n < cap) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(e->msg + n, cap - n, fmt, ap);
		va_end(ap);
	}
	return code;
}

int chakra__cv_buf_grow(cv_buf *b, const void *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t c = b->cap ? b->cap : 256;
		while (c < b->len + n + 1) {
			if (c > SIZE_MAX / 2)
				return -1;
			c *= 2;
		}
		char *q = chakra_realloc(b->p, c);
		if (!q)
			return -1;
		b->p = q;
		b->cap = c;
	}
	if (n)
		memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = 0;
	return 0;
}

static int buf_put(void *b, const char *s, size_t n)
{
	return chakra__cv_buf_add(b, s, n);
}

/* lib/json's writer (jstr.h), its put inlined on the buffer. */
int chakra__cv_buf_add_jstr(cv_buf *b, const char *s, size_t n)
{
	return chakra__json_str(s, n, 0, buf_put, b);
}

void chakra__cv_buf_free(cv_buf *b)
{
	chakra_free(b->p);
	memset(b, 0, sizeof *b);
}

/* ---- string table ---- */
/* The index is keyed per table (chakra__ixmap): 200,000 names chosen to
 * collide under the old fixed hash took 78 s to intern, one probe each now. */
struct strkey {
	const char *s;
	size_t n;
};

static int str_eq(const void *ctx, uint32_t i, const void *key)
{
	const cv_strtab *t = ctx;
	const struct strkey *k = key;
	return t->ent[i].len == k->n && !memcmp(t->text + t->ent[i].off, k->s, k->n);
}

static uint64_t str_hash(const void *ctx, uint32_t i, uint64_t seed)
{
	const cv_strtab *t = ctx;
	return chakra__graph_hash_bytes(t->text + t->ent[i].off, t->ent[i].len, seed);
}

int chakra__cv_strtab_init(cv_strtab *t)
{
	memset(t, 0, sizeof *t);
	chakra__ixmap_init(&t->index);
	return chakra__cv_intern(t, "", 0) == 0 ? 0 : -1;
}

uint32_t chakra__cv_intern(cv_strtab *t, const char *s, size_t n)
{
	if (n > UINT32_MAX / 2)
		return CV_NONE;
	struct strkey key = { s, n };
	uint64_t h = chakra__graph_hash_bytes(s, n, t->index.seed);
	uint32_t found = chakra__ixmap_find(&t->index, h, str_eq, t, &key);
	if (found != CHAKRA__IXMAP_NONE)
		return found;
	if (t->n >= UINT32_MAX - 1 || t->len + n + 1 > UINT32_MAX)
		return CV_NONE;
	if (t->len + n + 1 > t->cap) {
		size_t c = t->cap ? t->cap : 4096;
		while (c < t->len + n + 1)
			c *= 2;
		char *q = chakra_realloc(t->text, c);
		if (!q)
			return CV_NONE;
		t->text = q;
		t->cap = c;
	}
	if (!CV_RESERVE(t->ent, t->ncap, t->n + 1))
		return CV_NONE;
	memcpy(t->text + t->len, s, n);
	t->text[t->len + n] = 0;
	t->ent[t->n].off = (uint32_t)t->len;
	t->ent[t->n].len = (uint32_t)n;
	if (chakra__ixmap_add(&t->index, h, (uint32_t)t->n, str_hash, t) < 0)
		return CV_NONE; /* not added: the text stays unused */
	t->len += n + 1;
	return (uint32_t)t->n++;
}

void chakra__cv_strtab_free(cv_strtab *t)
{
	chakra_free(t->text);
	chakra_free(t->ent);
	chakra__ixmap_free(&t->index);
	memset(t, 0, sizeof *t);
}

/* ---- u64 -> u32 map ---- */
uint32_t chakra__cv_map_get(const cv_map *m, uint64_t key)
{
	return m->m ? chakra_idmap_get(m->m, key) : CV_NONE;
}

int chakra__cv_map_put(cv_map *m, uint64_t key, uint32_t val)
{
	if (!m->m && !(m->m = chakra_idmap_new(0)))
		return -1;
	return chakra_idmap_set(m->m, key, val) < 0 ? -1 : 0;
}

size_t chakra__cv_map_count(const cv_map *m)
{
	return m->m ? chakra_idmap_count(m->m) : 0;
}

void chakra__cv_map_free(cv_map *m)
{
	chakra_idmap_free(m->m);
	m->m = NULL;
}

/* ---- (a, b) -> u32 map ---- */
static uint64_t pair_hash(int64_t a, int64_t b, uint64_t seed)
{
	return chakra__graph_mix(chakra__graph_mix((uint64_t)a, seed) ^ (uint64_t)b, ~seed);
}

static int pair_eq(const void *ctx, uint32_t i, const void *key)
{
	const cv_pmap *m = ctx;
	const int64_t *k = key;
	return m->e[i].a == k[0] && m->e[i].b == k[1];
}

static uint64_t pair_rehash(const void *ctx, uint32_t i, uint64_t seed)
{
	const cv_pmap *m = ctx;
	return pair_hash(m->e[i].a, m->e[i].b, seed);
}

uint32_t chakra__cv_pmap_get(const cv_pmap *m, int64_t a, int64_t b)
{
	if (!m->ready)
		return CV_NONE;
	int64_t k[2] = { a, b };
	uint32_t i = chakra__ixmap_find(&m->ix, pair_hash(a, b, m->ix.seed), pair_eq, m, k);
	return i == CHAKRA__IXMAP_NONE ? CV_NONE : m->e[i].val;
}

int chakra__cv_pmap_put(cv_pmap *m, int64_t a, int64_t b, uint32_t val)
{
	if (!m->ready) {
		chakra__ixmap_init(&m->ix);
		m->ready = 1;
	}
	int64_t k[2] = { a, b };
	uint64_t h = pair_hash(a, b, m->ix.seed);
	uint32_t i = chakra__ixmap_find(&m->ix, h, pair_eq, m, k);
	if (i != CHAKRA__IXMAP_NONE) {
		m->e[i].val = val;
		return 0;
	}
	struct cv_pair *p = CV_PUSH(m->e, m->n, m->cap);
	if (!p)
		return -1;
	p->a = a;
	p->b = b;
	p->val = val;
	if (chakra__ixmap_add(&m->ix, h, (uint32_t)(m->n - 1), pair_rehash, m) < 0) {
		m->n--;
		return -1;
	}
	return 0;
}

void chakra__cv_pmap_free(cv_pmap *m)
{
	chakra__ixmap_free(&m->ix);
	chakra_free(m->e);
	memset(m, 0, sizeof *m);
}

/* ---- numbers ---- */
static int parse_double_text(const char *s, size_t n, double *out)
{
	char tmp[64];
	if (n >= sizeof tmp)
		return -1;
	memcpy(tmp, s, n);
	tmp[n] = 0;
	char *end;
	double d = strtod(tmp, &end);
	if (end != tmp + n || !isfinite(d))
		return -1;
	*out = d;
	return 0;
}

int chakra__cv_parse_i64(const char *s, size_t n, int64_t *out)
{
	size_t i = 0;
	int neg = 0;
	if (i < n && s[i] == '-') {
		neg = 1;
		i++;
	}
	if (i == n)
		return -1;
	uint64_t v = 0;
	size_t d0 = i;
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
		unsigned dg = (unsigned)(s[i] - '0');
		if (v > (UINT64_MAX - dg) / 10)
			return -1;
		v = v * 10 + dg;
	}
	if (i == d0)
		return -1;
	if (i < n) {
		/* fraction or exponent: accept integral values only */
		double d;
		if (parse_double_text(s, n, &d) < 0 || d != floor(d) || d < -9.2e18 || d > 9.2e18)
			return -1;
		*out = (int64_t)d;
		return 0;
	}
	if (neg) {
		if (v > (uint64_t)INT64_MAX + 1)
			return -1;
		*out = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
	} else {
		*out = (int64_t)v; /* ids above 2^63 keep their bit pattern */
	}
	return 0;
}

int chakra__cv_parse_us_ns(const char *s, size_t n, int64_t *out)
{
	size_t i = 0;
	int neg = 0;
	if (i < n && s[i] == '-') {
		neg = 1;
		i++;
	}
	int64_t v = 0;
	size_t d0 = i;
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
		if (v > (INT64_MAX / 1000 - 9) / 10)
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	if (i == d0)
		return -1;
	v *= 1000;
	if (i < n && s[i] == '.') {
		static const int scale[3] = { 100, 10, 1 };
		size_t f0 = ++i;
		for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
			size_t k = i - f0;
			if (k < 3)
				v += (s[i] - '0') * scale[k];
			else if (k == 3 && s[i] >= '5')
				v += 1; /* round half up on the first dropped digit */
		}
		if (i == f0)
			return -1;
	}
	if (i < n) { /* exponent */
		double d;
		if (parse_double_text(s, n, &d) < 0 || !(fabs(d) * 1000.0 <= (double)CV_TIME_MAX_NS))
			return -1;
		*out = (int64_t)llround(d * 1000.0);
		return 0;
	}
	if (v > CV_TIME_MAX_NS)
		return -1;
	*out = neg ? -v : v;
	return 0;
}

/* ---- names ---- */
static size_t norm_name(const char *s, size_t n, char *out, size_t cap)
{
	size_t m = 0;
	for (size_t i = 0; i < n && m + 1 < cap; i++) {
		char c = s[i];
		if (c == '_' || c == '-' || c == ' ')
			continue;
		out[m++] = (char)tolower((unsigned char)c);
	}
	out[m] = 0;
	return m;
}

static const struct {
	const char *name;
	int coll;
} coll_names[] = {
	{ "allreduce", CV_COLL_ALL_REDUCE },
	{ "allreducecoalesced", CV_COLL_ALL_REDUCE },
	{ "reduce", CV_COLL_REDUCE },
	{ "allgather", CV_COLL_ALL_GATHER },
	{ "allgatherbase", CV_COLL_ALL_GATHER },
	{ "allgatherintotensor", CV_COLL_ALL_GATHER },
	{ "allgathercoalesced", CV_COLL_ALL_GATHER },
	{ "allgatherintotensorcoalesced", CV_COLL_ALL_GATHER },
	{ "gather", CV_COLL_GATHER },
	{ "scatter", CV_COLL_SCATTER },
	{ "broadcast", CV_COLL_BROADCAST },
	{ "alltoall", CV_COLL_ALL_TO_ALL },
	{ "alltoallv", CV_COLL_ALL_TO_ALL },
	{ "alltoallbase", CV_COLL_ALL_TO_ALL },
	{ "reducescatter", CV_COLL_REDUCE_SCATTER },
	{ "reducescatterbase", CV_COLL_REDUCE_SCATTER },
	{ "reducescattertensor", CV_COLL_REDUCE_SCATTER },
	{ "reducescattertensorcoalesced", CV_COLL_REDUCE_SCATTER },
	{ "barrier", CV_COLL_BARRIER },
	{ "send", CV_COLL_SEND },
	{ "recv", CV_COLL_RECV },
	{ "recvanysource", CV_COLL_RECV },
	{ "wait", CV_COLL_WAIT },
};

/* Kineto's event categories and the kinds they mean, current names first
 * (written back as the kind's name), then the capitalised ones of older
 * profilers. */
static const struct {
	const char *cat;
	uint8_t len, kind, current;
} cats[] = {
	{ "cpu_op", 6, CV_K_CPU_OP, 1 },
	{ "user_annotation", 15, CV_K_ANNOT, 1 },
	{ "cuda_runtime", 12, CV_K_RUNTIME, 1 },
	{ "cuda_driver", 11, CV_K_RUNTIME, 1 },
	{ "mtia_runtime", 12, CV_K_RUNTIME, 1 },
	{ "kernel", 6, CV_K_KERNEL, 1 },
	{ "gpu_memcpy", 10, CV_K_MEMCPY, 1 },
	{ "gpu_memset", 10, CV_K_MEMSET, 1 },
	{ "cuda_sync", 9, CV_K_SYNC, 1 },
	{ "gpu_user_annotation", 19, CV_K_GPU_ANNOT, 1 },
	/* MTIA: the device's commands (kernels, copies, event records) */
	{ "mtia_ccp_events", 15, CV_K_KERNEL, 1 },
	{ "Operator", 8, CV_K_CPU_OP, 0 },
	{ "User annotation", 15, CV_K_ANNOT, 0 },
	{ "User Annotation", 15, CV_K_ANNOT, 0 },
	{ "Runtime", 7, CV_K_RUNTIME, 0 },
	{ "Driver", 6, CV_K_RUNTIME, 0 },
	{ "Kernel", 6, CV_K_KERNEL, 0 },
	{ "Memcpy", 6, CV_K_MEMCPY, 0 },
	{ "Memset", 6, CV_K_MEMSET, 0 },
};

int chakra__cv_kind_of_cat(const char *s, size_t n, int current_only)
{
	for (size_t i = 0; i < sizeof cats / sizeof *cats; i++)
		if (cats[i].len == n && !memcmp(cats[i].cat, s, n) && (cats[i].current || !current_only))
			return cats[i].kind;
	return CV_K_OTHER;
}

const char *chakra__cv_cat_of_kind(int kind)
{
	if (kind == CV_K_OTHER || kind == CV_K_SYNC || kind == CV_K_GPU_ANNOT)
		return NULL; /* never written as a node's category */
	for (size_t i = 0; i < sizeof cats / sizeof *cats; i++)
		if (cats[i].kind == kind)
			return cats[i].cat;
	return NULL;
}

int chakra__cv_coll_from_name(const char *s, size_t n)
{
	char buf[64];
	/* "nccl:all_reduce", "c10d::allreduce_", "gloo:broadcast" */
	const char *c = memchr(s, ':', n);
	if (c) {
		while (c < s + n && *c == ':')
			c++;
		n -= (size_t)(c - s);
		s = c;
	}
	norm_name(s, n, buf, sizeof buf);
	for (size_t i = 0; i < sizeof coll_names / sizeof *coll_names; i++)
		if (!strcmp(buf, coll_names[i].name))
			return coll_names[i].coll;
	return CV_COLL_UNKNOWN;
}

int chakra__cv_coll_from_kernel(const char *s, size_t n)
{
	char buf[128];
	norm_name(s, n, buf, sizeof buf);
	if (strncmp(buf, "ncclkernel", 10) && strncmp(buf, "nccldevkernel", 13) &&
	    strncmp(buf, "rcclkernel", 10))
		return CV_COLL_UNKNOWN;
	static const struct {
		const char *sub;
		int coll;
	} k[] = {
		{ "allreduce", CV_COLL_ALL_REDUCE }, { "reducescatter", CV_COLL_REDUCE_SCATTER },
		{ "allgather", CV_COLL_ALL_GATHER }, { "alltoall", CV_COLL_ALL_TO_ALL },
		{ "broadcast", CV_COLL_BROADCAST },  { "sendrecv", CV_COLL_ALL_TO_ALL },
		{ "reduce", CV_COLL_REDUCE },        { "gather", CV_COLL_GATHER },
		{ "scatter", CV_COLL_SCATTER },
	};
	for (size_t i = 0; i < sizeof k / sizeof *k; i++)
		if (strstr(buf, k[i].sub))
			return k[i].coll;
	return CV_COLL_UNKNOWN;
}

const char *chakra__cv_coll_name(int coll)
{
	switch (coll) {
	case CV_COLL_ALL_REDUCE: return "all_reduce";
	case CV_COLL_REDUCE: return "reduce";
	case CV_COLL_ALL_GATHER: return "all_gather";
	case CV_COLL_GATHER: return "gather";
	case CV_COLL_SCATTER: return "scatter";
	case CV_COLL_BROADCAST: return "broadcast";
	case CV_COLL_ALL_TO_ALL: return "all_to_all";
	case CV_COLL_REDUCE_SCATTER: return "reduce_scatter";
	case CV_COLL_BARRIER: return "barrier";
	case CV_COLL_SEND: return "send";
	case CV_COLL_RECV: return "recv";
	case CV_COLL_WAIT: return "wait";
	default: return "unknown";
	}
}

int chakra__cv_dtype_size(const char *s, size_t n)
{
	char buf[48];
	const char *p = memchr(s, '(', n);
	if (p) { /* Tensor(float) */
		const char *q = memchr(p, ')', n - (size_t)(p - s));
		if (!q)
			return 0;
		s = p + 1;
		n = (size_t)(q - s);
	}
	if (n > 7 && !strncmp(s, "c10::", 5)) {
		s += 5;
		n -= 5;
	}
	size_t m = norm_name(s, n, buf, sizeof buf);
	(void)m;
	static const struct {
		const char *n;
		int size;
	} t[] = {
		{ "float", 4 },     { "float32", 4 },  { "double", 8 },     { "float64", 8 },
		{ "half", 2 },      { "float16", 2 },  { "bfloat16", 2 },   { "long", 8 },
		{ "longint", 8 },   { "int64", 8 },    { "int", 4 },        { "int32", 4 },
		{ "short", 2 },     { "int16", 2 },    { "char", 1 },       { "signedchar", 1 },
		{ "int8", 1 },      { "byte", 1 },     { "unsignedchar", 1 }, { "uint8", 1 },
		{ "bool", 1 },      { "complexfloat", 8 }, { "complexdouble", 16 },
		{ "float8e4m3fn", 1 }, { "float8e5m2", 1 }, { "uint16", 2 }, { "uint32", 4 },
		{ "uint64", 8 },    { "longlong", 8 },  { "unsignedlong", 8 },
	};
	for (size_t i = 0; i < sizeof t / sizeof *t; i++)
		if (!strcmp(buf, t[i].n))
			return t[i].size;
	return 0;
}
