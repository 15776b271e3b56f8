/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target: the MODEL.json reader of `chakra synth` (lib/synth/
 * model_json.c), then the sampler on what it accepts. A model is either
 * refused with a message, or: written back it parses to the same bytes,
 * and sampling (2 ranks, at most 64 nodes) either fails with a message or
 * writes ranks whose every parent comes before its child. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_tmp.h"
#include "fuzz_touch.h"
#include "synth_impl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	chakra_synth_model *m = NULL;
	char err[1024];
	err[0] = 0;
	if (chakra_synth_model_parse(&m, "<fuzz.json>", (const char *)data, size, err, sizeof err) < 0) {
		fuzz_check_errmsg(err);
		return 0;
	}
	size_t len, len2;
	char *j = chakra_synth_model_json(m, &len);
	if (!j)
		fuzz_fail("model not written", 0, 0, "");
	chakra_synth_model *m2 = NULL;
	if (chakra_synth_model_parse(&m2, "<written>", j, len, err, sizeof err) < 0)
		fuzz_fail("a written model does not parse", 0, 0, err);
	char *j2 = chakra_synth_model_json(m2, &len2);
	if (!j2 || len2 != len || memcmp(j, j2, len))
		fuzz_fail("written twice, different bytes", (int)len, (int)len2, "");
	chakra_free(j);
	chakra_free(j2);
	chakra_synth_model_free(m2);

	char prefix[128], path[160];
	fuzz_tmp_path("s", prefix, sizeof prefix);
	chakra_synth_sample_options so = CHAKRA_SYNTH_SAMPLE_OPTIONS_INIT;
	so.npus = 2;
	so.nodes = 1 + size % 64;
	so.seed = size;
	so.overwrite = 1;
	err[0] = 0;
	if (chakra_synth_sample(m, prefix, &so, err, sizeof err) < 0) {
		fuzz_check_errmsg(err);
	} else {
		snprintf(path, sizeof path, "%s.1.et", prefix);
		chakra_reader *r;
		if (chakra_reader_open(&r, path, NULL) < 0)
			fuzz_fail("sampled rank does not open", 0, 0, r ? chakra_reader_errmsg(r) : "");
		const chakra_node *n;
		uint64_t count = 0;
		int rc;
		while ((rc = chakra_reader_next(r, &n)) > 0) {
			if (chakra_node_id(n) != count)
				fuzz_fail("ids not in order", (int)chakra_node_id(n), (int)count, "");
			const uint64_t *d = chakra_node_data_deps(n);
			for (size_t i = 0; i < chakra_node_data_dep_count(n); i++)
				if (d[i] >= count)
					fuzz_fail("a parent after its child", (int)d[i], (int)count, "");
			count++;
		}
		if (rc < 0 || count != so.nodes)
			fuzz_fail("sampled rank: wrong node count", (int)count, (int)so.nodes, "");
		chakra_reader_close(r);
	}
	chakra_synth_model_free(m);
	return 0;
}
