/*
 * inline_call.h - one load-helper call replaced by the helper's body, for
 * the inline pass (pass_inline.c): the arguments bound to the parameters,
 * the checks that the body means at the call what it means in the helper
 * (the helper may be defined in a project header: kp_kernel.home), and
 * the text; and, after a trial parse of the result, the check that every
 * name of the copy still means the declaration it meant in the helper.
 * The token helpers are shared with pass_inline.c's macro expansion.
 *
 * Ownership: texts and messages are in the call's model's arena; the edit
 * is appended to the caller's list.
 */
#ifndef KPIPE_INLINE_CALL_H
#define KPIPE_INLINE_CALL_H

#include "edit.h"
#include "model.h"

#include <stddef.h>

static inline int kp_inl_ident_start(char ch)
{
	return ch == '_' || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}
static inline int kp_inl_ident_char(char ch)
{
	return kp_inl_ident_start(ch) || (ch >= '0' && ch <= '9');
}
/* The offset after a comment or a string/character literal at s[i], or i
 * when there is none there. */
size_t kp_inl_skip_opaque(const char *s, size_t i, size_t n);
/* Whether `name` is an identifier token of s[0, n). */
int kp_inl_names(const char *s, size_t n, const char *name);
/* text[0, n) with each run of white space made one space, arena-owned. */
const char *kp_inl_one_line(kp_file *f, const char *text, size_t n);
/* A call's callee as written, on one line, without the spaces inside its
 * brackets (`load< T, 4 >` -> `load<T, 4>`): how remarks name a helper. */
const char *kp_inl_callee_name(kp_file *f, const kp_node *callee);

/* Where one inlined call went: what the trial parse is checked against. */
typedef struct {
	int edit;            /* index of its edit in the list */
	const kp_kernel *h;  /* the helper */
	const kp_node *call; /* the call, in the caller's model */
	/* expression helpers (`return E;`) expanded in its arguments */
	const kp_kernel *ex[4];
	int nex;
} kp_inline_site;

/* Appends to ed the edit that replaces `call` (a statement of its own in
 * kernel k of model f, whose callee has a definition: kp_decl.fn) by the
 * helper's body, and fills *site; or leaves ed and sets *why. */
void kp_inline_call(kp_file *f, const kp_kernel *k, const kp_node *call, kp_edits *ed,
		    int no_comment, kp_inline_site *site, const char **why);

/* Whether `call` calls a function kpipe can expand at the call: one whose
 * body is `{ return E; }` (kp_decl.fn), a value accessor such as
 * `at(A, lda, r, c)` returning `A[r * lda + c]`. */
int kp_inline_value_fn(const kp_node *call);

/* Appends to ed the edit that replaces `call`, a call of such a function
 * in kernel k of model f (an accessor in a copy of the load phase), by
 * `(E)` with E's parameters replaced by the call's arguments, and fills
 * *site; or leaves ed and sets *why. */
void kp_inline_value_call(kp_file *f, const kp_kernel *k, const kp_node *call, kp_edits *ed,
			  kp_inline_site *site, const char **why);

/* NULL when, in the trial parse g of f's text with ed applied (gk: the
 * calling kernel there), every name of the inlined copies (sites) means
 * the declaration it means in the helper (or at the call, for the names of
 * the arguments); else why not. */
const char *kp_inline_same_names(kp_file *f, const kp_inline_site *sites, int nsites,
				 const kp_edits *ed, kp_file *g, const kp_kernel *gk);

#endif
