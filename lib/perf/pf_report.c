/* SPDX-License-Identifier: Apache-2.0 */
/* Where the reported iteration's time went: a sweep over the replayed
 * intervals of each rank (docs/replay.md, "Breakdown"), and the critical
 * path's time by kind. */
#include <stdlib.h>
#include <string.h>

#include "pf_impl.h"

enum { CL_COMPUTE = 0, CL_COMM = 1, CL_CPU = 2 };

typedef struct pt {
	int64_t t;
	uint32_t rank;
	int8_t cls, delta;
} pt;

static int cmp_pt(const void *a, const void *b)
{
	const pt *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return 0;
}

typedef struct sweep {
	pt *p;
	size_t n, cap;
	int64_t b0, b1;
} sweep;

static int add_iv(sweep *s, uint32_t rank, int cls, int64_t a, int64_t b)
{
	if (a < s->b0)
		a = s->b0;
	if (b > s->b1)
		b = s->b1;
	if (b <= a)
		return 0;
	if (!PF_RESERVE(s->p, s->cap, s->n + 2))
		return CHAKRA_ENOMEM;
	s->p[s->n++] = (pt){ a, rank, (int8_t)cls, 1 };
	s->p[s->n++] = (pt){ b, rank, (int8_t)cls, -1 };
	return 0;
}

int chakra__pf_report(chakra_perf *r)
{
	size_t n = r->nops, nev = r->nev;
	sweep s = { NULL, 0, 0, r->base, r->ends[r->copies - 1] };
	for (size_t i = 0; i < r->nres; i++)
		r->res[i].busy = 0;
	for (unsigned c = 0; c < r->copies; c++) {
		const int64_t *val = r->val + (size_t)c * nev;
		const uint32_t *arg = r->arg + (size_t)c * nev;
		for (size_t v = 0; v < n; v++) {
			const pf_op *o = &r->ops[v];
			int64_t a = val[2 * v], b = val[2 * v + 1];
			if (o->kind == CHAKRA_PERF_MARK)
				continue;
			/* a blocking call is busy for its own time, not its wait */
			int64_t ca = o->kind == CHAKRA_PERF_SYNC && b - o->dur > a ? b - o->dur : a;
			int64_t cb = b > s.b1 ? s.b1 : b;
			if (ca < s.b0)
				ca = s.b0;
			if (cb > ca)
				r->res[o->res].busy += cb - ca;
			int rc = 0;
			switch (o->kind) {
			case CHAKRA_PERF_KERNEL:
			case CHAKRA_PERF_MEMORY:
				rc = add_iv(&s, o->rank, CL_COMPUTE, a, b);
				break;
			case CHAKRA_PERF_COMM:
				rc = add_iv(&s, o->rank, CL_COMM, a, b);
				break;
			case CHAKRA_PERF_SYNC:
				/* waiting is not host work: only the call's own time */
				rc = add_iv(&s, o->rank, CL_CPU, b - o->dur > a ? b - o->dur : a, b);
				break;
			default:
				rc = add_iv(&s, o->rank, CL_CPU, a, b);
				break;
			}
			/* a gap kept from the recording after the previous op on the
			 * same thread, or after another thread's op it waited for, is
			 * host time (Python, framework, waking up) */
			uint32_t g = arg[2 * v];
			if (!rc && !r->res[o->res].gpu && g != PF_NONE &&
			    (r->in[g].kind == CHAKRA_PERF_EDGE_PROGRAM ||
			     r->in[g].kind == CHAKRA_PERF_EDGE_THREAD) && r->in[g].lag > 0)
				rc = add_iv(&s, o->rank, CL_CPU, a - r->in[g].lag, a);
			if (rc) {
				chakra_free(s.p);
				return chakra__pf_fail(r, CHAKRA_ENOMEM, "out of memory");
			}
		}
	}
	/* the end marker's gap: host time after the thread's last op */
	for (unsigned c = 0; c < r->copies; c++) {
		const int64_t *val = r->val + (size_t)c * nev;
		const uint32_t *arg = r->arg + (size_t)c * nev;
		for (size_t k = 0; k < r->nranks; k++) {
			uint32_t m = r->ranks[k].mark1;
			if (m == PF_NONE)
				continue;
			uint32_t g = arg[2 * m];
			if (g != PF_NONE && r->in[g].kind == CHAKRA_PERF_EDGE_PROGRAM &&
			    r->in[g].lag > 0 &&
			    add_iv(&s, (uint32_t)k, CL_CPU, val[2 * m] - r->in[g].lag, val[2 * m])) {
				chakra_free(s.p);
				return chakra__pf_fail(r, CHAKRA_ENOMEM, "out of memory");
			}
		}
	}
	if (s.n)
		qsort(s.p, s.n, sizeof *s.p, cmp_pt);
	int64_t iter = s.b1 - s.b0;
	for (size_t k = 0; k < r->nranks; k++) {
		chakra_perf_breakdown *bd = &r->ranks[k].bd;
		memset(bd, 0, sizeof *bd);
		bd->iteration_ns = iter;
		if (r->ranks[k].timed)
			bd->recorded_ns = r->ranks[k].w1 - r->ranks[k].w0;
		uint32_t m0 = r->ranks[k].mark0, m1 = r->ranks[k].mark1;
		if (m0 != PF_NONE && m1 != PF_NONE) /* the first copy: the recorded context */
			bd->replayed_window_ns = r->val[2 * m1] - r->val[2 * m0];
	}
	size_t i = 0;
	while (i < s.n) {
		uint32_t rank = s.p[i].rank;
		chakra_perf_breakdown *bd = &r->ranks[rank].bd;
		int cnt[3] = { 0, 0, 0 };
		int64_t t = s.b0;
		for (; i < s.n && s.p[i].rank == rank; i++) {
			int64_t d = s.p[i].t - t;
			if (d > 0) {
				if (cnt[CL_COMPUTE])
					bd->gpu_compute_ns += d;
				else if (cnt[CL_COMM])
					bd->comm_exposed_ns += d;
				else if (cnt[CL_CPU])
					bd->cpu_bound_ns += d;
				if (cnt[CL_COMM])
					bd->comm_ns += d;
				t = s.p[i].t;
			}
			cnt[s.p[i].cls] += s.p[i].delta;
		}
	}
	for (size_t k = 0; k < r->nranks; k++) {
		chakra_perf_breakdown *bd = &r->ranks[k].bd;
		bd->idle_ns = iter - bd->gpu_compute_ns - bd->comm_exposed_ns - bd->cpu_bound_ns;
		bd->comm_overlapped_ns = bd->comm_ns - bd->comm_exposed_ns;
	}
	chakra_free(s.p);
	return 0;
}

void chakra_perf_path_sum(const chakra_perf *r, chakra_perf_path_totals *out)
{
	if (!out)
		return;
	memset(out, 0, sizeof *out);
	const chakra_perf_segment *p = chakra_perf_path(r);
	for (size_t i = 0; i < chakra_perf_path_length(r); i++) {
		chakra_perf_op_info oi;
		chakra_perf_op_info_of(r, p[i].op, &oi);
		int64_t d = p[i].end_ns - p[i].start_ns;
		if (p[i].is_lag)
			out->lag_ns[p[i].via] += d;
		else
			out->own_ns[oi.kind] += d;
	}
}
