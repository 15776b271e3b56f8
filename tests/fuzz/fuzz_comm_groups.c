/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target: the one communicator-group reader ({"id": [ranks]},
 * chakra__groups_parse in lib/json/groups.c), and the two readers' users
 * over it: the simulator module's chakra_sim_groups_parse (chakra sim, the
 * replay, project, chakra-replay) and synth fit's (chakra__sy_groups_probe).
 * Byte 0 is the NPU count ranks are checked against (0: 2^24, the most
 * synth takes); the rest is the text. What counts as a crash besides the
 * sanitizers: a refusal without a message; an accepted file with an empty
 * group, a rank at or past the NPU count, a rank listed twice, a name
 * defined twice or not NUL-terminated; a text the writer wrote back from
 * what was read that reads back differently; the users disagreeing with
 * the reader (acceptance, group count, ranks); synth's own checks (sorted
 * unique ranks, every group found by name). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_touch.h"
#include "groups.h"
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

typedef struct buf {
	char *p;
	size_t n;
} buf;

static int buf_cb(void *data, const void *s, size_t n)
{
	buf *b = data;
	char *q = realloc(b->p, b->n + n + 1);
	if (!q)
		return -1;
	memcpy(q + b->n, s, n);
	b->p = q;
	b->n += n;
	return 0;
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
	chakra__groups gs;
	int rc = chakra__groups_parse(&gs, "<fuzz.json>", text, len, npus, err, sizeof err);
	if (rc < 0 && !err[0])
		fuzz_fail("groups: refused without a message", rc, 0, "");
	if (rc < 0 && (gs.n || gs.g))
		fuzz_fail("groups: a refusal left groups behind", rc, (int)gs.n, err);
	if (rc == 0) {
		char **names = malloc((gs.n ? gs.n : 1) * sizeof *names);
		for (size_t i = 0; i < gs.n; i++) {
			const chakra__group *g = &gs.g[i];
			if (!g->name || !g->n || !g->ranks)
				fuzz_fail("groups: an empty group accepted", (int)i, 0, "");
			names[i] = g->name;
			uint32_t *t = malloc(g->n * sizeof *t);
			memcpy(t, g->ranks, g->n * sizeof *t);
			qsort(t, g->n, sizeof *t, cmp_u32);
			for (size_t k = 0; k < g->n; k++) {
				if (t[k] >= npus)
					fuzz_fail("groups: a rank past the NPU count", (int)t[k], (int)npus,
					          g->name);
				if (k && t[k] == t[k - 1])
					fuzz_fail("groups: a rank listed twice", (int)t[k], 0, g->name);
			}
			free(t);
		}
		if (names) {
			qsort(names, gs.n, sizeof *names, cmp_str);
			for (size_t i = 1; i < gs.n; i++)
				if (!strcmp(names[i - 1], names[i]))
					fuzz_fail("groups: a name defined twice", (int)i, 0, names[i]);
		}
		free(names);
		/* the one writer: what it writes reads back the same */
		buf b = { NULL, 0 };
		chakra__groups_out w;
		chakra__groups_out_begin(&w, buf_cb, &b);
		for (size_t i = 0; i < gs.n; i++)
			chakra__groups_out_list(&w, gs.g[i].name, gs.g[i].ranks, gs.g[i].n);
		if (chakra__groups_out_end(&w) == 0) {
			chakra__groups back;
			char e2[SIM_ERR_LEN] = "";
			if (chakra__groups_parse(&back, "<written>", b.p, b.n, npus, e2, sizeof e2) < 0)
				fuzz_fail("groups: the writer's text does not read back", 0, 0, e2);
			if (back.n != gs.n)
				fuzz_fail("groups: written and read back, another group count", (int)gs.n,
				          (int)back.n, "");
			for (size_t i = 0; i < gs.n && i < back.n; i++)
				if (strcmp(back.g[i].name, gs.g[i].name) || back.g[i].n != gs.g[i].n ||
				    memcmp(back.g[i].ranks, gs.g[i].ranks, gs.g[i].n * sizeof *gs.g[i].ranks))
					fuzz_fail("groups: written and read back, another group", (int)i, 0,
					          gs.g[i].name);
			chakra__groups_free(&back);
		}
		free(b.p);
	}
	/* the simulator's reader: the same groups, in its own blocks */
	chakra_sim_groups sg;
	memset(&sg, 0, sizeof sg);
	char serr[SIM_ERR_LEN] = "";
	int src = chakra_sim_groups_parse(&sg, "<fuzz.json>", text, len, npus, serr, sizeof serr);
	if (src < 0 && !serr[0])
		fuzz_fail("sim groups: refused without a message", src, 0, "");
	if ((src == 0) != (rc == 0) && len <= ((size_t)16 << 20))
		fuzz_fail("sim groups: accepts otherwise than the reader", src, rc, serr);
	if (src == 0 && rc == 0) {
		if (sg.n != gs.n)
			fuzz_fail("sim groups: another group count", (int)sg.n, (int)gs.n, "");
		for (size_t i = 0; i < sg.n && i < gs.n; i++) {
			if (strcmp(sg.g[i].name, gs.g[i].name) || sg.g[i].n != gs.g[i].n ||
			    memcmp(sg.g[i].ranks, gs.g[i].ranks, gs.g[i].n * sizeof *gs.g[i].ranks))
				fuzz_fail("sim groups: another group", (int)i, 0, gs.g[i].name);
			if (chakra_sim_groups_find(&sg, sg.g[i].name, strlen(sg.g[i].name)) != &sg.g[i])
				fuzz_fail("sim groups: a group not found by its name", (int)i, 0, sg.g[i].name);
		}
	}
	chakra_sim_groups_free(&sg);
	/* synth fit's: sorted, indexed by name */
	size_t ng = 0;
	uint32_t world = 0;
	char yerr[512] = "";
	int yrc = chakra__sy_groups_probe("<fuzz.json>", text, len, &ng, &world, yerr, sizeof yerr);
	if (yrc == CHAKRA_EINVAL)
		fuzz_fail("synth groups: its own checks failed", yrc, 0, yerr);
	if (yrc < 0 && !yerr[0])
		fuzz_fail("synth groups: refused without a message", yrc, 0, "");
	if (yrc == 0 && ng && !world)
		fuzz_fail("synth groups: groups without a world", (int)ng, 0, "");
	if (!data[0] && rc == 0 && yrc == 0 && ng != gs.n)
		fuzz_fail("synth groups: another group count than the reader", (int)gs.n, (int)ng, "");
	chakra__groups_free(&gs);
	return 0;
}
