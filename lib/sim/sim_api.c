/* SPDX-License-Identifier: Apache-2.0 */
/* The public handle of libchakra-sim: options, the network and system it
 * was made for, runs over feeders / a workload / a file prefix, and the
 * results of the last successful run. The engine is sim_engine.c. */
#include <inttypes.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>

#include "../opts.h"
#include "coll/coll.h"
#include "sim_engine_impl.h"
#include "../modmem.h"

static int set_err(chakra_sim *s, int code, const char *fmt, ...) SIM_PRINTF(3, 4);
static int set_err(chakra_sim *s, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->err, sizeof s->err, fmt, ap);
	va_end(ap);
	return code;
}

/* The bytes of chakra_sim_options each version has (fields are only
 * appended), checked the one way (lib/opts.h). */
static const size_t opts_size[CHAKRA_SIM_OPTIONS_VERSION + 1] = {
	0, offsetof(chakra_sim_options, memory), offsetof(chakra_sim_options, rules),
	offsetof(chakra_sim_options, no_symmetry), sizeof(chakra_sim_options)
};
static const chakra_sim_options opts_defaults = CHAKRA_SIM_OPTIONS_INIT;

int chakra_sim_options_init(chakra_sim_options *opts, unsigned version)
{
	return chakra__opts_init(opts, version, &opts_defaults, opts_size,
	                         CHAKRA_SIM_OPTIONS_VERSION + 1);
}

/* The caller's groups and per-NPU arrays, copied into the handle so that
 * nothing is kept by pointer (checked before: names and ranks present). */
static int copy_inputs(chakra_sim *s)
{
	const chakra_sim_groups *gs = s->opt.groups;
	uint32_t n = s->net.npus;
	if (gs) {
		chakra_sim_groups *c = &s->groups;
		if (gs->n && !(c->g = chakra_calloc(gs->n, sizeof *c->g)))
			return CHAKRA_ENOMEM;
		for (size_t g = 0; g < gs->n; g++, c->n++) {
			chakra_sim_group *d = &c->g[g];
			if (!(d->name = chakra__mstrdup(gs->g[g].name)) ||
			    !(d->ranks = chakra_malloc(gs->g[g].n * sizeof *d->ranks))) {
				c->n++; /* (freed with the rest) */
				return CHAKRA_ENOMEM;
			}
			memcpy(d->ranks, gs->g[g].ranks, gs->g[g].n * sizeof *d->ranks);
			d->n = gs->g[g].n;
		}
		s->opt.groups = c;
	}
	if (s->opt.compute_scale) {
		if (!(s->scale = chakra_malloc((size_t)n * sizeof *s->scale)))
			return CHAKRA_ENOMEM;
		memcpy(s->scale, s->opt.compute_scale, (size_t)n * sizeof *s->scale);
		s->opt.compute_scale = s->scale;
	}
	if (s->opt.start_delay) {
		if (!(s->delay = chakra_malloc((size_t)n * sizeof *s->delay)))
			return CHAKRA_ENOMEM;
		memcpy(s->delay, s->opt.start_delay, (size_t)n * sizeof *s->delay);
		s->opt.start_delay = s->delay;
	}
	return 0;
}

static void results_clear(chakra_sim *s)
{
	chakra_free(s->res);
	s->res = NULL;
	s->npus = 0;
	s->finish = s->events = s->nodes = 0;
	s->rules_used = CHAKRA_SIM_RULES_AUTO;
	chakra_free(s->sym_cls);
	chakra_free(s->sym_rep);
	s->sym_cls = s->sym_rep = NULL;
	s->sym_n = 0;
	s->sym_note[0] = 0;
}

/* The rules a run follows: the options', or from the metadata of rank 0
 * (a trace converted from a recording runs under ASTRA-sim's rules). */
chakra_sim_rules chakra__sim_rules_for(const chakra_sim *s, const chakra_metadata *rank0)
{
	if (s->opt.rules != CHAKRA_SIM_RULES_AUTO)
		return s->opt.rules;
	return chakra__sim_recorded(rank0) ? CHAKRA_SIM_RULES_ASTRA_SIM : CHAKRA_SIM_RULES_MODEL;
}

static int sim_new(chakra_sim **out, const chakra_sim_network *net,
                   const chakra_sim_system *sys, const chakra_sim_options *opts);

/* A simulator whose creation failed stays that way: it is returned for its
 * message, and every run is refused (one used to run with zero NPUs and
 * divide by zero). */
int chakra_sim_new(chakra_sim **out, const chakra_sim_network *net,
                   const chakra_sim_system *sys, const chakra_sim_options *opts)
{
	int rc = sim_new(out, net, sys, opts);
	if (rc < 0 && out && *out)
		(*out)->unusable = rc;
	return rc;
}

static int refused(chakra_sim *s)
{
	if (!strstr(s->err, "(this simulator was not created)")) {
		size_t n = strlen(s->err);
		snprintf(s->err + n, sizeof s->err - n, " (this simulator was not created)");
	}
	return s->unusable;
}

static int sim_new(chakra_sim **out, const chakra_sim_network *net,
                   const chakra_sim_system *sys, const chakra_sim_options *opts)
{
	if (!out)
		return CHAKRA_EINVAL;
	*out = NULL;
	chakra_sim *s = chakra_calloc(1, sizeof *s);
	if (!s)
		return CHAKRA_ENOMEM;
	*out = s;
	s->opt = opts_defaults;
	if (!net || !sys)
		return set_err(s, CHAKRA_EINVAL, "chakra_sim_new: NULL network or system");
	if (chakra__opts_copy(&s->opt, sizeof s->opt, opts, &opts_defaults, opts_size,
	                      CHAKRA_SIM_OPTIONS_VERSION + 1) < 0)
		return set_err(s, CHAKRA_EINVAL, "chakra_sim_new: options version %u, this "
		               "library knows 1..%u", opts->version, CHAKRA_SIM_OPTIONS_VERSION);
	s->opt.version = CHAKRA_SIM_OPTIONS_VERSION;
	if (!s->opt.memory)
		s->opt.memory = CHAKRA_SIM_DEFAULT_MEMORY;
	if (s->opt.model != CHAKRA_SIM_UNAWARE && s->opt.model != CHAKRA_SIM_AWARE)
		return set_err(s, CHAKRA_EINVAL, "chakra_sim_new: unknown model %d", (int)s->opt.model);
	if ((unsigned)s->opt.rules > CHAKRA_SIM_RULES_MODEL)
		return set_err(s, CHAKRA_EINVAL, "chakra_sim_new: unknown rules %d", (int)s->opt.rules);
	if ((unsigned)s->opt.durations > CHAKRA_SIM_DURATIONS_NANOS)
		return set_err(s, CHAKRA_EINVAL, "chakra_sim_new: unknown durations %d",
		               (int)s->opt.durations);
	if (s->opt.deps && s->opt.deps != CHAKRA_DEPS_DATA && s->opt.deps != CHAKRA_DEPS_CTRL &&
	    s->opt.deps != CHAKRA_DEPS_BOTH)
		return set_err(s, CHAKRA_EINVAL, "chakra_sim_new: unknown deps %d", (int)s->opt.deps);
	s->net = *net;
	int rc = chakra_sim_network_check(&s->net, s->err, sizeof s->err);
	if (rc)
		return rc;
	s->sys = *sys;
	if (s->sys.active_chunks < 1 || s->sys.splits < 1 || !(s->sys.local_mem_bw > 0) ||
	    (s->sys.roofline && !(s->sys.peak_perf > 0)))
		return set_err(s, CHAKRA_ECONFIG, "system: active_chunks and splits must be at least "
		               "1, local_mem_bw positive, and peak_perf positive with roofline");
	for (int k = 0; k < CHAKRA_SIM_IMPL_COUNT; k++) {
		if (s->sys.n_impl[k] < 1 || s->sys.n_impl[k] > CHAKRA_SIM_MAX_DIMS)
			return set_err(s, CHAKRA_ECONFIG, "system: implementation list %d has %d "
			               "entries (1..%d)", k, s->sys.n_impl[k], CHAKRA_SIM_MAX_DIMS);
		for (int d = 0; d < s->sys.n_impl[k]; d++)
			if (!chakra__sim_coll_of(s->sys.impl[k][d], NULL))
				return set_err(s, CHAKRA_ECONFIG, "system: implementation list %d entry %d: "
				               "unknown algorithm %d", k, d, (int)s->sys.impl[k][d]);
	}
	const chakra_sim_groups *gs = s->opt.groups;
	for (size_t g = 0; gs && g < gs->n; g++) {
		if (!gs->g[g].name || !gs->g[g].n)
			return set_err(s, CHAKRA_EINVAL, "groups: group %zu has no name or no ranks", g);
		for (size_t j = 0; j < gs->g[g].n; j++)
			if (gs->g[g].ranks[j] >= s->net.npus)
				return set_err(s, CHAKRA_EINVAL, "groups: group '%s': rank %" PRIu32 " is not "
				               "in 0..%" PRIu32, gs->g[g].name, gs->g[g].ranks[j],
				               s->net.npus - 1);
	}
	if (copy_inputs(s) < 0)
		return set_err(s, CHAKRA_ENOMEM, "chakra_sim_new: out of memory");
	return 0;
}

void chakra_sim_free(chakra_sim *s)
{
	if (!s)
		return;
	results_clear(s);
	chakra_sim_groups_free(&s->groups);
	chakra_free(s->scale);
	chakra_free(s->delay);
	chakra_free(s);
}

/* A run on open feeders: every NPU's, or (sym) the representatives'. */
static int run_feeders(chakra_sim *s, chakra_feeder *const *feeders, const chakra_rank_map *map,
                       const sim_sym *sym)
{
	chakra_sim_rules rules = chakra__sim_rules_for(s, chakra_feeder_metadata(feeders[0]));
	int rc = chakra__sim_engine_run_ex(s, feeders, rules == CHAKRA_SIM_RULES_ASTRA_SIM, map, sym);
	if (rc == 0)
		s->rules_used = rules;
	return rc;
}

int chakra_sim_run(chakra_sim *s, chakra_feeder *const *feeders, size_t n)
{
	if (!s)
		return CHAKRA_EINVAL;
	if (s->unusable)
		return refused(s);
	results_clear(s);
	s->err[0] = 0;
	s->warning[0] = 0;
	if (!feeders)
		return set_err(s, CHAKRA_EINVAL, "chakra_sim_run: NULL feeders");
	if (n != s->net.npus)
		return set_err(s, CHAKRA_EINVAL, "%zu feeders but the network has %" PRIu32 " NPUs",
		               n, s->net.npus);
	for (size_t r = 0; r < n; r++)
		if (!feeders[r])
			return set_err(s, CHAKRA_EINVAL, "chakra_sim_run: feeder %zu is NULL", r);
	s->sym_n = s->net.npus;
	return run_feeders(s, feeders, NULL, NULL);
}

int chakra_sim_run_workload(chakra_sim *s, chakra_workload *w)
{
	if (!s)
		return CHAKRA_EINVAL;
	if (s->unusable)
		return refused(s);
	results_clear(s);
	if (!w)
		return set_err(s, CHAKRA_EINVAL, "chakra_sim_run_workload: NULL workload");
	size_t n = chakra_workload_size(w);
	chakra_feeder **f = chakra_malloc((n ? n : 1) * sizeof *f);
	if (!f)
		return set_err(s, CHAKRA_ENOMEM, "out of memory");
	for (size_t r = 0; r < n; r++)
		if (!(f[r] = chakra_workload_feeder(w, r))) {
			chakra_free(f);
			return set_err(s, CHAKRA_EIO, "%s", chakra_workload_errmsg(w));
		}
	int rc = chakra_sim_run(s, f, n);
	chakra_free(f);
	return rc;
}

/* The reduced run: one NPU per class. With callbacks, a first run without
 * them checks the workload is symmetric, so that a run redone in full has
 * told the caller nothing; a second one tells. */
static int run_reduced(chakra_sim *s, sim_workload *w, const sim_sym *sym, char *err,
                       size_t errlen)
{
	const chakra_sim_options keep = s->opt;
	int quiet_first = keep.event_cb || keep.span_cb || keep.finish_cb;
	int rc = 0;
	s->sym_outputs = keep.event_cb || keep.span_cb; /* (their order between NPUs is checked) */
	for (int pass = quiet_first ? 0 : 1; pass < 2 && rc == 0; pass++) {
		rc = chakra__sim_workload_feeders(s, w, sym, err, errlen);
		if (rc < 0)
			break;
		if (pass == 0) {
			s->opt.event_cb = NULL;
			s->opt.span_cb = NULL;
			s->opt.finish_cb = NULL;
		} else if (quiet_first) {
			s->opt.progress_cb = NULL; /* (told in the first) */
		}
		chakra_free(s->res);
		s->res = NULL;
		s->finish = s->events = s->nodes = 0;
		rc = run_feeders(s, w->f, w->map, sym);
		s->opt = keep;
		chakra__sim_workload_close_feeders(w);
	}
	s->sym_outputs = 0;
	return rc;
}

int chakra_sim_run_prefix(chakra_sim *s, const char *prefix)
{
	if (!s)
		return CHAKRA_EINVAL;
	if (s->unusable)
		return refused(s);
	results_clear(s);
	s->err[0] = 0;
	s->warning[0] = 0;
	if (!prefix)
		return set_err(s, CHAKRA_EINVAL, "chakra_sim_run_prefix: NULL prefix");
	sim_workload w;
	int rc = chakra__sim_workload_open(s, prefix, &w, s->err, sizeof s->err);
	if (rc < 0)
		return rc;
	if (w.n != s->net.npus) {
		set_err(s, CHAKRA_EINVAL, "workload %s has %zu ranks but the network has %" PRIu32
		        " NPUs", prefix, w.n, s->net.npus);
		chakra__sim_workload_close(&w);
		return CHAKRA_EINVAL;
	}
	s->window = w.window;
	s->window_bytes = w.window_bytes;
	s->read_chunk = w.chunk;
	/* One NPU per class, when the classes are fewer than the ranks and the
	 * reduction finds every interaction equivalent; else every NPU. */
	sim_sym sym;
	rc = 1;
	if (s->opt.no_symmetry)
		snprintf(s->sym_note, sizeof s->sym_note, "asked not to (no_symmetry)");
	else
		rc = chakra__sim_classes(s, &w, &sym, s->sym_note, sizeof s->sym_note, s->err,
		                         sizeof s->err);
	if (rc < 0) {
		chakra__sim_workload_close(&w);
		return rc;
	}
	if (rc == 0) {
		s->sym_cls = sym.cls;
		s->sym_rep = sym.rep;
		s->sym_n = sym.nclasses;
		rc = run_reduced(s, &w, &sym, s->err, sizeof s->err);
		s->sym_cls = s->sym_rep = NULL;
		if (rc == 0) {
			s->sym_cls = sym.cls; /* (kept for chakra_sim_simulated, _class_of) */
			s->sym_rep = sym.rep;
			sym.cls = sym.rep = NULL;
		} else {
			snprintf(s->sym_note, sizeof s->sym_note, "%s%.480s",
			         rc == CHAKRA_ESTATE ? "not symmetric: " : "the reduced run stopped: ", s->err);
			chakra_free(s->res);
			s->res = NULL;
			s->err[0] = 0;
			s->warning[0] = 0;
			s->rules_used = CHAKRA_SIM_RULES_AUTO;
			s->finish = s->events = s->nodes = 0;
			rc = 1;
		}
		chakra__sim_sym_free(&sym);
	}
	if (rc == 1) { /* every NPU */
		s->sym_n = s->net.npus;
		rc = chakra__sim_workload_feeders(s, &w, NULL, s->err, sizeof s->err);
		if (rc == 0)
			rc = run_feeders(s, w.f, w.map, NULL);
	}
	if (rc == 0 && w.window_cut && s->rules_used == CHAKRA_SIM_RULES_ASTRA_SIM) {
		size_t l = strlen(s->warning);
		snprintf(s->warning + l, sizeof s->warning - l, "%sthe traces are larger than the "
		         "read-ahead the memory budget allows (%" PRIu64 " nodes per rank): ASTRA-sim's "
		         "feeder knows every node, so its issue order, and the cycles, may differ "
		         "(raise --memory, or --window)", l ? "; " : "", w.window);
	}
	chakra__sim_workload_close(&w);
	return rc;
}

const char *chakra_sim_errmsg(const chakra_sim *s)
{
	return s ? s->err : "no simulator (NULL handle)";
}

uint32_t chakra_sim_npus(const chakra_sim *s)
{
	return s ? s->net.npus : 0;
}

uint64_t chakra_sim_finish(const chakra_sim *s)
{
	return s ? s->finish : 0;
}

const chakra_sim_npu_result *chakra_sim_npu(const chakra_sim *s, uint32_t npu)
{
	return s && s->res && npu < s->npus ? &s->res[npu] : NULL;
}

uint64_t chakra_sim_nodes(const chakra_sim *s)
{
	return s ? s->nodes : 0;
}

chakra_sim_rules chakra_sim_rules_used(const chakra_sim *s)
{
	return s ? s->rules_used : CHAKRA_SIM_RULES_AUTO;
}

uint64_t chakra_sim_events(const chakra_sim *s)
{
	return s ? s->events : 0;
}

const char *chakra_sim_warning(const chakra_sim *s)
{
	return s && s->warning[0] ? s->warning : NULL;
}

uint32_t chakra_sim_classes(const chakra_sim *s)
{
	return s ? s->sym_n : 0;
}

const char *chakra_sim_symmetry(const chakra_sim *s)
{
	return s && s->sym_note[0] ? s->sym_note : NULL;
}

int chakra_sim_simulated(const chakra_sim *s, uint32_t npu)
{
	if (!s || npu >= s->net.npus)
		return 0;
	return !s->sym_cls || s->sym_rep[s->sym_cls[npu]] == npu;
}

uint32_t chakra_sim_class_of(const chakra_sim *s, uint32_t npu)
{
	if (!s || npu >= s->net.npus)
		return UINT32_MAX;
	return s->sym_cls ? s->sym_cls[npu] : npu;
}

uint32_t chakra_sim_representative(const chakra_sim *s, uint32_t npu)
{
	if (!s || npu >= s->net.npus)
		return UINT32_MAX;
	return s->sym_cls ? s->sym_rep[s->sym_cls[npu]] : npu;
}

uint64_t chakra_sim_window(const chakra_sim *s, uint64_t *window_bytes, size_t *read_bytes)
{
	if (window_bytes)
		*window_bytes = s ? s->window_bytes : 0;
	if (read_bytes)
		*read_bytes = s ? s->read_chunk : 0;
	return s ? s->window : 0;
}
