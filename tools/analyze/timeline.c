/* chakra timeline: a simulator's event log (Chakra's timeline-visualizer
 * format) to Chrome / Perfetto trace-event JSON.
 *
 *   issue,npu_id=N,cycle=C,node_id=I,node_name=S      node I starts on NPU N
 *   callback,npu_id=N,cycle=C,node_id=I,node_name=S   node I ends
 *
 * and ASTRA-sim's own debug lines, with or without its logger's prefix:
 *
 *   [2024-05-01T10:00:00+0000] [D] <workload>: issue,sys->id=0, tick=12,
 *       node->id=3, node->name=gemm, node->type=4
 *
 * node_name is the rest of the line (names may hold commas; ASTRA-sim's
 * trailing ", node->type=T" is not part of it). In a log with the prefix,
 * lines that are not issue/callback events are skipped (counted). The
 * whole log is checked before anything is written: a bad line, an NPU out
 * of range, a callback with no open issue or one before its issue stops
 * with FILE:LINE. Each NPU is one process; overlapping nodes of an NPU go
 * to separate threads ("lanes", lowest free lane first, O(log n) per node
 * with two heaps) so that no two complete events on one thread overlap,
 * which trace viewers require. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../common.h"
#include "graph.h"
#include "jsonout.h"

#define CLOSED (AG_NONE - 1)

typedef struct issue {
	uint64_t cycle, line, node_id;
	size_t name_off, name_len;
	uint32_t npu;
	int open;
} issue;

typedef struct event {
	uint64_t start, end, node_id, line;
	size_t name_off, name_len;
	uint32_t npu, lane;
} event;

typedef struct tl {
	const char *file;
	uint64_t npus;
	uint64_t skipped, first_skipped; /* prefixed lines that are not events */
	tool_idmap *open; /* per NPU: node_id -> issue index, or CLOSED */
	issue *iss;
	size_t n_iss, iss_cap;
	event *ev;
	size_t n_ev, ev_cap;
	char *pool;
	size_t pool_len, pool_cap;
} tl;

static int push(void **arr, size_t *n, size_t *cap, size_t elem)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 1024;
		void *na = realloc(*arr, nc * elem);
		if (!na)
			return -1;
		*arr = na;
		*cap = nc;
	}
	(*n)++;
	return 0;
}

static long long pool_add(tl *t, const char *s, size_t len)
{
	if (t->pool_len + len + 1 > t->pool_cap) {
		size_t nc = t->pool_cap ? t->pool_cap : 4096;
		while (nc < t->pool_len + len + 1)
			nc *= 2;
		char *np = realloc(t->pool, nc);
		if (!np)
			return -1;
		t->pool = np;
		t->pool_cap = nc;
	}
	memcpy(t->pool + t->pool_len, s, len);
	t->pool[t->pool_len + len] = 0;
	size_t off = t->pool_len;
	t->pool_len += len + 1;
	return (long long)off;
}

/* Strict decimal: digits only, no sign, no overflow. */
static int parse_dec(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;
	if (!len)
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		unsigned d = (unsigned)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

#define LINE_ERR(...) (fprintf(stderr, "chakra: %s:%llu: ", t->file, (unsigned long long)lineno), \
                       fprintf(stderr, __VA_ARGS__), fputc('\n', stderr), -1)

/* Where the event starts in a line with a logger prefix ("[time] [level]
 * <name>: issue,..."): "issue," or "callback," after a space, ':', ']' or
 * '>'; NULL when the line holds no event. */
static const char *after_prefix(const char *s, size_t len)
{
	for (size_t i = 1; i < len; i++) {
		char c = s[i - 1];
		if (c != ' ' && c != ':' && c != ']' && c != '>' && c != '\t')
			continue;
		if ((len - i >= 6 && !memcmp(s + i, "issue,", 6)) ||
		    (len - i >= 9 && !memcmp(s + i, "callback,", 9)))
			return s + i;
	}
	return NULL;
}

/* Field names: ours, Chakra's timeline tool's (curr_cycle) and ASTRA-sim's. */
static int field_of(const char *f, size_t n)
{
#define IS(lit) (n == sizeof lit - 1 && !memcmp(f, lit, n))
	if (IS("npu_id") || IS("sys->id"))
		return 0;
	if (IS("cycle") || IS("tick") || IS("curr_cycle"))
		return 1;
	if (IS("node_id") || IS("node->id"))
		return 2;
	if (IS("node_name") || IS("node->name"))
		return 3;
	if (IS("node_type") || IS("node->type"))
		return 4;
#undef IS
	return -1;
}

static int parse_line(tl *t, char *s, size_t len, uint64_t lineno)
{
	while (len && (s[len - 1] == '\n' || s[len - 1] == '\r'))
		s[--len] = 0;
	size_t k = 0;
	while (k < len && isspace((unsigned char)s[k]))
		k++;
	if (k == len)
		return 0; /* blank line */
	if (s[k] == '[') {
		/* ASTRA-sim's logger prefix: the event follows it, or the line
		 * is another message */
		const char *ev = after_prefix(s + k, len - k);
		if (!ev) {
			if (!t->skipped++)
				t->first_skipped = lineno;
			return 0;
		}
		len -= (size_t)(ev - s);
		s = (char *)ev;
	}
	const char *comma = memchr(s, ',', len);
	size_t kl = comma ? (size_t)(comma - s) : len;
	int is_issue;
	if (kl == 5 && !memcmp(s, "issue", 5))
		is_issue = 1;
	else if (kl == 8 && !memcmp(s, "callback", 8))
		is_issue = 0;
	else
		return LINE_ERR("expected a line starting with 'issue,' or 'callback,', got '%.40s'", s);
	uint64_t npu = 0, cycle = 0, node = 0, ntype = 0;
	const char *name = NULL;
	size_t name_len = 0;
	int have[5] = { 0, 0, 0, 0, 0 };
	size_t p = kl;
	while (p < len) {
		p++; /* the comma */
		while (p < len && s[p] == ' ')
			p++; /* ASTRA-sim writes ", tick=" */
		const char *f = s + p;
		const char *eq = memchr(f, '=', len - p);
		if (!eq)
			return LINE_ERR("field '%.40s' is not key=value", f);
		size_t fkl = (size_t)(eq - f);
		int which = field_of(f, fkl);
		if (which == 3) {
			/* The name is the rest of the line, but for ASTRA-sim's
			 * trailing ", node->type=T". */
			name = eq + 1;
			name_len = len - (size_t)(name - s);
			for (size_t q = name_len; q-- > 0;) {
				static const char tail[] = ", node->type=";
				if (name[q] != ',' || name_len - q < sizeof tail - 1 ||
				    memcmp(name + q, tail, sizeof tail - 1))
					continue;
				const char *tv = name + q + sizeof tail - 1;
				if (parse_dec(tv, name_len - q - (sizeof tail - 1), &ntype) == 0) {
					have[4] = 1;
					name_len = q;
				}
				break;
			}
			p = len;
			break;
		}
		const char *vend = memchr(eq + 1, ',', len - (size_t)(eq + 1 - s));
		size_t vl = vend ? (size_t)(vend - (eq + 1)) : len - (size_t)(eq + 1 - s);
		if (which < 0)
			return LINE_ERR("unknown field '%.*s' (expected npu_id, cycle, node_id, node_name, or "
			                "ASTRA-sim's sys->id, tick, node->id, node->name)",
			                (int)(fkl > 40 ? 40 : fkl), f);
		if (have[which])
			return LINE_ERR("field '%.*s' given twice", (int)fkl, f);
		uint64_t *dst = which == 0 ? &npu : which == 1 ? &cycle : which == 2 ? &node : &ntype;
		if (parse_dec(eq + 1, vl, dst) < 0)
			return LINE_ERR("%.*s: expected a non-negative integer, got '%.*s'", (int)fkl, f,
			                (int)(vl > 40 ? 40 : vl), eq + 1);
		have[which] = 1;
		p = (size_t)(eq + 1 - s) + vl;
	}
	if (!have[0] || !have[1] || !have[2] || !name)
		return LINE_ERR("missing field(s):%s%s%s%s (format: %s,npu_id=N,cycle=C,node_id=I,"
		                "node_name=S)",
		                have[0] ? "" : " npu_id", have[1] ? "" : " cycle",
		                have[2] ? "" : " node_id", name ? "" : " node_name",
		                is_issue ? "issue" : "callback");
	if (npu >= t->npus)
		return LINE_ERR("npu_id %llu is out of range: --npus is %llu", (unsigned long long)npu,
		                (unsigned long long)t->npus);
	tool_idmap *m = &t->open[npu];
	uint32_t slot = tool_idmap_get(m, node);
	if (is_issue) {
		if (slot != AG_NONE && slot != CLOSED)
			return LINE_ERR("node %llu issued again on npu %llu before its callback (issued "
			                "on line %llu)",
			                (unsigned long long)node, (unsigned long long)npu,
			                (unsigned long long)t->iss[slot].line);
		if (t->n_iss >= CLOSED)
			return LINE_ERR("too many issues");
		long long off = pool_add(t, name, name_len);
		if (off < 0 || push((void **)&t->iss, &t->n_iss, &t->iss_cap, sizeof *t->iss) < 0 ||
		    tool_idmap_set(m, node, (uint32_t)(t->n_iss - 1)) < 0)
			return LINE_ERR("out of memory");
		t->iss[t->n_iss - 1] = (issue){ cycle, lineno, node, (size_t)off, name_len,
		                                (uint32_t)npu, 1 };
		return 0;
	}
	if (slot == AG_NONE || slot == CLOSED)
		return LINE_ERR("callback of node %llu on npu %llu without an open issue",
		                (unsigned long long)node, (unsigned long long)npu);
	issue *is = &t->iss[slot];
	if (cycle < is->cycle)
		return LINE_ERR("callback of node %llu on npu %llu at cycle %llu is before its issue at "
		                "cycle %llu (line %llu)",
		                (unsigned long long)node, (unsigned long long)npu,
		                (unsigned long long)cycle, (unsigned long long)is->cycle,
		                (unsigned long long)is->line);
	if (push((void **)&t->ev, &t->n_ev, &t->ev_cap, sizeof *t->ev) < 0 ||
	    tool_idmap_set(m, node, CLOSED) < 0)
		return LINE_ERR("out of memory");
	is->open = 0;
	t->ev[t->n_ev - 1] = (event){ is->cycle, cycle, node, is->line, is->name_off, is->name_len,
	                              (uint32_t)npu, 0 };
	return 0;
}

static int ev_cmp(const void *a, const void *b)
{
	const event *x = a, *y = b;
	if (x->npu != y->npu)
		return x->npu < y->npu ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1; /* longer first */
	return x->line < y->line ? -1 : x->line > y->line;
}

/* Binary min-heap of (key, lane) pairs. */
typedef struct lheap {
	uint64_t *key;
	uint32_t *lane;
	size_t n, cap;
} lheap;

static int lh_push(lheap *h, uint64_t key, uint32_t lane)
{
	if (h->n == h->cap) {
		size_t cap = h->cap ? h->cap * 2 : 16;
		uint64_t *k = realloc(h->key, cap * sizeof *k);
		if (!k)
			return -1;
		h->key = k;
		uint32_t *l = realloc(h->lane, cap * sizeof *l);
		if (!l)
			return -1;
		h->lane = l;
		h->cap = cap;
	}
	size_t i = h->n++;
	while (i && h->key[(i - 1) / 2] > key) {
		h->key[i] = h->key[(i - 1) / 2];
		h->lane[i] = h->lane[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->key[i] = key;
	h->lane[i] = lane;
	return 0;
}

static uint32_t lh_pop(lheap *h)
{
	uint32_t top = h->lane[0];
	uint64_t key = h->key[--h->n];
	uint32_t lane = h->lane[h->n];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && h->key[c + 1] < h->key[c])
			c++;
		if (h->key[c] >= key)
			break;
		h->key[i] = h->key[c];
		h->lane[i] = h->lane[c];
		i = c;
	}
	h->key[i] = key;
	h->lane[i] = lane;
	return top;
}

/* Each event (sorted by NPU, then start) takes the lowest lane whose last
 * event has ended: lanes in use wait in a heap by end time, lanes free
 * again in a heap by number. Starts only grow, so a lane freed for one
 * event stays free for the next: O(n log n) in all. */
static int assign_lanes(tl *t, uint32_t *max_lanes)
{
	lheap busy = { 0 }, idle = { 0 };
	uint32_t nl = 0;
	int rc = 0;
	*max_lanes = 0;
	for (size_t i = 0; i < t->n_ev && rc == 0; i++) {
		event *e = &t->ev[i];
		if (i == 0 || e->npu != t->ev[i - 1].npu)
			busy.n = idle.n = nl = 0;
		while (busy.n && busy.key[0] <= e->start) {
			uint32_t l = lh_pop(&busy);
			if (lh_push(&idle, l, l) < 0)
				rc = -1;
		}
		uint32_t l = idle.n ? lh_pop(&idle) : nl++;
		if (lh_push(&busy, e->end, l) < 0)
			rc = -1;
		e->lane = l;
		if (l + 1 > *max_lanes)
			*max_lanes = l + 1;
	}
	free(busy.key);
	free(busy.lane);
	free(idle.key);
	free(idle.lane);
	return rc;
}

static void meta_event(yajl_gen g, const char *what, uint64_t pid, uint64_t tid, int has_tid,
                       const char *name_key, const char *name, int64_t sort)
{
	yajl_gen_map_open(g);
	jo_kv_str(g, "name", what);
	jo_kv_str(g, "ph", "M");
	jo_kv_u64(g, "ts", 0);
	jo_kv_u64(g, "pid", pid);
	jo_kv_u64(g, "tid", has_tid ? tid : 0);
	jo_str(g, "args");
	yajl_gen_map_open(g);
	if (name) {
		jo_kv_str(g, name_key, name);
	} else {
		jo_str(g, name_key);
		yajl_gen_integer(g, sort);
	}
	yajl_gen_map_close(g);
	yajl_gen_map_close(g);
}

static void write_json(tl *t, FILE *f, double per_us, double ghz, const uint32_t *lanes)
{
	yajl_gen g = jo_open(f, 0);
	yajl_gen_map_open(g);
	jo_kv_str(g, "displayTimeUnit", "ns");
	jo_str(g, "otherData");
	yajl_gen_map_open(g);
	jo_kv_str(g, "source", t->file);
	jo_str(g, "frequency_ghz");
	jo_fixed(g, ghz);
	yajl_gen_map_close(g);
	jo_str(g, "traceEvents");
	yajl_gen_array_open(g);
	char buf[64];
	for (uint64_t npu = 0; npu < t->npus; npu++) {
		snprintf(buf, sizeof buf, "NPU %llu", (unsigned long long)npu);
		meta_event(g, "process_name", npu, 0, 0, "name", buf, 0);
		meta_event(g, "process_sort_index", npu, 0, 0, "sort_index", NULL, (int64_t)npu);
		for (uint32_t l = 0; l < lanes[npu]; l++) {
			snprintf(buf, sizeof buf, "lane %u", l);
			meta_event(g, "thread_name", npu, l, 1, "name", buf, 0);
		}
	}
	for (size_t i = 0; i < t->n_ev; i++) {
		const event *e = &t->ev[i];
		yajl_gen_map_open(g);
		jo_str(g, "name");
		jo_strn(g, t->pool + e->name_off, e->name_len);
		jo_kv_str(g, "cat", "node");
		jo_kv_str(g, "ph", "X");
		jo_str(g, "ts");
		jo_fixed(g, (double)e->start / per_us);
		jo_str(g, "dur");
		jo_fixed(g, (double)(e->end - e->start) / per_us);
		jo_kv_u64(g, "pid", e->npu);
		jo_kv_u64(g, "tid", e->lane);
		jo_str(g, "args");
		yajl_gen_map_open(g);
		jo_kv_u64(g, "node_id", e->node_id);
		jo_kv_u64(g, "issue_cycle", e->start);
		jo_kv_u64(g, "callback_cycle", e->end);
		yajl_gen_map_close(g);
		yajl_gen_map_close(g);
	}
	/* Issues that never completed: instant events, so they stay visible. */
	for (size_t i = 0; i < t->n_iss; i++) {
		const issue *is = &t->iss[i];
		if (!is->open)
			continue;
		yajl_gen_map_open(g);
		jo_str(g, "name");
		jo_strn(g, t->pool + is->name_off, is->name_len);
		jo_kv_str(g, "cat", "unfinished");
		jo_kv_str(g, "ph", "i");
		jo_kv_str(g, "s", "p");
		jo_str(g, "ts");
		jo_fixed(g, (double)is->cycle / per_us);
		jo_kv_u64(g, "pid", is->npu);
		jo_kv_u64(g, "tid", 0);
		jo_str(g, "args");
		yajl_gen_map_open(g);
		jo_kv_u64(g, "node_id", is->node_id);
		jo_kv_u64(g, "issue_cycle", is->cycle);
		jo_str(g, "unfinished");
		yajl_gen_bool(g, 1);
		yajl_gen_map_close(g);
		yajl_gen_map_close(g);
	}
	yajl_gen_array_close(g);
	yajl_gen_map_close(g);
	yajl_gen_free(g);
	fputc('\n', f);
}

/* "1.5", "1.5GHz", "1500MHz", "1e9Hz": GHz (bare numbers are GHz). */
static int parse_freq(const char *s, double *ghz)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || !(v > 0) || v > 1e12)
		return -1;
	double scale = 1;
	if (!*end || !strcasecmp(end, "ghz"))
		scale = 1;
	else if (!strcasecmp(end, "mhz"))
		scale = 1e-3;
	else if (!strcasecmp(end, "khz"))
		scale = 1e-6;
	else if (!strcasecmp(end, "hz"))
		scale = 1e-9;
	else
		return -1;
	*ghz = v * scale;
	return *ghz > 0 ? 0 : -1;
}

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: chakra timeline EVENTS.csv --npus N --frequency F -o OUT.json [-f]\n\n"
	        "Chrome / Perfetto trace-event JSON from a simulator event log, one line per\n"
	        "event ('-' = stdin):\n"
	        "  issue,npu_id=N,cycle=C,node_id=I,node_name=S      (node starts)\n"
	        "  callback,npu_id=N,cycle=C,node_id=I,node_name=S   (node ends)\n"
	        "or ASTRA-sim's own log lines, with or without its logger's prefix:\n"
	        "  [time] [D] <workload>: issue,sys->id=N, tick=C, node->id=I, node->name=S, node->type=T\n"
	        "(in a prefixed log, other lines are skipped).\n"
	        "Each NPU becomes a process, each node a complete (\"X\") event with its node_id;\n"
	        "nodes that overlap on one NPU go to separate lanes (threads). Timestamps are\n"
	        "microseconds: ts = cycle / (F * 1000) for F in GHz.\n\n"
	        "  --npus N          NPUs in the log (npu_id must be below N)\n"
	        "  --frequency F     clock in GHz (cycles per ns); a unit may follow: 1.5GHz,\n"
	        "                    1500MHz, 1e9Hz\n"
	        "  -o, --output OUT  output JSON ('-' = stdout)\n"
	        "  -f, --force       replace OUT if it exists\n");
}

int cmd_timeline(int argc, char **argv)
{
	const char *input = NULL, *out = NULL;
	uint64_t npus = 0;
	double ghz = 0;
	int have_npus = 0, have_freq = 0, force = 0;
	for (int i = 1; i < argc; i++) {
		const char *v;
		int missing = 0;
		if (tool_is_help(argv[i])) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "-f") || !strcmp(argv[i], "--force")) {
			force = 1;
		} else if ((v = tool_opt(argc, argv, &i, "-o", &missing)) || missing ||
		           (v = tool_opt(argc, argv, &i, "--output", &missing)) || missing) {
			if (missing)
				return tool_usage(argv[0], "%s needs a value", argv[i]);
			out = v;
		} else if ((v = tool_opt(argc, argv, &i, "--npus", &missing)) || missing) {
			if (missing)
				return tool_usage(argv[0], "--npus needs a value");
			if (tool_parse_u64("--npus", v, &npus) < 0)
				return 2;
			if (npus == 0 || npus > (1u << 24))
				return tool_usage(argv[0], "--npus must be between 1 and %u", 1u << 24);
			have_npus = 1;
		} else if ((v = tool_opt(argc, argv, &i, "--frequency", &missing)) || missing) {
			if (missing)
				return tool_usage(argv[0], "--frequency needs a value");
			if (parse_freq(v, &ghz) < 0)
				return tool_usage(argv[0], "--frequency: expected a positive number of GHz "
				                           "(or with a unit: 1500MHz), got '%s'", v);
			have_freq = 1;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return tool_usage(argv[0], "unknown option '%s'", argv[i]);
		} else if (input) {
			return tool_usage(argv[0], "one EVENTS file expected");
		} else {
			input = argv[i];
		}
	}
	if (!input)
		return tool_usage(argv[0], "missing EVENTS.csv");
	if (!have_npus)
		return tool_usage(argv[0], "missing --npus N");
	if (!have_freq)
		return tool_usage(argv[0], "missing --frequency F (GHz)");
	if (!out)
		return tool_usage(argv[0], "missing -o OUT.json");
	const char *inputs[] = { input };
	FILE *in = strcmp(input, "-") ? fopen(input, "r") : stdin;
	if (!in)
		return tool_err("%s: cannot open: %s", input, strerror(errno));
	if (tool_out_check(out, force, inputs, 1) < 0) {
		if (in != stdin)
			fclose(in);
		return 1;
	}
	tl t;
	memset(&t, 0, sizeof t);
	t.file = strcmp(input, "-") ? input : "<stdin>";
	t.npus = npus;
	int rc = 1;
	uint32_t *lanes = NULL;
	char *line = NULL;
	size_t cap = 0;
	t.open = calloc(npus, sizeof *t.open);
	if (!t.open) {
		tool_err("out of memory");
		goto out;
	}
	for (uint64_t k = 0; k < npus; k++)
		if (tool_idmap_init(&t.open[k], 8) < 0) {
			tool_err("out of memory");
			goto out;
		}
	ssize_t n;
	uint64_t lineno = 0;
	tool_progress prog;
	tool_progress_start(&prog, "reading events", 0);
	/* a failed allocation inside getline ends the loop like the end of
	 * the file: errno tells them apart */
	errno = 0;
	while ((n = getline(&line, &cap, in)) > 0) {
		lineno++;
		if ((size_t)n != strlen(line)) {
			tool_err("%s:%llu: NUL byte in the line", t.file, (unsigned long long)lineno);
			goto out;
		}
		if (parse_line(&t, line, (size_t)n, lineno) < 0)
			goto out;
		if ((lineno & 4095) == 0)
			tool_progress_update(&prog, lineno);
		errno = 0;
	}
	tool_progress_end(&prog);
	if (ferror(in) || errno == ENOMEM) {
		tool_err("%s: %s after line %llu: %s", t.file, errno == ENOMEM ? "out of memory"
		         : "read error", (unsigned long long)lineno, strerror(errno ? errno : EIO));
		goto out;
	}
	if (t.skipped && !t.n_iss) {
		tool_err("%s: no issue/callback events: %llu lines with a logger prefix hold other "
		         "messages (first: line %llu)", t.file, (unsigned long long)t.skipped,
		         (unsigned long long)t.first_skipped);
		goto out;
	}
	if (t.skipped)
		fprintf(stderr, "chakra: %s: note: %llu log lines that are not issue/callback events "
		                "skipped (first: line %llu)\n",
		        t.file, (unsigned long long)t.skipped, (unsigned long long)t.first_skipped);
	size_t unfinished = 0;
	for (size_t i = 0; i < t.n_iss; i++) {
		if (!t.iss[i].open)
			continue;
		if (unfinished++ < 5)
			fprintf(stderr, "chakra: %s:%llu: warning: node %llu issued on npu %u at cycle %llu "
			                "never got a callback\n",
			        t.file, (unsigned long long)t.iss[i].line,
			        (unsigned long long)t.iss[i].node_id, t.iss[i].npu,
			        (unsigned long long)t.iss[i].cycle);
	}
	if (unfinished)
		fprintf(stderr, "chakra: %s: warning: %zu issue(s) without a callback at the end of the "
		                "log; written as instant events with args.unfinished = true\n",
		        t.file, unfinished);
	if (!t.n_iss)
		fprintf(stderr, "chakra: %s: warning: no events in the log\n", t.file);
	if (t.n_ev)
		qsort(t.ev, t.n_ev, sizeof *t.ev, ev_cmp);
	uint32_t lanes_max;
	lanes = calloc(npus, sizeof *lanes);
	if (!lanes || assign_lanes(&t, &lanes_max) < 0) {
		tool_err("out of memory");
		goto out;
	}
	for (size_t i = 0; i < t.n_ev; i++)
		if (t.ev[i].lane + 1 > lanes[t.ev[i].npu])
			lanes[t.ev[i].npu] = t.ev[i].lane + 1;
	for (size_t i = 0; i < t.n_iss; i++)
		if (t.iss[i].open && !lanes[t.iss[i].npu])
			lanes[t.iss[i].npu] = 1;
	tool_out of;
	if (tool_out_open(&of, out, force, inputs, 1) < 0)
		goto out;
	write_json(&t, of.f, ghz * 1e3, ghz, lanes);
	if (tool_out_commit(&of) < 0)
		goto out; /* reported; the temporary is gone, nothing was replaced */
	rc = 0;
out:
	if (in != stdin)
		fclose(in);
	free(line);
	free(lanes);
	if (t.open)
		for (uint64_t k = 0; k < npus; k++)
			tool_idmap_free(&t.open[k]);
	free(t.open);
	free(t.iss);
	free(t.ev);
	free(t.pool);
	return rc;
}
