/* SPDX-License-Identifier: Apache-2.0 */
/* Checks chakra-replay --log output against the traces, independently of
 * the replay code (only the public reader and YAJL):
 *   check_log PREFIX LOGPREFIX NRANKS ITERATIONS [GROUPS.json]
 * For every rank and iteration: every node was issued once and completed
 * once, after all its data parents completed; communication moved the
 * trace's comm_size bytes, collectives of the trace's type ran on the ranks
 * of their pg_name's group (or all ranks), messages went to the trace's
 * peer with its tag; compute lasted the trace's duration. Exit 0 when all
 * holds, 1 with one line per problem (the first 20) otherwise. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_tree.h>

#include "chakra/chakra.h"

typedef struct nd {
	uint64_t id;
	int type;
	size_t ndeps;
	uint64_t *deps;
	int64_t comm_type, peer, tag;
	uint64_t size, dur;
	char ranks[1024]; /* expected "ranks=" list for collectives */
	int state;        /* 0 not issued, 1 issued, 2 done (this iteration) */
} nd;

static int problems;

static void problem(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void problem(const char *fmt, ...)
{
	if (++problems > 20)
		return;
	va_list ap;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int cmp_nd(const void *a, const void *b)
{
	const nd *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

static nd *find(nd *v, size_t n, uint64_t id)
{
	nd key;
	key.id = id;
	return bsearch(&key, v, n, sizeof *v, cmp_nd);
}

static yajl_val groups;

static void expected_ranks(nd *x, const chakra_node *n, int nranks)
{
	const char *pg;
	size_t len;
	size_t o = 0;
	x->ranks[0] = 0;
	if (groups && chakra_node_pg_name(n, &pg, &len) == 0 && len) {
		for (size_t i = 0; i < groups->u.object.len; i++) {
			if (strlen(groups->u.object.keys[i]) != len ||
			    memcmp(groups->u.object.keys[i], pg, len))
				continue;
			yajl_val a = groups->u.object.values[i];
			for (size_t j = 0; j < a->u.array.len && o < sizeof x->ranks - 24; j++)
				o += (size_t)snprintf(x->ranks + o, sizeof x->ranks - o, "%s%lld", j ? "," : "",
				                      YAJL_GET_INTEGER(a->u.array.values[j]));
			return;
		}
		snprintf(x->ranks, sizeof x->ranks, "(pg_name not in the group file)");
		return;
	}
	for (int r = 0; r < nranks && o < sizeof x->ranks - 24; r++)
		o += (size_t)snprintf(x->ranks + o, sizeof x->ranks - o, "%s%d", r ? "," : "", r);
}

static nd *load(const char *path, int nranks, size_t *count)
{
	chakra_reader *r = NULL;
	if (chakra_reader_open(&r, path, NULL) < 0) {
		problem("%s: %s", path, r ? chakra_reader_errmsg(r) : "cannot open");
		chakra_reader_close(r);
		return NULL;
	}
	size_t n = 0, cap = 64;
	nd *v = malloc(cap * sizeof *v);
	const chakra_node *node;
	int rc;
	while (v && (rc = chakra_reader_next(r, &node)) > 0) {
		if (n == cap) {
			cap *= 2;
			nd *nv = realloc(v, cap * sizeof *v);
			if (!nv)
				break;
			v = nv;
		}
		nd *x = &v[n++];
		memset(x, 0, sizeof *x);
		x->id = chakra_node_id(node);
		x->type = chakra_node_type_of(node);
		x->ndeps = chakra_node_data_dep_count(node);
		x->deps = malloc((x->ndeps ? x->ndeps : 1) * sizeof *x->deps);
		if (x->deps && x->ndeps)
			memcpy(x->deps, chakra_node_data_deps(node), x->ndeps * sizeof *x->deps);
		x->comm_type = -1;
		chakra_node_comm_type(node, &x->comm_type);
		chakra_node_comm_size(node, &x->size);
		if (x->type == CHAKRA_COMM_SEND_NODE)
			chakra_node_comm_dst(node, &x->peer);
		else
			chakra_node_comm_src(node, &x->peer);
		chakra_node_comm_tag(node, &x->tag);
		if (chakra_node_get_uint(node, "duration_nanos", &x->dur) < 0)
			x->dur = chakra_node_duration_micros(node) * 1000;
		if (x->type == CHAKRA_COMM_COLL_NODE)
			expected_ranks(x, node, nranks);
	}
	chakra_reader_close(r);
	if (v)
		qsort(v, n, sizeof *v, cmp_nd);
	*count = n;
	return v;
}

static void check_issue(const char *where, nd *x, nd *v, size_t n, const char *rest)
{
	char type[64] = "", extra[1100] = "";
	unsigned long long bytes = 0;
	if (sscanf(rest, "%63s %llu %1099s", type, &bytes, extra) < 2) {
		problem("%s: cannot read '%s'", where, rest);
		return;
	}
	for (size_t d = 0; d < x->ndeps; d++) {
		nd *p = find(v, n, x->deps[d]);
		if (p && p->state != 2)
			problem("%s: node %" PRIu64 " issued before its parent %" PRIu64 " completed", where,
			        x->id, p->id);
	}
	switch (x->type) {
	case CHAKRA_COMP_NODE:
		if (strcmp(type, "COMP") || bytes != x->dur)
			problem("%s: node %" PRIu64 " logged as %s %llu, the trace has COMP of %" PRIu64
			        " ns", where, x->id, type, bytes, x->dur);
		break;
	case CHAKRA_COMM_COLL_NODE: {
		const char *want = chakra_comm_type_name((int)x->comm_type);
		uint64_t size = x->comm_type == CHAKRA_BARRIER ? 0 : x->size;
		if (!want || strcmp(type, want) || bytes != size)
			problem("%s: node %" PRIu64 " logged as %s of %llu bytes, the trace has %s of %"
			        PRIu64, where, x->id, type, bytes, want ? want : "?", size);
		if (strncmp(extra, "ranks=", 6) || strcmp(extra + 6, x->ranks))
			problem("%s: node %" PRIu64 " ran on %s, the trace's group is %s", where, x->id,
			        extra, x->ranks);
		break;
	}
	case CHAKRA_COMM_SEND_NODE:
	case CHAKRA_COMM_RECV_NODE: {
		int is_send = x->type == CHAKRA_COMM_SEND_NODE;
		char want[128];
		snprintf(want, sizeof want, "peer=%" PRId64, x->peer);
		const char *tagp = strstr(rest, "tag=");
		long long tag = tagp ? atoll(tagp + 4) : -1;
		if (strcmp(type, is_send ? "SEND" : "RECV") || bytes != x->size || strcmp(extra, want) ||
		    tag != x->tag)
			problem("%s: node %" PRIu64 " logged as '%s', the trace has %s of %" PRIu64
			        " bytes, %s, tag %" PRId64, where, x->id, rest, is_send ? "SEND" : "RECV",
			        x->size, want, x->tag);
		break;
	}
	default:
		if (strcmp(type, "OTHER"))
			problem("%s: node %" PRIu64 " logged as %s", where, x->id, type);
	}
}

static void check_rank(const char *prefix, const char *logprefix, int rank, int nranks,
                       unsigned iters)
{
	char path[4096];
	snprintf(path, sizeof path, "%s.%d.et", prefix, rank);
	size_t n = 0;
	nd *v = load(path, nranks, &n);
	if (!v)
		return;
	snprintf(path, sizeof path, "%s.%d.log", logprefix, rank);
	FILE *f = fopen(path, "r");
	if (!f) {
		problem("%s: cannot open", path);
		goto out;
	}
	char line[2048];
	unsigned long lineno = 0;
	int iter = -1;
	while (fgets(line, sizeof line, f)) {
		lineno++;
		line[strcspn(line, "\n")] = 0;
		if (line[0] == '#')
			continue;
		char where[4200];
		snprintf(where, sizeof where, "%s:%lu", path, lineno);
		char kind;
		int it, off = 0;
		unsigned long long id;
		if (sscanf(line, "%c %d %llu %n", &kind, &it, &id, &off) < 3 || (kind != 'I' && kind != 'D')) {
			problem("%s: cannot read '%s'", where, line);
			continue;
		}
		if (it != iter) {
			/* A new iteration: the previous one must be complete. */
			if (it != iter + 1)
				problem("%s: iteration %d after %d", where, it, iter);
			for (size_t i = 0; iter >= 0 && i < n; i++)
				if (v[i].state != 2)
					problem("%s: iteration %d ended without node %" PRIu64 " completed", where,
					        iter, v[i].id);
			for (size_t i = 0; i < n; i++)
				v[i].state = 0;
			iter = it;
		}
		nd *x = find(v, n, id);
		if (!x) {
			problem("%s: node %llu is not in the trace", where, id);
			continue;
		}
		if (kind == 'I') {
			if (x->state != 0)
				problem("%s: node %llu issued twice", where, id);
			x->state = 1;
			check_issue(where, x, v, n, line + off);
		} else {
			if (x->state != 1)
				problem("%s: node %llu completed %s", where, id,
				        x->state ? "twice" : "without being issued");
			x->state = 2;
		}
	}
	fclose(f);
	for (size_t i = 0; i < n; i++)
		if (v[i].state != 2)
			problem("%s: iteration %d ended without node %" PRIu64 " completed", path, iter,
			        v[i].id);
	if (iter + 1 != (int)iters)
		problem("%s: %d iterations logged, expected %u", path, iter + 1, iters);
out:
	for (size_t i = 0; i < n; i++)
		free(v[i].deps);
	free(v);
}

int main(int argc, char **argv)
{
	if (argc != 5 && argc != 6) {
		fprintf(stderr, "usage: check_log PREFIX LOGPREFIX NRANKS ITERATIONS [GROUPS.json]\n");
		return 2;
	}
	if (argc == 6) {
		FILE *f = fopen(argv[5], "r");
		static char text[1 << 20];
		size_t len = f ? fread(text, 1, sizeof text - 1, f) : 0;
		if (f)
			fclose(f);
		text[len] = 0;
		groups = yajl_tree_parse(text, NULL, 0);
		if (!groups || !YAJL_IS_OBJECT(groups)) {
			fprintf(stderr, "%s: not a group file\n", argv[5]);
			return 2;
		}
	}
	int nranks = atoi(argv[3]);
	unsigned iters = (unsigned)atoi(argv[4]);
	for (int r = 0; r < nranks; r++)
		check_rank(argv[1], argv[2], r, nranks, iters);
	if (groups)
		yajl_tree_free(groups);
	if (problems)
		fprintf(stderr, "check_log: %d problem(s)\n", problems);
	return problems ? 1 : 0;
}
