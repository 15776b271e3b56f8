// SPDX-License-Identifier: Apache-2.0
// Chakra's classic feeder API on libchakra's feeder (see et_feeder.h).
#include "et_feeder.h"

#include <chakra/protobuf.hpp>

#include <cstdlib>
#include <stdexcept>

namespace Chakra {

// ---- nodes ----

std::shared_ptr<ChakraProtoMsg::Node> ETFeederNode::getChakraNode() const {
  if (!msg_) {
    if (!view_)
      throw std::runtime_error("node " + std::to_string(id_) +
                               ": its feeder was closed before the node was read");
    auto m = std::make_shared<ChakraProtoMsg::Node>();
    chakra::to_protobuf(chakra::node_view(view_), m.get());
    msg_ = std::move(m);
  }
  return msg_;
}

namespace {
// The names the classic node turns into fields; the others are "other".
bool is_field_attr(const std::string& n) {
  static const char* const names[] = {"is_cpu_op", "num_ops",  "tensor_size", "comm_type",
                                      "comm_priority", "comm_size", "comm_src", "comm_dst",
                                      "comm_tag", "pg_name"};
  for (const char* s : names)
    if (n == s)
      return true;
  return false;
}

[[noreturn]] void bad_kind(uint64_t id, const ChakraProtoMsg::AttributeProto& a, const char* what) {
  throw std::runtime_error("node " + std::to_string(id) + ": attribute " + a.name() +
                           " holds " + what + ", not a number");
}
}  // namespace

uint64_t ETFeederNode::number(const char* attr_name) const {
  const ChakraProtoMsg::AttributeProto* last = nullptr;
  for (const auto& a : getChakraNode()->attr())
    if (a.name() == attr_name)
      last = &a;
  if (!last)
    return 0;
  using A = ChakraProtoMsg::AttributeProto;
  const A& a = *last;
  switch (a.value_case()) {
    case A::kInt32Val: return static_cast<uint64_t>(static_cast<int64_t>(a.int32_val()));
    case A::kInt64Val: return static_cast<uint64_t>(a.int64_val());
    case A::kUint32Val: return a.uint32_val();
    case A::kUint64Val: return a.uint64_val();
    case A::kSint32Val: return static_cast<uint64_t>(static_cast<int64_t>(a.sint32_val()));
    case A::kSint64Val: return static_cast<uint64_t>(a.sint64_val());
    case A::kFixed32Val: return a.fixed32_val();
    case A::kFixed64Val: return a.fixed64_val();
    case A::kSfixed32Val: return static_cast<uint64_t>(static_cast<int64_t>(a.sfixed32_val()));
    case A::kSfixed64Val: return static_cast<uint64_t>(a.sfixed64_val());
    case A::kBoolVal: return a.bool_val() ? 1 : 0;
    case A::VALUE_NOT_SET: return 0;
    case A::kDoubleVal:
    case A::kFloatVal: bad_kind(id_, a, "a floating-point value");
    case A::kStringVal:
    case A::kBytesVal: bad_kind(id_, a, "a string");
    default: bad_kind(id_, a, "a list");
  }
}

std::string ETFeederNode::pg_name() const {
  const ChakraProtoMsg::AttributeProto* last = nullptr;
  for (const auto& a : getChakraNode()->attr())
    if (a.name() == "pg_name")
      last = &a;
  if (!last)
    return "";
  if (last->has_string_val())
    return last->string_val();
  if (last->has_bytes_val())
    return last->bytes_val();
  // A number as the group name: its decimal form, which is what readers
  // of pg_name parse it back into.
  if (last->value_case() == ChakraProtoMsg::AttributeProto::VALUE_NOT_SET)
    return "";
  return std::to_string(static_cast<int64_t>(number("pg_name")));
}

const ChakraProtoMsg::AttributeProto& ETFeederNode::get_other_attr(
    const std::string& attr_name) const {
  if (!is_field_attr(attr_name))
    for (const auto& a : getChakraNode()->attr())
      if (a.name() == attr_name)
        return a;
  throw std::runtime_error("Asked for attr \"" + attr_name + "\" from node " +
                           std::to_string(id_) + ", which do not exist");
}

bool ETFeederNode::has_other_attr(const std::string& attr_name) const {
  if (is_field_attr(attr_name))
    return false;
  for (const auto& a : getChakraNode()->attr())
    if (a.name() == attr_name)
      return true;
  return false;
}

// ---- feeder ----

ETFeeder::ETFeeder(std::string filename) {
  chakra::feeder_options o;
  if (const char* s = std::getenv("CHAKRA_FEEDER_WINDOW")) {
    char* end = nullptr;
    unsigned long long v = std::strtoull(s, &end, 10);
    if (!*s || *end || v == 0)
      throw std::runtime_error(std::string("CHAKRA_FEEDER_WINDOW=") + s +
                               ": expected a positive number of nodes");
    o.window = v;
  }
  init(filename, o);
}

ETFeeder::ETFeeder(std::string filename, const chakra::feeder_options& options) {
  init(filename, options);
}

void ETFeeder::init(const std::string& filename, chakra::feeder_options options) {
  path_ = filename;
  options.deps = chakra::deps::data;
  options.order = chakra::order::id;
  if (options.window == 0)
    options.window = 4096 * 256;  // the classic feeder's window
  feeder_ = chakra::feeder(filename, options);
}

ETFeeder::~ETFeeder() {
  for (auto& kv : nodes_)
    if (kv.second->view_) {
      if (kv.second.use_count() > 1)
        kv.second->getChakraNode();
      kv.second->view_ = nullptr;
    }
}

std::shared_ptr<ETFeederNode> ETFeeder::node(uint64_t id, const chakra_node* view) {
  auto& p = nodes_[id];
  if (!p)
    p = std::make_shared<ETFeederNode>(id, view);
  else if (p->view_)
    p->view_ = view;
  return p;
}

bool ETFeeder::hasNodesToIssue() {
  return feeder_.has_more() || freed_ > 0;
}

std::shared_ptr<ETFeederNode> ETFeeder::getNextIssuableNode() {
  auto n = feeder_.next();
  if (!n)
    return nullptr;
  return node(n->id(), n->c_ptr());
}

void ETFeeder::pushBackIssuableNode(uint64_t node_id) {
  feeder_.push_back(node_id);
}

std::shared_ptr<ETFeederNode> ETFeeder::lookupNode(uint64_t node_id) {
  auto it = nodes_.find(node_id);
  if (it != nodes_.end())
    return it->second;
  if (auto v = feeder_.lookup(node_id))
    return node(node_id, v->c_ptr());
  throw std::out_of_range("node " + std::to_string(node_id) + " of " + path_ +
                          ": not read yet, or already removed");
}

void ETFeeder::freeChildrenNodes(uint64_t node_id) {
  // The node stays readable until removeNode: keep its fields before
  // libchakra frees them.
  auto it = nodes_.find(node_id);
  if (it != nodes_.end() && it->second->view_)
    it->second->getChakraNode();
  feeder_.complete(node_id);
  if (it != nodes_.end() && it->second->view_) {
    it->second->view_ = nullptr;
    freed_++;
  }
}

void ETFeeder::removeNode(uint64_t node_id) {
  auto it = nodes_.find(node_id);
  if (it == nodes_.end())
    return;
  if (!it->second->view_)
    freed_--;
  nodes_.erase(it);
}

void ETFeeder::addNode(std::shared_ptr<ETFeederNode>) {
  throw std::runtime_error("ETFeeder::addNode: the graph is read from the trace");
}

}  // namespace Chakra
