/* SPDX-License-Identifier: Apache-2.0 */
/* Internal layout of chakra_builder, shared by builder.c and encode.c. */
#ifndef CHAKRA_BUILDER_IMPL_H
#define CHAKRA_BUILDER_IMPL_H

#include "chakra/writer.h"
#include "util.h"

/* Offsets into the builder's byte pool (not pointers: the pool grows). */
typedef struct span {
	size_t off, len;
} span;

typedef struct battr {
	span name, doc;
	int kind;
	uint64_t u;  /* integer scalars (bits) */
	double d;    /* floating scalars */
	span s;      /* string/bytes scalar */
	size_t n;    /* list length */
	size_t list; /* pool offset: uint64_t[n], double[n] or span[n] */
} battr;

struct chakra_builder {
	uint64_t id, start, dur;
	int type;
	span name;
	int has_io[2];
	span io[2][3];
	cbuf pool;         /* strings and list payloads */
	cbuf data, ctrl;   /* uint64_t arrays */
	cbuf attrs;        /* battr array */
};

static inline const uint8_t *pool_at(const chakra_builder *b, size_t off) { return b->pool.p + off; }

/* Encoded size of the Node / GlobalMetadata message (without the prefix)
 * and encoding into dst (which must hold that many bytes). */
size_t chakra__encode_node_size(const chakra_builder *b);
uint8_t *chakra__encode_node(const chakra_builder *b, uint8_t *dst);
size_t chakra__encode_metadata_size(const char *version, size_t vlen, const chakra_builder *attrs);
uint8_t *chakra__encode_metadata(const char *version, size_t vlen, const chakra_builder *attrs, uint8_t *dst);

#endif
