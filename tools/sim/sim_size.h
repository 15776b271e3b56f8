/* SPDX-License-Identifier: Apache-2.0 */
/* chakra sim and bench sim: a byte count with a binary suffix (--memory). */
#ifndef CHAKRA_TOOLS_SIM_SIZE_H
#define CHAKRA_TOOLS_SIM_SIZE_H

#include <stdint.h>

/* "64M", "1G", "512K" (also KiB, MB.. all powers of 1024) or bytes; at
 * least 1 MiB. 0, or prints an error naming opt and returns -1. */
int sim_parse_size(const char *opt, const char *s, uint64_t *out);

#endif
