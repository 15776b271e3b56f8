/* SPDX-License-Identifier: Apache-2.0 */
/* A byte buffer read through a chakra_read_cb, at most `chunk` bytes a
 * call (0: as many as asked): a stream over bytes in memory, for the
 * tests and fuzzers of the readers and the feeder. */
#ifndef CHAKRA_TESTS_MEMSRC_H
#define CHAKRA_TESTS_MEMSRC_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct memsrc {
	const uint8_t *p;
	size_t len, pos, chunk;
} memsrc;

static inline long memsrc_read(void *data, void *buf, size_t cap)
{
	memsrc *s = data;
	size_t n = s->len - s->pos;
	if (n > cap)
		n = cap;
	if (s->chunk && n > s->chunk)
		n = s->chunk;
	memcpy(buf, s->p + s->pos, n);
	s->pos += n;
	return (long)n;
}

#endif
