/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target: `chakra sim`'s configuration parsers
 * (lib/sim/sim_config.c, the simulator module). Byte 0 picks the parser: 0 network YAML,
 * 1 system JSON, 2 communicator groups JSON (byte 1: NPU count); the rest
 * is the text. A parser must accept or fail with a message, and what it
 * accepts must be usable: dimensions and sizes within their bounds. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_touch.h"
#include "sim_model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	int which = data[0] % 3;
	uint32_t npus = data[1];
	const char *text = (const char *)data + 2;
	size_t len = size - 2;
	char err[SIM_ERR_LEN];
	err[0] = 0;
	int rc;
	if (which == 0) {
		chakra_sim_network net;
		memset(&net, 0, sizeof net);
		rc = chakra_sim_network_parse(&net, "<fuzz.yml>", text, len, err, sizeof err);
		if (rc == 0) {
			if (net.ndims < 1 || net.ndims > SIM_MAX_DIMS)
				fuzz_fail("network accepted with a bad dimension count", net.ndims, 0, "");
			uint64_t prod = 1;
			for (int d = 0; d < net.ndims; d++) {
				if (net.size[d] == 0)
					fuzz_fail("network accepted with an empty dimension", d, 0, "");
				prod *= net.size[d];
			}
			if (prod != net.npus)
				fuzz_fail("npus is not the product of the sizes", (int)prod, (int)net.npus, "");
			for (uint32_t r = 0; r < net.npus && r < 64; r++)
				for (int d = 0; d < net.ndims; d++)
					if (chakra__sim_coord(&net, r, d) >= net.size[d])
						fuzz_fail("coordinate out of range", (int)r, d, "");
		}
	} else if (which == 1) {
		chakra_sim_system sys;
		memset(&sys, 0, sizeof sys);
		rc = chakra_sim_system_parse(&sys, "<fuzz.json>", text, len, err, sizeof err);
		if (rc == 0)
			for (int i = 0; i < CHAKRA_SIM_IMPL_COUNT; i++)
				if (sys.n_impl[i] < 0 || sys.n_impl[i] > SIM_MAX_DIMS)
					fuzz_fail("system accepted with a bad implementation count", i,
					          sys.n_impl[i], "");
	} else {
		chakra_sim_groups gs;
		memset(&gs, 0, sizeof gs);
		rc = chakra_sim_groups_parse(&gs, "<fuzz.json>", text, len, npus, err, sizeof err);
		if (rc == 0) {
			for (size_t i = 0; i < gs.n; i++) {
				if (!gs.g[i].name)
					fuzz_fail("group without a name", (int)i, 0, "");
				for (size_t k = 0; k < gs.g[i].n; k++)
					if (npus && gs.g[i].ranks[k] >= npus)
						fuzz_fail("group rank out of range", (int)gs.g[i].ranks[k], (int)npus,
						          gs.g[i].name);
				if (chakra_sim_groups_find(&gs, gs.g[i].name, strlen(gs.g[i].name)) == NULL)
					fuzz_fail("group not found by its name", (int)i, 0, gs.g[i].name);
			}
		}
		chakra_sim_groups_free(&gs);
	}
	if (rc != 0 && !err[0])
		fuzz_fail("parser failed without a message", rc, which, "");
	return 0;
}
