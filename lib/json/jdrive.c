/* SPDX-License-Identifier: Apache-2.0 */
/* The one YAJL streaming driver (jdrive.h): YAJL fed from a gzip or plain
 * file, a reader or memory, in chunks, its allocations guarded; YAJL's
 * callbacks turned into a format's four handlers. */
#include "jdrive.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chakra/error.h"
#include "../modmem.h"
#include "../source.h"

#define CHUNK (256 * 1024)

int chakra__json_raw_begin(chakra__json_ctx *c, void *raw, int (*put)(void *, const void *, size_t))
{
	size_t at = (size_t)yajl_get_bytes_consumed(c->h);
	c->raw = raw;
	c->raw_put = put;
	c->raw_from = at ? at - 1 : 0; /* the opening bracket was just read */
	return 0;
}

int chakra__json_raw_end(chakra__json_ctx *c)
{
	void *dst = c->raw;
	c->raw = NULL;
	if (!dst)
		return 0;
	size_t at = (size_t)yajl_get_bytes_consumed(c->h);
	return at >= c->raw_from ? c->raw_put(dst, c->chunk + c->raw_from, at - c->raw_from) : 0;
}

/* yajl_parse (or, p NULL, yajl_complete_parse) with its allocations
 * guarded: a failure jumps back here and sets c->oom. */
static yajl_status parse(yajl_handle h, chakra__json_ctx *c, const unsigned char *p, size_t n)
{
	if (setjmp(c->jg->fail)) {
		c->oom = 1;
		return yajl_status_error;
	}
	return p ? yajl_parse(h, p, n) : yajl_complete_parse(h);
}

int chakra__json_yajl_error(chakra__json_ctx *c, char *msg, size_t cap)
{
	if (setjmp(c->jg->fail)) {
		c->oom = 1;
		return -1;
	}
	/* not verbose: YAJL reads no text */
	unsigned char *e = yajl_get_error(c->h, 0, NULL, 0);
	if (!e)
		return 0;
	snprintf(msg, cap, "%s", (const char *)e);
	yajl_free_error(c->h, e);
	return 1;
}

static int oom(chakra__json_fail_fn f, chakra__json_ctx *c)
{
	f(c, CHAKRA__JSON_NOMEM_YAJL, CHAKRA_ENOMEM, NULL);
	return -1;
}

/* One chunk to YAJL, or (p NULL) the end; 0, or -1 after the fail function. */
static int feed(yajl_handle h, chakra__json_fail_fn f, chakra__json_ctx *c,
                const chakra__json_src *src, const unsigned char *p, size_t n)
{
	c->chunk = p;
	yajl_status st = parse(h, c, p, n);
	if (c->oom)
		return oom(f, c);
	if (st == yajl_status_ok) {
		if (!p)
			return 0;
		c->chunk_base += (int64_t)n;
		if (src->parsed)
			src->parsed(c, p, n);
		/* a raw copy running past the chunk continues in the next one */
		if (c->raw) {
			if (n > c->raw_from && c->raw_put(c->raw, p + c->raw_from, n - c->raw_from) < 0) {
				f(c, CHAKRA__JSON_NOMEM, CHAKRA_ENOMEM, NULL);
				return -1;
			}
			c->raw_from = 0;
		}
		return 0;
	}
	if (st == yajl_status_client_canceled) {
		f(c, CHAKRA__JSON_STOPPED, CHAKRA_ECORRUPT, NULL);
		return -1;
	}
	f(c, p ? CHAKRA__JSON_SYNTAX : CHAKRA__JSON_TRUNC, CHAKRA_ECORRUPT, NULL);
	return -1;
}

/* The core's input source (source.h): a file or memory, plain or gzip
 * (concatenated members), in chunks; its errors name the byte. */
static int run_source(yajl_handle h, chakra__json_fail_fn f, chakra__json_ctx *c,
                      const chakra__json_src *src)
{
	if (src->whole) {
		static const unsigned char none[1];
		return feed(h, f, c, src, src->len ? src->buf : none, src->len);
	}
	size_t chunk = src->chunk ? src->chunk : CHUNK;
	source in;
	char msg[1024];
	if (src->rd) {
		memset(&in, 0, sizeof in); /* unused: the reader is called as it is */
	} else if (src->buf) {
		static const unsigned char none[1];
		chakra__source_open_mem(&in, src->len ? src->buf : none, src->len);
	} else {
		int rc = chakra__source_open_path(&in, src->path, msg);
		if (rc < 0) {
			f(c, CHAKRA__JSON_SOURCE, rc, msg);
			return -1;
		}
	}
	unsigned char *buf = chakra_malloc(chunk);
	int rc = 0;
	if (!buf) {
		f(c, CHAKRA__JSON_NOMEM, CHAKRA_ENOMEM, NULL);
		rc = -1;
	}
	while (!rc) {
		long n = src->rd ? src->rd(src->rd_data, buf, chunk)
		                 : chakra__source_read(&in, buf, chunk, c->name, msg);
		if (n < 0) {
			f(c, CHAKRA__JSON_SOURCE, src->rd ? CHAKRA_EIO : (int)n, src->rd ? NULL : msg);
			rc = -1;
		} else if (n == 0) {
			break;
		} else if (feed(h, f, c, src, buf, (size_t)n) < 0) {
			rc = -1;
		}
	}
	if (!src->rd)
		chakra__source_close(&in);
	chakra_free(buf);
	return rc;
}

/* YAJL's callbacks, one set for every format: the ctx is the format's,
 * which starts with its chakra__json_ctx. */
static int y_null(void *p)
{
	return ((chakra__json_ctx *)p)->fmt->scalar(p, 'z', "null", 4);
}

static int y_bool(void *p, int v)
{
	return ((chakra__json_ctx *)p)->fmt->scalar(p, 'b', v ? "true" : "false", v ? 4 : 5);
}

static int y_number(void *p, const char *s, size_t n)
{
	return ((chakra__json_ctx *)p)->fmt->scalar(p, 'n', s, n);
}

static int y_string(void *p, const unsigned char *s, size_t n)
{
	return ((chakra__json_ctx *)p)->fmt->scalar(p, 's', (const char *)s, n);
}

static int y_key(void *p, const unsigned char *s, size_t n)
{
	return ((chakra__json_ctx *)p)->fmt->key(p, (const char *)s, n);
}

static int y_start_map(void *p)
{
	return ((chakra__json_ctx *)p)->fmt->open(p, 1);
}

static int y_end_map(void *p)
{
	return ((chakra__json_ctx *)p)->fmt->close(p, 1);
}

static int y_start_array(void *p)
{
	return ((chakra__json_ctx *)p)->fmt->open(p, 0);
}

static int y_end_array(void *p)
{
	return ((chakra__json_ctx *)p)->fmt->close(p, 0);
}

static const yajl_callbacks y_callbacks = {
	y_null, y_bool, NULL, NULL, y_number, y_string,
	y_start_map, y_key, y_end_map, y_start_array, y_end_array
};

int chakra__json_run(const chakra__json_src *src, const chakra__json_fmt *fmt,
                     chakra__json_fail_fn f, chakra__json_ctx *c)
{
	c->fmt = fmt;
	c->name = src->name ? src->name : src->path ? src->path : "(memory)";
	c->index = -1;
	c->chunk_base = 0;
	c->chunk = NULL;
	c->raw = NULL;
	c->depth = 0;
	c->oom = 0;
	c->h = NULL;
	c->jg = chakra__jg_new();
	if (!c->jg || setjmp(c->jg->fail)) {
		chakra__jg_release(c->jg);
		c->jg = NULL;
		f(c, CHAKRA__JSON_NOMEM, CHAKRA_ENOMEM, NULL);
		return -1;
	}
	yajl_handle h = yajl_alloc(&y_callbacks, &c->jg->funcs, c);
	if (src->raw_strings)
		yajl_config(h, yajl_dont_validate_strings, 1);
	if (src->multiple)
		yajl_config(h, yajl_allow_multiple_values, 1);
	c->h = h;
	int rc = run_source(h, f, c, src);
	if (rc == 0)
		rc = feed(h, f, c, src, NULL, 0);
	if (c->oom) {
		chakra__jg_release(c->jg); /* YAJL's state is not to be trusted */
	} else {
		yajl_free(h);
		chakra__jg_free(c->jg);
	}
	c->jg = NULL;
	c->h = NULL;
	return rc;
}
