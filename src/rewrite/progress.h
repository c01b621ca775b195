/*
 * progress.h - the progress of a batch rewrite on stderr (batch.c): on a
 * terminal, one status line that updates in place ("kpipe rewrite: 12/40
 * files, 1 failed"); with -v, a line per file as it finishes.  The
 * summary at the end stays batch.c's.
 */
#ifndef KPIPE_PROGRESS_H
#define KPIPE_PROGRESS_H

#include "rw_result.h"

#include <stdio.h>

typedef struct {
	FILE *fp;
	int tty;     /* fp is a terminal: the status line is drawn */
	int verbose; /* -v: a line per finished file */
	int dry_run; /* --dry-run: "would change" rather than "rewritten" */
	int total, done, failed;
	int shown; /* the status line is on the screen */
} kp_progress;

/* Starts counting `total` files; the status line only when fp is a
 * terminal (and TERM is not "dumb"). */
void kp_progress_start(kp_progress *p, FILE *fp, int total, int verbose, int dry_run);
/* Before anything else is printed on fp: the status line goes. */
void kp_progress_clear(kp_progress *p);
/* One file finished: with -v its line (path and outcome); the status line
 * is drawn again. */
void kp_progress_file(kp_progress *p, const kp_rw_result *r);
/* The outcome of a result in a word or two: "rewritten" ("would change"
 * with dry_run), "unchanged", "refused" or "failed". */
const char *kp_progress_outcome(const kp_rw_result *r, int dry_run);

#endif
