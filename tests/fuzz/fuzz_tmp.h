/* SPDX-License-Identifier: Apache-2.0 */
/* Shared by the tool fuzz targets whose parsers take a path: a private
 * temporary directory, removed at exit. Never /dev/null or "-": the
 * writer renames its temporary file over the output path. */
#ifndef CHAKRA_FUZZ_TMP_H
#define CHAKRA_FUZZ_TMP_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char fuzz_tmpdir[64];

static inline void fuzz_tmp_cleanup(void)
{
	char cmd[128];
	if (fuzz_tmpdir[0]) {
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", fuzz_tmpdir);
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", fuzz_tmpdir);
	}
}

/* Path of NAME inside the directory (created on first use). */
static inline const char *fuzz_tmp_path(const char *name, char *buf, size_t cap)
{
	if (!fuzz_tmpdir[0]) {
		const char *base = getenv("TMPDIR");
		snprintf(fuzz_tmpdir, sizeof fuzz_tmpdir, "%s/chakra-fuzz-XXXXXX",
		         base && strlen(base) < 32 ? base : "/tmp");
		if (!mkdtemp(fuzz_tmpdir)) {
			perror("mkdtemp");
			abort();
		}
		atexit(fuzz_tmp_cleanup);
	}
	snprintf(buf, cap, "%s/%s", fuzz_tmpdir, name);
	return buf;
}

/* Write the input to a file; returns its path. */
static inline const char *fuzz_tmp_write(const char *name, const uint8_t *data, size_t size, char *buf,
                                  size_t cap)
{
	const char *p = fuzz_tmp_path(name, buf, cap);
	FILE *f = fopen(p, "wb");
	if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f)) {
		perror(p);
		abort();
	}
	return p;
}

#endif
