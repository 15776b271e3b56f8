/* SPDX-License-Identifier: Apache-2.0 */
/* libchakra: the experimental section.
 *
 * API that is not frozen yet lives in headers under chakra/experimental/
 * (one per library module: chakra/experimental/<module>.h). Those headers
 * include this one, so using any of them requires defining
 * CHAKRA_EXPERIMENTAL first (as zstd's ZSTD_STATIC_LINKING_ONLY):
 *
 *   #define CHAKRA_EXPERIMENTAL
 *   #include <chakra/experimental/sim.h>
 *
 * Nothing declared there is covered by the ABI baseline (abi/) or the
 * SONAME: it may change or go away in any release. What settles moves to
 * the stable headers (chakra/chakra.h). Their functions are installed in
 * one static archive, libchakra-experimental.a, for static linking only
 * (pkg-config chakra-experimental, CMake chakra::experimental; it goes
 * before libchakra on the link line), made for the libchakra installed
 * with it. Every declaration carries CHAKRA_EXPERIMENTAL_API; options
 * structs have a version, an _INIT macro and _options_init(opts, version);
 * calls return negative chakra_error codes. docs/embedding.md has the
 * rules. */
#ifndef CHAKRA_EXPERIMENTAL_H
#define CHAKRA_EXPERIMENTAL_H

#ifndef CHAKRA_EXPERIMENTAL
#error "chakra/experimental headers declare unstable API: #define CHAKRA_EXPERIMENTAL before including them (docs/embedding.md)"
#endif

#include "chakra/chakra.h"

/* Marks an experimental function (visible like CHAKRA_API). */
#define CHAKRA_EXPERIMENTAL_API CHAKRA_API

#endif
