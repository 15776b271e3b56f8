/* SPDX-License-Identifier: Apache-2.0 */
/* `chakra generate micro`: one-collective microbenchmarks, byte for byte the
 * files of ASTRA-sim's examples/workload/microbenchmarks (same node name,
 * id = rank, attribute names, kinds and order), plus a send/recv ring. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common.h"
#include "opts.h"

static const struct {
	const char *name;
	int type;
} colls[] = {
	{ "all_reduce", CHAKRA_ALL_REDUCE },         { "all_gather", CHAKRA_ALL_GATHER },
	{ "reduce_scatter", CHAKRA_REDUCE_SCATTER }, { "all_to_all", CHAKRA_ALL_TO_ALL },
	{ "broadcast", CHAKRA_BROADCAST },
};

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

/* One rank's file, written and closed; the set is committed by the caller
 * once every rank is complete (the output rule: temporary + rename, -f to
 * replace, all or nothing). */
static int write_one(tool_out *op, const char *path, chakra_builder *b, int force, int gzip,
                     int nnodes, chakra_builder *b2)
{
	chakra_writer_options wo = CHAKRA_WRITER_OPTIONS_INIT;
	wo.gzip = gzip;
	chakra_writer *w = NULL;
	if (tool_out_open(op, path, force, NULL, 0) < 0)
		return -1;
	int rc = chakra_writer_open_cb(&w, tool_out_write_cb, op, &wo);
	if (rc == 0)
		rc = chakra_writer_write_metadata(w, "0.0.4", NULL);
	if (rc == 0)
		rc = chakra_writer_write_node(w, b);
	if (rc == 0 && nnodes > 1)
		rc = chakra_writer_write_node(w, b2);
	if (rc == 0)
		rc = chakra_writer_finish(w);
	if (rc < 0 && !ferror(op->f))
		tool_err("%s: %s", path, w && *chakra_writer_errmsg(w) ? chakra_writer_errmsg(w)
		                                                       : chakra_strerror(rc));
	chakra_writer_close(w);
	if (rc < 0) {
		if (ferror(op->f))
			tool_out_close(op);
		return -1;
	}
	return tool_out_close(op);
}

int cmd_generate_micro(int argc, char **argv)
{
	const char *out = NULL;
	uint64_t npus = 0, size = UINT64_MAX; /* UINT64_MAX: not given */
	int coll = -1, ring = 0, force = 0, gzip = 0;
	const tool_option opts[] = {
		{ "--collective", "C", TOOL_CHOICE, &coll,
		  "all_reduce|all_gather|reduce_scatter|all_to_all|broadcast",
		  "the collective: all_reduce, all_gather,\n"
		  "reduce_scatter, all_to_all or broadcast" },
		{ "--send-recv-ring", NULL, TOOL_FLAG, &ring, NULL,
		  "a send/recv ring instead of a collective" },
		{ "--npus", "N", TOOL_U64, &npus, NULL, "number of NPUs (1..1048576; required)" },
		{ "--size", "BYTES", TOOL_SIZE, &size, NULL,
		  "the collective's (each send's) size: 1048576, 64KB,\n"
		  "1MB, 1MiB (KB/MB/GB are binary, as in ASTRA-sim's\n"
		  "names; required)" },
		{ "-o, --output", "PREFIX", TOOL_STR, &out, NULL, "output prefix (required)" },
		{ "--gzip", NULL, TOOL_FLAG, &gzip, NULL, "write PREFIX.r.et.gz" },
		{ "-f, --force", NULL, TOOL_FLAG, &force, NULL, "replace existing output files" },
		{ NULL, NULL, 0, NULL, NULL, NULL },
	};
	const tool_command cmd = {
		"--collective C --npus N --size BYTES -o PREFIX\n"
		"       chakra generate micro --send-recv-ring --npus N --size BYTES -o PREFIX",
		"Write PREFIX.0.et .. PREFIX.{N-1}.et: one collective per NPU, as ASTRA-sim's\n"
		"microbenchmarks, or a ring where every rank sends BYTES to rank+1 and receives\n"
		"from rank-1.",
		opts, NULL, 0, 0, NULL
	};
	const char **args;
	int nargs, prc = tool_parse(&cmd, argc, argv, &args, &nargs);
	if (prc != TOOL_PARSED)
		return prc == TOOL_HELP_SHOWN ? 0 : prc;
	free(args);
	int type = coll >= 0 ? colls[coll].type : -1;
	if ((coll >= 0) == ring)
		return tool_usage(argv[0], "give exactly one of --collective C and --send-recv-ring");
	if (!npus || npus > 1u << 20)
		return tool_usage(argv[0], "--npus N (1..%u) is required", 1u << 20);
	if (ring && npus < 2)
		return tool_usage(argv[0], "a ring needs --npus 2 or more");
	if (size > INT64_MAX)
		return tool_usage(argv[0], "--size BYTES is required");
	if (!out || !strcmp(out, "-"))
		return tool_usage(argv[0], "-o PREFIX is required (files PREFIX.r.et)");

	char label[64], name[128];
	size_label(size, label, sizeof label);
	snprintf(name, sizeof name, "%s_%llunpus_%s", ring ? "send_recv_ring" : colls[coll].name,
	         (unsigned long long)npus, label);
	size_t plen = strlen(out) + 40;
	/* one name per rank: a tool_out keeps the path it was given */
	char *paths = malloc(plen * npus);
	tool_out *outs = calloc(npus, sizeof *outs);
	char *path = paths;
	chakra_builder *b = chakra_builder_new(), *b2 = chakra_builder_new();
	int ret = 1;
	if (!paths || !outs || !b || !b2) {
		tool_err("out of memory");
		goto out;
	}
	/* refuse before writing the first file */
	for (uint64_t r = 0; r < npus; r++) {
		snprintf(path, plen, "%s.%llu.et%s", out, (unsigned long long)r, gzip ? ".gz" : "");
		if (tool_out_check(path, force, NULL, 0) < 0)
			goto out;
	}
	tool_progress pr;
	tool_progress_start(&pr, "writing", npus);
	for (uint64_t r = 0; r < npus; r++) {
		path = paths + r * plen;
		snprintf(path, plen, "%s.%llu.et%s", out, (unsigned long long)r, gzip ? ".gz" : "");
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
		} else {
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
			chakra_builder_attr_int(b2, "comm_src", CHAKRA_ATTR_INT32,
			                        (int64_t)((r + npus - 1) % npus));
			chakra_builder_attr_uint(b2, "comm_size", CHAKRA_ATTR_INT64, size);
			chakra_builder_attr_int(b2, "comm_tag", CHAKRA_ATTR_INT32, 0);
		}
		if (write_one(&outs[r], path, b, force, gzip, ring ? 2 : 1, b2) < 0) {
			tool_progress_end(&pr);
			goto out;
		}
		tool_progress_update(&pr, r + 1);
	}
	tool_progress_end(&pr);
	if (tool_out_commit_set(outs, npus) < 0)
		goto out;
	ret = 0;
out:
	for (uint64_t r = 0; outs && r < npus; r++)
		tool_out_abort(&outs[r]); /* nothing left to do after a commit */
	free(outs);
	chakra_builder_free(b);
	chakra_builder_free(b2);
	free(paths);
	return ret;
}
