/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: nanopb, the reference decoder, used to cross-check the fast
 * walker (reader option verify_with_nanopb, the tests and the fuzzers). */
#ifndef CHAKRA_PBREF_H
#define CHAKRA_PBREF_H

#include <stddef.h>
#include <stdint.h>

#include "node_impl.h"

/* Decode msg with nanopb and compare every field with what the walker
 * produced (id, full). 0 when equal; CHAKRA_ECORRUPT with a description
 * in err when nanopb rejects the message or any field differs. */
int chakra__pbref_verify_node(const uint8_t *msg, size_t len, uint64_t id, const node_full *full, char *err);

#endif
