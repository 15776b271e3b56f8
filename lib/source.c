/* SPDX-License-Identifier: Apache-2.0 */
/* Input sources and their gzip layer (source.h). */
#include "source.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "chakra/error.h"

#ifdef CHAKRA__SOURCE_STANDALONE
#include "modmem.h"
#define chakra__malloc chakra_malloc
#define chakra__free chakra_free
#define chakra__zalloc chakra__mzalloc
#define chakra__zfree chakra__mzfree
#define SRC_ERRMSG_MAX 1024
static int chakra__errf(char *dst, int code, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;
static int chakra__errf(char *dst, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(dst, SRC_ERRMSG_MAX, fmt, ap);
	va_end(ap);
	return code;
}
#else
#include "util.h"
#endif

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
