/* SPDX-License-Identifier: Apache-2.0 */
/* The writer: frames encoded messages and sends them to a file (through a
 * temporary name, renamed on success), stdout or a callback, optionally
 * through gzip. */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "builder_impl.h"
#include "chakra/error.h"
#include "chakra/writer.h"
#include "node_impl.h"
#include "outfile.h"
#include "wire.h"

#define FLUSH_AT (1024 * 1024)

struct chakra_writer {
	chakra_writer_options opts;
	int fd;
	char *path;
	chakra__out file; /* a path's output (outfile.h); file.f NULL: none open */
	chakra_write_cb cb;
	void *cbdata;
	z_stream zs;
	int gz_on;
	cbuf out;   /* framed, uncompressed bytes waiting to be flushed */
	cbuf zout;  /* compressed bytes */
	int state;  /* 0: expect metadata, 1: nodes, 2: finished, <0: failed */
	uint64_t nodes;
	chakra__errinfo einfo;
	char err[CHAKRA_ERRMSG_MAX];
};

/* Size of each version of chakra_writer_options (see reader.c). */
static const size_t writer_opts_size[] = {
	0,
	offsetof(chakra_writer_options, overwrite) + sizeof(int),
};
#define N_VERSIONS (sizeof writer_opts_size / sizeof writer_opts_size[0])

int chakra_writer_options_init(chakra_writer_options *opts, unsigned version)
{
	return chakra__opts_init(opts, version, NULL, writer_opts_size, N_VERSIONS);
}

static int writer_fail(chakra_writer *w, int code, const char *what)
{
	size_t pl = w->path ? strlen(w->path) : 0;
	if (pl && !strncmp(what, w->path, pl) && what[pl] == ':')
		chakra__errf(w->err, code, "%s", what); /* names the path already */
	else
		chakra__errf(w->err, code, "%s: %s", w->path ? w->path : "<callback>", what);
	/* Node writes name the node (its index among the nodes written). */
	chakra__errinfo_set(&w->einfo, code, w->state == 1 ? CHAKRA_ERRINFO_INDEX : 0, 0, w->nodes, 0);
	w->state = code;
	return code;
}

static int sink(chakra_writer *w, const void *buf, size_t len)
{
	if (w->cb) {
		/* an in-memory sink that cannot grow is out of memory, not an I/O
		 * error: the allocation-failure contract holds through it */
		int rc = w->cb(w->cbdata, buf, len);
		if (rc == CHAKRA_ENOMEM)
			return writer_fail(w, CHAKRA_ENOMEM, "write callback: out of memory");
		if (rc < 0)
			return writer_fail(w, CHAKRA_EIO, "write callback failed");
		return 0;
	}
	const uint8_t *p = (const uint8_t *)buf;
	while (len) {
		ssize_t n = write(w->fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return writer_fail(w, CHAKRA_EIO, strerror(errno));
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int writer_flush(chakra_writer *w, int finish)
{
	if (!w->gz_on) {
		int rc = sink(w, w->out.p, w->out.len);
		w->out.len = 0;
		return rc;
	}
	if (chakra__cbuf_reserve(&w->zout, 256 * 1024))
		return writer_fail(w, CHAKRA_ENOMEM, "out of memory");
	w->zs.next_in = w->out.p;
	w->zs.avail_in = (uInt)w->out.len;
	int zr;
	do {
		w->zs.next_out = w->zout.p;
		w->zs.avail_out = (uInt)w->zout.cap;
		zr = deflate(&w->zs, finish ? Z_FINISH : Z_NO_FLUSH);
		if (zr == Z_STREAM_ERROR)
			return writer_fail(w, CHAKRA_EIO, "gzip compression failed");
		int rc = sink(w, w->zout.p, w->zout.cap - w->zs.avail_out);
		if (rc < 0)
			return rc;
	} while (w->zs.avail_out == 0 || (finish && zr != Z_STREAM_END));
	w->out.len = 0;
	return 0;
}

/* A new writer (NULL only when out of memory). A bad options version or
 * a gzip start failure leaves it failed with its message in *rc. */
static chakra_writer *writer_new(const chakra_writer_options *o, int *rc)
{
	chakra_writer *w = (chakra_writer *)chakra__calloc(1, sizeof *w);
	if (!w) {
		*rc = CHAKRA_ENOMEM;
		return NULL;
	}
	w->fd = -1;
	*rc = 0;
	if (!o) {
		chakra_writer_options def = CHAKRA_WRITER_OPTIONS_INIT;
		w->opts = def;
	} else if (chakra__opts_copy(&w->opts, sizeof w->opts, o, NULL, writer_opts_size, N_VERSIONS)) {
		char what[128];
		snprintf(what, sizeof what,
		         "chakra_writer_options version %u is not one this library knows (1 to %u)",
		         o->version, (unsigned)CHAKRA_WRITER_OPTIONS_VERSION);
		*rc = writer_fail(w, CHAKRA_EINVAL, what);
		return w;
	}
	if (w->opts.gzip) {
		int lvl = w->opts.gzip_level ? w->opts.gzip_level : Z_DEFAULT_COMPRESSION;
		w->zs.zalloc = chakra__zalloc;
		w->zs.zfree = chakra__zfree;
		w->zs.opaque = NULL;
		int zr = deflateInit2(&w->zs, lvl, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
		if (zr != Z_OK) {
			*rc = writer_fail(w, zr == Z_MEM_ERROR ? CHAKRA_ENOMEM : CHAKRA_EINVAL,
			           zr == Z_MEM_ERROR ? "out of memory (gzip encoder)"
			                             : "bad gzip_level (1 to 9, or 0 for the default)");
			return w;
		}
		w->gz_on = 1;
	}
	return w;
}

int chakra_writer_open(chakra_writer **out, const char *path, const chakra_writer_options *o)
{
	int rc;
	if (!out)
		return CHAKRA_EINVAL;
	*out = NULL;
	chakra_writer *w = writer_new(o, &rc);
	*out = w;
	if (rc < 0)
		return rc;
	if (!path)
		return writer_fail(w, CHAKRA_EINVAL, "chakra_writer_open: no path (NULL)");
	if (!strcmp(path, "-")) {
		w->fd = 1;
		return 0;
	}
	w->path = chakra__strdup(path);
	if (!w->path)
		return writer_fail(w, CHAKRA_ENOMEM, "out of memory");
	/* the output rule (outfile.h): a temporary renamed by finish, a
	 * device or FIFO written into, an existing file kept unless overwrite */
	chakra__out_opts oo = { w->opts.overwrite, 0, NULL, 0, "set overwrite" };
	char e[CHAKRA_ERRMSG_MAX];
	rc = chakra__out_open(&w->file, path, &oo, e, sizeof e);
	if (rc < 0)
		return writer_fail(w, rc, e);
	w->fd = fileno(w->file.f);
	return 0;
}

int chakra_writer_open_cb(chakra_writer **out, chakra_write_cb cb, void *data,
                          const chakra_writer_options *o)
{
	int rc;
	if (!out)
		return CHAKRA_EINVAL;
	chakra_writer *w = writer_new(o, &rc);
	*out = w;
	if (rc < 0)
		return rc;
	if (!cb)
		return writer_fail(w, CHAKRA_EINVAL, "chakra_writer_open_cb needs a write callback");
	w->cb = cb;
	w->cbdata = data;
	return 0;
}

/* Reserve room for a length prefix plus len bytes; returns where the
 * message body goes. */
static uint8_t *frame(chakra_writer *w, size_t len)
{
	if (chakra__cbuf_reserve(&w->out, w->out.len + 10 + len)) {
		writer_fail(w, CHAKRA_ENOMEM, "out of memory");
		return NULL;
	}
	uint8_t *d = w->out.p + w->out.len;
	d += wire_put_varint(d, len);
	w->out.len = (size_t)(d - w->out.p) + len;
	return d;
}

static int after_message(chakra_writer *w)
{
	return w->out.len >= FLUSH_AT ? writer_flush(w, 0) : 0;
}

int chakra_writer_write_metadata(chakra_writer *w, const char *version, const chakra_builder *attrs)
{
	if (!w)
		return CHAKRA_EINVAL;
	if (w->state < 0)
		return w->state;
	if (w->state != 0)
		return writer_fail(w, CHAKRA_ESTATE, "metadata written twice, or after finish");
	size_t vlen = version ? strlen(version) : 0;
	size_t len = chakra__encode_metadata_size(version, vlen, attrs);
	uint8_t *d = frame(w, len);
	if (!d)
		return w->state;
	chakra__encode_metadata(version, vlen, attrs, d);
	w->state = 1;
	return after_message(w);
}

int chakra_writer_copy_metadata(chakra_writer *w, const chakra_metadata *m)
{
	if (!w || !m)
		return CHAKRA_EINVAL;
	chakra_builder *b = chakra_builder_new();
	if (!b)
		return writer_fail(w, CHAKRA_ENOMEM, "out of memory");
	int rc = 0;
	for (size_t i = 0; i < m->n_attrs && rc == 0; i++)
		rc = chakra_builder_attr_copy(b, &m->attrs[i]);
	if (rc == 0)
		rc = chakra_writer_write_metadata(w, m->version.s, b);
	chakra_builder_free(b);
	return rc;
}

int chakra_writer_write_node(chakra_writer *w, const chakra_builder *b)
{
	if (!w || !b)
		return CHAKRA_EINVAL; /* a misuse: the writer is not failed by it */
	if (w->state < 0)
		return w->state;
	if (w->state != 1)
		return writer_fail(w, CHAKRA_ESTATE, w->state == 0 ? "node written before the metadata"
		                                             : "node written after finish");
	/* protobuf sign-extends a negative enum to 10 bytes, which nanopb
	 * (NodeType has no negative value: an unsigned enum there) and our
	 * reader reject: never write a node no reader takes back */
	if (b->type < 0) {
		char what[96];
		snprintf(what, sizeof what, "node %llu: type %d is negative (no reader accepts it)",
		         (unsigned long long)b->id, b->type);
		return writer_fail(w, CHAKRA_EINVAL, what);
	}
	size_t len = chakra__encode_node_size(b);
	uint8_t *d = frame(w, len);
	if (!d)
		return w->state;
	chakra__encode_node(b, d);
	w->nodes++;
	return after_message(w);
}

int chakra_writer_write_raw(chakra_writer *w, const void *msg, size_t len)
{
	if (!w || (!msg && len))
		return CHAKRA_EINVAL;
	if (w->state < 0)
		return w->state;
	if (w->state != 1)
		return writer_fail(w, CHAKRA_ESTATE, w->state == 0 ? "node written before the metadata"
		                                             : "node written after finish");
	uint8_t *d = frame(w, len);
	if (!d)
		return w->state;
	if (len)
		memcpy(d, msg, len);
	w->nodes++;
	return after_message(w);
}

static void writer_free(chakra_writer *w)
{
	if (w->gz_on)
		deflateEnd(&w->zs);
	chakra__out_abort(&w->file); /* not finished: drop the partial output */
	chakra__cbuf_free(&w->out);
	chakra__cbuf_free(&w->zout);
	chakra__free(w->path);
	chakra__free(w);
}

int chakra_writer_finish(chakra_writer *w)
{
	if (!w)
		return CHAKRA_EINVAL;
	if (w->state == 2)
		return 0;
	if (w->state < 0)
		return w->state;
	if (w->state == 0)
		return writer_fail(w, CHAKRA_ESTATE, "finished before any metadata was written");
	int rc = writer_flush(w, 1);
	if (rc == 0 && w->file.f) {
		char e[CHAKRA_ERRMSG_MAX];
		w->fd = -1;
		if ((rc = chakra__out_commit(&w->file, e, sizeof e)) < 0)
			rc = writer_fail(w, rc, e);
	}
	if (rc == 0)
		w->state = 2;
	return rc;
}

void chakra_writer_close(chakra_writer *w)
{
	if (w)
		writer_free(w);
}

const char *chakra_writer_errmsg(const chakra_writer *w)
{
	return w ? w->err : "out of memory (no writer was created)";
}

int chakra_writer_error(const chakra_writer *w, chakra_error_info *info, size_t size)
{
	if (!w) {
		chakra__errinfo e = { CHAKRA_ENOMEM, 0, 0, 0, 0 };
		return chakra__errinfo_get(&e, chakra_writer_errmsg(w), info, size);
	}
	return chakra__errinfo_get(&w->einfo, w->err, info, size);
}
uint64_t chakra_writer_node_count(const chakra_writer *w) { return w ? w->nodes : 0; }
