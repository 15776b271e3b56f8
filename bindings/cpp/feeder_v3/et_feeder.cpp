// SPDX-License-Identifier: Apache-2.0
// Chakra's FeederV3 API on libchakra's feeder (see et_feeder.h).
#include "et_feeder.h"

#include <chakra/protobuf.hpp>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <sstream>

namespace Chakra {
namespace FeederV3 {

// ---- nodes ----

const ChakraNode& layer::NodeRecord::message() {
  if (!msg) {
    if (!view)
      throw std::runtime_error("node " + std::to_string(id) +
                               ": its feeder was closed before the node was read");
    auto m = std::make_unique<ChakraNode>();
    chakra::to_protobuf(chakra::node_view(view), m.get());
    msg = std::move(m);
  }
  return *msg;
}

ETFeederNode::ETFeederNode(ETFeeder& feeder, NodeId node_id)
    : rec_(feeder.lookupNode(node_id)->rec_) {}

const ChakraAttr* ETFeederNode::find_attr(const std::string& attr_name) const {
  for (const ChakraAttr& a : message().attr())
    if (a.name() == attr_name)
      return &a;
  return nullptr;
}

bool ETFeederNode::has_attr(const std::string& attr_name) const {
  return find_attr(attr_name) != nullptr;
}

const ChakraAttr ETFeederNode::get_attr_msg(const std::string& attr_name) const {
  if (const ChakraAttr* a = find_attr(attr_name))
    return *a;
  throw std::runtime_error("Attribute " + attr_name + " not found in node " + std::to_string(id()));
}

bool ETFeederNode::get_attr_msg(const std::string& attr_name, const ChakraAttr** attr) const {
  const ChakraAttr* a = find_attr(attr_name);
  if (a)
    *attr = a;
  return a != nullptr;
}

std::string ETFeederNode::get_inputs_values(const std::string& default_) const {
  const ChakraNode& m = message();
  return m.has_inputs() ? m.inputs().values() : default_;
}
std::string ETFeederNode::get_inputs_shapes(const std::string& default_) const {
  const ChakraNode& m = message();
  return m.has_inputs() ? m.inputs().shapes() : default_;
}
std::string ETFeederNode::get_inputs_types(const std::string& default_) const {
  const ChakraNode& m = message();
  return m.has_inputs() ? m.inputs().types() : default_;
}
std::string ETFeederNode::get_outputs_values(const std::string& default_) const {
  const ChakraNode& m = message();
  return m.has_outputs() ? m.outputs().values() : default_;
}
std::string ETFeederNode::get_outputs_shapes(const std::string& default_) const {
  const ChakraNode& m = message();
  return m.has_outputs() ? m.outputs().shapes() : default_;
}
std::string ETFeederNode::get_outputs_types(const std::string& default_) const {
  const ChakraNode& m = message();
  return m.has_outputs() ? m.outputs().types() : default_;
}

// ---- resolver ----

void DependancyResolver::take_node(const NodeId& node) {
  if (free_.erase(node) == 0)
    throw std::runtime_error("Node " + std::to_string(node) +
                             " is not dependancy free or already taken/released");
  ongoing_.insert(node);
}

void DependancyResolver::push_back_node(const NodeId& node) {
  if (ongoing_.erase(node) == 0)
    throw std::runtime_error("Node " + std::to_string(node) + " is not taken");
  free_.insert(node);
}

void DependancyResolver::finish_node(const NodeId& node) {
  if (ongoing_.count(node) == 0)
    throw std::runtime_error("Node " + std::to_string(node) + " is not taken");
  ongoing_.erase(node);
  owner_.finish(node);
}

// ---- feeder ----

namespace {
// CHAKRA_FEEDER_WINDOW: a positive node count bounds the read-ahead.
uint64_t window_from_env() {
  const char* s = std::getenv("CHAKRA_FEEDER_WINDOW");
  if (!s || !*s)
    return 0;
  char* end = nullptr;
  unsigned long long v = std::strtoull(s, &end, 10);
  if (*end || v == 0)
    throw std::runtime_error(std::string("CHAKRA_FEEDER_WINDOW=") + s +
                             ": expected a positive number of nodes");
  return v;
}
}  // namespace

ETFeeder::ETFeeder(const std::string& file_path) : resolver_(*this) {
  chakra::feeder_options o;
  o.window = window_from_env();
  init(file_path, o);
}

ETFeeder::ETFeeder(const std::string& file_path, const chakra::feeder_options& options)
    : resolver_(*this) {
  init(file_path, options);
}

void ETFeeder::init(const std::string& file_path, chakra::feeder_options options) {
  path_ = file_path;
  // FeederV3 holds the whole graph, so every ready node is known; a window
  // that covers the file keeps that (libchakra still holds only raw bytes
  // and small slots, not parsed messages and hash maps).
  options.deps = chakra::deps::both;
  options.order = chakra::order::id;
  if (options.window == 0) {
    options.window = std::numeric_limits<uint64_t>::max();
    options.window_bytes = std::numeric_limits<uint64_t>::max();
    options.max_memory = std::numeric_limits<uint64_t>::max();
  }
  feeder_ = chakra::feeder(file_path, options);
  chakra::to_protobuf(feeder_.metadata(), &global_metadata);
  collect_ready();
  report_warnings();
}

ETFeeder::~ETFeeder() {
  // ETFeederNodes may outlive the feeder: give them their own copy.
  for (auto& kv : live_) {
    if (kv.second.use_count() > 1 && kv.second->view)
      kv.second->message();
    kv.second->view = nullptr;
  }
  report_warnings();
}

std::shared_ptr<layer::NodeRecord> ETFeeder::record(NodeId id, const chakra_node* view) {
  auto& r = live_[id];
  if (!r) {
    r = std::make_shared<layer::NodeRecord>();
    r->id = id;
  }
  r->view = view;
  return r;
}

// Every node libchakra issues is ready in FeederV3's sense: move them all
// to the ready set (libchakra counts them as in flight until finished).
void ETFeeder::collect_ready() {
  while (auto n = feeder_.next()) {
    record(n->id(), n->c_ptr());
    resolver_.free_.insert(n->id());
  }
}

void ETFeeder::finish(NodeId id) {
  auto it = live_.find(id);
  if (it != live_.end()) {
    // Someone still holds the node (ASTRA-sim reads it after finish_node):
    // keep its fields before libchakra frees the view.
    if (it->second.use_count() > 1)
      it->second->message();
    it->second->view = nullptr;
    live_.erase(it);
  }
  feeder_.complete(id);
  collect_ready();
  if (!feeder_.has_more())
    report_warnings();
}

void ETFeeder::report_warnings() {
  uint64_t w = feeder_.c_ptr() ? feeder_.warning_count() : 0;
  if (w == warnings_reported_)
    return;
  warnings_reported_ = w;
  uint64_t cyc = feeder_.cycle_break_count();
  // One write for the whole line: written piecewise, ASTRA-sim's log
  // lines (from its logger's thread) could land inside it.
  std::ostringstream line;
  line << "chakra: " << path_ << ": " << w << " control dependencies ignored so far (" << cyc
       << " closed a cycle; the others name nodes absent from the file or the node itself)\n";
  std::cerr << line.str() << std::flush;
}

std::shared_ptr<ETFeederNode> ETFeeder::lookupNode(const NodeId& node_id) {
  auto it = live_.find(node_id);
  if (it != live_.end())
    return std::make_shared<ETFeederNode>(it->second);
  if (auto v = feeder_.lookup(node_id))
    return std::make_shared<ETFeederNode>(record(node_id, v->c_ptr()));
  throw std::runtime_error("Node " + std::to_string(node_id) + " not found in " + path_ +
                           " (libchakra keeps only nodes not yet finished)");
}

bool ETFeeder::hasNodesToIssue() {
  return !resolver_.free_.empty();
}

std::shared_ptr<ETFeederNode> ETFeeder::getNextIssuableNode() {
  if (resolver_.free_.empty())
    return nullptr;
  NodeId id = *std::min_element(resolver_.free_.begin(), resolver_.free_.end());
  resolver_.take_node(id);
  return lookupNode(id);
}

void ETFeeder::pushBackIssuableNode(const NodeId& node_id) {
  resolver_.push_back_node(node_id);
}

void ETFeeder::freeChildrenNodes(const NodeId& node_id) {
  resolver_.finish_node(node_id);
}

void ETFeeder::addNode(std::shared_ptr<ETFeederNode>) {
  throw std::runtime_error("ETFeeder::addNode: the graph is read from the trace and read-only");
}

void ETFeeder::removeNode(const NodeId&) {}

}  // namespace FeederV3
}  // namespace Chakra
