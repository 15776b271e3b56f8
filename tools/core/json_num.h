/* SPDX-License-Identifier: Apache-2.0 */
/* Exact integer / real parsing of JSON number text (never via double for
 * integers), shared by the JSON readers. */
#ifndef CHAKRA_TOOLS_CORE_JSON_NUM_H
#define CHAKRA_TOOLS_CORE_JSON_NUM_H

#include <stddef.h>
#include <stdint.h>

/* 0 on success; -1 if the text is not an integer in range. */
int json_num_u64(const char *s, size_t len, uint64_t *out);
int json_num_i64(const char *s, size_t len, int64_t *out);
/* Any JSON number, or the strings "nan", "nan:0xBITS" (a NaN's exact bit
 * pattern: 8 hex digits for a float, 16 for a double), "inf", "-inf"
 * (is_str set).
 * is_float: parse as float (strtof) so the value keeps its float bits. */
int json_num_real(const char *s, size_t len, int is_str, int is_float, double *out);
/* Does the number text look like an integer (no '.', 'e', 'E')? */
int json_num_is_int(const char *s, size_t len);

#endif
