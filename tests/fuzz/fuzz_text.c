/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target: the ASTRA-sim 1.0 text workload parser used by
 * `chakra convert text` (tools/gen/textwl.c). The parser reads a path, so
 * the input goes through a temporary file. What it accepts must be
 * consistent: layer count, names NUL-terminated, enums in range. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fuzz_tmp.h"
#include "fuzz_touch.h"
#include "textwl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char p[128];
	fuzz_tmp_write("wl.txt", data, size, p, sizeof p);
	text_workload w;
	if (text_workload_load(&w, p) == 0) {
		if (w.nlayers && !w.layers)
			fuzz_fail("layers missing", (int)w.nlayers, 0, "");
		if (!text_policy_name(w.policy))
			fuzz_fail("policy without a name", (int)w.policy, 0, "");
		for (uint32_t i = 0; i < w.nlayers; i++) {
			const text_layer *l = &w.layers[i];
			if (!memchr(l->name, 0, sizeof l->name))
				fuzz_fail("layer name not terminated", (int)i, 0, "");
			for (int ph = 0; ph < 3; ph++) {
				if ((unsigned)l->coll[ph] > TC_ALLTOALL)
					fuzz_fail("collective out of range", (int)l->coll[ph], ph, "");
				fuzz_sink += l->compute[ph] + l->comm_size[ph];
			}
		}
	}
	text_workload_free(&w);
	return 0;
}
