/* SPDX-License-Identifier: Apache-2.0 */
/* libchakra: read, write and feed Chakra execution traces.
 * Umbrella header; see docs/api.md. */
#ifndef CHAKRA_CHAKRA_H
#define CHAKRA_CHAKRA_H

#include "chakra/export.h"
#include "chakra/version.h"
#include "chakra/error.h"
#include "chakra/allocator.h"
#include "chakra/node.h"
#include "chakra/reader.h"
#include "chakra/writer.h"
#include "chakra/feeder.h"

#endif
