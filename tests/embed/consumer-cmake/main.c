/* SPDX-License-Identifier: Apache-2.0 */
/* A consumer of libchakra (meson subproject or CMake package): reads and
 * feeds a trace through the public API. Usage: consumer TRACE */
#include <chakra/chakra.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	chakra_feeder *f;
	if (argc != 2 || chakra_feeder_open(&f, argv[1], NULL) < 0) {
		fprintf(stderr, "%s\n", argc != 2 ? "usage: consumer TRACE" : chakra_feeder_errmsg(f));
		return 1;
	}
	const chakra_node *n;
	unsigned long long fed = 0;
	int rc;
	while ((rc = chakra_feeder_next(f, &n)) > 0) {
		chakra_feeder_complete(f, chakra_node_id(n));
		fed++;
	}
	if (rc < 0)
		fprintf(stderr, "%s\n", chakra_feeder_errmsg(f));
	chakra_feeder_close(f);
	printf("libchakra %s: %llu nodes fed\n", chakra_version_string(), fed);
	return rc < 0 || chakra_version() != CHAKRA_VERSION_NUMBER;
}
