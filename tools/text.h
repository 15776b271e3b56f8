/* SPDX-License-Identifier: Apache-2.0 */
/* Text escaping for the analysis outputs: UTF-8 validation, DOT quoted
 * strings and XML character data. Node names are arbitrary bytes (quotes,
 * <, >, &, control characters, invalid UTF-8 all occur), so every writer
 * goes through these. */
#ifndef CHAKRA_TOOLS_TEXT_H
#define CHAKRA_TOOLS_TEXT_H

#include <stddef.h>
#include <stdio.h>

#include "utf8.h" /* chakra__utf8_len, the validation (lib/utf8.h) */

/* Inside a DOT "..." string: escapes " and \, control characters become a
 * space, invalid UTF-8 becomes '?'. At most max_chars characters (0 = all);
 * a longer name ends in "...". */
void text_dot(FILE *f, const char *s, size_t len, size_t max_chars);

/* XML character data / attribute value: escapes & < > " ', drops
 * characters XML 1.0 forbids, invalid UTF-8 becomes '?'. */
void text_xml(FILE *f, const char *s, size_t len);

#endif
