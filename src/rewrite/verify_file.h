/*
 * verify_file.h - the verification of one rewritten file (verify.h) as the
 * rewrite driver asks for it: with the launch description when there is
 * one (--spec, or NAME.launch.json beside the file), else with kpipe's own
 * launches (own_launch.h) of each kernel holding a pipelined loop, the
 * first failure of any kernel being the file's.
 */
#ifndef KPIPE_VERIFY_FILE_H
#define KPIPE_VERIFY_FILE_H

#include "analyze.h"
#include "rw_opts.h"
#include "verify.h"

/* Verifies `rew` (len bytes) against f's text; `pipelined` holds the input
 * offsets of the pipelined loops (n of them); ao: the analysis's options
 * for the file (the block shape's sources).  Fills r (release it). */
void kp_verify_file(const kp_rw_opts *o, const kp_analyze_opts *ao, const char *path, kp_file *f,
		    const char *rew, size_t len, const long *pipelined, int n, kp_verify_result *r);

/* The same with the original's text given (orig, olen: f's translation
 * unit as one text, verify_unit.h); the kernels and offsets are f's. */
void kp_verify_texts(const kp_rw_opts *o, const kp_analyze_opts *ao, const char *path, kp_file *f,
		     const char *orig, size_t olen, const char *rew, size_t len,
		     const long *pipelined, int n, kp_verify_result *r);

#endif
