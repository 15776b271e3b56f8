/* SPDX-License-Identifier: Apache-2.0 */
/* Deterministic random numbers: xoshiro256** seeded through splitmix64, so
 * a seed gives the same stream on every platform (no libc rand). */
#include <math.h>

#include "synth_impl.h"

static uint64_t splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void chakra__sy_rng_seed(sy_rng *r, uint64_t seed)
{
	uint64_t x = seed;
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix(&x);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t chakra__sy_rng_u64(sy_rng *r)
{
	uint64_t *s = r->s;
	uint64_t out = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return out;
}

double chakra__sy_rng_uniform(sy_rng *r)
{
	/* 53 random bits, shifted half a step off zero: never 0 or 1. */
	return ((double)(chakra__sy_rng_u64(r) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

double chakra__sy_rng_normal(sy_rng *r)
{
	double u = chakra__sy_rng_uniform(r), v = chakra__sy_rng_uniform(r);
	return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

uint64_t chakra__sy_rng_below(sy_rng *r, uint64_t n)
{
	/* Rejection keeps it exactly uniform. */
	uint64_t lim = UINT64_MAX - UINT64_MAX % n, x;
	do
		x = chakra__sy_rng_u64(r);
	while (x >= lim);
	return x % n;
}

void chakra__sy_shuffle_u32(sy_rng *r, uint32_t *a, size_t n)
{
	for (size_t i = n; i > 1; i--) {
		size_t j = (size_t)chakra__sy_rng_below(r, i);
		uint32_t t = a[i - 1];
		a[i - 1] = a[j];
		a[j] = t;
	}
}
