/* SPDX-License-Identifier: Apache-2.0 */
/* The table of collective algorithms (coll.def): lookups by enum value and
 * by the system JSON's names. */
#include <stdio.h>
#include <string.h>

#include "coll.h"

static const sim_coll *const all[] = {
#define SIM_COLL(x) &chakra__sim_coll_##x,
#include "coll.def"
#undef SIM_COLL
};
#define NALL (sizeof all / sizeof all[0])

const sim_coll *chakra__sim_coll_of(chakra_sim_algorithm alg, int *flat)
{
	for (size_t i = 0; i < NALL; i++) {
		int f = all[i]->flat_name && all[i]->flat_alg == alg;
		if (all[i]->alg == alg || f) {
			if (flat)
				*flat = f;
			return all[i];
		}
	}
	return NULL;
}

int chakra__sim_alg_flat(chakra_sim_algorithm alg)
{
	int flat = 0;
	return chakra__sim_coll_of(alg, &flat) && flat;
}

const sim_coll *chakra__sim_coll_named(const char *name, chakra_sim_algorithm *alg)
{
	for (size_t i = 0; i < NALL; i++) {
		if (!strcmp(all[i]->name, name)) {
			*alg = all[i]->alg;
			return all[i];
		}
		if (all[i]->flat_name && !strcmp(all[i]->flat_name, name)) {
			*alg = all[i]->flat_alg;
			return all[i];
		}
	}
	return NULL;
}

const char *chakra__sim_alg_name(chakra_sim_algorithm alg)
{
	int flat;
	const sim_coll *c = chakra__sim_coll_of(alg, &flat);
	return !c ? "?" : flat ? c->flat_name : c->name;
}

void chakra__sim_coll_names(char *buf, size_t len)
{
	size_t at = 0;
	if (!len)
		return;
	buf[0] = 0;
	for (int flat = 0; flat < 2; flat++)
		for (size_t i = 0; i < NALL; i++) {
			const char *s = flat ? all[i]->flat_name : all[i]->name;
			if (!s)
				continue;
			int w = snprintf(buf + at, len - at, "%s%s", at ? ", " : "", s);
			if (w < 0 || (size_t)w >= len - at)
				return;
			at += (size_t)w;
		}
}
