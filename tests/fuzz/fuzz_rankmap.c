/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target: the rank-map parser (lib/feeder/rankmap.c). A map is
 * accepted or refused with a "NAME:LINE: what" message; an accepted one is
 * whole: every rank has a class, every class a file, and every rank's
 * substitution has its class's counts of values (read through, so ASan sees
 * any bad pointer). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fuzz_touch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	chakra_rank_map *m = NULL;
	char err[512];
	err[0] = 0;
	int rc = chakra_rank_map_parse(&m, "dir/fuzz.ranks", (const char *)data, size, err, sizeof err);
	if (rc < 0) {
		if (m)
			fuzz_fail("refused map returned", rc, 0, err);
		fuzz_check_errmsg(err);
		if (rc == CHAKRA_ECORRUPT && strncmp(err, "dir/fuzz.ranks:", 15))
			fuzz_fail("message without the file and line", rc, 0, err);
		return 0;
	}
	uint32_t n = chakra_rank_map_ranks(m), c = chakra_rank_map_classes(m);
	if (!n || !c || c > n)
		fuzz_fail("accepted map with bad counts", (int)n, (int)c, "");
	for (uint32_t k = 0; k < c; k++) {
		const char *f = chakra_rank_map_file(m, k);
		if (!f || !f[0])
			fuzz_fail("class without a file", (int)k, 0, "");
		fuzz_sink += strlen(f);
	}
	/* Every rank when few, else a spread of them. */
	uint32_t step = n > 4096 ? n / 4096 : 1;
	for (uint32_t r = 0; r < n; r += step) {
		uint32_t k = chakra_rank_map_class(m, r);
		chakra_rank_subst s;
		if (k >= c || chakra_rank_map_subst(m, r, &s) != 0)
			fuzz_fail("rank without a class", (int)r, (int)k, "");
		for (size_t i = 0; i < s.n_peers; i++)
			fuzz_sink += (uint64_t)(s.peer_from[i] ^ s.peer_to[i]);
		for (size_t i = 0; i < s.n_groups; i++)
			fuzz_sink += strlen(s.group_from[i]) + strlen(s.group_to[i]);
	}
	if (chakra_rank_map_class(m, n) != UINT32_MAX || chakra_rank_map_file(m, c) != NULL)
		fuzz_fail("out-of-range lookup answered", (int)n, (int)c, "");
	chakra_rank_map_free(m);
	return 0;
}
