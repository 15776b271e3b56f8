/* SPDX-License-Identifier: Apache-2.0 */
/* Progress on stderr, wall-clock time and peak memory for the commands
 * (common.h). */
#include "common.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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
