/* SPDX-License-Identifier: Apache-2.0 */
/* Fit -> sample round trip on a trace drawn from known distributions.
 *
 * The trace (one rank, written with the public writer): 1,500 collectives
 * whose types follow an order-1 Markov chain P over ALL_REDUCE, ALL_GATHER
 * and REDUCE_SCATTER; sizes from a known log-normal mixture per type; 1 to
 * 3 compute nodes before each collective, GEMMs (two-component duration
 * mixture) or elementwise ops (one component), in one dependency chain; an
 * all-reduce blocks the compute node after it, the others block nothing.
 * The fit must find: the chain's order (1) and matrix, each mixture's
 * component count (by BIC), means and weights. Tolerances are about three
 * standard errors of the estimates at these sample sizes (stated at each
 * check), and the seed is fixed, so the result is reproducible.
 *
 * Then: MODEL.json round trip (bytes), parser errors naming the JSON path,
 * and sampling: 8 ranks, same seed -> same bytes, every rank the same
 * collectives, parents before children, and the sampled sizes and
 * durations close to the fitted traces (KS). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "synth_impl.h"

static const int types[3] = { CHAKRA_ALL_REDUCE, CHAKRA_ALL_GATHER, CHAKRA_REDUCE_SCATTER };
static const double P[3][3] = { { 0.2, 0.5, 0.3 }, { 0.6, 0.1, 0.3 }, { 0.3, 0.4, 0.3 } };
/* Sizes per type: weights, means of ln(bytes), sds. */
static const double SW[3][2] = { { 0.3, 0.7 }, { 1.0, 0 }, { 0.5, 0.5 } };
static const double SM[3][2] = { { 13.8155, 17.2167 }, { 15.2018, 0 }, { 12.2061, 15.4249 } };
static const double SS[3][2] = { { 0.2, 0.1 }, { 0.3, 0 }, { 0.15, 0.15 } };
static const int SK[3] = { 2, 1, 2 };
/* Durations (ns): gemm two components, elementwise one. */
static const double GW[2] = { 0.5, 0.5 }, GM[2] = { 12.2061, 13.5924 }, GS[2] = { 0.1, 0.1 };
static const double EM_ = 8.0064, ES = 0.4;

#define NCOLL 1500

static double mix(sy_rng *r, const double *w, const double *m, const double *s, int k)
{
	double u = chakra__sy_rng_uniform(r);
	int j = (k == 2 && u >= w[0]) ? 1 : 0;
	return m[j] + s[j] * chakra__sy_rng_normal(r);
}

static int write_known(const char *path)
{
	sy_rng r;
	chakra__sy_rng_seed(&r, 2024);
	chakra_writer_options wo = CHAKRA_WRITER_OPTIONS_INIT;
	wo.overwrite = 1;
	chakra_writer *w;
	if (chakra_writer_open(&w, path, &wo) < 0 || chakra_writer_write_metadata(w, "0.0.4", NULL) < 0)
		return -1;
	chakra_builder *b = chakra_builder_new();
	uint64_t id = 0;
	int64_t prev = -1, blocking = -1;
	int cur = 0;
	for (int c = 0; c < NCOLL; c++) {
		int gap = 1 + (int)chakra__sy_rng_below(&r, 3);
		for (int g = 0; g < gap; g++) {
			int gemm = chakra__sy_rng_uniform(&r) < 0.6;
			double y = gemm ? mix(&r, GW, GM, GS, 2) : EM_ + ES * chakra__sy_rng_normal(&r);
			chakra_builder_reset(b);
			chakra_builder_set_id(b, id);
			chakra_builder_set_name(b, gemm ? "layer_gemm" : "layer_relu", (size_t)-1);
			chakra_builder_set_type(b, CHAKRA_COMP_NODE);
			if (prev >= 0)
				chakra_builder_add_data_dep(b, (uint64_t)prev);
			if (blocking >= 0)
				chakra_builder_add_data_dep(b, (uint64_t)blocking);
			blocking = -1;
			chakra_builder_attr_int(b, "is_cpu_op", CHAKRA_ATTR_BOOL, 0);
			chakra_builder_attr_uint(b, "duration_nanos", CHAKRA_ATTR_UINT64,
			                         (uint64_t)floor(exp(y)));
			if (chakra_writer_write_node(w, b) < 0)
				return -1;
			prev = (int64_t)id++;
		}
		double y = mix(&r, SW[cur], SM[cur], SS[cur], SK[cur]);
		chakra_builder_reset(b);
		chakra_builder_set_id(b, id);
		chakra_builder_set_name(b, "nccl:all_reduce", (size_t)-1);
		chakra_builder_set_type(b, CHAKRA_COMM_COLL_NODE);
		chakra_builder_add_data_dep(b, (uint64_t)prev);
		chakra_builder_attr_int(b, "is_cpu_op", CHAKRA_ATTR_BOOL, 0);
		chakra_builder_attr_int(b, "comm_type", CHAKRA_ATTR_INT64, types[cur]);
		chakra_builder_attr_int(b, "comm_size", CHAKRA_ATTR_INT64, (int64_t)floor(exp(y)));
		if (chakra_writer_write_node(w, b) < 0)
			return -1;
		if (types[cur] == CHAKRA_ALL_REDUCE)
			blocking = (int64_t)id;
		id++;
		/* Next type. */
		double u = chakra__sy_rng_uniform(&r), acc = 0;
		int nx = 2;
		for (int j = 0; j < 3; j++) {
			acc += P[cur][j];
			if (u < acc) {
				nx = j;
				break;
			}
		}
		cur = nx;
	}
	/* A last compute node, so the last all-reduce blocks something too. */
	chakra_builder_reset(b);
	chakra_builder_set_id(b, id);
	chakra_builder_set_name(b, "layer_relu", (size_t)-1);
	chakra_builder_set_type(b, CHAKRA_COMP_NODE);
	chakra_builder_add_data_dep(b, (uint64_t)prev);
	if (blocking >= 0)
		chakra_builder_add_data_dep(b, (uint64_t)blocking);
	chakra_builder_attr_int(b, "is_cpu_op", CHAKRA_ATTR_BOOL, 0);
	chakra_builder_attr_uint(b, "duration_nanos", CHAKRA_ATTR_UINT64, 3000);
	if (chakra_writer_write_node(w, b) < 0)
		return -1;
	chakra_builder_free(b);
	int rc = chakra_writer_finish(w);
	chakra_writer_close(w);
	return rc;
}

static int type_index(int ct)
{
	for (int i = 0; i < 3; i++)
		if (types[i] == ct)
			return i;
	return -1;
}

static void check_fit(const chakra_synth_model *m)
{
	CHECK_EQ_U(m->ncoll, 3);
	CHECK_EQ_U(m->ntok, 3); /* one overlap bucket per type */
	CHECK_EQ_U(m->ranks, 1);
	CHECK_EQ_U(m->quantum_ns, 1);
	/* Collective sizes: count by BIC, means within 0.06 in ln (~3 SE at
	 * n >= 300 and sd <= 0.3), weights within 0.06. */
	for (size_t i = 0; i < m->ncoll; i++) {
		const sy_coll *c = &m->coll[i];
		int t = type_index(c->comm_type);
		CHECK(t >= 0);
		if (t < 0)
			continue;
		CHECK_MSG(c->size.k == SK[t], "%s: %d components, expected %d",
		          chakra_comm_type_name(c->comm_type), c->size.k, SK[t]);
		if (c->size.k != SK[t])
			continue;
		for (int j = 0; j < SK[t]; j++) {
			CHECK_MSG(fabs(c->size.mu[j] - SM[t][j]) < 0.06, "%s mean %d: %g vs %g",
			          chakra_comm_type_name(c->comm_type), j, c->size.mu[j], SM[t][j]);
			CHECK_MSG(fabs(c->size.w[j] - SW[t][j]) < 0.06, "%s weight %d: %g vs %g",
			          chakra_comm_type_name(c->comm_type), j, c->size.w[j], SW[t][j]);
			CHECK_MSG(fabs(c->size.sd[j] / SS[t][j] - 1) < 0.2, "%s sd %d: %g vs %g",
			          chakra_comm_type_name(c->comm_type), j, c->size.sd[j], SS[t][j]);
		}
	}
	/* Durations. */
	int seen = 0;
	for (size_t i = 0; i < m->ncls; i++) {
		const sy_class *c = &m->cls[i];
		const char *name = chakra__sy_class_name(c->vocab);
		if (!strcmp(name, "gpu.gemm")) {
			seen++;
			CHECK_MSG(c->dur.k == 2, "gemm durations: %d components", c->dur.k);
			for (int j = 0; j < 2 && c->dur.k == 2; j++) {
				CHECK_MSG(fabs(c->dur.mu[j] - GM[j]) < 0.03, "gemm mean %d: %g", j, c->dur.mu[j]);
				CHECK_MSG(fabs(c->dur.w[j] - GW[j]) < 0.05, "gemm weight %d: %g", j, c->dur.w[j]);
			}
		} else if (!strcmp(name, "gpu.elementwise")) {
			seen++;
			CHECK_MSG(c->dur.k == 1, "elementwise durations: %d components", c->dur.k);
			CHECK_MSG(fabs(c->dur.mu[0] - EM_) < 0.05, "elementwise mean %g", c->dur.mu[0]);
			CHECK_MSG(fabs(c->dur.sd[0] / ES - 1) < 0.15, "elementwise sd %g", c->dur.sd[0]);
		}
	}
	CHECK_EQ_U(seen, 2);
	CHECK_EQ_U(m->ncls, 2);
	/* The chain: order 1; token i is type... map through the tokens.
	 * Rows have ~500 transitions: SE <= 0.022, tolerance 0.07. */
	CHECK_MSG(m->cseq.order == 1, "order %d (held-out %g %g %g %g)", m->cseq.order,
	          m->cseq.heldout[0], m->cseq.heldout[1], m->cseq.heldout[2], m->cseq.heldout[3]);
	if (m->cseq.order == 1 && m->ntok == 3) {
		double Q[9];
		CHECK(chakra__sy_markov_matrix(&m->cseq, Q) == 0);
		for (int a = 0; a < 3; a++)
			for (int b = 0; b < 3; b++) {
				int ta = type_index(m->coll[m->tok[a].coll].comm_type);
				int tb = type_index(m->coll[m->tok[b].coll].comm_type);
				CHECK_MSG(fabs(Q[a * 3 + b] - P[ta][tb]) < 0.07, "P[%d][%d] = %g, fitted %g", ta,
				          tb, P[ta][tb], Q[a * 3 + b]);
			}
	}
	/* Overlap: the all-reduce blocks the next compute node, the others
	 * nothing. */
	for (size_t i = 0; i < m->ntok; i++) {
		int t = type_index(m->coll[m->tok[i].coll].comm_type);
		CHECK_MSG(m->tok[i].bucket == (t == 0 ? 1 : 0), "type %d: overlap bucket %d", t,
		          m->tok[i].bucket);
	}
}

static void check_json(const chakra_synth_model *m)
{
	size_t len;
	char *j = chakra_synth_model_json(m, &len);
	CHECK(j != NULL);
	if (!j)
		return;
	chakra_synth_model *m2;
	char err[512];
	int rc = chakra_synth_model_parse(&m2, "m.json", j, len, err, sizeof err);
	CHECK_MSG(rc == 0, "%s", err);
	if (rc == 0) {
		size_t len2;
		char *j2 = chakra_synth_model_json(m2, &len2);
		CHECK(j2 && len2 == len && !memcmp(j, j2, len));
		chakra_free(j2);
		chakra_synth_model_free(m2);
	}
	/* Broken models: the message names the value's JSON path. */
	struct {
		const char *from, *to, *expect;
	} cases[] = {
		{ "\"format\": \"chakra-synth-model\"", "\"format\": \"x\"", "m.json: format: expected" },
		{ "\"version\": 1", "\"version\": 2", "m.json: version: expected an integer in [1, 1]" },
		{ "\"ranks\": 1", "\"ranks\": 0", "m.json: ranks:" },
		{ "\"name\": \"gpu.elementwise\"", "\"name\": \"layer_relu\"",
		  "compute_classes[1].name: not an op class" },
		{ "\"group\": \"all\"", "\"group\": \"ring:3\"", "collectives[0].group: expected" },
		{ "\"comm_type\": \"ALL_REDUCE\"", "\"comm_type\": \"ALL_SHUFFLE\"",
		  "collectives[0].comm_type: not a collective type" },
		{ "\"sd\": ", "\"sd\": -", "compute_classes[0].duration.components[0].sd:" },
		{ "{\"weight\": ", "{\"weight\": 0.25, \"x\": ", "compute_classes[0].duration.components: weights add up to" },
		{ "\"order\": 1", "\"order\": 9", "collective_sequence.order:" },
		{ "\"fanin\": [[", "\"fanin\": [[-", "compute_classes[0].fanin[0]:" },
		{ "\"overlap\": 0", "\"overlap\": 99", "collective_tokens[1].overlap:" },
		{ "\"duration_quantum_ns\": 1,", "", "duration_quantum_ns: missing" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *at = strstr(j, cases[i].from);
		CHECK_MSG(at != NULL, "case %zu: '%s' not in the model", i, cases[i].from);
		if (!at)
			continue;
		size_t fl = strlen(cases[i].from), tl = strlen(cases[i].to);
		char *bad = malloc(len + tl + 1);
		memcpy(bad, j, (size_t)(at - j));
		memcpy(bad + (at - j), cases[i].to, tl);
		memcpy(bad + (at - j) + tl, at + fl, len - (size_t)(at - j) - fl);
		size_t bl = len - fl + tl;
		chakra_synth_model *mb = NULL;
		err[0] = 0;
		rc = chakra_synth_model_parse(&mb, "m.json", bad, bl, err, sizeof err);
		CHECK_MSG(rc < 0 && strstr(err, cases[i].expect), "case %zu: rc %d, '%s' (want '%s')", i, rc,
		          err, cases[i].expect);
		chakra_synth_model_free(mb);
		free(bad);
	}
	/* Not JSON, truncated, a NUL byte. */
	chakra_synth_model *mb = NULL;
	rc = chakra_synth_model_parse(&mb, "m.json", j, len / 2, err, sizeof err);
	CHECK_MSG(rc < 0 && strstr(err, "m.json: not JSON"), "%s", err);
	char nul[] = "{\"format\0\": 1}";
	rc = chakra_synth_model_parse(&mb, "m.json", nul, sizeof nul - 1, err, sizeof err);
	CHECK_MSG(rc < 0 && strstr(err, "byte 8: NUL"), "%s", err);
	chakra_free(j);
}

/* All ranks: same collectives (type, size), parents before children. */
static void check_ranks(const char *prefix, uint32_t npus, uint64_t *nodes)
{
	char path[512];
	uint64_t *sizes0 = NULL;
	size_t nsz0 = 0;
	for (uint32_t r = 0; r < npus; r++) {
		snprintf(path, sizeof path, "%s.%u.et", prefix, r);
		chakra_reader *rd;
		int rc = chakra_reader_open(&rd, path, NULL);
		CHECK_MSG(rc == 0, "%s", rd ? chakra_reader_errmsg(rd) : path);
		if (rc < 0) {
			chakra_reader_close(rd);
			continue;
		}
		const chakra_node *n;
		uint64_t count = 0;
		size_t nsz = 0, cap = 0;
		uint64_t *sizes = NULL;
		while ((rc = chakra_reader_next(rd, &n)) > 0) {
			CHECK(chakra_node_id(n) == count);
			const uint64_t *d = chakra_node_data_deps(n);
			for (size_t i = 0; i < chakra_node_data_dep_count(n); i++)
				CHECK(d[i] < count);
			int64_t ct;
			uint64_t sz;
			if (chakra_node_comm_type(n, &ct) == 0 && chakra_node_comm_size(n, &sz) == 0) {
				if (nsz == cap) {
					cap = cap ? cap * 2 : 256;
					sizes = realloc(sizes, cap * sizeof *sizes);
				}
				sizes[nsz++] = sz * 16 + (uint64_t)ct;
			}
			/* Names come from the vocabulary or are collective names. */
			size_t nl;
			const char *name = chakra_node_name(n, &nl);
			CHECK_MSG(chakra__sy_class_find(name) >= 0 || chakra_comm_type_from_name(name) >= 0,
			          "name '%s'", name);
			count++;
		}
		CHECK(rc == 0);
		chakra_reader_close(rd);
		if (r == 0) {
			sizes0 = sizes;
			nsz0 = nsz;
			*nodes = count;
		} else {
			CHECK(count == *nodes);
			CHECK(nsz == nsz0 && !memcmp(sizes, sizes0, nsz * sizeof *sizes));
			free(sizes);
		}
	}
	free(sizes0);
}

static int same_file(const char *a, const char *b)
{
	size_t la = 0, lb = 0;
	unsigned char *x = slurp(a, &la), *y = slurp(b, &lb);
	int same = x && y && la == lb && !memcmp(x, y, la);
	free(x);
	free(y);
	return same;
}

int main(void)
{
	char dir[] = "/tmp/synth-rt-XXXXXX";
	if (!mkdtemp(dir))
		return 1;
	char trace[256], p1[256], p2[256], p3[256], path[512], path2[512];
	snprintf(trace, sizeof trace, "%s/known.0.et", dir);
	CHECK(write_known(trace) == 0);
	const char *paths[] = { trace };
	chakra_synth_model *m = NULL;
	char err[512];
	int rc = chakra_synth_fit(&m, paths, 1, NULL, err, sizeof err);
	CHECK_MSG(rc == 0, "%s", err);
	if (rc == 0) {
		check_fit(m);
		check_json(m);
		chakra_synth_sample_options so = CHAKRA_SYNTH_SAMPLE_OPTIONS_INIT;
		so.npus = 8;
		so.seed = 5;
		snprintf(p1, sizeof p1, "%s/a", dir);
		snprintf(p2, sizeof p2, "%s/b", dir);
		snprintf(p3, sizeof p3, "%s/c", dir);
		CHECK_MSG(chakra_synth_sample(m, p1, &so, err, sizeof err) == 0, "%s", err);
		CHECK_MSG(chakra_synth_sample(m, p2, &so, err, sizeof err) == 0, "%s", err);
		so.seed = 6;
		CHECK_MSG(chakra_synth_sample(m, p3, &so, err, sizeof err) == 0, "%s", err);
		/* Exists: refused without overwrite. */
		CHECK(chakra_synth_sample(m, p3, &so, err, sizeof err) < 0 && strstr(err, "exists"));
		for (int r = 0; r < 8; r++) {
			snprintf(path, sizeof path, "%s.%d.et", p1, r);
			snprintf(path2, sizeof path2, "%s.%d.et", p2, r);
			CHECK_MSG(same_file(path, path2), "seed 5, rank %d: files differ", r);
		}
		snprintf(path, sizeof path, "%s.0.et", p1);
		snprintf(path2, sizeof path2, "%s.0.et", p3);
		CHECK(!same_file(path, path2));
		uint64_t nodes = 0;
		check_ranks(p1, 8, &nodes);
		CHECK_MSG(nodes > 0 && fabs((double)nodes - m->nodes_per_rank) <= 1, "%llu nodes",
		          (unsigned long long)nodes);
		/* Distributions of the sample against the known trace. */
		snprintf(path, sizeof path, "%s.0.et", p1);
		const char *s[] = { path };
		chakra_synth_report *R;
		rc = chakra_synth_compare(&R, paths, 1, s, 1, err, sizeof err);
		CHECK_MSG(rc == 0, "%s", err);
		for (size_t i = 0; rc == 0 && i < chakra_synth_report_count(R); i++) {
			const chakra_synth_ks *k = chakra_synth_report_at(R, i);
			if (!strncmp(k->name, "size/", 5) || !strncmp(k->name, "duration/", 9) ||
			    !strcmp(k->name, "fanin") || !strcmp(k->name, "overlap") ||
			    !strcmp(k->name, "chain_length"))
				CHECK_MSG(k->ks <= 0.05, "%s: KS %g", k->name, k->ks);
		}
		if (rc == 0)
			chakra_synth_report_free(R);
		/* Groups that --npus must divide: none here, so 3 ranks work. */
		so.npus = 3;
		so.nodes = 100;
		so.overwrite = 1;
		CHECK_MSG(chakra_synth_sample(m, p3, &so, err, sizeof err) == 0, "%s", err);
		check_ranks(p3, 3, &nodes);
		CHECK_EQ_U(nodes, 100);
		chakra_synth_model_free(m);
	}
	/* A model is read up to 16 MiB: the parse tree takes ~23 bytes per
	 * byte (a 38 MB model took 883 MB); from memory and from a file */
	{
		size_t big = ((size_t)16 << 20) + 1;
		char *text = malloc(big);
		CHECK(text != NULL);
		if (text) {
			memset(text, ' ', big);
			text[0] = '{';
			text[big - 1] = '}';
			chakra_synth_model *bm = NULL;
			CHECK(chakra_synth_model_parse(&bm, "big.json", text, big, err, sizeof err) ==
			      CHAKRA_ETOOBIG);
			CHECK_MSG(strstr(err, "big.json: larger than 16 MiB"), "%s", err);
			snprintf(path, sizeof path, "%s/big.json", dir);
			FILE *f = fopen(path, "wb");
			if (f) {
				fwrite(text, 1, big, f);
				fclose(f);
			}
			CHECK(chakra_synth_model_load(&bm, path, err, sizeof err) == CHAKRA_ETOOBIG);
			CHECK_MSG(strstr(err, "larger than 16 MiB"), "%s", err);
			free(text);
		}
	}
	/* A group file is checked where it enters: a name defined twice */
	{
		snprintf(path, sizeof path, "%s/g.json", dir);
		FILE *f = fopen(path, "w");
		if (f) {
			fputs("{\"1\": [0, 1], \"2\": [2, 3], \"1\": [4, 5]}", f);
			fclose(f);
		}
		chakra_synth_fit_options fo = CHAKRA_SYNTH_FIT_OPTIONS_INIT;
		fo.comm_groups = path;
		chakra_synth_model *gm = NULL;
		CHECK(chakra_synth_fit(&gm, paths, 1, &fo, err, sizeof err) == CHAKRA_ECONFIG);
		CHECK_MSG(strstr(err, "g.json:1: group '1' is defined twice"), "%s", err);
		f = fopen(path, "w");
		if (f) {
			fputs("{\"1\": [0, 1, 0]}", f);
			fclose(f);
		}
		CHECK(chakra_synth_fit(&gm, paths, 1, &fo, err, sizeof err) == CHAKRA_ECONFIG);
		CHECK_MSG(strstr(err, "g.json:1: group '1': rank 0 is listed twice"), "%s", err);
	}
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	return check_done();
}
