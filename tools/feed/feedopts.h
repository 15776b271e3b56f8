/* SPDX-License-Identifier: Apache-2.0 */
/* The feeder options on the command line, shared by `chakra feed` and
 * `chakra bench feed`: four rows of their option tables (opts.h). */
#ifndef CHAKRA_TOOLS_FEEDOPTS_H
#define CHAKRA_TOOLS_FEEDOPTS_H

#include "common.h"
#include "opts.h"

typedef struct feed_cli {
	int deps, order, strict; /* deps: index in data|ctrl|both; order: id|file */
	uint64_t window;         /* 0 = the feeder's default */
} feed_cli;

#define FEED_CLI_OPTIONS(c)                                                                   \
	{ "--deps", "data|ctrl|both", TOOL_CHOICE, &(c)->deps, "data|ctrl|both",                \
	  "dependencies that gate issue (default data)" },                                        \
	{ "--order", "id|file", TOOL_CHOICE, &(c)->order, "id|file",                             \
	  "among ready nodes: lowest id first (default) or file order" },                         \
	{ "--window", "N", TOOL_U64, &(c)->window, NULL,                                          \
	  "nodes read ahead (default 16384; see docs/feeder.md)" },                               \
	{ "--strict", NULL, TOOL_FLAG, &(c)->strict, NULL,                                        \
	  "control deps on absent ids / self: errors, not warnings" }

/* The options the table filled, as the feeder's. */
void feed_cli_apply(const feed_cli *c, chakra_feeder_options *o);

#endif
