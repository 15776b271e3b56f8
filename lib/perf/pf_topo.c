/* SPDX-License-Identifier: Apache-2.0 */
/* The order events are evaluated in: Kahn's algorithm over the in-edges
 * within one iteration; a cycle is a deadlock, named by a few of its ops. */
#include <stdio.h>
#include <string.h>

#include "pf_impl.h"

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
	size_t nev = r->nev;
	uint32_t *indeg = chakra_calloc(nev ? nev : 1, sizeof *indeg);
	uint32_t *ofirst = chakra_calloc(nev + 1, sizeof *ofirst);
	uint32_t *out = chakra_malloc((r->nin ? r->nin : 1) * sizeof *out);
	chakra_free(r->topo);
	r->topo = chakra_malloc((nev ? nev : 1) * sizeof *r->topo);
	int rc = 0;
	if (!indeg || !ofirst || !out || !r->topo) {
		rc = chakra__pf_fail(r, CHAKRA_ENOMEM, "out of memory");
		goto done;
	}
	for (size_t d = 0; d < nev; d++)
		for (uint32_t i = r->in_first[d]; i < r->in_first[d + 1]; i++)
			if (!r->in[i].cross) {
				indeg[d]++;
				ofirst[r->in[i].src + 1]++;
			}
	for (size_t i = 0; i < nev; i++)
		ofirst[i + 1] += ofirst[i];
	{
		uint32_t *fill = chakra_malloc((nev ? nev : 1) * sizeof *fill);
		if (!fill) {
			rc = chakra__pf_fail(r, CHAKRA_ENOMEM, "out of memory");
			goto done;
		}
		memcpy(fill, ofirst, nev * sizeof *fill);
		for (size_t d = 0; d < nev; d++)
			for (uint32_t i = r->in_first[d]; i < r->in_first[d + 1]; i++)
				if (!r->in[i].cross)
					out[fill[r->in[i].src]++] = (uint32_t)d;
		chakra_free(fill);
	}
	size_t head = 0, tail = 0;
	for (size_t i = 0; i < nev; i++)
		if (!indeg[i])
			r->topo[tail++] = (uint32_t)i;
	while (head < tail) {
		uint32_t e = r->topo[head++];
		for (uint32_t i = ofirst[e]; i < ofirst[e + 1]; i++)
			if (!--indeg[out[i]])
				r->topo[tail++] = out[i];
	}
	if (tail != nev)
		rc = cycle_error(r, indeg);
done:
	chakra_free(indeg);
	chakra_free(ofirst);
	chakra_free(out);
	return rc;
}
