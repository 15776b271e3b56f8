/* SPDX-License-Identifier: Apache-2.0 */
/* The compute and collective models' presets and their JSON files.
 *
 * Datasheet figures: NVIDIA A100 (312 TFLOP/s dense FP16/BF16; 2,039 GB/s
 * for the 80 GB SXM part, 1,555 GB/s for the 40 GB one; NVLink 3: 12 links
 * of 25 GB/s per direction = 300 GB/s; HDR InfiniBand 200 Gb/s = 25 GB/s
 * per GPU in a DGX A100), H100 SXM (989 TFLOP/s dense BF16, 1,979 FP8;
 * 3,350 GB/s; NVLink 4: 450 GB/s per direction; NDR 400 Gb/s = 50 GB/s).
 * The fitted fields of "a100", "dgx-a100" and "vtrain-a100" are the shipped
 * calibration files (lib/predict/presets/, made by the commands
 * docs/predict.md shows; predict-model checks that the two agree);
 * "a100-40g" and "h100" take a100's fitted efficiencies and floors over
 * their own peaks, and "dgx-h100" dgx-a100's efficiencies over H100's
 * datasheet links. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_tree.h>

#include "jguard.h"
#include "pd_impl.h"

#define BAD(...) chakra__pd_fail(err, errlen, CHAKRA_EINVAL, __VA_ARGS__)

/* presets/a100.json (chakra calibrate compute, docs/predict.md) */
static const chakra_gpu_model a100_fit = {
	CHAKRA_GPU_MODEL_VERSION, "a100", 312, 0, 2039, 80,
	0.79688494315809932, 92.49105526585933, 0.57689479814971323, 71682.622520728139, 0, 0
};

/* presets/dgx-a100.json (chakra calibrate nccl, docs/predict.md) */
static const chakra_cluster_net dgx_a100_fit = {
	CHAKRA_CLUSTER_NET_VERSION, "dgx-a100", 8, 215.5629384291629, 1024.7171001532042,
	17.963578202430242, 14000, 55838.025013738174
};

/* presets/vtrain-a100.json: dgx-a100 with the scale-out bandwidth fitted on
 * the 64-GPU iterations of vTrain's cluster (800 Gb/s per 8-GPU node) */
static const double vtrain_inter_gbps = 9.4621165001250915;

int chakra_gpu_model_init(chakra_gpu_model *m, unsigned version)
{
	if (!m || version != CHAKRA_GPU_MODEL_VERSION)
		return CHAKRA_EINVAL;
	*m = a100_fit;
	return 0;
}

int chakra_cluster_net_init(chakra_cluster_net *n, unsigned version)
{
	if (!n || version != CHAKRA_CLUSTER_NET_VERSION)
		return CHAKRA_EINVAL;
	*n = dgx_a100_fit;
	return 0;
}

int chakra_gpu_model_preset(chakra_gpu_model *m, const char *name, char *err, size_t errlen)
{
	if (!m || !name)
		return BAD("chakra_gpu_model_preset: NULL argument");
	*m = a100_fit;
	if (!strcmp(name, "a100") || !strcmp(name, "a100-80g")) {
		snprintf(m->name, sizeof m->name, "%s", name);
		return 0;
	}
	if (!strcmp(name, "a100-40g")) {
		snprintf(m->name, sizeof m->name, "a100-40g");
		m->hbm_gbps = 1555.0;
		m->memory_gib = 40.0;
		return 0;
	}
	if (!strcmp(name, "h100")) {
		snprintf(m->name, sizeof m->name, "h100");
		m->peak_tflops = 989.4;
		m->peak_tflops_fp8 = 1978.9;
		m->hbm_gbps = 3350.0;
		m->memory_gib = 80.0;
		return 0;
	}
	return BAD("unknown GPU '%s' (known: a100, a100-80g, a100-40g, h100)", name);
}

int chakra_cluster_net_preset(chakra_cluster_net *n, const char *name, char *err,
                              size_t errlen)
{
	if (!n || !name)
		return BAD("chakra_cluster_net_preset: NULL argument");
	*n = dgx_a100_fit;
	if (!strcmp(name, "dgx-a100"))
		return 0;
	if (!strcmp(name, "vtrain-a100")) {
		snprintf(n->name, sizeof n->name, "vtrain-a100");
		n->inter_gbps = vtrain_inter_gbps;
		return 0;
	}
	if (!strcmp(name, "dgx-h100")) {
		/* dgx-a100's achieved fraction of its datasheet links, on H100's */
		snprintf(n->name, sizeof n->name, "dgx-h100");
		n->intra_gbps = dgx_a100_fit.intra_gbps / 300.0 * 450.0;
		n->inter_gbps = dgx_a100_fit.inter_gbps / 25.0 * 50.0;
		return 0;
	}
	return BAD("unknown network '%s' (known: dgx-a100, vtrain-a100, dgx-h100)", name);
}

/* ---------------- JSON ---------------- */

typedef struct field {
	const char *key;
	size_t off;
	double lo, hi;
} field;

#define GF(k, lo, hi) { #k, offsetof(chakra_gpu_model, k), lo, hi }
static const field gpu_fields[] = {
	GF(peak_tflops, 1e-3, 1e6),     GF(peak_tflops_fp8, 0, 1e6), GF(hbm_gbps, 1e-3, 1e7),
	GF(memory_gib, 1e-3, 1e6),      GF(gemm_efficiency, 1e-4, 1), GF(gemm_knee, 0, 1e9),
	GF(mem_efficiency, 1e-4, 1),    GF(kernel_floor_ns, 0, 1e12), GF(optimizer_bytes, 0, 1e6),
	GF(iteration_overhead_ns, 0, 1e15),
};
#define NF(k, lo, hi) { #k, offsetof(chakra_cluster_net, k), lo, hi }
static const field net_fields[] = {
	NF(intra_gbps, 1e-6, 1e9),       NF(intra_latency_ns, 0, 1e12), NF(inter_gbps, 1e-6, 1e9),
	NF(inter_latency_ns, 0, 1e12),   NF(launch_ns, 0, 1e12),
};

/* Keys that describe where a file came from; read and ignored. */
static int informative(const char *k)
{
	return !strcmp(k, "kind") || !strcmp(k, "source") || !strcmp(k, "command") ||
	       !strcmp(k, "fit") || !strcmp(k, "note");
}

static int parse_obj(void *obj, char *name_out, size_t name_cap, uint32_t *gpn,
                     const field *fs, size_t nf, const char *file, const char *text, size_t len,
                     char *err, size_t errlen)
{
	yajl_val root = NULL;
	char jerr[256];
	int rc = chakra__json_tree(text, len, &root, jerr, sizeof jerr);
	if (rc == CHAKRA_ENOMEM)
		return chakra__pd_fail(err, errlen, rc, "%s: out of memory", file);
	if (rc < 0)
		return chakra__pd_fail(err, errlen, CHAKRA_ECONFIG, "%s: not JSON: %s", file, jerr);
	if (!YAJL_IS_OBJECT(root)) {
		chakra__json_tree_free(root);
		return chakra__pd_fail(err, errlen, CHAKRA_ECONFIG, "%s: expected a JSON object",
		                       file);
	}
	unsigned char *base = obj;
	for (size_t i = 0; i < root->u.object.len; i++) {
		const char *k = root->u.object.keys[i];
		yajl_val v = root->u.object.values[i];
		if (informative(k))
			continue;
		if (!strcmp(k, "name")) {
			if (!YAJL_IS_STRING(v) || strlen(v->u.string) >= name_cap) {
				rc = chakra__pd_fail(err, errlen, CHAKRA_ECONFIG, "%s: key 'name': expected "
				                     "a string of at most %zu bytes", file, name_cap - 1);
				goto out;
			}
			snprintf(name_out, name_cap, "%s", v->u.string);
			continue;
		}
		if (gpn && !strcmp(k, "gpus_per_node")) {
			if (!YAJL_IS_INTEGER(v) || v->u.number.i < 1 || v->u.number.i > 1024) {
				rc = chakra__pd_fail(err, errlen, CHAKRA_ECONFIG, "%s: key 'gpus_per_node': "
				                     "expected an integer in 1..1024", file);
				goto out;
			}
			*gpn = (uint32_t)v->u.number.i;
			continue;
		}
		size_t j = 0;
		while (j < nf && strcmp(fs[j].key, k))
			j++;
		if (j == nf) {
			rc = chakra__pd_fail(err, errlen, CHAKRA_ECONFIG, "%s: unknown key '%s'", file, k);
			goto out;
		}
		double d = YAJL_IS_NUMBER(v) ? YAJL_GET_DOUBLE(v) : NAN;
		if (!(d >= fs[j].lo && d <= fs[j].hi)) {
			rc = chakra__pd_fail(err, errlen, CHAKRA_ECONFIG, "%s: key '%s': expected a "
			                     "number in [%g, %g]", file, k, fs[j].lo, fs[j].hi);
			goto out;
		}
		memcpy(base + fs[j].off, &d, sizeof d);
	}
	rc = 0;
out:
	chakra__json_tree_free(root);
	return rc;
}

static int slurp(const char *path, char **text, size_t *len, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return chakra__pd_fail(err, errlen, CHAKRA_EIO, "%s: %s", path, strerror(errno));
	size_t cap = 4096, n = 0;
	char *buf = chakra_malloc(cap);
	int rc = 0;
	while (buf) {
		if (n == cap) {
			if (cap >= (size_t)256 << 20) {
				rc = chakra__pd_fail(err, errlen, CHAKRA_ETOOBIG, "%s: larger than 256 MiB",
				                     path);
				break;
			}
			char *nb = chakra_realloc(buf, cap * 2);
			if (!nb) {
				chakra_free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		size_t k = fread(buf + n, 1, cap - n, f);
		n += k;
		if (k == 0) {
			if (ferror(f))
				rc = chakra__pd_fail(err, errlen, CHAKRA_EIO, "%s: %s", path, strerror(errno));
			break;
		}
	}
	fclose(f);
	if (!buf)
		return chakra__pd_fail(err, errlen, CHAKRA_ENOMEM, "%s: out of memory", path);
	if (rc < 0) {
		chakra_free(buf);
		return rc;
	}
	*text = buf;
	*len = n;
	return 0;
}

int chakra__pd_slurp(const char *path, char **text, size_t *len, char *err, size_t errlen)
{
	return slurp(path, text, len, err, errlen);
}

int chakra_gpu_model_parse(chakra_gpu_model *m, const char *name, const char *text, size_t len,
                           char *err, size_t errlen)
{
	if (!m || !text)
		return BAD("chakra_gpu_model_parse: NULL argument");
	chakra_gpu_model t = *m;
	int rc = parse_obj(&t, t.name, sizeof t.name, NULL, gpu_fields,
	                   sizeof gpu_fields / sizeof *gpu_fields, name ? name : "<model>", text, len,
	                   err, errlen);
	if (rc == 0)
		*m = t;
	return rc;
}

int chakra_cluster_net_parse(chakra_cluster_net *n, const char *name, const char *text,
                             size_t len, char *err, size_t errlen)
{
	if (!n || !text)
		return BAD("chakra_cluster_net_parse: NULL argument");
	chakra_cluster_net t = *n;
	int rc = parse_obj(&t, t.name, sizeof t.name, &t.gpus_per_node, net_fields,
	                   sizeof net_fields / sizeof *net_fields, name ? name : "<network>", text,
	                   len, err, errlen);
	if (rc == 0)
		*n = t;
	return rc;
}

int chakra_gpu_model_load(chakra_gpu_model *m, const char *path, char *err, size_t errlen)
{
	char *text;
	size_t len;
	if (!m || !path)
		return BAD("chakra_gpu_model_load: NULL argument");
	int rc = slurp(path, &text, &len, err, errlen);
	if (rc < 0)
		return rc;
	rc = chakra_gpu_model_parse(m, path, text, len, err, errlen);
	chakra_free(text);
	return rc;
}

int chakra_cluster_net_load(chakra_cluster_net *n, const char *path, char *err, size_t errlen)
{
	char *text;
	size_t len;
	if (!n || !path)
		return BAD("chakra_cluster_net_load: NULL argument");
	int rc = slurp(path, &text, &len, err, errlen);
	if (rc < 0)
		return rc;
	rc = chakra_cluster_net_parse(n, path, text, len, err, errlen);
	chakra_free(text);
	return rc;
}

static int emit_fields(const void *obj, const field *fs, size_t nf, chakra_write_cb cb,
                       void *data)
{
	const unsigned char *base = obj;
	char buf[128];
	int rc = 0;
	for (size_t j = 0; j < nf && rc == 0; j++) {
		double d;
		memcpy(&d, base + fs[j].off, sizeof d);
		int k = snprintf(buf, sizeof buf, ",\n  \"%s\": %.17g", fs[j].key, d);
		rc = cb(data, buf, (size_t)k);
	}
	return rc;
}

static int emit_head(const char *kind, const char *name, chakra_write_cb cb, void *data)
{
	char buf[160];
	/* names are preset names or came from a file: no quotes or controls */
	char safe[40];
	size_t j = 0;
	for (const char *p = name; *p && j + 1 < sizeof safe; p++)
		safe[j++] = (*p == '"' || *p == '\\' || (unsigned char)*p < 0x20) ? '_' : *p;
	safe[j] = 0;
	int k = snprintf(buf, sizeof buf, "{\n  \"kind\": \"%s\",\n  \"name\": \"%s\"", kind, safe);
	return cb(data, buf, (size_t)k);
}

int chakra_gpu_model_json(const chakra_gpu_model *m, chakra_write_cb cb, void *data)
{
	if (!m || !cb)
		return CHAKRA_EINVAL;
	int rc = emit_head("chakra-gpu-model", m->name, cb, data);
	if (rc == 0)
		rc = emit_fields(m, gpu_fields, sizeof gpu_fields / sizeof *gpu_fields, cb, data);
	if (rc == 0)
		rc = cb(data, "\n}\n", 3);
	return rc;
}

int chakra_cluster_net_json(const chakra_cluster_net *n, chakra_write_cb cb, void *data)
{
	if (!n || !cb)
		return CHAKRA_EINVAL;
	int rc = emit_head("chakra-cluster-net", n->name, cb, data);
	char buf[64];
	if (rc == 0) {
		int k = snprintf(buf, sizeof buf, ",\n  \"gpus_per_node\": %u", n->gpus_per_node);
		rc = cb(data, buf, (size_t)k);
	}
	if (rc == 0)
		rc = emit_fields(n, net_fields, sizeof net_fields / sizeof *net_fields, cb, data);
	if (rc == 0)
		rc = cb(data, "\n}\n", 3);
	return rc;
}
