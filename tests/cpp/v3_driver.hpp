// SPDX-License-Identifier: Apache-2.0
// One scheduling run over a FeederV3-style feeder, logging everything a
// simulator can observe: the ready and ongoing sets at every step, each
// node's fields through every getter (also after finish_node), and the
// exceptions thrown. Included by two translation units, one compiled
// against the stock FeederV3 sources and one against the libchakra layer,
// so the same decisions run on both and the logs can be compared line by
// line (test_v3_diff.cpp).
//
// The policy is ASTRA-sim's Workload: every step, look up each ready node
// in ascending id and take it when its resource (one CPU op, one GPU
// compute, one communication except receives) is free; METADATA and
// INVALID nodes finish at once; then finish, or sometimes push back, a
// random ongoing node. Some nodes are taken and finished before any field
// is read, and read afterwards. Random choices come from a seeded generator, so
// identical states give identical decisions.
#ifndef CHAKRA_TEST_V3_DRIVER_HPP
#define CHAKRA_TEST_V3_DRIVER_HPP

#include <algorithm>
#include <cstdint>
#include <iomanip>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <typeinfo>
#include <vector>

#include "v3_diff.hpp"

namespace v3diff {

inline std::string hex(const std::string& s) {
  static const char* d = "0123456789abcdef";
  std::string o;
  for (unsigned char c : s) {
    o += d[c >> 4];
    o += d[c & 15];
  }
  return o;
}

template <class T>
void put(std::ostringstream& o, const T& v) {
  if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, uint8_t> || std::is_same_v<T, int8_t>)
    o << static_cast<int>(v);
  else if constexpr (std::is_floating_point_v<T>)
    o << std::hexfloat << v << std::defaultfloat;
  else if constexpr (std::is_enum_v<T>)
    o << static_cast<long long>(v);
  else
    o << v;
}

// label=value, or label!exception-class.
template <class F>
void field(std::ostringstream& o, const char* label, F&& get) {
  o << ' ' << label;
  try {
    auto v = get();
    o << '=';
    put(o, v);
  } catch (const std::bad_cast&) {
    o << "!bad_cast";
  } catch (const std::invalid_argument&) {
    o << "!invalid_argument";
  } catch (const std::out_of_range&) {
    o << "!out_of_range";
  } catch (const std::runtime_error&) {
    o << "!runtime_error";
  } catch (const std::exception&) {
    o << "!exception";
  }
}

template <class NodePtr>
std::string describe(const NodePtr& n, const std::vector<std::string>& names, bool full = true) {
  using Attr = ChakraProtoMsg::AttributeProto;
  std::ostringstream o;
  o << n->id();
  field(o, "name", [&] { return n->name(); });
  field(o, "type", [&] { return static_cast<int>(n->type()); });
  field(o, "runtime", [&] { return n->runtime(); });
  field(o, "is_cpu_op()", [&] { return n->is_cpu_op(); });
  field(o, "is_cpu_op<bool>(false)", [&] { return n->template is_cpu_op<bool>(false); });
  field(o, "is_cpu_op<int>()", [&] { return n->template is_cpu_op<int>(); });
  field(o, "num_ops()", [&] { return n->num_ops(); });
  field(o, "num_ops<double>()", [&] { return n->template num_ops<double>(); });
  field(o, "tensor_size()", [&] { return n->tensor_size(); });
  field(o, "tensor_loc()", [&] { return n->tensor_loc(); });
  field(o, "comm_type()", [&] { return n->comm_type(); });
  field(o, "comm_type<uint64_t>()", [&] { return n->template comm_type<uint64_t>(); });
  field(o, "comm_size<uint64_t>()", [&] { return n->template comm_size<uint64_t>(); });
  field(o, "comm_size<int32_t>(5)", [&] { return n->template comm_size<int32_t>(5); });
  field(o, "comm_priority<uint32_t>()", [&] { return n->template comm_priority<uint32_t>(); });
  field(o, "comm_src<uint32_t>(7)", [&] { return n->template comm_src<uint32_t>(7u); });
  field(o, "comm_src(int)", [&] { return n->comm_src(3); });
  field(o, "comm_dst()", [&] { return n->comm_dst(); });
  field(o, "comm_tag()", [&] { return n->comm_tag(); });
  field(o, "pg_name<string>(\"\")", [&] { return n->template pg_name<std::string>(""); });
  field(o, "pg_name<string>()", [&] { return n->template pg_name<std::string>(); });
  field(o, "in.values", [&] { return n->get_inputs_values("dflt"); });
  field(o, "in.shapes", [&] { return n->get_inputs_shapes(); });
  field(o, "in.types", [&] { return n->get_inputs_types("d"); });
  field(o, "out.values", [&] { return n->get_outputs_values(); });
  field(o, "out.shapes", [&] { return n->get_outputs_shapes("x"); });
  field(o, "out.types", [&] { return n->get_outputs_types(); });
  for (const std::string& a : names) {
    o << " [" << a << "]";
    field(o, "has", [&] { return n->has_attr(a); });
    field(o, "msg", [&] { return hex(n->get_attr_msg(a).SerializeAsString()); });
    if (!full)
      continue;  // after finish_node: the message is enough
    field(o, "ptr", [&] {
      const Attr* p = nullptr;
      bool ok = n->get_attr_msg(a, &p);
      return std::string(ok ? "1:" : "0:") + (p ? hex(p->SerializeAsString()) : "");
    });
    field(o, "type", [&] { return static_cast<int>(n->get_attr_type(n->get_attr_msg(a))); });
    field(o, "i64", [&] { return n->template get_attr<int64_t>(a); });
    field(o, "u8(9)", [&] { return n->template get_attr<uint8_t>(a, 9); });
    field(o, "u32", [&] { return n->template get_attr<uint32_t>(a); });
    field(o, "bool", [&] { return n->template get_attr<bool>(a); });
    field(o, "dbl", [&] { return n->template get_attr<double>(a); });
    field(o, "flt(1)", [&] { return n->template get_attr<float>(a, 1.0f); });
    field(o, "str", [&] { return n->template get_attr<std::string>(a); });
    field(o, "attr", [&] { return hex(n->template get_attr<Attr>(a).SerializeAsString()); });
    field(o, "strict-i64", [&] { return n->template get_attr<int64_t>(n->get_attr_msg(a), true); });
    field(o, "strict-str", [&] { return n->template get_attr<std::string>(n->get_attr_msg(a), true); });
    field(o, "strict-bool", [&] { return n->template get_attr<bool>(n->get_attr_msg(a), true); });
  }
  return o.str();
}

template <class Feeder>
std::vector<std::string> drive(const std::string& path, const config& cfg) {
  std::vector<std::string> log;
  std::unique_ptr<Feeder> f;
  try {
    f = std::make_unique<Feeder>(path);
  } catch (const std::exception&) {
    log.push_back("open failed");
    return log;
  }
  log.push_back("open");
  auto& res = f->getDependancyResolver();
  using NodePtr = decltype(f->lookupNode(0));
  std::mt19937_64 rng(cfg.seed);
  std::map<uint64_t, std::pair<NodePtr, int>> ongoing;  // node, resource
  std::vector<NodePtr> finished;
  int busy[4] = {0, 0, 0, 0};  // cpu, comp, comm, none (receives, odd nodes)

  auto sorted = [](const auto& set) {
    std::vector<uint64_t> v(set.begin(), set.end());
    std::sort(v.begin(), v.end());
    return v;
  };
  auto resource = [](const NodePtr& n) {
    try {
      if (n->is_cpu_op())
        return 0;
      auto t = n->type();
      if (t == ChakraProtoMsg::COMP_NODE)
        return 1;
      if (t == ChakraProtoMsg::COMM_RECV_NODE)
        return 3;
      return 2;
    } catch (const std::exception&) {
      return 3;
    }
  };
  auto finish = [&](uint64_t id) {
    auto it = ongoing.find(id);
    NodePtr n = it->second.first;
    busy[it->second.second]--;
    ongoing.erase(it);
    res.finish_node(id);
    log.push_back("finished " + describe(n, cfg.attr_names, false));
    if (finished.size() < 8)
      finished.push_back(n);
    else
      finished[rng() % finished.size()] = n;
  };

  bool probed = false;
  for (int step = 0; step < cfg.max_steps; step++) {
    std::vector<uint64_t> ready = sorted(res.get_dependancy_free_nodes());
    std::vector<uint64_t> going = sorted(res.get_ongoing_nodes());
    std::ostringstream s;
    s << "step " << step << " has=" << f->hasNodesToIssue() << " ready";
    for (uint64_t id : ready)
      s << ' ' << id;
    s << " ongoing";
    for (uint64_t id : going)
      s << ' ' << id;
    log.push_back(s.str());
    if (ready.empty() && going.empty())
      break;

    // Misuse is refused the same way: a node that is not ready cannot be
    // taken, one that is not ongoing cannot be finished or pushed back.
    if (!probed && !going.empty()) {
      probed = true;
      std::ostringstream p;
      p << "misuse";
      field(p, "take-ongoing", [&] { res.take_node(going[0]); return 0; });
      field(p, "finish-unknown", [&] { res.finish_node(uint64_t(-7)); return 0; });
      field(p, "pushback-unknown", [&] { res.push_back_node(uint64_t(-7)); return 0; });
      log.push_back(p.str());
    }

    bool issued = false;
    for (uint64_t id : ready) {
      if (rng() % 8 == 1) {
        // Taken and finished without a field read first, then read: the
        // node must still be readable.
        NodePtr n = f->lookupNode(id);
        res.take_node(id);
        res.finish_node(id);
        log.push_back("blind " + describe(n, cfg.attr_names, false));
        issued = true;
        continue;
      }
      NodePtr n = f->lookupNode(id);
      int r = resource(n);
      if ((r != 3 && busy[r]) || rng() % 8 == 0)
        continue;
      res.take_node(id);
      issued = true;
      busy[r]++;
      ongoing[id] = {n, r};
      log.push_back("issue " + describe(n, cfg.attr_names));
      auto t = ChakraProtoMsg::COMP_NODE;
      try {
        t = n->type();
      } catch (const std::exception&) {
      }
      if (t == ChakraProtoMsg::METADATA_NODE || t == ChakraProtoMsg::INVALID_NODE)
        finish(id);
    }
    if (ongoing.empty()) {
      if (!issued && !ready.empty())
        continue;  // every ready node skipped this time
      continue;
    }
    auto it = ongoing.begin();
    std::advance(it, rng() % ongoing.size());
    uint64_t id = it->first;
    if (rng() % 10 == 0) {
      busy[it->second.second]--;
      ongoing.erase(it);
      res.push_back_node(id);
      log.push_back("pushback " + std::to_string(id));
    } else {
      finish(id);
    }
    // A node finished earlier, read again through the pointer kept.
    if (!finished.empty() && rng() % 4 == 0)
      log.push_back("reread " + describe(finished[rng() % finished.size()], cfg.attr_names, false));
  }
  return log;
}

}  // namespace v3diff

#endif
