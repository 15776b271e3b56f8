/* SPDX-License-Identifier: Apache-2.0 */
#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int tool_err(const char *fmt, ...)
{
	va_list ap;
	fputs("chakra: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

int tool_input_missing(const char *path)
{
	struct stat st;
	if (!strcmp(path, "-"))
		return 0;
	if (stat(path, &st) < 0)
		return errno == ENOENT ? tool_err("%s: no such file or directory", path)
		                       : tool_err("%s: cannot open: %s", path, strerror(errno));
	if (S_ISDIR(st.st_mode))
		return tool_err("%s: is a directory", path);
	return 0;
}

const char *tool_cmd_prefix(const char *cmd)
{
	return cmd && !strncmp(cmd, "chakra_", 7) ? "" : "chakra ";
}

int tool_usage(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s%s: ", tool_cmd_prefix(cmd), cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s%s --help'.\n", tool_cmd_prefix(cmd), cmd);
	return 2;
}

int tool_is_help(const char *a) { return !strcmp(a, "--help") || !strcmp(a, "-h"); }

static const char *current_cmd;

void tool_set_command(const char *name) { current_cmd = name; }

/* A bad option value: a usage error of the current command. */
static int bad_value(const char *opt, const char *what, const char *s)
{
	if (current_cmd)
		tool_usage(current_cmd, "%s: expected %s, got '%s'", opt, what, s ? s : "");
	else
		tool_err("%s: expected %s, got '%s'", opt, what, s ? s : "");
	return -1;
}

int tool_parse_u64(const char *opt, const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	if (!s || !*s || *s == '-')
		return bad_value(opt, "a non-negative integer", s);
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || *end)
		return bad_value(opt, "a non-negative integer", s);
	*out = v;
	return 0;
}

int tool_parse_i64(const char *opt, const char *s, int64_t *out)
{
	char *end;
	errno = 0;
	long long v = s ? strtoll(s, &end, 0) : 0;
	if (!s || !*s || errno || *end)
		return bad_value(opt, "an integer", s);
	*out = v;
	return 0;
}

int tool_parse_double(const char *opt, const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = s ? strtod(s, &end) : 0;
	if (!s || !*s || errno || *end || !isfinite(v))
		return bad_value(opt, "a number", s);
	*out = v;
	return 0;
}

static int out_report(int rc, const char *err);

int tool_check_output(const char *out, const char *const *inputs, int n_inputs)
{
	/* the input check alone (force: an existing file is not the question) */
	struct stat st;
	if (!out || !strcmp(out, "-") || stat(out, &st) != 0)
		return 0;
	chakra__out_opts oo = { 1, 1, inputs, n_inputs > 0 ? (size_t)n_inputs : 0, NULL };
	char err[1200];
	if (S_ISDIR(st.st_mode))
		return 0;
	return out_report(chakra__out_check(out, &oo, err, sizeof err), err);
}

int tool_fclose_out(FILE *f, const char *path)
{
	int bad = ferror(f);
	if (f == stdout)
		bad |= fflush(f) != 0;
	else
		bad |= fclose(f) != 0;
	if (bad) {
		tool_err("%s: write failed: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

double tool_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

long tool_peak_rss_kib(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

void tool_progress_start(tool_progress *p, const char *label, uint64_t total)
{
	memset(p, 0, sizeof *p);
	p->label = label;
	p->total = total;
	p->last_time = tool_now();
	p->enabled = (isatty(2) || getenv("CHAKRA_PROGRESS")) && !getenv("CHAKRA_NO_PROGRESS");
	/* tests draw more often than a person needs, so a fast run shows a bar too */
	const char *iv = getenv("CHAKRA_PROGRESS_INTERVAL");
	p->interval = iv && *iv ? strtod(iv, NULL) : 0.2;
	if (!(p->interval >= 0))
		p->interval = 0.2;
}

static void show_progress(tool_progress *p, uint64_t done)
{
	char what[96] = "";
	if (p->bytes)
		snprintf(what, sizeof what, "%llu nodes, %.1f%s MB", (unsigned long long)p->nodes,
		         (double)done / 1e6, p->total ? "" : " read");
	if (p->total) {
		/* the estimate of a gzip's size can be short: never past 100% */
		uint64_t d = done < p->total ? done : p->total;
		int pct = (int)(100.0 * (double)d / (double)p->total);
		char bar[21];
		int fill = pct / 5;
		for (int i = 0; i < 20; i++)
			bar[i] = i < fill ? '#' : '.';
		bar[20] = 0;
		if (p->bytes)
			fprintf(stderr, "\r%s: [%s] %3d%%  %s of %.1f MB\033[K", p->label, bar, pct, what,
			        (double)p->total / 1e6);
		else
			fprintf(stderr, "\r%s: [%s] %3d%%  %llu/%llu\033[K", p->label, bar, pct,
			        (unsigned long long)done, (unsigned long long)p->total);
	} else if (p->bytes) {
		fprintf(stderr, "\r%s: %s\033[K", p->label, what);
	} else {
		fprintf(stderr, "\r%s: %llu\033[K", p->label, (unsigned long long)done);
	}
}

void tool_progress_update(tool_progress *p, uint64_t done)
{
	if (!p->enabled)
		return;
	double t = tool_now();
	if (t - p->last_time < p->interval)
		return;
	p->last_time = t;
	p->last_shown = done ? done : 1;
	show_progress(p, done);
}

void tool_progress_start_trace(tool_progress *p, const char *label, const char *path)
{
	tool_progress_start(p, label, 0);
	p->bytes = 1;
	struct stat st;
	if (!p->enabled || !path || !strcmp(path, "-") || stat(path, &st) != 0 ||
	    !S_ISREG(st.st_mode))
		return; /* stdin, pipes: no total */
	FILE *f = fopen(path, "rb");
	unsigned char m[4];
	if (!f)
		return;
	p->total = (uint64_t)st.st_size;
	if (fread(m, 1, 2, f) == 2 && m[0] == 0x1f && m[1] == 0x8b) {
		/* gzip: ISIZE, the size mod 2^32, ends the file; below the
		 * compressed size it has wrapped (or there are more members) */
		p->total = 0;
		if (st.st_size >= 18 && fseek(f, -4, SEEK_END) == 0 && fread(m, 1, 4, f) == 4) {
			uint64_t isize = (uint64_t)m[0] | (uint64_t)m[1] << 8 | (uint64_t)m[2] << 16 |
			                 (uint64_t)m[3] << 24;
			if (isize >= (uint64_t)st.st_size)
				p->total = isize;
		}
	}
	fclose(f);
}

void tool_progress_trace(tool_progress *p, uint64_t offset, uint64_t nodes)
{
	p->nodes = nodes;
	tool_progress_update(p, offset);
}

void tool_progress_end(tool_progress *p)
{
	if (p->enabled && p->last_shown)
		fputs("\r\033[K", stderr);
	p->last_shown = 0;
}

/* ---- temporaries removed on signals ---- */

/* The registry is the output helper's (lib/outfile.c): the library
 * modules the tools call (convert with {R}, synth sample, project) register
 * their temporaries in it too. */
static const int cleanup_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
#define N_CLEANUP_SIGNALS (sizeof cleanup_signals / sizeof *cleanup_signals)

static void on_signal(int sig)
{
	chakra__out_remove_tmps();
	signal(sig, SIG_DFL);
	raise(sig);
}

void tool_signals_init(void)
{
	chakra__out_track(1, cleanup_signals, N_CLEANUP_SIGNALS);
	for (size_t i = 0; i < N_CLEANUP_SIGNALS; i++) {
		struct sigaction sa, old;
		/* keep a signal the caller ignores (nohup) ignored */
		if (sigaction(cleanup_signals[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_signal;
		sigemptyset(&sa.sa_mask);
		sigaction(cleanup_signals[i], &sa, NULL);
	}
}

int tool_mkstemp(char *tmpl)
{
	if (chakra__out_tmp_register(tmpl) < 0) {
		errno = ENOMEM;
		return -1;
	}
	int fd = mkstemp(tmpl);
	if (fd < 0) {
		int e = errno;
		chakra__out_tmp_unregister(tmpl);
		errno = e;
	}
	return fd;
}

void tool_tmp_remove(char *tmpl)
{
	unlink(tmpl);
	chakra__out_tmp_unregister(tmpl);
}

void tool_oom_exit(const char *what)
{
	chakra__out_remove_tmps();
	/* no stdio buffers needed for this message */
	static const char pre[] = "chakra: out of memory (";
	ssize_t r = write(2, pre, sizeof pre - 1);
	r = write(2, what, strlen(what));
	r = write(2, ")\n", 2);
	(void)r;
	_exit(1);
}

/* ---- the output rule: lib/outfile.c, messages on stderr ---- */

static int out_report(int rc, const char *err)
{
	if (rc < 0)
		tool_err("%s", err);
	return rc < 0 ? -1 : 0;
}

int tool_out_check(const char *path, int force, const char *const *inputs, int n_inputs)
{
	chakra__out_opts oo = { force, 1, inputs, n_inputs > 0 ? (size_t)n_inputs : 0, NULL };
	char err[1200];
	return out_report(chakra__out_check(path, &oo, err, sizeof err), err);
}

int tool_out_open(tool_out *o, const char *path, int force, const char *const *inputs,
                  int n_inputs)
{
	chakra__out_opts oo = { force, 1, inputs, n_inputs > 0 ? (size_t)n_inputs : 0, NULL };
	char err[1200];
	return out_report(chakra__out_open(o, path, &oo, err, sizeof err), err);
}

int tool_out_write_cb(void *data, const void *buf, size_t len)
{
	return chakra__out_write_cb(data, buf, len);
}

int tool_out_close(tool_out *o)
{
	char err[1200];
	return out_report(chakra__out_close(o, err, sizeof err), err);
}

int tool_out_commit(tool_out *o)
{
	char err[1200];
	return out_report(chakra__out_commit(o, err, sizeof err), err);
}

int tool_out_commit_set(tool_out *outs, size_t n)
{
	char err[1200];
	return out_report(chakra__out_commit_set(outs, n, err, sizeof err), err);
}

void tool_out_abort(tool_out *o)
{
	chakra__out_abort(o);
}

