/* SPDX-License-Identifier: Apache-2.0 */
/* The NULL rule of chakra.h, for every public function of the core: each
 * pointer argument given as NULL in turn (the others valid). Sixteen of
 * them crashed (chakra_reader_open(NULL, ...), chakra_reader_next(NULL,
 * ...), chakra_node_id(NULL), chakra_writer_write_node(w, NULL),
 * chakra_feeder_next(NULL, ...), ...) while others returned
 * CHAKRA_EINVAL. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chakra/chakra.h"
#include "check.h"

typedef struct mem {
	unsigned char *p;
	size_t n, cap;
} mem;

static int mem_write(void *data, const void *p, size_t n)
{
	mem *m = data;
	if (m->n + n > m->cap) {
		size_t c = (m->n + n) * 2 + 64;
		unsigned char *q = realloc(m->p, c);
		if (!q)
			return -1;
		m->p = q;
		m->cap = c;
	}
	memcpy(m->p + m->n, p, n);
	m->n += n;
	return 0;
}

/* Never read: the opens that take it are refused first. */
static long mem_read(void *data, void *buf, size_t cap)
{
	(void)data, (void)buf, (void)cap;
	return 0;
}

/* A two-node trace with an attribute of each shape used below. */
static mem trace(void)
{
	mem m = { NULL, 0, 0 };
	chakra_writer *w;
	chakra_builder *b = chakra_builder_new();
	CHECK(chakra_writer_open_cb(&w, mem_write, &m, NULL) == 0);
	chakra_builder_attr_int(b, "rank", CHAKRA_ATTR_INT64, 0);
	CHECK(chakra_writer_write_metadata(w, "0.0.4", b) == 0);
	chakra_builder_reset(b);
	chakra_builder_set_id(b, 1);
	chakra_builder_set_name(b, "a", (size_t)-1);
	chakra_builder_set_type(b, CHAKRA_COMP_NODE);
	chakra_builder_attr_int(b, "comm_type", CHAKRA_ATTR_INT64, 0);
	uint64_t l[2] = { 1, 0 };
	chakra_builder_attr_list_uint(b, "involved_dim", CHAKRA_ATTR_BOOL_LIST, l, 2);
	const char *sv[1] = { "x" };
	chakra_builder_attr_list_string(b, "sl", CHAKRA_ATTR_STRING_LIST, sv, NULL, 1);
	double dv[1] = { 1.5 };
	chakra_builder_attr_list_double(b, "dl", CHAKRA_ATTR_DOUBLE_LIST, dv, 1);
	chakra_builder_attr_string(b, "pg_name", CHAKRA_ATTR_STRING, "0", (size_t)-1);
	CHECK(chakra_writer_write_node(w, b) == 0);
	chakra_builder_reset(b);
	chakra_builder_set_id(b, 2);
	chakra_builder_add_data_dep(b, 1);
	CHECK(chakra_writer_write_node(w, b) == 0);
	CHECK(chakra_writer_finish(w) == 0);
	chakra_writer_close(w);
	chakra_builder_free(b);
	return m;
}

#define EINVAL_(call) CHECK_MSG((call) == CHAKRA_EINVAL, "%s", #call)

int main(void)
{
	mem m = trace();
	chakra_reader *r = NULL;
	const chakra_node *n = NULL;
	size_t len = 99;
	int64_t i64;
	uint64_t u64;
	double d;
	int iv;
	const char *s;
	chakra_error_info info;

	/* ---- version, errors, allocator ---- */
	CHECK(chakra_version() > 0 && chakra_version_string() != NULL);
	CHECK(chakra_strerror(CHAKRA_EINVAL) != NULL && chakra_err_name(12345) == NULL);
	CHECK(chakra_set_allocator(NULL) == 0); /* documented: back to malloc */

	/* ---- reader ---- */
	EINVAL_(chakra_reader_open(NULL, "x.et", NULL));
	EINVAL_(chakra_reader_open_buffer(NULL, m.p, m.n, NULL));
	EINVAL_(chakra_reader_open_cb(NULL, mem_read, &m, NULL));
	EINVAL_(chakra_reader_open(&r, NULL, NULL));
	CHECK(r && strstr(chakra_reader_errmsg(r), "no path"));
	CHECK(chakra_reader_next(r, &n) == CHAKRA_EINVAL); /* failed, says why */
	chakra_reader_close(r);
	EINVAL_(chakra_reader_open_buffer(&r, NULL, 10, NULL));
	CHECK(r && strstr(chakra_reader_errmsg(r), "no buffer"));
	chakra_reader_close(r);
	CHECK(chakra_reader_open_buffer(&r, NULL, 0, NULL) == CHAKRA_ENOMETA); /* empty input */
	chakra_reader_close(r);
	EINVAL_(chakra_reader_open_cb(&r, NULL, NULL, NULL));
	CHECK(r && strstr(chakra_reader_errmsg(r), "no read callback"));
	chakra_reader_close(r);
	EINVAL_(chakra_reader_options_init(NULL, CHAKRA_READER_OPTIONS_VERSION));
	CHECK(chakra_reader_metadata(NULL) == NULL);
	EINVAL_(chakra_reader_next(NULL, &n));
	const void *raw;
	EINVAL_(chakra_reader_next_raw(NULL, &raw, &len));
	CHECK(chakra_reader_offset(NULL) == 0 && chakra_reader_node_count(NULL) == 0);
	CHECK(chakra_reader_errmsg(NULL) != NULL);
	CHECK(chakra_reader_error(NULL, &info, sizeof info) == CHAKRA_ENOMEM);
	chakra_reader_close(NULL);
	CHECK(chakra_reader_open_buffer(&r, m.p, m.n, NULL) == 0);
	EINVAL_(chakra_reader_next(r, NULL));
	EINVAL_(chakra_reader_next_raw(r, NULL, &len));
	EINVAL_(chakra_reader_next_raw(r, &raw, NULL));
	CHECK(chakra_reader_error(r, NULL, 0) == 0);
	CHECK(chakra_reader_next(r, &n) == 1); /* the misuses did not fail it */

	/* ---- node and attributes ---- */
	CHECK(chakra_node_id(NULL) == 0 && chakra_node_offset(NULL) == 0 && chakra_node_index(NULL) == 0);
	CHECK(!strcmp(chakra_node_name(NULL, &len), "") && len == 0);
	CHECK(chakra_node_type_of(NULL) == 0);
	CHECK(chakra_node_start_time_micros(NULL) == 0 && chakra_node_duration_micros(NULL) == 0);
	CHECK(chakra_node_data_dep_count(NULL) == 0 && chakra_node_data_deps(NULL) == NULL);
	CHECK(chakra_node_ctrl_dep_count(NULL) == 0 && chakra_node_ctrl_deps(NULL) == NULL);
	CHECK(chakra_node_has_io(NULL, CHAKRA_IO_INPUTS) == 0);
	CHECK(!strcmp(chakra_node_io(NULL, CHAKRA_IO_INPUTS, CHAKRA_IO_VALUES, &len), "") && len == 0);
	CHECK(chakra_node_attr_count(NULL) == 0 && chakra_node_attr_at(NULL, 0) == NULL);
	CHECK(chakra_node_attr_find(NULL, "x") == NULL && chakra_node_attr_find(n, NULL) == NULL);
	EINVAL_(chakra_node_get_int(NULL, "comm_type", &i64));
	EINVAL_(chakra_node_get_int(n, NULL, &i64));
	EINVAL_(chakra_node_get_int(n, "comm_type", NULL));
	EINVAL_(chakra_node_get_uint(NULL, "comm_type", &u64));
	EINVAL_(chakra_node_get_uint(n, "comm_type", NULL));
	EINVAL_(chakra_node_get_bool(NULL, "comm_type", &iv));
	EINVAL_(chakra_node_get_bool(n, "comm_type", NULL));
	EINVAL_(chakra_node_get_string(NULL, "pg_name", &s, &len));
	EINVAL_(chakra_node_get_string(n, "pg_name", NULL, &len));
	EINVAL_(chakra_node_get_string(n, NULL, &s, &len));
	CHECK(chakra_node_get_string(n, "pg_name", &s, NULL) == 0); /* len not wanted */
	EINVAL_(chakra_node_is_cpu_op(NULL, &iv));
	EINVAL_(chakra_node_is_cpu_op(n, NULL));
	EINVAL_(chakra_node_num_ops(NULL, &u64));
	EINVAL_(chakra_node_tensor_size(NULL, &u64));
	EINVAL_(chakra_node_comm_type(NULL, &i64));
	EINVAL_(chakra_node_comm_type(n, NULL));
	EINVAL_(chakra_node_comm_size(NULL, &u64));
	EINVAL_(chakra_node_comm_priority(NULL, &i64));
	EINVAL_(chakra_node_comm_src(NULL, &i64));
	EINVAL_(chakra_node_comm_dst(NULL, &i64));
	EINVAL_(chakra_node_comm_tag(NULL, &i64));
	EINVAL_(chakra_node_pg_name(NULL, &s, &len));
	EINVAL_(chakra_node_pg_name(n, NULL, &len));
	int dims[2];
	EINVAL_(chakra_node_involved_dim(NULL, dims, 2));
	EINVAL_(chakra_node_involved_dim(n, NULL, 2));
	CHECK(chakra_node_involved_dim(n, NULL, 0) == 2); /* the length alone */
	CHECK(!strcmp(chakra_attr_name(NULL, &len), "") && len == 0);
	CHECK(!strcmp(chakra_attr_doc(NULL, &len), "") && len == 0);
	CHECK(chakra_attr_kind_of(NULL) == CHAKRA_ATTR_NONE && chakra_attr_is_list(NULL) == 0);
	CHECK(chakra_attr_list_len(NULL) == 0);
	const chakra_attr *ai = chakra_node_attr_find(n, "comm_type");
	const chakra_attr *al = chakra_node_attr_find(n, "involved_dim");
	const chakra_attr *as = chakra_node_attr_find(n, "sl");
	const chakra_attr *ad = chakra_node_attr_find(n, "dl");
	const chakra_attr *ap = chakra_node_attr_find(n, "pg_name");
	CHECK(ai && al && as && ad && ap);
	EINVAL_(chakra_attr_int(NULL, &i64));
	EINVAL_(chakra_attr_int(ai, NULL));
	EINVAL_(chakra_attr_uint(NULL, &u64));
	EINVAL_(chakra_attr_uint(ai, NULL));
	EINVAL_(chakra_attr_double(NULL, &d));
	EINVAL_(chakra_attr_double(ai, NULL));
	EINVAL_(chakra_attr_bool(NULL, &iv));
	EINVAL_(chakra_attr_bool(ai, NULL));
	EINVAL_(chakra_attr_string(NULL, &s, &len));
	EINVAL_(chakra_attr_string(ap, NULL, &len));
	EINVAL_(chakra_attr_list_int(NULL, 0, &i64));
	EINVAL_(chakra_attr_list_int(al, 0, NULL));
	EINVAL_(chakra_attr_list_uint(NULL, 0, &u64));
	EINVAL_(chakra_attr_list_uint(al, 0, NULL));
	EINVAL_(chakra_attr_list_double(NULL, 0, &d));
	EINVAL_(chakra_attr_list_double(ad, 0, NULL));
	EINVAL_(chakra_attr_list_string(NULL, 0, &s, &len));
	EINVAL_(chakra_attr_list_string(as, 0, NULL, &len));
	EINVAL_(chakra_node_type_from_name(NULL));
	EINVAL_(chakra_comm_type_from_name(NULL));
	EINVAL_(chakra_attr_kind_from_name(NULL));
	CHECK(chakra_node_type_name(-1) == NULL && chakra_comm_type_name(99) == NULL &&
	      chakra_attr_kind_name(99) == NULL);

	/* ---- metadata ---- */
	const chakra_metadata *md = chakra_reader_metadata(r);
	CHECK(!strcmp(chakra_metadata_version(NULL, &len), "") && len == 0);
	CHECK(chakra_metadata_attr_count(NULL) == 0 && chakra_metadata_attr_at(NULL, 0) == NULL);
	CHECK(chakra_metadata_attr_find(NULL, "rank") == NULL && chakra_metadata_attr_find(md, NULL) == NULL);

	/* ---- builder ---- */
	chakra_builder *b = chakra_builder_new();
	chakra_builder_free(NULL);
	chakra_builder_reset(NULL);
	chakra_builder_set_id(NULL, 1);
	chakra_builder_set_type(NULL, 1);
	chakra_builder_set_start_time_micros(NULL, 1);
	chakra_builder_set_duration_micros(NULL, 1);
	EINVAL_(chakra_builder_copy_node(NULL, n));
	EINVAL_(chakra_builder_copy_node(b, NULL));
	EINVAL_(chakra_builder_set_name(NULL, "a", 1));
	EINVAL_(chakra_builder_set_name(b, NULL, 1));
	EINVAL_(chakra_builder_add_data_dep(NULL, 1));
	EINVAL_(chakra_builder_add_ctrl_dep(NULL, 1));
	EINVAL_(chakra_builder_set_io(NULL, CHAKRA_IO_INPUTS, CHAKRA_IO_VALUES, "x", 1));
	EINVAL_(chakra_builder_set_io(b, CHAKRA_IO_INPUTS, CHAKRA_IO_VALUES, NULL, 1));
	EINVAL_(chakra_builder_attr_int(NULL, "x", CHAKRA_ATTR_INT64, 1));
	EINVAL_(chakra_builder_attr_int(b, NULL, CHAKRA_ATTR_INT64, 1));
	EINVAL_(chakra_builder_attr_uint(NULL, "x", CHAKRA_ATTR_UINT64, 1));
	EINVAL_(chakra_builder_attr_uint(b, NULL, CHAKRA_ATTR_UINT64, 1));
	EINVAL_(chakra_builder_attr_double(NULL, "x", CHAKRA_ATTR_DOUBLE, 1));
	EINVAL_(chakra_builder_attr_double(b, NULL, CHAKRA_ATTR_DOUBLE, 1));
	EINVAL_(chakra_builder_attr_string(NULL, "x", CHAKRA_ATTR_STRING, "s", 1));
	EINVAL_(chakra_builder_attr_string(b, NULL, CHAKRA_ATTR_STRING, "s", 1));
	EINVAL_(chakra_builder_attr_string(b, "x", CHAKRA_ATTR_STRING, NULL, 1));
	uint64_t lv[1] = { 1 };
	EINVAL_(chakra_builder_attr_list_uint(NULL, "x", CHAKRA_ATTR_INT64_LIST, lv, 1));
	EINVAL_(chakra_builder_attr_list_uint(b, NULL, CHAKRA_ATTR_INT64_LIST, lv, 1));
	EINVAL_(chakra_builder_attr_list_uint(b, "x", CHAKRA_ATTR_INT64_LIST, NULL, 1));
	double dl[1] = { 1 };
	EINVAL_(chakra_builder_attr_list_double(NULL, "x", CHAKRA_ATTR_DOUBLE_LIST, dl, 1));
	EINVAL_(chakra_builder_attr_list_double(b, NULL, CHAKRA_ATTR_DOUBLE_LIST, dl, 1));
	EINVAL_(chakra_builder_attr_list_double(b, "x", CHAKRA_ATTR_DOUBLE_LIST, NULL, 1));
	const char *sl[1] = { "s" };
	EINVAL_(chakra_builder_attr_list_string(NULL, "x", CHAKRA_ATTR_STRING_LIST, sl, NULL, 1));
	EINVAL_(chakra_builder_attr_list_string(b, NULL, CHAKRA_ATTR_STRING_LIST, sl, NULL, 1));
	EINVAL_(chakra_builder_attr_list_string(b, "x", CHAKRA_ATTR_STRING_LIST, NULL, NULL, 1));
	EINVAL_(chakra_builder_attr_empty(NULL, "x"));
	EINVAL_(chakra_builder_attr_empty(b, NULL));
	EINVAL_(chakra_builder_attr_set_doc(NULL, "d", 1));
	CHECK(chakra_builder_attr_empty(b, "x") == 0);
	EINVAL_(chakra_builder_attr_set_doc(b, NULL, 1));
	EINVAL_(chakra_builder_attr_copy(NULL, ai));
	EINVAL_(chakra_builder_attr_copy(b, NULL));

	/* ---- writer ---- */
	mem out = { NULL, 0, 0 };
	chakra_writer *w = NULL;
	EINVAL_(chakra_writer_options_init(NULL, CHAKRA_WRITER_OPTIONS_VERSION));
	EINVAL_(chakra_writer_open(NULL, "x.et", NULL));
	EINVAL_(chakra_writer_open_cb(NULL, mem_write, &out, NULL));
	EINVAL_(chakra_writer_open(&w, NULL, NULL));
	CHECK(w && strstr(chakra_writer_errmsg(w), "no path"));
	chakra_writer_close(w);
	EINVAL_(chakra_writer_open_cb(&w, NULL, NULL, NULL));
	CHECK(w && strstr(chakra_writer_errmsg(w), "callback"));
	chakra_writer_close(w);
	EINVAL_(chakra_writer_write_metadata(NULL, "0.0.4", NULL));
	EINVAL_(chakra_writer_copy_metadata(NULL, md));
	EINVAL_(chakra_writer_write_node(NULL, b));
	EINVAL_(chakra_writer_write_raw(NULL, "", 0));
	EINVAL_(chakra_writer_finish(NULL));
	CHECK(chakra_writer_node_count(NULL) == 0 && chakra_writer_errmsg(NULL) != NULL);
	CHECK(chakra_writer_error(NULL, &info, sizeof info) == CHAKRA_ENOMEM);
	chakra_writer_close(NULL);
	CHECK(chakra_writer_open_cb(&w, mem_write, &out, NULL) == 0);
	EINVAL_(chakra_writer_copy_metadata(w, NULL));
	CHECK(chakra_writer_write_metadata(w, NULL, NULL) == 0); /* documented: none */
	EINVAL_(chakra_writer_write_node(w, NULL));
	EINVAL_(chakra_writer_write_raw(w, NULL, 5));
	CHECK(chakra_writer_write_raw(w, NULL, 0) == 0); /* an empty node message */
	chakra_builder_reset(b);
	CHECK(chakra_writer_write_node(w, b) == 0); /* the misuses did not fail it */
	CHECK(chakra_writer_finish(w) == 0);
	chakra_writer_close(w);
	free(out.p);

	/* ---- feeder and workload ---- */
	chakra_feeder *f = NULL;
	EINVAL_(chakra_feeder_options_init(NULL, CHAKRA_FEEDER_OPTIONS_VERSION));
	EINVAL_(chakra_feeder_open(NULL, "x.et", NULL));
	EINVAL_(chakra_feeder_open_buffer(NULL, m.p, m.n, NULL));
	EINVAL_(chakra_feeder_open_cb(NULL, mem_read, &m, NULL));
	EINVAL_(chakra_feeder_open(&f, NULL, NULL));
	CHECK(f && strstr(chakra_feeder_errmsg(f), "no path"));
	chakra_feeder_close(f);
	EINVAL_(chakra_feeder_open_buffer(&f, NULL, 10, NULL));
	chakra_feeder_close(f);
	EINVAL_(chakra_feeder_open_cb(&f, NULL, NULL, NULL));
	chakra_feeder_close(f);
	EINVAL_(chakra_feeder_next(NULL, &n));
	EINVAL_(chakra_feeder_complete(NULL, 1));
	EINVAL_(chakra_feeder_push_back(NULL, 1));
	EINVAL_(chakra_feeder_drive(NULL));
	CHECK(chakra_feeder_lookup(NULL, 1) == NULL && chakra_feeder_has_more(NULL) == 0);
	struct chakra_feeder_stats st;
	EINVAL_(chakra_feeder_stats(NULL, &st, sizeof st));
	CHECK(chakra_feeder_held_count(NULL) == 0 && chakra_feeder_ready_count(NULL) == 0 &&
	      chakra_feeder_inflight_count(NULL) == 0 && chakra_feeder_issued_count(NULL) == 0 &&
	      chakra_feeder_completed_count(NULL) == 0 && chakra_feeder_warning_count(NULL) == 0 &&
	      chakra_feeder_cycle_break_count(NULL) == 0 &&
	      chakra_feeder_duplicate_dep_count(NULL) == 0);
	CHECK(chakra_feeder_metadata(NULL) == NULL && chakra_feeder_errmsg(NULL) != NULL);
	CHECK(chakra_feeder_error(NULL, &info, sizeof info) == CHAKRA_ENOMEM);
	chakra_feeder_close(NULL);
	CHECK(chakra_feeder_open_buffer(&f, m.p, m.n, NULL) == 0);
	EINVAL_(chakra_feeder_next(f, NULL));
	EINVAL_(chakra_feeder_stats(f, NULL, sizeof st));
	CHECK(chakra_feeder_error(f, NULL, 0) == 0);
	const chakra_node *fn;
	CHECK(chakra_feeder_next(f, &fn) == 1); /* the misuses did not fail it */
	chakra_feeder_close(f);
	chakra_workload *wl = NULL;
	EINVAL_(chakra_workload_open(NULL, "x", NULL));
	EINVAL_(chakra_workload_open(&wl, NULL, NULL));
	CHECK(wl && strstr(chakra_workload_errmsg(wl), "no prefix"));
	chakra_workload_close(wl);
	CHECK(chakra_workload_size(NULL) == 0 && chakra_workload_feeder(NULL, 0) == NULL &&
	      chakra_workload_errmsg(NULL) != NULL);
	chakra_workload_close(NULL);
	CHECK(chakra_workload_rank_map(NULL) == NULL);
	/* ---- rank maps ---- */
	chakra_rank_map *rm = NULL;
	chakra_rank_subst sub;
	char rerr[256];
	EINVAL_(chakra_rank_map_load(NULL, "x.ranks", rerr, sizeof rerr));
	EINVAL_(chakra_rank_map_load(&rm, NULL, rerr, sizeof rerr));
	EINVAL_(chakra_rank_map_parse(NULL, "m", "chakra-rank-map 1", 17, rerr, sizeof rerr));
	CHECK(chakra_rank_map_parse(&rm, "m", NULL, 5, rerr, sizeof rerr) < 0 && !rm);
	static const char map[] = "chakra-rank-map 1\nranks 2\nclass 0 c.et\n0-1 0\n";
	CHECK(chakra_rank_map_parse(&rm, NULL, map, sizeof map - 1, NULL, 0) == 0 && rm);
	EINVAL_(chakra_rank_map_subst(rm, 0, NULL));
	EINVAL_(chakra_rank_map_subst(NULL, 0, &sub));
	CHECK(chakra_rank_map_subst(rm, 1, &sub) == 0);
	chakra_rank_map_free(rm);
	CHECK(chakra_rank_map_ranks(NULL) == 0 && chakra_rank_map_classes(NULL) == 0 &&
	      chakra_rank_map_class(NULL, 0) == UINT32_MAX && chakra_rank_map_file(NULL, 0) == NULL &&
	      chakra_rank_map_is(NULL) == 0);
	chakra_rank_map_free(NULL);

	chakra_builder_free(b);
	chakra_reader_close(r);
	free(m.p);
	return check_done();
}
