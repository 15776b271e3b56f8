/* SPDX-License-Identifier: Apache-2.0 */
/* Internal node model: the decoded form behind chakra_node / chakra_attr /
 * chakra_metadata views, and the single-pass walker that fills it. */
#ifndef CHAKRA_NODE_IMPL_H
#define CHAKRA_NODE_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "chakra/node.h"
#include "util.h"

typedef struct cstr {
	const char *s; /* NUL-terminated */
	size_t len;
} cstr;

/* decode.c resets every field of chakra_attr and node_full one by one
 * (attr_clear, full_clear): keep those in step with these structs. */
struct chakra_attr {
	cstr name, doc;
	int kind;      /* chakra_attr_kind */
	uint64_t u;    /* integer scalars: value bits, sign-extended for signed kinds */
	double d;      /* double / float scalars */
	cstr s;        /* string / bytes scalars */
	size_t n;      /* list length */
	uint64_t *lu;  /* integer and bool lists */
	double *ld;    /* double / float lists */
	cstr *ls;      /* string / bytes lists */
};

/* Everything of a Node but its id, fully decoded. */
typedef struct node_full {
	cstr name;
	int type;
	uint64_t start, dur;
	uint64_t *data, *ctrl;
	size_t n_data, n_ctrl;
	int has_io[2];
	cstr io[2][3];
	chakra_attr *attrs;
	size_t n_attrs;
	size_t n_unknown; /* fields not in the schema (skipped, not re-encoded) */
	size_t size;      /* bytes of the block holding it (feeder copies), else 0 */
} node_full;

struct chakra_node {
	uint64_t id, offset, index;
	const uint8_t *msg; /* raw message bytes, held by the producer */
	size_t len;
	node_full *full;    /* NULL until materialised */
	/* Producer hook that fills `full` on first access (feeder: lazy
	 * decoding). NULL when full is always set. */
	node_full *(*materialize)(chakra_node *n);
	void *owner;
};

struct chakra_metadata {
	cstr version;
	chakra_attr *attrs;
	size_t n_attrs;
	size_t n_unknown;
};

/* Reusable scratch space for the walker (no allocation once warm). */
typedef struct walk_scratch {
	cbuf data, ctrl, attrs;
	/* Budget for one node's decoded form (0 = none): the scratch arrays
	 * plus the arena's bytes; past it the walk fails with CHAKRA_ETOOBIG
	 * ("over" set). The reader sets it from max_node_memory. */
	uint64_t limit;
	int over;
} walk_scratch;
void chakra__walk_scratch_free(walk_scratch *w);

/* Decode a Node message. With full != NULL every field is decoded into it
 * (strings and arrays in arena a); with full == NULL the message is only
 * validated and its id and deps left in scratch (scan mode: the feeder's
 * fast path). base = stream offset of msg[0], for error messages; err
 * gets "byte N: what" on failure (returns CHAKRA_ECORRUPT). */
int chakra__node_walk(const uint8_t *msg, size_t len, uint64_t base, uint64_t *id,
              node_full *full, arena *a, walk_scratch *ws, char *err);
/* Scan results (valid until the next walk with the same scratch). */
static inline const uint64_t *walk_data(const walk_scratch *w) { return (const uint64_t *)w->data.p; }
static inline size_t walk_n_data(const walk_scratch *w) { return w->data.len / 8; }
static inline const uint64_t *walk_ctrl(const walk_scratch *w) { return (const uint64_t *)w->ctrl.p; }
static inline size_t walk_n_ctrl(const walk_scratch *w) { return w->ctrl.len / 8; }

int chakra__metadata_walk(const uint8_t *msg, size_t len, uint64_t base, chakra_metadata *m, arena *a,
                  walk_scratch *ws, char *err);

/* Kind classification. */
int chakra__attr_kind_is_signed(int kind);     /* scalar or list kind */
int chakra__attr_kind_scalar(int kind);        /* list kind -> its scalar kind */

#endif
