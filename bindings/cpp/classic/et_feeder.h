// SPDX-License-Identifier: Apache-2.0
// Chakra's classic (pre-2025) C++ feeder API, Chakra::ETFeeder and
// Chakra::ETFeederNode, implemented on libchakra's feeder.
//
// A drop-in for code written against extern/graph_frontend/chakra/src/
// feeder/ (ASTRA-sim before 2025 and most of its forks): put this file and
// et_feeder.cpp in place of et_feeder.{h,cpp}, et_feeder_node.{h,cpp} (a
// file that includes "et_feeder_node.h" can include this one instead), add
// libchakra's include folder and library. Same semantics: data
// dependencies gate, the lowest ready id is issued first, nodes stay
// readable until removeNode. Differences (docs/embedding.md):
//  - Attribute getters accept a value of any integer kind (and bool) and
//    convert it as a C++ cast would; the classic feeder read one fixed
//    protobuf member per attribute (bool_val for is_cpu_op, int64_val for
//    comm_size, uint64_val for tensor_size, int32_val for comm_src, ...) and
//    so returned 0 for a value stored in any other kind. An absent
//    attribute gives 0 / "" (the classic feeder left the member
//    uninitialised); a floating, string or list value for a numeric
//    attribute throws std::runtime_error naming the node.
//  - A graph that cannot finish (a data dependency on an absent node, a
//    cycle) throws from getNextIssuableNode with the blocked nodes named,
//    where the classic feeder kept hasNodesToIssue() true forever.
//  - Memory is bounded by a window of nodes read ahead: the classic
//    feeder's 1,048,576 by default, CHAKRA_FEEDER_WINDOW=N to change it.
#ifndef LIBCHAKRA_CLASSIC_ET_FEEDER_H
#define LIBCHAKRA_CLASSIC_ET_FEEDER_H

#include <cstdint>
#include <memory>
#include <queue>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <chakra/chakra.hpp>

#include "et_def.pb.h"

namespace Chakra {

class ETFeeder;

class ETFeederNode {
 public:
  ETFeederNode(uint64_t id, const chakra_node* view) : id_(id), view_(view) {}

  // The whole node as its protobuf message (built on first use).
  std::shared_ptr<ChakraProtoMsg::Node> getChakraNode() const;

  // Attributes other than the ones with getters below (first of a name).
  const ChakraProtoMsg::AttributeProto& get_other_attr(const std::string& attr_name) const;
  bool has_other_attr(const std::string& attr_name) const;

  uint64_t id() const { return id_; }
  std::string name() const { return getChakraNode()->name(); }
  ChakraProtoMsg::NodeType type() const { return getChakraNode()->type(); }
  uint64_t runtime() const { return getChakraNode()->duration_micros(); }
  bool is_cpu_op() const { return number("is_cpu_op") != 0; }
  uint64_t num_ops() const { return number("num_ops"); }
  uint32_t tensor_loc() const { return static_cast<uint32_t>(number("tensor_loc")); }
  uint64_t tensor_size() const { return number("tensor_size"); }
  ChakraProtoMsg::CollectiveCommType comm_type() const {
    return static_cast<ChakraProtoMsg::CollectiveCommType>(number("comm_type"));
  }
  uint32_t comm_priority() const { return static_cast<uint32_t>(number("comm_priority")); }
  uint64_t comm_size() const { return number("comm_size"); }
  uint32_t comm_src() const { return static_cast<uint32_t>(number("comm_src")); }
  uint32_t comm_dst() const { return static_cast<uint32_t>(number("comm_dst")); }
  uint32_t comm_tag() const { return static_cast<uint32_t>(number("comm_tag")); }
  std::string pg_name() const;

 private:
  friend class ETFeeder;
  uint64_t id_;
  const chakra_node* view_;  // until the node is freed
  mutable std::shared_ptr<ChakraProtoMsg::Node> msg_;

  // The last attribute of that name, as a 64-bit pattern; 0 when absent.
  uint64_t number(const char* attr_name) const;
};

class ETFeeder {
 public:
  // Opens the trace (plain or gzip); throws std::runtime_error (a
  // chakra::error) naming the file, byte and problem.
  explicit ETFeeder(std::string filename);
  // libchakra: explicit options (deps and order stay the classic ones:
  // data dependencies, lowest id first).
  ETFeeder(std::string filename, const chakra::feeder_options& options);
  ~ETFeeder();
  ETFeeder(const ETFeeder&) = delete;
  ETFeeder& operator=(const ETFeeder&) = delete;

  // True until every node has been issued, freed and removed.
  bool hasNodesToIssue();
  // The ready node with the lowest id, now issued; nullptr when none is
  // ready. Throws when nothing can ever become ready (the message names the
  // blocked nodes and their missing parents or the cycle).
  std::shared_ptr<ETFeederNode> getNextIssuableNode();
  // An issued node goes back to the ready set.
  void pushBackIssuableNode(uint64_t node_id);
  // A node read and not yet removed; std::out_of_range otherwise.
  std::shared_ptr<ETFeederNode> lookupNode(uint64_t node_id);
  // The node is done: its children may become ready.
  void freeChildrenNodes(uint64_t node_id);
  // Forget the node (after freeChildrenNodes).
  void removeNode(uint64_t node_id);
  // The graph comes from the trace: addNode throws.
  void addNode(std::shared_ptr<ETFeederNode> node);

  // libchakra: the underlying feeder (counts, metadata).
  const chakra::feeder& chakraFeeder() const { return feeder_; }

 private:
  std::string path_;
  chakra::feeder feeder_;
  // Issued, looked-up and freed-but-not-removed nodes.
  std::unordered_map<uint64_t, std::shared_ptr<ETFeederNode>> nodes_;
  size_t freed_ = 0;

  void init(const std::string& filename, chakra::feeder_options options);
  std::shared_ptr<ETFeederNode> node(uint64_t id, const chakra_node* view);
};

}  // namespace Chakra

#endif
