/* SPDX-License-Identifier: Apache-2.0 */
/* `chakra convert text` on every ASTRA-sim text workload at 4, 16 and 64
 * NPUs: each rank opens with the reader, ids run 0..n-1, every data dep
 * names a node of the file, compute carries duration_nanos (and micros =
 * nanos / 1000), `chakra validate --strict --deep` passes, every collective has pg_name naming a group of the written
 * group file that holds the rank, and each rank feeds to the end. Node
 * counts are pinned. Run with GEN_PRINT=1 to print the counts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chakra/chakra.h"
#include "check.h"

typedef struct pin {
	const char *file;
	unsigned npus;
	unsigned long nodes, colls;
} pin;

/* Pinned per-rank node and collective counts (every rank has the same). */
static const pin pins[] = {
#include "convert_text_pins.h"
};

/* Groups file: "id": [ranks] per line, as the converter writes it. */
static int group_has(const char *json, const char *pg, unsigned rank, unsigned *size)
{
	char key[32];
	snprintf(key, sizeof key, "\"%s\": [", pg);
	const char *p = strstr(json, key);
	if (!p)
		return 0;
	p += strlen(key);
	int found = 0;
	*size = 0;
	while (*p && *p != ']') {
		char *end;
		unsigned long r = strtoul(p, &end, 10);
		if (end == p)
			return 0;
		if (r == rank)
			found = 1;
		(*size)++;
		p = end;
		while (*p == ',' || *p == ' ')
			p++;
	}
	return found;
}

static int feed_all(const char *path, uint64_t expect)
{
	chakra_feeder *f = NULL;
	if (chakra_feeder_open(&f, path, NULL) < 0) {
		fprintf(stderr, "%s: feeder open: %s\n", path, f ? chakra_feeder_errmsg(f) : "?");
		chakra_feeder_close(f);
		return -1;
	}
	uint64_t issued = 0;
	const chakra_node *n;
	int rc;
	for (;;) {
		rc = chakra_feeder_next(f, &n);
		if (rc <= 0)
			break;
		issued++;
		if (chakra_feeder_complete(f, chakra_node_id(n)) < 0) {
			rc = -1;
			break;
		}
	}
	if (rc < 0 || chakra_feeder_has_more(f) || issued != expect) {
		fprintf(stderr, "%s: fed %llu of %llu: %s\n", path, (unsigned long long)issued,
		        (unsigned long long)expect, chakra_feeder_errmsg(f));
		chakra_feeder_close(f);
		return -1;
	}
	chakra_feeder_close(f);
	return 0;
}

static void check_rank(const char *path, unsigned rank, const char *groups, unsigned long *nodes,
                       unsigned long *colls)
{
	chakra_reader *r = NULL;
	*nodes = *colls = 0;
	if (chakra_reader_open(&r, path, NULL) < 0) {
		CHECK_MSG(0, "%s: %s", path, r ? chakra_reader_errmsg(r) : "open failed");
		chakra_reader_close(r);
		return;
	}
	const chakra_node *n;
	int rc;
	uint64_t next_id = 0;
	while ((rc = chakra_reader_next(r, &n)) > 0) {
		uint64_t id = chakra_node_id(n);
		CHECK_MSG(id == next_id, "%s: node %llu where %llu was expected", path,
		          (unsigned long long)id, (unsigned long long)next_id);
		next_id++;
		const uint64_t *d = chakra_node_data_deps(n);
		for (size_t i = 0; i < chakra_node_data_dep_count(n); i++)
			/* Parents come first in file order, so no dangling or cyclic dep. */
			CHECK_MSG(d[i] < id, "%s: node %llu depends on %llu", path,
			          (unsigned long long)id, (unsigned long long)d[i]);
		int cpu = -1;
		CHECK(chakra_node_is_cpu_op(n, &cpu) == 0 && cpu == 0);
		int type = chakra_node_type_of(n);
		if (type == CHAKRA_COMP_NODE) {
			uint64_t ns = 0;
			CHECK(chakra_node_get_uint(n, "duration_nanos", &ns) == 0);
			CHECK(chakra_node_duration_micros(n) == ns / 1000);
		} else {
			CHECK_MSG(type == CHAKRA_COMM_COLL_NODE, "%s: node type %d", path, type);
			(*colls)++;
			const char *pg;
			size_t len;
			uint64_t size = 0;
			int64_t ct = -1;
			CHECK(chakra_node_comm_size(n, &size) == 0 && size > 0);
			CHECK(chakra_node_comm_type(n, &ct) == 0 && ct >= 0 && ct <= 9);
			unsigned gsize = 0;
			CHECK(chakra_node_pg_name(n, &pg, &len) == 0);
			CHECK_MSG(group_has(groups, pg, rank, &gsize) && gsize >= 2,
			          "%s: node %llu: group %s does not hold rank %u", path,
			          (unsigned long long)id, pg, rank);
			int dims[16];
			CHECK(chakra_node_involved_dim(n, dims, 16) == 2);
		}
	}
	CHECK_MSG(rc == 0, "%s: %s", path, chakra_reader_errmsg(r));
	*nodes = (unsigned long)next_id;
	chakra_reader_close(r);
	CHECK_MSG(feed_all(path, next_id) == 0, "%s does not feed to the end", path);
}

int main(void)
{
	need_data("data/astra-sim/text_workloads");
	const char *exe = getenv("CHAKRA_EXE");
	if (!exe) {
		fprintf(stderr, "CHAKRA_EXE not set\n");
		return 1;
	}
	char dir[] = "/tmp/chakra-gen-XXXXXX";
	if (!mkdtemp(dir))
		return 1;
	int print = getenv("GEN_PRINT") != NULL;
	char cmd[8192], path[4096];
	size_t ok = 0;
	for (size_t k = 0; k < sizeof pins / sizeof *pins; k++) {
		const pin *p = &pins[k];
		snprintf(cmd, sizeof cmd, "'%s' convert text '%s/%s.txt' --npus %u -o '%s/w' -f 2>/dev/null",
		         exe, shared_path("data/astra-sim/text_workloads"), p->file, p->npus, dir);
		int st = system(cmd);
		CHECK_MSG(st == 0, "%s", cmd);
		if (st)
			continue;
		snprintf(path, sizeof path, "%s/w.comm_groups.json", dir);
		size_t glen = 0;
		unsigned char *g = slurp(path, &glen);
		CHECK(g != NULL);
		if (!g)
			continue;
		char *groups = malloc(glen + 1);
		memcpy(groups, g, glen);
		groups[glen] = 0;
		free(g);
		/* The validator agrees: no duplicate, missing or cyclic deps. */
		snprintf(cmd, sizeof cmd, "'%s' validate --strict --deep '%s'/w.*.et >/dev/null", exe,
		         dir);
		CHECK_MSG(system(cmd) == 0, "%s at %u NPUs does not validate", p->file, p->npus);
		unsigned long n0 = 0, c0 = 0;
		for (unsigned r = 0; r < p->npus; r++) {
			unsigned long n, c;
			snprintf(path, sizeof path, "%s/w.%u.et", dir, r);
			check_rank(path, r, groups, &n, &c);
			if (r == 0) {
				n0 = n;
				c0 = c;
			}
			CHECK_MSG(n == n0 && c == c0, "%s rank %u: %lu nodes, rank 0 %lu", p->file, r, n,
			          n0);
			unlink(path);
		}
		free(groups);
		snprintf(path, sizeof path, "%s/w.comm_groups.json", dir);
		unlink(path);
		if (print)
			printf("{ \"%s\", %u, %lu, %lu },\n", p->file, p->npus, n0, c0);
		else
			CHECK_MSG(n0 == p->nodes && c0 == p->colls, "%s at %u NPUs: %lu nodes %lu colls, "
			          "pinned %lu %lu", p->file, p->npus, n0, c0, p->nodes, p->colls);
		ok++;
	}
	rmdir(dir);
	CHECK_EQ_U(ok, 30);
	return check_done();
}
