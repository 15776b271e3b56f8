/* SPDX-License-Identifier: Apache-2.0 */
/* Linked ETs (docs/convert.md, "Linked files"): for each same-run or
 * same-program pair in tests/data, the ET linked with its Kineto trace
 * (chakra_convert_link) converts to the very bytes that converting the ET
 * with the Kineto trace gives, and holds the device ops as nodes; a linked
 * file as Chakra's chakra_trace_link writes it (its keys only) converts with
 * its kernels as GPU nodes on their streams below their host ops; the
 * errors name the file and the node. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef CHAKRA_EXPERIMENTAL
#define CHAKRA_EXPERIMENTAL
#endif
#include "chakra/chakra.h"
#include "chakra/experimental/convert.h"
#include "check.h"

typedef struct mbuf {
	char *p;
	size_t n, cap;
} mbuf;

static int mbuf_write(void *data, const void *buf, size_t len)
{
	mbuf *m = data;
	if (m->n + len > m->cap) {
		size_t c = m->cap ? m->cap : 1 << 16;
		while (c < m->n + len)
			c *= 2;
		char *p = realloc(m->p, c);
		if (!p)
			return -1;
		m->p = p;
		m->cap = c;
	}
	memcpy(m->p + m->n, buf, len);
	m->n += len;
	return 0;
}

/* Convert (et or et_buf) [+ kineto] to memory; 0 or the error. */
static int conv(const char *et, const mbuf *et_mem, const char *kin, mbuf *out,
                chakra_convert_result *r)
{
	chakra_convert_options o = CHAKRA_CONVERT_OPTIONS_INIT;
	o.kineto_path = kin;
	o.out_cb = mbuf_write;
	o.out_data = out;
	if (et_mem) {
		o.et_buf = et_mem->p;
		o.et_len = et_mem->n;
	}
	out->n = 0;
	return chakra_convert_pytorch(et, "out.et", &o, r);
}

static uint64_t count_nodes(const mbuf *m, uint64_t *gpu)
{
	chakra_reader *rd;
	uint64_t n = 0;
	*gpu = 0;
	if (chakra_reader_open_buffer(&rd, m->p, m->n, NULL) < 0)
		return 0;
	const chakra_node *nd;
	while (chakra_reader_next(rd, &nd) > 0) {
		int cpu = 1;
		chakra_node_is_cpu_op(nd, &cpu);
		*gpu += !cpu;
		n++;
	}
	chakra_reader_close(rd);
	return n;
}

static void pair(const char *et_rel, const char *kin_rel, uint64_t host_nodes)
{
	char et[4096], kin[4096];
	snprintf(et, sizeof et, "%s", shared_path(et_rel));
	snprintf(kin, sizeof kin, "%s", shared_path(kin_rel));
	mbuf linked = { 0 }, a = { 0 }, b = { 0 }, alone = { 0 };
	chakra_convert_result r;
	chakra_convert_options o = CHAKRA_CONVERT_OPTIONS_INIT;
	o.kineto_path = kin;
	o.out_cb = mbuf_write;
	o.out_data = &linked;
	CHECK_MSG(chakra_convert_link(et, "linked.json", &o, &r) == 0, "%s", r.errmsg);
	CHECK_MSG(conv("linked.json", &linked, NULL, &a, &r) == 0, "%s: %s", et_rel, r.errmsg);
	CHECK_MSG(!strcmp(r.summary.link_method, "a linked ET"), "%s", r.summary.link_method);
	CHECK_MSG(conv(et, NULL, kin, &b, &r) == 0, "%s", r.errmsg);
	/* the same conversion, to the byte */
	CHECK_MSG(a.n == b.n && !memcmp(a.p, b.p, a.n), "%s: linked %zu bytes, direct %zu", et_rel,
	          a.n, b.n);
	/* the linked file holds the kernels: more nodes than the ET alone */
	uint64_t gpu = 0, n = count_nodes(&a, &gpu), g0 = 0;
	CHECK_MSG(conv(et, NULL, NULL, &alone, &r) == 0, "%s", r.errmsg);
	uint64_t n0 = count_nodes(&alone, &g0);
	CHECK_EQ_U(n0, host_nodes);
	CHECK_MSG(n > n0 && gpu > 0 && g0 == 0, "%s: %llu nodes (%llu device ops) vs %llu alone",
	          et_rel, (unsigned long long)n, (unsigned long long)gpu, (unsigned long long)n0);
	/* a linked ET is not linked again, nor given a Kineto trace */
	mbuf x = { 0 };
	o.et_buf = linked.p;
	o.et_len = linked.n;
	o.out_data = &x;
	CHECK(chakra_convert_link("linked.json", "x.json", &o, &r) == CHAKRA_EINVAL);
	CHECK_MSG(strstr(r.errmsg, "linked.json: a linked ET") && strstr(r.errmsg, "no linking"),
	          "%s", r.errmsg);
	CHECK(conv("linked.json", &linked, kin, &x, &r) == CHAKRA_EINVAL);
	CHECK_MSG(strstr(r.errmsg, "without a Kineto trace"), "%s", r.errmsg);
	free(linked.p), free(a.p), free(b.p), free(alone.p), free(x.p);
}

/* A file as chakra_trace_link writes it: ids renumbered, the device ops
 * right after their host op (ctrl_deps), ts / inclusive_dur in us. */
static const char upstream[] =
	"{\"schema\":\"1.0.2-chakra.0.0.4\",\"pid\":7,\"time\":\"t\",\"start_ts\":1,\"nodes\":["
	"{\"id\":0,\"name\":\"[pytorch|profiler|execution_trace|process]\",\"ctrl_deps\":0,"
	"\"inputs\":{\"values\":[],\"shapes\":[],\"types\":[]},"
	"\"outputs\":{\"values\":[],\"shapes\":[],\"types\":[]},\"attrs\":[]},"
	"{\"id\":1,\"name\":\"[pytorch|profiler|execution_trace|thread]\",\"ctrl_deps\":0,"
	"\"inputs\":{\"values\":[],\"shapes\":[],\"types\":[]},"
	"\"outputs\":{\"values\":[],\"shapes\":[],\"types\":[]},"
	"\"attrs\":[{\"name\":\"tid\",\"type\":\"uint64\",\"value\":1}]},"
	"{\"id\":2,\"name\":\"aten::mm\",\"ctrl_deps\":1,"
	"\"inputs\":{\"values\":[],\"shapes\":[],\"types\":[]},"
	"\"outputs\":{\"values\":[],\"shapes\":[],\"types\":[]},"
	"\"attrs\":[{\"name\":\"tid\",\"type\":\"uint64\",\"value\":1},"
	"{\"name\":\"op_schema\",\"type\":\"string\",\"value\":\"aten::mm(Tensor a) -> Tensor\"}],"
	"\"ts\":100,\"inclusive_dur\":20,\"exclusive_dur\":20,\"inter_thread_dep\":null},"
	"{\"id\":3,\"name\":\"sm80_gemm\",\"ctrl_deps\":2,"
	"\"inputs\":{\"values\":[],\"shapes\":[],\"types\":[]},"
	"\"outputs\":{\"values\":[],\"shapes\":[],\"types\":[]},"
	"\"attrs\":[{\"name\":\"op_schema\",\"type\":\"string\",\"value\":\"aten::mm(Tensor a) -> Tensor\"}],"
	"\"cat\":\"kernel\",\"ph\":\"X\",\"ts\":110.5,\"inclusive_dur\":30,\"exclusive_dur\":30,"
	"\"stream\":7},"
	"{\"id\":4,\"name\":\"aten::add\",\"ctrl_deps\":1,"
	"\"inputs\":{\"values\":[],\"shapes\":[],\"types\":[]},"
	"\"outputs\":{\"values\":[],\"shapes\":[],\"types\":[]},"
	"\"attrs\":[{\"name\":\"tid\",\"type\":\"uint64\",\"value\":1},"
	"{\"name\":\"op_schema\",\"type\":\"string\",\"value\":\"aten::add(Tensor a) -> Tensor\"}],"
	"\"ts\":130,\"inclusive_dur\":10,\"exclusive_dur\":10,\"sync_dep\":[3]},"
	"{\"id\":5,\"name\":\"elementwise\",\"ctrl_deps\":4,"
	"\"inputs\":{\"values\":[],\"shapes\":[],\"types\":[]},"
	"\"outputs\":{\"values\":[],\"shapes\":[],\"types\":[]},\"attrs\":[],"
	"\"cat\":\"kernel\",\"ph\":\"X\",\"ts\":145,\"inclusive_dur\":5,\"exclusive_dur\":5,"
	"\"stream\":7},"
	"{\"id\":6,\"name\":\"ncclDevKernel_AllReduce_Sum_f32_RING_LL\",\"ctrl_deps\":4,"
	"\"inputs\":{\"values\":[],\"shapes\":[],\"types\":[]},"
	"\"outputs\":{\"values\":[],\"shapes\":[],\"types\":[]},\"attrs\":[],"
	"\"cat\":\"kernel\",\"ph\":\"X\",\"ts\":140,\"inclusive_dur\":50,\"exclusive_dur\":50,"
	"\"stream\":20,\"pg_name\":\"0\"}"
	"],\"finish_ts\":2}";

static void upstream_file(void)
{
	mbuf in = { (char *)upstream, sizeof upstream - 1, 0 }, out = { 0 };
	chakra_convert_result r;
	CHECK_MSG(conv("up.json", &in, NULL, &out, &r) == 0, "%s", r.errmsg);
	CHECK_EQ_U(r.summary.host_ops, 2);
	CHECK_EQ_U(r.summary.kernels, 3);
	CHECK_EQ_U(r.summary.kernels_linked, 3);
	chakra_reader *rd;
	CHECK(chakra_reader_open_buffer(&rd, out.p, out.n, NULL) == 0);
	const chakra_node *n;
	uint64_t mm = UINT64_MAX, add = UINT64_MAX, gemm = UINT64_MAX;
	int seen = 0;
	while (chakra_reader_next(rd, &n) > 0) {
		const char *nm = chakra_node_name(n, NULL);
		int cpu = 1;
		int64_t stream = -1, start = -1;
		chakra_node_is_cpu_op(n, &cpu);
		chakra_node_get_int(n, "stream", &stream);
		chakra_node_get_int(n, "start_time_nanos", &start);
		const uint64_t *dd = chakra_node_data_deps(n), *cd = chakra_node_ctrl_deps(n);
		size_t nd = chakra_node_data_dep_count(n), nc = chakra_node_ctrl_dep_count(n);
		if (!strcmp(nm, "aten::mm")) {
			mm = chakra_node_id(n);
			CHECK(cpu && start == 100000);
		} else if (!strcmp(nm, "sm80_gemm")) {
			gemm = chakra_node_id(n);
			/* launched by aten::mm, on stream 7, at 110.5 us */
			CHECK(!cpu && stream == 7 && start == 110500);
			CHECK(nd == 1 && dd[0] == mm);
			seen++;
		} else if (!strcmp(nm, "aten::add")) {
			add = chakra_node_id(n);
			/* starts after the gemm (sync_dep), after aten::mm (program order) */
			CHECK(nd == 1 && dd[0] == gemm);
			CHECK(nc == 1 && cd[0] == mm);
			seen++;
		} else if (!strcmp(nm, "elementwise")) {
			/* launched by aten::add; after the gemm on stream 7 */
			CHECK(!cpu && stream == 7 && nd == 1 && dd[0] == add && nc == 1 && cd[0] == gemm);
			seen++;
		} else if (!strncmp(nm, "ncclDevKernel_AllReduce", 23)) {
			int64_t ct = -1;
			const char *pg;
			size_t pl;
			CHECK(chakra_node_type_of(n) == CHAKRA_COMM_COLL_NODE);
			CHECK(chakra_node_comm_type(n, &ct) == 0 && ct == CHAKRA_ALL_REDUCE);
			CHECK(chakra_node_pg_name(n, &pg, &pl) == 0 && pl == 1 && pg[0] == '0');
			CHECK(!cpu && stream == 20 && nd == 1 && dd[0] == add && nc == 0);
			seen++;
		}
	}
	CHECK_EQ_U(seen, 4);
	chakra_reader_close(rd);
	free(out.p);
}

static void bad(const char *json, const char *want)
{
	mbuf in = { (char *)json, strlen(json), 0 }, out = { 0 };
	chakra_convert_result r;
	CHECK(conv("bad.json", &in, NULL, &out, &r) < 0);
	CHECK_MSG(strstr(r.errmsg, want), "wanted '%s', got '%s'", want, r.errmsg);
	free(out.p);
}

#define HEAD "{\"schema\":\"1.0.2-chakra.0.0.4\",\"nodes\":[" \
	"{\"id\":1,\"name\":\"[pytorch|profiler|execution_trace|thread]\",\"ctrl_deps\":1}," \
	"{\"id\":2,\"name\":\"aten::mm\",\"ctrl_deps\":1,\"attrs\":[{\"name\":\"op_schema\"," \
	"\"type\":\"string\",\"value\":\"s\"}],\"ts\":1,\"inclusive_dur\":2"

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "large")) {
		/* the ResNet-50 ET with HTA's Kineto trace of the same program */
		need_data("data/pytorch/param-resnet50-ddp");
		need_data("data/kineto/hta-nccl");
		pair("data/pytorch/param-resnet50-ddp/resnet_1gpu_et.json.gz",
		     "data/kineto/hta-nccl/nccl_data.json.gz", 3712);
		return check_done();
	}
	need_data("data/pytorch/hta-simple-add");
	need_data("data/pytorch/param-dlrm");
	pair("data/pytorch/hta-simple-add/benchmark_simple_add_et.json.gz",
	     "data/pytorch/hta-simple-add/benchmark_simple_add_trace.json.gz", 10);
	pair("data/pytorch/param-dlrm/dlrm_eg_0.json.gz",
	     "data/pytorch/param-dlrm/worker0_step_12.1694128201545.pt.trace.json.gz", 651);
	upstream_file();
	bad(HEAD "},{\"id\":3,\"name\":\"k\",\"ctrl_deps\":9,\"cat\":\"kernel\",\"ts\":2}]}",
	    "bad.json: node 2: id 3 ('k'): its parent 9 never appears");
	bad(HEAD ",\"sync_dep\":[5]}]}",
	    "bad.json: node 1: id 2 ('aten::mm'): its sync_dep names 5, which is no device op in the file");
	bad(HEAD ",\"inclusive_dur\":-3}]}", "'inclusive_dur' is not a time in microseconds");
	bad(HEAD "},{\"id\":3,\"name\":\"k\",\"ctrl_deps\":2,\"cat\":\"kernel\",\"chakra_type\":12}]}",
	    "'chakra_type' is not a node type");
	bad(HEAD ",\"sync_dep\":[\"x\"]}]}", "an id list holds a non-integer");
	return check_done();
}
