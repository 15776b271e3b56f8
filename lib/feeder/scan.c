/* The feeder's scan: a Node message's id and dependencies, nothing else.
 *
 * Why not node_walk's scan mode: it also validates every attribute, which
 * is most of its cost on typical nodes and more than the whole budget of a
 * feeder that must keep within 3x of reading the file. Here the top-level
 * structure is checked (tags, wire types, lengths within the message, the
 * dependency varints); the contents of name / inputs / outputs / attr are
 * checked by the full walker when the node is first accessed, and a
 * failure there makes the feeder fail with that error (feeder.c). */
#include "chakra/error.h"
#include "feeder_impl.h"
#include "wire.h"

#define BAD(...) chakra__errf(err, CHAKRA_ECORRUPT, __VA_ARGS__)
#define POS(p) ((unsigned long long)(base + (uint64_t)((p) - msg)))

/* A varint, unrolled for the one- to three-byte values that ids, lengths
 * and tags almost always are; longer ones take the general decoder. Same
 * results and errors as wire_varint. */
#if defined(__GNUC__)
#  define SCAN_INLINE static inline __attribute__((always_inline))
#else
#  define SCAN_INLINE static inline
#endif
SCAN_INLINE int varint(const uint8_t **p, const uint8_t *end, uint64_t *out)
{
	const uint8_t *q = *p;
	size_t left = (size_t)(end - q);
	if (left >= 1 && q[0] < 0x80) {
		*out = q[0];
		*p = q + 1;
		return 0;
	}
	if (left >= 2 && q[1] < 0x80) {
		*out = (uint64_t)(q[0] & 0x7f) | (uint64_t)q[1] << 7;
		*p = q + 2;
		return 0;
	}
	if (left >= 3 && q[1] >= 0x80 && q[2] < 0x80) {
		*out = (uint64_t)(q[0] & 0x7f) | (uint64_t)(q[1] & 0x7f) << 7 | (uint64_t)q[2] << 14;
		*p = q + 3;
		return 0;
	}
	return wire_varint(p, end, out);
}

SCAN_INLINE int deps(cbuf *dst, unsigned wt, const uint8_t **p, const uint8_t *end)
{
	uint64_t v;
	if (wt == WT_VARINT) {
		if (varint(p, end, &v))
			return -1;
		return cbuf_append(dst, &v, 8) ? -2 : 0;
	}
	if (wt != WT_LEN)
		return -1;
	uint64_t L;
	if (varint(p, end, &L) || L > (uint64_t)(end - *p))
		return -1;
	if (L == 0)
		return 0;
	const uint8_t *e = *p + L;
	if (dst->len + (size_t)L * 8 > dst->cap && cbuf_reserve(dst, dst->len + (size_t)L * 8))
		return -2; /* (at most one value per byte) */
	uint64_t *o = (uint64_t *)(dst->p + dst->len);
	size_t n = 0;
	const uint8_t *q = *p;
	while (q < e) {
		if (*q < 0x80) { /* small ids: one byte */
			o[n++] = *q++;
			continue;
		}
		if (varint(&q, e, &o[n]))
			return -1;
		n++;
	}
	*p = q;
	dst->len += n * 8;
	return 0;
}

/* Skip a length-delimited payload. */
SCAN_INLINE int skip_len(const uint8_t **p, const uint8_t *end)
{
	uint64_t L;
	if (varint(p, end, &L) || L > (uint64_t)(end - *p))
		return -1;
	*p += L;
	return 0;
}

int feeder_scan(const uint8_t *msg, size_t len, uint64_t base, uint64_t *id, walk_scratch *ws,
                unsigned want, char *err)
{
	const uint8_t *p = msg, *end = msg + len;
	ws->data.len = ws->ctrl.len = 0;
	*id = 0;
	/* Straight-line pass for the canonical field order that protobuf
	 * encoders write (1 id, 2 name, 3 type, 4 ctrl, 5 data, 6 start,
	 * 7 duration, 8 inputs, 9 outputs, 10 attr...): each field is taken
	 * only if its tag is next, with the same checks as the loop below,
	 * which handles whatever is left, in any order. */
	uint64_t v;
	if (p < end && *p == 0x08) {
		const uint8_t *fs = p++;
		if (varint(&p, end, id))
			return BAD("byte %llu: field id: bad varint", POS(fs));
	}
	if (p < end && *p == 0x12) {
		const uint8_t *fs = p++;
		if (skip_len(&p, end))
			return BAD("byte %llu: field 2 malformed", POS(fs));
	}
	if (p < end && *p == 0x18) {
		const uint8_t *fs = p++;
		if (varint(&p, end, &v))
			return BAD("byte %llu: field 3: bad varint", POS(fs));
	}
	for (int f = 4; f <= 5; f++) {
		if (p < end && *p == (uint8_t)(f << 3 | WT_LEN)) {
			const uint8_t *fs = p++;
			if (!(want & (f == 4 ? CHAKRA_DEPS_CTRL : CHAKRA_DEPS_DATA))) {
				/* A list that does not gate: its contents are checked
				 * on lazy decode. */
				if (skip_len(&p, end))
					return BAD("byte %llu: field %s malformed", POS(fs),
					           f == 4 ? "ctrl_deps" : "data_deps");
				continue;
			}
			int rc = deps(f == 4 ? &ws->ctrl : &ws->data, WT_LEN, &p, end);
			if (rc == -2)
				return chakra__errf(err, CHAKRA_ENOMEM, "out of memory");
			if (rc)
				return BAD("byte %llu: field %s malformed", POS(fs),
				           f == 4 ? "ctrl_deps" : "data_deps");
		}
	}
	for (uint8_t t = 0x30; t <= 0x38; t += 8)
		if (p < end && *p == t) {
			const uint8_t *fs = p++;
			if (varint(&p, end, &v))
				return BAD("byte %llu: field %u: bad varint", POS(fs), (unsigned)(t >> 3));
		}
	for (uint8_t t = 0x42; t <= 0x4a; t += 8)
		if (p < end && *p == t) {
			const uint8_t *fs = p++;
			if (skip_len(&p, end))
				return BAD("byte %llu: field %u malformed", POS(fs), (unsigned)(t >> 3));
		}
	while (end - p >= 2 && p[0] == 0x52 && p[1] < 0x80) { /* short attributes */
		if (p[1] > (size_t)(end - p - 2))
			return BAD("byte %llu: field 10 malformed", POS(p));
		p += 2 + p[1];
	}
	while (p < end) {
		const uint8_t *fs = p;
		uint64_t tag;
		/* Fast path: the one-byte tags of the Node fields with their
		 * expected wire types. */
		switch (*p) {
		case 0x08: /* id */
			p++;
			if (varint(&p, end, id))
				return BAD("byte %llu: field id: bad varint", POS(fs));
			continue;
		case 0x18: case 0x30: case 0x38: /* type, start, duration */
			p++;
			if (varint(&p, end, &v))
				return BAD("byte %llu: field %u: bad varint", POS(fs), (unsigned)(*fs >> 3));
			continue;
		case 0x12: case 0x42: case 0x4a: case 0x52: /* name, inputs, outputs, attr */
			p++;
			if (skip_len(&p, end))
				return BAD("byte %llu: field %u malformed", POS(fs), (unsigned)(*fs >> 3));
			continue;
		default:
			break;
		}
		if (wire_varint(&p, end, &tag) || (tag >> 3) == 0 || (tag >> 3) > 0x1fffffff)
			return BAD("byte %llu: bad field tag", POS(fs));
		unsigned wt = tag & 7;
		switch (tag >> 3) {
		case 1: case 3: case 6: case 7:
			if (wt != WT_VARINT || wire_varint(&p, end, &v))
				return BAD("byte %llu: field %llu: %s", POS(fs), (unsigned long long)(tag >> 3),
				           wt != WT_VARINT ? "wrong wire type" : "bad varint");
			if ((tag >> 3) == 1)
				*id = v;
			break;
		case 4: case 5: {
			int rc = deps((tag >> 3) == 4 ? &ws->ctrl : &ws->data, wt, &p, end);
			if (rc == -2)
				return chakra__errf(err, CHAKRA_ENOMEM, "out of memory");
			if (rc)
				return BAD("byte %llu: field %s malformed", POS(fs),
				           (tag >> 3) == 4 ? "ctrl_deps" : "data_deps");
			break;
		}
		case 2: case 8: case 9: case 10:
			if (wt != WT_LEN || skip_len(&p, end))
				return BAD("byte %llu: field %llu malformed", POS(fs),
				           (unsigned long long)(tag >> 3));
			break;
		default:
			if (wire_skip(&p, end, wt))
				return BAD("byte %llu: malformed field %llu (wire type %u)", POS(fs),
				           (unsigned long long)(tag >> 3), wt);
		}
	}
	return 0;
}
