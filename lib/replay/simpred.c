/* The simulator's prediction for the workload being replayed: runs
 * `chakra sim ... --json --events FILE` as a subprocess and reads the
 * finish time of every NPU and the duration of every node (issue to
 * callback) from its outputs. (When the simulator is a library module this
 * file can call it instead; the report does not change.) */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <yajl/yajl_tree.h>

#include "replay_impl.h"

extern char **environ;

void chakra_replay_sim_free(chakra_replay_sim *s)
{
	for (uint32_t i = 0; s->ev_id && i < s->npus; i++) {
		free(s->ev_id[i]);
		free(s->ev_ns[i]);
	}
	free(s->ev_id);
	free(s->ev_ns);
	free(s->nev);
	free(s->npu_finish);
	free(s->npu_compute);
	free(s->npu_exposed);
	memset(s, 0, sizeof *s);
}

static uint64_t jget_u64(yajl_val obj, const char *key, int *ok)
{
	const char *path[] = { key, NULL };
	yajl_val v = yajl_tree_get(obj, path, yajl_t_number);
	if (!v || !YAJL_IS_INTEGER(v) || YAJL_GET_INTEGER(v) < 0) {
		*ok = 0;
		return 0;
	}
	return (uint64_t)YAJL_GET_INTEGER(v);
}

static int read_json(chakra_replay_sim *s, const char *text, char *err, size_t errlen)
{
	char yerr[256] = "";
	yajl_val root = yajl_tree_parse(text, yerr, sizeof yerr);
	if (!root)
		return chakra__replay_fail(err, errlen, CHAKRA_ECONFIG,
		                           "chakra sim --json: unreadable output: %s", yerr);
	const char *np[] = { "npus", NULL };
	yajl_val npus = yajl_tree_get(root, np, yajl_t_array);
	int ok = 1;
	s->finish = jget_u64(root, "finish_cycles", &ok);
	if (!npus || !ok) {
		yajl_tree_free(root);
		return chakra__replay_fail(err, errlen, CHAKRA_ECONFIG,
		                           "chakra sim --json: no finish_cycles or npus");
	}
	size_t n = npus->u.array.len;
	s->npus = (uint32_t)n;
	s->npu_finish = calloc(n ? n : 1, sizeof *s->npu_finish);
	s->npu_compute = calloc(n ? n : 1, sizeof *s->npu_compute);
	s->npu_exposed = calloc(n ? n : 1, sizeof *s->npu_exposed);
	s->nev = calloc(n ? n : 1, sizeof *s->nev);
	s->ev_id = calloc(n ? n : 1, sizeof *s->ev_id);
	s->ev_ns = calloc(n ? n : 1, sizeof *s->ev_ns);
	int rc = 0;
	if (!s->npu_finish || !s->npu_compute || !s->npu_exposed || !s->nev || !s->ev_id || !s->ev_ns)
		rc = chakra__replay_fail(err, errlen, CHAKRA_ENOMEM, "out of memory");
	for (size_t i = 0; rc == 0 && i < n; i++) {
		yajl_val u = npus->u.array.values[i];
		uint64_t id = jget_u64(u, "npu", &ok);
		if (!ok || id >= n) {
			rc = chakra__replay_fail(err, errlen, CHAKRA_ECONFIG,
			                         "chakra sim --json: npus[%zu] has no valid npu", i);
			break;
		}
		s->npu_finish[id] = jget_u64(u, "finish_cycles", &ok);
		s->npu_compute[id] = jget_u64(u, "compute_cycles", &ok);
		s->npu_exposed[id] = jget_u64(u, "exposed_comm_cycles", &ok);
		if (!ok)
			rc = chakra__replay_fail(err, errlen, CHAKRA_ECONFIG,
			                         "chakra sim --json: npu %" PRIu64 " lacks a field", id);
	}
	yajl_tree_free(root);
	return rc;
}

typedef struct ev_acc {
	chakra__replay_map open; /* node id -> index in id/ns */
	uint64_t *id, *start, *ns;
	size_t n, cap;
} ev_acc;

typedef struct ev_pair {
	uint64_t id, ns;
} ev_pair;

static int cmp_pair(const void *a, const void *b)
{
	const ev_pair *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int parse_field(const char **p, const char *name, uint64_t *v)
{
	size_t len = strlen(name);
	if (strncmp(*p, name, len) != 0)
		return -1;
	char *end;
	errno = 0;
	unsigned long long x = strtoull(*p + len, &end, 10);
	if (errno || end == *p + len || (*end != ',' && *end != '\n' && *end))
		return -1;
	*v = x;
	*p = *end == ',' ? end + 1 : end;
	return 0;
}

static int read_events(chakra_replay_sim *s, FILE *f, char *err, size_t errlen)
{
	ev_acc *acc = calloc(s->npus ? s->npus : 1, sizeof *acc);
	if (!acc)
		return chakra__replay_fail(err, errlen, CHAKRA_ENOMEM, "out of memory");
	char *line = NULL;
	size_t cap = 0;
	unsigned long lineno = 0;
	int rc = 0;
	while (rc == 0 && getline(&line, &cap, f) >= 0) {
		lineno++;
		int issue = !strncmp(line, "issue,", 6);
		if (!issue && strncmp(line, "callback,", 9))
			continue;
		const char *p = line + (issue ? 6 : 9);
		uint64_t npu, cycle, id;
		if (parse_field(&p, "npu_id=", &npu) || parse_field(&p, "cycle=", &cycle) ||
		    parse_field(&p, "node_id=", &id) || npu >= s->npus) {
			rc = chakra__replay_fail(err, errlen, CHAKRA_ECONFIG,
			                         "chakra sim --events: line %lu is not an event", lineno);
			break;
		}
		ev_acc *a = &acc[npu];
		if (issue) {
			if (a->n == a->cap) {
				size_t nc = a->cap ? a->cap * 2 : 64;
				uint64_t *ni = realloc(a->id, nc * sizeof *ni);
				if (ni)
					a->id = ni;
				uint64_t *nst = realloc(a->start, nc * sizeof *nst);
				if (nst)
					a->start = nst;
				uint64_t *nn = realloc(a->ns, nc * sizeof *nn);
				if (nn)
					a->ns = nn;
				if (!ni || !nst || !nn) {
					rc = chakra__replay_fail(err, errlen, CHAKRA_ENOMEM, "out of memory");
					break;
				}
				a->cap = nc;
			}
			a->id[a->n] = id;
			a->start[a->n] = cycle;
			a->ns[a->n] = UINT64_MAX;
			if (chakra__replay_map_put(&a->open, id, (uint32_t)a->n) < 0)
				rc = chakra__replay_fail(err, errlen, CHAKRA_ENOMEM, "out of memory");
			a->n++;
		} else {
			long i = chakra__replay_map_get(&a->open, id);
			if (i >= 0 && cycle >= a->start[i])
				a->ns[i] = cycle - a->start[i];
		}
	}
	free(line);
	for (uint32_t u = 0; u < s->npus; u++) {
		ev_acc *a = &acc[u];
		/* Keep the finished nodes, sorted by id. */
		ev_pair *pr = rc == 0 ? malloc((a->n ? a->n : 1) * sizeof *pr) : NULL;
		if (rc == 0 && !pr)
			rc = chakra__replay_fail(err, errlen, CHAKRA_ENOMEM, "out of memory");
		size_t k = 0;
		for (size_t i = 0; pr && i < a->n; i++)
			if (a->ns[i] != UINT64_MAX) {
				pr[k].id = a->id[i];
				pr[k++].ns = a->ns[i];
			}
		if (pr) {
			qsort(pr, k, sizeof *pr, cmp_pair);
			for (size_t i = 0; i < k; i++) {
				a->id[i] = pr[i].id;
				a->ns[i] = pr[i].ns;
			}
			free(pr);
			s->nev[u] = k;
			s->ev_id[u] = a->id;
			s->ev_ns[u] = a->ns;
		} else {
			free(a->id);
			free(a->ns);
		}
		free(a->start);
		chakra__replay_map_free(&a->open);
	}
	free(acc);
	return rc;
}

static int tmpfile_at(char *path, size_t len, const char *what)
{
	const char *dir = getenv("TMPDIR");
	snprintf(path, len, "%s/chakra-replay-%s-XXXXXX", dir && *dir ? dir : "/tmp", what);
	return mkstemp(path);
}

int chakra_replay_sim_run(const char *exe, const char *prefix, const char *const *args,
                          chakra_replay_sim *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	char opath[512], epath[512], errpath[512];
	int ofd = tmpfile_at(opath, sizeof opath, "sim-json");
	int efd = tmpfile_at(epath, sizeof epath, "sim-events");
	int xfd = tmpfile_at(errpath, sizeof errpath, "sim-stderr");
	int rc = 0;
	if (ofd < 0 || efd < 0 || xfd < 0) {
		rc = chakra__replay_fail(err, errlen, CHAKRA_EIO, "temporary file: %s", strerror(errno));
		goto out;
	}
	size_t na = 0;
	while (args && args[na])
		na++;
	const char **argv = calloc(na + 9, sizeof *argv);
	if (!argv) {
		rc = chakra__replay_fail(err, errlen, CHAKRA_ENOMEM, "out of memory");
		goto out;
	}
	size_t k = 0;
	argv[k++] = exe;
	argv[k++] = "sim";
	argv[k++] = "--workload";
	argv[k++] = prefix;
	for (size_t i = 0; i < na; i++)
		argv[k++] = args[i];
	argv[k++] = "--json";
	argv[k++] = "--events";
	argv[k++] = epath;
	argv[k] = NULL;
	fflush(NULL);
	/* posix_spawn, not fork: no copy of an MPI process's address space. */
	posix_spawn_file_actions_t fa;
	pid_t pid = -1;
	int src = posix_spawn_file_actions_init(&fa);
	if (src == 0) {
		posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
		posix_spawn_file_actions_adddup2(&fa, ofd, 1);
		posix_spawn_file_actions_adddup2(&fa, xfd, 2);
		src = posix_spawn(&pid, exe, &fa, NULL, (char *const *)argv, environ);
		posix_spawn_file_actions_destroy(&fa);
	}
	free(argv);
	int status = 0;
	if (src != 0 || waitpid(pid, &status, 0) < 0) {
		rc = chakra__replay_fail(err, errlen, CHAKRA_EIO, "cannot run %s: %s", exe,
		                         strerror(src ? src : errno));
		goto out;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		/* The simulator's own message, first line. */
		char msg[512] = "";
		FILE *f = fopen(errpath, "r");
		if (f) {
			if (!fgets(msg, sizeof msg, f))
				msg[0] = 0;
			fclose(f);
		}
		msg[strcspn(msg, "\n")] = 0;
		rc = chakra__replay_fail(err, errlen, CHAKRA_ECONFIG, "%s sim failed (%s %d): %s", exe,
		                         WIFEXITED(status) ? "exit status" : "signal",
		                         WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
		                         *msg ? msg : "no message");
		goto out;
	}
	size_t len;
	char *text = chakra__replay_slurp(opath, &len, err, errlen);
	if (!text) {
		rc = CHAKRA_EIO;
		goto out;
	}
	rc = read_json(out, text, err, errlen);
	free(text);
	if (rc == 0) {
		FILE *f = fopen(epath, "r");
		if (!f)
			rc = chakra__replay_fail(err, errlen, CHAKRA_EIO, "%s: %s", epath, strerror(errno));
		else {
			rc = read_events(out, f, err, errlen);
			fclose(f);
		}
	}
out:
	if (ofd >= 0) {
		close(ofd);
		unlink(opath);
	}
	if (efd >= 0) {
		close(efd);
		unlink(epath);
	}
	if (xfd >= 0) {
		close(xfd);
		unlink(errpath);
	}
	if (rc)
		chakra_replay_sim_free(out);
	return rc;
}

int64_t chakra_replay_sim_node_ns(const chakra_replay_sim *s, uint32_t npu, uint64_t id)
{
	if (npu >= s->npus)
		return -1;
	size_t lo = 0, hi = s->nev[npu];
	const uint64_t *ids = s->ev_id[npu];
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->nev[npu] && ids[lo] == id ? (int64_t)s->ev_ns[npu][lo] : -1;
}
