/* SPDX-License-Identifier: Apache-2.0 */
/* The generators' command line (graph.h): --dims, the shared checks, and
 * the generator module's options with the command's messages. */
#include "graph.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

/* "8x8" / "4x4x2": 0, or -1 after a usage error of cmd. */
static int parse_dims(const char *cmd, const char *s, uint32_t *dims, uint32_t *ndims)
{
	uint32_t k = 0;
	const char *p = s;
	while (*p) {
		char *end;
		errno = 0;
		unsigned long v = strtoul(p, &end, 10);
		if (end == p || errno || v == 0 || v > 1u << 20 || k == 16 ||
		    (*end && *end != 'x' && *end != 'X') || (*end && !end[1])) {
			tool_usage(cmd, "--dims '%s': expected sizes like 8x8 or 4x4x2 (each 1..%u, at "
			           "most 16)", s, 1u << 20);
			return -1;
		}
		dims[k++] = (uint32_t)v;
		p = *end ? end + 1 : end;
	}
	if (!k) {
		tool_usage(cmd, "--dims: empty");
		return -1;
	}
	*ndims = k;
	return 0;
}

int gen_cli_check(gen_cli *c, const char *cmd, uint64_t max_npus)
{
	if (!c->out || !strcmp(c->out, "-")) {
		tool_usage(cmd, "missing -o PREFIX (files PREFIX.r.et)");
		return -1;
	}
	if (!c->npus || c->npus > max_npus) {
		tool_usage(cmd, "--npus N (1..%llu) is required", (unsigned long long)max_npus);
		return -1;
	}
	if (c->no_groups && c->groups) {
		tool_usage(cmd, "--no-groups and --groups exclude each other");
		return -1;
	}
	if (c->dims_arg && parse_dims(cmd, c->dims_arg, c->dims, &c->ndims) < 0)
		return -1;
	if (!c->ndims)
		return 0; /* the module's default shape */
	uint64_t prod = 1;
	for (uint32_t d = 0; d < c->ndims; d++)
		prod *= c->dims[d];
	if (prod != c->npus) {
		tool_usage(cmd, "--dims multiply to %llu, not --npus %llu", (unsigned long long)prod,
		           (unsigned long long)c->npus);
		return -1;
	}
	return 0;
}

int gen_cli_messages(void *data, const void *buf, size_t len)
{
	(void)data;
	fputs("chakra: ", stderr);
	fwrite(buf, 1, len, stderr);
	fputc('\n', stderr);
	return 0;
}

void gen_cli_progress(void *data, int what, uint64_t done, uint64_t total)
{
	tool_progress *p = data;
	if (what == CHAKRA_GEN_PROGRESS_START)
		tool_progress_start(p, "writing", total);
	else if (what == CHAKRA_GEN_PROGRESS_UPDATE)
		tool_progress_update(p, done);
	else
		tool_progress_end(p);
}

void gen_cli_options(const gen_cli *c, chakra_gen_options *o, tool_progress *pr)
{
	chakra_gen_options_init(o, CHAKRA_GEN_OPTIONS_VERSION);
	o->npus = (uint32_t)c->npus;
	o->ndims = c->ndims;
	memcpy(o->dims, c->dims, sizeof o->dims);
	o->groups_path = c->no_groups ? "" : c->groups;
	o->force = c->force;
	o->gzip = c->gzip;
	o->rank_map = c->rank_map;
	o->messages = gen_cli_messages;
	o->progress = gen_cli_progress;
	o->progress_data = pr;
}
