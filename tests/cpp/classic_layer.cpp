// SPDX-License-Identifier: Apache-2.0
// The classic differential test's libchakra side: bindings/cpp/classic.
#include "et_feeder.h"
#include "classic_driver.hpp"

std::vector<std::string> classicdiff::run_layer(const std::string& path, const config& cfg) {
  return drive<Chakra::ETFeeder>(path, cfg);
}
