/* SPDX-License-Identifier: Apache-2.0 */
/* Communicator-group files: the one reader (over the flat JSON reader,
 * jflat.h, with the line of each key for the messages) and the one
 * writer. */
#include "groups.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chakra/error.h"
#include "jflat.h"
#include "jstr.h"
#include "../modmem.h"

/* What the checks need of each entry. */
typedef struct gentry {
	int is_list, is_object; /* a nested value makes the entry an object */
	size_t n;               /* items seen */
	size_t bad;             /* first item that is not a rank, or SIZE_MAX */
} gentry;

#define fail(...) chakra__json_errf(__VA_ARGS__)

void chakra__groups_free(chakra__groups *gs)
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

/* What the parse found, checked in file order: a name defined twice (by
 * sorting the names: comparing each with every earlier one took 69 s on
 * 200,000 groups), then each group's shape, members and repeats. */
static int check(const chakra__groups *gs, const gentry *e, const char *path, uint32_t npus,
                 char *err, size_t errlen)
{
	size_t n = gs->n, most = 0;
	keyref *byname = chakra_malloc((n ? n : 1) * sizeof *byname);
	if (!byname)
		return fail(err, errlen, CHAKRA_ENOMEM, "%s: out of memory", path);
	for (size_t i = 0; i < n; i++) {
		byname[i].key = gs->g[i].name;
		byname[i].i = i;
		if (gs->g[i].n > most)
			most = gs->g[i].n;
	}
	qsort(byname, n, sizeof *byname, cmp_key);
	size_t dup = SIZE_MAX;
	for (size_t i = 1; i < n; i++)
		if (!strcmp(byname[i - 1].key, byname[i].key) && byname[i].i < dup)
			dup = byname[i].i; /* the first repeat in file order */
	chakra_free(byname);
	if (dup != SIZE_MAX)
		return fail(err, errlen, CHAKRA_ECONFIG, "%s:%lu: group '%s' is defined twice", path,
		            gs->g[dup].line, gs->g[dup].name);
	uint32_t *sorted = chakra_malloc((most ? most : 1) * sizeof *sorted);
	if (!sorted)
		return fail(err, errlen, CHAKRA_ENOMEM, "%s: out of memory", path);
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		const chakra__group *g = &gs->g[i];
		if (!e[i].is_list || e[i].is_object || e[i].n < 1)
			rc = fail(err, errlen, CHAKRA_ECONFIG,
			          "%s:%lu: group '%s': expected a non-empty list of ranks", path, g->line,
			          g->name);
		else if (e[i].bad != SIZE_MAX)
			rc = fail(err, errlen, CHAKRA_ECONFIG,
			          "%s:%lu: group '%s': entry %zu is not a rank in 0..%u", path, g->line,
			          g->name, e[i].bad, npus - 1);
		if (rc)
			break;
		memcpy(sorted, g->ranks, g->n * sizeof *sorted);
		qsort(sorted, g->n, sizeof *sorted, cmp_rank);
		for (size_t x = 1; x < g->n && rc == 0; x++)
			if (sorted[x] == sorted[x - 1])
				rc = fail(err, errlen, CHAKRA_ECONFIG,
				          "%s:%lu: group '%s': rank %u is listed twice", path, g->line, g->name,
				          sorted[x]);
	}
	chakra_free(sorted);
	return rc;
}

/* An item is a rank when it is an integer in 0..npus-1. */
static int is_rank(const chakra__jitem *it, uint32_t npus)
{
	return it->is_str == 0 && !it->is_bool && it->is_int && it->num >= 0 && it->num < npus;
}

int chakra__groups_parse(chakra__groups *gs, const char *path, const char *text, size_t len,
                         uint32_t npus, char *err, size_t errlen)
{
	memset(gs, 0, sizeof *gs);
	chakra__jflat j;
	int rc = chakra__jflat_parse(&j, path, text, len, err, errlen);
	if (rc)
		return rc;
	gentry *e = chakra_calloc(j.n ? j.n : 1, sizeof *e);
	gs->g = chakra_calloc(j.n ? j.n : 1, sizeof *gs->g);
	if (!e || !gs->g)
		rc = fail(err, errlen, CHAKRA_ENOMEM, "%s: out of memory", path);
	for (size_t i = 0; i < j.n && rc == 0; i++) {
		chakra__jentry *je = &j.e[i];
		chakra__group *g = &gs->g[gs->n++];
		g->name = je->key; /* the group's now */
		je->key = NULL;
		g->line = je->line;
		e[i].is_list = je->is_list;
		e[i].is_object = je->is_object;
		e[i].n = je->n;
		e[i].bad = SIZE_MAX;
		for (size_t k = 0; k < je->n && e[i].bad == SIZE_MAX; k++)
			if (!is_rank(&je->items[k], npus))
				e[i].bad = k;
		if (e[i].bad != SIZE_MAX || !je->n)
			continue;
		g->ranks = chakra_malloc(je->n * sizeof *g->ranks);
		if (!g->ranks) {
			rc = fail(err, errlen, CHAKRA_ENOMEM, "%s: out of memory", path);
			break;
		}
		for (size_t k = 0; k < je->n; k++)
			g->ranks[k] = (uint32_t)je->items[k].num;
		g->n = je->n;
	}
	chakra__jflat_free(&j);
	if (rc == 0)
		rc = check(gs, e, path, npus, err, errlen);
	chakra_free(e);
	if (rc)
		chakra__groups_free(gs);
	return rc;
}

/* ---- the writer ---- */

static int put(chakra__groups_out *o, const char *s, size_t n)
{
	if (o->rc == 0 && n)
		o->rc = o->cb(o->data, s, n);
	return o->rc;
}

int chakra__groups_out_begin(chakra__groups_out *o, chakra_write_cb cb, void *data)
{
	memset(o, 0, sizeof *o);
	o->cb = cb;
	o->data = data;
	return put(o, "{", 1);
}

static int put_v(void *o, const char *s, size_t n)
{
	return put(o, s, n);
}

/* The name as a JSON string (jstr.h). */
int chakra__groups_out_group(chakra__groups_out *o, const char *name, size_t len)
{
	if (o->ngroups)
		put(o, "],\n  ", 5);
	else
		put(o, "\n  ", 3);
	o->ngroups++;
	o->nranks = 0;
	chakra__json_str(name, len, 0, put_v, o);
	return put(o, ": [", 3);
}

int chakra__groups_out_rank(chakra__groups_out *o, uint64_t rank)
{
	char b[32];
	int m = snprintf(b, sizeof b, "%s%llu", o->nranks ? ", " : "", (unsigned long long)rank);
	o->nranks++;
	return put(o, b, (size_t)m);
}

int chakra__groups_out_list(chakra__groups_out *o, const char *name, const uint32_t *ranks,
                            size_t n)
{
	chakra__groups_out_group(o, name, strlen(name));
	for (size_t i = 0; i < n; i++)
		chakra__groups_out_rank(o, ranks[i]);
	return o->rc;
}

int chakra__groups_out_end(chakra__groups_out *o)
{
	if (o->ngroups)
		put(o, "]", 1);
	return put(o, "\n}\n", 3);
}
