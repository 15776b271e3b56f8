/* SPDX-License-Identifier: Apache-2.0 */
/* The streaming reader: framing + metadata + one decoded node at a time. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "chakra/error.h"
#include "chakra/reader.h"
#include "node_impl.h"
#include "pbref.h"
#include "wire.h"

struct chakra_reader {
	framer fr;
	chakra_reader_options opts;
	char *name;
	chakra_metadata meta;
	arena meta_arena, node_arena;
	walk_scratch ws;
	chakra_node node;
	node_full full;
	uint64_t count;
	int failed;  /* sticky: after an error, next() keeps returning it */
	chakra__errinfo einfo; /* the error as values */
	char err[CHAKRA_ERRMSG_MAX];
	char tmp[CHAKRA_ERRMSG_MAX];
};

/* Size of each version of chakra_reader_options (fields are only ever
 * appended): the library reads no byte past the caller's version. */
static const size_t reader_opts_size[] = {
	0,
	offsetof(chakra_reader_options, verify_with_nanopb) + sizeof(int),
	offsetof(chakra_reader_options, max_node_memory) + sizeof(uint64_t),
};
#define N_VERSIONS (sizeof reader_opts_size / sizeof reader_opts_size[0])

int chakra_reader_options_init(chakra_reader_options *opts, unsigned version)
{
	return chakra__opts_init(opts, version, NULL, reader_opts_size, N_VERSIONS);
}

int chakra__reader_opts_copy(chakra_reader_options *dst, const chakra_reader_options *src)
{
	if (!src) {
		chakra_reader_options def = CHAKRA_READER_OPTIONS_INIT;
		*dst = def;
		return 0;
	}
	return chakra__opts_copy(dst, sizeof *dst, src, NULL, reader_opts_size, N_VERSIONS);
}

static int reader_fail(chakra_reader *r, int code, unsigned flags, uint64_t off, uint64_t id)
{
	chakra__errinfo_set(&r->einfo, code, flags, off, r->count, id);
	return r->failed = code;
}

/* A new reader. On a bad options version it is returned all the same,
 * failed with a message (*rc = CHAKRA_EINVAL); NULL only when out of
 * memory. */
static chakra_reader *alloc_reader(const chakra_reader_options *o, const char *defname, int *rc)
{
	chakra_reader *r = (chakra_reader *)chakra__calloc(1, sizeof *r);
	if (!r) {
		*rc = CHAKRA_ENOMEM;
		return NULL;
	}
	int bad = chakra__reader_opts_copy(&r->opts, o);
	const char *nm = !bad && r->opts.display_name ? r->opts.display_name : defname;
	r->name = chakra__strdup(nm);
	if (!r->name) {
		chakra__free(r);
		*rc = CHAKRA_ENOMEM;
		return NULL;
	}
	r->opts.display_name = NULL; /* (the copy in r->name is used: nothing kept by pointer) */
	if (!r->opts.max_node_memory)
		r->opts.max_node_memory = CHAKRA_DEFAULT_MAX_NODE_MEMORY;
	/* One node's decoded form, and the metadata's, within the budget. */
	r->ws.limit = r->opts.max_node_memory;
	r->node_arena.limit = (size_t)(r->opts.max_node_memory < SIZE_MAX ? r->opts.max_node_memory
	                                                                  : SIZE_MAX);
	r->meta_arena.limit = r->node_arena.limit;
	if (bad) {
		chakra__errf(r->err, CHAKRA_EINVAL,
		             "%s: chakra_reader_options version %u is not one this library knows "
		             "(1 to %u)",
		             r->name, o->version, (unsigned)CHAKRA_READER_OPTIONS_VERSION);
		reader_fail(r, CHAKRA_EINVAL, 0, 0, 0);
	}
	*rc = bad ? CHAKRA_EINVAL : 0;
	return r;
}

/* A framing or input error from the framer (message in r->err). */
static int framing_failed(chakra_reader *r, int rc)
{
	unsigned flags = r->fr.err_flags;
	if (rc != CHAKRA_EIO || flags) /* (not for open and read failures) */
		flags |= CHAKRA_ERRINFO_INDEX;
	return reader_fail(r, rc, flags, r->fr.err_off, 0);
}

/* Read the first message as GlobalMetadata. */
static int start(chakra_reader *r)
{
	chakra__framer_init(&r->fr, r->name, r->opts.max_message_size);
	const uint8_t *msg;
	size_t len;
	uint64_t off;
	int rc = framer_next(&r->fr, &msg, &len, &off, r->err);
	if (rc == 0)
		return reader_fail(r, chakra__errf(r->err, CHAKRA_ENOMETA,
		                                   "%s: byte 0: empty file: no GlobalMetadata message",
		                                   r->name),
		                   CHAKRA_ERRINFO_OFFSET, 0, 0);
	if (rc < 0)
		return reader_fail(r, rc, r->fr.err_flags, r->fr.err_off, 0);
	rc = chakra__metadata_walk(msg, len, off + wire_varint_size(len), &r->meta, &r->meta_arena,
	                           &r->ws, r->tmp);
	int ok;
	uint64_t at = chakra__msg_byte(r->tmp, &ok);
	if (rc == CHAKRA_ECORRUPT)
		return reader_fail(r, chakra__errf(r->err, CHAKRA_ENOMETA,
		                                   "%s: byte %llu: first message is not a GlobalMetadata "
		                                   "(%s); is this a Chakra ET file?",
		                                   r->name, (unsigned long long)off, r->tmp),
		                   CHAKRA_ERRINFO_OFFSET, off, 0);
	if (rc < 0)
		return reader_fail(r, chakra__errf(r->err, rc, "%s: %s", r->name, r->tmp),
		                   ok ? CHAKRA_ERRINFO_OFFSET : 0, at, 0);
	return 0;
}

static int finish_open(chakra_reader **out, chakra_reader *r)
{
	*out = r; /* (kept on failure, so the caller can read the message) */
	return start(r);
}

/* A handle refused for a missing argument: it says which (the NULL rule,
 * chakra.h: as for a bad options version, the caller gets a handle whose
 * message explains). */
static int missing(chakra_reader *r, const char *what)
{
	chakra__errf(r->err, CHAKRA_EINVAL, "%s", what);
	return reader_fail(r, CHAKRA_EINVAL, 0, 0, 0);
}

int chakra_reader_open(chakra_reader **out, const char *path, const chakra_reader_options *o)
{
	int rc;
	if (!out)
		return CHAKRA_EINVAL;
	*out = NULL;
	chakra_reader *r = alloc_reader(o, !path ? "<no path>" : !strcmp(path, "-") ? "<stdin>" : path,
	                                &rc);
	*out = r;
	if (rc < 0)
		return rc;
	if (!path)
		return missing(r, "chakra_reader_open: no path (NULL)");
	rc = chakra__source_open_path(&r->fr.src, path, r->err);
	if (rc < 0)
		return reader_fail(r, rc, 0, 0, 0);
	return finish_open(out, r);
}

int chakra_reader_open_buffer(chakra_reader **out, const void *buf, size_t len,
                              const chakra_reader_options *o)
{
	int rc;
	if (!out)
		return CHAKRA_EINVAL;
	*out = NULL;
	chakra_reader *r = alloc_reader(o, "<memory>", &rc);
	*out = r;
	if (rc < 0)
		return rc;
	if (!buf && len)
		return missing(r, "chakra_reader_open_buffer: no buffer (NULL) for a length above 0");
	static const uint8_t none[1] = { 0 };
	chakra__source_open_mem(&r->fr.src, buf ? buf : none, len);
	return finish_open(out, r);
}

int chakra_reader_open_cb(chakra_reader **out, chakra_read_cb cb, void *data,
                          const chakra_reader_options *o)
{
	int rc;
	if (!out)
		return CHAKRA_EINVAL;
	*out = NULL;
	chakra_reader *r = alloc_reader(o, "<callback>", &rc);
	*out = r;
	if (rc < 0)
		return rc;
	if (!cb)
		return missing(r, "chakra_reader_open_cb: no read callback (NULL)");
	chakra__source_open_cb(&r->fr.src, cb, data);
	return finish_open(out, r);
}

void chakra_reader_close(chakra_reader *r)
{
	if (!r)
		return;
	chakra__framer_free(&r->fr);
	chakra__arena_free(&r->meta_arena);
	chakra__arena_free(&r->node_arena);
	chakra__walk_scratch_free(&r->ws);
	chakra__free(r->name);
	chakra__free(r);
}

const chakra_metadata *chakra_reader_metadata(const chakra_reader *r)
{
	return r ? &r->meta : NULL;
}

int chakra_reader_next_raw(chakra_reader *r, const void **msg, size_t *len)
{
	if (!r || !msg || !len)
		return CHAKRA_EINVAL; /* a misuse: the reader is not failed by it */
	if (r->failed)
		return r->failed;
	const uint8_t *m;
	uint64_t off;
	int rc = framer_next(&r->fr, &m, len, &off, r->err);
	if (rc < 0) {
		/* Say which node the failure is in. */
		memcpy(r->tmp, r->err, sizeof r->tmp);
		chakra__errf(r->err, rc, "%s (node index %llu)", r->tmp, (unsigned long long)r->count);
		return framing_failed(r, rc);
	}
	if (rc == 0)
		return 0;
	*msg = m;
	r->node.offset = off;
	r->node.msg = m;
	r->node.len = *len;
	r->node.index = r->count++;
	return 1;
}

int chakra_reader_next(chakra_reader *r, const chakra_node **node)
{
	if (!r || !node)
		return CHAKRA_EINVAL;
	const void *m;
	size_t len;
	int rc = chakra_reader_next_raw(r, &m, &len);
	if (rc <= 0)
		return rc;
	chakra__arena_reset(&r->node_arena);
	chakra_node *n = &r->node;
	n->full = &r->full;
	n->materialize = NULL;
	rc = chakra__node_walk((const uint8_t *)m, len, n->offset + wire_varint_size(len), &n->id, &r->full,
	                       &r->node_arena, &r->ws, r->tmp);
	int walk_ok = rc == 0;
	if (rc == 0 && r->opts.verify_with_nanopb)
		rc = chakra__pbref_verify_node((const uint8_t *)m, len, n->id, &r->full, r->tmp);
	if (rc < 0) {
		/* The walker's text starts with "byte N: " (the bad field); nanopb's
		 * does not, so name the message's own offset then. The id is
		 * known when the walk itself succeeded (a nanopb disagreement). */
		int ok;
		uint64_t at = chakra__msg_byte(r->tmp, &ok);
		unsigned flags = CHAKRA_ERRINFO_OFFSET | CHAKRA_ERRINFO_INDEX;
		if (ok)
			chakra__errf(r->err, rc, "%s: %s (node index %llu, message at byte %llu)", r->name,
			             r->tmp, (unsigned long long)n->index, (unsigned long long)n->offset);
		else
			chakra__errf(r->err, rc, "%s: byte %llu: %s (node index %llu)", r->name,
			             (unsigned long long)n->offset, r->tmp, (unsigned long long)n->index);
		if (walk_ok)
			flags |= CHAKRA_ERRINFO_ID;
		chakra__errinfo_set(&r->einfo, rc, flags, ok ? at : n->offset, n->index, n->id);
		return r->failed = rc;
	}
	*node = n;
	return 1;
}

uint64_t chakra_reader_offset(const chakra_reader *r) { return r ? framer_offset(&r->fr) : 0; }
uint64_t chakra_reader_node_count(const chakra_reader *r) { return r ? r->count : 0; }
const char *chakra_reader_errmsg(const chakra_reader *r)
{
	return r ? r->err : "out of memory (no reader was created)";
}

int chakra_reader_error(const chakra_reader *r, chakra_error_info *info, size_t size)
{
	if (!r) {
		chakra__errinfo e = { CHAKRA_ENOMEM, 0, 0, 0, 0 };
		return chakra__errinfo_get(&e, chakra_reader_errmsg(r), info, size);
	}
	return chakra__errinfo_get(&r->einfo, r->err, info, size);
}

/* The feeder frames messages itself (one inline step per message instead
 * of three calls); it owns the reader and uses it only for metadata. */
framer *chakra__reader_framer(chakra_reader *r) { return &r->fr; }
