/* SPDX-License-Identifier: Apache-2.0 */
/* Opening PREFIX.0.et .. PREFIX.{N-1}.et (or .et.gz) for a run, within the
 * memory budget (chakra_sim_options.memory). Two things grow with the
 * number of ranks: the read-ahead window of each feeder and the reader's
 * input buffer, which takes up to 1 MiB per read (1 GiB of resident memory
 * at 1,024 ranks, whatever the window). So each rank's file is read
 * through a callback that hands over at most `chunk` bytes at a time, and
 * chunk and the feeder's window_bytes come from the rank's share of the
 * budget (the window in nodes stays the feeder's default unless given). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim_engine_impl.h"

/* What a feeder costs whatever its window (structures, first blocks), and
 * what each node read ahead costs beyond its message bytes (queue record,
 * slot, id map), measured on the bench workload (docs/sim.md): 305 bytes a
 * node of 38. The input buffer keeps room for about twice what it holds,
 * so a node costs about 3 times its message. */
#define FEEDER_FIXED (48 * 1024)
#define NODE_OVERHEAD 200
#define HELD_FACTOR 3

static int is_file(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* Path of rank r: the .et file, else the .et.gz one; 0 if neither. */
static int rank_path(char *buf, size_t cap, const char *prefix, size_t r)
{
	snprintf(buf, cap, "%s.%zu.et", prefix, r);
	if (is_file(buf))
		return 1;
	snprintf(buf, cap, "%s.%zu.et.gz", prefix, r);
	return is_file(buf);
}

static long src_read(void *data, void *buf, size_t cap)
{
	sim_src *s = data;
	size_t n = cap < s->chunk ? cap : s->chunk;
	ssize_t got;
	do
		got = read(s->fd, buf, n);
	while (got < 0 && errno == EINTR);
	return (long)got;
}

/* Average bytes per node of rank 0's first nodes (*avg, 0 if unknown), and
 * whether its metadata says it was converted from a recording. Both decide
 * the run (its window, its rules): CHAKRA_ENOMEM when memory failed them;
 * a file it cannot read is left for its feeder to report. */
static int sample_node_bytes(const char *path, double *avg, int *recorded)
{
	chakra_reader *r = NULL;
	int rc = chakra_reader_open(&r, path, NULL);
	*avg = 0;
	*recorded = 0;
	if (rc == 0) {
		*recorded = chakra__sim_recorded(chakra_reader_metadata(r));
		const chakra_node *n;
		uint64_t k = 0, first = 0;
		while (k < 256 && (rc = chakra_reader_next(r, &n)) > 0) {
			if (k++ == 0)
				first = chakra_node_offset(n);
		}
		if (k > 1)
			*avg = (double)(chakra_reader_offset(r) - first) / (double)k;
	}
	chakra_reader_close(r);
	return rc == CHAKRA_ENOMEM ? rc : 0;
}

void chakra__sim_budget(uint64_t memory, size_t ranks, double node_bytes, size_t *chunk,
                        uint64_t *window, uint64_t *window_bytes)
{
	double share = (double)memory / (double)(ranks ? ranks : 1) - FEEDER_FIXED;
	/* A quarter of the share for reads, at least 4 KiB, at most 1 MiB (the
	 * reader's own size), a power of two; the rest for the nodes held. */
	size_t c = 4096;
	while (c < ((size_t)1 << 20) && (double)c * 2 <= share / 4)
		c *= 2;
	*chunk = c;
	/* The rest for the nodes held: as many as their average size allows
	 * (at least 64, at most the feeder's default), and the feeder's own
	 * byte bound for traces whose nodes are larger than the sample. */
	double rest = share - 2.0 * (double)c;
	double w = rest / (HELD_FACTOR * (node_bytes > 0 ? node_bytes : 256) + NODE_OVERHEAD);
	*window = w < 64 ? 64 : w > CHAKRA_SIM_MAX_WINDOW ? CHAKRA_SIM_MAX_WINDOW : (uint64_t)w;
	double held = rest / HELD_FACTOR;
	*window_bytes = held < 65536 ? 65536 : (uint64_t)held;
}

/* Bytes of a rank's trace once inflated: its size, or for a .gz file the
 * size gzip records at its end (0 when unknown: not a plain gzip member,
 * or too large for the 32-bit field). */
static uint64_t trace_bytes(const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return 0;
	size_t len = strlen(path);
	if (len < 3 || strcmp(path + len - 3, ".gz") != 0)
		return (uint64_t)st.st_size;
	unsigned char b[4];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t got = st.st_size >= 4 ? pread(fd, b, 4, st.st_size - 4) : -1;
	close(fd);
	if (got != 4)
		return 0;
	uint64_t isize = (uint64_t)b[0] | (uint64_t)b[1] << 8 | (uint64_t)b[2] << 16 |
	                 (uint64_t)b[3] << 24;
	/* ISIZE is the size modulo 2^32: below the compressed size it wrapped. */
	return isize >= (uint64_t)st.st_size ? isize : 0;
}

/* Whether every rank's whole trace fits the read-ahead its share of the
 * budget allows (what chakra__sim_budget gives the nodes held). */
static int whole_traces_fit(const char *prefix, size_t n, uint64_t memory, size_t chunk,
                            double node_bytes, char *path, size_t plen)
{
	double rest = (double)memory / (double)n - FEEDER_FIXED - 2.0 * (double)chunk;
	double per = node_bytes > 0 ? node_bytes : 256;
	for (size_t r = 0; r < n; r++) {
		rank_path(path, plen, prefix, r);
		uint64_t bytes = trace_bytes(path);
		if (!bytes || HELD_FACTOR * (double)bytes + NODE_OVERHEAD * ((double)bytes / per) > rest)
			return 0;
	}
	return 1;
}

void chakra__sim_workload_close(sim_workload *w)
{
	for (size_t r = 0; r < w->n; r++) {
		chakra_feeder_close(w->f[r]);
		if (w->src[r].fd >= 0)
			close(w->src[r].fd);
		free(w->src[r].name);
	}
	free(w->f);
	free(w->src);
	memset(w, 0, sizeof *w);
}

int chakra__sim_workload_open(chakra_sim *S, const char *prefix, sim_workload *w, char *err,
                              size_t errlen)
{
	memset(w, 0, sizeof *w);
	size_t plen = strlen(prefix) + 32;
	char *path = malloc(plen);
	if (!path) {
		snprintf(err, errlen, "%s: out of memory", prefix);
		return CHAKRA_ENOMEM;
	}
	size_t n = 0;
	while (rank_path(path, plen, prefix, n))
		n++;
	if (n == 0) {
		snprintf(err, errlen, "%s: no workload: neither %s.0.et nor %s.0.et.gz exists", prefix,
		         prefix, prefix);
		free(path);
		return CHAKRA_ENOTFOUND;
	}
	w->f = calloc(n, sizeof *w->f);
	w->src = calloc(n, sizeof *w->src);
	if (!w->f || !w->src) {
		free(w->f);
		free(w->src);
		w->f = NULL;
		w->src = NULL;
		free(path);
		snprintf(err, errlen, "%s: out of memory", prefix);
		return CHAKRA_ENOMEM;
	}
	w->n = n;
	for (size_t r = 0; r < n; r++)
		w->src[r].fd = -1;
	rank_path(path, plen, prefix, 0);
	int recorded;
	double node_bytes;
	if (sample_node_bytes(path, &node_bytes, &recorded) < 0) {
		snprintf(err, errlen, "%s: out of memory", prefix);
		free(path);
		chakra__sim_workload_close(w);
		return CHAKRA_ENOMEM;
	}
	chakra__sim_budget(S->opt.memory, n, node_bytes, &w->chunk, &w->window, &w->window_bytes);
	int astra = S->opt.rules == CHAKRA_SIM_RULES_ASTRA_SIM ||
	            (S->opt.rules == CHAKRA_SIM_RULES_AUTO && recorded);
	if (S->opt.window) {
		w->window = S->opt.window;
	} else if (astra) {
		/* ASTRA-sim's feeder knows every node of the file, and issues any
		 * ready one: a feeder that has not read a ready node yet issues in
		 * another order. So the whole trace, when the budget holds it. */
		if (whole_traces_fit(prefix, n, S->opt.memory, w->chunk, node_bytes, path, plen))
			w->window = UINT64_MAX;
		else
			w->window_cut = 1;
	}
	chakra_feeder_options fo = CHAKRA_FEEDER_OPTIONS_INIT;
	chakra_reader_options ro = CHAKRA_READER_OPTIONS_INIT;
	fo.window = w->window;
	fo.window_bytes = w->window_bytes;
	/* By default, the dependencies the rules' reference follows: ASTRA-sim's
	 * FeederV3 gates on data and control dependencies. */
	if (S->opt.deps)
		fo.deps = S->opt.deps;
	else if (S->opt.rules == CHAKRA_SIM_RULES_ASTRA_SIM ||
	         (S->opt.rules == CHAKRA_SIM_RULES_AUTO && recorded))
		fo.deps = CHAKRA_DEPS_BOTH;
	int rc = 0;
	for (size_t r = 0; r < n && rc == 0; r++) {
		sim_src *s = &w->src[r];
		rank_path(path, plen, prefix, r);
		s->chunk = w->chunk;
		s->name = strdup(path);
		if (!s->name) {
			snprintf(err, errlen, "%s: out of memory", prefix);
			rc = CHAKRA_ENOMEM;
			break;
		}
		s->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (s->fd < 0) {
			int e = errno;
			snprintf(err, errlen, "rank %zu: %s: %s%s", r, path, strerror(e),
			         e == EMFILE ? " (raise the open-file limit: ulimit -n)" : "");
			rc = e == ENOMEM ? CHAKRA_ENOMEM : CHAKRA_EIO;
			break;
		}
		ro.display_name = s->name;
		fo.reader = &ro; /* copied at open */
		rc = chakra_feeder_open_cb(&w->f[r], src_read, s, &fo);
		if (rc < 0)
			snprintf(err, errlen, "rank %zu: %s", r,
			         w->f[r] ? chakra_feeder_errmsg(w->f[r]) : chakra_strerror(rc));
	}
	free(path);
	if (rc < 0)
		chakra__sim_workload_close(w);
	return rc < 0 ? rc : 0;
}
