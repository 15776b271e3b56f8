/* SPDX-License-Identifier: Apache-2.0 */
/* Communicator groups ({"id": [ranks...]}, the file pg_name refers to). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_config.h"

void chakra_sim_groups_free(chakra_sim_groups *gs)
{
	if (!gs)
		return;
	for (size_t i = 0; i < gs->n; i++) {
		chakra_free(gs->g[i].name);
		chakra_free(gs->g[i].ranks);
	}
	chakra_free(gs->g);
	gs->g = NULL;
	gs->n = 0;
}

typedef struct keyref {
	const char *key;
	size_t i;
} keyref;

static int cmp_key(const void *a, const void *b)
{
	const keyref *x = a, *y = b;
	int c = strcmp(x->key, y->key);
	return c ? c : x->i < y->i ? -1 : x->i > y->i;
}

static int cmp_rank(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static int groups_parse(chakra_sim_groups *gs, const char *path, const char *text, size_t len,
                     uint32_t npus, char *err)
{
	memset(gs, 0, sizeof *gs);
	jflat j;
	int rc = jflat_parse(&j, path, text, len, err);
	if (rc)
		return rc;
	gs->g = chakra_calloc(j.n ? j.n : 1, sizeof *gs->g);
	keyref *byname = chakra_malloc((j.n ? j.n : 1) * sizeof *byname);
	uint32_t *sorted = NULL;
	size_t sorted_cap = 0;
	if (!gs->g || !byname)
		rc = nomem(err, path);
	/* a name defined twice: found by sorting the names, not by comparing
	 * each with every earlier one (200,000 groups took 69 s) */
	if (rc == 0) {
		for (size_t i = 0; i < j.n; i++) {
			byname[i].key = j.e[i].key;
			byname[i].i = i;
		}
		qsort(byname, j.n, sizeof *byname, cmp_key);
		size_t dup = SIZE_MAX;
		for (size_t i = 1; i < j.n; i++)
			if (!strcmp(byname[i - 1].key, byname[i].key) && byname[i].i < dup)
				dup = byname[i].i; /* the first repeat in file order */
		if (dup != SIZE_MAX)
			rc = fail(err, "%s:%lu: group '%s' is defined twice", path, j.e[dup].line,
			          j.e[dup].key);
	}
	for (size_t i = 0; i < j.n && rc == 0; i++) {
		const jentry *e = &j.e[i];
		if (!e->is_list || e->is_object || e->n < 1) {
			rc = fail(err, "%s:%lu: group '%s': expected a non-empty list of ranks", path,
			          e->line, e->key);
			break;
		}
		chakra_sim_group *g = &gs->g[gs->n];
		g->ranks = chakra_malloc(e->n * sizeof *g->ranks);
		g->name = chakra__mstrdup(e->key);
		g->n = e->n;
		gs->n++;
		if (!g->ranks || !g->name) {
			rc = nomem(err, path);
			break;
		}
		for (size_t x = 0; x < e->n && rc == 0; x++) {
			const jitem *it = &e->items[x];
			if (it->is_str || !it->is_int || it->is_bool || it->num < 0 || it->num >= npus)
				rc = fail(err, "%s:%lu: group '%s': entry %zu is not a rank in 0..%u", path,
				          e->line, e->key, x, npus - 1);
			else
				g->ranks[x] = (uint32_t)it->num;
		}
		/* a rank listed twice: a sorted copy, not each against the ones
		 * before it */
		if (rc == 0 && e->n > sorted_cap) {
			uint32_t *t = chakra_realloc(sorted, e->n * sizeof *t);
			if (!t) {
				rc = nomem(err, path);
				break;
			}
			sorted = t;
			sorted_cap = e->n;
		}
		if (rc == 0) {
			memcpy(sorted, g->ranks, e->n * sizeof *sorted);
			qsort(sorted, e->n, sizeof *sorted, cmp_rank);
			for (size_t x = 1; x < e->n && rc == 0; x++)
				if (sorted[x] == sorted[x - 1])
					rc = fail(err, "%s:%lu: group '%s': rank %u is listed twice", path,
					          e->line, e->key, sorted[x]);
		}
	}
	chakra_free(byname);
	chakra_free(sorted);
	jflat_free(&j);
	if (rc)
		chakra_sim_groups_free(gs);
	return rc;
}

static int groups_load(chakra_sim_groups *gs, const char *path, uint32_t npus, char *err)
{
	size_t len;
	int code;
	char *text = slurp_text(path, &len, err, &code);
	if (!text)
		return code;
	int rc = groups_parse(gs, path, text, len, npus, err);
	chakra_free(text);
	return rc;
}

const chakra_sim_group *chakra_sim_groups_find(const chakra_sim_groups *gs, const char *name, size_t len)
{
	for (size_t i = 0; gs && name && i < gs->n; i++)
		if (strlen(gs->g[i].name) == len && !memcmp(gs->g[i].name, name, len))
			return &gs->g[i];
	return NULL;
}

int chakra_sim_groups_parse(chakra_sim_groups *gs, const char *name, const char *text,
                            size_t len, uint32_t npus, char *err, size_t errlen)
{
	char e[SIM_ERR_LEN] = "";
	if (!gs || (!text && len))
		return report(CHAKRA_EINVAL, "chakra_sim_groups_parse: NULL argument", err, errlen);
	return report(groups_parse(gs, name ? name : "<groups>", text ? text : "", len, npus, e),
	              e, err, errlen);
}

int chakra_sim_groups_load(chakra_sim_groups *gs, const char *path, uint32_t npus, char *err,
                           size_t errlen)
{
	char e[SIM_ERR_LEN] = "";
	if (!gs || !path)
		return report(CHAKRA_EINVAL, "chakra_sim_groups_load: NULL argument", err, errlen);
	return report(groups_load(gs, path, npus, e), e, err, errlen);
}
