/* SPDX-License-Identifier: Apache-2.0 */
/* `chakra generate model`: one training iteration of an MLP, DLRM or
 * Transformer under data, model or hybrid parallelism (the Chakra paper's
 * §6.2 set), one Chakra ET per NPU, by the generator module
 * (chakra_gen_model, lib/gen/model.c). Every size is an option with a
 * default; the command checks them with its own flags' names before the
 * module does; docs/generate.md lists the formulas and assumptions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "graph.h"
#include "opts.h"

/* --model gpt: tools/predict/cmd_generate_gpt.c (its own options). */
int cmd_generate_gpt(int argc, char **argv);

static int wants_gpt(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "--model=gpt") ||
		    (!strcmp(argv[i], "--model") && i + 1 < argc && !strcmp(argv[i + 1], "gpt")))
			return 1;
	}
	return 0;
}

int cmd_generate_model(int argc, char **argv)
{
	if (wants_gpt(argc, argv))
		return cmd_generate_gpt(argc, argv);
	struct {
		int model, par;
		uint64_t mp, layers, hidden, batch, seq, bytes;
		uint64_t tables, emb_dim, pooling, dense, bottom, top;
		double tflops, gbps;
		uint64_t passes;
	} p;
	memset(&p, 0, sizeof p);
	p.model = p.par = -1;
	p.bytes = 2;
	p.tflops = 100;
	p.gbps = 2000;
	p.passes = 1;
	gen_cli cli;
	memset(&cli, 0, sizeof cli);
	/* sizes left 0 take the model's default below */
	const tool_option opts[] = {
		{ "--model", "mlp|dlrm|transformer", TOOL_CHOICE, &p.model, "mlp|dlrm|transformer",
		  "the model (required; --model gpt: see\n`chakra generate model --model gpt --help`)" },
		{ "--parallel", "data|model|hybrid", TOOL_CHOICE, &p.par, "data|model|hybrid",
		  "the parallelism (required)" },
		{ "--batch", "B", TOOL_U64, &p.batch, NULL,
		  "global batch in samples (default mlp 1024, dlrm\n2048, transformer 64)" },
		{ "--layers", "L", TOOL_U64, &p.layers, NULL,
		  "mlp layers / transformer blocks (default mlp 8,\ntransformer 12)" },
		{ "--hidden", "H", TOOL_U64, &p.hidden, NULL,
		  "width (default mlp 4096, dlrm 1024, transformer\n1024)" },
		{ "--seq", "S", TOOL_U64, &p.seq, NULL, "transformer sequence length (default 1024)" },
		{ "--tables", "T", TOOL_U64, &p.tables, NULL, "dlrm embedding tables (default 64)" },
		{ "--emb-dim", "E", TOOL_U64, &p.emb_dim, NULL, "dlrm embedding width (default 128)" },
		{ "--pooling", "P", TOOL_U64, &p.pooling, NULL,
		  "dlrm lookups per table and sample (default 32)" },
		{ "--dense", "D", TOOL_U64, &p.dense, NULL, "dlrm dense input features (default 512)" },
		{ "--bottom", "B", TOOL_U64, &p.bottom, NULL, "dlrm bottom-MLP layers (default 3)" },
		{ "--top", "T", TOOL_U64, &p.top, NULL, "dlrm top-MLP layers (default 3)" },
		{ "--dtype-bytes", "N", TOOL_U64, &p.bytes, NULL, "bytes per element (1..64; default 2)" },
		{ "--mp-group", "M", TOOL_U64, &p.mp, NULL,
		  "hybrid: model-parallel group size (default:\nnetwork dim 0)" },
		{ "--tflops", "F", TOOL_DOUBLE, &p.tflops, NULL,
		  "compute rate per NPU in TFLOP/s (default 100)" },
		{ "--mem-gbps", "G", TOOL_DOUBLE, &p.gbps, NULL,
		  "memory bandwidth per NPU in GB/s (default 2000)" },
		{ "--passes", "P", TOOL_U64, &p.passes, NULL, "iterations (1..100000; default 1)" },
		GEN_CLI_OPTIONS(&cli),
		{ NULL, NULL, 0, NULL, NULL, NULL },
	};
	const tool_command cmd = {
		"--model mlp|dlrm|transformer --parallel data|model|hybrid\n"
		"                             --npus N -o PREFIX [options]",
		"One training iteration per pass: forward compute per layer, input- and weight-\n"
		"gradient compute, and the collectives of the parallelism, as PREFIX.r.et and\n"
		"PREFIX.comm_groups.json. Durations from --tflops / --mem-gbps (roofline).",
		opts, NULL, 0, 0, NULL
	};
	const char **args;
	int nargs, prc = tool_parse(&cmd, argc, argv, &args, &nargs);
	if (prc != TOOL_PARSED)
		return prc == TOOL_HELP_SHOWN ? 0 : prc;
	free(args);
	if (p.model < 0 || p.par < 0)
		return tool_usage(argv[0], "--model and --parallel are required");
	if (gen_cli_check(&cli, argv[0], 1u << 16) < 0)
		return 2;
	chakra_gen_options o;
	tool_progress pr;
	gen_cli_options(&cli, &o, &pr);
	chakra_gen_model_options m = CHAKRA_GEN_MODEL_OPTIONS_INIT;
	m.model = p.model;
	m.parallel = p.par;
	m.batch = p.batch;
	m.layers = p.layers;
	m.hidden = p.hidden;
	m.seq = p.seq;
	m.tables = p.tables;
	m.emb_dim = p.emb_dim;
	m.pooling = p.pooling;
	m.dense = p.dense;
	m.bottom = p.bottom;
	m.top = p.top;
	m.dtype_bytes = p.bytes;
	m.mp_group = p.mp;
	m.tflops = p.tflops;
	m.mem_gbps = p.gbps;
	m.passes = p.passes > UINT32_MAX ? 0 : (uint32_t)p.passes;
	/* The module checks the sizes and groups (its message names the
	 * field): a usage error. */
	int rc = chakra_gen_model(cli.out, &o, &m);
	return rc == CHAKRA_EINVAL ? 2 : rc < 0 ? 1 : 0;
}
