// SPDX-License-Identifier: Apache-2.0
// The differential test's stock side: compiled against the FeederV3
// sources extracted from the ASTRA-sim snapshot, with their namespace
// renamed (-DFeederV3=StockFeederV3) so both sides link into one program.
#include "et_feeder.h"
#include "v3_driver.hpp"

std::vector<std::string> v3diff::run_stock(const std::string& path, const config& cfg) {
  return drive<Chakra::FeederV3::ETFeeder>(path, cfg);
}
