/* SPDX-License-Identifier: Apache-2.0 */
/* Internal to synth's fitter (fit.c, fit_walk.c, fit_groups.c). */
#ifndef CHAKRA_SY_FIT_IMPL_H
#define CHAKRA_SY_FIT_IMPL_H

#include "groups.h" /* chakra__group: the one reader (lib/json/groups.c) */
#include "synth_impl.h"

/* ---- communicator groups (fit_groups.c) ---- */
typedef struct sy_gref {
	const char *name;
	size_t i;
} sy_gref;

/* The groups of a group file, found by name. */
typedef struct sy_groups {
	chakra__group *g;
	size_t n;
	uint32_t world;       /* highest rank + 1 */
	sy_gref *byname;         /* sorted by name: found by bisection, not a scan */
} sy_groups;

/* ---- accumulators: what the walk of every rank records ---- */
typedef struct sy_cls_acc {
	sy_vec dur, fanin, nearest, dist, fanout;
} sy_cls_acc;

typedef struct sy_coll_acc {
	int comm_type, group;
	uint32_t gparam;
	sy_vec size, fanin_c, near_c, dist_c, fanin_x, dist_x, dist_f;
} sy_coll_acc;

typedef struct sy_tok_acc {
	int coll, bucket;
	sy_vec gap, first, consumers;
} sy_tok_acc;

typedef struct sy_fitter {
	sy_cls_acc *cls;          /* per vocabulary entry */
	int nvocab;
	sy_coll_acc *coll;
	size_t ncoll;
	sy_tok_acc *tok;
	size_t ntok;
	sy_vec lead, tail;
	/* sequences, deduplicated */
	int32_t **cseq, **kseq;
	size_t *clen, *klen, ncs, nks;
	uint64_t quantum;
	sy_groups G;
	const char *gpath;
	int have_groups;
	uint64_t pg_ignored;
} sy_fitter;

/* Read a group file; 0 or a negative chakra_error with err set. */
int chakra__sy_groups_load(sy_groups *G, const char *path, char *err, size_t errlen);
const chakra__group *chakra__sy_groups_find(const sy_groups *G, const char *name);
void chakra__sy_groups_free(sy_groups *G);
/* Shape of group g among world ranks: SY_GROUP_* and its parameter, or an
 * error naming file when it is none of them. */
int chakra__sy_group_shape(const char *file, const chakra__group *g, uint32_t world, int *kind,
                           uint32_t *param, char *err, size_t errlen);

/* ---- the walk (fit_walk.c) ---- */
/* Record one rank into F (F->quantum set). 0 or a negative chakra_error. */
int chakra__sy_fit_walk(sy_fitter *F, const sy_trace *t, char *err, size_t errlen);
void chakra__sy_fitter_free(sy_fitter *F);

#endif
