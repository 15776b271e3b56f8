/* SPDX-License-Identifier: Apache-2.0 */
/* The feeder's scan: a Node message's id and dependencies, nothing else.
 *
 * Why not chakra__node_walk's scan mode: it also validates every attribute, which
 * is most of its cost on typical nodes and more than the whole budget of a
 * feeder that must keep within 3x of reading the file. Here the top-level
 * structure is checked (tags, wire types, lengths within the message, the
 * dependency varints); the contents of name / inputs / outputs / attr are
 * checked by the full walker when the node is first accessed, and a
 * failure there makes the feeder fail with that error (depgraph.c).
 *
 * Two paths with one meaning. scan_careful is the definition: every field
 * bounds-checked, every error message (the earlier scan's, kept exactly).
 * The fast path is for what encoders write: one-byte tags of the Node
 * fields in field order, varints of up to four bytes, lengths of up to
 * two, a bounds check per field rather than per byte. It has two tiers
 * (chakra__feeder_scan, the common form only, and scan_general: see "Fast path"
 * below); on anything else, or within 5 bytes of the end, it hands over to
 * scan_careful at a checkpoint: a field start with every field before it
 * taken in whole.
 *
 * A packed list that `want` excludes is skipped by its length (contents
 * checked on lazy decode) when it is in canonical position: it and every
 * field before it have one-byte tags of Node fields 1-9 in increasing
 * order, as encoders write them. Elsewhere it is decoded like a wanted one
 * (the behaviour of the earlier straight-line scan, kept exactly). */
#include "chakra/error.h"
#include "feeder_impl.h"
#include "wire.h"

#if defined(__GNUC__)
#  define SCAN_INLINE static inline __attribute__((always_inline))
#  define SCAN_COLD static __attribute__((noinline, cold))
#  define LIKELY(x) __builtin_expect(!!(x), 1)
#  define UNLIKELY(x) __builtin_expect(!!(x), 0)
#  if defined(__clang__)
#    define SELECT(c, a, b) (__builtin_unpredictable(c) ? (a) : (b))
#  else
#    define SELECT(c, a, b) (__builtin_expect_with_probability(!!(c), 1, 0.5) ? (a) : (b))
#  endif
#else
#  define SCAN_INLINE static inline
#  define SCAN_COLD static
#  define LIKELY(x) (x)
#  define UNLIKELY(x) (x)
#  define SELECT(c, a, b) ((c) ? (a) : (b))
#endif

/* The Node message's fields (proto/et_def.proto), and the one-byte tags
 * ((field << 3) | wire type) encoders write for them. */
#define FIELD_ID 1
#define FIELD_NAME 2
#define FIELD_TYPE 3
#define FIELD_CTRL_DEPS 4
#define FIELD_DATA_DEPS 5
#define FIELD_START 6     /* start_time_micros */
#define FIELD_DURATION 7  /* duration_micros */
#define FIELD_INPUTS 8
#define FIELD_OUTPUTS 9
#define FIELD_ATTR 10
#define TAG_ID 0x08        /* field 1, varint */
#define TAG_NAME 0x12      /* field 2, length-delimited */
#define TAG_TYPE 0x18      /* field 3, varint */
#define TAG_CTRL_DEPS 0x22 /* field 4, packed varints (length-delimited) */
#define TAG_DATA_DEPS 0x2a /* field 5, packed varints */
#define TAG_START 0x30     /* field 6, varint */
#define TAG_DURATION 0x38  /* field 7, varint */
#define TAG_INPUTS 0x42    /* field 8, length-delimited */
#define TAG_OUTPUTS 0x4a   /* field 9, length-delimited */
#define TAG_ATTR 0x52      /* field 10, length-delimited */

#define BAD(...) chakra__errf(err, CHAKRA_ECORRUPT, __VA_ARGS__)
#define POS(p) ((unsigned long long)(bias + (uintptr_t)(p)))

/* ---- Careful path ---- */

/* One-byte tags of Node fields 1-9 with their own wire types: the fields
 * that can be in canonical position. */
static int is_canon(unsigned t)
{
	switch (t) {
	case TAG_ID: case TAG_NAME: case TAG_TYPE: case TAG_CTRL_DEPS: case TAG_DATA_DEPS:
	case TAG_START: case TAG_DURATION: case TAG_INPUTS: case TAG_OUTPUTS:
		return 1;
	default:
		return 0;
	}
}

/* The dependency arrays would pass the per-node budget (ws->limit, the
 * reader option max_node_memory) with `extra` more bytes. */
static int scan_over_budget(walk_scratch *ws, size_t extra)
{
	if (ws->limit && (uint64_t)ws->data.len + ws->ctrl.len + extra > ws->limit) {
		ws->over = 1;
		return 1;
	}
	return 0;
}

/* deps() returned -2 for the field at byte pos. */
static int deps_nomem(const walk_scratch *ws, unsigned long long pos, char *err)
{
	if (ws->over)
		return chakra__errf(err, CHAKRA_ETOOBIG,
		                    "byte %llu: the dependency lists need more than %llu bytes "
		                    "(max_node_memory)",
		                    pos, (unsigned long long)ws->limit);
	return chakra__errf(err, CHAKRA_ENOMEM, "out of memory");
}

/* A dependency field's payload of wire type wt appended to dst: 0, -1
 * (malformed) or -2 (out of memory, or over the budget: ws->over). */
static int deps(walk_scratch *ws, cbuf *dst, unsigned wt, const uint8_t **p, const uint8_t *end)
{
	uint64_t v, L;
	if (wt == WT_VARINT) {
		if (wire_varint(p, end, &v))
			return -1;
		if (scan_over_budget(ws, 8))
			return -2;
		return chakra__cbuf_append(dst, &v, 8) ? -2 : 0;
	}
	if (wt != WT_LEN || wire_varint(p, end, &L) || L > (uint64_t)(end - *p))
		return -1;
	if (L == 0)
		return 0;
	const uint8_t *q = *p, *e = q + L;
	/* Each varint ends with its one byte below 0x80: the exact count. */
	size_t cnt = 0;
	for (const uint8_t *c = q; c < e; c++)
		cnt += *c < 0x80;
	if (e[-1] >= 0x80)
		return -1;
	if (scan_over_budget(ws, cnt * 8) || chakra__cbuf_reserve(dst, dst->len + cnt * 8))
		return -2;
	uint64_t *o = (uint64_t *)(dst->p + dst->len);
	size_t n = 0;
	while (q < e)
		if (n == cnt || wire_varint(&q, e, &o[n++]))
			return -1;
	*p = q;
	dst->len += n * 8;
	return 0;
}

static int skip_len(const uint8_t **p, const uint8_t *end)
{
	uint64_t L;
	if (wire_varint(p, end, &L) || L > (uint64_t)(end - *p))
		return -1;
	*p += L;
	return 0;
}

/* The fields from p to the end. bias: the stream offset of address 0
 * (base - msg), for messages. state: the lists that `want` excludes
 * (chakra_deps bits), and << 8 the tag of the last field before p while
 * all fields so far are in canonical position, 0 before the first field,
 * 0xff once one was not. *id and ws hold the fields before p. Seven
 * arguments, as chakra__feeder_scan: its calls here are jumps. */
SCAN_COLD int scan_careful(const uint8_t *p, const uint8_t *end, uint64_t bias, uint64_t *id,
                           walk_scratch *ws, unsigned state, char *err)
{
	unsigned prev = state >> 8, unwanted = state & CHAKRA_DEPS_BOTH;
	uint64_t v;
	while (p < end) {
		const uint8_t *fs = p;
		uint64_t tag;
		unsigned t = *p;
		prev = t > prev && is_canon(t) ? t : 0xff;
		/* The one-byte tags of the Node fields with their expected wire
		 * types; anything else by the general decoder below. */
		switch (t) {
		case TAG_ID: /* id */
			p++;
			if (wire_varint(&p, end, id))
				return BAD("byte %llu: field id: bad varint", POS(fs));
			continue;
		case TAG_TYPE: case TAG_START: case TAG_DURATION: /* type, start, duration */
			p++;
			if (wire_varint(&p, end, &v))
				return BAD("byte %llu: field %u: bad varint", POS(fs), t >> 3);
			continue;
		case TAG_NAME: case TAG_INPUTS: case TAG_OUTPUTS: case TAG_ATTR: /* name, inputs, outputs, attr */
			p++;
			if (skip_len(&p, end))
				return BAD("byte %llu: field %u malformed", POS(fs), t >> 3);
			continue;
		case TAG_CTRL_DEPS: case TAG_DATA_DEPS: { /* ctrl_deps, data_deps (packed) */
			int ctrl = t == TAG_CTRL_DEPS, rc;
			p++;
			if (prev == t && (unwanted & (ctrl ? CHAKRA_DEPS_CTRL : CHAKRA_DEPS_DATA)))
				rc = skip_len(&p, end);
			else
				rc = deps(ws, ctrl ? &ws->ctrl : &ws->data, WT_LEN, &p, end);
			if (rc == -2)
				return deps_nomem(ws, POS(fs), err);
			if (rc)
				return BAD("byte %llu: field %s malformed", POS(fs),
				           ctrl ? "ctrl_deps" : "data_deps");
			continue;
		}
		default:
			break;
		}
		if (wire_varint(&p, end, &tag) || (tag >> 3) == 0 || (tag >> 3) > 0x1fffffff)
			return BAD("byte %llu: bad field tag", POS(fs));
		unsigned wt = tag & 7;
		switch (tag >> 3) {
		case FIELD_ID: case FIELD_TYPE: case FIELD_START: case FIELD_DURATION:
			if (wt != WT_VARINT || wire_varint(&p, end, &v))
				return BAD("byte %llu: field %llu: %s", POS(fs), (unsigned long long)(tag >> 3),
				           wt != WT_VARINT ? "wrong wire type" : "bad varint");
			if ((tag >> 3) == FIELD_ID)
				*id = v;
			break;
		case FIELD_CTRL_DEPS: case FIELD_DATA_DEPS: {
			int rc = deps(ws, (tag >> 3) == FIELD_CTRL_DEPS ? &ws->ctrl : &ws->data, wt, &p, end);
			if (rc == -2)
				return deps_nomem(ws, POS(fs), err);
			if (rc)
				return BAD("byte %llu: field %s malformed", POS(fs),
				           (tag >> 3) == FIELD_CTRL_DEPS ? "ctrl_deps" : "data_deps");
			break;
		}
		case FIELD_NAME: case FIELD_INPUTS: case FIELD_OUTPUTS: case FIELD_ATTR:
			if (wt != WT_LEN || skip_len(&p, end))
				return BAD("byte %llu: field %llu malformed", POS(fs),
				           (unsigned long long)(tag >> 3));
			break;
		default:
			if (chakra__wire_skip(&p, end, wt))
				return BAD("byte %llu: malformed field %llu (wire type %u)", POS(fs),
				           (unsigned long long)(tag >> 3), wt);
		}
	}
	return 0;
}

/* ---- Fast path ----
 * Positions are addresses held as integers (uintptr_t), so that a length
 * running past the end is plain arithmetic, compared before any access.
 * AT(x): the byte at x. The helpers take a field or value at *k with at
 * least 5 bytes readable there and advance *k past it; 0 means the careful
 * path (malformed, or merely unusual).
 *
 * Three tiers, each handing over to the next with the same results:
 * chakra__feeder_scan takes the canonical chain in its common form only, with as
 * few registers and instructions as it can (no checkpoint: anything else
 * starts scan_general over from the message start); scan_general takes
 * the chain in every form (two-byte list lengths, a list at the end, the
 * first buffers) and hands the rest to scan_rest (fields in any order)
 * or scan_careful at a checkpoint. */
#define AT(x) (*(const uint8_t *)(x))

/* noipa: no specialised clone, whose arguments would be elsewhere than
 * its caller's (a tail call to it would then move them). */
#if defined(__clang__)
#  define SCAN_NOINLINE static __attribute__((noinline))
#elif defined(__GNUC__)
#  define SCAN_NOINLINE static __attribute__((noipa))
#else
#  define SCAN_NOINLINE static
#endif

/* A varint: one to four bytes unrolled (ids, types, times; ids take four
 * bytes from 2^21 on), longer ones by the general decoder, within end. */
SCAN_INLINE int fast_varint(uintptr_t *k, uintptr_t end, uint64_t *out)
{
	uintptr_t q = *k;
	uint64_t v = AT(q), b;
	size_t n = 1;
	if (v >= 0x80) {
		v += ((b = AT(q + 1)) << 7) - 0x80;
		n = 2;
		if (b >= 0x80) {
			v += ((b = AT(q + 2)) << 14) - (0x80 << 7);
			n = 3;
			if (b >= 0x80) {
				v += ((b = AT(q + 3)) << 21) - (0x80 << 14);
				n = 4;
				if (UNLIKELY(b >= 0x80)) {
					const uint8_t *r = (const uint8_t *)q;
					if (wire_varint(&r, (const uint8_t *)end, out))
						return 0;
					*k = (uintptr_t)r;
					return 1;
				}
			}
		}
	}
	*out = v;
	*k = q + n;
	return 1;
}

/* Past a length-delimited field with a one- or two-byte length (*k at its
 * tag; the end is not checked here). */
SCAN_INLINE int fast_skip(uintptr_t *k)
{
	uintptr_t q = *k;
	size_t n = AT(q + 1), h;
	if (LIKELY(n < 0x80)) {
		*k = q + n + 2;
		return 1;
	}
	if ((h = AT(q + 2)) >= 0x80)
		return 0;
	*k = q + n + (h << 7) + 3 - 0x80;
	return 1;
}

/* A packed dependency list (*k at its tag) appended to dst, which holds n
 * bytes, committed only when whole. lim: as in chakra__feeder_scan. Values are
 * decoded within the list (a longer one runs past it and is refused). */
SCAN_INLINE int fast_deps(uintptr_t *k, uintptr_t lim, cbuf *dst, size_t n)
{
	uintptr_t s = *k + 2, e;
	size_t L = AT(*k + 1), h;
	if (L >= 0x80) {
		if ((h = AT(s)) >= 0x80)
			return 0;
		L += (h << 7) - 0x80;
		s++;
	}
	/* Room for one value per byte. >= rather than >: an empty buffer
	 * (p NULL) never gets past, and an empty list needs no test. */
	if ((e = s + L) > lim + 4 || n + L * 8 >= dst->cap)
		return 0;
	uint64_t *o = (uint64_t *)(dst->p + n);
	if (LIKELY(e <= lim)) {
		while (s < e)
			if (!fast_varint(&s, e, o++))
				return 0;
		if (s != e)
			return 0;
	} else { /* the list ends the message */
		const uint8_t *q = (const uint8_t *)s;
		while (q < (const uint8_t *)e)
			if (wire_varint(&q, (const uint8_t *)e, o++))
				return 0;
	}
	dst->len = (size_t)((uint8_t *)o - dst->p);
	*k = e;
	return 1;
}

/* A varint of one to four bytes at s, into v, then s past it; else
 * (longer: ids from 2^28) `fail`. Each byte's continuation bit is tested
 * on the sum so far, which is below 2^(7n) unless it is set: one
 * register fewer than testing the byte. */
#define HOT_VARINT(s, v, fail) do { \
		v = AT(s); \
		if (v < 0x80) { \
			s += 1; \
			break; \
		} \
		v += ((uint64_t)AT(s + 1) << 7) - 0x80; \
		if (v < (1u << 14)) { \
			s += 2; \
			break; \
		} \
		v += ((uint64_t)AT(s + 2) << 14) - (0x80u << 7); \
		if (v < (1u << 21)) { \
			s += 3; \
			break; \
		} \
		v += ((uint64_t)AT(s + 3) << 21) - (0x80u << 14); \
		if (UNLIKELY(v >= (1u << 28))) \
			goto fail; \
		s += 4; \
	} while (0)

/* All ones if position a < b, else 0, without a branch (positions of one
 * message: less than 2^63 apart; gcc and clang shift signed integers
 * arithmetically). */
#if defined(__GNUC__)
#  define LT(a, b) ((uintptr_t)((intptr_t)((a) - (b)) >> (sizeof(intptr_t) * 8 - 1)))
#else
#  define LT(a, b) ((uintptr_t)0 - (uintptr_t)((a) < (b)))
#endif

/* Past a varint whose value is not needed (type, times), as wire_varint
 * would take it: up to ten bytes, the tenth at most 1. The first four are
 * readable; a longer one is taken only with ten bytes readable (lim: as
 * in chakra__feeder_scan), else 0 (near the end: the general path). */
SCAN_INLINE int hot_skipv(uintptr_t *k, uintptr_t lim)
{
	uintptr_t s = *k, e;
	if (AT(s) < 0x80) {
		*k = s + 1;
		return 1;
	}
	if (AT(s + 1) < 0x80) {
		*k = s + 2;
		return 1;
	}
	if (AT(s + 2) < 0x80) {
		*k = s + 3;
		return 1;
	}
	if (AT(s + 3) < 0x80) {
		*k = s + 4;
		return 1;
	}
	if (UNLIKELY(s + 6 > lim))
		return 0;
	for (e = s + 9, s += 4; s < e; s++)
		if (AT(s) < 0x80) {
			*k = s + 1;
			return 1;
		}
	if (AT(s) > 1)
		return 0;
	*k = s + 1;
	return 1;
}

/* The first list of its kind in the canonical chain (dst is empty): the
 * common case only, a one- or two-byte length, room for one value per
 * byte, 4 bytes or more after it; 0 for anything else. Values of up to four
 * bytes (a longer one, or one running past the list, is refused). */
SCAN_INLINE int first_deps(uintptr_t *k, uintptr_t lim, cbuf *dst)
{
	uintptr_t s = *k + 2, e;
	size_t L = AT(*k + 1), h;
	/* Room for one value per byte: a one-byte length needs 1 KiB. */
	if (UNLIKELY(L >= 0x80)) { /* a long list (real traces have some) */
		if ((h = AT(s)) >= 0x80)
			return 0;
		L += (h << 7) - 0x80;
		s++;
		if (L * 8 >= dst->cap)
			return 0;
	} else if (UNLIKELY(dst->cap < 1024)) {
		return 0;
	}
	if (UNLIKELY((e = s + L) > lim))
		return 0;
	uint64_t *o = (uint64_t *)dst->p, v;
	uintptr_t q0, q1, q2, a1, m1, m2;
	if (UNLIKELY(L == 0))
		goto done;
	/* Up to three values decoded whatever their count, which varies from
	 * list to list (a loop's exit would be mispredicted: on the generated
	 * trace, 1-3 data deps, this takes about 30% off the scan's time for
	 * 27 more instructions per node). Where there are fewer, the previous value is
	 * decoded again (the same bytes: the same branches and end) and not
	 * kept; every start is before e, so 4 bytes are readable there. The
	 * positions are selected by masks, not conditional expressions, which
	 * the compilers make branches of here. */
	q0 = s;
	HOT_VARINT(q0, v, bad);
	o[0] = v;
	m1 = LT(q0, e); /* a second value */
	q1 = a1 = s + ((q0 - s) & m1);
	HOT_VARINT(q1, v, bad);
	o[1] = v;
	m2 = LT(q1, e); /* a third */
	q2 = a1 + ((q1 - a1) & m2);
	HOT_VARINT(q2, v, bad);
	o[2] = v;
	o += 1 - m1 - m2;
	for (s = q2; UNLIKELY(s < e); *o++ = v) /* more than three */
		HOT_VARINT(s, v, bad);
	if (s != e)
		return 0;
done:
	dst->len = (size_t)((uint8_t *)o - dst->p);
	*k = e;
	return 1;
bad:
	return 0;
}

/* The fields from ck (a checkpoint after the canonical chain, with at
 * least 5 bytes there) to the end, in any order, with scan_careful's
 * arguments. */
SCAN_NOINLINE int scan_rest(const uint8_t *ckp, const uint8_t *mend, uint64_t bias, uint64_t *id,
                            walk_scratch *ws, unsigned state, char *err)
{
	uintptr_t p = (uintptr_t)ckp, end = (uintptr_t)mend, lim = end - 4, ck = p;
	uint64_t v;
	while (p < lim) {
		int ok;
		ck = p;
		switch (AT(p)) {
		case TAG_NAME: case TAG_INPUTS: case TAG_OUTPUTS: case TAG_ATTR:
			ok = fast_skip(&p);
			break;
		case TAG_TYPE: case TAG_START: case TAG_DURATION:
			ok = (p++, fast_varint(&p, end, &v));
			break;
		case TAG_ID:
			ok = (p++, fast_varint(&p, end, id));
			break;
		case TAG_CTRL_DEPS:
			ok = fast_deps(&p, lim, &ws->ctrl, ws->ctrl.len);
			break;
		case TAG_DATA_DEPS:
			ok = fast_deps(&p, lim, &ws->data, ws->data.len);
			break;
		default:
			ok = 0;
		}
		if (!ok)
			goto careful;
	}
	/* p >= lim: done, or a short tail, or (p > end) a length past the
	 * end: from ck then (that field changed nothing: lists check their
	 * end first). */
	if (p == end)
		return 0;
	if (p < end)
		ck = p;
careful:
	return scan_careful((const uint8_t *)ck, mend, bias, id, ws, state, err);
}

/* The canonical chain with every case of it: lists with two-byte lengths
 * or at the end of the message, the first buffers, varints of any length.
 * chakra__feeder_scan hands over here from the message start on anything else
 * than its common form (it changed nothing that this does not set again). */
SCAN_NOINLINE int scan_general(const uint8_t *msg, size_t len, uint64_t base, uint64_t *id,
                                walk_scratch *ws, unsigned want, char *err)
{
	/* p < lim: 5 bytes readable at p, a tag and a four-byte varint or a
	 * two-byte length. */
	uintptr_t p = (uintptr_t)msg, end = p + len, lim = end - 4, ck;
	uint64_t v;
	size_t n;
	ws->data.len = ws->ctrl.len = 0;
	*id = 0;
	if (len <= 4)
		goto restart;

/* A field's payload. On failure or near the end, the careful path takes
 * over from a checkpoint: the message start for fields 1-5 (where the
 * canonical position of lists is decided), then ck. */
#define VARINT(out) (p++, fast_varint(&p, end, out))
#define SKIP() fast_skip(&p)
#define LIST(dst, n) fast_deps(&p, lim, dst, n)
#define NEXT(out) do { \
		if (p >= lim) \
			goto out; \
	} while (0)

	/* The canonical order, straight-line. Each list here is the first of
	 * its kind: its buffer is empty. */
	if (AT(p) == TAG_ID) {
		if (!VARINT(id))
			goto restart;
		NEXT(end1);
	}
	if (AT(p) == TAG_NAME) {
		if (!SKIP())
			goto restart;
		NEXT(end1);
	}
	if (AT(p) == TAG_TYPE) {
		if (!VARINT(&v))
			goto restart;
		NEXT(end1);
	}
	if (AT(p) == TAG_CTRL_DEPS) {
		if (!(want & CHAKRA_DEPS_CTRL ? LIST(&ws->ctrl, 0) : SKIP()))
			goto restart;
		NEXT(end1);
	}
	if (AT(p) == TAG_DATA_DEPS) {
		if (!(want & CHAKRA_DEPS_DATA ? LIST(&ws->data, 0) : SKIP()))
			goto restart;
		NEXT(end1);
	}
	/* No list is in canonical position from here on, and only the
	 * general loop below changes id or the lists: ck is where the careful
	 * path would start, a field start with all before it taken. */
	ck = p;
	if (AT(p) == TAG_START) {
		if (!VARINT(&v))
			goto careful;
		NEXT(end2);
	}
	if (AT(p) == TAG_DURATION) {
		if (!VARINT(&v))
			goto careful;
		NEXT(end2);
	}
	if (AT(p) == TAG_INPUTS) {
		if (!SKIP())
			goto careful;
		NEXT(end2);
	}
	if (AT(p) == TAG_OUTPUTS) {
		if (!SKIP())
			goto careful;
		NEXT(end2);
	}
	while (AT(p) == TAG_ATTR && (n = AT(p + 1)) < 0x80) { /* short attributes */
		p += n + 2;
		NEXT(end2);
	}
	/* Anything else, in any order. */
	return scan_rest((const uint8_t *)p, msg + len, base - (uintptr_t)msg, id, ws, 0xff << 8, err);
#undef VARINT
#undef SKIP
#undef LIST
#undef NEXT
end1: /* p >= lim: done, or a short tail, or a length past the end */
	if (p == end)
		return 0;
restart:
	ws->data.len = ws->ctrl.len = 0;
	*id = 0;
	return scan_careful(msg, msg + len, base - (uintptr_t)msg, id, ws,
	                    ~want & CHAKRA_DEPS_BOTH, err);
end2: /* as end1; from ck when a length ran past the end (that field
       * changed nothing: lists check their end first) */
	if (p == end)
		return 0;
	if (p < end)
		ck = p;
careful:
	return scan_careful((const uint8_t *)ck, msg + len, base - (uintptr_t)msg, id, ws, 0xff << 8,
	                    err);
}

int chakra__feeder_scan(const uint8_t *msg, size_t len, uint64_t base, uint64_t *id, walk_scratch *ws,
                unsigned want, char *err)
{
	/* p < lim: 5 bytes readable at p, a tag and a four-byte varint or a
	 * two-byte length. */
	uintptr_t p = (uintptr_t)msg, lim = p + len - 4;
	unsigned t;
	ws->data.len = ws->ctrl.len = 0;
	if (UNLIKELY(len <= 9)) /* (then the id, at most 5 bytes, ends before lim) */
		goto general;

/* A field's payload, then the next tag in t. On anything unusual,
 * scan_general starts again with chakra__feeder_scan's own arguments: this keeps
 * no checkpoint, and so holds fewer registers. */
#define SKIPV() (p++, hot_skipv(&p, lim))
#define SKIP() fast_skip(&p)
/* A length-delimited field with a one-byte length: most names and attrs */
#define SKIP1() do { \
		size_t n_ = AT(p + 1); \
		if (UNLIKELY(n_ >= 0x80)) { \
			if (!SKIP()) \
				goto general; \
		} else { \
			p += n_ + 2; \
		} \
	} while (0)
#define LIST(dst) first_deps(&p, lim, dst)
#define NEXT() do { \
		if (p >= lim) \
			goto end; \
		t = AT(p); \
	} while (0)

	/* The canonical order, straight-line. Each list here is the first of
	 * its kind: its buffer is empty. */
	t = AT(p);
	if (LIKELY(t == TAG_ID)) {
		uint64_t v;
		p++;
		HOT_VARINT(p, v, general);
		*id = v;
		t = AT(p);
	} else {
		*id = 0;
	}
	if (LIKELY(t == TAG_NAME)) {
		SKIP1();
		NEXT();
	}
	if (LIKELY(t == TAG_TYPE)) {
		if (!SKIPV())
			goto general;
		NEXT();
	}
	if (LIKELY(t == TAG_CTRL_DEPS)) {
		if (!(want & CHAKRA_DEPS_CTRL ? LIST(&ws->ctrl) : SKIP()))
			goto general;
		NEXT();
	}
	if (LIKELY(t == TAG_DATA_DEPS)) {
		if (!(want & CHAKRA_DEPS_DATA ? LIST(&ws->data) : SKIP()))
			goto general;
		NEXT();
	}
	/* Fields 6-10: mostly a duration, then attributes; the rest off the
	 * straight line. */
	if (UNLIKELY(t != TAG_DURATION)) {
		if (t == TAG_START) {
			if (!SKIPV())
				goto general;
			NEXT();
		}
		if (t != TAG_DURATION)
			goto after_dur;
	}
	if (!SKIPV())
		goto general;
	NEXT();
after_dur:
	if (UNLIKELY(t != TAG_ATTR)) {
		if (t == TAG_INPUTS) {
			if (!SKIP())
				goto general;
			NEXT();
		}
		if (t == TAG_OUTPUTS) {
			if (!SKIP())
				goto general;
			NEXT();
		}
	}
	while (LIKELY(t == TAG_ATTR)) { /* attributes */
		SKIP1();
		NEXT();
	}
	/* Anything else, in any order: scan_general. */
	goto general;
#undef SKIP
#undef SKIP1
#undef SKIPV
#undef LIST
#undef NEXT
end: /* p >= lim: done, or a short tail, or a length past the end */
	if (p == lim + 4)
		return 0;
general:
	/* (The arguments used to be copied to volatile locals, and this call
	 * kept from being a tail call by an asm barrier, to spare register
	 * saves: 3 instructions per node, 838.9M against 841.9M on the 1M
	 * synthetic trace, and no difference in chakra bench feed's CPU time
	 * beyond the noise, side by side; so they went. docs/feeder.md.) */
	return scan_general(msg, len, base, id, ws, want, err);
}
