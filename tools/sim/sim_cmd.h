/* SPDX-License-Identifier: Apache-2.0 */
/* chakra sim's parts, shared by its files: the command line (sim_cli.c),
 * the results on stdout and stderr (sim_report.c); cmd_sim.c runs them
 * (the --events and --timeline writer is the library's chakra_sim_trace). */
#ifndef CHAKRA_TOOLS_SIM_CMD_H
#define CHAKRA_TOOLS_SIM_CMD_H

#include <stdint.h>
#include <stdio.h>

#define CHAKRA_EXPERIMENTAL
#include "chakra/experimental/sim.h"
#include "common.h"
#include "opts.h"

/* The command line. */
typedef struct sim_cli {
	const char *workload, *network, *system, *groups, *timeline, *events, *ignored;
	int model, deps, json, astra_log, force, replay, rules, durations, streams, no_symmetry;
	uint64_t window, memory;
	tool_list scale, delay; /* --compute-scale [R=]F, --start-delay R=C */
} sim_cli;

#define SIM_CLI_UNSET UINT64_MAX /* --window not given (0 is a bad value, not "the default") */

/* Reads argv into c: TOOL_PARSED, TOOL_HELP_SHOWN or an exit status. */
int sim_cli_parse(sim_cli *c, int argc, char **argv);

/* The per-rank compute scales and start delays of --compute-scale and
 * --start-delay (NULL when not given): 0, or an exit status (printed). */
int sim_cli_rank_arrays(const char *cmd, const sim_cli *c, uint32_t npus, double **scale,
                        uint64_t **delay);

/* The notes on stderr after a run: the simulator's warning, and the
 * symmetry reduction (what it simulated, or why every NPU was). */
void sim_report_notes(const chakra_sim *sim, uint32_t npus);
/* The results on stdout: ASTRA-sim's lines, JSON or the summary. */
void sim_report_results(const chakra_sim *sim, const sim_cli *c, double secs);

#endif
