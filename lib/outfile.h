/* SPDX-License-Identifier: Apache-2.0 */
/* The output rule (docs/hardening.md, "Outputs"), in one place: every file
 * the library, its modules and the tools write is opened, committed or
 * dropped here.
 *
 * - "-" is stdout (when the caller allows it).
 * - A path that exists and is not a regular file (a FIFO, /dev/null, a
 *   terminal) is opened and written into: never renamed over, never
 *   removed.
 * - Otherwise the data goes to PATH.tmp-XXXXXX in the same directory and
 *   is renamed to PATH on commit, so a failed or interrupted write never
 *   leaves a partial file under the user's name. A symbolic link is
 *   followed: its target is replaced and the link stays.
 * - An existing regular file is replaced only with force; the check is
 *   repeated atomically at the rename, so a file that appears meanwhile is
 *   not lost either. A replaced file's new data is fsync'ed first.
 * - An output that is one of the inputs is refused even with force.
 * - A set of outputs (one file per rank, plus a group file) is committed
 *   together: all are written first, then renamed; when a rename fails the
 *   files already renamed are put back, so the previous set stays whole.
 * - Nothing we did not create is ever removed.
 *
 * Compiled twice: into the core library (allocations through the
 * allocator hook) and, with CHAKRA__OUT_STANDALONE, into a static library
 * the modules and the tools link (the same hook, through chakra_malloc &
 * co.). Names are chakra__out_*. */
#ifndef CHAKRA_OUTFILE_H
#define CHAKRA_OUTFILE_H

#include <stddef.h>
#include <stdio.h>

/* The standalone copy's symbols differ from the core's, so that a program
 * linking both static libraries (white-box tests) gets no clash; users of
 * chakra_out_dep are compiled with the same define. */
#ifdef CHAKRA__OUT_STANDALONE
#define chakra__out_check chakra__outs_check
#define chakra__out_check_set chakra__outs_check_set
#define chakra__out_open chakra__outs_open
#define chakra__out_write_cb chakra__outs_write_cb
#define chakra__out_close chakra__outs_close
#define chakra__out_commit chakra__outs_commit
#define chakra__out_commit_set chakra__outs_commit_set
#define chakra__out_abort chakra__outs_abort
#define chakra__out_track chakra__outs_track
#define chakra__out_tmp_register chakra__outs_tmp_register
#define chakra__out_tmp_unregister chakra__outs_tmp_unregister
#define chakra__out_remove_tmps chakra__outs_remove_tmps
#endif

typedef struct chakra__out_opts {
	int force;                     /* replace an existing regular file */
	int dash;                      /* "-" means stdout */
	const char *const *inputs;     /* refused as outputs (NULL entries and "-" skipped) */
	size_t n_inputs;
	const char *hint;              /* how to force, for messages; NULL: "use -f (--force)" */
} chakra__out_opts;

typedef struct chakra__out {
	const char *path;  /* as given, for messages (not owned) */
	char *target;      /* where the rename goes (a link's target) */
	char *tmp;         /* temporary being written; NULL when written in place */
	char *backup;      /* during a set's commit: a hard link to the old file */
	FILE *f;           /* NULL once closed */
	int force, replaced, failed, is_stdout, committed;
	int werr;          /* errno of the first failed write through write_cb */
} chakra__out;

/* Would `path` be accepted (not created): refuses a directory, an existing
 * regular file or a dangling link without force, an input. 0, or a
 * negative chakra_error with "PATH: what" in err. */
int chakra__out_check(const char *path, const chakra__out_opts *opts, char *err, size_t errlen);
/* The same for the n members of a set, before the first is written: the
 * inputs are looked at once (not once per member), and two members with
 * one name are refused. */
int chakra__out_check_set(const char *const *paths, size_t n, const chakra__out_opts *opts,
                          char *err, size_t errlen);
/* Open under the rule; 0, or a negative chakra_error (nothing created). */
int chakra__out_open(chakra__out *o, const char *path, const chakra__out_opts *opts, char *err,
                     size_t errlen);
/* A chakra_write_cb over the stream (data = the chakra__out). */
int chakra__out_write_cb(void *data, const void *buf, size_t len);
/* Flush and close, reporting write errors (disk full...); the temporary
 * stays until commit or abort. */
int chakra__out_close(chakra__out *o, char *err, size_t errlen);
/* Close if open, then move the temporary into place. On failure the
 * temporary is removed and the old file stays. */
int chakra__out_commit(chakra__out *o, char *err, size_t errlen);
/* Commit n outputs as one: either every one is in place, or none changed
 * (every temporary removed, every old file as it was). */
int chakra__out_commit_set(chakra__out *outs, size_t n, char *err, size_t errlen);
/* Drop: close, remove the temporary (never the target). Safe after a
 * commit (does nothing) and on a zeroed struct. */
void chakra__out_abort(chakra__out *o);

/* Temporaries removed on signals, for programs that handle them (the
 * tools): off by default, so the library keeps no global state. When on,
 * every temporary is registered (and the handled signals are blocked while
 * the registry changes and while a set is renamed). */
void chakra__out_track(int on, const int *signals, size_t n_signals);
/* Register / unregister a temporary of the caller's own (mkstemp). The
 * string must live until unregistered. 0 or -1 (out of memory). */
int chakra__out_tmp_register(char *path);
void chakra__out_tmp_unregister(const char *path);
/* Unlink every registered temporary: async-signal-safe. */
void chakra__out_remove_tmps(void);

#endif
