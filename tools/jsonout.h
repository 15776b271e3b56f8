/* SPDX-License-Identifier: Apache-2.0 */
/* Small helpers over YAJL's generator shared by stats, timeline and sim: a
 * generator that writes straight to a FILE, and string/number shortcuts. */
#ifndef CHAKRA_TOOLS_JSONOUT_H
#define CHAKRA_TOOLS_JSONOUT_H

#include <stdint.h>
#include <stdio.h>
#include <yajl/yajl_common.h>
#include <yajl/yajl_gen.h>

/* YAJL's default allocator dereferences a failed malloc. Every YAJL
 * parser and generator in the tools is created with these functions: a
 * failed allocation ends the process with "out of memory" after removing
 * temporary outputs (tool_oom_exit), never a crash. Not for library code,
 * which must not exit. */
yajl_alloc_funcs *tool_yajl_alloc(void);

/* Generator printing to f (beautified when pretty, two-space indent). */
yajl_gen jo_open(FILE *f, int pretty);
/* NUL-terminated string; invalid UTF-8 bytes are written as U+FFFD so the
 * output is always valid JSON. */
void jo_str(yajl_gen g, const char *s);
void jo_strn(yajl_gen g, const char *s, size_t len);
void jo_u64(yajl_gen g, uint64_t v);
/* A double printed with up to 6 decimals, trailing zeros dropped. */
void jo_fixed(yajl_gen g, double v);
/* "key": value shortcuts. */
void jo_kv_u64(yajl_gen g, const char *key, uint64_t v);
void jo_kv_str(yajl_gen g, const char *key, const char *v);

#endif
