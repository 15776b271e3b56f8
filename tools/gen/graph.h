/* SPDX-License-Identifier: Apache-2.0 */
/* The generators' command line: the options `convert text` and
 * `generate model` share, as the generator module's options (lib/gen)
 * with the command's messages and progress. */
#ifndef CHAKRA_TOOLS_GEN_GRAPH_H
#define CHAKRA_TOOLS_GEN_GRAPH_H

#include <stddef.h>
#include <stdint.h>

#ifndef CHAKRA_EXPERIMENTAL
#define CHAKRA_EXPERIMENTAL
#endif
#include "chakra/experimental/gen.h"
#include "common.h"

/* Command-line options shared by `convert text` and `generate model`. */
typedef struct gen_cli {
	const char *out, *groups;
	const char *dims_arg; /* --dims as given: gen_cli_check parses it into dims */
	uint64_t npus;
	uint32_t dims[16], ndims;
	int force, gzip, no_groups, rank_map;
} gen_cli;

/* Their rows of a tool_parse table (opts.h), for a gen_cli *c:
 * --npus, -o/--output, --dims, -g/--groups, --no-groups, --gzip, -f/--force. */
#define GEN_CLI_OPTIONS(c)                                                                    \
	{ "--npus", "N", TOOL_U64, &(c)->npus, NULL, "number of NPUs (ranks; required)" },       \
	{ "-o, --output", "PREFIX", TOOL_STR, &(c)->out, NULL,                                    \
	  "output prefix: PREFIX.0.et .. PREFIX.{N-1}.et\n(required)" },                          \
	{ "--dims", "D0xD1..", TOOL_STR, &(c)->dims_arg, NULL,                                    \
	  "network shape, dim 0 fastest (default: 2-D, near\nsquare)" },                          \
	{ "-g, --groups", "PATH", TOOL_STR, &(c)->groups, NULL,                                   \
	  "communicator-group file (default\nPREFIX.comm_groups.json)" },                         \
	{ "--no-groups", NULL, TOOL_FLAG, &(c)->no_groups, NULL, "write no group file" },        \
	{ "--gzip", NULL, TOOL_FLAG, &(c)->gzip, NULL, "write PREFIX.r.et.gz" },                  \
	{ "--rank-map", NULL, TOOL_FLAG, &(c)->rank_map, NULL,                                     \
	  "write rank 0's trace as PREFIX.c0.et and the rank\nmap PREFIX.ranks (every rank its "  \
	  "groups) instead\nof PREFIX.r.et for every rank (docs/feeder.md)" },                    \
	{ "-f, --force", NULL, TOOL_FLAG, &(c)->force, NULL, "replace existing output files" }

/* After parsing: required options, ranges, --dims against --npus (none
 * given: the module picks the shape). 0, or -1 after
 * printing a usage error. */
int gen_cli_check(gen_cli *c, const char *cmd, uint64_t max_npus);

/* The library's messages as "chakra: ..." lines on stderr, and its
 * progress as the command's ("writing"). */
int gen_cli_messages(void *data, const void *buf, size_t len);
void gen_cli_progress(void *data, int what, uint64_t done, uint64_t total);

/* The module's options for what the command line asked, with its messages
 * and progress (pr: the command's, alive while the module runs). */
void gen_cli_options(const gen_cli *c, chakra_gen_options *o, tool_progress *pr);

#endif
