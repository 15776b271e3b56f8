// SPDX-License-Identifier: Apache-2.0
// bindings/cpp/classic beyond the differential test: the reference order
// on a real trace, the attribute conversions where they differ from the
// classic feeder's, node lifetime and errors.
#include <cstdlib>
#include <sstream>
#include <string>

#include "check.hpp"
#include "et_feeder.h"
#include "trace_gen.hpp"

namespace {

void test_reference_order() {
  // The classic feeder's order on chakra.0.et, issuing one node at a time.
  Chakra::ETFeeder f(shared_path("data/chakra/chakra.0.et.gz"));
  std::ostringstream got;
  while (f.hasNodesToIssue()) {
    auto n = f.getNextIssuableNode();
    if (!n) {
      CHECK(false);
      break;
    }
    got << n->id() << '\n';
    f.freeChildrenNodes(n->id());
    CHECK_EQ(f.lookupNode(n->id())->id(), n->id());  // until removeNode
    f.removeNode(n->id());
    CHECK_THROWS(std::out_of_range, f.lookupNode(n->id()), "already removed");
  }
  CHECK(got.str() == slurp(shared_path("data/chakra/chakra.0.order-v1.txt")));
}

void test_attributes(const std::string& dir) {
  std::string p = dir + "/attrs.et";
  {
    chakra::writer w(p);
    w.write_metadata("0.0.4");
    chakra::builder b;
    // Kinds the classic feeder did not read (it gave 0 for each of these).
    w.write(b.reset().id(1).type(chakra::node_type::comm_coll)
                .attr_int("is_cpu_op", CHAKRA_ATTR_INT32, 1)
                .attr_uint("comm_size", CHAKRA_ATTR_UINT64, 1ull << 40)
                .attr_uint("comm_type", CHAKRA_ATTR_UINT32, 2)
                .attr_int("comm_src", CHAKRA_ATTR_INT64, -1)
                .attr_uint("num_ops", CHAKRA_ATTR_FIXED64, 7)
                .attr_int("tensor_size", CHAKRA_ATTR_INT64, 9)
                .attr_int("pg_name", CHAKRA_ATTR_INT64, 12)
                .attr_list_uint("involved_dim", CHAKRA_ATTR_BOOL_LIST, {1, 0}));
    // Absent attributes, a floating-point comm_size, a repeated name.
    w.write(b.reset().id(2).type(chakra::node_type::comp).data_dep(1)
                .attr_double("comm_size", CHAKRA_ATTR_DOUBLE, 1.5)
                .attr_int("comm_tag", CHAKRA_ATTR_INT32, 4)
                .attr_int("comm_tag", CHAKRA_ATTR_INT32, 5));
    w.finish();
  }
  Chakra::ETFeeder f(p);
  auto a = f.getNextIssuableNode();
  CHECK(a && a->id() == 1);
  CHECK(!f.getNextIssuableNode());
  CHECK_EQ(a->is_cpu_op(), true);
  CHECK_EQ(a->comm_size(), uint64_t(1) << 40);
  CHECK_EQ(a->comm_type(), ChakraProtoMsg::ALL_GATHER);
  CHECK_EQ(a->comm_src(), uint32_t(0xffffffff));
  CHECK_EQ(a->num_ops(), uint64_t(7));
  CHECK_EQ(a->tensor_size(), uint64_t(9));
  CHECK_EQ(a->pg_name(), std::string("12"));
  CHECK(a->has_other_attr("involved_dim"));
  CHECK(!a->has_other_attr("comm_size"));
  CHECK_EQ(a->get_other_attr("involved_dim").bool_list().values_size(), 2);
  CHECK_THROWS(std::runtime_error, a->get_other_attr("nope"), "nope");
  f.freeChildrenNodes(1);
  auto b = f.getNextIssuableNode();
  CHECK(b && b->id() == 2);
  CHECK_EQ(b->is_cpu_op(), false);
  CHECK_EQ(b->comm_dst(), uint32_t(0));
  CHECK_EQ(b->pg_name(), std::string(""));
  CHECK_EQ(b->comm_tag(), uint32_t(5));  // the last one, as the classic feeder
  CHECK_THROWS(std::runtime_error, b->comm_size(), "node 2: attribute comm_size holds a floating-point value");
  CHECK_EQ(a->getChakraNode()->attr_size(), 8);  // node 1 freed, still readable
  CHECK_THROWS(std::runtime_error, f.addNode(b), "read from the trace");
}

void test_stall(const std::string& dir) {
  std::string p = dir + "/stall.et";
  {
    chakra::writer w(p);
    w.write_metadata("0.0.4");
    chakra::builder b;
    w.write(b.reset().id(1).type(chakra::node_type::comp));
    w.write(b.reset().id(2).type(chakra::node_type::comp).data_dep(99));
    w.finish();
  }
  Chakra::ETFeeder f(p);
  auto n = f.getNextIssuableNode();
  f.freeChildrenNodes(n->id());
  f.removeNode(n->id());
  CHECK(f.hasNodesToIssue());
  CHECK_THROWS(std::runtime_error, f.getNextIssuableNode(), "99, which never appears");
  CHECK_THROWS(std::runtime_error, Chakra::ETFeeder(dir + "/none.et"), "none.et");
}

}  // namespace

int main() {
  if (!file_exists(shared_path("data/chakra/chakra.0.et.gz"))) {
    std::fprintf(stderr, "test data missing: skipped\n");
    return 77;
  }
  std::string dir = tracegen::temp_dir("chakra-layer-classic");
  test_reference_order();
  test_attributes(dir);
  test_stall(dir);
  std::string rm = "rm -rf '" + dir + "'";
  if (std::system(rm.c_str()) != 0)
    std::fprintf(stderr, "could not remove %s\n", dir.c_str());
  return check_done();
}
