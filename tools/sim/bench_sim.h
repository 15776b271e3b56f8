/* SPDX-License-Identifier: Apache-2.0 */
/* chakra bench sim's parts: the workload and configurations it writes
 * (bench_sim_workload.c) and what it measures (bench_sim_measure.c);
 * cmd_bench_sim.c parses the options and prints the figures. */
#ifndef CHAKRA_TOOLS_BENCH_SIM_H
#define CHAKRA_TOOLS_BENCH_SIM_H

#include <stddef.h>
#include <stdint.h>

#define CHAKRA_EXPERIMENTAL
#include "chakra/experimental/sim.h"

/* The network (dimension 0 a Ring, the others Switches, 50 GB/s, 500 ns)
 * and the system (ring per dimension) of shape dims[0..nd-1], as text. */
void bench_sim_configs(const uint32_t *dims, int nd, char *net_text, size_t net_len,
                       char *sys_text, size_t sys_len);

/* network.yml, system.json and the rank map: left alone when they already
 * hold the text, else written under the output rule (an other file there
 * only with -f). 0 or -1 (printed). */
int bench_sim_write_text(const char *path, const char *text, int force);

/* The workload PREFIX (PREFIX = DIR/bench) of npus ranks x nodes nodes,
 * generated unless it is there: a file per rank (files) or one trace and
 * a rank map. *have: it was there; *have_files: it is a file per rank.
 * 0, or an exit status (printed). */
int bench_sim_workload(const char *prefix, const char *dir, uint64_t npus, uint64_t nodes,
                       int files, int force, int *have, int *have_files);

/* Process CPU seconds: the machine is shared, so wall time alone misleads. */
double bench_sim_cpu_now(void);

/* The floor: every node of the first ranks ranks of PREFIX (all: 0)
 * through its feeder, no model; *count: the nodes fed. 0 or -1 (printed). */
int bench_sim_feed_all(const char *prefix, uint64_t window, uint64_t window_bytes, size_t ranks,
                       uint64_t *count);

typedef struct bench_run {
	double wall, cpu;
	long rss_kib;
	uint64_t finish, nodes, events;
	uint32_t classes;
} bench_run;

/* runs runs of the simulation (best wall and CPU; the first run's peak
 * RSS), on every NPU or one per class. 0, or 1 after an error. */
int bench_sim_time(chakra_sim *sim, const char *prefix, uint64_t runs, bench_run *out);

#endif
