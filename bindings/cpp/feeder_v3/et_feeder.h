// SPDX-License-Identifier: Apache-2.0
// Chakra's "FeederV3" C++ API (Chakra::FeederV3::ETFeeder, its dependency
// resolver and ETFeederNode), implemented on libchakra's feeder.
//
// A drop-in: put this file and et_feeder.cpp where the Chakra feeder_v3
// sources were (ASTRA-sim: extern/graph_frontend/chakra/src/feeder_v3/,
// keeping schema/), add libchakra's include folder and library to the
// build, and code written for FeederV3 compiles and behaves the same:
// same ready sets, same attribute conversions, the protobuf types of the
// et_def.pb.h the project already generates. docs/embedding.md lists every
// difference; in short:
//  - Nodes are read by libchakra's streaming feeder. By default it reads
//    the whole file ahead, as FeederV3 does, so the ready set is exactly
//    FeederV3's; CHAKRA_FEEDER_WINDOW=N (or feeder_options.window) bounds
//    memory to about N nodes read ahead instead (docs/embedding.md: when
//    that changes results).
//  - A finished node stays readable through every ETFeederNode that still
//    points to it; lookupNode of a finished node throws (FeederV3 re-read
//    it from the file).
//  - Control dependencies FeederV3 refuses (parents absent from the file,
//    a node naming itself, control edges that close a cycle) are dropped
//    with a warning on stderr; graphs that cannot run (a data dependency on
//    an absent node, a data cycle) throw a std::runtime_error naming the
//    blocked nodes instead of stopping silently.
//  - getNextIssuableNode takes the lowest ready id (FeederV3: whichever
//    its hash set lists first); the DependancyResolver offers what
//    simulators call (get_dependancy_free_nodes, get_ongoing_nodes,
//    take_node, push_back_node, finish_node), not FeederV3's per-layer
//    graph accessors.
#ifndef LIBCHAKRA_FEEDER_V3_ET_FEEDER_H
#define LIBCHAKRA_FEEDER_V3_ET_FEEDER_H

// What FeederV3's headers made visible to their includers.
#include <cstdint>
#include <fstream>
#include <functional>
#include <iostream>
#include <list>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <unordered_map>
#include <unordered_set>

#include <chakra/chakra.hpp>

#include "et_def.pb.h"

namespace Chakra {
namespace FeederV3 {

using NodeId = uint64_t;
using ETFeederId = uint64_t;
using ChakraNode = ChakraProtoMsg::Node;
using ChakraGlobalMetadata = ChakraProtoMsg::GlobalMetadata;
using ChakraAttr = ChakraProtoMsg::AttributeProto;

// FeederV3's conversion switches (integers convert among themselves and
// to floating point; floating point does not convert to integers).
constexpr static bool ALLOW_IMPLICIT_INTEGER_CONVERSION = true;
constexpr static bool ALLOW_IMPLICIT_FLOAT_CONVERSION = true;
constexpr static bool ALLOW_IMPLICIT_INTEGER_TO_FLOAT_CONVERSION = true;
constexpr static bool ALLOW_IMPLICIT_FLOAT_TO_INTEGER_CONVERSION = false;
constexpr static bool NO_IMPLICIT_CONVERSION = false;
constexpr static bool DEFAULT_STRICT_TYPING = false;
constexpr static size_t DEFAULT_ETFEEDER_CACHE_SIZE = 16384;
constexpr static bool RESOLVE_DATA_DEPS = true;
constexpr static bool RESOLVE_CTRL_DEPS = true;
constexpr static size_t DEFAULT_PROTOBUF_BUFFER_SIZE = 16384;

class ETFeeder;

namespace layer {
// One node as the layer hands it out. While the node is unfinished `view`
// points into libchakra's feeder; `msg` is its protobuf form, built on
// first use, and built at the latest when the node finishes while an
// ETFeederNode still refers to it, so reads after finish_node work.
struct NodeRecord {
  NodeId id = 0;
  const chakra_node* view = nullptr;
  std::unique_ptr<ChakraNode> msg;
  const ChakraNode& message();
};
}  // namespace layer

class ETFeederNode {
 public:
  // The node with this id, as ETFeeder::lookupNode finds it.
  ETFeederNode(ETFeeder& feeder, NodeId node_id);
  explicit ETFeederNode(std::shared_ptr<layer::NodeRecord> record)
      : rec_(std::move(record)) {}

  bool has_attr(const std::string& attr_name) const;
  // The first attribute of that name (a copy); std::runtime_error if none.
  const ChakraAttr get_attr_msg(const std::string& attr_name) const;
  // Points *attr at the first attribute of that name (valid while this
  // ETFeederNode lives); false if none.
  bool get_attr_msg(const std::string& attr_name, const ChakraAttr** attr) const;
  ChakraAttr::ValueCase get_attr_type(const ChakraAttr& attr) const {
    return attr.value_case();
  }

  // The value of a scalar attribute as T. strict_type: the oneof member
  // must have exactly type T; otherwise integers convert to any integer or
  // floating type (bool included), floating values to floating types, and
  // strings only to std::string. Other conversions throw std::bad_cast;
  // list values and attributes without a value throw std::invalid_argument.
  template <typename T>
  T get_attr(const ChakraAttr& attr, const bool strict_type = DEFAULT_STRICT_TYPING) const;
  // By name: the default when the node has no such attribute.
  template <typename T>
  T get_attr(const std::string& attr_name, const T& default_value) const;
  // By name: std::runtime_error when the node has no such attribute.
  template <typename T>
  T get_attr(const std::string& attr_name) const;

  // The well-known attributes, as T; with the defaults FeederV3 uses for
  // is_cpu_op (false), tensor_loc and comm_priority (0), the others throw
  // when absent unless a default is passed.
#define LIBCHAKRA_V3_ATTR(attr_name)                         \
  template <typename T>                                      \
  T attr_name() const {                                      \
    return this->get_attr<T>(#attr_name);                    \
  }                                                          \
  template <typename T>                                      \
  T attr_name(const T& default_value) const {                \
    return this->get_attr<T>(#attr_name, default_value);     \
  }
#define LIBCHAKRA_V3_ATTR_DEFAULT(attr_name, dflt)           \
  template <typename T>                                      \
  T attr_name() const {                                      \
    return this->get_attr<T>(#attr_name, static_cast<T>(dflt)); \
  }                                                          \
  template <typename T>                                      \
  T attr_name(const T& default_value) const {                \
    return this->get_attr<T>(#attr_name, default_value);     \
  }
  LIBCHAKRA_V3_ATTR_DEFAULT(is_cpu_op, false)
  LIBCHAKRA_V3_ATTR(num_ops)
  LIBCHAKRA_V3_ATTR_DEFAULT(tensor_loc, 0u)
  LIBCHAKRA_V3_ATTR(tensor_size)
  LIBCHAKRA_V3_ATTR(comm_type)
  LIBCHAKRA_V3_ATTR_DEFAULT(comm_priority, 0u)
  LIBCHAKRA_V3_ATTR(comm_size)
  LIBCHAKRA_V3_ATTR(comm_src)
  LIBCHAKRA_V3_ATTR(comm_dst)
  LIBCHAKRA_V3_ATTR(comm_tag)
  LIBCHAKRA_V3_ATTR(pg_name)
#undef LIBCHAKRA_V3_ATTR
#undef LIBCHAKRA_V3_ATTR_DEFAULT

  NodeId id() const { return rec_->id; }
  std::string name() const { return message().name(); }
  ChakraProtoMsg::NodeType type() const { return message().type(); }
  uint64_t runtime() const { return message().duration_micros(); }

  // FeederV3's non-template getters.
  bool is_cpu_op() const { return is_cpu_op<bool>(); }
  uint64_t num_ops() const { return num_ops<uint64_t>(); }
  uint32_t tensor_loc() const { return tensor_loc<uint32_t>(); }
  uint64_t tensor_size() const { return tensor_size<uint64_t>(); }
  ChakraProtoMsg::CollectiveCommType comm_type() const {
    return static_cast<ChakraProtoMsg::CollectiveCommType>(comm_type<uint64_t>());
  }
  uint32_t comm_priority() const { return comm_priority<uint32_t>(); }
  uint64_t comm_size() const { return comm_size<uint64_t>(); }
  uint32_t comm_src() const { return comm_src<uint32_t>(); }
  uint32_t comm_dst() const { return comm_dst<uint32_t>(); }
  uint32_t comm_tag() const { return comm_tag<uint32_t>(); }

  // IOInfo strings; the default when the node has no inputs / outputs.
  std::string get_inputs_values(const std::string& default_ = "") const;
  std::string get_inputs_shapes(const std::string& default_ = "") const;
  std::string get_inputs_types(const std::string& default_ = "") const;
  std::string get_outputs_values(const std::string& default_ = "") const;
  std::string get_outputs_shapes(const std::string& default_ = "") const;
  std::string get_outputs_types(const std::string& default_ = "") const;

  // libchakra: the whole node as its protobuf message.
  const ChakraNode& chakra_node() const { return message(); }

 private:
  std::shared_ptr<layer::NodeRecord> rec_;
  const ChakraNode& message() const { return rec_->message(); }
  const ChakraAttr* find_attr(const std::string& attr_name) const;

  template <typename T, typename F>
  static T convert(const F& value, bool strict);
};

// The ready set and the in-flight set, over libchakra's feeder. A node is
// ready when every data and control parent has finished (FeederV3 gates on
// both). take_node: ready -> ongoing; push_back_node: ongoing -> ready;
// finish_node: ongoing -> finished, and its children that become ready join
// the ready set at once. Misuse throws std::runtime_error, as FeederV3.
class DependancyResolver {
 public:
  void take_node(const NodeId& node);
  void push_back_node(const NodeId& node);
  void finish_node(const NodeId& node);
  const std::unordered_set<NodeId>& get_dependancy_free_nodes() const { return free_; }
  const std::unordered_set<NodeId>& get_ongoing_nodes() const { return ongoing_; }

 private:
  friend class ETFeeder;
  explicit DependancyResolver(ETFeeder& owner) : owner_(owner) {}
  ETFeeder& owner_;
  std::unordered_set<NodeId> free_;
  std::unordered_set<NodeId> ongoing_;
};

class ETFeeder {
 public:
  ChakraGlobalMetadata global_metadata;

  // Opens the trace (plain or gzip) and finds the first ready nodes; throws
  // std::runtime_error (a chakra::error) naming the file, byte and problem.
  // Options: data and control dependencies gate, as in FeederV3; the read-
  // ahead window is CHAKRA_FEEDER_WINDOW from the environment if set, else
  // the whole file.
  explicit ETFeeder(const std::string& file_path);
  // libchakra: explicit options (deps and order are FeederV3's whatever
  // is passed; window 0 = the whole file).
  ETFeeder(const std::string& file_path, const chakra::feeder_options& options);
  ~ETFeeder();
  ETFeeder(const ETFeeder&) = delete;
  ETFeeder& operator=(const ETFeeder&) = delete;

  DependancyResolver& getDependancyResolver() { return resolver_; }

  // A node that is not finished (ready, ongoing, or read and waiting), or a
  // finished one an ETFeederNode still refers to; std::runtime_error for
  // any other id.
  std::shared_ptr<ETFeederNode> lookupNode(const NodeId& node_id);
  // FeederV3's single-node interface over the resolver.
  bool hasNodesToIssue();
  std::shared_ptr<ETFeederNode> getNextIssuableNode();  // nullptr if none
  void pushBackIssuableNode(const NodeId& node_id);
  void freeChildrenNodes(const NodeId& node_id);
  // The graph is read-only, as in FeederV3: addNode throws, removeNode
  // does nothing.
  void addNode(std::shared_ptr<ETFeederNode> node);
  void removeNode(const NodeId& node_id);

  // libchakra: the underlying feeder (counts, warnings) and the path.
  const chakra::feeder& chakraFeeder() const { return feeder_; }
  const std::string& path() const { return path_; }

 private:
  friend class DependancyResolver;
  friend class ETFeederNode;

  std::string path_;
  chakra::feeder feeder_;
  DependancyResolver resolver_;
  // Records of ready and ongoing nodes, and of waiting nodes looked up.
  std::unordered_map<NodeId, std::shared_ptr<layer::NodeRecord>> live_;
  uint64_t warnings_reported_ = 0;

  void init(const std::string& file_path, chakra::feeder_options options);
  std::shared_ptr<layer::NodeRecord> record(NodeId id, const chakra_node* view);
  void finish(NodeId id);
  void collect_ready();
  void report_warnings();
};

using ETFeeder = FeederV3::ETFeeder;

// ---- templates ----

template <typename T, typename F>
T ETFeederNode::convert(const F& value, bool strict) {
  if constexpr (std::is_same_v<T, F>) {
    return value;
  } else {
    if (!strict) {
      if constexpr (std::is_integral_v<T> && std::is_integral_v<F>) {
        if (ALLOW_IMPLICIT_INTEGER_CONVERSION)
          return static_cast<T>(value);
      } else if constexpr (std::is_integral_v<T> && std::is_floating_point_v<F>) {
        if (ALLOW_IMPLICIT_FLOAT_TO_INTEGER_CONVERSION)
          return static_cast<T>(value);
      } else if constexpr (std::is_floating_point_v<T> && std::is_floating_point_v<F>) {
        if (ALLOW_IMPLICIT_FLOAT_CONVERSION)
          return static_cast<T>(value);
      } else if constexpr (std::is_floating_point_v<T> && std::is_integral_v<F>) {
        if (ALLOW_IMPLICIT_INTEGER_TO_FLOAT_CONVERSION)
          return static_cast<T>(value);
      }
    }
    throw std::bad_cast();
  }
}

template <typename T>
T ETFeederNode::get_attr(const ChakraAttr& attr, const bool strict_type) const {
  if constexpr (std::is_same_v<T, ChakraAttr>) {
    (void)strict_type;
    return attr;
  } else {
    switch (attr.value_case()) {
      case ChakraAttr::kDoubleVal: return convert<T>(attr.double_val(), strict_type);
      case ChakraAttr::kFloatVal: return convert<T>(attr.float_val(), strict_type);
      case ChakraAttr::kInt32Val: return convert<T>(attr.int32_val(), strict_type);
      case ChakraAttr::kInt64Val: return convert<T>(attr.int64_val(), strict_type);
      case ChakraAttr::kUint32Val: return convert<T>(attr.uint32_val(), strict_type);
      case ChakraAttr::kUint64Val: return convert<T>(attr.uint64_val(), strict_type);
      case ChakraAttr::kSint32Val: return convert<T>(attr.sint32_val(), strict_type);
      case ChakraAttr::kSint64Val: return convert<T>(attr.sint64_val(), strict_type);
      case ChakraAttr::kFixed32Val: return convert<T>(attr.fixed32_val(), strict_type);
      case ChakraAttr::kFixed64Val: return convert<T>(attr.fixed64_val(), strict_type);
      case ChakraAttr::kSfixed32Val: return convert<T>(attr.sfixed32_val(), strict_type);
      case ChakraAttr::kSfixed64Val: return convert<T>(attr.sfixed64_val(), strict_type);
      case ChakraAttr::kBoolVal: return convert<T>(attr.bool_val(), strict_type);
      case ChakraAttr::kStringVal: return convert<T>(attr.string_val(), strict_type);
      case ChakraAttr::kBytesVal: return convert<T>(attr.bytes_val(), strict_type);
      default:
        throw std::invalid_argument("attribute '" + attr.name() +
                                    "': no scalar value (list values are read with get_attr_msg)");
    }
  }
}

template <typename T>
T ETFeederNode::get_attr(const std::string& attr_name, const T& default_value) const {
  if (const ChakraAttr* a = find_attr(attr_name))
    return get_attr<T>(*a, DEFAULT_STRICT_TYPING);
  return default_value;
}

template <typename T>
T ETFeederNode::get_attr(const std::string& attr_name) const {
  if (const ChakraAttr* a = find_attr(attr_name))
    return get_attr<T>(*a, DEFAULT_STRICT_TYPING);
  throw std::runtime_error("Attribute " + attr_name + " not found in node " + std::to_string(id()));
}

}  // namespace FeederV3

using ETFeeder = FeederV3::ETFeeder;
using ETFeederNode = FeederV3::ETFeederNode;

}  // namespace Chakra

#endif
