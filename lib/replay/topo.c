/* SPDX-License-Identifier: Apache-2.0 */
/* Which ranks a collective spans: communicator groups (pg_name + the group
 * file the converters write, read by the simulator's parser), network
 * dimensions (involved_dim), or every rank. The rules are the simulator's
 * (docs/sim.md, "Communicator groups"), so a replay and a simulation of one
 * trace pair the same collectives. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay_impl.h"

/* ---------------- network shape ---------------- */

int chakra_replay_dims_parse(const char *s, uint32_t *dims, int cap)
{
	if (!s || !dims)
		return CHAKRA_EINVAL;
	int n = 0;
	while (*s) {
		char *end;
		errno = 0;
		if (*s < '0' || *s > '9')
			return CHAKRA_EINVAL;
		unsigned long v = strtoul(s, &end, 10);
		if (errno || v == 0 || v > UINT32_MAX || n >= cap)
			return CHAKRA_EINVAL;
		dims[n++] = (uint32_t)v;
		s = end;
		if (*s == 'x' || *s == 'X') {
			s++;
			if (!*s)
				return CHAKRA_EINVAL;
		} else if (*s) {
			return CHAKRA_EINVAL;
		}
	}
	return n ? n : CHAKRA_EINVAL;
}

/* ---------------- scopes ---------------- */

static uint32_t all_mask(const chakra_replay_topo *t)
{
	return (1u << t->ndims) - 1;
}

int chakra_replay_scope_of(const chakra_replay_topo *t, uint32_t rank, const chakra_node *n,
                           chakra_replay_scope *out, char *err, size_t errlen)
{
	if (!t || !n || !out)
		return CHAKRA_EINVAL;
	const char *pg;
	size_t len;
	if (t->groups && chakra_node_pg_name(n, &pg, &len) == 0 && len) {
		const chakra_sim_group *g = chakra_sim_groups_find(t->groups, pg, len);
		if (!g)
			return chakra__replay_fail(err, errlen, CHAKRA_ECONFIG,
			                           "pg_name '%.*s' is not in the communicator-group file",
			                           (int)len, pg);
		size_t j = 0;
		while (j < g->n && g->ranks[j] != rank)
			j++;
		if (j == g->n)
			return chakra__replay_fail(err, errlen, CHAKRA_ECONFIG,
			                           "rank %" PRIu32 " is not a member of communicator "
			                           "group '%.*s'", rank, (int)len, pg);
		out->kind = CHAKRA_REPLAY_SCOPE_GROUP;
		out->key = (uint32_t)(g - t->groups->g);
		return 0;
	}
	int flags[CHAKRA_REPLAY_MAX_DIMS + 1];
	int nf = chakra_node_involved_dim(n, flags, CHAKRA_REPLAY_MAX_DIMS + 1);
	out->kind = CHAKRA_REPLAY_SCOPE_ALL;
	out->key = 0;
	if (nf == CHAKRA_ENOTFOUND || nf == 0)
		return 0;
	if (nf < 0)
		return chakra__replay_fail(err, errlen, nf, "involved_dim: %s", chakra_strerror(nf));
	int all = 1;
	uint32_t mask = 0;
	for (int d = 0; d < nf && d < CHAKRA_REPLAY_MAX_DIMS; d++) {
		all &= flags[d] != 0;
		if (flags[d])
			mask |= 1u << d;
	}
	if (t->ndims == 0) {
		if (all && nf <= CHAKRA_REPLAY_MAX_DIMS)
			return 0;
		return chakra__replay_fail(err, errlen, CHAKRA_EINVAL,
		                           "involved_dim flags only some of %d dimensions and the "
		                           "network shape is unknown: give --dims, --network or a "
		                           "communicator-group file", nf);
	}
	if (nf != t->ndims)
		return chakra__replay_fail(err, errlen, CHAKRA_EINVAL,
		                           "involved_dim has %d entries but the network has %d "
		                           "dimensions", nf, t->ndims);
	if (mask != all_mask(t)) {
		out->kind = CHAKRA_REPLAY_SCOPE_DIMS;
		out->key = mask;
	}
	return 0;
}

size_t chakra_replay_scope_slots(const chakra_replay_topo *t)
{
	if (!t)
		return 0;
	return 1 + ((size_t)1 << t->ndims) + (t->groups ? t->groups->n : 0);
}

size_t chakra_replay_scope_slot(const chakra_replay_topo *t, chakra_replay_scope s)
{
	if (!t)
		return 0;
	switch (s.kind) {
	case CHAKRA_REPLAY_SCOPE_DIMS:
		return 1 + s.key;
	case CHAKRA_REPLAY_SCOPE_GROUP:
		return 1 + ((size_t)1 << t->ndims) + s.key;
	default:
		return 0;
	}
}

chakra_replay_scope chakra_replay_scope_at(const chakra_replay_topo *t, size_t slot)
{
	if (!t)
		return (chakra_replay_scope){ CHAKRA_REPLAY_SCOPE_DIMS, 0 };
	chakra_replay_scope s = { CHAKRA_REPLAY_SCOPE_ALL, 0 };
	size_t masks = (size_t)1 << t->ndims;
	if (slot >= 1 && slot <= masks) {
		s.kind = CHAKRA_REPLAY_SCOPE_DIMS;
		s.key = (uint32_t)(slot - 1);
	} else if (slot > masks) {
		s.kind = CHAKRA_REPLAY_SCOPE_GROUP;
		s.key = (uint32_t)(slot - 1 - masks);
	}
	return s;
}

/* Mixed radix, dimension 0 fastest: the ranks that differ from `rank` only
 * in the flagged dimensions share the index of its other coordinates. */
static uint64_t fixed_index(const chakra_replay_topo *t, uint32_t mask, uint32_t rank)
{
	uint64_t idx = 0, mul = 1;
	uint32_t r = rank;
	for (int d = 0; d < t->ndims; d++) {
		uint32_t c = r % t->dims[d];
		r /= t->dims[d];
		if (!(mask & (1u << d))) {
			idx += c * mul;
			mul *= t->dims[d];
		}
	}
	return idx;
}

uint32_t chakra_replay_scope_members(const chakra_replay_topo *t, chakra_replay_scope s,
                                     uint32_t rank, uint32_t *out)
{
	if (!t || !out)
		return 0;
	uint32_t n = 0;
	if (s.kind == CHAKRA_REPLAY_SCOPE_GROUP) {
		const chakra_sim_group *g = &t->groups->g[s.key];
		int in = 0;
		for (size_t j = 0; j < g->n; j++)
			in |= g->ranks[j] == rank;
		if (!in)
			return 0;
		memcpy(out, g->ranks, g->n * sizeof *g->ranks);
		return (uint32_t)g->n;
	}
	if (s.kind == CHAKRA_REPLAY_SCOPE_ALL) {
		for (uint32_t r = 0; r < t->nranks; r++)
			out[n++] = r;
		return n;
	}
	uint64_t me = fixed_index(t, s.key, rank);
	for (uint32_t r = 0; r < t->nranks; r++)
		if (fixed_index(t, s.key, r) == me)
			out[n++] = r;
	return n;
}

int64_t chakra_replay_scope_color(const chakra_replay_topo *t, chakra_replay_scope s, uint32_t rank)
{
	if (!t)
		return -1;
	if (s.kind == CHAKRA_REPLAY_SCOPE_ALL)
		return 0;
	if (s.kind == CHAKRA_REPLAY_SCOPE_DIMS)
		return (long)fixed_index(t, s.key, rank);
	const chakra_sim_group *g = &t->groups->g[s.key];
	for (size_t j = 0; j < g->n; j++)
		if (g->ranks[j] == rank)
			return 0;
	return -1;
}

void chakra_replay_scope_describe(const chakra_replay_topo *t, chakra_replay_scope s, char *buf,
                                  size_t len)
{
	if (!t || !buf || !len)
		return;
	if (s.kind == CHAKRA_REPLAY_SCOPE_GROUP) {
		snprintf(buf, len, "group '%s'", t->groups->g[s.key].name);
	} else if (s.kind == CHAKRA_REPLAY_SCOPE_DIMS) {
		size_t o = (size_t)snprintf(buf, len, s.key ? "dimension%s " : "no dimension",
		                            (s.key & (s.key - 1)) ? "s" : "");
		for (int d = 0; d < t->ndims && o < len; d++)
			if (s.key & (1u << d))
				o += (size_t)snprintf(buf + o, len - o, "%s%d",
				                      (s.key & ((1u << d) - 1)) ? "," : "", d);
	} else {
		snprintf(buf, len, "all ranks");
	}
}
