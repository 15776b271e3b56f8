/* SPDX-License-Identifier: Apache-2.0 */
/* The flat JSON reader (internal): one object of scalars and flat lists,
 * as the simulator's system files and the communicator-group files are;
 * each top-level key recorded in file order with its line and values, a
 * nested value only marked. A format of the driver (jdrive.h). */
#ifndef CHAKRA_JSON_JFLAT_H
#define CHAKRA_JSON_JFLAT_H

#include <stddef.h>
#include "jdrive.h"

/* Deepest nesting accepted (the formats need 2). */
#define CHAKRA__JFLAT_DEPTH 64

typedef struct chakra__jitem {
	int is_str;         /* 1 a string, -1 null, 0 a number or bool */
	int is_bool;
	double num;         /* a number (strtod), a bool as 0/1 */
	int is_int;         /* a number written without '.', 'e' or 'E'; a bool */
	char *str;
} chakra__jitem;

typedef struct chakra__jentry {
	char *key;          /* NUL-terminated (the name cut at an escaped NUL) */
	unsigned long line;
	int is_list;
	int is_object;      /* a nested object or list */
	chakra__jitem *items;
	size_t n, cap;
} chakra__jentry;

typedef struct chakra__jflat {
	chakra__json_ctx j; /* first: the driver's */
	const char *text;
	size_t len;
	int depth;          /* 1 = top-level object */
	int list_depth;
	chakra__jentry *e;
	size_t n, cap;
	int bad_top;
	unsigned long bad_line;
	int oom, too_deep;  /* why a handler stopped the parse */
	int rc;             /* the parse's error code */
	size_t errlen;
	size_t line_off;    /* line number of the text up to line_off */
	unsigned long line_no;
} chakra__jflat;

/* Parses text[0..len) (path names it in messages) into j: 0, or
 * CHAKRA_ECONFIG with "PATH:LINE: what" in err[0..errlen), or
 * CHAKRA_ENOMEM ("PATH: out of memory"); j is empty after a failure. */
int chakra__jflat_parse(chakra__jflat *j, const char *path, const char *text, size_t len,
                        char *err, size_t errlen);
void chakra__jflat_free(chakra__jflat *j);

/* A message in err[0..errlen) (none when err is NULL); returns rc. */
int chakra__json_errf(char *err, size_t errlen, int rc, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 4, 5)))
#endif
	;

#endif
