/*
 * safe_write.h - what never loses code: the signal guard that removes a
 * temporary file when kpipe is interrupted (SIGINT, SIGTERM, SIGHUP,
 * SIGQUIT), and the child processes a batch forks under it.  The atomic
 * writes themselves are declared in util.h and implemented in
 * safe_write.c, beside the guard, because the guard has to know the
 * temporary file being written.
 *
 * Nothing here prints.  Every function may be called without
 * kp_guard_install(): the paths are then simply not removed on a signal.
 */
#ifndef KPIPE_SAFE_WRITE_H
#define KPIPE_SAFE_WRITE_H

#include <sys/types.h>

/* Installs the handler for SIGINT, SIGTERM, SIGHUP and SIGQUIT (a signal
 * ignored on entry, as under nohup, stays ignored).  The command layer
 * calls it once, before any work. */
void kp_guard_install(void);

/* Registers a file (is_dir 0) or an empty-by-then directory (is_dir 1) to
 * remove when a guarded signal arrives: files first, then directories.
 * Returns 0, or -1 when the path is too long or the table is full. */
int kp_guard_add_path(const char *path, int is_dir);
/* Forgets every path registered with kp_guard_add_path(). */
void kp_guard_clear_paths(void);

/* fork() for a batch's workers.  The parent registers the child, so that
 * an interrupted parent passes the signal on and waits for it (the child
 * removes its own temporary file); the child forgets the parent's paths
 * and children and keeps the handler.  No signal can fall between the
 * fork and the registration. */
pid_t kp_guard_fork(void);
/* The parent is about to reap this child: stop forwarding signals to it. */
void kp_guard_forget_child(pid_t pid);
/* What an interrupted run says on stderr after cleaning up: `kpipe:
 * interrupted by SIGNAME` and then `note` (": 3 of 8 files done; nothing
 * partial written\n"); NULL or "" says nothing.  Copied (truncated to
 * 256 bytes); a forked child starts without one. */
void kp_guard_set_note(const char *note);

#endif
