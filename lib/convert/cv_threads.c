/* SPDX-License-Identifier: Apache-2.0 */
/* Cross-thread waits the trace does not record: a CPU thread that sat idle
 * for at least CV_THREAD_GAP was waiting for another thread of the process
 * (the main thread in loss.backward() while the autograd thread runs the
 * backward pass, the autograd thread until the main thread hands it the
 * loss). The node after the gap gets a control dependency on the node of
 * another thread that ended last inside the gap: the point where the
 * thread resumed, in recorded order. The same rule as Chakra's trace linker
 * (> 1 ms) and as the replay model's fallback for ETs without these edges
 * (docs/convert.md, docs/replay.md). Kineto's fwdbwd flows, where present,
 * are written separately (cv_device.c) as data dependencies. */
#include <stdlib.h>

#include "cv.h"

#define CV_THREAD_GAP 1000000 /* ns */

typedef struct tref {
	int64_t key1, key2;      /* thread order: (tid, start); ends: (end, -) */
	uint32_t node;
} tref;

static int cmp_tref(const void *a, const void *b)
{
	const tref *x = a, *y = b;
	if (x->key1 != y->key1)
		return x->key1 < y->key1 ? -1 : 1;
	if (x->key2 != y->key2)
		return x->key2 < y->key2 ? -1 : 1;
	return x->node < y->node ? -1 : x->node > y->node;
}

int chakra__cv_thread_waits(cv_graph *g, int64_t w0, chakra_convert_summary *s)
{
	size_t m = 0;
	for (size_t i = 0; i < g->n; i++)
		m += g->nodes[i].is_cpu && g->nodes[i].has_time && g->nodes[i].tid != CV_UNSET;
	if (!m)
		return 0;
	tref *th = chakra_malloc(m * sizeof *th), *ends = chakra_malloc(m * sizeof *ends);
	size_t *other = chakra_malloc(m * sizeof *other);
	if (!th || !ends || !other) {
		chakra_free(th), chakra_free(ends), chakra_free(other);
		return -1;
	}
	/* without a window: the iteration starts with the first timed node */
	int64_t lo = INT64_MAX;
	m = 0;
	for (size_t i = 0; i < g->n; i++) {
		const cv_node *n = &g->nodes[i];
		if (n->has_time && n->start_ns < lo)
			lo = n->start_ns;
		if (!n->is_cpu || !n->has_time || n->tid == CV_UNSET)
			continue;
		th[m] = (tref){ n->tid, n->start_ns, (uint32_t)i };
		ends[m] = (tref){ cv_node_end(n), 0, (uint32_t)i };
		m++;
	}
	if (w0 == CV_UNSET)
		w0 = lo;
	qsort(th, m, sizeof *th, cmp_tref);
	qsort(ends, m, sizeof *ends, cmp_tref);
	/* other[p]: 1 + the last end before p on another thread than p's (0:
	 * none), so finding the last end of another thread than b's is one
	 * step, not a walk back over b's own ends (one thread with 200,000
	 * gapped ops took 21 s) */
	for (size_t p = 0; p < m; p++) {
		int64_t tp = g->nodes[ends[p].node].tid;
		other[p] = !p ? 0 : g->nodes[ends[p - 1].node].tid != tp ? p : other[p - 1];
	}
	int rc = 0;
	for (size_t j = 0; j < m && !rc; j++) {
		const cv_node *b = &g->nodes[th[j].node];
		int first = !j || th[j - 1].key1 != th[j].key1;
		int64_t from = first ? w0 : cv_node_end(&g->nodes[th[j - 1].node]), gap;
		if (__builtin_sub_overflow(b->start_ns, from, &gap) || gap < CV_THREAD_GAP)
			continue;
		/* the last end at or before b's start, on another thread */
		size_t l = 0, h = m;
		while (l < h) {
			size_t mid = l + (h - l) / 2;
			if (ends[mid].key1 <= b->start_ns)
				l = mid + 1;
			else
				h = mid;
		}
		if (l && g->nodes[ends[l - 1].node].tid == b->tid)
			l = other[l - 1];
		if (!l || ends[l - 1].key1 <= from)
			continue;
		rc = chakra__cv_graph_edge(g, ends[l - 1].node, th[j].node, 1);
		s->thread_wait_edges++;
	}
	chakra_free(th), chakra_free(ends), chakra_free(other);
	return rc;
}
