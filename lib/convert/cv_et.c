/* SPDX-License-Identifier: Apache-2.0 */
/* PyTorch execution trace (host ET) JSON, schemas 1.0.1 .. 1.1.x, read as a
 * stream: one compact record per node (ids, names, bookkeeping attributes,
 * tensors, the collective a record_param_comms describes), the node's
 * inputs/outputs kept as compact JSON only while it may still be an op a
 * simulator issues. docs/reference/pytorch-kineto.md section 1 describes
 * the format; docs/convert.md what is kept. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_tree.h>

#include "cv.h"

enum { /* containers */
	C_SKIP = 0, C_TOP, C_NODES, C_NODE, C_IOOBJ, C_CAP, C_CAPIN, C_TYPES, C_ATTRS, C_ATTR,
	C_CTRL, C_IDS, C_DEVT
};
enum { /* keys */
	K_OTHER = 0, K_SCHEMA, K_PID, K_TIME, K_START, K_FINISH, K_NODES,
	K_ID, K_NAME, K_PARENT, K_RF, K_FWPARENT, K_SEQ, K_SCOPE, K_TID, K_FWTID, K_SCHEMA_OP,
	K_BACKEND, K_INPUTS, K_OUTPUTS, K_IN_SHAPES, K_IN_TYPES, K_OUT_SHAPES, K_OUT_TYPES,
	K_ATTRS, K_VALUES, K_SHAPES, K_TYPES, K_A_NAME, K_A_VALUE,
	/* a linked ET (chakra_trace_link's keys, then libchakra's) */
	K_CAT, K_TS, K_IDUR, K_STREAM, K_NPG, K_SYNCDEP, K_DEVICE, K_CORR, K_BYTES, K_EXTID,
	K_BACKLOG, K_NTYPE, K_CTYPE, K_CSIZE, K_CPEER, K_CTAG, K_SKIND, K_SWAIT, K_STWAIT, K_FLOW,
	K_DEVTRACE
};
/* capture fields: direction x (values, shapes); types separately */
enum { F_IN_VAL = 0, F_IN_SHP, F_OUT_VAL, F_OUT_SHP, F_N };

typedef struct elem {
	uint8_t kind;     /* 'n' number, 's' string, 'b' bool, 'z' null, 'a' array, 'm' map */
	uint8_t is_int;
	int64_t ival;
	uint32_t str, str2; /* offsets+1 into sbuf (0 = none): first / second string inside */
	uint32_t ints, nints; /* into ints scratch (array of ints directly inside) */
	uint8_t ints_ok;
} elem;

typedef struct tcand {
	uint32_t elem;
	int64_t v[5];
} tcand;

typedef struct tstate {
	uint32_t n, nint;
	uint8_t nest, str6;
	int64_t v[5];
} tstate;

typedef struct ctx {
	cv_jctx j;
	cv_et *et;
	uint8_t c[CV_JSON_MAX_DEPTH + 2];
	uint8_t k[CV_JSON_MAX_DEPTH + 2];
	uint8_t iodir[CV_JSON_MAX_DEPTH + 2]; /* C_IOOBJ: 0 in, 1 out */
	int seen_nodes, top_seen;
	/* node scratch */
	int64_t id, parent, rf, fwparent, seq, scope, tid, fwtid;
	uint8_t have_id, have_parent;
	uint32_t name, schema, backend;
	cv_buf text[F_N];
	cv_buf types[2];      /* JSON text of the types arrays */
	uint32_t *tyoff[2];   /* offset+len pairs into sbuf of each type string */
	size_t ntys[2], tycap[2];
	elem *el[F_N];
	size_t nel[F_N], elcap[F_N];
	tcand *tc[2];
	size_t ntc[2], tccap[2];
	int64_t *ints;
	size_t nints, intscap;
	cv_buf sbuf;          /* strings of elems and attrs */
	int cap_field, cap_base;
	tstate ts[CV_JSON_MAX_DEPTH + 2];
	/* attrs */
	uint8_t a_id;         /* AT_*: the attribute's name, classified */
	uint8_t a_kind;       /* 'n', 's', 0 */
	int64_t a_ival;
	uint8_t a_is_int;
	uint32_t a_str, a_str_len;
	/* 1.1 record_param_comms attrs */
	uint32_t at_coll, at_dtype, at_pgname, at_pgdesc; /* offset+1 in sbuf, len below */
	uint32_t at_coll_l, at_dtype_l, at_pgname_l, at_pgdesc_l;
	int64_t at_in_ne, at_out_ne, at_pgsize, at_rstart, at_rstride;
	/* a linked ET's keys on this node */
	cv_etlink lk;
	int have_lk, is_gpu;
	cv_buf devt;          /* the device_trace object's text */
} ctx;

static uint32_t sbuf_add(ctx *x, const char *s, size_t n, uint32_t *len)
{
	uint32_t off = (uint32_t)x->sbuf.len + 1;
	if (chakra__cv_buf_add(&x->sbuf, s, n) < 0 || chakra__cv_buf_addc(&x->sbuf, 0) < 0)
		return 0;
	if (len)
		*len = (uint32_t)n;
	return off;
}

static const char *sb(ctx *x, uint32_t off)
{
	return off ? x->sbuf.p + off - 1 : "";
}

static void node_reset(ctx *x)
{
	x->id = x->parent = 0;
	x->rf = x->fwparent = x->fwtid = x->tid = 0;
	x->seq = -1;
	x->scope = 0;
	x->have_id = x->have_parent = 0;
	x->name = x->schema = x->backend = 0;
	for (int f = 0; f < F_N; f++) {
		x->text[f].len = 0;
		x->nel[f] = 0;
	}
	for (int d = 0; d < 2; d++) {
		x->types[d].len = 0;
		x->ntys[d] = 0;
		x->ntc[d] = 0;
	}
	x->nints = 0;
	x->sbuf.len = 0;
	x->at_coll = x->at_dtype = x->at_pgname = x->at_pgdesc = 0;
	x->at_in_ne = x->at_out_ne = x->at_pgsize = x->at_rstart = x->at_rstride = CV_UNSET;
	memset(&x->lk, 0, sizeof x->lk);
	x->lk.ts = x->lk.dur = x->lk.stream = x->lk.device = x->lk.corr = x->lk.bytes = CV_UNSET;
	x->lk.ext_id = x->lk.backlog = CV_UNSET;
	x->lk.comm_type = x->lk.comm_size = x->lk.comm_peer = x->lk.comm_tag = CV_UNSET;
	x->lk.ntype = -1;
	x->have_lk = x->is_gpu = 0;
}

static int nomem(ctx *x)
{
	return chakra__cv_jfail(&x->j, CHAKRA_ENOMEM, "out of memory");
}

/* ---- keys ---- */
static int key_of(int c, const char *s, size_t n)
{
#define IS(lit) (n == sizeof(lit) - 1 && !memcmp(s, lit, n))
	switch (c) {
	case C_TOP:
		if (IS("schema")) return K_SCHEMA;
		if (IS("pid")) return K_PID;
		if (IS("time")) return K_TIME;
		if (IS("start_ts")) return K_START;
		if (IS("finish_ts")) return K_FINISH;
		if (IS("nodes")) return K_NODES;
		if (IS("device_trace")) return K_DEVTRACE;
		return K_OTHER;
	case C_NODE:
		if (IS("id")) return K_ID;
		if (IS("name")) return K_NAME;
		if (IS("parent") || IS("ctrl_deps")) return K_PARENT;
		if (IS("rf_id")) return K_RF;
		if (IS("fw_parent")) return K_FWPARENT;
		if (IS("seq_id")) return K_SEQ;
		if (IS("scope")) return K_SCOPE;
		if (IS("tid")) return K_TID;
		if (IS("fw_tid")) return K_FWTID;
		if (IS("op_schema")) return K_SCHEMA_OP;
		if (IS("kernel_backend")) return K_BACKEND;
		if (IS("inputs")) return K_INPUTS;
		if (IS("outputs")) return K_OUTPUTS;
		if (IS("input_shapes")) return K_IN_SHAPES;
		if (IS("input_types")) return K_IN_TYPES;
		if (IS("output_shapes")) return K_OUT_SHAPES;
		if (IS("output_types")) return K_OUT_TYPES;
		if (IS("attrs")) return K_ATTRS;
		/* a linked ET */
		if (IS("cat")) return K_CAT;
		if (IS("ts")) return K_TS;
		if (IS("inclusive_dur")) return K_IDUR;
		if (IS("stream")) return K_STREAM;
		if (IS("pg_name")) return K_NPG;
		if (IS("sync_dep")) return K_SYNCDEP;
		if (IS("device")) return K_DEVICE;
		if (IS("correlation")) return K_CORR;
		if (IS("bytes")) return K_BYTES;
		if (IS("external_id")) return K_EXTID;
		if (IS("backlog_until")) return K_BACKLOG;
		if (IS("chakra_type")) return K_NTYPE;
		if (IS("comm_type")) return K_CTYPE;
		if (IS("comm_size")) return K_CSIZE;
		if (IS("comm_peer")) return K_CPEER;
		if (IS("comm_tag")) return K_CTAG;
		if (IS("sync_kind")) return K_SKIND;
		if (IS("sync_wait")) return K_SWAIT;
		if (IS("stream_wait_dep")) return K_STWAIT;
		if (IS("fwdbwd_dep")) return K_FLOW;
		return K_OTHER;
	case C_IOOBJ:
		if (IS("values")) return K_VALUES;
		if (IS("shapes")) return K_SHAPES;
		if (IS("types")) return K_TYPES;
		return K_OTHER;
	case C_ATTR:
		if (IS("name")) return K_A_NAME;
		if (IS("value")) return K_A_VALUE;
		return K_OTHER;
	}
	return K_OTHER;
#undef IS
}

/* ---- capture of values/shapes ---- */
static elem *cur_elem(ctx *x)
{
	int f = x->cap_field;
	return x->nel[f] ? &x->el[f][x->nel[f] - 1] : NULL;
}

/* A scalar inside a capture at container depth d. */
static int cap_scalar(ctx *x, int d, char kind, const char *s, size_t n, int64_t iv, int is_int)
{
	int rel = d - x->cap_base; /* 0: direct element of the values array */
	int f = x->cap_field;
	if (rel == 0) {
		elem *e = CV_PUSH(x->el[f], x->nel[f], x->elcap[f]);
		if (!e)
			return -1;
		memset(e, 0, sizeof *e);
		e->kind = (uint8_t)kind;
		e->is_int = (uint8_t)is_int;
		e->ival = iv;
		if (kind == 's' && !(e->str = sbuf_add(x, s, n, NULL)))
			return -1;
	} else {
		elem *e = cur_elem(x);
		if (e && rel == 1) {
			if (is_int && e->ints_ok) {
				int64_t *p = CV_PUSH(x->ints, x->nints, x->intscap);
				if (!p)
					return -1;
				*p = iv;
				e->nints++;
			} else {
				e->ints_ok = 0;
			}
		}
		if (e && kind == 's' && rel <= 2) {
			if (!e->str) {
				if (!(e->str = sbuf_add(x, s, n, NULL)))
					return -1;
			} else if (!e->str2) {
				if (!(e->str2 = sbuf_add(x, s, n, NULL)))
					return -1;
			}
		}
		tstate *t = &x->ts[d];
		if (t->n < 5 && is_int) {
			t->v[t->n] = iv;
			t->nint++;
		}
		if (t->n == 5 && kind == 's')
			t->str6 = 1;
		t->n++;
	}
	return 0;
}

static int cap_open(ctx *x, int d, int is_map)
{
	/* d = depth of the parent container; the new one is at d + 1 */
	if (d >= x->cap_base) {
		int rel = d - x->cap_base;
		if (rel == 0) {
			int f = x->cap_field;
			elem *e = CV_PUSH(x->el[f], x->nel[f], x->elcap[f]);
			if (!e)
				return -1;
			memset(e, 0, sizeof *e);
			e->kind = is_map ? 'm' : 'a';
			e->ints = (uint32_t)x->nints;
			e->ints_ok = !is_map;
		} else {
			elem *e = cur_elem(x);
			if (e && rel == 1)
				e->ints_ok = 0;
			x->ts[d].nest = 1;
			x->ts[d].n++;
		}
	}
	memset(&x->ts[d + 1], 0, sizeof x->ts[d + 1]);
	return 0;
}

static int cap_close(ctx *x, int d, int is_map)
{
	/* d = depth of the closing container */
	if (!is_map && d > x->cap_base) {
		tstate *t = &x->ts[d];
		if (t->n == 6 && t->nint == 5 && t->str6 && !t->nest && x->cap_field != F_IN_SHP &&
		    x->cap_field != F_OUT_SHP) {
			int dir = x->cap_field == F_OUT_VAL;
			tcand *c = CV_PUSH(x->tc[dir], x->ntc[dir], x->tccap[dir]);
			if (!c)
				return -1;
			c->elem = (uint32_t)(x->nel[x->cap_field] - 1);
			memcpy(c->v, t->v, sizeof c->v);
		}
	}
	return 0;
}

/* ---- node finalisation ---- */
static int type_has_tensor(ctx *x, int dir, uint32_t i)
{
	if (!x->ntys[dir])
		return 1; /* no types given: trust the shape of the value */
	if (i >= x->ntys[dir])
		return 0;
	const char *t = sb(x, x->tyoff[dir][2 * i]);
	return strstr(t, "Tensor") != NULL;
}

static const char *ty(ctx *x, int dir, uint32_t i)
{
	return i < x->ntys[dir] ? sb(x, x->tyoff[dir][2 * i]) : "";
}

static int64_t prod_dims(const ctx *x, const elem *e, uint32_t from)
{
	int64_t p = 1;
	for (uint32_t i = from; i < e->nints; i++) {
		int64_t v = x->ints[e->ints + i];
		if (v < 0 || (v && p > INT64_MAX / v))
			return -1;
		p *= v;
	}
	return p;
}

static const elem *shape(const ctx *x, int f, uint32_t i)
{
	if (i >= x->nel[f])
		return NULL;
	const elem *e = &x->el[f][i];
	return e->kind == 'a' && e->ints_ok ? e : NULL;
}

/* Arithmetic operations of matrix products and convolutions, from the
 * shapes (2 per multiply-add). */
static void derive_num_ops(ctx *x, cv_etnode *n)
{
	const char *nm = cv_str(&x->et->strs, n->name);
	if (strncmp(nm, "aten::", 6))
		return;
	nm += 6;
	const elem *out = shape(x, F_OUT_SHP, 0);
	if (!out || !out->nints)
		return;
	int64_t outn = prod_dims(x, out, 0);
	const elem *a = NULL, *w = NULL;
	int64_t k = -1;
	if (!strcmp(nm, "mm") || !strcmp(nm, "bmm") || !strcmp(nm, "matmul") ||
	    !strcmp(nm, "linear")) {
		a = shape(x, F_IN_SHP, 0);
	} else if (!strcmp(nm, "addmm") || !strcmp(nm, "baddbmm") || !strcmp(nm, "addbmm")) {
		a = shape(x, F_IN_SHP, 1);
	} else if (!strcmp(nm, "convolution") || !strcmp(nm, "_convolution") ||
	           !strcmp(nm, "cudnn_convolution") || !strcmp(nm, "conv1d") ||
	           !strcmp(nm, "conv2d") || !strcmp(nm, "conv3d") ||
	           !strcmp(nm, "mkldnn_convolution") || !strcmp(nm, "miopen_convolution")) {
		w = shape(x, F_IN_SHP, 1);
		if (w && w->nints >= 2)
			k = prod_dims(x, w, 1);
	} else {
		return;
	}
	if (a && a->nints >= 1)
		k = x->ints[a->ints + a->nints - 1];
	if (k < 0 || outn < 0 || (k && outn > INT64_MAX / 2 / k))
		return;
	n->num_ops = (uint64_t)(2 * outn * k);
	n->num_ops_known = 1;
}

static int64_t elem_int(const ctx *x, const elem *e)
{
	if (e->kind == 'n' && e->is_int)
		return e->ival;
	if (e->kind == 'a' && e->nints) /* [seq, isP2P] */
		return x->ints[e->ints];
	return CV_UNSET;
}

/* record_param_comms: the collective it describes, located by the position
 * of the collective-name String rather than by schema (layouts differ
 * inside one schema version). */
/* 0, -1 out of memory, -2 refused (the error is set). */
static int parse_rpc(ctx *x, cv_etnode *n, const cv_tensor *tin, size_t ntin)
{
	cv_et *et = x->et;
	cv_comm *c = CV_PUSH(et->comms, et->nc, et->ccap);
	if (!c)
		return -1;
	memset(c, 0, sizeof *c);
	c->coll = CV_COLL_UNKNOWN;
	c->seq = c->pg_id = c->rank = c->world = c->rank_start = c->rank_stride = CV_UNSET;
	n->comm = (uint32_t)(et->nc - 1);
	const elem *ev = x->el[F_IN_VAL];
	size_t ne = x->nel[F_IN_VAL];
	size_t ci = ne;
	for (size_t i = 0; i < ne; i++) {
		const char *t = ty(x, 0, (uint32_t)i);
		if (ev[i].kind == 's' && (!x->ntys[0] || !strcmp(t, "String"))) {
			ci = i;
			break;
		}
	}
	if (ci < ne) {
		const char *s = sb(x, ev[ci].str);
		c->coll_name = chakra__cv_intern(&et->strs, s, strlen(s));
		c->coll = chakra__cv_coll_from_name(s, strlen(s));
		if (ci >= 1)
			c->rank = elem_int(x, &ev[ci - 1]);
		if (ci >= 2) {
			const elem *pg = &ev[ci - 2];
			if (pg->kind == 'a' && pg->str) { /* (pg_name, pg_desc) */
				const char *pn = sb(x, pg->str), *pd = sb(x, pg->str2);
				c->pg_name = chakra__cv_intern(&et->strs, pn, strlen(pn));
				c->pg_desc = chakra__cv_intern(&et->strs, pd, strlen(pd));
			} else {
				c->pg_id = elem_int(x, pg);
			}
		}
		if (ci >= 3)
			c->seq = elem_int(x, &ev[ci - 3]);
		/* after the two split lists: world, or start, stride, world */
		size_t tail = ci + 3;
		if (ne >= tail + 3) {
			c->rank_start = elem_int(x, &ev[tail]);
			c->rank_stride = elem_int(x, &ev[tail + 1]);
			c->world = elem_int(x, &ev[tail + 2]);
		} else if (ne >= tail + 1) {
			c->world = elem_int(x, &ev[tail]);
		}
	}
	/* 1.1.0+: attributes say it directly */
	if (x->at_coll) {
		const char *s = sb(x, x->at_coll);
		c->coll_name = chakra__cv_intern(&et->strs, s, x->at_coll_l);
		c->coll = chakra__cv_coll_from_name(s, x->at_coll_l);
	}
	if (x->at_pgname)
		c->pg_name = chakra__cv_intern(&et->strs, sb(x, x->at_pgname), x->at_pgname_l);
	if (x->at_pgdesc)
		c->pg_desc = chakra__cv_intern(&et->strs, sb(x, x->at_pgdesc), x->at_pgdesc_l);
	if (x->at_pgsize != CV_UNSET)
		c->world = x->at_pgsize;
	if (x->at_rstart != CV_UNSET)
		c->rank_start = x->at_rstart;
	if (x->at_rstride != CV_UNSET)
		c->rank_stride = x->at_rstride;
	int dsz = x->at_dtype ? chakra__cv_dtype_size(sb(x, x->at_dtype), x->at_dtype_l) : 0;
	/* sizes are written as int64: a product or sum past it is corrupt
	 * input, never a wrapped size */
	int64_t b;
	if (dsz && x->at_in_ne != CV_UNSET && x->at_in_ne >= 0) {
		if (__builtin_mul_overflow(x->at_in_ne, (int64_t)dsz, &b))
			return chakra__cv_jfail(&x->j, CHAKRA_ECORRUPT, "in_msg_nelems %lld x %d bytes "
			                        "overflows a 64-bit size", (long long)x->at_in_ne, dsz) - 2;
		c->in_bytes = (uint64_t)b;
		c->have_in_bytes = 1;
	}
	if (dsz && x->at_out_ne != CV_UNSET && x->at_out_ne >= 0) {
		if (__builtin_mul_overflow(x->at_out_ne, (int64_t)dsz, &b))
			return chakra__cv_jfail(&x->j, CHAKRA_ECORRUPT, "out_msg_nelems %lld x %d bytes "
			                        "overflows a 64-bit size", (long long)x->at_out_ne, dsz) - 2;
		c->out_bytes = (uint64_t)b;
		c->have_out_bytes = 1;
	}
	if (!c->have_in_bytes && ntin) {
		b = 0;
		for (size_t i = 0; i < ntin; i++)
			if (__builtin_add_overflow(b, (int64_t)tin[i].bytes, &b))
				return chakra__cv_jfail(&x->j, CHAKRA_ECORRUPT,
				                        "the input tensors' sizes add up past a 64-bit size") - 2;
		c->in_bytes = (uint64_t)b;
		c->have_in_bytes = 1;
	}
	return 0;
}

/* An operator folds every op below it: their inputs/outputs text will
 * never be written, so free it now (walk through labels, stop at operators,
 * which did the same for their own subtree when they arrived). */
static void drop_folded_io(cv_et *et, uint64_t id)
{
	uint64_t stack[64];
	size_t sp = 0, steps = 0;
	stack[sp++] = id;
	while (sp && steps++ <= et->n) {
		uint64_t p = stack[--sp];
		for (uint32_t c = chakra__cv_map_get(&et->kids, p); c != CV_NONE && steps++ <= et->n;
		     c = et->nodes[c].next_sib) {
			cv_etnode *cn = &et->nodes[c];
			if (cn->id == p)
				continue;
			if (cn->flags & CV_ET_OPERATOR) {
				chakra_free(cn->io);
				cn->io = NULL;
			} else if (sp < sizeof stack / sizeof *stack) {
				stack[sp++] = cn->id;
			}
		}
	}
}

static int node_end(ctx *x)
{
	cv_et *et = x->et;
	int64_t idx = x->j.index;
	if (!x->have_id)
		return chakra__cv_jfail(&x->j, CHAKRA_ECORRUPT, "node has no 'id'");
	if (!x->have_parent)
		return chakra__cv_jfail(&x->j, CHAKRA_ECORRUPT,
		                        "node %llu ('%s') has no parent ('parent' or 'ctrl_deps')",
		                        (unsigned long long)x->id, cv_str(&et->strs, x->name));
	cv_etnode *n = CV_PUSH(et->nodes, et->n, et->cap);
	if (!n)
		return nomem(x);
	memset(n, 0, sizeof *n);
	n->id = (uint64_t)x->id;
	n->parent = (uint64_t)x->parent;
	n->name = x->name;
	n->schema = x->schema;
	n->rf_id = x->rf;
	n->seq_id = x->seq;
	n->fw_parent = x->fwparent;
	n->fw_tid = x->fwtid;
	n->tid = x->tid;
	n->scope = (int32_t)x->scope;
	n->comm = CV_NONE;
	n->index = (uint32_t)idx;
	const char *nm = cv_str(&et->strs, x->name);
	size_t nl = cv_strlen(&et->strs, x->name);
	n->link = CV_NONE;
	if (x->is_gpu) {
		/* a device op a linker added (a copy of its host op: not an operator) */
		n->flags |= CV_ET_GPU;
		et->n_gpu++;
	} else if (x->schema || !strcmp(nm, "record_param_comms") ||
	           !strcmp(cv_str(&et->strs, x->backend), "triton"))
		n->flags |= CV_ET_OPERATOR;
	if ((uint64_t)x->id > et->max_id)
		et->max_id = (uint64_t)x->id;
	if (x->have_lk) {
		cv_etlink *l = CV_PUSH(et->link, et->nlink, et->linkcap);
		if (!l)
			return nomem(x);
		*l = x->lk;
		n->link = (uint32_t)(et->nlink - 1);
	}
	if (!strcmp(nm, "record_param_comms"))
		n->flags |= CV_ET_RPC;
	if (strstr(nm, "process_group:init"))
		n->flags |= CV_ET_PGINIT;
	if (nl > 28 && !strncmp(nm, "[pytorch|profiler|execution_", 28)) {
		if (strstr(nm, "|thread]"))
			n->flags |= CV_ET_ROOT | CV_ET_THREAD_ROOT;
		else if (strstr(nm, "|process]"))
			n->flags |= CV_ET_ROOT;
	}
	if (!strncmp(nm, "c10d::", 6) || !strncmp(nm, "nccl:", 5) || !strncmp(nm, "gloo:", 5))
		n->flags |= CV_ET_COMM_NAME;
	/* tensors: candidates whose top-level argument is typed Tensor */
	for (int dir = 0; dir < 2; dir++) {
		uint32_t start = (uint32_t)et->nt;
		for (size_t i = 0; i < x->ntc[dir]; i++) {
			tcand *c = &x->tc[dir][i];
			if (!type_has_tensor(x, dir, c->elem))
				continue;
			cv_tensor *t = CV_PUSH(et->tensors, et->nt, et->tcap);
			if (!t)
				return nomem(x);
			t->tid = (uint64_t)c->v[0];
			t->sid = (uint64_t)c->v[1];
			if (t->tid > et->max_id)
				et->max_id = t->tid;
			if (t->sid > et->max_id)
				et->max_id = t->sid;
			int64_t tb = 0;
			if (c->v[3] > 0 && c->v[4] > 0 && __builtin_mul_overflow(c->v[3], c->v[4], &tb))
				return chakra__cv_jfail(&x->j, CHAKRA_ECORRUPT,
				                        "tensor %lld: %lld elements x %lld bytes overflows a "
				                        "64-bit size", (long long)c->v[0], (long long)c->v[3],
				                        (long long)c->v[4]);
			t->bytes = (uint64_t)tb;
		}
		if (dir == 0) {
			n->tin = start;
			n->tin_n = (uint32_t)et->nt - start;
		} else {
			n->tout = start;
			n->tout_n = (uint32_t)et->nt - start;
		}
	}
	derive_num_ops(x, n);
	int prc = n->flags & CV_ET_RPC
	          ? parse_rpc(x, n, n->tin_n ? et->tensors + n->tin : NULL, n->tin_n) : 0;
	if (prc == -1)
		return nomem(x);
	if (prc < 0)
		return 0; /* refused: the error is set */
	if (n->flags & CV_ET_PGINIT) {
		for (size_t i = 0; i < x->nel[F_IN_VAL]; i++) {
			const elem *e = &x->el[F_IN_VAL][i];
			if (e->kind != 's')
				continue;
			const char *s = sb(x, e->str);
			if (chakra__cv_pg_parse(&et->strs, s, strlen(s), &et->pgs, &et->npg, &et->pgcap) < 0)
				return nomem(x);
			break;
		}
	}
	if (et->keep_io && (n->flags & CV_ET_OPERATOR) && !(n->flags & CV_ET_GPU)) {
		/* six NUL-terminated strings: in values, shapes, types, out ... */
		const cv_buf *parts[6] = { &x->text[F_IN_VAL], &x->text[F_IN_SHP], &x->types[0],
		                           &x->text[F_OUT_VAL], &x->text[F_OUT_SHP], &x->types[1] };
		size_t total = 0;
		for (int i = 0; i < 6; i++)
			total += parts[i]->len + 1;
		if (total > 6) {
			char *io = chakra_malloc(total);
			if (!io)
				return nomem(x);
			size_t o = 0;
			for (int i = 0; i < 6; i++) {
				if (parts[i]->len)
					memcpy(io + o, parts[i]->p, parts[i]->len);
				o += parts[i]->len;
				io[o++] = 0;
			}
			n->io = io;
			n->io_len = (uint32_t)total;
		}
	}
	/* children lists by parent id (children usually come first) */
	uint32_t me = (uint32_t)(et->n - 1);
	n->next_sib = chakra__cv_map_get(&et->kids, n->parent);
	if (chakra__cv_map_put(&et->kids, n->parent, me) < 0)
		return nomem(x);
	if (n->flags & CV_ET_OPERATOR)
		drop_folded_io(et, n->id);
	node_reset(x);
	return 1;
}

/* Attributes (schema 1.0.2+) by name, classified when the name arrives. */
enum {
	AT_NONE = 0, AT_UNKNOWN, AT_RF, AT_FWPARENT, AT_SEQ, AT_SCOPE, AT_TID, AT_FWTID, AT_INNE,
	AT_OUTNE, AT_PGSIZE, AT_RSTART, AT_RSTRIDE, AT_COLL, AT_DTYPE, AT_PGNAME, AT_PGDESC,
	AT_SCHEMA, AT_BACKEND
};

static int attr_id(const char *s, size_t n)
{
#define IS(lit) (n == sizeof(lit) - 1 && !memcmp(s, lit, n))
	switch (n) {
	case 3: return IS("tid") ? AT_TID : AT_UNKNOWN;
	case 5: return IS("rf_id") ? AT_RF : IS("scope") ? AT_SCOPE : IS("dtype") ? AT_DTYPE : AT_UNKNOWN;
	case 6: return IS("seq_id") ? AT_SEQ : IS("fw_tid") ? AT_FWTID : AT_UNKNOWN;
	case 9: return IS("fw_parent") ? AT_FWPARENT : IS("op_schema") ? AT_SCHEMA : AT_UNKNOWN;
	}
	if (IS("in_msg_nelems")) return AT_INNE;
	if (IS("out_msg_nelems")) return AT_OUTNE;
	if (IS("pg_size")) return AT_PGSIZE;
	if (IS("global_rank_start")) return AT_RSTART;
	if (IS("global_rank_stride")) return AT_RSTRIDE;
	if (IS("collective_name")) return AT_COLL;
	if (IS("dtype")) return AT_DTYPE;
	if (IS("pg_name")) return AT_PGNAME;
	if (IS("pg_desc")) return AT_PGDESC;
	if (IS("kernel_backend")) return AT_BACKEND;
	return AT_UNKNOWN;
#undef IS
}

static int attr_is_string(int id)
{
	return id == AT_NONE || id == AT_COLL || id == AT_DTYPE || id == AT_PGNAME ||
	       id == AT_PGDESC || id == AT_SCHEMA || id == AT_BACKEND;
}

static void attr_apply(ctx *x)
{
	int64_t v = x->a_ival;
	int isint = x->a_kind == 'n' && x->a_is_int;
	int isstr = x->a_kind == 's';
	int64_t *iv = NULL;
	uint32_t *soff = NULL, *slen = NULL;
	switch (x->a_id) {
	case AT_RF: iv = &x->rf; break;
	case AT_FWPARENT: iv = &x->fwparent; break;
	case AT_SEQ: iv = &x->seq; break;
	case AT_SCOPE: iv = &x->scope; break;
	case AT_TID: iv = &x->tid; break;
	case AT_FWTID: iv = &x->fwtid; break;
	case AT_INNE: iv = &x->at_in_ne; break;
	case AT_OUTNE: iv = &x->at_out_ne; break;
	case AT_PGSIZE: iv = &x->at_pgsize; break;
	case AT_RSTART: iv = &x->at_rstart; break;
	case AT_RSTRIDE: iv = &x->at_rstride; break;
	case AT_COLL: soff = &x->at_coll; slen = &x->at_coll_l; break;
	case AT_DTYPE: soff = &x->at_dtype; slen = &x->at_dtype_l; break;
	case AT_PGNAME: soff = &x->at_pgname; slen = &x->at_pgname_l; break;
	case AT_PGDESC: soff = &x->at_pgdesc; slen = &x->at_pgdesc_l; break;
	case AT_SCHEMA:
		if (isstr && x->a_str_len)
			x->schema = chakra__cv_intern(&x->et->strs, sb(x, x->a_str), x->a_str_len);
		break;
	case AT_BACKEND:
		if (isstr)
			x->backend = chakra__cv_intern(&x->et->strs, sb(x, x->a_str), x->a_str_len);
		break;
	}
	if (iv && isint)
		*iv = v;
	if (soff && isstr) {
		*soff = x->a_str;
		*slen = x->a_str_len;
	}
}

/* ---- YAJL callbacks ---- */
static int on_scalar(void *p, char kind, const char *s, size_t n)
{
	ctx *x = p;
	int d = x->j.depth;
	int c = x->c[d];
	if (c == C_SKIP)
		return 1;
	int64_t iv = 0;
	int is_int = kind == 'n' && cv_parse_i64(s, n, &iv) == 0;
	if (c == C_CAP || c == C_CAPIN)
		return cap_scalar(x, d, kind, s, n, iv, is_int) < 0 ? nomem(x) : 1;
	if (d == 0)
		return chakra__cv_jfail(&x->j, CHAKRA_ECORRUPT,
		                        "not a PyTorch execution trace (expected a JSON object)");
	if (c == C_NODES) {
		x->j.index++;
		return chakra__cv_jfail(&x->j, CHAKRA_ECORRUPT, "a node is not a JSON object");
	}
	int k = x->k[d];
	x->k[d] = K_OTHER;
	cv_et *et = x->et;
	if (c == C_TOP) {
		switch (k) {
		case K_SCHEMA:
			if (kind == 's')
				et->schema = chakra__cv_intern(&et->strs, s, n);
			break;
		case K_TIME:
			if (kind == 's')
				et->time = chakra__cv_intern(&et->strs, s, n);
			break;
		case K_PID:
			if (is_int) et->pid = iv;
			break;
		case K_START:
			if (is_int) et->start_ts = iv;
			break;
		case K_FINISH:
			if (is_int) et->finish_ts = iv;
			break;
		case K_NODES:
			return chakra__cv_jfail(&x->j, CHAKRA_ECORRUPT, "'nodes' is not an array");
		}
		return 1;
	}
	if (c == C_NODE) {
		int64_t *dst = NULL;
		switch (k) {
		case K_ID:
			if (!is_int)
				return chakra__cv_jfail(&x->j, CHAKRA_ECORRUPT, "'id' is not an integer");
			x->id = iv;
			x->have_id = 1;
			return 1;
		case K_PARENT:
			if (!is_int)
				return chakra__cv_jfail(&x->j, CHAKRA_ECORRUPT,
				                        "'parent'/'ctrl_deps' is not an integer");
			x->parent = iv;
			x->have_parent = 1;
			return 1;
		case K_NAME:
			if (kind == 's')
				x->name = chakra__cv_intern(&et->strs, s, n);
			if (x->name == CV_NONE)
				return nomem(x);
			return 1;
		case K_SCHEMA_OP:
			if (kind == 's' && n)
				x->schema = chakra__cv_intern(&et->strs, s, n);
			return 1;
		case K_BACKEND:
			if (kind == 's')
				x->backend = chakra__cv_intern(&et->strs, s, n);
			return 1;
		case K_CAT:
			if (kind == 's') {
				/* a device op: a copy, a set, else a kernel */
				int ck = chakra__cv_kind_of_cat(s, n, 1);
				if (ck != CV_K_MEMCPY && ck != CV_K_MEMSET)
					ck = CV_K_KERNEL;
				x->lk.kind = (uint8_t)ck;
				x->is_gpu = x->have_lk = 1;
			}
			return 1;
		case K_TS: case K_IDUR: case K_BACKLOG: {
			int64_t t;
			if (kind != 'n' || chakra__cv_parse_us_ns(s, n, &t) < 0 ||
			    (k == K_IDUR && t < 0))
				return chakra__cv_jfail(&x->j, CHAKRA_ECORRUPT,
				                        "'%s' is not a time in microseconds (at most 2.3e15)",
				                        k == K_TS ? "ts" : k == K_IDUR ? "inclusive_dur"
				                                                        : "backlog_until");
			*(k == K_TS ? &x->lk.ts : k == K_IDUR ? &x->lk.dur : &x->lk.backlog) = t;
			x->have_lk = 1;
			return 1;
		}
		case K_NPG: case K_SKIND:
			if (kind == 's') {
				uint32_t v = chakra__cv_intern(&et->strs, s, n);
				if (v == CV_NONE)
					return nomem(x);
				*(k == K_NPG ? &x->lk.pg_name : &x->lk.sync_kind) = v;
				x->have_lk = 1;
			}
			return 1;
		case K_STREAM: dst = &x->lk.stream; break;
		case K_DEVICE: dst = &x->lk.device; break;
		case K_CORR: dst = &x->lk.corr; break;
		case K_BYTES: dst = &x->lk.bytes; break;
		case K_EXTID: dst = &x->lk.ext_id; break;
		case K_CTYPE: dst = &x->lk.comm_type; break;
		case K_CSIZE: dst = &x->lk.comm_size; break;
		case K_CPEER: dst = &x->lk.comm_peer; break;
		case K_CTAG: dst = &x->lk.comm_tag; break;
		case K_NTYPE:
			if (is_int && iv >= CHAKRA_METADATA_NODE && iv <= CHAKRA_COMM_COLL_NODE)
				x->lk.ntype = (int32_t)iv;
			else if (kind != 'z')
				return chakra__cv_jfail(&x->j, CHAKRA_ECORRUPT,
				                        "'chakra_type' is not a node type (1 .. 7)");
			return 1;
		case K_RF: dst = &x->rf; break;
		case K_FWPARENT: dst = &x->fwparent; break;
		case K_SEQ: dst = &x->seq; break;
		case K_SCOPE: dst = &x->scope; break;
		case K_TID: dst = &x->tid; break;
		case K_FWTID: dst = &x->fwtid; break;
		case K_INPUTS: case K_OUTPUTS: case K_IN_SHAPES: case K_OUT_SHAPES:
		case K_IN_TYPES: case K_OUT_TYPES: case K_ATTRS:
			if (kind != 'z')
				return chakra__cv_jfail(&x->j, CHAKRA_ECORRUPT,
				                        "node field holds a scalar where a list belongs");
			return 1;
		}
		if (dst && is_int) {
			*dst = iv;
			if (k >= K_CAT)
				x->have_lk = 1;
		}
		return 1;
	}
	if (c == C_IDS) {
		/* an id list of a linked ET */
		int w = x->iodir[d];
		if (!is_int)
			return chakra__cv_jfail(&x->j, CHAKRA_ECORRUPT, "an id list holds a non-integer");
		int64_t *p = CV_PUSH(et->lint, et->nlint, et->lintcap);
		if (!p)
			return nomem(x);
		*p = iv;
		x->lk.ndep[w]++;
		return 1;
	}
	if (c == C_TYPES) {
		int dir = x->iodir[d];
		if (kind == 's') {
			uint32_t len = 0, off = sbuf_add(x, s, n, &len);
			uint32_t *p = CV_RESERVE(x->tyoff[dir], x->tycap[dir], 2 * (x->ntys[dir] + 1));
			if (!off || !p)
				return nomem(x);
			p[2 * x->ntys[dir]] = off;
			p[2 * x->ntys[dir] + 1] = len;
			x->ntys[dir]++;
		}
		return 1;
	}
	if (c == C_ATTR) {
		if (k == K_A_NAME && kind == 's') {
			x->a_id = (uint8_t)attr_id(s, n);
		} else if (k == K_A_VALUE) {
			x->a_kind = (uint8_t)kind;
			x->a_is_int = (uint8_t)is_int;
			x->a_ival = iv;
			/* a string is kept if the name says it matters, or is not known
			 * yet (value before name) */
			if (kind == 's' && attr_is_string(x->a_id) &&
			    !(x->a_str = sbuf_add(x, s, n, &x->a_str_len)))
				return nomem(x);
		}
		return 1;
	}
	if (c == C_CTRL) {
		if (is_int && !x->have_parent) {
			x->parent = iv;
			x->have_parent = 1;
		}
		return 1;
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
	int c = x->c[d], k = x->k[d];
	int nc = C_SKIP;
	if (d == 0) {
		if (!is_map || x->top_seen)
			return chakra__cv_jfail(&x->j, CHAKRA_ECORRUPT,
			                        "not a PyTorch execution trace (expected a JSON object)");
		x->top_seen = 1;
		nc = C_TOP;
	} else if (c == C_CAP || c == C_CAPIN) {
		if (cap_open(x, d, is_map) < 0)
			return nomem(x);
		nc = C_CAPIN;
	} else if (c == C_TOP && k == K_DEVTRACE && is_map) {
		x->devt.len = 0;
		if (chakra__cv_json_raw_begin(&x->j, &x->devt) < 0)
			return nomem(x);
		nc = C_DEVT;
	} else if (c == C_TOP && k == K_NODES) {
		if (is_map)
			return chakra__cv_jfail(&x->j, CHAKRA_ECORRUPT, "'nodes' is not an array");
		x->seen_nodes = 1;
		nc = C_NODES;
	} else if (c == C_NODES) {
		if (!is_map)
			return chakra__cv_jfail(&x->j, CHAKRA_ECORRUPT, "a node is not a JSON object");
		x->j.index++;
		nc = C_NODE;
	} else if (c == C_NODE) {
		int field = -1, dir = 0;
		switch (k) {
		case K_INPUTS:
			if (is_map) { nc = C_IOOBJ; dir = 0; } else field = F_IN_VAL;
			break;
		case K_OUTPUTS:
			if (is_map) { nc = C_IOOBJ; dir = 1; } else field = F_OUT_VAL;
			break;
		case K_IN_SHAPES: field = F_IN_SHP; break;
		case K_OUT_SHAPES: field = F_OUT_SHP; break;
		case K_IN_TYPES: nc = C_TYPES; dir = 0; break;
		case K_OUT_TYPES: nc = C_TYPES; dir = 1; break;
		case K_ATTRS: nc = is_map ? C_SKIP : C_ATTRS; break;
		case K_PARENT: nc = is_map ? C_SKIP : C_CTRL; break;
		case K_SYNCDEP: case K_SWAIT: case K_STWAIT: case K_FLOW:
			if (!is_map) {
				dir = k == K_SYNCDEP ? CV_LD_SYNC : k == K_SWAIT ? CV_LD_WAIT
				    : k == K_STWAIT ? CV_LD_STREAM : CV_LD_FLOW;
				if (x->lk.ndep[dir])
					return chakra__cv_jfail(&x->j, CHAKRA_ECORRUPT, "an id list given twice");
				x->lk.dep[dir] = (uint32_t)x->et->nlint;
				x->have_lk = 1;
				nc = C_IDS;
			}
			break;
		}
		if (field >= 0 && !is_map) {
			nc = C_CAP;
			x->cap_field = field;
			x->cap_base = d + 1;
			x->text[field].len = 0;
			x->nel[field] = 0;
			if (x->et->keep_io)
				chakra__cv_json_raw_begin(&x->j, &x->text[field]);
			memset(&x->ts[d + 1], 0, sizeof x->ts[d + 1]);
		}
		if (nc == C_TYPES && is_map)
			nc = C_SKIP;
		x->iodir[d + 1] = (uint8_t)dir;
	} else if (c == C_IOOBJ) {
		int dir = x->iodir[d];
		if (!is_map && (k == K_VALUES || k == K_SHAPES)) {
			int field = k == K_VALUES ? (dir ? F_OUT_VAL : F_IN_VAL)
			                          : (dir ? F_OUT_SHP : F_IN_SHP);
			nc = C_CAP;
			x->cap_field = field;
			x->cap_base = d + 1;
			x->text[field].len = 0;
			x->nel[field] = 0;
			if (x->et->keep_io)
				chakra__cv_json_raw_begin(&x->j, &x->text[field]);
			memset(&x->ts[d + 1], 0, sizeof x->ts[d + 1]);
		} else if (!is_map && k == K_TYPES) {
			nc = C_TYPES;
			x->iodir[d + 1] = (uint8_t)dir;
		}
	} else if (c == C_ATTRS) {
		if (is_map) {
			nc = C_ATTR;
			x->a_id = AT_NONE;
			x->a_kind = 0;
			x->a_str = 0;
		}
	}
	if (nc == C_TYPES && x->et->keep_io)
		chakra__cv_json_raw_begin(&x->j, &x->types[x->iodir[d + 1]]);
	x->k[d] = K_OTHER;
	x->j.depth = d + 1;
	x->c[d + 1] = (uint8_t)nc;
	x->k[d + 1] = K_OTHER;
	return 1;
}

static int close_container(void *p, int is_map)
{
	ctx *x = p;
	int d = x->j.depth;
	int c = x->c[d];
	x->j.depth = d - 1;
	switch (c) {
	case C_CAP:
		if (chakra__cv_json_raw_end(&x->j) < 0)
			return nomem(x);
		break;
	case C_CAPIN:
		if (cap_close(x, d, is_map) < 0)
			return nomem(x);
		break;
	case C_NODE:
		return node_end(x);
	case C_DEVT:
		if (chakra__cv_json_raw_end(&x->j) < 0 ||
		    (x->et->device_trace = chakra__cv_intern(&x->et->strs, x->devt.p ? x->devt.p : "",
		                                             x->devt.len)) == CV_NONE)
			return nomem(x);
		break;
	case C_ATTR:
		if (x->a_id != AT_NONE)
			attr_apply(x);
		break;
	case C_TYPES: {
		if (chakra__cv_json_raw_end(&x->j) < 0)
			return nomem(x);
		break;
	}
	}
	return 1;
}

static int key_cb(void *p, const char *s, size_t n)
{
	ctx *x = p;
	int d = x->j.depth;
	int c = x->c[d];
	if (c == C_CAP || c == C_CAPIN) {
		return 1; /* keys inside values: the raw text has them */
	}
	x->k[d] = (uint8_t)key_of(c, (const char *)s, n);
	return 1;
}

static const cv_jfmt format = { on_scalar, key_cb, open_container, close_container };

int chakra__cv_et_parse(cv_et *et, const cv_json_src *src, cv_err *err)
{
	ctx *x = chakra_calloc(1, sizeof *x);
	if (!x)
		return chakra__cv_fail(err, CHAKRA_ENOMEM, src->name, NULL, -1, -1, "out of memory");
	x->et = et;
	x->j.err = err;
	x->j.unit = "node";
	node_reset(x);
	if (!et->strs.n && chakra__cv_strtab_init(&et->strs) < 0) {
		chakra_free(x);
		return chakra__cv_fail(err, CHAKRA_ENOMEM, src->name, NULL, -1, -1, "out of memory");
	}
	int rc = chakra__cv_json_run(src, &format, &x->j);
	if (rc == 0 && !x->seen_nodes)
		rc = chakra__cv_fail(err, CHAKRA_ECORRUPT, x->j.name, NULL, -1, -1,
		                     "not a PyTorch execution trace: no 'nodes' array");
	if (rc == 0 && et->schema) {
		const char *s = cv_str(&et->strs, et->schema);
		if (strncmp(s, "1.", 2))
			rc = chakra__cv_fail(err, CHAKRA_ECORRUPT, x->j.name, NULL, -1, -1,
			                     "unsupported schema '%s' (this converter reads 1.0.1 .. "
			                     "1.1.x, with or without a -chakra suffix)", s);
	}
	for (int f = 0; f < F_N; f++) {
		chakra__cv_buf_free(&x->text[f]);
		chakra_free(x->el[f]);
	}
	for (int d = 0; d < 2; d++) {
		chakra__cv_buf_free(&x->types[d]);
		chakra_free(x->tyoff[d]);
		chakra_free(x->tc[d]);
	}
	chakra_free(x->ints);
	chakra__cv_buf_free(&x->sbuf);
	chakra__cv_buf_free(&x->devt);
	chakra_free(x);
	return rc;
}

void chakra__cv_et_free(cv_et *et)
{
	for (size_t i = 0; i < et->n; i++)
		chakra_free(et->nodes[i].io);
	chakra_free(et->nodes);
	chakra_free(et->tensors);
	chakra_free(et->comms);
	chakra_free(et->link);
	chakra_free(et->lint);
	chakra__cv_map_free(&et->kids);
	for (size_t i = 0; i < et->npg; i++)
		chakra_free(et->pgs[i].ranks);
	chakra_free(et->pgs);
	chakra__cv_strtab_free(&et->strs);
	memset(et, 0, sizeof *et);
}

/* ---- process_group:init: a JSON array of groups in a String input ---- */
static const char *tree_str(yajl_val o, const char *key)
{
	const char *path[] = { key, NULL };
	yajl_val v = yajl_tree_get(o, path, yajl_t_string);
	return v ? YAJL_GET_STRING(v) : NULL;
}

static int tree_int(yajl_val o, const char *key, int64_t *out)
{
	const char *path[] = { key, NULL };
	yajl_val v = yajl_tree_get(o, path, yajl_t_number);
	if (!v || !YAJL_IS_INTEGER(v))
		return -1;
	*out = YAJL_GET_INTEGER(v);
	return 0;
}

int chakra__cv_pg_parse(cv_strtab *strs, const char *s, size_t n, cv_pg **pgs, size_t *npg,
                        size_t *pgcap)
{
	/* PyTorch may truncate the string: then the table is unusable, and
	 * groups come from the collectives themselves. */
	yajl_val root;
	int jr = chakra__json_tree(s, n, &root, NULL, 0);
	if (jr == CHAKRA_ENOMEM)
		return -1;
	if (jr < 0)
		return 0;
	int rc = 0;
	if (YAJL_IS_ARRAY(root)) {
		for (size_t i = 0; i < root->u.array.len; i++) {
			yajl_val g = root->u.array.values[i];
			if (!YAJL_IS_OBJECT(g))
				continue;
			const char *nm = tree_str(g, "pg_name");
			if (!nm)
				continue;
			cv_pg *pg = CV_PUSH(*pgs, *npg, *pgcap);
			if (!pg) {
				rc = -1;
				break;
			}
			memset(pg, 0, sizeof *pg);
			pg->backend_id = CV_UNSET;
			pg->size = -1;
			pg->name = chakra__cv_intern(strs, nm, strlen(nm));
			const char *d = tree_str(g, "pg_desc");
			pg->desc = d ? chakra__cv_intern(strs, d, strlen(d)) : 0;
			const char *b = tree_str(g, "backend_config");
			pg->backend = b ? chakra__cv_intern(strs, b, strlen(b)) : 0;
			tree_int(g, "backend_id", &pg->backend_id);
			if (tree_int(g, "group_size", &pg->size) < 0)
				tree_int(g, "pg_size", &pg->size);
			const char *rp[] = { "ranks", NULL };
			yajl_val r = yajl_tree_get(g, rp, yajl_t_array);
			if (r && r->u.array.len) {
				pg->ranks = chakra_malloc(r->u.array.len * sizeof *pg->ranks);
				if (!pg->ranks) {
					rc = -1;
					break;
				}
				for (size_t j = 0; j < r->u.array.len; j++) {
					yajl_val rv = r->u.array.values[j];
					if (YAJL_IS_INTEGER(rv))
						pg->ranks[pg->n_ranks++] = YAJL_GET_INTEGER(rv);
				}
			}
			if (pg->size < 0 && pg->n_ranks)
				pg->size = (int64_t)pg->n_ranks;
		}
	}
	chakra__json_tree_free(root);
	return rc;
}
