/* SPDX-License-Identifier: Apache-2.0 */
/* Shared by the fuzz targets: read every field and attribute of a node
 * through the public accessors, checking the documented invariants (strings
 * NUL-terminated at their length, list getters in range, errors as
 * documented). A broken invariant aborts, so the fuzzer records it. */
#ifndef CHAKRA_FUZZ_TOUCH_H
#define CHAKRA_FUZZ_TOUCH_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chakra/chakra.h"

/* Keeps the compiler from dropping reads whose result is otherwise unused. */
static volatile uint64_t fuzz_sink;

static inline void fuzz_fail(const char *what, int a, int b, const char *msg)
{
	fprintf(stderr, "FUZZ INVARIANT BROKEN: %s (%d vs %d): %s\n", what, a, b, msg ? msg : "");
	abort();
}

/* An error must come with a message. */
static inline void fuzz_check_errmsg(const char *m)
{
	if (!m || !m[0])
		fuzz_fail("error without a message", 0, 0, "");
	fuzz_sink += strlen(m);
}

static inline void fuzz_str(const char *s, size_t len)
{
	if (!s)
		fuzz_fail("NULL string", 0, 0, "");
	if (s[len] != '\0')
		fuzz_fail("string not NUL-terminated at its length", (int)len, 0, "");
	for (size_t i = 0; i < len; i++)
		fuzz_sink += (unsigned char)s[i];
}

static inline void fuzz_rc(int rc)
{
	if (rc > 0 || (rc < 0 && rc < -17))
		fuzz_fail("getter returned an undocumented code", rc, 0, chakra_strerror(rc));
	fuzz_sink += (uint64_t)rc;
}

static inline void fuzz_touch_attr(const chakra_attr *a)
{
	size_t len;
	const char *s = chakra_attr_name(a, &len);
	fuzz_str(s, len);
	s = chakra_attr_doc(a, &len);
	fuzz_str(s, len);
	int kind = chakra_attr_kind_of(a);
	const char *kn = chakra_attr_kind_name(kind);
	if (!kn)
		fuzz_fail("attribute kind without a name", kind, 0, "");
	if (chakra_attr_kind_from_name(kn) != kind)
		fuzz_fail("attribute kind name does not round-trip", kind, 0, kn);
	int is_list = chakra_attr_is_list(a);
	if (is_list != (kind != 0 && kind % 2 == 0))
		fuzz_fail("is_list disagrees with the kind", is_list, kind, "");
	int64_t i64;
	uint64_t u64;
	double d;
	int b;
	fuzz_rc(chakra_attr_int(a, &i64));
	fuzz_rc(chakra_attr_uint(a, &u64));
	fuzz_rc(chakra_attr_double(a, &d));
	fuzz_rc(chakra_attr_bool(a, &b));
	int rc = chakra_attr_string(a, &s, &len);
	fuzz_rc(rc);
	if (rc == 0)
		fuzz_str(s, len);
	size_t n = chakra_attr_list_len(a);
	if (!is_list && n != 0)
		fuzz_fail("scalar with a list length", (int)n, kind, "");
	for (size_t i = 0; i < n; i++) {
		fuzz_rc(chakra_attr_list_int(a, i, &i64));
		fuzz_rc(chakra_attr_list_uint(a, i, &u64));
		fuzz_rc(chakra_attr_list_double(a, i, &d));
		rc = chakra_attr_list_string(a, i, &s, &len);
		fuzz_rc(rc);
		if (rc == 0)
			fuzz_str(s, len);
	}
	/* One past the end must be an error, not a read. */
	if (chakra_attr_list_uint(a, n, &u64) == 0)
		fuzz_fail("list getter accepted an index past the end", (int)n, kind, "");
	if (chakra_attr_list_string(a, n, &s, &len) == 0)
		fuzz_fail("list string getter accepted an index past the end", (int)n, kind, "");
}

static inline void fuzz_touch_node(const chakra_node *n)
{
	size_t len;
	fuzz_sink += chakra_node_id(n);
	const char *s = chakra_node_name(n, &len);
	fuzz_str(s, len);
	int t = chakra_node_type_of(n);
	s = chakra_node_type_name(t);
	if (s && chakra_node_type_from_name(s) != t)
		fuzz_fail("node type name does not round-trip", t, 0, s);
	fuzz_sink += chakra_node_start_time_micros(n) + chakra_node_duration_micros(n);
	size_t nd = chakra_node_data_dep_count(n), nc = chakra_node_ctrl_dep_count(n);
	const uint64_t *dd = chakra_node_data_deps(n), *cd = chakra_node_ctrl_deps(n);
	if ((nd && !dd) || (nc && !cd))
		fuzz_fail("dependency list NULL with a count", (int)nd, (int)nc, "");
	for (size_t i = 0; i < nd; i++)
		fuzz_sink += dd[i];
	for (size_t i = 0; i < nc; i++)
		fuzz_sink += cd[i];
	for (int w = 0; w < 2; w++) {
		fuzz_sink += (uint64_t)chakra_node_has_io(n, (chakra_io)w);
		for (int f = 0; f < 3; f++) {
			s = chakra_node_io(n, (chakra_io)w, (chakra_io_field)f, &len);
			fuzz_str(s, len);
		}
	}
	fuzz_sink += chakra_node_offset(n) + chakra_node_index(n);
	size_t na = chakra_node_attr_count(n);
	for (size_t i = 0; i < na; i++) {
		const chakra_attr *a = chakra_node_attr_at(n, i);
		if (!a)
			fuzz_fail("attr_at returned NULL in range", (int)i, (int)na, "");
		fuzz_touch_attr(a);
		size_t nl;
		const char *nm = chakra_attr_name(a, &nl);
		/* find() uses C strings: only names without NUL bytes. */
		if (strlen(nm) == nl) {
			const chakra_attr *f = chakra_node_attr_find(n, nm);
			if (!f)
				fuzz_fail("attr_find misses a present name", (int)i, 0, nm);
		}
	}
	if (chakra_node_attr_at(n, na) != NULL)
		fuzz_fail("attr_at past the end is not NULL", (int)na, 0, "");
	int64_t i64;
	uint64_t u64;
	int b;
	fuzz_rc(chakra_node_is_cpu_op(n, &b));
	fuzz_rc(chakra_node_num_ops(n, &u64));
	fuzz_rc(chakra_node_tensor_size(n, &u64));
	fuzz_rc(chakra_node_comm_type(n, &i64));
	fuzz_rc(chakra_node_comm_size(n, &u64));
	fuzz_rc(chakra_node_comm_priority(n, &i64));
	fuzz_rc(chakra_node_comm_src(n, &i64));
	fuzz_rc(chakra_node_comm_dst(n, &i64));
	fuzz_rc(chakra_node_comm_tag(n, &i64));
	int rc = chakra_node_pg_name(n, &s, &len);
	fuzz_rc(rc);
	if (rc == 0)
		fuzz_str(s, len);
	fuzz_rc(chakra_node_get_int(n, "num_ops", &i64));
	fuzz_rc(chakra_node_get_uint(n, "tensor_size", &u64));
	fuzz_rc(chakra_node_get_bool(n, "is_cpu_op", &b));
	rc = chakra_node_get_string(n, "pg_name", &s, &len);
	fuzz_rc(rc);
	int dims[8];
	rc = chakra_node_involved_dim(n, dims, 8);
	if (rc > 0)
		for (int i = 0; i < rc && i < 8; i++)
			fuzz_sink += (uint64_t)dims[i];
	else
		fuzz_rc(rc);
}

static inline void fuzz_touch_metadata(const chakra_metadata *m)
{
	size_t len;
	const char *s = chakra_metadata_version(m, &len);
	fuzz_str(s, len);
	size_t na = chakra_metadata_attr_count(m);
	for (size_t i = 0; i < na; i++) {
		const chakra_attr *a = chakra_metadata_attr_at(m, i);
		if (!a)
			fuzz_fail("metadata attr_at returned NULL in range", (int)i, (int)na, "");
		fuzz_touch_attr(a);
	}
	if (chakra_metadata_attr_at(m, na) != NULL)
		fuzz_fail("metadata attr_at past the end is not NULL", (int)na, 0, "");
}

#endif
