/* SPDX-License-Identifier: Apache-2.0 */
/* Every layout of a model on a number of GPUs, predicted and ranked: the
 * question a planner asks before a run (which tp x pp x dp and micro
 * batch is fastest, and does it fit in memory). */
#include <stdlib.h>
#include <string.h>

#include "pd_impl.h"

static int cmp_layout(const void *x, const void *y)
{
	const chakra_gpt_layout_result *a = x, *b = y;
	/* layouts that fit first, then by time */
	if (a->prediction.memory.fits != b->prediction.memory.fits)
		return a->prediction.memory.fits ? -1 : 1;
	double ta = a->prediction.iteration_s, tb = b->prediction.iteration_s;
	if (ta != tb)
		return ta < tb ? -1 : 1;
	/* the same time: fewer pipeline stages, then less tensor parallelism */
	if (a->pp != b->pp)
		return a->pp < b->pp ? -1 : 1;
	if (a->tp != b->tp)
		return a->tp < b->tp ? -1 : 1;
	return a->micro_batch < b->micro_batch ? -1 : a->micro_batch > b->micro_batch;
}

int chakra_gpt_sweep(const chakra_gpt_config *c, uint32_t gpus, const chakra_gpu_model *gpu,
                     const chakra_cluster_net *net, const chakra_predict_options *opts,
                     chakra_gpt_layout_result **out, size_t *n, char *err, size_t errlen)
{
	if (!c || !gpu || !out || !n || gpus == 0)
		return chakra__pd_fail(err, errlen, CHAKRA_EINVAL, "chakra_gpt_sweep: NULL argument "
		                       "or 0 GPUs");
	*out = NULL;
	*n = 0;
	size_t cap = 0;
	uint32_t g = c->gpus_per_node ? c->gpus_per_node
	                              : net && net->gpus_per_node ? net->gpus_per_node : 8;
	chakra_gpt_layout_result *v = NULL;
	int rc = 0;
	char e[256];
	for (uint32_t tp = 1; tp <= g && tp <= gpus; tp *= 2) {
		if (gpus % tp)
			continue;
		for (uint32_t pp = 1; pp <= gpus / tp; pp++) {
			if ((gpus / tp) % pp || c->layers % pp)
				continue;
			uint32_t dp = gpus / tp / pp;
			if (c->global_batch % dp)
				continue;
			uint64_t per = c->global_batch / dp;
			for (uint64_t mb = 1; mb <= per; mb++) {
				if (per % mb)
					continue;
				chakra_gpt_config t = *c;
				t.tp = tp;
				t.pp = pp;
				t.dp = dp;
				t.micro_batch = (uint32_t)mb;
				t.interleave = 1;
				if (mb > UINT32_MAX || chakra_gpt_config_check(&t, e, sizeof e) < 0)
					continue;
				pd_layout l;
				if (chakra__pd_layout(&t, &l, e, sizeof e) < 0)
					continue;
				if (*n == cap) {
					size_t nc = cap ? cap * 2 : 32;
					chakra_gpt_layout_result *nv = chakra_realloc(v, nc * sizeof *nv);
					if (!nv) {
						rc = chakra__pd_fail(err, errlen, CHAKRA_ENOMEM, "out of memory");
						goto fail;
					}
					v = nv;
					cap = nc;
				}
				chakra_gpt_layout_result *r = &v[*n];
				memset(r, 0, sizeof *r);
				r->tp = tp;
				r->pp = pp;
				r->dp = dp;
				r->micro_batch = (uint32_t)mb;
				r->interleave = 1;
				rc = chakra_gpt_predict(&t, gpu, net, opts, &r->prediction, err, errlen);
				if (rc < 0)
					goto fail;
				(*n)++;
			}
		}
	}
	if (*n == 0) {
		rc = chakra__pd_fail(err, errlen, CHAKRA_EINVAL, "no valid layout of this model on %u "
		                     "GPUs (layers %u, heads %u, global batch %llu)", gpus, c->layers,
		                     c->heads, (unsigned long long)c->global_batch);
		goto fail;
	}
	qsort(v, *n, sizeof *v, cmp_layout);
	*out = v;
	return 0;
fail:
	chakra_free(v);
	*n = 0;
	return rc;
}
