/* SPDX-License-Identifier: Apache-2.0 */
/* Collective times from the network model: one collective per member NPU
 * run through the simulator module (lib/sim's public API), remembered by
 * (type, size, group). */
#include <stdlib.h>
#include <string.h>

#include "chakra/attrs.h"
#include "chakra/feeder.h"
#include "chakra/writer.h"
#include "pf_impl.h"

struct pf_netc {
	int type;
	uint64_t size, ghash;
	size_t gn;
	int64_t t;
};

typedef struct membuf {
	unsigned char *p;
	size_t n, cap;
} membuf;

static int mem_write(void *data, const void *buf, size_t len)
{
	membuf *m = data;
	if (!PF_RESERVE(m->p, m->cap, m->n + len))
		return -1;
	memcpy(m->p + m->n, buf, len);
	m->n += len;
	return 0;
}

/* One NPU's workload: the collective (members) or nothing. */
static int write_et(membuf *m, int member, int type, uint64_t size, const char *pg)
{
	chakra_writer *w = NULL;
	chakra_builder *b = chakra_builder_new();
	int rc = b ? chakra_writer_open_cb(&w, mem_write, m, NULL) : CHAKRA_ENOMEM;
	if (!rc)
		rc = chakra_writer_write_metadata(w, "0.0.4", NULL);
	if (!rc && member) {
		chakra_builder_set_id(b, 0);
		chakra_builder_set_type(b, CHAKRA_COMM_COLL_NODE);
		rc = chakra_builder_set_name(b, "collective", (size_t)-1);
		if (!rc)
			rc = chakra_builder_attr_int(b, CHAKRA_ATTR_NAME_IS_CPU_OP, CHAKRA_ATTR_BOOL, 0);
		if (!rc)
			rc = chakra_builder_attr_int(b, CHAKRA_ATTR_NAME_COMM_TYPE, CHAKRA_ATTR_INT64, type);
		if (!rc)
			rc = chakra_builder_attr_uint(b, CHAKRA_ATTR_NAME_COMM_SIZE, CHAKRA_ATTR_INT64, size);
		if (!rc && pg)
			rc = chakra_builder_attr_string(b, CHAKRA_ATTR_NAME_PG_NAME, CHAKRA_ATTR_STRING, pg,
			                                (size_t)-1);
		if (!rc)
			rc = chakra_writer_write_node(w, b);
	}
	if (!rc)
		rc = chakra_writer_finish(w);
	chakra_writer_close(w);
	chakra_builder_free(b);
	return rc;
}

int chakra__pf_net_time(chakra_perf *r, const chakra_perf_options *o, int comm_type,
                        uint64_t size, const uint32_t *ranks, size_t n, int64_t *t)
{
	const chakra_sim_network *net = o->network;
	uint32_t npus = net->npus;
	uint64_t h = 0;
	for (size_t i = 0; i < n; i++) {
		if (ranks[i] >= npus)
			return chakra__pf_fail(r, CHAKRA_EINVAL, "a %s collective spans rank %u, but the "
			                       "network has %u NPUs", chakra_comm_type_name(comm_type),
			                       ranks[i], npus);
		h = chakra__pf_hash(h ^ ranks[i]);
	}
	for (size_t i = 0; i < r->nnetc; i++) {
		const struct pf_netc *c = &r->netc[i];
		if (c->type == comm_type && c->size == size && c->ghash == h && c->gn == n) {
			*t = c->t;
			return 0;
		}
	}
	if (n < 2) {
		*t = 0; /* nothing to exchange */
		goto remember;
	}
	/* a group that is every NPU runs without a group (the whole network) */
	int all = n == npus;
	uint8_t *in = chakra_calloc(npus, 1);
	membuf *bufs = chakra_calloc(npus, sizeof *bufs);
	chakra_feeder **f = chakra_calloc(npus, sizeof *f);
	chakra_sim *s = NULL;
	int rc = 0;
	if (!in || !bufs || !f) {
		rc = chakra__pf_fail(r, CHAKRA_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		in[ranks[i]] = 1;
	for (uint32_t i = 0; i < npus && all; i++)
		all = in[i];
	for (uint32_t i = 0; i < npus; i++)
		if (write_et(&bufs[i], in[i], comm_type, size, all ? NULL : "g") < 0) {
			rc = chakra__pf_fail(r, CHAKRA_ENOMEM, "out of memory");
			goto out;
		}
	for (uint32_t i = 0; i < npus; i++)
		if ((rc = chakra_feeder_open_buffer(&f[i], bufs[i].p, bufs[i].n, NULL)) < 0) {
			rc = chakra__pf_fail(r, rc, "network model: %s", chakra_feeder_errmsg(f[i]));
			goto out;
		}
	chakra_sim_group g = { (char *)"g", (uint32_t *)ranks, n };
	chakra_sim_groups gs = { &g, 1 };
	chakra_sim_options so = CHAKRA_SIM_OPTIONS_INIT;
	so.model = o->network_model;
	so.groups = all ? NULL : &gs;
	rc = chakra_sim_new(&s, net, o->system, &so);
	if (!rc)
		rc = chakra_sim_run(s, f, npus);
	if (rc < 0) {
		rc = chakra__pf_fail(r, rc, "network model: %s collective of %llu bytes: %s",
		                     chakra_comm_type_name(comm_type), (unsigned long long)size,
		                     s ? chakra_sim_errmsg(s) : chakra_strerror(rc));
		goto out;
	}
	*t = (int64_t)chakra_sim_finish(s);
out:
	chakra_sim_free(s);
	for (uint32_t i = 0; f && i < npus; i++)
		chakra_feeder_close(f[i]);
	for (uint32_t i = 0; bufs && i < npus; i++)
		chakra_free(bufs[i].p);
	chakra_free(bufs);
	chakra_free(f);
	chakra_free(in);
	if (rc < 0)
		return rc;
remember:;
	struct pf_netc *c = PF_PUSH(r->netc, r->nnetc, r->netc_cap);
	if (c) {
		c->type = comm_type;
		c->size = size;
		c->ghash = h;
		c->gn = n;
		c->t = *t;
	}
	return 0;
}

void chakra__pf_net_free(chakra_perf *r)
{
	chakra_free(r->netc);
	r->netc = NULL;
	r->nnetc = r->netc_cap = 0;
}
