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

int tool_check_output(const char *out, const char *const *inputs, int n_inputs)
{
	struct stat so, si;
	if (!out || !strcmp(out, "-") || stat(out, &so) != 0)
		return 0;
	for (int i = 0; i < n_inputs; i++) {
		if (inputs[i] && strcmp(inputs[i], "-") && stat(inputs[i], &si) == 0 &&
		    si.st_dev == so.st_dev && si.st_ino == so.st_ino) {
			tool_err("%s: output is the same file as input %s; refusing to overwrite it",
			         out, inputs[i]);
			return -1;
		}
	}
	return 0;
}

FILE *tool_fopen_out(const char *path)
{
	if (!strcmp(path, "-"))
		return stdout;
	FILE *f = fopen(path, "w");
	if (!f)
		tool_err("%s: cannot open for writing: %s", path, strerror(errno));
	return f;
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

/* The list is only changed with the handled signals blocked, so the
 * handler always sees it consistent (the tools are single-threaded). */
static char **tmps;
static volatile sig_atomic_t n_tmps;
static size_t tmps_cap;
static const int cleanup_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
#define N_CLEANUP_SIGNALS (sizeof cleanup_signals / sizeof *cleanup_signals)

static void remove_tmps(void)
{
	for (sig_atomic_t i = 0; i < n_tmps; i++)
		unlink(tmps[i]);
}

static void on_signal(int sig)
{
	remove_tmps();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void block_signals(sigset_t *old)
{
	sigset_t set;
	sigemptyset(&set);
	for (size_t i = 0; i < N_CLEANUP_SIGNALS; i++)
		sigaddset(&set, cleanup_signals[i]);
	sigprocmask(SIG_BLOCK, &set, old);
}

static int tmp_register(char *path)
{
	static int installed;
	if (!installed) {
		installed = 1;
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
	sigset_t old;
	int rc = 0;
	block_signals(&old);
	if ((size_t)n_tmps == tmps_cap) {
		size_t cap = tmps_cap ? tmps_cap * 2 : 8;
		char **t = realloc(tmps, cap * sizeof *t);
		if (t) {
			tmps = t;
			tmps_cap = cap;
		} else {
			rc = -1;
		}
	}
	if (rc == 0)
		tmps[n_tmps++] = path;
	sigprocmask(SIG_SETMASK, &old, NULL);
	return rc;
}

static void tmp_unregister(const char *path)
{
	sigset_t old;
	block_signals(&old);
	for (sig_atomic_t i = 0; i < n_tmps; i++)
		if (tmps[i] == path) {
			tmps[i] = tmps[n_tmps - 1];
			n_tmps--;
			break;
		}
	sigprocmask(SIG_SETMASK, &old, NULL);
}

int tool_mkstemp(char *tmpl)
{
	if (tmp_register(tmpl) < 0) {
		errno = ENOMEM;
		return -1;
	}
	int fd = mkstemp(tmpl);
	if (fd < 0) {
		int e = errno;
		tmp_unregister(tmpl);
		errno = e;
	}
	return fd;
}

void tool_tmp_remove(char *tmpl)
{
	unlink(tmpl);
	tmp_unregister(tmpl);
}

void tool_oom_exit(const char *what)
{
	remove_tmps();
	/* no stdio buffers needed for this message */
	static const char pre[] = "chakra: out of memory (";
	ssize_t r = write(2, pre, sizeof pre - 1);
	r = write(2, what, strlen(what));
	r = write(2, ")\n", 2);
	(void)r;
	_exit(1);
}

/* ---- the output rule ---- */

int tool_out_check(const char *path, int force, const char *const *inputs, int n_inputs)
{
	struct stat st;
	if (!strcmp(path, "-"))
		return 0;
	if (!*path) {
		tool_err("empty output file name");
		return -1;
	}
	if (tool_check_output(path, inputs, n_inputs) < 0)
		return -1;
	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			tool_err("%s: is a directory", path);
			return -1;
		}
		if (S_ISREG(st.st_mode) && !force) {
			tool_err("%s: exists; use -f (--force) to replace it", path);
			return -1;
		}
	} else if (lstat(path, &st) == 0 && !force) {
		tool_err("%s: is a symbolic link to nothing; use -f (--force) to replace it", path);
		return -1;
	}
	return 0;
}

int tool_out_open(tool_out *o, const char *path, int force, const char *const *inputs,
                  int n_inputs)
{
	struct stat st;
	memset(o, 0, sizeof *o);
	o->path = path;
	o->force = force;
	if (!strcmp(path, "-")) {
		o->f = stdout;
		return 0;
	}
	if (tool_out_check(path, force, inputs, n_inputs) < 0)
		return -1;
	int exists = stat(path, &st) == 0;
	if (exists && !S_ISREG(st.st_mode)) {
		/* a device or FIFO: write into it, never replace it */
		int fd = open(path, O_WRONLY | O_NOCTTY);
		if (fd < 0 || !(o->f = fdopen(fd, "wb"))) {
			tool_err("%s: cannot open for writing: %s", path, strerror(errno));
			if (fd >= 0)
				close(fd);
			return -1;
		}
		return 0;
	}
	struct stat lst;
	if (exists && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode))
		o->target = realpath(path, NULL); /* replace the target, keep the link */
	else
		o->target = strdup(path);
	size_t n = o->target ? strlen(o->target) + 16 : 0;
	o->tmp = n ? malloc(n) : NULL;
	if (!o->target || !o->tmp) {
		tool_err("%s: %s", path, o->target ? "out of memory" : strerror(errno));
		free(o->target);
		free(o->tmp);
		o->target = o->tmp = NULL;
		return -1;
	}
	snprintf(o->tmp, n, "%s.tmp-XXXXXX", o->target);
	if (tmp_register(o->tmp) < 0) {
		tool_err("out of memory");
		goto fail;
	}
	int fd = mkstemp(o->tmp);
	if (fd < 0) {
		tool_err("%s: cannot create a temporary file next to it: %s", path, strerror(errno));
		tmp_unregister(o->tmp);
		goto fail;
	}
	/* mkstemp makes 0600: give the file the mode a plain create would, or
	 * the mode of the file it replaces */
	mode_t mask = umask(0);
	umask(mask);
	if (fchmod(fd, exists ? st.st_mode & 07777 : 0666 & ~mask) < 0) {
		/* not fatal: the data is what matters */
	}
	o->replaced = exists;
	o->f = fdopen(fd, "wb");
	if (!o->f) {
		tool_err("%s: %s", o->tmp, strerror(errno));
		close(fd);
		unlink(o->tmp);
		tmp_unregister(o->tmp);
		goto fail;
	}
	return 0;
fail:
	free(o->target);
	free(o->tmp);
	o->target = o->tmp = NULL;
	return -1;
}

int tool_out_write_cb(void *data, const void *buf, size_t len)
{
	tool_out *o = data;
	return fwrite(buf, 1, len, o->f) == len ? 0 : -1;
}

int tool_out_close(tool_out *o)
{
	if (!o->f)
		return o->failed ? -1 : 0;
	FILE *f = o->f;
	o->f = NULL;
	errno = 0;
	int bad = ferror(f) != 0;
	int err = bad ? (errno ? errno : EIO) : 0;
	if (!bad && fflush(f) != 0)
		bad = 1, err = errno;
	/* replacing a file: its old data must not be lost to a crash right
	 * after the rename, so the new data reaches the disk first */
	if (!bad && o->tmp && o->replaced && fsync(fileno(f)) != 0 && errno != EINVAL)
		bad = 1, err = errno;
	if (f != stdout && fclose(f) != 0 && !bad)
		bad = 1, err = errno;
	if (bad) {
		o->failed = 1;
		tool_err("%s: write failed: %s", o->path, strerror(err ? err : EIO));
		return -1;
	}
	return 0;
}

static void out_drop(tool_out *o)
{
	if (o->tmp) {
		unlink(o->tmp);
		tmp_unregister(o->tmp);
		free(o->tmp);
		o->tmp = NULL;
	}
	free(o->target);
	o->target = NULL;
}

/* Rename without replacing an existing file: renameat2 when the file
 * system has it, else link + unlink (both fail on an existing target). */
static int rename_noreplace(const char *from, const char *to)
{
#ifdef RENAME_NOREPLACE
	if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -1;
#endif
	if (link(from, to) == 0) {
		unlink(from);
		return 0;
	}
	if (errno != EPERM && errno != ENOSYS)
		return -1;
	/* no hard links here (some network and FAT file systems): check and rename */
	struct stat st;
	if (lstat(to, &st) == 0) {
		errno = EEXIST;
		return -1;
	}
	return rename(from, to);
}

int tool_out_commit(tool_out *o)
{
	int rc = tool_out_close(o);
	if (rc == 0 && o->tmp) {
		if ((o->force ? rename(o->tmp, o->target) : rename_noreplace(o->tmp, o->target)) != 0) {
			if (errno == EEXIST)
				tool_err("%s: appeared while we wrote it; use -f (--force) to replace it",
				         o->path);
			else
				tool_err("%s: cannot move the finished output into place: %s", o->path,
				         strerror(errno));
			rc = -1;
		} else {
			tmp_unregister(o->tmp);
			free(o->tmp);
			o->tmp = NULL;
		}
	}
	out_drop(o);
	return rc;
}

void tool_out_abort(tool_out *o)
{
	if (o->f && o->f != stdout)
		fclose(o->f);
	else if (o->f)
		fflush(o->f);
	o->f = NULL;
	out_drop(o);
}

void tool_rank_map_file(FILE *f, const char *map_path, const char *file)
{
	const char *ms = strrchr(map_path, '/'), *fs = strrchr(file, '/');
	size_t md = ms ? (size_t)(ms - map_path) + 1 : 0, fd = fs ? (size_t)(fs - file) + 1 : 0;
	if (md == fd && !strncmp(map_path, file, md))
		file += fd; /* (the same folder: the name alone, so the files can move together) */
	int quote = !*file || strpbrk(file, " \t\r\n\"#\\") != NULL;
	if (!quote) {
		fputs(file, f);
		return;
	}
	fputc('"', f);
	for (const char *c = file; *c; c++) {
		if (*c == '"' || *c == '\\')
			fputc('\\', f);
		fputc(*c == '\n' || *c == '\r' ? ' ' : *c, f);
	}
	fputc('"', f);
}
