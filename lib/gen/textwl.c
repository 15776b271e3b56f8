/* SPDX-License-Identifier: Apache-2.0 */
/* ASTRA-sim 1.0 text workloads: header line, layer count, one layer a line.
 * Fields are separated by any whitespace (files mix tabs, spaces, CRLF). */
#include "gen_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "chakra/chakra.h"
#include "../modmem.h"

static const char *const policy_names[] = {
	[TP_NONE] = "NONE",
	[TP_DATA] = "DATA",
	[TP_MODEL] = "MODEL",
	[TP_HYBRID_DATA_MODEL] = "HYBRID_DATA_MODEL",
	[TP_HYBRID_MODEL_DATA] = "HYBRID_MODEL_DATA",
	[TP_HYBRID_TRANSFORMER] = "HYBRID_TRANSFORMER",
	[TP_HYBRID_TRANSFORMER_FWD_IN_BCKWD] = "HYBRID_TRANSFORMER_FWD_IN_BCKWD",
	[TP_HYBRID_DLRM] = "HYBRID_DLRM",
	[TP_HYBRID_DLRM_ENHANCED] = "HYBRID_DLRM_ENHANCED",
	[TP_HYBRID_CUSTOMIZED] = "HYBRID_CUSTOMIZED",
	[TP_MICRO] = "MICRO",
	[TP_DISTRIBUTED_INFERENCE] = "DISTRIBUTED_INFERENCE",
};

const char *text_policy_name(text_policy p)
{
	return policy_names[p];
}

text_policy text_policy_from_name(const char *s)
{
	for (int i = 1; i < (int)(sizeof policy_names / sizeof *policy_names); i++)
		if (!strcmp(s, policy_names[i]))
			return (text_policy)i;
	return TP_NONE;
}

int text_coll_chakra(text_coll c)
{
	switch (c) {
	case TC_ALLREDUCE: return CHAKRA_ALL_REDUCE;
	case TC_ALLGATHER: return CHAKRA_ALL_GATHER;
	case TC_REDUCESCATTER: return CHAKRA_REDUCE_SCATTER;
	case TC_ALLTOALL: return CHAKRA_ALL_TO_ALL;
	default: return -1;
	}
}

const char *text_coll_name(text_coll c)
{
	static const char *const n[] = { "NONE", "ALLREDUCE", "ALLGATHER", "REDUCESCATTER",
		                             "ALLTOALL" };
	return n[c];
}

static int coll_from_name(const char *s, text_coll *out)
{
	for (int i = 0; i <= TC_ALLTOALL; i++)
		if (!strcmp(s, text_coll_name((text_coll)i))) {
			*out = (text_coll)i;
			return 0;
		}
	return -1;
}

/* Split a line into whitespace-separated tokens, in place. */
static int tokenize(char *line, char **tok, int cap)
{
	int n = 0;
	char *save = NULL;
	for (char *t = strtok_r(line, " \t\r\n\v\f", &save); t;
	     t = strtok_r(NULL, " \t\r\n\v\f", &save)) {
		if (n < cap)
			tok[n] = t;
		n++;
	}
	return n;
}

/* An input that is not there or is a directory, in the words every
 * command uses. */
static int input_missing(const gen_sink *E, const char *path)
{
	struct stat st;
	if (!strcmp(path, "-"))
		return 0;
	if (stat(path, &st) < 0) {
		if (errno == ENOENT)
			gen_err(E, "%s: no such file or directory", path);
		else
			gen_err(E, "%s: cannot open: %s", path, strerror(errno));
		return 1;
	}
	if (S_ISDIR(st.st_mode)) {
		gen_err(E, "%s: is a directory", path);
		return 1;
	}
	return 0;
}

static int parse_u64(const char *s, uint64_t *out)
{
	if (*s < '0' || *s > '9')
		return -1;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

static int parse_i64(const char *s, int64_t *out)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || *end || end == s)
		return -1;
	*out = v;
	return 0;
}

typedef struct lines {
	const gen_sink *E;
	FILE *f;
	const char *path;
	char *buf;
	size_t cap;
	int no;
} lines;

/* Next line that has a token; returns the token count (0 at end). */
static int next_line(lines *L, char **tok, int cap)
{
	for (;;) {
		ssize_t n = getline(&L->buf, &L->cap, L->f);
		if (n < 0)
			return 0;
		L->no++;
		if (memchr(L->buf, '\0', (size_t)n)) {
			gen_err(L->E, "%s:%d: NUL byte: not a text workload", L->path, L->no);
			return -1;
		}
		int k = tokenize(L->buf, tok, cap);
		if (k)
			return k;
	}
}

/* Header "COUNT: a b c" lists (checkpoints of FWD_IN_BCKWD). */
static int parse_list(const lines *L, char **tok, int ntok, int *i, const char *key,
                      text_workload *w, int which)
{
	if (*i >= ntok || strcmp(tok[*i], key)) {
		gen_err(L->E, "%s:%d: expected '%s' in the header of %s", L->path, L->no, key,
		         text_policy_name(w->policy));
		return -1;
	}
	(*i)++;
	int64_t count;
	if (*i >= ntok || parse_i64(tok[*i], &count) < 0 || count < 0) {
		gen_err(L->E, "%s:%d: '%s' must be followed by a count", L->path, L->no, key);
		return -1;
	}
	(*i)++;
	for (int64_t k = 0; k < count; k++, (*i)++) {
		int64_t layer;
		if (*i >= ntok || parse_i64(tok[*i], &layer) < 0) {
			gen_err(L->E, "%s:%d: '%s' lists %lld layers but %lld are given", L->path, L->no,
			         key, (long long)count, (long long)k);
			return -1;
		}
		if (layer < 0 || (uint64_t)layer >= w->nlayers) {
			gen_err(L->E, "%s:%d: '%s' layer %lld is outside 0..%u", L->path, L->no, key,
			         (long long)layer, w->nlayers - 1);
			return -1;
		}
		if (which)
			w->layers[layer].initiates = 1;
		else
			w->layers[layer].checkpoint = 1;
	}
	return 0;
}

static const char *const field_names[] = {
	"layer name", "reserved", "forward compute", "forward comm type", "forward comm size",
	"input-grad compute", "input-grad comm type", "input-grad comm size",
	"weight-grad compute", "weight-grad comm type", "weight-grad comm size", "update time",
	"layer parallelism"
};

static int parse_layer(const lines *L, char **tok, int ntok, text_workload *w, text_layer *l)
{
	int want = w->policy == TP_HYBRID_CUSTOMIZED ? 13 : 12;
	if (ntok != want) {
		gen_err(L->E, "%s:%d: a %s layer line has %d fields (name, reserved, then compute, comm "
		         "type and comm size for forward, input gradient and weight gradient, update "
		         "time%s); this one has %d",
		         L->path, L->no, text_policy_name(w->policy), want,
		         want == 13 ? ", layer parallelism" : "", ntok);
		return -1;
	}
	size_t nl = strlen(tok[0]);
	if (nl >= sizeof l->name) {
		gen_err(L->E, "%s:%d: layer name longer than %zu bytes", L->path, L->no,
		         sizeof l->name - 1);
		return -1;
	}
	memcpy(l->name, tok[0], nl + 1);
	int64_t reserved;
	if (parse_i64(tok[1], &reserved) < 0) {
		gen_err(L->E, "%s:%d: field 2 (%s) '%s' is not an integer", L->path, L->no, field_names[1],
		         tok[1]);
		return -1;
	}
	for (int ph = 0; ph < 3; ph++) {
		int f = 2 + ph * 3;
		if (parse_u64(tok[f], &l->compute[ph]) < 0) {
			gen_err(L->E, "%s:%d: field %d (%s) '%s' is not a non-negative integer (cycles)",
			         L->path, L->no, f + 1, field_names[f], tok[f]);
			return -1;
		}
		if (coll_from_name(tok[f + 1], &l->coll[ph]) < 0) {
			gen_err(L->E, "%s:%d: field %d (%s) '%s' is not one of NONE, ALLREDUCE, ALLGATHER, "
			         "REDUCESCATTER, ALLTOALL",
			         L->path, L->no, f + 2, field_names[f + 1], tok[f + 1]);
			return -1;
		}
		if (parse_u64(tok[f + 2], &l->comm_size[ph]) < 0) {
			gen_err(L->E, "%s:%d: field %d (%s) '%s' is not a non-negative integer (bytes)",
			         L->path, L->no, f + 3, field_names[f + 2], tok[f + 2]);
			return -1;
		}
		if (!l->comm_size[ph])
			l->coll[ph] = TC_NONE; /* nothing to move */
	}
	if (parse_u64(tok[11], &l->update) < 0) {
		gen_err(L->E, "%s:%d: field 12 (%s) '%s' is not a non-negative integer (cycles)", L->path,
		         L->no, field_names[11], tok[11]);
		return -1;
	}
	l->policy = w->policy;
	if (want == 13) {
		l->policy = text_policy_from_name(tok[12]);
		if (l->policy != TP_DATA && l->policy != TP_MODEL &&
		    l->policy != TP_HYBRID_DATA_MODEL && l->policy != TP_HYBRID_MODEL_DATA) {
			gen_err(L->E, "%s:%d: field 13 (%s) '%s' must be DATA, MODEL, HYBRID_DATA_MODEL or "
			         "HYBRID_MODEL_DATA",
			         L->path, L->no, field_names[12], tok[12]);
			return -1;
		}
	}
	l->line = L->no;
	return 0;
}

int text_workload_load(text_workload *w, const char *path, const gen_sink *E)
{
	memset(w, 0, sizeof *w);
	w->mp_group = -1;
	w->dlrm_last_bottom = -1;
	lines L = { E, NULL, path, NULL, 0, 0 };
	if (input_missing(E, path))
		return CHAKRA_EIO;
	L.f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	if (!L.f) {
		gen_err(E, "%s: cannot open: %s", path, strerror(errno));
		return CHAKRA_EIO;
	}
	char *tok[64], *htok[64];
	char *header = NULL;
	int hline = 0, ntok, hn, count_line = 0;
	int rc = CHAKRA_ECORRUPT;

	hn = next_line(&L, tok, 64);
	if (hn <= 0) {
		if (hn == 0)
			gen_err(E, "%s:%d: empty file: expected the parallelism type (DATA, MODEL, "
			         "HYBRID_...)", path, L.no);
		goto out;
	}
	if (hn > 64) {
		gen_err(E, "%s:%d: header has too many fields (%d)", path, L.no, hn);
		goto out;
	}
	/* Keep the header: its lists name layers, checked once they are read. */
	{
		size_t total = 0;
		for (int i = 0; i < hn; i++)
			total += strlen(tok[i]) + 1;
		header = chakra_malloc(total);
		if (!header) {
			gen_err(E, "out of memory");
			rc = CHAKRA_ENOMEM;
			goto out;
		}
		char *p = header;
		for (int i = 0; i < hn; i++) {
			size_t l = strlen(tok[i]) + 1;
			memcpy(p, tok[i], l);
			htok[i] = p;
			p += l;
		}
		hline = L.no;
	}
	w->policy = text_policy_from_name(htok[0]);
	if (w->policy == TP_NONE) {
		gen_err(E, "%s:%d: unknown parallelism type '%s' (expected DATA, MODEL, "
		         "HYBRID_DATA_MODEL, HYBRID_MODEL_DATA, HYBRID_TRANSFORMER, "
		         "HYBRID_TRANSFORMER_FWD_IN_BCKWD, HYBRID_DLRM, HYBRID_DLRM_ENHANCED, "
		         "HYBRID_CUSTOMIZED, MICRO or DISTRIBUTED_INFERENCE)",
		         path, hline, htok[0]);
		goto out;
	}
	ntok = next_line(&L, tok, 64);
	uint64_t nl;
	if (ntok <= 0) {
		if (ntok == 0)
			gen_err(E, "%s:%d: file ends before the layer count", path, L.no);
		goto out;
	}
	if (ntok != 1 || parse_u64(tok[0], &nl) < 0 || nl == 0 || nl > 1000000) {
		gen_err(E, "%s:%d: expected the number of layers (1..1000000) alone on the line, got "
		         "'%s'%s",
		         path, L.no, tok[0], ntok > 1 ? " and more" : "");
		goto out;
	}
	w->nlayers = (uint32_t)nl;
	w->layers = chakra_calloc(nl, sizeof *w->layers);
	if (!w->layers) {
		gen_err(E, "out of memory");
		rc = CHAKRA_ENOMEM;
		goto out;
	}
	/* Header options, now that the layer count is known. */
	{
		int i = 1;
		count_line = L.no;
		L.no = hline; /* errors in the header name its line */
		if (w->policy == TP_HYBRID_TRANSFORMER || w->policy == TP_HYBRID_TRANSFORMER_FWD_IN_BCKWD) {
			if (i + 1 >= hn || strcmp(htok[i], "model_parallel_NPU_group:") ||
			    parse_i64(htok[i + 1], &w->mp_group) < 0 || w->mp_group < 1) {
				gen_err(E, "%s:%d: %s needs 'model_parallel_NPU_group: N' (N >= 1) after the "
				         "type",
				         path, hline, htok[0]);
				goto out;
			}
			i += 2;
			if (w->policy == TP_HYBRID_TRANSFORMER_FWD_IN_BCKWD) {
				if (parse_list(&L, htok, hn, &i, "checkpoints:", w, 0) < 0 ||
				    parse_list(&L, htok, hn, &i, "checkpoint_initiates:", w, 1) < 0)
					goto out;
			}
		} else if (w->policy == TP_HYBRID_DLRM || w->policy == TP_HYBRID_DLRM_ENHANCED) {
			if (i < hn && !strcmp(htok[i], "DLRM_LAST_BOTTOM_LAYER:"))
				i++;
			if (i >= hn || parse_i64(htok[i], &w->dlrm_last_bottom) < 0) {
				gen_err(E, "%s:%d: %s needs the index of the last bottom-MLP layer after the "
				         "type",
				         path, hline, htok[0]);
				goto out;
			}
			if (w->dlrm_last_bottom < 0 || (uint64_t)w->dlrm_last_bottom + 1 >= nl) {
				gen_err(E, "%s:%d: last bottom-MLP layer %lld must be in 0..%llu (a top layer "
				         "must follow it)",
				         path, hline, (long long)w->dlrm_last_bottom,
				         (unsigned long long)nl - 2);
				goto out;
			}
			i++;
		}
		if (i < hn) {
			gen_err(E, "%s:%d: unexpected '%s' in the header of a %s workload", path, hline,
			         htok[i], htok[0]);
			goto out;
		}
	}
	L.no = count_line;
	for (uint32_t k = 0; k < w->nlayers; k++) {
		ntok = next_line(&L, tok, 64);
		if (ntok < 0)
			goto out;
		if (ntok == 0) {
			gen_err(E, "%s:%d: file ends after %u of the %u layers it declares", path, L.no, k,
			         w->nlayers);
			goto out;
		}
		if (parse_layer(&L, tok, ntok, w, &w->layers[k]) < 0)
			goto out;
	}
	ntok = next_line(&L, tok, 64);
	if (ntok != 0) {
		if (ntok > 0)
			gen_err(E, "%s:%d: extra line after the %u layers the file declares", path, L.no,
			         w->nlayers);
		goto out;
	}
	if (ferror(L.f)) {
		gen_err(E, "%s: read error", path);
		rc = CHAKRA_EIO;
		goto out;
	}
	rc = 0;
out:
	chakra_free(header);
	free(L.buf); /* getline's */
	if (L.f && L.f != stdin)
		fclose(L.f);
	if (rc < 0)
		text_workload_free(w);
	return rc;
}

void text_workload_free(text_workload *w)
{
	chakra_free(w->layers);
	w->layers = NULL;
	w->nlayers = 0;
}
