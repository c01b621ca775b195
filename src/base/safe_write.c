/*
 * safe_write.c - atomic file writes and the one place where kpipe handles
 * terminating signals (why they live together: the handler has to know the
 * temporary file being written).
 *
 * kp_write_file_atomic() writes ".kpipe-tmp-XXXXXX" in the destination's
 * directory, gives it the destination's mode (and owner and group, where
 * allowed), fsyncs it and renames it over the destination.  rename() is the
 * commit point: a reader, a crash, a full disk or a signal leaves the old
 * file or the new one, never part of one.  A destination that is a symbolic
 * link is written through (its target is replaced, the link stays).  While
 * the data is written SIGXFSZ is ignored, so a file-size limit (ulimit -f)
 * makes write() fail with EFBIG, reported like ENOSPC, instead of killing
 * kpipe; the disposition is restored afterwards, so tools kpipe starts
 * later do not inherit it.
 *
 * kp_guard_install() (called once by the command layer, main.c) catches
 * SIGINT, SIGTERM, SIGHUP and SIGQUIT.  The handler is async-signal-safe:
 * it unlinks the temporary file being written, passes the signal on to a
 * batch's children and waits for them (they remove their own temporary
 * files), removes the paths a batch registered (its precompiled headers),
 * then restores the default action and raises the signal again, so the
 * exit status is the signal's.  Paths live in static buffers, published by
 * volatile sig_atomic_t counters and flags; the guarded signals are blocked
 * while one is set or cleared, so the handler never reads half a name.
 *
 * Test hook (docs/reliability.md): KPIPE_TEST_WRITE_DELAY_MS=N sleeps N ms
 * between writing the temporary file and renaming it, so that a test can
 * interrupt a write in progress.
 */
#define _GNU_SOURCE
#include "safe_write.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const int guarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

#define KP_GUARD_PATH 4352
#define KP_GUARD_NPATHS 64
#define KP_GUARD_NCHILD 1024

/* the temporary file being written (one at a time per process) */
static char write_tmp[KP_GUARD_PATH];
static volatile sig_atomic_t write_armed;
/* a batch's own temporary files and directories */
static char paths[KP_GUARD_NPATHS][KP_GUARD_PATH];
static volatile sig_atomic_t path_is_dir[KP_GUARD_NPATHS];
static volatile sig_atomic_t npaths;
/* a batch's children; 0 is a free slot */
static volatile sig_atomic_t children[KP_GUARD_NCHILD];
/* what an interrupted batch says (kp_guard_set_note) */
static char note[256];
static volatile sig_atomic_t note_len;

static void say(const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(2, s, n);
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

static const char *signal_name(int sig)
{
	switch (sig) {
	case SIGINT: return "SIGINT";
	case SIGTERM: return "SIGTERM";
	case SIGHUP: return "SIGHUP";
	case SIGQUIT: return "SIGQUIT";
	default: return "a signal";
	}
}

static void on_signal(int sig)
{
	if (write_armed)
		unlink(write_tmp);
	for (int i = 0; i < KP_GUARD_NCHILD; i++)
		if (children[i] > 0)
			kill((pid_t)children[i], sig);
	for (int i = 0; i < KP_GUARD_NCHILD; i++)
		if (children[i] > 0)
			while (waitpid((pid_t)children[i], NULL, 0) < 0 && errno == EINTR)
				;
	for (int i = 0; i < npaths; i++)
		if (!path_is_dir[i])
			unlink(paths[i]);
	for (int i = 0; i < npaths; i++)
		if (path_is_dir[i])
			rmdir(paths[i]);
	if (note_len) {
		const char *name = signal_name(sig);
		say("kpipe: interrupted by ", 22);
		say(name, strlen(name));
		say(note, (size_t)note_len);
	}
	signal(sig, SIG_DFL);
	raise(sig);
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, sig);
	sigprocmask(SIG_UNBLOCK, &s, NULL);
	_exit(128 + sig); /* not reached */
}

static void block(sigset_t *old)
{
	sigset_t s;
	sigemptyset(&s);
	for (size_t i = 0; i < KP_ARRAY_LEN(guarded); i++)
		sigaddset(&s, guarded[i]);
	sigprocmask(SIG_BLOCK, &s, old);
}

static void unblock(const sigset_t *old) { sigprocmask(SIG_SETMASK, old, NULL); }

void kp_guard_install(void)
{
	for (size_t i = 0; i < KP_ARRAY_LEN(guarded); i++) {
		struct sigaction old;
		if (sigaction(guarded[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_signal;
		sigemptyset(&sa.sa_mask);
		for (size_t k = 0; k < KP_ARRAY_LEN(guarded); k++)
			sigaddset(&sa.sa_mask, guarded[k]);
		sigaction(guarded[i], &sa, NULL);
	}
}

int kp_guard_add_path(const char *path, int is_dir)
{
	if (strlen(path) >= KP_GUARD_PATH)
		return -1;
	sigset_t old;
	block(&old);
	int rc = -1;
	if (npaths < KP_GUARD_NPATHS) {
		strcpy(paths[npaths], path);
		path_is_dir[npaths] = is_dir;
		npaths = npaths + 1;
		rc = 0;
	}
	unblock(&old);
	return rc;
}

void kp_guard_clear_paths(void)
{
	sigset_t old;
	block(&old);
	npaths = 0;
	unblock(&old);
}

pid_t kp_guard_fork(void)
{
	sigset_t old;
	block(&old);
	pid_t pid = fork();
	if (pid == 0) {
		/* the parent's paths and children are not this process's */
		for (int i = 0; i < KP_GUARD_NCHILD; i++)
			children[i] = 0;
		npaths = 0;
		write_armed = 0;
		note_len = 0;
	} else if (pid > 0) {
		for (int i = 0; i < KP_GUARD_NCHILD; i++)
			if (children[i] == 0) {
				children[i] = pid;
				break;
			}
	}
	unblock(&old);
	return pid;
}

void kp_guard_forget_child(pid_t pid)
{
	sigset_t old;
	block(&old);
	for (int i = 0; i < KP_GUARD_NCHILD; i++)
		if (children[i] == pid)
			children[i] = 0;
	unblock(&old);
}

void kp_guard_set_note(const char *s)
{
	sigset_t old;
	block(&old);
	size_t n = s ? strlen(s) : 0;
	if (n >= sizeof(note))
		n = sizeof(note) - 1;
	memcpy(note, s ? s : "", n);
	note_len = (sig_atomic_t)n;
	unblock(&old);
}

/* KPIPE_TEST_WRITE_DELAY_MS: a test hook, see the header comment. */
static void test_delay(void)
{
	const char *v = getenv("KPIPE_TEST_WRITE_DELAY_MS");
	long ms = v ? strtol(v, NULL, 10) : 0;
	if (ms <= 0)
		return;
	struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&t, &t) != 0 && errno == EINTR)
		;
}

static int write_all_fd(int fd, const char *data, size_t len)
{
	struct sigaction ign, old;
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGXFSZ, &ign, &old);
	int rc = 0;
	size_t off = 0;
	while (off < len) {
		ssize_t w = write(fd, data + off, len - off);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			rc = -errno;
			break;
		}
		off += (size_t)w;
	}
	sigaction(SIGXFSZ, &old, NULL);
	return rc;
}

/* Writes `data` to `path` through a temporary file; the new file gets the
 * mode, owner and group of `like` when given, else of the existing
 * destination, else 0666 less the umask. */
static int write_atomic(const char *path, const char *data, size_t len, const struct stat *like)
{
	/* write through a symbolic link: replace its target, keep the link */
	char *target = NULL;
	struct stat lst;
	if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode))
		target = realpath(path, NULL);
	const char *dest = target ? target : path;
	char *dup = kp_xstrdup(dest);
	kp_strbuf tmp = KP_STRBUF_INIT;
	kp_strbuf_addf(&tmp, "%s/.kpipe-tmp-XXXXXX", dirname(dup));
	free(dup);
	struct stat st;
	int have_st = 1;
	if (like)
		st = *like;
	else
		have_st = stat(dest, &st) == 0;
	mode_t mode;
	if (have_st)
		mode = st.st_mode & 07777;
	else {
		mode_t um = umask(0);
		umask(um);
		mode = 0666 & ~um;
	}
	int rc = 0;
	sigset_t old;
	block(&old);
	int fd = mkstemp(tmp.buf);
	if (fd < 0)
		rc = -errno;
	else if (tmp.len < sizeof(write_tmp)) {
		memcpy(write_tmp, tmp.buf, tmp.len + 1);
		write_armed = 1;
	}
	unblock(&old);
	if (fd < 0)
		goto cleanup;
	rc = write_all_fd(fd, data, len);
	if (rc == 0 && have_st && (st.st_uid != geteuid() || st.st_gid != getegid()) &&
	    fchown(fd, st.st_uid, st.st_gid) != 0) {
		/* not allowed to give the file away: keep at least the group */
		if (fchown(fd, (uid_t)-1, st.st_gid) != 0)
			mode &= ~(mode_t)(S_ISUID | S_ISGID);
	}
	if (rc == 0 && fchmod(fd, mode) != 0)
		rc = -errno;
	if (rc == 0 && fsync(fd) != 0 && errno != EINVAL)
		rc = -errno;
	if (close(fd) != 0 && rc == 0)
		rc = -errno;
	if (rc == 0)
		test_delay();
	block(&old);
	if (rc == 0 && rename(tmp.buf, dest) != 0)
		rc = -errno;
	if (rc != 0)
		unlink(tmp.buf);
	write_armed = 0;
	unblock(&old);
cleanup:
	kp_strbuf_release(&tmp);
	free(target);
	return rc;
}

int kp_write_file_atomic(const char *path, const char *data, size_t len)
{
	return write_atomic(path, data, len, NULL);
}

int kp_write_file_atomic_like(const char *path, const char *data, size_t len, const char *like)
{
	struct stat st;
	if (stat(like, &st) != 0)
		return write_atomic(path, data, len, NULL);
	return write_atomic(path, data, len, &st);
}

int kp_make_parents(const char *path)
{
	char buf[4096];
	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	char *slash = strrchr(buf, '/');
	if (!slash || slash == buf)
		return 0;
	*slash = '\0';
	for (char *p = buf + 1;; p++) {
		int end = !*p;
		if (*p == '/' || end) {
			char keep = *p;
			*p = '\0';
			if (mkdir(buf, 0777) && errno != EEXIST)
				return -errno;
			*p = keep;
		}
		if (end)
			return 0;
	}
}
