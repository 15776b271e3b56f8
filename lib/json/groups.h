/* SPDX-License-Identifier: Apache-2.0 */
/* Communicator-group files (PREFIX.comm_groups.json, ASTRA-sim's format:
 * one object, each key a group's name, each value its list of ranks):
 * the one reader and the one writer every module uses (the simulator,
 * synth, the converter, perf's projection, predict). Internal. */
#ifndef CHAKRA_JSON_GROUPS_H
#define CHAKRA_JSON_GROUPS_H

#include <stddef.h>
#include <stdint.h>
#include "chakra/writer.h"

typedef struct chakra__group {
	char *name;          /* NUL-terminated (a key cut at an escaped NUL) */
	uint32_t *ranks;     /* in file order; none twice */
	size_t n;            /* >= 1 */
	unsigned long line;  /* of the key, for later messages */
} chakra__group;

typedef struct chakra__groups {
	chakra__group *g;    /* in file order; no name twice */
	size_t n;
} chakra__groups;

/* Parses text[0..len) (path names it in messages). Every group is a
 * non-empty list of distinct integer ranks in 0..npus-1 and no name is
 * defined twice. 0, CHAKRA_ECONFIG with "PATH:LINE: what is wrong" in err,
 * or CHAKRA_ENOMEM ("PATH: out of memory"). Memory through the allocator
 * hook; *gs is empty after a failure. */
int chakra__groups_parse(chakra__groups *gs, const char *path, const char *text, size_t len,
                         uint32_t npus, char *err, size_t errlen);
void chakra__groups_free(chakra__groups *gs);

/* The writer: {"NAME": [R, R, ...], ...} with one group a line, the same
 * bytes whichever module writes them:
 *   chakra__groups_out o; chakra__groups_out_begin(&o, cb, data);
 *   per group: chakra__groups_out_group(&o, name, len); per member:
 *   chakra__groups_out_rank(&o, r); then chakra__groups_out_end(&o).
 * Each returns 0 or the first non-zero return of cb (later calls do
 * nothing). */
typedef struct chakra__groups_out {
	chakra_write_cb cb;
	void *data;
	int rc;
	int ngroups;         /* groups begun */
	int nranks;          /* members written in the current group */
} chakra__groups_out;

int chakra__groups_out_begin(chakra__groups_out *o, chakra_write_cb cb, void *data);
int chakra__groups_out_group(chakra__groups_out *o, const char *name, size_t len);
int chakra__groups_out_rank(chakra__groups_out *o, uint64_t rank);
int chakra__groups_out_end(chakra__groups_out *o);
/* A whole group from an array. */
int chakra__groups_out_list(chakra__groups_out *o, const char *name, const uint32_t *ranks,
                            size_t n);

#endif
