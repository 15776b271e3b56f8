/* SPDX-License-Identifier: Apache-2.0 */
/* The one YAJL streaming driver (internal to the modules): it feeds YAJL
 * from a file (plain or gzip), a reader or memory, guards its allocations
 * (jguard.h), and turns YAJL's eleven callbacks into a format's four
 * handlers. A format is its handlers and the state behind its ctx, which
 * starts with a chakra__json_ctx:
 *
 *   typedef struct my { chakra__json_ctx j; ...the format's fields } my;
 *   static const chakra__json_fmt fmt = { my_scalar, my_key, my_open, my_close };
 *   rc = chakra__json_run(&src, &fmt, my_fail, &m.j);
 *
 * The driver's own failures (bad JSON, a truncated input, a handler that
 * stopped, memory, the source) go to the format's fail function, which
 * words the message as that format always has. */
#ifndef CHAKRA_JSON_JDRIVE_H
#define CHAKRA_JSON_JDRIVE_H

#include <stddef.h>
#include <stdint.h>
#include <yajl/yajl_parse.h>

#include "chakra/reader.h"
#include "jguard.h"

/* Nesting the formats that keep a stack per level size it for. */
#define CHAKRA__JSON_MAX_DEPTH 256

/* The input: a file (path: plain or gzip, concatenated members), a reader
 * (rd), or memory (buf, len). name is the file name for messages. */
typedef struct chakra__json_src {
	const char *path, *name;
	const void *buf;
	size_t len;
	chakra_read_cb rd;      /* a reader instead of path and buf */
	void *rd_data;
	size_t chunk;           /* bytes a read (0: 256 KiB) */
	int whole;              /* memory in one piece to YAJL, not in chunks */
	int multiple;           /* values back to back (yajl_allow_multiple_values) */
	int raw_strings;        /* strings need not be UTF-8 (yajl_dont_validate_strings) */
	/* Each chunk YAJL took without an error (NULL: none wanted). */
	void (*parsed)(void *ctx, const unsigned char *p, size_t n);
} chakra__json_src;

/* A format's handlers (a scalar's kind: 'z' null, 'b' bool, 'n' number,
 * 's' string, with its text as written; a bool's text is "true" or
 * "false"). Each gets the format's ctx and returns 1 to go on, 0 to stop. */
typedef struct chakra__json_fmt {
	int (*scalar)(void *ctx, char kind, const char *s, size_t n);
	int (*key)(void *ctx, const char *s, size_t n);
	int (*open)(void *ctx, int is_map);
	int (*close)(void *ctx, int is_map);
} chakra__json_fmt;

/* What the driver tells the format's fail function. */
enum {
	CHAKRA__JSON_SYNTAX = 1, /* bad JSON inside a chunk (chakra__json_yajl_error) */
	CHAKRA__JSON_TRUNC,      /* bad at the end (yajl_complete_parse) */
	CHAKRA__JSON_STOPPED,    /* a handler returned 0 */
	CHAKRA__JSON_NOMEM_YAJL, /* YAJL's allocation failed: its state is dropped */
	CHAKRA__JSON_NOMEM,      /* the driver's own (setup, chunk buffer, raw copy) */
	CHAKRA__JSON_SOURCE      /* the source failed: code, and its message in msg */
};

typedef struct chakra__json_ctx chakra__json_ctx;
/* c->h is still the parser and c->chunk_base the offset of the chunk it
 * failed in (c->chunk: NULL at the end); msg is the source's message. */
typedef void (*chakra__json_fail_fn)(chakra__json_ctx *c, int what, int code, const char *msg);

struct chakra__json_ctx {
	const chakra__json_fmt *fmt; /* set by chakra__json_run */
	void *err;             /* the format's error record (the driver leaves it) */
	const char *name;      /* file name for messages */
	const char *unit;      /* what the format calls its items ("node", "event") */
	int64_t index;         /* the current item, -1 before the first */
	int64_t chunk_base;    /* byte offset of the chunk being parsed */
	yajl_handle h;         /* the parser (its position inside the chunk) */
	const unsigned char *chunk; /* the chunk being parsed (NULL at the end) */
	void *raw;             /* raw copy in progress (see _raw_begin) */
	int (*raw_put)(void *raw, const void *s, size_t n);
	size_t raw_from;       /* where it continues in the current chunk */
	int depth;             /* the format's to keep */
	chakra__jg *jg;        /* YAJL's allocator (jguard.h) */
	int oom;               /* it failed: YAJL's state is dropped */
};

/* Runs the parser to the end: 0, or -1 after the fail function. */
int chakra__json_run(const chakra__json_src *src, const chakra__json_fmt *fmt,
                     chakra__json_fail_fn fail, chakra__json_ctx *c);
/* From a fail function: YAJL's message for the error (as YAJL words it,
 * newline and all) in msg: 1, 0 when YAJL has none, -1 when its allocation
 * failed (YAJL's state is then dropped). */
int chakra__json_yajl_error(chakra__json_ctx *c, char *msg, size_t cap);
/* Copy the JSON text of the container just opened (call from its open
 * handler) through put(raw, ...), as written, until _raw_end (call from
 * its close handler); chunk boundaries are handled. 0 or -1 (put's). */
int chakra__json_raw_begin(chakra__json_ctx *c, void *raw, int (*put)(void *, const void *, size_t));
int chakra__json_raw_end(chakra__json_ctx *c);
/* Byte offset of the parser's position (in a handler: the token's end). */
static inline int64_t chakra__json_offset(const chakra__json_ctx *c)
{
	return c->chunk_base + (c->h ? (int64_t)yajl_get_bytes_consumed(c->h) : 0);
}

#endif
