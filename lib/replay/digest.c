/* SPDX-License-Identifier: Apache-2.0 */
/* Digests of what ranks must agree on before a replay starts, and the
 * first difference when they do not: the k-th collective of a scope must
 * have the same type and size on every member, and the k-th message from
 * one rank to another with one tag must have the size the receiver posts.
 * Otherwise MPI would hang, fail on truncation or pair the wrong buffers. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay_impl.h"

static uint64_t mix(uint64_t h, uint64_t w)
{
	h ^= w + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 29;
	return h;
}

chakra_replay_digest chakra_replay_channel_digest(const chakra_replay_plan *p, size_t c)
{
	if (!p || c >= chakra_replay_plan_channel_count(p))
		return (chakra_replay_digest){ 0 };
	const chakra_replay_channel *ch = &chakra_replay_plan_channels(p)[c];
	const chakra_replay_op *ops = chakra_replay_plan_ops(p);
	chakra_replay_digest d = { ch->nops, 0x6a09e667f3bcc908ULL };
	for (uint32_t i = 0; i < ch->nops; i++) {
		const chakra_replay_op *op = &ops[ch->ops[i]];
		d.hash = mix(mix(d.hash, (uint64_t)(int64_t)op->comm_type), op->size);
	}
	return d;
}

/* The channels of one direction and peer: contiguous and ordered by tag. */
static size_t p2p_first(const chakra_replay_plan *p, chakra_replay_kind kind, uint32_t peer,
                        size_t *end)
{
	const chakra_replay_channel *ch = chakra_replay_plan_channels(p);
	size_t n = chakra_replay_plan_channel_count(p), lo = 0, hi = n;
	while (lo < hi) { /* first channel not before (kind, peer) */
		size_t mid = lo + (hi - lo) / 2;
		if (ch[mid].kind < kind || (ch[mid].kind == kind && ch[mid].peer < peer &&
		                            kind != CHAKRA_REPLAY_COLL))
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t e = lo;
	while (e < n && ch[e].kind == kind && ch[e].peer == peer)
		e++;
	*end = e;
	return lo;
}

chakra_replay_digest chakra_replay_p2p_digest(const chakra_replay_plan *p, chakra_replay_kind kind,
                                              uint32_t peer)
{
	if (!p)
		return (chakra_replay_digest){ 0 };
	const chakra_replay_channel *ch = chakra_replay_plan_channels(p);
	const chakra_replay_op *ops = chakra_replay_plan_ops(p);
	chakra_replay_digest d = { 0, 0xbb67ae8584caa73bULL };
	size_t end, c = p2p_first(p, kind, peer, &end);
	for (; c < end; c++) {
		d.count += ch[c].nops;
		d.hash = mix(mix(d.hash, (uint64_t)ch[c].tag), ch[c].nops);
		for (uint32_t i = 0; i < ch[c].nops; i++)
			d.hash = mix(d.hash, ops[ch[c].ops[i]].size);
	}
	return d;
}

static chakra_replay_entry entry_of(const chakra_replay_op *op)
{
	chakra_replay_entry e;
	e.id = op->id;
	e.size = op->size;
	e.tag = op->tag;
	e.comm_type = op->comm_type;
	return e;
}

int64_t chakra_replay_channel_entries(const chakra_replay_plan *p, size_t c,
                                   chakra_replay_entry **out)
{
	if (!p || !out)
		return CHAKRA_EINVAL;
	const chakra_replay_channel *ch = &chakra_replay_plan_channels(p)[c];
	const chakra_replay_op *ops = chakra_replay_plan_ops(p);
	*out = NULL;
	if (!ch->nops)
		return 0;
	chakra_replay_entry *e = chakra_malloc(ch->nops * sizeof *e);
	if (!e)
		return CHAKRA_ENOMEM;
	for (uint32_t i = 0; i < ch->nops; i++)
		e[i] = entry_of(&ops[ch->ops[i]]);
	*out = e;
	return (long)ch->nops;
}

int64_t chakra_replay_p2p_entries(const chakra_replay_plan *p, chakra_replay_kind kind, uint32_t peer,
                               chakra_replay_entry **out)
{
	if (!p || !out)
		return CHAKRA_EINVAL;
	const chakra_replay_channel *ch = chakra_replay_plan_channels(p);
	const chakra_replay_op *ops = chakra_replay_plan_ops(p);
	size_t end, first = p2p_first(p, kind, peer, &end), n = 0;
	*out = NULL;
	for (size_t c = first; c < end; c++)
		n += ch[c].nops;
	if (!n)
		return 0;
	chakra_replay_entry *e = chakra_malloc(n * sizeof *e);
	if (!e)
		return CHAKRA_ENOMEM;
	n = 0;
	for (size_t c = first; c < end; c++)
		for (uint32_t i = 0; i < ch[c].nops; i++)
			e[n++] = entry_of(&ops[ch[c].ops[i]]);
	*out = e;
	return (long)n;
}

static void describe(char *buf, size_t len, const chakra_replay_entry *e)
{
	const char *t = chakra_comm_type_name((int)e->comm_type);
	if (e->comm_type == CHAKRA_BARRIER)
		snprintf(buf, len, "node %" PRIu64 " is BARRIER", e->id);
	else
		snprintf(buf, len, "node %" PRIu64 " is %s of %" PRIu64 " bytes", e->id, t ? t : "?",
		         e->size);
}

/* "ranks 0 1 2 3" (at most 16, then how many more). */
static void ranks_list(char *buf, size_t len, const uint32_t *m, uint32_t n)
{
	size_t o = (size_t)snprintf(buf, len, "rank%s", n == 1 ? "" : "s");
	for (uint32_t i = 0; i < n && i < 16 && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, " %" PRIu32, m[i]);
	if (n > 16 && o < len)
		snprintf(buf + o, len - o, " and %" PRIu32 " more", n - 16);
}

int chakra_replay_coll_diff(const char *scope, const uint32_t *members, uint32_t n,
                            const chakra_replay_entry *const *seqs, const size_t *lens,
                            char *msg, size_t len)
{
	if (!members || !seqs || !lens || !msg)
		return CHAKRA_EINVAL;
	size_t longest = 0;
	for (uint32_t j = 0; j < n; j++)
		if (lens[j] > longest)
			longest = lens[j];
	char rl[200], a[160], b[160];
	ranks_list(rl, sizeof rl, members, n);
	for (size_t i = 0; i < longest; i++) {
		/* The reference: the first member that has an i-th collective. */
		uint32_t ref = 0;
		while (lens[ref] <= i)
			ref++;
		const chakra_replay_entry *r = &seqs[ref][i];
		for (uint32_t j = 0; j < n; j++) {
			if (lens[j] <= i) {
				describe(a, sizeof a, r);
				snprintf(msg, len, "collective #%zu on %s (%s): rank %" PRIu32 " %s, but rank %"
				         PRIu32 " issues only %zu collective%s there (a hang)", i + 1, scope, rl,
				         members[ref], a, members[j], lens[j], lens[j] == 1 ? "" : "s");
				return 1;
			}
			const chakra_replay_entry *e = &seqs[j][i];
			if (e->comm_type != r->comm_type || e->size != r->size) {
				describe(a, sizeof a, r);
				describe(b, sizeof b, e);
				snprintf(msg, len, "collective #%zu on %s (%s) differs: rank %" PRIu32 " %s, "
				         "rank %" PRIu32 " %s", i + 1, scope, rl, members[ref], a, members[j], b);
				return 1;
			}
		}
	}
	return 0;
}

int chakra_replay_p2p_diff(uint32_t src, uint32_t dst, const chakra_replay_entry *s, size_t ns,
                           const chakra_replay_entry *r, size_t nr, char *msg, size_t len)
{
	if ((!s && ns) || (!r && nr) || !msg)
		return CHAKRA_EINVAL;
	size_t i = 0, j = 0;
	uint64_t k = 0; /* position within the current tag */
	int64_t cur = -1;
	while (i < ns || j < nr) {
		if (i < ns && j < nr && s[i].tag == r[j].tag) {
			if (s[i].tag != cur) {
				cur = s[i].tag;
				k = 0;
			}
			if (s[i].size != r[j].size) {
				snprintf(msg, len, "message #%" PRIu64 " from rank %" PRIu32 " to rank %" PRIu32
				         " with tag %" PRId64 ": rank %" PRIu32 " sends node %" PRIu64 " of %"
				         PRIu64 " bytes, but rank %" PRIu32 " receives node %" PRIu64 " of %"
				         PRIu64 " bytes", k + 1, src, dst, s[i].tag, src, s[i].id, s[i].size, dst,
				         r[j].id, r[j].size);
				return 1;
			}
			k++;
			i++;
			j++;
			continue;
		}
		/* One side has a message of this tag the other lacks. */
		int send_extra = j >= nr || (i < ns && s[i].tag < r[j].tag);
		if (send_extra) {
			snprintf(msg, len, "rank %" PRIu32 " sends node %" PRIu64 " (%" PRIu64 " bytes, "
			         "tag %" PRId64 ") to rank %" PRIu32 ", which posts no matching receive "
			         "from rank %" PRIu32 " (a hang)", src, s[i].id, s[i].size, s[i].tag, dst,
			         src);
		} else {
			snprintf(msg, len, "rank %" PRIu32 " receives node %" PRIu64 " (%" PRIu64 " bytes, "
			         "tag %" PRId64 ") from rank %" PRIu32 ", which sends no matching message "
			         "to rank %" PRIu32 " (a hang)", dst, r[j].id, r[j].size, r[j].tag, src, dst);
		}
		return 1;
	}
	return 0;
}
