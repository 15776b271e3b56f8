/* SPDX-License-Identifier: Apache-2.0 */
/* ET -> JSON: the writer's state, shared by jn_gen.c (the jsonize form and
 * the entry points) and jn_genpb.c (protobuf's JSON mapping); internal to
 * the jsonet module. */
#ifndef CHAKRA_JSONET_JN_GEN_H
#define CHAKRA_JSONET_JN_GEN_H

#include <stdint.h>
#include <string.h>
#include <yajl/yajl_gen.h>

#include "chakra/experimental/jsonet.h"
#include "jguard.h"

struct chakra_jsonet_writer {
	yajl_gen g;
	chakra__jg *jg;        /* YAJL's allocations: a failure jumps to the call */
	chakra_write_cb cb;
	void *data;
	int pretty;
	/* protobuf's JSON mapping (what Chakra's chakra_jsonizer writes): one
	 * object per message, GlobalMetadata first, camelCase keys, 64-bit
	 * integers as strings, enums by name, default values left out */
	int protobuf;
	int state;             /* 0 opened, 1 begun, 2 finished */
	int code;              /* the first error, sticky */
	int io_failed;         /* the callback failed */
	uint64_t nan_payloads; /* protobuf: NaNs whose bits "NaN" cannot keep */
	char err[160];         /* protobuf: why a node cannot be written */
};

#define STR(g, s) yajl_gen_string((g), (const unsigned char *)(s), strlen(s))
#define STRN(g, s, n) yajl_gen_string((g), (const unsigned char *)(s), (n))

/* jn_gen.c: the generator's buffer to the callback; a newline. */
void chakra__jn_flush(chakra_jsonet_writer *o);
void chakra__jn_put(chakra_jsonet_writer *o, const char *s, size_t len);
void chakra__jn_gen_i64(yajl_gen g, int64_t v);
int chakra__jn_kind_is_signed(int k);
/* Element i of a list attribute (list) or its scalar, read as its scalar
 * kind k says: d for DOUBLE/FLOAT, s/len for STRING/BYTES, i for the
 * signed integer kinds, u for BOOL and the unsigned ones. Both writers
 * (the jsonize form and protobuf's mapping) read values through it. */
typedef struct jn_val {
	double d;
	int64_t i;
	uint64_t u;
	const char *s;
	size_t len;
} jn_val;
void chakra__jn_attr_value(const chakra_attr *a, int list, size_t i, int k, jn_val *v);
/* jn_genpb.c: the metadata object and a node in protobuf's mapping: 0, -2
 * when a string is not UTF-8 (o->err says which), -1 on a write error. */
int chakra__jn_pb_begin(chakra_jsonet_writer *o, const chakra_metadata *m);
int chakra__jn_pb_node(chakra_jsonet_writer *o, const chakra_node *n);

#endif
