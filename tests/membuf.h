/* SPDX-License-Identifier: Apache-2.0 */
/* A growing byte buffer written through a chakra_write_cb: the writer's
 * output kept in memory, for the tests that read back what they wrote. */
#ifndef CHAKRA_TESTS_MEMBUF_H
#define CHAKRA_TESTS_MEMBUF_H

#include <stdlib.h>
#include <string.h>

typedef struct membuf {
	unsigned char *p;
	size_t len, cap;
} membuf;

static inline int mem_write(void *data, const void *buf, size_t len)
{
	membuf *m = data;
	if (m->len + len > m->cap) {
		size_t cap = m->cap ? m->cap : 4096;
		while (cap < m->len + len)
			cap *= 2;
		unsigned char *p = realloc(m->p, cap);
		if (!p)
			return -1;
		m->p = p;
		m->cap = cap;
	}
	memcpy(m->p + m->len, buf, len);
	m->len += len;
	return 0;
}

#endif
