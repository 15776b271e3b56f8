/* SPDX-License-Identifier: Apache-2.0 */
/* Shared by the subcommands: error reporting and option parsing helpers.
 * Subcommands use the public API only. */
#ifndef CHAKRA_TOOLS_COMMON_H
#define CHAKRA_TOOLS_COMMON_H

#include <stdio.h>
#include <stdint.h>

#include "chakra/chakra.h"
#include "outfile.h"

#if defined(__GNUC__)
#  define TOOL_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#  define TOOL_PRINTF(a, b)
#endif

/* Every subcommand: int cmd_x(int argc, char **argv), argv[0] = its name.
 * Returns the process exit status (0 ok, 1 problems found / error,
 * 2 usage error). */
typedef int (*tool_fn)(int argc, char **argv);

/* "chakra: " + message + newline on stderr; returns 1. */
int tool_err(const char *fmt, ...) TOOL_PRINTF(1, 2);
/* Usage error: message and a hint to --help; returns 2. */
int tool_usage(const char *cmd, const char *fmt, ...) TOOL_PRINTF(2, 3);
/* An input file that is not there or is a directory, in the wording every
 * command uses: prints "PATH: no such file or directory" or "PATH: is a
 * directory" and returns 1; 0 for anything else ("-" included). */
int tool_input_missing(const char *path);
/* What goes before a command's name in messages: "chakra ", or nothing for
 * Chakra's own command names ("chakra_converter PyTorch", tools/compat.c). */
const char *tool_cmd_prefix(const char *cmd);

/* The command being run, as typed ("generate synthetic"): set by the
 * dispatcher, used by the messages of tool_parse_* below. */
void tool_set_command(const char *name);

/* Is arg exactly "--help" or "-h"? */
int tool_is_help(const char *arg);

/* Parse an unsigned / signed integer / double option value; 0 on success,
 * otherwise prints a usage error naming the command, opt and the value,
 * with the hint to --help, and returns -1 (the caller exits with 2). */
int tool_parse_u64(const char *opt, const char *s, uint64_t *out);
int tool_parse_i64(const char *opt, const char *s, int64_t *out);
int tool_parse_double(const char *opt, const char *s, double *out);

/* Refuse to write an output that is one of the inputs (same file), so
 * nothing the user gave is overwritten. Returns 0 or prints and returns -1. */
int tool_check_output(const char *out, const char *const *inputs, int n_inputs);

/* Close a stream of the caller's (a private temporary); reports write
 * errors (disk full...) and returns -1 on failure. */
int tool_fclose_out(FILE *f, const char *path);

/* ---- The output rule (every file a command writes) ----
 * lib/outfile.h states it and implements it for the library, its modules
 * and the tools alike: "-" is stdout; a device or FIFO is written into,
 * never renamed over; anything else goes to PATH.tmp-XXXXXX, renamed on
 * commit (a link's target is replaced, the link stays); an existing file
 * is replaced only with force (-f), an input never; a set of files is
 * committed whole or not at all. These wrappers print the helper's
 * messages as "chakra: ..." and return 0 or -1. */
typedef chakra__out tool_out;

/* Open `path` under the rule. 0, or prints why not and returns -1
 * (nothing created). */
int tool_out_open(tool_out *o, const char *path, int force, const char *const *inputs,
                  int n_inputs);
/* Check that `path` could be opened (exists without force, is an input, is
 * a directory), without creating anything: for commands that write many
 * files and want to refuse before writing the first. 0 or -1 (printed). */
int tool_out_check(const char *path, int force, const char *const *inputs, int n_inputs);
/* chakra_write_cb over the stream (data = the tool_out). */
int tool_out_write_cb(void *data, const void *buf, size_t len);
/* Flush and close the stream, reporting write errors (disk full...);
 * the temporary stays until commit or abort. 0 or -1 (printed). */
int tool_out_close(tool_out *o);
/* Close if open, then move the temporary into place. 0 or -1 (printed;
 * the temporary is removed). */
int tool_out_commit(tool_out *o);
/* Commit n outputs as one (lib/outfile.h): all in place, or none changed. */
int tool_out_commit_set(tool_out *outs, size_t n);
/* Drop the output: close, remove the temporary (never the target). Safe
 * to call after commit (does nothing) or on a zeroed struct. */
void tool_out_abort(tool_out *o);


/* Install the handlers that remove every temporary (ours and the library
 * modules') on SIGINT, SIGTERM, SIGHUP and SIGPIPE, then let the signal
 * proceed; a signal the caller ignores stays ignored. Called once by main. */
void tool_signals_init(void);

/* A private temporary file (mkstemp on tmpl), removed on the signals above
 * too; tmpl must live until tool_tmp_remove. fd or -1 (errno set). */
int tool_mkstemp(char *tmpl);
void tool_tmp_remove(char *tmpl);

/* Out of memory where no error path exists (inside YAJL's allocator):
 * remove the temporaries, print "chakra: out of memory (what)" and exit 1. */
void tool_oom_exit(const char *what);


/* Progress on stderr when it is a terminal (quiet otherwise, or with
 * CHAKRA_NO_PROGRESS set; CHAKRA_PROGRESS=1 shows it on any stderr; redrawn
 * every 0.2 s, or every CHAKRA_PROGRESS_INTERVAL seconds). With
 * a total: a bar, the percentage and done/total; without: the count. */
typedef struct tool_progress {
	const char *label;
	uint64_t total, last_shown;
	double last_time;
	double interval; /* seconds between draws: 0.2, or CHAKRA_PROGRESS_INTERVAL */
	int enabled;
	int bytes;        /* tool_progress_start_trace: total and done are bytes */
	uint64_t nodes;   /* ... and this many nodes were read */
} tool_progress;
void tool_progress_start(tool_progress *p, const char *label, uint64_t total);
void tool_progress_update(tool_progress *p, uint64_t done);
/* Reading a trace: the total is the file's uncompressed size (a gzip's
 * from its trailer, when that can be trusted; else unknown); update with
 * the reader's offset (chakra_reader_offset) and the nodes read. */
void tool_progress_start_trace(tool_progress *p, const char *label, const char *path);
void tool_progress_trace(tool_progress *p, uint64_t offset, uint64_t nodes);
void tool_progress_end(tool_progress *p);

/* Wall-clock seconds (monotonic) and peak resident memory in KiB. */
double tool_now(void);
long tool_peak_rss_kib(void);

#endif
