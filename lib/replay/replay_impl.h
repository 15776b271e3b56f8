/* SPDX-License-Identifier: Apache-2.0 */
/* Internals shared by the replay module's files (lib/replay). */
#ifndef CHAKRA_REPLAY_IMPL_H
#define CHAKRA_REPLAY_IMPL_H

#ifndef CHAKRA_EXPERIMENTAL
#define CHAKRA_EXPERIMENTAL 1
#endif
#include "../modmem.h"
#include "../opts.h"
#include "chakra/chakra.h"
#include "chakra/experimental/replay.h"

/* printf into err (when given) and return code. */
int chakra__replay_fail(char *err, size_t errlen, int code, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 4, 5)))
#endif
	;

/* uint64 keys, values are indices: the graph module's keyed id map
 * (chakra_idmap), created on the first put so `= { 0 }` is empty. */
typedef struct chakra__replay_map {
	struct chakra_idmap *m;
} chakra__replay_map;

int chakra__replay_map_put(chakra__replay_map *m, uint64_t key, uint32_t val);
/* The value, or -1. */
long chakra__replay_map_get(const chakra__replay_map *m, uint64_t key);
void chakra__replay_map_free(chakra__replay_map *m);

#endif
