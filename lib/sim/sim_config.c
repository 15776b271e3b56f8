/* SPDX-License-Identifier: Apache-2.0 */
/* ASTRA-sim configuration files: network YAML (libyaml), system JSON and
 * communicator groups (YAJL). Errors name the file, the line and the key,
 * because these files are hand-edited. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <yaml.h>
#include <yajl/yajl_parse.h>

#include "groups.h"
#include "jguard.h"
#include "sim_model.h"

#if defined(__GNUC__)
#  define SIM_CFG_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#  define SIM_CFG_PRINTF(a, b)
#endif

/* A message in err (SIM_ERR_LEN) and CHAKRA_ECONFIG. */
static int fail(char *err, const char *fmt, ...) SIM_CFG_PRINTF(2, 3);
static int fail(char *err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, SIM_ERR_LEN, fmt, ap);
	va_end(ap);
	return CHAKRA_ECONFIG;
}

static int nomem(char *err, const char *path)
{
	snprintf(err, SIM_ERR_LEN, "%s: out of memory", path);
	return CHAKRA_ENOMEM;
}

/* Configuration files are small; a larger one is refused before parsing
 * (libyaml's time grows with the square of the nesting depth). */
#define SIM_CONFIG_MAX ((size_t)16 << 20)
/* Deepest nesting accepted in any configuration file: the formats need 2. */
#define SIM_CONFIG_DEPTH 64

/* The whole file, NUL-terminated (read(2): no stdio buffer to run out of). */
static char *slurp_text(const char *path, size_t *len, char *err, int *code)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	*code = CHAKRA_EIO;
	if (fd < 0) {
		fail(err, "%s: %s", path, strerror(errno));
		*code = errno == ENOMEM ? CHAKRA_ENOMEM : CHAKRA_EIO;
		return NULL;
	}
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap + 1);
	for (;;) {
		if (!buf) {
			close(fd);
			*code = nomem(err, path);
			return NULL;
		}
		ssize_t got = read(fd, buf + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			fail(err, "%s: %s", path, strerror(errno));
			*code = errno == ENOMEM ? CHAKRA_ENOMEM : CHAKRA_EIO;
			free(buf);
			close(fd);
			return NULL;
		}
		if (got == 0)
			break;
		n += (size_t)got;
		if (n < cap)
			continue;
		if (cap >= SIM_CONFIG_MAX) {
			free(buf);
			close(fd);
			fail(err, "%s: larger than %zu MiB: not a configuration file", path,
			     SIM_CONFIG_MAX >> 20);
			*code = CHAKRA_ECONFIG;
			return NULL;
		}
		cap *= 2;
		char *nb = realloc(buf, cap + 1);
		if (!nb)
			free(buf);
		buf = nb;
	}
	close(fd);
	buf[n] = 0;
	*len = n;
	return buf;
}

/* ================= network YAML ================= */

/* A key's values: a flow/block sequence or a single scalar. */
typedef struct yval {
	char *s[SIM_MAX_DIMS + 1];
	unsigned long line[SIM_MAX_DIMS + 1];
	int n;
	unsigned long key_line;
	int seen;
} yval;

static void yval_free(yval *v)
{
	for (int i = 0; i < v->n; i++)
		free(v->s[i]);
	v->n = 0;
}

static int parse_number(const char *s, double *out)
{
	char *end;
	errno = 0;
	double d = strtod(s, &end);
	if (end == s || errno || !isfinite(d))
		return -1;
	while (isspace((unsigned char)*end))
		end++;
	if (*end)
		return -1;
	*out = d;
	return 0;
}

static int topo_from_name(const char *s, chakra_sim_topology *t)
{
	if (!strcasecmp(s, "Ring"))
		*t = CHAKRA_SIM_RING;
	else if (!strcasecmp(s, "Switch"))
		*t = CHAKRA_SIM_SWITCH;
	else if (!strcasecmp(s, "FullyConnected"))
		*t = CHAKRA_SIM_FULLY_CONNECTED;
	else
		return -1;
	return 0;
}

static int network_parse(chakra_sim_network *net, const char *path, const char *text, size_t len,
                      char *err)
{
	static const char *const keys[] = { "topology", "npus_count", "bandwidth", "latency" };
	yval v[4];
	memset(v, 0, sizeof v);
	memset(net, 0, sizeof *net);
	if (len > SIM_CONFIG_MAX)
		return fail(err, "%s: larger than %zu MiB: not a configuration file", path,
		            SIM_CONFIG_MAX >> 20);
	yaml_parser_t p;
	yaml_event_t ev;
	if (!yaml_parser_initialize(&p))
		return nomem(err, path);
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	int rc = 0, depth = 0, cur = -1, in_seq = 0, expect_key = 1, done = 0;
	int skip = 0; /* nesting depth of an ignored value */
	while (!done && rc == 0) {
		if (!yaml_parser_parse(&p, &ev)) {
			if (p.error == YAML_MEMORY_ERROR)
				rc = nomem(err, path);
			else
				rc = fail(err, "%s:%lu: YAML syntax error: %s", path,
				          (unsigned long)p.problem_mark.line + 1,
				          p.problem ? p.problem : "invalid");
			break;
		}
		if ((ev.type == YAML_MAPPING_START_EVENT || ev.type == YAML_SEQUENCE_START_EVENT) &&
		    skip >= SIM_CONFIG_DEPTH) {
			/* Stopped here, before libyaml goes deeper (its cost grows
			 * with the square of the depth: 400 KB took 101 s). */
			rc = fail(err, "%s:%lu: nested deeper than %d levels", path,
			          (unsigned long)ev.start_mark.line + 1, SIM_CONFIG_DEPTH);
			yaml_event_delete(&ev);
			break;
		}
		unsigned long line = (unsigned long)ev.start_mark.line + 1;
		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
			done = 1;
			break;
		case YAML_MAPPING_START_EVENT:
			if (skip) {
				skip++;
			} else if (depth == 0) {
				depth = 1;
			} else if (depth == 1 && cur < 0 && !expect_key) {
				skip = 1; /* an unknown key's nested value */
			} else {
				rc = fail(err, "%s:%lu: key '%s': expected a list, found a mapping", path,
				          line, cur >= 0 ? keys[cur] : "?");
			}
			break;
		case YAML_MAPPING_END_EVENT:
			if (skip && --skip == 0)
				expect_key = 1;
			else if (!skip)
				depth = 0;
			break;
		case YAML_SEQUENCE_START_EVENT:
			if (skip) {
				skip++;
			} else if (depth != 1 || expect_key) {
				rc = fail(err, "%s:%lu: expected a mapping of keys to lists", path, line);
			} else if (in_seq) {
				rc = fail(err, "%s:%lu: key '%s': nested lists are not allowed", path, line,
				          cur >= 0 ? keys[cur] : "?");
			} else if (cur < 0) {
				skip = 1;
			} else {
				in_seq = 1;
			}
			break;
		case YAML_SEQUENCE_END_EVENT:
			if (skip) {
				if (--skip == 0)
					expect_key = 1;
			} else {
				in_seq = 0;
				expect_key = 1;
			}
			break;
		case YAML_SCALAR_EVENT: {
			const char *s = (const char *)ev.data.scalar.value;
			if (skip)
				break;
			if (depth != 1) {
				rc = fail(err, "%s:%lu: expected a mapping of keys to lists", path, line);
			} else if (expect_key) {
				cur = -1;
				for (int k = 0; k < 4; k++)
					if (!strcmp(s, keys[k]))
						cur = k;
				if (cur >= 0) {
					if (v[cur].seen)
						rc = fail(err, "%s:%lu: key '%s' given twice", path, line, s);
					v[cur].seen = 1;
					v[cur].key_line = line;
				}
				expect_key = 0; /* unknown keys: value skipped */
			} else if (cur < 0) {
				expect_key = 1; /* unknown key's scalar value */
			} else {
				yval *y = &v[cur];
				if (y->n >= SIM_MAX_DIMS) {
					rc = fail(err, "%s:%lu: key '%s': more than %d dimensions", path, line,
					          keys[cur], SIM_MAX_DIMS);
				} else {
					y->line[y->n] = line;
					if (!(y->s[y->n] = strdup(s)))
						rc = nomem(err, path);
					else
						y->n++;
				}
				if (!in_seq)
					expect_key = 1;
			}
			break;
		}
		case YAML_ALIAS_EVENT:
			rc = fail(err, "%s:%lu: YAML aliases are not supported", path, line);
			break;
		default:
			break;
		}
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&p);

	for (int k = 0; rc == 0 && k < 4; k++)
		if (!v[k].seen || v[k].n == 0)
			rc = fail(err, "%s: key '%s' is missing or empty (one entry per dimension)", path,
			          keys[k]);
	for (int k = 1; rc == 0 && k < 4; k++)
		if (v[k].n != v[0].n)
			rc = fail(err, "%s:%lu: key '%s' has %d entries but topology has %d", path,
			          v[k].key_line, keys[k], v[k].n, v[0].n);
	if (rc == 0) {
		net->ndims = v[0].n;
		uint64_t total = 1;
		for (int d = 0; d < net->ndims && rc == 0; d++) {
			double cnt, bw, lat;
			if (topo_from_name(v[0].s[d], &net->topo[d]))
				rc = fail(err, "%s:%lu: key 'topology': unknown topology '%s' "
				          "(Ring, Switch or FullyConnected)", path, v[0].line[d], v[0].s[d]);
			else if (parse_number(v[1].s[d], &cnt) || cnt < 1 || cnt != floor(cnt) ||
			         cnt > 1e6)
				rc = fail(err, "%s:%lu: key 'npus_count': '%s' is not a positive integer",
				          path, v[1].line[d], v[1].s[d]);
			else if (parse_number(v[2].s[d], &bw) || !(bw > 0))
				rc = fail(err, "%s:%lu: key 'bandwidth': '%s' is not a positive number",
				          path, v[2].line[d], v[2].s[d]);
			else if (parse_number(v[3].s[d], &lat) || lat < 0)
				rc = fail(err, "%s:%lu: key 'latency': '%s' is not a non-negative number",
				          path, v[3].line[d], v[3].s[d]);
			else {
				net->size[d] = (uint32_t)cnt;
				net->bw[d] = bw;
				net->latency[d] = lat;
				net->stride[d] = (uint32_t)total;
				total *= (uint64_t)cnt;
				if (total > (1u << 24))
					rc = fail(err, "%s:%lu: key 'npus_count': more than %u NPUs in all",
					          path, v[1].line[d], 1u << 24);
			}
		}
		net->npus = (uint32_t)total;
	}
	for (int k = 0; k < 4; k++)
		yval_free(&v[k]);
	return rc;
}

static int network_load(chakra_sim_network *net, const char *path, char *err)
{
	size_t len;
	int code;
	char *text = slurp_text(path, &len, err, &code);
	if (!text)
		return code;
	int rc = network_parse(net, path, text, len, err);
	free(text);
	return rc;
}

/* ================= flat JSON (system, groups) ================= */

/* The system and group files are one object of scalars and flat lists;
 * the walker records each top-level key with its line and values. */
typedef struct jitem {
	int is_str;
	int is_bool;
	double num;
	int is_int;
	char *str;
} jitem;

typedef struct jentry {
	char *key;
	unsigned long line;
	int is_list;
	int is_object;      /* nested object: only an error if the key is known */
	jitem *items;
	size_t n, cap;
} jentry;

typedef struct jflat {
	const char *text;
	yajl_handle h;
	size_t base;        /* bytes consumed before the current chunk */
	int depth;          /* 1 = top-level object */
	int list_depth;
	jentry *e;
	size_t n, cap;
	int bad_top;
	unsigned long bad_line;
	int oom, too_deep;  /* why a callback stopped the parse */
	size_t line_off;    /* line number of the text up to line_off */
	unsigned long line_no;
} jflat;

/* Line of the parser's position (counted on from the last call: keys come
 * in order, so the whole file is scanned once). */
static unsigned long jline(jflat *j)
{
	size_t off = j->base + yajl_get_bytes_consumed(j->h);
	if (off < j->line_off) {
		j->line_off = 0;
		j->line_no = 1;
	}
	for (size_t i = j->line_off; i < off && j->text[i]; i++)
		j->line_no += j->text[i] == '\n';
	j->line_off = off;
	return j->line_no;
}

static jentry *jcur(jflat *j)
{
	return j->n ? &j->e[j->n - 1] : NULL;
}

static int jadd_item(jflat *j, jitem it)
{
	jentry *e = jcur(j);
	if (!e || j->depth != 1) {
		free(it.str);
		return 1; /* inside an ignored nested object */
	}
	if (j->list_depth > 1) {
		free(it.str);
		e->is_object = 1; /* nested list: treated like a nested value */
		return 1;
	}
	if (e->n == e->cap) {
		size_t nc = e->cap ? e->cap * 2 : 8;
		jitem *ni = realloc(e->items, nc * sizeof *ni);
		if (!ni) {
			free(it.str);
			j->oom = 1;
			return 0;
		}
		e->items = ni;
		e->cap = nc;
	}
	e->items[e->n++] = it;
	return 1;
}

static int j_null(void *ctx)
{
	jitem it = { 0 };
	it.is_str = -1;
	return jadd_item(ctx, it);
}

static int j_bool(void *ctx, int b)
{
	jitem it = { 0 };
	it.is_bool = 1;
	it.num = b;
	it.is_int = 1;
	return jadd_item(ctx, it);
}

static int j_number(void *ctx, const char *s, size_t len)
{
	char buf[64];
	jitem it = { 0 };
	if (len >= sizeof buf)
		len = sizeof buf - 1;
	memcpy(buf, s, len);
	buf[len] = 0;
	it.num = strtod(buf, NULL);
	it.is_int = !strpbrk(buf, ".eE");
	return jadd_item(ctx, it);
}

static int j_string(void *ctx, const unsigned char *s, size_t len)
{
	jitem it = { 0 };
	it.is_str = 1;
	it.str = strndup((const char *)s, len);
	if (!it.str) {
		((jflat *)ctx)->oom = 1;
		return 0;
	}
	return jadd_item(ctx, it);
}

static int j_start_map(void *ctx)
{
	jflat *j = ctx;
	if (j->depth == 0 && j->n == 0 && !j->bad_top) {
		j->depth = 1;
		return 1;
	}
	if (j->depth == 1 && jcur(j))
		jcur(j)->is_object = 1;
	if (j->depth + j->list_depth >= SIM_CONFIG_DEPTH) {
		j->too_deep = 1;
		return 0;
	}
	j->depth++;
	return 1;
}

static int j_map_key(void *ctx, const unsigned char *s, size_t len)
{
	jflat *j = ctx;
	if (j->depth != 1)
		return 1;
	if (j->n == j->cap) {
		size_t nc = j->cap ? j->cap * 2 : 16;
		jentry *ne = realloc(j->e, nc * sizeof *ne);
		if (!ne) {
			j->oom = 1;
			return 0;
		}
		j->e = ne;
		j->cap = nc;
	}
	jentry *e = &j->e[j->n++];
	memset(e, 0, sizeof *e);
	e->key = strndup((const char *)s, len);
	e->line = jline(j);
	if (!e->key)
		j->oom = 1;
	return e->key != NULL;
}

static int j_end_map(void *ctx)
{
	((jflat *)ctx)->depth--;
	return 1;
}

static int j_start_array(void *ctx)
{
	jflat *j = ctx;
	if (j->depth == 0) {
		j->bad_top = 1;
		j->bad_line = jline(j);
		return 0;
	}
	if (j->depth == 1 && j->list_depth == 0 && jcur(j))
		jcur(j)->is_list = 1;
	if (j->depth + j->list_depth >= SIM_CONFIG_DEPTH) {
		j->too_deep = 1;
		return 0;
	}
	j->list_depth++;
	return 1;
}

static int j_end_array(void *ctx)
{
	((jflat *)ctx)->list_depth--;
	return 1;
}

static const yajl_callbacks jcb = {
	j_null, j_bool, NULL, NULL, j_number, j_string,
	j_start_map, j_map_key, j_end_map, j_start_array, j_end_array
};

static void jflat_free(jflat *j)
{
	for (size_t i = 0; i < j->n; i++) {
		for (size_t k = 0; k < j->e[i].n; k++)
			free(j->e[i].items[k].str);
		free(j->e[i].items);
		free(j->e[i].key);
	}
	free(j->e);
	memset(j, 0, sizeof *j);
}

static int jflat_parse(jflat *j, const char *path, const char *text, size_t len, char *err)
{
	memset(j, 0, sizeof *j);
	j->text = text;
	j->line_no = 1;
	if (len > SIM_CONFIG_MAX)
		return fail(err, "%s: larger than %zu MiB: not a configuration file", path,
		            SIM_CONFIG_MAX >> 20);
	/* YAJL does not check its own allocations: a failure jumps back here
	 * (jguard.h), every block YAJL held is freed and its state dropped. */
	chakra__jg *a = chakra__jg_new();
	if (!a)
		return nomem(err, path);
	if (setjmp(a->fail)) {
		chakra__jg_release(a);
		jflat_free(j);
		return nomem(err, path);
	}
	j->h = yajl_alloc(&jcb, &a->funcs, j);
	yajl_status st = yajl_parse(j->h, (const unsigned char *)text, len);
	if (st == yajl_status_ok)
		st = yajl_complete_parse(j->h);
	int rc = 0;
	if (j->oom) {
		rc = nomem(err, path);
	} else if (j->too_deep) {
		rc = fail(err, "%s:%lu: nested deeper than %d levels", path, jline(j),
		          SIM_CONFIG_DEPTH);
	} else if (j->bad_top) {
		rc = fail(err, "%s:%lu: expected a JSON object at the top level", path, j->bad_line);
	} else if (st != yajl_status_ok) {
		size_t off = yajl_get_bytes_consumed(j->h);
		unsigned long line = 1;
		for (size_t i = 0; i < off && i < len; i++)
			line += text[i] == '\n';
		unsigned char *msg = yajl_get_error(j->h, 0, NULL, 0);
		rc = fail(err, "%s:%lu: JSON syntax error: %s", path, line,
		          msg ? (const char *)msg : "invalid");
		if (msg)
			yajl_free_error(j->h, msg);
	} else if (j->depth != 0 || (j->n == 0 && len && !memchr(text, '{', len))) {
		rc = fail(err, "%s:1: expected a JSON object", path);
	}
	yajl_free(j->h);
	j->h = NULL;
	chakra__jg_free(a);
	if (rc)
		jflat_free(j);
	return rc;
}

/* ================= system JSON ================= */

static int want_number(const jentry *e, const char *path, char *err, double lo, double hi,
                       int integer, double *out)
{
	if (e->is_list || e->is_object || e->n != 1 || e->items[0].is_str)
		return fail(err, "%s:%lu: key '%s': expected a number", path, e->line, e->key);
	double v = e->items[0].num;
	if (integer && v != floor(v))
		return fail(err, "%s:%lu: key '%s': expected an integer, found %g", path, e->line,
		            e->key, v);
	if (v < lo || v > hi)
		return fail(err, "%s:%lu: key '%s': %g is out of range [%g, %g]", path, e->line,
		            e->key, v, lo, hi);
	*out = v;
	return 0;
}

static int want_string(const jentry *e, const char *path, char *err, const char **out)
{
	if (e->is_list || e->is_object || e->n != 1 || e->items[0].is_str != 1)
		return fail(err, "%s:%lu: key '%s': expected a string", path, e->line, e->key);
	*out = e->items[0].str;
	return 0;
}

static int alg_from_name(const char *s, chakra_sim_algorithm *a)
{
	if (!strcmp(s, "ring"))
		*a = CHAKRA_SIM_ALG_RING;
	else if (!strcmp(s, "direct"))
		*a = CHAKRA_SIM_ALG_DIRECT;
	else if (!strcmp(s, "halvingDoubling"))
		*a = CHAKRA_SIM_ALG_HALVING_DOUBLING;
	else if (!strcmp(s, "oneRing"))
		*a = CHAKRA_SIM_ALG_ONE_RING;
	else if (!strcmp(s, "oneDirect"))
		*a = CHAKRA_SIM_ALG_ONE_DIRECT;
	else if (!strcmp(s, "oneHalvingDoubling"))
		*a = CHAKRA_SIM_ALG_ONE_HALVING_DOUBLING;
	else if (!strcmp(s, "doubleBinaryTree"))
		*a = CHAKRA_SIM_ALG_DOUBLE_BINARY_TREE;
	else
		return -1;
	return 0;
}

static int system_parse(chakra_sim_system *sys, const char *path, const char *text, size_t len,
                     char *err)
{
	static const char *const impl_keys[CHAKRA_SIM_IMPL_COUNT] = {
		"all-reduce-implementation", "all-gather-implementation",
		"reduce-scatter-implementation", "all-to-all-implementation"
	};
	memset(sys, 0, sizeof *sys);
	sys->active_chunks = 1;
	sys->splits = 1;
	sys->local_bw_aware = 0;
	sys->local_mem_bw = 0;
	jflat j;
	int rc = jflat_parse(&j, path, text, len, err), have_lbw = 0;
	if (rc)
		return rc;
	for (size_t i = 0; i < j.n && rc == 0; i++) {
		const jentry *e = &j.e[i];
		double v = 0;
		const char *s = "";
		if (!strcmp(e->key, "scheduling-policy")) {
			if (!(rc = want_string(e, path, err, &s))) {
				if (!strcmp(s, "LIFO"))
					sys->lifo = 1;
				else if (!strcmp(s, "FIFO"))
					sys->lifo = 0;
				else
					rc = fail(err, "%s:%lu: key '%s': '%s' is neither LIFO nor FIFO", path,
					          e->line, e->key, s);
			}
		} else if (!strcmp(e->key, "endpoint-delay")) {
			if (!(rc = want_number(e, path, err, 0, 1e12, 1, &v)))
				sys->endpoint_delay = (uint64_t)v;
		} else if (!strcmp(e->key, "active-chunks-per-dimension")) {
			if (!(rc = want_number(e, path, err, 1, 1e6, 1, &v)))
				sys->active_chunks = (uint32_t)v;
		} else if (!strcmp(e->key, "preferred-dataset-splits")) {
			if (!(rc = want_number(e, path, err, 1, 1e6, 1, &v)))
				sys->splits = (uint32_t)v;
		} else if (!strcmp(e->key, "collective-optimization")) {
			if (!(rc = want_string(e, path, err, &s))) {
				if (!strcmp(s, "localBWAware"))
					sys->local_bw_aware = 1;
				else if (!strcmp(s, "baseline"))
					sys->local_bw_aware = 0;
				else
					rc = fail(err, "%s:%lu: key '%s': '%s' is neither localBWAware nor "
					          "baseline", path, e->line, e->key, s);
			}
		} else if (!strcmp(e->key, "local-mem-bw")) {
			if (!(rc = want_number(e, path, err, 1e-9, 1e12, 0, &v))) {
				sys->local_mem_bw = v;
				have_lbw = 1;
			}
		} else if (!strcmp(e->key, "boost-mode")) {
			if (!(rc = want_number(e, path, err, 0, 1, 1, &v)))
				sys->boost_mode = (int)v;
		} else if (!strcmp(e->key, "roofline-enabled")) {
			if (!(rc = want_number(e, path, err, 0, 1, 1, &v)))
				sys->roofline = (int)v;
		} else if (!strcmp(e->key, "peak-perf")) {
			if (!(rc = want_number(e, path, err, 1e-9, 1e12, 0, &v)))
				sys->peak_perf = v;
		} else {
			int k;
			for (k = 0; k < CHAKRA_SIM_IMPL_COUNT; k++)
				if (!strcmp(e->key, impl_keys[k]))
					break;
			if (k == CHAKRA_SIM_IMPL_COUNT)
				continue; /* unknown keys are ignored, as ASTRA-sim does */
			if (!e->is_list || e->is_object || e->n == 0) {
				rc = fail(err, "%s:%lu: key '%s': expected a non-empty list of algorithms "
				          "(one per dimension)", path, e->line, e->key);
				break;
			}
			if (e->n > SIM_MAX_DIMS) {
				rc = fail(err, "%s:%lu: key '%s': more than %d entries", path, e->line,
				          e->key, SIM_MAX_DIMS);
				break;
			}
			for (size_t x = 0; x < e->n && rc == 0; x++) {
				if (e->items[x].is_str != 1)
					rc = fail(err, "%s:%lu: key '%s': entry %zu is not a string", path,
					          e->line, e->key, x);
				else if (alg_from_name(e->items[x].str, &sys->impl[k][x]))
					rc = fail(err, "%s:%lu: key '%s': unknown algorithm '%s' (ring, "
					          "direct, halvingDoubling, doubleBinaryTree, oneRing, oneDirect, "
					          "oneHalvingDoubling)", path, e->line, e->key, e->items[x].str);
				else if (x > 0 && sys->impl[k][x] >= CHAKRA_SIM_ALG_ONE_RING &&
				         sys->impl[k][0] < CHAKRA_SIM_ALG_ONE_RING)
					/* ASTRA-sim stops its dimensions at the first flat ring
					 * (a mix it does not define otherwise) */
					rc = fail(err, "%s:%lu: key '%s': '%s' (one flat ring over every "
					          "NPU) after per-dimension entries is not supported: put it "
					          "first", path, e->line, e->key, e->items[x].str);
			}
			sys->n_impl[k] = (int)e->n;
		}
	}
	if (rc == 0 && !have_lbw)
		rc = fail(err, "%s: key 'local-mem-bw' is missing (GB/s of local memory, needed for "
		          "the cost of reductions)", path);
	if (rc == 0 && sys->roofline && !(sys->peak_perf > 0))
		rc = fail(err, "%s: key 'peak-perf' is missing but roofline-enabled is 1", path);
	for (int k = 0; rc == 0 && k < CHAKRA_SIM_IMPL_COUNT; k++)
		if (!sys->n_impl[k])
			rc = fail(err, "%s: key '%s' is missing", path, impl_keys[k]);
	jflat_free(&j);
	return rc;
}

static int system_load(chakra_sim_system *sys, const char *path, char *err)
{
	size_t len;
	int code;
	char *text = slurp_text(path, &len, err, &code);
	if (!text)
		return code;
	int rc = system_parse(sys, path, text, len, err);
	free(text);
	return rc;
}

/* ================= communicator groups ================= */

void chakra_sim_groups_free(chakra_sim_groups *gs)
{
	if (!gs)
		return;
	for (size_t i = 0; i < gs->n; i++) {
		free(gs->g[i].name);
		free(gs->g[i].ranks);
	}
	free(gs->g);
	gs->g = NULL;
	gs->n = 0;
}

/* The one reader (lib/json/groups.c), copied into the simulator's own
 * blocks: a configuration file is small here too. */
static int groups_parse(chakra_sim_groups *gs, const char *path, const char *text, size_t len,
                     uint32_t npus, char *err)
{
	memset(gs, 0, sizeof *gs);
	if (len > SIM_CONFIG_MAX)
		return fail(err, "%s: larger than %zu MiB: not a configuration file", path,
		            SIM_CONFIG_MAX >> 20);
	chakra__groups cg;
	int rc = chakra__groups_parse(&cg, path, text, len, npus, err, SIM_ERR_LEN);
	if (rc)
		return rc;
	gs->g = calloc(cg.n ? cg.n : 1, sizeof *gs->g);
	if (!gs->g)
		rc = nomem(err, path);
	for (size_t i = 0; i < cg.n && rc == 0; i++, gs->n++) {
		chakra_sim_group *g = &gs->g[i];
		g->name = strdup(cg.g[i].name);
		g->ranks = malloc(cg.g[i].n * sizeof *g->ranks);
		g->n = cg.g[i].n;
		if (!g->name || !g->ranks)
			rc = nomem(err, path);
		else
			memcpy(g->ranks, cg.g[i].ranks, g->n * sizeof *g->ranks);
	}
	chakra__groups_free(&cg);
	if (rc)
		chakra_sim_groups_free(gs);
	return rc;
}

static int groups_load(chakra_sim_groups *gs, const char *path, uint32_t npus, char *err)
{
	size_t len;
	int code;
	char *text = slurp_text(path, &len, err, &code);
	if (!text)
		return code;
	int rc = groups_parse(gs, path, text, len, npus, err);
	free(text);
	return rc;
}

const chakra_sim_group *chakra_sim_groups_find(const chakra_sim_groups *gs, const char *name, size_t len)
{
	for (size_t i = 0; gs && name && i < gs->n; i++)
		if (strlen(gs->g[i].name) == len && !memcmp(gs->g[i].name, name, len))
			return &gs->g[i];
	return NULL;
}

/* ================= public entry points ================= */

/* Copies the message into the caller's buffer (any size). */
static int report(int rc, const char *e, char *err, size_t errlen)
{
	if (rc && err && errlen)
		snprintf(err, errlen, "%s", e);
	return rc;
}

int chakra_sim_network_parse(chakra_sim_network *net, const char *name, const char *text,
                             size_t len, char *err, size_t errlen)
{
	char e[SIM_ERR_LEN] = "";
	if (!net || (!text && len))
		return report(CHAKRA_EINVAL, "chakra_sim_network_parse: NULL argument", err, errlen);
	return report(network_parse(net, name ? name : "<network>", text ? text : "", len, e), e,
	              err, errlen);
}

int chakra_sim_network_load(chakra_sim_network *net, const char *path, char *err, size_t errlen)
{
	char e[SIM_ERR_LEN] = "";
	if (!net || !path)
		return report(CHAKRA_EINVAL, "chakra_sim_network_load: NULL argument", err, errlen);
	return report(network_load(net, path, e), e, err, errlen);
}

int chakra_sim_system_parse(chakra_sim_system *sys, const char *name, const char *text,
                            size_t len, char *err, size_t errlen)
{
	char e[SIM_ERR_LEN] = "";
	if (!sys || (!text && len))
		return report(CHAKRA_EINVAL, "chakra_sim_system_parse: NULL argument", err, errlen);
	return report(system_parse(sys, name ? name : "<system>", text ? text : "", len, e), e,
	              err, errlen);
}

int chakra_sim_system_load(chakra_sim_system *sys, const char *path, char *err, size_t errlen)
{
	char e[SIM_ERR_LEN] = "";
	if (!sys || !path)
		return report(CHAKRA_EINVAL, "chakra_sim_system_load: NULL argument", err, errlen);
	return report(system_load(sys, path, e), e, err, errlen);
}

int chakra_sim_groups_parse(chakra_sim_groups *gs, const char *name, const char *text,
                            size_t len, uint32_t npus, char *err, size_t errlen)
{
	char e[SIM_ERR_LEN] = "";
	if (!gs || (!text && len))
		return report(CHAKRA_EINVAL, "chakra_sim_groups_parse: NULL argument", err, errlen);
	return report(groups_parse(gs, name ? name : "<groups>", text ? text : "", len, npus, e),
	              e, err, errlen);
}

int chakra_sim_groups_load(chakra_sim_groups *gs, const char *path, uint32_t npus, char *err,
                           size_t errlen)
{
	char e[SIM_ERR_LEN] = "";
	if (!gs || !path)
		return report(CHAKRA_EINVAL, "chakra_sim_groups_load: NULL argument", err, errlen);
	return report(groups_load(gs, path, npus, e), e, err, errlen);
}

/* The parser's checks for a network filled by hand, without line numbers. */
int chakra_sim_network_check(chakra_sim_network *net, char *err, size_t errlen)
{
	char e[SIM_ERR_LEN] = "";
	if (!net)
		return report(CHAKRA_EINVAL, "chakra_sim_network_check: NULL network", err, errlen);
	if (net->ndims < 1 || net->ndims > SIM_MAX_DIMS)
		return report(fail(e, "network: %d dimensions (1..%d)", net->ndims, SIM_MAX_DIMS), e,
		              err, errlen);
	uint64_t total = 1;
	for (int d = 0; d < net->ndims; d++) {
		int rc = 0;
		if (net->topo[d] != CHAKRA_SIM_RING && net->topo[d] != CHAKRA_SIM_SWITCH &&
		    net->topo[d] != CHAKRA_SIM_FULLY_CONNECTED)
			rc = fail(e, "network: dimension %d: unknown topology %d", d, (int)net->topo[d]);
		else if (net->size[d] < 1 || net->size[d] > 1000000)
			rc = fail(e, "network: dimension %d: npus_count %u is not in 1..1000000", d,
			          net->size[d]);
		else if (!(net->bw[d] > 0) || !isfinite(net->bw[d]))
			rc = fail(e, "network: dimension %d: bandwidth %g is not a positive number", d,
			          net->bw[d]);
		else if (!(net->latency[d] >= 0) || !isfinite(net->latency[d]))
			rc = fail(e, "network: dimension %d: latency %g is not a non-negative number", d,
			          net->latency[d]);
		if (rc)
			return report(rc, e, err, errlen);
		net->stride[d] = (uint32_t)total;
		total *= net->size[d];
		if (total > (1u << 24))
			return report(fail(e, "network: more than %u NPUs in all", 1u << 24), e, err,
			              errlen);
	}
	net->npus = (uint32_t)total;
	return 0;
}
