/* SPDX-License-Identifier: Apache-2.0 */
/* An application built against this version's public headers only
 * (#include <chakra/chakra.h>) and run against the shared library: the
 * header and library versions agree, and a real trace opens and reads
 * through the public API. Built by meson (hardening-abi-smoke) and, as an
 * outside consumer would, with pkg-config against an installed copy
 * (tests/hardening/ci-abi.sh). Usage: abi_smoke TRACE */
#include <chakra/chakra.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: abi_smoke TRACE\n");
		return 2;
	}
	FILE *in = fopen(argv[1], "rb");
	if (!in) { /* a test that needs something absent skips (meson: 77) */
		printf("SKIP: test input %s is absent\n", argv[1]);
		return 77;
	}
	fclose(in);
	int bad = 0;
	if (chakra_version() != CHAKRA_VERSION_NUMBER) {
		fprintf(stderr, "library version %u, headers %u\n", chakra_version(),
		        (unsigned)CHAKRA_VERSION_NUMBER);
		bad = 1;
	}
	if (strcmp(chakra_version_string(), CHAKRA_VERSION_STRING) != 0) {
		fprintf(stderr, "library version %s, headers %s\n", chakra_version_string(),
		        CHAKRA_VERSION_STRING);
		bad = 1;
	}
	/* Options structs as this header defines them. */
	chakra_reader_options ro = CHAKRA_READER_OPTIONS_INIT;
	ro.verify_with_nanopb = 1;
	chakra_reader *r;
	if (chakra_reader_open(&r, argv[1], &ro) < 0) {
		fprintf(stderr, "%s\n", chakra_reader_errmsg(r));
		chakra_reader_close(r);
		return 1;
	}
	const chakra_node *n;
	unsigned long long count = 0, deps = 0;
	int rc;
	while ((rc = chakra_reader_next(r, &n)) > 0) {
		count++;
		deps += chakra_node_data_dep_count(n);
	}
	if (rc < 0) {
		fprintf(stderr, "%s\n", chakra_reader_errmsg(r));
		bad = 1;
	}
	chakra_reader_close(r);
	chakra_feeder_options fo = CHAKRA_FEEDER_OPTIONS_INIT;
	chakra_feeder *f;
	unsigned long long fed = 0;
	if (chakra_feeder_open(&f, argv[1], &fo) == 0) {
		while ((rc = chakra_feeder_next(f, &n)) > 0) {
			fed++;
			rc = chakra_feeder_complete(f, chakra_node_id(n));
			if (rc < 0)
				break;
		}
	}
	if (rc < 0 || fed != count) {
		fprintf(stderr, "feeder: %llu of %llu nodes: %s\n", fed, count, chakra_feeder_errmsg(f));
		bad = 1;
	}
	chakra_feeder_close(f);
	printf("libchakra %s (headers %s): %llu nodes, %llu data deps, all fed\n",
	       chakra_version_string(), CHAKRA_VERSION_STRING, count, deps);
	return bad;
}
