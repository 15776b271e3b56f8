#include "common.h"

#include <errno.h>
#include <math.h>
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

int tool_usage(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "chakra %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'chakra %s --help'.\n", cmd);
	return 2;
}

int tool_is_help(const char *a) { return !strcmp(a, "--help") || !strcmp(a, "-h"); }

int tool_parse_u64(const char *opt, const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	if (!s || !*s || *s == '-') {
		tool_err("%s: expected a non-negative integer, got '%s'", opt, s ? s : "");
		return -1;
	}
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || *end) {
		tool_err("%s: expected a non-negative integer, got '%s'", opt, s);
		return -1;
	}
	*out = v;
	return 0;
}

int tool_parse_i64(const char *opt, const char *s, int64_t *out)
{
	char *end;
	errno = 0;
	long long v = s ? strtoll(s, &end, 0) : 0;
	if (!s || !*s || errno || *end) {
		tool_err("%s: expected an integer, got '%s'", opt, s ? s : "");
		return -1;
	}
	*out = v;
	return 0;
}

int tool_parse_double(const char *opt, const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = s ? strtod(s, &end) : 0;
	if (!s || !*s || errno || *end || !isfinite(v)) {
		tool_err("%s: expected a number, got '%s'", opt, s ? s : "");
		return -1;
	}
	*out = v;
	return 0;
}

const char *tool_opt(int argc, char **argv, int *i, const char *name, int *missing)
{
	size_t n = strlen(name);
	const char *a = argv[*i];
	*missing = 0;
	if (strncmp(a, name, n) != 0)
		return NULL;
	if (a[n] == '=')
		return a + n + 1;
	if (a[n] != 0)
		return NULL;
	if (*i + 1 >= argc) {
		*missing = 1;
		return NULL;
	}
	return argv[++*i];
}

int tool_output_opt(int argc, char **argv, int *i, const char **out)
{
	int missing;
	const char *v;
	if (!strcmp(argv[*i], "-o")) {
		if (*i + 1 >= argc) {
			tool_usage(argv[0], "-o needs a file name");
			return -1;
		}
		*out = argv[++*i];
		return 1;
	}
	if ((v = tool_opt(argc, argv, i, "--output", &missing)) || missing) {
		if (!v) {
			tool_usage(argv[0], "--output needs a file name");
			return -1;
		}
		*out = v;
		return 1;
	}
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
	p->label = label;
	p->total = total;
	p->last_shown = 0;
	p->last_time = tool_now();
	p->enabled = isatty(2) && !getenv("CHAKRA_NO_PROGRESS");
}

void tool_progress_update(tool_progress *p, uint64_t done)
{
	if (!p->enabled)
		return;
	double t = tool_now();
	if (t - p->last_time < 0.2)
		return;
	p->last_time = t;
	p->last_shown = done;
	if (p->total)
		fprintf(stderr, "\r%s: %llu/%llu (%.0f%%)", p->label, (unsigned long long)done,
		        (unsigned long long)p->total, 100.0 * (double)done / (double)p->total);
	else
		fprintf(stderr, "\r%s: %llu", p->label, (unsigned long long)done);
}

void tool_progress_end(tool_progress *p)
{
	if (p->enabled && p->last_shown)
		fputs("\r\033[K", stderr);
}
