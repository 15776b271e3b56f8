/* SPDX-License-Identifier: Apache-2.0 */
/* Before anything runs, ranks compare what they are about to do:
 *  - per collective scope, a digest of the sequence (type, size) each
 *    member will post on that communicator;
 *  - per pair of ranks, a digest of the messages one sends the other (tag
 *    by tag, sizes in order) against the receives the other posts.
 * A difference means MPI would hang, fail or pair the wrong operations, so
 * the replay is refused; the ranks that see a difference exchange the full
 * sequences and one of them names the first difference (the module's
 * chakra_replay_coll_diff / chakra_replay_p2p_diff). */
#include <stdlib.h>
#include <string.h>

#include "replay_tool.h"

static void refuse(rp_ctx *c, const char *msg)
{
	fprintf(stderr, "chakra-replay: refusing to run %s: %s\n", c->o.prefix, msg);
}

static int check_scope(rp_ctx *c, size_t slot)
{
	MPI_Comm comm = c->comm[slot];
	chakra_replay_scope sc = chakra_replay_scope_at(&c->topo, slot);
	int64_t ch = chakra_replay_plan_coll_channel(c->plan, sc);
	chakra_replay_digest d = { 0, 0 };
	if (ch >= 0)
		d = chakra_replay_channel_digest(c->plan, (size_t)ch);
	int n = (int)c->nmembers[slot], me;
	MPI_Comm_rank(comm, &me);
	uint64_t mine[2] = { d.count, ch >= 0 ? d.hash : 0 };
	uint64_t *all = malloc((size_t)n * 2 * sizeof *all);
	if (!all)
		rp_stop_all(c, 1, "out of memory");
	MPI_Request r;
	MPI_Iallgather(mine, 2, MPI_UINT64_T, all, 2, MPI_UINT64_T, comm, &r);
	rp_wait(c, &r);
	int same = 1;
	for (int i = 1; i < n; i++)
		same &= all[2 * i] == all[0] && all[2 * i + 1] == all[1];
	free(all);
	if (same)
		return 1;
	/* Every member saw the difference: gather the sequences. */
	chakra_replay_entry *e = NULL;
	int64_t ne = ch >= 0 ? chakra_replay_channel_entries(c->plan, (size_t)ch, &e) : 0;
	if (ne < 0)
		rp_stop_all(c, 1, "out of memory");
	int cnt = (int)(ne * (long)sizeof *e);
	int *counts = malloc((size_t)n * sizeof *counts), *displs = malloc((size_t)n * sizeof *displs);
	if (!counts || !displs)
		rp_stop_all(c, 1, "out of memory");
	MPI_Iallgather(&cnt, 1, MPI_INT, counts, 1, MPI_INT, comm, &r);
	rp_wait(c, &r);
	long total = 0;
	for (int i = 0; i < n; i++) {
		displs[i] = (int)total;
		total += counts[i];
	}
	chakra_replay_entry *everything = malloc(total ? (size_t)total : 1);
	if (!everything)
		rp_stop_all(c, 1, "out of memory");
	MPI_Iallgatherv(e ? (void *)e : (void *)everything, cnt, MPI_BYTE, everything, counts, displs,
	                MPI_BYTE, comm, &r);
	rp_wait(c, &r);
	if (me == 0) {
		const chakra_replay_entry **seqs = malloc((size_t)n * sizeof *seqs);
		size_t *lens = malloc((size_t)n * sizeof *lens);
		if (!seqs || !lens)
			rp_stop_all(c, 1, "out of memory");
		for (int i = 0; i < n; i++) {
			seqs[i] = (const chakra_replay_entry *)((const char *)everything + displs[i]);
			lens[i] = (size_t)counts[i] / sizeof *e;
		}
		char scope[256], msg[CHAKRA_REPLAY_ERR_LEN];
		chakra_replay_scope_describe(&c->topo, sc, scope, sizeof scope);
		if (chakra_replay_coll_diff(scope, c->members[slot], (uint32_t)n, seqs, lens, msg,
		                            sizeof msg))
			refuse(c, msg);
		else /* equal sequences, different digests: cannot happen */
			refuse(c, "collective digests differ but the sequences agree");
		free(seqs);
		free(lens);
	}
	free(everything);
	free(counts);
	free(displs);
	chakra_free(e); /* chakra_replay_channel_entries's */
	return 0;
}

enum { TAG_COUNT = 10, TAG_LIST = 11 };

static int check_p2p(rp_ctx *c)
{
	int n = c->size;
	/* Per peer: my sends to it, my receives from it (count, hash each). */
	uint64_t *out = calloc((size_t)n * 4, sizeof *out), *in = calloc((size_t)n * 4, sizeof *in);
	if (!out || !in)
		rp_stop_all(c, 1, "out of memory");
	for (int p = 0; p < n; p++) {
		chakra_replay_digest s = chakra_replay_p2p_digest(c->plan, CHAKRA_REPLAY_SEND, (uint32_t)p);
		chakra_replay_digest r = chakra_replay_p2p_digest(c->plan, CHAKRA_REPLAY_RECV, (uint32_t)p);
		out[4 * p] = s.count;
		out[4 * p + 1] = s.hash;
		out[4 * p + 2] = r.count;
		out[4 * p + 3] = r.hash;
	}
	MPI_Request r;
	MPI_Ialltoall(out, 4, MPI_UINT64_T, in, 4, MPI_UINT64_T, MPI_COMM_WORLD, &r);
	rp_wait(c, &r);
	/* in[4p..]: p's sends to me, p's receives from me. */
	char *send_bad = calloc((size_t)n, 1), *recv_bad = calloc((size_t)n, 1);
	if (!send_bad || !recv_bad)
		rp_stop_all(c, 1, "out of memory");
	int ok = 1;
	for (int p = 0; p < n; p++) {
		/* me -> p: my sends against p's receives from me. */
		send_bad[p] = out[4 * p] != in[4 * p + 2] || out[4 * p + 1] != in[4 * p + 3];
		/* p -> me: p's sends against my receives from p. */
		recv_bad[p] = in[4 * p] != out[4 * p + 2] || in[4 * p + 1] != out[4 * p + 3];
		ok &= !send_bad[p] && !recv_bad[p];
	}
	free(out);
	free(in);
	/* The sender ships its list to the receiver, which names the difference. */
	MPI_Request *reqs = malloc((size_t)n * 2 * sizeof *reqs);
	int *cnt_out = calloc((size_t)n, sizeof *cnt_out), *cnt_in = calloc((size_t)n, sizeof *cnt_in);
	chakra_replay_entry **lists = calloc((size_t)n, sizeof *lists);
	chakra_replay_entry **got = calloc((size_t)n, sizeof *got);
	if (!reqs || !cnt_out || !cnt_in || !lists || !got)
		rp_stop_all(c, 1, "out of memory");
	int nr = 0;
	for (int p = 0; p < n; p++) {
		if (send_bad[p]) {
			int64_t k = chakra_replay_p2p_entries(c->plan, CHAKRA_REPLAY_SEND, (uint32_t)p, &lists[p]);
			if (k < 0)
				rp_stop_all(c, 1, "out of memory");
			cnt_out[p] = (int)k;
			MPI_Isend(&cnt_out[p], 1, MPI_INT, p, TAG_COUNT, c->p2p, &reqs[nr++]);
		}
		if (recv_bad[p])
			MPI_Irecv(&cnt_in[p], 1, MPI_INT, p, TAG_COUNT, c->p2p, &reqs[nr++]);
	}
	for (int i = 0; i < nr; i++)
		rp_wait(c, &reqs[i]);
	nr = 0;
	for (int p = 0; p < n; p++) {
		if (send_bad[p])
			MPI_Isend(lists[p] ? (void *)lists[p] : (void *)cnt_out, cnt_out[p] * (int)sizeof **lists,
			          MPI_BYTE, p, TAG_LIST, c->p2p, &reqs[nr++]);
		if (recv_bad[p]) {
			got[p] = malloc(cnt_in[p] ? (size_t)cnt_in[p] * sizeof **got : 1);
			if (!got[p])
				rp_stop_all(c, 1, "out of memory");
			MPI_Irecv(got[p], cnt_in[p] * (int)sizeof **got, MPI_BYTE, p, TAG_LIST, c->p2p,
			          &reqs[nr++]);
		}
	}
	for (int i = 0; i < nr; i++)
		rp_wait(c, &reqs[i]);
	for (int p = 0; p < n; p++) {
		if (!recv_bad[p])
			continue;
		chakra_replay_entry *mine = NULL;
		int64_t k = chakra_replay_p2p_entries(c->plan, CHAKRA_REPLAY_RECV, (uint32_t)p, &mine);
		if (k < 0)
			rp_stop_all(c, 1, "out of memory");
		char msg[CHAKRA_REPLAY_ERR_LEN];
		if (chakra_replay_p2p_diff((uint32_t)p, (uint32_t)c->rank, got[p], (size_t)cnt_in[p], mine,
		                           (size_t)k, msg, sizeof msg))
			refuse(c, msg);
		else
			refuse(c, "message digests differ but the sequences agree");
		chakra_free(mine);
	}
	for (int p = 0; p < n; p++) {
		chakra_free(lists[p]);
		free(got[p]);
	}
	free(lists);
	free(got);
	free(cnt_out);
	free(cnt_in);
	free(reqs);
	free(send_bad);
	free(recv_bad);
	return ok;
}

int rp_check(rp_ctx *c)
{
	c->phase = "comparing the ranks' collective sequences";
	int ok = 1;
	for (size_t s = 0; s < c->nslots; s++)
		if (c->comm[s] != MPI_COMM_NULL)
			ok &= check_scope(c, s);
	c->phase = "comparing the ranks' messages";
	ok &= check_p2p(c);
	return rp_agree(c, ok);
}
