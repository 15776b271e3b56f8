/* SPDX-License-Identifier: Apache-2.0 */
/* Internal wire layer: length-prefix framing with byte offsets over an
 * input source (source.h), and protobuf varint primitives. Knows nothing
 * about Chakra messages. */
#ifndef CHAKRA_WIRE_H
#define CHAKRA_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <zlib.h>

#include "chakra/error.h"
#include "chakra/reader.h"
#include "util.h"
#include "source.h"

#define CHAKRA_DEFAULT_MAX_MESSAGE ((uint64_t)256 << 20)
/* Default budget for one decoded node (reader option max_node_memory). */
#define CHAKRA_DEFAULT_MAX_NODE_MEMORY ((uint64_t)256 << 20)

/* Protobuf wire types. */
enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2, WT_SGROUP = 3, WT_EGROUP = 4, WT_I32 = 5 };

/* Decode a varint from [*p, end): advances *p; returns 0, or -1 when the
 * input ends inside it or it is longer than 10 bytes. */
static inline int wire_varint(const uint8_t **p, const uint8_t *end, uint64_t *out)
{
	const uint8_t *q = *p;
	if (q < end && *q < 0x80) { /* fast path: one byte */
		*out = *q;
		*p = q + 1;
		return 0;
	}
	uint64_t v = 0;
	for (unsigned shift = 0; shift < 70; shift += 7) {
		if (q >= end)
			return -1;
		uint8_t b = *q++;
		if (shift == 63 && b > 1)
			return -1; /* overflows 64 bits */
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*out = v;
			*p = q;
			return 0;
		}
	}
	return -1;
}

/* Encode v at dst (needs 10 bytes); returns bytes written. */
static inline size_t wire_put_varint(uint8_t *dst, uint64_t v)
{
	size_t n = 0;
	while (v >= 0x80) {
		dst[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	dst[n++] = (uint8_t)v;
	return n;
}

static inline size_t wire_varint_size(uint64_t v)
{
	size_t n = 1;
	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

/* Skip one field's payload of the given wire type; 0 or -1 (malformed). */
int chakra__wire_skip(const uint8_t **p, const uint8_t *end, unsigned wt);

/* ---- Framing ---- */
typedef struct framer {
	source src;
	const char *name;      /* for messages */
	uint64_t max_msg;
	cbuf buf;              /* owned buffer (unused in zero-copy mode) */
	const uint8_t *data;   /* buf.p, or the caller's memory */
	size_t pos, end;       /* unconsumed bytes are data[pos, end) */
	uint64_t base;         /* stream offset of data[0] */
	int eof, zero_copy;
	size_t chunk;          /* the buffer's first size and the room kept for a read */
	/* Optional, for an owner that reads ahead and keeps messages where
	 * the framer put them (the feeder): bytes from stream offset
	 * keep(hook) on survive compaction, and moved(hook) is called after
	 * data moved (compaction or growth), before the next read. */
	uint64_t (*keep)(void *hook);
	void (*moved)(void *hook);
	void *hook;
	/* The last error's position, as in source (the source's own, or the
	 * offset of a bad length prefix or truncated message). */
	uint64_t err_off;
	unsigned err_flags;
} framer;

void chakra__framer_init(framer *fr, const char *name, uint64_t max_msg);
/* Next message: 1 with msg, len and offset (of its length prefix) set,
 * 0 at a clean end, or a negative chakra_error with the message in err.
 * The bytes stay valid until the next call (with keep: until dropped,
 * at the address data + their offset - base). */
int chakra__framer_next_slow(framer *fr, const uint8_t **msg, size_t *len, uint64_t *offset, char *err);
static inline int framer_next(framer *fr, const uint8_t **msg, size_t *len, uint64_t *offset,
                              char *err)
{
	/* Fast path (inline, no call): a one- or two-byte length prefix and
	 * the whole message already buffered, within the size limit. Same
	 * result as the general path, which handles everything else. */
	size_t avail = fr->end - fr->pos;
	if (avail >= 2) { /* data is NULL before the first fill: no pointer math then */
		const uint8_t *p = fr->data + fr->pos;
		size_t L, hdr;
		if (p[0] < 0x80) {
			L = p[0];
			hdr = 1;
		} else if (p[1] < 0x80) {
			L = (size_t)(p[0] & 0x7f) | (size_t)p[1] << 7;
			hdr = 2;
		} else {
			return chakra__framer_next_slow(fr, msg, len, offset, err);
		}
		if (L <= avail - hdr && L <= fr->max_msg) {
			*msg = p + hdr;
			*len = L;
			*offset = fr->base + fr->pos;
			fr->pos += hdr + L;
			return 1;
		}
	}
	return chakra__framer_next_slow(fr, msg, len, offset, err);
}
/* Offset where the next message starts. */
static inline uint64_t framer_offset(const framer *fr) { return fr->base + fr->pos; }
void chakra__framer_free(framer *fr);

#endif
