/* SPDX-License-Identifier: Apache-2.0 */
/* Every PyTorch ET and Kineto trace in tests/data converts (alone and in the
 * same-run / same-program pairs); the output is read back and its node,
 * type and edge counts are pinned, with the facts docs/convert.md promises:
 * ids numbered dependencies-first (every dependency has a smaller id),
 * collectives with their type and size, kernels attached to host ops,
 * launch / stream / synchronisation edges where the traces show them.
 *   test_convert small|large   (large: the ResNet-50 and MLP traces)
 * CONVERT_RECORD=1 prints the measured values in the table's format. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef CHAKRA_EXPERIMENTAL
#define CHAKRA_EXPERIMENTAL
#endif
#include "chakra/chakra.h"
#include "chakra/experimental/convert.h"
#include "check.h"

typedef struct stats {
	uint64_t nodes, by_type[8], data, ctrl;
	uint64_t cpu, gpu, timed;
	uint64_t coll_by_type[10], comm_bytes;
	uint64_t launch_edges;   /* cpu -> gpu data */
	uint64_t wait_edges;     /* gpu -> cpu data (host waits) */
	uint64_t cross_edges;    /* gpu -> gpu data, different streams */
	uint64_t order_bad;      /* dependencies on ids not smaller */
	uint64_t meta_nodes_pg;  /* METADATA nodes naming a group */
	uint64_t xthread;        /* cpu -> cpu, different threads */
	uint64_t sync_deps;      /* entries of sync_deps lists */
	uint64_t sync_bad;       /* ... naming a node that is not a device op, or on a
	                            node without `sync` */
	int64_t window_tid;      /* metadata, -1 if absent */
} stats;

typedef struct want {
	const char *name;
	int large;
	const char *et, *kineto;  /* under tests/data; et NULL: Kineto alone */
	int64_t step;             /* --step, -1 */
	/* pinned */
	uint64_t nodes, comp, coll, meta, data, ctrl, gpu;
	uint64_t launch_edges, wait_edges, cross_edges;
	uint64_t coll_ar, coll_ag, coll_bc, comm_bytes;
	/* linking: kernels attached per mille (at least), or 0 */
	unsigned min_linked_pm;
	const char *link_method;
	/* dependencies across CPU threads (fwdbwd flows, idle-gap waits),
	 * sync_deps entries, the window's thread (-1: none) */
	uint64_t xthread, sync_deps;
	int64_t window_tid;
} want;

#define PT "data/pytorch/"
#define KI "data/kineto/"
static const want wants[] = {
	/* name, large, et, kineto, step,
	 * nodes, comp, coll, meta, data, ctrl, gpu, launch, wait, cross,
	 * allreduce, allgather, broadcast, comm bytes, linked per mille, method,
	 * cross-thread, sync_deps, window tid */
	{ "allgather-et", 0, PT "chakra-allgather/1.0.2-chakra.0.0.4.json", NULL, -1,
	  91, 80, 10, 1, 100, 38, 0, 0, 0, 0, 0, 10, 0, 40, 0, NULL, 0, 0, -1 },
	{ "simple-add-et", 0, PT "hta-simple-add/benchmark_simple_add_et.json.gz", NULL, -1,
	  10, 10, 0, 0, 8, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, NULL, 0, 0, -1 },
	{ "simple-add-pair", 0, PT "hta-simple-add/benchmark_simple_add_et.json.gz",
	  PT "hta-simple-add/benchmark_simple_add_trace.json.gz", -1,
	  14, 14, 0, 0, 12, 8, 4, 4, 0, 0, 0, 0, 0, 0, 1000, "external id", 0, 0, -1 },
	{ "simple-add-kineto", 0, NULL, PT "hta-simple-add/benchmark_simple_add_trace.json.gz", -1,
	  27, 27, 0, 0, 7, 25, 4, 4, 3, 0, 0, 0, 0, 0, 0, NULL, 0, 3, -1 },
	{ "alexnet-kineto", 0, NULL, KI "hta-critical-path/alexnet/"
	  "benchmark_result_2869224_1695835535_trace.json.gz", -1,
	  448, 448, 0, 0, 125, 445, 98, 98, 21, 6, 0, 0, 0, 0, 0, NULL, 0, 21, -1 },
	{ "simple-add-cp-kineto", 0, NULL, KI "hta-critical-path/simple_add/"
	  "benchmark_result_493459_1694039959_trace.json.gz", -1,
	  478, 478, 0, 0, 125, 475, 98, 98, 21, 6, 0, 0, 0, 0, 0, NULL, 0, 21, -1 },
	{ "event-sync-kineto", 0, NULL, KI "hta-critical-path/cuda_event_sync/event_sync_trace.json.gz",
	  -1, 22, 22, 0, 0, 8, 20, 5, 5, 3, 0, 0, 0, 0, 0, 0, NULL, 0, 3, -1 },
	{ "event-sync-step", 0, NULL, KI "hta-critical-path/cuda_event_sync/event_sync_trace.json.gz",
	  100, 22, 22, 0, 0, 8, 20, 5, 5, 3, 0, 0, 0, 0, 0, 0, NULL, 0, 3, 948300 },
	{ "event-sync-ms-kineto", 0, NULL, KI "hta-critical-path/cuda_event_sync_multi_stream/"
	  "event_sync_trace.json.gz", -1,
	  22, 22, 0, 0, 10, 18, 6, 6, 3, 1, 0, 0, 0, 0, 0, NULL, 0, 3, -1 },
	{ "linear-et", 1, PT "param-linear/linear_et.json.gz", NULL, -1,
	  320, 320, 0, 0, 402, 146, 0, 0, 0, 0, 0, 0, 0, 0, 0, NULL, 127, 0, -1 },
	{ "linear-pair", 1, PT "param-linear/linear_et.json.gz", PT "param-linear/linear_kineto.json.gz",
	  -1, 581, 581, 0, 0, 663, 406, 261, 261, 0, 0, 0, 0, 0, 0, 950, "name order", 127, 0, -1 },
	{ "linear-kineto", 1, NULL, PT "param-linear/linear_kineto.json.gz", -1,
	  38867, 38867, 0, 0, 10357, 38944, 10356, 10356, 1, 0, 0, 0, 0, 0, 0, NULL, 80, 1, -1 },
	{ "resnet-et", 1, PT "param-resnet50-ddp/resnet_1gpu_et.json.gz", NULL, -1,
	  3712, 3690, 21, 1, 7155, 2370, 0, 0, 0, 0, 15, 0, 6, 307323096, 0, NULL, 1295, 0, -1 },
	{ "resnet-pair", 1, PT "param-resnet50-ddp/resnet_1gpu_et.json.gz",
	  KI "hta-nccl/nccl_data.json.gz", -1,
	  7486, 7464, 21, 1, 11301, 6145, 3774, 3774, 0, 42, 15, 0, 6, 307323096, 950,
	  "record-function id", 1628, 0, -1 },
	{ "nccl-kineto", 1, NULL, KI "hta-nccl/nccl_data.json.gz", -1,
	  14540, 14518, 21, 1, 4377, 14541, 3774, 3774, 18, 42, 15, 0, 6, 307323096, 0, NULL, 549, 18, -1 },
	{ "nccl-step5", 1, NULL, KI "hta-nccl/nccl_data.json.gz", 5,
	  4847, 4839, 7, 1, 1453, 4844, 1258, 1258, 0, 14, 5, 0, 2, 102441032, 0, NULL, 183, 0, 2910249 },
};

static int read_stats(const char *path, stats *s)
{
	memset(s, 0, sizeof *s);
	chakra_reader *r = NULL;
	if (chakra_reader_open(&r, path, NULL) < 0) {
		fprintf(stderr, "%s\n", chakra_reader_errmsg(r));
		chakra_reader_close(r);
		return -1;
	}
	/* first pass: per id, whether a CPU op and its stream */
	size_t cap = 1 << 16;
	int8_t *cpu = calloc(cap, 1);
	int64_t *stream = calloc(cap, sizeof *stream);
	int64_t *tid = calloc(cap, sizeof *tid);
	{
		int64_t wt = -1;
		const chakra_attr *a = chakra_metadata_attr_find(chakra_reader_metadata(r), "window_tid");
		s->window_tid = a && chakra_attr_int(a, &wt) == 0 ? wt : -1;
	}
	const chakra_node *n;
	int rc;
	while ((rc = chakra_reader_next(r, &n)) > 0) {
		uint64_t id = chakra_node_id(n);
		while (id >= cap) {
			cpu = realloc(cpu, cap * 2);
			stream = realloc(stream, cap * 2 * sizeof *stream);
			tid = realloc(tid, cap * 2 * sizeof *tid);
			memset(cpu + cap, 0, cap);
			memset(stream + cap, 0, cap * sizeof *stream);
			memset(tid + cap, 0, cap * sizeof *tid);
			cap *= 2;
		}
		int c = 1;
		if (chakra_node_is_cpu_op(n, &c) == 0)
			cpu[id] = (int8_t)(c ? 1 : 2);
		int64_t st = -1;
		chakra_node_get_int(n, "stream", &st);
		stream[id] = st;
		int64_t t = -1;
		chakra_node_get_int(n, "tid", &t);
		tid[id] = t;
	}
	chakra_reader_close(r);
	if (rc < 0)
		return -1;
	if (chakra_reader_open(&r, path, NULL) < 0) {
		chakra_reader_close(r);
		return -1;
	}
	while ((rc = chakra_reader_next(r, &n)) > 0) {
		uint64_t id = chakra_node_id(n);
		int t = chakra_node_type_of(n);
		s->nodes++;
		if (t >= 0 && t < 8)
			s->by_type[t]++;
		s->data += chakra_node_data_dep_count(n);
		s->ctrl += chakra_node_ctrl_dep_count(n);
		if (cpu[id] == 1)
			s->cpu++;
		else if (cpu[id] == 2)
			s->gpu++;
		uint64_t ns;
		if (chakra_node_get_uint(n, "duration_nanos", &ns) == 0)
			s->timed++;
		if (t == CHAKRA_COMM_COLL_NODE) {
			int64_t ct = -1;
			uint64_t sz = 0;
			if (chakra_node_comm_type(n, &ct) == 0 && ct >= 0 && ct < 10)
				s->coll_by_type[ct]++;
			chakra_node_comm_size(n, &sz);
			s->comm_bytes += sz;
		}
		if (t == CHAKRA_METADATA_NODE && chakra_node_attr_find(n, "pg_name"))
			s->meta_nodes_pg++;
		const uint64_t *d = chakra_node_data_deps(n);
		for (size_t i = 0; i < chakra_node_data_dep_count(n); i++) {
			if (d[i] >= id || d[i] >= cap)
				s->order_bad++;
			else if (cpu[d[i]] == 1 && cpu[id] == 2)
				s->launch_edges++;
			else if (cpu[d[i]] == 2 && cpu[id] == 1)
				s->wait_edges++;
			else if (cpu[d[i]] == 2 && cpu[id] == 2 && stream[d[i]] != stream[id])
				s->cross_edges++;
			else if (cpu[d[i]] == 1 && cpu[id] == 1 && tid[d[i]] != tid[id])
				s->xthread++;
		}
		const uint64_t *c = chakra_node_ctrl_deps(n);
		for (size_t i = 0; i < chakra_node_ctrl_dep_count(n); i++)
			if (c[i] >= id)
				s->order_bad++;
			else if (cpu[c[i]] == 1 && cpu[id] == 1 && tid[c[i]] != tid[id])
				s->xthread++;
		/* sync_deps: device ops this blocking call returns after */
		const chakra_attr *sd = chakra_node_attr_find(n, "sync_deps");
		for (size_t i = 0; sd && i < chakra_attr_list_len(sd); i++) {
			int64_t v = -1;
			s->sync_deps++;
			if (chakra_attr_list_int(sd, i, &v) || v < 0 || (uint64_t)v >= cap ||
			    cpu[v] != 2 || !chakra_node_attr_find(n, "sync"))
				s->sync_bad++;
		}
	}
	chakra_reader_close(r);
	free(cpu);
	free(stream);
	free(tid);
	return rc < 0 ? -1 : 0;
}

static int have(const char *rel)
{
	return access(shared_path(rel), R_OK) == 0;
}

static void run(const want *w, const char *dir)
{
	char out[512], etp[4200] = "", kp[4200] = "";
	snprintf(out, sizeof out, "%s/%s.et", dir, w->name);
	if (w->et)
		snprintf(etp, sizeof etp, "%s", shared_path(w->et));
	if (w->kineto)
		snprintf(kp, sizeof kp, "%s", shared_path(w->kineto));
	chakra_convert_options o = CHAKRA_CONVERT_OPTIONS_INIT;
	o.step = w->step;
	chakra_convert_result res;
	int rc;
	if (w->et) {
		o.kineto_path = w->kineto ? kp : NULL;
		rc = chakra_convert_pytorch(etp, out, &o, &res);
	} else {
		rc = chakra_convert_kineto(kp, out, &o, &res);
	}
	CHECK_MSG(rc == 0, "%s: %s", w->name, res.errmsg);
	if (rc)
		return;
	stats s;
	CHECK_MSG(read_stats(out, &s) == 0, "%s: cannot read back", w->name);
	const chakra_convert_summary *m = &res.summary;
	/* the summary says what was written */
	CHECK_EQ_U(m->nodes, s.nodes);
	CHECK_EQ_U(m->data_edges, s.data);
	CHECK_EQ_U(m->ctrl_edges, s.ctrl);
	for (int t = 0; t < 8; t++)
		CHECK_EQ_U(m->nodes_by_type[t], s.by_type[t]);
	CHECK_MSG(s.order_bad == 0, "%s: %" PRIu64 " dependencies not on smaller ids", w->name,
	          s.order_bad);
	CHECK_MSG(s.sync_bad == 0, "%s: %" PRIu64 " sync_deps entries not naming a device op from a "
	          "node with `sync`", w->name, s.sync_bad);
	CHECK_EQ_U(m->dropped_edges, 0);
	CHECK_EQ_U(s.by_type[CHAKRA_METADATA_NODE], s.meta_nodes_pg);
	if (w->kineto)
		CHECK_MSG(s.gpu == 0 || s.timed >= s.gpu, "%s: GPU nodes without duration_nanos", w->name);
	uint64_t coll = s.by_type[CHAKRA_COMM_COLL_NODE];
	if (getenv("CONVERT_RECORD")) {
		printf("  %s: %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64
		       ", %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64
		       ", %" PRIu64 ", %" PRIu64 "; linked %" PRIu64 "/%" PRIu64 " (%s), host ops %" PRIu64
		       " with kernels %" PRIu64 "; xthread %" PRIu64 ", sync_deps %" PRIu64
		       ", window tid %lld\n",
		       w->name, s.nodes, s.by_type[CHAKRA_COMP_NODE], coll,
		       s.by_type[CHAKRA_METADATA_NODE], s.data, s.ctrl, s.gpu, s.launch_edges,
		       s.wait_edges, s.cross_edges, s.coll_by_type[0], s.coll_by_type[2],
		       s.coll_by_type[5], s.comm_bytes, m->kernels_linked, m->kernels, m->link_method,
		       m->host_ops, m->host_ops_with_kernels, s.xthread, s.sync_deps,
		       (long long)s.window_tid);
		return;
	}
	if (w->nodes) {
		CHECK_EQ_U(s.nodes, w->nodes);
		CHECK_EQ_U(s.by_type[CHAKRA_COMP_NODE], w->comp);
		CHECK_EQ_U(s.data, w->data);
		CHECK_EQ_U(s.ctrl, w->ctrl);
		CHECK_EQ_U(s.gpu, w->gpu);
		CHECK_EQ_U(s.launch_edges, w->launch_edges);
		CHECK_EQ_U(s.wait_edges, w->wait_edges);
		CHECK_EQ_U(s.cross_edges, w->cross_edges);
		CHECK_EQ_U(s.xthread, w->xthread);
		CHECK_EQ_U(s.sync_deps, w->sync_deps);
		CHECK_MSG(s.window_tid == w->window_tid, "%s: window tid %lld", w->name,
		          (long long)s.window_tid);
	}
	CHECK_EQ_U(coll, w->coll);
	CHECK_EQ_U(s.by_type[CHAKRA_METADATA_NODE], w->meta);
	CHECK_EQ_U(s.coll_by_type[0], w->coll_ar);
	CHECK_EQ_U(s.coll_by_type[2], w->coll_ag);
	CHECK_EQ_U(s.coll_by_type[5], w->coll_bc);
	if (w->comm_bytes)
		CHECK_EQ_U(s.comm_bytes, w->comm_bytes);
	if (w->min_linked_pm) {
		CHECK_MSG(m->kernels && m->kernels_linked * 1000 >= m->kernels * w->min_linked_pm,
		          "%s: %" PRIu64 " of %" PRIu64 " kernels attached", w->name, m->kernels_linked,
		          m->kernels);
		CHECK_MSG(!strcmp(m->link_method, w->link_method), "%s: linked by %s", w->name,
		          m->link_method);
	}
	unlink(out);
}

int main(int argc, char **argv)
{
	int large = argc > 1 && !strcmp(argv[1], "large");
	char dir[] = "/tmp/chakra-convert-XXXXXX";
	if (!mkdtemp(dir))
		return 1;
	int ran = 0;
	for (size_t i = 0; i < sizeof wants / sizeof *wants; i++) {
		const want *w = &wants[i];
		if (w->large != large)
			continue;
		if ((w->et && !have(w->et)) || (w->kineto && !have(w->kineto))) {
			fprintf(stderr, "skip %s: input missing\n", w->name);
			continue;
		}
		run(w, dir);
		ran++;
	}
	rmdir(dir);
	if (!ran)
		return 77;
	return check_done();
}
