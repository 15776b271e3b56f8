/* chakra timeline: a simulator's event log (Chakra's timeline-visualizer
 * format) to Chrome / Perfetto trace-event JSON.
 *
 *   issue,npu_id=N,cycle=C,node_id=I,node_name=S      node I starts on NPU N
 *   callback,npu_id=N,cycle=C,node_id=I,node_name=S   node I ends
 *
 * node_name is the rest of the line (names may hold commas). The whole log
 * is checked before anything is written: a bad line, an NPU out of range,
 * a callback with no open issue or one before its issue stops with
 * FILE:LINE. Each NPU is one process; overlapping nodes of an NPU go to
 * separate threads ("lanes", lowest free lane first) so that no two
 * complete events on one thread overlap, which trace viewers require. */
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
	ag_idmap *open; /* per NPU: node_id -> issue index, or CLOSED */
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

static int parse_line(tl *t, char *s, size_t len, uint64_t lineno)
{
	while (len && (s[len - 1] == '\n' || s[len - 1] == '\r'))
		s[--len] = 0;
	size_t k = 0;
	while (k < len && isspace((unsigned char)s[k]))
		k++;
	if (k == len)
		return 0; /* blank line */
	const char *comma = memchr(s, ',', len);
	size_t kl = comma ? (size_t)(comma - s) : len;
	int is_issue;
	if (kl == 5 && !memcmp(s, "issue", 5))
		is_issue = 1;
	else if (kl == 8 && !memcmp(s, "callback", 8))
		is_issue = 0;
	else
		return LINE_ERR("expected a line starting with 'issue,' or 'callback,', got '%.40s'", s);
	uint64_t npu = 0, cycle = 0, node = 0;
	const char *name = NULL;
	size_t name_len = 0;
	int have[3] = { 0, 0, 0 };
	size_t p = kl;
	while (p < len) {
		p++; /* the comma */
		const char *f = s + p;
		const char *eq = memchr(f, '=', len - p);
		if (!eq)
			return LINE_ERR("field '%.40s' is not key=value", f);
		size_t fkl = (size_t)(eq - f);
		if (fkl == 9 && !memcmp(f, "node_name", 9)) {
			/* The name is the rest of the line. */
			name = eq + 1;
			name_len = len - (size_t)(name - s);
			p = len;
			break;
		}
		const char *vend = memchr(eq + 1, ',', len - (size_t)(eq + 1 - s));
		size_t vl = vend ? (size_t)(vend - (eq + 1)) : len - (size_t)(eq + 1 - s);
		int which = (fkl == 6 && !memcmp(f, "npu_id", 6)) ? 0
		          : (fkl == 5 && !memcmp(f, "cycle", 5)) ? 1
		          : (fkl == 7 && !memcmp(f, "node_id", 7)) ? 2 : -1;
		if (which < 0)
			return LINE_ERR("unknown field '%.*s' (expected npu_id, cycle, node_id, node_name)",
			                (int)(fkl > 40 ? 40 : fkl), f);
		if (have[which])
			return LINE_ERR("field '%.*s' given twice", (int)fkl, f);
		uint64_t *dst = which == 0 ? &npu : which == 1 ? &cycle : &node;
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
	ag_idmap *m = &t->open[npu];
	uint32_t slot = ag_idmap_get(m, node);
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
		    ag_idmap_set(m, node, (uint32_t)(t->n_iss - 1)) < 0)
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
	    ag_idmap_set(m, node, CLOSED) < 0)
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

/* Lowest lane whose last event has ended; returns the number of lanes. */
static int assign_lanes(tl *t, uint32_t *max_lanes)
{
	uint64_t *last = NULL;
	size_t nl = 0, cap = 0;
	*max_lanes = 0;
	for (size_t i = 0; i < t->n_ev; i++) {
		if (i == 0 || t->ev[i].npu != t->ev[i - 1].npu)
			nl = 0;
		size_t l = 0;
		while (l < nl && last[l] > t->ev[i].start)
			l++;
		if (l == nl) {
			if (nl == cap) {
				size_t nc = cap ? cap * 2 : 16;
				uint64_t *nlast = realloc(last, nc * sizeof *nlast);
				if (!nlast) {
					free(last);
					return -1;
				}
				last = nlast;
				cap = nc;
			}
			nl++;
		}
		last[l] = t->ev[i].end;
		t->ev[i].lane = (uint32_t)l;
		if (l + 1 > *max_lanes)
			*max_lanes = (uint32_t)(l + 1);
	}
	free(last);
	return 0;
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

static int write_json(tl *t, FILE *f, double per_us, double ghz, const uint32_t *lanes)
{
	yajl_gen g = jo_open(f, 0);
	if (!g)
		return -1;
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
	return 0;
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
	        "usage: chakra timeline EVENTS.csv --npus N --frequency F -o OUT.json\n\n"
	        "Chrome / Perfetto trace-event JSON from a simulator event log, one line per\n"
	        "event ('-' = stdin):\n"
	        "  issue,npu_id=N,cycle=C,node_id=I,node_name=S      (node starts)\n"
	        "  callback,npu_id=N,cycle=C,node_id=I,node_name=S   (node ends)\n"
	        "Each NPU becomes a process, each node a complete (\"X\") event with its node_id;\n"
	        "nodes that overlap on one NPU go to separate lanes (threads). Timestamps are\n"
	        "microseconds: ts = cycle / (F * 1000) for F in GHz.\n\n"
	        "  --npus N          NPUs in the log (npu_id must be below N)\n"
	        "  --frequency F     clock in GHz (cycles per ns); a unit may follow: 1.5GHz,\n"
	        "                    1500MHz, 1e9Hz\n"
	        "  -o, --output OUT  output JSON ('-' = stdout)\n");
}

int cmd_timeline(int argc, char **argv)
{
	const char *input = NULL, *out = NULL;
	uint64_t npus = 0;
	double ghz = 0;
	int have_npus = 0, have_freq = 0;
	for (int i = 1; i < argc; i++) {
		const char *v;
		int missing = 0;
		if (tool_is_help(argv[i])) {
			usage(stdout);
			return 0;
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
	if (tool_check_output(out, inputs, 1) < 0)
		return 1;

	FILE *in = strcmp(input, "-") ? fopen(input, "r") : stdin;
	if (!in)
		return tool_err("%s: cannot open: %s", input, strerror(errno));
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
		if (ag_idmap_init(&t.open[k], 8) < 0) {
			tool_err("out of memory");
			goto out;
		}
	ssize_t n;
	uint64_t lineno = 0;
	tool_progress prog;
	tool_progress_start(&prog, "reading events", 0);
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
	}
	tool_progress_end(&prog);
	if (ferror(in)) {
		tool_err("%s: read error: %s", t.file, strerror(errno));
		goto out;
	}
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
	FILE *f = tool_fopen_out(out);
	if (!f)
		goto out;
	int wrc = write_json(&t, f, ghz * 1e3, ghz, lanes);
	if (tool_fclose_out(f, out) < 0 || wrc < 0) {
		if (wrc < 0)
			tool_err("out of memory");
		if (strcmp(out, "-"))
			remove(out);
		goto out;
	}
	rc = 0;
out:
	if (in != stdin)
		fclose(in);
	free(line);
	free(lanes);
	if (t.open)
		for (uint64_t k = 0; k < npus; k++)
			ag_idmap_free(&t.open[k]);
	free(t.open);
	free(t.iss);
	free(t.ev);
	free(t.pool);
	return rc;
}
