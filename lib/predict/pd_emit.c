/* SPDX-License-Identifier: Apache-2.0 */
/* One rank's GPT workload as a Chakra ET.
 *
 * Compute runs in program order on the rank (each kernel waits for the one
 * before it); a tensor-parallel collective blocks the kernels after it (as
 * Megatron's do); a pipeline receive is posted when the work before it is
 * done and the step that needs the activation waits for it; a send leaves
 * when the step that produced its activation ends. Every collective is
 * preceded by its launch cost (a compute node), so the simulator's network
 * only times the transfer.
 *
 * Collectives name their communicator group (pg_name; the groups file
 * lists them) and, on the cluster model's network, the dimensions they span
 * (involved_dim), so ASTRA-sim runs them with or without the groups file;
 * data-parallel groups of different pipeline stages move different sizes,
 * which only their names tell apart.
 *
 * Node names say what a node is, class first: "k:" kernels, "tp:", "dp:",
 * "emb:" collectives and their launches, "pp:" send and receive, "opt:"
 * the optimizer step, "it:" the per-iteration overhead. Without `fine`, a
 * run of kernels between communication nodes is one node whose duration
 * is the sum of theirs: the same cycles (nothing else can run on the
 * compute lane between them), far fewer nodes. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chakra/attrs.h"
#include "pd_impl.h"

typedef struct emitter {
	chakra_writer *w;
	chakra_builder *b;
	const chakra_gpu_model *gpu;
	const chakra_cluster_net *net;
	const pd_layout *l;
	int fine, fp8, groups;
	const pd_emit_opts *o;
	uint32_t g_tp, g_dp, g_emb;     /* this rank's group ids */
	uint64_t next;                  /* next node id */
	uint64_t last;                  /* last compute node (UINT64_MAX: none) */
	uint64_t wait[4];               /* what the next compute waits for */
	int nwait;
	/* the run of kernels not written yet (fused mode) */
	int run;
	uint64_t run_ns, run_flops, run_bytes;
	char run_first[96], run_last[48];
	int rc;
	char ctx[48];                   /* "mb3.c0.l5.fwd" */
	uint64_t dims_tp, dims_dp;      /* bit masks of the network dimensions */
} emitter;

static int wr(emitter *E)
{
	if (E->rc == 0)
		E->rc = chakra_writer_write_node(E->w, E->b);
	E->next++;
	return E->rc;
}

static void start(emitter *E, const char *name, int type)
{
	chakra_builder_reset(E->b);
	chakra_builder_set_id(E->b, E->next);
	chakra_builder_set_name(E->b, name, (size_t)-1);
	chakra_builder_set_type(E->b, type);
	chakra_builder_attr_int(E->b, CHAKRA_ATTR_NAME_IS_CPU_OP, CHAKRA_ATTR_BOOL, 0);
}

static void comp_node(emitter *E, const char *name, uint64_t ns, uint64_t flops, uint64_t bytes)
{
	start(E, name, CHAKRA_COMP_NODE);
	if (E->last != UINT64_MAX)
		chakra_builder_add_data_dep(E->b, E->last);
	for (int i = 0; i < E->nwait; i++)
		chakra_builder_add_data_dep(E->b, E->wait[i]);
	E->nwait = 0;
	chakra_builder_set_duration_micros(E->b, ns / 1000);
	chakra_builder_attr_uint(E->b, CHAKRA_ATTR_NAME_DURATION_NANOS, CHAKRA_ATTR_UINT64, ns);
	if (flops)
		chakra_builder_attr_uint(E->b, CHAKRA_ATTR_NAME_NUM_OPS, CHAKRA_ATTR_INT64, flops);
	if (bytes)
		chakra_builder_attr_uint(E->b, CHAKRA_ATTR_NAME_TENSOR_SIZE, CHAKRA_ATTR_UINT64, bytes);
	E->last = E->next;
	wr(E);
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static void flush(emitter *E)
{
	if (!E->run)
		return;
	char name[192];
	if (E->run == 1)
		snprintf(name, sizeof name, "k:%s", E->run_first);
	else
		snprintf(name, sizeof name, "k:%s..%s", E->run_first, E->run_last);
	comp_node(E, name, E->run_ns, E->run_flops, E->run_bytes);
	E->run = 0;
	E->run_ns = E->run_flops = E->run_bytes = 0;
}

static void kernel(emitter *E, const pd_kernel *k)
{
	uint64_t ns = chakra__pd_kernel_ns(E->gpu, k, E->fp8);
	double fl = chakra__pd_kernel_flops(k);
	uint64_t flops = fl >= 1.8e19 ? UINT64_MAX : (uint64_t)fl;
	double by = k->kind == PD_MEM ? k->bytes : 0;
	uint64_t bytes = by >= 1.8e19 ? UINT64_MAX : (uint64_t)by;
	if (E->fine) {
		char name[192];
		snprintf(name, sizeof name, "k:%s.%s", E->ctx, k->name);
		comp_node(E, name, ns, flops, bytes);
		return;
	}
	if (!E->run)
		snprintf(E->run_first, sizeof E->run_first, "%s.%s", E->ctx, k->name);
	snprintf(E->run_last, sizeof E->run_last, "%s", k->name);
	E->run++;
	E->run_ns = sat_add(E->run_ns, ns);
	E->run_flops = sat_add(E->run_flops, flops);
	E->run_bytes = sat_add(E->run_bytes, bytes);
}

/* A blocking collective over the dimensions in `dims` (or the group pg). */
static void collective(emitter *E, const char *cls, const char *what, int comm_type,
                       uint64_t bytes, uint64_t dims, const char *pg)
{
	flush(E);
	char name[128];
	uint64_t launch = (uint64_t)(E->net->launch_ns + 0.5);
	if (launch) {
		snprintf(name, sizeof name, "%s:launch.%s.%s", cls, what, E->ctx);
		comp_node(E, name, launch, 0, 0);
	}
	snprintf(name, sizeof name, "%s:%s.%s", cls, what, E->ctx);
	/* comm_size is what each member puts in: an all-gather's output / n */
	uint64_t members = 1;
	for (int d = 0; d < E->l->ndims; d++)
		if ((dims >> d) & 1)
			members *= E->l->size[d];
	if (comm_type == CHAKRA_ALL_GATHER)
		bytes /= members;
	if (E->o->reduced) {
		uint64_t ns = 0;
		int rc = E->o->coll(E->o->coll_ctx, comm_type, bytes, dims, !strcmp(cls, "emb"), &ns);
		if (rc < 0) {
			if (E->rc == 0)
				E->rc = rc;
			return;
		}
		comp_node(E, name, ns, 0, 0);
		return;
	}
	start(E, name, CHAKRA_COMM_COLL_NODE);
	if (E->last != UINT64_MAX)
		chakra_builder_add_data_dep(E->b, E->last);
	chakra_builder_attr_int(E->b, CHAKRA_ATTR_NAME_COMM_TYPE, CHAKRA_ATTR_INT64, comm_type);
	chakra_builder_attr_uint(E->b, CHAKRA_ATTR_NAME_COMM_SIZE, CHAKRA_ATTR_INT64, bytes);
	if (!E->groups) {
		uint64_t flags[CHAKRA_SIM_MAX_DIMS];
		for (int d = 0; d < E->l->ndims; d++)
			flags[d] = (dims >> d) & 1;
		chakra_builder_attr_list_uint(E->b, CHAKRA_ATTR_NAME_INVOLVED_DIM, CHAKRA_ATTR_BOOL_LIST, flags,
		                              (size_t)E->l->ndims);
	}
	if (pg)
		chakra_builder_attr_string(E->b, CHAKRA_ATTR_NAME_PG_NAME, CHAKRA_ATTR_STRING, pg, (size_t)-1);
	if (E->nwait < 4)
		E->wait[E->nwait++] = E->next;
	wr(E);
}

static void p2p(emitter *E, int send, uint32_t peer, uint64_t tag, uint64_t bytes)
{
	flush(E);
	char name[128];
	snprintf(name, sizeof name, "pp:%s.%s", send ? "send" : "recv", E->ctx);
	start(E, name, send ? CHAKRA_COMM_SEND_NODE : CHAKRA_COMM_RECV_NODE);
	if (E->last != UINT64_MAX)
		chakra_builder_add_data_dep(E->b, E->last);
	chakra_builder_attr_uint(E->b, CHAKRA_ATTR_NAME_COMM_SIZE, CHAKRA_ATTR_INT64, bytes);
	chakra_builder_attr_int(E->b, send ? "comm_dst" : "comm_src", CHAKRA_ATTR_INT32, peer);
	chakra_builder_attr_int(E->b, CHAKRA_ATTR_NAME_COMM_TAG, CHAKRA_ATTR_INT32, (int64_t)tag);
	if (!send && E->nwait < 4)
		E->wait[E->nwait++] = E->next;
	wr(E);
}

static const char *const tp_what[] = { "", "ar", "rs", "ag" };

static void steps(emitter *E, const pd_steps *s)
{
	static const int types[] = { 0, CHAKRA_ALL_REDUCE, CHAKRA_REDUCE_SCATTER,
		                     CHAKRA_ALL_GATHER };
	for (size_t i = 0; i < s->n && E->rc == 0; i++) {
		const pd_step *st = &s->v[i];
		if (st->what == PD_STEP_KERNEL)
			kernel(E, &st->k);
		else {
			char pg[16];
			snprintf(pg, sizeof pg, "%u", E->g_tp);
			collective(E, "tp", tp_what[st->what], types[st->what], st->bytes, E->dims_tp, pg);
		}
	}
}

static uint64_t axis_dims(const pd_layout *l, int axis)
{
	uint64_t m = 0;
	for (int d = 0; d < l->ndims; d++)
		if (l->axis[d] == axis && l->size[d] > 1)
			m |= 1ull << d;
	return m;
}

typedef struct layer_steps {
	pd_steps lf, lb, ef, eb, hf, hb;
} layer_steps;

static void layer_steps_free(layer_steps *s)
{
	chakra__pd_steps_free(&s->lf);
	chakra__pd_steps_free(&s->lb);
	chakra__pd_steps_free(&s->ef);
	chakra__pd_steps_free(&s->eb);
	chakra__pd_steps_free(&s->hf);
	chakra__pd_steps_free(&s->hb);
}

static uint64_t tag_of(const pd_layout *l, uint64_t mb, uint32_t vs, int bwd)
{
	return ((mb * (uint64_t)l->pp * l->v + vs) << 1) | (uint64_t)bwd;
}

int chakra__pd_emit_rank(const chakra_gpt_config *c, const chakra_gpu_model *gpu,
                         const chakra_cluster_net *net, const pd_layout *l, uint32_t rank,
                         const pd_emit_opts *o, chakra_write_cb cb, void *data, char *err,
                         size_t errlen)
{
	emitter E;
	memset(&E, 0, sizeof E);
	E.gpu = gpu;
	E.net = net;
	E.l = l;
	E.fine = o->fine;
	E.o = o;
	E.groups = o->groups;
	E.last = UINT64_MAX;
	E.fp8 = c->precision == CHAKRA_PRECISION_FP8;
	E.dims_tp = axis_dims(l, PD_AX_TP);
	E.dims_dp = axis_dims(l, PD_AX_DP);
	uint32_t ti = rank % l->tp, di = rank / l->tp % l->dp, stage = rank / (l->tp * l->dp);
	E.g_tp = chakra__pd_group_tp(l, di, stage);
	E.g_dp = chakra__pd_group_dp(l, ti, stage);
	E.g_emb = chakra__pd_group_emb(l, ti, di);
	pd_shape sh;
	chakra__pd_shape(c, &sh);
	layer_steps ls;
	memset(&ls, 0, sizeof ls);
	pd_op *ops = NULL;
	size_t nops = 0;
	int rc = 0;
	if (chakra__pd_layer_fwd(&sh, &ls.lf) < 0 || chakra__pd_layer_bwd(&sh, &ls.lb) < 0 ||
	    chakra__pd_embed_fwd(&sh, &ls.ef) < 0 || chakra__pd_embed_bwd(&sh, &ls.eb) < 0 ||
	    chakra__pd_head_fwd(&sh, &ls.hf) < 0 || chakra__pd_head_bwd(&sh, &ls.hb) < 0 ||
	    chakra__pd_schedule(l, stage, &ops, &nops) < 0) {
		rc = chakra__pd_fail(err, errlen, CHAKRA_ENOMEM, "out of memory");
		goto out;
	}
	E.b = chakra_builder_new();
	chakra_writer_options wo = CHAKRA_WRITER_OPTIONS_INIT;
	wo.gzip = o->gzip;
	if (!E.b) {
		rc = chakra__pd_fail(err, errlen, CHAKRA_ENOMEM, "out of memory");
		goto out;
	}
	rc = chakra_writer_open_cb(&E.w, cb, data, &wo);
	if (rc == 0)
		rc = chakra_writer_write_metadata(E.w, "0.0.4", NULL);
	if (rc < 0)
		goto werr;
	uint32_t vstages = l->pp * l->v;
	uint64_t lps = (uint64_t)c->layers / vstages; /* layers per model chunk */
	/* Megatron sends a tensor-parallel rank's share of the activation and
	 * all-gathers it over the tensor group after the receive (its
	 * scatter-gather optimisation); with sequence parallelism the
	 * activation is split already. */
	uint64_t full = (uint64_t)(sh.b * sh.s * sh.h * sh.e);
	int gather = sh.t > 1 && !sh.sp;
	uint64_t act = sh.t > 1 ? full / sh.t : full;
	char tpg[16];
	snprintf(tpg, sizeof tpg, "%u", E.g_tp);
	uint32_t next_rank = pd_rank(l, ti, di, (stage + 1) % l->pp);
	uint32_t prev_rank = pd_rank(l, ti, di, (stage + l->pp - 1) % l->pp);
	if (o->reduced) { /* one GPU per stage: ranks are stages */
		next_rank = (stage + 1) % l->pp;
		prev_rank = (stage + l->pp - 1) % l->pp;
	}
	for (size_t i = 0; i < nops && E.rc == 0; i++) {
		const pd_op *op = &ops[i];
		uint32_t vs = op->chunk * l->pp + stage;
		int first = vs == 0, last = vs == vstages - 1;
		if (!op->bwd) {
			snprintf(E.ctx, sizeof E.ctx, "mb%" PRIu64 ".c%u.fwd", op->mb, op->chunk);
			if (!first) {
				p2p(&E, 0, prev_rank, tag_of(l, op->mb, vs, 0), act);
				if (gather)
					collective(&E, "pp", "ag", CHAKRA_ALL_GATHER, full, E.dims_tp, tpg);
			}
			if (first)
				steps(&E, &ls.ef);
			for (uint64_t j = 0; j < lps && E.rc == 0; j++) {
				snprintf(E.ctx, sizeof E.ctx, "mb%" PRIu64 ".c%u.l%" PRIu64 ".fwd", op->mb,
				         op->chunk, vs * lps + j);
				steps(&E, &ls.lf);
			}
			snprintf(E.ctx, sizeof E.ctx, "mb%" PRIu64 ".c%u.fwd", op->mb, op->chunk);
			if (last)
				steps(&E, &ls.hf);
			else
				p2p(&E, 1, next_rank, tag_of(l, op->mb, vs + 1, 0), act);
		} else {
			snprintf(E.ctx, sizeof E.ctx, "mb%" PRIu64 ".c%u.bwd", op->mb, op->chunk);
			if (!last) {
				p2p(&E, 0, next_rank, tag_of(l, op->mb, vs, 1), act);
				if (gather)
					collective(&E, "pp", "ag", CHAKRA_ALL_GATHER, full, E.dims_tp, tpg);
			}
			if (last)
				steps(&E, &ls.hb);
			for (uint64_t j = lps; j-- > 0 && E.rc == 0;) {
				snprintf(E.ctx, sizeof E.ctx, "mb%" PRIu64 ".c%u.l%" PRIu64 ".bwd", op->mb,
				         op->chunk, vs * lps + j);
				steps(&E, &ls.lb);
			}
			snprintf(E.ctx, sizeof E.ctx, "mb%" PRIu64 ".c%u.bwd", op->mb, op->chunk);
			if (first)
				steps(&E, &ls.eb);
			else
				p2p(&E, 1, prev_rank, tag_of(l, op->mb, vs - 1, 1), act);
		}
	}
	/* the end of the iteration: gradients, tied embeddings, optimizer */
	snprintf(E.ctx, sizeof E.ctx, "step");
	uint64_t params = chakra__pd_stage_params(c, stage);
	unsigned gb = chakra__pd_grad_bytes(c);
	char dpg[16];
	snprintf(dpg, sizeof dpg, "%u", E.g_dp);
	if (l->dp > 1)
		collective(&E, "dp", c->distributed_optimizer ? "rs" : "ar",
		           c->distributed_optimizer ? CHAKRA_REDUCE_SCATTER : CHAKRA_ALL_REDUCE,
		           params * gb, E.dims_dp, dpg);
	if (l->pp > 1 && (stage == 0 || stage == l->pp - 1)) {
		char pg[16];
		snprintf(pg, sizeof pg, "%u", E.g_emb);
		collective(&E, "emb", "ar", CHAKRA_ALL_REDUCE, sh.vp * sh.h / sh.t * gb,
		           axis_dims(l, PD_AX_PP), pg);
	}
	uint64_t local = c->distributed_optimizer && l->dp > 1 ? params / l->dp : params;
	pd_kernel opt = { "optimizer", PD_MEM, 0, 0, 0, 0, (double)local * gpu->optimizer_bytes };
	uint64_t opt_ns = chakra__pd_kernel_ns(gpu, &opt, 0);
	flush(&E);
	comp_node(&E, "opt:adam", opt_ns, 0, (uint64_t)opt.bytes);
	if (c->distributed_optimizer && l->dp > 1)
		collective(&E, "dp", "ag", CHAKRA_ALL_GATHER, params * 2, E.dims_dp, dpg);
	uint64_t over = (uint64_t)(gpu->iteration_overhead_ns + 0.5);
	if (over)
		comp_node(&E, "it:overhead", over, 0, 0);
	if (E.rc < 0) {
		rc = E.rc;
		goto werr;
	}
	rc = chakra_writer_finish(E.w);
	if (rc < 0)
		goto werr;
	goto out;
werr:
	chakra__pd_fail(err, errlen, rc, "rank %u: %s", rank,
	                E.w && *chakra_writer_errmsg(E.w) ? chakra_writer_errmsg(E.w)
	                                                  : chakra_strerror(rc));
out:
	chakra_writer_close(E.w);
	chakra_builder_free(E.b);
	chakra_free(ops);
	layer_steps_free(&ls);
	return rc;
}
