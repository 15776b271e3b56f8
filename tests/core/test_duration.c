/* SPDX-License-Identifier: Apache-2.0 */
/* chakra_node_duration_ns: on every node of a real trace (Chakra's own
 * chakra.0.et: duration_micros only), and on nodes written here for the
 * cases a real trace does not show: duration_nanos of each integer kind,
 * a negative or non-integer duration_nanos (duration_micros then), and
 * duration_micros past UINT64_MAX / 1000 (saturated, not wrapped). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "chakra/chakra.h"
#include "check.h"
#include "membuf.h"

typedef struct want {
	uint64_t micros;
	int attr;          /* 0 none, 1 uint64, 2 int64, 3 uint32, 4 string */
	int64_t nanos;
	uint64_t expect;
} want;

int main(void)
{
	need_data("data/chakra/chakra.0.et.gz");
	/* a real trace: duration_micros x 1000 on every node */
	chakra_reader *r = NULL;
	CHECK(chakra_reader_open(&r, shared_path("data/chakra/chakra.0.et.gz"), NULL) == 0);
	const chakra_node *n;
	int rc;
	unsigned long nodes = 0, timed = 0;
	uint64_t sum = 0;
	while (r && (rc = chakra_reader_next(r, &n)) > 0) {
		nodes++;
		uint64_t ns = chakra_node_duration_ns(n), us = chakra_node_duration_micros(n);
		CHECK(chakra_node_attr_find(n, "duration_nanos") == NULL);
		CHECK_EQ_U(ns, us * 1000);
		timed += ns != 0;
		sum += ns;
	}
	chakra_reader_close(r);
	printf("chakra.0.et: %lu nodes, %lu with a duration, %llu ns in all\n", nodes, timed,
	       (unsigned long long)sum);
	CHECK_EQ_U(nodes, 3664);
	CHECK_EQ_U(timed, 3507);
	CHECK_EQ_U(sum, 381795000); /* the sum of duration_micros, x 1000 */

	/* written here */
	const want cases[] = {
		{ 5, 0, 0, 5000 },
		{ 7, 1, 1234, 1234 },                      /* duration_nanos wins */
		{ 7, 2, 99, 99 },
		{ 7, 3, 0, 0 },                            /* a zero duration_nanos too */
		{ 7, 2, -5, 7000 },                        /* negative: not a duration */
		{ 7, 4, 0, 7000 },                         /* a string: not a duration */
		{ UINT64_MAX / 1000, 0, 0, UINT64_MAX / 1000 * 1000 },
		{ UINT64_MAX / 1000 + 1, 0, 0, UINT64_MAX }, /* saturates */
		{ UINT64_MAX, 0, 0, UINT64_MAX },
	};
	const size_t nc = sizeof cases / sizeof cases[0];
	membuf m = { 0 };
	chakra_writer *w = NULL;
	CHECK(chakra_writer_open_cb(&w, mem_write, &m, NULL) == 0);
	CHECK(chakra_writer_write_metadata(w, "0.0.4", NULL) == 0);
	chakra_builder *b = chakra_builder_new();
	CHECK(b != NULL);
	for (size_t i = 0; b && i < nc; i++) {
		chakra_builder_reset(b);
		chakra_builder_set_id(b, i);
		chakra_builder_set_type(b, CHAKRA_COMP_NODE);
		chakra_builder_set_duration_micros(b, cases[i].micros);
		if (cases[i].attr == 1)
			CHECK(chakra_builder_attr_uint(b, "duration_nanos", CHAKRA_ATTR_UINT64,
			                               (uint64_t)cases[i].nanos) == 0);
		else if (cases[i].attr == 2)
			CHECK(chakra_builder_attr_int(b, "duration_nanos", CHAKRA_ATTR_INT64,
			                              cases[i].nanos) == 0);
		else if (cases[i].attr == 3)
			CHECK(chakra_builder_attr_uint(b, "duration_nanos", CHAKRA_ATTR_UINT32,
			                               (uint64_t)cases[i].nanos) == 0);
		else if (cases[i].attr == 4)
			CHECK(chakra_builder_attr_string(b, "duration_nanos", CHAKRA_ATTR_STRING, "12",
			                                 (size_t)-1) == 0);
		CHECK(chakra_writer_write_node(w, b) == 0);
	}
	CHECK(chakra_writer_finish(w) == 0);
	chakra_writer_close(w);
	chakra_builder_free(b);
	r = NULL;
	CHECK(chakra_reader_open_buffer(&r, m.p, m.len, NULL) == 0);
	size_t i = 0;
	while (r && (rc = chakra_reader_next(r, &n)) > 0 && i < nc) {
		CHECK_EQ_U(chakra_node_id(n), i);
		CHECK_MSG(chakra_node_duration_ns(n) == cases[i].expect, "case %zu: %llu, want %llu", i,
		          (unsigned long long)chakra_node_duration_ns(n),
		          (unsigned long long)cases[i].expect);
		i++;
	}
	CHECK_EQ_U(i, nc);
	chakra_reader_close(r);
	free(m.p);
	CHECK(chakra_node_duration_ns(NULL) == 0);
	return check_done();
}
