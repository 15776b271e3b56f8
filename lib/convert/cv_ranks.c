/* SPDX-License-Identifier: Apache-2.0 */
/* Several ranks at once: expand "{R}" in the input patterns for R = 0, 1,
 * ... while the files exist, convert each to PREFIX.R.et (.et.gz with gzip), check that every
 * process group has the same members on every rank that names it, and
 * write PREFIX.comm_groups.json in ASTRA-sim's communicator-group format
 * ({"name": [ranks...]}). Outputs are checked before anything is written,
 * and removed again if a later rank fails. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cv.h"

#define MAX_RANKS 65536

static char *expand(const char *pat, long r)
{
	const char *p = strstr(pat, "{R}");
	if (!p)
		return NULL;
	char num[24];
	int nl = snprintf(num, sizeof num, "%ld", r);
	size_t n = strlen(pat) - 3 + (size_t)nl + 1;
	char *s = malloc(n);
	if (!s)
		return NULL;
	snprintf(s, n, "%.*s%s%s", (int)(p - pat), pat, num, p + 3);
	return s;
}

static char *out_name(const char *prefix, long r, const char *suffix, int gz)
{
	size_t n = strlen(prefix) + 40;
	char *s = malloc(n);
	if (!s)
		return NULL;
	if (r >= 0)
		snprintf(s, n, "%s.%ld.et%s", prefix, r, gz ? ".gz" : "");
	else
		snprintf(s, n, "%s.%s", prefix, suffix);
	return s;
}

static int exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

static int fail(chakra_convert_result *r, int code, const char *fmt, const char *a, long b)
{
	snprintf(r->errmsg, sizeof r->errmsg, fmt, a, b);
	return code;
}

/* Member lists agree (a group without a list agrees with any). */
static int same_members(const struct cv_group *a, const struct cv_group *b)
{
	if (!a->n || !b->n)
		return 1;
	if (a->n != b->n)
		return 0;
	return !memcmp(a->ranks, b->ranks, a->n * sizeof *a->ranks);
}

static int write_groups(const char *path, const cv_groups *all, long nranks, int overwrite,
                        chakra_convert_result *r)
{
	if (!overwrite && exists(path))
		return fail(r, CHAKRA_EIO, "%s: exists (use -f to replace it)", path, 0);
	size_t n = strlen(path) + 16;
	char *tmp = malloc(n);
	if (!tmp)
		return fail(r, CHAKRA_ENOMEM, "%s: out of memory", path, 0);
	snprintf(tmp, n, "%s.tmp-XXXXXX", path);
	int fd = mkstemp(tmp);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		int e = errno;
		if (fd >= 0)
			close(fd), unlink(tmp);
		free(tmp);
		snprintf(r->errmsg, sizeof r->errmsg, "%s: cannot write: %s", path, strerror(e));
		return CHAKRA_EIO;
	}
	fputs("{", f);
	for (size_t i = 0; i < all->n; i++) {
		const struct cv_group *g = &all->g[i];
		fprintf(f, "%s\n  \"", i ? "," : "");
		for (const char *c = g->name; *c; c++)
			fprintf(f, *c == '"' || *c == '\\' ? "\\%c" : "%c", *c);
		fputs("\": [", f);
		if (g->n) {
			for (size_t j = 0; j < g->n; j++)
				fprintf(f, "%s%lld", j ? ", " : "", (long long)g->ranks[j]);
		} else {
			/* no list: every rank (PyTorch writes [] for the default group) */
			long m = g->size > 0 && g->size <= MAX_RANKS ? (long)g->size : nranks;
			for (long j = 0; j < m; j++)
				fprintf(f, "%s%ld", j ? ", " : "", j);
		}
		fputs("]", f);
	}
	fputs("\n}\n", f);
	int bad = ferror(f) | fflush(f) | fsync(fileno(f));
	if (fclose(f) || bad || rename(tmp, path)) {
		int e = errno;
		unlink(tmp);
		free(tmp);
		snprintf(r->errmsg, sizeof r->errmsg, "%s: cannot write: %s", path, strerror(e));
		return CHAKRA_EIO;
	}
	free(tmp);
	return 0;
}

int chakra_convert_ranks(const char *et_pattern, const char *kineto_pattern, const char *prefix,
                         const chakra_convert_options *opts, chakra_convert_result *result,
                         chakra_convert_summary *per_rank, size_t max_ranks, size_t *n_ranks)
{
	chakra_convert_result local;
	chakra_convert_result *r = result ? result : &local;
	memset(r, 0, sizeof *r);
	r->index = r->offset = -1;
	r->summary.rank = -1;
	r->summary.link_method = "";
	if (n_ranks)
		*n_ranks = 0;
	chakra_convert_options full;
	int vrc = chakra__cv_opts(opts, &full, r->errmsg, sizeof r->errmsg);
	if (vrc < 0)
		return vrc;
	const chakra_convert_options *o = &full;
	if (o->out_cb)
		return fail(r, CHAKRA_EINVAL, "chakra_convert_ranks: %sout_cb is for one output%.0ld", "", 0);
	const char *lead = et_pattern ? et_pattern : kineto_pattern;
	if (!lead || !prefix)
		return fail(r, CHAKRA_EINVAL, "chakra_convert_ranks: no %s%ld", lead ? "prefix" : "input", 0);
	if (!strstr(lead, "{R}") || (et_pattern && kineto_pattern && !strstr(kineto_pattern, "{R}")))
		return fail(r, CHAKRA_EINVAL, "'%s': a multi-rank input names the rank as {R}%.0ld",
		            !strstr(lead, "{R}") ? lead : kineto_pattern, 0);
	/* ranks present: 0, 1, ... until the first missing file */
	long nr = 0;
	for (; nr < MAX_RANKS; nr++) {
		char *p = expand(lead, nr);
		if (!p)
			return fail(r, CHAKRA_ENOMEM, "%sout of memory%.0ld", "", 0);
		int ok = exists(p);
		free(p);
		if (!ok)
			break;
	}
	if (!nr) {
		char *p = expand(lead, 0);
		int rc = fail(r, CHAKRA_EIO, "%s: no such file (rank 0 of the pattern)%.0ld",
		              p ? p : lead, 0);
		free(p);
		return rc;
	}
	/* nothing is written if any output exists (without overwrite) or an
	 * input of some rank is missing */
	int rc = 0;
	for (long k = 0; k < nr && !rc; k++) {
		char *out = out_name(prefix, k, NULL, o->gzip), *kin = kineto_pattern && et_pattern
		                                                ? expand(kineto_pattern, k)
		                                                : NULL;
		if (!out || (kineto_pattern && et_pattern && !kin))
			rc = fail(r, CHAKRA_ENOMEM, "%sout of memory%.0ld", "", 0);
		else if (!o->overwrite && exists(out))
			rc = fail(r, CHAKRA_EIO, "%s: exists (use -f to replace it)%.0ld", out, 0);
		else if (kin && !exists(kin))
			rc = fail(r, CHAKRA_EIO, "%s: no such file (the Kineto trace of rank %ld)", kin, k);
		free(out);
		free(kin);
	}
	char *gpath = out_name(prefix, -1, "comm_groups.json", 0);
	if (!rc && !gpath)
		rc = fail(r, CHAKRA_ENOMEM, "%sout of memory%.0ld", "", 0);
	if (!rc && !o->overwrite && exists(gpath))
		rc = fail(r, CHAKRA_EIO, "%s: exists (use -f to replace it)%.0ld", gpath, 0);
	if (rc) {
		free(gpath);
		return rc;
	}
	cv_groups all = { 0 };
	long done = 0;
	for (long k = 0; k < nr && !rc; k++) {
		char *in = expand(lead, k);
		char *kin = kineto_pattern && et_pattern ? expand(kineto_pattern, k) : NULL;
		char *out = out_name(prefix, k, NULL, o->gzip);
		cv_groups mine = { 0 };
		if (!in || !out || (kineto_pattern && et_pattern && !kin)) {
			rc = fail(r, CHAKRA_ENOMEM, "%sout of memory%.0ld", "", 0);
		} else {
			rc = chakra__cv_run(et_pattern ? in : NULL, et_pattern ? kin : in, out, o, r, &mine);
			if (!rc)
				done = k + 1;
			if (!rc && r->summary.rank >= 0 && r->summary.rank != k)
				rc = fail(r, CHAKRA_ECORRUPT,
				          "%s: the trace says it is rank %ld, its file name says otherwise",
				          et_pattern && kin ? kin : in, (long)r->summary.rank);
		}
		if (!rc && per_rank && (size_t)k < max_ranks)
			per_rank[k] = r->summary;
		/* groups: same members on every rank that names them */
		for (size_t i = 0; i < mine.n && !rc; i++) {
			size_t j = 0;
			while (j < all.n && strcmp(all.g[j].name, mine.g[i].name))
				j++;
			if (j == all.n) {
				struct cv_group *q = CV_PUSH(all.g, all.n, all.cap);
				if (!q) {
					rc = fail(r, CHAKRA_ENOMEM, "%sout of memory%.0ld", "", 0);
					break;
				}
				*q = mine.g[i];
				memset(&mine.g[i], 0, sizeof mine.g[i]);
			} else if (!same_members(&all.g[j], &mine.g[i])) {
				snprintf(r->errmsg, sizeof r->errmsg,
				         "%s: process group '%s' has other members on rank %ld than on the "
				         "ranks before it", in, mine.g[i].name, k);
				rc = CHAKRA_ECORRUPT;
			} else if (!all.g[j].n && mine.g[i].n) {
				struct cv_group t = all.g[j];
				all.g[j] = mine.g[i];
				mine.g[i] = t;
			}
		}
		chakra__cv_groups_free(&mine);
		free(in), free(kin), free(out);
	}
	if (!rc)
		rc = write_groups(gpath, &all, nr, o->overwrite, r);
	if (rc) {
		/* leave nothing of this run behind */
		for (long k = 0; k < done; k++) {
			char *out = out_name(prefix, k, NULL, o->gzip);
			if (out)
				unlink(out);
			free(out);
		}
	} else if (n_ranks) {
		*n_ranks = (size_t)nr;
	}
	chakra__cv_groups_free(&all);
	free(gpath);
	return rc;
}
