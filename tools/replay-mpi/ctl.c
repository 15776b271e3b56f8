/* SPDX-License-Identifier: Apache-2.0 */
/* Waiting with a timeout, and stopping every rank together.
 *
 * Every wait in chakra-replay is a polling loop over non-blocking requests,
 * and every loop also polls a control communicator. A rank that sees no
 * progress for --timeout seconds (or fails) prints what it waits for and
 * sends a stop message to every other rank; each of them prints what it
 * waits for in turn, so a hang becomes one clear message per rank. Then
 * MPI_Abort ends the job (outstanding collectives cannot be finalized). */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "replay_tool.h"

enum { TAG_STOP = 1 };
/* How long a stopping rank waits for the others to print before it aborts. */
#define GRACE_S 1.0

double rp_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {
	}
}

void rp_ctl_start(rp_ctx *c)
{
	MPI_Comm_dup(MPI_COMM_WORLD, &c->ctl);
	MPI_Irecv(c->ctl_in, 2, MPI_INT, MPI_ANY_SOURCE, TAG_STOP, c->ctl, &c->ctl_req);
}

void rp_ctl_stop(rp_ctx *c)
{
	if (c->ctl_req != MPI_REQUEST_NULL) {
		MPI_Cancel(&c->ctl_req);
		MPI_Wait(&c->ctl_req, MPI_STATUS_IGNORE);
	}
	if (c->ctl != MPI_COMM_NULL)
		MPI_Comm_free(&c->ctl);
}

/* The rank's message and state in one write: ranks share mpirun's stderr,
 * and separate writes from two ranks interleave mid-line. */
static void say(rp_ctx *c, const char *what)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m) {
		fprintf(stderr, "chakra-replay: rank %d: %s\n", c->rank, what);
		return;
	}
	fprintf(m, "chakra-replay: rank %d: %s\nchakra-replay: rank %d: while %s", c->rank, what,
	        c->rank, c->phase ? c->phase : "starting");
	if (c->run)
		rp_run_describe(c, m);
	fputc('\n', m);
	if (fclose(m) == 0) {
		if (write(2, buf, len) < 0) {
			/* nothing else to tell */
		}
	}
	free(buf);
}

static __attribute__((noreturn)) void die(rp_ctx *c, int code)
{
	fflush(stdout);
	fflush(stderr);
	if (c->log)
		fflush(c->log);
	sleep_s(GRACE_S);
	MPI_Abort(MPI_COMM_WORLD, code);
	_exit(code);
}

void rp_stop_all(rp_ctx *c, int code, const char *fmt, ...)
{
	static int msg[2];
	msg[0] = code;
	msg[1] = c->rank;
	for (int r = 0; r < c->size; r++) {
		MPI_Request q;
		if (r == c->rank)
			continue;
		/* Small and eager: sent even if nobody ever receives it. */
		if (MPI_Isend(msg, 2, MPI_INT, r, TAG_STOP, c->ctl, &q) == MPI_SUCCESS)
			MPI_Request_free(&q);
	}
	char what[CHAKRA_REPLAY_ERR_LEN];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	say(c, what);
	die(c, code);
}

void rp_ctl_poll(rp_ctx *c)
{
	int flag = 0;
	if (c->ctl_req == MPI_REQUEST_NULL)
		return;
	MPI_Test(&c->ctl_req, &flag, MPI_STATUS_IGNORE);
	if (!flag)
		return;
	char what[128];
	snprintf(what, sizeof what, "stopping: rank %d %s", c->ctl_in[1],
	         c->ctl_in[0] == 2 ? "timed out" : "failed");
	say(c, what);
	die(c, c->ctl_in[0]);
}

void rp_wait(rp_ctx *c, MPI_Request *r)
{
	double start = rp_now();
	for (unsigned spin = 0;; spin++) {
		int flag = 0;
		int rc = MPI_Test(r, &flag, MPI_STATUS_IGNORE);
		if (rc != MPI_SUCCESS) {
			char s[MPI_MAX_ERROR_STRING];
			int len = 0;
			MPI_Error_string(rc, s, &len);
			rp_stop_all(c, 1, "MPI error: %s", s);
		}
		if (flag)
			return;
		rp_ctl_poll(c);
		if (c->o.timeout > 0 && rp_now() - start > c->o.timeout)
			rp_stop_all(c, 2, "timeout: no progress in %g s", c->o.timeout);
		/* Setup waits are short; after a while, let other ranks on this
		 * core run (oversubscribed test runs). */
		if (spin > 1000)
			sleep_s(1e-4);
	}
}

int rp_agree(rp_ctx *c, int ok)
{
	int all = 0;
	MPI_Request r;
	MPI_Iallreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD, &r);
	rp_wait(c, &r);
	return all;
}
