/* SPDX-License-Identifier: Apache-2.0 */
#include "trace_check.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "chakra/chakra.h"
#include "common.h"
#include "hint.h"
#include "idmap.h"

#define NONE UINT32_MAX

/* ---- growable arrays ---- */

typedef struct vec {
	void *p;
	size_t n, cap, elem;
} vec;

static int vec_push(vec *v, const void *x)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 1024;
		void *p = realloc(v->p, cap * v->elem);
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
	const check_opts *o;
	FILE *out;
	check_result *r;
	vec ids, offs;          /* per node */
	vec dstart, ddeps;      /* data deps: CSR (dstart has n+1 entries) */
	vec cstart, cdeps;      /* ctrl deps */
	tool_idmap map;
	uint32_t *didx;         /* resolved data parents (NONE: absent or self) */
	uint64_t shown_ctrl_absent, shown_ctrl_self, shown_noncanon;
	/* --deep: canonical re-encoding check */
	chakra_reader *raw;
	chakra_builder *b;
	vec enc;
} state;

#define ID(S, i) (((uint64_t *)(S)->ids.p)[i])
#define OFF(S, i) (((uint64_t *)(S)->offs.p)[i])
#define DSTART(S, i) (((uint64_t *)(S)->dstart.p)[i])
#define CSTART(S, i) (((uint64_t *)(S)->cstart.p)[i])
#define DDEP(S, e) (((uint64_t *)(S)->ddeps.p)[e])
#define CDEP(S, e) (((uint64_t *)(S)->cdeps.p)[e])

static void problem(state *S, uint32_t i, int is_error, const char *fmt, ...) TOOL_PRINTF(4, 5);
static void problem(state *S, uint32_t i, int is_error, const char *fmt, ...)
{
	va_list ap;
	/* --max-errors: past the cap errors are counted, not printed */
	if (is_error && S->o->max_errors && S->r->errors >= S->o->max_errors) {
		S->r->errors++;
		S->r->errors_hidden++;
		return;
	}
	fprintf(S->out, "%s:%" PRIu64 ": node %" PRIu64 ": %s", S->name, OFF(S, i), ID(S, i),
	        is_error ? "" : "warning: ");
	va_start(ap, fmt);
	vfprintf(S->out, fmt, ap);
	va_end(ap);
	fputc('\n', S->out);
	if (is_error)
		S->r->errors++;
	else
		S->r->warnings++;
}

/* A warning that may be shown only max_warn times; errors always show. */
static int show(state *S, int is_error, uint64_t *shown)
{
	if (is_error || !S->o->max_warn || *shown < S->o->max_warn) {
		++*shown;
		return 1;
	}
	S->r->warnings++; /* counted, not printed */
	return 0;
}

static int oom(state *S)
{
	fprintf(S->out, "%s: error: out of memory\n", S->name);
	S->r->errors++;
	return -1;
}

static int enc_write(void *data, const void *buf, size_t len)
{
	vec *v = data; /* a byte vector */
	if (v->n + len > v->cap) {
		size_t cap = v->cap ? v->cap : 4096;
		while (cap < v->n + len)
			cap *= 2;
		void *p = realloc(v->p, cap);
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
	if (chakra_reader_next_raw(S->raw, &msg, &len) <= 0)
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
			problem(S, idx, 0,
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
	uint64_t at = 0, zero = 0;
	if (vec_push(&S->dstart, &zero) || vec_push(&S->cstart, &zero))
		return oom(S);
	struct stat st;
	int seekable = strcmp(S->path, "-") && stat(S->path, &st) == 0 && S_ISREG(st.st_mode);
	if (S->o->deep && rc >= 0 && !seekable)
		fprintf(S->out, "%s: note: the --deep encoding check reads the input twice; "
		        "skipped for stdin, pipes and devices\n", S->name);
	else if (S->o->deep && rc >= 0) {
		S->b = chakra_builder_new();
		if (!S->b || chakra_reader_open(&S->raw, S->path, NULL) < 0) {
			chakra_reader_close(rd);
			return oom(S);
		}
	}
	tool_progress p;
	tool_progress_start_trace(&p, S->name, S->path);
	while (rc >= 0) {
		at = chakra_reader_offset(rd);
		if ((rc = chakra_reader_next(rd, &n)) <= 0)
			break;
		uint64_t id = chakra_node_id(n), off = chakra_node_offset(n);
		uint32_t idx = (uint32_t)S->ids.n;
		if (S->ids.n >= NONE - 2) {
			fprintf(S->out, "%s:%" PRIu64 ": error: more than %u nodes are not supported\n",
			        S->name, off, NONE - 2);
			S->r->errors++;
			rc = 0;
			S->r->read_failed = 1;
			break;
		}
		if (vec_push(&S->ids, &id) || vec_push(&S->offs, &off))
			return oom(S);
		uint32_t prev = NONE;
		int put = tool_idmap_put(&S->map, id, idx, &prev);
		if (put < 0)
			return oom(S);
		if (put == 0) {
			S->r->dup_ids++;
			problem(S, idx, 1, "duplicate id (first used by the node at byte %" PRIu64 ")",
			        OFF(S, prev));
			/* an endless or repetitive input (/dev/zero, a gzip of zeros:
			 * empty nodes, all id 0) must not be read forever */
			if (S->o->max_errors && S->r->errors >= S->o->max_errors) {
				S->r->stopped = 1;
				break;
			}
		}
		const uint64_t *d = chakra_node_data_deps(n);
		for (size_t k = 0, c = chakra_node_data_dep_count(n); k < c; k++)
			if (vec_push(&S->ddeps, &d[k]))
				return oom(S);
		d = chakra_node_ctrl_deps(n);
		for (size_t k = 0, c = chakra_node_ctrl_dep_count(n); k < c; k++)
			if (vec_push(&S->cdeps, &d[k]))
				return oom(S);
		uint64_t dn = S->ddeps.n, cn = S->cdeps.n;
		if (vec_push(&S->dstart, &dn) || vec_push(&S->cstart, &cn))
			return oom(S);
		if (S->raw && canon_check(S, n, idx) < 0)
			return -1;
		if ((S->ids.n & 1023) == 0)
			tool_progress_trace(&p, chakra_reader_offset(rd), S->ids.n);
	}
	tool_progress_end(&p);
	S->r->nodes = S->ids.n;
	const char *hint = rc < 0 ? tool_json_hint(S->path) : NULL;
	if (hint) {
		fprintf(S->out, "%s:0: error: %s\n", S->name, hint);
		S->r->errors++;
		S->r->read_failed = 1;
	} else if (rc < 0) {
		/* The reader's message starts with the file name; keep the rest. */
		const char *msg = chakra_reader_errmsg(rd);
		size_t pl = strlen(S->name);
		if (!strncmp(msg, S->name, pl) && msg[pl] == ':' && msg[pl + 1] == ' ')
			msg += pl + 2;
		fprintf(S->out, "%s:%" PRIu64 ": error: %s [%s]\n", S->name, at, msg,
		        chakra_strerror(rc));
		S->r->errors++;
		S->r->read_failed = 1;
	}
	chakra_reader_close(rd);
	return 0;
}

/* Pass 2: every dependency against the id set. */
static int check_deps(state *S)
{
	size_t n = S->ids.n;
	S->didx = malloc((S->ddeps.n ? S->ddeps.n : 1) * sizeof *S->didx);
	tool_idmap absent = { 0 };
	if (!S->didx)
		return oom(S);
	int strict = S->o->strict;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t id = ID(S, i);
		for (uint64_t e = DSTART(S, i); e < DSTART(S, i + 1); e++) {
			uint64_t d = DDEP(S, e);
			S->didx[e] = NONE;
			if (d == id) {
				S->r->data_self++;
				problem(S, i, 1, "lists itself in data_deps (a node cannot wait for itself)");
			} else if ((S->didx[e] = tool_idmap_get(&S->map, d)) == NONE) {
				S->r->data_absent++;
				problem(S, i, 1, "data dependency on id %" PRIu64 ", which is not in the file", d);
			}
		}
		for (uint64_t e = CSTART(S, i); e < CSTART(S, i + 1); e++) {
			uint64_t d = CDEP(S, e);
			if (d == id) {
				S->r->ctrl_self++;
				if (show(S, strict, &S->shown_ctrl_self))
					problem(S, i, strict, "lists itself in ctrl_deps");
			} else if (tool_idmap_get(&S->map, d) == NONE) {
				S->r->ctrl_absent_refs++;
				int was = tool_idmap_put(&absent, d, 0, NULL);
				if (was < 0) {
					tool_idmap_free(&absent);
					return oom(S);
				}
				S->r->ctrl_absent_ids += (uint64_t)was;
				if (show(S, strict, &S->shown_ctrl_absent))
					problem(S, i, strict,
					        "control dependency on id %" PRIu64 ", which is not in the file", d);
			}
		}
	}
	tool_idmap_free(&absent);
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
	problem(S, cyc[0], 1, "data dependency cycle of %zu nodes (each waits for the next): %s",
	        len, buf);
	if (scc_size > len)
		fprintf(S->out, "%s:%" PRIu64 ": node %" PRIu64
		        ": note: the cycle lies in a group of %" PRIu64
		        " mutually dependent nodes\n", S->name, OFF(S, cyc[0]), ID(S, cyc[0]), scc_size);
}

/* Pass 3: strongly connected components of the data graph (edges child ->
 * parent), iterative Tarjan. For each component of 2+ nodes, walk inside it
 * from its first node (file order) until a node repeats: that is a cycle. */
static int find_cycles(state *S)
{
	size_t n = S->ids.n;
	uint32_t *index = malloc((n ? n : 1) * sizeof *index);
	uint32_t *low = malloc((n ? n : 1) * sizeof *low);
	uint32_t *stk = malloc((n ? n : 1) * sizeof *stk);
	uint32_t *cs = malloc((n ? n : 1) * sizeof *cs);
	uint64_t *ce = malloc((n ? n : 1) * sizeof *ce);
	uint32_t *comp = malloc((n ? n : 1) * sizeof *comp);
	uint8_t *on = calloc(n ? n : 1, 1);
	int rc = 0;
	if (!index || !low || !stk || !cs || !ce || !comp || !on) {
		rc = oom(S);
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		index[i] = comp[i] = NONE;
	uint32_t counter = 0, sp = 0, ncomp = 0;
	for (uint32_t s = 0; s < n; s++) {
		if (index[s] != NONE)
			continue;
		uint32_t csp = 0;
		cs[csp] = s;
		ce[csp++] = DSTART(S, s);
		index[s] = low[s] = counter++;
		stk[sp++] = s;
		on[s] = 1;
		while (csp) {
			uint32_t v = cs[csp - 1];
			uint64_t e = ce[csp - 1], end = DSTART(S, v + 1);
			int descended = 0;
			for (; e < end; e++) {
				uint32_t w = S->didx[e];
				if (w == NONE || w == v)
					continue;
				if (index[w] == NONE) {
					ce[csp - 1] = e + 1;
					index[w] = low[w] = counter++;
					stk[sp++] = w;
					on[w] = 1;
					cs[csp] = w;
					ce[csp++] = DSTART(S, w);
					descended = 1;
					break;
				}
				if (on[w] && index[w] < low[v])
					low[v] = index[w];
			}
			if (descended)
				continue;
			if (low[v] == index[v]) {
				/* pop the component; remember its first node in file order */
				uint32_t w, first = v, size = 0;
				do {
					w = stk[--sp];
					on[w] = 0;
					comp[w] = ncomp;
					if (w < first)
						first = w;
					size++;
				} while (w != v);
				if (size > 1) {
					/* walk inside the component; reuse `low` as visit marks:
					 * members' low values are no longer needed */
					uint32_t *path = stk + sp; /* free space above the stack */
					size_t len = 0;
					uint32_t cur = first;
					while (low[cur] != NONE - 1 && len <= size) {
						low[cur] = NONE - 1;
						path[len++] = cur;
						uint32_t next = NONE;
						for (uint64_t f = DSTART(S, cur); f < DSTART(S, cur + 1); f++) {
							uint32_t x = S->didx[f];
							if (x != NONE && x != cur && comp[x] == ncomp) {
								next = x;
								break;
							}
						}
						cur = next;
					}
					size_t startk = 0;
					while (path[startk] != cur)
						startk++;
					print_cycle(S, path + startk, len - startk, size);
				}
				/* a root's low is its own index: nothing to pass up */
				ncomp++;
				csp--;
			} else {
				csp--;
				uint32_t u = cs[csp - 1]; /* v's root has low == index, so csp > 0 */
				if (low[v] < low[u])
					low[u] = low[v];
			}
		}
	}
out:
	free(index);
	free(low);
	free(stk);
	free(cs);
	free(ce);
	free(comp);
	free(on);
	return rc;
}

int trace_check(const char *path, const check_opts *o, FILE *out, check_result *res)
{
	state S = { 0 };
	S.path = path;
	S.name = strcmp(path, "-") ? path : "<stdin>";
	path = S.name;
	S.o = o;
	S.out = out;
	S.r = res;
	memset(res, 0, sizeof *res);
	S.ids.elem = S.offs.elem = S.dstart.elem = S.ddeps.elem = sizeof(uint64_t);
	S.cstart.elem = S.cdeps.elem = sizeof(uint64_t);
	S.enc.elem = 1;
	int rc = read_all(&S);
	if (rc == 0 && !res->read_failed && !res->stopped) {
		rc = check_deps(&S);
		if (rc == 0)
			rc = find_cycles(&S);
	}
	uint64_t hidden_self = res->ctrl_self > S.shown_ctrl_self ? res->ctrl_self - S.shown_ctrl_self : 0;
	uint64_t hidden_abs = res->ctrl_absent_refs > S.shown_ctrl_absent
	                      ? res->ctrl_absent_refs - S.shown_ctrl_absent : 0;
	const char *sev = o->strict ? "error" : "warning";
	if (res->ctrl_absent_refs)
		fprintf(out, "%s: %s: %" PRIu64 " control dependencies on %" PRIu64
		        " ids that are not in the file%s\n", path, sev, res->ctrl_absent_refs,
		        res->ctrl_absent_ids, hidden_abs ? " (first ones shown; --max-warnings 0 shows all)" : "");
	if (res->noncanon)
		fprintf(out, "%s: warning: %" PRIu64 " nodes are not canonically encoded%s\n", path,
		        res->noncanon, res->noncanon > S.shown_noncanon
		                           ? " (first ones shown; --max-warnings 0 shows all)" : "");
	if (res->ctrl_self)
		fprintf(out, "%s: %s: %" PRIu64 " nodes list themselves in ctrl_deps%s\n", path, sev,
		        res->ctrl_self, hidden_self ? " (first ones shown; --max-warnings 0 shows all)" : "");
	if (res->errors_hidden)
		fprintf(out, "%s: %" PRIu64 " more error(s) not shown (--max-errors %" PRIu64
		        "; 0 shows all)\n", path, res->errors_hidden, o->max_errors);
	if (res->stopped)
		fprintf(out, "%s: stopped reading after %" PRIu64 " errors (--max-errors; 0 reads "
		        "everything)\n", path, res->errors);
	fprintf(out, "%s: %" PRIu64 " nodes%s, %" PRIu64 " error(s), %" PRIu64 " warning(s)%s%s\n",
	        path, res->nodes, res->stopped ? " read" : "", res->errors, res->warnings,
	        res->read_failed ? "; dependency checks skipped: the file could not be read to the end"
	        : res->stopped ? "; dependency checks skipped" : "",
	        res->errors ? "" : ": OK");
	free(S.ids.p);
	free(S.offs.p);
	free(S.dstart.p);
	free(S.ddeps.p);
	free(S.cstart.p);
	free(S.cdeps.p);
	free(S.didx);
	free(S.enc.p);
	chakra_reader_close(S.raw);
	chakra_builder_free(S.b);
	tool_idmap_free(&S.map);
	return res->errors || rc < 0 ? 1 : 0;
}
