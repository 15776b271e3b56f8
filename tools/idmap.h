/* SPDX-License-Identifier: Apache-2.0 */
/* The tools' id -> index map (validate, stats, visualize, timeline): open
 * addressing over 64-bit ids, keyed. Node ids come from files anyone can
 * write, and an unkeyed hash lets a file choose ids that all land in one
 * slot (200k such ids once took validate and stats 13-18 s, quadratic).
 * Each map draws a random key from the system at init, so the ids of a
 * file cannot be chosen to collide: every operation takes expected O(1)
 * whatever the ids (docs/hardening.md). */
#ifndef CHAKRA_TOOLS_IDMAP_H
#define CHAKRA_TOOLS_IDMAP_H

#include <stddef.h>
#include <stdint.h>

#define IDMAP_NONE UINT32_MAX /* "absent"; never stored as a value */

typedef struct tool_idmap {
	uint64_t *keys;
	uint32_t *vals; /* IDMAP_NONE = empty slot */
	size_t cap, count;
	uint64_t seed;
} tool_idmap;

/* Room for `expected` ids before the first growth. 0 or -1 (no memory).
 * A zeroed struct is an empty map too (keyed on first insertion). */
int tool_idmap_init(tool_idmap *m, size_t expected);
void tool_idmap_free(tool_idmap *m);
/* Insert key -> val unless present: 1 inserted, 0 already there (*old set
 * when old is not NULL), -1 out of memory. */
int tool_idmap_put(tool_idmap *m, uint64_t key, uint32_t val, uint32_t *old);
/* The value, or IDMAP_NONE. */
uint32_t tool_idmap_get(const tool_idmap *m, uint64_t key);
/* Insert or overwrite; -1 out of memory. */
int tool_idmap_set(tool_idmap *m, uint64_t key, uint32_t val);

#endif
