/* SPDX-License-Identifier: Apache-2.0 */
/* Kineto (Chrome trace) JSON read as a stream: one compact record per
 * complete event the converter uses (CPU ops, annotations, runtime calls,
 * kernels, memcpys, memsets, cuda_sync rows), with the arguments linking and
 * synchronisation need; flows are only counted (correlation ids link
 * instead); metadata, instants and spans are skipped.
 * docs/reference/pytorch-kineto.md section 2 describes the format. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cv.h"

enum { C_SKIP = 0, C_TOP, C_EVENTS, C_EVENT, C_ARGS, C_DIST, C_CAPT, C_ITYPE, C_IDIMS, C_IDIM };
enum {
	K_OTHER = 0, K_EVENTS, K_BASE, K_DIST,
	K_PH, K_CAT, K_NAME, K_PID, K_TID, K_TS, K_DUR, K_ID, K_ARGS,
	A_EXT, A_RF, A_CORR, A_STREAM, A_DEVICE, A_BYTES, A_SEQ, A_WSTREAM, A_WCORR,
	A_COLL, A_DTYPE, A_INNE, A_OUTNE, A_GSIZE, A_PGNAME, A_PGDESC, A_PGRANKS, A_RSTART,
	A_RSTRIDE, A_ITYPE, A_IDIMS,
	D_RANK, D_WORLD, D_PGCFG
};

typedef struct ctx {
	cv_jctx j;
	cv_kin *k;
	uint8_t c[CV_JSON_MAX_DEPTH + 2];
	uint8_t key[CV_JSON_MAX_DEPTH + 2];
	uint8_t first[CV_JSON_MAX_DEPTH + 2];
	int top_seen, events_seen;
	/* event scratch */
	char ph;
	uint32_t cat, name;
	int kind;
	int64_t pid, tid, ts, dur, id;
	uint8_t have_ts, have_dur, have_id, pid_num, tid_num;
	int64_t ext, rf, corr, stream, device, bytes, seq, wstream, wcorr;
	/* comm args */
	uint32_t coll, dtype, pgname, pgdesc, pgranks;
	int64_t inne, outne, gsize, rstart, rstride;
	/* a gloo collective annotation's input: its first type and the element
	 * count of its first shape ("Input type", "Input Dims") */
	uint32_t itype;
	int64_t idims;
	uint8_t idims_done;
	/* capture of distributedInfo.pg_config */
	cv_buf capt;
	int capt_base;
	cv_map flows;     /* flow id -> 1 start seen | 2 end seen */
	size_t flows_whole; /* flows with both ends */
} ctx;

static int nomem(ctx *x)
{
	return chakra__cv_jfail(&x->j, CHAKRA_ENOMEM, "out of memory");
}

static void ev_reset(ctx *x)
{
	x->ph = 0;
	x->cat = x->name = 0;
	x->pid = x->tid = 0;
	x->ts = x->dur = x->id = 0;
	x->have_ts = x->have_dur = x->have_id = 0;
	x->pid_num = x->tid_num = 0;
	x->ext = x->rf = x->corr = x->stream = x->device = x->bytes = x->seq = CV_UNSET;
	x->wstream = x->wcorr = CV_UNSET;
	x->coll = x->dtype = x->pgname = x->pgdesc = x->pgranks = 0;
	x->inne = x->outne = x->gsize = x->rstart = x->rstride = CV_UNSET;
	x->itype = 0;
	x->idims = CV_UNSET;
	x->idims_done = 0;
}

static int key_of(int c, const char *s, size_t n)
{
#define IS(lit) (n == sizeof(lit) - 1 && !memcmp(s, lit, n))
	switch (c) {
	case C_TOP:
		if (IS("traceEvents")) return K_EVENTS;
		if (IS("baseTimeNanoseconds")) return K_BASE;
		if (IS("distributedInfo")) return K_DIST;
		return K_OTHER;
	case C_EVENT:
		if (n < 2 || n > 4)
			return IS("args") ? K_ARGS : K_OTHER;
		if (IS("ph")) return K_PH;
		if (IS("cat")) return K_CAT;
		if (IS("name")) return K_NAME;
		if (IS("pid")) return K_PID;
		if (IS("tid")) return K_TID;
		if (IS("ts")) return K_TS;
		if (IS("dur")) return K_DUR;
		if (IS("id")) return K_ID;
		if (IS("args")) return K_ARGS;
		return K_OTHER;
	case C_ARGS:
		switch (s[0]) {
		case 'E': if (IS("External id")) return A_EXT; break;
		case 'e': if (IS("external id")) return A_EXT; break;
		case 'R': if (IS("Record function id")) return A_RF; break;
		case 'c': if (IS("correlation")) return A_CORR; break;
		case 's': if (IS("stream")) return A_STREAM; break;
		case 'd':
			if (IS("device")) return A_DEVICE;
			if (IS("dtype")) return A_DTYPE;
			break;
		case 'b': if (IS("bytes")) return A_BYTES; break;
		case 'S': if (IS("Sequence number")) return A_SEQ; break;
		case 'w':
			if (IS("wait_on_stream")) return A_WSTREAM;
			if (IS("wait_on_cuda_event_record_corr_id")) return A_WCORR;
			break;
		case 'C': if (IS("Collective name")) return A_COLL; break;
		case 'I':
			if (IS("In msg nelems")) return A_INNE;
			if (IS("Input type")) return A_ITYPE;
			if (IS("Input Dims")) return A_IDIMS;
			break;
		case 'O': if (IS("Out msg nelems")) return A_OUTNE; break;
		case 'G':
			if (IS("Group size")) return A_GSIZE;
			if (IS("Global rank start")) return A_RSTART;
			if (IS("Global rank stride")) return A_RSTRIDE;
			break;
		case 'P':
			if (IS("Process Group Name")) return A_PGNAME;
			if (IS("Process Group Description")) return A_PGDESC;
			if (IS("Process Group Ranks")) return A_PGRANKS;
			break;
		}
		return K_OTHER;
	case C_DIST:
		if (IS("rank")) return D_RANK;
		if (IS("world_size")) return D_WORLD;
		if (IS("pg_config")) return D_PGCFG;
		return K_OTHER;
	}
	return K_OTHER;
#undef IS
}

/* Integers, or strings holding one ("0x1f" on ROCm runtime streams). */
static int int_of(char kind, const char *s, size_t n, int64_t *out)
{
	if (kind == 'n')
		return cv_parse_i64(s, n, out);
	if (kind != 's' || !n || n > 20)
		return -1;
	char tmp[24];
	memcpy(tmp, s, n);
	tmp[n] = 0;
	char *end;
	long long v = strtoll(tmp, &end, 0);
	if (*end)
		return -1;
	*out = v;
	return 0;
}

static int capt_sep(ctx *x, int d)
{
	if (!x->first[d] && chakra__cv_buf_addc(&x->capt, ',') < 0)
		return -1;
	x->first[d] = 0;
	return 0;
}

static int on_scalar(void *p, char kind, const char *s, size_t n)
{
	ctx *x = p;
	int d = x->j.depth;
	int c = x->c[d];
	if (c == C_SKIP)
		return 1;
	if (c == C_CAPT) {
		if (capt_sep(x, d) < 0 ||
		    (kind == 's' ? chakra__cv_buf_add_jstr(&x->capt, s, n)
		                 : chakra__cv_buf_add(&x->capt, s, n)) < 0)
			return nomem(x);
		return 1;
	}
	if (d == 0)
		return chakra__cv_jfail(&x->j, CHAKRA_ECORRUPT,
		                        "not a Kineto trace (expected a JSON object)");
	if (c == C_ITYPE) {
		if (kind == 's' && !x->itype && (x->itype = chakra__cv_intern(&x->k->strs, s, n)) == CV_NONE)
			return nomem(x);
		return 1;
	}
	if (c == C_IDIM || c == C_IDIMS) {
		int64_t v;
		if (c == C_IDIM && x->idims != CV_UNSET) {
			if (kind != 'n' || cv_parse_i64(s, n, &v) < 0 || v < 0 ||
			    __builtin_mul_overflow(x->idims, v, &x->idims))
				x->idims = CV_UNSET, x->idims_done = 1;
		}
		return 1;
	}
	if (c == C_EVENTS) {
		x->j.index++;
		return chakra__cv_jfail(&x->j, CHAKRA_ECORRUPT, "an event is not a JSON object");
	}
	int k = x->key[d];
	x->key[d] = K_OTHER;
	cv_kin *kin = x->k;
	int64_t v;
	if (c == C_TOP) {
		if (k == K_BASE && int_of(kind, s, n, &v) == 0) {
			/* added to every time written: kept inside CV_TIME_MAX_NS like
			 * the times themselves, so the sums never overflow */
			if (v > CV_TIME_MAX_NS || v < -CV_TIME_MAX_NS)
				return chakra__cv_jfail(&x->j, CHAKRA_ECORRUPT,
				                        "baseTimeNanoseconds %lld is out of range (at most "
				                        "2^61 ns)", (long long)v);
			kin->base_ns = v;
		}
		else if (k == K_EVENTS)
			return chakra__cv_jfail(&x->j, CHAKRA_ECORRUPT, "'traceEvents' is not an array");
		else if (k == K_DIST && kind == 's') {
			/* some writers serialise distributedInfo as a Python repr */
			const char *r = NULL;
			for (size_t i = 0; i + 6 < n; i++)
				if (!memcmp(s + i, "'rank'", 6) || !memcmp(s + i, "\"rank\"", 6)) {
					r = s + i + 6;
					break;
				}
			if (r) {
				while (r < s + n && (*r == ':' || *r == ' '))
					r++;
				int64_t rv = 0;
				int any = 0;
				while (r < s + n && *r >= '0' && *r <= '9' && rv < (1 << 30)) {
					rv = rv * 10 + (*r++ - '0');
					any = 1;
				}
				if (any)
					kin->rank = rv;
			}
		}
		return 1;
	}
	if (c == C_DIST) {
		if (k == D_RANK && int_of(kind, s, n, &v) == 0)
			kin->rank = v;
		else if (k == D_WORLD && int_of(kind, s, n, &v) == 0)
			kin->world = v;
		return 1;
	}
	if (c == C_EVENT) {
		switch (k) {
		case K_PH:
			x->ph = kind == 's' && n ? s[0] : 0;
			break;
		case K_CAT:
			if (kind == 's') {
				x->kind = chakra__cv_kind_of_cat(s, n, 0);
				x->cat = chakra__cv_intern(&kin->strs, s, n);
				if (x->cat == CV_NONE)
					return nomem(x);
			}
			break;
		case K_NAME:
			if (kind == 's') {
				x->name = chakra__cv_intern(&kin->strs, s, n);
				if (x->name == CV_NONE)
					return nomem(x);
			}
			break;
		case K_PID:
			x->pid_num = int_of(kind == 'n' ? 'n' : 'x', s, n, &x->pid) == 0;
			break;
		case K_TID:
			x->tid_num = int_of(kind == 'n' ? 'n' : 'x', s, n, &x->tid) == 0;
			break;
		case K_TS:
			if (kind != 'n' || chakra__cv_parse_us_ns(s, n, &x->ts) < 0)
				return chakra__cv_jfail(&x->j, CHAKRA_ECORRUPT,
				                        "'ts' is not a number of microseconds (at most 2.3e15, 73 years)");
			x->have_ts = 1;
			break;
		case K_DUR:
			if (kind != 'n' || chakra__cv_parse_us_ns(s, n, &x->dur) < 0)
				return chakra__cv_jfail(&x->j, CHAKRA_ECORRUPT,
				                        "'dur' is not a number of microseconds (at most 2.3e15, 73 years)");
			x->have_dur = 1;
			break;
		case K_ID:
			x->have_id = int_of(kind, s, n, &x->id) == 0;
			break;
		}
		return 1;
	}
	if (c == C_ARGS) {
		int64_t *dst = NULL;
		uint32_t *sdst = NULL;
		switch (k) {
		case A_EXT: dst = &x->ext; break;
		case A_RF: dst = &x->rf; break;
		case A_CORR: dst = &x->corr; break;
		case A_STREAM: dst = &x->stream; break;
		case A_DEVICE: dst = &x->device; break;
		case A_BYTES: dst = &x->bytes; break;
		case A_SEQ: dst = &x->seq; break;
		case A_WSTREAM: dst = &x->wstream; break;
		case A_WCORR: dst = &x->wcorr; break;
		case A_INNE: dst = &x->inne; break;
		case A_OUTNE: dst = &x->outne; break;
		case A_GSIZE: dst = &x->gsize; break;
		case A_RSTART: dst = &x->rstart; break;
		case A_RSTRIDE: dst = &x->rstride; break;
		case A_COLL: sdst = &x->coll; break;
		case A_DTYPE: sdst = &x->dtype; break;
		case A_PGNAME: sdst = &x->pgname; break;
		case A_PGDESC: sdst = &x->pgdesc; break;
		case A_PGRANKS: sdst = &x->pgranks; break;
		}
		if (dst && int_of(kind, s, n, &v) == 0)
			*dst = v;
		if (sdst && kind == 's' && (*sdst = chakra__cv_intern(&kin->strs, s, n)) == CV_NONE)
			return nomem(x);
		return 1;
	}
	return 1;
}

static const char *cat_name(ctx *x)
{
	return cv_str(&x->k->strs, x->cat);
}

static int event_end(ctx *x)
{
	cv_kin *k = x->k;
	k->events++;
	if (x->ph == 's' || x->ph == 'f' || x->ph == 't') {
		if (!x->have_id)
			return 1; /* a flow without an id points nowhere: ignored, counted below */
		uint64_t key = (uint64_t)x->id * 0x9e3779b97f4a7c15ull ^ x->cat;
		uint32_t m = chakra__cv_map_get(&x->flows, key);
		uint32_t bit = x->ph == 's' ? 1 : 2;
		uint32_t now = (m == CV_NONE ? 0 : m) | bit;
		if (chakra__cv_map_put(&x->flows, key, now) < 0)
			return nomem(x);
		if (now == 3 && m != 3)
			x->flows_whole++;
		if (x->ph == 's')
			k->flows_s++;
		else
			k->flows_f++;
		if (x->ph != 't' && x->have_ts && x->pid_num && x->tid_num && x->cat &&
		    !strcmp(cat_name(x), "fwdbwd")) {
			cv_kflow *f = CV_PUSH(k->flows, k->nflows, k->fcap);
			if (!f)
				return nomem(x);
			f->id = x->id;
			f->pid = x->pid;
			f->tid = x->tid;
			f->ts = x->ts;
			f->index = (uint32_t)x->j.index;
			f->start = x->ph == 's';
		}
		return 1;
	}
	if (x->ph == 'X' && x->kind == CV_K_OTHER && x->cat && x->pid_num && x->tid_num) {
		/* remembered for the message when nothing is left to convert */
		k->other_events++;
		size_t i = 0;
		while (i < k->n_other_cats && k->other_cats[i] != x->cat)
			i++;
		if (i == k->n_other_cats && i < sizeof k->other_cats / sizeof *k->other_cats)
			k->other_cats[k->n_other_cats++] = x->cat;
	}
	if (x->ph != 'X' || x->kind == CV_K_OTHER || x->kind == CV_K_GPU_ANNOT)
		return 1;
	if (!x->pid_num || !x->tid_num)
		return 1; /* spans with string pid/tid ("Spans", "Traces") */
	if (x->kind == CV_K_KERNEL && x->corr == CV_UNSET && x->cat &&
	    !strcmp(cat_name(x), "mtia_ccp_events"))
		return 1; /* an MTIA command's parts (DMA requests, queue events): its
		             command, which has the correlation, is the device op */
	if (!x->have_ts)
		return chakra__cv_jfail(&x->j, CHAKRA_ECORRUPT, "%s event '%s' has no 'ts'",
		                        cat_name(x), cv_str(&k->strs, x->name));
	if (!x->have_dur)
		return chakra__cv_jfail(&x->j, CHAKRA_ECORRUPT, "%s event '%s' has no 'dur'",
		                        cat_name(x), cv_str(&k->strs, x->name));
	cv_kev *e = CV_PUSH(k->ev, k->n, k->cap);
	if (!e)
		return nomem(x);
	e->ts = x->ts;
	e->dur = x->dur < 0 ? 0 : x->dur; /* clamp, never assert */
	e->pid = x->pid;
	e->tid = x->tid;
	e->ext_id = x->ext;
	e->rf_id = x->rf;
	e->corr = x->corr;
	e->stream = x->stream;
	e->seq = x->seq;
	e->bytes = x->bytes;
	e->wait_stream = x->wstream;
	e->wait_corr = x->wcorr;
	e->name = x->name;
	e->index = (uint32_t)x->j.index;
	e->kind = (uint8_t)x->kind;
	e->comm = CV_NONE;
	if (x->kind == CV_K_KERNEL || x->kind == CV_K_MEMCPY || x->kind == CV_K_MEMSET ||
	    x->kind == CV_K_SYNC) {
		/* device ops: pid = device; tid = stream unless the args say */
		if (e->stream == CV_UNSET)
			e->stream = x->tid;
		if (x->kind == CV_K_SYNC)
			k->have_sync_rows = 1;
	}
	if (x->device != CV_UNSET && (x->kind == CV_K_KERNEL || x->kind == CV_K_MEMCPY ||
	                              x->kind == CV_K_MEMSET))
		e->pid = x->device;
	if (!x->coll && x->kind == CV_K_ANNOT && x->name &&
	    !strncmp(cv_str(&k->strs, x->name), "gloo:", 5)) {
		/* a gloo collective: its kind from the name, its size from its input */
		x->coll = x->name;
		x->dtype = x->itype;
		x->inne = x->idims_done ? x->idims : CV_UNSET;
	}
	if (x->coll) {
		cv_kcomm *c = CV_PUSH(k->comms, k->nc, k->ccap);
		if (!c)
			return nomem(x);
		c->coll_name = x->coll;
		c->coll = chakra__cv_coll_from_name(cv_str(&k->strs, x->coll),
		                                    cv_strlen(&k->strs, x->coll));
		c->dtype = x->dtype;
		c->pg_name = x->pgname;
		c->pg_desc = x->pgdesc;
		c->pg_ranks = x->pgranks;
		c->in_nelems = x->inne;
		c->out_nelems = x->outne;
		c->group_size = x->gsize;
		c->rank_start = x->rstart;
		c->rank_stride = x->rstride;
		e->comm = (uint32_t)(k->nc - 1);
	}
	return 1;
}

static int open_container(void *p, int is_map)
{
	ctx *x = p;
	int d = x->j.depth;
	if (d >= CV_JSON_MAX_DEPTH)
		return chakra__cv_jfail(&x->j, CHAKRA_ECORRUPT, "JSON nested deeper than %d levels",
		                        CV_JSON_MAX_DEPTH);
	int c = x->c[d], k = x->key[d];
	int nc = C_SKIP;
	if (d == 0) {
		if (!is_map || x->top_seen)
			return chakra__cv_jfail(&x->j, CHAKRA_ECORRUPT,
			                        "not a Kineto trace (expected a JSON object)");
		x->top_seen = 1;
		nc = C_TOP;
	} else if (c == C_CAPT) {
		if (capt_sep(x, d) < 0 || chakra__cv_buf_addc(&x->capt, is_map ? '{' : '[') < 0)
			return nomem(x);
		x->first[d + 1] = 1;
		nc = C_CAPT;
	} else if (c == C_TOP && k == K_EVENTS) {
		if (is_map)
			return chakra__cv_jfail(&x->j, CHAKRA_ECORRUPT, "'traceEvents' is not an array");
		x->events_seen = 1;
		nc = C_EVENTS;
	} else if (c == C_TOP && k == K_DIST && is_map) {
		nc = C_DIST;
	} else if (c == C_DIST && k == D_PGCFG && !is_map) {
		x->capt.len = 0;
		if (chakra__cv_buf_addc(&x->capt, '[') < 0)
			return nomem(x);
		x->capt_base = d + 1;
		x->first[d + 1] = 1;
		nc = C_CAPT;
	} else if (c == C_EVENTS) {
		x->j.index++;
		if (!is_map)
			return chakra__cv_jfail(&x->j, CHAKRA_ECORRUPT, "an event is not a JSON object");
		ev_reset(x);
		x->kind = CV_K_OTHER;
		nc = C_EVENT;
	} else if (c == C_EVENT && k == K_ARGS && is_map) {
		nc = C_ARGS;
	} else if (c == C_ARGS && k == A_ITYPE && !is_map) {
		nc = C_ITYPE;
	} else if (c == C_ARGS && k == A_IDIMS && !is_map) {
		nc = C_IDIMS;
	} else if (c == C_IDIMS && !is_map && !x->idims_done) {
		x->idims = 1;
		nc = C_IDIM;
	}
	x->key[d] = K_OTHER;
	x->j.depth = d + 1;
	x->c[d + 1] = (uint8_t)nc;
	x->key[d + 1] = K_OTHER;
	return 1;
}

static int close_container(void *p, int is_map)
{
	ctx *x = p;
	int d = x->j.depth;
	int c = x->c[d];
	x->j.depth = d - 1;
	if (c == C_CAPT) {
		if (chakra__cv_buf_addc(&x->capt, is_map ? '}' : ']') < 0)
			return nomem(x);
		if (d == x->capt_base) {
			cv_kin *k = x->k;
			k->pg_config = chakra__cv_intern(&k->strs, x->capt.p, x->capt.len);
			if (k->pg_config == CV_NONE)
				return nomem(x);
		}
		return 1;
	}
	if (c == C_EVENT)
		return event_end(x);
	if (c == C_IDIM)
		x->idims_done = 1;
	return 1;
}

static int key_cb(void *p, const char *s, size_t n)
{
	ctx *x = p;
	int d = x->j.depth;
	int c = x->c[d];
	if (c == C_CAPT) {
		if (capt_sep(x, d) < 0 || chakra__cv_buf_add_jstr(&x->capt, (const char *)s, n) < 0 ||
		    chakra__cv_buf_addc(&x->capt, ':') < 0)
			return nomem(x);
		x->first[d] = 1;
		return 1;
	}
	if (c == C_SKIP)
		return 1;
	x->key[d] = (uint8_t)key_of(c, (const char *)s, n);
	return 1;
}

static const cv_jfmt format = { on_scalar, key_cb, open_container, close_container };

int chakra__cv_kin_parse(cv_kin *k, const cv_json_src *src, cv_err *err)
{
	ctx *x = chakra_calloc(1, sizeof *x);
	if (!x)
		return chakra__cv_fail(err, CHAKRA_ENOMEM, src->name, NULL, -1, -1, "out of memory");
	memset(k, 0, sizeof *k);
	k->rank = k->world = -1;
	x->k = k;
	x->j.err = err;
	x->j.unit = "event";
	ev_reset(x);
	int rc = chakra__cv_strtab_init(&k->strs);
	if (rc < 0)
		rc = chakra__cv_fail(err, CHAKRA_ENOMEM, src->name, NULL, -1, -1, "out of memory");
	if (!rc)
		rc = chakra__cv_json_run(src, &format, &x->j);
	if (!rc && !x->events_seen)
		rc = chakra__cv_fail(err, CHAKRA_ECORRUPT, x->j.name, NULL, -1, -1,
		                     "not a Kineto trace: no 'traceEvents' array");
	if (!rc) {
		/* flows with only one end */
		k->flows_dangling += chakra__cv_map_count(&x->flows) - x->flows_whole;
		/* Record function ids are usable when present on CPU ops and not
		 * all equal (one file has them all 0) */
		int64_t first = CV_UNSET;
		int differ = 0, any = 0;
		for (size_t i = 0; i < k->n && !differ; i++) {
			const cv_kev *e = &k->ev[i];
			if (e->kind != CV_K_CPU_OP || e->rf_id == CV_UNSET)
				continue;
			if (!any) {
				first = e->rf_id;
				any = 1;
			} else if (e->rf_id != first) {
				differ = 1;
			}
		}
		k->rf_ids_usable = differ;
	}
	chakra__cv_buf_free(&x->capt);
	chakra__cv_map_free(&x->flows);
	chakra_free(x);
	return rc;
}

void chakra__cv_kin_free(cv_kin *k)
{
	chakra_free(k->ev);
	chakra_free(k->comms);
	chakra_free(k->flows);
	chakra__cv_strtab_free(&k->strs);
	memset(k, 0, sizeof *k);
}
