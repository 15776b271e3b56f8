/* SPDX-License-Identifier: Apache-2.0 */
/* ABI growth: options structs grow at the end, and the library
 * reads only the fields of the caller's version.
 *
 *  - A program built against version 1 of the headers passes structs of the
 *    version-1 size. Each is placed here against an unmapped page, so a
 *    library that read one byte past it (the old code copied the whole
 *    current struct) dies of SIGSEGV instead of reading garbage.
 *  - chakra_*_options_init(opts, 1) writes only version-1 bytes.
 *  - Regression, the use-after-return: reader options (and the display name
 *    they point to) that live in memory unmapped right after
 *    chakra_feeder_open returns, as a helper's stack frame would be. The
 *    feeder used to keep the pointer and read it during lazy decoding.
 *  - Unknown versions fail with CHAKRA_EINVAL, a handle and a message. */
#include <chakra/chakra.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"

/* The version-1 layouts, as a program built against the 0.1.0 headers has
 * them. */
typedef struct reader_options_v1 {
	unsigned version;
	uint64_t max_message_size;
	const char *display_name;
	int verify_with_nanopb;
} reader_options_v1;

typedef struct feeder_options_v1 {
	unsigned version;
	chakra_deps deps;
	chakra_order order;
	uint64_t window;
	int strict;
	chakra_ready_cb ready_cb;
	void *data;
	const reader_options_v1 *reader;
} feeder_options_v1;

static size_t page;

/* n bytes that end exactly where an inaccessible page starts. */
static void *against_guard(size_t n)
{
	uint8_t *p = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	if (mprotect(p + page, page, PROT_NONE) != 0)
		return NULL;
	return p + page - n;
}

static void release(void *p)
{
	munmap((void *)((uintptr_t)p & ~(uintptr_t)(page - 1)), 2 * page);
}

static const char *trace;

/* Reads every node, touching each decoded field. */
static unsigned long long drain_reader(chakra_reader *r)
{
	const chakra_node *n;
	unsigned long long count = 0;
	int rc;
	while ((rc = chakra_reader_next(r, &n)) > 0) {
		(void)chakra_node_name(n, NULL);
		count++;
	}
	CHECK_MSG(rc == 0, "%s", chakra_reader_errmsg(r));
	return count;
}

static unsigned long long drain_feeder(chakra_feeder *f)
{
	const chakra_node *n;
	unsigned long long count = 0;
	int rc;
	while ((rc = chakra_feeder_next(f, &n)) > 0) {
		/* Lazy decoding: the name is decoded now, long after open. */
		(void)chakra_node_name(n, NULL);
		(void)chakra_node_attr_count(n);
		CHECK(chakra_feeder_complete(f, chakra_node_id(n)) == 0);
		count++;
	}
	CHECK_MSG(rc == 0, "%s", chakra_feeder_errmsg(f));
	return count;
}

static void test_v1_reader(void)
{
	reader_options_v1 *o = against_guard(sizeof *o);
	CHECK(o != NULL);
	if (!o)
		return;
	o->version = 1;
	o->max_message_size = 0;
	o->display_name = NULL;
	o->verify_with_nanopb = 1;
	chakra_reader *r;
	CHECK(chakra_reader_open(&r, trace, (const chakra_reader_options *)o) == 0);
	CHECK_EQ_U(drain_reader(r), 3664);
	chakra_reader_close(r);

	/* The name reaches the messages: a truncated buffer. */
	static const unsigned char trunc[] = { 0x10, 0x0a, 0x05, 0x30, 0x2e, 0x30 };
	o->display_name = "old-caller";
	CHECK(chakra_reader_open_buffer(&r, trunc, sizeof trunc, (const chakra_reader_options *)o) ==
	      CHAKRA_ETRUNC);
	CHECK_MSG(strncmp(chakra_reader_errmsg(r), "old-caller: ", 12) == 0, "%s",
	          chakra_reader_errmsg(r));
	chakra_reader_close(r);

	/* options_init of version 1 writes only version-1 bytes. */
	memset(o, 0x5a, sizeof *o);
	CHECK(chakra_reader_options_init((chakra_reader_options *)o, 1) == 0);
	CHECK(o->version == 1 && o->max_message_size == 0 && o->display_name == NULL &&
	      o->verify_with_nanopb == 0);
	release(o);
}

static void test_v1_feeder(void)
{
	feeder_options_v1 *fo = against_guard(sizeof *fo);
	reader_options_v1 *ro = against_guard(sizeof *ro);
	CHECK(fo && ro);
	if (!fo || !ro)
		return;
	memset(ro, 0, sizeof *ro);
	ro->version = 1;
	ro->verify_with_nanopb = 1;
	memset(fo, 0, sizeof *fo);
	fo->version = 1;
	fo->reader = ro;
	chakra_feeder *f;
	CHECK(chakra_feeder_open(&f, trace, (const chakra_feeder_options *)fo) == 0);
	CHECK_EQ_U(drain_feeder(f), 3664);
	chakra_feeder_close(f);

	memset(fo, 0x5a, sizeof *fo);
	CHECK(chakra_feeder_options_init((chakra_feeder_options *)fo, 1) == 0);
	CHECK(fo->version == 1 && fo->deps == 0 && fo->window == 0 && fo->reader == NULL);
	release(fo);
	release(ro);

	/* The current version: every field initialised, defaults as the macro. */
	chakra_feeder_options cur, def = CHAKRA_FEEDER_OPTIONS_INIT;
	memset(&cur, 0x5a, sizeof cur);
	CHECK(chakra_feeder_options_init(&cur, CHAKRA_FEEDER_OPTIONS_VERSION) == 0);
	CHECK(cur.version == def.version && cur.window_bytes == 0 && cur.max_memory == 0 &&
	      cur.reader == NULL && cur.ready_cb == NULL);
	chakra_writer_options wo;
	CHECK(chakra_writer_options_init(&wo, CHAKRA_WRITER_OPTIONS_VERSION) == 0 && wo.gzip == 0);
}

/* The regression: options in memory that is gone once open returns. */
static chakra_feeder *open_with_transient_options(void)
{
	uint8_t *mem = against_guard(page / 2);
	chakra_reader_options *ro = (chakra_reader_options *)mem;
	char *name = (char *)mem + 256;
	strcpy(name, "transient-name");
	chakra_reader_options_init(ro, CHAKRA_READER_OPTIONS_VERSION);
	ro->verify_with_nanopb = 1;
	ro->display_name = name;
	chakra_feeder_options fo;
	chakra_feeder_options_init(&fo, CHAKRA_FEEDER_OPTIONS_VERSION);
	fo.reader = ro;
	chakra_feeder *f;
	int rc = chakra_feeder_open(&f, trace, &fo);
	CHECK_MSG(rc == 0, "%s", chakra_feeder_errmsg(f));
	release(mem); /* any later read of the options is a SIGSEGV */
	return f;
}

static void test_use_after_return(void)
{
	chakra_feeder *f = open_with_transient_options();
	CHECK_EQ_U(drain_feeder(f), 3664);
	/* The name was copied: an error message still carries it. */
	CHECK(chakra_feeder_complete(f, 123456789) == CHAKRA_ESTATE);
	CHECK_MSG(strncmp(chakra_feeder_errmsg(f), "transient-name: ", 16) == 0, "%s",
	          chakra_feeder_errmsg(f));
	chakra_feeder_close(f);
}

static void test_unknown_versions(void)
{
	chakra_reader_options ro = CHAKRA_READER_OPTIONS_INIT;
	ro.version = CHAKRA_READER_OPTIONS_VERSION + 1;
	chakra_reader *r;
	CHECK(chakra_reader_open(&r, trace, &ro) == CHAKRA_EINVAL);
	CHECK(r != NULL);
	CHECK_MSG(strstr(chakra_reader_errmsg(r), "version") != NULL, "%s", chakra_reader_errmsg(r));
	chakra_error_info ei;
	CHECK(chakra_reader_error(r, &ei, sizeof ei) == CHAKRA_EINVAL && ei.code == CHAKRA_EINVAL);
	chakra_reader_close(r);
	ro.version = 0;
	CHECK(chakra_reader_open(&r, trace, &ro) == CHAKRA_EINVAL && r);
	chakra_reader_close(r);
	CHECK(chakra_reader_options_init(&ro, 0) == CHAKRA_EINVAL);
	CHECK(chakra_reader_options_init(&ro, CHAKRA_READER_OPTIONS_VERSION + 1) == CHAKRA_EINVAL);

	chakra_feeder_options fo = CHAKRA_FEEDER_OPTIONS_INIT;
	fo.version = 99;
	chakra_feeder *f;
	CHECK(chakra_feeder_open(&f, trace, &fo) == CHAKRA_EINVAL && f);
	CHECK_MSG(strstr(chakra_feeder_errmsg(f), "chakra_feeder_options version 99") != NULL, "%s",
	          chakra_feeder_errmsg(f));
	chakra_feeder_close(f);
	/* A bad version of the reader options it points to. */
	chakra_feeder_options_init(&fo, CHAKRA_FEEDER_OPTIONS_VERSION);
	ro.version = 7;
	fo.reader = &ro;
	CHECK(chakra_feeder_open(&f, trace, &fo) == CHAKRA_EINVAL && f);
	CHECK_MSG(strstr(chakra_feeder_errmsg(f), "chakra_reader_options version 7") != NULL, "%s",
	          chakra_feeder_errmsg(f));
	chakra_feeder_close(f);

	chakra_writer_options wo = CHAKRA_WRITER_OPTIONS_INIT;
	wo.version = 42;
	chakra_writer *w;
	CHECK(chakra_writer_open_cb(&w, NULL, NULL, &wo) == CHAKRA_EINVAL && w);
	CHECK_MSG(strstr(chakra_writer_errmsg(w), "version 42") != NULL, "%s", chakra_writer_errmsg(w));
	chakra_writer_close(w);
}

int main(void)
{
	need_data("data/chakra/chakra.0.et.gz");
	trace = shared_path("data/chakra/chakra.0.et.gz");
	static char path[4096];
	snprintf(path, sizeof path, "%s", trace);
	trace = path;
	page = (size_t)sysconf(_SC_PAGESIZE);
	test_v1_reader();
	test_v1_feeder();
	test_use_after_return();
	test_unknown_versions();
	return check_done();
}
