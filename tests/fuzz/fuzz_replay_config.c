/* libFuzzer target: chakra-replay's input parsers (lib/replay/topo.c).
 * Byte 0 picks the parser: 0 communicator groups JSON (byte 1: rank
 * count), 1 a network YAML's npus_count, 2 a --dims shape; the rest is the
 * text. A parser must accept or fail with a message, and what it accepts
 * must be usable: every rank in range, no rank twice in a group, ids
 * found again by name, counts positive. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHAKRA_EXPERIMENTAL 1
#include "chakra/experimental/replay.h"
#include "fuzz_touch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	int which = data[0] % 3;
	uint32_t nranks = data[1];
	const char *text = (const char *)data + 2;
	size_t len = size - 2;
	char err[CHAKRA_REPLAY_ERR_LEN];
	err[0] = 0;
	int rc;
	if (which == 0) {
		chakra_replay_groups *g = NULL;
		rc = chakra_replay_groups_parse(&g, "<fuzz.json>", text, len, nranks, err, sizeof err);
		if (rc == 0) {
			for (size_t i = 0; i < chakra_replay_groups_count(g); i++) {
				const char *name = chakra_replay_groups_name(g, i);
				if (chakra_replay_groups_find(g, name, strlen(name)) != (long)i)
					fuzz_fail("group not found by its own id", (int)i, 0, name);
				size_t n;
				const uint32_t *rs = chakra_replay_groups_ranks(g, i, &n);
				if (n == 0)
					fuzz_fail("empty group accepted", (int)i, 0, name);
				for (size_t j = 0; j < n; j++) {
					if (rs[j] >= nranks)
						fuzz_fail("rank out of range", (int)rs[j], (int)nranks, name);
					for (size_t k = 0; k < j; k++)
						if (rs[k] == rs[j])
							fuzz_fail("rank listed twice", (int)rs[j], 0, name);
				}
			}
		} else if (g) {
			fuzz_fail("failed parse left a handle", rc, 0, err);
		}
		chakra_replay_groups_free(g);
	} else if (which == 1) {
		uint32_t dims[CHAKRA_REPLAY_MAX_DIMS];
		rc = chakra_replay_network_dims_parse("<fuzz.yml>", text, len, dims,
		                                      CHAKRA_REPLAY_MAX_DIMS, err, sizeof err);
		if (rc == 0 || rc > CHAKRA_REPLAY_MAX_DIMS)
			fuzz_fail("bad dimension count", rc, 0, "");
		for (int d = 0; d < rc; d++)
			if (dims[d] == 0)
				fuzz_fail("empty dimension accepted", d, 0, "");
	} else {
		char s[256];
		size_t n = len < sizeof s - 1 ? len : sizeof s - 1;
		memcpy(s, text, n);
		s[n] = 0;
		uint32_t dims[CHAKRA_REPLAY_MAX_DIMS];
		rc = chakra_replay_dims_parse(s, dims, CHAKRA_REPLAY_MAX_DIMS);
		if (rc == 0 || rc > CHAKRA_REPLAY_MAX_DIMS)
			fuzz_fail("bad dimension count", rc, 0, s);
		for (int d = 0; d < rc; d++)
			if (dims[d] == 0)
				fuzz_fail("empty dimension accepted", d, 0, s);
		return 0;
	}
	if (rc < 0)
		fuzz_check_errmsg(err);
	return 0;
}
