/* SPDX-License-Identifier: Apache-2.0 */
/* The replay's report: per operation kind (collective type, size and rank
 * count; message direction and size) the count, mean / min / max time and
 * nccl-tests bandwidths, and per rank the time split; text or JSON, with
 * the simulator's prediction beside the measurement when there is one. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_gen.h>

#include "../cbprintf.h"
#include "jguard.h"
#include "replay_impl.h"

static int same_row(const chakra_replay_stat *s, int kind, int comm_type, uint32_t n,
                    uint64_t size)
{
	return s->kind == kind && s->comm_type == comm_type && s->nmembers == n && s->size == size;
}

static chakra_replay_stat *row(chakra_replay_stats *st, int kind, int comm_type, uint32_t n,
                               uint64_t size)
{
	for (size_t i = st->n; i-- > 0;)
		if (same_row(&st->s[i], kind, comm_type, n, size))
			return &st->s[i];
	if (st->n == st->cap) {
		size_t cap = st->cap ? st->cap * 2 : 16;
		chakra_replay_stat *s = chakra_realloc(st->s, cap * sizeof *s);
		if (!s)
			return NULL;
		st->s = s;
		st->cap = cap;
	}
	chakra_replay_stat *s = &st->s[st->n++];
	memset(s, 0, sizeof *s);
	s->kind = kind;
	s->comm_type = comm_type;
	s->nmembers = n;
	s->size = size;
	s->min = INFINITY;
	return s;
}

chakra_replay_stat *chakra_replay_stats_row(chakra_replay_stats *st, const chakra_replay_op *op)
{
	if (!st || !op)
		return NULL;
	return row(st, op->kind, op->comm_type, op->nmembers, op->size);
}

int chakra_replay_stats_merge(chakra_replay_stats *st, const chakra_replay_stat *rows, size_t n)
{
	if (!st || (!rows && n))
		return CHAKRA_EINVAL;
	for (size_t i = 0; i < n; i++) {
		const chakra_replay_stat *r = &rows[i];
		chakra_replay_stat *s = row(st, r->kind, r->comm_type, r->nmembers, r->size);
		if (!s)
			return CHAKRA_ENOMEM;
		s->count += r->count;
		s->sum += r->sum;
		if (r->count && r->min < s->min)
			s->min = r->min;
		if (r->max > s->max)
			s->max = r->max;
		s->sim_count += r->sim_count;
		s->sim_sum += r->sim_sum;
	}
	return 0;
}

static int cmp_stat(const void *a, const void *b)
{
	const chakra_replay_stat *x = a, *y = b;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->comm_type != y->comm_type)
		return x->comm_type < y->comm_type ? -1 : 1;
	if (x->nmembers != y->nmembers)
		return x->nmembers < y->nmembers ? -1 : 1;
	return x->size < y->size ? -1 : x->size > y->size;
}

void chakra_replay_stats_sort(chakra_replay_stats *st)
{
	if (!st)
		return;
	if (st->n > 1)
		qsort(st->s, st->n, sizeof *st->s, cmp_stat);
}

void chakra_replay_stats_free(chakra_replay_stats *st)
{
	if (!st)
		return;
	chakra_free(st->s);
	memset(st, 0, sizeof *st);
}

/* Instances per iteration: a collective is timed once by each member. */
static double calls(const chakra_replay_stat *s, unsigned iters)
{
	double per = s->kind == CHAKRA_REPLAY_COLL && s->nmembers ? s->nmembers : 1;
	return (double)s->count / per / (iters ? iters : 1);
}

static double mean(const chakra_replay_stat *s)
{
	return s->count ? s->sum / (double)s->count : 0;
}

static double sim_mean(const chakra_replay_stat *s)
{
	return s->sim_count ? s->sim_sum / (double)s->sim_count : -1;
}

/* GB/s (10^9 bytes, as nccl-tests). */
static double algbw(const chakra_replay_stat *s, double t)
{
	return t > 0 ? chakra_replay_nccl_bytes(s->comm_type, s->size, s->nmembers) / t / 1e9 : 0;
}

static double busbw(const chakra_replay_stat *s, double t)
{
	return algbw(s, t) * chakra_replay_busbw_factor(s->comm_type, s->nmembers);
}

int chakra_replay_report_text(chakra_write_cb write, void *data, const chakra_replay_report *r)
{
	if (!write || !r)
		return CHAKRA_EINVAL;
	chakra__cbout o = { write, data, 0 }, *out = &o;
	chakra__cbprintf(out, "chakra-replay %s: %" PRIu32 " ranks, %u iteration%s (+%u warmup), "
		"compute %s, deps %s, groups %s\n", r->prefix, r->nranks, r->iters, r->iters == 1 ? "" : "s",
		r->warmup, r->compute, r->deps, r->groups ? r->groups : "none");
	chakra__cbprintf(out, "\nper operation (time: mean over ranks and iterations; GB/s = 1e9 B/s, "
		"nccl-tests algbw and busbw%s)\n", r->simulated ? "; sim: chakra sim's prediction" : "");
	chakra__cbprintf(out, "%-16s %12s %5s %7s %11s %11s %11s %8s %8s", "operation", "size(B)",
		"ranks", "calls", "time(us)", "min(us)", "max(us)", "algbw", "busbw");
	if (r->simulated)
		chakra__cbprintf(out, " %11s %8s", "sim(us)", "sim-bus");
	chakra__cbprintf(out, "\n");
	for (size_t i = 0; i < r->stats->n; i++) {
		const chakra_replay_stat *s = &r->stats->s[i];
		double t = mean(s);
		chakra__cbprintf(out, "%-16s %12" PRIu64 " %5" PRIu32
			" %7.6g %11.2f %11.2f %11.2f %8.3f %8.3f",
			chakra_replay_op_name(s->kind, s->comm_type), s->size, s->nmembers,
			calls(s, r->iters), t * 1e6, s->count ? s->min * 1e6 : 0, s->max * 1e6,
			algbw(s, t), busbw(s, t));
		if (r->simulated) {
			double st = sim_mean(s);
			if (st >= 0)
				chakra__cbprintf(out, " %11.2f %8.3f", st * 1e6, busbw(s, st));
			else
				chakra__cbprintf(out, " %11s %8s", "-", "-");
		}
		chakra__cbprintf(out, "\n");
	}
	chakra__cbprintf(out, "\nper rank and iteration (comm: any communication in flight; exposed: "
		"communication while no compute runs)\n");
	chakra__cbprintf(out, "%5s %8s %12s %12s %12s %6s %12s", "rank", "nodes", "total(us)",
		"compute(us)", "comm(us)", "share", "exposed(us)");
	if (r->simulated)
		chakra__cbprintf(out, " %12s %12s", "sim(us)", "sim-exp(us)");
	chakra__cbprintf(out, "\n");
	double worst = 0, sim_worst = -1;
	for (uint32_t k = 0; k < r->nranks; k++) {
		const chakra_replay_rank_times *t = &r->ranks[k];
		chakra__cbprintf(out, "%5" PRIu32 " %8" PRIu64 " %12.2f %12.2f %12.2f %5.1f%% %12.2f", k,
			t->nodes,
			t->total * 1e6, t->compute * 1e6, t->comm * 1e6,
			t->total > 0 ? 100 * t->comm / t->total : 0, t->exposed * 1e6);
		if (r->simulated) {
			if (t->sim_finish >= 0)
				chakra__cbprintf(out, " %12.2f %12.2f", t->sim_finish * 1e6, t->sim_exposed * 1e6);
			else
				chakra__cbprintf(out, " %12s %12s", "-", "-");
		}
		chakra__cbprintf(out, "\n");
		if (t->total > worst)
			worst = t->total;
		if (t->sim_finish > sim_worst)
			sim_worst = t->sim_finish;
	}
	chakra__cbprintf(out, "\niteration time (slowest rank): %.2f us", worst * 1e6);
	if (r->simulated && sim_worst >= 0)
		chakra__cbprintf(out, "; simulated: %.2f us (measured/simulated %.3g)", sim_worst * 1e6,
			sim_worst > 0 ? worst / sim_worst : 0);
	chakra__cbprintf(out, "\n");
	return o.rc;
}

static void js(yajl_gen g, const char *s)
{
	yajl_gen_string(g, (const unsigned char *)s, strlen(s));
}

static void jnum(yajl_gen g, const char *key, double v, const char *fmt)
{
	char buf[64];
	js(g, key);
	if (!isfinite(v)) {
		yajl_gen_null(g);
		return;
	}
	int n = snprintf(buf, sizeof buf, fmt, v);
	yajl_gen_number(g, buf, (size_t)n);
}

static void ju64(yajl_gen g, const char *key, uint64_t v)
{
	char buf[32];
	int n = snprintf(buf, sizeof buf, "%" PRIu64, v);
	js(g, key);
	yajl_gen_number(g, buf, (size_t)n);
}

static void jstr(yajl_gen g, const char *key, const char *v)
{
	js(g, key);
	if (v)
		js(g, v);
	else
		yajl_gen_null(g);
}

static void gen_report(yajl_gen g, const chakra_replay_report *r)
{
	yajl_gen_config(g, yajl_gen_beautify, 1);
	yajl_gen_config(g, yajl_gen_indent_string, " ");
	yajl_gen_map_open(g);
	jstr(g, "workload", r->prefix);
	ju64(g, "ranks", r->nranks);
	ju64(g, "iterations", r->iters);
	ju64(g, "warmup", r->warmup);
	jstr(g, "compute", r->compute);
	jstr(g, "deps", r->deps);
	jstr(g, "groups", r->groups);
	js(g, "operations");
	yajl_gen_array_open(g);
	for (size_t i = 0; i < r->stats->n; i++) {
		const chakra_replay_stat *s = &r->stats->s[i];
		double t = mean(s);
		yajl_gen_map_open(g);
		jstr(g, "op", chakra_replay_op_name(s->kind, s->comm_type));
		ju64(g, "size", s->size);
		ju64(g, "ranks", s->nmembers);
		jnum(g, "calls", calls(s, r->iters), "%.6g");
		ju64(g, "count", s->count);
		jnum(g, "time_us", t * 1e6, "%.3f");
		jnum(g, "min_us", s->count ? s->min * 1e6 : 0, "%.3f");
		jnum(g, "max_us", s->max * 1e6, "%.3f");
		jnum(g, "algbw_gbps", algbw(s, t), "%.4f");
		jnum(g, "busbw_gbps", busbw(s, t), "%.4f");
		if (r->simulated) {
			double st = sim_mean(s);
			if (st >= 0) {
				jnum(g, "sim_time_us", st * 1e6, "%.3f");
				jnum(g, "sim_busbw_gbps", busbw(s, st), "%.4f");
			} else {
				js(g, "sim_time_us");
				yajl_gen_null(g);
			}
		}
		yajl_gen_map_close(g);
	}
	yajl_gen_array_close(g);
	js(g, "per_rank");
	yajl_gen_array_open(g);
	double worst = 0, sim_worst = -1;
	for (uint32_t k = 0; k < r->nranks; k++) {
		const chakra_replay_rank_times *t = &r->ranks[k];
		yajl_gen_map_open(g);
		ju64(g, "rank", k);
		ju64(g, "nodes", t->nodes);
		jnum(g, "total_us", t->total * 1e6, "%.3f");
		jnum(g, "compute_us", t->compute * 1e6, "%.3f");
		jnum(g, "comm_us", t->comm * 1e6, "%.3f");
		jnum(g, "comm_share", t->total > 0 ? t->comm / t->total : 0, "%.4f");
		jnum(g, "exposed_comm_us", t->exposed * 1e6, "%.3f");
		if (r->simulated && t->sim_finish >= 0) {
			jnum(g, "sim_finish_us", t->sim_finish * 1e6, "%.3f");
			jnum(g, "sim_exposed_comm_us", t->sim_exposed * 1e6, "%.3f");
		}
		yajl_gen_map_close(g);
		if (t->total > worst)
			worst = t->total;
		if (t->sim_finish > sim_worst)
			sim_worst = t->sim_finish;
	}
	yajl_gen_array_close(g);
	jnum(g, "iteration_us", worst * 1e6, "%.3f");
	if (r->simulated && sim_worst >= 0)
		jnum(g, "sim_iteration_us", sim_worst * 1e6, "%.3f");
	yajl_gen_map_close(g);
}

int chakra_replay_report_json(chakra_write_cb write, void *data, const chakra_replay_report *r)
{
	if (!write || !r)
		return CHAKRA_EINVAL;
	/* YAJL does not check its allocations: a failure jumps back here */
	chakra__jg *jg = chakra__jg_new();
	if (!jg)
		return CHAKRA_ENOMEM;
	if (setjmp(jg->fail)) {
		chakra__jg_release(jg);
		return CHAKRA_ENOMEM;
	}
	yajl_gen g = yajl_gen_alloc(&jg->funcs);
	gen_report(g, r);
	const unsigned char *buf;
	size_t len;
	yajl_gen_get_buf(g, &buf, &len);
	int rc = write(data, buf, len) < 0 ? CHAKRA_EIO : 0;
	yajl_gen_free(g);
	chakra__jg_free(jg);
	return rc;
}
