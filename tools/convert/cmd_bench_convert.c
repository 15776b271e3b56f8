/* SPDX-License-Identifier: Apache-2.0 */
/* chakra bench convert --et ET [--kineto K] [--repeat N]: the converter's
 * time and peak memory beside a floor measured in the same run: reading the
 * same JSON through YAJL alone (gunzip + tokenise, empty callbacks). Each
 * pass runs in a child process of its own, so its peak resident memory is
 * its alone (wait4's ru_maxrss); the best wall time of N is kept. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <yajl/yajl_parse.h>
#include <zlib.h>

#define CHAKRA_EXPERIMENTAL
#include "chakra/experimental/convert.h"
#include "common.h"
#include "opts.h"

static int y_null(void *c) { (void)c; return 1; }
static int y_bool(void *c, int b) { (void)c; (void)b; return 1; }
static int y_num(void *c, const char *s, size_t l) { (void)c; (void)s; (void)l; return 1; }
static int y_str(void *c, const unsigned char *s, size_t l) { (void)c; (void)s; (void)l; return 1; }
static int y_key(void *c, const unsigned char *s, size_t l) { (void)c; (void)s; (void)l; return 1; }
static int y_mark(void *c) { (void)c; return 1; }
static const yajl_callbacks floor_cb = { y_null, y_bool, NULL, NULL, y_num, y_str,
	                                     y_mark, y_key, y_mark, y_mark, y_mark };

/* The floor: every byte through gunzip and YAJL, nothing kept. */
static int yajl_floor(const char *path)
{
	gzFile f = gzopen(path, "rb");
	if (!f)
		return -1;
	gzbuffer(f, 256 * 1024);
	yajl_handle h = yajl_alloc(&floor_cb, NULL, NULL);
	static unsigned char buf[256 * 1024];
	int r, rc = 0;
	while ((r = gzread(f, buf, sizeof buf)) > 0)
		if (yajl_parse(h, buf, (size_t)r) != yajl_status_ok) {
			rc = -1;
			break;
		}
	if (!rc && (r < 0 || yajl_complete_parse(h) != yajl_status_ok))
		rc = -1;
	yajl_free(h);
	gzclose(f);
	return rc;
}

typedef struct pass {
	const char *label;
	int kind;      /* 0 floor, 1 convert */
	const char *et, *kin;
	double best;
	long rss_kib;
} pass;

static int run_pass(const pass *p, const char *out, double *secs)
{
	double t0 = tool_now();
	if (p->kind == 0) {
		if ((p->et && yajl_floor(p->et) < 0) || (p->kin && yajl_floor(p->kin) < 0))
			return -1;
	} else {
		chakra_convert_options o = CHAKRA_CONVERT_OPTIONS_INIT;
		chakra_convert_result r;
		o.overwrite = 1;
		o.kineto_path = p->kin;
		int rc = p->et ? chakra_convert_pytorch(p->et, out, &o, &r)
		               : chakra_convert_kineto(p->kin, out, &o, &r);
		if (rc < 0) {
			fprintf(stderr, "chakra: %s\n", r.errmsg);
			return -1;
		}
	}
	*secs = tool_now() - t0;
	return 0;
}

/* One run in a child: its time through a pipe, its peak RSS from wait4. */
static int measure(pass *p, const char *out)
{
	int fd[2];
	if (pipe(fd) < 0)
		return -1;
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(fd[0]);
		double s = 0;
		int rc = run_pass(p, out, &s);
		if (rc == 0 && write(fd[1], &s, sizeof s) != (ssize_t)sizeof s)
			rc = -1;
		_exit(rc ? 1 : 0);
	}
	close(fd[1]);
	double s = -1;
	ssize_t got = read(fd[0], &s, sizeof s);
	close(fd[0]);
	int status;
	struct rusage ru;
	if (wait4(pid, &status, 0, &ru) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) ||
	    got != (ssize_t)sizeof s)
		return -1;
	if (p->best == 0 || s < p->best)
		p->best = s;
	if (ru.ru_maxrss > p->rss_kib)
		p->rss_kib = ru.ru_maxrss;
	return 0;
}

int cmd_bench_convert(int argc, char **argv)
{
	const char *et = NULL, *kin = NULL;
	uint64_t repeat = 5;
	const tool_option opts[] = {
		{ "--et", "ET.json[.gz]", TOOL_STR, &et, NULL, "a PyTorch execution trace" },
		{ "--kineto", "K.json[.gz]", TOOL_STR, &kin, NULL, "a Kineto trace" },
		{ "--repeat", "N", TOOL_U64, &repeat, NULL,
		  "runs of each pass, the best counts (1..1000, default 5)" },
		{ NULL, NULL, 0, NULL, NULL, NULL },
	};
	const tool_command cmd = {
		"[--et ET.json[.gz]] [--kineto K.json[.gz]] [--repeat N]",
		"Time and peak memory of converting ET (alone, and with K when given), or K\n"
		"alone, beside the floor: reading the same JSON through YAJL (gunzip and\n"
		"tokenise, nothing kept). Every pass runs in its own child process (its peak\n"
		"RSS is its alone); best wall time of N runs (default 5), passes alternated.",
		opts, NULL, 0, 0, NULL
	};
	const char **args;
	int nargs, prc = tool_parse(&cmd, argc, argv, &args, &nargs);
	if (prc != TOOL_PARSED)
		return prc == TOOL_HELP_SHOWN ? 0 : prc;
	free((void *)args);
	if (!repeat || repeat > 1000)
		return tool_usage(argv[0], "--repeat needs a number 1..1000");
	if (!et && !kin)
		return tool_usage(argv[0], "give --et, --kineto or both");
	char dir[] = "/tmp/chakra-bench-convert-XXXXXX";
	if (!mkdtemp(dir))
		return tool_err("cannot create a temporary directory");
	char out[64];
	snprintf(out, sizeof out, "%s/out.et", dir);
	pass ps[4];
	int np = 0;
	if (et) {
		ps[np++] = (pass){ "ET: YAJL floor", 0, et, NULL, 0, 0 };
		ps[np++] = (pass){ "ET: convert", 1, et, NULL, 0, 0 };
	}
	if (kin) {
		ps[np++] = (pass){ et ? "ET+Kineto: YAJL floor" : "Kineto: YAJL floor", 0, et, kin, 0, 0 };
		ps[np++] = (pass){ et ? "ET+Kineto: convert" : "Kineto: convert", 1, et, kin, 0, 0 };
	}
	int rc = 0;
	for (uint64_t r = 0; r < repeat && !rc; r++)
		for (int i = 0; i < np && !rc; i++)
			if (measure(&ps[i], out) < 0)
				rc = tool_err("bench convert: the '%s' pass failed", ps[i].label);
	unlink(out);
	rmdir(dir);
	if (rc)
		return rc;
	printf("chakra bench convert: best of %llu, each pass in its own process\n",
	       (unsigned long long)repeat);
	if (et)
		printf("  ET     %s\n", et);
	if (kin)
		printf("  Kineto %s\n", kin);
	printf("  %-24s %10s %12s %10s\n", "pass", "time", "peak RSS", "vs floor");
	for (int i = 0; i < np; i++) {
		const pass *p = &ps[i];
		const pass *fl = &ps[i & ~1];
		printf("  %-24s %8.3f s %8.1f MiB", p->label, p->best, (double)p->rss_kib / 1024.0);
		if (p->kind)
			printf(" %9.2fx", fl->best > 0 ? p->best / fl->best : 0.0);
		printf("\n");
	}
	return 0;
}
