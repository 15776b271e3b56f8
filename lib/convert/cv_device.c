/* SPDX-License-Identifier: Apache-2.0 */
/* The device side of a Kineto trace, and the CPU side when there is no ET:
 *
 * - CPU threads: events of one thread are nested by time (a child starts
 *   inside its parent; ends are clamped to the parent's). Without an ET
 *   (mode A) every top-level cpu_op becomes nodes cut at the runtime calls
 *   that matter (launches of device work in the window, host
 *   synchronisation): pieces of the op between calls, and the calls
 *   themselves, so each node is a span of the thread and consecutive nodes
 *   tile it. With an ET (mode B) a runtime call belongs to the host op its
 *   enclosing cpu_ops are linked to.
 * - Device ops (kernels, memcpys, memsets) become nodes on their stream,
 *   each depending on its launch (data) and on the previous op of the stream
 *   (ctrl); NCCL kernels are the collectives.
 * - Synchronisation: host waits (device/stream/event synchronize, blocking
 *   copies) depend on the device ops they wait for; cudaStreamWaitEvent
 *   makes the first op launched onto the waiting stream depend on the op
 *   the event recorded. From cuda_sync rows when the trace has them, else
 *   inferred (docs/convert.md says how).
 *
 * Launches are matched by correlation id, not by flows.
 *
 * This file runs the steps over the pass's state (cv_dev, cv.h); each
 * step has its file: cv_dev_index.c (1. threads, correlations, nesting),
 * cv_dev_ops.c (2. device ops), cv_dev_cpu.c (3a. mode A CPU nodes),
 * cv_dev_linked.c (3b. mode B), cv_dev_nodes.c (4. device nodes),
 * cv_dev_sync.c (5. synchronisation), cv_dev_flows.c (6. fwdbwd flows);
 * cv_dev_rtkind.c names the runtime calls, cv_dev_sort.c sorts. */
#include <string.h>

#include "cv.h"

int chakra__cv_dev_build(cv_kin *k, cv_graph *g, const cv_dev_opts *o, chakra_convert_summary *s,
                         cv_err *err)
{
	cv_dev d;
	memset(&d, 0, sizeof d);
	d.k = k;
	d.g = g;
	d.o = o;
	d.s = s;
	d.err = err;
	d.file = err->file;
	d.n = k->n;
	size_t n = k->n + 1;
	d.thr = chakra_malloc(n * sizeof *d.thr);
	d.par = chakra_malloc(n * sizeof *d.par);
	d.top = chakra_malloc(n * sizeof *d.top);
	d.end = chakra_malloc(n * sizeof *d.end);
	d.launch = chakra_malloc(n * sizeof *d.launch);
	d.node = chakra_malloc(n * sizeof *d.node);
	d.anchor = chakra_malloc(n * sizeof *d.anchor);
	d.rtkind = chakra_calloc(n, 1);
	d.inwin = chakra_calloc(n, 1);
	d.lkey = chakra_malloc(n * sizeof *d.lkey);
	d.lastrec = chakra_malloc(n * sizeof *d.lastrec);
	int rc;
	if (!d.thr || !d.par || !d.top || !d.end || !d.launch || !d.node || !d.anchor || !d.rtkind ||
	    !d.inwin || !d.lkey || !d.lastrec) {
		rc = cv_dev_nomem(&d);
		goto out;
	}
	/* process groups the trace describes (distributedInfo.pg_config) */
	if (k->pg_config) {
		cv_pg *pgs = NULL;
		size_t npg = 0, pgcap = 0;
		const char *txt = cv_str(&k->strs, k->pg_config);
		rc = chakra__cv_pg_parse(&k->strs, txt, strlen(txt), &pgs, &npg, &pgcap);
		for (size_t i = 0; i < npg && rc == 0; i++) {
			uint32_t nm = chakra__cv_intern(&g->strs, cv_str(&k->strs, pgs[i].name),
			                                cv_strlen(&k->strs, pgs[i].name));
			uint32_t ds = chakra__cv_intern(&g->strs, cv_str(&k->strs, pgs[i].desc),
			                                cv_strlen(&k->strs, pgs[i].desc));
			uint32_t be = chakra__cv_intern(&g->strs, cv_str(&k->strs, pgs[i].backend),
			                                cv_strlen(&k->strs, pgs[i].backend));
			cv_where w = { d.file, NULL, -1, "distributedInfo.pg_config" };
			if (nm == CV_NONE || ds == CV_NONE || be == CV_NONE ||
			    chakra__cv_graph_pg(g, nm, ds, be, pgs[i].size, pgs[i].ranks, pgs[i].n_ranks, 0,
			                        0, d.err, &w) < 0)
				rc = -1;
		}
		for (size_t i = 0; i < npg; i++)
			chakra_free(pgs[i].ranks);
		chakra_free(pgs);
		if (rc < 0) {
			rc = cv_dev_nomem(&d);
			goto out;
		}
	}
	if ((rc = chakra__cv_dev_index_events(&d)) < 0 || (rc = chakra__cv_dev_index_device(&d)) < 0)
		goto out;
	if (o->link)
		chakra__cv_dev_anchor_linked(&d);
	else if ((rc = chakra__cv_dev_cpu_nodes(&d)) < 0)
		goto out;
	if ((rc = chakra__cv_dev_device_nodes(&d)) < 0 || (rc = chakra__cv_dev_host_syncs(&d)) < 0 ||
	    (rc = chakra__cv_dev_stream_waits(&d)) < 0 ||
	    (rc = chakra__cv_dev_flow_edges(&d)) < 0)
		goto out;
out:
	for (size_t i = 0; i < d.nst; i++)
		chakra_free(d.st[i].ops);
	for (size_t i = 0; i < d.nth; i++) {
		chakra_free(d.th[i].ev);
		chakra_free(d.th[i].launch);
		chakra_free(d.th[i].gn);
	}
	chakra_free(d.st), chakra_free(d.th);
	chakra_free(d.thr), chakra_free(d.par), chakra_free(d.top), chakra_free(d.end);
	chakra_free(d.launch), chakra_free(d.node);
	chakra_free(d.anchor), chakra_free(d.rtkind), chakra_free(d.inwin), chakra_free(d.lkey);
	chakra_free(d.next_cpu);
	chakra_free(d.lastrec);
	chakra__cv_map_free(&d.rt_corr);
	chakra__cv_pmap_free(&d.thmap);
	chakra__cv_pmap_free(&d.stmap);
	chakra__cv_map_free(&d.sync_corr);
	return rc;
}
