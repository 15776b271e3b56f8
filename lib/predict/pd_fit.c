/* SPDX-License-Identifier: Apache-2.0 */
/* Levenberg-Marquardt with bounds, for the calibrations: few parameters
 * (at most a dozen), residuals that each cost a simulation, so the
 * Jacobian is taken by forward differences and the normal equations are
 * solved directly. A step that leaves the box is clipped to it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pd_impl.h"

#define PMAX 16

static double sumsq(const double *r, size_t n)
{
	double s = 0;
	for (size_t i = 0; i < n; i++)
		s += r[i] * r[i];
	return s;
}

/* Solve A x = b (p x p, symmetric positive definite after damping) by
 * Gaussian elimination with partial pivoting; 0 or -1 when singular. */
static int solve(double *A, double *b, size_t p)
{
	for (size_t c = 0; c < p; c++) {
		size_t piv = c;
		for (size_t r = c + 1; r < p; r++)
			if (fabs(A[r * p + c]) > fabs(A[piv * p + c]))
				piv = r;
		if (!(fabs(A[piv * p + c]) > 1e-300))
			return -1;
		if (piv != c) {
			for (size_t k = 0; k < p; k++) {
				double t = A[c * p + k];
				A[c * p + k] = A[piv * p + k];
				A[piv * p + k] = t;
			}
			double t = b[c];
			b[c] = b[piv];
			b[piv] = t;
		}
		for (size_t r = c + 1; r < p; r++) {
			double f = A[r * p + c] / A[c * p + c];
			for (size_t k = c; k < p; k++)
				A[r * p + k] -= f * A[c * p + k];
			b[r] -= f * b[c];
		}
	}
	for (size_t c = p; c-- > 0;) {
		double s = b[c];
		for (size_t k = c + 1; k < p; k++)
			s -= A[c * p + k] * b[k];
		b[c] = s / A[c * p + c];
	}
	return 0;
}

int chakra__pd_lm(pd_resid_fn fn, void *data, double *x, const double *lo, const double *hi,
                  size_t p, size_t n, unsigned max_iter,
                  void (*progress)(void *, unsigned, double), void *pdata, char *err,
                  size_t errlen)
{
	if (p == 0 || p > PMAX || n == 0)
		return chakra__pd_fail(err, errlen, CHAKRA_EINVAL, "fit: %zu parameters, %zu residuals",
		                       p, n);
	double *r = chakra_malloc(n * sizeof *r), *rt = chakra_malloc(n * sizeof *rt);
	double *J = chakra_malloc(n * p * sizeof *J);
	int rc = 0;
	if (!r || !rt || !J) {
		rc = chakra__pd_fail(err, errlen, CHAKRA_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t j = 0; j < p; j++)
		x[j] = fmin(fmax(x[j], lo[j]), hi[j]);
	rc = fn(data, x, r);
	if (rc < 0)
		goto out;
	double cost = sumsq(r, n), lambda = 1e-2;
	for (unsigned it = 0; it < max_iter; it++) {
		if (progress)
			progress(pdata, it, sqrt(cost / (double)n));
		/* Jacobian, one forward difference per parameter (backward at the
		 * upper bound) */
		double xt[PMAX];
		for (size_t j = 0; j < p; j++) {
			memcpy(xt, x, p * sizeof *xt);
			double h = 1e-4 * fmax(fabs(x[j]), 1e-3 * (hi[j] - lo[j]));
			if (xt[j] + h > hi[j])
				h = -h;
			xt[j] += h;
			rc = fn(data, xt, rt);
			if (rc < 0)
				goto out;
			for (size_t i = 0; i < n; i++)
				J[i * p + j] = (rt[i] - r[i]) / h;
		}
		double JTJ[PMAX * PMAX], g[PMAX];
		for (size_t a = 0; a < p; a++) {
			g[a] = 0;
			for (size_t i = 0; i < n; i++)
				g[a] += J[i * p + a] * r[i];
			for (size_t b = 0; b < p; b++) {
				double s = 0;
				for (size_t i = 0; i < n; i++)
					s += J[i * p + a] * J[i * p + b];
				JTJ[a * p + b] = s;
			}
		}
		int improved = 0;
		for (int tries = 0; tries < 12 && !improved; tries++) {
			double A[PMAX * PMAX], d[PMAX];
			memcpy(A, JTJ, p * p * sizeof *A);
			for (size_t a = 0; a < p; a++) {
				A[a * p + a] += lambda * (JTJ[a * p + a] > 0 ? JTJ[a * p + a] : 1.0);
				d[a] = -g[a];
			}
			if (solve(A, d, p) < 0) {
				lambda *= 10;
				continue;
			}
			for (size_t j = 0; j < p; j++)
				xt[j] = fmin(fmax(x[j] + d[j], lo[j]), hi[j]);
			rc = fn(data, xt, rt);
			if (rc < 0)
				goto out;
			double c2 = sumsq(rt, n);
			if (c2 < cost) {
				double gain = (cost - c2) / cost;
				memcpy(x, xt, p * sizeof *x);
				memcpy(r, rt, n * sizeof *r);
				cost = c2;
				lambda = fmax(lambda / 5, 1e-9);
				improved = 1;
				if (gain < 1e-7)
					it = max_iter; /* converged */
			} else {
				lambda *= 4;
			}
		}
		if (!improved)
			break;
	}
	if (progress)
		progress(pdata, max_iter, sqrt(cost / (double)n));
out:
	chakra_free(r);
	chakra_free(rt);
	chakra_free(J);
	return rc;
}
