/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target: the two communicator-group readers ({"id": [ranks]}):
 * the simulator module's (chakra_sim_groups_parse: chakra sim, the replay,
 * project, chakra-replay) and synth fit's (chakra__sy_groups_probe). Byte 0
 * is the NPU count the simulator's reader checks ranks against (0: 2^24,
 * the most synth takes, so both read the same ranks); the rest is the text.
 * What counts as a crash besides the sanitizers: a refusal without a
 * message; an accepted file with an empty group, a rank at or past the NPU
 * count, a rank listed twice, a name defined twice or not NUL-terminated;
 * the synth reader's own checks (sorted unique ranks, every group found by
 * name); the two readers both accepting with different group counts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_touch.h"
#include "sim_model.h"
#include "synth_impl.h"

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	uint32_t npus = data[0] ? data[0] : 1u << 24;
	const char *text = (const char *)data + 1;
	size_t len = size - 1;
	char err[SIM_ERR_LEN];
	err[0] = 0;
	chakra_sim_groups gs;
	memset(&gs, 0, sizeof gs);
	int rc = chakra_sim_groups_parse(&gs, "<fuzz.json>", text, len, npus, err, sizeof err);
	if (rc < 0 && !err[0])
		fuzz_fail("sim groups: refused without a message", rc, 0, "");
	if (rc == 0) {
		char **names = malloc((gs.n ? gs.n : 1) * sizeof *names);
		for (size_t i = 0; i < gs.n; i++) {
			const chakra_sim_group *g = &gs.g[i];
			if (!g->name || !g->n || !g->ranks)
				fuzz_fail("sim groups: an empty group accepted", (int)i, 0, "");
			names[i] = g->name;
			uint32_t *t = malloc(g->n * sizeof *t);
			memcpy(t, g->ranks, g->n * sizeof *t);
			qsort(t, g->n, sizeof *t, cmp_u32);
			for (size_t k = 0; k < g->n; k++) {
				if (t[k] >= npus)
					fuzz_fail("sim groups: a rank past the NPU count", (int)t[k], (int)npus,
					          g->name);
				if (k && t[k] == t[k - 1])
					fuzz_fail("sim groups: a rank listed twice", (int)t[k], 0, g->name);
			}
			free(t);
			if (chakra_sim_groups_find(&gs, g->name, strlen(g->name)) != g)
				fuzz_fail("sim groups: a group not found by its name", (int)i, 0, g->name);
		}
		if (names) {
			qsort(names, gs.n, sizeof *names, cmp_str);
			for (size_t i = 1; i < gs.n; i++)
				if (!strcmp(names[i - 1], names[i]))
					fuzz_fail("sim groups: a name defined twice", (int)i, 0, names[i]);
		}
		free(names);
	}
	size_t ng = 0;
	uint32_t world = 0;
	char serr[512] = "";
	int src = chakra__sy_groups_probe("<fuzz.json>", text, len, &ng, &world, serr, sizeof serr);
	if (src == CHAKRA_EINVAL)
		fuzz_fail("synth groups: its own checks failed", src, 0, serr);
	if (src < 0 && !serr[0])
		fuzz_fail("synth groups: refused without a message", src, 0, "");
	if (src == 0 && ng && !world)
		fuzz_fail("synth groups: groups without a world", (int)ng, 0, "");
	if (!data[0] && rc == 0 && src == 0 && ng != gs.n)
		fuzz_fail("the two readers accept different group counts", (int)gs.n, (int)ng, "");
	chakra_sim_groups_free(&gs);
	return 0;
}
