/* SPDX-License-Identifier: Apache-2.0 */
/* Crafted traces for the analysis tests, written with the public writer:
 *   mktrace names OUT   names with quotes, <, >, &, \, newline, bad UTF-8
 *   mktrace graph OUT   a small graph whose stats are worked out by hand in
 *                       stats.sh: parents after children, a dependency on an
 *                       absent id, a self-dependency, a cycle, collectives
 *   mktrace dup OUT     ids 1, 2, 1: a reused id */
#include <stdio.h>
#include <string.h>

#include "chakra/chakra.h"

static chakra_writer *w;
static chakra_builder *b;

static void node(uint64_t id, const char *name, int type, uint64_t dur)
{
	chakra_builder_reset(b);
	chakra_builder_set_id(b, id);
	chakra_builder_set_name(b, name, (size_t)-1);
	chakra_builder_set_type(b, type);
	chakra_builder_set_duration_micros(b, dur);
}

static int put(void) { return chakra_writer_write_node(w, b) < 0; }

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: mktrace names|graph|dup OUT\n");
		return 2;
	}
	chakra_writer_options o = CHAKRA_WRITER_OPTIONS_INIT;
	o.overwrite = 1;
	b = chakra_builder_new();
	if (!b || chakra_writer_open(&w, argv[2], &o) < 0 ||
	    chakra_writer_write_metadata(w, "0.0.4", NULL) < 0) {
		fprintf(stderr, "mktrace: %s\n", chakra_writer_errmsg(w));
		return 1;
	}
	int bad = 0;
	if (!strcmp(argv[1], "names")) {
		node(1, "say \"hi\" <b> & \\ end", CHAKRA_COMP_NODE, 10);
		bad |= put();
		node(2, "line\nbreak \xff tail", CHAKRA_COMM_COLL_NODE, 20);
		chakra_builder_add_data_dep(b, 1);
		chakra_builder_add_ctrl_dep(b, 1);
		chakra_builder_attr_int(b, "comm_type", CHAKRA_ATTR_INT64, CHAKRA_ALL_REDUCE);
		chakra_builder_attr_int(b, "comm_size", CHAKRA_ATTR_INT64, 4096);
		bad |= put();
		node(3, "\xc3\xbc\xe2\x89\xa5 'single'", CHAKRA_COMP_NODE, 30);
		chakra_builder_add_ctrl_dep(b, 2);
		chakra_builder_add_data_dep(b, 42); /* absent */
		bad |= put();
	} else if (!strcmp(argv[1], "graph")) {
		node(10, "a", CHAKRA_COMP_NODE, 5); /* parent 20 comes later */
		chakra_builder_attr_int(b, "is_cpu_op", CHAKRA_ATTR_BOOL, 1);
		chakra_builder_add_data_dep(b, 20);
		bad |= put();
		node(20, "b", CHAKRA_COMP_NODE, 7);
		chakra_builder_attr_int(b, "is_cpu_op", CHAKRA_ATTR_BOOL, 0);
		bad |= put();
		node(30, "ar", CHAKRA_COMM_COLL_NODE, 100);
		chakra_builder_attr_int(b, "is_cpu_op", CHAKRA_ATTR_BOOL, 0);
		chakra_builder_attr_int(b, "comm_type", CHAKRA_ATTR_INT64, CHAKRA_ALL_REDUCE);
		chakra_builder_attr_int(b, "comm_size", CHAKRA_ATTR_INT64, 1000);
		chakra_builder_add_data_dep(b, 10);
		chakra_builder_add_ctrl_dep(b, 30);  /* self */
		chakra_builder_add_ctrl_dep(b, 999); /* absent */
		bad |= put();
		node(40, "ag", CHAKRA_COMM_COLL_NODE, 1);
		chakra_builder_attr_int(b, "is_cpu_op", CHAKRA_ATTR_INT32, 0);
		chakra_builder_attr_int(b, "comm_type", CHAKRA_ATTR_INT64, CHAKRA_ALL_GATHER);
		chakra_builder_attr_uint(b, "comm_size", CHAKRA_ATTR_UINT64, 50);
		chakra_builder_add_data_dep(b, 20);
		bad |= put();
		node(50, "c", CHAKRA_COMP_NODE, 3);
		chakra_builder_add_data_dep(b, 30);
		chakra_builder_add_data_dep(b, 40);
		bad |= put();
		node(60, "d", CHAKRA_COMP_NODE, 100);
		chakra_builder_add_ctrl_dep(b, 50);
		bad |= put();
		node(70, "cyc1", CHAKRA_COMP_NODE, 1);
		chakra_builder_add_data_dep(b, 71);
		bad |= put();
		node(71, "cyc2", CHAKRA_COMP_NODE, 1);
		chakra_builder_add_data_dep(b, 70);
		bad |= put();
		node(80, "send", CHAKRA_COMM_SEND_NODE, 2);
		chakra_builder_attr_int(b, "comm_size", CHAKRA_ATTR_INT64, 64);
		chakra_builder_add_data_dep(b, 888); /* absent */
		bad |= put();
	} else if (!strcmp(argv[1], "dup")) {
		node(1, "first", CHAKRA_COMP_NODE, 10);
		bad |= put();
		node(2, "second", CHAKRA_COMP_NODE, 20);
		chakra_builder_add_data_dep(b, 1);
		bad |= put();
		node(1, "again", CHAKRA_COMP_NODE, 50);
		chakra_builder_add_data_dep(b, 2);
		bad |= put();
	} else {
		fprintf(stderr, "mktrace: unknown kind %s\n", argv[1]);
		return 2;
	}
	if (bad || chakra_writer_finish(w) < 0) {
		fprintf(stderr, "mktrace: %s\n", chakra_writer_errmsg(w));
		return 1;
	}
	chakra_writer_close(w);
	chakra_builder_free(b);
	return 0;
}
