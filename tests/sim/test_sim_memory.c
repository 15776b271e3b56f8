/* SPDX-License-Identifier: Apache-2.0 */
/* Peak memory of `chakra sim` with default options on the reference's scale
 * workload at 64 NPUs x 20,000 nodes (at most 100 MiB; it was
 * 351 MiB with the feeders' fixed windows). The workload is written here
 * with the library's writer; `chakra sim` runs in a child and its peak
 * resident set comes from wait4 (getrusage of that child). It must also
 * end at the reference's 2,405,152,000 cycles. Skipped (77) in sanitizer
 * builds, whose shadow memory is not the program's. */
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

static int write_rank(const char *path, chakra_builder *b)
{
	static const uint64_t us[4] = { 5, 20, 50, 100 };
	static const uint64_t bytes[5] = { 64 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20 };
	chakra_writer_options wo = CHAKRA_WRITER_OPTIONS_INIT;
	wo.overwrite = 1;
	chakra_writer *w = NULL;
	int rc = chakra_writer_open(&w, path, &wo);
	if (rc == 0)
		rc = chakra_writer_write_metadata(w, "0.0.4", NULL);
	for (uint64_t i = 0; rc == 0 && i < NODES; i++) {
		chakra_builder_reset(b);
		chakra_builder_set_id(b, i);
		if (i)
			chakra_builder_add_data_dep(b, i - 1);
		if (i % 2 == 0) {
			chakra_builder_set_name(b, "compute", (size_t)-1);
			chakra_builder_set_type(b, CHAKRA_COMP_NODE);
			chakra_builder_set_duration_micros(b, us[(i / 2) % 4]);
		} else {
			chakra_builder_set_name(b, "all_reduce", (size_t)-1);
			chakra_builder_set_type(b, CHAKRA_COMM_COLL_NODE);
			chakra_builder_attr_int(b, "comm_type", CHAKRA_ATTR_INT64, CHAKRA_ALL_REDUCE);
			chakra_builder_attr_int(b, "comm_size", CHAKRA_ATTR_INT64,
			                        (int64_t)bytes[(i / 2) % 5]);
		}
		rc = chakra_writer_write_node(w, b);
	}
	if (rc == 0)
		rc = chakra_writer_finish(w);
	chakra_writer_close(w);
	return rc;
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		CHECK(fclose(f) == 0);
	}
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
	snprintf(prefix, sizeof prefix, "%s/w", dir);
	snprintf(net, sizeof net, "%s/net.yml", dir);
	snprintf(sys, sizeof sys, "%s/sys.json", dir);
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
	chakra_builder *b = chakra_builder_new();
	CHECK(b != NULL);
	for (int r = 0; b && r < NPUS; r++) {
		snprintf(path, sizeof path, "%s.%d.et", prefix, r);
		CHECK(write_rank(path, b) == 0);
	}
	chakra_builder_free(b);
	write_text(net, "topology: [ Ring, Switch ]\nnpus_count: [ 8, 8 ]\n"
	                "bandwidth: [ 50.0, 50.0 ]\nlatency: [ 500.0, 500.0 ]\n");
	write_text(sys, "{\"scheduling-policy\": \"LIFO\", \"endpoint-delay\": 10,\n"
	                " \"active-chunks-per-dimension\": 1, \"preferred-dataset-splits\": 4,\n"
	                " \"all-reduce-implementation\": [\"ring\", \"ring\"],\n"
	                " \"all-gather-implementation\": [\"ring\", \"ring\"],\n"
	                " \"reduce-scatter-implementation\": [\"ring\", \"ring\"],\n"
	                " \"all-to-all-implementation\": [\"ring\", \"ring\"],\n"
	                " \"collective-optimization\": \"localBWAware\", \"local-mem-bw\": 1600,\n"
	                " \"boost-mode\": 0}\n");
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
