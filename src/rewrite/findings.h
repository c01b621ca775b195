/*
 * findings.h - what `kpipe analyze` finds, as the rewrite's diagnostics
 * (kp_rw_diag): the refusals of a loop, the bank conflicts and uncoalesced
 * accesses of a kernel (banks.h) and a file's compiler errors, each at its
 * position and marked suppressed when a "// kpipe: ignore" comment covers
 * it.  The rewrite's pipeline pass, `analyze --format sarif` (sarif.h) and
 * the language server's diagnostics are made from them.
 * No printing; the strings are copied into the result.
 */
#ifndef KPIPE_FINDINGS_H
#define KPIPE_FINDINGS_H

#include "analyze.h"
#include "rw_result.h"

/* A diagnostic at (line, col) of f (0, 0: none), its byte offset
 * computed; suppressed when a "// kpipe: ignore" comment on its line, on
 * loop_begin's (an offset in f->src, 0: none) or on the line before
 * either names its id or no id.  `file` NULL: f->path.  Returns its
 * index in r. */
int kp_rw_diag_at(kp_rw_result *r, const kp_file *f, const char *file, int line, int col,
		  const char *level, const char *id, const char *msg, unsigned loop_begin);

/* The level of a refusal: "warning", or "remark" for auto's prediction
 * that pipelining would not pay (kpipe-no-predicted-gain: advice, not a
 * problem in the code). */
const char *kp_rw_refusal_level(const char *id);

/* The level of a refusal `id` of loop l: "remark" for a loop that is no
 * K-loop (l->not_kloop: no top-level barrier or no copy into shared
 * memory; l->encloses_line: a loop around K-loops) or one already
 * pipelined (by hand or by kpipe), else the id's level. */
const char *kp_rw_loop_level(const kp_loop *l, const char *id);

/* The reasons of a loop that is not eligible (l->reasons): a warning
 * each, a remark for a loop kpipe leaves alone on purpose (its own output,
 * a loop around K-loops); counted in r->by_reason.  Returns how many. */
int kp_rw_loop_refusals(kp_rw_result *r, const kp_file *f, const kp_loop *l);

/* The kpipe-bank-conflict and kpipe-uncoalesced findings of kernel k for
 * the block shape the options give (kp_bk_block_of): a warning each at its
 * access.  Returns how many (suppressed ones included). */
int kp_rw_memory_findings(kp_rw_result *r, kp_file *f, const kp_kernel *k,
			  const kp_analyze_opts *ao);

/* The compiler's errors of f, a file that does not compile, then the
 * error `tail` without a position (NULL: none). */
void kp_rw_parse_errors(kp_rw_result *r, const kp_file *f, const char *path, const char *tail);

#endif
