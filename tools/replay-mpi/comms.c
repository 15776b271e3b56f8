/* SPDX-License-Identifier: Apache-2.0 */
/* One communicator per collective scope any rank uses. Every rank takes
 * part in every split, in the same order (the scopes' slot order), so the
 * splits cannot deadlock; overlapping groups (a model group and a data
 * group) go to different splits: groups are packed greedily into layers of
 * disjoint groups and each layer is one MPI_Comm_split. */
#include <stdlib.h>
#include <string.h>

#include "replay_tool.h"

static int fail(rp_ctx *c, const char *what)
{
	fprintf(stderr, "chakra-replay: rank %d: %s\n", c->rank, what);
	return -1;
}

int rp_comms_build(rp_ctx *c)
{
	const chakra_replay_topo *t = &c->topo;
	size_t ns = chakra_replay_scope_slots(t);
	c->nslots = ns;
	unsigned char *mine = calloc(ns, 1), *used = calloc(ns, 1);
	c->comm = malloc(ns * sizeof *c->comm);
	c->members = calloc(ns, sizeof *c->members);
	c->nmembers = calloc(ns, sizeof *c->nmembers);
	int ok = mine && used && c->comm && c->members && c->nmembers;
	for (size_t s = 0; ok && s < ns; s++)
		c->comm[s] = MPI_COMM_NULL;
	const chakra_replay_channel *ch = ok ? chakra_replay_plan_channels(c->plan) : NULL;
	for (size_t i = 0; ok && i < chakra_replay_plan_channel_count(c->plan); i++)
		if (ch[i].kind == CHAKRA_REPLAY_COLL)
			mine[chakra_replay_scope_slot(t, ch[i].scope)] = 1;
	if (!rp_agree(c, ok)) {
		free(mine);
		free(used);
		return ok ? -1 : fail(c, "out of memory");
	}
	c->phase = "building communicators";
	MPI_Request r;
	MPI_Iallreduce(mine, used, (int)ns, MPI_UNSIGNED_CHAR, MPI_BOR, MPI_COMM_WORLD, &r);
	rp_wait(c, &r);
	free(mine);

	/* Every rank, and dimension scopes: one split each. */
	for (size_t s = 0; s < ns; s++) {
		chakra_replay_scope sc = chakra_replay_scope_at(t, s);
		if (!used[s] || sc.kind == CHAKRA_REPLAY_SCOPE_GROUP)
			continue;
		int64_t color = chakra_replay_scope_color(t, sc, (uint32_t)c->rank);
		MPI_Comm_split(MPI_COMM_WORLD, (int)color, c->rank, &c->comm[s]);
	}
	/* Groups: layers of disjoint groups. */
	size_t ng = t->groups ? t->groups->n : 0;
	size_t gbase = ns - ng;
	int *layer = malloc((ng ? ng : 1) * sizeof *layer);
	unsigned char *taken = NULL; /* [layer][rank] */
	size_t nlayers = 0;
	ok = layer != NULL;
	for (size_t g = 0; ok && g < ng; g++) {
		layer[g] = -1;
		if (!used[gbase + g])
			continue;
		size_t m = t->groups->g[g].n;
		const uint32_t *rs = t->groups->g[g].ranks;
		size_t L = 0;
		for (; L < nlayers; L++) {
			size_t j = 0;
			while (j < m && !taken[L * (size_t)c->size + rs[j]])
				j++;
			if (j == m)
				break;
		}
		if (L == nlayers) {
			unsigned char *nt = realloc(taken, (nlayers + 1) * (size_t)c->size);
			if (!nt) {
				ok = 0;
				break;
			}
			taken = nt;
			memset(taken + nlayers * (size_t)c->size, 0, (size_t)c->size);
			nlayers++;
		}
		for (size_t j = 0; j < m; j++)
			taken[L * (size_t)c->size + rs[j]] = 1;
		layer[g] = (int)L;
	}
	free(taken);
	/* The layer count is the same on every rank (same file, same bitmap);
	 * only a failed allocation could differ. */
	if (!rp_agree(c, ok)) {
		free(layer);
		free(used);
		return ok ? -1 : fail(c, "out of memory");
	}
	for (size_t L = 0; L < nlayers; L++) {
		int color = MPI_UNDEFINED, key = 0;
		long mine_g = -1;
		for (size_t g = 0; g < ng && mine_g < 0; g++) {
			if (layer[g] != (int)L)
				continue;
			size_t m = t->groups->g[g].n;
			const uint32_t *rs = t->groups->g[g].ranks;
			for (size_t j = 0; j < m; j++)
				if (rs[j] == (uint32_t)c->rank) {
					mine_g = (long)g;
					color = (int)g;
					key = (int)j; /* communicator order = the listed order */
				}
		}
		MPI_Comm nc;
		MPI_Comm_split(MPI_COMM_WORLD, color, key, &nc);
		if (mine_g >= 0)
			c->comm[gbase + (size_t)mine_g] = nc;
	}
	free(layer);
	/* Members as the module computes them; the communicator must agree. */
	ok = 1;
	for (size_t s = 0; s < ns && ok; s++) {
		if (c->comm[s] == MPI_COMM_NULL)
			continue;
		chakra_replay_scope sc = chakra_replay_scope_at(t, s);
		c->members[s] = malloc((size_t)c->size * sizeof **c->members);
		if (!c->members[s]) {
			ok = 0;
			break;
		}
		c->nmembers[s] = chakra_replay_scope_members(t, sc, (uint32_t)c->rank, c->members[s]);
		int sz = 0, me = -1;
		MPI_Comm_size(c->comm[s], &sz);
		MPI_Comm_rank(c->comm[s], &me);
		if ((uint32_t)sz != c->nmembers[s] || me < 0 || c->members[s][me] != (uint32_t)c->rank) {
			char d[128];
			chakra_replay_scope_describe(t, sc, d, sizeof d);
			fprintf(stderr, "chakra-replay: rank %d: internal error: the communicator of %s "
			        "has %d ranks, expected %u\n", c->rank, d, sz, c->nmembers[s]);
			ok = 0;
		}
	}
	free(used);
	return rp_agree(c, ok) ? 0 : -1;
}

void rp_comms_free(rp_ctx *c)
{
	for (size_t s = 0; c->comm && s < c->nslots; s++) {
		if (c->comm[s] != MPI_COMM_NULL)
			MPI_Comm_free(&c->comm[s]);
		free(c->members[s]);
	}
	free(c->comm);
	free(c->members);
	free(c->nmembers);
	c->comm = NULL;
	c->members = NULL;
	c->nmembers = NULL;
}
