/* SPDX-License-Identifier: Apache-2.0 */
/* Several ranks at once: expand "{R}" in the input patterns for R = 0, 1,
 * ... while the files exist, convert each to PREFIX.R.et (.et.gz with gzip), check that every
 * process group has the same members on every rank that names it, and
 * write PREFIX.comm_groups.json in ASTRA-sim's communicator-group format
 * ({"name": [ranks...]}). The outputs are one set under the output rule
 * (outfile.h): checked before anything is written (none may be an input),
 * written to temporaries, and renamed only once every rank succeeded, so a
 * failure leaves the previous files as they were. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cv.h"
#include "../rankpath.h"
#include "groups.h"
#include "outfile.h"

#define MAX_RANKS 65536

static char *out_name(const char *prefix, long r, const char *suffix, int gz)
{
	size_t n = strlen(prefix) + 40;
	char *s = chakra_malloc(n);
	if (!s)
		return NULL;
	if (r >= 0)
		chakra__rank_name(s, n, prefix, (uint64_t)r, gz);
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

/* Members: a list, a range, or none (unknown). */
static size_t n_members(const struct cv_group *g)
{
	return g->n ? g->n : g->rank_stride > 0 && g->size > 0 ? (size_t)g->size : 0;
}

static int64_t member(const struct cv_group *g, size_t k)
{
	return g->n ? g->ranks[k] : g->rank_start + (int64_t)k * g->rank_stride;
}

/* Members agree (a group without members agrees with any); two ranges are
 * compared as ranges, a list against anything member by member. */
static int same_members(const struct cv_group *a, const struct cv_group *b)
{
	size_t na = n_members(a), nb = n_members(b);
	if (!na || !nb)
		return 1;
	if (na != nb)
		return 0;
	if (!a->n && !b->n)
		return a->rank_start == b->rank_start && (na == 1 || a->rank_stride == b->rank_stride);
	for (size_t k = 0; k < na; k++)
		if (member(a, k) != member(b, k))
			return 0;
	return 1;
}

/* The group file into an opened output: names as JSON strings (escaped),
 * members as listed, a range written out member by member (never held as
 * a list), a group without members as every rank. */
/* The group file through the one writer (lib/json/groups.c); a failed
 * write is the output rule's to report, with its errno, at commit. */
static void write_groups(chakra__out *out, const cv_groups *all, long nranks)
{
	chakra__groups_out w;
	chakra__groups_out_begin(&w, chakra__out_write_cb, out);
	for (size_t i = 0; i < all->n; i++) {
		const struct cv_group *g = &all->g[i];
		chakra__groups_out_group(&w, g->name, strlen(g->name));
		if (g->n) {
			for (size_t j = 0; j < g->n; j++)
				chakra__groups_out_rank(&w, (uint64_t)g->ranks[j]);
		} else if (g->rank_stride > 0 && g->size > 0) {
			/* members < CV_RANK_LIMIT: checked where the group entered */
			for (int64_t j = 0; j < g->size; j++)
				chakra__groups_out_rank(&w, (uint64_t)(g->rank_start + j * g->rank_stride));
		} else {
			/* no list: every rank (PyTorch writes [] for the default group) */
			long m = g->size > 0 && g->size <= MAX_RANKS ? (long)g->size : nranks;
			for (long j = 0; j < m; j++)
				chakra__groups_out_rank(&w, (uint64_t)j);
		}
	}
	chakra__groups_out_end(&w);
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
	if (!strstr(lead, CHAKRA__RANK_MARK) ||
	    (et_pattern && kineto_pattern && !strstr(kineto_pattern, CHAKRA__RANK_MARK)))
		return fail(r, CHAKRA_EINVAL, "'%s': a multi-rank input names the rank as {R}%.0ld",
		            !strstr(lead, CHAKRA__RANK_MARK) ? lead : kineto_pattern, 0);
	/* ranks present: 0, 1, ... until the first missing file */
	long nr = 0;
	for (; nr < MAX_RANKS; nr++) {
		char *p = chakra__rank_expand(lead, nr);
		if (!p)
			return fail(r, CHAKRA_ENOMEM, "%sout of memory%.0ld", "", 0);
		int ok = exists(p);
		chakra_free(p);
		if (!ok)
			break;
	}
	if (!nr) {
		char *p = chakra__rank_expand(lead, 0);
		int rc = fail(r, CHAKRA_EIO, "%s: no such file (rank 0 of the pattern)%.0ld",
		              p ? p : lead, 0);
		chakra_free(p);
		return rc;
	}
	/* every name: inputs ins[2k] (the lead's) and ins[2k+1] (the Kineto
	 * trace linked to an ET, or NULL); outputs outn[k], outn[nr] = groups */
	int two = kineto_pattern && et_pattern;
	size_t nout = (size_t)nr + 1;
	char **ins = chakra_calloc(2 * (size_t)nr, sizeof *ins);
	char **outn = chakra_calloc(nout, sizeof *outn);
	chakra__out *outs = chakra_calloc(nout, sizeof *outs);
	cv_groups all = { 0 };
	cv_strtab names = { 0 }; /* group name -> index in all (interned in order) */
	int rc = 0;
	if (!ins || !outn || !outs || chakra__cv_strtab_init(&names) < 0)
		rc = fail(r, CHAKRA_ENOMEM, "%sout of memory%.0ld", "", 0);
	for (long k = 0; k < nr && !rc; k++) {
		ins[2 * k] = chakra__rank_expand(lead, k);
		ins[2 * k + 1] = two ? chakra__rank_expand(kineto_pattern, k) : NULL;
		outn[k] = out_name(prefix, k, NULL, o->gzip);
		if (!ins[2 * k] || (two && !ins[2 * k + 1]) || !outn[k])
			rc = fail(r, CHAKRA_ENOMEM, "%sout of memory%.0ld", "", 0);
		else if (two && !exists(ins[2 * k + 1]))
			rc = fail(r, CHAKRA_EIO, "%s: no such file (the Kineto trace of rank %ld)",
			          ins[2 * k + 1], k);
	}
	if (!rc && !(outn[nr] = out_name(prefix, -1, "comm_groups.json", 0)))
		rc = fail(r, CHAKRA_ENOMEM, "%sout of memory%.0ld", "", 0);
	/* nothing is written if any output exists (without overwrite), is an
	 * input of some rank, or is named twice */
	chakra__out_opts oo = { o->overwrite, 0, (const char *const *)ins, 2 * (size_t)nr,
	                        "use -f (--force)" };
	if (!rc)
		rc = chakra__out_check_set((const char *const *)outn, nout, &oo, r->errmsg,
		                           sizeof r->errmsg);
	oo.inputs = NULL; /* checked above, once */
	oo.n_inputs = 0;
	for (long k = 0; k < nr && !rc; k++) {
		cv_groups mine = { 0 };
		chakra_convert_options ok = *o;
		ok.out_cb = chakra__out_write_cb;
		ok.out_data = &outs[k];
		const char *in = ins[2 * k], *kin = ins[2 * k + 1];
		if ((rc = chakra__out_open(&outs[k], outn[k], &oo, r->errmsg, sizeof r->errmsg)) < 0)
			break;
		rc = chakra__cv_run(et_pattern ? in : NULL, et_pattern ? kin : in, outn[k], &ok, r, &mine);
		/* closed now: one descriptor at a time, however many ranks */
		if (!rc)
			rc = chakra__out_close(&outs[k], r->errmsg, sizeof r->errmsg);
		if (!rc && r->summary.rank >= 0 && r->summary.rank != k)
			rc = fail(r, CHAKRA_ECORRUPT,
			          "%s: the trace says it is rank %ld, its file name says otherwise",
			          two && kin ? kin : in, (long)r->summary.rank);
		if (!rc && per_rank && (size_t)k < max_ranks)
			per_rank[k] = r->summary;
		/* groups: same members on every rank that names them */
		for (size_t i = 0; i < mine.n && !rc; i++) {
			uint32_t j = chakra__cv_intern(&names, mine.g[i].name, strlen(mine.g[i].name));
			if (j == CV_NONE) {
				rc = fail(r, CHAKRA_ENOMEM, "%sout of memory%.0ld", "", 0);
				break;
			}
			j--; /* index 0 is "" */
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
				         "%s: process group '%.200s' has other members on rank %ld than on the "
				         "ranks before it", in, mine.g[i].name, k);
				rc = CHAKRA_ECORRUPT;
			} else if (!n_members(&all.g[j]) && n_members(&mine.g[i])) {
				struct cv_group t = all.g[j];
				all.g[j] = mine.g[i];
				mine.g[i] = t;
			}
		}
		chakra__cv_groups_free(&mine);
	}
	if (!rc && (rc = chakra__out_open(&outs[nr], outn[nr], &oo, r->errmsg,
	                                  sizeof r->errmsg)) == 0)
		write_groups(&outs[nr], &all, nr);
	/* every rank is complete: all files move into place, or none */
	if (!rc)
		rc = chakra__out_commit_set(outs, nout, r->errmsg, sizeof r->errmsg);
	if (!rc && n_ranks)
		*n_ranks = (size_t)nr;
	for (size_t k = 0; outs && k < nout; k++)
		chakra__out_abort(&outs[k]); /* after a failure: the temporaries go */
	/* the names go with this call: the result must not point at them */
	for (size_t k = 0; ins && k < 2 * (size_t)nr; k++)
		if (r->file == ins[k])
			r->file = NULL;
	for (size_t k = 0; outn && k < nout; k++)
		if (r->file == outn[k])
			r->file = NULL;
	for (size_t k = 0; ins && k < 2 * (size_t)nr; k++)
		chakra_free(ins[k]);
	for (size_t k = 0; outn && k < nout; k++)
		chakra_free(outn[k]);
	chakra_free(ins), chakra_free(outn), chakra_free(outs);
	chakra__cv_groups_free(&all);
	chakra__cv_strtab_free(&names);
	return rc;
}
