/* SPDX-License-Identifier: Apache-2.0 */
/* JSON -> ET: the output. The trace goes to the caller's callback once the
 * metadata is complete; nodes that come before it are spooled. */
#include "jn_impl.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- output: final writer, or the spool while metadata is pending ---- */

static int spool_write(void *data, const void *buf, size_t len)
{
	spool *sp = data;
	if (!sp->f && sp->len + len <= SPOOL_MEM) {
		if (sp->len + len > sp->cap) {
			size_t cap = sp->cap ? sp->cap : 1 << 16;
			while (cap < sp->len + len)
				cap *= 2;
			unsigned char *m = chakra_realloc(sp->mem, cap);
			if (!m)
				return -1;
			sp->mem = m;
			sp->cap = cap;
		}
		memcpy(sp->mem + sp->len, buf, len);
		sp->len += len;
		return 0;
	}
	if (!sp->f) {
		if (!(sp->f = tmpfile())) {
			sp->err = errno;
			return -1;
		}
		if (fwrite(sp->mem, 1, sp->len, sp->f) != sp->len)
			return -1;
		chakra_free(sp->mem);
		sp->mem = NULL;
		sp->len = sp->cap = 0;
	}
	return fwrite(buf, 1, len, sp->f) == len ? 0 : -1;
}

static long spool_read(void *data, void *buf, size_t cap)
{
	spool *sp = data;
	if (!sp->f) {
		size_t n = sp->len - sp->rd < cap ? sp->len - sp->rd : cap;
		memcpy(buf, sp->mem + sp->rd, n);
		sp->rd += n;
		return (long)n;
	}
	size_t n = fread(buf, 1, cap, sp->f);
	return n == 0 && ferror(sp->f) ? -1 : (long)n;
}

int chakra__jn_writer_fail(pack *P, chakra_writer *w, const char *what)
{
	/* no writer: opening it failed, and only for want of memory */
	chakra_error_info e;
	int code = w ? chakra_writer_error(w, &e, sizeof e) : CHAKRA_ENOMEM;
	if (code < 0)
		P->code = code;
	return chakra__jn_fail(P, "%s: %s", what, w ? chakra_writer_errmsg(w) : "out of memory");
}

int chakra__jn_sink_node(pack *P)
{
	if (P->meta_final) {
		if (chakra_writer_write_node(P->w, P->node) < 0)
			return chakra__jn_writer_fail(P, P->w, P->out);
	} else {
		if (!P->sw) {
			if (chakra_writer_open_cb(&P->sw, spool_write, &P->sp, NULL) < 0 ||
			    chakra_writer_write_metadata(P->sw, "spool", NULL) < 0)
				return chakra__jn_writer_fail(P, P->sw, "temporary file");
		}
		if (chakra_writer_write_node(P->sw, P->node) < 0)
			return P->sp.err ? chakra__jn_fail(P, "cannot create a temporary file: %s", strerror(P->sp.err))
			                 : chakra__jn_writer_fail(P, P->sw, "temporary file");
	}
	P->nodes++;
	return 1;
}

/* Metadata complete: open the output, write it, copy spooled nodes. */
int chakra__jn_finalize_meta(pack *P)
{
	chakra_writer_options wo = CHAKRA_WRITER_OPTIONS_INIT;
	wo.gzip = P->gzip;
	if (chakra_writer_open_cb(&P->w, P->cb, P->cb_data, &wo) < 0)
		return chakra__jn_writer_fail(P, P->w, P->out);
	if (chakra_writer_write_metadata(P->w, P->version ? P->version : "", P->meta) < 0)
		return chakra__jn_writer_fail(P, P->w, P->out);
	P->meta_final = 1;
	if (!P->sw)
		return 1;
	if (chakra_writer_finish(P->sw) < 0 || (P->sp.f && fflush(P->sp.f) != 0))
		return chakra__jn_writer_fail(P, P->sw, "temporary file");
	if (P->sp.f)
		rewind(P->sp.f);
	chakra_reader *r;
	chakra_reader_options ro = CHAKRA_READER_OPTIONS_INIT;
	ro.display_name = "temporary file";
	int rc = chakra_reader_open_cb(&r, spool_read, &P->sp, &ro);
	const void *m;
	size_t len;
	while (rc >= 0 && (rc = chakra_reader_next_raw(r, &m, &len)) > 0)
		if (chakra_writer_write_raw(P->w, m, len) < 0) {
			chakra_reader_close(r);
			return chakra__jn_writer_fail(P, P->w, P->out);
		}
	if (rc < 0) {
		chakra__jn_fail(P, "%s", chakra_reader_errmsg(r));
		chakra_reader_close(r);
		return 0;
	}
	chakra_reader_close(r);
	return 1;
}

