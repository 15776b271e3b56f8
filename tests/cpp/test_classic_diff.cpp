// SPDX-License-Identifier: Apache-2.0
// bindings/cpp/classic against the stock classic feeder sources of the
// ASTRA-sim snapshot: the same old-ASTRA-sim scheduling run
// (classic_driver.hpp) must log the same pulls, push-backs, issue order and
// node fields. On ASTRA-sim's microbenchmarks and custom collective,
// chakra.0.et (which the classic feeder runs: it ignores control
// dependencies) and random DAGs whose attributes have the kinds the classic
// feeder reads.
//
// usage: test_classic_diff CUSTOM_COLLECTIVE_DIR [N_RANDOM]
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "check.hpp"
#include "classic_diff.hpp"
#include "trace_gen.hpp"

namespace {

int compared = 0;

void compare(const std::string& path, const classicdiff::config& cfg) {
  std::vector<std::string> a = classicdiff::run_stock(path, cfg);
  std::vector<std::string> b = classicdiff::run_layer(path, cfg);
  compared++;
  for (size_t i = 0; i < std::min(a.size(), b.size()); i++)
    if (a[i] != b[i]) {
      std::fprintf(stderr, "%s (seed %llu): line %zu differs\n  stock: %.600s\n  layer: %.600s\n",
                   path.c_str(), static_cast<unsigned long long>(cfg.seed), i, a[i].c_str(),
                   b[i].c_str());
      check_failures()++;
      return;
    }
  if (a.size() != b.size()) {
    std::fprintf(stderr, "%s: %zu lines from stock, %zu from the layer\n", path.c_str(), a.size(),
                 b.size());
    check_failures()++;
  }
  uint64_t issued = 0;
  for (const std::string& l : b)
    issued += l.compare(0, 6, "issue ") == 0;
  if (issued != tracegen::node_count(path) || b.back() != "end") {
    std::fprintf(stderr, "%s: %llu issued, last line %s\n", path.c_str(),
                 static_cast<unsigned long long>(issued), b.back().c_str());
    check_failures()++;
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: test_classic_diff CUSTOM_COLLECTIVE_DIR [N_RANDOM]\n");
    return 2;
  }
  std::string data = shared_path("data");
  if (!file_exists(data + "/chakra/chakra.0.et.gz")) {
    std::fprintf(stderr, "test data missing: skipped\n");
    return 77;
  }
  int n_random = argc > 2 ? std::atoi(argv[2]) : 200;
  std::string dir = tracegen::temp_dir("chakra-classicdiff");
  classicdiff::config cfg;
  cfg.other_attrs = {"involved_dim", "x", "op_schema", "no_such_attr"};

  for (const char* c : {"all_reduce", "all_gather", "reduce_scatter", "all_to_all"})
    for (int npus : {4, 16})
      compare(data + "/astra-sim/microbenchmarks/" + c + "/" + std::to_string(npus) + "npus_1MB/" +
                  c + ".1.et",
              cfg);
  for (int rank = 0; rank < 8; rank += 3)
    compare(std::string(argv[1]) + "/custom_allreduce." + std::to_string(rank) + ".et", cfg);

  std::string real = dir + "/chakra0.et";
  tracegen::plain_copy(data + "/chakra/chakra.0.et.gz", real);
  for (uint64_t seed : {1, 2})
    cfg.seed = seed, compare(real, cfg);

  for (int i = 0; i < n_random; i++) {
    std::string p = dir + "/random.et";
    tracegen::random_dag(p, 5000 + i, 120, true);
    cfg.seed = 11 + i;
    compare(p, cfg);
  }
  std::fprintf(stderr, "%d traces compared\n", compared);
  std::string rm = "rm -rf '" + dir + "'";
  if (std::system(rm.c_str()) != 0)
    std::fprintf(stderr, "could not remove %s\n", dir.c_str());
  return check_done();
}
