/* SPDX-License-Identifier: Apache-2.0 */
/* Feeding YAJL from a gzip or plain file, or from memory, in chunks; syntax
 * errors become messages with the byte offset and the unit (node/event)
 * being read. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "cv.h"

#define CHUNK (256 * 1024)

int chakra__cv_jfail(cv_jctx *c, int code, const char *fmt, ...)
{
	char what[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	/* inside a callback the parser's count is its position in the chunk */
	int64_t off = c->chunk_base + (c->h ? (int64_t)yajl_get_bytes_consumed(c->h) : 0);
	chakra__cv_fail(c->err, code, c->name, c->unit, c->index, off, "%s", what);
	return 0;
}

int chakra__cv_json_raw_begin(cv_jctx *c, cv_buf *dst)
{
	size_t at = (size_t)yajl_get_bytes_consumed(c->h);
	dst->len = 0;
	c->raw = dst;
	c->raw_from = at ? at - 1 : 0; /* the opening bracket was just read */
	return 0;
}

int chakra__cv_json_raw_end(cv_jctx *c)
{
	cv_buf *dst = c->raw;
	c->raw = NULL;
	if (!dst)
		return 0;
	size_t at = (size_t)yajl_get_bytes_consumed(c->h);
	return at >= c->raw_from ? chakra__cv_buf_add(dst, c->chunk + c->raw_from, at - c->raw_from) : 0;
}

/* yajl_parse (or, p NULL, yajl_complete_parse) with its allocations
 * guarded: a failure jumps back here and sets c->oom. */
static yajl_status parse(yajl_handle h, cv_jctx *c, const unsigned char *p, size_t n)
{
	if (setjmp(c->jg->fail)) {
		c->oom = 1;
		return yajl_status_error;
	}
	return p ? yajl_parse(h, p, n) : yajl_complete_parse(h);
}

/* YAJL's message for the error just seen, one line, in msg. */
static void syntax_msg(yajl_handle h, cv_jctx *c, const unsigned char *p, size_t n, char *msg,
                       size_t cap)
{
	snprintf(msg, cap, "JSON syntax error");
	if (setjmp(c->jg->fail)) {
		c->oom = 1;
		return;
	}
	unsigned char *e = yajl_get_error(h, 0, p, n);
	if (e) {
		snprintf(msg, cap, "%s", (const char *)e);
		yajl_free_error(h, e);
	}
	size_t m = strlen(msg);
	while (m && (msg[m - 1] == '\n' || msg[m - 1] == ' '))
		msg[--m] = 0;
}

static int oom(cv_jctx *c)
{
	chakra__cv_fail(c->err, CHAKRA_ENOMEM, c->name, NULL, -1, -1, "out of memory (JSON parser)");
	return -1;
}

/* One chunk to YAJL; 0, or -1 with the error set. */
static int feed(yajl_handle h, cv_jctx *c, const unsigned char *p, size_t n)
{
	c->chunk = p;
	yajl_status st = parse(h, c, p, n);
	if (c->oom)
		return oom(c);
	if (st == yajl_status_ok) {
		c->chunk_base += (int64_t)n;
		/* a raw copy running past the chunk continues in the next one */
		if (c->raw) {
			if (n > c->raw_from && chakra__cv_buf_add(c->raw, p + c->raw_from, n - c->raw_from) < 0) {
				chakra__cv_fail(c->err, CHAKRA_ENOMEM, c->name, NULL, -1, -1, "out of memory");
				return -1;
			}
			c->raw_from = 0;
		}
		return 0;
	}
	if (st == yajl_status_client_canceled) {
		if (!c->err->code)
			chakra__cv_jfail(c, CHAKRA_ECORRUPT, "conversion stopped");
		return -1;
	}
	int64_t off = c->chunk_base + (int64_t)yajl_get_bytes_consumed(h);
	char msg[256];
	syntax_msg(h, c, p, n, msg, sizeof msg);
	if (c->oom)
		return oom(c);
	chakra__cv_fail(c->err, CHAKRA_ECORRUPT, c->name, c->unit, c->index, off,
	                "not valid JSON: %s", msg);
	return -1;
}

static int finish(yajl_handle h, cv_jctx *c)
{
	yajl_status st = parse(h, c, NULL, 0);
	if (c->oom)
		return oom(c);
	if (st == yajl_status_ok)
		return 0;
	if (st == yajl_status_client_canceled) {
		if (!c->err->code)
			chakra__cv_jfail(c, CHAKRA_ECORRUPT, "conversion stopped");
		return -1;
	}
	char msg[256];
	syntax_msg(h, c, NULL, 0, msg, sizeof msg);
	if (c->oom)
		return oom(c);
	chakra__cv_fail(c->err, CHAKRA_ETRUNC, c->name, c->unit, c->index, c->chunk_base,
	                "the JSON ends early (truncated file?): %s", msg);
	return -1;
}

/* The input, from memory or a file, in chunks. */
typedef struct src_in {
	const unsigned char *mem;  /* memory: all of it */
	size_t mem_len, mem_off;
	FILE *f;                   /* else a file */
	unsigned char *buf;
	int err;                   /* errno of a failed read */
} src_in;

/* The next chunk: *n = 0 at the end (or on a read error: in->err). */
static void pull(src_in *in, const unsigned char **p, size_t *n)
{
	if (in->mem) {
		size_t k = in->mem_len - in->mem_off;
		*p = in->mem + in->mem_off;
		*n = k < CHUNK ? k : CHUNK;
		in->mem_off += *n;
		return;
	}
	size_t r = fread(in->buf, 1, CHUNK, in->f);
	if (!r && ferror(in->f))
		in->err = errno ? errno : EIO;
	*p = in->buf;
	*n = r;
}

/* A gzip input: every member in turn (concatenated gzip); anything else
 * after a member is an error at the byte where it starts, as the core
 * reader says it (zlib's gzread and a single inflate both ignored it). */
static int run_gzip(yajl_handle h, cv_jctx *c, src_in *in, const unsigned char *p, size_t n)
{
	z_stream z;
	memset(&z, 0, sizeof z);
	z.zalloc = chakra__mzalloc;
	z.zfree = chakra__mzfree;
	unsigned char *out = chakra_malloc(CHUNK);
	if (!out || inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
		chakra_free(out);
		return chakra__cv_fail(c->err, CHAKRA_ENOMEM, c->name, NULL, -1, -1, "out of memory"),
		       -1;
	}
	uint64_t base = 0; /* compressed offset of p[0] */
	int rc = 0, ended = 0;
	z.next_in = (unsigned char *)p;
	z.avail_in = (uInt)n;
	for (;;) {
		if (!z.avail_in) {
			base += n;
			pull(in, &p, &n);
			z.next_in = (unsigned char *)p;
			z.avail_in = (uInt)n;
			if (!n)
				break;
		}
		if (ended) {
			/* after a member: another one, or garbage */
			uint64_t at = base + (uint64_t)(z.next_in - p);
			unsigned char m0 = z.next_in[0], m1 = 0;
			int have1 = z.avail_in > 1;
			if (have1)
				m1 = z.next_in[1];
			else if (m0 == 0x1f) {
				/* the magic may go on in the next chunk */
				base += n;
				pull(in, &p, &n);
				if (n) {
					m1 = p[0];
					have1 = 1;
				}
				if (have1 && m1 == 0x8b) {
					if (inflateReset(&z) != Z_OK) {
						rc = chakra__cv_fail(c->err, CHAKRA_ENOMEM, c->name, NULL, -1, -1,
						                     "out of memory");
						break;
					}
					/* the member's first byte, read with the last chunk: into
					 * the header first (no output from one byte) */
					static const unsigned char magic0 = 0x1f;
					z.next_in = (unsigned char *)&magic0;
					z.avail_in = 1;
					z.next_out = out;
					z.avail_out = CHUNK;
					if (inflate(&z, Z_NO_FLUSH) == Z_MEM_ERROR) {
						rc = chakra__cv_fail(c->err, CHAKRA_ENOMEM, c->name, NULL, -1, -1,
						                     "out of memory");
						break;
					}
					z.next_in = (unsigned char *)p;
					z.avail_in = (uInt)n;
					ended = 0;
					continue;
				}
			}
			if (m0 != 0x1f || !have1 || m1 != 0x8b) {
				rc = chakra__cv_fail(c->err, CHAKRA_EGZIP, c->name, NULL, -1, -1,
				                     "compressed byte %llu: garbage after gzip stream (not "
				                     "another gzip member)", (unsigned long long)at);
				break;
			}
			if (inflateReset(&z) != Z_OK) {
				rc = chakra__cv_fail(c->err, CHAKRA_ENOMEM, c->name, NULL, -1, -1,
				                     "out of memory");
				break;
			}
			ended = 0;
		}
		z.next_out = out;
		z.avail_out = CHUNK;
		int zr = inflate(&z, Z_NO_FLUSH);
		if (zr == Z_MEM_ERROR) {
			rc = chakra__cv_fail(c->err, CHAKRA_ENOMEM, c->name, NULL, -1, -1, "out of memory");
			break;
		}
		if (zr != Z_OK && zr != Z_STREAM_END && !(zr == Z_BUF_ERROR && !z.avail_in)) {
			rc = chakra__cv_fail(c->err, CHAKRA_EGZIP, c->name, NULL, -1, c->chunk_base,
			                     "gzip data is damaged (%s)", z.msg ? z.msg : "inflate failed");
			break;
		}
		if (feed(h, c, out, CHUNK - z.avail_out) < 0) {
			rc = -1;
			break;
		}
		if (zr == Z_STREAM_END)
			ended = 1;
	}
	if (rc == 0 && in->err)
		rc = chakra__cv_fail(c->err, CHAKRA_EIO, c->name, NULL, -1, -1, "read error: %s",
		                     strerror(in->err));
	else if (rc == 0 && !ended)
		rc = chakra__cv_fail(c->err, CHAKRA_EGZIP, c->name, NULL, -1, c->chunk_base,
		                     "gzip stream is truncated");
	inflateEnd(&z);
	chakra_free(out);
	return rc < 0 ? -1 : 0;
}

static int run_input(yajl_handle h, cv_jctx *c, src_in *in)
{
	const unsigned char *p;
	size_t n;
	pull(in, &p, &n);
	if (n >= 2 && p[0] == 0x1f && p[1] == 0x8b)
		return run_gzip(h, c, in, p, n);
	while (n) {
		if (feed(h, c, p, n) < 0)
			return -1;
		pull(in, &p, &n);
	}
	if (in->err)
		return chakra__cv_fail(c->err, CHAKRA_EIO, c->name, NULL, -1, -1, "read error: %s",
		                       strerror(in->err)), -1;
	return 0;
}

static int run_mem(yajl_handle h, cv_jctx *c, const unsigned char *p, size_t n)
{
	src_in in;
	memset(&in, 0, sizeof in);
	static const unsigned char none[1];
	in.mem = n ? p : none;
	in.mem_len = n;
	return run_input(h, c, &in);
}

static int run_file(yajl_handle h, cv_jctx *c, const char *path)
{
	struct stat st;
	if (strcmp(path, "-") && stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return chakra__cv_fail(c->err, CHAKRA_EIO, c->name, NULL, -1, -1, "is a directory"), -1;
	src_in in;
	memset(&in, 0, sizeof in);
	in.f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	if (!in.f)
		return chakra__cv_fail(c->err, CHAKRA_EIO, c->name, NULL, -1, -1,
		                       errno == ENOENT ? "no such file or directory" : "cannot open: %s",
		                       strerror(errno ? errno : ENOMEM)), -1;
	in.buf = chakra_malloc(CHUNK);
	int rc = in.buf ? run_input(h, c, &in)
	                : (chakra__cv_fail(c->err, CHAKRA_ENOMEM, c->name, NULL, -1, -1,
	                                   "out of memory"), -1);
	chakra_free(in.buf);
	if (in.f != stdin)
		fclose(in.f);
	return rc;
}

int chakra__cv_json_run(const cv_json_src *src, const yajl_callbacks *cb, cv_jctx *c)
{
	c->name = src->name ? src->name : src->path ? src->path : "(memory)";
	c->index = -1;
	c->chunk_base = 0;
	c->depth = 0;
	c->oom = 0;
	c->jg = chakra__jg_new();
	if (!c->jg || setjmp(c->jg->fail)) {
		chakra__jg_release(c->jg);
		c->jg = NULL;
		return chakra__cv_fail(c->err, CHAKRA_ENOMEM, c->name, NULL, -1, -1, "out of memory");
	}
	yajl_handle h = yajl_alloc(cb, &c->jg->funcs, c);
	c->h = h;
	int rc = src->buf ? run_mem(h, c, src->buf, src->len) : run_file(h, c, src->path);
	if (rc == 0)
		rc = finish(h, c);
	if (c->oom) {
		chakra__jg_release(c->jg); /* YAJL's state is not to be trusted */
	} else {
		yajl_free(h);
		chakra__jg_free(c->jg);
	}
	c->jg = NULL;
	c->h = NULL;
	if (rc < 0)
		return c->err->code ? c->err->code : CHAKRA_ECORRUPT;
	return 0;
}
