/* SPDX-License-Identifier: Apache-2.0 */
/* chakra-replay's command line: the usage text and the options. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "replay_tool.h"

const char rp_usage[] =
	"usage: mpirun -np N chakra-replay PREFIX [options]\n"
	"\n"
	"Rank r replays PREFIX.r.et (or .et.gz) in dependency order: collectives with MPI\n"
	"collectives on the trace's communicators, send/recv with their peers and tags,\n"
	"compute nodes as timed waits. Before running, the ranks compare their collective\n"
	"and message sequences and refuse traces that would hang.\n"
	"\n"
	"options:\n"
	"  --compute sleep|spin|skip  compute nodes: sleep or busy-wait for their duration\n"
	"                             (duration_nanos, else duration_micros), or skip [sleep]\n"
	"  --iters K                  measured iterations [1]\n"
	"  --warmup W                 iterations run first and not measured [1]\n"
	"  --json                     the report as JSON\n"
	"  --max-compute S            refuse a rank whose compute per iteration passes S\n"
	"                             seconds (computing is progress: --timeout never\n"
	"                             cuts it short); 0 = no cap [3600]\n"
	"  --timeout S                a rank waiting S seconds with no progress stops every\n"
	"                             rank with what each waits for; 0 = never [600]\n"
	"  --network NET.yml --system SYS.json\n"
	"                             also print the simulator's prediction (as chakra sim)\n"
	"                             beside the measurement\n"
	"  --comm-group FILE          communicator groups {\"id\": [ranks]} named by pg_name\n"
	"                             [PREFIX.comm_groups.json when it exists]\n"
	"  --no-comm-group            ignore pg_name (as chakra sim without --comm-group)\n"
	"  --dims D0xD1..             network shape for involved_dim [npus_count of --network]\n"
	"  --deps data|ctrl|both      dependencies that gate a node [data]\n"
	"  -f, --force                replace existing --log files\n"
	"  --log PREFIX               write each rank's issued and completed nodes to\n"
	"                             PREFIX.r.log\n"
	"  --verify                   check every result (sums, blocks, messages) against\n"
	"                             the contributions of the communicator's ranks\n"
	"  -q, --quiet                no report (errors only)\n";

static int parse_uint(const char *s, unsigned *out)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v > 1000000000UL || *s == '-')
		return -1;
	*out = (unsigned)v;
	return 0;
}

/* 0 ok, 1 help, -1 usage error (message in err). */
int rp_parse_args(rp_opts *o, int argc, char **argv, char *err, size_t errlen)
{
	memset(o, 0, sizeof *o);
	o->iters = 1;
	o->warmup = 1;
	o->timeout = 600;
	o->max_compute = 3600;
	o->deps = CHAKRA_DEPS_DATA;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = NULL;
		if (!strcmp(a, "-h") || !strcmp(a, "--help"))
			return 1;
		if (a[0] != '-' || !a[1]) {
			if (o->prefix) {
				snprintf(err, errlen, "more than one PREFIX ('%s' and '%s')", o->prefix, a);
				return -1;
			}
			o->prefix = a;
			continue;
		}
		char name[64];
		const char *eq = strchr(a, '=');
		size_t nl = eq ? (size_t)(eq - a) : strlen(a);
		if (nl >= sizeof name)
			nl = sizeof name - 1;
		memcpy(name, a, nl);
		name[nl] = 0;
		int flag = !strcmp(name, "--json") || !strcmp(name, "--no-comm-group") ||
		           !strcmp(name, "--verify") || !strcmp(name, "-q") || !strcmp(name, "--quiet") ||
		           !strcmp(name, "-f") || !strcmp(name, "--force");
		if (flag) {
			if (eq) {
				snprintf(err, errlen, "%s takes no value", name);
				return -1;
			}
			if (!strcmp(name, "--json"))
				o->json = 1;
			else if (!strcmp(name, "--no-comm-group"))
				o->no_groups = 1;
			else if (!strcmp(name, "--verify"))
				o->verify = 1;
			else if (!strcmp(name, "-f") || !strcmp(name, "--force"))
				o->force = 1;
			else
				o->quiet = 1;
			continue;
		}
		if (eq) {
			v = eq + 1;
		} else if (i + 1 < argc) {
			v = argv[++i];
		} else {
			snprintf(err, errlen, "%s needs a value", name);
			return -1;
		}
		if (!strcmp(name, "--compute")) {
			if (!strcmp(v, "sleep"))
				o->compute = RP_SLEEP;
			else if (!strcmp(v, "spin"))
				o->compute = RP_SPIN;
			else if (!strcmp(v, "skip"))
				o->compute = RP_SKIP;
			else {
				snprintf(err, errlen, "--compute: '%s' is not sleep, spin or skip", v);
				return -1;
			}
		} else if (!strcmp(name, "--iters") || !strcmp(name, "--warmup")) {
			unsigned *dst = name[2] == 'i' ? &o->iters : &o->warmup;
			if (parse_uint(v, dst) < 0) {
				snprintf(err, errlen, "%s: '%s' is not a count", name, v);
				return -1;
			}
		} else if (!strcmp(name, "--max-compute")) {
			char *end;
			errno = 0;
			o->max_compute = strtod(v, &end);
			if (errno || end == v || *end || !(o->max_compute >= 0) || o->max_compute > 1e9) {
				snprintf(err, errlen, "--max-compute: '%s' is not a number of seconds", v);
				return -1;
			}
		} else if (!strcmp(name, "--timeout")) {
			char *end;
			errno = 0;
			o->timeout = strtod(v, &end);
			if (errno || end == v || *end || !(o->timeout >= 0) || o->timeout > 1e9) {
				snprintf(err, errlen, "--timeout: '%s' is not a number of seconds", v);
				return -1;
			}
		} else if (!strcmp(name, "--network")) {
			o->network = v;
		} else if (!strcmp(name, "--system")) {
			o->system = v;
		} else if (!strcmp(name, "--comm-group")) {
			o->groups = v;
		} else if (!strcmp(name, "--dims")) {
			o->dims = v;
		} else if (!strcmp(name, "--deps")) {
			if (!strcmp(v, "data"))
				o->deps = CHAKRA_DEPS_DATA;
			else if (!strcmp(v, "ctrl"))
				o->deps = CHAKRA_DEPS_CTRL;
			else if (!strcmp(v, "both"))
				o->deps = CHAKRA_DEPS_BOTH;
			else {
				snprintf(err, errlen, "--deps: '%s' is not data, ctrl or both", v);
				return -1;
			}
		} else if (!strcmp(name, "--log")) {
			o->log = v;
		} else {
			snprintf(err, errlen, "unknown option '%s'", name);
			return -1;
		}
	}
	if (!o->prefix) {
		snprintf(err, errlen, "no PREFIX given");
		return -1;
	}
	if (!o->network != !o->system) {
		snprintf(err, errlen, "--network and --system go together");
		return -1;
	}
	if (o->groups && o->no_groups) {
		snprintf(err, errlen, "--comm-group and --no-comm-group contradict each other");
		return -1;
	}
	return 0;
}

