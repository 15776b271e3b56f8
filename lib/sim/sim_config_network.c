/* SPDX-License-Identifier: Apache-2.0 */
/* The network YAML (ASTRA-sim's analytical network file, libyaml), and
 * the same checks for a network filled by hand. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "sim_config.h"

/* A key's values: a flow/block sequence or a single scalar. */
typedef struct yval {
	char *s[SIM_MAX_DIMS + 1];
	unsigned long line[SIM_MAX_DIMS + 1];
	int n;
	unsigned long key_line;
	int seen;
} yval;

static void yval_free(yval *v)
{
	for (int i = 0; i < v->n; i++)
		chakra_free(v->s[i]);
	v->n = 0;
}

static int parse_number(const char *s, double *out)
{
	char *end;
	errno = 0;
	double d = strtod(s, &end);
	if (end == s || errno || !isfinite(d))
		return -1;
	while (isspace((unsigned char)*end))
		end++;
	if (*end)
		return -1;
	*out = d;
	return 0;
}

static int topo_from_name(const char *s, chakra_sim_topology *t)
{
	if (!strcasecmp(s, "Ring"))
		*t = CHAKRA_SIM_RING;
	else if (!strcasecmp(s, "Switch"))
		*t = CHAKRA_SIM_SWITCH;
	else if (!strcasecmp(s, "FullyConnected"))
		*t = CHAKRA_SIM_FULLY_CONNECTED;
	else
		return -1;
	return 0;
}

static int network_parse(chakra_sim_network *net, const char *path, const char *text, size_t len,
                      char *err)
{
	static const char *const keys[] = { "topology", "npus_count", "bandwidth", "latency" };
	yval v[4];
	memset(v, 0, sizeof v);
	memset(net, 0, sizeof *net);
	if (len > SIM_CONFIG_MAX)
		return fail(err, "%s: larger than %zu MiB: not a configuration file", path,
		            SIM_CONFIG_MAX >> 20);
	yaml_parser_t p;
	yaml_event_t ev;
	if (!yaml_parser_initialize(&p))
		return nomem(err, path);
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	int rc = 0, depth = 0, cur = -1, in_seq = 0, expect_key = 1, done = 0;
	int skip = 0; /* nesting depth of an ignored value */
	while (!done && rc == 0) {
		if (!yaml_parser_parse(&p, &ev)) {
			if (p.error == YAML_MEMORY_ERROR)
				rc = nomem(err, path);
			else
				rc = fail(err, "%s:%lu: YAML syntax error: %s", path,
				          (unsigned long)p.problem_mark.line + 1,
				          p.problem ? p.problem : "invalid");
			break;
		}
		if ((ev.type == YAML_MAPPING_START_EVENT || ev.type == YAML_SEQUENCE_START_EVENT) &&
		    skip >= SIM_CONFIG_DEPTH) {
			/* Stopped here, before libyaml goes deeper (its cost grows
			 * with the square of the depth: 400 KB took 101 s). */
			rc = fail(err, "%s:%lu: nested deeper than %d levels", path,
			          (unsigned long)ev.start_mark.line + 1, SIM_CONFIG_DEPTH);
			yaml_event_delete(&ev);
			break;
		}
		unsigned long line = (unsigned long)ev.start_mark.line + 1;
		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
			done = 1;
			break;
		case YAML_MAPPING_START_EVENT:
			if (skip) {
				skip++;
			} else if (depth == 0) {
				depth = 1;
			} else if (depth == 1 && cur < 0 && !expect_key) {
				skip = 1; /* an unknown key's nested value */
			} else {
				rc = fail(err, "%s:%lu: key '%s': expected a list, found a mapping", path,
				          line, cur >= 0 ? keys[cur] : "?");
			}
			break;
		case YAML_MAPPING_END_EVENT:
			if (skip && --skip == 0)
				expect_key = 1;
			else if (!skip)
				depth = 0;
			break;
		case YAML_SEQUENCE_START_EVENT:
			if (skip) {
				skip++;
			} else if (depth != 1 || expect_key) {
				rc = fail(err, "%s:%lu: expected a mapping of keys to lists", path, line);
			} else if (in_seq) {
				rc = fail(err, "%s:%lu: key '%s': nested lists are not allowed", path, line,
				          cur >= 0 ? keys[cur] : "?");
			} else if (cur < 0) {
				skip = 1;
			} else {
				in_seq = 1;
			}
			break;
		case YAML_SEQUENCE_END_EVENT:
			if (skip) {
				if (--skip == 0)
					expect_key = 1;
			} else {
				in_seq = 0;
				expect_key = 1;
			}
			break;
		case YAML_SCALAR_EVENT: {
			const char *s = (const char *)ev.data.scalar.value;
			if (skip)
				break;
			if (depth != 1) {
				rc = fail(err, "%s:%lu: expected a mapping of keys to lists", path, line);
			} else if (expect_key) {
				cur = -1;
				for (int k = 0; k < 4; k++)
					if (!strcmp(s, keys[k]))
						cur = k;
				if (cur >= 0) {
					if (v[cur].seen)
						rc = fail(err, "%s:%lu: key '%s' given twice", path, line, s);
					v[cur].seen = 1;
					v[cur].key_line = line;
				}
				expect_key = 0; /* unknown keys: value skipped */
			} else if (cur < 0) {
				expect_key = 1; /* unknown key's scalar value */
			} else {
				yval *y = &v[cur];
				if (y->n >= SIM_MAX_DIMS) {
					rc = fail(err, "%s:%lu: key '%s': more than %d dimensions", path, line,
					          keys[cur], SIM_MAX_DIMS);
				} else {
					y->line[y->n] = line;
					if (!(y->s[y->n] = chakra__mstrdup(s)))
						rc = nomem(err, path);
					else
						y->n++;
				}
				if (!in_seq)
					expect_key = 1;
			}
			break;
		}
		case YAML_ALIAS_EVENT:
			rc = fail(err, "%s:%lu: YAML aliases are not supported", path, line);
			break;
		default:
			break;
		}
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&p);

	for (int k = 0; rc == 0 && k < 4; k++)
		if (!v[k].seen || v[k].n == 0)
			rc = fail(err, "%s: key '%s' is missing or empty (one entry per dimension)", path,
			          keys[k]);
	for (int k = 1; rc == 0 && k < 4; k++)
		if (v[k].n != v[0].n)
			rc = fail(err, "%s:%lu: key '%s' has %d entries but topology has %d", path,
			          v[k].key_line, keys[k], v[k].n, v[0].n);
	if (rc == 0) {
		net->ndims = v[0].n;
		uint64_t total = 1;
		for (int d = 0; d < net->ndims && rc == 0; d++) {
			double cnt, bw, lat;
			if (topo_from_name(v[0].s[d], &net->topo[d]))
				rc = fail(err, "%s:%lu: key 'topology': unknown topology '%s' "
				          "(Ring, Switch or FullyConnected)", path, v[0].line[d], v[0].s[d]);
			else if (parse_number(v[1].s[d], &cnt) || cnt < 1 || cnt != floor(cnt) ||
			         cnt > 1e6)
				rc = fail(err, "%s:%lu: key 'npus_count': '%s' is not a positive integer",
				          path, v[1].line[d], v[1].s[d]);
			else if (parse_number(v[2].s[d], &bw) || !(bw > 0))
				rc = fail(err, "%s:%lu: key 'bandwidth': '%s' is not a positive number",
				          path, v[2].line[d], v[2].s[d]);
			else if (parse_number(v[3].s[d], &lat) || lat < 0)
				rc = fail(err, "%s:%lu: key 'latency': '%s' is not a non-negative number",
				          path, v[3].line[d], v[3].s[d]);
			else {
				net->size[d] = (uint32_t)cnt;
				net->bw[d] = bw;
				net->latency[d] = lat;
				net->stride[d] = (uint32_t)total;
				total *= (uint64_t)cnt;
				if (total > (1u << 24))
					rc = fail(err, "%s:%lu: key 'npus_count': more than %u NPUs in all",
					          path, v[1].line[d], 1u << 24);
			}
		}
		net->npus = (uint32_t)total;
	}
	for (int k = 0; k < 4; k++)
		yval_free(&v[k]);
	return rc;
}

static int network_load(chakra_sim_network *net, const char *path, char *err)
{
	size_t len;
	int code;
	char *text = slurp_text(path, &len, err, &code);
	if (!text)
		return code;
	int rc = network_parse(net, path, text, len, err);
	chakra_free(text);
	return rc;
}

int chakra_sim_network_parse(chakra_sim_network *net, const char *name, const char *text,
                             size_t len, char *err, size_t errlen)
{
	char e[SIM_ERR_LEN] = "";
	if (!net || (!text && len))
		return report(CHAKRA_EINVAL, "chakra_sim_network_parse: NULL argument", err, errlen);
	return report(network_parse(net, name ? name : "<network>", text ? text : "", len, e), e,
	              err, errlen);
}

int chakra_sim_network_load(chakra_sim_network *net, const char *path, char *err, size_t errlen)
{
	char e[SIM_ERR_LEN] = "";
	if (!net || !path)
		return report(CHAKRA_EINVAL, "chakra_sim_network_load: NULL argument", err, errlen);
	return report(network_load(net, path, e), e, err, errlen);
}

/* The parser's checks for a network filled by hand, without line numbers. */
int chakra_sim_network_check(chakra_sim_network *net, char *err, size_t errlen)
{
	char e[SIM_ERR_LEN] = "";
	if (!net)
		return report(CHAKRA_EINVAL, "chakra_sim_network_check: NULL network", err, errlen);
	if (net->ndims < 1 || net->ndims > SIM_MAX_DIMS)
		return report(fail(e, "network: %d dimensions (1..%d)", net->ndims, SIM_MAX_DIMS), e,
		              err, errlen);
	uint64_t total = 1;
	for (int d = 0; d < net->ndims; d++) {
		int rc = 0;
		if (net->topo[d] != CHAKRA_SIM_RING && net->topo[d] != CHAKRA_SIM_SWITCH &&
		    net->topo[d] != CHAKRA_SIM_FULLY_CONNECTED)
			rc = fail(e, "network: dimension %d: unknown topology %d", d, (int)net->topo[d]);
		else if (net->size[d] < 1 || net->size[d] > 1000000)
			rc = fail(e, "network: dimension %d: npus_count %u is not in 1..1000000", d,
			          net->size[d]);
		else if (!(net->bw[d] > 0) || !isfinite(net->bw[d]))
			rc = fail(e, "network: dimension %d: bandwidth %g is not a positive number", d,
			          net->bw[d]);
		else if (!(net->latency[d] >= 0) || !isfinite(net->latency[d]))
			rc = fail(e, "network: dimension %d: latency %g is not a non-negative number", d,
			          net->latency[d]);
		if (rc)
			return report(rc, e, err, errlen);
		net->stride[d] = (uint32_t)total;
		total *= net->size[d];
		if (total > (1u << 24))
			return report(fail(e, "network: more than %u NPUs in all", 1u << 24), e, err,
			              errlen);
	}
	net->npus = (uint32_t)total;
	return 0;
}
