/* SPDX-License-Identifier: Apache-2.0 */
/* The one place synth touches the simulator: the simulator module (lib/sim)
 * runs, in this process, a workload prepared in a temporary folder, so the
 * synth module itself stays independent of the simulator. */
#define CHAKRA_EXPERIMENTAL
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chakra/experimental/sim.h"
#include "chakra/experimental/synth.h"
#include "sim_call.h"

int synth_sim_prepare(char **paths, size_t n, uint32_t npus, const char *prefix, uint64_t *changed,
                      char *err, size_t errlen)
{
	char path[4096];
	*changed = 0;
	if (n != 1 && n != npus) {
		snprintf(err, errlen, "%zu rank(s) cannot be simulated on %" PRIu32 " NPUs", n, npus);
		return -1;
	}
	for (uint32_t r = 0; r < npus; r++) {
		snprintf(path, sizeof path, "%s.%" PRIu32 ".et", prefix, r);
		if (n == 1 && r > 0) {
			/* One rank stands for all: the same file on every NPU. */
			char first[4096];
			snprintf(first, sizeof first, "%s.0.et", prefix);
			const char *base = strrchr(first, '/');
			if (symlink(base ? base + 1 : first, path) != 0) {
				snprintf(err, errlen, "%s: %s", path, strerror(errno));
				return -1;
			}
			continue;
		}
		uint64_t ch = 0;
		if (chakra_synth_simready(paths[n == 1 ? 0 : r], path, 0, &ch, err, errlen) < 0)
			return -1;
		*changed += ch;
	}
	return 0;
}

int synth_sim_finish(const char *prefix, const char *net, const char *sys, const char *groups,
                     const char *model, int *rules, uint64_t *finish, char *err, size_t errlen)
{
	chakra_sim_network nw;
	chakra_sim_system sy;
	chakra_sim_groups gs = { 0 };
	chakra_sim_options o = CHAKRA_SIM_OPTIONS_INIT;
	if (model && strcmp(model, "unaware") != 0 && strcmp(model, "aware") != 0) {
		snprintf(err, errlen, "--model must be unaware or aware, not '%s'", model);
		return -1;
	}
	if (chakra_sim_network_load(&nw, net, err, errlen) < 0 ||
	    chakra_sim_system_load(&sy, sys, err, errlen) < 0 ||
	    (groups && chakra_sim_groups_load(&gs, groups, nw.npus, err, errlen) < 0))
		return -1;
	o.model = model && !strcmp(model, "aware") ? CHAKRA_SIM_AWARE : CHAKRA_SIM_UNAWARE;
	o.groups = groups ? &gs : NULL;
	o.rules = (chakra_sim_rules)*rules;
	chakra_sim *s = NULL;
	int rc = chakra_sim_new(&s, &nw, &sy, &o);
	if (rc == 0)
		rc = chakra_sim_run_prefix(s, prefix);
	if (rc < 0)
		snprintf(err, errlen, "simulating %s: %s", prefix,
		         s ? chakra_sim_errmsg(s) : chakra_strerror(rc));
	else {
		*finish = chakra_sim_finish(s);
		*rules = (int)chakra_sim_rules_used(s);
	}
	chakra_sim_free(s);
	chakra_sim_groups_free(&gs);
	return rc < 0 ? -1 : 0;
}
