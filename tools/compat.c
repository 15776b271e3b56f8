/* SPDX-License-Identifier: Apache-2.0 */
/* Chakra's own commands, with their flags and file names, each a thin
 * mapping onto a chakra subcommand: the chakra binary runs them when it is
 * called by that name (links installed beside it). Outputs are replaced as
 * Chakra replaces them, through a temporary renamed into place (-f). The
 * table "Chakra command -> libchakra command" in docs/tools-core.md lists
 * them. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "compat.h"
#include "opts.h"

int cmd_convert_pytorch(int argc, char **argv);
int cmd_convert_text(int argc, char **argv);
int cmd_link(int argc, char **argv);
int cmd_jsonize(int argc, char **argv);
int cmd_visualize(int argc, char **argv);
int cmd_timeline(int argc, char **argv);
int cmd_generate_basic(int argc, char **argv);
int cmd_sim(int argc, char **argv);

/* Run fn as `chakra NAME` with the arguments given (NULL-terminated). */
static int run(tool_fn fn, const char *name, ...)
{
	char *v[32];
	int n = 0;
	va_list ap;
	va_start(ap, name);
	v[n++] = (char *)name;
	for (const char *a; n < 31 && (a = va_arg(ap, const char *));)
		v[n++] = (char *)a;
	va_end(ap);
	v[n] = NULL;
	tool_set_command(name);
	return fn(n, v);
}

static int need(const char *cmd, const char *what, const char *v)
{
	return v ? 0 : tool_usage(cmd, "the following argument is required: %s", what);
}

/* chakra_converter [--log-filename F] PyTorch|Text ... */
static int converter(int argc, char **argv)
{
	const char *log = NULL;
	int i = 1;
	while (i + 1 < argc && !strcmp(argv[i], "--log-filename")) {
		log = argv[i + 1];
		i += 2;
	}
	(void)log; /* the summary goes to stderr; no log file is written */
	if (i >= argc || tool_is_help(argv[i])) {
		printf("usage: chakra_converter [--log-filename F] {PyTorch,Text} ...\n\n"
		       "Chakra's converter, run by libchakra:\n"
		       "  PyTorch --input ET.json --output OUT.et [--simulate]\n"
		       "      = chakra convert pytorch --et ET.json -o OUT.et -f\n"
		       "        (a linked ET from chakra_trace_link: its device ops on their streams;\n"
		       "        --simulate: then chakra sim --replay --workload OUT.et)\n"
		       "  Text --input W.txt --output PREFIX --num-npus N --num-passes P\n"
		       "      = chakra convert text W.txt --npus N --passes P -o PREFIX --no-groups -f\n"
		       "        (PREFIX.0.et .. PREFIX.{N-1}.et)\n");
		return 0;
	}
	const char *sub = argv[i];
	/* Chakra spells them PyTorch and Text */
	int pt = !strcmp(sub, "PyTorch"), tx = !strcmp(sub, "Text");
	if (!pt && !tx) {
		fprintf(stderr, "chakra_converter: invalid choice: '%s' (choose from 'PyTorch', 'Text')\n",
		        sub);
		return 2;
	}
	const char *in = NULL, *out = NULL, *lf = NULL;
	uint64_t npus = 0, passes = 0;
	int simulate = 0;
	const tool_option popts[] = {
		{ "--input", "ET.json", TOOL_STR, &in, NULL,
		  "the PyTorch ET (a linked ET from chakra_trace_link,\n"
		  "or a host ET alone)" },
		{ "--output", "OUT.et", TOOL_STR, &out, NULL, "the Chakra ET (replaced if it exists)" },
		{ "--simulate", NULL, TOOL_FLAG, &simulate, NULL,
		  "replay the output after the conversion (chakra sim\n"
		  "--replay)" },
		{ "--log-filename", "F", TOOL_STR, &lf, NULL, "accepted; no log file is written" },
		{ NULL, NULL, 0, NULL, NULL, NULL },
	};
	const tool_option topts[] = {
		{ "--input", "W.txt", TOOL_STR, &in, NULL, "an ASTRA-sim 1.0 text workload" },
		{ "--output", "PREFIX", TOOL_STR, &out, NULL,
		  "PREFIX.0.et .. PREFIX.{N-1}.et (replaced)" },
		{ "--num-npus", "N", TOOL_U64, &npus, NULL, "NPUs: the number of traces" },
		{ "--num-passes", "P", TOOL_U64, &passes, NULL, "training iterations" },
		{ "--log-filename", "F", TOOL_STR, &lf, NULL, "accepted; no log file is written" },
		{ NULL, NULL, 0, NULL, NULL, NULL },
	};
	const tool_command pcmd = {
		"--input ET.json --output OUT.et [--simulate]",
		"Chakra's converter for a PyTorch execution trace, run as `chakra convert pytorch --et\n"
		"ET.json -o OUT.et -f` (docs/convert.md).",
		popts, NULL, 0, 0, NULL
	};
	const tool_command tcmd = {
		"--input W.txt --output PREFIX --num-npus N --num-passes P",
		"Chakra's text converter, run as `chakra convert text W.txt --npus N --passes P -o\n"
		"PREFIX --no-groups -f` (docs/generate.md).",
		topts, NULL, 0, 0, NULL
	};
	const char *name = pt ? "chakra_converter PyTorch" : "chakra_converter Text";
	argv[i] = (char *)name;
	tool_set_command(name);
	const char **args;
	int nargs, prc = tool_parse(pt ? &pcmd : &tcmd, argc - i, argv + i, &args, &nargs);
	if (prc != TOOL_PARSED)
		return prc == TOOL_HELP_SHOWN ? 0 : prc;
	free((void *)args);
	if (need(name, "--input", in) || need(name, "--output", out))
		return 2;
	if (pt) {
		int rc = run(cmd_convert_pytorch, "convert pytorch", "--et", in, "-o", out, "-f", NULL);
		if (rc || !simulate)
			return rc;
		return run(cmd_sim, "sim", "--replay", "--workload", out, NULL);
	}
	if (!npus || !passes)
		return tool_usage(name, "the following arguments are required: --num-npus, --num-passes");
	char nb[32], pb[32];
	snprintf(nb, sizeof nb, "%llu", (unsigned long long)npus);
	snprintf(pb, sizeof pb, "%llu", (unsigned long long)passes);
	return run(cmd_convert_text, "convert text", in, "--npus", nb, "--passes", pb, "-o", out,
	           "--no-groups", "-f", NULL);
}

static int parse(const char *name, const tool_option *o, const char *syn, const char *about,
                 int argc, char **argv)
{
	const tool_command c = { syn, about, o, NULL, 0, 0, NULL };
	argv[0] = (char *)name;
	tool_set_command(name);
	const char **args;
	int nargs, prc = tool_parse(&c, argc, argv, &args, &nargs);
	if (prc != TOOL_PARSED)
		return prc == TOOL_HELP_SHOWN ? -1 : prc;
	free((void *)args);
	return 0;
}

static int trace_link(int argc, char **argv)
{
	const char *host = NULL, *dev = NULL, *out = NULL, *lvl = NULL;
	uint64_t rank = UINT64_MAX;
	const tool_option o[] = {
		{ "--rank", "R", TOOL_U64, &rank, NULL, "the rank of the traces" },
		{ "--chakra-host-trace", "ET.json", TOOL_STR, &host, NULL, "the PyTorch ET (host trace)" },
		{ "--chakra-device-trace", "K.json", TOOL_STR, &dev, NULL,
		  "the Kineto trace of the same run (device trace)" },
		{ "--output-file", "OUT.json", TOOL_STR, &out, NULL, "the linked ET (replaced)" },
		{ "--log-level", "L", TOOL_STR, &lvl, NULL, "accepted; libchakra prints a summary" },
		{ NULL, NULL, 0, NULL, NULL, NULL },
	};
	int rc = parse("chakra_trace_link", o,
	               "--rank R --chakra-host-trace ET.json --chakra-device-trace K.json\n"
	               "                          --output-file OUT.json",
	               "Chakra's trace linker, run as `chakra link --et ET.json --kineto K.json -o\n"
	               "OUT.json --rank R -f` (docs/convert.md, \"Linked files\").",
	               argc, argv);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (rank == UINT64_MAX)
		return tool_usage("chakra_trace_link", "the following argument is required: --rank");
	if (need("chakra_trace_link", "--chakra-host-trace", host) ||
	    need("chakra_trace_link", "--chakra-device-trace", dev) ||
	    need("chakra_trace_link", "--output-file", out))
		return 2;
	char rb[32];
	snprintf(rb, sizeof rb, "%llu", (unsigned long long)rank);
	return run(cmd_link, "link", "--et", host, "--kineto", dev, "-o", out, "--rank", rb, "-f",
	           NULL);
}

static int jsonizer(int argc, char **argv)
{
	const char *in = NULL, *out = NULL;
	const tool_option o[] = {
		{ "--input_filename", "TRACE", TOOL_STR, &in, NULL, "the Chakra ET" },
		{ "--output_filename", "OUT.json", TOOL_STR, &out, NULL, "the JSON (replaced)" },
		{ NULL, NULL, 0, NULL, NULL, NULL },
	};
	int rc = parse("chakra_jsonizer", o, "--input_filename TRACE --output_filename OUT.json",
	               "Chakra's jsonizer, run as `chakra jsonize TRACE --protobuf-json -o OUT.json -f`\n"
	               "(docs/tools-core.md).", argc, argv);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (need("chakra_jsonizer", "--input_filename", in) ||
	    need("chakra_jsonizer", "--output_filename", out))
		return 2;
	return run(cmd_jsonize, "jsonize", in, "--protobuf-json", "-o", out, "-f", NULL);
}

static int visualizer(int argc, char **argv)
{
	const char *in = NULL, *out = NULL;
	const tool_option o[] = {
		{ "--input_filename", "TRACE", TOOL_STR, &in, NULL, "the Chakra ET" },
		{ "--output_filename", "OUT", TOOL_STR, &out, NULL,
		  "OUT.pdf, OUT.dot or OUT.graphml (also .svg, .png)" },
		{ NULL, NULL, 0, NULL, NULL, NULL },
	};
	int rc = parse("chakra_visualizer", o, "--input_filename TRACE --output_filename OUT",
	               "Chakra's visualizer, run as `chakra visualize TRACE -o OUT -f`\n"
	               "(docs/analyze.md).", argc, argv);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (need("chakra_visualizer", "--input_filename", in) ||
	    need("chakra_visualizer", "--output_filename", out))
		return 2;
	return run(cmd_visualize, "visualize", in, "-o", out, "-f", NULL);
}

static int timeline_visualizer(int argc, char **argv)
{
	const char *in = NULL, *out = NULL, *lf = NULL;
	uint64_t npus = 0, mhz = 0;
	const tool_option o[] = {
		{ "--input_filename", "LOG", TOOL_STR, &in, NULL, "the simulator's event log" },
		{ "--output_filename", "OUT.json", TOOL_STR, &out, NULL,
		  "the Chrome trace (replaced)" },
		{ "--num_npus", "N", TOOL_U64, &npus, NULL, "NPUs in the log" },
		{ "--npu_frequency", "MHZ", TOOL_U64, &mhz, NULL, "the NPUs' clock in MHz" },
		{ "--log_filename", "F", TOOL_STR, &lf, NULL, "accepted; no log file is written" },
		{ NULL, NULL, 0, NULL, NULL, NULL },
	};
	int rc = parse("chakra_timeline_visualizer", o,
	               "--input_filename LOG --output_filename OUT.json --num_npus N\n"
	               "                                   --npu_frequency MHZ",
	               "Chakra's timeline visualizer, run as `chakra timeline LOG --npus N --frequency\n"
	               "MHZ -o OUT.json -f` (docs/analyze.md).", argc, argv);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (need("chakra_timeline_visualizer", "--input_filename", in) ||
	    need("chakra_timeline_visualizer", "--output_filename", out))
		return 2;
	if (!npus || !mhz)
		return tool_usage("chakra_timeline_visualizer",
		                  "the following arguments are required: --num_npus, --npu_frequency");
	char nb[32], fb[40];
	snprintf(nb, sizeof nb, "%llu", (unsigned long long)npus);
	snprintf(fb, sizeof fb, "%lluMHz", (unsigned long long)mhz);
	return run(cmd_timeline, "timeline", in, "--npus", nb, "--frequency", fb, "-o", out, "-f",
	           NULL);
}

static int generator(int argc, char **argv)
{
	uint64_t npus = 64, rt = 5, ts = 1024, cs = 65536;
	const tool_option o[] = {
		{ "--num_npus", "N", TOOL_U64, &npus, NULL, "traces per kind (default 64)" },
		{ "--default_runtime", "US", TOOL_U64, &rt, NULL, "compute nodes' duration (default 5)" },
		{ "--default_tensor_size", "B", TOOL_U64, &ts, NULL,
		  "memory and send/recv nodes' size (default 1024)" },
		{ "--default_comm_size", "B", TOOL_U64, &cs, NULL,
		  "collectives' size (default 65536)" },
		{ NULL, NULL, 0, NULL, NULL, NULL },
	};
	int rc = parse("chakra_generator", o,
	               "[--num_npus N] [--default_runtime US] [--default_tensor_size B]\n"
	               "                         [--default_comm_size B]",
	               "Chakra's trace generator, run as `chakra generate basic --npus N --runtime US\n"
	               "--tensor-size B --comm-size B -f`: its files, in the current directory\n"
	               "(docs/generate.md).", argc, argv);
	if (rc)
		return rc < 0 ? 0 : rc;
	char a[32], b[32], c[32], d[32];
	snprintf(a, sizeof a, "%llu", (unsigned long long)npus);
	snprintf(b, sizeof b, "%llu", (unsigned long long)rt);
	snprintf(c, sizeof c, "%llu", (unsigned long long)ts);
	snprintf(d, sizeof d, "%llu", (unsigned long long)cs);
	return run(cmd_generate_basic, "generate basic", "--npus", a, "--runtime", b,
	           "--tensor-size", c, "--comm-size", d, "-f", NULL);
}

static const struct {
	const char *name;
	tool_fn fn;
} compat[] = {
	{ "chakra_converter", converter },
	{ "chakra_trace_link", trace_link },
	{ "chakra_jsonizer", jsonizer },
	{ "chakra_visualizer", visualizer },
	{ "chakra_timeline_visualizer", timeline_visualizer },
	{ "chakra_generator", generator },
};

int tool_compat(const char *argv0, int argc, char **argv, int *status)
{
	const char *base = strrchr(argv0, '/');
	base = base ? base + 1 : argv0;
	for (size_t i = 0; i < sizeof compat / sizeof *compat; i++)
		if (!strcmp(base, compat[i].name)) {
			*status = compat[i].fn(argc, argv);
			return 1;
		}
	return 0;
}
