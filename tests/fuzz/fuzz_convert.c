/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer targets: the converters' JSON inputs (lib/convert). Built twice:
 * fuzz_convert_pytorch (the input is a PyTorch execution trace) and, with
 * -DFUZZ_KINETO, fuzz_convert_kineto (a Kineto trace). A conversion may
 * refuse its input (with a message, and leaving no output), but what it
 * writes must read back cleanly with every node checked against nanopb,
 * hold as many nodes as the summary says, and be numbered dependencies
 * first (every dependency names a smaller id). */
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#ifndef CHAKRA_EXPERIMENTAL
#define CHAKRA_EXPERIMENTAL
#endif
#include "chakra/chakra.h"
#include "chakra/experimental/convert.h"
#include "fuzz_tmp.h"
#include "fuzz_touch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char outp[128];
	fuzz_tmp_path("out.et", outp, sizeof outp);
	remove(outp);
	chakra_convert_options o = CHAKRA_CONVERT_OPTIONS_INIT;
	chakra_convert_result res;
	o.overwrite = 1;
#ifdef FUZZ_KINETO
	o.kineto_buf = data;
	o.kineto_len = size;
	/* the window paths too: a step on every fourth input, an iteration
	 * between two occurrences of an annotation on another fourth */
	if (size % 4 == 0)
		o.step = 1;
	if (size % 4 == 1) {
		o.annotation = "Optimizer.zero_grad#SGD.zero_grad";
		o.to_next = 1;
	}
	int rc = chakra_convert_kineto("<fuzz>", outp, &o, &res);
#else
	o.et_buf = data;
	o.et_len = size;
	o.keep_io = (int)(size & 1);
	int rc = chakra_convert_pytorch("<fuzz>", outp, &o, &res);
#endif
	if (rc < 0) {
		fuzz_check_errmsg(res.errmsg);
		if (access(outp, F_OK) == 0)
			fuzz_fail("conversion failed but left an output file", rc, 0, res.errmsg);
		return 0;
	}
	chakra_reader_options ro = CHAKRA_READER_OPTIONS_INIT;
	ro.verify_with_nanopb = 1;
	chakra_reader *r;
	if (chakra_reader_open(&r, outp, &ro) < 0)
		fuzz_fail("the converter wrote a trace the reader cannot open", 0, 0,
		          chakra_reader_errmsg(r));
	fuzz_touch_metadata(chakra_reader_metadata(r));
	const chakra_node *node;
	unsigned long long count = 0;
	while ((rc = chakra_reader_next(r, &node)) > 0) {
		fuzz_touch_node(node);
		uint64_t id = chakra_node_id(node);
		if (id != count)
			fuzz_fail("node ids are not 0, 1, 2 ... in file order", (int)id, (int)count, "");
		const uint64_t *d = chakra_node_data_deps(node);
		for (size_t i = 0; i < chakra_node_data_dep_count(node); i++)
			if (d[i] >= id)
				fuzz_fail("a data dependency on a later node", (int)d[i], (int)id, "");
		d = chakra_node_ctrl_deps(node);
		for (size_t i = 0; i < chakra_node_ctrl_dep_count(node); i++)
			if (d[i] >= id)
				fuzz_fail("a control dependency on a later node", (int)d[i], (int)id, "");
		count++;
	}
	if (rc < 0)
		fuzz_fail("the converter wrote a trace the reader rejects", rc, 0, chakra_reader_errmsg(r));
	if (count != res.summary.nodes)
		fuzz_fail("the summary's node count differs from the file", (int)count,
		          (int)res.summary.nodes, "");
	chakra_reader_close(r);
	return 0;
}
