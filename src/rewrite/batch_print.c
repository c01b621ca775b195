/*
 * batch_print.c - a batch's lines about one file (batch_print.h): its
 * diagnostics less the remarks unless -v, and a one-line summary.
 */
#include "batch_print.h"

#include <stdlib.h>
#include <string.h>

static int is_remark(const kp_rw_diag *d) { return !strcmp(d->level, "remark"); }

int kp_batch_hidden_remarks(const kp_rw_result *r)
{
	int n = 0;
	for (int i = 0; i < r->ndiags; i++)
		n += is_remark(&r->diags[i]) && !r->diags[i].suppressed;
	return n;
}

static int count_level(const kp_rw_result *r, const char *level)
{
	int n = 0;
	for (int i = 0; i < r->ndiags; i++)
		n += !strcmp(r->diags[i].level, level) && !r->diags[i].suppressed;
	return n;
}

void kp_batch_print_file(const kp_rw_result *r, int verbose, int line, FILE *fp)
{
	if (verbose)
		kp_rw_print_diags(r, verbose, fp);
	else {
		kp_rw_result q = *r; /* shallow: the same diagnostics, less the remarks */
		q.diags = malloc(sizeof(*q.diags) * (size_t)(r->ndiags ? r->ndiags : 1));
		q.ndiags = 0;
		for (int i = 0; i < r->ndiags; i++)
			if (!is_remark(&r->diags[i]))
				q.diags[q.ndiags++] = r->diags[i];
		kp_rw_print_diags(&q, 0, fp);
		free(q.diags);
	}
	if (!line)
		return;
	if (r->status == KP_EXIT_INPUT) {
		fprintf(fp, "%s: failed\n", r->path);
		return;
	}
	int refused = r->refused - r->left_alone, warnings = count_level(r, "warning");
	int remarks = kp_batch_hidden_remarks(r);
	if (!r->loops)
		fprintf(fp, "%s: no K-loop", r->path);
	else
		fprintf(fp, "%s: %d of %d loop%s pipelined", r->path, r->pipelined, r->loops,
			r->loops == 1 ? "" : "s");
	if (refused > 0)
		fprintf(fp, "; %d K-loop%s refused", refused, refused == 1 ? "" : "s");
	if (warnings)
		fprintf(fp, "; %d warning%s", warnings, warnings == 1 ? "" : "s");
	if (r->left_alone > 0)
		fprintf(fp, "; %d loop%s left alone (%s)", r->left_alone,
			r->left_alone == 1 ? "" : "s",
			r->left_alone == 1 ? "not a K-loop, or pipelined already"
					   : "not K-loops, or pipelined already");
	if (remarks && !verbose)
		fprintf(fp, "; %d remark%s (-v shows %s)", remarks, remarks == 1 ? "" : "s",
			remarks == 1 ? "it" : "them");
	fputc('\n', fp);
}
