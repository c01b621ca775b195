/*
 * jobs.c - child processes for per-file jobs, their outputs in job order
 * (jobs.h).  Jobs are started in order and waited for in order, at most
 * `jobs` running: simple, and the order of the output never depends on
 * which child finishes first.
 */
#define _GNU_SOURCE
#include "jobs.h"

#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct {
	pid_t pid;
	FILE *out, *err;
} child;

void kp_jobs_copy(FILE *from, FILE *to)
{
	char buf[8192];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), from)) > 0)
		fwrite(buf, 1, n, to);
}

static int start(child *c, int i, kp_job_run run, void *ud)
{
	c->out = tmpfile();
	c->err = tmpfile();
	fflush(stdout);
	fflush(stderr);
	c->pid = c->out && c->err ? fork() : -1;
	if (c->pid == 0) {
		dup2(fileno(c->out), STDOUT_FILENO);
		dup2(fileno(c->err), STDERR_FILENO);
		int rc = run(i, ud);
		fflush(stdout);
		fflush(stderr);
		_exit(rc & 0xff);
	}
	if (c->pid < 0) {
		if (c->out)
			fclose(c->out);
		if (c->err)
			fclose(c->err);
		c->out = c->err = NULL;
		return -1;
	}
	return 0;
}

int kp_jobs_run(int n, int jobs, kp_job_run run, kp_job_done done, void *ud)
{
	if (jobs < 1)
		jobs = 1;
	child *c = kp_xcalloc((size_t)n + 1, sizeof(*c));
	int rc = 0, next = 0;
	for (int i = 0; i < n; i++) {
		while (next < n && next < i + jobs) {
			if (start(&c[next], next, run, ud))
				c[next].pid = -1;
			next++;
		}
		if (c[i].pid < 0) { /* no child (fork or tmpfile failed) */
			rc = -1;
			done(i, KP_JOB_NOT_STARTED, NULL, NULL, ud);
			continue;
		}
		int st = 0;
		while (waitpid(c[i].pid, &st, 0) < 0 && errno == EINTR)
			;
		int status = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? -WTERMSIG(st) : -1;
		rewind(c[i].out);
		rewind(c[i].err);
		done(i, status, c[i].out, c[i].err, ud);
		fclose(c[i].out);
		fclose(c[i].err);
	}
	free(c);
	return rc;
}
