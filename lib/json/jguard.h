/* SPDX-License-Identifier: Apache-2.0 */
/* YAJL that survives allocation failure (internal to the modules).
 *
 * Every block comes from the allocator hook (chakra_malloc & co.).
 * YAJL uses what its allocator returns without checking it, so a failed
 * malloc inside yajl_parse is a NULL dereference. chakra__jg is an
 * allocator that instead jumps back to the caller's setjmp point, and
 * tracks every block it handed out so that all of them can be freed then
 * (the handle's state is not trusted after the jump):
 *
 *   chakra__jg *g = chakra__jg_new();          // NULL: out of memory
 *   if (!g) ...;
 *   if (setjmp(g->fail)) { chakra__jg_release(g); return CHAKRA_ENOMEM; }
 *   yajl_handle h = yajl_alloc(&cb, &g->funcs, ctx);
 *   ... yajl_parse(h, ...) ...
 *   yajl_free(h); chakra__jg_free(g);
 *
 * Anything the code between setjmp and the jump changes and still reads
 * after it must live in memory (the heap, or a volatile local), per C's
 * setjmp rules. */
#ifndef CHAKRA_JGUARD_H
#define CHAKRA_JGUARD_H

#include <setjmp.h>
#include <stddef.h>
#include <yajl/yajl_common.h>
#include <yajl/yajl_tree.h>

typedef struct chakra__jg_block chakra__jg_block;

typedef struct chakra__jg {
	jmp_buf fail;           /* where an allocation failure jumps to */
	yajl_alloc_funcs funcs; /* give these to yajl_alloc / yajl_gen_alloc */
	chakra__jg_block *head; /* every live block */
} chakra__jg;

/* A guard on the heap (it must outlive the setjmp frame's locals), or NULL. */
chakra__jg *chakra__jg_new(void);
/* After a normal end (the YAJL handle already freed): the guard only. */
void chakra__jg_free(chakra__jg *g);
/* After a jump (or instead of yajl_free): every block still live, then
 * the guard. The handle must not be used again. */
void chakra__jg_release(chakra__jg *g);

/* yajl_tree_parse of text[0..len) (no NUL needed; comments allowed, as
 * yajl_tree_parse does) whose allocations are all checked and go through
 * the allocator hook: 0 with *out set (free with chakra__json_tree_free,
 * never yajl_tree_free, which uses the C library's free), CHAKRA_ENOMEM,
 * or -1 for bad JSON with YAJL's message in err (one line). */
int chakra__json_tree(const char *text, size_t len, yajl_val *out, char *err, size_t errlen);
void chakra__json_tree_free(yajl_val v);

#endif
