/* SPDX-License-Identifier: Apache-2.0 */
/* chakra bench replay: the trace it replays, written with the library's
 * builder (bench_trace.h). */
#include <string.h>

#include "bench_trace.h"
#include "chakra/writer.h"
#include "common.h"

typedef struct gen {
	chakra_builder *b;
	chakra_writer *w;
	uint64_t id, seed;
	int rc;
} gen;

static uint64_t rnd(gen *g, uint64_t n)
{
	g->seed = g->seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return (g->seed >> 33) % n;
}

/* One node; returns its id. */
static uint64_t node(gen *g, const char *name, int cpu, int64_t tid_or_stream, const char *cat,
                     int64_t start, int64_t dur, const uint64_t *data, int nd, const uint64_t *ctrl,
                     int nc)
{
	chakra_builder *b = g->b;
	uint64_t id = g->id++;
	if (g->rc)
		return id;
	chakra_builder_reset(b);
	chakra_builder_set_id(b, id);
	chakra_builder_set_type(b, CHAKRA_COMP_NODE);
	g->rc |= chakra_builder_set_name(b, name, (size_t)-1);
	chakra_builder_set_start_time_micros(b, (uint64_t)start / 1000);
	chakra_builder_set_duration_micros(b, (uint64_t)dur / 1000);
	for (int i = 0; i < nd; i++)
		g->rc |= chakra_builder_add_data_dep(b, data[i]);
	for (int i = 0; i < nc; i++)
		g->rc |= chakra_builder_add_ctrl_dep(b, ctrl[i]);
	g->rc |= chakra_builder_attr_int(b, "is_cpu_op", CHAKRA_ATTR_BOOL, cpu);
	if (cpu)
		g->rc |= chakra_builder_attr_int(b, "tid", CHAKRA_ATTR_INT64, tid_or_stream);
	g->rc |= chakra_builder_attr_int(b, "start_time_nanos", CHAKRA_ATTR_INT64, start);
	g->rc |= chakra_builder_attr_int(b, "duration_nanos", CHAKRA_ATTR_INT64, dur);
	if (!cpu) {
		g->rc |= chakra_builder_attr_int(b, "stream", CHAKRA_ATTR_INT64, tid_or_stream);
		g->rc |= chakra_builder_attr_int(b, "device", CHAKRA_ATTR_INT64, 0);
	}
	g->rc |= chakra_builder_attr_string(b, "kineto_cat", CHAKRA_ATTR_STRING, cat, (size_t)-1);
	if (!g->rc)
		g->rc = chakra_writer_write_node(g->w, b);
	return id;
}

static int64_t max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

int bench_write_trace(const char *path, uint64_t target, int64_t *window, int force)
{
	gen g = { chakra_builder_new(), NULL, 0, 42, 0 };
	chakra_writer_options wo = CHAKRA_WRITER_OPTIONS_INIT;
	wo.overwrite = force;
	int rc = g.b ? chakra_writer_open(&g.w, path, &wo) : CHAKRA_ENOMEM;
	int64_t t[2] = { 0, 0 };          /* host clock per thread */
	uint64_t last_host[2] = { UINT64_MAX, UINT64_MAX };
	int64_t s_end[2] = { 0, 0 };      /* stream end */
	uint64_t s_last[2] = { UINT64_MAX, UINT64_MAX };
	/* pass 0 only computes the times, to know the window the metadata
	 * (written first) carries; pass 1 writes the same nodes */
	for (int pass = 0; pass < 2 && !rc; pass++) {
		if (pass == 1) {
			chakra_builder_reset(g.b);
			chakra_builder_attr_int(g.b, "window_start_nanos", CHAKRA_ATTR_INT64, 0);
			chakra_builder_attr_int(g.b, "window_end_nanos", CHAKRA_ATTR_INT64, *window);
			rc = chakra_writer_write_metadata(g.w, "0.0.4", g.b);
		}
		g.id = 0;
		g.seed = 42;
		g.rc = pass == 0;
		memset(t, 0, sizeof t);
		s_end[0] = s_end[1] = 0;
		last_host[0] = last_host[1] = s_last[0] = s_last[1] = UINT64_MAX;
		int th = 0;
		uint64_t launches = 0;
		while (g.id + 4 < target || th != 0) {
			if (launches && launches % 1000 == 0) {
				/* the other thread takes over 50 us after this one's last op */
				int o = !th;
				t[o] = max64(t[o], t[th] + 50000);
				th = o;
				if (g.id + 4 >= target && th == 0)
					break;
			}
			uint64_t d[2], c[2];
			int nc = 0;
			if (last_host[th] != UINT64_MAX)
				c[nc++] = last_host[th];
			int64_t pd = 5000 + (int64_t)rnd(&g, 30) * 1000;
			uint64_t piece = node(&g, "aten::op", 1, th + 1, "cpu_op", t[th], pd, NULL, 0, c, nc);
			t[th] += pd + 1000;
			c[0] = piece;
			int64_t ls = t[th];
			uint64_t call = node(&g, "cudaLaunchKernel", 1, th + 1, "cuda_runtime", ls, 5000, NULL,
			                     0, c, 1);
			t[th] += 5000 + 500;
			launches++;
			int s = launches % 7 == 0;
			int64_t ks = max64(ls + 10000, s_end[s] + 1000);
			int ndd = 0;
			d[ndd++] = call;
			if (s && s_last[0] != UINT64_MAX) {
				d[ndd++] = s_last[0];
				ks = max64(ks, s_end[0] + 1000);
			}
			int64_t kd = 2000 + (int64_t)rnd(&g, 60) * 1000;
			uint64_t kc[1];
			int nkc = 0;
			if (s_last[s] != UINT64_MAX)
				kc[nkc++] = s_last[s];
			uint64_t k = node(&g, s ? "gemm_kernel" : "elementwise_kernel", 0, 7 + s, "kernel", ks,
			                  kd, d, ndd, kc, nkc);
			s_end[s] = ks + kd;
			s_last[s] = k;
			last_host[th] = call;
			if (launches % 50 == 0) {
				/* a stream synchronize: waits for stream 7's last kernel */
				int64_t ss = t[th], se = max64(ss, s_end[0]) + 3000;
				d[0] = s_last[0];
				c[0] = call;
				last_host[th] = node(&g, "cudaStreamSynchronize", 1, th + 1, "cuda_runtime", ss,
				                     se - ss, d, 1, c, 1);
				t[th] = se + 500;
			}
		}
		/* the end: a device synchronize on the main thread */
		int64_t ss = t[0], se = max64(ss, max64(s_end[0], s_end[1])) + 3000;
		uint64_t d[2] = { s_last[0], s_last[1] }, c[1] = { last_host[0] };
		node(&g, "cudaDeviceSynchronize", 1, 1, "cuda_runtime", ss, se - ss, d,
		     s_last[1] == UINT64_MAX ? 1 : 2, c, last_host[0] == UINT64_MAX ? 0 : 1);
		*window = se + 2000;
		if (pass == 1)
			rc = g.rc;
	}
	if (!rc)
		rc = chakra_writer_finish(g.w);
	if (rc)
		tool_err("%s: %s", path, g.w ? chakra_writer_errmsg(g.w) : chakra_strerror(rc));
	chakra_writer_close(g.w);
	chakra_builder_free(g.b);
	return rc;
}

