/* SPDX-License-Identifier: Apache-2.0 */
/* The converter's formats over lib/json's driver (jdrive.h): its failures
 * become messages with the byte offset and the unit (node/event) being
 * read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cv.h"

int chakra__cv_jfail(cv_jctx *c, int code, const char *fmt, ...)
{
	char what[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	/* inside a callback the parser's count is its position in the chunk */
	chakra__cv_fail(c->err, code, c->name, c->unit, c->index, chakra__json_offset(c), "%s", what);
	return 0;
}

static int raw_put(void *dst, const void *s, size_t n)
{
	return chakra__cv_buf_add(dst, s, n);
}

int chakra__cv_json_raw_begin(cv_jctx *c, cv_buf *dst)
{
	dst->len = 0;
	return chakra__json_raw_begin(c, dst, raw_put);
}

int chakra__cv_json_raw_end(cv_jctx *c)
{
	return chakra__json_raw_end(c);
}

/* The driver's failures, worded as the converter always has. */
static void fail(chakra__json_ctx *c, int what, int code, const char *msg)
{
	cv_err *err = c->err;
	char m[256];
	switch (what) {
	case CHAKRA__JSON_STOPPED:
		if (!err->code)
			chakra__cv_jfail(c, CHAKRA_ECORRUPT, "conversion stopped");
		return;
	case CHAKRA__JSON_NOMEM_YAJL:
		chakra__cv_fail(err, CHAKRA_ENOMEM, c->name, NULL, -1, -1, "out of memory (JSON parser)");
		return;
	case CHAKRA__JSON_NOMEM:
		chakra__cv_fail(err, CHAKRA_ENOMEM, c->name, NULL, -1, -1, "out of memory");
		return;
	case CHAKRA__JSON_SOURCE: {
		/* the source's message starts with the name it was given */
		size_t nl = strlen(c->name);
		if (!strncmp(msg, c->name, nl) && msg[nl] == ':' && msg[nl + 1] == ' ')
			msg += nl + 2;
		chakra__cv_fail(err, code, c->name, NULL, -1, -1, "%s", msg);
		return;
	}
	}
	snprintf(m, sizeof m, "JSON syntax error");
	if (chakra__json_yajl_error(c, m, sizeof m) < 0) {
		chakra__cv_fail(err, CHAKRA_ENOMEM, c->name, NULL, -1, -1, "out of memory (JSON parser)");
		return;
	}
	size_t k = strlen(m);
	while (k && (m[k - 1] == '\n' || m[k - 1] == ' '))
		m[--k] = 0;
	if (what == CHAKRA__JSON_SYNTAX)
		chakra__cv_fail(err, CHAKRA_ECORRUPT, c->name, c->unit, c->index, chakra__json_offset(c),
		                "not valid JSON: %s", m);
	else
		chakra__cv_fail(err, CHAKRA_ETRUNC, c->name, c->unit, c->index, c->chunk_base,
		                "the JSON ends early (truncated file?): %s", m);
}

int chakra__cv_json_run(const cv_json_src *src, const cv_jfmt *fmt, cv_jctx *c)
{
	cv_err *err = c->err;
	chakra__json_src in = { .path = src->path, .name = src->name, .buf = src->buf, .len = src->len };
	if (chakra__json_run(&in, fmt, fail, c) < 0)
		return err->code ? err->code : CHAKRA_ECORRUPT;
	return 0;
}
