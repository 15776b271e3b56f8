/* SPDX-License-Identifier: Apache-2.0 */
/* chakra predict gpt: one GPT training iteration (or every layout with
 * --sweep) from its configuration, through lib/predict. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "gpt_cli.h"
#include "jsonout.h"

static const char *const recompute_names[] = { "none", "selective", "full" };
static const char *const precision_names[] = { "fp16", "bf16", "fp8" };

static void json_prediction(yajl_gen g, const chakra_gpt_prediction *p, double cap_gib)
{
	yajl_gen_string(g, (const unsigned char *)"iteration_s", 11);
	yajl_gen_double(g, p->iteration_s);
	jo_kv_u64(g, "iteration_ns", p->iteration_ns);
	yajl_gen_string(g, (const unsigned char *)"breakdown", 9);
	yajl_gen_map_open(g);
	const char *k[] = { "compute_s", "tp_exposed_s", "pp_exposed_s", "dp_exposed_s",
		            "bubble_s", "other_s" };
	double v[] = { p->compute_s, p->tp_exposed_s, p->pp_exposed_s, p->dp_exposed_s,
		       p->bubble_s, p->other_s };
	for (int i = 0; i < 6; i++) {
		yajl_gen_string(g, (const unsigned char *)k[i], strlen(k[i]));
		yajl_gen_double(g, v[i]);
	}
	yajl_gen_map_close(g);
	yajl_gen_string(g, (const unsigned char *)"bubble_fraction", 15);
	yajl_gen_double(g, p->bubble_fraction);
	jo_kv_u64(g, "microbatches", p->microbatches);
	jo_kv_u64(g, "flops_per_gpu", p->flops_per_gpu);
	yajl_gen_string(g, (const unsigned char *)"tflops_per_gpu", 14);
	yajl_gen_double(g, p->tflops_per_gpu);
	yajl_gen_string(g, (const unsigned char *)"memory", 6);
	yajl_gen_map_open(g);
	jo_kv_u64(g, "weights_bytes", p->memory.weights);
	jo_kv_u64(g, "gradients_bytes", p->memory.gradients);
	jo_kv_u64(g, "optimizer_bytes", p->memory.optimizer);
	jo_kv_u64(g, "activations_bytes", p->memory.activations);
	jo_kv_u64(g, "total_bytes", p->memory.total);
	jo_kv_u64(g, "capacity_bytes", (uint64_t)(cap_gib * 1073741824.0));
	yajl_gen_string(g, (const unsigned char *)"fits", 4);
	yajl_gen_bool(g, p->memory.fits);
	yajl_gen_map_close(g);
	jo_kv_u64(g, "nodes_simulated", p->nodes);
}

static double gib(uint64_t b)
{
	return (double)b / 1073741824.0;
}

static void text_prediction(const chakra_gpt_prediction *p, double cap_gib)
{
	printf("iteration: %.6f s   (%.1f TFLOP/s per GPU, %llu micro-batches per pipeline)\n",
	       p->iteration_s, p->tflops_per_gpu, (unsigned long long)p->microbatches);
	printf("  compute            %.6f s\n", p->compute_s);
	printf("  TP exposed         %.6f s\n", p->tp_exposed_s);
	printf("  PP exposed         %.6f s\n", p->pp_exposed_s);
	printf("  DP exposed         %.6f s\n", p->dp_exposed_s);
	printf("  pipeline bubble    %.6f s   (schedule's ideal fraction %.4f)\n", p->bubble_s,
	       p->bubble_fraction);
	printf("  per-iteration      %.6f s\n", p->other_s);
	printf("memory per GPU: %.2f GiB of %.0f GiB (weights %.2f, gradients %.2f, optimizer "
	       "%.2f, activations %.2f): %s\n",
	       gib(p->memory.total), cap_gib, gib(p->memory.weights), gib(p->memory.gradients),
	       gib(p->memory.optimizer), gib(p->memory.activations),
	       p->memory.fits ? "fits" : "DOES NOT FIT");
}

int cmd_predict_gpt(int argc, char **argv)
{
	gpt_cli g;
	gpt_cli_init(&g);
	const char *out = NULL;
	int json = 0, sweep = 0, force = 0, gzip = 0, fine = 0, full = 0, rank_map = 0;
	uint64_t top = 20;
	const tool_option opts[] = {
		GPT_CLI_OPTIONS(&g),
		{ "--sweep", NULL, TOOL_FLAG, &sweep, NULL,
		  "every (tp, pp, dp, micro batch) on --gpus N,\nranked (tp, pp, dp, --micro-batch "
		  "ignored)" },
		{ "--top", "N", TOOL_U64, &top, NULL, "sweep: layouts listed (default 20, 0 = all)" },
		{ "--json", NULL, TOOL_FLAG, &json, NULL, "print JSON" },
		{ "--fine", NULL, TOOL_FLAG, &fine, NULL,
		  "simulate one node per kernel on every GPU (same\nresult, slower)" },
		{ "--full", NULL, TOOL_FLAG, &full, NULL,
		  "simulate every GPU, not one per pipeline stage\n(same result, slower)" },
		{ "-o, --output", "PREFIX", TOOL_STR, &out, NULL,
		  "also write the workload: PREFIX.r.et,\nPREFIX.comm_groups.json, "
		  "PREFIX.network.yml,\nPREFIX.system.json" },
		{ "--gzip", NULL, TOOL_FLAG, &gzip, NULL, "write PREFIX.r.et.gz" },
		{ "--rank-map", NULL, TOOL_FLAG, &rank_map, NULL,
		  "write one trace per pipeline stage (PREFIX.c<k>.et)\n"
		  "and the rank map PREFIX.ranks instead of PREFIX.r.et\n"
		  "for every GPU (docs/feeder.md)" },
		{ "-f, --force", NULL, TOOL_FLAG, &force, NULL, "replace existing output files" },
		{ NULL, NULL, 0, NULL, NULL, NULL },
	};
	const tool_command cmd = {
		"--layers L --hidden H --heads A --seq S --global-batch B\n"
		"                          --tp T --pp P --dp D --gpu NAME [options]",
		"Predict one Megatron-LM GPT training iteration: every kernel of every layer,\n"
		"the tensor-parallel collectives, pipeline send/recv under 1F1B (or the\n"
		"interleaved schedule) and the data-parallel gradient reduction, simulated on\n"
		"NVSwitch nodes joined by a scale-out network (docs/predict.md). Prints the\n"
		"iteration time, where it goes on the GPU that finishes last, and the memory\n"
		"per GPU (a layout that does not fit is said so, and still timed).",
		opts, NULL, 0, 0, NULL
	};
	const char **args;
	int nargs, prc = tool_parse(&cmd, argc, argv, &args, &nargs);
	if (prc != TOOL_PARSED)
		return prc == TOOL_HELP_SHOWN ? 0 : prc;
	free(args);
	gpt_setup st;
	int rc = gpt_cli_resolve(&g, argv[0], !sweep, &st);
	if (rc)
		return rc;
	chakra_gpt_config c = st.c;
	chakra_gpu_model gpu = st.gpu;
	chakra_cluster_net net = st.net;
	chakra_predict_options po = st.po;
	po.fine = fine;
	po.full = full;
	char e[1024];
	if (sweep) {
		if (g.gpus == UINT64_MAX || g.gpus == 0 || g.gpus > (1u << 24))
			return tool_usage(argv[0], "--sweep needs --gpus N (1..2^24)");
		if (out)
			return tool_usage(argv[0], "--sweep writes no workload (-o)");
		if (po.network)
			return tool_usage(argv[0], "--sweep uses the collective model's network, not "
			                  "--network");
		chakra_gpt_layout_result *r;
		size_t n;
		if (chakra_gpt_sweep(&c, (uint32_t)g.gpus, &gpu, &net, &po, &r, &n, e, sizeof e) < 0)
			return tool_err("%s", e);
		size_t shown = top && top < n ? (size_t)top : n;
		if (json) {
			yajl_gen y = jo_open(stdout, 1);
			yajl_gen_map_open(y);
			jo_kv_u64(y, "gpus", g.gpus);
			jo_kv_u64(y, "layouts_total", n);
			yajl_gen_string(y, (const unsigned char *)"layouts", 7);
			yajl_gen_array_open(y);
			for (size_t i = 0; i < shown; i++) {
				yajl_gen_map_open(y);
				jo_kv_u64(y, "tp", r[i].tp);
				jo_kv_u64(y, "pp", r[i].pp);
				jo_kv_u64(y, "dp", r[i].dp);
				jo_kv_u64(y, "micro_batch", r[i].micro_batch);
				json_prediction(y, &r[i].prediction, gpu.memory_gib);
				yajl_gen_map_close(y);
			}
			yajl_gen_array_close(y);
			yajl_gen_map_close(y);
			yajl_gen_free(y);
			printf("\n");
		} else {
			printf("%zu layouts of %llu GPUs (%s, %s); fastest first, those that fit "
			       "before those that do not:\n",
			       n, (unsigned long long)g.gpus, gpu.name, net.name);
			printf("%5s %4s %4s %6s %6s %12s %10s %9s %s\n", "rank", "tp", "pp", "dp", "mb",
			       "iteration_s", "TFLOP/s", "mem GiB", "fits");
			for (size_t i = 0; i < shown; i++)
				printf("%5zu %4u %4u %6u %6u %12.6f %10.1f %9.2f %s\n", i + 1, r[i].tp,
				       r[i].pp, r[i].dp, r[i].micro_batch, r[i].prediction.iteration_s,
				       r[i].prediction.tflops_per_gpu, gib(r[i].prediction.memory.total),
				       r[i].prediction.memory.fits ? "yes" : "no");
		}
		chakra_predict_free(r);
		return 0;
	}
	chakra_gpt_prediction p;
	if (chakra_gpt_predict(&c, &gpu, &net, &po, &p, e, sizeof e) < 0)
		return tool_err("%s", e);
	if (out && gpt_cli_write(out, &st, force, gzip, rank_map))
		return 1;
	if (json) {
		yajl_gen y = jo_open(stdout, 1);
		yajl_gen_map_open(y);
		json_prediction(y, &p, gpu.memory_gib);
		yajl_gen_string(y, (const unsigned char *)"config", 6);
		yajl_gen_map_open(y);
		jo_kv_u64(y, "layers", c.layers);
		jo_kv_u64(y, "hidden", c.hidden);
		jo_kv_u64(y, "heads", c.heads);
		jo_kv_u64(y, "ffn", c.ffn ? c.ffn : 4ull * c.hidden);
		jo_kv_u64(y, "seq", c.seq);
		jo_kv_u64(y, "vocab", c.vocab ? c.vocab : 51200);
		jo_kv_u64(y, "global_batch", c.global_batch);
		jo_kv_u64(y, "micro_batch", c.micro_batch);
		jo_kv_u64(y, "tp", c.tp);
		jo_kv_u64(y, "pp", c.pp);
		jo_kv_u64(y, "dp", c.dp);
		jo_kv_u64(y, "interleave", c.interleave);
		jo_kv_str(y, "recompute", recompute_names[c.recompute]);
		yajl_gen_string(y, (const unsigned char *)"sequence_parallel", 17);
		yajl_gen_bool(y, c.sequence_parallel);
		yajl_gen_string(y, (const unsigned char *)"distributed_optimizer", 21);
		yajl_gen_bool(y, c.distributed_optimizer);
		jo_kv_str(y, "precision", precision_names[c.precision]);
		jo_kv_u64(y, "gpus_per_node", c.gpus_per_node);
		jo_kv_str(y, "gpu", gpu.name);
		jo_kv_str(y, "network", po.network ? g.network : net.name);
		yajl_gen_map_close(y);
		yajl_gen_map_close(y);
		yajl_gen_free(y);
		printf("\n");
	} else {
		printf("GPT: %u layers, hidden %u, %u heads, seq %u, global batch %llu (micro %u) on "
		       "%u x %s (tp %u, pp %u, dp %u%s%s), network %s\n",
		       c.layers, c.hidden, c.heads, c.seq, (unsigned long long)c.global_batch,
		       c.micro_batch, c.tp * c.pp * c.dp, gpu.name, c.tp, c.pp, c.dp,
		       c.interleave > 1 ? ", interleaved" : "",
		       c.sequence_parallel ? ", sequence parallel" : "",
		       po.network ? g.network : net.name);
		text_prediction(&p, gpu.memory_gib);
	}
	return 0;
}
