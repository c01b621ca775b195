/*
 * scrub.h - messages that do not name kpipe's temporary directories.  A
 * tool kpipe runs on a copy of a text in a fresh directory (nvcc for the
 * ptxas probe, clang-format, g++ for verification) names that copy in its
 * errors; the directory's name is random (mkdtemp), so a message, or a
 * comment made from one, would differ from run to run.  Each is rewritten
 * before it is kept: the directory replaced by a fixed name.
 */
#ifndef KPIPE_SCRUB_H
#define KPIPE_SCRUB_H

#include <stddef.h>

/* Replaces every occurrence of `from` in the string buf (capacity cap,
 * NUL-terminated; truncated to fit) by `to`.  Nothing when from is NULL
 * or empty. */
void kp_scrub(char *buf, size_t cap, const char *from, const char *to);

/* The same on a malloc'd string; returns the new string (s is freed). */
char *kp_scrub_dup(char *s, const char *from, const char *to);

#endif
