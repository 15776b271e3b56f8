/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzzer findings, kept as regression tests (inputs in regress/, named
 * TARGET-what). Each reader input is read by the plain reader and by one
 * with verify_with_nanopb, every accessor touched (tests/fuzz/fuzz_touch.h,
 * which aborts on a broken invariant), and the outcome pinned: how many
 * nodes are returned and how the file ends. The sim_config input is parsed
 * from a buffer that ends at a page followed by an inaccessible page, so
 * reading one byte past the given length crashes here too, not only under
 * ASan. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "chakra/chakra.h"
#include "check.h"
#include "fuzz_touch.h"
#ifndef CHAKRA_EXPERIMENTAL
#define CHAKRA_EXPERIMENTAL
#endif
#include "chakra/experimental/sim.h"

#ifndef REGRESS_DIR
#error REGRESS_DIR must name tests/hardening/regress
#endif

typedef struct expect {
	const char *file;
	int end;          /* final code: 0 = clean end, else the error */
	uint64_t nodes;   /* nodes returned before it */
	const char *says; /* substring of the error message, or NULL */
} expect;

static const expect reader_cases[] = {
	/* field number 0 is not protobuf: an error, as in nanopb */
	{ "reader-zero-tag", CHAKRA_ECORRUPT, 0, "bad field tag" },
	/* a repeated string field: the last one counts */
	{ "reader-repeated-name", CHAKRA_ECORRUPT, 3, "bad field tag" },
	/* the same list member twice: elements append */
	{ "reader-repeated-list", CHAKRA_ECORRUPT, 1, "malformed field 11" },
	/* enum `type` above 2^32-1 */
	{ "reader-type-too-large", CHAKRA_ECORRUPT, 0, "out of range" },
	/* an attribute without a name reads as "" */
	{ "reader-attr-no-name", CHAKRA_ECORRUPT, 2, "bad field tag" },
	/* a list replaced by a scalar member */
	{ "reader-list-then-scalar", CHAKRA_ETRUNC, 1, "truncated file" },
	/* int64_val then string_val: the nanopb check called the integer as a
	 * function pointer (SEGV) before pbref.c filtered replaced members */
	{ "reader-scalar-then-string", 0, 1, NULL },
	/* float_list then string_val: the string landed in the list callback */
	{ "reader-list-then-string", CHAKRA_ECORRUPT, 1, "wrong wire type" },
	/* an empty packed dependency list */
	{ "reader-empty-packed-deps", 0, 1, NULL },
};

/* What protobuf says the odd messages mean. */
static void check_semantics(const char *file, uint64_t index, const chakra_node *n)
{
	size_t len;
	if (!strcmp(file, "reader-repeated-name") && index == 2) {
		const char *s = chakra_node_name(n, &len);
		CHECK_MSG(len == 16 && !memcmp(s, "\n\tfinish_ts", 11), "last name wins: %.*s", (int)len,
		          s);
	}
	if (!strcmp(file, "reader-repeated-list") && index == 0) {
		/* string_val, then int64_list "seq_id" bytes, then int64_list
		 * "rf_id" bytes: the lists append, the string is replaced */
		const chakra_attr *a = chakra_node_attr_find(n, "op_schema");
		CHECK(a != NULL);
		if (!a)
			return;
		CHECK_EQ_U(chakra_attr_kind_of(a), CHAKRA_ATTR_INT64_LIST);
		CHECK_EQ_U(chakra_attr_list_len(a), 11);
		int64_t v = 0;
		CHECK(chakra_attr_list_int(a, 0, &v) == 0 && v == 's');
		CHECK(chakra_attr_list_int(a, 6, &v) == 0 && v == 'r');
		CHECK(chakra_attr_list_int(a, 10, &v) == 0 && v == 'd');
	}
	if (!strcmp(file, "reader-scalar-then-string")) {
		const char *str;
		CHECK(chakra_node_get_string(n, "a", &str, &len) == 0 && len == 1 && str[0] == 'x');
	}
	if (!strcmp(file, "reader-attr-no-name")) {
		for (size_t i = 0; i < chakra_node_attr_count(n); i++) {
			const char *s = chakra_attr_name(chakra_node_attr_at(n, i), &len);
			CHECK(s != NULL && s[len] == 0);
		}
	}
}

static void run_reader_case(const expect *e)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/%s", REGRESS_DIR, e->file);
	size_t len;
	unsigned char *buf = slurp(path, &len);
	CHECK_MSG(buf != NULL, "cannot read %s", path);
	if (!buf)
		return;
	chakra_reader_options o = CHAKRA_READER_OPTIONS_INIT, vo = CHAKRA_READER_OPTIONS_INIT;
	vo.verify_with_nanopb = 1;
	chakra_reader *r, *v;
	int rc = chakra_reader_open_buffer(&r, buf, len, &o);
	int vrc = chakra_reader_open_buffer(&v, buf, len, &vo);
	CHECK_MSG(rc == vrc, "%s: open %d vs verified open %d", e->file, rc, vrc);
	uint64_t count = 0;
	if (rc == 0) {
		fuzz_touch_metadata(chakra_reader_metadata(r));
		const chakra_node *n, *vn;
		while ((rc = chakra_reader_next(r, &n)) > 0) {
			fuzz_touch_node(n);
			check_semantics(e->file, count, n);
			count++;
			vrc = chakra_reader_next(v, &vn);
			CHECK_MSG(vrc == 1, "%s: node %llu: nanopb check: %s", e->file,
			          (unsigned long long)count, chakra_reader_errmsg(v));
		}
	}
	const char *msg = chakra_reader_errmsg(r);
	CHECK_MSG(rc == e->end, "%s: ends with %d (%s), expected %d", e->file, rc, msg, e->end);
	CHECK_MSG(count == e->nodes, "%s: %llu nodes, expected %llu", e->file,
	          (unsigned long long)count, (unsigned long long)e->nodes);
	if (rc < 0)
		CHECK_MSG(msg[0] && strstr(msg, "<memory>") != NULL, "%s: message: %s", e->file, msg);
	if (e->says)
		CHECK_MSG(strstr(msg, e->says) != NULL, "%s: message lacks '%s': %s", e->file, e->says,
		          msg);
	printf("%s: %llu nodes, %s\n", e->file, (unsigned long long)count, rc ? msg : "clean end");
	chakra_reader_close(r);
	chakra_reader_close(v);
	free(buf);
}

/* Feeder inputs in the fuzz_feeder layout (options byte, operation count,
 * operations, trace): here the trace is fed to the end with default
 * options, or with_opts with the deps / file order / strict bits of the
 * options byte, and must end with want (an error with a message, or 0). */
static void run_feeder_case(const char *file, int want, int with_opts)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/%s", REGRESS_DIR, file);
	size_t len;
	unsigned char *buf = slurp(path, &len);
	CHECK(buf != NULL && len >= 2 && (size_t)buf[1] + 2 <= len);
	if (!buf || len < 2 || (size_t)buf[1] + 2 > len)
		return;
	size_t skip = 2 + buf[1];
	chakra_feeder *f;
	const chakra_node *n;
	chakra_feeder_options o = CHAKRA_FEEDER_OPTIONS_INIT;
	if (with_opts) {
		o.deps = (chakra_deps)(buf[0] & 3);
		o.order = buf[0] & 4 ? CHAKRA_ORDER_FILE : CHAKRA_ORDER_ID;
		o.strict = (buf[0] & 8) != 0;
	}
	int rc = chakra_feeder_open_buffer(&f, buf + skip, len - skip, &o);
	uint64_t fed = 0;
	while (rc == 0 && (rc = chakra_feeder_next(f, &n)) > 0) {
		fuzz_touch_node(n);
		fed++;
		rc = chakra_feeder_complete(f, chakra_node_id(n));
	}
	if (f) { /* (these insert the nodes still queued in lazy mode) */
		(void)chakra_feeder_ready_count(f);
		(void)chakra_feeder_lookup(f, 0);
	}
	const char *msg = f ? chakra_feeder_errmsg(f) : "";
	CHECK_MSG(rc == want && (want == 0 || msg[0]), "%s: feeder ended with %d '%s', expected %d",
	          file, rc, msg, want);
	printf("%s: %llu nodes fed, %s\n", file, (unsigned long long)fed, msg);
	chakra_feeder_close(f);
	free(buf);
}

/* The text at the very end of a readable page. */
static const char *guarded(const void *text, size_t len, void **map, size_t *maplen)
{
	long pg = sysconf(_SC_PAGESIZE);
	*maplen = 2 * (size_t)pg;
	char *m = mmap(NULL, *maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED || mprotect(m + pg, (size_t)pg, PROT_NONE))
		abort();
	*map = m;
	memcpy(m + pg - len, text, len);
	return m + pg - len;
}

static void run_sim_case(const char *file)
{
	char path[1024], err[512];
	snprintf(path, sizeof path, "%s/%s", REGRESS_DIR, file);
	size_t len;
	unsigned char *buf = slurp(path, &len);
	CHECK(buf != NULL && len >= 2);
	if (!buf || len < 2)
		return;
	void *map;
	size_t maplen;
	const char *text = guarded(buf + 2, len - 2, &map, &maplen);
	err[0] = 0;
	int rc;
	switch (buf[0] % 3) {
	case 0: {
		chakra_sim_network net;
		memset(&net, 0, sizeof net);
		rc = chakra_sim_network_parse(&net, file, text, len - 2, err, sizeof err);
		break;
	}
	case 1: {
		chakra_sim_system sys;
		memset(&sys, 0, sizeof sys);
		rc = chakra_sim_system_parse(&sys, file, text, len - 2, err, sizeof err);
		break;
	}
	default: {
		chakra_sim_groups gs;
		memset(&gs, 0, sizeof gs);
		rc = chakra_sim_groups_parse(&gs, file, text, len - 2, buf[1], err, sizeof err);
		chakra_sim_groups_free(&gs);
	}
	}
	CHECK_MSG(rc != 0 && err[0], "%s: expected a clean error, got %d '%s'", file, rc, err);
	printf("%s: clean error: %s\n", file, err);
	munmap(map, maplen);
	free(buf);
}

int main(void)
{
	for (size_t i = 0; i < sizeof reader_cases / sizeof reader_cases[0]; i++)
		run_reader_case(&reader_cases[i]);
	run_sim_case("sim_config-groups-unterminated");
	/* empty metadata, then a node whose data_deps varint is cut off: an
	 * in-progress scan.c crashed formatting this error (SEGV in vsnprintf) */
	run_feeder_case("feeder-truncated-dep-varint", CHAKRA_ECORRUPT, 0);
	/* Deps both, an empty data list (a NULL buffer) beside control deps:
	 * the lazy feeder's repeat check added 0 to that NULL (clang UBSan),
	 * when ready_count inserted the queued node after the error. */
	run_feeder_case("feeder-both-empty-data-list", CHAKRA_ECORRUPT, 1);
	return check_done();
}
