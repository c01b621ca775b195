/*
 * parse_convert.c - statements and expressions into the model: one
 * kp_node per cursor (kp_parse_convert), looking through libclang's
 * implicit wrappers, with its extent in the main file, type facts,
 * constant value, operator (from libclang's operator kinds, or its tokens
 * with an older libclang), a for-statement's slots, a declaration's
 * initialiser and bounds, and a depth limit (KP_MAX_NESTING).  What a call
 * is comes from parse_call.c.
 */
#define _GNU_SOURCE
#include "parse.h"
#include "parse_int.h"

#include <stdlib.h>
#include <string.h>

static kp_node_kind map_kind(enum CXCursorKind k)
{
	switch (k) {
	case CXCursor_CompoundStmt: return KP_N_COMPOUND;
	case CXCursor_DeclStmt: return KP_N_DECLSTMT;
	case CXCursor_VarDecl: return KP_N_VARDECL;
	case CXCursor_ForStmt: return KP_N_FOR;
	case CXCursor_WhileStmt: return KP_N_WHILE;
	case CXCursor_DoStmt: return KP_N_DO;
	case CXCursor_IfStmt: return KP_N_IF;
	case CXCursor_SwitchStmt: return KP_N_SWITCH;
	case CXCursor_ReturnStmt: return KP_N_RETURN;
	case CXCursor_BreakStmt: return KP_N_BREAK;
	case CXCursor_ContinueStmt: return KP_N_CONTINUE;
	case CXCursor_GotoStmt: return KP_N_GOTO;
	case CXCursor_NullStmt: return KP_N_NULLSTMT;
	case CXCursor_GCCAsmStmt: return KP_N_ASM;
	case CXCursor_CallExpr: return KP_N_CALL;
	case CXCursor_DeclRefExpr: return KP_N_DECLREF;
	case CXCursor_MemberRefExpr: return KP_N_MEMBER;
	case CXCursor_ArraySubscriptExpr: return KP_N_SUBSCRIPT;
	case CXCursor_BinaryOperator: return KP_N_BINOP;
	case CXCursor_CompoundAssignOperator: return KP_N_ASSIGNOP;
	case CXCursor_UnaryOperator: return KP_N_UNOP;
	case CXCursor_ConditionalOperator: return KP_N_CONDOP;
	case CXCursor_IntegerLiteral: return KP_N_INTLIT;
	case CXCursor_FloatingLiteral: return KP_N_FLOATLIT;
	case CXCursor_ParenExpr: return KP_N_PAREN;
	case CXCursor_CStyleCastExpr:
	case CXCursor_CXXStaticCastExpr:
	case CXCursor_CXXReinterpretCastExpr:
	case CXCursor_CXXConstCastExpr:
	case CXCursor_CXXFunctionalCastExpr: return KP_N_CAST;
	case CXCursor_UnaryExpr: return KP_N_SIZEOF;
	case CXCursor_LambdaExpr: return KP_N_LAMBDA;
	case CXCursor_InitListExpr: return KP_N_INITLIST;
	default: return KP_N_OTHER;
	}
}

/* A prefix operator of a macro expansion, read where it is spelled (in
 * the #define, or in the argument it came with): libclang places an
 * operator expression at its first token, which for a prefix operator is
 * the operator (the `&` of FLOAT4(p) = (reinterpret_cast<float4 *>(&(p))[0])).
 * NULL for anything else there: a postfix or binary operator, whose first
 * token is its operand's. */
static const char *prefix_op_spelled(pctx *c, CXCursor cur)
{
	static const char *const ops[] = {"&", "*", "+", "-", "~", "!", "++", "--"};
	CXFile file = NULL;
	unsigned off = 0;
	clang_getSpellingLocation(clang_getCursorLocation(cur), &file, NULL, NULL, &off);
	if (!file)
		return NULL;
	CXToken *tok = clang_getToken(c->tu, clang_getLocationForOffset(c->tu, file, off));
	if (!tok)
		return NULL;
	const char *res = NULL;
	if (clang_getTokenKind(*tok) == CXToken_Punctuation) {
		CXString s = clang_getTokenSpelling(c->tu, *tok);
		const char *sp = clang_getCString(s);
		for (size_t i = 0; sp && i < KP_ARRAY_LEN(ops) && !res; i++)
			if (!strcmp(sp, ops[i]))
				res = ops[i];
		clang_disposeString(s);
	}
	clang_disposeTokens(c->tu, tok, 1);
	return res;
}

/* Operator token of a unary/binary operator cursor. */
static const char *op_token(pctx *c, CXCursor cur, kp_node *n, int binary)
{
#if KPIPE_LIBCLANG_MAJOR >= 17
	/* Ask for the operator's kind: tokenizing the whole extent of every
	 * operator is quadratic in a long chain such as 1 + 1 + ... + 1 (a
	 * 20 000-term line took 24 s), and inside a macro expansion the
	 * extent's tokens are the macro's use, not the operator: the `&` of
	 * FLOAT4(p) = (reinterpret_cast<float4 *>(&(p))[0]) read as `<`. */
	if (binary) {
		enum CXBinaryOperatorKind bk = clang_getCursorBinaryOperatorKind(cur);
		if (bk != CXBinaryOperator_Invalid)
			return cx_dup(&c->f->arena, clang_getBinaryOperatorKindSpelling(bk));
	} else {
		enum CXUnaryOperatorKind uk = clang_getCursorUnaryOperatorKind(cur);
		if (uk != CXUnaryOperator_Invalid) {
			n->postfix = uk == CXUnaryOperator_PostInc || uk == CXUnaryOperator_PostDec;
			return cx_dup(&c->f->arena, clang_getUnaryOperatorKindSpelling(uk));
		}
	}
#endif
	if (n->from_macro && !binary) {
		/* the extent's tokens below are the macro's use; a binary or
		 * postfix operator from a macro keeps their answer, which can be
		 * wrong (libclang 16: docs/design.md, "Known limitations") */
		const char *sp = prefix_op_spelled(c, cur);
		if (sp)
			return sp;
	}
	CXSourceRange r = clang_getCursorExtent(cur);
	CXToken *toks = NULL;
	unsigned nt = 0;
	clang_tokenize(c->tu, r, &toks, &nt);
	const char *res = "?";
	unsigned after = binary && n->nkids > 0 ? n->kids[0]->end : 0;
	for (unsigned i = 0; i < nt; i++) {
		if (clang_getTokenKind(toks[i]) != CXToken_Punctuation)
			continue;
		unsigned off;
		CXFile file;
		clang_getExpansionLocation(clang_getTokenLocation(c->tu, toks[i]), &file, NULL,
					   NULL, &off);
		CXString s = clang_getTokenSpelling(c->tu, toks[i]);
		const char *sp = clang_getCString(s);
		int paren = !strcmp(sp, "(") || !strcmp(sp, ")") || !strcmp(sp, "[") ||
			    !strcmp(sp, "]");
		if (binary) {
			if (off >= after && !paren) {
				res = kp_arena_strdup(&c->f->arena, sp);
				clang_disposeString(s);
				break;
			}
		} else if (!paren) {
			if (off == n->begin) {
				res = kp_arena_strdup(&c->f->arena, sp);
				clang_disposeString(s);
				break;
			}
			res = kp_arena_strdup(&c->f->arena, sp);
			n->postfix = 1;
		}
		clang_disposeString(s);
	}
	clang_disposeTokens(c->tu, toks, nt);
	return res;
}

typedef struct {
	CXCursor cur;
	int n;
} only_child;

static enum CXChildVisitResult find_only_child(CXCursor cur, CXCursor parent, CXClientData d)
{
	(void)parent;
	only_child *o = d;
	if (!o->n++)
		o->cur = cur;
	return CXChildVisit_Continue;
}

/* The template type parameter a dependent `sizeof(T)` measures (its
 * spelling), NULL for anything else: alignof, sizeof...(Ts), sizeof(T *),
 * sizeof(T[4]), sizeof(x), a type that is not a template parameter.  The
 * tokens must be `sizeof ( [const|volatile]* NAME [const|volatile]* )`
 * and the only child a reference to a template type parameter spelled
 * NAME: a reference alone would also be there for sizeof(T *).  *owner:
 * where the template declaring it starts (kp_node.sizeof_owner), so that
 * a T of another template (a variable or class template's initialiser)
 * is not taken for the kernel's. */
static const char *sizeof_tparam(pctx *c, CXCursor cur, unsigned *owner)
{
	only_child o = {clang_getNullCursor(), 0};
	clang_visitChildren(cur, find_only_child, &o);
	if (o.n != 1 || clang_getCursorKind(o.cur) != CXCursor_TypeRef)
		return NULL;
	CXCursor tp = clang_getCursorReferenced(o.cur);
	if (clang_getCursorKind(tp) != CXCursor_TemplateTypeParameter)
		return NULL;
	CXToken *toks = NULL;
	unsigned nt = 0;
	clang_tokenize(c->tu, clang_getCursorExtent(cur), &toks, &nt);
	CXString name = clang_getCursorSpelling(tp);
	const char *want = clang_getCString(name);
	int ok = nt >= 4, names = 0;
	for (unsigned i = 0; i < nt && ok; i++) {
		CXString s = clang_getTokenSpelling(c->tu, toks[i]);
		const char *sp = clang_getCString(s);
		if (i == 0)
			ok = !strcmp(sp, "sizeof");
		else if (i == 1)
			ok = !strcmp(sp, "(");
		else if (i == nt - 1)
			ok = !strcmp(sp, ")");
		else if (strcmp(sp, "const") && strcmp(sp, "volatile"))
			ok = !strcmp(sp, want) && !names++;
		clang_disposeString(s);
	}
	const char *r = ok && names == 1 ? kp_arena_strdup(&c->f->arena, want) : NULL;
	long at = main_offset(
		c, clang_getRangeStart(clang_getCursorExtent(clang_getCursorSemanticParent(tp))));
	*owner = r && at >= 0 ? (unsigned)at + 1 : 0;
	clang_disposeString(name);
	clang_disposeTokens(c->tu, toks, nt);
	return r;
}

/* Offsets of the two ';' of a for-statement's header (at parenthesis
 * depth 1, before the body), from libclang's tokens: a ';' in a comment
 * or a string literal is not a punctuation token.  0 when found. */
static int for_semis(pctx *c, CXCursor cur, CXCursor body, unsigned semi[2])
{
	CXSourceRange r = clang_getRange(clang_getRangeStart(clang_getCursorExtent(cur)),
					 clang_getRangeStart(clang_getCursorExtent(body)));
	CXToken *toks = NULL;
	unsigned nt = 0;
	clang_tokenize(c->tu, r, &toks, &nt);
	int ns = 0, depth = 0;
	for (unsigned i = 0; i < nt && ns < 2; i++) {
		if (clang_getTokenKind(toks[i]) != CXToken_Punctuation)
			continue;
		CXString s = clang_getTokenSpelling(c->tu, toks[i]);
		const char *sp = clang_getCString(s);
		char ch = sp && sp[0] && !sp[1] ? sp[0] : 0;
		clang_disposeString(s);
		if (ch == '(' || ch == '[' || ch == '{')
			depth++;
		else if (ch == ')' || ch == ']' || ch == '}') {
			if (--depth <= 0)
				break; /* the header's closing parenthesis */
		} else if (ch == ';' && depth == 1) {
			long off = main_offset(c, clang_getTokenLocation(c->tu, toks[i]));
			if (off < 0)
				break;
			semi[ns++] = (unsigned)off;
		}
	}
	clang_disposeTokens(c->tu, toks, nt);
	return ns == 2 ? 0 : -1;
}

/* Fills a for-statement's slots (model.h): the body is the last child;
 * libclang leaves out the absent header parts, so each other child is
 * placed by its extent against the header's two ';'.  Where that cannot
 * be decided (the header comes from a macro), a header with all three
 * parts keeps them in order and any other is left without slots. */
static void for_slots(pctx *c, CXCursor cur, CXCursor body, kp_node *n)
{
	if (n->nkids == 0)
		return;
	n->for_body = n->kids[n->nkids - 1];
	unsigned semi[2];
	int ok = n->in_main && !n->from_macro && n->for_body->in_main &&
		 !for_semis(c, cur, body, semi);
	kp_node *part[3] = {NULL, NULL, NULL};
	for (int i = 0; ok && i + 1 < n->nkids; i++) {
		kp_node *k = n->kids[i];
		if (!k->in_main)
			ok = 0;
		else if (k->end <= semi[0] + 1) /* a declaration's extent takes its ';' */
			part[0] = k;
		else if (k->begin > semi[0] && k->end <= semi[1])
			part[1] = k;
		else if (k->begin > semi[1])
			part[2] = k;
		else
			ok = 0;
	}
	if (!ok) {
		part[0] = part[1] = part[2] = NULL;
		if (n->nkids >= 4) {
			part[0] = n->kids[0];
			part[1] = n->kids[n->nkids - 3];
			part[2] = n->kids[n->nkids - 2];
		}
	}
	n->for_init = part[0];
	n->for_cond = part[1];
	n->for_inc = part[2];
}

static void add_kid(kp_arena *a, kp_node *n, kp_node *k, int *cap)
{
	if (n->nkids == *cap) {
		int nc = *cap ? *cap * 2 : 4;
		kp_node **nk = kp_arena_alloc(a, sizeof(*nk) * (size_t)nc);
		if (n->nkids)
			memcpy(nk, n->kids, sizeof(*nk) * (size_t)n->nkids);
		n->kids = nk;
		*cap = nc;
	}
	n->kids[n->nkids++] = k;
}

/* A declaration's initialiser and its array bounds' expressions, from the
 * children of its node n (the declaration's cursor: cur).  A braced
 * initialiser of one expression, `T x{e}` or `T x = {e}`, of a variable
 * that is not an array or a class (a scalar, a pointer, or a type that
 * depends on a template parameter), has that expression as its
 * initialiser, as `T x = e` has: it initialises x with e's value. */
static void decl_init_and_bounds(kp_node *n, CXCursor cur)
{
	kp_node *last = n->kids[n->nkids - 1];
	/* the initialiser is the last child that starts after the name (a
	 * brace right after it: `x{e}`) */
	if (last->in_main && n->decl->in_main &&
	    (last->begin > n->decl->name_end ||
	     (last->kind == KP_N_INITLIST && last->begin == n->decl->name_end)))
		n->decl->init = last;
	else if (!n->decl->in_main || !last->in_main)
		n->decl->init = last;
	kp_node *in = n->decl->init;
	enum CXTypeKind tk = clang_getCanonicalType(clang_getCursorType(cur)).kind;
	if (in && in->kind == KP_N_INITLIST && in->nkids == 1 && !n->decl->is_array &&
	    tk != CXType_Record && tk != CXType_Elaborated && tk != CXType_ConstantArray &&
	    tk != CXType_IncompleteArray && tk != CXType_Invalid)
		n->decl->init = in->kids[0];
	int di = 0;
	for (int i = 0; i < n->nkids && di < n->decl->ndims; i++) {
		kp_node *k = n->kids[i];
		if (k->in_main && n->decl->in_main && k->begin > n->decl->name_off &&
		    k->end <= n->decl->name_end)
			n->decl->dim_expr[di++] = k;
	}
	if (n->decl->init && n->decl->init == (di ? n->decl->dim_expr[di - 1] : NULL))
		n->decl->init = NULL;
	/* clang visits an array's element type before its own bound
	 * (`[32][BK]` gives BK, then 32): the source order is the
	 * dimensions' */
	kp_node **de = n->decl->dim_expr;
	for (int a = 1; a < di; a++)
		for (int b = a; b > 0 && de[b]->begin < de[b - 1]->begin; b--) {
			kp_node *t = de[b];
			de[b] = de[b - 1];
			de[b - 1] = t;
		}
}

static kp_node *convert_node(pctx *c, CXCursor cur);

kp_node *kp_parse_convert(pctx *c, CXCursor cur)
{
	if (c->depth >= KP_MAX_NESTING) {
		if (!c->too_deep) {
			unsigned line = 0;
			clang_getExpansionLocation(clang_getCursorLocation(cur), NULL, &line, NULL,
						   NULL);
			c->too_deep = line ? (int)line : -1;
		}
		kp_node *n = kp_arena_alloc(&c->f->arena, sizeof(*n));
		n->kind = KP_N_OTHER;
		n->type_size = -1;
		return n;
	}
	c->depth++;
	kp_node *n = convert_node(c, cur);
	c->depth--;
	return n;
}

/* The function template an implicit instantiation (the callee of a call
 * that names its arguments or has them deduced, outside a template) was
 * made from, which is the definition kpipe reads; any other cursor as it
 * is (an explicit specialisation has a body of its own). */
static CXCursor template_of(CXCursor ref)
{
	if (clang_getCursorKind(ref) != CXCursor_FunctionDecl)
		return ref;
	CXCursor t = clang_getSpecializedCursorTemplate(ref);
	if (clang_Cursor_isNull(t) || clang_getCursorKind(t) != CXCursor_FunctionTemplate)
		return ref;
	CXFile f1, f2;
	unsigned o1, o2;
	clang_getSpellingLocation(clang_getCursorLocation(ref), &f1, NULL, NULL, &o1);
	clang_getSpellingLocation(clang_getCursorLocation(t), &f2, NULL, NULL, &o2);
	return f1 && f2 && clang_File_isEqual(f1, f2) && o1 == o2 ? t : ref;
}

/* Where a reference's name is written in the main file: kp_node.name_off
 * (editable there), and for a reference from a macro body written in the
 * file, where the body spells it (kp_node.macro_spell). */
static void declref_spelling(pctx *c, CXCursor cur, kp_node *n)
{
	kp_file *f = c->f;
	long so = file_offset(c, clang_getCursorLocation(cur));
	size_t nl = strlen(n->name);
	if (so >= 0 && (size_t)so + nl <= f->len && !strncmp(f->src + so, n->name, nl)) {
		n->name_off = (unsigned)so;
		n->name_editable = 1;
	}
	if (n->from_macro) {
		CXFile sf;
		unsigned sp;
		clang_getSpellingLocation(clang_getCursorLocation(cur), &sf, NULL, NULL, &sp);
		if (sf && clang_File_isEqual(sf, c->main) && sp + nl <= f->len &&
		    !strncmp(f->src + sp, n->name, nl) && sp != (unsigned)so)
			n->macro_spell = sp + 1;
	}
}

/* A call n of a member function of a class (ref): why kpipe does not
 * inline it, said once per function; a method is recorded with its
 * cursor (pctx.mcur), whose definition kp_parse_add_helpers looks up for
 * the accessors. */
static void member_call(pctx *c, kp_node *n, CXCursor ref)
{
	enum CXCursorKind k = clang_getCursorKind(ref);
	kp_decl *d = n->decl;
	if (n->kind != KP_N_CALL || !d || d->fn_why || !kp_parse_is_function_kind(k) ||
	    k == CXCursor_FunctionDecl || k == CXCursor_FunctionTemplate)
		return;
	d->fn_why = "it is a member of a class (kpipe inlines functions)";
	if (k != CXCursor_CXXMethod)
		return;
	if (c->nm == c->capm) {
		c->capm = c->capm ? c->capm * 2 : 8;
		c->mcur = kp_xrealloc(c->mcur, sizeof(CXCursor) * (size_t)c->capm);
		c->mdecl = kp_xrealloc(c->mdecl, sizeof(kp_decl *) * (size_t)c->capm);
	}
	c->mcur[c->nm] = ref;
	c->mdecl[c->nm++] = d;
}

static kp_node *convert_node(pctx *c, CXCursor cur)
{
	kp_file *f = c->f;
	enum CXCursorKind ck = clang_getCursorKind(cur);
	/* Look through the implicit wrappers libclang exposes. */
	if (ck == CXCursor_UnexposedExpr || ck == CXCursor_UnexposedStmt) {
		cursor_list l = {0};
		clang_visitChildren(cur, kp_parse_collect, &l);
		if (l.n == 1 && ck == CXCursor_UnexposedExpr) {
			kp_node *r = kp_parse_convert(c, l.v[0]);
			free(l.v);
			return r;
		}
		free(l.v);
	}
	kp_node *n = kp_arena_alloc(&f->arena, sizeof(*n));
	n->kind = map_kind(ck);
	n->type_size = -1;
	n->type_align = -1;
	CXSourceRange r = clang_getCursorExtent(cur);
	long b = main_offset(c, clang_getRangeStart(r));
	long e = main_offset(c, clang_getRangeEnd(r));
	n->in_main = b >= 0 && e >= b;
	if (n->in_main) {
		n->begin = (unsigned)b;
		n->end = (unsigned)e;
		kp_file_linecol(f, n->begin, &n->line, &n->col);
	}
	n->from_macro = is_from_macro(clang_getCursorLocation(cur)) ||
			is_from_macro(clang_getRangeStart(r));
	if (clang_isExpression(ck) || ck == CXCursor_VarDecl) {
		CXType t = clang_getCursorType(cur);
		n->type = cx_dup(&f->arena, clang_getTypeSpelling(t));
		n->ty = kp_parse_type_facts(t);
		n->type_size = kp_parse_safe_sizeof(c, t);
		n->type_align = kp_parse_safe_alignof(c, t);
	}
	switch (n->kind) {
	case KP_N_DECLREF:
	case KP_N_MEMBER:
	case KP_N_CALL: {
		n->name = cx_dup(&f->arena, clang_getCursorSpelling(cur));
		CXCursor ref = clang_getCursorReferenced(cur);
		if (!clang_Cursor_isNull(ref))
			n->decl = kp_parse_decl_for(c, ref);
		if (n->kind == KP_N_CALL && n->decl && !n->decl->tmpl &&
		    !clang_equalCursors(template_of(ref), ref))
			n->decl->tmpl = kp_parse_decl_for(c, template_of(ref));
		member_call(c, n, ref);
		if (n->kind == KP_N_CALL)
			n->sync = kp_parse_call_sync(n->name, ref);
		if (n->kind == KP_N_CALL && clang_Cursor_isNull(ref))
			n->decl = kp_parse_single_overload(c, cur);
		else if (n->kind == KP_N_CALL)
			n->arg_conv = kp_parse_call_arg_conv(c, cur, ref,
							     clang_Cursor_getNumArguments(cur));
		if (n->kind == KP_N_DECLREF)
			declref_spelling(c, cur, n);
		break;
	}
	case KP_N_VARDECL:
		n->name = cx_dup(&f->arena, clang_getCursorSpelling(cur));
		n->decl = kp_parse_decl_for(c, cur);
		break;
	case KP_N_ASM:
		/* as its tokens spell it: the PTX and the constraints also
		 * where a macro wrote the statement (its extent is the macro's
		 * call) */
		n->asm_text = kp_parse_asm_text(c, cur);
		break;
	case KP_N_INTLIT:
	case KP_N_FLOATLIT:
	case KP_N_SIZEOF: {
		CXEvalResult ev = clang_Cursor_Evaluate(cur);
		if (ev) {
			CXEvalResultKind k = clang_EvalResult_getKind(ev);
			if (k == CXEval_Int) {
				n->has_value = 1;
				n->ivalue = clang_EvalResult_getAsLongLong(ev);
				n->fvalue = (double)n->ivalue;
			} else if (k == CXEval_Float) {
				n->has_value = 1;
				n->fvalue = clang_EvalResult_getAsDouble(ev);
				n->ivalue = (long long)n->fvalue;
			}
			clang_EvalResult_dispose(ev);
		}
		if (n->kind == KP_N_SIZEOF && !n->has_value)
			n->sizeof_tparam = sizeof_tparam(c, cur, &n->sizeof_owner);
		break;
	}
	default: break;
	}
	if (n->kind == KP_N_LAMBDA)
		return n; /* a lambda's body is not part of the loop's statements */
	cursor_list l = {0};
	clang_visitChildren(cur, kp_parse_collect, &l);
	int cap = 0;
	for (int i = 0; i < l.n; i++) {
		enum CXCursorKind kk = clang_getCursorKind(l.v[i]);
		if (clang_isAttribute(kk) || kk == CXCursor_TypeRef || kk == CXCursor_TemplateRef ||
		    kk == CXCursor_NamespaceRef || kk == CXCursor_OverloadedDeclRef)
			continue;
		add_kid(&f->arena, n, kp_parse_convert(c, l.v[i]), &cap);
	}
	if (n->kind == KP_N_FOR && l.n > 0)
		for_slots(c, cur, l.v[l.n - 1], n);
	if (n->kind == KP_N_CALL && l.n >= 1 && clang_getCursorKind(l.v[0]) == CXCursor_TypeRef)
		n->type_construct = 1;
	if (n->kind == KP_N_CALL && n->nkids == 1 && l.n >= 1 && n->name && !*n->name) {
		CXType a = clang_getCanonicalType(clang_getCursorType(cur));
		CXType b = clang_getCanonicalType(clang_getCursorType(l.v[l.n - 1]));
		n->same_class_copy =
			a.kind == CXType_Record && b.kind == CXType_Record &&
			clang_equalTypes(clang_getUnqualifiedType(a), clang_getUnqualifiedType(b));
	}
	free(l.v);
	if (n->kind == KP_N_CALL && l.n)
		kp_parse_unresolved_call(c, cur, n);
	if (n->kind == KP_N_CALL && n->name && !*n->name)
		kp_parse_name_unresolved_operator(f, n);
	if (kp_parse_binary_operator_call(n)) {
		/* a class-type operator (float4, half2 ...; or in a template, an
		 * operator clang leaves unresolved because an overload is in
		 * scope): lhs, callee, rhs, or lhs, rhs when the callee is an
		 * overload set */
		if (n->nkids == 3) {
			n->kids[1] = n->kids[2];
			n->nkids = 2;
		}
		n->op = n->name + 8;
		n->opk = kp_op_of(n->op, 0, 0);
		n->kind = n->opk == KP_OP_ASSIGN || strlen(n->op) == 1 ? KP_N_BINOP : KP_N_ASSIGNOP;
		n->name = NULL;
		n->decl = NULL;
	} else if (n->kind == KP_N_BINOP || n->kind == KP_N_ASSIGNOP) {
		n->op = op_token(c, cur, n, 1);
		n->opk = kp_op_of(n->op, 0, 0);
	} else if (n->kind == KP_N_UNOP) {
		n->op = op_token(c, cur, n, 0);
		n->opk = kp_op_of(n->op, 1, n->postfix);
	}
	if (n->kind == KP_N_VARDECL && n->decl && n->nkids > 0)
		decl_init_and_bounds(n, cur);
	return n;
}
