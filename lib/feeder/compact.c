/* SPDX-License-Identifier: Apache-2.0 */
/* One-block copy of a decoded node: the lazily decoded fields of a held
 * node live in a single block from the feeder's byte pool instead of an
 * arena (whose first block is 8 KiB), so a simulator that decodes every
 * held node costs what the fields take, and the steady state reuses freed
 * blocks instead of calling malloc per node. */
#include <stdlib.h>
#include <string.h>

#include "feeder_impl.h"

static size_t al(size_t n) { return (n + 7) & ~(size_t)7; }
static size_t str_size(const cstr *c) { return c->s ? al(c->len + 1) : 0; }

typedef struct bump {
	uint8_t *p;
	size_t used;
} bump;

static void *take(bump *b, size_t n)
{
	void *p = b->p + b->used;
	b->used += al(n);
	return p;
}

static void copy_str(bump *b, cstr *dst, const cstr *src)
{
	*dst = *src;
	if (!src->s)
		return;
	char *d = (char *)take(b, src->len + 1);
	memcpy(d, src->s, src->len);
	d[src->len] = 0;
	dst->s = d;
}

static void *copy_mem(bump *b, const void *src, size_t n)
{
	if (!src)
		return NULL;
	void *d = take(b, n ? n : 1);
	if (n)
		memcpy(d, src, n);
	return d;
}

node_full *chakra__node_full_compact(const node_full *src, bytepool *pool, uint8_t *cls)
{
	size_t size = al(sizeof(node_full)) + str_size(&src->name) + al(src->n_data * 8) +
	              al(src->n_ctrl * 8) + al(src->n_attrs * sizeof(chakra_attr)) + 16;
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 3; j++)
			size += str_size(&src->io[i][j]);
	for (size_t k = 0; k < src->n_attrs; k++) {
		const chakra_attr *a = &src->attrs[k];
		size += str_size(&a->name) + str_size(&a->doc) + str_size(&a->s);
		if (a->lu)
			size += al((a->n ? a->n : 1) * 8);
		if (a->ld)
			size += al((a->n ? a->n : 1) * 8);
		if (a->ls) {
			size += al((a->n ? a->n : 1) * sizeof(cstr));
			for (size_t i = 0; i < a->n; i++)
				size += str_size(&a->ls[i]);
		}
	}
	bump b = { (uint8_t *)bytepool_alloc(pool, size, cls), 0 };
	if (!b.p)
		return NULL;
	node_full *d = (node_full *)take(&b, sizeof *d);
	*d = *src;
	d->size = size;
	copy_str(&b, &d->name, &src->name);
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 3; j++)
			copy_str(&b, &d->io[i][j], &src->io[i][j]);
	d->data = (uint64_t *)copy_mem(&b, src->data, src->n_data * 8);
	d->ctrl = (uint64_t *)copy_mem(&b, src->ctrl, src->n_ctrl * 8);
	d->attrs = (chakra_attr *)copy_mem(&b, src->attrs, src->n_attrs * sizeof(chakra_attr));
	for (size_t k = 0; k < src->n_attrs; k++) {
		const chakra_attr *a = &src->attrs[k];
		chakra_attr *o = &d->attrs[k];
		copy_str(&b, &o->name, &a->name);
		copy_str(&b, &o->doc, &a->doc);
		copy_str(&b, &o->s, &a->s);
		o->lu = (uint64_t *)copy_mem(&b, a->lu, a->n * 8);
		o->ld = (double *)copy_mem(&b, a->ld, a->n * 8);
		if (a->ls) {
			o->ls = (cstr *)take(&b, (a->n ? a->n : 1) * sizeof(cstr));
			for (size_t i = 0; i < a->n; i++)
				copy_str(&b, &o->ls[i], &a->ls[i]);
		}
	}
	return d;
}
