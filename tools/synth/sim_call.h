/* SPDX-License-Identifier: Apache-2.0 */
/* Simulated iteration time for `synth compare` (sim_call.c). */
#ifndef CHAKRA_TOOLS_SYNTH_SIM_CALL_H
#define CHAKRA_TOOLS_SYNTH_SIM_CALL_H

#include <stddef.h>
#include <stdint.h>

/* Write PREFIX.0.et ... PREFIX.{npus-1}.et ready for the simulator: a copy
 * of each rank (collectives without comm_type become compute), or, for one
 * rank, that rank on every NPU. *changed = nodes changed. 0 or -1 + err. */
int synth_sim_prepare(char **paths, size_t n, uint32_t npus, const char *prefix, uint64_t *changed,
                      char *err, size_t errlen);
/* Simulate PREFIX (lib/sim, in process) and return its finish cycle.
 * model ("unaware" or "aware") and groups may be NULL. *rules: the
 * simulator's rules to follow (chakra_sim_rules; 0: as it picks for the
 * workload), set to those it followed, so that a synthetic workload is
 * simulated as the real one was. */
int synth_sim_finish(const char *prefix, const char *net, const char *sys, const char *groups,
                     const char *model, int *rules, uint64_t *finish, char *err, size_t errlen);

#endif
