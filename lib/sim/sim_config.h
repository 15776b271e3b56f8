/* SPDX-License-Identifier: Apache-2.0 */
/* The simulator's configuration parsers (sim_config*.c): what they share.
 * Internal. */
#ifndef CHAKRA_SIM_CONFIG_H
#define CHAKRA_SIM_CONFIG_H

#include <stddef.h>
#include <string.h>
#include "jflat.h"

#include "sim_model.h"
#include "../modmem.h"

#if defined(__GNUC__)
#  define SIM_CFG_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#  define SIM_CFG_PRINTF(a, b)
#endif

/* Configuration files are small; a larger one is refused before parsing
 * (libyaml's time grows with the square of the nesting depth). */
#define SIM_CONFIG_MAX ((size_t)16 << 20)
/* Deepest nesting accepted in any configuration file: the formats need 2. */
#define SIM_CONFIG_DEPTH 64

/* A message in err (SIM_ERR_LEN) and CHAKRA_ECONFIG. */
int chakra__sim_cfg_fail(char *err, const char *fmt, ...) SIM_CFG_PRINTF(2, 3);
/* "PATH: out of memory" in err and CHAKRA_ENOMEM. */
int chakra__sim_cfg_nomem(char *err, const char *path);
/* strndup through the allocator hook. */
char *chakra__sim_cfg_strndup(const char *s, size_t len);
/* The whole file, NUL-terminated, or NULL with err and *code. */
char *chakra__sim_cfg_slurp(const char *path, size_t *len, char *err, int *code);
/* rc, with e copied into the caller's err (any size) when rc != 0. */
int chakra__sim_cfg_report(int rc, const char *e, char *err, size_t errlen);
/* Their names within the parsers. */
#define fail(...) chakra__sim_cfg_fail(__VA_ARGS__)
#define nomem(err, path) chakra__sim_cfg_nomem(err, path)
#define mstrndup(s, len) chakra__sim_cfg_strndup(s, len)
#define slurp_text(path, len, err, code) chakra__sim_cfg_slurp(path, len, err, code)
#define report(rc, e, err, errlen) chakra__sim_cfg_report(rc, e, err, errlen)

/* ---- The flat JSON reader (lib/json/jflat.h) ---- */
/* The system files are one object of scalars and flat lists; the reader
 * records each top-level key with its line and values. */
typedef chakra__jitem jitem;
typedef chakra__jentry jentry;
typedef chakra__jflat jflat;

/* Parses text (named path in messages) into j: 0, or an error with err. */
static inline int chakra__sim_jflat_parse(jflat *j, const char *path, const char *text,
                                          size_t len, char *err)
{
	memset(j, 0, sizeof *j);
	if (len > SIM_CONFIG_MAX)
		return fail(err, "%s: larger than %zu MiB: not a configuration file", path,
		            SIM_CONFIG_MAX >> 20);
	return chakra__jflat_parse(j, path, text, len, err, SIM_ERR_LEN);
}
#define jflat_parse(j, path, text, len, err) chakra__sim_jflat_parse(j, path, text, len, err)
#define jflat_free(j) chakra__jflat_free(j)

#endif
