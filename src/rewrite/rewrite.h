/*
 * rewrite.h - the rewrite driver: one file (its text, its flags) in, its
 * rewritten text and a kp_rw_result out, with a result per project header
 * whose kernels it rewrote.  It runs a list of passes (pass.h; by default
 * the pipelining pass alone) over the file and its headers.  Its options
 * are its own (kp_rw_opts): the command layer fills them from the command
 * line, tune from its candidates, a batch per file.
 */
#ifndef KPIPE_REWRITE_H
#define KPIPE_REWRITE_H

#include "analyze.h"
#include "parse.h"
#include "rw_opts.h"
#include "rw_result.h"

/* What kp_rewrite_buffer() rewrites: one file's text with the flags of its
 * batch (a compilation database's, a precompiled header), and where the
 * project headers whose kernels it rewrites too may lie. */
typedef struct {
	const char *path;     /* as printed and parsed */
	const char *contents; /* its text */
	size_t len;
	const char *const *extra_args; /* flags before the user's (the database's) */
	int nextra;
	int no_compdb;           /* do not look for compile_commands.json */
	const char *pch;         /* a precompiled header of the CUDA headers, or NULL */
	int headers;             /* rewrite kernels in project headers too (r->headers) */
	const char *header_root; /* without --header-filter: headers under this real
				    directory; NULL for the input's own */
	int in_batch;            /* one file of a directory or database run: a --kernel that
				    names none of its kernels is not worth a warning */
} kp_rw_input;

/* Rewrites one buffer with o's passes.  Fills r (diagnostics, counts,
 * fixes, and a result per project header with kernels) and *out (NULL when
 * nothing changed in the file itself).  Returns the file's exit code:
 * KP_EXIT_OK when a pass changed it or one of its headers (with the
 * default passes: a loop was pipelined). */
int kp_rewrite_buffer(const kp_rw_opts *o, const kp_rw_input *in, kp_rw_result *r, char **out,
		      size_t *outlen);

/* The parser's options for o (contents, headers and the database's flags
 * are the caller's to add). */
void kp_rw_parse_opts(const kp_rw_opts *o, kp_parse_opts *po);
/* The analysis options for `file`: o's, with the threads per block of
 * its launch description (o->spec, or FILE.launch.json beside it); the
 * kernel name it names goes to *spec_kernel (caller frees). */
void kp_rw_analyze_opts(const kp_rw_opts *o, const char *file, kp_analyze_opts *ao,
			char **spec_kernel);
/* The template arguments ("<16, 8>", the first of a list) the launch
 * description of `file` gives kernel `kernel`, or NULL (caller frees). */
char *kp_rw_spec_targs(const kp_rw_opts *o, const char *file, const char *kernel);

#endif
