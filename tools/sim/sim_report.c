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

static int write_stdout(void *data, const void *buf, size_t len)
{
	(void)data;
	return fwrite(buf, 1, len, stdout) == len ? 0 : -1;
}

/* The results on stdout: ASTRA-sim's lines, JSON or the summary. */
void sim_report_results(const chakra_sim *sim, const sim_cli *c, double secs)
{
	uint32_t npus = chakra_sim_npus(sim);
	uint64_t finish = chakra_sim_finish(sim);
	const char *model = model_names[c->model];
	if (c->astra_log || c->json) {
		/* (a failed write shows at the caller's fflush of stdout) */
		(void)chakra_sim_write_results(sim, c->json && !c->astra_log ? CHAKRA_SIM_RESULTS_JSON
		                               : CHAKRA_SIM_RESULTS_ASTRA_SIM_LOG, write_stdout, NULL);
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
