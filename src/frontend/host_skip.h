/*
 * host_skip.h - top-level host declarations of the main file that clang
 * cannot parse, left out of the parse (host_skip.c; parse.c parses again
 * without them and notes each).
 */
#ifndef KPIPE_HOST_SKIP_H
#define KPIPE_HOST_SKIP_H

#include <clang-c/Index.h>
#include <stddef.h>

/* A top-level host declaration left out of the parse: where it began (1
 * based), its name ("" when not a function), clang's first error in it. */
typedef struct {
	int line, col;
	char name[128];
	size_t b, e; /* its extent in the file */
	int err_line;
	char *err; /* malloc'd */
} kp_skipped_decl;

/* The parse errors (not semantic ones, which parse.c tolerates outside
 * kernels) clang reports in the main file `main` of tu, whose text (what
 * clang parsed) is text[len]: each that lies in a top-level declaration
 * kp_host_decl_at allows and that holds no kernel or device function
 * clang saw, blanks that declaration in text and is appended to *v (*n
 * entries, realloc'd).  Returns how many declarations were blanked. */
/* Whether clang marks declaration `cur` as device code: a __global__,
 * __device__, __shared__ or __constant__ attribute among its children. */
int kp_cursor_is_device(CXCursor cur);

int kp_recover_host_errors(CXTranslationUnit tu, CXFile main, char *text, size_t len,
			   kp_skipped_decl **v, int *n);

/* A header whose text clang is given as recover.c writes it. */
typedef struct {
	char *path; /* as clang names it, malloc'd */
	char *text; /* kp_recover_text's copy, malloc'd */
	size_t len;
} kp_recovered_file;

#define KP_MAX_RECOVERED 16

/* The headers (not the main file, not system headers) in which clang
 * reports an error and whose text kp_recover_text changes (a `%laneid`
 * in an asm string, a braced launch dimension), not in *v yet: appended
 * to *v (*n entries, at most KP_MAX_RECOVERED).  Returns how many. */
int kp_recover_headers(CXTranslationUnit tu, CXFile main, kp_recovered_file **v, int *n);

#endif
