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
 * two, a bounds check per field rather than per byte, in one tier
 * (chakra__feeder_scan: see "Fast path" below); on anything else, or
 * within 5 bytes of the end, it hands over to scan_careful at a
 * checkpoint: a field start with every field before it taken in whole, or
 * the message start.
 *
 * A packed list that `want` excludes is skipped by its length (contents
 * checked on lazy decode) when it is in canonical position: it and every
 * field before it have one-byte tags of Node fields 1-9 in increasing
 * order, as encoders write them. Elsewhere it is decoded like a wanted one
 * (the behaviour of the earlier straight-line scan, kept exactly). */
#include "chakra/error.h"
#include "feeder_impl.h"
#include "wire.h"

/* The compiler hints below, and LT's arithmetic shift (Fast path), were
 * measured by building without each (gcc 12, release build, chakra bench
 * feed on the 5M-node synthetic trace, alternated; docs/feeder.md, fifth
 * round): without all of them the feed takes 3.6% more CPU time and 1.7%
 * more instructions (14 per node); without the noinline and cold on
 * scan_careful, ~1.3% more time; without always_inline and the shift
 * together, ~0.5-1% (4 instructions per node); without the branch hints
 * alone, 7 instructions per node and no difference in time beyond the
 * noise. They stay as a group: removing any of them costs instructions,
 * and together they pay. (SELECT, an unpredictable-branch hint, was no
 * longer used by anything: it went.) */
#if defined(__GNUC__)
#  define SCAN_INLINE static inline __attribute__((always_inline))
#  define SCAN_COLD static __attribute__((noinline, cold))
#  define LIKELY(x) __builtin_expect(!!(x), 1)
#  define UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#  define SCAN_INLINE static inline
#  define SCAN_COLD static
#  define LIKELY(x) (x)
#  define UNLIKELY(x) (x)
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
 * One tier: chakra__feeder_scan takes the canonical chain in its common
 * form, with as few registers and instructions as it can, and hands
 * anything else to scan_careful: from the message start when a field of
 * the chain is unusual (it keeps no checkpoint), from the field that is
 * not in the chain's order, or from a tail of under 5 bytes. */
#define AT(x) (*(const uint8_t *)(x))

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
 * in chakra__feeder_scan), else 0 (near the end: the careful path). */
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

int chakra__feeder_scan(const uint8_t *msg, size_t len, uint64_t base, uint64_t *id, walk_scratch *ws,
                unsigned want, char *err)
{
	/* p < lim: 5 bytes readable at p, a tag and a four-byte varint or a
	 * two-byte length. */
	uintptr_t p = (uintptr_t)msg, lim = p + len - 4;
	unsigned t;
	ws->data.len = ws->ctrl.len = 0;
	if (UNLIKELY(len <= 9)) /* (then the id, at most 5 bytes, ends before lim) */
		goto restart;

/* A field's payload, then the next tag in t. On anything unusual,
 * scan_careful starts again from the message start: this keeps no
 * checkpoint, and so holds fewer registers. */
#define SKIPV() (p++, hot_skipv(&p, lim))
#define SKIP() fast_skip(&p)
/* A length-delimited field with a one-byte length: most names and attrs */
#define SKIP1() do { \
		size_t n_ = AT(p + 1); \
		if (UNLIKELY(n_ >= 0x80)) { \
			if (!SKIP()) \
				goto restart; \
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
		HOT_VARINT(p, v, restart);
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
			goto restart;
		NEXT();
	}
	if (LIKELY(t == TAG_CTRL_DEPS)) {
		if (!(want & CHAKRA_DEPS_CTRL ? LIST(&ws->ctrl) : SKIP()))
			goto restart;
		NEXT();
	}
	if (LIKELY(t == TAG_DATA_DEPS)) {
		if (!(want & CHAKRA_DEPS_DATA ? LIST(&ws->data) : SKIP()))
			goto restart;
		NEXT();
	}
	/* Fields 6-10: mostly a duration, then attributes; the rest off the
	 * straight line. */
	if (UNLIKELY(t != TAG_DURATION)) {
		if (t == TAG_START) {
			if (!SKIPV())
				goto restart;
			NEXT();
		}
		if (t != TAG_DURATION)
			goto after_dur;
	}
	if (!SKIPV())
		goto restart;
	NEXT();
after_dur:
	if (UNLIKELY(t != TAG_ATTR)) {
		if (t == TAG_INPUTS) {
			if (!SKIP())
				goto restart;
			NEXT();
		}
		if (t == TAG_OUTPUTS) {
			if (!SKIP())
				goto restart;
			NEXT();
		}
	}
	while (LIKELY(t == TAG_ATTR)) { /* attributes */
		SKIP1();
		NEXT();
	}
	/* Anything else, in any order: a field start with every field
	 * before it taken in whole, none of which the careful path would
	 * take for a list's canonical position (any later canonical tag
	 * would have been taken by the chain). */
	return scan_careful((const uint8_t *)p, msg + len, base - (uintptr_t)msg, id, ws, 0xff << 8,
	                    err);
#undef SKIP
#undef SKIP1
#undef SKIPV
#undef LIST
#undef NEXT
end: /* p >= lim: done, or a short tail, or a length past the end */
	if (p == lim + 4)
		return 0;
	/* A short tail: a field start, every field before it taken in whole,
	 * the last of them (t) in canonical order so far, as the careful
	 * path's state (an attr's tag, 0x52, is above every canonical one:
	 * as good as 0xff). */
	if (p < lim + 4)
		return scan_careful((const uint8_t *)p, msg + len, base - (uintptr_t)msg, id, ws,
		                    t << 8 | (~want & CHAKRA_DEPS_BOTH), err);
restart: /* (a length past the end, too: the careful path names it) */
	ws->data.len = ws->ctrl.len = 0;
	*id = 0;
	return scan_careful(msg, msg + len, base - (uintptr_t)msg, id, ws, ~want & CHAKRA_DEPS_BOTH,
	                    err);
}
