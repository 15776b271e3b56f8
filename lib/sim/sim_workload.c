/* SPDX-License-Identifier: Apache-2.0 */
/* Opening a workload for a run: PREFIX.0.et .. PREFIX.{N-1}.et (or
 * .et.gz), or a rank map (PREFIX.ranks: one file per class of ranks, and
 * each rank's peers and groups; docs/feeder.md), within the memory budget
 * (chakra_sim_options.memory), and the classes of its ranks for the
 * symmetry reduction (docs/sim.md, "Symmetry").
 *
 * Two things grow with the number of ranks: the read-ahead window of each
 * feeder and the reader's input buffer, which takes up to 1 MiB per read
 * (1 GiB of resident memory at 1,024 ranks, whatever the window). So each
 * rank's file is read through a callback that hands over at most `chunk`
 * bytes at a time, and chunk and the feeder's window_bytes come from the
 * rank's share of the budget (the window in nodes stays the feeder's
 * default unless given). A reduced run opens one feeder per class, with
 * the same window and reads as every rank would have: the issue order, and
 * so the cycles, are the full run's. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../rankpath.h"
#include "sim_engine_impl.h"
#include "../modmem.h"

/* What a feeder costs whatever its window (structures, first blocks), and
 * what each node read ahead costs beyond its message bytes (queue record,
 * slot, id map), measured on the bench workload (docs/sim.md): 305 bytes a
 * node of 38. The input buffer keeps room for about twice what it holds,
 * so a node costs about 3 times its message. */
#define FEEDER_FIXED (48 * 1024)
#define NODE_OVERHEAD 200
#define HELD_FACTOR 3

/* The file rank r reads (into buf for PREFIX.r.et; a rank map's own string
 * otherwise). */
static const char *path_of(const sim_workload *w, size_t r, char *buf, size_t cap)
{
	if (w->map)
		return chakra_rank_map_file(w->map, chakra_rank_map_class(w->map, (uint32_t)r));
	chakra__rank_path(buf, cap, w->prefix, r);
	return buf;
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
static int whole_traces_fit(const sim_workload *w, uint64_t memory, size_t chunk,
                            double node_bytes, char *path, size_t plen)
{
	size_t n = w->n;
	double rest = (double)memory / (double)n - FEEDER_FIXED - 2.0 * (double)chunk;
	double per = node_bytes > 0 ? node_bytes : 256;
	/* (a rank map: its classes' files are every rank's) */
	size_t files = w->map ? chakra_rank_map_classes(w->map) : n;
	for (size_t r = 0; r < files; r++) {
		const char *p = w->map ? chakra_rank_map_file(w->map, (uint32_t)r)
		                       : path_of(w, r, path, plen);
		uint64_t bytes = trace_bytes(p);
		if (!bytes || HELD_FACTOR * (double)bytes + NODE_OVERHEAD * ((double)bytes / per) > rest)
			return 0;
	}
	return 1;
}

void chakra__sim_workload_close_feeders(sim_workload *w)
{
	for (size_t r = 0; r < w->nf; r++) {
		chakra_feeder_close(w->f[r]);
		if (w->src[r].fd >= 0)
			close(w->src[r].fd);
		chakra_free(w->src[r].name);
	}
	chakra_free(w->f);
	chakra_free(w->src);
	w->f = NULL;
	w->src = NULL;
	w->nf = 0;
}

void chakra__sim_workload_close(sim_workload *w)
{
	chakra__sim_workload_close_feeders(w);
	chakra_rank_map_free(w->map);
	chakra_free(w->prefix);
	memset(w, 0, sizeof *w);
}

int chakra__sim_workload_open(chakra_sim *S, const char *prefix, sim_workload *w, char *err,
                              size_t errlen)
{
	memset(w, 0, sizeof *w);
	size_t plen = strlen(prefix) + 32;
	char *path = chakra_malloc(plen);
	w->prefix = chakra__mstrdup(prefix);
	if (!path || !w->prefix) {
		chakra_free(path);
		snprintf(err, errlen, "%s: out of memory", prefix);
		chakra__sim_workload_close(w);
		return CHAKRA_ENOMEM;
	}
	size_t n = 0;
	while (chakra__rank_path(path, plen, prefix, n))
		n++;
	if (n == 0) {
		/* A rank map: PREFIX.ranks, or PREFIX itself. */
		snprintf(path, plen, "%s.ranks", prefix);
		const char *mp = chakra__rank_is_file(path)        ? path
		                 : chakra_rank_map_is(prefix) ? prefix
		                                              : NULL;
		if (!mp) {
			snprintf(err, errlen, "%s: no workload: neither %s.0.et, %s.0.et.gz nor %s.ranks "
			         "exists", prefix, prefix, prefix, prefix);
			chakra_free(path);
			chakra__sim_workload_close(w);
			return CHAKRA_ENOTFOUND;
		}
		int rc = chakra_rank_map_load(&w->map, mp, err, errlen);
		if (rc < 0) {
			chakra_free(path);
			chakra__sim_workload_close(w);
			return rc;
		}
		n = chakra_rank_map_ranks(w->map);
	}
	w->n = n;
	double node_bytes;
	if (sample_node_bytes(path_of(w, 0, path, plen), &node_bytes, &w->recorded) < 0) {
		snprintf(err, errlen, "%s: out of memory", prefix);
		chakra_free(path);
		chakra__sim_workload_close(w);
		return CHAKRA_ENOMEM;
	}
	/* Every rank's share, reduced run or not (the window decides the
	 * issue order of some traces). */
	chakra__sim_budget(S->opt.memory, n, node_bytes, &w->chunk, &w->window, &w->window_bytes);
	int astra = S->opt.rules == CHAKRA_SIM_RULES_ASTRA_SIM ||
	            (S->opt.rules == CHAKRA_SIM_RULES_AUTO && w->recorded);
	if (S->opt.window) {
		w->window = S->opt.window;
	} else if (astra) {
		/* ASTRA-sim's feeder knows every node of the file, and issues any
		 * ready one: a feeder that has not read a ready node yet issues in
		 * another order. So the whole trace, when the budget holds it. */
		if (whole_traces_fit(w, S->opt.memory, w->chunk, node_bytes, path, plen))
			w->window = UINT64_MAX;
		else
			w->window_cut = 1;
	}
	chakra_free(path);
	return 0;
}

int chakra__sim_workload_feeders(chakra_sim *S, sim_workload *w, const sim_sym *sym, char *err,
                                 size_t errlen)
{
	size_t nf = sym ? sym->nclasses : w->n;
	size_t plen = strlen(w->prefix) + 32;
	char *path = chakra_malloc(plen);
	w->f = chakra_calloc(nf ? nf : 1, sizeof *w->f);
	w->src = chakra_calloc(nf ? nf : 1, sizeof *w->src);
	if (!path || !w->f || !w->src) {
		chakra_free(path);
		snprintf(err, errlen, "%s: out of memory", w->prefix);
		chakra__sim_workload_close_feeders(w);
		return CHAKRA_ENOMEM;
	}
	w->nf = nf;
	for (size_t i = 0; i < nf; i++)
		w->src[i].fd = -1;
	chakra_feeder_options fo = CHAKRA_FEEDER_OPTIONS_INIT;
	chakra_reader_options ro = CHAKRA_READER_OPTIONS_INIT;
	fo.window = w->window;
	fo.window_bytes = w->window_bytes;
	/* By default, the dependencies the rules' reference follows: ASTRA-sim's
	 * FeederV3 gates on data and control dependencies. */
	if (S->opt.deps)
		fo.deps = S->opt.deps;
	else if (S->opt.rules == CHAKRA_SIM_RULES_ASTRA_SIM ||
	         (S->opt.rules == CHAKRA_SIM_RULES_AUTO && w->recorded))
		fo.deps = CHAKRA_DEPS_BOTH;
	int rc = 0;
	for (size_t i = 0; i < nf && rc == 0; i++) {
		size_t r = sym ? sym->rep[i] : i;
		sim_src *s = &w->src[i];
		const char *p = path_of(w, r, path, plen);
		s->chunk = w->chunk;
		s->name = chakra__mstrdup(p);
		if (!s->name) {
			snprintf(err, errlen, "%s: out of memory", w->prefix);
			rc = CHAKRA_ENOMEM;
			break;
		}
		s->fd = open(p, O_RDONLY | O_CLOEXEC);
		if (s->fd < 0) {
			int e = errno;
			snprintf(err, errlen, "rank %zu: %s: %s%s", r, p, strerror(e),
			         e == EMFILE ? " (raise the open-file limit: ulimit -n)" : "");
			rc = e == ENOMEM ? CHAKRA_ENOMEM : CHAKRA_EIO;
			break;
		}
		ro.display_name = s->name;
		fo.reader = &ro; /* copied at open */
		rc = chakra_feeder_open_cb(&w->f[i], src_read, s, &fo);
		if (rc < 0)
			snprintf(err, errlen, "rank %zu: %s", r,
			         w->f[i] ? chakra_feeder_errmsg(w->f[i]) : chakra_strerror(rc));
	}
	chakra_free(path);
	if (rc < 0)
		chakra__sim_workload_close_feeders(w);
	return rc < 0 ? rc : 0;
}

/* ---------------- classes ---------------- */

void chakra__sim_sym_free(sim_sym *sym)
{
	chakra_free(sym->cls);
	chakra_free(sym->rep);
	chakra_free(sym->first);
	chakra_free(sym->members);
	memset(sym, 0, sizeof *sym);
}

/* A file's bytes hashed (into *h), or -1 when it cannot be read. */
static int file_hash(const char *path, char *buf, size_t cap, uint64_t *h)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	uint64_t x = 0x9e3779b97f4a7c15ull;
	ssize_t k;
	while ((k = read(fd, buf, cap)) > 0 || (k < 0 && errno == EINTR)) {
		for (ssize_t i = 0; i + 8 <= k; i += 8) {
			uint64_t v;
			memcpy(&v, buf + i, 8);
			x = sim_mix64(x ^ v);
		}
		for (ssize_t i = k - k % 8; i < k; i++)
			x = sim_mix64(x ^ (unsigned char)buf[i]);
	}
	close(fd);
	*h = x;
	return k < 0 ? -1 : 0;
}

/* 1 when files a and b hold the same bytes (0: not, or unreadable). */
static int same_bytes(const char *a, const char *b, char *buf, size_t cap)
{
	int fa = open(a, O_RDONLY | O_CLOEXEC), fb = open(b, O_RDONLY | O_CLOEXEC);
	int same = fa >= 0 && fb >= 0;
	size_t half = cap / 2;
	while (same) {
		ssize_t ka = read(fa, buf, half), kb = read(fb, buf + half, half);
		if (ka < 0 || kb < 0 || ka != kb) {
			same = 0;
			break;
		}
		if (ka == 0)
			break;
		/* (full reads of regular files; a short one ends the file) */
		same = !memcmp(buf, buf + half, (size_t)ka);
	}
	if (fa >= 0)
		close(fa);
	if (fb >= 0)
		close(fb);
	return same;
}

/* The same trace: PREFIX.r.et files, by file (links) and by bytes. */
typedef struct fkey {
	uint64_t dev, ino, size, hash;
	uint32_t cls;
	int hashed;
} fkey;

static int file_classes(sim_workload *w, uint32_t *cls, uint32_t *ncls, char *err, size_t errlen)
{
	size_t n = w->n, plen = strlen(w->prefix) + 32, cap = (size_t)1 << 20;
	char *path = chakra_malloc(plen), *other = chakra_malloc(plen), *buf = chakra_malloc(cap);
	fkey *k = chakra_calloc(n, sizeof *k);
	uint32_t *rep = chakra_malloc(n * sizeof *rep);
	size_t hcap = 16;
	while (hcap < 2 * n)
		hcap *= 2;
	uint32_t *h = chakra_calloc(hcap, sizeof *h);  /* (dev, ino): rank + 1 */
	uint32_t *h2 = chakra_calloc(hcap, sizeof *h2); /* (size, hash): class + 1 */
	int rc = 0;
	if (!path || !other || !buf || !k || !rep || !h || !h2) {
		snprintf(err, errlen, "%s: out of memory", w->prefix);
		rc = CHAKRA_ENOMEM;
		goto out;
	}
	*ncls = 0;
	for (size_t r = 0; r < n; r++) {
		struct stat st;
		chakra__rank_path(path, plen, w->prefix, r);
		if (stat(path, &st) != 0) {
			snprintf(err, errlen, "rank %zu: %s: %s", r, path, strerror(errno));
			rc = CHAKRA_EIO;
			goto out;
		}
		k[r].dev = (uint64_t)st.st_dev;
		k[r].ino = (uint64_t)st.st_ino;
		k[r].size = (uint64_t)st.st_size;
		k[r].cls = UINT32_MAX;
		/* The same file (a link to it): the same class. */
		size_t at = sim_mix64(sim_mulw(k[r].dev, 0x9e3779b97f4a7c15ull) ^ k[r].ino) & (hcap - 1);
		for (; h[at]; at = (at + 1) & (hcap - 1)) {
			const fkey *o = &k[h[at] - 1];
			if (o->dev == k[r].dev && o->ino == k[r].ino) {
				k[r].cls = o->cls;
				break;
			}
		}
		if (k[r].cls != UINT32_MAX) {
			cls[r] = k[r].cls;
			continue;
		}
		h[at] = (uint32_t)(r + 1);
		/* Another file with the same bytes: compare with each earlier class
		 * of that size and hash. */
		if (file_hash(path, buf, cap, &k[r].hash) < 0) {
			snprintf(err, errlen, "rank %zu: %s: %s", r, path, strerror(errno));
			rc = CHAKRA_EIO;
			goto out;
		}
		k[r].hashed = 1;
		size_t at2 = sim_mix64(k[r].size ^ sim_mix64(k[r].hash)) & (hcap - 1);
		for (; h2[at2] && k[r].cls == UINT32_MAX; at2 = (at2 + 1) & (hcap - 1)) {
			uint32_t c = h2[at2] - 1;
			const fkey *o = &k[rep[c]];
			if (o->size != k[r].size || o->hash != k[r].hash)
				continue;
			chakra__rank_path(other, plen, w->prefix, rep[c]);
			if (same_bytes(path, other, buf, cap))
				k[r].cls = c;
		}
		if (k[r].cls == UINT32_MAX) { /* (a new class: in the slot the search ended at) */
			k[r].cls = (*ncls)++;
			rep[k[r].cls] = (uint32_t)r;
			h2[at2] = k[r].cls + 1;
		}
		cls[r] = k[r].cls;
	}
out:
	chakra_free(path);
	chakra_free(other);
	chakra_free(buf);
	chakra_free(k);
	chakra_free(rep);
	chakra_free(h);
	chakra_free(h2);
	return rc;
}

int chakra__sim_classes(chakra_sim *S, sim_workload *w, sim_sym *sym, char *note, size_t notelen,
                        char *err, size_t errlen)
{
	memset(sym, 0, sizeof *sym);
	size_t n = w->n;
	if (n < 2) {
		snprintf(note, notelen, "one NPU");
		return 1;
	}
	uint32_t *base = chakra_malloc(n * sizeof *base), nb = 0;
	if (!base) {
		snprintf(err, errlen, "%s: out of memory", w->prefix);
		return CHAKRA_ENOMEM;
	}
	int rc = 0;
	if (w->map) {
		for (size_t r = 0; r < n; r++)
			base[r] = chakra_rank_map_class(w->map, (uint32_t)r);
		nb = chakra_rank_map_classes(w->map);
	} else {
		rc = file_classes(w, base, &nb, err, errlen);
	}
	/* Ranks with another start delay or compute scale run otherwise: a
	 * class of their own. Classes are numbered by their lowest rank. */
	sym->n = (uint32_t)n;
	sym->cls = chakra_malloc(n * sizeof *sym->cls);
	sym->rep = chakra_malloc(n * sizeof *sym->rep);
	size_t hcap = 16;
	while (hcap < 2 * n)
		hcap *= 2;
	uint32_t *h = chakra_calloc(hcap, sizeof *h);
	if (rc == 0 && (!sym->cls || !sym->rep || !h)) {
		snprintf(err, errlen, "%s: out of memory", w->prefix);
		rc = CHAKRA_ENOMEM;
	}
	const uint64_t *delay = S->opt.start_delay;
	const double *scale = S->opt.compute_scale;
	for (size_t r = 0; rc == 0 && r < n; r++) {
		uint64_t sb = 0, dl = delay ? delay[r] : 0;
		if (scale)
			memcpy(&sb, &scale[r], sizeof sb);
		uint64_t key = sim_mix64(base[r] ^ sim_mix64(dl ^ sim_mix64(sb)));
		size_t at = key & (hcap - 1);
		uint32_t c = UINT32_MAX;
		for (; h[at]; at = (at + 1) & (hcap - 1)) {
			uint32_t o = sym->rep[h[at] - 1];
			uint64_t ob = 0;
			if (scale)
				memcpy(&ob, &scale[o], sizeof ob);
			if (base[o] == base[r] && (delay ? delay[o] : 0) == dl && ob == sb) {
				c = h[at] - 1;
				break;
			}
		}
		if (c == UINT32_MAX) {
			c = sym->nclasses++;
			sym->rep[c] = (uint32_t)r;
			h[at] = c + 1;
		}
		sym->cls[r] = c;
	}
	chakra_free(h);
	chakra_free(base);
	if (rc == 0 && sym->nclasses == n) {
		snprintf(note, notelen, "every NPU runs a trace of its own");
		rc = 1;
	}
	if (rc == 0) {
		/* Each class's ranks, in rank order. */
		sym->first = chakra_calloc((size_t)sym->nclasses + 1, sizeof *sym->first);
		sym->members = chakra_malloc(n * sizeof *sym->members);
		if (!sym->first || !sym->members) {
			snprintf(err, errlen, "%s: out of memory", w->prefix);
			rc = CHAKRA_ENOMEM;
		} else {
			for (size_t r = 0; r < n; r++)
				sym->first[sym->cls[r] + 1]++;
			for (uint32_t c = 0; c < sym->nclasses; c++)
				sym->first[c + 1] += sym->first[c];
			uint32_t *fill = chakra_malloc((size_t)sym->nclasses * sizeof *fill);
			if (!fill) {
				snprintf(err, errlen, "%s: out of memory", w->prefix);
				rc = CHAKRA_ENOMEM;
			} else {
				memcpy(fill, sym->first, (size_t)sym->nclasses * sizeof *fill);
				for (size_t r = 0; r < n; r++)
					sym->members[fill[sym->cls[r]]++] = (uint32_t)r;
				chakra_free(fill);
			}
		}
	}
	if (rc != 0)
		chakra__sim_sym_free(sym);
	return rc;
}
