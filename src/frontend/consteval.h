/*
 * consteval.h - integer constant expressions written in the source text
 * where libclang exposes no expression to evaluate: the first argument of
 * __launch_bounds__ (libclang gives the attribute no children).  The
 * names in it are resolved as the compiler would see them, as far as
 * kpipe can tell: -D arguments, object-like #defines of the file, and
 * const / constexpr integer variables or enumerators at namespace scope
 * (through libclang).  Used by parse_kernel.c only.
 */
#ifndef KPIPE_CONSTEVAL_H
#define KPIPE_CONSTEVAL_H

#include <clang-c/Index.h>

#include "model.h"

/* Where names are looked up: the translation unit (may be NULL: no
 * variables), the file whose #defines count (its text, f->src), the
 * compiler arguments (-DNAME=V, -D NAME=V), and names that have no value
 * (a template kernel's parameters: an expression naming one is not a
 * constant). */
typedef struct {
	CXTranslationUnit tu;
	const kp_file *f;
	const char *const *argv;
	int nargv;
	const char *const *unknown;
	int nunknown;
} kp_ceval_env;

/* The value of the expression text [p, e): integers, names (see above),
 * parentheses, unary + - ~ !, and * / % + - << >> & ^ |.  0 with *out set,
 * -1 when any part is not known (or divides by zero, or nests too deep). */
int kp_ceval_text(const kp_ceval_env *env, const char *p, const char *e, long long *out);

/* __launch_bounds__(N, ...) in f->src[b, e) (a kernel's declaration text
 * before its body): N's value, 0 when there is none or it is not known.
 * *nargs: its number of arguments (0 none, -1 not readable: no closing
 * parenthesis), *close: the offset of its ')'. */
int kp_ceval_launch_bounds(const kp_ceval_env *env, unsigned b, unsigned e, int *nargs,
			   unsigned *close);

#endif
