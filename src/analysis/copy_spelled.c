/*
 * copy_spelled.c - copies through macros: a copy is rewritten through
 * the text of its parts, which must be spelled in the source (the
 * assignment's '=', a guard's '?', ':' or parentheses); otherwise the copy
 * is refused with kpipe-macro-array.
 */
#include "analyze.h"
#include "analyze_int.h"

#include <string.h>

/* A copy is rewritten through the text of its parts: the transforms
 * replace its statement, the store target and the loaded value by their
 * source ranges (cp.async: `&lhs`, `&rhs`; register staging: the target
 * by a register, then `lhs = register`), and the guard's condition.  A
 * part written outside any macro has its own range.  One that comes from
 * a macro expansion has the range of the whole invocation (FLOAT4(p) in
 * FLOAT4(s_a[r][c]) = FLOAT4(a[i]), whose text is the part), or of less
 * or more than the part (a macro argument: the invocation's first
 * character; a part of a macro body: the invocation around it).  Such a
 * part is taken only where the tokens on either side of it are spelled
 * in the source: the assignment's `=`, the ternary's `?` and `:`, the
 * if's parentheses; everything between them is then the part. */

/* Skips blanks and comments from p, up to e. */
static unsigned skip_blank(const kp_file *f, unsigned p, unsigned e)
{
	while (p < e) {
		char ch = f->src[p];
		if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f' || ch == '\v')
			p++;
		else if (ch == '/' && p + 1 < e && f->src[p + 1] == '/') {
			while (p < e && f->src[p] != '\n')
				p++;
		} else if (ch == '/' && p + 1 < e && f->src[p + 1] == '*') {
			unsigned q = p + 2;
			while (q + 1 < e && !(f->src[q] == '*' && f->src[q + 1] == '/'))
				q++;
			if (q + 1 >= e)
				return p; /* an unterminated comment is no blank */
			p = q + 2;
		} else
			break;
	}
	return p;
}

/* Whether [a, b) holds exactly the tokens `toks` (n of them), with blanks
 * and comments around them: an operator spelled in the source. */
static int only_tokens(const kp_file *f, unsigned a, unsigned b, const char *const *toks, int n)
{
	if (a > b || b > f->len)
		return 0;
	unsigned p = skip_blank(f, a, b);
	for (int i = 0; i < n; i++) {
		size_t tl = strlen(toks[i]);
		if (p + tl > b || strncmp(f->src + p, toks[i], tl))
			return 0;
		if (kp_is_ident_char(toks[i][0]) && p + tl < b && kp_is_ident_char(f->src[p + tl]))
			return 0; /* "if" is not the start of "iffy" */
		p = skip_blank(f, (unsigned)(p + tl), b);
	}
	return p == b;
}

static int has_range(const kp_node *n) { return n && n->in_main && n->begin < n->end; }

/* An assignment whose both sides are delimited by its `=` in the source. */
int kp_spelled_assign(const kp_file *f, const kp_node *as)
{
	if (!as || as->nkids != 2 || !has_range(as))
		return 0;
	const kp_node *l = as->kids[0], *r = as->kids[1];
	if (!has_range(l) || !has_range(r))
		return 0;
	if (!l->from_macro && !r->from_macro)
		return 1;
	static const char *const eq[] = {"="};
	return l->begin == as->begin && r->end == as->end &&
	       only_tokens(f, l->end, r->begin, eq, 1);
}

/* The guard and both values of `c ? x : v`, the right side of a spelled
 * assignment `as`, delimited by its `?` and `:`. */
static int spelled_ternary(const kp_file *f, const kp_node *as, const kp_node *t)
{
	if (t->nkids != 3 || !has_range(t))
		return 0;
	int macro = t->from_macro;
	for (int i = 0; i < 3; i++) {
		if (!has_range(t->kids[i]))
			return 0;
		macro |= t->kids[i]->from_macro;
	}
	if (!macro)
		return 1;
	static const char *const q[] = {"?"}, *const colon[] = {":"};
	/* a ternary from a macro body is all of the right side, or nothing */
	if (t->from_macro && (t->begin != as->kids[1]->begin || t->end != as->kids[1]->end))
		return 0;
	return t->kids[0]->begin == t->begin && t->kids[2]->end == t->end &&
	       only_tokens(f, t->kids[0]->end, t->kids[1]->begin, q, 1) &&
	       only_tokens(f, t->kids[1]->end, t->kids[2]->begin, colon, 1);
}

/* The condition of `if (c) ... else ...`, delimited by its parentheses. */
static int spelled_if(const kp_file *f, const kp_node *stmt)
{
	const kp_node *cond = stmt->nkids ? stmt->kids[0] : NULL;
	if (!has_range(stmt) || stmt->from_macro || !has_range(cond))
		return 0;
	if (!cond->from_macro)
		return 1;
	static const char *const open[] = {"if", "("}, *const close[] = {")"};
	unsigned e = stmt->nkids > 1 && has_range(stmt->kids[1]) ? stmt->kids[1]->begin : stmt->end;
	unsigned p = skip_blank(f, cond->end, e);
	return only_tokens(f, stmt->begin, cond->begin, open, 2) && p < e && f->src[p] == ')' &&
	       only_tokens(f, cond->end, p + 1, close, 1);
}

/* Every part of the copy the transforms rewrite is spelled in the source
 * (see above); otherwise the copy is refused with kpipe-macro-array. */
void kp_check_copy_spelled(actx *c, const kp_load *ld, kp_node *as, kp_node *rhs)
{
	int ok = kp_spelled_assign(c->f, as);
	if (ok && ld->guard == KP_G_TERNARY)
		ok = spelled_ternary(c->f, as, rhs);
	if (ok && ld->guard == KP_G_IFELSE)
		ok = spelled_if(c->f, ld->stmt) && kp_spelled_assign(c->f, ld->zero_stmt);
	if (!ok)
		kp_ana_refuse(
			c, ld->stmt, "kpipe-macro-array",
			"the copy into '%s' is written inside a macro body: kpipe rewrites a copy "
			"through its two sides, which need the '=' (and a guard's '?', ':' or "
			"parentheses) spelled in the source; a macro around each side, as "
			"FLOAT4(t[i]) = FLOAT4(p[j]), is fine",
			ld->tile->name);
}
