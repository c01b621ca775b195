/*
 * recover.h - what the front end does so that clang parses what nvcc
 * parses (recover.c): length-neutral rewrites of the text clang is given
 * (brace-initialised launch dimensions, PTX special registers in inline
 * assembly), the top-level host declaration around a parse error (which
 * parse.c blanks and parses again without), and the toolkit's version
 * (__CUDACC_VER_MAJOR__ and friends).  Text only: host_skip.c reads
 * clang's errors and blanks with kp_host_decl_at and kp_blank_range.
 */
#ifndef KPIPE_RECOVER_H
#define KPIPE_RECOVER_H

#include <stddef.h>

/* A copy of src (malloc'd, NUL-ended, the same length and the same line
 * breaks) in which each `<<<...>>>` argument written as a braced list
 * (`{16, 16}`) reads as a parenthesised one, and each `%name` of an asm
 * string (a PTX special register, `%laneid`, which clang takes for an
 * operand with a modifier) as ` name`; NULL when nothing changed.  Every
 * byte keeps its offset, so clang's locations are the file's. */
char *kp_recover_text(const char *src, size_t len);

/* The top-level declaration of src around offset `off` (a namespace's
 * members are top level): its extent [*b, *e) and, for a function
 * definition, its name into name[namesz] (else "").  Returns 1 when it
 * is one kpipe may leave out of the parse: no __global__, __device__,
 * __shared__, __constant__ or __managed__ in it, and not a namespace;
 * else 0. */
int kp_host_decl_at(const char *src, size_t len, size_t off, size_t *b, size_t *e, char *name,
		    size_t namesz);

/* Blanks [b, e) of text in place: every byte but line breaks and the
 * lines of preprocessor directives becomes a space. */
void kp_blank_range(char *text, size_t len, size_t b, size_t e);

/* The version of the CUDA toolkit at `root` (version.json's cuda_nvcc,
 * else cuda.h's CUDA_VERSION): 0 and *maj, *min, *build filled, or -1. */
int kp_toolkit_version(const char *root, int *maj, int *min, int *build);

#endif
