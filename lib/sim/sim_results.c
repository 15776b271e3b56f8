/* SPDX-License-Identifier: Apache-2.0 */
/* The last run's results as text (sim.h, chakra_sim_write_results): the
 * JSON object `chakra sim --json` prints, or ASTRA-sim's own lines. */
#include <inttypes.h>

#include "../cbprintf.h"
#include "sim_engine_impl.h"

static const char *const model_names[] = { "unaware", "aware" };

int chakra_sim_write_results(const chakra_sim *s, chakra_sim_results_form form,
                             chakra_write_cb write, void *data)
{
	if (!s || !write || (form != CHAKRA_SIM_RESULTS_JSON &&
	                     form != CHAKRA_SIM_RESULTS_ASTRA_SIM_LOG))
		return CHAKRA_EINVAL;
	uint32_t npus = chakra_sim_npus(s);
	for (uint32_t r = 0; r < npus; r++)
		if (!chakra_sim_npu(s, r))
			return CHAKRA_EINVAL; /* no run, or a failed one */
	if (npus == 0 || (unsigned)s->opt.model > 1)
		return CHAKRA_EINVAL;
	chakra__cbout o = { write, data, 0 };
	if (form == CHAKRA_SIM_RESULTS_ASTRA_SIM_LOG) {
		/* The lines ASTRA-sim prints, for scripts that parse them. */
		for (uint32_t r = 0; r < npus; r++) {
			const chakra_sim_npu_result *p = chakra_sim_npu(s, r);
			uint64_t exposed = p->finish > p->compute ? p->finish - p->compute : 0;
			chakra__cbprintf(&o, "sys[%" PRIu32 "] finished, %" PRIu64 " cycles, exposed "
			                 "communication %" PRIu64 " cycles.\n", r, p->finish, exposed);
		}
		return o.rc;
	}
	chakra__cbprintf(&o, "{\"finish_cycles\":%" PRIu64 ",\"model\":\"%s\",\"nodes\":%" PRIu64
	                 ",\"rules\":\"%s\",\"classes\":%" PRIu32 ",\"npus\":[",
	                 chakra_sim_finish(s), model_names[s->opt.model], chakra_sim_nodes(s),
	                 chakra_sim_rules_used(s) == CHAKRA_SIM_RULES_ASTRA_SIM ? "astra-sim" : "model",
	                 chakra_sim_classes(s));
	for (uint32_t r = 0; r < npus; r++) {
		const chakra_sim_npu_result *p = chakra_sim_npu(s, r);
		chakra__cbprintf(&o, "%s{\"npu\":%" PRIu32 ",\"finish_cycles\":%" PRIu64
		                 ",\"compute_cycles\":%" PRIu64 ",\"exposed_comm_cycles\":%" PRIu64
		                 ",\"comm_busy_cycles\":%" PRIu64 ",\"nodes\":%" PRIu64
		                 ",\"cpu_cycles\":%" PRIu64 "}", r ? "," : "", r, p->finish, p->compute,
		                 p->finish > p->compute ? p->finish - p->compute : 0, p->comm_busy,
		                 p->nodes, p->cpu);
	}
	chakra__cbprintf(&o, "]}\n");
	return o.rc;
}
