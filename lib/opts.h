/* SPDX-License-Identifier: Apache-2.0 */
/* Versioned options, the one check for the core and the modules. Every
 * options struct starts with `unsigned version` and only grows at the
 * end; sizes[v] is the size of version v (sizes[0] unused, n = the
 * current version + 1); defaults is the struct's _INIT value, or NULL
 * when every default is zero. Inline: the modules are built beside the
 * core and cannot reach its hidden functions. */
#ifndef CHAKRA_OPTS_H
#define CHAKRA_OPTS_H

#include <stddef.h>
#include <string.h>
#include "chakra/error.h"

/* options_init: the defaults of that version's fields, and `version`;
 * CHAKRA_EINVAL for NULL or a version this library does not know. */
static inline int chakra__opts_init(void *opts, unsigned version, const void *defaults,
                                    const size_t *sizes, unsigned n)
{
	if (!opts || version < 1 || version >= n)
		return CHAKRA_EINVAL;
	if (defaults)
		memcpy(opts, defaults, sizes[version]);
	else
		memset(opts, 0, sizes[version]);
	memcpy(opts, &version, sizeof version);
	return 0;
}

/* A caller's options into the library's own copy dst (full size dst_size):
 * the defaults, then exactly the bytes of the caller's version, so later
 * fields keep their defaults and nothing past an older caller's struct is
 * read. src NULL: the defaults. CHAKRA_EINVAL (dst holding the defaults)
 * for a version this library does not know. */
static inline int chakra__opts_copy(void *dst, size_t dst_size, const void *src,
                                    const void *defaults, const size_t *sizes, unsigned n)
{
	if (defaults)
		memcpy(dst, defaults, dst_size);
	else
		memset(dst, 0, dst_size);
	if (!src)
		return 0;
	unsigned v;
	memcpy(&v, src, sizeof v);
	if (v < 1 || v >= n)
		return CHAKRA_EINVAL;
	memcpy(dst, src, sizes[v] < dst_size ? sizes[v] : dst_size);
	return 0;
}

#endif
