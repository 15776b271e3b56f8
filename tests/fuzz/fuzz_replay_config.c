/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target: chakra-replay's --dims parser (lib/replay/topo.c; its
 * group files and network YAML go through the simulator's parsers, fuzzed
 * by fuzz_sim_config). What it accepts must be usable: 1..8 dimensions,
 * none empty, and the same shape printed back as D0xD1... parses again to
 * itself. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHAKRA_EXPERIMENTAL 1
#include "chakra/experimental/replay.h"
#include "fuzz_touch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char s[256];
	size_t n = size < sizeof s - 1 ? size : sizeof s - 1;
	memcpy(s, data, n);
	s[n] = 0;
	uint32_t dims[CHAKRA_REPLAY_MAX_DIMS], again[CHAKRA_REPLAY_MAX_DIMS];
	int rc = chakra_replay_dims_parse(s, dims, CHAKRA_REPLAY_MAX_DIMS);
	if (rc == 0 || rc > CHAKRA_REPLAY_MAX_DIMS)
		fuzz_fail("bad dimension count", rc, 0, s);
	if (rc < 0)
		return 0;
	char back[256];
	size_t o = 0;
	for (int d = 0; d < rc; d++) {
		if (dims[d] == 0)
			fuzz_fail("empty dimension accepted", d, 0, s);
		o += (size_t)snprintf(back + o, sizeof back - o, "%s%" PRIu32, d ? "x" : "", dims[d]);
	}
	if (chakra_replay_dims_parse(back, again, CHAKRA_REPLAY_MAX_DIMS) != rc ||
	    memcmp(dims, again, (size_t)rc * sizeof *dims))
		fuzz_fail("shape does not parse back to itself", rc, 0, back);
	return 0;
}
