/* SPDX-License-Identifier: Apache-2.0 */
/* Multi-rank workloads: PREFIX.0.et ... PREFIX.{N-1}.et (or .et.gz), one
 * feeder per rank; N is the number of consecutive ranks found. Without
 * PREFIX.0.et, a rank map (PREFIX.ranks, or PREFIX itself): every rank's
 * feeder reads its class file with the rank's substitution, opened when the
 * rank is first asked for (rankmap.c; a map may hold 131,072 ranks, and
 * their feeders would not fit in memory at once). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "chakra/error.h"
#include "feeder_impl.h"
#include "../rankpath.h"

struct chakra_workload {
	chakra_feeder **f;
	size_t n;
	chakra_rank_map *map;           /* NULL: per-rank files */
	chakra_feeder_options opts;     /* rank maps: for the feeders opened later */
	chakra_reader_options ropts;
	int has_ropts;
	char err[FEEDER_ERRMSG_MAX];
};

/* A rank map workload: the map is read now, the feeders on demand. */
static int open_map(chakra_workload *w, const char *path, const chakra_feeder_options *opts)
{
	char e[1024];
	int rc = chakra_rank_map_load(&w->map, path, e, sizeof e);
	if (rc < 0) {
		snprintf(w->err, sizeof w->err, "%s", e);
		return rc;
	}
	chakra_feeder_options def = CHAKRA_FEEDER_OPTIONS_INIT;
	w->opts = def;
	if (opts && chakra__feeder_opts_copy(&w->opts, opts) < 0) {
		snprintf(w->err, sizeof w->err, "%s: chakra_feeder_options version %u is not one this "
		         "library knows (1 to %u)", path, opts->version,
		         (unsigned)CHAKRA_FEEDER_OPTIONS_VERSION);
		return CHAKRA_EINVAL;
	}
	if (opts && opts->reader) {
		if (chakra__reader_opts_copy(&w->ropts, opts->reader) < 0) {
			snprintf(w->err, sizeof w->err, "%s: chakra_reader_options version %u is not one "
			         "this library knows (1 to %u)", path, opts->reader->version,
			         (unsigned)CHAKRA_READER_OPTIONS_VERSION);
			return CHAKRA_EINVAL;
		}
		w->ropts.display_name = NULL; /* (each rank's feeder names its class file) */
		w->has_ropts = 1;
	}
	w->opts.reader = NULL;
	w->opts.subst = NULL;
	w->n = chakra_rank_map_ranks(w->map);
	w->f = (chakra_feeder **)chakra__calloc(w->n, sizeof *w->f);
	if (!w->f) {
		snprintf(w->err, sizeof w->err, "%s: out of memory", path);
		return CHAKRA_ENOMEM;
	}
	return 0;
}

int chakra_workload_open(chakra_workload **out, const char *prefix,
                         const chakra_feeder_options *opts)
{
	if (!out)
		return CHAKRA_EINVAL;
	*out = NULL;
	chakra_workload *w = (chakra_workload *)chakra__calloc(1, sizeof *w);
	if (!w)
		return CHAKRA_ENOMEM;
	*out = w;
	if (!prefix) {
		snprintf(w->err, sizeof w->err, "chakra_workload_open: no prefix (NULL)");
		return CHAKRA_EINVAL;
	}
	size_t plen = strlen(prefix) + 32;
	char *path = (char *)chakra__malloc(plen);
	if (!path) {
		snprintf(w->err, sizeof w->err, "%s: out of memory", prefix);
		return CHAKRA_ENOMEM;
	}
	size_t n = 0;
	while (chakra__rank_path(path, plen, prefix, n))
		n++;
	if (n == 0) {
		int rc = CHAKRA_ENOTFOUND;
		snprintf(path, plen, "%s.ranks", prefix);
		if (chakra__rank_is_file(path))
			rc = open_map(w, path, opts);
		else if (chakra_rank_map_is(prefix))
			rc = open_map(w, prefix, opts);
		else
			snprintf(w->err, sizeof w->err,
			         "%s: no workload: neither %s.0.et, %s.0.et.gz nor %s.ranks exists", prefix,
			         prefix, prefix, prefix);
		chakra__free(path);
		return rc;
	}
	w->f = (chakra_feeder **)chakra__calloc(n, sizeof *w->f);
	if (!w->f) {
		snprintf(w->err, sizeof w->err, "%s: out of memory", prefix);
		chakra__free(path);
		return CHAKRA_ENOMEM;
	}
	w->n = n;
	for (size_t r = 0; r < n; r++) {
		chakra__rank_path(path, plen, prefix, r);
		int rc = chakra_feeder_open(&w->f[r], path, opts);
		if (rc < 0) {
			snprintf(w->err, sizeof w->err, "rank %zu: %.4000s", r,
			         chakra_feeder_errmsg(w->f[r]));
			chakra__free(path);
			return rc;
		}
	}
	chakra__free(path);
	return 0;
}

size_t chakra_workload_size(const chakra_workload *w) { return w ? w->n : 0; }

chakra_feeder *chakra_workload_feeder(chakra_workload *w, size_t rank)
{
	if (!w || rank >= w->n)
		return NULL;
	if (w->f[rank] || !w->map)
		return w->f[rank];
	/* A rank map: this rank's class file, with its substitution. */
	chakra_rank_subst sub;
	chakra_rank_map_subst(w->map, (uint32_t)rank, &sub);
	chakra_feeder_options o = w->opts;
	chakra_reader_options ro = w->ropts;
	o.reader = w->has_ropts ? &ro : NULL;
	o.subst = &sub;
	const char *file = chakra_rank_map_file(w->map, chakra_rank_map_class(w->map, (uint32_t)rank));
	chakra_feeder *f = NULL;
	int rc = chakra_feeder_open(&f, file, &o);
	if (rc < 0) {
		snprintf(w->err, sizeof w->err, "rank %zu: %.4000s", rank,
		         f ? chakra_feeder_errmsg(f) : chakra_strerror(rc));
		chakra_feeder_close(f);
		return NULL;
	}
	w->f[rank] = f;
	return f;
}

const chakra_rank_map *chakra_workload_rank_map(const chakra_workload *w)
{
	return w ? w->map : NULL;
}

const char *chakra_workload_errmsg(const chakra_workload *w) { return w ? w->err : "out of memory"; }

void chakra_workload_close(chakra_workload *w)
{
	if (!w)
		return;
	for (size_t r = 0; w->f && r < w->n; r++)
		chakra_feeder_close(w->f[r]);
	chakra__free(w->f);
	chakra_rank_map_free(w->map);
	chakra__free(w);
}
