/*
 * verify_unit.h - a rewrite of project headers verified through the file
 * that includes them (docs/verify.md, "Headers"): the K-loop of a
 * __device__ function of a header runs in the kernels of the .cu that
 * call it.  Both versions of the translation unit are written as one text
 * each (the .cu with the project headers it includes pasted in place,
 * with #line directives; the original headers in one, the rewritten ones
 * in the other), and the .cu's calling kernels are verified on them as a
 * file's own kernels are (verify_file.h).
 */
#ifndef KPIPE_VERIFY_UNIT_H
#define KPIPE_VERIFY_UNIT_H

#include "rw_opts.h"
#include "verify_file.h"

/* The main file's text `text` (of f->path, parsed with args) with every
 * project header it includes, directly or not, pasted in place (a name
 * found beside the including file or in a -I/-iquote folder; each header
 * once, `#pragma once` left out); the header whose real path is
 * repl_abs[i] as repl[i] (replen[i] bytes).  Caller frees; *len its
 * length. */
char *kp_unit_text(const char *path, const char *text, size_t tlen, const char *const *args,
		   int nargs, const char *const *repl_abs, const char *const *repl,
		   const size_t *replen, int nrepl, size_t *len);

/* Verifies the rewrites of f's project headers (htext[h], hlen[h]: the new
 * text of f->headers[h], NULL when unchanged) and of the main file (rew,
 * NULL when unchanged; `pipelined` the input offsets of its pipelined
 * loops, n of them) through the main file's kernels: those that hold a
 * pipelined loop and those that call a header's __device__ K-loop
 * function.  A header with a __global__ kernel of its own is not
 * verified (unavailable).  Fills r. */
void kp_verify_headers(const kp_rw_opts *o, const kp_analyze_opts *ao, const char *path, kp_file *f,
		       const char *rew, size_t rewlen, char *const *htext, const size_t *hlen,
		       const char *const *args, int nargs, const long *pipelined, int n,
		       kp_verify_result *r);

#endif
