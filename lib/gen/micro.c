/* SPDX-License-Identifier: Apache-2.0 */
/* chakra_gen_micro: one-collective microbenchmarks, byte for byte the files
 * of ASTRA-sim's examples/workload/microbenchmarks (same node name, id =
 * rank, attribute names, kinds and order), or a send/recv ring. */
#include "gen_impl.h"

#include <stdio.h>
#include <string.h>

#include "chakra/chakra.h"
#include "../modmem.h"
#include "../opts.h"

static const struct {
	const char *name;
	int type;
} colls[] = {
	{ "all_reduce", CHAKRA_ALL_REDUCE },         { "all_gather", CHAKRA_ALL_GATHER },
	{ "reduce_scatter", CHAKRA_REDUCE_SCATTER }, { "all_to_all", CHAKRA_ALL_TO_ALL },
	{ "broadcast", CHAKRA_BROADCAST },
};

static const chakra_gen_micro_options micro_defaults = CHAKRA_GEN_MICRO_OPTIONS_INIT;
static const size_t micro_sizes[] = { 0, sizeof(chakra_gen_micro_options) };

int chakra_gen_micro_options_init(chakra_gen_micro_options *opts, unsigned version)
{
	return chakra__opts_init(opts, version, &micro_defaults, micro_sizes, 2);
}

/* "1MB" as in ASTRA-sim's directory and node names: the largest binary unit
 * that divides the size. */
static void size_label(uint64_t b, char *out, size_t cap)
{
	if (b && b % (1ull << 30) == 0)
		snprintf(out, cap, "%lluGB", (unsigned long long)(b >> 30));
	else if (b && b % (1ull << 20) == 0)
		snprintf(out, cap, "%lluMB", (unsigned long long)(b >> 20));
	else if (b && b % 1024 == 0)
		snprintf(out, cap, "%lluKB", (unsigned long long)(b >> 10));
	else
		snprintf(out, cap, "%lluB", (unsigned long long)b);
}

/* Rank r's one node (the collective, or the ring's send) in b and, for the
 * ring, its receive in b2. */
static void build(chakra_builder *b, chakra_builder *b2, const char *name, int type, int ring,
                  uint64_t r, uint64_t npus, uint64_t size)
{
	chakra_builder_reset(b);
	chakra_builder_reset(b2);
	if (!ring) {
		/* ASTRA-sim's generator numbers the one node by rank. */
		chakra_builder_set_id(b, r);
		chakra_builder_set_name(b, name, (size_t)-1);
		chakra_builder_set_type(b, CHAKRA_COMM_COLL_NODE);
		chakra_builder_attr_int(b, "is_cpu_op", CHAKRA_ATTR_BOOL, 0);
		chakra_builder_attr_int(b, "comm_type", CHAKRA_ATTR_INT64, type);
		chakra_builder_attr_uint(b, "comm_size", CHAKRA_ATTR_INT64, size);
		return;
	}
	/* Send and receive are independent: both start at once. */
	char nm[160];
	snprintf(nm, sizeof nm, "%s_send", name);
	chakra_builder_set_id(b, 0);
	chakra_builder_set_name(b, nm, (size_t)-1);
	chakra_builder_set_type(b, CHAKRA_COMM_SEND_NODE);
	chakra_builder_attr_int(b, "is_cpu_op", CHAKRA_ATTR_BOOL, 0);
	chakra_builder_attr_int(b, "comm_dst", CHAKRA_ATTR_INT32, (int64_t)((r + 1) % npus));
	chakra_builder_attr_uint(b, "comm_size", CHAKRA_ATTR_INT64, size);
	chakra_builder_attr_int(b, "comm_tag", CHAKRA_ATTR_INT32, 0);
	snprintf(nm, sizeof nm, "%s_recv", name);
	chakra_builder_set_id(b2, 1);
	chakra_builder_set_name(b2, nm, (size_t)-1);
	chakra_builder_set_type(b2, CHAKRA_COMM_RECV_NODE);
	chakra_builder_attr_int(b2, "is_cpu_op", CHAKRA_ATTR_BOOL, 0);
	chakra_builder_attr_int(b2, "comm_src", CHAKRA_ATTR_INT32, (int64_t)((r + npus - 1) % npus));
	chakra_builder_attr_uint(b2, "comm_size", CHAKRA_ATTR_INT64, size);
	chakra_builder_attr_int(b2, "comm_tag", CHAKRA_ATTR_INT32, 0);
}

int chakra_gen_micro(const char *prefix, const chakra_gen_options *opts,
                     const chakra_gen_micro_options *micro)
{
	chakra_gen_options o;
	chakra_gen_micro_options m;
	gen_sink E;
	int rc = gen_options_take(&o, opts, 1u << 20, &E);
	if (rc < 0)
		return rc;
	if (chakra__opts_copy(&m, sizeof m, micro, &micro_defaults, micro_sizes, 2) < 0) {
		gen_err(&E, "unknown options version");
		return CHAKRA_EINVAL;
	}
	if (!prefix || !*prefix) {
		gen_err(&E, "no output prefix");
		return CHAKRA_EINVAL;
	}
	int ring = m.comm_type == CHAKRA_GEN_MICRO_RING, k = -1;
	for (size_t i = 0; i < sizeof colls / sizeof colls[0]; i++)
		if (colls[i].type == m.comm_type)
			k = (int)i;
	if (!ring && k < 0) {
		gen_err(&E, "comm_type %d: not one of ASTRA-sim's microbenchmark collectives",
		        m.comm_type);
		return CHAKRA_EINVAL;
	}
	if (ring && o.npus < 2) {
		gen_err(&E, "a ring needs npus 2 or more");
		return CHAKRA_EINVAL;
	}
	if (m.size > INT64_MAX) {
		gen_err(&E, "size must be at most 2^63-1 bytes");
		return CHAKRA_EINVAL;
	}
	if (o.rank_map) {
		gen_err(&E, "microbenchmarks are one file per rank: no rank map");
		return CHAKRA_EINVAL;
	}
	uint64_t npus = o.npus;
	char label[64], name[128];
	size_label(m.size, label, sizeof label);
	snprintf(name, sizeof name, "%s_%llunpus_%s", ring ? "send_recv_ring" : colls[k].name,
	         (unsigned long long)npus, label);
	size_t plen = strlen(prefix) + 40;
	/* one name per rank: an output keeps the path it was given */
	char *paths = chakra_malloc(plen * npus);
	chakra__out *outs = chakra_calloc(npus, sizeof *outs);
	chakra_builder *b = chakra_builder_new(), *b2 = chakra_builder_new();
	chakra__out_opts oo = { o.force, 1, NULL, 0, NULL };
	char err[1200];
	rc = CHAKRA_ENOMEM;
	if (!paths || !outs || !b || !b2) {
		gen_err(&E, "out of memory");
		goto out;
	}
	/* refuse before writing the first file */
	for (uint64_t r = 0; r < npus; r++) {
		char *path = paths + r * plen;
		snprintf(path, plen, "%s.%llu.et%s", prefix, (unsigned long long)r, o.gzip ? ".gz" : "");
		if ((rc = chakra__out_check(path, &oo, err, sizeof err)) < 0) {
			gen_err(&E, "%s", err);
			goto out;
		}
	}
	if (o.progress)
		o.progress(o.progress_data, CHAKRA_GEN_PROGRESS_START, 0, npus);
	for (uint64_t r = 0; r < npus; r++) {
		build(b, b2, name, ring ? 0 : colls[k].type, ring, r, npus, m.size);
		chakra_builder *nodes[2] = { b, b2 };
		rc = gen_write_nodes(&outs[r], paths + r * plen, &oo, o.gzip, "0.0.4", nodes,
		                     ring ? 2 : 1, &E);
		if (rc < 0)
			break;
		if (o.progress)
			o.progress(o.progress_data, CHAKRA_GEN_PROGRESS_UPDATE, r + 1, npus);
	}
	if (o.progress)
		o.progress(o.progress_data, CHAKRA_GEN_PROGRESS_END, npus, npus);
	if (rc == 0 && (rc = chakra__out_commit_set(outs, npus, err, sizeof err)) < 0)
		gen_err(&E, "%s", err);
out:
	for (uint64_t r = 0; outs && r < npus; r++)
		chakra__out_abort(&outs[r]); /* nothing left to do after a commit */
	chakra_free(outs);
	chakra_builder_free(b);
	chakra_builder_free(b2);
	chakra_free(paths);
	return rc;
}
