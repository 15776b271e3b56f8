/* SPDX-License-Identifier: Apache-2.0 */
/* `chakra generate basic`: the one- and two-node traces Chakra's
 * chakra_generator writes, byte for byte, by the generator module
 * (chakra_gen_basic, lib/gen/basic.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "graph.h"
#include "opts.h"

int cmd_generate_basic(int argc, char **argv)
{
	const char *dir = NULL;
	int force = 0;
	uint64_t npus = 64;
	chakra_gen_basic_options bo = CHAKRA_GEN_BASIC_OPTIONS_INIT;
	const tool_option opts[] = {
		{ "--npus", "N", TOOL_U64, &npus, NULL, "traces per kind (default 64)" },
		{ "--runtime", "US", TOOL_U64, &bo.runtime, NULL,
		  "duration_micros of the compute nodes (default 5)" },
		{ "--tensor-size", "BYTES", TOOL_U64, &bo.tensor_size, NULL,
		  "tensor_size of memory and send/recv nodes (default 1024)" },
		{ "--comm-size", "BYTES", TOOL_U64, &bo.comm_size, NULL,
		  "comm_size of the collectives (default 65536)" },
		{ "-o, --output", "DIR", TOOL_STR, &dir, NULL,
		  "write the files in DIR (default: the current directory)" },
		{ "-f, --force", NULL, TOOL_FLAG, &force, NULL, "replace existing files" },
		{ NULL, NULL, 0, NULL, NULL, NULL },
	};
	const tool_command cmd = {
		"[--npus N] [--runtime US] [--tensor-size BYTES] [--comm-size BYTES] [-o DIR] [-f]",
		"Write the basic traces Chakra's chakra_generator writes, NAME.0.et .. NAME.{N-1}.et for\n"
		"each NAME: one_metadata_node_all_types (an attribute of every kind),\n"
		"one_remote_mem_load_node, one_remote_mem_store_node, one_comp_node,\n"
		"two_comp_nodes_independent, two_comp_nodes_dependent, ALL_REDUCE, ALL_TO_ALL,\n"
		"ALL_GATHER, REDUCE_SCATTER, BROADCAST, BARRIER (one collective),\n"
		"one_comm_send_node, one_comm_recv_node. The bytes are the generator's: node ids\n"
		"count on through every file, in that order.",
		opts, NULL, 0, 0, NULL
	};
	const char **args;
	int nargs, prc = tool_parse(&cmd, argc, argv, &args, &nargs);
	if (prc != TOOL_PARSED)
		return prc == TOOL_HELP_SHOWN ? 0 : prc;
	free((void *)args);
	if (!npus || npus > (1u << 20))
		return tool_usage(argv[0], "--npus must be 1..1048576");
	gen_cli cli;
	memset(&cli, 0, sizeof cli);
	cli.npus = npus;
	cli.force = force;
	cli.no_groups = 1;
	chakra_gen_options o;
	tool_progress pr;
	gen_cli_options(&cli, &o, &pr);
	if (chakra_gen_basic(dir, &o, &bo) < 0)
		return 1;
	fprintf(stderr, "wrote %llu traces (%llu per kind) in %s\n", 14 * (unsigned long long)npus,
	        (unsigned long long)npus, dir && *dir ? dir : ".");
	return 0;
}
