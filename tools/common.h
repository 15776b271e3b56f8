/* Shared by the subcommands: error reporting and option parsing helpers.
 * Subcommands use the public API only. */
#ifndef CHAKRA_TOOLS_COMMON_H
#define CHAKRA_TOOLS_COMMON_H

#include <stdio.h>
#include <stdint.h>

#include "chakra/chakra.h"

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

/* Is arg exactly "--help" or "-h"? */
int tool_is_help(const char *arg);

/* Parse an unsigned / signed integer / double option value; 0 on success,
 * prints an error naming opt otherwise and returns -1. */
int tool_parse_u64(const char *opt, const char *s, uint64_t *out);
int tool_parse_i64(const char *opt, const char *s, int64_t *out);
int tool_parse_double(const char *opt, const char *s, double *out);

/* Long option with a value: matches "--name=VALUE" or "--name VALUE"
 * (consuming argv[*i + 1]). Returns the value, or NULL when argv[*i] is
 * another option; sets *missing when the value is absent. */
const char *tool_opt(int argc, char **argv, int *i, const char *name, int *missing);

/* The output option: "-o FILE" or "--output[=]FILE". Returns 1 with *out
 * set, 0 when argv[*i] is another argument, or -1 after printing a usage
 * error when the file name is missing (exit with status 2). */
int tool_output_opt(int argc, char **argv, int *i, const char **out);

/* Refuse to write an output that is one of the inputs (same file), so
 * nothing the user gave is overwritten. Returns 0 or prints and returns -1. */
int tool_check_output(const char *out, const char *const *inputs, int n_inputs);

/* Open an output text stream ("-" = stdout). */
FILE *tool_fopen_out(const char *path);
/* Close it; reports write errors (disk full...) and returns -1 on failure. */
int tool_fclose_out(FILE *f, const char *path);

/* Progress on stderr when it is a terminal (quiet otherwise). */
typedef struct tool_progress {
	const char *label;
	uint64_t total, last_shown;
	double last_time;
	int enabled;
} tool_progress;
void tool_progress_start(tool_progress *p, const char *label, uint64_t total);
void tool_progress_update(tool_progress *p, uint64_t done);
void tool_progress_end(tool_progress *p);

/* Wall-clock seconds (monotonic) and peak resident memory in KiB. */
double tool_now(void);
long tool_peak_rss_kib(void);

#endif
