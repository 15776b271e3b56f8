/* The streaming reader: framing + metadata + one decoded node at a time. */
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
	char err[CHAKRA_ERRMSG_MAX];
	char tmp[CHAKRA_ERRMSG_MAX];
};

static int set_opts(chakra_reader *r, const chakra_reader_options *o)
{
	chakra_reader_options def = CHAKRA_READER_OPTIONS_INIT;
	r->opts = def;
	if (!o)
		return 0;
	if (o->version < 1 || o->version > CHAKRA_READER_OPTIONS_VERSION)
		return CHAKRA_EINVAL;
	r->opts = *o;
	return 0;
}

static chakra_reader *alloc_reader(const chakra_reader_options *o, const char *defname, int *rc)
{
	chakra_reader *r = calloc(1, sizeof *r);
	if (!r) {
		*rc = CHAKRA_ENOMEM;
		return NULL;
	}
	if ((*rc = set_opts(r, o)) < 0) {
		free(r);
		return NULL;
	}
	const char *nm = r->opts.display_name ? r->opts.display_name : defname;
	r->name = strdup(nm);
	if (!r->name) {
		free(r);
		*rc = CHAKRA_ENOMEM;
		return NULL;
	}
	return r;
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
		return chakra__errf(r->err, CHAKRA_ENOMETA,
		                    "%s: byte 0: empty file: no GlobalMetadata message", r->name);
	if (rc < 0)
		return rc;
	rc = chakra__metadata_walk(msg, len, off + wire_varint_size(len), &r->meta, &r->meta_arena, &r->ws,
	                   r->tmp);
	if (rc == CHAKRA_ECORRUPT)
		return chakra__errf(r->err, CHAKRA_ENOMETA,
		                    "%s: byte %llu: first message is not a GlobalMetadata (%s); "
		                    "is this a Chakra ET file?",
		                    r->name, (unsigned long long)off, r->tmp);
	if (rc < 0)
		return chakra__errf(r->err, rc, "%s: %s", r->name, r->tmp);
	return 0;
}

static int finish_open(chakra_reader **out, chakra_reader *r)
{
	int rc = start(r);
	if (rc < 0) {
		/* Keep the handle so the caller can read the message. */
		r->failed = rc;
	}
	*out = r;
	return rc;
}

int chakra_reader_open(chakra_reader **out, const char *path, const chakra_reader_options *o)
{
	int rc;
	*out = NULL;
	chakra_reader *r = alloc_reader(o, !strcmp(path, "-") ? "<stdin>" : path, &rc);
	if (!r)
		return rc;
	rc = chakra__source_open_path(&r->fr.src, path, r->err);
	if (rc < 0) {
		r->failed = rc;
		*out = r;
		return rc;
	}
	return finish_open(out, r);
}

int chakra_reader_open_buffer(chakra_reader **out, const void *buf, size_t len,
                              const chakra_reader_options *o)
{
	int rc;
	*out = NULL;
	chakra_reader *r = alloc_reader(o, "<memory>", &rc);
	if (!r)
		return rc;
	chakra__source_open_mem(&r->fr.src, buf, len);
	return finish_open(out, r);
}

int chakra_reader_open_cb(chakra_reader **out, chakra_read_cb cb, void *data,
                          const chakra_reader_options *o)
{
	int rc;
	*out = NULL;
	chakra_reader *r = alloc_reader(o, "<callback>", &rc);
	if (!r)
		return rc;
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
	free(r->name);
	free(r);
}

const chakra_metadata *chakra_reader_metadata(const chakra_reader *r) { return &r->meta; }

int chakra_reader_next_raw(chakra_reader *r, const void **msg, size_t *len)
{
	if (r->failed)
		return r->failed;
	const uint8_t *m;
	uint64_t off;
	int rc = framer_next(&r->fr, &m, len, &off, r->err);
	if (rc < 0) {
		/* Say which node the failure is in. */
		memcpy(r->tmp, r->err, sizeof r->tmp);
		chakra__errf(r->err, rc, "%s (node index %llu)", r->tmp, (unsigned long long)r->count);
		return r->failed = rc;
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
	const void *m;
	size_t len;
	int rc = chakra_reader_next_raw(r, &m, &len);
	if (rc <= 0)
		return rc;
	chakra__arena_reset(&r->node_arena);
	chakra_node *n = &r->node;
	n->full = &r->full;
	n->materialize = NULL;
	rc = chakra__node_walk(m, len, n->offset + wire_varint_size(len), &n->id, &r->full, &r->node_arena,
	               &r->ws, r->tmp);
	if (rc == 0 && r->opts.verify_with_nanopb)
		rc = chakra__pbref_verify_node(m, len, n->id, &r->full, r->tmp);
	if (rc < 0) {
		/* The walker's text starts with "byte N: " (the bad field); nanopb's
		 * does not, so name the message's own offset then. */
		if (!strncmp(r->tmp, "byte ", 5))
			chakra__errf(r->err, rc, "%s: %s (node index %llu, message at byte %llu)", r->name,
			             r->tmp, (unsigned long long)n->index, (unsigned long long)n->offset);
		else
			chakra__errf(r->err, rc, "%s: byte %llu: %s (node index %llu)", r->name,
			             (unsigned long long)n->offset, r->tmp, (unsigned long long)n->index);
		return r->failed = rc;
	}
	*node = n;
	return 1;
}

uint64_t chakra_reader_offset(const chakra_reader *r) { return framer_offset(&r->fr); }
uint64_t chakra_reader_node_count(const chakra_reader *r) { return r->count; }
const char *chakra_reader_errmsg(const chakra_reader *r) { return r ? r->err : "out of memory"; }

/* The feeder frames messages itself (one inline step per message instead
 * of three calls); it owns the reader and uses it only for metadata. */
framer *chakra__reader_framer(chakra_reader *r) { return &r->fr; }
