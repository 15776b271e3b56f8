/* SPDX-License-Identifier: Apache-2.0 */
/* Feeding YAJL from a gzip or plain file, or from memory, in chunks (the
 * core's input source); syntax errors become messages with the byte offset
 * and the unit (node/event) being read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cv.h"
#include "source.h"

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

/* The core's input source (source.h): a file or memory, plain or gzip
 * (concatenated members), in chunks; its errors name the byte. */
static int src_fail(cv_jctx *c, long code, const char *msg)
{
	/* the source's message starts with the name it was given */
	size_t nl = strlen(c->name);
	if (!strncmp(msg, c->name, nl) && msg[nl] == ':' && msg[nl + 1] == ' ')
		msg += nl + 2;
	chakra__cv_fail(c->err, (int)code, c->name, NULL, -1, -1, "%s", msg);
	return -1;
}

static int run_source(yajl_handle h, cv_jctx *c, const cv_json_src *src)
{
	source in;
	char msg[1024];
	if (src->buf) {
		static const unsigned char none[1];
		chakra__source_open_mem(&in, src->len ? src->buf : none, src->len);
	} else {
		int rc = chakra__source_open_path(&in, src->path, msg);
		if (rc < 0)
			return src_fail(c, rc, msg);
	}
	unsigned char *buf = chakra_malloc(CHUNK);
	int rc = 0;
	if (!buf) {
		chakra__cv_fail(c->err, CHAKRA_ENOMEM, c->name, NULL, -1, -1, "out of memory");
		rc = -1;
	}
	while (!rc) {
		long n = chakra__source_read(&in, buf, CHUNK, c->name, msg);
		if (n < 0)
			rc = src_fail(c, n, msg);
		else if (n == 0)
			break;
		else if (feed(h, c, buf, (size_t)n) < 0)
			rc = -1;
	}
	chakra__source_close(&in);
	chakra_free(buf);
	return rc;
}

/* YAJL's callbacks, one set for every format: the ctx is the format's,
 * which starts with its cv_jctx. */
static int y_null(void *p)
{
	return ((cv_jctx *)p)->fmt->scalar(p, 'z', "null", 4);
}

static int y_bool(void *p, int v)
{
	return ((cv_jctx *)p)->fmt->scalar(p, 'b', v ? "true" : "false", v ? 4 : 5);
}

static int y_number(void *p, const char *s, size_t n)
{
	return ((cv_jctx *)p)->fmt->scalar(p, 'n', s, n);
}

static int y_string(void *p, const unsigned char *s, size_t n)
{
	return ((cv_jctx *)p)->fmt->scalar(p, 's', (const char *)s, n);
}

static int y_key(void *p, const unsigned char *s, size_t n)
{
	return ((cv_jctx *)p)->fmt->key(p, (const char *)s, n);
}

static int y_start_map(void *p)
{
	return ((cv_jctx *)p)->fmt->open(p, 1);
}

static int y_end_map(void *p)
{
	return ((cv_jctx *)p)->fmt->close(p, 1);
}

static int y_start_array(void *p)
{
	return ((cv_jctx *)p)->fmt->open(p, 0);
}

static int y_end_array(void *p)
{
	return ((cv_jctx *)p)->fmt->close(p, 0);
}

static const yajl_callbacks y_callbacks = {
	y_null, y_bool, NULL, NULL, y_number, y_string,
	y_start_map, y_key, y_end_map, y_start_array, y_end_array
};

int chakra__cv_json_run(const cv_json_src *src, const cv_jfmt *fmt, cv_jctx *c)
{
	c->fmt = fmt;
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
	yajl_handle h = yajl_alloc(&y_callbacks, &c->jg->funcs, c);
	c->h = h;
	int rc = run_source(h, c, src);
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
