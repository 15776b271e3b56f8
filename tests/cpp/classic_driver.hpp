// SPDX-License-Identifier: Apache-2.0
// One scheduling run over a classic Chakra::ETFeeder, as ASTRA-sim drove it
// before 2025: pull every issuable node, issue those whose resource is free
// and push the others back; on completion freeChildrenNodes, pull again,
// then removeNode. Completions are picked at random from a seeded
// generator. Logs the issue order and each node's fields (the attribute
// getters only when the node has that attribute: the classic feeder leaves
// absent ones uninitialised). Compiled against the stock sources and
// against the layer (test_classic_diff.cpp).
#ifndef CHAKRA_TEST_CLASSIC_DRIVER_HPP
#define CHAKRA_TEST_CLASSIC_DRIVER_HPP

#include <algorithm>
#include <map>
#include <memory>
#include <queue>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "classic_diff.hpp"

namespace classicdiff {

template <class NodePtr>
std::string describe(const NodePtr& n, const config& cfg) {
  std::ostringstream o;
  o << n->id() << " name=" << n->name() << " type=" << static_cast<int>(n->type())
    << " runtime=" << n->runtime();
  std::set<std::string> has;
  for (const auto& a : n->getChakraNode()->attr())
    has.insert(a.name());
  auto is = [&](const char* a) { return has.count(a) != 0; };
  if (is("is_cpu_op")) o << " is_cpu_op=" << n->is_cpu_op();
  if (is("num_ops")) o << " num_ops=" << n->num_ops();
  if (is("tensor_size")) o << " tensor_size=" << n->tensor_size();
  if (is("comm_type")) o << " comm_type=" << static_cast<int>(n->comm_type());
  if (is("comm_priority")) o << " comm_priority=" << n->comm_priority();
  if (is("comm_size")) o << " comm_size=" << n->comm_size();
  if (is("comm_src")) o << " comm_src=" << n->comm_src();
  if (is("comm_dst")) o << " comm_dst=" << n->comm_dst();
  if (is("comm_tag")) o << " comm_tag=" << n->comm_tag();
  if (is("pg_name")) o << " pg_name=" << n->pg_name();
  for (const std::string& a : cfg.other_attrs) {
    o << " [" << a << "]=" << n->has_other_attr(a);
    if (n->has_other_attr(a))
      o << ':' << n->get_other_attr(a).SerializeAsString().size();
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
  using NodePtr = decltype(f->getNextIssuableNode());
  std::mt19937_64 rng(cfg.seed);
  std::map<uint64_t, std::pair<NodePtr, int>> running;
  int busy[3] = {0, 0, 0};
  auto resource = [](const NodePtr& n) {
    if (n->is_cpu_op())
      return 0;
    return n->type() == ChakraProtoMsg::COMP_NODE ? 1 : 2;
  };
  auto issue_ready = [&]() {
    int pulled = 0;
    std::queue<NodePtr> later;
    std::ostringstream s;
    s << "pull";
    for (NodePtr n = f->getNextIssuableNode(); n; n = f->getNextIssuableNode()) {
      pulled++;
      int r = resource(n);
      if (busy[r] || rng() % 8 == 0) {
        later.push(n);
        s << " later:" << n->id();
        continue;
      }
      busy[r]++;
      running[n->id()] = {n, r};
      log.push_back("issue " + describe(n, cfg));
    }
    while (!later.empty()) {
      f->pushBackIssuableNode(later.front()->id());
      later.pop();
    }
    log.push_back(s.str());
    return pulled;
  };
  issue_ready();
  while (f->hasNodesToIssue()) {
    if (running.empty()) {
      if (issue_ready() == 0) {
        log.push_back("stuck");
        break;
      }
      continue;
    }
    auto it = running.begin();
    std::advance(it, rng() % running.size());
    NodePtr n = it->second.first;
    uint64_t id = it->first;
    busy[it->second.second]--;
    running.erase(it);
    f->freeChildrenNodes(id);
    issue_ready();
    log.push_back("done " + describe(f->lookupNode(id), cfg));
    f->removeNode(id);
  }
  log.push_back("end");
  return log;
}

}  // namespace classicdiff

#endif
