// SPDX-License-Identifier: Apache-2.0
// The two sides of the FeederV3 differential test (v3_driver.hpp).
#ifndef CHAKRA_TEST_V3_DIFF_HPP
#define CHAKRA_TEST_V3_DIFF_HPP

#include <cstdint>
#include <string>
#include <vector>

namespace v3diff {
struct config {
  uint64_t seed = 1;
  std::vector<std::string> attr_names;  // attributes read on every node
  int max_steps = 1000000;
};
// The stock FeederV3 sources of the ASTRA-sim snapshot.
std::vector<std::string> run_stock(const std::string& path, const config& cfg);
// bindings/cpp/feeder_v3 on libchakra.
std::vector<std::string> run_layer(const std::string& path, const config& cfg);
}  // namespace v3diff

#endif
