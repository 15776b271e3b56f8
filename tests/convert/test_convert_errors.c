/* SPDX-License-Identifier: Apache-2.0 */
/* Hostile and malformed inputs to both converters: each gives a negative
 * code and a message naming the input, the node/event (index) and byte
 * where it can, and what is wrong; none writes an output. Also: real-file
 * quirks that must NOT be errors (dangling flows, string pids, floats with
 * ns digits, ids above 2^53, Context Sync on stream 4294967295). */
#include <stddef.h>
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
#include <zlib.h>

static char out[256];

/* An output in memory through out_cb; fails its fail_at-th call if set. */
typedef struct {
	char buf[1 << 16];
	size_t len;
	int fail_at;
} membuf;

static int mem_write(void *data, const void *p, size_t n)
{
	membuf *m = data;
	if (m->fail_at && --m->fail_at == 0)
		return -1;
	if (n > sizeof m->buf - m->len)
		return -1;
	memcpy(m->buf + m->len, p, n);
	m->len += n;
	return 0;
}

static int conv(int kineto, const char *json, size_t len, chakra_convert_result *r)
{
	chakra_convert_options o = CHAKRA_CONVERT_OPTIONS_INIT;
	o.overwrite = 1;
	if (kineto) {
		o.kineto_buf = json;
		o.kineto_len = len;
		return chakra_convert_kineto("k.json", out, &o, r);
	}
	o.et_buf = json;
	o.et_len = len;
	return chakra_convert_pytorch("et.json", out, &o, r);
}

static void bad(int kineto, const char *json, const char *want1, const char *want2)
{
	chakra_convert_result r;
	unlink(out);
	int rc = conv(kineto, json, strlen(json), &r);
	CHECK_MSG(rc < 0, "accepted: %.80s", json);
	CHECK_MSG(strstr(r.errmsg, want1), "message '%s' lacks '%s'", r.errmsg, want1);
	if (want2)
		CHECK_MSG(strstr(r.errmsg, want2), "message '%s' lacks '%s'", r.errmsg, want2);
	CHECK_MSG(access(out, F_OK) != 0, "output left behind after: %s", r.errmsg);
}

static void good(int kineto, const char *json, uint64_t nodes)
{
	chakra_convert_result r;
	int rc = conv(kineto, json, strlen(json), &r);
	CHECK_MSG(rc == 0, "rejected: %s", r.errmsg);
	if (nodes != (uint64_t)-1)
		CHECK_MSG(r.summary.nodes == nodes, "%llu nodes, want %llu: %.60s",
		          (unsigned long long)r.summary.nodes, (unsigned long long)nodes, json);
}

/* One gzip member of text at a level (0: stored) into out; its size. */
static size_t gz_member(const char *text, size_t len, int level, unsigned char *out, size_t cap)
{
	z_stream z;
	memset(&z, 0, sizeof z);
	if (deflateInit2(&z, level, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return 0;
	z.next_in = (unsigned char *)text;
	z.avail_in = (uInt)len;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	deflate(&z, Z_FINISH);
	size_t n = cap - z.avail_out;
	deflateEnd(&z);
	return n;
}

#define ET_HEAD "{\"schema\":\"1.0.1\",\"pid\":1,\"time\":\"t\",\"start_ts\":1,\"nodes\":["
#define ROOTS \
	"{\"name\":\"[pytorch|profiler|execution_trace|process]\",\"id\":1,\"parent\":1,\"tid\":0}," \
	"{\"name\":\"[pytorch|profiler|execution_trace|thread]\",\"id\":2,\"parent\":1,\"tid\":1}"
#define OP(id, parent, name) \
	",{\"name\":\"" name "\",\"id\":" #id ",\"parent\":" #parent ",\"tid\":1," \
	"\"op_schema\":\"x\",\"inputs\":[],\"outputs\":[]}"
#define K_HEAD "{\"traceEvents\":["

int main(void)
{
	snprintf(out, sizeof out, "/tmp/chakra-convert-err-%d.et", (int)getpid());
	/* ---- PyTorch ET ---- */
	good(0, ET_HEAD ROOTS OP(3, 2, "aten::mm") OP(4, 2, "aten::add") "]}", 2);
	bad(0, "", "et.json", "ends early");
	bad(0, "[]", "not a PyTorch execution trace", NULL);
	bad(0, "{\"schema\":\"1.0.1\"}", "no 'nodes' array", NULL);
	bad(0, "{\"schema\":\"2.0.0\",\"nodes\":[]}", "unsupported schema '2.0.0'", NULL);
	bad(0, ET_HEAD ROOTS OP(3, 2, "aten::mm") ",{\"name\":\"aten::add\",\"id\":4,\"pa",
	    "node 3", "ends early");
	bad(0, ET_HEAD ROOTS ",{\"name\":\"aten::add, \"id\":4}]}", "not valid JSON", "byte");
	bad(0, ET_HEAD ROOTS OP(3, 99, "aten::mm") "]}", "node 2", "parent 99 never appears");
	bad(0, ET_HEAD ROOTS OP(3, 4, "aten::mm") OP(4, 3, "aten::add") "]}", "loops", NULL);
	bad(0, ET_HEAD ROOTS OP(3, 2, "aten::mm") OP(3, 2, "aten::add") "]}", "used twice", NULL);
	bad(0, ET_HEAD ROOTS ",{\"name\":\"x\",\"parent\":2}]}", "node 2", "no 'id'");
	bad(0, ET_HEAD ROOTS ",{\"name\":\"x\",\"id\":\"7\",\"parent\":2}]}", "'id' is not an integer",
	    NULL);
	bad(0, ET_HEAD ROOTS ",{\"name\":\"x\",\"id\":7}]}", "has no parent", NULL);
	bad(0, ET_HEAD ROOTS ",7]}", "node 2", "not a JSON object");
	{
		/* nesting deeper than any real file: a clear error, no recursion */
		size_t depth = 100000;
		char *deep = malloc(depth * 2 + 400);
		size_t n = (size_t)sprintf(deep, ET_HEAD ROOTS ",{\"name\":\"x\",\"id\":3,\"parent\":2,\"inputs\":");
		for (size_t i = 0; i < depth; i++)
			deep[n++] = '[';
		for (size_t i = 0; i < depth; i++)
			deep[n++] = ']';
		strcpy(deep + n, "}]}");
		bad(0, deep, "nested deeper than", "node 2");
		free(deep);
	}
	/* ids above 2^53 stay exact; unknown keys and attrs are ignored */
	good(0, ET_HEAD ROOTS ",{\"name\":\"aten::mm\",\"id\":9007199254740993,\"parent\":2,"
	        "\"tid\":1,\"op_schema\":\"x\",\"unknown\":{\"a\":[1,2]},\"inputs\":[],\"outputs\":[]}]}",
	     1);
	/* a record_param_comms of an unknown collective stays a COMP node, counted */
	{
		chakra_convert_result r;
		const char *j = ET_HEAD ROOTS
			",{\"name\":\"record_param_comms\",\"id\":3,\"parent\":2,\"tid\":1,"
			"\"inputs\":[[[5,6,0,4,4,\"cuda:0\"]],1,[\"0\",\"d\"],0,\"frobnicate\",[],[],0,1,2],"
			"\"input_types\":[\"GenericList[Tensor(float)]\",\"Int\",\"Tuple[String,String]\",\"Int\","
			"\"String\",\"GenericList[]\",\"GenericList[]\",\"Int\",\"Int\",\"Int\"],\"outputs\":[]}]}";
		CHECK(conv(0, j, strlen(j), &r) == 0);
		CHECK_EQ_U(r.summary.unclassified_ops, 1);
		CHECK_EQ_U(r.summary.nodes_by_type[CHAKRA_COMP_NODE], 1);
	}
	/* schema 1.1.1-chakra.1.0.0 (no file of it exists anywhere): strides,
	 * collective attributes on record_param_comms, process groups with
	 * pg_desc; the collective's size comes from in_msg_nelems x dtype */
	{
		chakra_convert_result r;
		const char *j =
			"{\"schema\":\"1.1.1-chakra.1.0.0\",\"pid\":5,\"time\":\"t\",\"start_ts\":1,\"nodes\":["
			"{\"id\":1,\"name\":\"[pytorch|profiler|execution_trace|process]\",\"ctrl_deps\":1,"
			"\"inputs\":{\"values\":[],\"shapes\":[],\"types\":[]},\"outputs\":{\"values\":[],"
			"\"shapes\":[],\"types\":[]},\"attrs\":[{\"name\":\"rf_id\",\"type\":\"uint64\",\"value\":0}]},"
			"{\"id\":2,\"name\":\"[pytorch|profiler|execution_trace|thread]\",\"ctrl_deps\":1,"
			"\"inputs\":{\"values\":[],\"shapes\":[],\"types\":[]},\"outputs\":{\"values\":[],"
			"\"shapes\":[],\"types\":[]},\"attrs\":[{\"name\":\"tid\",\"type\":\"uint64\",\"value\":1}]},"
			"{\"id\":3,\"name\":\"## process_group:init ##\",\"ctrl_deps\":2,"
			"\"inputs\":{\"values\":[\"[{\\\"pg_name\\\": \\\"0\\\", \\\"pg_desc\\\": \\\"default_pg\\\", "
			"\\\"backend_config\\\": \\\"cuda:nccl\\\", \\\"ranks\\\": [], \\\"group_size\\\": 4, "
			"\\\"group_count\\\": 1}]\"],\"shapes\":[[]],\"types\":[\"String\"],\"strides\":[[]]},"
			"\"outputs\":{\"values\":[],\"shapes\":[],\"types\":[]},\"attrs\":[]},"
			"{\"id\":4,\"name\":\"record_param_comms\",\"ctrl_deps\":2,"
			"\"inputs\":{\"values\":[[[7,8,0,1024,2,\"cuda:0\"]],3,[\"0\",\"default_pg\"],0,"
			"\"reduce_scatter_tensor\",[],[],0,1,4],\"shapes\":[[[1024]],[],[[],[]],[],[],[],[],[],[],[]],"
			"\"types\":[\"GenericList[Tensor(c10::BFloat16)]\",\"Int\",\"Tuple[String,String]\",\"Int\","
			"\"String\",\"GenericList[]\",\"GenericList[]\",\"Int\",\"Int\",\"Int\"],"
			"\"strides\":[[[1]],[],[],[],[],[],[],[],[],[]]},"
			"\"outputs\":{\"values\":[],\"shapes\":[],\"types\":[]},\"attrs\":["
			"{\"name\":\"rf_id\",\"type\":\"uint64\",\"value\":9},"
			"{\"name\":\"collective_name\",\"type\":\"string\",\"value\":\"reduce_scatter_tensor\"},"
			"{\"name\":\"dtype\",\"type\":\"string\",\"value\":\"BFloat16\"},"
			"{\"name\":\"in_msg_nelems\",\"type\":\"uint64\",\"value\":4096},"
			"{\"name\":\"out_msg_nelems\",\"type\":\"uint64\",\"value\":1024},"
			"{\"name\":\"pg_name\",\"type\":\"string\",\"value\":\"0\"},"
			"{\"name\":\"pg_size\",\"type\":\"uint64\",\"value\":4},"
			"{\"name\":\"tensor_range\",\"type\":\"string\",\"value\":\"\"}]}]}";
		CHECK_MSG(conv(0, j, strlen(j), &r) == 0, "%s", r.errmsg);
		CHECK_EQ_U(r.summary.nodes_by_type[CHAKRA_COMM_COLL_NODE], 1);
		CHECK_EQ_U(r.summary.nodes_by_type[CHAKRA_METADATA_NODE], 1);
		chakra_reader *rd = NULL;
		const chakra_node *n;
		int seen = 0;
		if (chakra_reader_open(&rd, out, NULL) == 0) {
			while (chakra_reader_next(rd, &n) > 0) {
				int64_t ct = -1, sz = 0;
				uint64_t usz = 0;
				if (chakra_node_type_of(n) == CHAKRA_COMM_COLL_NODE) {
					seen++;
					CHECK(chakra_node_comm_type(n, &ct) == 0 && ct == 7); /* REDUCE_SCATTER */
					CHECK(chakra_node_comm_size(n, &usz) == 0 && usz == 8192);
					const char *pg;
					size_t pl;
					CHECK(chakra_node_pg_name(n, &pg, &pl) == 0 && pl == 1 && pg[0] == '0');
				}
				if (chakra_node_type_of(n) == CHAKRA_METADATA_NODE) {
					seen++;
					CHECK(chakra_node_get_int(n, "pg_size", &sz) == 0 && sz == 4);
				}
			}
		}
		chakra_reader_close(rd);
		CHECK_EQ_U(seen, 2);
	}
	/* ---- Kineto ---- */
	good(1, K_HEAD "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,"
	        "\"ts\":4458676522690.655,\"dur\":156.7774}]}", 1);
	bad(1, "", "k.json", "ends early");
	bad(1, "{\"foo\":1}", "no 'traceEvents' array", NULL);
	bad(1, "{\"traceEvents\":{}}", "'traceEvents' is not an array", NULL);
	bad(1, K_HEAD "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"dur\":3}]}",
	    "event 0", "has no 'ts'");
	bad(1, K_HEAD "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":\"x\","
	           "\"dur\":3}]}",
	    "event 0", "'ts' is not a number");
	bad(1, K_HEAD "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"unterminated, \"pid\":1}]}",
	    "not valid JSON", "event 0");
	bad(1, K_HEAD "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,"
	           "\"dur\":1},\"oops\"]}",
	    "event 1", "not a JSON object");
	{
		size_t depth = 100000;
		char *deep = malloc(depth * 2 + 400);
		size_t n = (size_t)sprintf(deep, K_HEAD "{\"args\":{\"x\":");
		for (size_t i = 0; i < depth; i++)
			deep[n++] = '[';
		for (size_t i = 0; i < depth; i++)
			deep[n++] = ']';
		strcpy(deep + n, "}}]}");
		bad(1, deep, "nested deeper than", "event 0");
		free(deep);
	}
	/* not errors: flows pointing nowhere, string pid/tid spans, a kernel
	 * whose launch is outside the trace, Context Sync on 4294967295 */
	good(1, K_HEAD
	     "{\"ph\":\"f\",\"id\":77,\"cat\":\"ac2g\",\"pid\":1,\"tid\":1,\"ts\":5,\"bp\":\"e\"},"
	     "{\"ph\":\"s\",\"id\":78,\"cat\":\"ac2g\",\"pid\":1,\"tid\":1,\"ts\":5},"
	     "{\"ph\":\"s\",\"cat\":\"ac2g\",\"pid\":1,\"tid\":1,\"ts\":5},"
	     "{\"ph\":\"X\",\"cat\":\"Trace\",\"name\":\"PyTorch Profiler (0)\",\"pid\":\"Spans\","
	     "\"tid\":\"PyTorch Profiler\",\"ts\":1,\"dur\":100},"
	     "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":10,\"dur\":3,"
	     "\"args\":{\"correlation\":5,\"stream\":7}},"
	     "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaDeviceSynchronize\",\"pid\":1,"
	     "\"tid\":1,\"ts\":11,\"dur\":5,\"args\":{\"correlation\":9}},"
	     "{\"ph\":\"X\",\"cat\":\"cuda_sync\",\"name\":\"Context Sync\",\"pid\":0,\"tid\":-1,"
	     "\"ts\":12,\"dur\":2,\"args\":{\"correlation\":9,\"stream\":4294967295}}]}",
	     2);
	{
		chakra_convert_result r;
		/* a trace with nothing to convert is refused, saying what it has */
		const char *j = K_HEAD "{\"ph\":\"f\",\"id\":77,\"cat\":\"ac2g\",\"pid\":1,\"tid\":1,\"ts\":5},"
		                "{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"f\",\"pid\":1,"
		                "\"tid\":1,\"ts\":6,\"dur\":2}]}";
		CHECK(conv(1, j, strlen(j), &r) == CHAKRA_ENOTFOUND);
		CHECK_EQ_U(r.summary.flows_dangling, 1);
		CHECK_MSG(strstr(r.errmsg, "nothing to convert: of its 2 events none is a CPU op") &&
		          strstr(r.errmsg, "other categories: 'python_function'"), "%s", r.errmsg);
	}
	/* a window that does not exist names what there is */
	{
		chakra_convert_options o = CHAKRA_CONVERT_OPTIONS_INIT;
		chakra_convert_result r;
		const char *j = K_HEAD "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#3\","
		                "\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":9}]}";
		o.kineto_buf = j;
		o.kineto_len = strlen(j);
		o.step = 4;
		o.overwrite = 1;
		CHECK(chakra_convert_kineto("k.json", out, &o, &r) < 0);
		CHECK_MSG(strstr(r.errmsg, "no user annotation 'ProfilerStep#4'") &&
		          strstr(r.errmsg, "'ProfilerStep#3'"), "%s", r.errmsg);
		/* a window with nothing in it is refused by name */
		o.step = 3;
		CHECK(chakra_convert_kineto("k.json", out, &o, &r) == CHAKRA_ENOTFOUND);
		CHECK_MSG(strstr(r.errmsg, "k.json: event 0: 'ProfilerStep#3' (9.000 us) holds nothing to "
		                           "convert"), "%s", r.errmsg);
		const char *j2 = K_HEAD "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#3\","
		                 "\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":9},"
		                 "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\",\"pid\":1,\"tid\":1,"
		                 "\"ts\":2,\"dur\":3}]}";
		o.kineto_buf = j2;
		o.kineto_len = strlen(j2);
		CHECK_MSG(chakra_convert_kineto("k.json", out, &o, &r) == 0, "%s", r.errmsg);
	}
	/* --to-next: from an occurrence of an annotation (in time order, not
	 * file order) to the next one's start; an op starting there is the
	 * next window's; the window's thread is in the metadata */
	{
#define ITER(ts) "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"iter\",\"pid\":1," \
	"\"tid\":1,\"ts\":" #ts ",\"dur\":3},"
#define CPU(name, ts) "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"" name "\",\"pid\":1," \
	"\"tid\":1,\"ts\":" #ts ",\"dur\":2}"
		const char *j = K_HEAD ITER(40) ITER(10) ITER(70) CPU("a", 12) "," CPU("b", 38) ","
		                CPU("c", 40) "," CPU("d", 72) "]}";
		chakra_convert_options o = CHAKRA_CONVERT_OPTIONS_INIT;
		chakra_convert_result r;
		o.kineto_buf = j;
		o.kineto_len = strlen(j);
		o.overwrite = 1;
		o.annotation = "iter";
		o.to_next = 1;
		CHECK_MSG(chakra_convert_kineto("k.json", out, &o, &r) == 0, "%s", r.errmsg);
		CHECK_EQ_U(r.summary.nodes, 2); /* a, b; not c */
		chakra_reader *rd = NULL;
		int64_t w0 = 0, w1 = 0, tid = 0;
		CHECK(chakra_reader_open(&rd, out, NULL) == 0);
		const chakra_metadata *m = chakra_reader_metadata(rd);
		CHECK(chakra_attr_int(chakra_metadata_attr_find(m, "window_start_nanos"), &w0) == 0);
		CHECK(chakra_attr_int(chakra_metadata_attr_find(m, "window_end_nanos"), &w1) == 0);
		CHECK(chakra_attr_int(chakra_metadata_attr_find(m, "window_tid"), &tid) == 0);
		CHECK_EQ_U(w1 - w0, 30000);
		CHECK_EQ_U(tid, 1);
		chakra_reader_close(rd);
		o.instance = 1;
		CHECK_MSG(chakra_convert_kineto("k.json", out, &o, &r) == 0, "%s", r.errmsg);
		CHECK_EQ_U(r.summary.nodes, 1); /* c */
		o.instance = 2; /* the last: nothing ends it */
		CHECK(chakra_convert_kineto("k.json", out, &o, &r) == CHAKRA_ENOTFOUND);
		CHECK_MSG(strstr(r.errmsg, "occurs 3 time(s): instance 2 has no next occurrence"), "%s",
		          r.errmsg);
		o.annotation = NULL;
		o.instance = 0;
		CHECK(chakra_convert_kineto("k.json", out, &o, &r) == CHAKRA_EINVAL);
		CHECK_MSG(strstr(r.errmsg, "goes with an annotation"), "%s", r.errmsg);
		/* a caller built against version 1 of the options (no to_next):
		 * only its bytes are read (ASan: a heap block of exactly that size) */
		volatile size_t v1 = offsetof(chakra_convert_options, keep_io) + sizeof(int);
		chakra_convert_options *o1 = malloc(v1); /* volatile: gcc would see a short block */
		CHECK(chakra_convert_options_init(o1, 1) == 0);
		o1->kineto_buf = j;
		o1->kineto_len = strlen(j);
		o1->overwrite = 1;
		o1->annotation = "iter";
		CHECK_MSG(chakra_convert_kineto("k.json", out, o1, &r) == 0, "%s", r.errmsg);
		CHECK_EQ_U(r.summary.nodes, 1); /* [10, 13): a */
		free(o1);
	}
	/* cross-thread dependencies: a fwdbwd flow from the forward op to its
	 * backward on the autograd thread (data), and a thread idle >= 1 ms
	 * resuming after the other thread's op (ctrl); a flow whose ends are
	 * not ops is ignored */
	{
		const char *j = K_HEAD
			"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mul\",\"pid\":1,\"tid\":1,"
			"\"ts\":10,\"dur\":5},"
			"{\"ph\":\"s\",\"id\":9,\"cat\":\"fwdbwd\",\"name\":\"fwdbwd\",\"pid\":1,\"tid\":1,"
			"\"ts\":10},"
			"{\"ph\":\"f\",\"id\":9,\"cat\":\"fwdbwd\",\"name\":\"fwdbwd\",\"pid\":1,\"tid\":2,"
			"\"ts\":100,\"bp\":\"e\"},"
			"{\"ph\":\"s\",\"id\":5,\"cat\":\"fwdbwd\",\"name\":\"fwdbwd\",\"pid\":1,\"tid\":1,"
			"\"ts\":3},"
			"{\"ph\":\"f\",\"id\":5,\"cat\":\"fwdbwd\",\"name\":\"fwdbwd\",\"pid\":1,\"tid\":7,"
			"\"ts\":4,\"bp\":\"e\"},"
			"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"MulBackward0\",\"pid\":1,\"tid\":2,"
			"\"ts\":100,\"dur\":5},"
			"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"optimizer\",\"pid\":1,\"tid\":1,"
			"\"ts\":5000,\"dur\":5}]}";
		chakra_convert_result r;
		CHECK_MSG(conv(1, j, strlen(j), &r) == 0, "%s", r.errmsg);
		CHECK_EQ_U(r.summary.flow_edges, 1);
		CHECK_EQ_U(r.summary.thread_wait_edges, 1);
		chakra_reader *rd = NULL;
		const chakra_node *n;
		uint64_t mul = 99, bwd = 99;
		int seen = 0;
		CHECK(chakra_reader_open(&rd, out, NULL) == 0);
		while (chakra_reader_next(rd, &n) > 0) {
			const char *nm = chakra_node_name(n, NULL);
			if (!strcmp(nm, "aten::mul"))
				mul = chakra_node_id(n);
			if (!strcmp(nm, "MulBackward0")) {
				bwd = chakra_node_id(n);
				CHECK(chakra_node_data_dep_count(n) == 1 && chakra_node_data_deps(n)[0] == mul);
				seen++;
			}
			if (!strcmp(nm, "optimizer")) {
				int has = 0;
				for (size_t i = 0; i < chakra_node_ctrl_dep_count(n); i++)
					has |= chakra_node_ctrl_deps(n)[i] == bwd;
				CHECK(has);
				seen++;
			}
		}
		chakra_reader_close(rd);
		CHECK_EQ_U(seen, 2);
	}
	/* options: wrong version, step and annotation together */
	{
		chakra_convert_options o = CHAKRA_CONVERT_OPTIONS_INIT;
		chakra_convert_result r;
		CHECK(chakra_convert_options_init(&o, 999) == CHAKRA_EINVAL);
		o.version = 999;
		CHECK(chakra_convert_kineto("k.json", out, &o, &r) == CHAKRA_EINVAL);
		chakra_convert_options_init(&o, CHAKRA_CONVERT_OPTIONS_VERSION);
		o.step = 1;
		o.annotation = "x";
		CHECK(chakra_convert_kineto("k.json", out, &o, &r) == CHAKRA_EINVAL);
	}
	/* an existing output is replaced only when asked */
	{
		chakra_convert_options o = CHAKRA_CONVERT_OPTIONS_INIT;
		chakra_convert_result r;
		const char *j = ET_HEAD ROOTS OP(3, 2, "aten::mm") "]}";
		o.et_buf = j;
		o.et_len = strlen(j);
		FILE *f = fopen(out, "w");
		fputs("precious", f);
		fclose(f);
		CHECK(chakra_convert_pytorch("et.json", out, &o, &r) < 0);
		CHECK_MSG(strstr(r.errmsg, "exists"), "%s", r.errmsg);
		char buf[16] = "";
		f = fopen(out, "r");
		CHECK(f && fgets(buf, sizeof buf, f) && !strcmp(buf, "precious"));
		if (f)
			fclose(f);
		o.overwrite = 1;
		CHECK(chakra_convert_pytorch("et.json", out, &o, &r) == 0);
	}
	/* out_cb (v3): the same bytes through the caller's callback, no file
	 * created under the name; a failing callback fails the conversion;
	 * the multi-rank call refuses it; a version-2 caller is still read */
	{
		chakra_convert_options o = CHAKRA_CONVERT_OPTIONS_INIT;
		chakra_convert_result r;
		const char *j = ET_HEAD ROOTS OP(3, 2, "aten::mm") OP(4, 2, "aten::add") "]}";
		o.et_buf = j;
		o.et_len = strlen(j);
		o.overwrite = 1;
		CHECK(chakra_convert_pytorch("et.json", out, &o, &r) == 0);
		size_t flen = 0;
		char *file = NULL;
		FILE *f = fopen(out, "rb");
		if (f) {
			file = malloc(1 << 16);
			flen = fread(file, 1, 1 << 16, f);
			fclose(f);
		}
		unlink(out);
		membuf mb = { { 0 }, 0, 0 };
		o.out_cb = mem_write;
		o.out_data = &mb;
		CHECK_MSG(chakra_convert_pytorch("et.json", out, &o, &r) == 0, "%s", r.errmsg);
		CHECK(access(out, F_OK) != 0);
		CHECK(file && flen > 0 && mb.len == flen && !memcmp(mb.buf, file, flen));
		free(file);
		mb.fail_at = 1;
		mb.len = 0;
		CHECK(chakra_convert_pytorch("et.json", out, &o, &r) < 0);
		CHECK(access(out, F_OK) != 0);
		CHECK(chakra_convert_ranks("et{R}.json", NULL, out, &o, &r, NULL, 0, NULL) == CHAKRA_EINVAL);
		CHECK_MSG(strstr(r.errmsg, "out_cb is for one output"), "%s", r.errmsg);
		volatile size_t v2 = offsetof(chakra_convert_options, to_next) + sizeof(int);
		chakra_convert_options *o2 = malloc(v2);
		CHECK(chakra_convert_options_init(o2, 2) == 0);
		o2->et_buf = j;
		o2->et_len = strlen(j);
		o2->overwrite = 1;
		CHECK_MSG(chakra_convert_pytorch("et.json", out, o2, &r) == 0, "%s", r.errmsg);
		CHECK(access(out, F_OK) == 0);
		free(o2);
	}
	/* ---- process groups: validated where they enter, ranges kept as
	 * ranges, sizes never wrap ---- */
#define NCCL_K(args) \
	K_HEAD "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_AllReduce_Sum_f32\"," \
	"\"pid\":0,\"tid\":7,\"ts\":10,\"dur\":3,\"args\":{\"stream\":7,\"correlation\":5," \
	"\"Collective name\":\"allreduce\",\"dtype\":\"Float\",\"Process Group Name\":\"0\"," args "}}]}"
	/* a rank listed twice: the replay used to read past an array */
	bad(1, NCCL_K("\"In msg nelems\":8,\"Process Group Ranks\":\"[0, 0]\",\"Group size\":2"),
	    "event 0", "process group '0': rank 0 is listed twice");
	bad(1, NCCL_K("\"In msg nelems\":8,\"Process Group Ranks\":\"[0, -3]\""),
	    "event 0", "member -3 is not a rank");
	bad(1, NCCL_K("\"In msg nelems\":8,\"Process Group Ranks\":\"[0, 16777216]\""),
	    "event 0", "member 16777216 is not a rank");
	good(1, NCCL_K("\"In msg nelems\":8,\"Process Group Ranks\":\"[0, 1]\",\"Group size\":2"), 2);
	/* NCCL's element count x the dtype's size past int64 (was signed
	 * overflow written as the comm size) */
	bad(1, NCCL_K("\"In msg nelems\":4611686018427387904,\"Group size\":2"), "event 0",
	    "In msg nelems 4611686018427387904 x 4 bytes overflows");
	/* a base time that would overflow every start it is added to */
	bad(1, "{\"baseTimeNanoseconds\":9223372036854775000,\"traceEvents\":[]}",
	    "baseTimeNanoseconds 9223372036854775000 is out of range", NULL);
	{
		/* global_rank_start / stride with pg_size 2^20: a range in the ET
		 * (pg_rank_start, pg_rank_stride), never 2^20 materialised ranks */
		const char *j = ET_HEAD ROOTS
			",{\"name\":\"record_param_comms\",\"id\":3,\"parent\":2,\"tid\":1,"
			"\"inputs\":[[[5,6,0,4,4,\"cuda:0\"]],1,[\"0\",\"d\"],0,\"all_reduce\",[],[],0,1,1048576],"
			"\"input_types\":[\"GenericList[Tensor(float)]\",\"Int\",\"Tuple[String,String]\",\"Int\","
			"\"String\",\"GenericList[]\",\"GenericList[]\",\"Int\",\"Int\",\"Int\"],\"outputs\":[]}]}";
		chakra_convert_result r;
		CHECK_MSG(conv(0, j, strlen(j), &r) == 0, "%s", r.errmsg);
		FILE *f = fopen(out, "rb");
		long size = -1;
		if (f && fseek(f, 0, SEEK_END) == 0)
			size = ftell(f);
		if (f)
			fclose(f);
		CHECK_MSG(size > 0 && size < 4096, "%ld bytes", size);
		chakra_reader *rd = NULL;
		const chakra_node *n;
		int meta = 0;
		if (chakra_reader_open(&rd, out, NULL) == 0)
			while (chakra_reader_next(rd, &n) > 0)
				if (chakra_node_type_of(n) == CHAKRA_METADATA_NODE) {
					int64_t v = -1;
					meta++;
					CHECK(chakra_node_get_int(n, "pg_size", &v) == 0 && v == 1048576);
					CHECK(chakra_node_get_int(n, "pg_rank_start", &v) == 0 && v == 0);
					CHECK(chakra_node_get_int(n, "pg_rank_stride", &v) == 0 && v == 1);
					CHECK(chakra_node_attr_find(n, "pg_ranks") == NULL);
				}
		chakra_reader_close(rd);
		CHECK_EQ_U(meta, 1);
	}
	/* a range that leaves the ranks (start + k * stride overflowed int64) */
	bad(0, ET_HEAD ROOTS
	    ",{\"name\":\"record_param_comms\",\"id\":3,\"parent\":2,\"tid\":1,"
	    "\"inputs\":[[[5,6,0,4,4,\"cuda:0\"]],1,[\"0\",\"d\"],0,\"all_reduce\",[],[],"
	    "4611686018427387904,4611686018427387904,4],"
	    "\"input_types\":[\"GenericList[Tensor(float)]\",\"Int\",\"Tuple[String,String]\",\"Int\","
	    "\"String\",\"GenericList[]\",\"GenericList[]\",\"Int\",\"Int\",\"Int\"],\"outputs\":[]}]}",
	    "node 2", "leaves the ranks");
	/* a tensor of 2^62 elements of 8 bytes (was a wrapped size) */
	bad(0, ET_HEAD ROOTS
	    ",{\"name\":\"aten::add\",\"id\":3,\"parent\":2,\"tid\":1,\"op_schema\":\"x\","
	    "\"inputs\":[[5,6,0,4611686018427387904,8,\"cuda:0\"]],\"input_types\":[\"Tensor(long)\"],"
	    "\"outputs\":[]}]}",
	    "node 2", "overflows a 64-bit size");
	{
		/* gzip input: members in turn, garbage after one refused where it
		 * starts (it was ignored; the core reader refused it), a member's
		 * magic split across the 256 KiB read boundary still read */
		const char *k = K_HEAD "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,"
		                "\"tid\":1,\"ts\":10,\"dur\":5}]}";
		size_t kl = strlen(k);
		unsigned char *gz = malloc(600000);
		size_t n1 = gz_member(k, kl / 2, 0, gz, 600000);
		size_t n2 = gz_member(k + kl / 2, kl - kl / 2, 9, gz + n1, 600000 - n1);
		chakra_convert_result r;
		CHECK_MSG(conv(1, (const char *)gz, n1 + n2, &r) == 0, "two members: %s", r.errmsg);
		memcpy(gz + n1 + n2, "x", 1);
		CHECK(conv(1, (const char *)gz, n1 + n2 + 1, &r) == CHAKRA_EGZIP);
		char want[80];
		snprintf(want, sizeof want, "compressed byte %zu: garbage after gzip stream", n1 + n2);
		CHECK_MSG(strstr(r.errmsg, want), "%s", r.errmsg);
		gz[n1 + n2] = 0x1f; /* a lone magic byte is garbage too */
		CHECK(conv(1, (const char *)gz, n1 + n2 + 1, &r) == CHAKRA_EGZIP);
		CHECK_MSG(strstr(r.errmsg, want), "%s", r.errmsg);
		/* the first member padded (stored, level 0) so that it ends one byte
		 * before the 256 KiB boundary: the second's 0x1f ends one chunk */
		size_t pad = 0;
		char *big = malloc(300000);
		for (size_t tries = 0; big && tries < 2000; tries++) {
			size_t want_len = (256 * 1024 - 1) - 1000 + tries;
			size_t hl = (size_t)snprintf(big, 300000, "{\"pad\":\"");
			memset(big + hl, 'a', want_len);
			size_t m = gz_member(big, hl + want_len, 0, gz, 600000);
			if (m == 256 * 1024 - 1) {
				pad = want_len;
				break;
			}
			if (m > 256 * 1024 - 1)
				break;
		}
		if (pad) {
			size_t hl = (size_t)snprintf(big, 300000, "{\"pad\":\"");
			memset(big + hl, 'a', pad);
			size_t tl = (size_t)snprintf(big + hl + pad, 300000 - hl - pad,
			                             "\",\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"cpu_op\","
			                             "\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":10,"
			                             "\"dur\":5}]}");
			size_t m1 = gz_member(big, hl + pad, 0, gz, 600000);
			size_t m2 = gz_member(big + hl + pad, tl, 9, gz + m1, 600000 - m1);
			CHECK_EQ_U(m1, 256 * 1024 - 1);
			CHECK_MSG(conv(1, (const char *)gz, m1 + m2, &r) == 0, "split magic: %s", r.errmsg);
		} else {
			CHECK_MSG(pad, "could not size a member to end at the read boundary");
		}
		free(big);
		free(gz);
	}
	{
		/* PREFIX.comm_groups.json of {R} names its groups as JSON strings
		 * (a name with a quote, a backslash and a newline was written
		 * unescaped: invalid JSON, exit 0) */
		char dir[] = "/tmp/chakra-convert-groups-XXXXXX";
		CHECK(mkdtemp(dir) != NULL);
		char p[300];
		for (int rk = 0; rk < 2; rk++) {
			snprintf(p, sizeof p, "%s/k%d.json", dir, rk);
			FILE *f = fopen(p, "w");
			if (f) {
				fprintf(f, "{\"distributedInfo\":{\"rank\":%d,\"world_size\":2},\"traceEvents\":["
				        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_AllReduce\","
				        "\"pid\":0,\"tid\":7,\"ts\":10,\"dur\":3,\"args\":{\"stream\":7,"
				        "\"Collective name\":\"allreduce\",\"dtype\":\"Float\",\"In msg nelems\":4,"
				        "\"Process Group Name\":\"a\\\"b\\\\c\\nd\",\"Process Group Ranks\":\"[0, 1]\"}}]}",
				        rk);
				fclose(f);
			}
		}
		snprintf(p, sizeof p, "%s/k{R}.json", dir);
		char prefix[300];
		snprintf(prefix, sizeof prefix, "%s/o", dir);
		chakra_convert_result r;
		size_t nr = 0;
		CHECK_MSG(chakra_convert_ranks(NULL, p, prefix, NULL, &r, NULL, 0, &nr) == 0, "%s",
		          r.errmsg);
		CHECK_EQ_U(nr, 2);
		snprintf(p, sizeof p, "%s/o.comm_groups.json", dir);
		char text[256] = "";
		FILE *f = fopen(p, "r");
		size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
		text[n] = 0;
		if (f)
			fclose(f);
		CHECK_MSG(strstr(text, "\"a\\\"b\\\\c\\nd\": [0, 1]"), "%s", text);
		char cmd[400];
		snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
		CHECK(system(cmd) == 0);
	}
	unlink(out);
	return check_done();
}
