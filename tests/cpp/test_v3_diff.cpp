// SPDX-License-Identifier: Apache-2.0
// bindings/cpp/feeder_v3 against the stock FeederV3 sources of the
// ASTRA-sim snapshot: the same scheduling run (v3_driver.hpp) on both must
// log the same ready and ongoing sets at every step, the same issue order,
// the same value (or exception class) from every node getter, also when a
// node is read after finish_node. On the shared traces (ASTRA-sim's
// microbenchmarks and custom collective, chakra.0.et without its control
// dependencies, `chakra generate model` workloads) and on random DAGs with
// data and control dependencies. Then the traces the stock feeder refuses
// and the layer runs.
//
// usage: test_v3_diff CUSTOM_COLLECTIVE_DIR [N_RANDOM [quick]]
// quick (for valgrind): chakra.0.et is only opened, not run.
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "check.hpp"
#include "trace_gen.hpp"
#include "v3_diff.hpp"

namespace {

int compared = 0;

// Distinct nodes taken (a pushed-back node is taken again).
uint64_t issued_nodes(const std::vector<std::string>& log) {
  std::set<std::string> ids;
  for (const std::string& l : log)
    for (const char* k : {"issue ", "blind "})
      if (l.compare(0, 6, k) == 0)
        ids.insert(l.substr(6, l.find(' ', 6) - 6));
  return ids.size();
}

// Runs both; returns the layer's log.
std::vector<std::string> compare(const std::string& path, v3diff::config cfg, bool all_issued = true) {
  if (cfg.attr_names.empty()) {
    cfg.attr_names = tracegen::attr_names(path);
    cfg.attr_names.push_back("no_such_attr");
  }
  std::vector<std::string> a = v3diff::run_stock(path, cfg);
  std::vector<std::string> b = v3diff::run_layer(path, cfg);
  compared++;
  size_t n = std::min(a.size(), b.size());
  for (size_t i = 0; i < n; i++)
    if (a[i] != b[i]) {
      std::fprintf(stderr, "%s (seed %llu): line %zu differs\n  stock: %.600s\n  layer: %.600s\n",
                   path.c_str(), static_cast<unsigned long long>(cfg.seed), i, a[i].c_str(),
                   b[i].c_str());
      check_failures()++;
      return b;
    }
  if (a.size() != b.size()) {
    std::fprintf(stderr, "%s (seed %llu): %zu lines from stock, %zu from the layer\n", path.c_str(),
                 static_cast<unsigned long long>(cfg.seed), a.size(), b.size());
    check_failures()++;
  }
  if (all_issued) {
    uint64_t issued = issued_nodes(b);
    if (issued != tracegen::node_count(path)) {
      std::fprintf(stderr, "%s: %llu nodes issued of %llu\n", path.c_str(),
                   static_cast<unsigned long long>(issued),
                   static_cast<unsigned long long>(tracegen::node_count(path)));
      check_failures()++;
    }
  }
  return b;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: test_v3_diff CUSTOM_COLLECTIVE_DIR [N_RANDOM]\n");
    return 2;
  }
  std::string data = shared_path("data");
  if (!file_exists(data + "/chakra/chakra.0.et.gz")) {
    std::fprintf(stderr, "test data missing: skipped\n");
    return 77;
  }
  int n_random = argc > 2 ? std::atoi(argv[2]) : 300;
  bool quick = argc > 3 && std::string(argv[3]) == "quick";
  std::string dir = tracegen::temp_dir("chakra-v3diff");
  v3diff::config cfg;

  // ASTRA-sim's microbenchmarks (two ranks each) and custom collective.
  for (const char* c : {"all_reduce", "all_gather", "reduce_scatter", "all_to_all"})
    for (int npus : {4, 8, 16})
      for (int rank : {0, npus - 1}) {
        std::string p = data + "/astra-sim/microbenchmarks/" + c + "/" + std::to_string(npus) +
                        "npus_1MB/" + c + "." + std::to_string(rank) + ".et";
        compare(p, cfg);
      }
  for (int rank = 0; rank < 8; rank++)
    compare(std::string(argv[1]) + "/custom_allreduce." + std::to_string(rank) + ".et", cfg);

  // A real trace: its data dependencies only (the stock feeder refuses its
  // control dependencies, below). Fewer attribute names: 3,664 nodes.
  std::string real = dir + "/chakra0-data.et";
  tracegen::strip_ctrl(data + "/chakra/chakra.0.et.gz", real);
  v3diff::config rc = cfg;
  rc.attr_names = {"is_cpu_op", "comm_size", "involved_dim", "no_such_attr"};
  if (!quick)
    compare(real, rc);

  // Workloads from `chakra generate model` (data and control dependencies).
  const char* exe = std::getenv("CHAKRA_EXE");
  if (exe) {
    std::string cmd = std::string(exe) + " generate model --model transformer --parallel hybrid" +
                      " --npus 8 --layers 2 --no-groups -f -o " + dir + "/tf >/dev/null && " + exe +
                      " generate model --model dlrm --parallel data --npus 4 --tables 4 --no-groups -f -o " +
                      dir + "/dlrm >/dev/null";
    if (std::system(cmd.c_str()) != 0) {
      std::fprintf(stderr, "chakra generate model failed: %s\n", cmd.c_str());
      check_failures()++;
    } else {
      for (const char* p : {"/tf.0.et", "/tf.5.et", "/dlrm.0.et", "/dlrm.3.et"})
        compare(dir + p, cfg);
    }
  }

  // Random DAGs with data and control dependencies.
  for (int i = 0; i < n_random; i++) {
    std::string p = dir + "/random.et";
    tracegen::random_dag(p, 1000 + i);
    cfg.seed = 77 + i;
    cfg.attr_names.clear();
    compare(p, cfg);
  }
  std::fprintf(stderr, "%d traces compared\n", compared);

  // chakra.0.et itself: control dependencies on absent nodes, on the node
  // itself, and closing cycles. The stock feeder refuses it; the layer
  // runs it, every node issued.
  std::string full = dir + "/chakra0.et";
  tracegen::plain_copy(data + "/chakra/chakra.0.et.gz", full);
  v3diff::config fc = rc;
  fc.attr_names = {"is_cpu_op"};
  if (quick)
    fc.max_steps = 1;
  std::vector<std::string> a = v3diff::run_stock(full, fc);
  CHECK(a.size() == 1 && a[0] == "open failed");
  std::vector<std::string> b = v3diff::run_layer(full, fc);
  CHECK(b.size() > 1 && b[0] == "open");
  if (!quick)
    CHECK_EQ(issued_nodes(b), uint64_t(3664));

  std::string rm = "rm -rf '" + dir + "'";
  if (std::system(rm.c_str()) != 0)
    std::fprintf(stderr, "could not remove %s\n", dir.c_str());
  return check_done();
}
