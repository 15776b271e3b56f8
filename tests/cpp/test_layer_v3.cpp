// SPDX-License-Identifier: Apache-2.0
// bindings/cpp/feeder_v3 where it goes beyond, or differs from, the stock
// FeederV3 (the differential test pins where it is the same), and
// chakra/protobuf.hpp against protobuf's own parser.
#include <chakra/protobuf.hpp>

#include <cstdlib>
#include <string>
#include <vector>

#include "check.hpp"
#include "et_feeder.h"
#include "trace_gen.hpp"

using Chakra::FeederV3::ETFeeder;
using Chakra::FeederV3::ETFeederNode;

namespace {

// Every node of the trace, converted from libchakra's view, equals the
// message protobuf parses from the node's bytes.
void check_to_protobuf(const std::string& path) {
  chakra::reader raw(path), views(path);
  ChakraProtoMsg::GlobalMetadata pm, vm;
  std::string meta_bytes;
  {
    chakra::reader r(path);
    chakra::to_protobuf(r.metadata(), &vm);
  }
  uint64_t n = 0;
  while (auto bytes = raw.next_raw()) {
    auto v = views.next();
    CHECK(v.has_value());
    ChakraProtoMsg::Node parsed, converted;
    CHECK(parsed.ParseFromArray(bytes->data(), static_cast<int>(bytes->size())));
    chakra::to_protobuf(*v, &converted);
    if (parsed.SerializeAsString() != converted.SerializeAsString()) {
      std::fprintf(stderr, "%s: node %llu differs:\nparsed:    %s\nconverted: %s\n", path.c_str(),
                   static_cast<unsigned long long>(v->id()), parsed.ShortDebugString().c_str(),
                   converted.ShortDebugString().c_str());
      check_failures()++;
      return;
    }
    n++;
  }
  CHECK(n > 0);
  CHECK(vm.attr_size() == static_cast<int>(raw.metadata().attrs().size()));
}

std::string write(const std::string& path, const std::vector<std::vector<uint64_t>>& nodes,
                  bool gzip = false) {
  // nodes: {id, data parents...}
  chakra::writer w(path, chakra::writer_options{gzip, 0, true});
  chakra::builder meta;
  meta.attr_string("schema", CHAKRA_ATTR_STRING, "layer-test");
  w.write_metadata("0.0.4", &meta);
  chakra::builder b;
  for (const auto& n : nodes) {
    b.reset().id(n[0]).name("n" + std::to_string(n[0])).type(chakra::node_type::comp)
        .duration_micros(n[0] * 10).attr_bool("is_cpu_op", false);
    for (size_t i = 1; i < n.size(); i++)
      b.data_dep(n[i]);
    w.write(b);
  }
  w.finish();
  return path;
}

void test_reads_after_finish(const std::string& dir) {
  std::string p = write(dir + "/chain.et.gz", {{1}, {2, 1}, {3, 2}}, true);  // gzip: FeederV3 cannot
  std::shared_ptr<ETFeederNode> kept;
  {
    ETFeeder f(p);
    CHECK_EQ(f.global_metadata.version(), std::string("0.0.4"));
    CHECK_EQ(f.global_metadata.attr(0).string_val(), std::string("layer-test"));
    auto& r = f.getDependancyResolver();
    CHECK(r.get_dependancy_free_nodes() == std::unordered_set<uint64_t>{1});
    kept = f.lookupNode(1);  // nothing read yet
    r.take_node(1);
    r.finish_node(1);
    CHECK_EQ(kept->name(), std::string("n1"));  // read after finish_node
    CHECK_EQ(kept->runtime(), uint64_t(10));
    CHECK_THROWS(std::runtime_error, f.lookupNode(1), "Node 1 not found");
    CHECK(r.get_dependancy_free_nodes() == std::unordered_set<uint64_t>{2});
    // A waiting node can be looked up, and is the same when it is ready.
    auto three = f.lookupNode(3);
    CHECK_EQ(three->id(), uint64_t(3));
    CHECK_THROWS(std::runtime_error, r.take_node(3), "Node 3 is not dependancy free");
    auto two = f.getNextIssuableNode();
    CHECK(two && two->id() == 2);
    CHECK(r.get_ongoing_nodes() == std::unordered_set<uint64_t>{2});
    f.pushBackIssuableNode(2);
    CHECK(f.hasNodesToIssue());
    two = f.getNextIssuableNode();
    f.freeChildrenNodes(2);
    CHECK_THROWS(std::runtime_error, f.addNode(three), "read-only");
    f.removeNode(3);  // ignored, as in FeederV3
    kept = three;     // outlives the feeder, unread until then
  }
  CHECK_EQ(kept->name(), std::string("n3"));
  CHECK_EQ(kept->is_cpu_op(), false);
  CHECK_EQ(kept->comm_priority(), uint32_t(0));
  CHECK_THROWS(std::runtime_error, kept->comm_size(), "Attribute comm_size not found in node 3");
}

void test_errors(const std::string& dir) {
  CHECK_THROWS(std::runtime_error, ETFeeder(dir + "/absent.et"), "absent.et");
  // A data parent that never appears: the stall names it when nothing else
  // can run.
  std::string p = write(dir + "/stall.et", {{1}, {2, 1, 99}});
  ETFeeder f(p);
  auto& r = f.getDependancyResolver();
  r.take_node(1);
  CHECK_THROWS(std::runtime_error, r.finish_node(1), "99, which never appears");
  CHECK_THROWS(std::runtime_error, r.finish_node(1), "Node 1 is not taken");

  // An empty trace runs (FeederV3 throws "No dependancy free nodes found").
  ETFeeder empty(write(dir + "/empty.et", {}));
  CHECK(empty.getDependancyResolver().get_dependancy_free_nodes().empty());
  CHECK(!empty.hasNodesToIssue() && !empty.getNextIssuableNode());

  setenv("CHAKRA_FEEDER_WINDOW", "lots", 1);
  CHECK_THROWS(std::runtime_error, ETFeeder(p), "CHAKRA_FEEDER_WINDOW=lots");
  unsetenv("CHAKRA_FEEDER_WINDOW");
}

// The read-ahead window: by default every ready node of the file is known
// (FeederV3's ready set); a bounded window knows only those read so far.
void test_window(const std::string& dir) {
  std::vector<std::vector<uint64_t>> nodes = {{0}};
  for (uint64_t i = 1; i < 100; i++)
    nodes.push_back({i, i - 1});
  nodes.push_back({100});  // a second root at the end of the file
  std::string p = write(dir + "/late-root.et", nodes);
  {
    ETFeeder f(p);
    CHECK_EQ(f.getDependancyResolver().get_dependancy_free_nodes().size(), size_t(2));
  }
  setenv("CHAKRA_FEEDER_WINDOW", "10", 1);
  {
    ETFeeder f(p);
    CHECK_EQ(f.getDependancyResolver().get_dependancy_free_nodes().size(), size_t(1));
    chakra::feeder_options o;
    o.window = 0;
    ETFeeder g(p, o);  // explicit options win over the environment
    CHECK_EQ(g.getDependancyResolver().get_dependancy_free_nodes().size(), size_t(2));
  }
  unsetenv("CHAKRA_FEEDER_WINDOW");
}

// chakra.0.et: FeederV3 refuses it; here every node runs, data parents
// before children, with the dropped control edges counted.
void test_real_trace() {
  ETFeeder f(shared_path("data/chakra/chakra.0.et.gz"));
  auto& r = f.getDependancyResolver();
  std::unordered_set<uint64_t> done;
  uint64_t n = 0;
  while (!r.get_dependancy_free_nodes().empty()) {
    auto node = f.getNextIssuableNode();
    for (uint64_t p : node->chakra_node().data_deps())
      CHECK(done.count(p));
    r.finish_node(node->id());
    done.insert(node->id());
    n++;
  }
  CHECK_EQ(n, uint64_t(3664));
  CHECK(r.get_ongoing_nodes().empty());
  CHECK_EQ(f.chakraFeeder().warning_count(), uint64_t(2259));
}

}  // namespace

// A rank map: ETFeeder("PREFIX.R.et") of a rank without a file of its own
// reads its class file with its own peers and group (what ASTRA-sim opens).
void test_rank_map(const std::string& dir) {
  {
    chakra::writer w(dir + "/rm.c0.et", chakra::writer_options{false, 0, true});
    chakra::builder meta;
    w.write_metadata("0.0.4", &meta);
    chakra::builder b;
    b.reset().id(0).name("send").type(chakra::node_type::comm_send)
        .attr_int("comm_dst", CHAKRA_ATTR_INT32, 1).attr_int("comm_size", CHAKRA_ATTR_INT64, 8);
    w.write(b);
    b.reset().id(1).name("ar").type(chakra::node_type::comm_coll)
        .attr_int("comm_type", CHAKRA_ATTR_INT64, CHAKRA_ALL_REDUCE)
        .attr_string("pg_name", CHAKRA_ATTR_STRING, "g0").data_dep(0);
    w.write(b);
    w.finish();
  }
  {
    std::FILE* f = std::fopen((dir + "/rm.ranks").c_str(), "w");
    std::fputs("chakra-rank-map 1\nranks 3\nclass 0 rm.c0.et peers 1 groups g0\n0 0\n"
               "1 0 peers 2 groups g1\n2 0 peers 0 groups g2\n", f);
    std::fclose(f);
  }
  for (uint32_t r = 0; r < 3; r++) {
    ETFeeder fd(dir + "/rm." + std::to_string(r) + ".et");
    auto n = fd.getNextIssuableNode();
    CHECK(n && n->id() == 0);
    CHECK_EQ(n->comm_dst(), (r + 1) % 3);
    fd.freeChildrenNodes(0);
    auto m = fd.getNextIssuableNode();
    CHECK(m && m->pg_name<std::string>("") == "g" + std::to_string(r));
  }
  // A rank the map does not have, and a broken map: errors naming them.
  CHECK_THROWS(std::runtime_error, ETFeeder(dir + "/rm.3.et"), "has 3 ranks");
  {
    std::FILE* f = std::fopen((dir + "/rm.ranks").c_str(), "w");
    std::fputs("chakra-rank-map 1\nranks 3\n", f);
    std::fclose(f);
  }
  CHECK_THROWS(std::runtime_error, ETFeeder(dir + "/rm.1.et"), "rm.ranks:3: rank 0 has no class");
}

int main() {
  if (!file_exists(shared_path("data/chakra/chakra.0.et.gz"))) {
    std::fprintf(stderr, "test data missing: skipped\n");
    return 77;
  }
  std::string dir = tracegen::temp_dir("chakra-layer-v3");
  check_to_protobuf(shared_path("data/chakra/chakra.0.et.gz"));
  check_to_protobuf(shared_path("data/astra-sim/microbenchmarks/all_to_all/4npus_1MB/all_to_all.0.et"));
  for (int i = 0; i < 50; i++) {
    tracegen::random_dag(dir + "/r.et", 900 + i);
    check_to_protobuf(dir + "/r.et");
  }
  test_reads_after_finish(dir);
  test_errors(dir);
  test_window(dir);
  test_real_trace();
  test_rank_map(dir);
  std::string rm = "rm -rf '" + dir + "'";
  if (std::system(rm.c_str()) != 0)
    std::fprintf(stderr, "could not remove %s\n", dir.c_str());
  return check_done();
}
