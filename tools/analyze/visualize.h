/* SPDX-License-Identifier: Apache-2.0 */
/* chakra visualize, in three files by job: visualize_cut.c chooses the
 * nodes drawn (--range, --around), visualize_write.c streams them and
 * their edges as DOT or GraphML, visualize.c is the command (options,
 * Graphviz). */
#ifndef CHAKRA_TOOLS_ANALYZE_VISUALIZE_H
#define CHAKRA_TOOLS_ANALYZE_VISUALIZE_H

#ifndef CHAKRA_EXPERIMENTAL
#define CHAKRA_EXPERIMENTAL
#endif
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "chakra/experimental/graph.h"

enum fmt { F_DOT, F_GRAPHML, F_SVG, F_PDF, F_PNG };

typedef struct vopts {
	const char *input, *out;
	enum fmt fmt;
	int durations, sizes;
	int cut; /* 0 none, 1 range, 2 around */
	uint64_t lo, hi, center, depth, max_nodes;
	size_t name_chars;
} vopts;

typedef struct pend_edge {
	uint64_t parent, child;
	int ctrl;
} pend_edge;

typedef struct vstate {
	chakra_idmap *seen; /* ids drawn */
	pend_edge *edges; /* parent edges of the drawn nodes */
	size_t ne, ecap;
	uint64_t nodes, dup_skipped;
	/* --around: the selected node indices of the first pass. */
	chakra_graph *g;    /* --around: ids and both kinds of edges */
	size_t n_all;
	unsigned char *sel;
} vstate;

/* --around: the first pass, marking the selected nodes in st->sel. 0, or
 * -1 after printing why. */
int vis_select_around(const vopts *o, vstate *st);
/* Is node idx (id) of the second pass in the cut? */
int vis_in_cut(const vopts *o, const vstate *st, uint64_t idx, uint64_t id);
/* The nodes in the cut and their edges as DOT or GraphML. 0, or -1 after
 * printing why. */
int vis_write_graph(FILE *f, const vopts *o, vstate *st, int graphml);

#endif
