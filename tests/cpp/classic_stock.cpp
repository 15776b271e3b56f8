// SPDX-License-Identifier: Apache-2.0
// The classic differential test's stock side: the classic feeder sources of
// the ASTRA-sim snapshot, namespace renamed (-DChakra=StockChakra).
#include "et_feeder.h"
#include "classic_driver.hpp"

std::vector<std::string> classicdiff::run_stock(const std::string& path, const config& cfg) {
  return drive<Chakra::ETFeeder>(path, cfg);
}
