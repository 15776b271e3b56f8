/* SPDX-License-Identifier: Apache-2.0 */
/* Floor for the analyze benchmark: read and decode every node of a trace
 * with the public reader, touching the fields stats uses, nothing else.
 * Prints "floor: SECONDS s, NODES nodes". */
#include <stdio.h>
#include <time.h>

#include "chakra/chakra.h"

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	chakra_reader *r;
	if (chakra_reader_open(&r, argv[1], NULL) < 0) {
		fprintf(stderr, "%s\n", chakra_reader_errmsg(r));
		return 1;
	}
	const chakra_node *n;
	int rc;
	unsigned long long sum = 0, nodes = 0;
	while ((rc = chakra_reader_next(r, &n)) > 0) {
		int cpu;
		sum += chakra_node_id(n) + chakra_node_duration_micros(n) +
		       chakra_node_data_dep_count(n) + chakra_node_ctrl_dep_count(n) +
		       (unsigned)chakra_node_type_of(n) + (chakra_node_is_cpu_op(n, &cpu) == 0);
		nodes++;
	}
	if (rc < 0) {
		fprintf(stderr, "%s\n", chakra_reader_errmsg(r));
		return 1;
	}
	chakra_reader_close(r);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("floor: %.3f s, %llu nodes (checksum %llu)\n",
	       (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9, nodes, sum);
	return 0;
}
