/* SPDX-License-Identifier: Apache-2.0 */
#include "chakra/version.h"

unsigned chakra_version(void) { return CHAKRA_VERSION_NUMBER; }
const char *chakra_version_string(void) { return CHAKRA_VERSION_STRING; }
