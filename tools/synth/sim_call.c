/* SPDX-License-Identifier: Apache-2.0 */
/* The one place synth touches the simulator: it runs this executable's
 * `chakra sim --json` on a workload prepared in a temporary folder and
 * reads finish_cycles, so the synth module stays independent of the
 * simulator's library. */
#define CHAKRA_EXPERIMENTAL
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "chakra/experimental/synth.h"
#include "sim_call.h"

int synth_sim_prepare(char **paths, size_t n, uint32_t npus, const char *prefix, uint64_t *changed,
                      char *err, size_t errlen)
{
	char path[4096];
	*changed = 0;
	if (n != 1 && n != npus) {
		snprintf(err, errlen, "%zu rank(s) cannot be simulated on %" PRIu32 " NPUs", n, npus);
		return -1;
	}
	for (uint32_t r = 0; r < npus; r++) {
		snprintf(path, sizeof path, "%s.%" PRIu32 ".et", prefix, r);
		if (n == 1 && r > 0) {
			/* One rank stands for all: the same file on every NPU. */
			char first[4096];
			snprintf(first, sizeof first, "%s.0.et", prefix);
			const char *base = strrchr(first, '/');
			if (symlink(base ? base + 1 : first, path) != 0) {
				snprintf(err, errlen, "%s: %s", path, strerror(errno));
				return -1;
			}
			continue;
		}
		uint64_t ch = 0;
		if (chakra_synth_simready(paths[n == 1 ? 0 : r], path, 0, &ch, err, errlen) < 0)
			return -1;
		*changed += ch;
	}
	return 0;
}

int synth_sim_finish(const char *prefix, const char *net, const char *sys, const char *groups,
                     const char *model, uint64_t *finish, char *err, size_t errlen)
{
	char self[4096];
	ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
	if (k <= 0) {
		snprintf(err, errlen, "cannot find the chakra executable: %s", strerror(errno));
		return -1;
	}
	self[k] = 0;
	int out[2], errp[2];
	if (pipe(out) != 0 || pipe(errp) != 0) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	const char *argv[16];
	int a = 0;
	argv[a++] = self;
	argv[a++] = "sim";
	argv[a++] = "--workload";
	argv[a++] = prefix;
	argv[a++] = "--network";
	argv[a++] = net;
	argv[a++] = "--system";
	argv[a++] = sys;
	if (groups) {
		argv[a++] = "--comm-group";
		argv[a++] = groups;
	}
	if (model) {
		argv[a++] = "--model";
		argv[a++] = model;
	}
	argv[a++] = "--json";
	argv[a] = NULL;
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		dup2(out[1], 1);
		dup2(errp[1], 2);
		close(out[0]);
		close(out[1]);
		close(errp[0]);
		close(errp[1]);
		setenv("CHAKRA_NO_PROGRESS", "1", 1);
		execv(self, (char *const *)argv);
		_exit(127);
	}
	close(out[1]);
	close(errp[1]);
	/* Read both pipes as they fill (poll), so neither can block the
	 * child; stdout is kept whole, stderr up to its first kilobyte. */
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap + 1);
	char ebuf[1024];
	size_t en = 0;
	struct pollfd pf[2] = { { out[0], POLLIN, 0 }, { errp[0], POLLIN, 0 } };
	int open_fds = 2;
	while (open_fds) {
		if (poll(pf, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int i = 0; i < 2; i++) {
			if (pf[i].fd < 0 || !(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			char sink[4096];
			ssize_t r;
			if (i == 0 && buf) {
				if (n == cap) {
					char *nb = realloc(buf, (cap *= 2) + 1);
					if (!nb) {
						free(buf);
						buf = NULL;
					} else {
						buf = nb;
					}
				}
				r = buf ? read(pf[i].fd, buf + n, cap - n) : read(pf[i].fd, sink, sizeof sink);
				if (r > 0 && buf)
					n += (size_t)r;
			} else if (i == 0) {
				r = read(pf[i].fd, sink, sizeof sink);
			} else {
				r = read(pf[i].fd, sink, sizeof sink);
				for (ssize_t j = 0; j < r && en < sizeof ebuf - 1; j++)
					ebuf[en++] = sink[j];
			}
			if (r == 0 || (r < 0 && errno != EINTR && errno != EAGAIN)) {
				pf[i].fd = -1;
				open_fds--;
			}
		}
	}
	ebuf[en] = 0;
	close(out[0]);
	close(errp[0]);
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!buf) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	buf[n] = 0;
	const char *f = strstr(buf, "\"finish_cycles\":");
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || !f) {
		char *nl = strchr(ebuf, '\n');
		if (nl)
			*nl = 0;
		snprintf(err, errlen, "chakra sim on %s failed: %s", prefix,
		         en ? ebuf : "no result");
		free(buf);
		return -1;
	}
	*finish = strtoull(f + strlen("\"finish_cycles\":"), NULL, 10);
	free(buf);
	return 0;
}
