/* SPDX-License-Identifier: Apache-2.0 */
/* The fitted model in memory: freeing it and what the API reads of it. */
#include <stdio.h>
#include <string.h>

#include "synth_impl.h"

void chakra__sy_model_clear(chakra_synth_model *m)
{
	/* (an array may be NULL with its count set: its allocation failed) */
	for (size_t i = 0; m->cls && i < m->ncls; i++) {
		chakra__sy_hist_free(&m->cls[i].fanin);
		chakra__sy_hist_free(&m->cls[i].nearest);
		chakra__sy_hist_free(&m->cls[i].dist);
		chakra__sy_hist_free(&m->cls[i].fanout);
	}
	chakra_free(m->cls);
	for (size_t i = 0; m->coll && i < m->ncoll; i++) {
		sy_coll *c = &m->coll[i];
		sy_hist *h[] = { &c->fanin_c, &c->near_c, &c->dist_c, &c->fanin_x, &c->dist_x,
		                 &c->dist_f };
		for (size_t j = 0; j < sizeof h / sizeof h[0]; j++)
			chakra__sy_hist_free(h[j]);
	}
	chakra_free(m->coll);
	for (size_t i = 0; m->tok && i < m->ntok; i++) {
		chakra__sy_hist_free(&m->tok[i].gap);
		chakra__sy_hist_free(&m->tok[i].first);
		chakra__sy_hist_free(&m->tok[i].consumers);
	}
	chakra_free(m->tok);
	chakra__sy_markov_free(&m->cseq);
	chakra__sy_markov_free(&m->kseq);
	chakra__sy_hist_free(&m->lead);
	chakra__sy_hist_free(&m->tail);
	memset(m, 0, sizeof *m);
}

void chakra_synth_model_free(chakra_synth_model *m)
{
	if (!m)
		return;
	chakra__sy_model_clear(m);
	chakra_free(m);
}

uint32_t chakra_synth_model_ranks(const chakra_synth_model *m)
{
	return m ? m->ranks : 0;
}

void chakra_synth_model_notes(const chakra_synth_model *m, chakra_synth_fit_notes *out)
{
	if (!m || !out)
		return;
	out->self_deps = m->self_deps;
	out->missing_deps = m->missing_deps;
	out->cycle_edges = m->cycle_edges;
	out->pg_name_without_groups = m->pg_ignored;
}

double chakra_synth_model_nodes_per_rank(const chakra_synth_model *m)
{
	return m ? m->nodes_per_rank : 0;
}

int chakra_synth_model_markov_order(const chakra_synth_model *m)
{
	return m ? m->cseq.order : CHAKRA_EINVAL;
}

void chakra__sy_coll_name(const sy_coll *c, char *buf, size_t cap)
{
	const char *t = chakra_comm_type_name(c->comm_type);
	if (!t)
		t = "COLLECTIVE";
	if (c->group == SY_GROUP_BLOCK)
		snprintf(buf, cap, "%s/block%u", t, c->gparam);
	else if (c->group == SY_GROUP_STRIDE)
		snprintf(buf, cap, "%s/stride%u", t, c->gparam);
	else
		snprintf(buf, cap, "%s", t);
}
