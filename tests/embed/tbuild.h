/* SPDX-License-Identifier: Apache-2.0 */
/* Test helper: small traces built in memory with the public writer. */
#ifndef CHAKRA_TEST_TBUILD_H
#define CHAKRA_TEST_TBUILD_H

#include <chakra/chakra.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct tbuf {
	unsigned char *p;
	size_t len, cap;
} tbuf;

static int tbuf_write(void *data, const void *buf, size_t len)
{
	tbuf *b = (tbuf *)data;
	if (b->len + len > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		while (cap < b->len + len)
			cap *= 2;
		unsigned char *p = (unsigned char *)realloc(b->p, cap);
		if (!p)
			return -1;
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, buf, len);
	b->len += len;
	return 0;
}

/* A trace of n nodes: ids[i], data deps deps[i][0..ndeps[i]); named "n<id>".
 * Returns 0, or a negative code. */
static int tbuild(tbuf *out, size_t n, const uint64_t *ids, const uint64_t *const *deps,
                  const size_t *ndeps)
{
	chakra_writer *w;
	int rc = chakra_writer_open_cb(&w, tbuf_write, out, NULL);
	chakra_builder *b = chakra_builder_new();
	if (rc == 0 && !b)
		rc = CHAKRA_ENOMEM;
	if (rc == 0)
		rc = chakra_writer_write_metadata(w, "0.0.4", NULL);
	for (size_t i = 0; i < n && rc == 0; i++) {
		char name[32];
		chakra_builder_reset(b);
		chakra_builder_set_id(b, ids[i]);
		snprintf(name, sizeof name, "n%llu", (unsigned long long)ids[i]);
		chakra_builder_set_name(b, name, (size_t)-1);
		chakra_builder_set_type(b, CHAKRA_COMP_NODE);
		for (size_t k = 0; deps && k < ndeps[i] && rc == 0; k++)
			rc = chakra_builder_add_data_dep(b, deps[i][k]);
		if (rc == 0)
			rc = chakra_builder_attr_int(b, "num_ops", CHAKRA_ATTR_INT64, (int64_t)ids[i]);
		if (rc == 0)
			rc = chakra_writer_write_node(w, b);
	}
	if (rc == 0)
		rc = chakra_writer_finish(w);
	chakra_builder_free(b);
	chakra_writer_close(w);
	return rc;
}

#endif
