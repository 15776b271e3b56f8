/* SPDX-License-Identifier: Apache-2.0 */
/* Calibration: measured iterations fit the compute model, nccl-tests
 * measurements the collective model. Both fits minimise the squared log of
 * predicted / measured, so a 10% miss on a 50 ms run counts as much as on
 * a 5 s one; both predict through the simulator exactly as the prediction
 * does. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pd_impl.h"

#define BAD(...) chakra__pd_fail(err, errlen, CHAKRA_EINVAL, __VA_ARGS__)

static const size_t calibrate_options_sizes[] = { 0, sizeof(chakra_calibrate_options) };
static const chakra_calibrate_options calibrate_options_defaults = CHAKRA_CALIBRATE_OPTIONS_INIT;

int chakra_calibrate_options_init(chakra_calibrate_options *o, unsigned version)
{
	return chakra__opts_init(o, version, &calibrate_options_defaults, calibrate_options_sizes, 2);
}

/* ---------------- the compute fit ---------------- */

enum { P_EFF, P_KNEE, P_MEM, P_FLOOR, P_OPT, P_OVER, P_INTER, P_N };

typedef struct cfit {
	chakra_gpu_model gpu;
	chakra_cluster_net net;
	const chakra_gpt_measurement *rows;
	const size_t *use;
	const double *w;                /* sqrt of each used row's weight */
	size_t n;
	int which[P_N];                 /* the fitted parameters, in order */
	size_t np;
} cfit;

static double *field(cfit *F, int p)
{
	switch (p) {
	case P_EFF: return &F->gpu.gemm_efficiency;
	case P_KNEE: return &F->gpu.gemm_knee;
	case P_MEM: return &F->gpu.mem_efficiency;
	case P_FLOOR: return &F->gpu.kernel_floor_ns;
	case P_OPT: return &F->gpu.optimizer_bytes;
	case P_OVER: return &F->gpu.iteration_overhead_ns;
	default: return &F->net.inter_gbps;
	}
}

static void apply(cfit *F, const double *x)
{
	for (size_t i = 0; i < F->np; i++)
		*field(F, F->which[i]) = x[i];
}

static int cresid(void *data, const double *x, double *r)
{
	cfit *F = data;
	apply(F, x);
	char e[256];
	for (size_t i = 0; i < F->n; i++) {
		const chakra_gpt_measurement *m = &F->rows[F->use[i]];
		chakra_gpt_prediction p;
		int rc = chakra_gpt_predict(&m->config, &F->gpu, &F->net, NULL, &p, e, sizeof e);
		if (rc < 0)
			return rc;
		r[i] = F->w[i] * log(p.iteration_s / m->iteration_s);
	}
	return 0;
}

int chakra_calibrate_compute(chakra_gpu_model *gpu, chakra_cluster_net *net,
                             const chakra_gpt_measurement *rows, size_t n,
                             const chakra_calibrate_options *opts, char *err, size_t errlen)
{
	if (!gpu || !net || (!rows && n))
		return BAD("chakra_calibrate_compute: NULL argument");
	chakra_calibrate_options o;
	if (chakra__opts_copy(&o, sizeof o, opts, &calibrate_options_defaults, calibrate_options_sizes,
	                      2) < 0)
		return BAD("chakra_calibrate_compute: unknown options version %u", opts->version);
	size_t *use = chakra_malloc((n ? n : 1) * sizeof *use);
	if (!use)
		return chakra__pd_fail(err, errlen, CHAKRA_ENOMEM, "out of memory");
	size_t k = 0;
	int multi = 0;
	for (size_t i = 0; i < n; i++) {
		if (o.holdout_mod > 1 && i % o.holdout_mod != o.holdout_keep)
			continue;
		use[k++] = i;
		uint32_t g = rows[i].config.gpus_per_node ? rows[i].config.gpus_per_node
		                                          : net->gpus_per_node;
		if ((uint64_t)rows[i].config.tp * rows[i].config.dp * rows[i].config.pp > g)
			multi = 1;
	}
	if (k == 0) {
		chakra_free(use);
		return BAD("no measurement to calibrate on");
	}
	/* every group weighs the same: w = rows / (groups x rows of its group) */
	double *w = chakra_malloc(k * sizeof *w);
	if (!w) {
		chakra_free(use);
		return chakra__pd_fail(err, errlen, CHAKRA_ENOMEM, "out of memory");
	}
	size_t groups = 0;
	for (size_t i = 0; i < k; i++) {
		size_t same = 0;
		int first = 1;
		for (size_t j = 0; j < k; j++) {
			if (rows[use[j]].group == rows[use[i]].group) {
				same++;
				if (j < i)
					first = 0;
			}
		}
		groups += first;
		w[i] = (double)same;
	}
	for (size_t i = 0; i < k; i++)
		w[i] = sqrt((double)k / ((double)groups * w[i]));
	cfit F;
	memset(&F, 0, sizeof F);
	F.gpu = *gpu;
	F.net = *net;
	F.rows = rows;
	F.use = use;
	F.w = w;
	F.n = k;
	static const double lo_all[P_N] = { 0.05, 1, 0.05, 0, 0, 0, 0.1 };
	static const double hi_all[P_N] = { 1, 16384, 1, 1e6, 200, 1e9, 1e4 };
	double x[P_N], lo[P_N], hi[P_N];
	unsigned mask = o.fit ? o.fit : 0x3f;
	for (int p = 0; p < P_N; p++) {
		int on = p == P_INTER ? o.fit_inter && multi : (int)((mask >> p) & 1);
		if (!on)
			continue;
		F.which[F.np] = p;
		x[F.np] = *field(&F, p);
		lo[F.np] = lo_all[p];
		hi[F.np] = hi_all[p];
		F.np++;
	}
	int rc = F.np ? chakra__pd_lm(cresid, &F, x, lo, hi, F.np, k,
	                              o.max_iterations ? o.max_iterations : 30, o.progress_cb,
	                              o.data, err, errlen)
	              : BAD("nothing to fit");
	if (rc == 0) {
		apply(&F, x);
		*gpu = F.gpu;
		*net = F.net;
	}
	chakra_free(use);
	chakra_free(w);
	return rc;
}

/* ---------------- the collective fit ---------------- */

typedef struct nfit {
	chakra_cluster_net net;
	const chakra_nccl_measurement *rows;
	const size_t *use;
	size_t n;
	int level;                      /* 0: fit the node level, 1: the scale-out level */
} nfit;

static int nresid(void *data, const double *x, double *r)
{
	nfit *F = data;
	if (F->level == 0) {
		F->net.intra_gbps = x[0];
		F->net.intra_latency_ns = x[1];
		F->net.launch_ns = x[2];
	} else {
		F->net.inter_gbps = x[0];
		F->net.inter_latency_ns = x[1];
	}
	char e[256];
	for (size_t i = 0; i < F->n; i++) {
		const chakra_nccl_measurement *m = &F->rows[F->use[i]];
		double us;
		int rc = chakra_collective_predict(&F->net, m->op, m->gpus, m->bytes, &us, e, sizeof e);
		if (rc < 0)
			return rc;
		r[i] = log(fmax(us, 1e-3) / fmax(m->time_us, 1e-3));
	}
	return 0;
}

int chakra_calibrate_nccl(chakra_cluster_net *net, const chakra_nccl_measurement *rows,
                          size_t n, uint64_t min_bytes, char *err, size_t errlen)
{
	if (!net || (!rows && n))
		return BAD("chakra_calibrate_nccl: NULL argument");
	size_t *use = chakra_malloc((n ? n : 1) * sizeof *use);
	if (!use)
		return chakra__pd_fail(err, errlen, CHAKRA_ENOMEM, "out of memory");
	uint32_t g = net->gpus_per_node ? net->gpus_per_node : 8;
	double intra_sheet = net->intra_gbps, inter_sheet = net->inter_gbps;
	nfit F = { *net, rows, use, 0, 0 };
	int rc = 0;
	for (size_t i = 0; i < n; i++)
		if (rows[i].nodes <= 1 && rows[i].gpus >= 2 && rows[i].gpus <= g &&
		    rows[i].bytes >= min_bytes && rows[i].time_us > 0)
			use[F.n++] = i;
	if (F.n < 3) {
		rc = BAD("%zu measurements on 2..%u GPUs of one node of at least %llu bytes: need 3 "
		         "or more to fit the node level", F.n, g, (unsigned long long)min_bytes);
		goto out;
	}
	double x[3] = { net->intra_gbps * 0.75, fmax(net->intra_latency_ns, 100), 
		        fmax(net->launch_ns, 1000) };
	double lo[3] = { 1e-3, 0, 0 }, hi[3] = { 1e6, 1e7, 1e8 };
	rc = chakra__pd_lm(nresid, &F, x, lo, hi, 3, F.n, 60, NULL, NULL, err, errlen);
	if (rc < 0)
		goto out;
	F.net.intra_gbps = x[0];
	F.net.intra_latency_ns = x[1];
	F.net.launch_ns = x[2];
	/* the scale-out level: measured, or the datasheet at the node level's
	 * efficiency */
	F.n = 0;
	for (size_t i = 0; i < n; i++)
		if (rows[i].nodes > 1 && rows[i].gpus % g == 0 && rows[i].bytes >= min_bytes &&
		    rows[i].time_us > 0)
			use[F.n++] = i;
	if (F.n >= 2) {
		F.level = 1;
		double y[2] = { inter_sheet * 0.75, fmax(net->inter_latency_ns, 100) };
		double lo2[2] = { 1e-3, 0 }, hi2[2] = { 1e6, 1e8 };
		rc = chakra__pd_lm(nresid, &F, y, lo2, hi2, 2, F.n, 60, NULL, NULL, err, errlen);
		if (rc < 0)
			goto out;
		F.net.inter_gbps = y[0];
		F.net.inter_latency_ns = y[1];
	} else if (intra_sheet > 0) {
		F.net.inter_gbps = inter_sheet * (F.net.intra_gbps / intra_sheet);
	}
	*net = F.net;
out:
	chakra_free(use);
	return rc;
}
