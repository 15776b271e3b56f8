// SPDX-License-Identifier: Apache-2.0
// The two sides of the classic-feeder differential test (classic_driver.hpp).
#ifndef CHAKRA_TEST_CLASSIC_DIFF_HPP
#define CHAKRA_TEST_CLASSIC_DIFF_HPP

#include <cstdint>
#include <string>
#include <vector>

namespace classicdiff {
struct config {
  uint64_t seed = 1;
  std::vector<std::string> other_attrs;  // names read with get_other_attr
};
// The stock classic feeder sources of the ASTRA-sim snapshot.
std::vector<std::string> run_stock(const std::string& path, const config& cfg);
// bindings/cpp/classic on libchakra.
std::vector<std::string> run_layer(const std::string& path, const config& cfg);
}  // namespace classicdiff

#endif
