/* Which ranks a collective spans: communicator groups (pg_name + the group
 * file the converters write), network dimensions (involved_dim), or every
 * rank. The rules are the simulator's (docs/sim.md, "Communicator groups"),
 * so a replay and a simulation of one trace pair the same collectives. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_tree.h>
#include <yaml.h>

#include "replay_impl.h"

/* ---------------- groups ---------------- */

struct chakra_replay_groups {
	size_t n;
	char **name;
	uint32_t **ranks;
	size_t *len;
};

void chakra_replay_groups_free(chakra_replay_groups *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->n; i++) {
		free(g->name[i]);
		free(g->ranks[i]);
	}
	free(g->name);
	free(g->ranks);
	free(g->len);
	free(g);
}

int chakra_replay_groups_parse(chakra_replay_groups **out, const char *path, const char *text,
                               size_t len, uint32_t nranks, char *err, size_t errlen)
{
	*out = NULL;
	if (memchr(text, 0, len))
		return chakra__replay_fail(err, errlen, CHAKRA_ECONFIG, "%s: NUL byte in the file",
		                           path);
	/* yajl_tree_parse reads a NUL-terminated string. */
	char *copy = malloc(len + 1);
	if (!copy)
		return chakra__replay_fail(err, errlen, CHAKRA_ENOMEM, "%s: out of memory", path);
	memcpy(copy, text, len);
	copy[len] = 0;
	char yerr[256] = "";
	yajl_val root = yajl_tree_parse(copy, yerr, sizeof yerr);
	free(copy);
	if (!root) {
		/* YAJL's message spans lines: keep its first line. */
		char *nl = strchr(yerr, '\n');
		if (nl)
			*nl = 0;
		return chakra__replay_fail(err, errlen, CHAKRA_ECONFIG, "%s: invalid JSON: %s", path,
		                           *yerr ? yerr : "parse error");
	}
	int rc = 0;
	chakra_replay_groups *g = calloc(1, sizeof *g);
	if (!g) {
		rc = chakra__replay_fail(err, errlen, CHAKRA_ENOMEM, "%s: out of memory", path);
		goto out;
	}
	if (!YAJL_IS_OBJECT(root)) {
		rc = chakra__replay_fail(err, errlen, CHAKRA_ECONFIG,
		                         "%s: expected an object {\"id\": [ranks...]}", path);
		goto out;
	}
	size_t n = root->u.object.len;
	g->name = calloc(n ? n : 1, sizeof *g->name);
	g->ranks = calloc(n ? n : 1, sizeof *g->ranks);
	g->len = calloc(n ? n : 1, sizeof *g->len);
	unsigned char *seen = calloc(nranks ? nranks : 1, 1);
	if (!g->name || !g->ranks || !g->len || !seen) {
		free(seen);
		rc = chakra__replay_fail(err, errlen, CHAKRA_ENOMEM, "%s: out of memory", path);
		goto out;
	}
	for (size_t i = 0; i < n && rc == 0; i++) {
		const char *key = root->u.object.keys[i];
		yajl_val v = root->u.object.values[i];
		for (size_t j = 0; j < g->n; j++)
			if (!strcmp(g->name[j], key)) {
				rc = chakra__replay_fail(err, errlen, CHAKRA_ECONFIG,
				                         "%s: group '%s' is defined twice", path, key);
				break;
			}
		if (rc)
			break;
		if (!YAJL_IS_ARRAY(v) || v->u.array.len == 0) {
			rc = chakra__replay_fail(err, errlen, CHAKRA_ECONFIG,
			                         "%s: group '%s': expected a non-empty list of ranks",
			                         path, key);
			break;
		}
		size_t m = v->u.array.len;
		g->name[g->n] = strdup(key);
		g->ranks[g->n] = malloc(m * sizeof **g->ranks);
		g->len[g->n] = m;
		g->n++;
		if (!g->name[g->n - 1] || !g->ranks[g->n - 1]) {
			rc = chakra__replay_fail(err, errlen, CHAKRA_ENOMEM, "%s: out of memory", path);
			break;
		}
		memset(seen, 0, nranks ? nranks : 1);
		for (size_t j = 0; j < m; j++) {
			yajl_val e = v->u.array.values[j];
			if (!YAJL_IS_INTEGER(e) || YAJL_GET_INTEGER(e) < 0 ||
			    (uint64_t)YAJL_GET_INTEGER(e) >= nranks) {
				rc = chakra__replay_fail(err, errlen, CHAKRA_ECONFIG,
				                         "%s: group '%s': entry %zu is not a rank in 0..%" PRIu32
				                         " (the run has %" PRIu32 " ranks)",
				                         path, key, j, nranks ? nranks - 1 : 0, nranks);
				break;
			}
			uint32_t r = (uint32_t)YAJL_GET_INTEGER(e);
			if (seen[r]) {
				rc = chakra__replay_fail(err, errlen, CHAKRA_ECONFIG,
				                         "%s: group '%s': rank %" PRIu32 " is listed twice",
				                         path, key, r);
				break;
			}
			seen[r] = 1;
			g->ranks[g->n - 1][j] = r;
		}
	}
	free(seen);
out:
	yajl_tree_free(root);
	if (rc) {
		chakra_replay_groups_free(g);
		return rc;
	}
	*out = g;
	return 0;
}

int chakra_replay_groups_load(chakra_replay_groups **out, const char *path, uint32_t nranks,
                              char *err, size_t errlen)
{
	size_t len;
	*out = NULL;
	char *text = chakra__replay_slurp(path, &len, err, errlen);
	if (!text)
		return CHAKRA_EIO;
	int rc = chakra_replay_groups_parse(out, path, text, len, nranks, err, errlen);
	free(text);
	return rc;
}

size_t chakra_replay_groups_count(const chakra_replay_groups *g)
{
	return g ? g->n : 0;
}

const char *chakra_replay_groups_name(const chakra_replay_groups *g, size_t i)
{
	return g && i < g->n ? g->name[i] : NULL;
}

const uint32_t *chakra_replay_groups_ranks(const chakra_replay_groups *g, size_t i, size_t *n)
{
	if (!g || i >= g->n) {
		*n = 0;
		return NULL;
	}
	*n = g->len[i];
	return g->ranks[i];
}

long chakra_replay_groups_find(const chakra_replay_groups *g, const char *name, size_t len)
{
	for (size_t i = 0; g && i < g->n; i++)
		if (strlen(g->name[i]) == len && !memcmp(g->name[i], name, len))
			return (long)i;
	return -1;
}

/* ---------------- network shape ---------------- */

int chakra_replay_dims_parse(const char *s, uint32_t *dims, int cap)
{
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

/* Only npus_count is read here; `chakra sim` checks the rest of the file. */
int chakra_replay_network_dims(const char *path, uint32_t *dims, int cap, char *err,
                               size_t errlen)
{
	size_t len;
	char *text = chakra__replay_slurp(path, &len, err, errlen);
	if (!text)
		return CHAKRA_EIO;
	int rc = chakra_replay_network_dims_parse(path, text, len, dims, cap, err, errlen);
	free(text);
	return rc;
}

int chakra_replay_network_dims_parse(const char *path, const char *text, size_t len,
                                     uint32_t *dims, int cap, char *err, size_t errlen)
{
	yaml_parser_t p;
	yaml_event_t ev;
	if (!yaml_parser_initialize(&p)) {
		return chakra__replay_fail(err, errlen, CHAKRA_ENOMEM, "%s: out of memory", path);
	}
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	/* depth: 1 inside the top mapping; state: 0 expect a key, 1 the value
	 * of npus_count, 2 inside its list, 3 skipping another key's value. */
	int rc = 0, depth = 0, state = 0, skip = 0, n = 0, found = 0, done = 0;
	unsigned long key_line = 0;
	while (!done && rc == 0) {
		if (!yaml_parser_parse(&p, &ev)) {
			rc = chakra__replay_fail(err, errlen, CHAKRA_ECONFIG, "%s:%lu: YAML syntax error: %s",
			                         path, (unsigned long)p.problem_mark.line + 1,
			                         p.problem ? p.problem : "invalid");
			break;
		}
		unsigned long line = (unsigned long)ev.start_mark.line + 1;
		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
			done = 1;
			break;
		case YAML_MAPPING_START_EVENT:
		case YAML_SEQUENCE_START_EVENT:
			if (depth == 0 && ev.type == YAML_MAPPING_START_EVENT)
				depth = 1;
			else if (state == 1 && ev.type == YAML_SEQUENCE_START_EVENT)
				state = 2;
			else if (state == 3 || skip)
				skip++;
			else
				rc = chakra__replay_fail(err, errlen, CHAKRA_ECONFIG,
				                         "%s:%lu: npus_count: expected a list of counts", path,
				                         line);
			break;
		case YAML_MAPPING_END_EVENT:
		case YAML_SEQUENCE_END_EVENT:
			if (skip) {
				if (--skip == 0)
					state = 0;
			} else if (state == 2) {
				state = 0;
			}
			break;
		case YAML_SCALAR_EVENT: {
			const char *s = (const char *)ev.data.scalar.value;
			if (skip)
				break;
			if (state == 0) {
				if (!strcmp(s, "npus_count")) {
					if (found)
						rc = chakra__replay_fail(err, errlen, CHAKRA_ECONFIG,
						                         "%s:%lu: key 'npus_count' given twice", path,
						                         line);
					found = 1;
					key_line = line;
					state = 1;
				} else {
					state = 3;
				}
			} else if (state == 3) {
				state = 0;
			} else {
				char *end;
				errno = 0;
				double v = strtod(s, &end);
				if (end == s || *end || errno || v < 1 || v > UINT32_MAX || v != (uint32_t)v)
					rc = chakra__replay_fail(err, errlen, CHAKRA_ECONFIG,
					                         "%s:%lu: npus_count: '%s' is not a positive "
					                         "integer", path, line, s);
				else if (n >= cap)
					rc = chakra__replay_fail(err, errlen, CHAKRA_ECONFIG,
					                         "%s:%lu: npus_count: more than %d dimensions", path,
					                         line, cap);
				else
					dims[n++] = (uint32_t)v;
				if (state == 1)
					state = 0;
			}
			break;
		}
		default:
			break;
		}
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&p);
	if (rc == 0 && (!found || n == 0))
		rc = chakra__replay_fail(err, errlen, CHAKRA_ECONFIG,
		                         found ? "%s:%lu: npus_count is empty"
		                               : "%s: no npus_count (one count per dimension)",
		                         path, key_line);
	return rc ? rc : n;
}

/* ---------------- scopes ---------------- */

static uint32_t all_mask(const chakra_replay_topo *t)
{
	return (1u << t->ndims) - 1;
}

int chakra_replay_scope_of(const chakra_replay_topo *t, uint32_t rank, const chakra_node *n,
                           chakra_replay_scope *out, char *err, size_t errlen)
{
	const char *pg;
	size_t len;
	if (t->groups && chakra_node_pg_name(n, &pg, &len) == 0 && len) {
		long g = chakra_replay_groups_find(t->groups, pg, len);
		if (g < 0)
			return chakra__replay_fail(err, errlen, CHAKRA_ECONFIG,
			                           "pg_name '%.*s' is not in the communicator-group file",
			                           (int)len, pg);
		size_t m;
		const uint32_t *rs = chakra_replay_groups_ranks(t->groups, (size_t)g, &m);
		size_t j = 0;
		while (j < m && rs[j] != rank)
			j++;
		if (j == m)
			return chakra__replay_fail(err, errlen, CHAKRA_ECONFIG,
			                           "rank %" PRIu32 " is not a member of communicator "
			                           "group '%.*s'", rank, (int)len, pg);
		out->kind = CHAKRA_REPLAY_SCOPE_GROUP;
		out->key = (uint32_t)g;
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
	return 1 + ((size_t)1 << t->ndims) + chakra_replay_groups_count(t->groups);
}

size_t chakra_replay_scope_slot(const chakra_replay_topo *t, chakra_replay_scope s)
{
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
	uint32_t n = 0;
	if (s.kind == CHAKRA_REPLAY_SCOPE_GROUP) {
		size_t m;
		const uint32_t *rs = chakra_replay_groups_ranks(t->groups, s.key, &m);
		int in = 0;
		for (size_t j = 0; j < m; j++)
			in |= rs[j] == rank;
		if (!in)
			return 0;
		memcpy(out, rs, m * sizeof *rs);
		return (uint32_t)m;
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

long chakra_replay_scope_color(const chakra_replay_topo *t, chakra_replay_scope s, uint32_t rank)
{
	if (s.kind == CHAKRA_REPLAY_SCOPE_ALL)
		return 0;
	if (s.kind == CHAKRA_REPLAY_SCOPE_DIMS)
		return (long)fixed_index(t, s.key, rank);
	size_t m;
	const uint32_t *rs = chakra_replay_groups_ranks(t->groups, s.key, &m);
	for (size_t j = 0; j < m; j++)
		if (rs[j] == rank)
			return 0;
	return -1;
}

void chakra_replay_scope_describe(const chakra_replay_topo *t, chakra_replay_scope s, char *buf,
                                  size_t len)
{
	if (s.kind == CHAKRA_REPLAY_SCOPE_GROUP) {
		snprintf(buf, len, "group '%s'", chakra_replay_groups_name(t->groups, s.key));
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
