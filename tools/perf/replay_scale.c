/* SPDX-License-Identifier: Apache-2.0 */
/* chakra sim --replay: the what-if scale options (--kernel-scale,
 * --compute-scale) read into the replay's options (replay_out.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "replay_out.h"

/* A scale factor in 0..1e9: 0, or a usage error of cmd (exit status 2). */
static int parse_factor(const char *cmd, const char *opt, const char *s, const char *arg,
                        double *f)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (!*s || errno || *end || !(v >= 0) || v > 1e9)
		return tool_usage(cmd, "%s: the factor must be a number in 0..1e9, got '%s'", opt, arg);
	*f = v;
	return 0;
}

/* --kernel-scale R=F... into ks: 0, 2 (usage, printed) or 1. */
int replay_kernel_scales(const char *name, const tool_list *ksl, opt_list *ks)
{
	for (size_t k = 0; k < ksl->n; k++) {
		const char *v = ksl->v[k], *eq = strrchr(v, '=');
		double f = 0;
		if (!eq || eq == v)
			return tool_usage(name, "--kernel-scale: expected REGEX=FACTOR, got '%s'", v);
		if (parse_factor(name, "--kernel-scale", eq + 1, v, &f))
			return 2;
		char *re = strndup(v, (size_t)(eq - v));
		if (!re) {
			tool_err("out of memory");
			return 1;
		}
		ks->re[ks->n] = re;
		ks->f[ks->n++] = f;
	}
	return 0;
}

/* --compute-scale [K=]F... over nr ranks into *out (NULL: none given):
 * 0, 2 (usage, printed) or 1. */
int replay_compute_scales(const char *name, const tool_list *cscale, uint32_t nr, double **out)
{
	double *rank_scale = NULL;
	for (size_t k = 0; k < cscale->n; k++) {
		const char *s = cscale->v[k], *eq = strchr(s, '=');
		double f = 0;
		uint64_t rank = 0;
		int all = !eq;
		if (eq) {
			char buf[32];
			size_t l = (size_t)(eq - s);
			if (!l || l >= sizeof buf)
				return tool_usage(name, "--compute-scale: bad rank in '%s'", s);
			memcpy(buf, s, l);
			buf[l] = 0;
			char *end;
			errno = 0;
			rank = buf[0] != '-' ? strtoull(buf, &end, 0) : 0;
			if (buf[0] == '-' || errno || *end)
				return tool_usage(name, "--compute-scale: bad rank in '%s'", s);
			if (rank >= nr)
				return tool_usage(name, "--compute-scale: rank %" PRIu64 " is not in 0..%u",
				                  rank, nr - 1);
			s = eq + 1;
		}
		if (parse_factor(name, "--compute-scale", s, cscale->v[k], &f))
			return 2;
		if (!rank_scale) {
			*out = rank_scale = malloc((nr ? nr : 1) * sizeof *rank_scale);
			if (!rank_scale) {
				tool_err("out of memory");
				return 1;
			}
			for (uint32_t x = 0; x < nr; x++)
				rank_scale[x] = 1.0;
		}
		for (uint32_t x = 0; x < nr; x++)
			if (all || x == rank)
				rank_scale[x] = f;
	}
	return 0;
}

