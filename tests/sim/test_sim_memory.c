/* SPDX-License-Identifier: Apache-2.0 */
/* Peak memory of `chakra sim` with default options on the reference's scale
 * workload at 64 NPUs x 20,000 nodes (at most 100 MiB; it was
 * 351 MiB with the feeders' fixed windows). The workload, its network and
 * its system are the ones `chakra bench sim --files` writes (one file per
 * rank; its own run is the one-class symmetric path, about a second);
 * `chakra sim` runs in a child and its peak resident set comes from wait4
 * (getrusage of that child). It must also end at the reference's
 * 2,405,152,000 cycles. Skipped (77) in sanitizer builds, whose shadow
 * memory is not the program's. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "chakra/chakra.h"
#include "check.h"

#define NPUS 64
#define NODES 20000
#define LIMIT_KIB (100 * 1024)

/* Run a command (argv[0] the program), its output to /dev/null: its exit
 * status, or -1. */
static int run(char *const *argv)
{
	pid_t pid = fork();
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);
		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(126);
		execv(argv[0], argv);
		_exit(127);
	}
	int status = 0;
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int main(void)
{
#if defined(SIM_MEMORY_SANITIZED)
	puts("skipped: a sanitizer build's memory is not the program's");
	return 77;
#endif
	const char *exe = getenv("CHAKRA_EXE");
	if (!exe) {
		puts("skipped: CHAKRA_EXE is not set");
		return 77;
	}
	char dir[] = "/tmp/chakra-sim-memory-XXXXXX", path[600], prefix[512], net[512], sys[512];
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(prefix, sizeof prefix, "%s/bench", dir);
	snprintf(net, sizeof net, "%s/network.yml", dir);
	snprintf(sys, sizeof sys, "%s/system.json", dir);
	/* The child is forked now, while this process is small: Linux keeps a
	 * process's peak RSS across exec, and a child starts with its parent's
	 * pages. It waits for the workload, then becomes `chakra sim`. */
	int go[2];
	CHECK(pipe(go) == 0);
	snprintf(path, sizeof path, "%s/out.json", dir);
	pid_t pid = fork();
	if (pid == 0) {
		char c;
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(125);
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || dup2(fd, 1) < 0)
			_exit(126);
		/* meson sets it to find bugs: glibc then fills every allocation,
		 * making untouched reserved pages resident; not the program's. */
		unsetenv("MALLOC_PERTURB_");
		/* Every NPU: the ranks' files are the same bytes, which the
		 * symmetry reduction would simulate once. */
		execl(exe, exe, "sim", "--workload", prefix, "--network", net, "--system", sys, "--json",
		      "--no-symmetry", (char *)NULL);
		_exit(127);
	}
	close(go[0]);
	char npus[16], nodes[16];
	snprintf(npus, sizeof npus, "%d", NPUS);
	snprintf(nodes, sizeof nodes, "%d", NODES);
	char *bench[] = { (char *)exe, "bench", "sim", "--npus", npus, "--nodes", nodes, "--files",
		              "--dir", dir, "--path", "symmetry", "--runs", "1", "-f", NULL };
	CHECK_MSG(run(bench) == 0, "chakra bench sim --files did not write the workload");
	CHECK(pid > 0 && write(go[1], "g", 1) == 1);
	close(go[1]);
	int status = 0;
	struct rusage ru;
	memset(&ru, 0, sizeof ru);
	CHECK(pid > 0 && wait4(pid, &status, 0, &ru) == pid);
	CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "chakra sim: status %d", status);
	char out[128] = "";
	snprintf(path, sizeof path, "%s/out.json", dir);
	FILE *f = fopen(path, "r");
	if (f) {
		if (!fgets(out, sizeof out, f))
			out[0] = 0;
		fclose(f);
	}
	CHECK_MSG(strncmp(out, "{\"finish_cycles\":2405152000,", 28) == 0, "output: %.100s", out);
	long kib = ru.ru_maxrss;
	printf("chakra sim, %d NPUs x %d nodes, default options: peak RSS %.1f MiB (limit %d MiB)\n",
	       NPUS, NODES, kib / 1024.0, LIMIT_KIB / 1024);
	CHECK_MSG(kib > 0 && kib <= LIMIT_KIB, "peak RSS %ld KiB is above %d KiB", kib, LIMIT_KIB);
	for (int r = 0; r < NPUS; r++) {
		snprintf(path, sizeof path, "%s.%d.et", prefix, r);
		unlink(path);
	}
	unlink(net);
	unlink(sys);
	snprintf(path, sizeof path, "%s/out.json", dir);
	unlink(path);
	rmdir(dir);
	return check_done();
}
