/* SPDX-License-Identifier: Apache-2.0 */
/* Adversarial inputs for the tools' tables (hash flooding, quadratic paths):
 *   mkflood validate-old N OUT.et   ids on which the unkeyed hash validate
 *                                   used (murmur3's finaliser) put every id
 *                                   in one slot of any table up to 2^24
 *   mkflood stats-old N OUT.et      the same for the one stats/visualize
 *                                   used (splitmix64's finaliser)
 *   mkflood pow2 N OUT.et           ids i << 40: equal low bits
 *   mkflood seq N OUT.et            ids 0..N-1, the baseline
 *   mkflood lanes N OUT.csv         a timeline log of N nested nodes on one
 *                                   NPU (all overlap: N lanes)
 * Every node depends on the one before it (data), so dependency lookups go
 * through the table too. The ids are the inverses of the old hashes of
 * i << 24 (xorshift and odd multipliers are invertible mod 2^64). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chakra/chakra.h"

static uint64_t unxorshift(uint64_t y, int s)
{
	uint64_t x = y;
	for (int i = 0; i < 64 / s + 1; i++)
		x = y ^ (x >> s);
	return x;
}

static uint64_t inv_mul(uint64_t c)
{
	uint64_t inv = c; /* Newton: each step doubles the correct low bits */
	for (int i = 0; i < 6; i++)
		inv *= 2 - c * inv;
	return inv;
}

/* validate's old slot_of: k ^= k >> 33; k *= C; k ^= k >> 33 */
static uint64_t inv_murmur(uint64_t h)
{
	h = unxorshift(h, 33);
	h *= inv_mul(0xff51afd7ed558ccdULL);
	return unxorshift(h, 33);
}

/* analyze's old hash64: splitmix64's finaliser */
static uint64_t inv_splitmix(uint64_t h)
{
	h = unxorshift(h, 31);
	h *= inv_mul(0x94d049bb133111ebULL);
	h = unxorshift(h, 27);
	h *= inv_mul(0xbf58476d1ce4e5b9ULL);
	return unxorshift(h, 30);
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: mkflood validate-old|stats-old|pow2|seq|lanes N OUT\n");
		return 2;
	}
	const char *mode = argv[1], *out = argv[3];
	uint64_t n = strtoull(argv[2], NULL, 10);
	if (!strcmp(mode, "lanes")) {
		FILE *f = fopen(out, "w");
		if (!f)
			return 1;
		for (uint64_t i = 0; i < n; i++)
			fprintf(f, "issue,npu_id=0,cycle=%" PRIu64 ",node_id=%" PRIu64 ",node_name=n\n", i, i);
		for (uint64_t i = n; i-- > 0;)
			fprintf(f, "callback,npu_id=0,cycle=%" PRIu64 ",node_id=%" PRIu64 ",node_name=n\n",
			        2 * n - i, i);
		return fclose(f) ? 1 : 0;
	}
	chakra_writer_options wo = CHAKRA_WRITER_OPTIONS_INIT;
	wo.overwrite = 1;
	chakra_writer *w;
	chakra_builder *b = chakra_builder_new();
	if (!b || chakra_writer_open(&w, out, &wo) < 0 ||
	    chakra_writer_write_metadata(w, "0.0.4", NULL) < 0)
		return 1;
	uint64_t prev = 0;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t id = !strcmp(mode, "validate-old") ? inv_murmur(i << 24)
		            : !strcmp(mode, "stats-old")    ? inv_splitmix(i << 24)
		            : !strcmp(mode, "pow2")         ? i << 40
		                                            : i;
		chakra_builder_reset(b);
		chakra_builder_set_id(b, id);
		chakra_builder_set_type(b, CHAKRA_COMP_NODE);
		chakra_builder_set_duration_micros(b, 1);
		if (i)
			chakra_builder_add_data_dep(b, prev);
		if (chakra_writer_write_node(w, b) < 0)
			return 1;
		prev = id;
	}
	int rc = chakra_writer_finish(w);
	chakra_writer_close(w);
	chakra_builder_free(b);
	return rc < 0 ? 1 : 0;
}
