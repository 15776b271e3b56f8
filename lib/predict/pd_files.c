/* SPDX-License-Identifier: Apache-2.0 */
/* The workload for other tools: one rank's ET, the communicator groups,
 * and the network and system files it runs on in `chakra sim` or
 * ASTRA-sim. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
		p = malloc((size_t)k + 1);
		if (!p)
			return CHAKRA_ENOMEM;
		va_start(ap, fmt);
		vsnprintf(p, (size_t)k + 1, fmt, ap);
		va_end(ap);
	}
	int rc = cb(data, p, (size_t)k);
	if (p != buf)
		free(p);
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
	rc = put(cb, data, "{");
	for (size_t i = 0; rc == 0 && i < gs.n; i++) {
		rc = put(cb, data, "%s\n  \"%s\": [", i ? "," : "", gs.g[i].name);
		for (size_t j = 0; rc == 0 && j < gs.g[i].n; j++)
			rc = put(cb, data, "%s%u", j ? ", " : "", gs.g[i].ranks[j]);
		if (rc == 0)
			rc = put(cb, data, "]");
	}
	if (rc == 0)
		rc = put(cb, data, "\n}\n");
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
