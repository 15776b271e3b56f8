// SPDX-License-Identifier: Apache-2.0
// Traces for the differential tests, written with the C++ API: random DAGs
// with data and control dependencies, and copies of real traces with their
// control dependencies removed.
#ifndef CHAKRA_TEST_TRACE_GEN_HPP
#define CHAKRA_TEST_TRACE_GEN_HPP

#include <chakra/chakra.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace tracegen {

inline std::string temp_dir(const char* tag) {
  std::string t = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") + "/" + tag +
                  "-XXXXXX";
  std::vector<char> buf(t.begin(), t.end());
  buf.push_back(0);
  if (!mkdtemp(buf.data())) {
    std::perror("mkdtemp");
    std::exit(1);
  }
  return buf.data();
}

inline std::string ascii(std::mt19937_64& g, size_t max) {
  std::string s;
  size_t n = g() % (max + 1);
  for (size_t i = 0; i < n; i++)
    s += static_cast<char>(' ' + g() % 95);
  return s;
}

// One attribute of a random kind (sometimes the kind a reader expects).
inline void random_attr(chakra::builder& b, std::mt19937_64& g, const std::string& name,
                        chakra_attr_kind expected, bool exact = false) {
  static const chakra_attr_kind kinds[] = {
      CHAKRA_ATTR_NONE,     CHAKRA_ATTR_DOUBLE,      CHAKRA_ATTR_DOUBLE_LIST, CHAKRA_ATTR_FLOAT,
      CHAKRA_ATTR_FLOAT_LIST, CHAKRA_ATTR_INT32,     CHAKRA_ATTR_INT32_LIST,  CHAKRA_ATTR_INT64,
      CHAKRA_ATTR_INT64_LIST, CHAKRA_ATTR_UINT32,    CHAKRA_ATTR_UINT32_LIST, CHAKRA_ATTR_UINT64,
      CHAKRA_ATTR_UINT64_LIST, CHAKRA_ATTR_SINT32,   CHAKRA_ATTR_SINT32_LIST, CHAKRA_ATTR_SINT64,
      CHAKRA_ATTR_SINT64_LIST, CHAKRA_ATTR_FIXED32,  CHAKRA_ATTR_FIXED32_LIST, CHAKRA_ATTR_FIXED64,
      CHAKRA_ATTR_FIXED64_LIST, CHAKRA_ATTR_SFIXED32, CHAKRA_ATTR_SFIXED32_LIST, CHAKRA_ATTR_SFIXED64,
      CHAKRA_ATTR_SFIXED64_LIST, CHAKRA_ATTR_BOOL,   CHAKRA_ATTR_BOOL_LIST,   CHAKRA_ATTR_STRING,
      CHAKRA_ATTR_STRING_LIST, CHAKRA_ATTR_BYTES,    CHAKRA_ATTR_BYTES_LIST};
  chakra_attr_kind k = exact || g() % 3 ? expected : kinds[g() % (sizeof kinds / sizeof kinds[0])];
  auto small = [&]() -> int64_t { return static_cast<int64_t>(g() % 2000) - 500; };
  auto value = [&](chakra_attr_kind scalar) -> uint64_t {
    switch (scalar) {
      case CHAKRA_ATTR_BOOL: return g() % 2;
      case CHAKRA_ATTR_INT32: case CHAKRA_ATTR_SINT32: case CHAKRA_ATTR_SFIXED32:
        return static_cast<uint64_t>(g() % 4 ? small() : static_cast<int64_t>(static_cast<int32_t>(g())));
      case CHAKRA_ATTR_UINT32: case CHAKRA_ATTR_FIXED32:
        return g() % 4 ? g() % 3000 : static_cast<uint32_t>(g());
      case CHAKRA_ATTR_UINT64: case CHAKRA_ATTR_FIXED64:
        return g() % 4 ? g() % 3000 : g();
      default:  // 64-bit signed
        return static_cast<uint64_t>(g() % 4 ? small() : static_cast<int64_t>(g()));
    }
  };
  auto real = [&]() { return static_cast<double>(small()) / 8.0; };
  int scalar = k & ~1;  // list kinds are even; their scalar is k - 1
  bool list = k != CHAKRA_ATTR_NONE && (k % 2) == 0;
  chakra_attr_kind sk = static_cast<chakra_attr_kind>(list ? k - 1 : k);
  (void)scalar;
  if (k == CHAKRA_ATTR_NONE) {
    b.attr_empty(name);
  } else if (!list) {
    switch (sk) {
      case CHAKRA_ATTR_DOUBLE: case CHAKRA_ATTR_FLOAT: b.attr_double(name, sk, real()); break;
      case CHAKRA_ATTR_STRING: case CHAKRA_ATTR_BYTES: b.attr_string(name, sk, ascii(g, 12)); break;
      case CHAKRA_ATTR_UINT32: case CHAKRA_ATTR_UINT64: case CHAKRA_ATTR_FIXED32: case CHAKRA_ATTR_FIXED64:
        b.attr_uint(name, sk, value(sk));
        break;
      default: b.attr_int(name, sk, static_cast<int64_t>(value(sk))); break;
    }
  } else {
    size_t n = g() % 4;
    if (sk == CHAKRA_ATTR_DOUBLE || sk == CHAKRA_ATTR_FLOAT) {
      std::vector<double> v;
      for (size_t i = 0; i < n; i++) v.push_back(real());
      b.attr_list_double(name, k, v);
    } else if (sk == CHAKRA_ATTR_STRING || sk == CHAKRA_ATTR_BYTES) {
      std::vector<std::string> s;
      for (size_t i = 0; i < n; i++) s.push_back(ascii(g, 6));
      std::vector<std::string_view> v(s.begin(), s.end());
      b.attr_list_string(name, k, v);
    } else {
      std::vector<uint64_t> v;
      for (size_t i = 0; i < n; i++) v.push_back(value(sk));
      b.attr_list_uint(name, k, v);
    }
  }
  if (g() % 8 == 0)
    b.attr_doc(ascii(g, 8));
}

// A random DAG: ids dense, sparse or spread over 64 bits and not in
// dependency order, the file in dependency order or shuffled (parents after
// children), 0-3 data and 0-2 control parents per node (repeats, and a
// parent in both lists, included), every node type, random attributes.
// No absent parents, self edges or cycles: both feeders must run it.
// classic: no data parent listed twice (the classic feeder never releases
// such a node), and the attributes with classic getters always of the kind
// it reads.
inline void random_dag(const std::string& path, uint64_t seed, size_t max_nodes = 120,
                       bool classic = false) {
  std::mt19937_64 g(seed);
  size_t n = 1 + g() % max_nodes;
  std::vector<uint64_t> ids(n);
  switch (g() % 3) {
    case 0: std::iota(ids.begin(), ids.end(), uint64_t(0)); break;
    case 1: {
      uint64_t base = g() % 100000, stride = 1 + g() % 1000;
      for (size_t i = 0; i < n; i++) ids[i] = base + i * stride;
      break;
    }
    default: {
      std::set<uint64_t> seen;
      for (size_t i = 0; i < n; i++) {
        uint64_t v;
        do v = g() >> (g() % 2 ? 1 : 8); while (!seen.insert(v).second);
        ids[i] = v;
      }
    }
  }
  std::shuffle(ids.begin(), ids.end(), g);  // ids[rank]: rank = dependency order
  std::vector<size_t> file(n);
  std::iota(file.begin(), file.end(), size_t(0));
  if (g() % 2)
    std::shuffle(file.begin(), file.end(), g);
  static const int types[] = {4, 4, 4, 7, 7, 5, 6, 2, 3, 1, 0};
  static const char* names[] = {"is_cpu_op", "comm_type", "comm_size", "comm_src", "comm_dst",
                                "comm_tag", "comm_priority", "pg_name", "num_ops", "tensor_size",
                                "tensor_loc", "involved_dim", "x", "y"};
  static const chakra_attr_kind expect[] = {
      CHAKRA_ATTR_BOOL,  CHAKRA_ATTR_INT64, CHAKRA_ATTR_INT64, CHAKRA_ATTR_INT32, CHAKRA_ATTR_INT32,
      CHAKRA_ATTR_INT32, CHAKRA_ATTR_INT32, CHAKRA_ATTR_STRING, CHAKRA_ATTR_INT64, CHAKRA_ATTR_UINT64,
      CHAKRA_ATTR_UINT32, CHAKRA_ATTR_BOOL_LIST, CHAKRA_ATTR_DOUBLE, CHAKRA_ATTR_STRING};
  chakra::writer w(path, chakra::writer_options{false, 0, true});
  w.write_metadata("0.0.4");
  chakra::builder b;
  for (size_t rank : file) {
    b.reset().id(ids[rank]).name(ascii(g, 10)).type_value(types[g() % (sizeof types / sizeof types[0])]);
    if (g() % 2)
      b.duration_micros(g() % 5000);
    if (g() % 4 == 0)
      b.start_time_micros(g() % 100000);
    if (rank > 0) {
      size_t nd = g() % 4, nc = g() % 3;
      std::set<size_t> used;
      for (size_t i = 0; i < nd; i++) {
        size_t p = g() % rank;
        if (classic && !used.insert(p).second)
          continue;
        b.data_dep(ids[p]);
      }
      for (size_t i = 0; i < nc; i++)
        b.ctrl_dep(ids[g() % rank]);
    }
    if (g() % 3 == 0) {
      b.io(CHAKRA_IO_INPUTS, CHAKRA_IO_VALUES, ascii(g, 20));
      if (g() % 2)
        b.io(CHAKRA_IO_INPUTS, CHAKRA_IO_SHAPES, ascii(g, 5));
    }
    if (g() % 4 == 0)
      b.io(CHAKRA_IO_OUTPUTS, static_cast<chakra_io_field>(g() % 3), ascii(g, 8));
    size_t na = g() % 6;
    for (size_t i = 0; i < na; i++) {
      size_t a = g() % (sizeof names / sizeof names[0]);
      random_attr(b, g, names[a], expect[a], classic && a < 11);
    }
    w.write(b);
  }
  w.finish();
}

// The trace with every control dependency removed (data deps stay).
inline void strip_ctrl(const std::string& in, const std::string& out) {
  chakra::reader r(in);
  chakra::writer w(out, chakra::writer_options{false, 0, true});
  w.copy_metadata(r.metadata());
  chakra::builder b;
  for (chakra::node_view n : r) {
    b.reset().id(n.id()).name(n.name()).type_value(n.type_value())
        .start_time_micros(n.start_time_micros()).duration_micros(n.duration_micros());
    for (uint64_t p : n.data_deps())
      b.data_dep(p);
    for (chakra_io io : {CHAKRA_IO_INPUTS, CHAKRA_IO_OUTPUTS})
      if (n.has_io(io))
        for (chakra_io_field f : {CHAKRA_IO_VALUES, CHAKRA_IO_SHAPES, CHAKRA_IO_TYPES})
          b.io(io, f, n.io(io, f));
    for (chakra::attr a : n.attrs())
      b.attr_copy(a);
    w.write(b);
  }
  w.finish();
}

// Gunzipped copy (the stock feeders read only plain files).
inline void plain_copy(const std::string& in, const std::string& out) {
  chakra::reader r(in);
  chakra::writer w(out, chakra::writer_options{false, 0, true});
  w.copy_metadata(r.metadata());
  while (auto m = r.next_raw())
    w.write_raw(*m);
  w.finish();
}

// Attribute names used anywhere in the trace.
inline std::vector<std::string> attr_names(const std::string& path) {
  std::set<std::string> s;
  chakra::reader r(path);
  for (chakra::node_view n : r)
    for (chakra::attr a : n.attrs())
      s.insert(std::string(a.name()));
  return std::vector<std::string>(s.begin(), s.end());
}

inline uint64_t node_count(const std::string& path) {
  chakra::reader r(path);
  while (r.next_raw()) {
  }
  return r.node_count();
}

}  // namespace tracegen

#endif
