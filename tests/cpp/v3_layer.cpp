// SPDX-License-Identifier: Apache-2.0
// The differential test's libchakra side: bindings/cpp/feeder_v3.
#include "et_feeder.h"
#include "v3_driver.hpp"

std::vector<std::string> v3diff::run_layer(const std::string& path, const config& cfg) {
  return drive<Chakra::FeederV3::ETFeeder>(path, cfg);
}
