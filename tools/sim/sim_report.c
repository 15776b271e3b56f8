/* SPDX-License-Identifier: Apache-2.0 */
/* chakra sim's results: the notes on stderr and the results on stdout
 * (ASTRA-sim's lines, JSON or the summary). */
#include <inttypes.h>
#include <string.h>

#include "sim_cmd.h"

static const char *const model_names[] = { "unaware", "aware" };

static const char *rules_name(const chakra_sim *sim)
{
	return chakra_sim_rules_used(sim) == CHAKRA_SIM_RULES_ASTRA_SIM ? "astra-sim" : "model";
}

/* The results on stdout: ASTRA-sim's lines, JSON or the summary. */
void sim_report_results(const chakra_sim *sim, const sim_cli *c, double secs)
{
	uint32_t npus = chakra_sim_npus(sim);
	uint64_t finish = chakra_sim_finish(sim);
	const char *model = model_names[c->model];
	if (c->astra_log) {
		/* The lines ASTRA-sim prints, for scripts that parse them. */
		for (uint32_t r = 0; r < npus; r++) {
			const chakra_sim_npu_result *p = chakra_sim_npu(sim, r);
			uint64_t exposed = p->finish > p->compute ? p->finish - p->compute : 0;
			printf("sys[%" PRIu32 "] finished, %" PRIu64 " cycles, exposed communication %"
			       PRIu64 " cycles.\n", r, p->finish, exposed);
		}
	} else if (c->json) {
		printf("{\"finish_cycles\":%" PRIu64 ",\"model\":\"%s\",\"nodes\":%" PRIu64
		       ",\"rules\":\"%s\",\"classes\":%" PRIu32 ",\"npus\":[", finish, model,
		       chakra_sim_nodes(sim), rules_name(sim), chakra_sim_classes(sim));
		for (uint32_t r = 0; r < npus; r++) {
			const chakra_sim_npu_result *p = chakra_sim_npu(sim, r);
			printf("%s{\"npu\":%" PRIu32 ",\"finish_cycles\":%" PRIu64 ",\"compute_cycles\":%"
			       PRIu64 ",\"exposed_comm_cycles\":%" PRIu64 ",\"comm_busy_cycles\":%" PRIu64
			       ",\"nodes\":%" PRIu64 ",\"cpu_cycles\":%" PRIu64 "}", r ? "," : "", r,
			       p->finish, p->compute, p->finish > p->compute ? p->finish - p->compute : 0,
			       p->comm_busy, p->nodes, p->cpu);
		}
		printf("]}\n");
	} else {
		printf("%-6s %15s %15s %20s %8s\n", "npu", "finish_cycles", "compute_cycles",
		       "exposed_comm_cycles", "nodes");
		for (uint32_t r = 0; r < npus; r++) {
			const chakra_sim_npu_result *p = chakra_sim_npu(sim, r);
			printf("%-6" PRIu32 " %15" PRIu64 " %15" PRIu64 " %20" PRIu64 " %8" PRIu64 "\n", r,
			       p->finish, p->compute, p->finish > p->compute ? p->finish - p->compute : 0,
			       p->nodes);
		}
		printf("finished at %" PRIu64 " cycles (%" PRIu32 " NPUs, %s model, %s rules, %" PRIu64
		       " nodes, %.3f s)\n", finish, npus, model, rules_name(sim), chakra_sim_nodes(sim),
		       secs);
	}
}

void sim_report_notes(const chakra_sim *sim, uint32_t npus)
{
	if (chakra_sim_warning(sim))
		fprintf(stderr, "chakra: warning: %s\n", chakra_sim_warning(sim));
	/* The reduction: what it simulated, or why every NPU was when it tried. */
	uint32_t classes = chakra_sim_classes(sim);
	const char *why = chakra_sim_symmetry(sim);
	if (classes < npus)
		fprintf(stderr, "chakra sim: %" PRIu32 " NPUs in %" PRIu32 " class%s of ranks that run "
		        "the same trace from equivalent places: one NPU simulated per class\n", npus,
		        classes, classes == 1 ? "" : "es");
	else if (why && !strncmp(why, "not symmetric", 13))
		fprintf(stderr, "chakra sim: simulated every NPU: %s\n", why);
	else if (why && !strncmp(why, "the reduced run", 15))
		fprintf(stderr, "chakra sim: simulated every NPU (%s)\n", why);
}
