/* SPDX-License-Identifier: Apache-2.0 */
/* Gaussian mixtures over log(x) fitted to integer data.
 *
 * Sizes and durations are integers, and often repeat exactly (every bucket
 * of a data-parallel all-reduce has the same size). A density fitted to
 * the points themselves would be unbounded on repeated values, so each
 * observation v is treated as what it is, the bin [v, v+1), and EM
 * maximises the probability of the bins (EM for grouped data: the E step
 * weighs each bin by the component's probability of it, the M step uses
 * the moments of the component truncated to the bin). A value that repeats
 * gets a component narrower than its bin, which samples back to exactly
 * that value; a spread of values gets a wide one. The number of components
 * is the one with the lowest BIC = -2 log L + (3k - 1) log n. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "synth_impl.h"

#define LOG_SQRT_2PI 0.91893853320467274178
#define MAX_ITER 300
#define RESTARTS 3

double chakra__sy_phi_cdf(double z)
{
	return 0.5 * erfc(-z * 0.70710678118654752440);
}

/* log Phi(z) for z <= 0, accurate in the far tail. */
static double log_phi_cdf_neg(double z)
{
	if (z > -30.0)
		return log(0.5 * erfc(-z * 0.70710678118654752440));
	double z2 = z * z;
	return -0.5 * z2 - log(-z) - LOG_SQRT_2PI +
	       log1p(-1.0 / z2 + 3.0 / (z2 * z2) - 15.0 / (z2 * z2 * z2));
}

static double log_pdf(double z)
{
	return isinf(z) ? -INFINITY : -0.5 * z * z - LOG_SQRT_2PI;
}

double chakra__sy_log_interval(double a, double b)
{
	if (!(b > a))
		return -INFINITY;
	double w = b - a;
	if (isfinite(a) && isfinite(b)) {
		double m = 0.5 * (a + b);
		/* Narrow bin: midpoint rule with its second-order term (exact to
		 * O((w m)^4)), where differences of CDFs would cancel. */
		if (w < 1e-3 && w * (fabs(m) + 1.0) < 0.1)
			return log_pdf(m) + log(w) + log1p(w * w * (m * m - 1.0) / 24.0);
	}
	if (a >= 0)
		return chakra__sy_log_interval(-b, -a);
	if (b <= 0) {
		double lb = log_phi_cdf_neg(b);
		if (isinf(a))
			return lb;
		double la = log_phi_cdf_neg(a);
		return lb + log(-expm1(la - lb));
	}
	/* a < 0 < b */
	double p = 1.0 - 0.5 * erfc(b * 0.70710678118654752440) -
	           (isinf(a) ? 0.0 : 0.5 * erfc(-a * 0.70710678118654752440));
	return log(p > 0 ? p : DBL_MIN);
}

/* Mean and variance of N(0,1) truncated to [a, b], given log P([a, b]). */
static void trunc_moments(double a, double b, double logz, double *mean, double *var)
{
	double w = b - a;
	if (isfinite(a) && isfinite(b)) {
		double m = 0.5 * (a + b);
		if (w < 1e-3 && w * (fabs(m) + 1.0) < 0.1) {
			*mean = m * (1.0 - w * w / 12.0);
			*var = w * w / 12.0;
			return;
		}
	}
	double ra = isinf(a) ? 0.0 : exp(log_pdf(a) - logz);
	double rb = isinf(b) ? 0.0 : exp(log_pdf(b) - logz);
	double e1 = ra - rb;
	double e2 = 1.0 + (isinf(a) ? 0.0 : a * ra) - (isinf(b) ? 0.0 : b * rb);
	if (e1 < a)
		e1 = a;
	if (e1 > b)
		e1 = b;
	double v = e2 - e1 * e1;
	if (!(v > 0))
		v = 0;
	if (isfinite(w) && v > w * w / 4.0)
		v = w * w / 4.0;
	if (!isfinite(v))
		v = 1.0;
	*mean = e1;
	*var = v;
}

/* The data as bins in log space. */
typedef struct bins {
	size_t n;
	double *a, *b, *mid, *c;
	double *lw;            /* log(b - a) */
	double total;
} bins;

static void bins_free(bins *B)
{
	chakra_free(B->a);
	chakra_free(B->b);
	chakra_free(B->mid);
	chakra_free(B->c);
	chakra_free(B->lw);
}

static int bins_make(bins *B, const sy_hist *h)
{
	memset(B, 0, sizeof *B);
	B->n = h->n;
	B->a = chakra_malloc((h->n + 1) * sizeof(double));
	B->b = chakra_malloc((h->n + 1) * sizeof(double));
	B->mid = chakra_malloc((h->n + 1) * sizeof(double));
	B->c = chakra_malloc((h->n + 1) * sizeof(double));
	B->lw = chakra_malloc((h->n + 1) * sizeof(double));
	if (!B->a || !B->b || !B->mid || !B->c || !B->lw) {
		bins_free(B);
		return CHAKRA_ENOMEM;
	}
	for (size_t i = 0; i < h->n; i++) {
		double v = (double)h->v[i];
		B->a[i] = h->v[i] ? log(v) : -INFINITY;
		B->b[i] = h->v[i] ? log(v) + log1p(1.0 / v) : 0.0;
		B->mid[i] = log(v + 0.5);
		/* log(log(v+1) - log(v)) = log(log1p(1/v)), accurate for large v */
		B->lw[i] = h->v[i] ? log(log1p(1.0 / v)) : INFINITY;
		B->c[i] = (double)h->c[i];
		B->total += B->c[i];
	}
	return 0;
}

static double sd_floor(double mu, double min_sd)
{
	/* A thousandth of the bin width at exp(mu): narrow enough that a
	 * repeated value samples back to itself, wide enough to stay finite. */
	double f = 1e-3 * log1p(exp(-mu));
	if (f < 1e-12)
		f = 1e-12;
	return f > min_sd ? f : min_sd;
}

/* One EM run from the initial values in g. Returns the final log L. */
/* log P(bin i) under component j, and the truncated moments (standard
 * units) of the component over the bin. The narrow-bin case, by far the
 * most common for sizes and nanosecond durations, is done inline from the
 * precomputed log widths: no erfc, one log. */
static inline double bin_logp(const bins *B, size_t i, double mu, double sd, double lsd,
                              double *za, double *zb, int *narrow)
{
	*za = (B->a[i] - mu) / sd;
	*zb = (B->b[i] - mu) / sd;
	double w = B->lw[i] - lsd; /* log of the width in standard units */
	if (isfinite(*za) && w < -6.9077552789821368) { /* width < 1e-3 */
		double m = 0.5 * (*za + *zb), wz = exp(w);
		if (wz * (fabs(m) + 1.0) < 0.1) {
			*narrow = 1;
			return -0.5 * m * m - LOG_SQRT_2PI + w + wz * wz * (m * m - 1.0) / 24.0;
		}
	}
	*narrow = 0;
	return chakra__sy_log_interval(*za, *zb);
}

/* One EM run from the initial values in g. Returns the final log L. */
static double em(sy_gmm *g, const bins *B, double min_sd, double *lp)
{
	double prev = -INFINITY, ll = -INFINITY;
	double *lz = lp + B->n * SY_MAXK; /* second half of the scratch */
	for (int it = 0; it < MAX_ITER; it++) {
		int k = g->k;
		double N[SY_MAXK] = { 0 }, S1[SY_MAXK] = { 0 }, S2[SY_MAXK] = { 0 };
		double lw[SY_MAXK], lsd[SY_MAXK];
		for (int j = 0; j < k; j++) {
			lw[j] = log(g->w[j]);
			lsd[j] = log(g->sd[j]);
		}
		ll = 0;
		for (size_t i = 0; i < B->n; i++) {
			double mx = -INFINITY;
			double za[SY_MAXK], zb[SY_MAXK];
			int narrow[SY_MAXK];
			for (int j = 0; j < k; j++) {
				double z = bin_logp(B, i, g->mu[j], g->sd[j], lsd[j], &za[j], &zb[j], &narrow[j]);
				lz[i * SY_MAXK + j] = z;
				double v = lw[j] + z;
				lp[i * SY_MAXK + j] = v;
				if (v > mx)
					mx = v;
			}
			if (isinf(mx)) {
				/* No component reaches this bin at all (underflow far
				 * out): credit it to the nearest one. */
				int best = 0;
				double bd = INFINITY;
				for (int j = 0; j < k; j++) {
					double d = fabs(B->mid[i] - g->mu[j]) / g->sd[j];
					if (d < bd) {
						bd = d;
						best = j;
					}
				}
				for (int j = 0; j < k; j++)
					lp[i * SY_MAXK + j] = j == best ? 0 : -INFINITY;
				ll += B->c[i] * -745.0;
			} else {
				double sum = 0;
				for (int j = 0; j < k; j++)
					sum += exp(lp[i * SY_MAXK + j] - mx);
				double lse = mx + log(sum);
				ll += B->c[i] * lse;
				for (int j = 0; j < k; j++)
					lp[i * SY_MAXK + j] -= lse;
			}
			for (int j = 0; j < k; j++) {
				double r = exp(lp[i * SY_MAXK + j]);
				if (r < 1e-14)
					continue;
				double s = g->sd[j], m, var;
				if (narrow[j]) {
					double m0 = 0.5 * (za[j] + zb[j]), wz = zb[j] - za[j];
					m = m0 * (1.0 - wz * wz / 12.0);
					var = wz * wz / 12.0;
				} else if (isinf(lz[i * SY_MAXK + j])) {
					/* Too far out to have moments: the bin's middle. */
					m = (B->mid[i] - g->mu[j]) / s;
					var = 0;
				} else {
					trunc_moments(za[j], zb[j], lz[i * SY_MAXK + j], &m, &var);
				}
				/* Moments about the old mean: sizes sit near e^16 and
				 * their components are 1e-8 wide, far below the rounding
				 * error of E[y^2] - E[y]^2 taken about zero. */
				double dy = s * m;
				double cr = B->c[i] * r;
				N[j] += cr;
				S1[j] += cr * dy;
				S2[j] += cr * (dy * dy + s * s * var);
			}
		}
		/* M step; a component that lost all its weight is removed. */
		int out = 0;
		for (int j = 0; j < k; j++) {
			if (N[j] <= 1e-9 * B->total)
				continue;
			double shift = S1[j] / N[j];
			double mu = g->mu[j] + shift;
			double v = S2[j] / N[j] - shift * shift;
			double f = sd_floor(mu, min_sd);
			double sd = v > f * f ? sqrt(v) : f;
			g->w[out] = N[j] / B->total;
			g->mu[out] = mu;
			g->sd[out] = sd;
			out++;
		}
		g->k = out;
		if (it > 0 && ll - prev < 1e-8 * (fabs(ll) + 1.0))
			break;
		prev = ll;
	}
	return ll;
}

static double wsd(const bins *B)
{
	double m = 0, v = 0;
	for (size_t i = 0; i < B->n; i++)
		m += B->c[i] * B->mid[i];
	m /= B->total;
	for (size_t i = 0; i < B->n; i++)
		v += B->c[i] * (B->mid[i] - m) * (B->mid[i] - m);
	return sqrt(v / B->total);
}

/* Initial components: restart 0 at the quantiles, the others by k-means++
 * seeding (deterministic). */
static void init(sy_gmm *g, const bins *B, int k, int restart, double sd0)
{
	g->k = k;
	if (restart == 0) {
		double cum = 0;
		size_t i = 0;
		for (int j = 0; j < k; j++) {
			double target = (j + 0.5) / k * B->total;
			while (i + 1 < B->n && cum + B->c[i] < target)
				cum += B->c[i++];
			g->mu[j] = B->mid[i];
		}
	} else {
		sy_rng r;
		chakra__sy_rng_seed(&r, 0x5eed0000u + (uint64_t)restart * 131 + (uint64_t)k);
		double *d2 = chakra_malloc(B->n * sizeof *d2);
		size_t pick = 0;
		double u = chakra__sy_rng_uniform(&r) * B->total, cum = 0;
		for (pick = 0; pick + 1 < B->n; pick++) {
			cum += B->c[pick];
			if (cum > u)
				break;
		}
		g->mu[0] = B->mid[pick];
		for (int j = 1; j < k; j++) {
			double tot = 0;
			for (size_t i = 0; i < B->n; i++) {
				double best = INFINITY;
				for (int q = 0; q < j; q++) {
					double d = B->mid[i] - g->mu[q];
					if (d * d < best)
						best = d * d;
				}
				if (d2)
					d2[i] = best * B->c[i];
				tot += best * B->c[i];
			}
			if (!d2 || !(tot > 0)) {
				g->mu[j] = g->mu[j - 1] + sd0 * (j % 2 ? 1 : -1);
				continue;
			}
			u = chakra__sy_rng_uniform(&r) * tot;
			cum = 0;
			for (pick = 0; pick + 1 < B->n; pick++) {
				cum += d2[pick];
				if (cum > u)
					break;
			}
			g->mu[j] = B->mid[pick];
		}
		chakra_free(d2);
	}
	/* Equal means never separate under EM: spread duplicates apart. */
	for (int j = 1; j < k; j++)
		for (int q = 0; q < j; q++)
			if (g->mu[j] == g->mu[q])
				g->mu[j] += 1e-3 * (j + 1) * (sd0 > 0 ? sd0 : 1.0);
	for (int j = 0; j < k; j++) {
		g->w[j] = 1.0 / k;
		g->sd[j] = sd0 > 0 ? sd0 / k : 0.1;
		/* Start no wider than half the gap to the nearest other centre,
		 * or two close values that repeat (two bucket sizes 1% apart)
		 * would share both components and never come apart. */
		for (int q = 0; q < k; q++) {
			double gap = fabs(g->mu[q] - g->mu[j]);
			if (q != j && gap > 0 && 0.5 * gap < g->sd[j])
				g->sd[j] = 0.5 * gap;
		}
	}
}

static int fit_k(sy_gmm *best, const bins *B, int k, double min_sd, double *lp)
{
	double sd0 = wsd(B);
	double bestll = -INFINITY;
	for (int r = 0; r < RESTARTS; r++) {
		sy_gmm g;
		memset(&g, 0, sizeof g);
		init(&g, B, k, r, sd0);
		for (int j = 0; j < g.k; j++)
			if (g.sd[j] < sd_floor(g.mu[j], min_sd))
				g.sd[j] = sd_floor(g.mu[j], min_sd);
		double ll = em(&g, B, min_sd, lp);
		if (ll > bestll + 1e-9 * (fabs(ll) + 1.0) || r == 0) {
			bestll = ll;
			*best = g;
			best->loglik = ll;
		}
		if (k == 1)
			break; /* one component: every start ends in the same place */
	}
	return 0;
}

static void sort_components(sy_gmm *g)
{
	for (int i = 1; i < g->k; i++)
		for (int j = i; j > 0 && g->mu[j] < g->mu[j - 1]; j--) {
			double t;
			t = g->mu[j]; g->mu[j] = g->mu[j - 1]; g->mu[j - 1] = t;
			t = g->sd[j]; g->sd[j] = g->sd[j - 1]; g->sd[j - 1] = t;
			t = g->w[j]; g->w[j] = g->w[j - 1]; g->w[j - 1] = t;
		}
}

int chakra__sy_gmm_fit_k(sy_gmm *g, const sy_hist *h, int k, double min_sd)
{
	memset(g, 0, sizeof *g);
	if (!h->n)
		return 0;
	if (k < 1)
		k = 1;
	if (k > SY_MAXK)
		k = SY_MAXK;
	if ((size_t)k > h->n)
		k = (int)h->n;
	bins B;
	int rc = bins_make(&B, h);
	if (rc < 0)
		return rc;
	double *lp = chakra_malloc(2 * h->n * SY_MAXK * sizeof *lp);
	if (!lp) {
		bins_free(&B);
		return CHAKRA_ENOMEM;
	}
	fit_k(g, &B, k, min_sd, lp);
	g->n = h->total;
	g->ntried = 0;
	sort_components(g);
	chakra_free(lp);
	bins_free(&B);
	return 0;
}

int chakra__sy_gmm_fit(sy_gmm *g, const sy_hist *h, int maxk, double min_sd)
{
	memset(g, 0, sizeof *g);
	if (!h->n)
		return 0;
	if (maxk < 1)
		maxk = 1;
	if (maxk > SY_MAXK)
		maxk = SY_MAXK;
	if ((size_t)maxk > h->n)
		maxk = (int)h->n;
	bins B;
	int rc = bins_make(&B, h);
	if (rc < 0)
		return rc;
	double *lp = chakra_malloc(2 * h->n * SY_MAXK * sizeof *lp);
	if (!lp) {
		bins_free(&B);
		return CHAKRA_ENOMEM;
	}
	double bic[SY_MAXK], bestbic = INFINITY;
	int worse = 0, tried = 0;
	sy_gmm cur;
	for (int k = 1; k <= maxk; k++) {
		fit_k(&cur, &B, k, min_sd, lp);
		/* A component that died leaves a smaller mixture: count what is
		 * left. */
		bic[k - 1] = -2.0 * cur.loglik + (3.0 * cur.k - 1.0) * log(B.total);
		tried = k;
		if (k == 1 || bic[k - 1] < bestbic - 1e-9 * fabs(bestbic)) {
			bestbic = bic[k - 1];
			*g = cur;
			worse = 0;
		} else if (++worse >= 2) {
			break; /* two more components did not help: stop looking */
		}
	}
	g->n = h->total;
	g->ntried = tried;
	memcpy(g->bic, bic, sizeof bic);
	sort_components(g);
	chakra_free(lp);
	bins_free(&B);
	return 0;
}

double chakra__sy_gmm_cdf(const sy_gmm *g, double y)
{
	double s = 0;
	for (int j = 0; j < g->k; j++)
		s += g->w[j] * chakra__sy_phi_cdf((y - g->mu[j]) / g->sd[j]);
	return s;
}

double chakra__sy_gmm_quantile_log(const sy_gmm *g, double u)
{
	if (g->k < 1)
		return -INFINITY;
	double lo = INFINITY, hi = -INFINITY, wsum = 0;
	for (int j = 0; j < g->k; j++) {
		if (g->mu[j] - 40 * g->sd[j] < lo)
			lo = g->mu[j] - 40 * g->sd[j];
		if (g->mu[j] + 40 * g->sd[j] > hi)
			hi = g->mu[j] + 40 * g->sd[j];
		wsum += g->w[j];
	}
	u *= wsum; /* weights that do not sum to 1 exactly */
	for (int it = 0; it < 200 && hi - lo > 1e-15 * (1.0 + fabs(lo)); it++) {
		double mid = 0.5 * (lo + hi);
		if (chakra__sy_gmm_cdf(g, mid) < u)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

uint64_t chakra__sy_gmm_value(const sy_gmm *g, double u)
{
	double y = chakra__sy_gmm_quantile_log(g, u);
	if (!(y > -745.0))
		return 0;
	if (y >= 42.97) /* 2^62 */
		return (uint64_t)1 << 62;
	double x = floor(exp(y));
	return x < 0 ? 0 : (uint64_t)x;
}
