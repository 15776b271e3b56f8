/* SPDX-License-Identifier: Apache-2.0 */
/* chakra predict check, in files by job: predict_check_stats.c the error
 * statistics (Spearman's rank correlation), predict_check_iter.c the
 * iterations against measurement CSVs, predict_check_nccl.c the
 * collectives against nccl-tests logs, cmd_predict_check.c the command. */
#ifndef CHAKRA_TOOLS_PREDICT_CHECK_H
#define CHAKRA_TOOLS_PREDICT_CHECK_H

#include <stddef.h>

#include "gpt_cli.h"
#include "jsonout.h"

typedef struct stat_acc {
	double sum, max;
	size_t n;
} stat_acc;

void pc_acc_add(stat_acc *a, double e);
/* qsort order of doubles */
int pc_cmp_dbl(const void *x, const void *y);
/* Spearman's rank correlation of a and b (ties share their mean rank);
 * NAN when it is not defined. */
double pc_spearman(const double *a, const double *b, size_t n);
/* "k": v, or null for a value that is not finite. */
void pc_kv_d(yajl_gen y, const char *k, double v);

/* The two checks; each returns the command's exit status. */
int pc_check_iterations(const char *cmd, const char **files, int nfiles, gpt_cli *g,
                        const gpt_rows *rt, unsigned hm, unsigned hk, int json, int show_rows);
int pc_check_nccl(const char *cmd, const char **files, int nfiles, gpt_cli *g,
                  uint64_t min_bytes, int json, int show_rows);

#endif
