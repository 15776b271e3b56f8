/* SPDX-License-Identifier: Apache-2.0 */
/* Feeder options on the command line (see feedopts.h). */
#include "feedopts.h"

void feed_cli_apply(const feed_cli *c, chakra_feeder_options *o)
{
	static const chakra_deps deps[] = { CHAKRA_DEPS_DATA, CHAKRA_DEPS_CTRL, CHAKRA_DEPS_BOTH };
	o->deps = deps[c->deps];
	o->order = c->order ? CHAKRA_ORDER_FILE : CHAKRA_ORDER_ID;
	o->window = c->window;
	o->strict = c->strict;
}
