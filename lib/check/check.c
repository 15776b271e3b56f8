/* SPDX-License-Identifier: Apache-2.0 */
/* The checks behind chakra_check_trace (include/chakra/experimental/check.h):
 * pass 1 reads every node into the graph module's arrays (duplicate ids
 * found there), pass 2 resolves every dependency, pass 3 looks for
 * data-dependency cycles. Each problem becomes a finding with its line. */
#include "chakra/experimental/check.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "chakra/chakra.h"
#include "chakra/experimental/graph.h"
#include "../modmem.h"

#if defined(__GNUC__)
#define CK_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CK_PRINTF(f, a)
#endif


/* ---- growable arrays ---- */

typedef struct vec {
	void *p;
	size_t n, cap, elem;
} vec;

static int vec_push(vec *v, const void *x)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 1024;
		void *p = chakra_realloc(v->p, cap * v->elem);
		if (!p)
			return -1;
		v->p = p;
		v->cap = cap;
	}
	memcpy((char *)v->p + v->n * v->elem, x, v->elem);
	v->n++;
	return 0;
}

/* ---- the check ---- */

typedef struct state {
	const char *path; /* as given; messages use name ("<stdin>" for "-") */
	const char *name;
	const chakra_check_options *o;
	chakra_check_cb cb;
	void *cb_data;
	chakra_check_result *r;
	vec offs;               /* per node: where its message starts */
	chakra_graph *g;        /* ids and dependencies (lib/graph) */
	chakra_idmap *absent;   /* control parents not in the file */
	int oom;
	uint64_t shown_ctrl_absent, shown_ctrl_self, shown_noncanon;
	/* --deep: canonical re-encoding check */
	chakra_reader *raw;
	chakra_builder *b;
	vec enc;
	int nomem;              /* memory ran out: CHAKRA_ENOMEM */
} state;

#define ID(S, i) chakra_graph_id((S)->g, (uint32_t)(i))
#define OFF(S, i) (((uint64_t *)(S)->offs.p)[i])

/* Hand one finding to the callback; its text from fmt (the prefix naming
 * the file and the node is the caller's). The facts: f without text. */
static void report(state *S, chakra_check_finding *f, const char *fmt, va_list ap)
{
	if (!S->cb)
		return;
	char small[1024], *text = small;
	va_list aq;
	va_copy(aq, ap);
	int n = vsnprintf(small, sizeof small, fmt, ap);
	if (n >= (int)sizeof small && (text = chakra_malloc((size_t)n + 1)) != NULL)
		vsnprintf(text, (size_t)n + 1, fmt, aq);
	else if (n >= (int)sizeof small)
		text = small; /* out of memory: the line cut short */
	va_end(aq);
	f->text = text;
	S->cb(S->cb_data, f);
	if (text != small)
		chakra_free(text);
}

/* A finding: f's facts, its line from fmt. */
static void emit(state *S, chakra_check_finding *f, const char *fmt, ...) CK_PRINTF(3, 4);
static void emit(state *S, chakra_check_finding *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report(S, f, fmt, ap);
	va_end(ap);
}

/* A finding that is not about one node (or names it in fmt itself). */
#define LINE(S, sev, kind, off, related, ...)                                    \
	do {                                                                     \
		chakra_check_finding f_ = { (sev), (kind), 0, 0, 0, (off), (related), NULL }; \
		emit((S), &f_, __VA_ARGS__);                                     \
	} while (0)

static void problem(state *S, int kind, uint32_t i, int is_error, uint64_t related,
                    const char *fmt, ...) CK_PRINTF(6, 7);
static void problem(state *S, int kind, uint32_t i, int is_error, uint64_t related,
                    const char *fmt, ...)
{
	/* --max-errors: past the cap errors are counted, not printed */
	if (is_error && S->o->max_errors && S->r->errors >= S->o->max_errors) {
		S->r->errors++;
		S->r->errors_hidden++;
		return;
	}
	char small[1024], *what = small;
	va_list ap, aq;
	va_start(ap, fmt);
	va_copy(aq, ap);
	int n = vsnprintf(small, sizeof small, fmt, ap);
	if (n >= (int)sizeof small && (what = chakra_malloc((size_t)n + 1)) != NULL)
		vsnprintf(what, (size_t)n + 1, fmt, aq);
	else if (n >= (int)sizeof small)
		what = small; /* out of memory: the line cut short */
	va_end(aq);
	va_end(ap);
	chakra_check_finding f = { is_error ? CHAKRA_CHECK_ERROR : CHAKRA_CHECK_WARNING, kind, 1, i,
	                           ID(S, i), OFF(S, i), related, NULL };
	emit(S, &f, "%s:%" PRIu64 ": node %" PRIu64 ": %s%s", S->name, OFF(S, i), ID(S, i),
	     is_error ? "" : "warning: ", what);
	if (what != small)
		chakra_free(what);
	if (is_error)
		S->r->errors++;
	else
		S->r->warnings++;
}

/* A warning that may be shown only max_warn times; errors always show. */
static int show(state *S, int is_error, uint64_t *shown)
{
	if (is_error || !S->o->max_warnings || *shown < S->o->max_warnings) {
		++*shown;
		return 1;
	}
	S->r->warnings++; /* counted, not printed */
	return 0;
}

static int oom(state *S)
{
	LINE(S, CHAKRA_CHECK_ERROR, CHAKRA_CHECK_NOMEM, 0, 0, "%s: error: out of memory", S->name);
	S->r->errors++;
	S->nomem = 1;
	return -1;
}

static int enc_write(void *data, const void *buf, size_t len)
{
	vec *v = data; /* a byte vector */
	if (v->n + len > v->cap) {
		size_t cap = v->cap ? v->cap : 4096;
		while (cap < v->n + len)
			cap *= 2;
		void *p = chakra_realloc(v->p, cap);
		if (!p)
			return -1;
		v->p = p;
		v->cap = cap;
	}
	memcpy((char *)v->p + v->n, buf, len);
	v->n += len;
	return 0;
}

/* --deep: would re-encoding reproduce this node's bytes? The reader accepts
 * valid but non-canonical protobuf (unknown fields, repeated scalars,
 * over-long varints...) and normalises it, so jsonize/pack or any re-write
 * would silently change such a file. A second reader supplies the raw
 * message; the node is encoded alone (after a 1-byte empty metadata). */
static int canon_check(state *S, const chakra_node *n, uint32_t idx)
{
	const void *msg;
	size_t len;
	int got = chakra_reader_next_raw(S->raw, &msg, &len);
	if (got == CHAKRA_ENOMEM)
		return oom(S);
	if (got <= 0)
		return 0; /* the main reader reports any problem */
	S->enc.n = 0;
	chakra_writer *w = NULL;
	int ok = chakra_builder_copy_node(S->b, n) == 0 &&
	         chakra_writer_open_cb(&w, enc_write, &S->enc, NULL) == 0 &&
	         chakra_writer_write_metadata(w, "", NULL) == 0 &&
	         chakra_writer_write_node(w, S->b) == 0 && chakra_writer_finish(w) == 0;
	chakra_writer_close(w);
	if (!ok)
		return oom(S);
	const unsigned char *e = S->enc.p;
	/* skip the empty metadata frame and the node's length prefix */
	size_t pos = 1, hdr = 0;
	while (pos + hdr < S->enc.n && (e[pos + hdr] & 0x80))
		hdr++;
	hdr++;
	if (S->enc.n - pos - hdr != len || memcmp(e + pos + hdr, msg, len) != 0) {
		S->r->noncanon++;
		if (show(S, 0, &S->shown_noncanon))
			problem(S, CHAKRA_CHECK_NONCANON, idx, 0, len,
			        "encoding is not canonical (%zu bytes, %zu when re-encoded: unknown fields, "
			        "repeated or over-long values); re-writing the trace will change these bytes",
			        len, S->enc.n - pos - hdr);
	}
	return 0;
}

/* Pass 1: read every node; duplicate ids reported here. */
static int read_all(state *S)
{
	chakra_reader_options ro = CHAKRA_READER_OPTIONS_INIT;
	ro.verify_with_nanopb = S->o->deep;
	chakra_reader *rd;
	int rc = chakra_reader_open(&rd, S->path, &ro);
	const chakra_node *n;
	/* an open failure concerns the metadata, the message at byte 0 */
	uint64_t at = 0;
	if (!(S->g = chakra_graph_new())) {
		chakra_reader_close(rd);
		return oom(S);
	}
	struct stat st;
	int seekable = strcmp(S->path, "-") && stat(S->path, &st) == 0 && S_ISREG(st.st_mode);
	if (S->o->deep && rc >= 0 && !seekable)
		LINE(S, CHAKRA_CHECK_NOTE, CHAKRA_CHECK_DEEP_SKIPPED, 0, 0,
		     "%s: note: the --deep encoding check reads the input twice; "
		     "skipped for stdin, pipes and devices", S->name);
	else if (S->o->deep && rc >= 0) {
		S->b = chakra_builder_new();
		if (!S->b || chakra_reader_open(&S->raw, S->path, NULL) < 0) {
			chakra_reader_close(rd);
			return oom(S);
		}
	}
	while (rc >= 0) {
		at = chakra_reader_offset(rd);
		if ((rc = chakra_reader_next(rd, &n)) <= 0)
			break;
		uint64_t id = chakra_node_id(n), off = chakra_node_offset(n);
		uint32_t prev;
		if (vec_push(&S->offs, &off))
			goto nomem;
		int64_t added = chakra_graph_add(S->g, id, chakra_node_data_deps(n),
		                                   chakra_node_data_dep_count(n), chakra_node_ctrl_deps(n),
		                                   chakra_node_ctrl_dep_count(n), &prev);
		if (added == CHAKRA_ETOOBIG) {
			LINE(S, CHAKRA_CHECK_ERROR, CHAKRA_CHECK_LIMIT, off, 0,
			     "%s:%" PRIu64 ": error: more than %zu nodes or 2^32 dependencies "
			     "are not supported", S->name, off, chakra_graph_count(S->g));
			S->r->errors++;
			rc = 0;
			S->r->read_failed = 1;
			break;
		}
		if (added < 0)
			goto nomem;
		uint32_t idx = (uint32_t)added;
		if (prev != CHAKRA_GRAPH_NONE) {
			S->r->dup_ids++;
			problem(S, CHAKRA_CHECK_DUP_ID, idx, 1, OFF(S, prev), "duplicate id (first used by the node at byte %" PRIu64 ")",
			        OFF(S, prev));
			/* an endless or repetitive input (/dev/zero, a gzip of zeros:
			 * empty nodes, all id 0) must not be read forever */
			if (S->o->max_errors && S->r->errors >= S->o->max_errors) {
				S->r->stopped = 1;
				break;
			}
		}
		if (S->raw && canon_check(S, n, idx) < 0)
			goto fail;
		if ((S->offs.n & 1023) == 0 && S->o->progress)
			S->o->progress(S->o->progress_data, chakra_reader_offset(rd), S->offs.n);
	}
	S->r->nodes = S->offs.n;
	if (rc == CHAKRA_ENOMEM) /* not a problem of the trace */
		goto nomem;
	const char *hint = rc < 0 && S->o->read_hint ? S->o->read_hint(S->path) : NULL;
	if (hint) {
		LINE(S, CHAKRA_CHECK_ERROR, CHAKRA_CHECK_READ, 0, 0, "%s:0: error: %s", S->name, hint);
		S->r->errors++;
		S->r->read_failed = 1;
	} else if (rc < 0) {
		/* The reader's message starts with the file name; keep the rest. */
		const char *msg = chakra_reader_errmsg(rd);
		size_t pl = strlen(S->name);
		if (!strncmp(msg, S->name, pl) && msg[pl] == ':' && msg[pl + 1] == ' ')
			msg += pl + 2;
		if (rc == CHAKRA_EIO) /* the message says what failed */
			LINE(S, CHAKRA_CHECK_ERROR, CHAKRA_CHECK_READ, at, 0, "%s:%" PRIu64 ": error: %s",
			     S->name, at, msg);
		else
			LINE(S, CHAKRA_CHECK_ERROR, CHAKRA_CHECK_READ, at, 0,
			     "%s:%" PRIu64 ": error: %s [%s]", S->name, at, msg, chakra_strerror(rc));
		S->r->errors++;
		S->r->read_failed = 1;
	}
	chakra_reader_close(rd);
	return 0;
nomem:
	oom(S);
fail:
	chakra_reader_close(rd);
	return -1;
}

/* Pass 2: every dependency against the id set: the graph resolves them and
 * calls this for each parent that is the node itself or not in the file,
 * in node order. */
static void bad_edge(void *data, uint32_t i, uint64_t d, int is_ctrl, int is_self)
{
	state *S = data;
	int strict = S->o->strict;
	if (!is_ctrl && is_self) {
		S->r->data_self++;
		problem(S, CHAKRA_CHECK_DATA_SELF, i, 1, d, "lists itself in data_deps (a node cannot wait for itself)");
	} else if (!is_ctrl) {
		S->r->data_absent++;
		problem(S, CHAKRA_CHECK_DATA_ABSENT, i, 1, d, "data dependency on id %" PRIu64 ", which is not in the file", d);
	} else if (is_self) {
		S->r->ctrl_self++;
		if (show(S, strict, &S->shown_ctrl_self))
			problem(S, CHAKRA_CHECK_CTRL_SELF, i, strict, d, "lists itself in ctrl_deps");
	} else {
		S->r->ctrl_absent_refs++;
		int was = S->oom ? 0 : chakra_idmap_put(S->absent, d, 0, NULL);
		if (was < 0)
			S->oom = 1;
		else
			S->r->ctrl_absent_ids += (uint64_t)was;
		if (show(S, strict, &S->shown_ctrl_absent))
			problem(S, CHAKRA_CHECK_CTRL_ABSENT, i, strict, d, "control dependency on id %" PRIu64 ", which is not in the file",
			        d);
	}
}

static int check_deps(state *S)
{
	if (!(S->absent = chakra_idmap_new(16)) || chakra_graph_resolve(S->g, bad_edge, S) < 0 ||
	    S->oom)
		return oom(S);
	return 0;
}

/* Print the ids of a cycle (the first 15 of a long one), ending with the
 * first id again. */
static void print_cycle(state *S, const uint32_t *cyc, size_t len, uint64_t scc_size)
{
	char buf[1024];
	size_t pos = 0;
	for (size_t k = 0; k <= len && pos < sizeof buf - 64; k++) {
		if (k == 15 && len > 16) {
			pos += (size_t)snprintf(buf + pos, sizeof buf - pos, " -> ... (%zu more)",
			                        len - 15);
			k = len - 1;
			continue;
		}
		pos += (size_t)snprintf(buf + pos, sizeof buf - pos, "%s%" PRIu64, k ? " -> " : "",
		                        ID(S, cyc[k % len]));
	}
	S->r->cycles++;
	problem(S, CHAKRA_CHECK_CYCLE, cyc[0], 1, len,
	        "data dependency cycle of %zu nodes (each waits for the next): %s", len, buf);
	if (scc_size > len) {
		chakra_check_finding f = { CHAKRA_CHECK_NOTE, CHAKRA_CHECK_CYCLE_GROUP, 1, cyc[0],
		                           ID(S, cyc[0]), OFF(S, cyc[0]), scc_size, NULL };
		emit(S, &f, "%s:%" PRIu64 ": node %" PRIu64 ": note: the cycle lies in a group of %" PRIu64
		     " mutually dependent nodes", S->name, OFF(S, cyc[0]), ID(S, cyc[0]), scc_size);
	}
}

/* Pass 3: data-dependency cycles. A depth-first check first (1 byte per
 * node); only when it finds one, the strongly connected components, each
 * reported with one concrete cycle from its first node in file order. */
static void on_cycle(void *data, const uint32_t *cyc, size_t len, size_t scc_size)
{
	print_cycle(data, cyc, len, scc_size);
}

static int find_cycles(state *S)
{
	int has = chakra_graph_has_cycle(S->g, CHAKRA_GRAPH_DATA);
	if (has > 0)
		has = chakra_graph_cycles(S->g, CHAKRA_GRAPH_DATA, on_cycle, S) < 0 ? -1 : 0;
	return has < 0 ? oom(S) : 0;
}

int chakra_check_options_init(chakra_check_options *opts, unsigned version)
{
	if (!opts || version < 1 || version > CHAKRA_CHECK_OPTIONS_VERSION)
		return CHAKRA_EINVAL;
	chakra_check_options d = CHAKRA_CHECK_OPTIONS_INIT;
	d.version = version;
	*opts = d;
	return 0;
}

#define SHOWN_ALL " (first ones shown; --max-warnings 0 shows all)"

/* The summary lines (the same facts are in the result). */
static void summary(state *S)
{
	const chakra_check_result *res = S->r;
	const char *path = S->name;
	uint64_t hidden_self = res->ctrl_self > S->shown_ctrl_self ? res->ctrl_self - S->shown_ctrl_self : 0;
	uint64_t hidden_abs = res->ctrl_absent_refs > S->shown_ctrl_absent
	                      ? res->ctrl_absent_refs - S->shown_ctrl_absent : 0;
	int strict = S->o->strict;
	const char *sev = strict ? "error" : "warning";
	int sv = strict ? CHAKRA_CHECK_ERROR : CHAKRA_CHECK_WARNING;
	if (res->ctrl_absent_refs)
		LINE(S, sv, CHAKRA_CHECK_CTRL_ABSENT, 0, res->ctrl_absent_ids,
		     "%s: %s: %" PRIu64 " control dependencies on %" PRIu64 " ids that are not in the file%s",
		     path, sev, res->ctrl_absent_refs, res->ctrl_absent_ids, hidden_abs ? SHOWN_ALL : "");
	if (res->noncanon)
		LINE(S, CHAKRA_CHECK_WARNING, CHAKRA_CHECK_NONCANON, 0, res->noncanon,
		     "%s: warning: %" PRIu64 " nodes are not canonically encoded%s", path, res->noncanon,
		     res->noncanon > S->shown_noncanon ? SHOWN_ALL : "");
	if (res->ctrl_self)
		LINE(S, sv, CHAKRA_CHECK_CTRL_SELF, 0, res->ctrl_self,
		     "%s: %s: %" PRIu64 " nodes list themselves in ctrl_deps%s", path, sev,
		     res->ctrl_self, hidden_self ? SHOWN_ALL : "");
	if (res->errors_hidden)
		LINE(S, CHAKRA_CHECK_SUMMARY, CHAKRA_CHECK_LIMIT, 0, res->errors_hidden,
		     "%s: %" PRIu64 " more error(s) not shown (--max-errors %" PRIu64 "; 0 shows all)",
		     path, res->errors_hidden, S->o->max_errors);
	if (res->stopped)
		LINE(S, CHAKRA_CHECK_SUMMARY, CHAKRA_CHECK_LIMIT, 0, res->errors,
		     "%s: stopped reading after %" PRIu64 " errors (--max-errors; 0 reads everything)",
		     path, res->errors);
	LINE(S, CHAKRA_CHECK_SUMMARY, CHAKRA_CHECK_TOTALS, 0, res->nodes,
	     "%s: %" PRIu64 " nodes%s, %" PRIu64 " error(s), %" PRIu64 " warning(s)%s%s",
	     path, res->nodes, res->stopped ? " read" : "", res->errors, res->warnings,
	     res->read_failed ? "; dependency checks skipped: the file could not be read to the end"
	     : res->stopped ? "; dependency checks skipped" : "",
	     res->errors ? "" : ": OK");
}

int chakra_check_trace(const char *path, const chakra_check_options *opts, chakra_check_cb cb,
                       void *data, chakra_check_result *res)
{
	chakra_check_result scratch;
	if (!res)
		res = &scratch;
	memset(res, 0, sizeof *res);
	chakra_check_options o = CHAKRA_CHECK_OPTIONS_INIT;
	if (opts) {
		if (opts->version < 1 || opts->version > CHAKRA_CHECK_OPTIONS_VERSION)
			return CHAKRA_EINVAL;
		o = *opts;
	}
	if (!path)
		return CHAKRA_EINVAL;
	state S = { 0 };
	S.path = path;
	S.name = strcmp(path, "-") ? path : "<stdin>";
	S.o = &o;
	S.cb = cb;
	S.cb_data = data;
	S.r = res;
	S.offs.elem = sizeof(uint64_t);
	S.enc.elem = 1;
	int rc = read_all(&S);
	if (rc == 0 && !res->read_failed && !res->stopped) {
		rc = check_deps(&S);
		if (rc == 0)
			rc = find_cycles(&S);
	}
	summary(&S);
	chakra_free(S.offs.p);
	chakra_graph_free(S.g);
	chakra_idmap_free(S.absent);
	chakra_free(S.enc.p);
	chakra_reader_close(S.raw);
	chakra_builder_free(S.b);
	if (S.nomem)
		return CHAKRA_ENOMEM;
	return res->errors || rc < 0 ? 1 : 0;
}
