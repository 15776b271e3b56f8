/* SPDX-License-Identifier: Apache-2.0 */
/* The output helper (lib/outfile.c) that every command and library call
 * writes through: devices written into (a character device made here when
 * run as root, else a FIFO), links followed, existing files and inputs
 * refused, and sets committed whole: a rename that fails in the middle of
 * a set puts back every file the set had already replaced. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "check.h"
#include "chakra/error.h"
#include "outfile.h"

static char dir[] = "/tmp/outfile-XXXXXX";

static const char *at(const char *name)
{
	static char buf[8][256];
	static int k;
	char *b = buf[k++ % 8];
	snprintf(b, 256, "%s/%s", dir, name);
	return b;
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static int holds(const char *path, const char *text)
{
	char buf[256] = "";
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	return !strcmp(buf, text);
}

/* Files in dir whose names contain s. */
static int count_with(const char *s)
{
	char cmd[512];
	snprintf(cmd, sizeof cmd, "ls -a %s | grep -c -- '%s'", dir, s);
	FILE *p = popen(cmd, "r");
	int n = -1;
	if (p) {
		if (fscanf(p, "%d", &n) != 1)
			n = -1;
		pclose(p);
	}
	return n;
}

static int write_text(chakra__out *o, const char *text)
{
	return chakra__out_write_cb(o, text, strlen(text));
}

int main(void)
{
	char err[512];
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	chakra__out o;
	chakra__out_opts keep = { 0, 0, NULL, 0, NULL }, force = { 1, 0, NULL, 0, NULL };

	/* a new file appears whole at commit, with no temporary left */
	CHECK(chakra__out_open(&o, at("a"), &keep, err, sizeof err) == 0);
	CHECK(write_text(&o, "new") == 0);
	CHECK(access(at("a"), F_OK) != 0); /* not yet */
	CHECK(chakra__out_commit(&o, err, sizeof err) == 0);
	CHECK(holds(at("a"), "new"));
	CHECK_EQ_U(count_with(".tmp-"), 0);

	/* an existing file: refused without force (message names the way),
	 * replaced with it; an aborted write leaves it as it was */
	CHECK(chakra__out_open(&o, at("a"), &keep, err, sizeof err) == CHAKRA_EIO);
	CHECK_MSG(strstr(err, "exists; use -f (--force) to replace it"), "%s", err);
	CHECK(chakra__out_open(&o, at("a"), &force, err, sizeof err) == 0);
	write_text(&o, "half");
	chakra__out_abort(&o);
	CHECK(holds(at("a"), "new"));
	CHECK_EQ_U(count_with(".tmp-"), 0);

	/* an input is refused even with force */
	const char *ins[] = { "-", NULL, at("a") };
	chakra__out_opts in_force = { 1, 0, ins, 3, NULL };
	CHECK(chakra__out_open(&o, at("a"), &in_force, err, sizeof err) == CHAKRA_EINVAL);
	CHECK_MSG(strstr(err, "same file as input"), "%s", err);

	/* a link is followed (its target replaced, the link kept); a dangling
	 * one is refused without force */
	put(at("target"), "old");
	CHECK(symlink("target", at("link")) == 0);
	CHECK(chakra__out_open(&o, at("link"), &force, err, sizeof err) == 0);
	write_text(&o, "via link");
	CHECK(chakra__out_commit(&o, err, sizeof err) == 0);
	struct stat st;
	CHECK(lstat(at("link"), &st) == 0 && S_ISLNK(st.st_mode));
	CHECK(holds(at("target"), "via link"));
	CHECK(symlink("nowhere", at("dangling")) == 0);
	CHECK(chakra__out_open(&o, at("dangling"), &keep, err, sizeof err) == CHAKRA_EIO);
	CHECK_MSG(strstr(err, "symbolic link to nothing"), "%s", err);

	/* a device (root: a character device node like /dev/null) or a FIFO
	 * is written into, never renamed over, even with force */
	const char *dev = at("dev");
	int is_dev = mknod(dev, S_IFCHR | 0666, makedev(1, 3)) == 0;
	if (!is_dev)
		CHECK(mkfifo(dev, 0600) == 0);
	int rd = is_dev ? -1 : open(dev, O_RDONLY | O_NONBLOCK); /* a reader for the FIFO */
	CHECK(chakra__out_open(&o, dev, &force, err, sizeof err) == 0);
	CHECK(o.tmp == NULL);
	write_text(&o, "into the device");
	CHECK(chakra__out_commit(&o, err, sizeof err) == 0);
	CHECK(lstat(dev, &st) == 0 && (is_dev ? S_ISCHR(st.st_mode) : S_ISFIFO(st.st_mode)));
	if (rd >= 0)
		close(rd);
	printf("ok: %s written into, still one\n", is_dev ? "character device" : "FIFO");

	/* a set lands whole: three members, the second replacing a file */
	put(at("s.1"), "old 1");
	chakra__out set[3];
	const char *names[] = { at("s.0"), at("s.1"), at("s.2") };
	const char *stable[3];
	char nb[3][256];
	for (int i = 0; i < 3; i++) {
		snprintf(nb[i], sizeof nb[i], "%s", names[i]);
		stable[i] = nb[i];
	}
	CHECK(chakra__out_check_set(stable, 3, &keep, err, sizeof err) == CHAKRA_EIO); /* s.1 */
	CHECK(chakra__out_check_set(stable, 3, &force, err, sizeof err) == 0);
	const char *dup[] = { stable[0], stable[1], stable[0] };
	CHECK(chakra__out_check_set(dup, 3, &force, err, sizeof err) == CHAKRA_EINVAL);
	CHECK_MSG(strstr(err, "named twice"), "%s", err);
	const char *set_in[] = { stable[2] };
	put(stable[2], "an input");
	chakra__out_opts set_force_in = { 1, 0, set_in, 1, NULL };
	CHECK(chakra__out_check_set(stable, 3, &set_force_in, err, sizeof err) == CHAKRA_EINVAL);
	unlink(stable[2]);
	for (int i = 0; i < 3; i++) {
		CHECK(chakra__out_open(&set[i], stable[i], &force, err, sizeof err) == 0);
		char t[16];
		snprintf(t, sizeof t, "new %d", i);
		write_text(&set[i], t);
		CHECK(chakra__out_close(&set[i], err, sizeof err) == 0);
	}
	CHECK(access(stable[0], F_OK) != 0 && holds(stable[1], "old 1"));
	CHECK(chakra__out_commit_set(set, 3, err, sizeof err) == 0);
	CHECK(holds(stable[0], "new 0") && holds(stable[1], "new 1") && holds(stable[2], "new 2"));
	CHECK_EQ_U(count_with(".tmp-"), 0);
	CHECK_EQ_U(count_with(".old-"), 0);

	/* ... or not at all: the third rename fails (a directory took its
	 * name after the check), so the first two are put back as they were:
	 * s.0 and s.1 hold their previous data again, a new name is removed */
	unlink(stable[0]);
	const char *names2[] = { at("s.0"), at("s.1"), at("s.2") };
	for (int i = 0; i < 3; i++) {
		CHECK(chakra__out_open(&set[i], names2[i], &force, err, sizeof err) == 0);
		write_text(&set[i], "newer");
	}
	CHECK(unlink(stable[2]) == 0 && mkdir(stable[2], 0700) == 0);
	int xfd = open(at("s.2/x"), O_CREAT | O_WRONLY, 0600); /* not empty: no rename over it */
	CHECK(xfd >= 0);
	if (xfd >= 0)
		close(xfd);
	CHECK(chakra__out_commit_set(set, 3, err, sizeof err) == CHAKRA_EIO);
	CHECK_MSG(strstr(err, "s.2"), "%s", err);
	CHECK(access(stable[0], F_OK) != 0); /* did not exist before: removed again */
	CHECK(holds(stable[1], "new 1"));   /* the previous set's file, back */
	CHECK_EQ_U(count_with(".tmp-"), 0);
	CHECK_EQ_U(count_with(".old-"), 0);

	/* a write error (a full disk) is reported at close with its errno */
	if (access("/dev/full", W_OK) == 0) {
		CHECK(chakra__out_open(&o, "/dev/full", &keep, err, sizeof err) == 0);
		char big[8192];
		memset(big, 'x', sizeof big);
		chakra__out_write_cb(&o, big, sizeof big);
		int rc = chakra__out_commit(&o, err, sizeof err);
		CHECK(rc == CHAKRA_EIO);
		CHECK_MSG(strstr(err, "No space left"), "%s", err);
	}

	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	if (!check_failures)
		printf("ok: outfile\n");
	return check_failures;
}
