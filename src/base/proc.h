/*
 * proc.h - the one way kpipe runs another program (nvcc, ptxas's report,
 * cuobjdump, nvdisasm, cu++filt, python3, the GPU harness,
 * compute-sanitizer): fork and exec with stdout and stderr to files or
 * captured, stdin inherited or from /dev/null, an optional time limit after
 * which the program is killed with everything it started, and several
 * programs side by side (nvcc once per version).  Also where an executable
 * is looked up.
 *
 * A batch's workers are not started here: they run kpipe's own code in a
 * forked child (safe_write.h, kp_guard_fork).
 *
 * Ownership: a kp_proc's captured output is the caller's (free it, or
 * take it); nothing here prints or exits.
 */
#ifndef KPIPE_PROC_H
#define KPIPE_PROC_H

#include <sys/types.h>
#include <time.h>

typedef struct {
	const char *out_path; /* stdout to this file (created, truncated); NULL: captured */
	const char *err_path; /* stderr to this file; NULL: wherever stdout goes */
	int stdin_null;       /* an empty stdin (end of file at once); 0: kpipe's own */
	int timeout_s;        /* > 0: killed (SIGKILL) after this many seconds, in a
				 process group of its own so that its children go too */
} kp_proc_opts;

typedef struct {
	/* filled by kp_proc_start() and kp_proc_wait() */
	int started;   /* 0: fork failed or a pipe could not be made */
	int status;    /* exit status, 128 + signal, -1 when it did not start */
	int signal;    /* the signal that ended it, or 0 */
	int timed_out; /* killed after opts.timeout_s */
	double seconds;
	char *output; /* stdout (and stderr) when captured, else NULL; caller frees */
	/* private */
	pid_t pid;
	int fd;       /* the capture pipe, -1 when closed */
	int captured; /* output goes to buf */
	int timeout_s;
	struct timespec start;
	char *buf;
	size_t len, cap;
} kp_proc;

/* Starts argv (NULL-terminated; argv[0] looked up in PATH like execvp).  A
 * program that cannot be executed exits with 127 after "cannot run PROG:
 * REASON" on its stderr.  Returns 0, or -1 when it could not be started
 * (p->status -1). */
int kp_proc_start(kp_proc *p, char *const argv[], const kp_proc_opts *o);

/* Waits for every started process of ps[0..n-1], reading captured output
 * as it comes; those still running after their time limit are killed with
 * their process group. */
void kp_proc_wait(kp_proc *ps, int n);

/* kp_proc_start() and kp_proc_wait() on one program. */
int kp_proc_run(kp_proc *p, char *const argv[], const kp_proc_opts *o);

/* Runs argv with stdout and stderr captured together into *out (caller
 * frees; NULL when it did not start) and kpipe's stdin.  A missing program
 * is found before the fork.  Returns the exit status, or -1 when the
 * program could not be run (not found, exit status 127, a signal). */
int kp_run_capture(char *const argv[], char **out);

/* Whether path is an executable regular file. */
int kp_is_executable(const char *path);

/* "DIR/name" for the first DIR of $PATH holding an executable `name`, or
 * NULL (also without PATH); caller frees. */
char *kp_find_on_path(const char *name);

#endif
