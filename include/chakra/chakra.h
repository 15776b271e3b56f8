/* SPDX-License-Identifier: Apache-2.0 */
/* libchakra: read, write and feed Chakra execution traces.
 * Umbrella header; see docs/api.md.
 *
 * NULL arguments, the one rule for every public function of the library
 * and of its experimental modules: a NULL where a pointer is expected
 * never crashes.
 * - A function that returns an int or a signed count returns
 *   CHAKRA_EINVAL. An open (and any call with an `out` handle pointer)
 *   sets *out to NULL first when out is not NULL; when only its source is
 *   missing (a NULL path, buffer, callback or prefix) *out is a handle in
 *   the failed state whose message says so, as for a bad options version,
 *   to be closed like any other.
 * - An accessor that returns a value gives its "nothing": 0 for counts,
 *   ids, offsets and times, NULL for a node, attribute, array or handle,
 *   "" (and *len = 0) for a name or string, CHAKRA_ATTR_NONE for a kind.
 * - A setter, close or free of NULL does nothing; *_errmsg(NULL) returns
 *   a fixed message (the one for an open that ran out of memory).
 * Where NULL has a documented meaning it keeps it: options (defaults),
 * `len` outputs (not wanted), metadata attributes and version (none), a
 * buffer of length 0 (chakra_reader_open_buffer, chakra_writer_write_raw),
 * chakra_set_allocator(NULL) (back to malloc).
 * A misuse (a NULL node output, a NULL builder) does not put a reader,
 * writer or feeder in the failed state. Test: embed-null (every function
 * of the core, the modules in their own tests). */
#ifndef CHAKRA_CHAKRA_H
#define CHAKRA_CHAKRA_H

#include "chakra/export.h"
#include "chakra/version.h"
#include "chakra/error.h"
#include "chakra/allocator.h"
#include "chakra/node.h"
#include "chakra/attrs.h"
#include "chakra/reader.h"
#include "chakra/writer.h"
#include "chakra/feeder.h"

#endif
