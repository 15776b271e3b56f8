/* Option parsing shared by `chakra feed` and `chakra bench feed`. */
#ifndef CHAKRA_TOOLS_FEEDOPTS_H
#define CHAKRA_TOOLS_FEEDOPTS_H

#include "common.h"

/* Parse --deps, --order, --window, --strict at argv[*i]: 1 consumed, 0 not
 * a feeder option, -1 usage error (printed; exit 2). */
int feedopt_parse(const char *cmd, int argc, char **argv, int *i, chakra_feeder_options *o);

#endif
