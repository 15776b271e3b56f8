/* SPDX-License-Identifier: Apache-2.0 */
/* The workload for other tools: one rank's ET, the communicator groups,
 * and the network and system files it runs on in `chakra sim` or
 * ASTRA-sim. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "groups.h"
#include "pd_impl.h"

#define BAD(...) chakra__pd_fail(err, errlen, CHAKRA_EINVAL, __VA_ARGS__)

int chakra_gpt_write_rank(const chakra_gpt_config *c, const chakra_gpu_model *gpu,
                          const chakra_cluster_net *net, const chakra_predict_options *opts,
                          uint32_t rank, int gzip, chakra_write_cb cb, void *data, char *err,
                          size_t errlen)
{
	if (!c || !gpu || !net || !cb)
		return BAD("chakra_gpt_write_rank: NULL argument");
	chakra_gpt_config cc;
	pd_layout l;
	int rc = chakra__pd_layout_on(c, net, &cc, &l, err, errlen);
	if (rc < 0)
		return rc;
	if (rank >= l.gpus)
		return BAD("rank %u: the layout has %u GPUs", rank, l.gpus);
	pd_emit_opts eo = { 1, gzip, opts && opts->network, 0, NULL, NULL };
	return chakra__pd_emit_rank(&cc, gpu, net, &l, rank, &eo, cb, data, err, errlen);
}

static int put(chakra_write_cb cb, void *data, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int put(chakra_write_cb cb, void *data, const char *fmt, ...)
{
	char buf[512], *p = buf;
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (k < 0)
		return CHAKRA_EINVAL;
	if ((size_t)k >= sizeof buf) {
		p = chakra_malloc((size_t)k + 1);
		if (!p)
			return CHAKRA_ENOMEM;
		va_start(ap, fmt);
		vsnprintf(p, (size_t)k + 1, fmt, ap);
		va_end(ap);
	}
	int rc = cb(data, p, (size_t)k);
	if (p != buf)
		chakra_free(p);
	return rc;
}

int chakra_gpt_write_groups(const chakra_gpt_config *c, const chakra_predict_options *opts,
                            chakra_write_cb cb, void *data)
{
	pd_layout l;
	chakra_sim_groups gs;
	if (!c || !cb || chakra_gpt_config_check(c, NULL, 0) < 0 ||
	    chakra__pd_layout(c, &l, NULL, 0) < 0)
		return CHAKRA_EINVAL;
	(void)opts;
	int rc = chakra__pd_groups(&l, 1, &gs);
	if (rc < 0)
		return rc;
	/* the one writer (lib/json/groups.c) */
	chakra__groups_out w;
	chakra__groups_out_begin(&w, cb, data);
	for (size_t i = 0; i < gs.n; i++)
		chakra__groups_out_list(&w, gs.g[i].name, gs.g[i].ranks, gs.g[i].n);
	rc = chakra__groups_out_end(&w);
	chakra_sim_groups_free(&gs);
	return rc;
}

int chakra_gpt_write_network(const chakra_gpt_config *c, const chakra_cluster_net *net,
                             chakra_write_cb cb, void *data)
{
	pd_layout l;
	chakra_gpt_config cc;
	if (!c || !net || !cb || chakra__pd_layout_on(c, net, &cc, &l, NULL, 0) < 0)
		return CHAKRA_EINVAL;
	chakra_sim_network sn;
	chakra__pd_sim_network(&l, net, &sn);
	static const char *const ax[] = { "tensor", "data", "pipeline" };
	int rc = put(cb, data, "# %u GPUs, %u per node: tp %u x dp %u x pp %u (Megatron's rank "
	             "order)\n# dimensions:", l.gpus, l.g, l.tp, l.dp, l.pp);
	for (int d = 0; rc == 0 && d < sn.ndims; d++)
		rc = put(cb, data, " %s%s %u%s", ax[l.axis[d]], l.inter[d] ? " across nodes"
		         : " in a node", l.size[d], d + 1 < sn.ndims ? "," : "\n");
	if (rc == 0)
		rc = put(cb, data, "topology: [");
	for (int d = 0; rc == 0 && d < sn.ndims; d++)
		rc = put(cb, data, "%s Switch", d ? "," : "");
	if (rc == 0)
		rc = put(cb, data, " ]\nnpus_count: [");
	for (int d = 0; rc == 0 && d < sn.ndims; d++)
		rc = put(cb, data, "%s %u", d ? "," : "", sn.size[d]);
	if (rc == 0)
		rc = put(cb, data, " ]\nbandwidth: [");
	for (int d = 0; rc == 0 && d < sn.ndims; d++)
		rc = put(cb, data, "%s %.17g", d ? "," : "", sn.bw[d]);
	if (rc == 0)
		rc = put(cb, data, " ]  # GiB/s per link\nlatency: [");
	for (int d = 0; rc == 0 && d < sn.ndims; d++)
		rc = put(cb, data, "%s %.17g", d ? "," : "", sn.latency[d]);
	if (rc == 0)
		rc = put(cb, data, " ]  # ns per hop\n");
	return rc;
}

int chakra_gpt_write_system(const chakra_gpt_config *c, const chakra_cluster_net *net,
                            chakra_write_cb cb, void *data)
{
	pd_layout l;
	chakra_gpt_config cc;
	if (!c || !net || !cb || chakra__pd_layout_on(c, net, &cc, &l, NULL, 0) < 0)
		return CHAKRA_EINVAL;
	/* ASTRA-sim wants one implementation per network dimension, no more */
	static const char *const keys[] = { "all-reduce", "all-gather", "reduce-scatter",
		                            "all-to-all" };
	int rc = put(cb, data, "{\n  \"scheduling-policy\": \"FIFO\",\n  \"endpoint-delay\": 0,\n"
	             "  \"active-chunks-per-dimension\": 1,\n  \"preferred-dataset-splits\": 1,\n");
	for (int k = 0; rc == 0 && k < 4; k++) {
		rc = put(cb, data, "  \"%s-implementation\": [", keys[k]);
		for (int d = 0; rc == 0 && d < l.ndims; d++)
			rc = put(cb, data, "%s\"ring\"", d ? ", " : "");
		if (rc == 0)
			rc = put(cb, data, "],\n");
	}
	if (rc == 0)
		rc = put(cb, data, "  \"collective-optimization\": \"localBWAware\",\n"
		         "  \"local-mem-bw\": 1000000000000,\n  \"boost-mode\": 0\n}\n");
	return rc;
}

/* ---------------- the rank map ---------------- */

uint32_t chakra_gpt_classes(const chakra_gpt_config *c)
{
	return c && chakra_gpt_config_check(c, NULL, 0) == 0 ? c->pp : 0;
}

uint32_t chakra_gpt_class_rank(const chakra_gpt_config *c, uint32_t cls)
{
	return c ? cls * c->tp * c->dp : 0; /* (Megatron's order: the stage's first GPU) */
}

/* A file name as a token of the map (quoted when it has blanks or quotes). */
static int put_token(chakra_write_cb cb, void *data, const char *s)
{
	if (*s && !strpbrk(s, " \t\r\n\"#\\"))
		return cb(data, s, strlen(s));
	int rc = cb(data, "\"", 1);
	for (const char *p = s; rc == 0 && *p; p++) {
		if (*p == '"' || *p == '\\')
			rc = cb(data, "\\", 1);
		if (rc == 0)
			rc = cb(data, *p == '\n' || *p == '\r' ? " " : p, 1);
	}
	return rc ? rc : cb(data, "\"", 1);
}

/* The groups a GPU's trace names (those with more than one GPU), in the
 * class's order: tensor-parallel, data-parallel, tied embeddings. */
static int groups(chakra_write_cb cb, void *data, const pd_layout *l, uint32_t ti, uint32_t di,
                  uint32_t k)
{
	int rc = 0;
	if (l->tp > 1 || l->dp > 1 || (l->pp > 1 && (k == 0 || k == l->pp - 1)))
		rc = put(cb, data, " groups");
	if (rc == 0 && l->tp > 1)
		rc = put(cb, data, " %u", chakra__pd_group_tp(l, di, k));
	if (rc == 0 && l->dp > 1)
		rc = put(cb, data, " %u", chakra__pd_group_dp(l, ti, k));
	if (rc == 0 && l->pp > 1 && (k == 0 || k == l->pp - 1))
		rc = put(cb, data, " %u", chakra__pd_group_emb(l, ti, di));
	return rc;
}

int chakra_gpt_write_rank_map(const chakra_gpt_config *c, const chakra_cluster_net *net,
                              const char *const *class_files, chakra_write_cb cb, void *data)
{
	pd_layout l;
	if (!c || !net || !class_files || !cb || chakra_gpt_config_check(c, NULL, 0) < 0)
		return CHAKRA_EINVAL;
	chakra_gpt_config cc = *c;
	if (!cc.gpus_per_node)
		cc.gpus_per_node = net->gpus_per_node ? net->gpus_per_node : 8;
	if (chakra__pd_layout(&cc, &l, NULL, 0) < 0)
		return CHAKRA_EINVAL;
	/* What a stage's trace names, as its first GPU's: the previous and next
	 * stage's GPUs (both ways round with interleaving), its tensor- and
	 * data-parallel groups, and the tied embeddings' group (first and last
	 * stage). */
	int rc = put(cb, data, "chakra-rank-map 1\n# %u GPUs: tp %u x dp %u x pp %u, one class per "
	             "pipeline stage (its first GPU's trace); each GPU its own groups and pipeline "
	             "peers\nranks %u\n", l.gpus, l.tp, l.dp, l.pp, l.gpus);
	for (uint32_t k = 0; rc == 0 && k < l.pp; k++) {
		uint32_t next = pd_rank(&l, 0, 0, (k + 1) % l.pp), prev = pd_rank(&l, 0, 0, (k + l.pp - 1) % l.pp);
		rc = put(cb, data, "class %u ", k);
		if (rc == 0)
			rc = put_token(cb, data, class_files[k]);
		if (rc == 0 && l.pp > 1)
			rc = next == prev ? put(cb, data, " peers %u", next)
			                  : put(cb, data, " peers %u %u", next, prev);
		if (rc == 0)
			rc = groups(cb, data, &l, 0, 0, k);
		if (rc == 0)
			rc = put(cb, data, "\n");
	}
	for (uint32_t r = 0; rc == 0 && r < l.gpus; r++) {
		uint32_t ti = r % l.tp, di = r / l.tp % l.dp, k = r / (l.tp * l.dp);
		uint32_t next = pd_rank(&l, ti, di, (k + 1) % l.pp), prev = pd_rank(&l, ti, di, (k + l.pp - 1) % l.pp);
		rc = put(cb, data, "%u %u", r, k);
		if (rc == 0 && l.pp > 1)
			rc = next == prev ? put(cb, data, " peers %u", next)
			                  : put(cb, data, " peers %u %u", next, prev);
		if (rc == 0)
			rc = groups(cb, data, &l, ti, di, k);
		if (rc == 0)
			rc = put(cb, data, "\n");
	}
	return rc;
}
