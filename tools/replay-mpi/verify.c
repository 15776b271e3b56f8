/* SPDX-License-Identifier: Apache-2.0 */
/* --verify: every operation's result checked against what its inputs
 * (contributions rank + 1, buffers.c) must give. */
#include <inttypes.h>

#include "run.h"

/* --verify: the result an operation must leave (contributions are rank+1). */
void rp_verify(rp_ctx *c, const rp_op *x)
{
	const chakra_replay_op *op = x->op;
	const chakra_replay_layout *l = &x->l;
	int ok = 1;
	double sum = 0;
	const uint32_t *mem = NULL;
	uint32_t nm = 0;
	if (op->kind == CHAKRA_REPLAY_COLL) {
		size_t slot = chakra_replay_scope_slot(&c->topo,
		                                       chakra_replay_plan_channels(c->plan)[op->channel].scope);
		mem = c->members[slot];
		nm = c->nmembers[slot];
		for (uint32_t j = 0; j < nm; j++)
			sum += mem[j] + 1;
	}
	const char *what = "";
	if (op->kind == CHAKRA_REPLAY_RECV) {
		ok = rp_check_value(x->rbuf, 0, l->recv_elems, 1, op->peer + 1);
		what = "received data is not the sender's";
	} else if (op->kind == CHAKRA_REPLAY_COLL) {
		switch (op->comm_type) {
		case CHAKRA_ALL_REDUCE:
		case CHAKRA_REDUCE_SCATTER:
		case CHAKRA_REDUCE_SCATTER_BLOCK:
			ok = rp_check_value(x->rbuf, 0, l->recv_elems, l->esz, sum);
			what = "result is not the sum over the communicator's ranks";
			break;
		case CHAKRA_REDUCE:
			ok = x->me != 0 || rp_check_value(x->rbuf, 0, l->recv_elems, l->esz, sum);
			what = "root's result is not the sum over the communicator's ranks";
			break;
		case CHAKRA_BROADCAST:
			ok = x->me == 0 || rp_check_value(x->rbuf, 0, l->recv_elems, l->esz, mem[0] + 1);
			what = "data is not the root's";
			break;
		case CHAKRA_ALL_GATHER:
		case CHAKRA_ALL_TO_ALL: {
			uint64_t per = l->recv_elems / (nm ? nm : 1);
			for (uint32_t j = 0; j < nm && ok; j++)
				ok = rp_check_value(x->rbuf, j * per, per, l->esz, mem[j] + 1);
			what = "block j is not rank j's";
			break;
		}
		default:
			break;
		}
	}
	if (!ok)
		rp_stop_all(c, 1, "--verify: node %" PRIu64 " (%s of %" PRIu64 " bytes, iteration %u): %s",
		            op->id, chakra_replay_op_name(op->kind, op->comm_type), op->size,
		            ((rp_run_state *)c->run)->iter, what);
}

