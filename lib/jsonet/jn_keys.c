/* SPDX-License-Identifier: Apache-2.0 */
/* JSON -> ET: map keys. Known keys resolve once to an id (a small hash
 * table built on first use, so each value is dispatched by integer
 * compares); free-form keys of one object are collected and checked for
 * duplicates when it ends. */
#include "jn_impl.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static const char *const key_names[] = {
	"",
	"Id",
	"Name",
	"NodeType",
	"attr",
	"ctrlDeps",
	"ctrl_deps",
	"data_deps",
	"doc_string",
	"duration_micros",
	"id",
	"inputs",
	"kind",
	"metadata",
	"name",
	"nodes",
	"outputs",
	"runtime",
	"shapes",
	"start_time_micros",
	"type",
	"types",
	"value",
	"values",
	"version",
	"workload_graph",
	"dataDeps",
	"startTimeMicros",
	"durationMicros",
	"docString",
};

/* Map keys are resolved once to an id (through a small hash table built on
 * first use), so each value is dispatched by integer compares. The table
 * also holds the 60 names of the oneof members ("int64Val", "int64_val",
 * "int64List", ...), all K_pbval with their kind. */
typedef struct key_ent {
	char name[24];
	unsigned char len, kid, kind;
} key_ent;
static key_ent key_tab[256];


static unsigned key_hash(const char *k, size_t len)
{
	unsigned h = 2166136261u;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)k[i]) * 16777619u;
	return h;
}

static void key_add(const char *name, int kid, int kind)
{
	size_t len = strlen(name);
	unsigned i = key_hash(name, len) & 255;
	while (key_tab[i].len)
		i = (i + 1) & 255;
	memcpy(key_tab[i].name, name, len);
	key_tab[i].len = (unsigned char)len;
	key_tab[i].kid = (unsigned char)kid;
	key_tab[i].kind = (unsigned char)kind;
}

static void key_build(void)
{
	for (int i = 1; i < K_pbval; i++)
		key_add(key_names[i], i, 0);
	for (int k = CHAKRA_ATTR_DOUBLE; k <= CHAKRA_ATTR_BYTES_LIST; k++) {
		const char *kn = chakra_attr_kind_name(k);
		char camel[24], snake[24];
		size_t n = strlen(kn);
		if (k % 2 == 0) { /* "int64_list": as is, and "int64List" */
			snprintf(snake, sizeof snake, "%s", kn);
			snprintf(camel, sizeof camel, "%.*sList", (int)(n - 5), kn);
		} else {
			snprintf(snake, sizeof snake, "%s_val", kn);
			snprintf(camel, sizeof camel, "%sVal", kn);
		}
		key_add(snake, K_pbval, k);
		key_add(camel, K_pbval, k);
	}
}

/* Built once for the process: conversions may run on several threads. */
void chakra__jn_key_init(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, key_build);
}

int chakra__jn_key_lookup(const char *k, size_t len, int *kind)
{
	if (len == 0 || len >= sizeof key_tab[0].name)
		return K_OTHER;
	for (unsigned i = key_hash(k, len) & 255; key_tab[i].len; i = (i + 1) & 255)
		if (key_tab[i].len == len && !memcmp(key_tab[i].name, k, len)) {
			*kind = key_tab[i].kind;
			return key_tab[i].kid;
		}
	return K_OTHER;
}

/* For duplicate detection in the protobuf form, the two spellings of a
 * field are one key. */
int chakra__jn_key_canon(int kid)
{
	switch (kid) {
	case K_dataDeps: return K_data_deps;
	case K_ctrlDeps: return K_ctrl_deps;
	case K_startTimeMicros: return K_start_time_micros;
	case K_durationMicros: return K_duration_micros;
	case K_docString: return K_doc_string;
	default: return kid;
	}
}

/* ---- free-form keys: duplicates found by sorting when the object ends ---- */

int chakra__jn_keyset_add(pack *P, keyset *k, const char *s, size_t len)
{
	size_t need = k->plen + sizeof(size_t) + len;
	if (!chakra__jn_room(P, &k->pool, &k->pcap, need, 1, 1024) ||
	    !chakra__jn_room(P, &k->off, &k->cap, k->n + 1, sizeof *k->off, 64))
		return 0;
	k->off[k->n++] = k->plen;
	memcpy(k->pool + k->plen, &len, sizeof len);
	memcpy(k->pool + k->plen + sizeof len, s, len);
	k->plen = need;
	return 1;
}

/* for the qsort comparator (one per thread: conversions may run on several) */
static _Thread_local const char *ks_pool;

static int ks_cmp(const void *a, const void *b)
{
	size_t la, lb;
	const char *pa = ks_pool + *(const size_t *)a, *pb = ks_pool + *(const size_t *)b;
	memcpy(&la, pa, sizeof la);
	memcpy(&lb, pb, sizeof lb);
	int c = memcmp(pa + sizeof la, pb + sizeof lb, la < lb ? la : lb);
	return c ? c : (la > lb) - (la < lb);
}

/* Fail on a key given twice, then empty the set. */
int chakra__jn_keyset_check(pack *P, keyset *k, const char *where)
{
	int ok = 1;
	if (k->n > 1) {
		ks_pool = k->pool;
		qsort(k->off, k->n, sizeof *k->off, ks_cmp);
		for (size_t i = 1; i < k->n && ok; i++)
			if (ks_cmp(&k->off[i - 1], &k->off[i]) == 0) {
				size_t len;
				memcpy(&len, k->pool + k->off[i], sizeof len);
				ok = chakra__jn_fail(P, "key \"%.*s\" appears twice in %s", (int)(len > 60 ? 60 : len),
				          k->pool + k->off[i] + sizeof len, where);
			}
	}
	k->n = k->plen = 0;
	return ok;
}

void chakra__jn_keyset_free(keyset *k)
{
	chakra_free(k->pool);
	chakra_free(k->off);
}

