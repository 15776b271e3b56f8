/* libFuzzer target: `chakra pack`'s JSON input (tools/core/json_in.c). The
 * input is the JSON text; when pack accepts it, the trace it wrote must
 * read back cleanly, every node cross-checked against nanopb: pack may
 * refuse input, but never write a file the reader rejects. */
#include <stdint.h>
#include <stdio.h>

#include "chakra/chakra.h"
#include "fuzz_tmp.h"
#include "fuzz_touch.h"
#include "json_in.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char inp[128], outp[128];
	/* A real file: fmemopen cannot open an empty buffer. */
	fuzz_tmp_write("in.json", data, size, inp, sizeof inp);
	fuzz_tmp_path("out.et", outp, sizeof outp);
	remove(outp);
	FILE *in = fopen(inp, "rb");
	if (!in)
		abort();
	unsigned long long n = 0;
	int rc = json_pack(in, "<fuzz>", outp, 0, &n);
	fclose(in);
	if (rc != 0) {
		if (access(outp, F_OK) == 0)
			fuzz_fail("pack failed but left an output file", rc, 0, outp);
		return 0;
	}
	chakra_reader_options o = CHAKRA_READER_OPTIONS_INIT;
	o.verify_with_nanopb = 1;
	chakra_reader *r;
	if (chakra_reader_open(&r, outp, &o) < 0)
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
