/* SPDX-License-Identifier: Apache-2.0 */
/* Small helpers of the replay module: error text, the id map's wrapper,
 * operation names. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chakra/experimental/graph.h"
#include "replay_impl.h"

int chakra__replay_fail(char *err, size_t errlen, int code, const char *fmt, ...)
{
	if (err && errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return code;
}

int chakra__replay_map_put(chakra__replay_map *m, uint64_t key, uint32_t val)
{
	if (!m->m && !(m->m = chakra_idmap_new(0)))
		return CHAKRA_ENOMEM;
	return chakra_idmap_set(m->m, key, val) < 0 ? CHAKRA_ENOMEM : 0;
}

long chakra__replay_map_get(const chakra__replay_map *m, uint64_t key)
{
	uint32_t v = m->m ? chakra_idmap_get(m->m, key) : CHAKRA_GRAPH_NONE;
	return v == CHAKRA_GRAPH_NONE ? -1 : (long)v;
}

void chakra__replay_map_free(chakra__replay_map *m)
{
	chakra_idmap_free(m->m);
	m->m = NULL;
}

const char *chakra_replay_op_name(int kind, int comm_type)
{
	if (kind == CHAKRA_REPLAY_SEND)
		return "SEND";
	if (kind == CHAKRA_REPLAY_RECV)
		return "RECV";
	const char *s = chakra_comm_type_name(comm_type);
	return s ? s : "?";
}
