/* SPDX-License-Identifier: Apache-2.0 */
#ifndef CHAKRA_TOOLS_HINT_H
#define CHAKRA_TOOLS_HINT_H

/* Messages for a trace that cannot be read. When the file starts like JSON
 * (plain or gzip) the reader's framing message is useless ("message
 * declares 123 bytes", '{' being 123): these return a hint naming the
 * commands that read JSON instead, or NULL. */
const char *tool_json_hint(const char *path);
/* Print a reader/feeder error for `path`: the hint when the file looks
 * like JSON, else msg. Returns 1. */
int tool_trace_err(const char *path, const char *msg);

#endif
