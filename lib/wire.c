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

/* ---- sources ---- */

/* Record where an error happened (flags: CHAKRA_ERRINFO_*), return code. */
static int src_err(source *s, uint64_t off, unsigned flags, int code)
{
	s->err_off = off;
	s->err_flags = flags;
	return code;
}

#define RAW_POS(s) (CHAKRA_ERRINFO_OFFSET | ((s)->gz ? CHAKRA_ERRINFO_COMPRESSED : 0u))
#define GZ_POS (CHAKRA_ERRINFO_OFFSET | CHAKRA_ERRINFO_COMPRESSED)

int chakra__source_open_path(source *s, const char *path, char *err)
{
	memset(s, 0, sizeof *s);
	s->kind = SRC_FD;
	if (!strcmp(path, "-")) {
		s->fd = 0;
		return 0;
	}
	s->fd = open(path, O_RDONLY | O_CLOEXEC);
	/* the wording every command uses: "no such file or directory", "is a
	 * directory" (a directory opens, then fails to read) */
	if (s->fd < 0)
		return src_err(s, 0, 0,
		               chakra__errf(err, CHAKRA_EIO, errno == ENOENT ? "%s: no such file or "
		                            "directory" : "%s: cannot open: %s", path, strerror(errno)));
	struct stat st;
	if (fstat(s->fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		close(s->fd);
		s->fd = -1;
		return src_err(s, 0, 0, chakra__errf(err, CHAKRA_EIO, "%s: is a directory", path));
	}
	s->own_fd = 1;
	return 0;
}

void chakra__source_open_mem(source *s, const void *buf, size_t len)
{
	memset(s, 0, sizeof *s);
	s->kind = SRC_MEM;
	s->mem = (const uint8_t *)buf;
	s->mem_len = len;
}

void chakra__source_open_cb(source *s, chakra_read_cb cb, void *data)
{
	memset(s, 0, sizeof *s);
	s->kind = SRC_CB;
	s->cb = cb;
	s->cbdata = data;
}

/* Raw bytes from the underlying input. */
static long raw_read(source *s, void *buf, size_t cap, const char *name, char *err)
{
	long n;
	switch (s->kind) {
	case SRC_FD:
		do
			n = read(s->fd, buf, cap);
		while (n < 0 && errno == EINTR);
		if (n < 0)
			return src_err(s, s->raw_read, RAW_POS(s),
			               chakra__errf(err, CHAKRA_EIO, "%s: byte %llu: read failed: %s", name,
			                            (unsigned long long)s->raw_read, strerror(errno)));
		break;
	case SRC_MEM:
		n = (long)(s->mem_len - s->mem_pos < cap ? s->mem_len - s->mem_pos : cap);
		memcpy(buf, s->mem + s->mem_pos, (size_t)n);
		s->mem_pos += (size_t)n;
		break;
	default:
		n = s->cb(s->cbdata, buf, cap);
		if (n < 0 || (size_t)n > cap)
			return src_err(s, s->raw_read, RAW_POS(s),
			               chakra__errf(err, CHAKRA_EIO, "%s: byte %llu: read callback failed (%ld)",
			                            name, (unsigned long long)s->raw_read, n));
	}
	s->raw_read += (uint64_t)n;
	return n;
}

int chakra__source_is_plain_mem(source *s)
{
	return s->kind == SRC_MEM &&
	       !(s->mem_len >= 2 && s->mem[0] == 0x1f && s->mem[1] == 0x8b);
}

#define ZIN_SIZE (256 * 1024)

/* Look at the first two bytes to decide between plain and gzip. */
static int probe(source *s, const char *name, char *err)
{
	while (s->probe_len < 2) {
		long n = raw_read(s, s->probe + s->probe_len, 2 - s->probe_len, name, err);
		if (n < 0)
			return (int)n;
		if (n == 0)
			break;
		s->probe_len += (size_t)n;
	}
	if (s->probe_len == 2 && s->probe[0] == 0x1f && s->probe[1] == 0x8b) {
		if (!s->zin)
			s->zin = (uint8_t *)chakra__malloc(ZIN_SIZE);
		if (!s->zin)
			return src_err(s, 0, 0, chakra__errf(err, CHAKRA_ENOMEM, "%s: out of memory", name));
		s->zin_cap = ZIN_SIZE;
		memcpy(s->zin, s->probe, 2);
		s->zs.zalloc = chakra__zalloc;
		s->zs.zfree = chakra__zfree;
		s->zs.opaque = NULL;
		if (inflateInit2(&s->zs, 16 + MAX_WBITS) != Z_OK)
			return src_err(s, 0, 0,
			               chakra__errf(err, CHAKRA_ENOMEM, "%s: out of memory (gzip decoder)", name));
		s->zs.next_in = s->zin;
		s->zs.avail_in = 2;
		s->probe_pos = s->probe_len;
		s->gz = 1; /* (only now: source_close ends an inflate that started) */
	}
	s->probed = 1; /* (not before: a failed probe must not read as plain input) */
	return 0;
}

static int gz_garbage(source *s, const char *name, char *err)
{
	return src_err(s, s->gz_bad_at, GZ_POS,
	               chakra__errf(err, CHAKRA_EGZIP,
	                            "%s: compressed byte %llu: garbage after gzip stream (not another "
	                            "gzip member)",
	                            name, (unsigned long long)s->gz_bad_at));
}

/* At the end of a gzip member: 1 if another member follows (the input
 * holds its two magic bytes, read further if needed), 0 at the end of the
 * input, 2 if what follows is not a member (s->gz_bad_at says where), or a
 * negative read error. A single trailing byte is garbage, not a truncated
 * member. */
static int member_follows(source *s, const char *name, char *err)
{
	while (s->zs.avail_in < 2) {
		if (s->zs.avail_in == 1)
			s->zin[0] = s->zs.next_in[0];
		long n = raw_read(s, s->zin + s->zs.avail_in, s->zin_cap - s->zs.avail_in, name, err);
		if (n < 0)
			return (int)n;
		s->zs.next_in = s->zin;
		s->zs.avail_in += (uInt)n;
		if (n == 0)
			break;
	}
	if (s->zs.avail_in == 0)
		return 0;
	if (s->zs.avail_in >= 2 && s->zs.next_in[0] == 0x1f && s->zs.next_in[1] == 0x8b)
		return 1;
	s->gz_bad_at = s->raw_read - s->zs.avail_in;
	return 2;
}

long chakra__source_read(source *s, void *buf, size_t cap, const char *name, char *err)
{
	if (cap > (size_t)1 << 30)
		cap = (size_t)1 << 30;
	if (!s->probed) {
		int rc = probe(s, name, err);
		if (rc < 0)
			return rc;
	}
	if (!s->gz) {
		if (s->probe_pos < s->probe_len) {
			size_t n = s->probe_len - s->probe_pos;
			if (n > cap)
				n = cap;
			memcpy(buf, s->probe + s->probe_pos, n);
			s->probe_pos += n;
			return (long)n;
		}
		return raw_read(s, buf, cap, name, err);
	}
	if (s->gz_done)
		return 0;
	if (s->gz_bad)
		return gz_garbage(s, name, err);
	s->zs.next_out = (Bytef *)buf;
	s->zs.avail_out = (uInt)cap;
	while (s->zs.avail_out == cap) {
		if (s->zs.avail_in == 0) {
			long n = raw_read(s, s->zin, s->zin_cap, name, err);
			if (n < 0)
				return n;
			if (n == 0)
				return src_err(s, s->raw_read, GZ_POS,
				               chakra__errf(err, CHAKRA_EGZIP,
				                            "%s: compressed byte %llu: gzip stream ends early "
				                            "(truncated .gz file)",
				                            name, (unsigned long long)s->raw_read));
			s->zs.next_in = s->zin;
			s->zs.avail_in = (uInt)n;
		}
		int zr = inflate(&s->zs, Z_NO_FLUSH);
		if (zr == Z_STREAM_END) {
			/* Another member may follow (concatenated gzip); anything
			 * else is garbage, reported after the bytes decoded so far. */
			int more = member_follows(s, name, err);
			if (more < 0)
				return more;
			if (more == 0) {
				s->gz_done = 1;
				break;
			}
			if (more == 2) {
				s->gz_bad = 1;
				if (s->zs.avail_out != cap)
					break;
				return gz_garbage(s, name, err);
			}
			inflateReset(&s->zs);
		} else if (zr == Z_MEM_ERROR) {
			return src_err(s, 0, 0,
			               chakra__errf(err, CHAKRA_ENOMEM, "%s: out of memory (gzip decoder)", name));
		} else if (zr != Z_OK && zr != Z_BUF_ERROR) {
			return src_err(s, s->raw_read - s->zs.avail_in, GZ_POS,
			               chakra__errf(err, CHAKRA_EGZIP,
			                            "%s: compressed byte %llu: bad gzip data: %s", name,
			                            (unsigned long long)(s->raw_read - s->zs.avail_in),
			                            s->zs.msg ? s->zs.msg : "inflate failed"));
		}
	}
	return (long)(cap - s->zs.avail_out);
}

void chakra__source_close(source *s)
{
	if (s->gz)
		inflateEnd(&s->zs);
	chakra__free(s->zin);
	s->zin = NULL;
	if (s->own_fd)
		close(s->fd);
	s->own_fd = 0;
	s->gz = 0;
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
