/* SPDX-License-Identifier: Apache-2.0 */
/* Writing to a path that is not a regular file (a FIFO here; /dev/null in
 * real use) goes straight to it: the writer must not rename a temporary
 * file over the node, which as root once turned /dev/null into a regular
 * file. A FIFO stands in so the test cannot damage the machine. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "chakra/chakra.h"
#include "check.h"

int main(void)
{
	char dir[] = "/tmp/chakra-special-XXXXXX", fifo[128], copy[128];
	CHECK(mkdtemp(dir) != NULL);
	snprintf(fifo, sizeof fifo, "%s/pipe", dir);
	snprintf(copy, sizeof copy, "%s/copy.et", dir);
	CHECK(mkfifo(fifo, 0600) == 0);

	/* A child drains the FIFO into a file. */
	pid_t pid = fork();
	if (pid == 0) {
		int in = open(fifo, O_RDONLY), out = open(copy, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		char buf[4096];
		ssize_t n;
		while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof buf)) > 0)
			if (write(out, buf, (size_t)n) != n)
				_exit(1);
		_exit(in < 0 || out < 0);
	}

	/* overwrite is off: a FIFO holds nothing to lose, so this is allowed. */
	chakra_writer *w;
	int rc = chakra_writer_open(&w, fifo, NULL);
	CHECK_MSG(rc == 0, "%s", w ? chakra_writer_errmsg(w) : "");
	chakra_builder *b = chakra_builder_new();
	CHECK(chakra_writer_write_metadata(w, "0.0.4", NULL) == 0);
	for (uint64_t id = 0; id < 100; id++) {
		chakra_builder_reset(b);
		chakra_builder_set_id(b, id);
		chakra_builder_set_type(b, CHAKRA_COMP_NODE);
		if (id)
			chakra_builder_add_data_dep(b, id - 1);
		CHECK(chakra_writer_write_node(w, b) == 0);
	}
	CHECK(chakra_writer_finish(w) == 0);
	chakra_writer_close(w);
	chakra_builder_free(b);
	int st = 0;
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);

	struct stat sb;
	CHECK(lstat(fifo, &sb) == 0 && S_ISFIFO(sb.st_mode)); /* still a FIFO */

	/* What went through the FIFO is the whole trace. */
	chakra_reader *r;
	CHECK(chakra_reader_open(&r, copy, NULL) == 0);
	const chakra_node *n;
	uint64_t count = 0;
	while ((rc = chakra_reader_next(r, &n)) > 0)
		count++;
	CHECK(rc == 0);
	CHECK_EQ_U(count, 100);
	chakra_reader_close(r);

	/* A directory is refused with a message, not replaced. */
	rc = chakra_writer_open(&w, dir, NULL);
	CHECK(rc == CHAKRA_EIO && strstr(chakra_writer_errmsg(w), "directory"));
	chakra_writer_close(w);
	CHECK(lstat(dir, &sb) == 0 && S_ISDIR(sb.st_mode));

	unlink(fifo);
	unlink(copy);
	rmdir(dir);
	return check_done();
}
