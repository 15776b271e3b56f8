/* SPDX-License-Identifier: Apache-2.0 */
/* The system JSON (ASTRA-sim's system file): scheduling, chunks, the
 * collective algorithms per dimension (names from coll/), local memory. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "coll/coll.h"
#include "sim_config.h"

static int want_number(const jentry *e, const char *path, char *err, double lo, double hi,
                       int integer, double *out)
{
	if (e->is_list || e->is_object || e->n != 1 || e->items[0].is_str)
		return fail(err, "%s:%lu: key '%s': expected a number", path, e->line, e->key);
	double v = e->items[0].num;
	if (integer && v != floor(v))
		return fail(err, "%s:%lu: key '%s': expected an integer, found %g", path, e->line,
		            e->key, v);
	if (v < lo || v > hi)
		return fail(err, "%s:%lu: key '%s': %g is out of range [%g, %g]", path, e->line,
		            e->key, v, lo, hi);
	*out = v;
	return 0;
}

static int want_string(const jentry *e, const char *path, char *err, const char **out)
{
	if (e->is_list || e->is_object || e->n != 1 || e->items[0].is_str != 1)
		return fail(err, "%s:%lu: key '%s': expected a string", path, e->line, e->key);
	*out = e->items[0].str;
	return 0;
}

static int system_parse(chakra_sim_system *sys, const char *path, const char *text, size_t len,
                     char *err)
{
	static const char *const impl_keys[CHAKRA_SIM_IMPL_COUNT] = {
		"all-reduce-implementation", "all-gather-implementation",
		"reduce-scatter-implementation", "all-to-all-implementation"
	};
	memset(sys, 0, sizeof *sys);
	sys->active_chunks = 1;
	sys->splits = 1;
	sys->local_bw_aware = 0;
	sys->local_mem_bw = 0;
	jflat j;
	int rc = jflat_parse(&j, path, text, len, err), have_lbw = 0;
	if (rc)
		return rc;
	for (size_t i = 0; i < j.n && rc == 0; i++) {
		const jentry *e = &j.e[i];
		double v = 0;
		const char *s = "";
		if (!strcmp(e->key, "scheduling-policy")) {
			if (!(rc = want_string(e, path, err, &s))) {
				if (!strcmp(s, "LIFO"))
					sys->lifo = 1;
				else if (!strcmp(s, "FIFO"))
					sys->lifo = 0;
				else
					rc = fail(err, "%s:%lu: key '%s': '%s' is neither LIFO nor FIFO", path,
					          e->line, e->key, s);
			}
		} else if (!strcmp(e->key, "endpoint-delay")) {
			if (!(rc = want_number(e, path, err, 0, 1e12, 1, &v)))
				sys->endpoint_delay = (uint64_t)v;
		} else if (!strcmp(e->key, "active-chunks-per-dimension")) {
			if (!(rc = want_number(e, path, err, 1, 1e6, 1, &v)))
				sys->active_chunks = (uint32_t)v;
		} else if (!strcmp(e->key, "preferred-dataset-splits")) {
			if (!(rc = want_number(e, path, err, 1, 1e6, 1, &v)))
				sys->splits = (uint32_t)v;
		} else if (!strcmp(e->key, "collective-optimization")) {
			if (!(rc = want_string(e, path, err, &s))) {
				if (!strcmp(s, "localBWAware"))
					sys->local_bw_aware = 1;
				else if (!strcmp(s, "baseline"))
					sys->local_bw_aware = 0;
				else
					rc = fail(err, "%s:%lu: key '%s': '%s' is neither localBWAware nor "
					          "baseline", path, e->line, e->key, s);
			}
		} else if (!strcmp(e->key, "local-mem-bw")) {
			if (!(rc = want_number(e, path, err, 1e-9, 1e12, 0, &v))) {
				sys->local_mem_bw = v;
				have_lbw = 1;
			}
		} else if (!strcmp(e->key, "boost-mode")) {
			if (!(rc = want_number(e, path, err, 0, 1, 1, &v)))
				sys->boost_mode = (int)v;
		} else if (!strcmp(e->key, "roofline-enabled")) {
			if (!(rc = want_number(e, path, err, 0, 1, 1, &v)))
				sys->roofline = (int)v;
		} else if (!strcmp(e->key, "peak-perf")) {
			if (!(rc = want_number(e, path, err, 1e-9, 1e12, 0, &v)))
				sys->peak_perf = v;
		} else {
			int k;
			for (k = 0; k < CHAKRA_SIM_IMPL_COUNT; k++)
				if (!strcmp(e->key, impl_keys[k]))
					break;
			if (k == CHAKRA_SIM_IMPL_COUNT)
				continue; /* unknown keys are ignored, as ASTRA-sim does */
			if (!e->is_list || e->is_object || e->n == 0) {
				rc = fail(err, "%s:%lu: key '%s': expected a non-empty list of algorithms "
				          "(one per dimension)", path, e->line, e->key);
				break;
			}
			if (e->n > SIM_MAX_DIMS) {
				rc = fail(err, "%s:%lu: key '%s': more than %d entries", path, e->line,
				          e->key, SIM_MAX_DIMS);
				break;
			}
			for (size_t x = 0; x < e->n && rc == 0; x++) {
				if (e->items[x].is_str != 1)
					rc = fail(err, "%s:%lu: key '%s': entry %zu is not a string", path,
					          e->line, e->key, x);
				else if (!chakra__sim_coll_named(e->items[x].str, &sys->impl[k][x])) {
					char names[256];
					chakra__sim_coll_names(names, sizeof names);
					rc = fail(err, "%s:%lu: key '%s': unknown algorithm '%s' (%s)", path,
					          e->line, e->key, e->items[x].str, names);
				} else if (x > 0 && chakra__sim_alg_flat(sys->impl[k][x]) &&
				           !chakra__sim_alg_flat(sys->impl[k][0]))
					/* ASTRA-sim stops its dimensions at the first flat ring
					 * (a mix it does not define otherwise) */
					rc = fail(err, "%s:%lu: key '%s': '%s' (one flat ring over every "
					          "NPU) after per-dimension entries is not supported: put it "
					          "first", path, e->line, e->key, e->items[x].str);
			}
			sys->n_impl[k] = (int)e->n;
		}
	}
	if (rc == 0 && !have_lbw)
		rc = fail(err, "%s: key 'local-mem-bw' is missing (GB/s of local memory, needed for "
		          "the cost of reductions)", path);
	if (rc == 0 && sys->roofline && !(sys->peak_perf > 0))
		rc = fail(err, "%s: key 'peak-perf' is missing but roofline-enabled is 1", path);
	for (int k = 0; rc == 0 && k < CHAKRA_SIM_IMPL_COUNT; k++)
		if (!sys->n_impl[k])
			rc = fail(err, "%s: key '%s' is missing", path, impl_keys[k]);
	jflat_free(&j);
	return rc;
}

static int system_load(chakra_sim_system *sys, const char *path, char *err)
{
	size_t len;
	int code;
	char *text = slurp_text(path, &len, err, &code);
	if (!text)
		return code;
	int rc = system_parse(sys, path, text, len, err);
	chakra_free(text);
	return rc;
}

int chakra_sim_system_parse(chakra_sim_system *sys, const char *name, const char *text,
                            size_t len, char *err, size_t errlen)
{
	char e[SIM_ERR_LEN] = "";
	if (!sys || (!text && len))
		return report(CHAKRA_EINVAL, "chakra_sim_system_parse: NULL argument", err, errlen);
	return report(system_parse(sys, name ? name : "<system>", text ? text : "", len, e), e,
	              err, errlen);
}

int chakra_sim_system_load(chakra_sim_system *sys, const char *path, char *err, size_t errlen)
{
	char e[SIM_ERR_LEN] = "";
	if (!sys || !path)
		return report(CHAKRA_EINVAL, "chakra_sim_system_load: NULL argument", err, errlen);
	return report(system_load(sys, path, e), e, err, errlen);
}
