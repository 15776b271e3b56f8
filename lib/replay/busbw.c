/* SPDX-License-Identifier: Apache-2.0 */
/* What one MPI call moves for a Chakra collective, and the bandwidth
 * figures nccl-tests reports (its doc/PERFORMANCE.md): algbw = S / t, and
 * busbw = algbw times a factor that makes the figure comparable with the
 * hardware's link bandwidth whatever the collective and the rank count. */
#include "replay_impl.h"

uint64_t chakra_replay_share(uint64_t total, uint32_t n, uint32_t i)
{
	if (n == 0)
		return 0;
	return total / n + (i < total % n ? 1 : 0);
}

int chakra_replay_layout_of(int comm_type, uint64_t size, uint32_t n, uint32_t me,
                            chakra_replay_layout *l)
{
	if (!l)
		return CHAKRA_EINVAL;
	l->esz = size % 4 == 0 ? 4 : 1;
	l->elems = size / l->esz;
	uint64_t e = l->elems;
	switch (comm_type) {
	case CHAKRA_ALL_REDUCE:
		l->send_elems = l->recv_elems = e;
		break;
	case CHAKRA_REDUCE:
		l->send_elems = e;
		l->recv_elems = me == 0 ? e : 0;
		break;
	case CHAKRA_BROADCAST: /* one buffer, sent by the root */
		l->send_elems = me == 0 ? e : 0;
		l->recv_elems = me == 0 ? 0 : e;
		break;
	case CHAKRA_ALL_GATHER: /* comm_size is each rank's input */
		l->send_elems = e;
		l->recv_elems = n > UINT64_MAX / (e ? e : 1) ? UINT64_MAX : e * n;
		break;
	case CHAKRA_REDUCE_SCATTER:
	case CHAKRA_REDUCE_SCATTER_BLOCK:
		l->send_elems = e;
		l->recv_elems = chakra_replay_share(e, n, me);
		break;
	case CHAKRA_ALL_TO_ALL: /* a share of size to each member, one from each */
		l->send_elems = e;
		l->recv_elems = chakra_replay_share(e, n, me) * n;
		break;
	case CHAKRA_BARRIER:
		l->esz = 1;
		l->elems = l->send_elems = l->recv_elems = 0;
		break;
	default:
		return CHAKRA_EINVAL;
	}
	return 0;
}

double chakra_replay_nccl_bytes(int comm_type, uint64_t size, uint32_t n)
{
	switch (comm_type) {
	case CHAKRA_ALL_GATHER: /* nccl-tests counts the gathered buffer */
		return (double)size * n;
	case CHAKRA_BARRIER:
		return 0;
	default:
		return (double)size;
	}
}

double chakra_replay_busbw_factor(int comm_type, uint32_t n)
{
	if (n == 0)
		return 0;
	switch (comm_type) {
	case CHAKRA_ALL_REDUCE:
		return 2.0 * (n - 1) / n;
	case CHAKRA_ALL_GATHER:
	case CHAKRA_REDUCE_SCATTER:
	case CHAKRA_REDUCE_SCATTER_BLOCK:
	case CHAKRA_ALL_TO_ALL:
		return (double)(n - 1) / n;
	case CHAKRA_BARRIER:
		return 0;
	default: /* broadcast, reduce, send/recv */
		return 1;
	}
}
