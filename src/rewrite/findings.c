/*
 * findings.c - the analysis's findings as diagnostics of a result
 * (findings.h): loop refusals, bank conflicts and uncoalesced accesses,
 * compiler errors, with their "// kpipe: ignore" suppressions.
 */
#include "findings.h"

#include "banks.h"
#include "diag_ids.h"

#include <string.h>

int kp_rw_diag_at(kp_rw_result *r, const kp_file *f, const char *file, int line, int col,
		  const char *level, const char *id, const char *msg, unsigned loop_begin)
{
	long off = line > 0 ? kp_file_offset(f, line, col) : -1;
	int i = kp_rw_diag_add(r, file ? file : f->path, line, col, off, level, id, msg);
	r->diags[i].suppressed = id &&
				 ((off >= 0 && kp_rw_ignored(f->src, f->len, (size_t)off, id)) ||
				  (loop_begin && kp_rw_ignored(f->src, f->len, loop_begin, id)));
	return i;
}

const char *kp_rw_refusal_level(const char *id) { return kp_diag_level(id); }

const char *kp_rw_loop_level(const kp_loop *l, const char *id)
{
	if (l->encloses_line || l->already_pipelined || l->not_kloop)
		return "remark";
	return kp_diag_level(id);
}

int kp_rw_loop_refusals(kp_rw_result *r, const kp_file *f, const kp_loop *l)
{
	for (int k = 0; k < l->nreasons; k++) {
		const kp_reason *x = &l->reasons[k];
		/* nothing is wrong with a loop kpipe leaves alone on purpose:
		 * its own output (a remark in the registry), a loop pipelined
		 * by hand, a loop around K-loops, a loop that is no K-loop at
		 * all (a copy loop, a reduction): warnings are for K-loops */
		const char *level = kp_rw_loop_level(l, x->id);
		kp_rw_diag_at(r, f, NULL, x->line, x->col, level, x->id, x->message,
			      l->node->begin);
		kp_counts_add(&r->by_reason, x->id, 1);
	}
	return l->nreasons;
}

int kp_rw_memory_findings(kp_rw_result *r, kp_file *f, const kp_kernel *k,
			  const kp_analyze_opts *ao)
{
	kp_bk_block b;
	kp_bk_block_of(f, k, ao, &b);
	kp_bk_result res;
	kp_bk_analyze(f, k, &b, NULL, 0, &res);
	int n = 0;
	for (int i = 0; i < res.n; i++) {
		const char *id = NULL, *msg = kp_bk_finding(f, &res.acc[i], &id);
		if (!msg)
			continue;
		kp_rw_diag_at(r, f, NULL, res.acc[i].line, res.acc[i].col, "warning", id, msg, 0);
		n++;
	}
	return n;
}

void kp_rw_parse_errors(kp_rw_result *r, const kp_file *f, const char *path, const char *tail)
{
	for (int i = 0; i < f->ndiags; i++) {
		const kp_parse_diag *d = &f->diags[i];
		if (strcmp(d->severity, "error"))
			continue;
		long off = d->file == f->path ? kp_file_offset(f, d->line, d->col) : -1;
		kp_rw_diag_add(r, d->file, d->line, d->col, off, d->severity, NULL, d->message);
	}
	if (tail)
		kp_rw_diag_add(r, path, 0, 0, -1, "error", NULL, tail);
}
