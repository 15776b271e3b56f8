/* SPDX-License-Identifier: Apache-2.0 */
/* The shared end of `convert pytorch` and `convert kineto` (run.h). */
#include "run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "rankpath.h"

/* The multi-rank form: every rank's summary, then what was written. */
/* chakra_write_cb over a stdio stream (data = the FILE *). */
static int file_write(void *data, const void *buf, size_t len)
{
	return fwrite(buf, 1, len, (FILE *)data) == len ? 0 : -1;
}

static int convert_ranks(const char *et, const char *kin, const char *out,
                         const chakra_convert_options *o, int quiet)
{
	enum { SHOWN = 4096 };
	chakra_convert_summary *per = calloc(SHOWN, sizeof *per);
	chakra_convert_result res;
	size_t n = 0;
	if (!per)
		return tool_err("out of memory");
	int rc = chakra_convert_ranks(et, kin, out, o, &res, per, SHOWN, &n);
	if (rc < 0) {
		free(per);
		return tool_err("%s", res.errmsg);
	}
	for (size_t r = 0; r < n && r < SHOWN && !quiet; r++) {
		fprintf(stderr, "rank %zu:\n", r);
		chakra_convert_summary_print(&per[r], file_write, stderr);
	}
	if (!quiet)
		fprintf(stderr, "converted %zu rank(s): %s.0.et%s .. %s.%zu.et%s, %s.comm_groups.json\n", n,
		        out, o->gzip ? ".gz" : "", out, n - 1, o->gzip ? ".gz" : "", out);
	free(per);
	return 0;
}

int tool_convert_run(const char *et, const char *kin, const char *out,
                     chakra_convert_options *o, int force, int quiet)
{
	if (strstr(et ? et : kin, CHAKRA__RANK_MARK))
		return convert_ranks(et, kin, out, o, quiet);
	const char *ins[2] = { et ? et : kin, et ? kin : NULL };
	/* the output rule (tools/common.h): our temporary, removed on signals */
	tool_out to;
	if (tool_out_open(&to, out, force, ins, ins[1] ? 2 : 1) < 0)
		return 1;
	o->out_cb = tool_out_write_cb;
	o->out_data = &to;
	chakra_convert_result res;
	int rc;
	if (et) {
		o->kineto_path = kin;
		rc = chakra_convert_pytorch(et, out, o, &res);
	} else {
		rc = chakra_convert_kineto(kin, out, o, &res);
	}
	if (rc < 0) {
		tool_out_abort(&to);
		return tool_err("%s", res.errmsg);
	}
	if (tool_out_commit(&to) < 0)
		return 1;
	if (!quiet)
		chakra_convert_summary_print(&res.summary, file_write, stderr);
	/* a pair that links little is likely two runs, not one (none at all
	 * is refused by the library) */
	const chakra_convert_summary *sm = &res.summary;
	if (et && kin && sm->kernels && sm->kernels_linked * 2 < sm->kernels)
		fprintf(stderr, "chakra: warning: %s: only %llu of %llu kernels found their ET op "
		        "(linked by %s): are the ET and the Kineto trace of the same run?\n", out,
		        (unsigned long long)sm->kernels_linked, (unsigned long long)sm->kernels,
		        sm->link_method && *sm->link_method ? sm->link_method : "nothing");
	return 0;
}
