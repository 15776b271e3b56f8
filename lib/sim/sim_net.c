/* SPDX-License-Identifier: Apache-2.0 */
/* Network models. Ranks are laid out in mixed radix, dimension 0 fastest.
 *
 * Congestion-unaware: a message costs floor(hops * latency + bytes / B) in
 * the first dimension where the two coordinates differ, whatever else is in
 * flight (ASTRA-sim's analytical backend).
 *
 * Congestion-aware: each directed link is a FIFO server. A message holds a
 * link for floor(bytes / B) and reaches the next device floor(latency +
 * bytes / B) after it started on it; it is forwarded whole (store and
 * forward), dimension by dimension. A Switch dimension is NPU -> switch ->
 * NPU; a Ring goes the shorter way round; FullyConnected is one link. */
#include <math.h>
#include <stdlib.h>

#include "sim_model.h"
#include "../modmem.h"

uint32_t chakra__sim_coord(const chakra_sim_network *net, uint32_t rank, int d)
{
	return (rank / net->stride[d]) % net->size[d];
}

/* "GB/s" is read as GiB/s, as the reference does. */
double chakra__sim_link_bpns(const chakra_sim_network *net, int d)
{
	return net->bw[d] * 1073741824.0 / 1e9;
}

static uint32_t ring_dist(uint32_t a, uint32_t b, uint32_t n)
{
	uint32_t f = (b + n - a) % n;
	return f <= n - f ? f : n - f;
}

uint64_t chakra__sim_unaware_delay(const chakra_sim_network *net, uint32_t a, uint32_t b, double bytes)
{
	for (int d = 0; d < net->ndims; d++) {
		uint32_t ca = chakra__sim_coord(net, a, d), cb = chakra__sim_coord(net, b, d);
		if (ca == cb)
			continue;
		double hops = net->topo[d] == CHAKRA_SIM_RING ? ring_dist(ca, cb, net->size[d])
		              : net->topo[d] == CHAKRA_SIM_SWITCH ? 2 : 1;
		return sim_cycles(hops * net->latency[d] + bytes / chakra__sim_link_bpns(net, d));
	}
	return 0;
}

struct sim_links {
	const chakra_sim_network *net;
	size_t total, last;             /* links; the one the last step took */
	uint64_t *free_at;              /* per link: when its FIFO is free */
	size_t base[SIM_MAX_DIMS];      /* first link of each dimension */
	uint32_t slots[SIM_MAX_DIMS];   /* links per NPU in each dimension */
	double bpns[SIM_MAX_DIMS];
};

sim_links *chakra__sim_links_new(const chakra_sim_network *net)
{
	sim_links *l = chakra_calloc(1, sizeof *l);
	if (!l)
		return NULL;
	l->net = net;
	size_t total = 0;
	for (int d = 0; d < net->ndims; d++) {
		/* Ring: +1 and -1 neighbours; Switch: up link and down link of
		 * each NPU; FullyConnected: one link per peer coordinate. */
		l->slots[d] = net->topo[d] == CHAKRA_SIM_FULLY_CONNECTED ? net->size[d] : 2;
		l->base[d] = total;
		l->bpns[d] = chakra__sim_link_bpns(net, d);
		total += (size_t)net->npus * l->slots[d];
	}
	l->total = total;
	l->free_at = chakra_calloc(total ? total : 1, sizeof *l->free_at);
	if (!l->free_at) {
		chakra_free(l);
		return NULL;
	}
	return l;
}

size_t chakra__sim_links_count(const sim_links *l)
{
	return l->total;
}

size_t chakra__sim_links_last(const sim_links *l)
{
	return l->last;
}

void chakra__sim_links_free(sim_links *l)
{
	if (!l)
		return;
	chakra_free(l->free_at);
	chakra_free(l);
}

uint64_t chakra__sim_links_step(sim_links *l, sim_hop *h, double bytes, uint64_t t, int *done)
{
	const chakra_sim_network *net = l->net;
	size_t link;
	int d;
	if (h->at_switch) {
		d = h->sw_dim;
		uint32_t ca = chakra__sim_coord(net, h->at, d), cb = chakra__sim_coord(net, h->dst, d);
		uint32_t next = h->at - ca * net->stride[d] + cb * net->stride[d];
		link = l->base[d] + (size_t)next * 2 + 1; /* down link of next */
		h->at = next;
		h->at_switch = 0;
	} else {
		for (d = 0; d < net->ndims; d++)
			if (chakra__sim_coord(net, h->at, d) != chakra__sim_coord(net, h->dst, d))
				break;
		if (d == net->ndims) { /* already there */
			*done = 1;
			l->last = (size_t)-1;
			return t;
		}
		uint32_t n = net->size[d];
		uint32_t ca = chakra__sim_coord(net, h->at, d), cb = chakra__sim_coord(net, h->dst, d);
		if (net->topo[d] == CHAKRA_SIM_RING) {
			uint32_t fwd = (cb + n - ca) % n;
			int dir = fwd <= n - fwd ? 0 : 1;
			uint32_t cn = dir == 0 ? (ca + 1) % n : (ca + n - 1) % n;
			link = l->base[d] + (size_t)h->at * 2 + (size_t)dir;
			h->at = h->at - ca * net->stride[d] + cn * net->stride[d];
		} else if (net->topo[d] == CHAKRA_SIM_SWITCH) {
			link = l->base[d] + (size_t)h->at * 2; /* up link */
			h->at_switch = 1;
			h->sw_dim = d;
		} else {
			link = l->base[d] + (size_t)h->at * n + cb;
			h->at = h->at - ca * net->stride[d] + cb * net->stride[d];
		}
	}
	double ser = bytes / l->bpns[d];
	l->last = link;
	uint64_t start = l->free_at[link] > t ? l->free_at[link] : t;
	l->free_at[link] = sim_add(start, sim_cycles(ser));
	*done = !h->at_switch && h->at == h->dst;
	return sim_add(start, sim_cycles(net->latency[d] + ser));
}
