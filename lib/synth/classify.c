/* SPDX-License-Identifier: Apache-2.0 */
/* Op classes: a node reduced to a word from a fixed vocabulary, so that
 * nothing of its name survives in a model or an anonymized trace.
 *
 * Class = device + kind. Device: "cpu." when is_cpu_op is true, else
 * "gpu.". Kind: the first rule of the table below that matches the name
 * (lower-cased; tokens are the runs of letters and digits with trailing
 * digits removed, so "fc1_fwd" has the tokens "fc" and "fwd"); a
 * COMM_COLL_NODE without comm_type (the CPU-side call of a collective) is
 * "comm_launch"; MEM_LOAD / MEM_STORE / METADATA / INVALID nodes are their
 * own classes without a device. A name that is itself a class name
 * ("gpu.gemm") is that class. docs/synth.md lists the table. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "synth_impl.h"

typedef struct rule {
	const char *kind;
	const char *tokens[32];    /* whole tokens */
	const char *substr[12];    /* anywhere in the name */
} rule;

static const rule rules[] = {
	{ "memcpy", { "copy", "clone", "contiguous", "cat", "to", "memcpy", "dtod", "htod", "dtoh" },
	  { "memcpy", "copy_", "_copy", "flatten_dense_tensors" } },
	{ "memset", { "fill", "zero", "zeros", "memset", "ones" }, { "memset", "fill_" } },
	{ "view", { "view", "reshape", "detach", "t", "transpose", "permute", "expand", "flatten",
	            "squeeze", "unsqueeze", "slice", "select", "narrow", "empty", "unbind",
	            "split", "chunk", "alias", "unflatten", "resize", "lift", "item" },
	  { "as_strided", "empty_strided", "_unsafe_view", "set_" } },
	{ "attention", { "attention", "attn", "softmax", "sdpa", "flash", "mha" },
	  { "attention", "softmax", "flash_" } },
	{ "norm", { "bn", "ln", "norm", "batchnorm", "layernorm" }, { "norm" } },
	{ "conv", { "conv", "convolution", "winograd", "wgrad", "dgrad", "im2col", "col2im" },
	  { "conv", "cudnn", "winograd", "wgrad", "dgrad", "implicit_gemm" } },
	{ "gemm", { "mm", "addmm", "bmm", "baddbmm", "mv", "matmul", "linear", "fc", "qkv", "proj",
	            "dense", "mlp", "dot", "einsum", "gemm", "gemv" },
	  { "gemm", "gemv", "matmul", "linear", "cublas", "cutlass" } },
	{ "embedding", { "embedding", "emb", "embeddingbag", "lookup", "gather", "index", "scatter" },
	  { "embedding", "lookup" } },
	{ "optimizer", { "optimizer", "adam", "adamw", "sgd", "lamb", "adagrad", "step", "update",
	                 "foreach", "grad" },
	  { "optimizer", "foreach", "zero_grad" } },
	{ "reduction", { "sum", "mean", "reduce", "max", "min", "argmax", "argmin", "loss", "nll",
	                 "pool", "avg", "topk", "sort", "cumsum", "prod", "var", "std" },
	  { "reduce", "pool", "loss", "cross_entropy" } },
	{ "elementwise", { "add", "mul", "sub", "div", "relu", "gelu", "silu", "sigmoid", "tanh",
	                   "threshold", "dropout", "where", "exp", "log", "pow", "sqrt", "rsqrt",
	                   "neg", "abs", "clamp", "bias", "scale", "cast", "masked", "activation" },
	  { "elementwise", "functor", "unary", "binary", "relu", "gelu", "add_", "mul_" } },
};

#define NRULES (sizeof rules / sizeof rules[0])
static const char *const extra_kinds[] = { "comm_launch", "compute" };
static const char *const plain[] = { "mem_load", "mem_store", "metadata", "invalid" };

/* Vocabulary: cpu.<kind> for every kind, gpu.<kind>, then the plain ones. */
static char vocab[2 * (NRULES + 2) + 4][32];
static int nvocab;

static void vocab_init(void)
{
	/* Written once; the strings are the same on every call, so a race
	 * between two first calls writes identical bytes. */
	if (nvocab)
		return;
	int n = 0;
	for (int d = 0; d < 2; d++) {
		for (size_t i = 0; i < NRULES; i++)
			snprintf(vocab[n++], sizeof vocab[0], "%s.%s", d ? "gpu" : "cpu", rules[i].kind);
		for (size_t i = 0; i < 2; i++)
			snprintf(vocab[n++], sizeof vocab[0], "%s.%s", d ? "gpu" : "cpu", extra_kinds[i]);
	}
	for (size_t i = 0; i < 4; i++)
		snprintf(vocab[n++], sizeof vocab[0], "%s", plain[i]);
	nvocab = n;
}

int chakra__sy_class_count(void)
{
	vocab_init();
	return nvocab;
}

const char *chakra__sy_class_name(int i)
{
	vocab_init();
	return i >= 0 && i < nvocab ? vocab[i] : NULL;
}

int chakra__sy_class_find(const char *name)
{
	vocab_init();
	for (int i = 0; i < nvocab; i++)
		if (!strcmp(vocab[i], name))
			return i;
	return -1;
}

static int has_token(const char *lower, size_t len, const char *tok)
{
	size_t tl = strlen(tok);
	size_t i = 0;
	while (i < len) {
		while (i < len && !isalnum((unsigned char)lower[i]))
			i++;
		size_t s = i;
		while (i < len && isalnum((unsigned char)lower[i]))
			i++;
		size_t e = i;
		while (e > s && isdigit((unsigned char)lower[e - 1]))
			e--;
		if (e - s == tl && !memcmp(lower + s, tok, tl))
			return 1;
	}
	return 0;
}

static int rule_of(const char *name, size_t len)
{
	char lower[512];
	if (len >= sizeof lower)
		len = sizeof lower - 1;
	for (size_t i = 0; i < len; i++)
		lower[i] = (char)tolower((unsigned char)name[i]);
	lower[len] = 0;
	for (size_t r = 0; r < NRULES; r++) {
		for (int t = 0; t < 32 && rules[r].tokens[t]; t++)
			if (has_token(lower, len, rules[r].tokens[t]))
				return (int)r;
		for (int t = 0; t < 12 && rules[r].substr[t]; t++)
			if (strstr(lower, rules[r].substr[t]))
				return (int)r;
	}
	return -1;
}

const char *chakra__sy_kind_of_name(const char *name, size_t len)
{
	int r = rule_of(name, len);
	return r < 0 ? "compute" : rules[r].kind;
}

int chakra__sy_classify(const chakra_node *n)
{
	vocab_init();
	int type = chakra_node_type_of(n);
	int base = (int)(NRULES + 2); /* entries per device */
	switch (type) {
	case CHAKRA_MEM_LOAD_NODE:
		return 2 * base + 0;
	case CHAKRA_MEM_STORE_NODE:
		return 2 * base + 1;
	case CHAKRA_METADATA_NODE:
		return 2 * base + 2;
	case CHAKRA_COMP_NODE:
	case CHAKRA_COMM_COLL_NODE:
		break;
	default:
		return 2 * base + 3;
	}
	int cpu = 0;
	if (chakra_node_is_cpu_op(n, &cpu) < 0)
		cpu = 0;
	int dev = cpu ? 0 : base;
	if (type == CHAKRA_COMM_COLL_NODE)
		return dev + (int)NRULES; /* comm_launch */
	size_t len;
	const char *name = chakra_node_name(n, &len);
	/* A class name stays its class (synthetic and anonymized traces
	 * classify as they were written). */
	for (int i = 0; i < nvocab; i++)
		if (!strcmp(name, vocab[i]))
			return i;
	int r = rule_of(name, len);
	return dev + (r < 0 ? (int)NRULES + 1 : r);
}

const char *chakra_synth_op_class(const chakra_node *n)
{
	int64_t ct;
	if (chakra_node_type_of(n) == CHAKRA_COMM_COLL_NODE && chakra_node_comm_type(n, &ct) == 0) {
		const char *s = chakra_comm_type_name((int)ct);
		return s ? s : "collective";
	}
	if (chakra_node_type_of(n) == CHAKRA_COMM_SEND_NODE)
		return "send";
	if (chakra_node_type_of(n) == CHAKRA_COMM_RECV_NODE)
		return "recv";
	return chakra__sy_class_name(chakra__sy_classify(n));
}
