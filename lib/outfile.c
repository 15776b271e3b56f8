/* SPDX-License-Identifier: Apache-2.0 */
/* The output rule (outfile.h): temporary + rename, devices written into,
 * -f to replace, inputs refused, sets committed whole. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* renameat2 */
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "chakra/error.h"
#include "outfile.h"

#ifdef CHAKRA__OUT_STANDALONE
#include "modmem.h"
#define out_malloc chakra_malloc
#define out_realloc chakra_realloc
#define out_free chakra_free
#else
#include "util.h"
#define out_malloc chakra__malloc
#define out_realloc chakra__realloc
#define out_free chakra__free
#endif

static int out_err(char *err, size_t errlen, int code, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 4, 5)))
#endif
	;
static int out_err(char *err, size_t errlen, int code, const char *fmt, ...)
{
	if (err && errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return code;
}

static char *out_strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = (char *)out_malloc(n);
	if (d)
		memcpy(d, s, n);
	return d;
}

/* ---- temporaries removed on signals (opt-in) ---- */

/* Changed only with the handled signals blocked, so a handler always sees
 * it consistent (the programs that turn tracking on are single-threaded). */
static int track_on;
static char **tmps;
static volatile sig_atomic_t n_tmps;
static size_t tmps_cap;
static sigset_t track_set;

void chakra__out_track(int on, const int *signals, size_t n_signals)
{
	track_on = on;
	sigemptyset(&track_set);
	for (size_t i = 0; i < n_signals; i++)
		sigaddset(&track_set, signals[i]);
}

static void block(sigset_t *old)
{
	sigprocmask(SIG_BLOCK, &track_set, old);
}

static void unblock(const sigset_t *old)
{
	sigprocmask(SIG_SETMASK, old, NULL);
}

int chakra__out_tmp_register(char *path)
{
	if (!track_on)
		return 0;
	sigset_t old;
	int rc = 0;
	block(&old);
	if ((size_t)n_tmps == tmps_cap) {
		size_t cap = tmps_cap ? tmps_cap * 2 : 8;
		char **t = (char **)out_realloc(tmps, cap * sizeof *t);
		if (t) {
			tmps = t;
			tmps_cap = cap;
		} else {
			rc = -1;
		}
	}
	if (rc == 0)
		tmps[n_tmps++] = path;
	unblock(&old);
	return rc;
}

void chakra__out_tmp_unregister(const char *path)
{
	if (!track_on || !path)
		return;
	sigset_t old;
	block(&old);
	for (sig_atomic_t i = 0; i < n_tmps; i++)
		if (tmps[i] == path) {
			tmps[i] = tmps[n_tmps - 1];
			n_tmps--;
			break;
		}
	unblock(&old);
}

void chakra__out_remove_tmps(void)
{
	for (sig_atomic_t i = 0; i < n_tmps; i++)
		unlink(tmps[i]);
}

/* ---- one output ---- */

static const char *hint_of(const chakra__out_opts *o)
{
	return o && o->hint ? o->hint : "use -f (--force)";
}

static int is_input(const char *path, const chakra__out_opts *o, char *err, size_t errlen)
{
	struct stat so, si;
	if (!o || !o->inputs || stat(path, &so) != 0)
		return 0;
	for (size_t i = 0; i < o->n_inputs; i++) {
		const char *in = o->inputs[i];
		if (in && strcmp(in, "-") && stat(in, &si) == 0 && si.st_dev == so.st_dev &&
		    si.st_ino == so.st_ino)
			return out_err(err, errlen, CHAKRA_EINVAL,
			               "%s: output is the same file as input %s; refusing to overwrite it",
			               path, in);
	}
	return 0;
}

int chakra__out_check(const char *path, const chakra__out_opts *opts, char *err, size_t errlen)
{
	struct stat st;
	int force = opts && opts->force;
	if (!path)
		return out_err(err, errlen, CHAKRA_EINVAL, "no output file name");
	if (opts && opts->dash && !strcmp(path, "-"))
		return 0;
	if (!*path)
		return out_err(err, errlen, CHAKRA_EINVAL, "empty output file name");
	int rc = is_input(path, opts, err, errlen);
	if (rc < 0)
		return rc;
	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return out_err(err, errlen, CHAKRA_EIO, "%s: is a directory", path);
		if (S_ISREG(st.st_mode) && !force)
			return out_err(err, errlen, CHAKRA_EIO, "%s: exists; %s to replace it", path,
			               hint_of(opts));
	} else if (lstat(path, &st) == 0 && !force) {
		return out_err(err, errlen, CHAKRA_EIO,
		               "%s: is a symbolic link to nothing; %s to replace it", path, hint_of(opts));
	}
	return 0;
}

typedef struct file_id {
	dev_t dev;
	ino_t ino;
	size_t i; /* index of the input */
} file_id;

static int cmp_id(const void *a, const void *b)
{
	const file_id *x = (const file_id *)a, *y = (const file_id *)b;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int chakra__out_check_set(const char *const *paths, size_t n, const chakra__out_opts *opts,
                          char *err, size_t errlen)
{
	chakra__out_opts one;
	memset(&one, 0, sizeof one);
	if (opts)
		one = *opts;
	one.inputs = NULL; /* looked at once, below */
	one.n_inputs = 0;
	size_t ni = opts && opts->inputs ? opts->n_inputs : 0;
	file_id *ids = (file_id *)out_malloc((ni ? ni : 1) * sizeof *ids);
	const char **names = (const char **)out_malloc((n ? n : 1) * sizeof *names);
	int rc = 0;
	size_t m = 0;
	struct stat st;
	if (!ids || !names) {
		rc = out_err(err, errlen, CHAKRA_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < ni; i++) {
		const char *in = opts->inputs[i];
		if (in && strcmp(in, "-") && stat(in, &st) == 0) {
			ids[m].dev = st.st_dev;
			ids[m].ino = st.st_ino;
			ids[m++].i = i;
		}
	}
	qsort(ids, m, sizeof *ids, cmp_id);
	for (size_t k = 0; k < n && rc == 0; k++) {
		names[k] = paths[k];
		if ((rc = chakra__out_check(paths[k], &one, err, errlen)) < 0)
			break;
		file_id key;
		if (m && stat(paths[k], &st) == 0) {
			key.dev = st.st_dev;
			key.ino = st.st_ino;
			const file_id *hit = (const file_id *)bsearch(&key, ids, m, sizeof *ids, cmp_id);
			if (hit)
				rc = out_err(err, errlen, CHAKRA_EINVAL,
				             "%s: output is the same file as input %s; refusing to overwrite "
				             "it", paths[k], opts->inputs[hit->i]);
		}
	}
	if (rc == 0 && n > 1) {
		qsort(names, n, sizeof *names, cmp_str);
		for (size_t k = 1; k < n && rc == 0; k++)
			if (!strcmp(names[k - 1], names[k]))
				rc = out_err(err, errlen, CHAKRA_EINVAL,
				             "%s: named twice among the outputs of one command", names[k]);
	}
out:
	out_free(ids);
	out_free(names);
	return rc;
}

int chakra__out_open(chakra__out *o, const char *path, const chakra__out_opts *opts, char *err,
                     size_t errlen)
{
	struct stat st, lst;
	int fd, exists;
	size_t n;
	mode_t mask;
	memset(o, 0, sizeof *o);
	o->path = path;
	o->force = opts && opts->force;
	int rc = chakra__out_check(path, opts, err, errlen);
	if (rc < 0)
		return rc;
	if (opts && opts->dash && !strcmp(path, "-")) {
		o->f = stdout;
		o->is_stdout = 1;
		return 0;
	}
	exists = stat(path, &st) == 0;
	if (exists && !S_ISREG(st.st_mode)) {
		/* a device or FIFO: write into it, never replace it */
		errno = 0;
		fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
		if (fd < 0 || !(o->f = fdopen(fd, "wb"))) {
			int e = errno ? errno : ENOMEM;
			if (fd >= 0)
				close(fd);
			return out_err(err, errlen, CHAKRA_EIO, "%s: cannot open for writing: %s", path,
			               strerror(e));
		}
		return 0;
	}
	if (exists && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode)) {
		/* replace the link's target, keep the link */
		char buf[PATH_MAX];
		if (!realpath(path, buf))
			return out_err(err, errlen, CHAKRA_EIO, "%s: %s", path, strerror(errno));
		o->target = out_strdup(buf);
	} else {
		o->target = out_strdup(path);
	}
	n = o->target ? strlen(o->target) + 16 : 0;
	o->tmp = n ? (char *)out_malloc(n) : NULL;
	if (!o->target || !o->tmp) {
		rc = out_err(err, errlen, CHAKRA_ENOMEM, "%s: out of memory", path);
		goto fail;
	}
	snprintf(o->tmp, n, "%s.tmp-XXXXXX", o->target);
	if (chakra__out_tmp_register(o->tmp) < 0) {
		rc = out_err(err, errlen, CHAKRA_ENOMEM, "%s: out of memory", path);
		goto fail;
	}
	fd = mkostemp(o->tmp, O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		chakra__out_tmp_unregister(o->tmp);
		rc = out_err(err, errlen, CHAKRA_EIO,
		             "%s: cannot create a temporary file next to it: %s", path, strerror(e));
		goto fail;
	}
	/* mkstemp makes 0600: give the file the mode a plain create would, or
	 * the mode of the file it replaces */
	mask = umask(0);
	umask(mask);
	if (fchmod(fd, exists ? st.st_mode & 07777 : 0666 & ~mask) < 0) {
		/* not fatal: the data is what matters */
	}
	o->replaced = exists;
	errno = 0;
	o->f = fdopen(fd, "wb");
	if (!o->f) {
		int e = errno ? errno : ENOMEM; /* its only allocation failed */
		close(fd);
		unlink(o->tmp);
		chakra__out_tmp_unregister(o->tmp);
		rc = out_err(err, errlen, e == ENOMEM ? CHAKRA_ENOMEM : CHAKRA_EIO, "%s: %s", path,
		             e == ENOMEM ? "out of memory" : strerror(e));
		goto fail;
	}
	return 0;
fail:
	out_free(o->target);
	out_free(o->tmp);
	o->target = o->tmp = NULL;
	return rc;
}

int chakra__out_write_cb(void *data, const void *buf, size_t len)
{
	chakra__out *o = (chakra__out *)data;
	errno = 0;
	if (o->f && fwrite(buf, 1, len, o->f) == len)
		return 0;
	if (!o->werr)
		o->werr = errno ? errno : EIO; /* ENOMEM (stdio's buffer), ENOSPC... */
	return -1;
}

int chakra__out_close(chakra__out *o, char *err, size_t errlen)
{
	if (!o->f)
		return o->failed ? out_err(err, errlen, CHAKRA_EIO, "%s: write failed", o->path) : 0;
	FILE *f = o->f;
	o->f = NULL;
	errno = 0;
	int bad = ferror(f) != 0 || o->werr;
	int e = bad ? (o->werr ? o->werr : errno ? errno : EIO) : 0;
	if (!bad && fflush(f) != 0)
		bad = 1, e = errno;
	/* replacing a file: its old data must not be lost to a crash right
	 * after the rename, so the new data reaches the disk first */
	if (!bad && o->tmp && o->replaced && fsync(fileno(f)) != 0 && errno != EINVAL)
		bad = 1, e = errno;
	if (!o->is_stdout && fclose(f) != 0 && !bad)
		bad = 1, e = errno;
	if (bad) {
		o->failed = 1;
		return out_err(err, errlen, CHAKRA_EIO, "%s: write failed: %s", o->path,
		               strerror(e ? e : EIO));
	}
	return 0;
}

static void out_drop(chakra__out *o)
{
	if (o->tmp) {
		unlink(o->tmp);
		chakra__out_tmp_unregister(o->tmp);
		out_free(o->tmp);
		o->tmp = NULL;
	}
	if (o->backup) {
		unlink(o->backup);
		chakra__out_tmp_unregister(o->backup);
		out_free(o->backup);
		o->backup = NULL;
	}
	out_free(o->target);
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

/* Move o's temporary into place (o closed). */
static int move_into_place(chakra__out *o, char *err, size_t errlen)
{
	if ((o->force ? rename(o->tmp, o->target) : rename_noreplace(o->tmp, o->target)) != 0) {
		if (errno == EEXIST)
			return out_err(err, errlen, CHAKRA_EIO,
			               "%s: appeared while we wrote it; use -f (--force) to replace it",
			               o->path);
		return out_err(err, errlen, CHAKRA_EIO,
		               "%s: cannot move the finished output into place: %s", o->path,
		               strerror(errno));
	}
	chakra__out_tmp_unregister(o->tmp);
	out_free(o->tmp);
	o->tmp = NULL;
	o->committed = 1;
	return 0;
}

int chakra__out_commit(chakra__out *o, char *err, size_t errlen)
{
	int rc = chakra__out_close(o, err, errlen);
	if (rc == 0 && o->tmp)
		rc = move_into_place(o, err, errlen);
	out_drop(o);
	o->committed = rc == 0;
	return rc;
}

/* A hard link to the file a set member will replace, so that a failed
 * rename later in the set can put it back. 0, or -1 when this file system
 * has no hard links (the set is then committed without that guarantee). */
static int make_backup(chakra__out *o)
{
	struct stat st;
	if (!o->tmp || lstat(o->target, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;
	size_t n = strlen(o->target) + 16;
	char *b = (char *)out_malloc(n);
	if (!b)
		return -1;
	for (int attempt = 0; attempt < 16; attempt++) {
		snprintf(b, n, "%s.old-XXXXXX", o->target);
		int fd = mkstemp(b); /* a fresh name; link wants it absent */
		if (fd < 0)
			break;
		close(fd);
		unlink(b);
		if (chakra__out_tmp_register(b) < 0)
			break;
		if (link(o->target, b) == 0) {
			o->backup = b;
			return 0;
		}
		chakra__out_tmp_unregister(b);
		if (errno != EEXIST)
			break;
	}
	out_free(b);
	return -1;
}

int chakra__out_commit_set(chakra__out *outs, size_t n, char *err, size_t errlen)
{
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = chakra__out_close(&outs[i], err, errlen);
	/* two members renamed to one name would lose one of them */
	char **names = rc == 0 && n > 1 ? (char **)out_malloc(n * sizeof *names) : NULL;
	if (rc == 0 && n > 1 && !names)
		rc = out_err(err, errlen, CHAKRA_ENOMEM, "out of memory");
	if (names) {
		size_t m = 0;
		for (size_t i = 0; i < n; i++)
			if (outs[i].tmp)
				names[m++] = outs[i].target;
		qsort(names, m, sizeof *names, cmp_str);
		for (size_t i = 1; i < m && rc == 0; i++)
			if (!strcmp(names[i - 1], names[i]))
				rc = out_err(err, errlen, CHAKRA_EINVAL,
				             "%s: named twice among the outputs of one command", names[i]);
		out_free(names);
	}
	if (rc < 0) {
		for (size_t i = 0; i < n; i++)
			chakra__out_abort(&outs[i]);
		return rc;
	}
	sigset_t old;
	if (track_on)
		block(&old); /* a signal now would leave a mixed set */
	for (size_t i = 0; i < n; i++)
		make_backup(&outs[i]); /* best effort: no hard links, no way back */
	size_t k = 0;
	for (; k < n && rc == 0; k++)
		if (outs[k].tmp)
			rc = move_into_place(&outs[k], err, errlen);
	if (rc < 0) {
		/* put back what the renames before the failed one replaced */
		for (size_t i = 0; i + 1 < k; i++) {
			if (!outs[i].committed)
				continue;
			if (outs[i].backup) {
				/* the old data stays under the backup's name if even
				 * this fails: never removed */
				rename(outs[i].backup, outs[i].target);
				chakra__out_tmp_unregister(outs[i].backup);
				out_free(outs[i].backup);
				outs[i].backup = NULL;
			} else if (!outs[i].replaced) {
				unlink(outs[i].target); /* it did not exist before */
			}
			outs[i].committed = 0;
		}
	}
	for (size_t i = 0; i < n; i++)
		out_drop(&outs[i]);
	if (track_on)
		unblock(&old);
	return rc;
}

void chakra__out_abort(chakra__out *o)
{
	if (o->f && !o->is_stdout)
		fclose(o->f);
	else if (o->f)
		fflush(o->f);
	o->f = NULL;
	out_drop(o);
}
