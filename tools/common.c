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

