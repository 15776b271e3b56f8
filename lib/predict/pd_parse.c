/* SPDX-License-Identifier: Apache-2.0 */
/* The measurements calibrations read: measured iterations (CSV with
 * vTrain's columns) and nccl-tests output (or vTrain's all-reduce tables).
 * Every error names FILE:LINE and what is wrong; a refused file adds no
 * row. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pd_impl.h"

#define BAD(...) chakra__pd_fail(err, errlen, CHAKRA_EINVAL, __VA_ARGS__)

/* ---------------- line reading ---------------- */

typedef struct lines {
	const char *p, *end;
	size_t no;
	char buf[4096];
} lines;

/* The next line (without its end of line), or NULL at the end; -1 in *bad
 * for a line longer than the buffer or holding a NUL. */
static const char *next_line(lines *L, int *bad)
{
	*bad = 0;
	if (L->p >= L->end)
		return NULL;
	const char *e = memchr(L->p, '\n', (size_t)(L->end - L->p));
	size_t n = e ? (size_t)(e - L->p) : (size_t)(L->end - L->p);
	L->no++;
	const char *s = L->p;
	L->p = e ? e + 1 : L->end;
	if (n && s[n - 1] == '\r')
		n--;
	if (n >= sizeof L->buf || memchr(s, 0, n)) {
		*bad = 1;
		return "";
	}
	memcpy(L->buf, s, n);
	L->buf[n] = 0;
	return L->buf;
}

/* Sources name the file without its directories (they must fit 64 bytes). */
static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');
	return b ? b + 1 : path;
}

static int append(void **v, size_t *n, size_t *cap, size_t size)
{
	if (*n < *cap)
		return 0;
	size_t c = *cap ? *cap * 2 : 64;
	void *p = chakra_realloc(*v, c * size);
	if (!p)
		return -1;
	*v = p;
	*cap = c;
	return 0;
}

/* ---------------- measured iterations ---------------- */

enum {
	K_PARAMS, K_GPUS, K_GB, K_MB, K_HIDDEN, K_HEADS, K_LAYERS, K_SEQ, K_TP, K_DP, K_PP,
	K_TIME, K_N
};
static const char *const col_names[K_N] = {
	"parameters", "gpus", "global batch", "micro batch", "hidden size", "attention heads",
	"layers", "sequence length", "tensor parallelism", "data parallelism",
	"pipeline parallelism", "iteration time (ms)"
};

static void lower(char *s)
{
	for (; *s; s++)
		*s = (char)tolower((unsigned char)*s);
}

/* Splits a CSV line in place (no quoting: these files have none). */
static int split(char *s, char **f, int max)
{
	int n = 0;
	for (;;) {
		if (n == max)
			return -1;
		f[n++] = s;
		char *c = strchr(s, ',');
		if (!c)
			return n;
		*c = 0;
		s = c + 1;
	}
}

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = 0;
	return s;
}

int chakra_gpt_measurements_parse(const char *name, const char *text, size_t len,
                                  chakra_gpt_measurement **rows, size_t *n, char *err,
                                  size_t errlen)
{
	if (!text || !rows || !n)
		return BAD("chakra_gpt_measurements_parse: NULL argument");
	if (!name)
		name = "<measurements>";
	lines L = { text, text + len, 0, { 0 } };
	int col[K_N];
	for (int k = 0; k < K_N; k++)
		col[k] = -1;
	uint32_t group = *n ? (*rows)[*n - 1].group + 1 : 0;
	int ncols = 0, bad;
	const char *ln;
	size_t cap = *n, start = *n;
	/* the header: the first line that is not empty */
	while ((ln = next_line(&L, &bad)) && !bad && !*trim(L.buf))
		;
	if (!ln)
		return chakra__pd_fail(err, errlen, CHAKRA_ECONFIG, "%s: empty (expected a header "
		                       "line naming the columns)", name);
	if (bad)
		return chakra__pd_fail(err, errlen, CHAKRA_ECONFIG, "%s:%zu: line too long or "
		                       "holds a NUL byte", name, L.no);
	{
		char *f[64];
		lower(L.buf);
		ncols = split(L.buf, f, 64);
		if (ncols < 0)
			return chakra__pd_fail(err, errlen, CHAKRA_ECONFIG, "%s:%zu: more than 64 columns",
			                       name, L.no);
		for (int i = 0; i < ncols; i++) {
			char *h = trim(f[i]);
			for (int k = 0; k < K_N; k++)
				if (col[k] < 0 && strstr(h, col_names[k]) &&
				    !(k == K_GPUS && strstr(h, "parameters")))
					col[k] = i;
		}
		for (int k = K_GPUS; k < K_N; k++)
			if (col[k] < 0)
				return chakra__pd_fail(err, errlen, CHAKRA_ECONFIG,
				                       "%s:%zu: no column '%s' in the header", name, L.no,
				                       col_names[k]);
	}
	int rc = 0;
	while ((ln = next_line(&L, &bad))) {
		if (bad) {
			rc = chakra__pd_fail(err, errlen, CHAKRA_ECONFIG, "%s:%zu: line too long or holds "
			                     "a NUL byte", name, L.no);
			break;
		}
		if (!*trim(L.buf) || L.buf[0] == '#')
			continue;
		char *f[64];
		int nf = split(L.buf, f, 64);
		if (nf != ncols) {
			rc = chakra__pd_fail(err, errlen, CHAKRA_ECONFIG, "%s:%zu: %d fields, the header "
			                     "has %d", name, L.no, nf < 0 ? 65 : nf, ncols);
			break;
		}
		uint64_t v[K_N] = { 0 };
		double ms = 0;
		for (int k = K_GPUS; k < K_N && rc == 0; k++) {
			char *s = trim(f[col[k]]), *e;
			errno = 0;
			if (k == K_TIME) {
				ms = strtod(s, &e);
				if (e == s || *e || !(ms > 0) || !isfinite(ms))
					rc = chakra__pd_fail(err, errlen, CHAKRA_ECONFIG, "%s:%zu: column '%s': "
					                     "'%s' is not a positive number", name, L.no,
					                     col_names[k], s);
			} else {
				unsigned long long x = strtoull(s, &e, 10);
				if (e == s || *e || errno || x == 0 || x > (1ull << 32) - 1 || *s == '-')
					rc = chakra__pd_fail(err, errlen, CHAKRA_ECONFIG, "%s:%zu: column '%s': "
					                     "'%s' is not a positive integer", name, L.no,
					                     col_names[k], s);
				v[k] = x;
			}
		}
		if (rc < 0)
			break;
		if (v[K_TP] * v[K_DP] * v[K_PP] != v[K_GPUS]) {
			rc = chakra__pd_fail(err, errlen, CHAKRA_ECONFIG, "%s:%zu: tp %llu x dp %llu x pp "
			                     "%llu is not the %llu GPUs", name, L.no,
			                     (unsigned long long)v[K_TP], (unsigned long long)v[K_DP],
			                     (unsigned long long)v[K_PP], (unsigned long long)v[K_GPUS]);
			break;
		}
		if (append((void **)rows, n, &cap, sizeof **rows) < 0) {
			rc = chakra__pd_fail(err, errlen, CHAKRA_ENOMEM, "out of memory");
			break;
		}
		chakra_gpt_measurement *m = &(*rows)[*n];
		memset(m, 0, sizeof *m);
		chakra_gpt_config c = CHAKRA_GPT_CONFIG_INIT;
		c.layers = (uint32_t)v[K_LAYERS];
		c.hidden = (uint32_t)v[K_HIDDEN];
		c.heads = (uint32_t)v[K_HEADS];
		c.seq = (uint32_t)v[K_SEQ];
		c.global_batch = v[K_GB];
		c.micro_batch = (uint32_t)v[K_MB];
		c.tp = (uint32_t)v[K_TP];
		c.dp = (uint32_t)v[K_DP];
		c.pp = (uint32_t)v[K_PP];
		char cerr[256];
		if (chakra_gpt_config_check(&c, cerr, sizeof cerr) < 0) {
			rc = chakra__pd_fail(err, errlen, CHAKRA_ECONFIG, "%s:%zu: %s", name, L.no, cerr);
			break;
		}
		m->config = c;
		m->iteration_s = ms * 1e-3;
		m->group = group;
		snprintf(m->source, sizeof m->source, "%.50s:%zu", base_name(name), L.no);
		(*n)++;
	}
	if (rc == 0 && *n == start)
		rc = chakra__pd_fail(err, errlen, CHAKRA_ECONFIG, "%s: no measurements after the "
		                     "header", name);
	if (rc < 0)
		*n = start;
	return rc;
}

int chakra_gpt_measurements_load(const char *path, chakra_gpt_measurement **rows, size_t *n,
                                 char *err, size_t errlen)
{
	char *text;
	size_t len;
	if (!path || !rows || !n)
		return BAD("chakra_gpt_measurements_load: NULL argument");
	int rc = chakra__pd_slurp(path, &text, &len, err, errlen);
	if (rc < 0)
		return rc;
	rc = chakra_gpt_measurements_parse(path, text, len, rows, n, err, errlen);
	chakra_free(text);
	return rc;
}

/* ---------------- nccl-tests logs ---------------- */

static void strip_prefix(char *s)
{
	/* mpirun --tag-output: "[1,0]<stdout>:" */
	if (s[0] == '[') {
		char *e = strstr(s, "]<stdout>:");
		if (!e)
			e = strstr(s, "]<stderr>:");
		if (e)
			memmove(s, e + 10, strlen(e + 10) + 1);
	}
}

static int op_from_name(const char *name, chakra_collective_op *op)
{
	char low[512];
	snprintf(low, sizeof low, "%s", name);
	lower(low);
	const char *base = strrchr(low, '/');
	base = base ? base + 1 : low;
	if (strstr(base, "all_reduce") || strstr(base, "allreduce") || strstr(base, "ar_gpu"))
		*op = CHAKRA_OP_ALL_REDUCE;
	else if (strstr(base, "all_gather") || strstr(base, "allgather"))
		*op = CHAKRA_OP_ALL_GATHER;
	else if (strstr(base, "reduce_scatter") || strstr(base, "reducescatter"))
		*op = CHAKRA_OP_REDUCE_SCATTER;
	else if (strstr(base, "alltoall") || strstr(base, "all_to_all"))
		*op = CHAKRA_OP_ALL_TO_ALL;
	else
		return -1;
	return 0;
}

/* vTrain's tables: "size(B),count,type,time(ns),busbw(GB/s),..." in files
 * named AR_GPU<n>_...: all-reduce on n GPUs of one node. */
static int parse_lut(const char *name, lines *L, chakra_nccl_measurement **rows, size_t *n,
                     size_t *cap, char *err, size_t errlen)
{
	const char *g = strstr(name, "GPU");
	unsigned long gpus = g ? strtoul(g + 3, NULL, 10) : 0;
	if (!gpus || gpus > (1u << 24))
		return chakra__pd_fail(err, errlen, CHAKRA_ECONFIG, "%s: a size(B),count,... table, "
		                       "but the file name does not say the GPUs (AR_GPU<n>_...)", name);
	const char *ln;
	int bad;
	while ((ln = next_line(L, &bad))) {
		if (bad)
			return chakra__pd_fail(err, errlen, CHAKRA_ECONFIG, "%s:%zu: line too long or "
			                       "holds a NUL byte", name, L->no);
		if (!*trim(L->buf))
			continue;
		char *f[16];
		int nf = split(L->buf, f, 16);
		char *e1, *e2;
		errno = 0;
		unsigned long long bytes = nf >= 4 ? strtoull(trim(f[0]), &e1, 10) : 0;
		double ns = nf >= 4 ? strtod(trim(f[3]), &e2) : 0;
		if (nf < 4 || *e1 || errno || !bytes || *e2 || !(ns > 0) || !isfinite(ns))
			return chakra__pd_fail(err, errlen, CHAKRA_ECONFIG, "%s:%zu: expected size(B), "
			                       "count, type, time(ns), ...", name, L->no);
		if (append((void **)rows, n, cap, sizeof **rows) < 0)
			return chakra__pd_fail(err, errlen, CHAKRA_ENOMEM, "out of memory");
		chakra_nccl_measurement *m = &(*rows)[(*n)++];
		memset(m, 0, sizeof *m);
		m->op = CHAKRA_OP_ALL_REDUCE;
		m->gpus = (uint32_t)gpus;
		m->nodes = 1;
		m->bytes = bytes;
		m->time_us = ns * 1e-3;
		snprintf(m->source, sizeof m->source, "%.50s:%zu", base_name(name), L->no);
	}
	return 0;
}

int chakra_nccl_log_parse(const char *name, const char *text, size_t len,
                          chakra_nccl_measurement **rows, size_t *n, char *err, size_t errlen)
{
	if (!text || !rows || !n)
		return BAD("chakra_nccl_log_parse: NULL argument");
	if (!name)
		name = "<nccl-tests log>";
	lines L = { text, text + len, 0, { 0 } };
	size_t cap = *n, start = *n;
	int bad, rc = 0;
	const char *ln;
	chakra_collective_op op = CHAKRA_OP_ALL_REDUCE;
	int have_op = op_from_name(name, &op) == 0;
	uint32_t ranks = 0, ngpus_hdr = 0;
	char hosts[64][64];
	uint32_t nhosts = 0;
	int in_devices = 0;
	while ((ln = next_line(&L, &bad))) {
		if (bad) {
			rc = chakra__pd_fail(err, errlen, CHAKRA_ECONFIG, "%s:%zu: line too long or holds "
			                     "a NUL byte", name, L.no);
			break;
		}
		strip_prefix(L.buf);
		char *s = trim(L.buf);
		if (L.no == 1 && !strncmp(s, "size(B),", 8)) {
			rc = parse_lut(name, &L, rows, n, &cap, err, errlen);
			break;
		}
		if (!*s)
			continue;
		if (*s == '#') {
			const char *g = strstr(s, "nGpus");
			if (g)
				ngpus_hdr = (uint32_t)strtoul(g + 5, NULL, 10);
			if (strstr(s, "Using devices"))
				in_devices = 1;
			else if (in_devices && strstr(s, " Rank ")) {
				ranks++;
				const char *on = strstr(s, " on ");
				if (on) {
					char host[64];
					if (sscanf(on + 4, "%63s", host) == 1) {
						uint32_t h = 0;
						while (h < nhosts && strcmp(hosts[h], host))
							h++;
						if (h == nhosts && nhosts < 64)
							snprintf(hosts[nhosts++], sizeof hosts[0], "%s", host);
					}
				}
			} else if (in_devices && !strstr(s, "Rank"))
				in_devices = 0;
			continue;
		}
		/* a result line: size count type redop [root] time algbw busbw #wrong ... */
		if (!isdigit((unsigned char)*s))
			continue;
		char *f[32];
		int nf = 0;
		for (char *t = strtok(s, " \t"); t && nf < 32; t = strtok(NULL, " \t"))
			f[nf++] = t;
		if (nf < 8)
			continue;
		/* newer nccl-tests print a root column: 13 fields instead of 12 */
		int root = nf >= 13;
		int ti = root ? 5 : 4;
		uint32_t gpus = ranks ? ranks : ngpus_hdr;
		if (!gpus) {
			rc = chakra__pd_fail(err, errlen, CHAKRA_ECONFIG, "%s:%zu: results before the "
			                     "device list (no '# Using devices' or nGpus)", name, L.no);
			break;
		}
		char *e1, *e2;
		errno = 0;
		unsigned long long bytes = strtoull(f[0], &e1, 10);
		double us = strtod(f[ti], &e2);
		if (*e1 || errno) {
			rc = chakra__pd_fail(err, errlen, CHAKRA_ECONFIG, "%s:%zu: size '%s' is not an "
			                     "integer", name, L.no, f[0]);
			break;
		}
		if (*e2 || !(us >= 0) || !isfinite(us)) {
			rc = chakra__pd_fail(err, errlen, CHAKRA_ECONFIG, "%s:%zu: time '%s' is not a "
			                     "number of microseconds", name, L.no, f[ti]);
			break;
		}
		if (!have_op) {
			const char *redop = f[3];
			if (!strcmp(redop, "sum") || !strcmp(redop, "prod") || !strcmp(redop, "max") ||
			    !strcmp(redop, "min") || !strcmp(redop, "avg"))
				op = CHAKRA_OP_ALL_REDUCE;
			else {
				rc = chakra__pd_fail(err, errlen, CHAKRA_ECONFIG, "%s:%zu: cannot tell the "
				                     "collective (no reduction): name the file after it, "
				                     "e.g. all_gather_perf.log", name, L.no);
				break;
			}
			have_op = 1;
		}
		if (append((void **)rows, n, &cap, sizeof **rows) < 0) {
			rc = chakra__pd_fail(err, errlen, CHAKRA_ENOMEM, "out of memory");
			break;
		}
		chakra_nccl_measurement *m = &(*rows)[(*n)++];
		memset(m, 0, sizeof *m);
		m->op = op;
		m->gpus = gpus;
		m->nodes = nhosts ? nhosts : 1;
		m->bytes = bytes;
		m->time_us = us;
		snprintf(m->source, sizeof m->source, "%.50s:%zu", base_name(name), L.no);
	}
	if (rc == 0 && *n == start)
		rc = chakra__pd_fail(err, errlen, CHAKRA_ECONFIG, "%s: no results (not nccl-tests "
		                     "output?)", name);
	if (rc < 0)
		*n = start;
	return rc;
}

int chakra_nccl_log_load(const char *path, chakra_nccl_measurement **rows, size_t *n,
                         char *err, size_t errlen)
{
	char *text;
	size_t len;
	if (!path || !rows || !n)
		return BAD("chakra_nccl_log_load: NULL argument");
	int rc = chakra__pd_slurp(path, &text, &len, err, errlen);
	if (rc < 0)
		return rc;
	rc = chakra_nccl_log_parse(path, text, len, rows, n, err, errlen);
	chakra_free(text);
	return rc;
}

