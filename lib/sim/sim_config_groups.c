/* SPDX-License-Identifier: Apache-2.0 */
/* Communicator groups ({"id": [ranks...]}, the file pg_name refers to). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "groups.h"
#include "sim_config.h"

/* The public groups' own free: chakra_sim_group (sim.h) is not lib/json's
 * chakra__group (that one keeps each key's line), so chakra__groups_free
 * cannot take it. */
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

/* The one reader (lib/json/groups.c), copied into the simulator's own
 * blocks: a configuration file is small here too. */
static int groups_parse(chakra_sim_groups *gs, const char *path, const char *text, size_t len,
                     uint32_t npus, char *err)
{
	memset(gs, 0, sizeof *gs);
	if (len > SIM_CONFIG_MAX)
		return fail(err, "%s: larger than %zu MiB: not a configuration file", path,
		            SIM_CONFIG_MAX >> 20);
	chakra__groups cg;
	int rc = chakra__groups_parse(&cg, path, text, len, npus, err, SIM_ERR_LEN);
	if (rc)
		return rc;
	gs->g = chakra_calloc(cg.n ? cg.n : 1, sizeof *gs->g);
	if (!gs->g)
		rc = nomem(err, path);
	for (size_t i = 0; i < cg.n && rc == 0; i++, gs->n++) {
		chakra_sim_group *g = &gs->g[i];
		g->name = chakra__sim_cfg_strndup(cg.g[i].name, strlen(cg.g[i].name));
		g->ranks = chakra_malloc(cg.g[i].n * sizeof *g->ranks);
		g->n = cg.g[i].n;
		if (!g->name || !g->ranks)
			rc = nomem(err, path);
		else
			memcpy(g->ranks, cg.g[i].ranks, g->n * sizeof *g->ranks);
	}
	chakra__groups_free(&cg);
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
