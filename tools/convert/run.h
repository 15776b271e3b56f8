/* SPDX-License-Identifier: Apache-2.0 */
/* What `convert pytorch` and `convert kineto` do once their options are
 * read: one output through the tools' output rule, or every rank. */
#ifndef CHAKRA_TOOLS_CONVERT_RUN_H
#define CHAKRA_TOOLS_CONVERT_RUN_H

#ifndef CHAKRA_EXPERIMENTAL
#define CHAKRA_EXPERIMENTAL
#endif
#include "chakra/experimental/convert.h"

/* et NULL: a Kineto trace alone (kin). A pattern with {R} converts every
 * rank to PREFIX.R.et; otherwise one ET to out (tool_out: temporary,
 * rename, -f, removed on signals). Prints the summary unless quiet.
 * Returns the exit status. */
int tool_convert_run(const char *et, const char *kin, const char *out,
                     chakra_convert_options *o, int force, int quiet);

#endif
