/* SPDX-License-Identifier: Apache-2.0 */
/* Chakra's own command names (chakra_converter, chakra_trace_link, ...),
 * answered by the chakra binary when called by one of them (compat.c). */
#ifndef CHAKRA_TOOLS_COMPAT_H
#define CHAKRA_TOOLS_COMPAT_H

/* If argv0's last component is one of Chakra's commands, run it with
 * argv and set *status to its exit status: 1; else 0. The names are also
 * in tools/meson.build (the installed links). */
int tool_compat(const char *argv0, int argc, char **argv, int *status);

#endif
