/* SPDX-License-Identifier: Apache-2.0 */
/* The writer refusing an output, or failing to open it, removes nothing.
 * Regression: with overwrite off and the output present, writer_free once
 * called unlink() on the temporary's name buffer, which had been allocated
 * but never written (valgrind: "uninitialised byte(s)"). An allocator that
 * fills every block with the path of a sentinel file makes such a read
 * visible without valgrind: the sentinel would be deleted. Every
 * allocation of the open is also made to fail in turn. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "chakra/chakra.h"
#include "check.h"

static char sentinel[128];
static long fail_at = -1, calls;

static void *fill_malloc(void *data, size_t size)
{
	(void)data;
	if (fail_at >= 0 && calls++ == fail_at)
		return NULL;
	char *p = malloc(size);
	if (p && size) {
		/* what an unwritten name buffer would hold: a path we can see */
		size_t n = strlen(sentinel) + 1 < size ? strlen(sentinel) + 1 : size;
		memcpy(p, sentinel, n);
		p[n - 1] = 0;
	}
	return p;
}

static void *fill_realloc(void *data, void *ptr, size_t size)
{
	(void)data;
	if (fail_at >= 0 && calls++ == fail_at)
		return NULL;
	return realloc(ptr, size);
}

static void plain_free(void *data, void *ptr)
{
	(void)data;
	free(ptr);
}

static int file_is(const char *path, const char *text)
{
	char buf[64] = "";
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	return !strcmp(buf, text);
}

static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	int n = 0;
	struct dirent *e;
	while (d && (e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	if (d)
		closedir(d);
	return n;
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

int main(void)
{
	char dir[] = "/tmp/chakra-exists-XXXXXX", out[160], fresh[160];
	CHECK(mkdtemp(dir) != NULL);
	snprintf(sentinel, sizeof sentinel, "%s/sentinel", dir);
	snprintf(out, sizeof out, "%s/out.et", dir);
	snprintf(fresh, sizeof fresh, "%s/fresh.et", dir);
	put(sentinel, "keep me");
	put(out, "precious");
	chakra_allocator a = { CHAKRA_ALLOCATOR_VERSION, fill_malloc, fill_realloc, plain_free, NULL };
	CHECK(chakra_set_allocator(&a) == 0);

	/* the output exists and overwrite is off: refused, nothing touched */
	chakra_writer *w = NULL;
	int rc = chakra_writer_open(&w, out, NULL);
	CHECK_MSG(rc == CHAKRA_EIO, "open over an existing file: %d", rc);
	CHECK(w && strstr(chakra_writer_errmsg(w), "exists"));
	chakra_writer_close(w);
	CHECK_MSG(file_is(sentinel, "keep me"), "the writer removed a file it did not create");
	CHECK(file_is(out, "precious"));
	CHECK_EQ_U(entries(dir), 2);

	/* every allocation of an open failing in turn: an error, no file
	 * created or removed */
	chakra_writer_options wo = CHAKRA_WRITER_OPTIONS_INIT;
	wo.overwrite = 1;
	int failures = 0;
	for (fail_at = 0; fail_at < 64; fail_at++) {
		calls = 0;
		w = NULL;
		rc = chakra_writer_open(&w, fresh, &wo);
		chakra_writer_close(w);
		if (rc == 0) {
			CHECK_EQ_U(entries(dir), 2); /* closed unfinished: its temporary is gone */
			break;
		}
		failures++;
		CHECK_MSG(rc == CHAKRA_ENOMEM, "allocation %ld failing: %d", fail_at, rc);
		CHECK_MSG(file_is(sentinel, "keep me"), "allocation %ld failing removed a file",
		          fail_at);
		CHECK_EQ_U(entries(dir), 2);
	}
	CHECK(failures > 0 && fail_at < 64);
	fail_at = -1;

	/* and with overwrite on, the existing output is replaced */
	rc = chakra_writer_open(&w, out, &wo);
	CHECK(rc == 0);
	CHECK(chakra_writer_write_metadata(w, "0.0.4", NULL) == 0);
	CHECK(chakra_writer_finish(w) == 0);
	chakra_writer_close(w);
	CHECK(!file_is(out, "precious"));
	CHECK(file_is(sentinel, "keep me"));
	CHECK_EQ_U(entries(dir), 2);
	chakra_set_allocator(NULL);

	unlink(out);
	unlink(sentinel);
	rmdir(dir);
	return check_done();
}
