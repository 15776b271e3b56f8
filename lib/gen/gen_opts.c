/* SPDX-License-Identifier: Apache-2.0 */
/* What every generator shares: its options (chakra_gen_options), their
 * versions and the checks made before anything is built; the end of a
 * graph generator (its build's failure said, or the graph written); one
 * rank's file of one or two nodes (the microbenchmarks, the basic traces). */
#include "gen_impl.h"

#include <stdio.h>

#include "chakra/chakra.h"
#include "../opts.h"

static const chakra_gen_options gen_defaults = CHAKRA_GEN_OPTIONS_INIT;
static const size_t gen_sizes[] = { 0, sizeof(chakra_gen_options) };

int chakra_gen_options_init(chakra_gen_options *opts, unsigned version)
{
	return chakra__opts_init(opts, version, &gen_defaults, gen_sizes, 2);
}

int gen_options_take(chakra_gen_options *o, const chakra_gen_options *in, uint32_t max_npus,
                     gen_sink *E)
{
	int orc = chakra__opts_copy(o, sizeof *o, in, &gen_defaults, gen_sizes, 2);
	E->cb = o->messages;
	E->data = o->messages_data;
	if (orc < 0) {
		gen_err(E, "unknown options version");
		return CHAKRA_EINVAL;
	}
	if (!o->npus || o->npus > max_npus || o->ndims > 16) {
		gen_err(E, "npus must be 1..%u (and at most 16 dimensions)", max_npus);
		return CHAKRA_EINVAL;
	}
	if (!o->ndims)
		o->ndims = gen_default_dims(o->npus, o->dims);
	uint64_t prod = 1;
	for (uint32_t d = 0; d < o->ndims && prod <= o->npus; d++)
		prod *= o->dims[d];
	if (prod != o->npus) {
		gen_err(E, "the dimensions multiply to %llu, not npus %u", (unsigned long long)prod,
		        o->npus);
		return CHAKRA_EINVAL;
	}
	return 0;
}

int gen_graph_finish(const gen_graph *g, int built, const gen_write_opts *wo, const char *what,
                     const char *fewer)
{
	if (built == 0)
		return gen_graph_write(g, wo);
	if (g->too_many) {
		gen_err(&wo->err, "%s%smore than %u nodes per rank; use fewer %s", what ? what : "",
		        what ? ": " : "", GEN_MAX_NODES, fewer);
		return CHAKRA_ETOOBIG;
	}
	gen_err(&wo->err, "out of memory");
	return CHAKRA_ENOMEM;
}

int gen_write_nodes(chakra__out *o, const char *path, const chakra__out_opts *oo, int gzip,
                    const char *version, chakra_builder *const *nodes, int n, const gen_sink *E)
{
	char err[1200];
	int rc = chakra__out_open(o, path, oo, err, sizeof err);
	if (rc < 0) {
		gen_err(E, "%s", err);
		return rc;
	}
	chakra_writer_options wopts = CHAKRA_WRITER_OPTIONS_INIT;
	wopts.gzip = gzip;
	chakra_writer *w = NULL;
	rc = chakra_writer_open_cb(&w, chakra__out_write_cb, o, &wopts);
	if (rc == 0)
		rc = chakra_writer_write_metadata(w, version, NULL);
	for (int i = 0; i < n && rc == 0; i++)
		rc = chakra_writer_write_node(w, nodes[i]);
	if (rc == 0)
		rc = chakra_writer_finish(w);
	/* A failed write of the file itself is said by the close below. */
	if (rc < 0 && !ferror(o->f))
		gen_err(E, "%s: %s", path,
		        w && *chakra_writer_errmsg(w) ? chakra_writer_errmsg(w) : chakra_strerror(rc));
	chakra_writer_close(w);
	if (rc < 0 && !ferror(o->f))
		return rc;
	int crc = chakra__out_close(o, err, sizeof err);
	if (crc < 0) {
		gen_err(E, "%s", err);
		return crc;
	}
	return rc;
}
