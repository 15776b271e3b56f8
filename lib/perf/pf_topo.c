/* SPDX-License-Identifier: Apache-2.0 */
/* The order events are evaluated in: the modules' one Kahn's order
 * (lib/graph/topo.h, ready events first in, first out) over the in-edges
 * within one iteration; a cycle is a deadlock, named by a few of its ops. */
#include <stdio.h>
#include <string.h>

#include "pf_impl.h"
#include "../graph/topo.h"

static int cycle_error(chakra_perf *r, const uint32_t *indeg)
{
	/* A blocked event always has a blocked predecessor: walking back
	 * nev steps lands on the cycle; then name a few of its ops. */
	uint32_t ev = PF_NONE;
	for (size_t i = 0; i < r->nev && ev == PF_NONE; i++)
		if (indeg[i])
			ev = (uint32_t)i;
	char msg[700] = "";
	size_t len = 0;
	int named = 0;
	uint32_t last = PF_NONE;
	for (size_t steps = 0; ev != PF_NONE && steps < r->nev + 16; steps++) {
		uint32_t next = PF_NONE;
		for (uint32_t i = r->in_first[ev]; i < r->in_first[ev + 1]; i++)
			if (!r->in[i].cross && indeg[r->in[i].src]) {
				next = r->in[i].src;
				break;
			}
		ev = next;
		if (steps >= r->nev && ev != PF_NONE && ev < 2 * r->nops && ev / 2 != last &&
		    named < 4) {
			char a[200];
			last = ev / 2;
			len += (size_t)snprintf(msg + len, sizeof msg - len, "%s%s", len ? " <- " : "",
			                        chakra__pf_opname(r, ev / 2, a, sizeof a));
			named++;
		}
	}
	return chakra__pf_fail(r, CHAKRA_ECYCLE, "dependency cycle (a deadlock: e.g. collectives "
	                       "issued in different orders on different ranks): %s", msg);
}

int chakra__pf_topo_order(chakra_perf *r)
{
	size_t nev = r->nev, nin = r->in_first[nev];
	/* The in-edges as the shared order takes them; an edge from the
	 * previous iteration does not order this one. */
	uint32_t *src = chakra_malloc((nin ? nin : 1) * sizeof *src);
	uint8_t *skip = chakra_malloc(nin ? nin : 1);
	uint32_t *indeg = chakra_malloc((nev ? nev : 1) * sizeof *indeg);
	chakra_free(r->topo);
	r->topo = chakra_malloc((nev ? nev : 1) * sizeof *r->topo);
	int rc = 0;
	if (!src || !skip || !indeg || !r->topo) {
		rc = chakra__pf_fail(r, CHAKRA_ENOMEM, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < nin; i++) {
		src[i] = r->in[i].src;
		skip[i] = r->in[i].cross;
	}
	chakra__topo t;
	memset(&t, 0, sizeof t);
	t.n = nev;
	t.in_off = r->in_first;
	t.in_src = src;
	t.skip = skip;
	t.ready = CHAKRA__TOPO_FIFO;
	t.cycle = CHAKRA__TOPO_REPORT;
	t.order = r->topo;
	t.indeg = indeg;
	rc = chakra__topo_order(&t);
	if (rc == CHAKRA_ECYCLE)
		rc = cycle_error(r, indeg);
	else if (rc < 0)
		rc = chakra__pf_fail(r, CHAKRA_ENOMEM, "out of memory");
done:
	chakra_free(src);
	chakra_free(skip);
	chakra_free(indeg);
	return rc;
}
