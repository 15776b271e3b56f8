/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target: the ET reader. The input is a whole trace file (plain
 * or gzip); every node is read and every accessor touched, so a bad length,
 * list or string in the decoded model shows up under ASan/UBSan.
 *
 * Built twice: plain (fuzz_reader) and with FUZZ_VERIFY (fuzz_reader_verify),
 * where each node is also read by a second reader with verify_with_nanopb:
 * whenever the fast walker accepts a node, nanopb must accept it and agree
 * field by field, or the target aborts (a silent misread is a crash here). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chakra/chakra.h"
#include "fuzz_touch.h"

/* Small limit: a fuzzer must not spend its time in 256 MiB allocations. */
#define FUZZ_MAX_MESSAGE (1u << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	chakra_reader_options o = CHAKRA_READER_OPTIONS_INIT;
	o.max_message_size = FUZZ_MAX_MESSAGE;
	chakra_reader *r;
	int rc = chakra_reader_open_buffer(&r, data, size, &o);
#ifdef FUZZ_VERIFY
	chakra_reader_options vo = o;
	vo.verify_with_nanopb = 1;
	chakra_reader *v;
	int vrc = chakra_reader_open_buffer(&v, data, size, &vo);
	if ((rc < 0) != (vrc < 0))
		fuzz_fail("open differs with verify_with_nanopb", rc, vrc, chakra_reader_errmsg(v));
#endif
	if (rc < 0) {
		fuzz_check_errmsg(chakra_reader_errmsg(r));
		chakra_reader_close(r);
#ifdef FUZZ_VERIFY
		chakra_reader_close(v);
#endif
		return 0;
	}
	fuzz_touch_metadata(chakra_reader_metadata(r));
	const chakra_node *n;
	while ((rc = chakra_reader_next(r, &n)) > 0) {
		fuzz_touch_node(n);
#ifdef FUZZ_VERIFY
		const chakra_node *vn;
		vrc = chakra_reader_next(v, &vn);
		if (vrc != 1)
			fuzz_fail("walker accepted a node that the nanopb check rejects", rc, vrc,
			          chakra_reader_errmsg(v));
		if (chakra_node_id(vn) != chakra_node_id(n))
			fuzz_fail("verify reader returned another node", rc, vrc, "");
#endif
	}
	if (rc < 0)
		fuzz_check_errmsg(chakra_reader_errmsg(r));
#ifdef FUZZ_VERIFY
	else {
		/* Both readers must end the same way. */
		vrc = chakra_reader_next(v, &n);
		if (vrc != rc)
			fuzz_fail("verify reader ends differently", rc, vrc, chakra_reader_errmsg(v));
	}
	chakra_reader_close(v);
#endif
	chakra_reader_close(r);
	return 0;
}
