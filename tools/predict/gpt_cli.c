/* SPDX-License-Identifier: Apache-2.0 */
/* The GPT options of `predict gpt` and `generate model --model gpt`. */
#include "gpt_cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common.h"
#include "rankpath.h"

void gpt_cli_init(gpt_cli *g)
{
	memset(g, 0, sizeof *g);
	g->layers = g->hidden = g->heads = g->seq = g->global_batch = UINT64_MAX;
	g->ffn = g->vocab = g->micro_batch = g->tp = g->pp = g->dp = g->interleave = UINT64_MAX;
	g->gpus = g->gpus_per_node = UINT64_MAX;
}

int gpt_cli_net(chakra_cluster_net *net, const char *arg)
{
	char e[1024];
	struct stat st;
	if (stat(arg, &st) != 0 && !strchr(arg, '/') && chakra_cluster_net_preset(net, arg, NULL, 0) == 0)
		return 0;
	if (tool_input_missing(arg))
		return 1;
	if (chakra_cluster_net_load(net, arg, e, sizeof e) < 0)
		return tool_err("%s", e);
	return 0;
}

void gpt_rows_init(gpt_rows *r)
{
	memset(r, 0, sizeof *r);
	r->vocab = UINT64_MAX;
}

int gpt_rows_apply(const gpt_rows *r, const char *cmd, chakra_gpt_measurement *rows, size_t from,
                   size_t n)
{
	if (r->vocab != UINT64_MAX && (r->vocab == 0 || r->vocab > UINT32_MAX))
		return tool_usage(cmd, "--vocab needs a positive integer below 2^32");
	for (size_t i = from; i < n; i++) {
		chakra_gpt_config *c = &rows[i].config;
		c->recompute = (chakra_recompute)(r->recompute < 0 ? 0 : r->recompute);
		c->precision = (chakra_precision)(r->precision < 0 ? 0 : r->precision);
		c->sequence_parallel = r->sp;
		c->distributed_optimizer = r->distopt;
		if (r->vocab != UINT64_MAX)
			c->vocab = (uint32_t)r->vocab;
	}
	return 0;
}

static int set32(const char *cmd, const char *opt, uint64_t v, uint64_t dflt, uint32_t *out)
{
	if (v == UINT64_MAX)
		v = dflt;
	if (v == 0 || v > UINT32_MAX)
		return tool_usage(cmd, "%s needs a positive integer below 2^32", opt);
	*out = (uint32_t)v;
	return 0;
}

int gpt_cli_resolve(gpt_cli *g, const char *cmd, int need_layout, gpt_setup *st)
{
	chakra_gpt_config *c = &st->c;
	chakra_gpu_model *gpu = &st->gpu;
	chakra_cluster_net *net = &st->net;
	chakra_predict_options *po = &st->po;
	chakra_sim_network *sn = &st->sn;
	chakra_sim_system *ss = &st->ss;
	chakra_gpt_config d = CHAKRA_GPT_CONFIG_INIT;
	*c = d;
	chakra_predict_options pd = CHAKRA_PREDICT_OPTIONS_INIT;
	*po = pd;
	if (g->layers == UINT64_MAX || g->hidden == UINT64_MAX || g->heads == UINT64_MAX ||
	    g->seq == UINT64_MAX || g->global_batch == UINT64_MAX)
		return tool_usage(cmd, "--layers, --hidden, --heads, --seq and --global-batch are "
		                  "required");
	if (!g->gpu)
		return tool_usage(cmd, "--gpu is required (a100, a100-40g, h100)");
	if (set32(cmd, "--layers", g->layers, 0, &c->layers) ||
	    set32(cmd, "--hidden", g->hidden, 0, &c->hidden) ||
	    set32(cmd, "--heads", g->heads, 0, &c->heads) ||
	    set32(cmd, "--seq", g->seq, 0, &c->seq) ||
	    set32(cmd, "--micro-batch", g->micro_batch, 1, &c->micro_batch) ||
	    set32(cmd, "--interleave", g->interleave, 1, &c->interleave) ||
	    set32(cmd, "--gpus-per-node", g->gpus_per_node, 8, &c->gpus_per_node))
		return 2;
	if (g->ffn != UINT64_MAX && set32(cmd, "--ffn", g->ffn, 0, &c->ffn))
		return 2;
	if (g->vocab != UINT64_MAX && set32(cmd, "--vocab", g->vocab, 0, &c->vocab))
		return 2;
	if (g->global_batch == 0 || g->global_batch > (1ull << 40))
		return tool_usage(cmd, "--global-batch needs a positive integer up to 2^40");
	c->global_batch = g->global_batch;
	c->recompute = (chakra_recompute)(g->recompute < 0 ? 0 : g->recompute);
	c->precision = (chakra_precision)(g->precision < 0 ? 0 : g->precision);
	c->sequence_parallel = g->sp;
	c->distributed_optimizer = g->distopt;
	if (need_layout) {
		if (set32(cmd, "--tp", g->tp, 1, &c->tp) || set32(cmd, "--pp", g->pp, 1, &c->pp))
			return 2;
		if (g->dp == UINT64_MAX) {
			if (g->gpus == UINT64_MAX)
				return tool_usage(cmd, "give --dp or --gpus");
			if (g->gpus == 0 || g->gpus % ((uint64_t)c->tp * c->pp))
				return tool_usage(cmd, "--gpus %llu is not a multiple of tp %u x pp %u",
				                  (unsigned long long)g->gpus, c->tp, c->pp);
			g->dp = g->gpus / ((uint64_t)c->tp * c->pp);
		}
		if (set32(cmd, "--dp", g->dp, 1, &c->dp))
			return 2;
		if (g->gpus != UINT64_MAX && g->gpus != (uint64_t)c->tp * c->pp * c->dp)
			return tool_usage(cmd, "tp %u x pp %u x dp %u = %llu is not --gpus %llu", c->tp,
			                  c->pp, c->dp, (unsigned long long)c->tp * c->pp * c->dp,
			                  (unsigned long long)g->gpus);
	}
	char e[1024];
	if (chakra_gpu_model_preset(gpu, g->gpu, e, sizeof e) < 0)
		return tool_usage(cmd, "--gpu: %s", e);
	if (g->calibration &&
	    (tool_input_missing(g->calibration) ||
	     (chakra_gpu_model_load(gpu, g->calibration, e, sizeof e) < 0 && tool_err("%s", e))))
		return 1;
	if (c->precision == CHAKRA_PRECISION_FP8 && !(gpu->peak_tflops_fp8 > 0))
		return tool_usage(cmd, "--precision fp8: %s has no FP8 (h100 has)", gpu->name);
	if (chakra_cluster_net_preset(net, strstr(g->gpu, "h100") ? "dgx-h100" : "dgx-a100", e,
	                              sizeof e) < 0)
		return tool_err("%s", e);
	if (g->nccl_calibration && gpt_cli_net(net, g->nccl_calibration))
		return 1;
	if (g->gpus_per_node != UINT64_MAX)
		net->gpus_per_node = c->gpus_per_node;
	else
		c->gpus_per_node = net->gpus_per_node;
	if (need_layout && chakra_gpt_config_check(c, e, sizeof e) < 0)
		return tool_usage(cmd, "%s", e);
	if (!g->network != !g->system)
		return tool_usage(cmd, "--network and --system go together");
	if (g->network) {
		if (tool_input_missing(g->network) || tool_input_missing(g->system))
			return 1;
		if (chakra_sim_network_load(sn, g->network, e, sizeof e) < 0 ||
		    chakra_sim_system_load(ss, g->system, e, sizeof e) < 0)
			return tool_err("%s", e);
		po->network = sn;
		po->system = ss;
	}
	return 0;
}

typedef struct outset {
	tool_out *o;
	size_t n;
} outset;

static int open_one(outset *s, const char *path, int force)
{
	if (tool_out_open(&s->o[s->n], path, force, NULL, 0) < 0)
		return -1;
	s->n++;
	return 0;
}

int gpt_cli_write(const char *prefix, const gpt_setup *st, int force, int gzip, int rank_map)
{
	const chakra_gpt_config *c = &st->c;
	const chakra_gpu_model *gpu = &st->gpu;
	const chakra_cluster_net *net = &st->net;
	const chakra_predict_options *po = &st->po;
	uint32_t gpus = c->tp * c->pp * c->dp;
	/* The traces: one per GPU, or one per class (pipeline stage) and the
	 * rank map. */
	uint32_t classes = rank_map ? chakra_gpt_classes(c) : 0;
	size_t ntr = rank_map ? (size_t)classes + 1 : gpus;
	size_t plen = strlen(prefix) + 32;
	char *path = malloc(plen);
	/* a tool_out keeps the path it was given: one buffer per file */
	char *paths = malloc(plen * (ntr + 3));
	const char **cfiles = calloc(classes ? classes : 1, sizeof *cfiles);
	outset s = { calloc(ntr + 3, sizeof(tool_out)), 0 };
	int ret = 1, user_net = po && po->network;
	size_t nfiles = ntr + 1 + (user_net ? 0 : 2);
	if (!path || !paths || !s.o || !cfiles) {
		tool_err("out of memory");
		goto out;
	}
	for (size_t i = 0; i < nfiles; i++) {
		char *p = paths + i * plen;
		if (i < ntr && !rank_map)
			chakra__rank_name(p, plen, prefix, i, gzip);
		else if (i < classes)
			snprintf(p, plen, "%s.c%zu.et%s", prefix, i, gzip ? ".gz" : "");
		else if (i < ntr)
			snprintf(p, plen, "%s.ranks", prefix);
		else if (i == ntr)
			snprintf(p, plen, "%s.comm_groups.json", prefix);
		else if (i == ntr + 1)
			snprintf(p, plen, "%s.network.yml", prefix);
		else
			snprintf(p, plen, "%s.system.json", prefix);
		if (i < classes) { /* (the map names them from its own folder) */
			const char *sl = strrchr(p, '/');
			cfiles[i] = sl ? sl + 1 : p;
		}
		if (tool_out_check(p, force, NULL, 0) < 0)
			goto out;
	}
	tool_progress pr;
	tool_progress_start(&pr, "writing", ntr);
	char e[1024];
	for (size_t i = 0; i < nfiles; i++) {
		char *p = paths + i * plen;
		if (open_one(&s, p, force) < 0) {
			tool_progress_end(&pr);
			goto out;
		}
		tool_out *o = &s.o[s.n - 1];
		int rc;
		e[0] = 0;
		if (i < ntr && !rank_map)
			rc = chakra_gpt_write_rank(c, gpu, net, po, (uint32_t)i, gzip, tool_out_write_cb, o,
			                           e, sizeof e);
		else if (i < classes)
			rc = chakra_gpt_write_rank(c, gpu, net, po, chakra_gpt_class_rank(c, (uint32_t)i),
			                           gzip, tool_out_write_cb, o, e, sizeof e);
		else if (i < ntr)
			rc = chakra_gpt_write_rank_map(c, net, cfiles, tool_out_write_cb, o);
		else if (i == ntr)
			rc = chakra_gpt_write_groups(c, po, tool_out_write_cb, o);
		else if (i == ntr + 1)
			rc = chakra_gpt_write_network(c, net, tool_out_write_cb, o);
		else
			rc = chakra_gpt_write_system(c, net, tool_out_write_cb, o);
		if (rc < 0) {
			tool_progress_end(&pr);
			if (!o->failed)
				tool_err("%s: %s", p, *e ? e : chakra_strerror(rc));
			goto out;
		}
		if (tool_out_close(o) < 0) {
			tool_progress_end(&pr);
			goto out;
		}
		tool_progress_update(&pr, i < ntr ? i + 1 : ntr);
	}
	tool_progress_end(&pr);
	for (size_t i = 0; i < s.n; i++)
		if (tool_out_commit(&s.o[i]) < 0)
			goto out;
	ret = 0;
out:
	for (size_t i = 0; s.o && i < s.n; i++)
		tool_out_abort(&s.o[i]);
	free(cfiles);
	free(s.o);
	free(paths);
	free(path);
	return ret;
}
