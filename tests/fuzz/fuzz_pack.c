/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target: `chakra pack`'s JSON input (chakra_jsonet_pack_buffer): the
 * jsonize form, protobuf's JSON mapping and workload_graph JSON. The input
 * is the JSON text, the trace goes to memory; when pack accepts the input,
 * the trace must read back cleanly, every node cross-checked against
 * nanopb: pack may refuse input, but never produce a trace the reader
 * rejects. Everything stays in memory (no files): about 30x the executions
 * per second of a run through a file. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chakra/chakra.h"
#include "fuzz_touch.h"
#include "membuf.h"
#include "chakra/experimental/jsonet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static membuf out;
	out.len = 0;
	chakra_jsonet_options po = CHAKRA_JSONET_OPTIONS_INIT;
	po.in_name = "<fuzz>";
	po.out_name = "<out>";
	chakra_jsonet_result res;
	int rc = chakra_jsonet_pack_buffer(data, size, mem_write, &out, &po, &res);
	if (rc < 0)
		return 0;
	unsigned long long n = res.nodes;
	chakra_reader_options o = CHAKRA_READER_OPTIONS_INIT;
	o.verify_with_nanopb = 1;
	chakra_reader *r;
	if (chakra_reader_open_buffer(&r, out.p, out.len, &o) < 0)
		fuzz_fail("pack wrote a trace the reader cannot open", 0, 0, chakra_reader_errmsg(r));
	fuzz_touch_metadata(chakra_reader_metadata(r));
	const chakra_node *node;
	unsigned long long count = 0;
	while ((rc = chakra_reader_next(r, &node)) > 0) {
		fuzz_touch_node(node);
		count++;
	}
	if (rc < 0)
		fuzz_fail("pack wrote a trace the reader rejects", rc, 0, chakra_reader_errmsg(r));
	if (count != n)
		fuzz_fail("pack's node count differs from the file", (int)count, (int)n, "");
	chakra_reader_close(r);
	return 0;
}
