/* SPDX-License-Identifier: Apache-2.0 */
/* chakra jsonize TRACE [-o OUT.json] [--pretty] [--protobuf-json]: the
 * whole trace as JSON, streamed one node at a time (memory does not grow
 * with the trace); the JSON is the jsonet module's (chakra_jsonet_writer). */
#define CHAKRA_EXPERIMENTAL
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "opts.h"
#include "hint.h"
#include "chakra/experimental/jsonet.h"

int cmd_jsonize(int argc, char **argv)
{
	const char *out = "-";
	int pretty = 0, protobuf = 0, force = 0;
	const tool_option opts[] = {
		{ "-o, --output", "FILE", TOOL_STR, &out, NULL, "write here instead of stdout ('-' = stdout)" },
		{ "-f, --force", NULL, TOOL_FLAG, &force, NULL, "replace FILE if it exists" },
		{ "--pretty", NULL, TOOL_FLAG, &pretty, NULL, "indent the output (default: one node per line)" },
		{ "--protobuf-json", NULL, TOOL_FLAG, &protobuf, NULL,
		  "protobuf's JSON mapping instead, as Chakra's\n"
		  "chakra_jsonizer writes it: the GlobalMetadata object,\n"
		  "then one object per node (camelCase keys, 64-bit\n"
		  "integers as strings, enums by name, defaults left\n"
		  "out). 'chakra pack' reads it back too. Strings must\n"
		  "be UTF-8 and NaN payloads are not kept (the mapping\n"
		  "cannot hold them)" },
		{ NULL, NULL, 0, NULL, NULL, NULL },
	};
	const tool_command cmd = {
		"TRACE [-o OUT.json] [-f] [--pretty] [--protobuf-json]",
		"Write every field of a Chakra ET (plain or gzip; '-' = stdin) as JSON:\n"
		"metadata version and attributes, then one object per node with every\n"
		"field, inputs/outputs when present and every attribute with its kind.\n"
		"'chakra pack' turns the JSON back into the identical bytes.",
		opts, NULL, 1, 1, "TRACE"
	};
	const char **args;
	int nargs, prc = tool_parse(&cmd, argc, argv, &args, &nargs);
	if (prc != TOOL_PARSED)
		return prc == TOOL_HELP_SHOWN ? 0 : prc;
	const char *in = args[0];
	free(args);
	const char *inputs[] = { in };

	chakra_reader *r;
	if (chakra_reader_open(&r, in, NULL) < 0) {
		tool_trace_err(in, chakra_reader_errmsg(r));
		chakra_reader_close(r);
		return 1;
	}
	tool_out out_f;
	if (tool_out_open(&out_f, out, force, inputs, 1) < 0) {
		chakra_reader_close(r);
		return 1;
	}
	chakra_jsonet_options jo = CHAKRA_JSONET_OPTIONS_INIT;
	jo.pretty = pretty;
	jo.protobuf = protobuf;
	chakra_jsonet_writer *o;
	int rc = chakra_jsonet_writer_open(&o, tool_out_write_cb, &out_f, &jo), status = 0;
	tool_progress p;
	tool_progress_start(&p, "jsonize", 0);
	if (rc == 0)
		rc = chakra_jsonet_writer_begin(o, chakra_reader_metadata(r));
	if (rc == CHAKRA_ETYPE) {
		status = tool_err("%s: metadata: %s; protobuf's JSON mapping cannot hold it "
		                  "(plain 'chakra jsonize' keeps the bytes)", in,
		                  chakra_jsonet_writer_errmsg(o));
	} else if (rc == CHAKRA_ENOMEM) {
		status = tool_err("out of memory");
	} else if (rc < 0) {
		status = 1; /* a write error, reported by tool_out_commit */
	} else {
		const chakra_node *n;
		while ((rc = chakra_reader_next(r, &n)) > 0) {
			int wr = chakra_jsonet_writer_node(o, n);
			if (wr == CHAKRA_ETYPE) {
				status = tool_err("%s: byte %" PRIu64 ": node %" PRIu64 ": %s; protobuf's JSON "
				                  "mapping cannot hold it (plain 'chakra jsonize' keeps the bytes)",
				                  in, chakra_node_offset(n), chakra_node_id(n),
				                  chakra_jsonet_writer_errmsg(o));
				break;
			}
			if (wr == CHAKRA_ENOMEM) {
				status = tool_err("out of memory");
				break;
			}
			if (wr < 0)
				break; /* write error: reported by tool_out_commit */
			tool_progress_update(&p, chakra_reader_node_count(r));
		}
		tool_progress_end(&p);
		if (rc < 0)
			status = tool_trace_err(in, chakra_reader_errmsg(r));
		else if (!status && (rc = chakra_jsonet_writer_finish(o)) < 0)
			status = rc == CHAKRA_ENOMEM ? tool_err("out of memory") : 1;
	}
	uint64_t nan_payloads = chakra_jsonet_writer_nan_payloads(o);
	chakra_jsonet_writer_close(o);
	if (status || ferror(out_f.f)) {
		/* never leave a JSON file that looks complete but is not */
		if (ferror(out_f.f))
			tool_out_close(&out_f);
		tool_out_abort(&out_f);
		status = 1;
	} else if (tool_out_commit(&out_f) < 0) {
		status = 1;
	}
	if (!status && nan_payloads)
		fprintf(stderr, "chakra: %s: note: %" PRIu64 " NaN value(s) with a payload or sign written "
		                "as \"NaN\" (protobuf's JSON mapping has no other NaN)\n",
		        in, nan_payloads);
	chakra_reader_close(r);
	return status;
}
