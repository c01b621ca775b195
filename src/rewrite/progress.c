/*
 * progress.c - a batch rewrite's progress on stderr (progress.h): the
 * status line a terminal shows while files are rewritten, and the line
 * per finished file of -v.
 */
#define _POSIX_C_SOURCE 200809L
#include "progress.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void kp_progress_start(kp_progress *p, FILE *fp, int total, int verbose, int dry_run)
{
	const char *term = getenv("TERM");
	memset(p, 0, sizeof(*p));
	p->fp = fp;
	p->tty = isatty(fileno(fp)) && !(term && !strcmp(term, "dumb"));
	p->verbose = verbose;
	p->dry_run = dry_run;
	p->total = total;
}

void kp_progress_clear(kp_progress *p)
{
	if (!p->shown)
		return;
	fputs("\r\033[K", p->fp); /* back to column 0, erase the line */
	fflush(p->fp);
	p->shown = 0;
}

const char *kp_progress_outcome(const kp_rw_result *r, int dry_run)
{
	if (r->status == KP_EXIT_OK)
		return dry_run ? "would change" : "rewritten";
	if (r->status == KP_EXIT_NOTHING)
		return r->refused ? "refused" : "unchanged";
	return "failed";
}

void kp_progress_file(kp_progress *p, const kp_rw_result *r)
{
	kp_progress_clear(p);
	p->done++;
	p->failed += r->status != KP_EXIT_OK && r->status != KP_EXIT_NOTHING;
	if (p->verbose)
		fprintf(p->fp, "kpipe rewrite: [%d/%d] %s: %s (%d of %d loop%s pipelined)\n",
			p->done, p->total, r->path, kp_progress_outcome(r, p->dry_run),
			r->pipelined, r->loops, r->loops == 1 ? "" : "s");
	if (p->tty && p->done < p->total) {
		fprintf(p->fp, "kpipe rewrite: %d/%d files", p->done, p->total);
		if (p->failed)
			fprintf(p->fp, ", %d failed", p->failed);
		p->shown = 1;
	}
	fflush(p->fp);
}
