/* SPDX-License-Identifier: Apache-2.0 */
/* libchakra (experimental): converting PyTorch execution traces and Kineto
 * traces to Chakra ETs.
 *
 *   #define CHAKRA_EXPERIMENTAL
 *   #include <chakra/experimental/convert.h>
 *
 *   chakra_convert_options o = CHAKRA_CONVERT_OPTIONS_INIT;
 *   o.kineto_path = "kineto.json.gz";            // optional
 *   chakra_convert_result res;
 *   if (chakra_convert_pytorch("et.json.gz", "out.0.et", &o, &res) < 0)
 *       fprintf(stderr, "%s\n", res.errmsg);     // "FILE: event N (byte B): what"
 *
 * Both inputs are read as a stream through YAJL (gzip or plain JSON); what
 * is held in memory is a compact record per op / event, never the text.
 * The output is written through chakra_writer: to a temporary renamed into
 * place on success, so a failed conversion leaves nothing behind, and an
 * existing file is replaced only with opts.overwrite. docs/convert.md
 * describes the node model, the linking rules and what is dropped. */
#ifndef CHAKRA_EXPERIMENTAL_CONVERT_H
#define CHAKRA_EXPERIMENTAL_CONVERT_H

#include "chakra/experimental.h"
#include "chakra/writer.h"
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct chakra_convert_options {
	unsigned version;        /* CHAKRA_CONVERT_OPTIONS_VERSION */
	/* pytorch: a Kineto trace of the same program to link (NULL: none). */
	const char *kineto_path;
	/* Inputs given in memory instead of paths (fuzzers, embedders): when
	 * *_buf is set it is read instead of the path, which then only names
	 * the input in messages. */
	const void *et_buf, *kineto_buf;
	size_t et_len, kineto_len;
	int gzip;                /* gzip the output */
	int overwrite;           /* replace an existing output file */
	/* kineto: the window to convert. step >= 0 selects ProfilerStep#step;
	 * annotation selects the instance-th user annotation of that name
	 * (0 = first, in time order); neither: the whole trace. */
	int64_t step;
	const char *annotation;
	unsigned instance;
	/* pytorch: write inputs/outputs (values, shapes, types as JSON) on the
	 * host ops. */
	int keep_io;
	/* Version 2. kineto, with annotation: the window runs from that
	 * occurrence's start to the next occurrence's start (iterations marked
	 * by a repeated annotation such as Optimizer.zero_grad#SGD.zero_grad)
	 * instead of to the annotation's own end. Occurrences are counted in
	 * time order. */
	int to_next;
	/* Version 3. When set, chakra_convert_pytorch / _kineto write the ET
	 * through out_cb(out_data, ...) instead of creating out_path, which then
	 * only names the output in messages (`overwrite` is the caller's
	 * business): the caller owns the file, e.g. to remove it on a signal.
	 * Called from the converting thread only, until the call returns; a
	 * negative return fails the conversion. chakra_convert_ranks refuses it
	 * (CHAKRA_EINVAL): it writes several files. */
	chakra_write_cb out_cb;
	void *out_data;
} chakra_convert_options;

/* Versions 1 (without to_next) and 2 (without out_cb) are still accepted. */
#define CHAKRA_CONVERT_OPTIONS_VERSION 3
#define CHAKRA_CONVERT_OPTIONS_INIT \
	{ CHAKRA_CONVERT_OPTIONS_VERSION, NULL, NULL, NULL, 0, 0, 0, 0, -1, NULL, 0, 1, 0, NULL, NULL }

CHAKRA_EXPERIMENTAL_API int chakra_convert_options_init(chakra_convert_options *opts,
                                                        unsigned version);

/* What a conversion read and wrote (also filled, as far as it got, when it
 * fails). Counts of nodes written by type are indexed by chakra_node_type. */
typedef struct chakra_convert_summary {
	/* inputs */
	uint64_t et_nodes;           /* PyTorch ET nodes read */
	uint64_t kineto_events;      /* Kineto trace events read */
	uint64_t host_ops;           /* ops a simulator issues (after folding) */
	uint64_t folded_ops;         /* ET ops folded into their outermost op */
	uint64_t unclassified_ops;   /* comm-like ops of unknown kind: kept as COMP */
	/* linking (pytorch --kineto) */
	uint64_t et_ops_linked;      /* ET ops (any level) matched to a Kineto op */
	uint64_t host_ops_with_kernels;
	uint64_t kernels;            /* device ops (kernel/memcpy/memset) in the window */
	uint64_t kernels_linked;     /* ... attached to a host op */
	const char *link_method;     /* "record-function id", "external id",
	                                "name order" or "" */
	/* device side */
	uint64_t launches_unmatched; /* device ops with no runtime call */
	uint64_t sync_edges, stream_wait_edges, inferred_wait_edges;
	uint64_t flows_dangling;     /* flow events without a partner (ignored) */
	/* output */
	uint64_t nodes;
	uint64_t nodes_by_type[8];
	uint64_t data_edges, ctrl_edges;
	uint64_t collectives;
	int rank;                    /* -1 when unknown */
	/* cross-thread dependencies (docs/convert.md) */
	uint64_t flow_edges;         /* Kineto fwdbwd flows: forward op -> its backward */
	uint64_t thread_wait_edges;  /* a thread idle >= 1 ms resumes after another's op */
	uint64_t dropped_edges;      /* dependencies that would close a cycle: not written */
} chakra_convert_summary;

typedef struct chakra_convert_result {
	chakra_convert_summary summary;
	/* On error: the input that was being read (or the output), the index
	 * of the offending ET node / Kineto event (-1 if none), the byte
	 * offset (-1 if unknown), and the whole message, e.g.
	 * "k.json: event 812 (byte 90211): kernel has no 'ts'". */
	const char *file;
	int64_t index;
	int64_t offset;
	char errmsg[1024];
} chakra_convert_result;

/* PyTorch host ET (schemas 1.0.1 .. 1.1.x), optionally linked with the
 * Kineto trace opts->kineto_path, to one Chakra ET. Returns 0 or a negative
 * chakra_error (result->errmsg says what and where). result may be NULL. */
CHAKRA_EXPERIMENTAL_API int chakra_convert_pytorch(const char *et_path, const char *out_path,
                                                   const chakra_convert_options *opts,
                                                   chakra_convert_result *result);

/* A Kineto trace alone to one Chakra ET. */
CHAKRA_EXPERIMENTAL_API int chakra_convert_kineto(const char *kineto_path, const char *out_path,
                                                  const chakra_convert_options *opts,
                                                  chakra_convert_result *result);

/* An ET and the Kineto trace of the same run (opts->kineto_path or
 * kineto_buf) linked into one JSON file, as Chakra's chakra_trace_link
 * writes it: the host ET with Kineto's times on its ops (ts, inclusive_dur,
 * exclusive_dur) and the device ops added as nodes below the host ops that
 * launched them (cat, ts, inclusive_dur, stream, pg_name), plus what makes
 * chakra_convert_pytorch on the linked file give what it gives on the two
 * files (docs/convert.md, "Linked files"). Written through opts->out_cb
 * when set, else to out_path through a temporary file renamed into place
 * (an existing file is replaced only with opts->overwrite). */
CHAKRA_EXPERIMENTAL_API int chakra_convert_link(const char *et_path, const char *out_path,
                                                const chakra_convert_options *opts,
                                                chakra_convert_result *result);

/* Several ranks: et_pattern (and kineto_pattern, which may be NULL) hold
 * "{R}" where the rank number goes, e.g. "run/rank{R}.json". Every rank R
 * for which a file exists (0, 1, ... until the first missing one) is
 * converted to PREFIX.R.et (PREFIX.R.et.gz with opts->gzip); with et_pattern
 * NULL, Kineto traces alone are converted. Every process group must have
 * the same members on every rank naming it; the groups are written to
 * PREFIX.comm_groups.json (ASTRA-sim's communicator-group format).
 * per_rank (may be NULL) receives one result per rank, up to max_ranks;
 * *n_ranks the number of ranks found. */
CHAKRA_EXPERIMENTAL_API int chakra_convert_ranks(const char *et_pattern,
                                                 const char *kineto_pattern,
                                                 const char *prefix,
                                                 const chakra_convert_options *opts,
                                                 chakra_convert_result *result,
                                                 chakra_convert_summary *per_rank,
                                                 size_t max_ranks, size_t *n_ranks);

/* The summary as the tools print it (lines ending in '\n'), through write
 * (writer.h's chakra_write_cb): 0, CHAKRA_EINVAL (NULL s or write),
 * CHAKRA_EIO (write failed) or CHAKRA_ENOMEM. */
CHAKRA_EXPERIMENTAL_API int chakra_convert_summary_print(const chakra_convert_summary *s,
                                                         chakra_write_cb write, void *data);

#ifdef __cplusplus
}
#endif
#endif
