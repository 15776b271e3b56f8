/* SPDX-License-Identifier: Apache-2.0 */
/* The fitter's communicator groups: the group file read through the one
 * reader (lib/json/groups.c), each group's ranks sorted, found by name,
 * and its shape among the world's ranks (all, a block, every s-th). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fit_impl.h"

void chakra__sy_groups_free(sy_groups *G)
{
	for (size_t i = 0; i < G->n; i++) {
		chakra_free(G->g[i].name);
		chakra_free(G->g[i].ranks);
	}
	chakra_free(G->g);
	chakra_free(G->byname);
	memset(G, 0, sizeof *G);
}

static int cmp_gref(const void *a, const void *b)
{
	const sy_gref *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : x->i < y->i ? -1 : x->i > y->i;
}

static int cmp_u32(const void *x, const void *y);

/* The reader has refused a name defined twice and a rank listed twice;
 * here each group's ranks are sorted and the index by name built. */
static int groups_check(sy_groups *G)
{
	for (size_t i = 0; i < G->n; i++) {
		chakra__group *g = &G->g[i];
		qsort(g->ranks, g->n, sizeof *g->ranks, cmp_u32);
		if (g->ranks[g->n - 1] + 1 > G->world)
			G->world = g->ranks[g->n - 1] + 1;
	}
	G->byname = chakra_malloc((G->n ? G->n : 1) * sizeof *G->byname);
	if (!G->byname)
		return CHAKRA_ENOMEM;
	for (size_t i = 0; i < G->n; i++) {
		G->byname[i].name = G->g[i].name;
		G->byname[i].i = i;
	}
	qsort(G->byname, G->n, sizeof *G->byname, cmp_gref);
	return 0;
}

const chakra__group *chakra__sy_groups_find(const sy_groups *G, const char *name)
{
	size_t lo = 0, hi = G->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(G->byname[mid].name, name);
		if (c < 0)
			lo = mid + 1;
		else if (c > 0)
			hi = mid;
		else
			return &G->g[G->byname[mid].i];
	}
	return NULL;
}

static char *slurp_text(const char *path, size_t *len, char *err, size_t errlen, int *rc)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		*rc = chakra__sy_err(err, errlen, CHAKRA_EIO, "%s: %s", path, strerror(errno));
		return NULL;
	}
	size_t cap = 4096, n = 0;
	char *b = chakra_malloc(cap + 1);
	size_t r;
	while (b && (r = fread(b + n, 1, cap - n, f)) > 0) {
		n += r;
		if (n == cap) {
			if (cap > ((size_t)1 << 30)) {
				chakra_free(b);
				fclose(f);
				*rc = chakra__sy_err(err, errlen, CHAKRA_ETOOBIG, "%s: larger than 1 GiB", path);
				return NULL;
			}
			char *nb = chakra_realloc(b, (cap *= 2) + 1);
			if (!nb) {
				chakra_free(b);
				b = NULL;
				break;
			}
			b = nb;
		}
	}
	int bad = ferror(f);
	fclose(f);
	if (!b) {
		*rc = CHAKRA_ENOMEM;
		return NULL;
	}
	if (bad) {
		chakra_free(b);
		*rc = chakra__sy_err(err, errlen, CHAKRA_EIO, "%s: read error", path);
		return NULL;
	}
	b[n] = 0;
	*len = n;
	return b;
}

/* The group file's text (path names it in messages), through the one
 * reader; ranks up to 2^24 - 1, the most synth takes. */
static int groups_parse(sy_groups *G, const char *path, const char *text, size_t len,
                        char *err, size_t errlen)
{
	memset(G, 0, sizeof *G);
	chakra__groups cg;
	int rc = chakra__groups_parse(&cg, path, text, len, 1u << 24, err, errlen);
	if (rc < 0)
		return rc;
	G->g = cg.g;
	G->n = cg.n;
	if ((rc = groups_check(G)) < 0)
		chakra__sy_groups_free(G);
	return rc;
}

int chakra__sy_groups_load(sy_groups *G, const char *path, char *err, size_t errlen)
{
	memset(G, 0, sizeof *G);
	size_t len = 0;
	int rc = 0;
	char *text = slurp_text(path, &len, err, errlen, &rc);
	if (!text)
		return rc;
	rc = groups_parse(G, path, text, len, err, errlen);
	chakra_free(text);
	return rc;
}

int chakra__sy_groups_probe(const char *name, const char *text, size_t len, size_t *ngroups,
                            uint32_t *world, char *err, size_t errlen)
{
	sy_groups G;
	int rc = groups_parse(&G, name, text, len, err, errlen);
	if (rc == 0) {
		*ngroups = G.n;
		*world = G.world;
		/* what the fitter relies on: sorted, none twice, found by name */
		for (size_t i = 0; i < G.n && rc == 0; i++) {
			for (size_t k = 1; k < G.g[i].n; k++)
				if (G.g[i].ranks[k] <= G.g[i].ranks[k - 1])
					rc = chakra__sy_err(err, errlen, CHAKRA_EINVAL, "ranks not sorted and unique");
			if (chakra__sy_groups_find(&G, G.g[i].name) != &G.g[i])
				rc = chakra__sy_err(err, errlen, CHAKRA_EINVAL, "group not found by its name");
		}
		chakra__sy_groups_free(&G);
	}
	return rc;
}

static int cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	return a < b ? -1 : a > b;
}

/* Shape of a group among world ranks: all, a block of consecutive ranks,
 * or every s-th rank. */
int chakra__sy_group_shape(const char *file, const chakra__group *g, uint32_t world, int *kind,
                           uint32_t *param, char *err, size_t errlen)
{
	size_t m = g->n; /* sorted, none twice: groups_check */
	if (m >= world) {
		*kind = SY_GROUP_ALL;
		*param = 0;
		return 0;
	}
	int consecutive = 1;
	for (size_t i = 1; i < m; i++)
		consecutive &= g->ranks[i] == g->ranks[0] + i;
	if (consecutive && g->ranks[0] % m == 0 && world % m == 0) {
		*kind = SY_GROUP_BLOCK;
		*param = (uint32_t)m;
		return 0;
	}
	if (m >= 2) {
		uint32_t s = g->ranks[1] - g->ranks[0];
		int strided = 1;
		for (size_t i = 1; i < m; i++)
			strided &= g->ranks[i] == g->ranks[0] + (uint32_t)i * s;
		if (strided && (uint64_t)s * m == world && g->ranks[0] < s) {
			*kind = SY_GROUP_STRIDE;
			*param = s;
			return 0;
		}
	}
	return chakra__sy_err(err, errlen, CHAKRA_ECONFIG,
	                      "%s: group \"%s\" (%zu ranks of %u, first %u) is neither a block of "
	                      "consecutive ranks nor every s-th rank: synth models those two shapes",
	                      file, g->name, m, world, g->ranks[0]);
}
