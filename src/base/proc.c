/*
 * proc.c - running other programs (see proc.h): fork, redirect, exec; a
 * wait loop that drains the capture pipes with poll(), reaps with WNOHANG
 * and kills a process group whose time is up.  Without a time limit the
 * program stays in kpipe's process group, so a Ctrl-C at the terminal
 * reaches it too.
 */
#define _GNU_SOURCE
#include "proc.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int kp_is_executable(const char *path)
{
	struct stat st;
	return path && stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

char *kp_find_on_path(const char *name)
{
	const char *path = getenv("PATH");
	if (!path)
		return NULL;
	char *copy = kp_xstrdup(path);
	char *found = NULL;
	char *save = NULL;
	for (char *d = strtok_r(copy, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
		kp_strbuf sb = KP_STRBUF_INIT;
		kp_strbuf_addf(&sb, "%s/%s", d, name);
		if (kp_is_executable(kp_strbuf_str(&sb)))
			found = kp_strbuf_detach(&sb);
		kp_strbuf_release(&sb);
	}
	free(copy);
	return found;
}

/* Whether execvp() could start prog: an executable regular file, looked up
 * in PATH (glibc's default when unset) unless the name has a '/'.  Unlike
 * kp_find_on_path(), an empty PATH entry is the current directory. */
static int can_exec(const char *prog)
{
	if (strchr(prog, '/'))
		return kp_is_executable(prog);
	const char *path = getenv("PATH");
	if (!path)
		path = "/bin:/usr/bin";
	for (const char *p = path;; p++) {
		size_t n = strcspn(p, ":");
		kp_strbuf full = KP_STRBUF_INIT;
		kp_strbuf_addf(&full, "%.*s%s%s", (int)n, p, n ? "/" : "", prog);
		int ok = kp_is_executable(kp_strbuf_str(&full));
		kp_strbuf_release(&full);
		if (ok)
			return 1;
		p += n;
		if (!*p)
			return 0;
	}
}

static double since(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) * 1e-9;
}

/* In the child: the redirections, then exec.  Never returns. */
static void child(char *const argv[], const kp_proc_opts *o, const int pipefd[2])
{
	if (o->timeout_s > 0)
		setpgid(0, 0);
	if (o->stdin_null) {
		/* a pipe whose writer is closed: end of file at once.  Not
		 * /dev/null, which some containers have as a regular file that
		 * everyone's "2>/dev/null" writes into. */
		int e[2];
		if (pipe(e) != 0)
			_exit(127);
		close(e[1]);
		if (e[0] != 0) {
			dup2(e[0], 0);
			close(e[0]);
		}
	}
	int fo = pipefd[1];
	if (o->out_path)
		fo = open(o->out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	int fe = o->err_path ? open(o->err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644) : fo;
	if (fo < 0 || fe < 0)
		_exit(127);
	dup2(fo, 1);
	dup2(fe, 2);
	if (pipefd[0] >= 0) {
		close(pipefd[0]);
		close(pipefd[1]);
	}
	execvp(argv[0], argv);
	dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

int kp_proc_start(kp_proc *p, char *const argv[], const kp_proc_opts *o)
{
	static const kp_proc_opts none = {0};
	if (!o)
		o = &none;
	memset(p, 0, sizeof(*p));
	p->status = -1;
	p->fd = -1;
	p->timeout_s = o->timeout_s;
	clock_gettime(CLOCK_MONOTONIC, &p->start);
	int pipefd[2] = {-1, -1};
	if (!o->out_path && pipe(pipefd) != 0)
		return -1;
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		if (pipefd[0] >= 0) {
			close(pipefd[0]);
			close(pipefd[1]);
		}
		return -1;
	}
	if (pid == 0)
		child(argv, o, pipefd);
	if (o->timeout_s > 0)
		setpgid(pid, pid); /* also from here, whichever runs first */
	if (pipefd[0] >= 0) {
		close(pipefd[1]);
		p->fd = pipefd[0];
		p->captured = 1;
	}
	p->pid = pid;
	p->started = 1;
	return 0;
}

/* Reads what is there on p's pipe; closes it at the end of the output. */
static void drain(kp_proc *p)
{
	char tmp[8192];
	ssize_t n = read(p->fd, tmp, sizeof(tmp));
	if (n < 0 && errno == EINTR)
		return;
	if (n <= 0) {
		close(p->fd);
		p->fd = -1;
		return;
	}
	if (p->len + (size_t)n + 1 > p->cap) {
		p->cap = p->cap ? p->cap : 8192;
		while (p->len + (size_t)n + 1 > p->cap)
			p->cap *= 2;
		p->buf = kp_xrealloc(p->buf, p->cap);
	}
	memcpy(p->buf + p->len, tmp, (size_t)n);
	p->len += (size_t)n;
	p->buf[p->len] = '\0';
}

/* Reaps p when it has ended (blocking: it must end), or kills it when its
 * time is up.  Returns 1 while it is still running. */
static int reap(kp_proc *p, int block)
{
	int st;
	pid_t w = waitpid(p->pid, &st, block ? 0 : WNOHANG);
	if (w == 0 && p->timeout_s > 0 && since(&p->start) > p->timeout_s) {
		kill(-p->pid, SIGKILL);
		kill(p->pid, SIGKILL);
		p->timed_out = 1;
		while ((w = waitpid(p->pid, &st, 0)) < 0 && errno == EINTR)
			;
	}
	if (w == 0 || (w < 0 && errno == EINTR))
		return 1;
	if (w > 0) {
		p->status = WIFEXITED(st)     ? WEXITSTATUS(st)
			    : WIFSIGNALED(st) ? 128 + WTERMSIG(st)
					      : -1;
		p->signal = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
	}
	p->seconds = since(&p->start);
	p->pid = 0;
	return 0;
}

void kp_proc_wait(kp_proc *ps, int n)
{
	struct pollfd *fds = kp_xcalloc((size_t)(n > 0 ? n : 1), sizeof(*fds));
	for (;;) {
		int nfds = 0, running = 0, limited = 0;
		for (int i = 0; i < n; i++) {
			kp_proc *p = &ps[i];
			if (p->fd >= 0)
				fds[nfds++] = (struct pollfd){.fd = p->fd, .events = POLLIN};
			running += p->pid > 0;
			limited |= p->pid > 0 && p->timeout_s > 0;
		}
		if (!nfds && !running)
			break;
		if (nfds) {
			/* the output first: a program blocks on a full pipe */
			if (poll(fds, (nfds_t)nfds, 20) > 0)
				for (int i = 0, k = 0; i < n; i++)
					if (ps[i].fd >= 0 && fds[k++].revents)
						drain(&ps[i]);
		} else if (!limited) {
			/* nothing to read, no time limit: wait for each in turn */
			for (int i = 0; i < n; i++)
				if (ps[i].pid > 0)
					reap(&ps[i], 1);
			continue;
		} else {
			struct timespec ts = {0, 20 * 1000 * 1000};
			nanosleep(&ts, NULL);
		}
		for (int i = 0; i < n; i++)
			if (ps[i].pid > 0)
				reap(&ps[i], 0);
	}
	free(fds);
	for (int i = 0; i < n; i++)
		if (ps[i].captured && !ps[i].output) {
			ps[i].output = ps[i].buf ? ps[i].buf : kp_xstrdup("");
			ps[i].buf = NULL;
		}
}

int kp_proc_run(kp_proc *p, char *const argv[], const kp_proc_opts *o)
{
	if (kp_proc_start(p, argv, o) != 0)
		return -1;
	kp_proc_wait(p, 1);
	return 0;
}

int kp_run_capture(char *const argv[], char **out)
{
	*out = NULL;
	/* A missing tool is found before the fork: the child of a failed exec
	 * would have only its exit status (127) to say so, which a tool can
	 * return itself and valgrind replaces with its own error exit code. */
	if (!can_exec(argv[0]))
		return -1;
	kp_proc p;
	if (kp_proc_run(&p, argv, NULL) != 0)
		return -1;
	*out = p.output;
	if (p.signal || p.status == 127)
		return -1;
	return p.status;
}
