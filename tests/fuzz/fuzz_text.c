/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target: the ASTRA-sim 1.0 text workload parser behind
 * `chakra convert text` (lib/gen/textwl.c). The parser reads a path, so
 * the input goes through a temporary file. What it accepts must be
 * consistent: layer count, names NUL-terminated, enums in range; what it
 * refuses must say why. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fuzz_tmp.h"
#include "fuzz_touch.h"
#include "gen_impl.h"

static int said;

static int on_message(void *data, const void *buf, size_t len)
{
	(void)data;
	(void)buf;
	said += len > 0;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char p[128];
	fuzz_tmp_write("wl.txt", data, size, p, sizeof p);
	text_workload w;
	gen_sink sink = { on_message, NULL };
	said = 0;
	int rc = text_workload_load(&w, p, &sink);
	if (rc == 0) {
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
	} else if (!said) {
		fuzz_fail("a refused workload without a message", rc, 0, "");
	}
	text_workload_free(&w);
	return 0;
}
