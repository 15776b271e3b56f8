/* SPDX-License-Identifier: Apache-2.0 */
/* chakra link --et ET.json[.gz] --kineto K.json[.gz] -o LINKED.json
 * A thin front end to chakra_convert_link (lib/convert, docs/convert.md,
 * "Linked files"): the file Chakra's chakra_trace_link writes. */
#include <stdio.h>
#include <stdlib.h>

#include "common.h"
#include "opts.h"
#include "run.h"

int cmd_link(int argc, char **argv)
{
	const char *et = NULL, *kin = NULL, *out = NULL;
	uint64_t rank = UINT64_MAX; /* not given */
	int force = 0, quiet = 0;
	const tool_option opts[] = {
		{ "--et", "PATH", TOOL_STR, &et, NULL, "the PyTorch execution trace (host ET)" },
		{ "--kineto", "PATH", TOOL_STR, &kin, NULL, "the Kineto trace of the same run" },
		{ "-o, --output", "OUT.json", TOOL_STR, &out, NULL, "the linked ET ('-' = stdout)" },
		{ "--rank", "R", TOOL_U64, &rank, NULL,
		  "the rank the traces are of (checked against the\n"
		  "Kineto trace's distributedInfo when it says)" },
		{ "-f, --force", NULL, TOOL_FLAG, &force, NULL, "replace OUT.json if it exists" },
		{ "-q, --quiet", NULL, TOOL_FLAG, &quiet, NULL, "no summary" },
		{ NULL, NULL, 0, NULL, NULL, NULL },
	};
	const tool_command cmd = {
		"--et ET.json[.gz] --kineto K.json[.gz] -o LINKED.json [--rank R] [-f] [-q]",
		"Link a PyTorch execution trace with the Kineto trace of the same run into one JSON\n"
		"file, as Chakra's chakra_trace_link writes it: the host ET with Kineto's times on its\n"
		"ops and the GPU kernels, copies and memsets added as nodes below the host ops that\n"
		"launched them. `chakra convert pytorch --et LINKED.json` then gives what `chakra\n"
		"convert pytorch --et ET --kineto K` gives (docs/convert.md, \"Linked files\").",
		opts, NULL, 0, 0, NULL
	};
	const char **args;
	int nargs, prc = tool_parse(&cmd, argc, argv, &args, &nargs);
	if (prc != TOOL_PARSED)
		return prc == TOOL_HELP_SHOWN ? 0 : prc;
	free((void *)args);
	if (!et || !kin)
		return tool_usage(argv[0], "--et ET.json and --kineto K.json are required");
	if (!out)
		return tool_usage(argv[0], "-o LINKED.json is required");
	const char *ins[2] = { et, kin };
	tool_out to;
	if (tool_out_open(&to, out, force, ins, 2) < 0)
		return 1;
	chakra_convert_options o;
	chakra_convert_options_init(&o, CHAKRA_CONVERT_OPTIONS_VERSION);
	o.kineto_path = kin;
	o.overwrite = force;
	o.out_cb = tool_out_write_cb;
	o.out_data = &to;
	chakra_convert_result res;
	if (chakra_convert_link(et, out, &o, &res) < 0) {
		tool_out_abort(&to);
		return tool_err("%s", res.errmsg);
	}
	if (rank != UINT64_MAX && res.summary.rank >= 0 && (uint64_t)res.summary.rank != rank) {
		tool_out_abort(&to);
		return tool_err("%s: the Kineto trace is of rank %d, not %llu (--rank)", kin,
		                res.summary.rank, (unsigned long long)rank);
	}
	if (tool_out_commit(&to) < 0)
		return 1;
	if (!quiet)
		fprintf(stderr, "linked by %s: %llu of %llu ET nodes timed; %llu device ops added, %llu "
		                "below a host op; wrote %s\n",
		        res.summary.link_method, (unsigned long long)res.summary.et_ops_linked,
		        (unsigned long long)res.summary.et_nodes, (unsigned long long)res.summary.kernels,
		        (unsigned long long)res.summary.kernels_linked, out);
	return 0;
}
