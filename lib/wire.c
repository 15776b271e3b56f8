/* SPDX-License-Identifier: Apache-2.0 */
#include "wire.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chakra/error.h"

int chakra__wire_skip(const uint8_t **p, const uint8_t *end, unsigned wt)
{
	uint64_t v;
	switch (wt) {
	case WT_VARINT:
		return wire_varint(p, end, &v);
	case WT_I64:
		if (end - *p < 8)
			return -1;
		*p += 8;
		return 0;
	case WT_I32:
		if (end - *p < 4)
			return -1;
		*p += 4;
		return 0;
	case WT_LEN:
		if (wire_varint(p, end, &v) || v > (uint64_t)(end - *p))
			return -1;
		*p += v;
		return 0;
	default: /* groups are not used by proto3 and are rejected */
		return -1;
	}
}

/* ---- framing ---- */

/* An error of the framer at stream offset off (flags as src_err). */
static int fr_err(framer *fr, uint64_t off, unsigned flags, int code)
{
	fr->err_off = off;
	fr->err_flags = flags;
	return code;
}

#define FRAME_CHUNK (1024 * 1024)
/* A callback's first buffer: a caller that hands over a few KiB at a time
 * (chakra sim: 4 KiB per rank at 16,384 ranks) never gets a 1 MiB buffer
 * per stream; one that fills each read gets larger ones (framer.chunk). */
#define FRAME_CB_START 4096

void chakra__framer_init(framer *fr, const char *name, uint64_t max_msg)
{
	fr->name = name;
	fr->max_msg = max_msg ? max_msg : CHAKRA_DEFAULT_MAX_MESSAGE;
	memset(&fr->buf, 0, sizeof fr->buf);
	fr->data = NULL;
	fr->pos = fr->end = 0;
	fr->base = 0;
	fr->eof = 0;
	fr->zero_copy = 0;
	fr->keep = NULL;
	fr->moved = NULL;
	fr->hook = NULL;
	fr->err_off = 0;
	fr->err_flags = 0;
	fr->chunk = fr->src.kind == SRC_CB ? FRAME_CB_START : FRAME_CHUNK;
	if (chakra__source_is_plain_mem(&fr->src)) {
		fr->zero_copy = 1;
		fr->data = fr->src.mem;
		fr->end = fr->src.mem_len;
		fr->eof = 1;
	}
}

/* Make at least `need` unconsumed bytes available; returns 1 if they are,
 * 0 if the input ended first, negative on error. Buffers grow only as data
 * really arrives, so a huge declared length never becomes an allocation. */
static int fill(framer *fr, size_t need, char *err)
{
	while (fr->end - fr->pos < need) {
		if (fr->eof)
			return 0;
		size_t drop = fr->pos;
		if (fr->keep) {
			uint64_t k = fr->keep(fr->hook); /* (never below base: kept bytes stay) */
			if (k < fr->base + drop)
				drop = (size_t)(k - fr->base);
		}
		int moved = 0;
		if (drop > 0) { /* compact */
			memmove(fr->buf.p, fr->buf.p + drop, fr->end - drop);
			fr->base += drop;
			fr->end -= drop;
			fr->pos -= drop;
			moved = 1;
		}
		/* Room for a read; with kept bytes (pos of them), at least as
		 * much again, so that each byte read is moved about once. */
		size_t room = fr->buf.cap - fr->end;
		if (room < fr->chunk / 4 || (fr->keep && room < fr->pos)) {
			size_t want = fr->buf.cap ? fr->buf.cap * 2 : fr->chunk;
			uintptr_t old = (uintptr_t)fr->buf.p;
			if (chakra__cbuf_reserve(&fr->buf, want))
				return fr_err(fr, 0, 0,
				              chakra__errf(err, CHAKRA_ENOMEM, "%s: out of memory", fr->name));
			moved |= (uintptr_t)fr->buf.p != old;
		}
		fr->data = fr->buf.p;
		if (moved && fr->moved)
			fr->moved(fr->hook);
		size_t ask = fr->buf.cap - fr->end;
		long n = chakra__source_read(&fr->src, fr->buf.p + fr->end, ask, fr->name, err);
		if (n < 0)
			return fr_err(fr, fr->src.err_off, fr->src.err_flags, (int)n);
		if (n == 0)
			fr->eof = 1;
		if ((size_t)n == ask && fr->chunk < FRAME_CHUNK) /* (it had more to give) */
			fr->chunk *= 2;
		fr->end += (size_t)n;
	}
	return 1;
}

int chakra__framer_next_slow(framer *fr, const uint8_t **msg, size_t *len, uint64_t *offset, char *err)
{
	uint64_t off = fr->base + fr->pos;
	/* Length prefix: up to 10 bytes. */
	int rc = fill(fr, 10, err);
	if (rc < 0)
		return rc;
	if (fr->pos == fr->end)
		return 0;
	const uint8_t *p = fr->data + fr->pos, *e = fr->data + fr->end;
	uint64_t L;
	if (wire_varint(&p, e, &L)) {
		if (fr->end - fr->pos >= 10) /* fill() gave 10 bytes: not a truncation */
			return fr_err(fr, off, CHAKRA_ERRINFO_OFFSET, chakra__errf(err, CHAKRA_ECORRUPT,
			                    "%s: byte %llu: malformed length prefix (varint longer than "
			                    "10 bytes)",
			                    fr->name, (unsigned long long)off));
		return fr_err(fr, off, CHAKRA_ERRINFO_OFFSET, chakra__errf(err, CHAKRA_ETRUNC,
		                    "%s: byte %llu: file ends inside a length prefix (%zu byte(s) left)",
		                    fr->name, (unsigned long long)off, fr->end - fr->pos));
	}
	size_t hdr = (size_t)(p - (fr->data + fr->pos));
	if (L > fr->max_msg)
		return fr_err(fr, off, CHAKRA_ERRINFO_OFFSET, chakra__errf(err, CHAKRA_ETOOBIG,
		                    "%s: byte %llu: length prefix %llu exceeds the maximum message "
		                    "size %llu",
		                    fr->name, (unsigned long long)off, (unsigned long long)L,
		                    (unsigned long long)fr->max_msg));
	rc = fill(fr, hdr + (size_t)L, err);
	if (rc < 0)
		return rc;
	if (rc == 0)
		return fr_err(fr, off, CHAKRA_ERRINFO_OFFSET, chakra__errf(err, CHAKRA_ETRUNC,
		                    "%s: byte %llu: message declares %llu bytes but only %zu remain "
		                    "(truncated file)",
		                    fr->name, (unsigned long long)off, (unsigned long long)L,
		                    fr->end - fr->pos - hdr));
	*msg = fr->data + fr->pos + hdr;
	*len = (size_t)L;
	*offset = off;
	fr->pos += hdr + (size_t)L;
	return 1;
}

void chakra__framer_free(framer *fr)
{
	chakra__cbuf_free(&fr->buf);
	chakra__source_close(&fr->src);
}
