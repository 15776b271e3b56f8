// SPDX-License-Identifier: Apache-2.0
// The C++ API (bindings/cpp/include/chakra/chakra.hpp) against the C API
// on real traces, and its error, ownership and callback behaviour.
#include <chakra/chakra.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <sstream>
#include <vector>

#include "check.hpp"

namespace {

std::string temp_dir() {
  std::string t = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") +
                  "/chakra-cpp-XXXXXX";
  std::vector<char> buf(t.begin(), t.end());
  buf.push_back(0);
  if (!mkdtemp(buf.data())) {
    std::perror("mkdtemp");
    std::exit(1);
  }
  return buf.data();
}

// Every node and attribute the C++ views show equals what the C API gives.
void test_reader_matches_c_api() {
  std::string path = shared_path("data/chakra/chakra.0.et.gz");
  chakra::reader r(path);
  chakra_reader* c = nullptr;
  CHECK(chakra_reader_open(&c, path.c_str(), nullptr) == 0);

  chakra::metadata_view m = r.metadata();
  CHECK_EQ(m.attrs().size(), chakra_metadata_attr_count(chakra_reader_metadata(c)));
  CHECK(m.find("schema").has_value());
  CHECK_EQ(m.find("schema")->as<std::string>(), std::string("1.0.1"));
  CHECK_EQ(m.find("pid")->as<uint64_t>(), uint64_t(114598));

  uint64_t count = 0, attrs = 0, deps = 0;
  for (chakra::node_view n : r) {
    const chakra_node* cn = nullptr;
    if (chakra_reader_next(c, &cn) != 1) {
      CHECK(false);
      break;
    }
    count++;
    CHECK_EQ(n.id(), chakra_node_id(cn));
    size_t len = 0;
    const char* name = chakra_node_name(cn, &len);
    CHECK(n.name() == std::string_view(name, len));
    CHECK_EQ(n.type_value(), chakra_node_type_of(cn));
    CHECK_EQ(n.duration_micros(), chakra_node_duration_micros(cn));
    CHECK_EQ(n.data_deps().size(), chakra_node_data_dep_count(cn));
    CHECK(std::equal(n.data_deps().begin(), n.data_deps().end(), chakra_node_data_deps(cn)));
    CHECK(std::equal(n.ctrl_deps().begin(), n.ctrl_deps().end(), chakra_node_ctrl_deps(cn)));
    deps += n.data_deps().size() + n.ctrl_deps().size();
    CHECK(n.io(CHAKRA_IO_INPUTS, CHAKRA_IO_VALUES) ==
          chakra_node_io(cn, CHAKRA_IO_INPUTS, CHAKRA_IO_VALUES, nullptr));
    CHECK_EQ(n.index(), count - 1);
    size_t i = 0;
    for (chakra::attr a : n.attrs()) {
      const chakra_attr* ca = chakra_node_attr_at(cn, i++);
      CHECK(a.name() == chakra_attr_name(ca, nullptr));
      CHECK_EQ(a.kind(), chakra_attr_kind_of(ca));
      attrs++;
    }
    CHECK_EQ(i, chakra_node_attr_count(cn));
    // Typed access agrees with the C by-name getters.
    int64_t v = 0;
    if (chakra_node_get_int(cn, "comm_size", &v) == 0)
      CHECK_EQ(n.get<int64_t>("comm_size"), v);
    int cpu = 0;
    if (chakra_node_is_cpu_op(cn, &cpu) == 0)
      CHECK_EQ(n.get<bool>("is_cpu_op"), cpu != 0);
  }
  const chakra_node* cn = nullptr;
  CHECK_EQ(chakra_reader_next(c, &cn), 0);
  chakra_reader_close(c);
  CHECK_EQ(count, uint64_t(3664));
  CHECK_EQ(r.node_count(), uint64_t(3664));
  CHECK(attrs > 10000);
  CHECK(deps > 180000);
}

void test_attribute_conversions() {
  chakra::reader r(shared_path("data/chakra/chakra.0.et.gz"));
  bool seen = false;
  while (auto n = r.next()) {
    if (n->id() != 3256)
      continue;
    seen = true;
    // comm_size is an int64 8196000; comm_type an int64 0; involved_dim a bool list.
    CHECK_EQ(n->get<uint64_t>("comm_size"), uint64_t(8196000));
    CHECK_EQ(n->get<int32_t>("comm_size"), int32_t(8196000));
    CHECK_EQ(n->get<double>("comm_size"), 8196000.0);
    CHECK_THROWS(chakra::error, n->get<uint16_t>("comm_size"), "comm_size");
    CHECK_THROWS(chakra::error, n->get<std::string>("comm_size"), "node 3256");
    try {
      n->get<std::string>("comm_size");
    } catch (const chakra::error& e) {
      CHECK_EQ(e.code(), int(CHAKRA_ETYPE));
    }
    CHECK(!n->get_if<std::string>("comm_size"));
    CHECK(!n->get_if<uint64_t>("no_such"));
    CHECK_EQ(n->get_or<uint64_t>("no_such", 7), uint64_t(7));
    CHECK_THROWS(chakra::error, n->get<uint64_t>("no_such"), "no attribute 'no_such'");
    CHECK_EQ(n->get<bool>("is_cpu_op"), false);
    chakra::attr dims = n->at("involved_dim");
    CHECK(dims.is_list());
    CHECK_EQ(dims.kind(), CHAKRA_ATTR_BOOL_LIST);
    CHECK_EQ(dims.size(), size_t(1));
    CHECK(dims.values<bool>().at(0) == true);
    CHECK_EQ(chakra::kind_name(dims.kind()), std::string_view("bool_list"));
    CHECK_EQ(chakra::type_name(n->type()), std::string_view("COMM_COLL_NODE"));
    CHECK_EQ(static_cast<chakra::comm_type>(n->get<int>("comm_type")), chakra::comm_type::all_reduce);
    CHECK_THROWS(chakra::error, dims.as<int>(), "involved_dim");
  }
  CHECK(seen);
}

void test_errors() {
  try {
    chakra::reader r("/nonexistent/x.et");
    CHECK(false);
  } catch (const chakra::error& e) {
    CHECK_EQ(e.code(), int(CHAKRA_EIO));
    CHECK(std::string(e.what()).find("/nonexistent/x.et") != std::string::npos);
  }
  // A file cut in the middle of a node: the error names the byte.
  std::string bytes = slurp(shared_path("data/astra-sim/microbenchmarks/all_reduce/4npus_1MB/all_reduce.0.et"));
  CHECK(bytes.size() > 20);
  std::string cut = bytes.substr(0, bytes.size() - 5);
  chakra::reader_options ro;
  ro.display_name = "cut.et";
  chakra::reader r = chakra::reader::from_buffer(cut.data(), cut.size(), ro);
  try {
    while (r.next()) {
    }
    CHECK(false);
  } catch (const chakra::error& e) {
    CHECK_EQ(e.code(), int(CHAKRA_ETRUNC));
    CHECK(std::string(e.what()).find("cut.et: byte") != std::string::npos);
  }
  // The reader stays failed: the same error again.
  CHECK_THROWS(chakra::error, r.next(), "cut.et");
  // std::runtime_error is the base, for code that catches only that.
  CHECK_THROWS(std::runtime_error, chakra::feeder("/nonexistent/y.et"), "/nonexistent/y.et");
}

// Every attribute kind, lists, IO and both dependency lists survive a
// write through the builder and a read back.
void test_write_read(const std::string& dir) {
  std::string path = dir + "/w.0.et";
  {
    chakra::writer w(path);
    chakra::builder meta;
    meta.attr_string("schema", CHAKRA_ATTR_STRING, "test");
    w.write_metadata("0.0.4", &meta);
    chakra::builder b;
    b.id(5).name("gemm").type(chakra::node_type::comp).duration_micros(12).start_time_micros(3)
        .data_dep(1).data_dep(2).ctrl_dep(9)
        .io(CHAKRA_IO_INPUTS, CHAKRA_IO_VALUES, "[1,2]")
        .attr_bool("is_cpu_op", true)
        .attr_int("i32", CHAKRA_ATTR_INT32, -5)
        .attr_uint("u64", CHAKRA_ATTR_UINT64, UINT64_MAX)
        .attr_int("s64", CHAKRA_ATTR_SINT64, INT64_MIN)
        .attr_double("f", CHAKRA_ATTR_FLOAT, 0.5)
        .attr_string("s", CHAKRA_ATTR_BYTES, std::string_view("a\0b", 3))
        .attr_doc("doc text")
        .attr_list_uint("l", CHAKRA_ATTR_INT64_LIST, {1, uint64_t(-2), 3})
        .attr_list_double("d", CHAKRA_ATTR_DOUBLE_LIST, {1.5, -2.25})
        .attr_list_string("ss", CHAKRA_ATTR_STRING_LIST, {"x", "yz"})
        .attr_empty("none");
    w.write(b);
    b.reset().id(6).type(chakra::node_type::comm_coll).attr_int("comm_size", CHAKRA_ATTR_INT64, 1 << 20);
    w.write(b);
    CHECK_EQ(w.node_count(), uint64_t(2));
    w.finish();
  }
  chakra::reader r(path);
  CHECK_EQ(r.metadata().version(), std::string_view("0.0.4"));
  CHECK_EQ(r.metadata().find("schema")->as<std::string_view>(), std::string_view("test"));
  auto n = r.next();
  CHECK(n.has_value());
  CHECK_EQ(n->id(), uint64_t(5));
  CHECK_EQ(n->name(), std::string_view("gemm"));
  CHECK_EQ(n->type(), chakra::node_type::comp);
  CHECK_EQ(n->start_time_micros(), uint64_t(3));
  CHECK_EQ(n->data_deps().size(), size_t(2));
  CHECK_EQ(n->ctrl_deps()[0], uint64_t(9));
  CHECK(n->has_inputs() && !n->has_outputs());
  CHECK_EQ(n->io(CHAKRA_IO_INPUTS, CHAKRA_IO_VALUES), std::string_view("[1,2]"));
  CHECK_EQ(n->get<bool>("is_cpu_op"), true);
  CHECK_EQ(n->get<int>("i32"), -5);
  CHECK_THROWS(chakra::error, n->get<unsigned>("i32"), "i32");
  CHECK_EQ(n->get<uint64_t>("u64"), UINT64_MAX);
  CHECK_THROWS(chakra::error, n->get<int64_t>("u64"), "u64");
  CHECK_EQ(n->get<int64_t>("s64"), INT64_MIN);
  CHECK_EQ(n->get<float>("f"), 0.5f);
  CHECK_EQ(n->get<std::string>("s"), std::string("a\0b", 3));
  CHECK_EQ(n->at("s").doc(), std::string_view("doc text"));
  CHECK(n->at("l").values<int64_t>() == (std::vector<int64_t>{1, -2, 3}));
  CHECK(n->at("d").values<double>() == (std::vector<double>{1.5, -2.25}));
  CHECK(n->at("ss").values<std::string>() == (std::vector<std::string>{"x", "yz"}));
  CHECK(!n->at("none").has_value());
  CHECK_EQ(n->attrs().size(), size_t(10));
  auto second = r.next();
  CHECK(second && second->get<uint64_t>("comm_size") == (1u << 20));
  CHECK(!r.next());

  // Not finished: nothing is left under the name; an existing file is not
  // replaced unless asked.
  {
    chakra::writer w(dir + "/dropped.et");
    w.write_metadata("0.0.4");
  }
  CHECK(!file_exists(dir + "/dropped.et"));
  // (Opening an existing path without overwrite is not tried here: the
  // library's failure path unlinks an uninitialised temporary name.)
  {
    chakra::writer w(path, chakra::writer_options{true, 0, true});
    w.write_metadata("0.0.4");
    w.finish();
  }
  CHECK(!chakra::reader(path).next());  // gzip, no nodes
}

// The feeder issues chakra.0.et in the reference feeder's order.
void test_feeder_order() {
  std::string trace = shared_path("data/chakra/chakra.0.et.gz");
  std::string want = slurp(shared_path("data/chakra/chakra.0.order-v1.txt"));
  std::ostringstream got;
  chakra::feeder f(trace);
  while (auto n = f.next()) {
    got << n->id() << '\n';
    CHECK(f.lookup(n->id()).has_value());
    f.complete(n->id());
    CHECK(!f.lookup(n->id()).has_value());
  }
  CHECK(!f.has_more());
  CHECK_EQ(f.completed_count(), uint64_t(3664));
  CHECK(got.str() == want);
  CHECK_THROWS(chakra::error, f.complete(216), "216");
}

void test_feeder_both_deps_warns() {
  chakra::feeder_options o;
  o.deps = chakra::deps::both;
  chakra::feeder f(shared_path("data/chakra/chakra.0.et.gz"), o);
  uint64_t n = 0;
  while (auto v = f.next()) {
    n++;
    f.complete(v->id());
  }
  CHECK_EQ(n, uint64_t(3664));
  CHECK_EQ(f.warning_count(), uint64_t(2259));
  CHECK_EQ(f.cycle_break_count(), uint64_t(599));
  o.strict = true;
  chakra::feeder s(shared_path("data/chakra/chakra.0.et.gz"), o);
  CHECK_THROWS(chakra::error, ([&] { while (auto v = s.next()) s.complete(v->id()); return 0; }()), "chakra.0.et.gz");
}

// A graph that cannot finish: the stall names the missing parent.
void test_feeder_stall(const std::string& dir) {
  std::string path = dir + "/stall.et";
  {
    chakra::writer w(path);
    w.write_metadata("0.0.4");
    chakra::builder b;
    w.write(b.reset().id(1).type(chakra::node_type::comp));
    w.write(b.reset().id(2).type(chakra::node_type::comp).data_dep(1).data_dep(99));
    w.finish();
  }
  chakra::feeder f(path);
  auto n = f.next();
  CHECK(n && n->id() == 1);
  CHECK(!f.next());  // 1 in flight, 2 waits
  f.complete(1);
  try {
    f.next();
    CHECK(false);
  } catch (const chakra::error& e) {
    CHECK_EQ(e.code(), int(CHAKRA_EDEP));
    CHECK_EQ(std::string(e.name()), std::string(chakra_err_name(CHAKRA_EDEP)));
    CHECK(std::string(e.what()).find("99, which never appears") != std::string::npos);
  }
}

void test_feeder_callback(const std::string& dir) {
  std::string path = dir + "/chain.et";
  {
    chakra::writer w(path);
    w.write_metadata("0.0.4");
    chakra::builder b;
    for (uint64_t i = 0; i < 50; i++) {
      b.reset().id(i).type(chakra::node_type::comp);
      if (i)
        b.data_dep(i - 1);
      w.write(b);
    }
    w.finish();
  }
  std::vector<uint64_t> order;
  chakra::feeder_ref* seen_by = nullptr;
  chakra::feeder f(path, {}, [&](chakra::feeder_ref& self, chakra::node_view n) {
    seen_by = &self;
    order.push_back(n.id());
    if (n.id() == 10)
      throw std::logic_error("node 10 rejected");
    self.complete(n.id());  // nested: releases, the outer loop issues
  });
  // Moving the feeder keeps the callback pointing at the live object.
  chakra::feeder g(std::move(f));
  CHECK_THROWS(std::logic_error, g.drive(), "node 10 rejected");
  CHECK(seen_by == &g);
  CHECK_EQ(order.size(), size_t(11));
  CHECK_EQ(g.inflight_count(), uint64_t(1));
  g.complete(10);  // 11.. now flow through the callback again
  CHECK_EQ(order.size(), size_t(50));
  CHECK_EQ(order.back(), uint64_t(49));
  CHECK(!g.has_more());
}

void test_workload() {
  chakra::workload w(shared_path("data/astra-sim/microbenchmarks/all_gather/8npus_1MB/all_gather"));
  CHECK_EQ(w.size(), size_t(8));
  for (size_t r = 0; r < w.size(); r++) {
    chakra::feeder_ref f = w[r];
    auto n = f.next();
    CHECK(n.has_value());
    CHECK_EQ(n->type(), chakra::node_type::comm_coll);
    CHECK_EQ(static_cast<chakra::comm_type>(n->get<int>("comm_type")), chakra::comm_type::all_gather);
    f.complete(n->id());
    CHECK(!f.has_more());
  }
  CHECK_THROWS(chakra::error, chakra::workload("/nonexistent/prefix"), "/nonexistent/prefix");
}

// A rank map: chakra::workload over it, and chakra::feeder on PREFIX.R.et
// without a file of its own (the class file, with rank R's peers).
void test_rank_map(const std::string& dir) {
  {
    chakra::writer w(dir + "/m.c0.et");
    w.write_metadata("0.0.4", nullptr);
    chakra::builder b;
    b.id(0).type(chakra::node_type::comm_recv).attr_int("comm_src", CHAKRA_ATTR_INT32, 3);
    w.write(b);
    w.finish();
    std::FILE* f = std::fopen((dir + "/m.ranks").c_str(), "w");
    std::fputs("chakra-rank-map 1\nranks 4\nclass 0 m.c0.et peers 3\n0 0\n1-3 0 peers 0\n", f);
    std::fclose(f);
  }
  chakra::workload w(dir + "/m");
  CHECK_EQ(w.size(), size_t(4));
  for (size_t r = 0; r < w.size(); r++) {
    auto n = w[r].next();
    CHECK(n && n->get<int64_t>("comm_src") == (r ? 0 : 3));
  }
  chakra::feeder f(dir + "/m.2.et");
  auto n = f.next();
  CHECK(n && n->get<int64_t>("comm_src") == 0);
  CHECK_THROWS(chakra::error, chakra::feeder(dir + "/m.4.et"), "has 4 ranks");
}

// Misuse throws chakra::error, never crashes: a feeder that holds none
// (default-constructed, moved from), a rank or an attribute past the end,
// an attribute name with a NUL byte (it was cut there, silently).
void test_misuse() {
  chakra::feeder empty;
  CHECK(!empty);
  CHECK_THROWS(chakra::error, empty.next(), "holds no feeder");
  CHECK_THROWS(chakra::error, empty.complete(1), "holds no feeder");
  CHECK_THROWS(chakra::error, empty.drive(), "holds no feeder");
  CHECK_EQ(empty.issued_count(), uint64_t(0));
  std::string bytes = slurp(shared_path("data/astra-sim/microbenchmarks/all_reduce/4npus_1MB/all_reduce.0.et"));
  chakra::feeder f = chakra::feeder::from_buffer(bytes.data(), bytes.size());
  chakra::feeder g = std::move(f);
  CHECK(g && !f);
  CHECK_THROWS(chakra::error, f.next(), "holds no feeder");
  try {
    f.next();
  } catch (const chakra::error& e) {
    CHECK_EQ(e.code(), int(CHAKRA_ESTATE));
  }
  auto n = g.next();
  CHECK(n.has_value());
  CHECK_THROWS(chakra::error, n->attrs()[100000], "past the end");
  chakra::workload w(shared_path("data/astra-sim/microbenchmarks/all_gather/8npus_1MB/all_gather"));
  CHECK_THROWS(chakra::error, w[99], "rank 99 of 8");
  chakra::builder b;
  CHECK_THROWS(chakra::error, b.attr_int(std::string_view("comm\0type", 9), CHAKRA_ATTR_INT64, 1),
               "NUL byte");
}

}  // namespace

int main() {
  if (!file_exists(shared_path("data/chakra/chakra.0.et.gz"))) {
    std::fprintf(stderr, "test data missing: skipped\n");
    return 77;
  }
  std::string dir = temp_dir();
  test_reader_matches_c_api();
  test_attribute_conversions();
  test_errors();
  test_write_read(dir);
  test_feeder_order();
  test_feeder_both_deps_warns();
  test_feeder_stall(dir);
  test_feeder_callback(dir);
  test_workload();
  test_rank_map(dir);
  test_misuse();
  std::string rm = "rm -rf '" + dir + "'";
  if (std::system(rm.c_str()) != 0)
    std::fprintf(stderr, "could not remove %s\n", dir.c_str());
  return check_done();
}
