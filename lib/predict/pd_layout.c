/* SPDX-License-Identifier: Apache-2.0 */
/* A layout (tp x dp x pp on nodes of g GPUs) as the simulator's network,
 * and the pipeline schedules.
 *
 * Ranks follow Megatron's order (tensor-parallel index fastest, then data,
 * then pipeline), and nodes hold g consecutive ranks. Each parallel axis
 * becomes one or two network dimensions: the part of it inside a node
 * (NVSwitch bandwidth) and the part across nodes (scale-out bandwidth), so
 * every group Megatron forms is a product of dimensions and the simulator
 * runs its collective hierarchically: reduce-scatter inside the node, the
 * reduction across nodes on every GPU's own link, all-gather inside the
 * node, as NCCL's rings do on a cluster whose GPUs each have a NIC. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pd_impl.h"

int chakra__pd_layout(const chakra_gpt_config *c, pd_layout *l, char *err, size_t errlen)
{
	memset(l, 0, sizeof *l);
	l->tp = c->tp;
	l->dp = c->dp;
	l->pp = c->pp;
	l->v = c->interleave > 1 ? c->interleave : 1;
	l->g = c->gpus_per_node ? c->gpus_per_node : 8;
	uint64_t gpus = (uint64_t)c->tp * c->dp * c->pp;
	if (gpus > (1u << 24))
		return chakra__pd_fail(err, errlen, CHAKRA_EINVAL,
		                       "tp %u x pp %u x dp %u = %llu GPUs: at most %u", c->tp, c->pp,
		                       c->dp, (unsigned long long)gpus, 1u << 24);
	l->gpus = (uint32_t)gpus;
	l->m = c->global_batch / ((uint64_t)c->micro_batch * c->dp);
	uint32_t sizes[3] = { c->tp, c->dp, c->pp };
	uint32_t in[3], out[3];
	uint64_t room = l->g;
	for (int a = 0; a < 3; a++) {
		uint32_t s = sizes[a];
		if (room >= s) {
			if (room % s)
				goto misaligned;
			in[a] = s;
			out[a] = 1;
			room /= s;
		} else {
			if (s % room)
				goto misaligned;
			in[a] = (uint32_t)room;
			out[a] = (uint32_t)(s / room);
			room = 1;
		}
	}
	for (int a = 0; a < 3; a++)
		for (int part = 0; part < 2; part++) {
			uint32_t s = part ? out[a] : in[a];
			if (s <= 1)
				continue;
			l->size[l->ndims] = s;
			l->axis[l->ndims] = a;
			/* the node boundary: the in-node parts' product reaches g here */
			l->inter[l->ndims] = part;
			l->ndims++;
		}
	/* in-node parts of later axes are inside nodes only while earlier axes
	 * fit; an axis after a split one is entirely across nodes */
	{
		uint64_t prod = 1;
		for (int d = 0; d < l->ndims; d++) {
			l->inter[d] = prod >= l->g;
			prod *= l->size[d];
		}
	}
	if (l->ndims == 0) { /* one GPU: a network of one NPU */
		l->size[0] = 1;
		l->axis[0] = PD_AX_TP;
		l->ndims = 1;
	}
	return 0;
misaligned:
	return chakra__pd_fail(err, errlen, CHAKRA_EINVAL,
	                       "tp %u, dp %u, pp %u do not fill nodes of %u GPUs: each group "
	                       "must lie inside a node or span whole nodes",
	                       c->tp, c->dp, c->pp, l->g);
}

int chakra__pd_layout_on(const chakra_gpt_config *c, const chakra_cluster_net *net,
                         chakra_gpt_config *cc, pd_layout *l, char *err, size_t errlen)
{
	int rc = chakra_gpt_config_check(c, err, errlen);
	if (rc < 0)
		return rc;
	*cc = *c;
	if (!cc->gpus_per_node)
		cc->gpus_per_node = net && net->gpus_per_node ? net->gpus_per_node : 8;
	return chakra__pd_layout(cc, l, err, errlen);
}

void chakra__pd_sim_network(const pd_layout *l, const chakra_cluster_net *net,
                            chakra_sim_network *sn)
{
	memset(sn, 0, sizeof *sn);
	sn->ndims = l->ndims;
	for (int d = 0; d < l->ndims; d++) {
		sn->topo[d] = CHAKRA_SIM_SWITCH;
		sn->size[d] = l->size[d];
		double gbps = l->inter[d] ? net->inter_gbps : net->intra_gbps;
		double lat = l->inter[d] ? net->inter_latency_ns : net->intra_latency_ns;
		/* the simulator's GB/s are GiB/s; a switch message takes two hops */
		sn->bw[d] = gbps * 1e9 / 1073741824.0;
		sn->latency[d] = lat / 2.0;
	}
	chakra_sim_network_check(sn, NULL, 0);
}

void chakra__pd_sim_system(chakra_sim_system *sys)
{
	memset(sys, 0, sizeof *sys);
	sys->lifo = 0;
	sys->endpoint_delay = 0;
	sys->active_chunks = 1;
	sys->splits = 1;
	for (int i = 0; i < CHAKRA_SIM_IMPL_COUNT; i++) {
		sys->n_impl[i] = CHAKRA_SIM_MAX_DIMS;
		for (int d = 0; d < CHAKRA_SIM_MAX_DIMS; d++)
			sys->impl[i][d] = CHAKRA_SIM_ALG_RING;
	}
	sys->local_bw_aware = 1;
	/* reductions are not what bounds NCCL on these sizes: no cost */
	sys->local_mem_bw = 1e12;
	sys->boost_mode = 0;
	sys->roofline = 0;
	sys->peak_perf = 0;
}

uint32_t chakra__pd_group_emb(const pd_layout *l, uint32_t ti, uint32_t di)
{
	return 1 + ti + l->tp * di;
}

static uint32_t base_tp(const pd_layout *l)
{
	return 1 + (l->pp > 1 ? l->tp * l->dp : 0);
}

uint32_t chakra__pd_group_tp(const pd_layout *l, uint32_t di, uint32_t pi)
{
	return base_tp(l) + di + l->dp * pi;
}

uint32_t chakra__pd_group_dp(const pd_layout *l, uint32_t ti, uint32_t pi)
{
	return base_tp(l) + (l->tp > 1 ? l->dp * l->pp : 0) + ti + l->tp * pi;
}

static int add_group(chakra_sim_groups *gs, size_t cap, uint32_t id, uint32_t n)
{
	if (gs->n == cap)
		return CHAKRA_ENOMEM;
	chakra_sim_group *g = &gs->g[gs->n++];
	g->name = chakra_malloc(16);
	g->ranks = chakra_malloc((n ? n : 1) * sizeof *g->ranks);
	if (!g->name || !g->ranks)
		return CHAKRA_ENOMEM;
	snprintf(g->name, 16, "%u", id);
	g->n = n;
	return 0;
}

int chakra__pd_groups(const pd_layout *l, int all_groups, chakra_sim_groups *gs)
{
	memset(gs, 0, sizeof *gs);
	size_t cap = (l->pp > 1 ? (size_t)l->tp * l->dp : 0);
	if (all_groups)
		cap += (l->tp > 1 ? (size_t)l->dp * l->pp : 0) + (l->dp > 1 ? (size_t)l->tp * l->pp : 0);
	if (!cap)
		return 0;
	gs->g = chakra_calloc(cap, sizeof *gs->g);
	if (!gs->g)
		return CHAKRA_ENOMEM;
	int rc = 0;
	for (uint32_t di = 0; rc == 0 && l->pp > 1 && di < l->dp; di++)
		for (uint32_t ti = 0; rc == 0 && ti < l->tp; ti++) {
			rc = add_group(gs, cap, chakra__pd_group_emb(l, ti, di), 2);
			if (rc == 0) {
				gs->g[gs->n - 1].ranks[0] = pd_rank(l, ti, di, 0);
				gs->g[gs->n - 1].ranks[1] = pd_rank(l, ti, di, l->pp - 1);
			}
		}
	for (uint32_t pi = 0; rc == 0 && all_groups && l->tp > 1 && pi < l->pp; pi++)
		for (uint32_t di = 0; rc == 0 && di < l->dp; di++) {
			rc = add_group(gs, cap, chakra__pd_group_tp(l, di, pi), l->tp);
			for (uint32_t ti = 0; rc == 0 && ti < l->tp; ti++)
				gs->g[gs->n - 1].ranks[ti] = pd_rank(l, ti, di, pi);
		}
	for (uint32_t pi = 0; rc == 0 && all_groups && l->dp > 1 && pi < l->pp; pi++)
		for (uint32_t ti = 0; rc == 0 && ti < l->tp; ti++) {
			rc = add_group(gs, cap, chakra__pd_group_dp(l, ti, pi), l->dp);
			for (uint32_t di = 0; rc == 0 && di < l->dp; di++)
				gs->g[gs->n - 1].ranks[di] = pd_rank(l, ti, di, pi);
		}
	if (rc < 0)
		chakra_sim_groups_free(gs);
	return rc;
}

/* Megatron's schedules (megatron/core/pipeline_parallel/schedules.py):
 * 1F1B: pp - stage - 1 warm-up forwards, then one forward and one backward
 * in turn, then the remaining backwards. Interleaved with v chunks:
 * forward step k runs chunk (k / pp) % v of micro-batch
 * (k / (pp v)) pp + k % pp; backward step k the chunk v - 1 - (k / pp) % v;
 * (pp - stage - 1) x 2 + (v - 1) x pp warm-up steps. */
int chakra__pd_schedule(const pd_layout *l, uint32_t stage, pd_op **ops, size_t *n)
{
	uint64_t total = l->m * l->v;
	pd_op *v = chakra_malloc((size_t)(total ? 2 * total : 1) * sizeof *v);
	if (!v)
		return CHAKRA_ENOMEM;
	size_t k = 0;
	uint64_t warm;
	if (l->v == 1) {
		warm = l->pp - stage - 1;
	} else {
		warm = (uint64_t)(l->pp - stage - 1) * 2 + (uint64_t)(l->v - 1) * l->pp;
		if (l->m == l->pp)
			warm = total;
	}
	if (warm > total)
		warm = total;
	uint64_t fi = 0, bi = 0;
	uint64_t group = (uint64_t)l->pp * l->v;
#define FWD(step)                                                                 \
	do {                                                                          \
		uint64_t s_ = (step);                                                     \
		v[k].bwd = 0;                                                             \
		v[k].chunk = l->v == 1 ? 0 : (uint32_t)((s_ / l->pp) % l->v);            \
		v[k].mb = l->v == 1 ? s_ : (s_ / group) * l->pp + s_ % l->pp;             \
		k++;                                                                      \
	} while (0)
#define BWD(step)                                                                 \
	do {                                                                          \
		uint64_t s_ = (step);                                                     \
		v[k].bwd = 1;                                                             \
		v[k].chunk = l->v == 1 ? 0 : (uint32_t)(l->v - 1 - (s_ / l->pp) % l->v); \
		v[k].mb = l->v == 1 ? s_ : (s_ / group) * l->pp + s_ % l->pp;             \
		k++;                                                                      \
	} while (0)
	while (fi < warm)
		FWD(fi++);
	while (fi < total) {
		FWD(fi++);
		BWD(bi++);
	}
	while (bi < total)
		BWD(bi++);
#undef FWD
#undef BWD
	*ops = v;
	*n = k;
	return 0;
}
