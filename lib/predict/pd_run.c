/* SPDX-License-Identifier: Apache-2.0 */
/* Predicting an iteration: every rank's workload built in memory (or one
 * GPU per pipeline stage, exactly), simulated by lib/sim, and the time of
 * the GPU that finishes last split into compute, exposed communication and
 * bubble. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pd_impl.h"

#define BAD(...) chakra__pd_fail(err, errlen, CHAKRA_EINVAL, __VA_ARGS__)

/* Time on the representative GPUs, by class. */
/* C_PP: an activation in flight to the GPU (a neighbour's send); C_PPG:
 * the GPU's own gather of a received activation (and its launch). */
enum { C_COMP, C_TP, C_DP, C_PP, C_PPG, C_OTHER, C_N };

typedef struct span {
	uint64_t s, e;
	int cls;
	uint32_t peer;                  /* sends: the destination */
} span;

typedef struct spans {
	span *v;
	size_t n, cap;
} spans;

typedef struct run_acc {
	const pd_layout *l;
	spans *per_stage;               /* one per pipeline stage: its first GPU */
	int oom;
	int reduced;                    /* NPU numbers are stages */
} run_acc;

static int classify(const chakra_node *n)
{
	const char *name = chakra_node_name(n, NULL);
	if (!name)
		return C_COMP;
	if (!strncmp(name, "tp:", 3))
		return C_TP;
	if (!strncmp(name, "dp:", 3) || !strncmp(name, "emb:", 4))
		return C_DP;
	if (!strncmp(name, "pp:send", 7))
		return C_PP;
	if (!strncmp(name, "pp:ag", 5) || !strncmp(name, "pp:launch", 9))
		return C_PPG;
	if (!strncmp(name, "pp:", 3))
		return -1; /* a receive waits; what it waits for is the sender's */
	if (!strncmp(name, "it:", 3))
		return C_OTHER;
	return C_COMP;
}

static void on_span(void *data, uint32_t npu, int lane, const chakra_node *node, uint64_t start,
                    uint64_t end)
{
	run_acc *a = data;
	(void)lane;
	const pd_layout *l = a->l;
	uint32_t per = a->reduced ? 1 : l->tp * l->dp;
	if (npu % per || a->oom)
		return;
	spans *s = &a->per_stage[npu / per];
	int cls = classify(node);
	if (cls < 0)
		return;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 1024;
		span *v = chakra_realloc(s->v, cap * sizeof *v);
		if (!v) {
			a->oom = 1;
			return;
		}
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n].s = start;
	s->v[s->n].e = end;
	s->v[s->n].cls = cls;
	s->v[s->n].peer = UINT32_MAX;
	if (cls == C_PP) {
		int64_t peer;
		if (chakra_node_comm_dst(node, &peer) == 0 && peer >= 0 && peer < UINT32_MAX)
			s->v[s->n].peer = a->reduced ? (uint32_t)peer * l->tp * l->dp : (uint32_t)peer;
	}
	s->n++;
}

typedef struct edge {
	uint64_t t;
	int cls, d; /* +1 start, -1 end */
} edge;

static int cmp_edge(const void *x, const void *y)
{
	const edge *a = x, *b = y;
	return a->t < b->t ? -1 : a->t > b->t;
}

/* Split [0, finish] of one GPU into classes: compute wins, then TP and
 * DP communication in flight, then an activation on its way to it (a
 * neighbour's send), then the iteration overhead; nothing: bubble. The
 * GPU's own sends do not hold it up. */
static int breakdown(const spans *all, uint32_t pp, uint32_t w, uint32_t rank, uint64_t finish,
                     double out[C_N + 1])
{
	memset(out, 0, (C_N + 1) * sizeof *out);
	size_t cap = all[w].n;
	if (w > 0)
		cap += all[w - 1].n;
	if (w + 1 < pp)
		cap += all[w + 1].n;
	edge *ev = chakra_malloc((2 * cap + 1) * sizeof *ev);
	if (!ev)
		return CHAKRA_ENOMEM;
	size_t n = 0;
	for (uint32_t st = w ? w - 1 : 0; st <= w + 1 && st < pp; st++) {
		const spans *s = &all[st];
		for (size_t i = 0; i < s->n; i++) {
			if (s->v[i].e <= s->v[i].s)
				continue;
			if (st == w ? s->v[i].cls == C_PP : s->v[i].cls != C_PP || s->v[i].peer != rank)
				continue;
			ev[n++] = (edge){ s->v[i].s, s->v[i].cls, +1 };
			ev[n++] = (edge){ s->v[i].e, s->v[i].cls, -1 };
		}
	}
	qsort(ev, n, sizeof *ev, cmp_edge);
	int live[C_N] = { 0 };
	uint64_t t = 0;
	size_t i = 0;
	while (t < finish) {
		uint64_t nt = i < n ? ev[i].t : finish;
		if (nt > finish)
			nt = finish;
		if (nt > t) {
			int c = live[C_COMP] ? C_COMP : live[C_TP] ? C_TP : live[C_DP] ? C_DP
			        : live[C_PPG] ? C_PPG : live[C_PP] ? C_PP : live[C_OTHER] ? C_OTHER : C_N;
			out[c] += (double)(nt - t);
			t = nt;
		}
		while (i < n && ev[i].t <= t) {
			live[ev[i].cls] += ev[i].d;
			i++;
		}
		if (i >= n && t < finish) {
			out[C_N] += (double)(finish - t);
			t = finish;
		}
	}
	chakra_free(ev);
	return 0;
}

static uint64_t gpt_flops_per_gpu(const chakra_gpt_config *c, const pd_layout *l)
{
	pd_shape sh;
	chakra__pd_shape(c, &sh);
	pd_steps f = { 0 }, b = { 0 };
	double fl = 0;
	if (chakra__pd_layer_fwd(&sh, &f) == 0 && chakra__pd_layer_bwd(&sh, &b) == 0) {
		for (size_t i = 0; i < f.n; i++)
			if (f.v[i].what == PD_STEP_KERNEL)
				fl += chakra__pd_kernel_flops(&f.v[i].k);
		for (size_t i = 0; i < b.n; i++)
			if (b.v[i].what == PD_STEP_KERNEL)
				fl += chakra__pd_kernel_flops(&b.v[i].k);
	}
	chakra__pd_steps_free(&f);
	chakra__pd_steps_free(&b);
	fl *= (double)c->layers / l->pp * (double)l->m;
	return fl > 1.8e19 ? UINT64_MAX : (uint64_t)fl;
}

/* ---------------- collectives for the reduced simulation ---------------- */

typedef struct memo_ent {
	int type, emb;
	uint64_t size, dims, ns;
} memo_ent;

/* Each kind of collective is simulated once, on the network of the
 * dimensions it spans; the reduced workload's stand-ins last that long. */
typedef struct memo {
	const pd_layout *l;
	const chakra_cluster_net *net;
	memo_ent *v;
	size_t n, cap;
	char *err;
	size_t errlen;
} memo;

static int coll_ns(void *ctx, int type, uint64_t size, uint64_t dims, int emb, uint64_t *ns)
{
	memo *M = ctx;
	for (size_t i = 0; i < M->n; i++)
		if (M->v[i].type == type && M->v[i].size == size && M->v[i].dims == dims &&
		    M->v[i].emb == emb) {
			*ns = M->v[i].ns;
			return 0;
		}
	const pd_layout *l = M->l;
	pd_layout sub = *l;
	sub.ndims = 0;
	for (int d = 0; d < l->ndims; d++)
		if ((dims >> d) & 1) {
			sub.size[sub.ndims] = l->size[d];
			sub.axis[sub.ndims] = l->axis[d];
			sub.inter[sub.ndims] = l->inter[d];
			sub.ndims++;
		}
	*ns = 0;
	if (sub.ndims) {
		chakra_sim_network sn;
		chakra__pd_sim_network(&sub, M->net, &sn);
		int rc = chakra__pd_sim_collective(&sn, type, size, emb, ns, M->err, M->errlen);
		if (rc < 0)
			return rc;
	}
	if (M->n == M->cap) {
		size_t cap = M->cap ? M->cap * 2 : 16;
		memo_ent *v = chakra_realloc(M->v, cap * sizeof *v);
		if (!v)
			return chakra__pd_fail(M->err, M->errlen, CHAKRA_ENOMEM, "out of memory");
		M->v = v;
		M->cap = cap;
	}
	M->v[M->n++] = (memo_ent){ type, emb, size, dims, *ns };
	return 0;
}

int chakra_gpt_predict(const chakra_gpt_config *c, const chakra_gpu_model *gpu,
                       const chakra_cluster_net *net, const chakra_predict_options *opts,
                       chakra_gpt_prediction *out, char *err, size_t errlen)
{
	if (!c || !gpu || !out)
		return BAD("chakra_gpt_predict: NULL argument");
	chakra_predict_options o;
	if (chakra__pd_options_copy(&o, opts) < 0)
		return BAD("chakra_gpt_predict: unknown options version %u", opts->version);
	chakra_cluster_net dnet;
	if (!net) {
		int r = chakra_cluster_net_preset(&dnet, strstr(gpu->name, "h100") ? "dgx-h100"
		                                                                   : "dgx-a100",
		                                  err, errlen);
		if (r < 0)
			return r;
		net = &dnet;
	}
	memset(out, 0, sizeof *out);
	chakra_gpt_config cc;
	pd_layout l;
	int rc = chakra__pd_layout_on(c, net, &cc, &l, err, errlen);
	if (rc < 0)
		return rc;
	if (c->precision == CHAKRA_PRECISION_FP8 && !(gpu->peak_tflops_fp8 > 0))
		return BAD("FP8: the GPU model '%s' has no FP8 peak", gpu->name);
	rc = chakra_gpt_memory_estimate(&cc, gpu, &out->memory, err, errlen);
	if (rc < 0)
		return rc;

	int user_net = o.network != NULL;
	if (user_net != (o.system != NULL))
		return BAD("chakra_gpt_predict: give both a network and a system, or neither");
	if (user_net && o.network->npus != l.gpus)
		return BAD("the network has %u NPUs, the layout tp %u x dp %u x pp %u needs %u",
		           o.network->npus, l.tp, l.dp, l.pp, l.gpus);
	/* Every GPU of a pipeline stage does the same thing at the same time
	 * (collectives name whole groups, equal in the network), so the
	 * simulation of one GPU per stage, with each collective lasting what
	 * it lasts when all its members start it together, gives the same
	 * cycles as the simulation of them all (tests: predict-exact). */
	int reduced = !o.full && !o.fine && !user_net;
	uint32_t n = reduced ? l.pp : l.gpus;
	pd_membuf *bufs = chakra_calloc(n, sizeof *bufs);
	chakra_feeder **fs = chakra_calloc(n, sizeof *fs);
	run_acc acc = { &l, chakra_calloc(l.pp, sizeof(spans)), 0, reduced };
	chakra_sim_groups groups = { NULL, 0 };
	chakra_sim *sim = NULL;
	memo M = { &l, net, NULL, 0, 0, err, errlen };
	if (!bufs || !fs || !acc.per_stage ||
	    (!reduced && chakra__pd_groups(&l, 1, &groups) < 0)) {
		rc = chakra__pd_fail(err, errlen, CHAKRA_ENOMEM, "out of memory");
		goto out;
	}
	pd_emit_opts eo = { o.fine, 0, user_net, reduced, coll_ns, &M };
	for (uint32_t r = 0; r < n; r++) {
		uint32_t rank = reduced ? pd_rank(&l, 0, 0, r) : r;
		rc = chakra__pd_emit_rank(&cc, gpu, net, &l, rank, &eo, chakra__pd_mb_write, &bufs[r], err,
		                          errlen);
		if (rc < 0)
			goto out;
	}
	chakra_feeder_options fo = CHAKRA_FEEDER_OPTIONS_INIT;
	for (uint32_t r = 0; r < n; r++) {
		const pd_membuf *m = &bufs[r];
		rc = chakra_feeder_open_buffer(&fs[r], m->p, m->n, &fo);
		if (rc < 0) {
			chakra__pd_fail(err, errlen, rc, "rank %u: %s", r,
			                fs[r] ? chakra_feeder_errmsg(fs[r]) : chakra_strerror(rc));
			goto out;
		}
	}
	chakra_sim_network sn;
	chakra_sim_system sys;
	if (user_net) {
		sn = *o.network;
		sys = *o.system;
	} else if (reduced) {
		pd_layout pl = l;
		pl.ndims = 0;
		for (int d = 0; d < l.ndims; d++)
			if (l.axis[d] == PD_AX_PP && l.size[d] > 1) {
				pl.size[pl.ndims] = l.size[d];
				pl.axis[pl.ndims] = PD_AX_PP;
				pl.inter[pl.ndims] = l.inter[d];
				pl.ndims++;
			}
		if (pl.ndims == 0) {
			pl.ndims = 1;
			pl.size[0] = 1;
			pl.inter[0] = 0;
		}
		chakra__pd_sim_network(&pl, net, &sn);
		chakra__pd_sim_system(&sys);
	} else {
		chakra__pd_sim_network(&l, net, &sn);
		chakra__pd_sim_system(&sys);
	}
	chakra_sim_options so = CHAKRA_SIM_OPTIONS_INIT;
	so.groups = groups.n ? &groups : NULL;
	so.memory = o.memory;
	so.data = &acc;
	so.span_cb = on_span;
	rc = chakra_sim_new(&sim, &sn, &sys, &so);
	if (rc == 0)
		rc = chakra_sim_run(sim, fs, n);
	if (rc < 0) {
		chakra__pd_fail(err, errlen, rc, "simulation: %s",
		                sim ? chakra_sim_errmsg(sim) : chakra_strerror(rc));
		goto out;
	}
	if (acc.oom) {
		rc = chakra__pd_fail(err, errlen, CHAKRA_ENOMEM, "out of memory");
		goto out;
	}
	uint64_t finish = chakra_sim_finish(sim);
	/* the stage whose first GPU ends last (ranks of a stage are alike) */
	uint32_t worst = 0;
	uint64_t wf = 0;
	for (uint32_t p = 0; p < l.pp; p++) {
		const chakra_sim_npu_result *res = chakra_sim_npu(sim, reduced ? p : p * l.tp * l.dp);
		if (res && res->finish >= wf) {
			wf = res->finish;
			worst = p;
		}
	}
	double part[C_N + 1];
	rc = breakdown(acc.per_stage, l.pp, worst, worst * l.tp * l.dp, wf, part);
	if (rc < 0) {
		chakra__pd_fail(err, errlen, rc, "out of memory");
		goto out;
	}
	out->iteration_s = (double)finish * 1e-9;
	out->iteration_ns = finish;
	out->compute_s = part[C_COMP] * 1e-9;
	out->tp_exposed_s = part[C_TP] * 1e-9;
	out->dp_exposed_s = part[C_DP] * 1e-9;
	out->pp_exposed_s = (part[C_PP] + part[C_PPG]) * 1e-9;
	out->other_s = part[C_OTHER] * 1e-9;
	out->bubble_s = (part[C_N] + (double)(finish - wf)) * 1e-9;
	out->microbatches = l.m;
	out->bubble_fraction = (double)(l.pp - 1) / ((double)l.v * (double)l.m);
	out->flops_per_gpu = gpt_flops_per_gpu(&cc, &l);
	out->tflops_per_gpu = out->iteration_s > 0
	                      ? (double)out->flops_per_gpu / out->iteration_s * 1e-12 : 0;
	out->nodes = chakra_sim_nodes(sim);
out:
	chakra_sim_free(sim);
	for (uint32_t r = 0; fs && r < n; r++)
		chakra_feeder_close(fs[r]);
	for (uint32_t r = 0; bufs && r < n; r++)
		chakra_free(bufs[r].p);
	for (uint32_t p = 0; acc.per_stage && p < l.pp; p++)
		chakra_free(acc.per_stage[p].v);
	chakra_free(acc.per_stage);
	chakra_free(bufs);
	chakra_free(fs);
	chakra_sim_groups_free(&groups);
	chakra_free(M.v);
	return rc;
}

