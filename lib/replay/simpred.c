/* SPDX-License-Identifier: Apache-2.0 */
/* The simulator's prediction for the workload being replayed, from the
 * simulator module (lib/sim) in this process: every NPU's finish and
 * compute time, and how long each communication node took (its span on the
 * communication lane), so the report can put simulated times beside the
 * measured ones per operation. */
#include <stdlib.h>
#include <string.h>

#include "replay_impl.h"

typedef struct pair {
	uint64_t id, ns;
} pair;

typedef struct acc {
	chakra_replay_sim *s;
	pair **ev;
	size_t *cap;
	int oom;
} acc;

static void on_span(void *data, uint32_t npu, int lane, const chakra_node *node, uint64_t start,
                    uint64_t end)
{
	acc *a = data;
	chakra_replay_sim *s = a->s;
	if (lane != 1 || npu >= s->npus || a->oom)
		return;
	if (s->nev[npu] == a->cap[npu]) {
		size_t cap = a->cap[npu] ? a->cap[npu] * 2 : 64;
		pair *p = chakra_realloc(a->ev[npu], cap * sizeof *p);
		if (!p) {
			a->oom = 1;
			return;
		}
		a->ev[npu] = p;
		a->cap[npu] = cap;
	}
	pair *p = &a->ev[npu][s->nev[npu]++];
	p->id = chakra_node_id(node);
	p->ns = end - start;
}

static int cmp_pair(const void *a, const void *b)
{
	const pair *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

void chakra_replay_sim_free(chakra_replay_sim *s)
{
	if (!s)
		return;
	for (uint32_t i = 0; s->ev_id && i < s->npus; i++) {
		chakra_free(s->ev_id[i]);
		chakra_free(s->ev_ns[i]);
	}
	chakra_free(s->ev_id);
	chakra_free(s->ev_ns);
	chakra_free(s->nev);
	chakra_free(s->npu_finish);
	chakra_free(s->npu_compute);
	chakra_free(s->npu_exposed);
	memset(s, 0, sizeof *s);
}

int chakra_replay_sim_run(const char *prefix, const chakra_sim_network *net,
                          const chakra_sim_system *sys, const chakra_sim_groups *groups,
                          chakra_deps deps, chakra_replay_sim *out, char *err, size_t errlen)
{
	if (!prefix || !net || !sys || !out)
		return CHAKRA_EINVAL;
	memset(out, 0, sizeof *out);
	uint32_t n = net->npus;
	acc a = { out, NULL, NULL, 0 };
	out->npus = n;
	out->npu_finish = chakra_calloc(n ? n : 1, sizeof *out->npu_finish);
	out->npu_compute = chakra_calloc(n ? n : 1, sizeof *out->npu_compute);
	out->npu_exposed = chakra_calloc(n ? n : 1, sizeof *out->npu_exposed);
	out->nev = chakra_calloc(n ? n : 1, sizeof *out->nev);
	out->ev_id = chakra_calloc(n ? n : 1, sizeof *out->ev_id);
	out->ev_ns = chakra_calloc(n ? n : 1, sizeof *out->ev_ns);
	a.ev = chakra_calloc(n ? n : 1, sizeof *a.ev);
	a.cap = chakra_calloc(n ? n : 1, sizeof *a.cap);
	int rc = 0;
	chakra_sim *sim = NULL;
	if (!out->npu_finish || !out->npu_compute || !out->npu_exposed || !out->nev || !out->ev_id ||
	    !out->ev_ns || !a.ev || !a.cap) {
		rc = chakra__replay_fail(err, errlen, CHAKRA_ENOMEM, "out of memory");
		goto out;
	}
	chakra_sim_options o = CHAKRA_SIM_OPTIONS_INIT;
	o.groups = groups;
	o.deps = deps;
	o.data = &a;
	o.span_cb = on_span;
	rc = chakra_sim_new(&sim, net, sys, &o);
	if (rc == 0)
		rc = chakra_sim_run_prefix(sim, prefix);
	if (rc < 0) {
		chakra__replay_fail(err, errlen, rc, "simulation: %s",
		                    sim ? chakra_sim_errmsg(sim) : chakra_strerror(rc));
		goto out;
	}
	if (a.oom) {
		rc = chakra__replay_fail(err, errlen, CHAKRA_ENOMEM, "out of memory");
		goto out;
	}
	out->finish = chakra_sim_finish(sim);
	for (uint32_t u = 0; u < n; u++) {
		const chakra_sim_npu_result *r = chakra_sim_npu(sim, u);
		out->npu_finish[u] = r ? r->finish : 0;
		out->npu_compute[u] = r ? r->compute : 0;
		out->npu_exposed[u] = r && r->finish > r->compute ? r->finish - r->compute : 0;
		qsort(a.ev[u], out->nev[u], sizeof *a.ev[u], cmp_pair);
		out->ev_id[u] = chakra_malloc((out->nev[u] ? out->nev[u] : 1) * sizeof **out->ev_id);
		out->ev_ns[u] = chakra_malloc((out->nev[u] ? out->nev[u] : 1) * sizeof **out->ev_ns);
		if (!out->ev_id[u] || !out->ev_ns[u]) {
			rc = chakra__replay_fail(err, errlen, CHAKRA_ENOMEM, "out of memory");
			goto out;
		}
		for (size_t i = 0; i < out->nev[u]; i++) {
			out->ev_id[u][i] = a.ev[u][i].id;
			out->ev_ns[u][i] = a.ev[u][i].ns;
		}
	}
out:
	chakra_sim_free(sim);
	for (uint32_t u = 0; a.ev && u < n; u++)
		chakra_free(a.ev[u]);
	chakra_free(a.ev);
	chakra_free(a.cap);
	if (rc < 0)
		chakra_replay_sim_free(out);
	return rc;
}

int64_t chakra_replay_sim_node_ns(const chakra_replay_sim *s, uint32_t npu, uint64_t id)
{
	if (!s)
		return -1;
	if (npu >= s->npus)
		return -1;
	size_t lo = 0, hi = s->nev[npu];
	const uint64_t *ids = s->ev_id[npu];
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->nev[npu] && ids[lo] == id ? (int64_t)s->ev_ns[npu][lo] : -1;
}
