/* SPDX-License-Identifier: Apache-2.0 */
/* libchakra (experimental): checking a trace, what `chakra validate` does.
 *
 *   #define CHAKRA_EXPERIMENTAL
 *   #include <chakra/experimental/check.h>
 *
 *   static void on_finding(void *data, const chakra_check_finding *f)
 *   {
 *       puts(f->text);   // "FILE:BYTE: node ID: what is wrong"
 *   }
 *   chakra_check_result res;
 *   int rc = chakra_check_trace("trace.0.et", NULL, on_finding, NULL, &res);
 *   // 0: no error (warnings allowed), 1: errors, < 0: a chakra_error
 *
 * One streaming pass frames and decodes every node and records ids and
 * edges (memory proportional to nodes + edges); then every dependency is
 * checked against the ids in the file and data-dependency cycles are
 * searched (iteratively: million-node chains need no deep stack). Each
 * problem is a finding, in file order, with its facts as values and the
 * line `chakra validate` prints for it; the per-file summary lines come
 * last. docs/tools-core.md lists the checks. */
#ifndef CHAKRA_EXPERIMENTAL_CHECK_H
#define CHAKRA_EXPERIMENTAL_CHECK_H

#include "chakra/experimental.h"
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct chakra_check_options {
	unsigned version;      /* CHAKRA_CHECK_OPTIONS_VERSION */
	int strict;            /* control-dependency problems are errors */
	/* Also decode every node with nanopb and compare, and report nodes
	 * whose bytes a re-write would change (a regular file only: the input
	 * is read twice). */
	int deep;
	uint64_t max_warnings; /* findings reported per warning kind (0 = all) */
	/* errors reported (0 = all); reading stops once duplicate ids reach it
	 * (an endless or repetitive input such as /dev/zero) */
	uint64_t max_errors;
	/* A message for a file the reader cannot read, used instead of the
	 * reader's (e.g. "looks like JSON"), or NULL; may be NULL. */
	const char *(*read_hint)(const char *path);
	/* Called every 1024 nodes read with the uncompressed offset and the
	 * node count; may be NULL. */
	void (*progress)(void *data, uint64_t offset, uint64_t nodes);
	void *progress_data;
} chakra_check_options;

#define CHAKRA_CHECK_OPTIONS_VERSION 1
#define CHAKRA_CHECK_OPTIONS_INIT \
	{ CHAKRA_CHECK_OPTIONS_VERSION, 0, 0, 10, 100, NULL, NULL, NULL }

/* CHAKRA_EINVAL for a version this library does not know. */
CHAKRA_EXPERIMENTAL_API int chakra_check_options_init(chakra_check_options *opts,
                                                      unsigned version);

enum chakra_check_severity {
	CHAKRA_CHECK_ERROR = 0,
	CHAKRA_CHECK_WARNING = 1,
	CHAKRA_CHECK_NOTE = 2,    /* context for the finding before it, or a skipped check */
	CHAKRA_CHECK_SUMMARY = 3, /* the totals at the end */
};

enum chakra_check_kind {
	CHAKRA_CHECK_READ = 0,        /* framing or decoding stopped the pass (or a hint) */
	CHAKRA_CHECK_DUP_ID = 1,      /* an id used before (related: the first node's offset) */
	CHAKRA_CHECK_DATA_ABSENT = 2, /* a data dependency on an absent id (related: that id) */
	CHAKRA_CHECK_DATA_SELF = 3,   /* the node in its own data_deps */
	CHAKRA_CHECK_CTRL_ABSENT = 4, /* a control dependency on an absent id (related: that id) */
	CHAKRA_CHECK_CTRL_SELF = 5,   /* the node in its own ctrl_deps */
	CHAKRA_CHECK_CYCLE = 6,       /* a data-dependency cycle from this node (related: its length) */
	CHAKRA_CHECK_CYCLE_GROUP = 7, /* note: the cycle's group (related: its size) */
	CHAKRA_CHECK_NONCANON = 8,    /* deep: bytes a re-write would change */
	CHAKRA_CHECK_LIMIT = 9,       /* too many nodes or edges, or max_errors reached */
	CHAKRA_CHECK_NOMEM = 10,      /* memory ran out: the check stopped */
	CHAKRA_CHECK_DEEP_SKIPPED = 11, /* note: deep's encoding check needs a regular file */
	CHAKRA_CHECK_TOTALS = 12,     /* a summary line */
};

/* One finding. The pointers are valid during the callback only. */
typedef struct chakra_check_finding {
	int severity;        /* enum chakra_check_severity */
	int kind;            /* enum chakra_check_kind */
	int has_node;        /* node_index, node_id and offset say which node */
	uint32_t node_index; /* in file order, from 0 */
	uint64_t node_id;
	uint64_t offset;     /* where the node's message starts (uncompressed); for
	                      * CHAKRA_CHECK_READ where reading stopped */
	uint64_t related;    /* per kind, above */
	/* The line `chakra validate` prints: "NAME:OFFSET: node ID: what" (NAME
	 * is the path, "<stdin>" for "-"), no newline. */
	const char *text;
} chakra_check_finding;

typedef void (*chakra_check_cb)(void *data, const chakra_check_finding *f);

/* The counts are exact, whatever was reported. */
typedef struct chakra_check_result {
	uint64_t nodes, errors, warnings;
	uint64_t dup_ids, data_absent, data_self, cycles;
	uint64_t ctrl_absent_refs, ctrl_absent_ids, ctrl_self;
	uint64_t noncanon;      /* deep: nodes whose bytes re-encoding would change */
	int read_failed;        /* framing/decoding stopped the pass */
	int stopped;            /* max_errors reached while reading: the rest unread */
	uint64_t errors_hidden; /* errors counted but not reported (max_errors) */
} chakra_check_result;

/* Check the trace at path ("-": stdin). cb (may be NULL) receives every
 * finding reported; res (may be NULL) the counts. Returns 0 when no error
 * was found, 1 otherwise, CHAKRA_ENOMEM when memory ran out (reported as a
 * finding too) or CHAKRA_EINVAL for bad options. */
CHAKRA_EXPERIMENTAL_API int chakra_check_trace(const char *path, const chakra_check_options *opts,
                                               chakra_check_cb cb, void *data,
                                               chakra_check_result *res);

#ifdef __cplusplus
}
#endif

#endif
