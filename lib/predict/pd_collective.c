/* SPDX-License-Identifier: Apache-2.0 */
/* One collective, simulated by lib/sim on the network of the dimensions it
 * spans: the collective model's answer (chakra_collective_predict) and the
 * reduced simulation's stand-in for a collective (pd_run.c). Also the
 * growing byte buffer the in-memory workloads are written into. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chakra/attrs.h"
#include "pd_impl.h"

#define BAD(...) chakra__pd_fail(err, errlen, CHAKRA_EINVAL, __VA_ARGS__)

int chakra__pd_mb_write(void *data, const void *buf, size_t len)
{
	pd_membuf *m = data;
	if (m->n + len > m->cap) {
		size_t cap = m->cap ? m->cap : 4096;
		while (cap < m->n + len)
			cap *= 2;
		unsigned char *p = chakra_realloc(m->p, cap);
		if (!p)
			return CHAKRA_ENOMEM;
		m->p = p;
		m->cap = cap;
	}
	memcpy(m->p + m->n, buf, len);
	m->n += len;
	return 0;
}

static int write_et(pd_membuf *m, chakra_builder *b)
{
	chakra_writer *w = NULL;
	int rc = chakra_writer_open_cb(&w, chakra__pd_mb_write, m, NULL);
	if (rc == 0)
		rc = chakra_writer_write_metadata(w, "0.0.4", NULL);
	if (rc == 0 && b)
		rc = chakra_writer_write_node(w, b);
	if (rc == 0)
		rc = chakra_writer_finish(w);
	chakra_writer_close(w);
	return rc;
}

int chakra__pd_sim_collective(const chakra_sim_network *sn, int type, uint64_t size, int pair,
                              uint64_t *ns, char *err, size_t errlen)
{
	uint32_t n = sn->npus;
	pd_membuf node = { NULL, 0, 0 }, empty = { NULL, 0, 0 };
	chakra_builder *b = chakra_builder_new();
	chakra_feeder **fs = chakra_calloc(n ? n : 1, sizeof *fs);
	chakra_sim *sim = NULL;
	chakra_sim_groups gs = { NULL, 0 };
	chakra_sim_group g1;
	uint32_t members[2] = { 0, n - 1 };
	char gname[2] = "1";
	chakra_sim_system sys;
	chakra__pd_sim_system(&sys);
	int rc = 0;
	if (!b || !fs) {
		rc = CHAKRA_ENOMEM;
		goto out;
	}
	chakra_builder_set_id(b, 0);
	chakra_builder_set_name(b, "collective", (size_t)-1);
	chakra_builder_set_type(b, CHAKRA_COMM_COLL_NODE);
	chakra_builder_attr_int(b, CHAKRA_ATTR_NAME_IS_CPU_OP, CHAKRA_ATTR_BOOL, 0);
	chakra_builder_attr_int(b, CHAKRA_ATTR_NAME_COMM_TYPE, CHAKRA_ATTR_INT64, type);
	chakra_builder_attr_uint(b, CHAKRA_ATTR_NAME_COMM_SIZE, CHAKRA_ATTR_INT64, size);
	if (pair)
		chakra_builder_attr_string(b, CHAKRA_ATTR_NAME_PG_NAME, CHAKRA_ATTR_STRING, "1", 1);
	rc = write_et(&node, b);
	if (rc == 0 && pair) {
		/* only the first and the last NPU take part */
		rc = write_et(&empty, NULL);
		g1.name = gname;
		g1.ranks = members;
		g1.n = 2;
		gs.g = &g1;
		gs.n = 1;
	}
	if (rc < 0)
		goto out;
	chakra_feeder_options fo = CHAKRA_FEEDER_OPTIONS_INIT;
	for (uint32_t r = 0; r < n && rc == 0; r++) {
		const pd_membuf *m = !pair || r == 0 || r == n - 1 ? &node : &empty;
		rc = chakra_feeder_open_buffer(&fs[r], m->p, m->n, &fo);
	}
	if (rc < 0)
		goto out;
	chakra_sim_options so = CHAKRA_SIM_OPTIONS_INIT;
	so.groups = pair ? &gs : NULL;
	rc = chakra_sim_new(&sim, sn, &sys, &so);
	if (rc == 0)
		rc = chakra_sim_run(sim, fs, n);
	if (rc == 0)
		*ns = chakra_sim_finish(sim);
	else if (rc != CHAKRA_ENOMEM)
		chakra__pd_fail(err, errlen, rc, "simulating a collective: %s",
		                sim ? chakra_sim_errmsg(sim) : chakra_strerror(rc));
out:
	if (rc == CHAKRA_ENOMEM)
		chakra__pd_fail(err, errlen, rc, "out of memory");
	chakra_sim_free(sim);
	for (uint32_t r = 0; fs && r < n; r++)
		chakra_feeder_close(fs[r]);
	chakra_free(fs);
	chakra_builder_free(b);
	chakra_free(node.p);
	chakra_free(empty.p);
	return rc;
}

int chakra_collective_predict(const chakra_cluster_net *net, chakra_collective_op op,
                              uint32_t gpus, uint64_t bytes, double *time_us, char *err,
                              size_t errlen)
{
	if (!net || !time_us)
		return BAD("chakra_collective_predict: NULL argument");
	if (op > CHAKRA_OP_ALL_TO_ALL)
		return BAD("unknown collective %d", (int)op);
	if (gpus < 1 || gpus > (1u << 24))
		return BAD("gpus %u: 1 to %u", gpus, 1u << 24);
	if (bytes > (1ull << 62))
		return BAD("%llu bytes: too large", (unsigned long long)bytes);
	*time_us = 0;
	if (gpus == 1)
		return 0;
	uint32_t g = net->gpus_per_node ? net->gpus_per_node : 8;
	/* the GPUs as the layouts place them: a node's share, then nodes */
	pd_layout l;
	memset(&l, 0, sizeof l);
	l.g = g;
	if (gpus <= g) {
		l.ndims = 1;
		l.size[0] = gpus;
	} else {
		if (gpus % g)
			return BAD("%u GPUs do not fill nodes of %u", gpus, g);
		l.ndims = 2;
		l.size[0] = g;
		l.size[1] = gpus / g;
		l.inter[1] = 1;
	}
	chakra_sim_network sn;
	chakra__pd_sim_network(&l, net, &sn);
	int rc = chakra_sim_network_check(&sn, err, errlen);
	if (rc < 0)
		return rc;
	static const int types[] = { CHAKRA_ALL_REDUCE, CHAKRA_ALL_GATHER, CHAKRA_REDUCE_SCATTER,
		                     CHAKRA_ALL_TO_ALL };
	/* ASTRA-sim's comm_size is what each member puts in: an all-gather's
	 * output / gpus */
	uint64_t size = op == CHAKRA_OP_ALL_GATHER ? bytes / gpus : bytes;
	uint64_t ns;
	rc = chakra__pd_sim_collective(&sn, types[op], size, 0, &ns, err, errlen);
	if (rc < 0)
		return rc;
	*time_us = (double)(ns + (uint64_t)(net->launch_ns + 0.5)) * 1e-3;
	return 0;
}
