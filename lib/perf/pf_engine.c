/* SPDX-License-Identifier: Apache-2.0 */
/* The replay engine: from the ops and edges as recorded to a max-plus
 * graph of start and end events with a lag on every edge, then its
 * longest paths, iteration after iteration.
 *
 * Every op has a start event S and an end event E. S waits for its
 * resource's previous op, for its explicit predecessors and, for a
 * resource's first op, for the iteration start; E waits for S plus the
 * op's duration and, for a blocking call, for the GPU ops it waits for,
 * and for a collective member, for the last member's arrival plus the
 * transfer time. Each edge has a lag taken from the recording: the edge
 * that bound the op's start in the recording keeps the recorded gap (host
 * time between ops, launch latency, back-to-back gap), the others get a
 * model default no larger than what was recorded, so a replay of the
 * unchanged trace reproduces it and a changed one moves for the right
 * reason (docs/replay.md).
 *
 * The steps, one file each: pf_recorded.c (what the recording says),
 * pf_coll.c (collective instances), pf_events.c (the event graph and its
 * lags), pf_topo.c (evaluation order), pf_eval.c (longest paths, critical
 * path), pf_report.c (breakdown). */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pf_impl.h"

/* The model durations: recorded times the first kernel-scale rule whose
 * pattern matches a device op's name, then device compute (kernels,
 * memory ops) times the compute scale and its rank's; cscale gets each
 * op's factor (the collectives scale their recorded transfer with it),
 * allocated after the options are checked; the caller frees it. */
static int scale_durations(chakra_perf *r, const chakra_perf_options *o, double **cscale_out)
{
	double *cscale;
	regex_t *re = NULL;
	size_t nre = 0;
	int rc = 0;
	if (o->n_kernel_scale) {
		re = chakra_calloc(o->n_kernel_scale, sizeof *re);
		if (!re)
			return chakra__pf_fail(r, CHAKRA_ENOMEM, "out of memory");
		for (; nre < o->n_kernel_scale; nre++) {
			int e = regcomp(&re[nre], o->kernel_scale_re[nre], REG_EXTENDED | REG_NOSUB);
			if (e) {
				char buf[200];
				regerror(e, &re[nre], buf, sizeof buf);
				rc = chakra__pf_fail(r, CHAKRA_EINVAL, "kernel-scale pattern '%s': %s",
				                     o->kernel_scale_re[nre], buf);
				goto out;
			}
			if (!(o->kernel_scale[nre] >= 0) || o->kernel_scale[nre] > 1e9) {
				rc = chakra__pf_fail(r, CHAKRA_EINVAL, "kernel-scale factor for '%s' must be "
				                     "in 0..1e9", o->kernel_scale_re[nre]);
				regfree(&re[nre]);
				goto out;
			}
		}
	}
	/* a factor is a number in 0..1e9 (0 = unchanged for compute_scale):
	 * NaN and negatives used to be taken as 1, inf and 1e300 gave a 0 ns
	 * iteration */
	if (!(o->compute_scale >= 0 && o->compute_scale <= 1e9)) {
		rc = chakra__pf_fail(r, CHAKRA_EINVAL, "compute scale %g: a factor must be in 0..1e9 "
		                     "(0: unchanged)", o->compute_scale);
		goto out;
	}
	for (size_t k = 0; o->rank_compute_scale && k < r->nranks; k++)
		if (!(o->rank_compute_scale[k] >= 0 && o->rank_compute_scale[k] <= 1e9)) {
			rc = chakra__pf_fail(r, CHAKRA_EINVAL, "compute scale of rank %zu: %g: a factor "
			                     "must be in 0..1e9", k, o->rank_compute_scale[k]);
			goto out;
		}
	double cs = o->compute_scale > 0 ? o->compute_scale : 1.0;
	*cscale_out = cscale = chakra_malloc((r->nops ? r->nops : 1) * sizeof *cscale);
	if (!cscale) {
		rc = chakra__pf_fail(r, CHAKRA_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < r->nops; i++) {
		pf_op *x = &r->ops[i];
		double f = 1.0;
		if (pf_is_gpu_kind(x->kind))
			for (size_t k = 0; k < nre; k++)
				if (!regexec(&re[k], pf_str(r, x->name_off), 0, NULL, 0)) {
					f = o->kernel_scale[k];
					break;
				}
		if (x->kind == CHAKRA_PERF_KERNEL || x->kind == CHAKRA_PERF_MEMORY) {
			f *= cs;
			if (o->rank_compute_scale)
				f *= o->rank_compute_scale[x->rank];
		}
		cscale[i] = f;
		x->dur = x->kind == CHAKRA_PERF_MARK ? 0 : pf_scaled(x->rd, f);
	}
out:
	for (size_t k = 0; k < nre; k++)
		regfree(&re[k]);
	chakra_free(re);
	return rc;
}

int chakra__pf_prepare(chakra_perf *r, const chakra_perf_options *o)
{
	pf_prep p = { r, o, NULL, 0, 0, NULL, 0, 0, NULL };
	double *cscale = NULL;
	int rc;
	r->nops = r->nops_user;
	r->ncolls = r->ncm = 0;
	if ((rc = chakra__pf_recorded(&p)))
		goto out;
	if ((rc = scale_durations(r, o, &cscale)) || (rc = chakra__pf_collectives(&p, cscale)) ||
	    (rc = chakra__pf_build_edges(&p)))
		goto out;
	chakra__pf_set_lags(&p);
	rc = chakra__pf_topo_order(r);
out:
	chakra_free(cscale);
	chakra_free(p.te);
	chakra_free(p.xc);
	chakra_free(p.launch);
	return rc;
}

int chakra_perf_run(chakra_perf *r, const chakra_perf_options *opts)
{
	if (!r)
		return CHAKRA_EINVAL;
	chakra_perf_options o;
	if (chakra__opts_copy(&o, sizeof o, opts, &chakra__pf_opts_default, chakra__pf_opts_size,
	                      2) < 0)
		return chakra__pf_fail(r, CHAKRA_EINVAL, "replay options: version %u, expected %u",
		                       opts->version, CHAKRA_PERF_OPTIONS_VERSION);
	opts = &o;
	if ((opts->network != NULL) != (opts->system != NULL))
		return chakra__pf_fail(r, CHAKRA_EINVAL, "the network model needs both a network "
		                       "and a system configuration");
	r->ran = 0;
	chakra__pf_net_free(r); /* another network, maybe */
	if (!r->nops_user)
		return chakra__pf_fail(r, CHAKRA_EINVAL, "nothing to replay: the workload has no ops");
	int all_timed = 1;
	for (size_t k = 0; k < r->nranks; k++)
		if (r->ranks[k].present && !r->ranks[k].timed)
			all_timed = 0;
	r->copies = opts->copies ? opts->copies : all_timed ? 2 : 1;
	if (r->copies > 64)
		return chakra__pf_fail(r, CHAKRA_EINVAL, "copies: at most 64");
	if (!all_timed)
		r->copies = 1; /* no recorded window to repeat */
	int rc = chakra__pf_prepare(r, opts);
	if (!rc)
		rc = chakra__pf_evaluate(r);
	if (!rc)
		rc = chakra__pf_report(r);
	if (!rc)
		r->ran = 1;
	return rc;
}
