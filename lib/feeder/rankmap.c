/* SPDX-License-Identifier: Apache-2.0 */
/* Rank maps: a workload of N ranks written as one Chakra ET per class of
 * ranks that run the same trace, and a text file saying which class each
 * rank is in and what its own trace has where the class file has another
 * rank's peers and groups (docs/feeder.md, "Rank maps"):
 *
 *   chakra-rank-map 1
 *   ranks 16
 *   class 0 gpt.c0.et peers 8 groups 1 3
 *   class 1 gpt.c1.et peers 0 groups 2 4
 *   0-7 0 peers 8 groups 1 3        (a range: every rank the same values)
 *   8 1                             (no values: the class file's own)
 *   9 1 peers 1 groups 2 5
 *
 * Tokens are separated by blanks; "quoted" tokens take \" and \\; # starts a
 * comment. Errors name the file and line. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "chakra/error.h"
#include "chakra/feeder.h"
#include "util.h"

#define RM_MAX_TEXT ((size_t)1 << 30)  /* 1 GiB of map text */
#define RM_MAX_RANKS ((uint32_t)1 << 24) /* 16,777,216: 128 MiB of tables */
#define RM_MAX_SYMBOLS 65536           /* peers or groups of one class */

typedef struct rm_class {
	char *file;       /* as written */
	char *path;       /* to open: relative names resolved against the map's folder */
	uint32_t npeers, ngroups;
	int64_t *peers;   /* the class file's values */
	const char **groups;
} rm_class;

/* A rank line's values: its peers at pv[p], its groups at gv[g]. */
typedef struct rm_row {
	size_t p, g;
} rm_row;

struct chakra_rank_map {
	uint32_t n, nclasses, capclasses;
	rm_class *cls;
	uint32_t *rank_cls;      /* per rank; UINT32_MAX until a line names it */
	uint32_t *rank_row;      /* per rank: its row, or UINT32_MAX (the class file's values) */
	rm_row *rows;
	size_t nrows, caprows;
	int64_t *pv;             /* the rows' peer values */
	const char **gv;         /* the rows' group values (interned strings) */
	size_t npv, cappv, ngv, capgv;
	/* Interned strings: one copy of each group name. */
	char **strs;
	size_t nstrs, capstrs;
	uint32_t *shash;         /* open addressing over strs (index + 1; 0 empty) */
	size_t hcap;
};

/* ---------------- small helpers ---------------- */

static int rm_grow(void **p, size_t *cap, size_t need, size_t elem)
{
	/* An empty list still gets an array: the callers form `base + count`,
	 * which is undefined on a null base even when count is zero. */
	if (need <= *cap && *p)
		return 0;
	size_t nc = *cap ? *cap : 16;
	while (nc < need)
		nc *= 2;
	void *np = chakra__realloc(*p, nc * elem);
	if (!np)
		return -1;
	*p = np;
	*cap = nc;
	return 0;
}

static uint64_t rm_str_hash(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

/* The one copy of s[0..len) (NULL when out of memory). */
static const char *rm_intern(chakra_rank_map *m, const char *s, size_t len)
{
	if (2 * (m->nstrs + 1) > m->hcap) {
		size_t nc = m->hcap ? m->hcap * 2 : 64;
		uint32_t *nh = (uint32_t *)chakra__calloc(nc, sizeof *nh);
		if (!nh)
			return NULL;
		for (size_t i = 0; i < m->nstrs; i++) {
			size_t at = rm_str_hash(m->strs[i], strlen(m->strs[i])) & (nc - 1);
			while (nh[at])
				at = (at + 1) & (nc - 1);
			nh[at] = (uint32_t)(i + 1);
		}
		chakra__free(m->shash);
		m->shash = nh;
		m->hcap = nc;
	}
	size_t at = rm_str_hash(s, len) & (m->hcap - 1);
	for (; m->shash[at]; at = (at + 1) & (m->hcap - 1)) {
		const char *t = m->strs[m->shash[at] - 1];
		if (strlen(t) == len && !memcmp(t, s, len))
			return t;
	}
	if (rm_grow((void **)&m->strs, &m->capstrs, m->nstrs + 1, sizeof *m->strs))
		return NULL;
	char *c = (char *)chakra__malloc(len + 1);
	if (!c)
		return NULL;
	memcpy(c, s, len);
	c[len] = 0;
	m->strs[m->nstrs++] = c;
	m->shash[at] = (uint32_t)m->nstrs;
	return c;
}

void chakra_rank_map_free(chakra_rank_map *m)
{
	if (!m)
		return;
	for (uint32_t c = 0; c < m->nclasses; c++) {
		chakra__free(m->cls[c].file);
		chakra__free(m->cls[c].path);
		chakra__free(m->cls[c].peers);
		chakra__free((void *)m->cls[c].groups);
	}
	chakra__free(m->cls);
	chakra__free(m->rank_cls);
	chakra__free(m->rank_row);
	chakra__free(m->rows);
	chakra__free(m->pv);
	chakra__free((void *)m->gv);
	for (size_t i = 0; i < m->nstrs; i++)
		chakra__free(m->strs[i]);
	chakra__free(m->strs);
	chakra__free(m->shash);
	chakra__free(m);
}

/* ---------------- the parser ---------------- */

typedef struct rm_tok {
	const char *s;   /* token text (unquoted: in the line; quoted: in buf) */
	size_t len;
} rm_tok;

typedef struct rm_parser {
	chakra_rank_map *m;
	const char *name;
	size_t line;
	char *err;
	size_t errlen;
	char *buf;       /* unquoted tokens of the current line */
	size_t bufcap;
	rm_tok *t;
	size_t nt, capt;
	size_t dirlen;   /* the folder part of name (through its last '/') */
} rm_parser;

static int rm_bad(rm_parser *p, const char *fmt, ...) CHAKRA_PRINTF(2, 3);
static int rm_bad(rm_parser *p, const char *fmt, ...)
{
	if (p->err && p->errlen) {
		int k = snprintf(p->err, p->errlen, "%s:%zu: ", p->name, p->line);
		if (k >= 0 && (size_t)k < p->errlen) {
			va_list ap;
			va_start(ap, fmt);
			vsnprintf(p->err + k, p->errlen - (size_t)k, fmt, ap);
			va_end(ap);
		}
	}
	return CHAKRA_ECORRUPT;
}

static int rm_oom(rm_parser *p)
{
	if (p->err && p->errlen)
		snprintf(p->err, p->errlen, "%s: out of memory", p->name);
	return CHAKRA_ENOMEM;
}

/* Splits one line (without its newline) into p->t. */
static int rm_tokenize(rm_parser *p, const char *s, size_t len)
{
	p->nt = 0;
	if (rm_grow((void **)&p->buf, &p->bufcap, len + 1, 1))
		return rm_oom(p);
	size_t used = 0, i = 0;
	while (i < len) {
		char c = s[i];
		if (c == ' ' || c == '\t' || c == '\r') {
			i++;
			continue;
		}
		if (c == '#')
			break;
		if (rm_grow((void **)&p->t, &p->capt, p->nt + 1, sizeof *p->t))
			return rm_oom(p);
		if (c == '"') {
			char *o = p->buf + used;
			size_t n = 0;
			i++;
			for (;;) {
				if (i >= len)
					return rm_bad(p, "a quoted token has no closing '\"'");
				c = s[i++];
				if (c == '"')
					break;
				if (c == '\\') {
					if (i >= len || (s[i] != '"' && s[i] != '\\'))
						return rm_bad(p, "in a quoted token, '\\' must come before '\"' or '\\'");
					c = s[i++];
				}
				o[n++] = c;
			}
			if (i < len && s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '#')
				return rm_bad(p, "a quoted token must be followed by a blank");
			o[n] = 0;
			used += n + 1;
			p->t[p->nt].s = o;
			p->t[p->nt].len = n;
			if (memchr(o, 0, n))
				return rm_bad(p, "a token holds a NUL byte");
		} else {
			size_t st = i;
			while (i < len && s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '#')
				i++;
			if (memchr(s + st, 0, i - st))
				return rm_bad(p, "a token holds a NUL byte");
			p->t[p->nt].s = s + st;
			p->t[p->nt].len = i - st;
		}
		p->nt++;
	}
	return 0;
}

static int rm_tok_is(const rm_tok *t, const char *w)
{
	return t->len == strlen(w) && !memcmp(t->s, w, t->len);
}

/* A decimal integer token (optional '-' when neg_ok) into *v. */
static int rm_tok_int(const rm_tok *t, int neg_ok, int64_t *v)
{
	size_t i = 0;
	int neg = 0;
	if (t->len && t->s[0] == '-' && neg_ok) {
		neg = 1;
		i = 1;
	}
	if (i == t->len || t->len - i > 19)
		return -1;
	uint64_t x = 0;
	for (; i < t->len; i++) {
		if (t->s[i] < '0' || t->s[i] > '9')
			return -1;
		uint64_t d = (uint64_t)(t->s[i] - '0');
		if (x > (UINT64_MAX - d) / 10)
			return -1;
		x = x * 10 + d;
	}
	if (neg ? x > (uint64_t)INT64_MAX + 1 : x > (uint64_t)INT64_MAX)
		return -1;
	*v = neg ? (int64_t)(0 - x) : (int64_t)x;
	return 0;
}

static const char *rm_show(const rm_tok *t, char *buf, size_t cap)
{
	size_t n = t->len < cap - 4 ? t->len : cap - 4;
	memcpy(buf, t->s, n);
	strcpy(buf + n, t->len > n ? "..." : "");
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)buf[i] < 32)
			buf[i] = '?';
	return buf;
}

/* The lists after the class or rank fields: "peers V..." then "groups
 * G...", each at most once. For a class (decl) they declare its values;
 * for a rank of class cls, a line with lists gives every value its class
 * declares (a row), a line without any keeps the class file's. */
static int rm_lists(rm_parser *p, size_t at, rm_class *decl, const rm_class *cls, uint32_t *row)
{
	chakra_rank_map *m = p->m;
	char sb[64];
	int have_p = 0, have_g = 0;
	size_t pstart = m->npv, gstart = m->ngv;
	while (at < p->nt) {
		const rm_tok *kw = &p->t[at++];
		int is_p = rm_tok_is(kw, "peers"), is_g = rm_tok_is(kw, "groups");
		if (!is_p && !is_g)
			return rm_bad(p, "expected 'peers' or 'groups', not '%s'", rm_show(kw, sb, sizeof sb));
		if (is_p && have_g)
			return rm_bad(p, "'peers' must come before 'groups'");
		if ((is_p && have_p) || (is_g && have_g))
			return rm_bad(p, "'%s' is given twice", is_p ? "peers" : "groups");
		size_t st = at;
		while (at < p->nt && !rm_tok_is(&p->t[at], "peers") && !rm_tok_is(&p->t[at], "groups"))
			at++;
		size_t k = at - st;
		if (k > RM_MAX_SYMBOLS)
			return rm_bad(p, "more than %d %s", RM_MAX_SYMBOLS, is_p ? "peers" : "groups");
		if (cls && k != (is_p ? cls->npeers : cls->ngroups))
			return rm_bad(p, "%zu %s, but class %u declares %u", k, is_p ? "peers" : "groups",
			           (unsigned)(cls - m->cls), is_p ? cls->npeers : cls->ngroups);
		if (is_p) {
			have_p = 1;
			int64_t *dst;
			if (decl) {
				decl->peers = (int64_t *)chakra__malloc((k ? k : 1) * sizeof *decl->peers);
				if (!decl->peers)
					return rm_oom(p);
				decl->npeers = (uint32_t)k;
				dst = decl->peers;
			} else {
				if (rm_grow((void **)&m->pv, &m->cappv, m->npv + k, sizeof *m->pv))
					return rm_oom(p);
				dst = m->pv + m->npv;
				m->npv += k;
			}
			for (size_t i = 0; i < k; i++)
				if (rm_tok_int(&p->t[st + i], 1, &dst[i]))
					return rm_bad(p, "peer '%s' is not an integer", rm_show(&p->t[st + i], sb, sizeof sb));
			for (size_t i = 0; decl && i < k; i++)
				for (size_t j = 0; j < i; j++)
					if (dst[i] == dst[j])
						return rm_bad(p, "peer %lld is declared twice", (long long)dst[i]);
		} else {
			have_g = 1;
			const char **dst;
			if (decl) {
				decl->groups = (const char **)chakra__malloc((k ? k : 1) * sizeof *decl->groups);
				if (!decl->groups)
					return rm_oom(p);
				decl->ngroups = (uint32_t)k;
				dst = decl->groups;
			} else {
				if (rm_grow((void **)&m->gv, &m->capgv, m->ngv + k, sizeof *m->gv))
					return rm_oom(p);
				dst = m->gv + m->ngv;
				m->ngv += k;
			}
			for (size_t i = 0; i < k; i++) {
				if (!p->t[st + i].len)
					return rm_bad(p, "a group name is empty");
				if (!(dst[i] = rm_intern(m, p->t[st + i].s, p->t[st + i].len)))
					return rm_oom(p);
			}
			for (size_t i = 0; decl && i < k; i++)
				for (size_t j = 0; j < i; j++)
					if (dst[i] == dst[j])
						return rm_bad(p, "group '%s' is declared twice", dst[i]);
		}
	}
	if (!cls)
		return 0;
	if (!have_p && !have_g) {
		*row = UINT32_MAX;
		return 0;
	}
	if ((cls->npeers && !have_p) || (cls->ngroups && !have_g))
		return rm_bad(p, "give the %s of class %u too (or no values: the class file's)",
		           !have_p ? "peers" : "groups", (unsigned)(cls - m->cls));
	if (m->nrows >= UINT32_MAX - 1)
		return rm_bad(p, "too many rank lines with values");
	if (rm_grow((void **)&m->rows, &m->caprows, m->nrows + 1, sizeof *m->rows))
		return rm_oom(p);
	m->rows[m->nrows].p = pstart;
	m->rows[m->nrows].g = gstart;
	*row = (uint32_t)m->nrows++;
	return 0;
}

static int rm_class_line(rm_parser *p)
{
	chakra_rank_map *m = p->m;
	char sb[64];
	int64_t k;
	if (p->nt < 3)
		return rm_bad(p, "'class' needs a number and a file");
	if (rm_tok_int(&p->t[1], 0, &k) || (uint64_t)k != m->nclasses)
		return rm_bad(p, "class '%s': classes are numbered 0, 1, 2... in order (expected %u)",
		           rm_show(&p->t[1], sb, sizeof sb), m->nclasses);
	if (m->nclasses >= m->n)
		return rm_bad(p, "more classes than ranks (%u)", m->n);
	if (!p->t[2].len)
		return rm_bad(p, "class %u: empty file name", m->nclasses);
	if (m->nclasses == m->capclasses) {
		uint32_t nc = m->capclasses ? m->capclasses * 2 : 8;
		rm_class *n = (rm_class *)chakra__realloc(m->cls, nc * sizeof *n);
		if (!n)
			return rm_oom(p);
		m->cls = n;
		m->capclasses = nc;
	}
	rm_class *c = &m->cls[m->nclasses];
	memset(c, 0, sizeof *c);
	m->nclasses++; /* (freed with the map from here on) */
	const rm_tok *f = &p->t[2];
	c->file = (char *)chakra__malloc(f->len + 1);
	int rel = f->s[0] != '/';
	c->path = (char *)chakra__malloc((rel ? p->dirlen : 0) + f->len + 1);
	if (!c->file || !c->path)
		return rm_oom(p);
	memcpy(c->file, f->s, f->len);
	c->file[f->len] = 0;
	size_t o = 0;
	if (rel) {
		memcpy(c->path, p->name, p->dirlen);
		o = p->dirlen;
	}
	memcpy(c->path + o, f->s, f->len);
	c->path[o + f->len] = 0;
	return rm_lists(p, 3, c, NULL, NULL);
}

static int rm_rank_line(rm_parser *p)
{
	chakra_rank_map *m = p->m;
	char sb[64];
	const rm_tok *r = &p->t[0];
	const char *dash = (const char *)memchr(r->s, '-', r->len);
	rm_tok lo = { r->s, dash ? (size_t)(dash - r->s) : r->len }, hi = lo;
	if (dash) {
		hi.s = dash + 1;
		hi.len = r->len - lo.len - 1;
	}
	int64_t a, b, k;
	if (rm_tok_int(&lo, 0, &a) || rm_tok_int(&hi, 0, &b))
		return rm_bad(p, "expected a rank, a range R1-R2, 'class' or 'ranks', not '%s'",
		           rm_show(r, sb, sizeof sb));
	if (a > b)
		return rm_bad(p, "rank range %lld-%lld is empty", (long long)a, (long long)b);
	if ((uint64_t)b >= m->n)
		return rm_bad(p, "rank %lld is not in 0..%u", (long long)b, m->n - 1);
	if (p->nt < 2)
		return rm_bad(p, "rank %lld: no class", (long long)a);
	if (rm_tok_int(&p->t[1], 0, &k) || (uint64_t)k >= m->nclasses)
		return rm_bad(p, "rank %lld: class '%s' is not defined above", (long long)a,
		           rm_show(&p->t[1], sb, sizeof sb));
	uint32_t row;
	int rc = rm_lists(p, 2, NULL, &m->cls[k], &row);
	if (rc < 0)
		return rc;
	for (int64_t x = a; x <= b; x++) {
		if (m->rank_cls[x] != UINT32_MAX)
			return rm_bad(p, "rank %lld is given twice", (long long)x);
		m->rank_cls[x] = (uint32_t)k;
		m->rank_row[x] = row;
	}
	return 0;
}

int chakra_rank_map_parse(chakra_rank_map **out, const char *name, const char *text, size_t len,
                          char *err, size_t errlen)
{
	if (!out)
		return CHAKRA_EINVAL;
	*out = NULL;
	if (!name)
		name = "<rank map>";
	if (err && errlen)
		err[0] = 0;
	rm_parser P;
	memset(&P, 0, sizeof P);
	P.name = name;
	P.err = err;
	P.errlen = errlen;
	const char *slash = strrchr(name, '/');
	P.dirlen = slash ? (size_t)(slash - name) + 1 : 0;
	if (!text && len)
		return CHAKRA_EINVAL;
	chakra_rank_map *m = (chakra_rank_map *)chakra__calloc(1, sizeof *m);
	if (!m)
		return rm_oom(&P);
	P.m = m;
	int rc = 0, state = 0; /* 0: magic, 1: ranks, 2: classes and ranks */
	size_t pos = 0;
	while (rc == 0 && pos < len) {
		const char *nl = (const char *)memchr(text + pos, '\n', len - pos);
		size_t ll = nl ? (size_t)(nl - (text + pos)) : len - pos;
		P.line++;
		rc = rm_tokenize(&P, text + pos, ll);
		pos += ll + (nl ? 1 : 0);
		if (rc < 0 || P.nt == 0)
			continue;
		char sb[64];
		if (state == 0) {
			int64_t v;
			if (!rm_tok_is(&P.t[0], "chakra-rank-map"))
				rc = rm_bad(&P, "not a rank map: it must start with 'chakra-rank-map 1'");
			else if (P.nt != 2 || rm_tok_int(&P.t[1], 0, &v) || v != 1)
				rc = rm_bad(&P, "rank map version '%s': this library reads version 1",
				         P.nt > 1 ? rm_show(&P.t[1], sb, sizeof sb) : "");
			state = 1;
		} else if (state == 1) {
			int64_t v;
			if (!rm_tok_is(&P.t[0], "ranks"))
				rc = rm_bad(&P, "expected 'ranks N' after the first line");
			else if (P.nt != 2 || rm_tok_int(&P.t[1], 0, &v) || v < 1 || (uint64_t)v > RM_MAX_RANKS)
				rc = rm_bad(&P, "'ranks' needs a number in 1..%u", RM_MAX_RANKS);
			else {
				m->n = (uint32_t)v;
				m->rank_cls = (uint32_t *)chakra__malloc((size_t)m->n * sizeof *m->rank_cls);
				m->rank_row = (uint32_t *)chakra__malloc((size_t)m->n * sizeof *m->rank_row);
				if (!m->rank_cls || !m->rank_row)
					rc = rm_oom(&P);
				else
					memset(m->rank_cls, 0xff, (size_t)m->n * sizeof *m->rank_cls);
			}
			state = 2;
		} else if (rm_tok_is(&P.t[0], "class")) {
			rc = rm_class_line(&P);
		} else if (rm_tok_is(&P.t[0], "ranks")) {
			rc = rm_bad(&P, "'ranks' is given twice");
		} else {
			rc = rm_rank_line(&P);
		}
	}
	if (rc == 0 && state < 2) {
		P.line++;
		rc = rm_bad(&P, state == 0 ? "empty: a rank map starts with 'chakra-rank-map 1'"
		                        : "no 'ranks N' line");
	}
	for (uint32_t r = 0; rc == 0 && r < m->n; r++)
		if (m->rank_cls[r] == UINT32_MAX) {
			P.line++;
			rc = rm_bad(&P, "rank %u has no class (every rank 0..%u needs a line)", r, m->n - 1);
		}
	chakra__free(P.buf);
	chakra__free(P.t);
	if (rc < 0) {
		chakra_rank_map_free(m);
		return rc;
	}
	*out = m;
	return 0;
}

int chakra_rank_map_load(chakra_rank_map **out, const char *path, char *err, size_t errlen)
{
	if (!out || !path)
		return CHAKRA_EINVAL;
	*out = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		int e = fd < 0 ? errno : S_ISDIR(st.st_mode) ? EISDIR : errno ? errno : EINVAL;
		if (fd >= 0)
			close(fd);
		if (err && errlen)
			snprintf(err, errlen, "%s: %s", path, e == EINVAL ? "not a regular file" : strerror(e));
		return e == ENOMEM ? CHAKRA_ENOMEM : CHAKRA_EIO;
	}
	if ((uint64_t)st.st_size > RM_MAX_TEXT) {
		close(fd);
		if (err && errlen)
			snprintf(err, errlen, "%s: %lld bytes, more than a rank map may have (1 GiB)", path,
			         (long long)st.st_size);
		return CHAKRA_ETOOBIG;
	}
	size_t n = (size_t)st.st_size, got = 0;
	char *text = (char *)chakra__malloc(n ? n : 1);
	if (!text) {
		close(fd);
		if (err && errlen)
			snprintf(err, errlen, "%s: out of memory", path);
		return CHAKRA_ENOMEM;
	}
	while (got < n) {
		ssize_t k = read(fd, text + got, n - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	close(fd);
	int rc = chakra_rank_map_parse(out, path, text, got, err, errlen);
	chakra__free(text);
	return rc;
}

int chakra_rank_map_is(const char *path)
{
	static const char magic[] = "chakra-rank-map";
	char buf[sizeof magic - 1];
	struct stat st;
	if (!path || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t k = read(fd, buf, sizeof buf);
	close(fd);
	return k == (ssize_t)sizeof buf && !memcmp(buf, magic, sizeof buf);
}

uint32_t chakra_rank_map_ranks(const chakra_rank_map *m)
{
	return m ? m->n : 0;
}

uint32_t chakra_rank_map_classes(const chakra_rank_map *m)
{
	return m ? m->nclasses : 0;
}

uint32_t chakra_rank_map_class(const chakra_rank_map *m, uint32_t rank)
{
	return m && rank < m->n ? m->rank_cls[rank] : UINT32_MAX;
}

const char *chakra_rank_map_file(const chakra_rank_map *m, uint32_t cls)
{
	return m && cls < m->nclasses ? m->cls[cls].path : NULL;
}

int chakra_rank_map_subst(const chakra_rank_map *m, uint32_t rank, chakra_rank_subst *s)
{
	if (!m || !s || rank >= m->n)
		return CHAKRA_EINVAL;
	const rm_class *c = &m->cls[m->rank_cls[rank]];
	uint32_t row = m->rank_row[rank];
	s->n_peers = c->npeers;
	s->peer_from = c->peers;
	s->n_groups = c->ngroups;
	s->group_from = c->groups;
	if (row == UINT32_MAX) {
		s->peer_to = c->peers;
		s->group_to = c->groups;
	} else {
		s->peer_to = c->npeers ? m->pv + m->rows[row].p : c->peers;
		s->group_to = c->ngroups ? m->gv + m->rows[row].g : c->groups;
	}
	return 0;
}
