/* SPDX-License-Identifier: Apache-2.0 */
/* Regression test for the static-link clash: libchakra.a used to
 * export ~48 unprefixed internal functions (heap_push, arena_alloc,
 * node_walk, source_open_path, ...) and nanopb's ChakraProtoMsg_*
 * descriptors, so a program with a function of the same name failed to link
 * against it. This program defines every one of those names itself, links
 * the static library, and runs the reader (nanopb-checked), the writer and
 * the feeder, which pull in every object of the archive. It passes when it
 * links at all and its own definitions are the ones it calls. */
#include <chakra/chakra.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

/* The program's own definitions: each returns a distinct value. */
#define OWN(name, v) int name(void); int name(void) { return v; }

OWN(arena_alloc, 1000)
OWN(arena_free, 1001)
OWN(arena_reset, 1002)
OWN(arena_strdup, 1003)
OWN(attr_kind_is_signed, 1004)
OWN(attr_kind_scalar, 1005)
OWN(bytepool_alloc_slow, 1006)
OWN(bytepool_free, 1007)
OWN(cbuf_append, 1008)
OWN(cbuf_free, 1009)
OWN(cbuf_reserve, 1010)
OWN(doneset_add_slow, 1011)
OWN(doneset_free, 1012)
OWN(doneset_has_slow, 1013)
OWN(dqueue_free, 1014)
OWN(dqueue_pop_slow, 1015)
OWN(dqueue_push_slow, 1016)
OWN(encode_metadata, 1017)
OWN(encode_metadata_size, 1018)
OWN(encode_node, 1019)
OWN(encode_node_size, 1020)
OWN(feeder_errf, 1021)
OWN(feeder_resolve_stall, 1022)
OWN(feeder_scan, 1023)
OWN(feeder_sort_slots, 1024)
OWN(framer_free, 1025)
OWN(framer_init, 1026)
OWN(framer_next_slow, 1027)
OWN(heap_free, 1028)
OWN(heap_pop, 1029)
OWN(heap_push, 1030)
OWN(idmap_erase_slow, 1031)
OWN(idmap_free, 1032)
OWN(idmap_put_slow, 1033)
OWN(kid_next, 1034)
OWN(kid_remove, 1035)
OWN(metadata_walk, 1036)
OWN(node_full_compact, 1037)
OWN(node_walk, 1038)
OWN(pbref_verify_node, 1039)
OWN(source_close, 1040)
OWN(source_is_plain_mem, 1041)
OWN(source_open_cb, 1042)
OWN(source_open_mem, 1043)
OWN(source_open_path, 1044)
OWN(source_read, 1045)
OWN(walk_scratch_free, 1046)
OWN(wire_skip, 1047)
#define OWN_DATA(name, v) extern const int name; const int name = v;
OWN_DATA(ChakraProtoMsg_AttributeProto_field_info, 2000)
OWN_DATA(ChakraProtoMsg_AttributeProto_msg, 2001)
OWN_DATA(ChakraProtoMsg_AttributeProto_submsg_info, 2002)
OWN_DATA(ChakraProtoMsg_BoolList_field_info, 2003)
OWN_DATA(ChakraProtoMsg_BoolList_msg, 2004)
OWN_DATA(ChakraProtoMsg_BoolList_submsg_info, 2005)
OWN_DATA(ChakraProtoMsg_BytesList_field_info, 2006)
OWN_DATA(ChakraProtoMsg_BytesList_msg, 2007)
OWN_DATA(ChakraProtoMsg_BytesList_submsg_info, 2008)
OWN_DATA(ChakraProtoMsg_DoubleList_field_info, 2009)
OWN_DATA(ChakraProtoMsg_DoubleList_msg, 2010)
OWN_DATA(ChakraProtoMsg_DoubleList_submsg_info, 2011)
OWN_DATA(ChakraProtoMsg_Fixed32List_field_info, 2012)
OWN_DATA(ChakraProtoMsg_Fixed32List_msg, 2013)
OWN_DATA(ChakraProtoMsg_Fixed32List_submsg_info, 2014)
OWN_DATA(ChakraProtoMsg_Fixed64List_field_info, 2015)
OWN_DATA(ChakraProtoMsg_Fixed64List_msg, 2016)
OWN_DATA(ChakraProtoMsg_Fixed64List_submsg_info, 2017)
OWN_DATA(ChakraProtoMsg_FloatList_field_info, 2018)
OWN_DATA(ChakraProtoMsg_FloatList_msg, 2019)
OWN_DATA(ChakraProtoMsg_FloatList_submsg_info, 2020)
OWN_DATA(ChakraProtoMsg_GlobalMetadata_field_info, 2021)
OWN_DATA(ChakraProtoMsg_GlobalMetadata_msg, 2022)
OWN_DATA(ChakraProtoMsg_GlobalMetadata_submsg_info, 2023)
OWN_DATA(ChakraProtoMsg_IOInfo_field_info, 2024)
OWN_DATA(ChakraProtoMsg_IOInfo_msg, 2025)
OWN_DATA(ChakraProtoMsg_IOInfo_submsg_info, 2026)
OWN_DATA(ChakraProtoMsg_Int32List_field_info, 2027)
OWN_DATA(ChakraProtoMsg_Int32List_msg, 2028)
OWN_DATA(ChakraProtoMsg_Int32List_submsg_info, 2029)
OWN_DATA(ChakraProtoMsg_Int64List_field_info, 2030)
OWN_DATA(ChakraProtoMsg_Int64List_msg, 2031)
OWN_DATA(ChakraProtoMsg_Int64List_submsg_info, 2032)
OWN_DATA(ChakraProtoMsg_Node_field_info, 2033)
OWN_DATA(ChakraProtoMsg_Node_msg, 2034)
OWN_DATA(ChakraProtoMsg_Node_submsg_info, 2035)
OWN_DATA(ChakraProtoMsg_Sfixed32List_field_info, 2036)
OWN_DATA(ChakraProtoMsg_Sfixed32List_msg, 2037)
OWN_DATA(ChakraProtoMsg_Sfixed32List_submsg_info, 2038)
OWN_DATA(ChakraProtoMsg_Sfixed64List_field_info, 2039)
OWN_DATA(ChakraProtoMsg_Sfixed64List_msg, 2040)
OWN_DATA(ChakraProtoMsg_Sfixed64List_submsg_info, 2041)
OWN_DATA(ChakraProtoMsg_Sint32List_field_info, 2042)
OWN_DATA(ChakraProtoMsg_Sint32List_msg, 2043)
OWN_DATA(ChakraProtoMsg_Sint32List_submsg_info, 2044)
OWN_DATA(ChakraProtoMsg_Sint64List_field_info, 2045)
OWN_DATA(ChakraProtoMsg_Sint64List_msg, 2046)
OWN_DATA(ChakraProtoMsg_Sint64List_submsg_info, 2047)
OWN_DATA(ChakraProtoMsg_StringList_field_info, 2048)
OWN_DATA(ChakraProtoMsg_StringList_msg, 2049)
OWN_DATA(ChakraProtoMsg_StringList_submsg_info, 2050)
OWN_DATA(ChakraProtoMsg_Tensor_field_info, 2051)
OWN_DATA(ChakraProtoMsg_Tensor_msg, 2052)
OWN_DATA(ChakraProtoMsg_Tensor_submsg_info, 2053)
OWN_DATA(ChakraProtoMsg_Uint32List_field_info, 2054)
OWN_DATA(ChakraProtoMsg_Uint32List_msg, 2055)
OWN_DATA(ChakraProtoMsg_Uint32List_submsg_info, 2056)
OWN_DATA(ChakraProtoMsg_Uint64List_field_info, 2057)
OWN_DATA(ChakraProtoMsg_Uint64List_msg, 2058)
OWN_DATA(ChakraProtoMsg_Uint64List_submsg_info, 2059)

static int sink(void *data, const void *buf, size_t len)
{
	(void)buf;
	*(size_t *)data += len;
	return 0;
}

int main(void)
{
	need_data("data/chakra/chakra.0.et.gz");
	const char *path = shared_path("data/chakra/chakra.0.et.gz");
	/* The program's functions are its own. */
	CHECK(heap_push() == 1030);
	CHECK(node_walk() == 1038);
	CHECK(ChakraProtoMsg_Node_msg == 2034);

	chakra_reader_options ro = CHAKRA_READER_OPTIONS_INIT;
	ro.verify_with_nanopb = 1;
	chakra_reader *r;
	int rc = chakra_reader_open(&r, path, &ro);
	CHECK_MSG(rc == 0, "%s", chakra_reader_errmsg(r));
	chakra_writer *w;
	size_t bytes = 0;
	CHECK(chakra_writer_open_cb(&w, sink, &bytes, NULL) == 0);
	CHECK(chakra_writer_copy_metadata(w, chakra_reader_metadata(r)) == 0);
	chakra_builder *b = chakra_builder_new();
	const chakra_node *n;
	unsigned long long count = 0;
	while ((rc = chakra_reader_next(r, &n)) > 0) {
		CHECK(chakra_builder_copy_node(b, n) == 0);
		CHECK(chakra_writer_write_node(w, b) == 0);
		count++;
	}
	CHECK_MSG(rc == 0, "%s", chakra_reader_errmsg(r));
	CHECK(chakra_writer_finish(w) == 0);
	chakra_writer_close(w);
	chakra_builder_free(b);
	chakra_reader_close(r);

	chakra_feeder *f;
	unsigned long long fed = 0;
	CHECK(chakra_feeder_open(&f, path, NULL) == 0);
	while ((rc = chakra_feeder_next(f, &n)) > 0) {
		fed++;
		CHECK(chakra_feeder_complete(f, chakra_node_id(n)) == 0);
	}
	CHECK_MSG(rc == 0, "%s", chakra_feeder_errmsg(f));
	chakra_feeder_close(f);
	CHECK(count > 0 && fed == count && bytes > 0);
	printf("linked with %d functions and %d data symbols of the same names; "
	       "%llu nodes read, written (%zu bytes) and fed\n", 48, 60, count, bytes);
	return check_done();
}
