/* SPDX-License-Identifier: Apache-2.0 */
/* `chakra generate model`: every model x parallelism at 16 NPUs writes 16
 * ranks with pinned node and collective counts, ids from 0, parents before
 * children, is_cpu_op false, num_ops / tensor_size / duration_nanos on
 * compute; a few values are pinned against the formulas of docs/generate.md. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "chakra/chakra.h"
#include "check.h"

typedef struct want {
	const char *model, *par;
	unsigned long nodes, colls;
} want;

static const want wants[] = {
	{ "mlp", "data", 31, 8 },          { "mlp", "model", 38, 15 },
	{ "mlp", "hybrid", 46, 23 },       { "dlrm", "data", 29, 8 },
	{ "dlrm", "model", 34, 13 },       { "dlrm", "hybrid", 40, 19 },
	{ "transformer", "data", 215, 48 }, { "transformer", "model", 214, 47 },
	{ "transformer", "hybrid", 262, 95 },
};

/* One node's values, by name, from a rank file. */
typedef struct got {
	int found;
	uint64_t num_ops, tensor_size, nanos, comm_size;
	int64_t comm_type;
	char pg[16];
	uint64_t ndeps;
} got;

static void lookup(const char *path, const char *name, got *g)
{
	memset(g, 0, sizeof *g);
	chakra_reader *r = NULL;
	if (chakra_reader_open(&r, path, NULL) < 0) {
		chakra_reader_close(r);
		return;
	}
	const chakra_node *n;
	while (chakra_reader_next(r, &n) > 0) {
		if (strcmp(chakra_node_name(n, NULL), name))
			continue;
		g->found = 1;
		chakra_node_num_ops(n, &g->num_ops);
		chakra_node_tensor_size(n, &g->tensor_size);
		chakra_node_get_uint(n, "duration_nanos", &g->nanos);
		chakra_node_comm_size(n, &g->comm_size);
		g->comm_type = -1;
		chakra_node_comm_type(n, &g->comm_type);
		const char *pg;
		size_t len;
		if (chakra_node_pg_name(n, &pg, &len) == 0)
			snprintf(g->pg, sizeof g->pg, "%s", pg);
		g->ndeps = chakra_node_data_dep_count(n);
		break;
	}
	chakra_reader_close(r);
}

static void scan(const char *path, unsigned long *nodes, unsigned long *colls)
{
	chakra_reader *r = NULL;
	*nodes = *colls = 0;
	if (chakra_reader_open(&r, path, NULL) < 0) {
		CHECK_MSG(0, "%s: %s", path, r ? chakra_reader_errmsg(r) : "open failed");
		chakra_reader_close(r);
		return;
	}
	const chakra_node *n;
	int rc;
	while ((rc = chakra_reader_next(r, &n)) > 0) {
		uint64_t id = chakra_node_id(n);
		CHECK(id == *nodes);
		const uint64_t *d = chakra_node_data_deps(n);
		for (size_t i = 0; i < chakra_node_data_dep_count(n); i++)
			CHECK(d[i] < id);
		int cpu = -1;
		CHECK(chakra_node_is_cpu_op(n, &cpu) == 0 && cpu == 0);
		if (chakra_node_type_of(n) == CHAKRA_COMP_NODE) {
			uint64_t ops = 0, ts = 0, ns = 0;
			CHECK(chakra_node_num_ops(n, &ops) == 0 && ops > 0);
			CHECK(chakra_node_tensor_size(n, &ts) == 0 && ts > 0);
			CHECK(chakra_node_get_uint(n, "duration_nanos", &ns) == 0 && ns > 0);
			CHECK(chakra_node_duration_micros(n) == ns / 1000);
		} else {
			CHECK(chakra_node_type_of(n) == CHAKRA_COMM_COLL_NODE);
			(*colls)++;
		}
		(*nodes)++;
	}
	CHECK_MSG(rc == 0, "%s: %s", path, chakra_reader_errmsg(r));
	chakra_reader_close(r);
}

int main(void)
{
	const char *exe = getenv("CHAKRA_EXE");
	if (!exe)
		return 1;
	char dir[] = "/tmp/chakra-gen-model-XXXXXX";
	if (!mkdtemp(dir))
		return 1;
	int print = getenv("GEN_PRINT") != NULL;
	char cmd[4096], path[4096];
	for (size_t k = 0; k < sizeof wants / sizeof *wants; k++) {
		const want *w = &wants[k];
		snprintf(cmd, sizeof cmd, "'%s' generate model --model %s --parallel %s --npus 16 "
		         "-o '%s/%s_%s'", exe, w->model, w->par, dir, w->model, w->par);
		CHECK_MSG(system(cmd) == 0, "%s", cmd);
		unsigned long n0 = 0, c0 = 0;
		for (unsigned r = 0; r < 16; r++) {
			unsigned long n, c;
			snprintf(path, sizeof path, "%s/%s_%s.%u.et", dir, w->model, w->par, r);
			scan(path, &n, &c);
			if (!r) {
				n0 = n;
				c0 = c;
			}
			CHECK(n == n0 && c == c0);
		}
		if (print)
			printf("{ \"%s\", \"%s\", %lu, %lu },\n", w->model, w->par, n0, c0);
		else
			CHECK_MSG(n0 == w->nodes && c0 == w->colls, "%s/%s: %lu nodes %lu colls", w->model,
			          w->par, n0, c0);
	}
	got g;
	/* MLP data parallel: batch 1024 over 16 ranks, 4096x4096 layers, 2-byte
	 * elements; 100 TFLOP/s, 2000 GB/s. */
	snprintf(path, sizeof path, "%s/mlp_data.3.et", dir);
	lookup(path, "fc0_fwd", &g);
	CHECK(g.found);
	CHECK_EQ_U(g.num_ops, 2ull * 64 * 4096 * 4096);
	CHECK_EQ_U(g.tensor_size, (64ull * 4096 * 2 + 4096ull * 4096) * 2);
	CHECK_EQ_U(g.nanos, (2ull * 64 * 4096 * 4096 + 99999) / 100000); /* compute bound */
	lookup(path, "fc5_wg_ALL_REDUCE", &g);
	CHECK(g.found && g.comm_type == CHAKRA_ALL_REDUCE);
	CHECK_EQ_U(g.comm_size, 4096ull * 4096 * 2);
	CHECK(!strcmp(g.pg, "1")); /* the whole machine */
	lookup(path, "fc0_fwd_ALL_GATHER", &g);
	CHECK(!g.found); /* no model parallelism */
	/* MLP hybrid: model group = network dim 0 = 4 ranks; rank 6 is in the
	 * second block (group 3 after the world group... ids by first use). */
	snprintf(path, sizeof path, "%s/mlp_hybrid.6.et", dir);
	lookup(path, "fc1_fwd_ALL_GATHER", &g);
	CHECK(g.found && g.comm_type == CHAKRA_ALL_GATHER);
	CHECK_EQ_U(g.comm_size, 256ull * 4096 * 2); /* batch / 4 data-parallel ranks */
	CHECK(!strcmp(g.pg, "2"));                  /* blocks of 4: ids 1..4, rank 6 -> 2 */
	lookup(path, "fc1_wg_ALL_REDUCE", &g);
	CHECK_EQ_U(g.comm_size, 4096ull * 1024 * 2); /* the rank's quarter of the weights */
	CHECK(!strcmp(g.pg, "7"));                   /* strides of 4: ids 5..8, 6 % 4 -> 7 */
	/* DLRM: embedding exchange over all ranks, the interaction waits for it. */
	snprintf(path, sizeof path, "%s/dlrm_hybrid.0.et", dir);
	lookup(path, "embedding_fwd_ALL_TO_ALL", &g);
	CHECK(g.found && g.comm_type == CHAKRA_ALL_TO_ALL);
	CHECK_EQ_U(g.comm_size, 2048ull * 64 * 128 * 2 / 16);
	lookup(path, "interaction_fwd", &g);
	CHECK_EQ_U(g.ndeps, 3); /* bottom MLP, its all-gather, the embedding exchange */
	/* Transformer model parallel: row-parallel projection all-reduces its
	 * output (batch 64 x seq 1024 x hidden 1024). */
	snprintf(path, sizeof path, "%s/transformer_model.15.et", dir);
	lookup(path, "block0_proj_fwd_ALL_REDUCE", &g);
	CHECK(g.found && g.comm_type == CHAKRA_ALL_REDUCE);
	CHECK_EQ_U(g.comm_size, 64ull * 1024 * 1024 * 2);
	lookup(path, "block0_qkv_wg_ALL_REDUCE", &g);
	CHECK(!g.found); /* no data parallelism */

	/* Bad sizes are usage errors, and nothing is overwritten unasked. */
	snprintf(cmd, sizeof cmd, "'%s' generate model --model mlp --parallel hybrid --npus 16 "
	         "--mp-group 3 -o '%s/x' 2>/dev/null", exe, dir);
	int st = system(cmd);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 2);
	snprintf(cmd, sizeof cmd, "'%s' generate model --model mlp --parallel data --npus 16 "
	         "-o '%s/mlp_data' 2>/dev/null", exe, dir);
	st = system(cmd);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 1);

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
	return check_done();
}
