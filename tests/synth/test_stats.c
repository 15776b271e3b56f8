/* SPDX-License-Identifier: Apache-2.0 */
/* The synth module's statistics, white-box: KS, histograms, the binned
 * log-space mixture fit (recovery of known mixtures, exact atoms, BIC), the
 * Markov chain (order by held-out likelihood, transition matrix recovery,
 * sampling to exact counts), the interval probabilities far in the tails,
 * and the op-class rules. Fixed seeds: every number here is reproducible. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "synth_impl.h"

static void test_ks(void)
{
	uint64_t a[] = { 1, 2, 3, 4 }, b[] = { 1, 2, 3, 4 }, c[] = { 5, 6, 7, 8 };
	CHECK(chakra__sy_ks(a, 4, b, 4) == 0.0);
	CHECK(chakra__sy_ks(a, 4, c, 4) == 1.0);
	/* Ties step together: {1,1,2} vs {1,2,2}: after 1: 2/3 vs 1/3. */
	uint64_t d[] = { 1, 1, 2 }, e[] = { 1, 2, 2 };
	CHECK(fabs(chakra__sy_ks(d, 3, e, 3) - 1.0 / 3) < 1e-12);
	uint64_t f[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 }, g[] = { 3 };
	CHECK(fabs(chakra__sy_ks(f, 10, g, 1) - 0.7) < 1e-12); /* at 3: .3 vs 1 */
	CHECK(chakra__sy_ks(f, 10, g, 0) == 1.0);
}

static void test_hist(void)
{
	sy_vec v = { 0 };
	uint64_t x[] = { 5, 1, 5, 3, 5, 1 };
	for (size_t i = 0; i < 6; i++)
		CHECK(chakra__sy_vec_push(&v, x[i]) == 0);
	sy_hist h;
	CHECK(chakra__sy_hist_from(&h, &v) == 0);
	CHECK_EQ_U(h.n, 3);
	CHECK_EQ_U(h.total, 6);
	CHECK(h.v[0] == 1 && h.c[0] == 2 && h.v[1] == 3 && h.c[1] == 1 && h.v[2] == 5 && h.c[2] == 3);
	CHECK_EQ_U(chakra__sy_hist_quantile(&h, 0.01), 1);
	CHECK_EQ_U(chakra__sy_hist_quantile(&h, 0.30), 1);  /* P(X <= 1) = 2/6 */
	CHECK_EQ_U(chakra__sy_hist_quantile(&h, 0.34), 3);
	CHECK_EQ_U(chakra__sy_hist_quantile(&h, 0.40), 3);
	CHECK_EQ_U(chakra__sy_hist_quantile(&h, 0.99), 5);
	CHECK(fabs(chakra__sy_hist_mean(&h) - 20.0 / 6) < 1e-12);
	chakra__sy_hist_free(&h);
	chakra__sy_vec_free(&v);
}

static void test_interval(void)
{
	/* Against the plain difference where it is accurate. */
	double pts[][2] = { { -1, 1 }, { 0.5, 2 }, { -3, -2.5 }, { 1.2, 1.2000001 }, { -INFINITY, 0 } };
	for (size_t i = 0; i < 5; i++) {
		double a = pts[i][0], b = pts[i][1];
		double ref = log(chakra__sy_phi_cdf(b) - chakra__sy_phi_cdf(a));
		double got = chakra__sy_log_interval(a, b);
		CHECK_MSG(fabs(got - ref) < 1e-6 * fabs(ref) + 1e-9, "[%g, %g]: %.12g vs %.12g", a, b, got,
		          ref);
	}
	/* Far tails stay finite and ordered: P([-41, -40]) < P([-40, -39]). */
	double t1 = chakra__sy_log_interval(-41, -40), t2 = chakra__sy_log_interval(-40, -39);
	CHECK(isfinite(t1) && isfinite(t2) && t1 < t2);
	CHECK(fabs(chakra__sy_log_interval(39, 40) - t2) < 1e-9);
	/* Tiny bin far out: midpoint rule, log phi(m) + log w. */
	double w = 1e-9, m = 30;
	CHECK(fabs(chakra__sy_log_interval(m - w / 2, m + w / 2) - (-0.5 * m * m - 0.918938533204673 + log(w))) < 1e-4); /* w itself is only known to 4e-6 */
}

/* Draw n integers floor(exp(y)), y from a mixture. */
static void draw(sy_rng *r, const double *w, const double *mu, const double *sd, int k, size_t n,
                 sy_vec *out)
{
	for (size_t i = 0; i < n; i++) {
		double u = chakra__sy_rng_uniform(r), c = 0;
		int j = 0;
		for (j = 0; j < k - 1; j++) {
			c += w[j];
			if (u < c)
				break;
		}
		double y = mu[j] + sd[j] * chakra__sy_rng_normal(r);
		CHECK(chakra__sy_vec_push(out, (uint64_t)floor(exp(y))) == 0);
	}
}

static void test_gmm_recovery(void)
{
	sy_rng r;
	chakra__sy_rng_seed(&r, 42);
	double w[] = { 0.3, 0.7 }, mu[] = { log(1e5), log(1e7) }, sd[] = { 0.3, 0.5 };
	sy_vec v = { 0 };
	draw(&r, w, mu, sd, 2, 1500, &v);
	sy_hist h;
	CHECK(chakra__sy_hist_from(&h, &v) == 0);
	sy_gmm g;
	CHECK(chakra__sy_gmm_fit(&g, &h, 5, 0) == 0);
	CHECK_MSG(g.k == 2, "BIC chose %d components (BIC %g %g %g)", g.k, g.bic[0], g.bic[1], g.bic[2]);
	if (g.k == 2) {
		/* Tolerances: ~4 standard errors for n = 1500 (sd of a mean
		 * 0.5/sqrt(1050) = 0.015; of a weight sqrt(.21/1500) = 0.012). */
		for (int j = 0; j < 2; j++) {
			CHECK_MSG(fabs(g.mu[j] - mu[j]) < 0.06, "mean %d: %g vs %g", j, g.mu[j], mu[j]);
			CHECK_MSG(fabs(g.w[j] - w[j]) < 0.05, "weight %d: %g vs %g", j, g.w[j], w[j]);
			CHECK_MSG(fabs(g.sd[j] / sd[j] - 1) < 0.15, "sd %d: %g vs %g", j, g.sd[j], sd[j]);
		}
	}
	/* Sampled back at its quantiles, the fit is close to the data. */
	uint64_t *s = malloc(1500 * sizeof *s);
	for (size_t i = 0; i < 1500; i++)
		s[i] = chakra__sy_gmm_value(&g, (i + 0.5) / 1500);
	CHECK_MSG(chakra__sy_ks(v.p, v.n, s, 1500) < 0.05, "KS %g", chakra__sy_ks(v.p, v.n, s, 1500));
	free(s);
	chakra__sy_hist_free(&h);
	chakra__sy_vec_free(&v);
}

/* Values that repeat exactly come back exactly, each with its share. */
static void test_gmm_atoms(void)
{
	uint64_t vals[] = { 212480, 424, 8196000, 26255360, 26550272, 9724160, 31502336 };
	uint64_t reps[] = { 3, 1, 5, 5, 5, 2, 1 };
	sy_vec v = { 0 };
	size_t n = 0;
	for (size_t i = 0; i < 7; i++)
		for (uint64_t k = 0; k < reps[i]; k++, n++)
			chakra__sy_vec_push(&v, vals[i]);
	sy_hist h;
	chakra__sy_hist_from(&h, &v);
	sy_gmm g;
	CHECK(chakra__sy_gmm_fit(&g, &h, 8, 0) == 0);
	CHECK_MSG(g.k == 7, "%d components for 7 repeated values", g.k);
	uint64_t *s = malloc(n * sizeof *s);
	for (size_t i = 0; i < n; i++)
		s[i] = chakra__sy_gmm_value(&g, (i + 0.5) / (double)n);
	/* Stratified draws hit every value exactly as often as in the data. */
	CHECK_MSG(chakra__sy_ks(v.p, n, s, n) == 0.0, "KS %g", chakra__sy_ks(v.p, n, s, n));
	free(s);
	/* A floor on the sd (obfuscation) blurs them. */
	sy_gmm b;
	CHECK(chakra__sy_gmm_fit(&b, &h, 8, 0.05) == 0);
	for (int j = 0; j < b.k; j++)
		CHECK(b.sd[j] >= 0.05);
	chakra__sy_hist_free(&h);
	chakra__sy_vec_free(&v);
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return a < b ? -1 : a > b;
}

/* Microsecond durations: small integers, many of them 1 or 2. */
static void test_gmm_small_integers_ks(void)
{
	sy_rng r;
	chakra__sy_rng_seed(&r, 7);
	double w[] = { 0.6, 0.4 }, mu[] = { log(2.0), log(40.0) }, sd[] = { 0.6, 0.4 };
	sy_vec v = { 0 };
	draw(&r, w, mu, sd, 2, 1000, &v);
	sy_hist h;
	chakra__sy_hist_from(&h, &v); /* sorts v */
	sy_gmm g;
	CHECK(chakra__sy_gmm_fit(&g, &h, 6, 0) == 0);
	uint64_t *s = malloc(1000 * sizeof *s);
	for (size_t i = 0; i < 1000; i++)
		s[i] = chakra__sy_gmm_value(&g, (i + 0.5) / 1000);
	qsort(s, 1000, sizeof *s, cmp_u64);
	double ks = chakra__sy_ks(v.p, v.n, s, 1000);
	CHECK_MSG(ks < 0.05, "KS %g on small integers (k = %d)", ks, g.k);
	free(s);
	chakra__sy_hist_free(&h);
	chakra__sy_vec_free(&v);
}

/* An order-1 chain over 3 symbols; fit must choose order 1 and recover the
 * matrix; an order-2 chain must get order 2. */
static void test_markov(void)
{
	const double P[3][3] = { { 0.1, 0.6, 0.3 }, { 0.5, 0.2, 0.3 }, { 0.3, 0.3, 0.4 } };
	sy_rng r;
	chakra__sy_rng_seed(&r, 3);
	size_t n = 4000;
	int32_t *s = malloc(n * sizeof *s);
	int cur = 0;
	for (size_t i = 0; i < n; i++) {
		double u = chakra__sy_rng_uniform(&r), c = 0;
		int j;
		for (j = 0; j < 2; j++) {
			c += P[cur][j];
			if (u < c)
				break;
		}
		s[i] = cur = j;
	}
	const int32_t *seqs[] = { s };
	size_t lens[] = { n };
	sy_markov m;
	CHECK(chakra__sy_markov_fit(&m, 3, seqs, lens, 1, 3) == 0);
	CHECK_MSG(m.order == 1, "order %d (held-out %g %g %g %g)", m.order, m.heldout[0],
	          m.heldout[1], m.heldout[2], m.heldout[3]);
	if (m.order == 1) {
		double Q[9];
		CHECK(chakra__sy_markov_matrix(&m, Q) == 0);
		/* ~4 standard errors: sqrt(.25 / 1300) = 0.014. */
		for (int i = 0; i < 3; i++)
			for (int j = 0; j < 3; j++)
				CHECK_MSG(fabs(Q[i * 3 + j] - P[i][j]) < 0.05, "P[%d][%d] = %g, fitted %g", i, j,
				          P[i][j], Q[i * 3 + j]);
		/* Sampling to exact counts keeps the transitions. */
		uint64_t target[3] = { 0, 0, 0 };
		for (size_t i = 0; i < n; i++)
			target[s[i]]++;
		int32_t *o = malloc(n * sizeof *o);
		CHECK(chakra__sy_markov_sample(&m, &r, target, o, n) == 0);
		uint64_t got[3] = { 0, 0, 0 }, tr[9] = { 0 };
		for (size_t i = 0; i < n; i++) {
			got[o[i]]++;
			if (i)
				tr[o[i - 1] * 3 + o[i]]++;
		}
		for (int i = 0; i < 3; i++)
			CHECK_EQ_U(got[i], target[i]);
		for (int i = 0; i < 3; i++) {
			double row = (double)(tr[i * 3] + tr[i * 3 + 1] + tr[i * 3 + 2]);
			for (int j = 0; j < 3; j++)
				CHECK_MSG(fabs(tr[i * 3 + j] / row - P[i][j]) < 0.06,
				          "sampled transition %d->%d: %g vs %g", i, j, tr[i * 3 + j] / row, P[i][j]);
		}
		free(o);
	}
	chakra__sy_markov_free(&m);
	/* Order 2: the next symbol is the xor of the two before, with noise. */
	for (size_t i = 0; i < n; i++)
		s[i] = i < 2 ? (int32_t)i : (chakra__sy_rng_uniform(&r) < 0.9 ? (s[i - 1] ^ s[i - 2]) & 1
		                                                              : (int32_t)chakra__sy_rng_below(&r, 2));
	CHECK(chakra__sy_markov_fit(&m, 2, seqs, lens, 1, 3) == 0);
	CHECK_MSG(m.order == 2, "order %d for an order-2 chain", m.order);
	chakra__sy_markov_free(&m);
	free(s);
}

static void test_classes(void)
{
	const struct {
		const char *name;
		const char *kind;
	} cases[] = {
		{ "aten::mm", "gemm" },
		{ "maxwell_sgemm_64x64_nt", "gemm" },
		{ "block3_qkv_fwd", "gemm" },
		{ "fc1_wg", "gemm" },
		{ "aten::convolution_backward", "conv" },
		{ "cask_cudnn_infer::computeOffsetsKernel<false, false>", "conv" },
		{ "void cudnn::bn_fw_tr_1C11_singleread<float, 512, true, 1, 2, 10>", "norm" },
		{ "aten::batch_norm", "norm" },
		{ "aten::copy_", "memcpy" },
		{ "Memcpy DtoD ", "memcpy" },
		{ "aten::flatten_dense_tensors", "memcpy" },
		{ "aten::detach", "view" },
		{ "aten::as_strided", "view" },
		{ "aten::t", "view" },
		{ "aten::relu_", "elementwise" },
		{ "void at::native::vectorized_elementwise_kernel<4, at::native::AUnaryFunctor<float>>",
		  "elementwise" },
		{ "aten::_foreach_add_", "optimizer" },
		{ "block0_attention_fwd", "attention" },
		{ "embedding_fwd", "embedding" },
		{ "interaction_fwd", "compute" },
		{ "void at::native::", "compute" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *k = chakra__sy_kind_of_name(cases[i].name, strlen(cases[i].name));
		CHECK_MSG(!strcmp(k, cases[i].kind), "'%s' -> %s, expected %s", cases[i].name, k,
		          cases[i].kind);
	}
	/* The vocabulary: every name found back, no duplicates. */
	int n = chakra__sy_class_count();
	CHECK(n > 10);
	for (int i = 0; i < n; i++) {
		CHECK(chakra__sy_class_find(chakra__sy_class_name(i)) == i);
		CHECK(chakra__sy_class_find(chakra__sy_class_name(i)) == i);
	}
	CHECK(chakra__sy_class_find("aten::mm") < 0);
	CHECK(chakra__sy_bucket(0) == 0 && chakra__sy_bucket(1) == 1 && chakra__sy_bucket(2) == 2);
	CHECK(chakra__sy_bucket(3) == 3 && chakra__sy_bucket(4) == 3 && chakra__sy_bucket(5) == 4);
	for (uint64_t d = 1; d < 5000; d++) {
		int b = chakra__sy_bucket(d);
		CHECK_MSG(d >= chakra__sy_bucket_lo(b) && d <= chakra__sy_bucket_hi(b), "d %llu bucket %d",
		          (unsigned long long)d, b);
	}
}

static void test_rng(void)
{
	sy_rng a, b;
	chakra__sy_rng_seed(&a, 99);
	chakra__sy_rng_seed(&b, 99);
	for (int i = 0; i < 100; i++)
		CHECK(chakra__sy_rng_u64(&a) == chakra__sy_rng_u64(&b));
	/* Pinned: the stream is part of "same seed, same bytes" across builds. */
	chakra__sy_rng_seed(&a, 0);
	CHECK_EQ_U(chakra__sy_rng_u64(&a), 0x99ec5f36cb75f2b4ULL);
	double s = 0, s2 = 0;
	for (int i = 0; i < 20000; i++) {
		double z = chakra__sy_rng_normal(&a);
		s += z;
		s2 += z * z;
	}
	CHECK(fabs(s / 20000) < 0.03 && fabs(s2 / 20000 - 1) < 0.05);
}

int main(void)
{
	test_ks();
	test_hist();
	test_interval();
	test_gmm_recovery();
	test_gmm_atoms();
	test_gmm_small_integers_ks();
	test_markov();
	test_classes();
	test_rng();
	return check_done();
}
