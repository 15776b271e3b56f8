/* SPDX-License-Identifier: Apache-2.0 */
/* `chakra generate model`: one training iteration of an MLP, DLRM or
 * Transformer under data, model or hybrid parallelism (the Chakra paper's
 * §6.2 set), one Chakra ET per NPU. Every size is an option with a default;
 * the layers and iterations are model_layers.c; docs/generate.md lists the
 * formulas and assumptions. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "model.h"
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
	params p;
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
	p.npus = cli.npus;
	if (!(p.tflops > 0) || !(p.gbps > 0) || isinf(p.tflops) || isinf(p.gbps))
		return tool_usage(argv[0], "--tflops and --mem-gbps must be positive");
	if (!p.passes || p.passes > 100000 || !p.bytes || p.bytes > 64)
		return tool_usage(argv[0], "--passes must be 1..100000 and --dtype-bytes 1..64");
	/* Defaults per model. */
	if (!p.batch)
		p.batch = p.model == M_MLP ? 1024 : p.model == M_DLRM ? 2048 : 64;
	if (!p.layers)
		p.layers = p.model == M_MLP ? 8 : 12;
	if (!p.hidden)
		p.hidden = p.model == M_MLP ? 4096 : 1024;
	if (!p.seq)
		p.seq = p.model == M_TRANSFORMER ? 1024 : 1;
	if (!p.tables)
		p.tables = 64;
	if (!p.emb_dim)
		p.emb_dim = 128;
	if (!p.pooling)
		p.pooling = 32;
	if (!p.dense)
		p.dense = 512;
	if (!p.bottom)
		p.bottom = 3;
	if (!p.top)
		p.top = 3;
	if (p.layers > 10000 || p.bottom > 1000 || p.top > 1000 || p.hidden > 1u << 20 ||
	    p.seq > 1u << 20 || p.emb_dim > 1u << 16 || p.tables > 1u << 20 ||
	    p.pooling > 1u << 16 || p.dense > 1u << 20 || p.batch > 1u << 24)
		return tool_usage(argv[0], "a size is out of range (see --help)");
	if (p.par == PAR_DATA) {
		if (p.mp && p.mp != 1)
			return tool_usage(argv[0], "--mp-group is for --parallel hybrid");
		p.mp = 1;
	} else if (p.par == PAR_MODEL) {
		if (p.mp && p.mp != p.npus)
			return tool_usage(argv[0], "--mp-group is for --parallel hybrid");
		p.mp = p.npus;
	} else if (!p.mp) {
		p.mp = cli.dims[0];
	}
	if (p.mp > p.npus || p.npus % p.mp)
		return tool_usage(argv[0], "--mp-group %llu must divide --npus %llu",
		                  (unsigned long long)p.mp, (unsigned long long)p.npus);
	p.dp = p.npus / p.mp;
	if (p.batch % p.dp)
		return tool_usage(argv[0], "--batch %llu must be a multiple of the data-parallel "
		                  "degree %llu", (unsigned long long)p.batch, (unsigned long long)p.dp);

	size_t n = 0;
	mlayer *L = model_build_layers(&p, &n);
	gen_graph g;
	gen_graph_init(&g, (uint32_t)p.npus, cli.dims, cli.ndims);
	int rc = 1;
	if (!L || model_emit_iterations(&g, &p, L, n) < 0) {
		if (g.too_many)
			tool_err("more than %u nodes per rank; use fewer --passes or --layers",
			         GEN_MAX_NODES);
		else
			tool_err("out of memory");
	} else {
		rc = gen_cli_write(&g, &cli, NULL);
	}
	gen_graph_free(&g);
	free(L);
	return rc;
}
