/* SPDX-License-Identifier: Apache-2.0 */
/* Multi-rank workloads: PREFIX.0.et ... PREFIX.{N-1}.et (or .et.gz), one
 * feeder per rank; N is the number of consecutive ranks found. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "chakra/error.h"
#include "feeder_impl.h"

struct chakra_workload {
	chakra_feeder **f;
	size_t n;
	char err[FEEDER_ERRMSG_MAX];
};

static int is_file(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* Path of rank r into buf: the .et file, else the .et.gz one; 0 if neither. */
static int rank_path(char *buf, size_t cap, const char *prefix, size_t r)
{
	snprintf(buf, cap, "%s.%zu.et", prefix, r);
	if (is_file(buf))
		return 1;
	snprintf(buf, cap, "%s.%zu.et.gz", prefix, r);
	return is_file(buf);
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
	while (rank_path(path, plen, prefix, n))
		n++;
	if (n == 0) {
		snprintf(w->err, sizeof w->err,
		         "%s: no workload: neither %s.0.et nor %s.0.et.gz exists", prefix, prefix, prefix);
		chakra__free(path);
		return CHAKRA_ENOTFOUND;
	}
	w->f = (chakra_feeder **)chakra__calloc(n, sizeof *w->f);
	if (!w->f) {
		snprintf(w->err, sizeof w->err, "%s: out of memory", prefix);
		chakra__free(path);
		return CHAKRA_ENOMEM;
	}
	w->n = n;
	for (size_t r = 0; r < n; r++) {
		rank_path(path, plen, prefix, r);
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
	return w && rank < w->n ? w->f[rank] : NULL;
}

const char *chakra_workload_errmsg(const chakra_workload *w) { return w ? w->err : "out of memory"; }

void chakra_workload_close(chakra_workload *w)
{
	if (!w)
		return;
	for (size_t r = 0; r < w->n; r++)
		chakra_feeder_close(w->f[r]);
	chakra__free(w->f);
	chakra__free(w);
}
