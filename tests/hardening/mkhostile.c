/* SPDX-License-Identifier: Apache-2.0 */
/* Inputs that made the converters, the replay, the group readers and
 * synth slow or large (docs/hardening.md, "Quadratic time and
 * amplification"), each with a benign input of the same size to time it
 * against:
 *   mkhostile names N OUT.json     Kineto: N cpu_ops whose names fall in one
 *                                  run of slots of the converter's old
 *                                  (unkeyed) string table; `names-benign`:
 *                                  names spread as a random hash spreads them
 *   mkhostile threads N OUT.json   Kineto: N cpu_ops on N (pid, tid) pairs
 *                                  with one old pair key; `threads-benign`
 *   mkhostile gaps N OUT.json      Kineto: one thread of N ops 2 ms apart,
 *                                  one op on another thread before them;
 *                                  `gaps-benign`: no gaps
 *   mkhostile syncs S T OUT.json   Kineto: kernels on T streams, then S
 *                                  cudaDeviceSynchronize calls on one thread
 *   mkhostile ranges N OUT.json    PyTorch ET: N collectives, each on its own
 *                                  group of 2^20 ranks by rank start/stride
 *   mkhostile groups N OUT.json    communicator groups: N groups of rank 0
 *   mkhostile resources N OUT.et   an ET of N kernels on N (device, stream)
 *                                  pairs with one old perf resource key;
 *                                  `resources-benign`: streams 0..N-1
 *   mkhostile windows N OUT.et     an ET of N+1 annotations "it" on one
 *                                  thread, an op in each window (--between)
 *   mkhostile path N OUT.et        an ET of N ops in one chain on one thread
 *                                  (a critical path of N segments, --json)
 *   mkhostile model MB OUT.json    a MODEL.json of MB megabytes (one long
 *                                  list: what the parse tree is made of)
 * The generators of the old collisions invert the old hashes (odd
 * multipliers are invertible mod 2^64) or keep the candidates they hit. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chakra/chakra.h"

static int usage(void)
{
	fprintf(stderr, "usage: mkhostile names|names-benign|threads|threads-benign|gaps|"
	                "gaps-benign|ranges|groups N OUT.json\n"
	                "       mkhostile syncs S T OUT.json\n"
	                "       mkhostile resources|resources-benign|windows|path N OUT.et\n"
	                "       mkhostile model MB OUT.json\n");
	return 2;
}

/* ---- the converter's string table before it was keyed ---- */
static uint64_t old_hash_bytes(const char *s, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, s + i, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	uint64_t w = 0;
	memcpy(&w, s + i, n - i);
	h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
	return h ^ (h >> 29);
}

static uint64_t inv_mul(uint64_t c)
{
	uint64_t inv = c;
	for (int i = 0; i < 6; i++)
		inv *= 2 - c * inv;
	return inv;
}

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void kineto_head(FILE *f)
{
	fputs("{\"schemaVersion\":1,\"traceEvents\":[\n", f);
}

static void kineto_op(FILE *f, int *first, const char *name, int64_t pid, int64_t tid,
                      uint64_t ts_us, uint64_t dur_us)
{
	fprintf(f, "%s{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"%s\",\"pid\":%" PRId64
	           ",\"tid\":%" PRId64 ",\"ts\":%" PRIu64 ",\"dur\":%" PRIu64 "}\n",
	        *first ? "" : ",", name, pid, tid, ts_us, dur_us);
	*first = 0;
}

/* Names "op_<hex>" whose old hash lands in the first 64 slots of the table
 * of the size it has once n strings are in (the first power of two at
 * least 2(n + 64)), so of every smaller one too: one run of n occupied
 * slots, a probe of half of it per string. */
static int names(FILE *f, uint64_t n, int benign)
{
	uint64_t cap = 1024;
	while (cap < 2 * (n + 64))
		cap *= 2;
	char name[32];
	int first = 1;
	uint64_t c = 0, s = 12345;
	kineto_head(f);
	for (uint64_t k = 0; k < n; c++) {
		int len = snprintf(name, sizeof name, "op_%" PRIx64, benign ? splitmix(&s) : c);
		if (!benign && (old_hash_bytes(name, (size_t)len) & (cap - 1)) >= 64)
			continue;
		kineto_op(f, &first, name, 1, 1, 10 + k, 1);
		k++;
	}
	fputs("]}\n", f);
	return 0;
}

/* cv_pair_key(a, b) = g(a) + b * C2 with g(a) = x ^ (x >> 29), x = a * C1:
 * b = (K - g(a)) * C2^-1 gives every pair the key K. */
static int threads(FILE *f, uint64_t n, int benign)
{
	const uint64_t c1 = 0x9e3779b97f4a7c15ull, c2 = 0xc2b2ae3d27d4eb4full;
	uint64_t ic2 = inv_mul(c2), key = 0x1234567890abcdefull;
	int first = 1;
	kineto_head(f);
	for (uint64_t k = 0; k < n; k++) {
		int64_t pid = (int64_t)(k + 1);
		uint64_t x = (uint64_t)pid * c1;
		int64_t tid = benign ? 7 : (int64_t)((key - (x ^ (x >> 29))) * ic2);
		char name[32];
		snprintf(name, sizeof name, "op%" PRIu64, k % 64);
		kineto_op(f, &first, name, pid, tid, 10 + k, 1);
	}
	fputs("]}\n", f);
	return 0;
}

/* One thread of ops 2 ms apart (each gap over the 1 ms idle rule), and an
 * op of another thread before them: for each op the rule looked back over
 * every earlier end of its own thread. */
static int gaps(FILE *f, uint64_t n, int benign)
{
	int first = 1;
	kineto_head(f);
	kineto_op(f, &first, "other", 1, 2, 1, 1);
	for (uint64_t k = 0; k < n; k++)
		kineto_op(f, &first, "op", 1, 1, 10 + k * (benign ? 1 : 2000), 1);
	fputs("]}\n", f);
	return 0;
}

/* Kernels on t streams, then s device synchronisations. */
static int syncs(FILE *f, uint64_t s, uint64_t t)
{
	int first = 1;
	kineto_head(f);
	for (uint64_t k = 0; k < t; k++) {
		fprintf(f, "%s{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":%" PRIu64
		           ",\"ts\":%" PRIu64 ",\"dur\":1,\"args\":{\"stream\":%" PRIu64 "}}\n",
		        first ? "" : ",", k + 7, 10 + k, k + 7);
		first = 0;
	}
	for (uint64_t k = 0; k < s; k++)
		fprintf(f, ",{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaDeviceSynchronize\","
		           "\"pid\":1,\"tid\":1,\"ts\":%" PRIu64 ",\"dur\":1,\"args\":{\"correlation\":%"
		           PRIu64 "}}\n", 10 + t + 2 * k, 1000000 + k);
	fputs("]}\n", f);
	return 0;
}

/* PyTorch ET: n record_param_comms all_reduces, each naming group gK of
 * 2^20 ranks by rank start 0 and stride 1 (materialised: 8 MB each). */
static int ranges(FILE *f, uint64_t n)
{
	fputs("{\"schema\":\"1.0.1\",\"pid\":1,\"time\":\"t\",\"start_ts\":1,\"nodes\":[\n"
	      "{\"name\":\"[pytorch|profiler|execution_trace|process]\",\"id\":1,\"parent\":1,\"tid\":0},\n"
	      "{\"name\":\"[pytorch|profiler|execution_trace|thread]\",\"id\":2,\"parent\":1,\"tid\":1}",
	      f);
	for (uint64_t k = 0; k < n; k++)
		fprintf(f, ",\n{\"name\":\"record_param_comms\",\"id\":%" PRIu64 ",\"parent\":2,"
		           "\"tid\":1,\"inputs\":[[[5,6,0,4,4,\"cuda:0\"]],%" PRIu64 ",[\"g%" PRIu64
		           "\",\"d\"],0,\"all_reduce\",[],[],0,1,1048576],\"input_types\":["
		           "\"GenericList[Tensor(float)]\",\"Int\",\"Tuple[String,String]\",\"Int\","
		           "\"String\",\"GenericList[]\",\"GenericList[]\",\"Int\",\"Int\",\"Int\"],"
		           "\"outputs\":[]}", k + 3, k, k);
	fputs("\n]}\n", f);
	return 0;
}

static int groups(FILE *f, uint64_t n)
{
	fputs("{", f);
	for (uint64_t k = 0; k < n; k++)
		fprintf(f, "%s\n  \"group%" PRIu64 "\": [0]", k ? "," : "", k);
	fputs("\n}\n", f);
	return 0;
}

static int model(FILE *f, uint64_t mb)
{
	fputs("{\"format\":\"chakra-synth\",\"version\":1,\"compute_classes\":[", f);
	uint64_t bytes = mb << 20, w = 0;
	for (uint64_t k = 0; w < bytes; k++)
		w += (uint64_t)fprintf(f, "%s%" PRIu64, k ? "," : "", k % 1000);
	fputs("]}\n", f);
	return 0;
}

/* ---- ETs for the replay ---- */
static int write_et(const char *path, const char *what, uint64_t n, int benign)
{
	chakra_writer *w = NULL;
	chakra_writer_options wo = CHAKRA_WRITER_OPTIONS_INIT;
	wo.overwrite = 1;
	chakra_builder *b = chakra_builder_new();
	int rc = b ? chakra_writer_open(&w, path, &wo) : CHAKRA_ENOMEM;
	int win = !strcmp(what, "windows"), res = !strcmp(what, "resources");
	if (rc == 0 && win) {
		/* annotation_names / _start_nanos / _tids: N+1 occurrences of "it" */
		const char **nm = malloc((n + 1) * sizeof *nm);
		uint64_t *st = malloc((n + 1) * sizeof *st), *tid = malloc((n + 1) * sizeof *tid);
		if (!nm || !st || !tid)
			rc = CHAKRA_ENOMEM;
		for (uint64_t k = 0; rc == 0 && k <= n; k++) {
			nm[k] = "it";
			st[k] = 1000 * k;
			tid[k] = 1;
		}
		if (rc == 0)
			rc = chakra_builder_attr_list_string(b, "annotation_names", CHAKRA_ATTR_STRING_LIST,
			                                     nm, NULL, n + 1);
		if (rc == 0)
			rc = chakra_builder_attr_list_uint(b, "annotation_start_nanos",
			                                   CHAKRA_ATTR_INT64_LIST, st, n + 1);
		if (rc == 0)
			rc = chakra_builder_attr_list_uint(b, "annotation_tids", CHAKRA_ATTR_INT64_LIST, tid,
			                                   n + 1);
		free(nm), free(st), free(tid);
	}
	if (rc == 0)
		rc = chakra_writer_write_metadata(w, "0.0.4", b);
	const uint64_t c = 0x9e3779b97f4a7c15ull, key = 0x5a5a5a5a;
	for (uint64_t k = 0; rc == 0 && k < n; k++) {
		chakra_builder_reset(b);
		chakra_builder_set_id(b, k + 1);
		chakra_builder_set_name(b, res ? "kernel" : "op", (size_t)-1);
		chakra_builder_set_type(b, CHAKRA_COMP_NODE);
		if (res) {
			/* perf's old resource key: H(rank bits ^ H(device * C ^ stream)):
			 * stream = K ^ device * C gives every pair one key */
			int64_t dev = (int64_t)(k + 1);
			int64_t stream = benign ? (int64_t)k : (int64_t)(key ^ ((uint64_t)dev * c));
			rc = chakra_builder_attr_int(b, "is_cpu_op", CHAKRA_ATTR_BOOL, 0);
			if (rc == 0)
				rc = chakra_builder_attr_int(b, "device", CHAKRA_ATTR_INT64, benign ? 0 : dev);
			if (rc == 0)
				rc = chakra_builder_attr_int(b, "stream", CHAKRA_ATTR_INT64, stream);
		} else {
			rc = chakra_builder_attr_int(b, "is_cpu_op", CHAKRA_ATTR_BOOL, 1);
			if (rc == 0)
				rc = chakra_builder_attr_int(b, "tid", CHAKRA_ATTR_INT64, 1);
			if (rc == 0 && k)
				rc = chakra_builder_add_ctrl_dep(b, k);
		}
		if (rc == 0)
			rc = chakra_builder_attr_int(b, "start_time_nanos", CHAKRA_ATTR_INT64,
			                             (int64_t)(1000 * k + 10));
		if (rc == 0)
			rc = chakra_builder_attr_int(b, "duration_nanos", CHAKRA_ATTR_INT64, 500);
		if (rc == 0)
			rc = chakra_writer_write_node(w, b);
	}
	if (rc == 0)
		rc = chakra_writer_finish(w);
	if (rc < 0)
		fprintf(stderr, "mkhostile: %s: %s\n", path, w ? chakra_writer_errmsg(w) : "out of memory");
	chakra_writer_close(w);
	chakra_builder_free(b);
	return rc < 0 ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc < 4)
		return usage();
	const char *mode = argv[1];
	uint64_t n = strtoull(argv[2], NULL, 0);
	if (!strcmp(mode, "resources") || !strcmp(mode, "resources-benign") ||
	    !strcmp(mode, "windows") || !strcmp(mode, "path"))
		return write_et(argv[3], !strncmp(mode, "resources", 9) ? "resources" : mode, n,
		                !strcmp(mode, "resources-benign"));
	const char *out = argv[3];
	uint64_t t = 0;
	if (!strcmp(mode, "syncs")) {
		if (argc < 5)
			return usage();
		t = strtoull(argv[3], NULL, 0);
		out = argv[4];
	}
	FILE *f = fopen(out, "w");
	if (!f) {
		perror(out);
		return 1;
	}
	int rc;
	if (!strcmp(mode, "names") || !strcmp(mode, "names-benign"))
		rc = names(f, n, mode[5] == '-');
	else if (!strcmp(mode, "threads") || !strcmp(mode, "threads-benign"))
		rc = threads(f, n, mode[7] == '-');
	else if (!strcmp(mode, "gaps") || !strcmp(mode, "gaps-benign"))
		rc = gaps(f, n, mode[4] == '-');
	else if (!strcmp(mode, "syncs"))
		rc = syncs(f, n, t);
	else if (!strcmp(mode, "ranges"))
		rc = ranges(f, n);
	else if (!strcmp(mode, "groups"))
		rc = groups(f, n);
	else if (!strcmp(mode, "model"))
		rc = model(f, n);
	else
		rc = usage();
	if (fclose(f) != 0)
		rc = 1;
	return rc;
}
