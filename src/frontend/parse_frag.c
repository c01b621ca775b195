/*
 * parse_frag.c - the sizes M, N, K of a dependent wmma fragment
 * (`fragment<matrix_a, WM, WN, WK, half, row_major>` in a template), which
 * clang's type does not evaluate: the declaration's template arguments as
 * clang gives them, each a template parameter of the function (its
 * position, for the analysis to take its value per instantiation) or a
 * constant.  A fragment that is not dependent has them from its type
 * (parse_decl.c, kp_parse_type_facts).
 */
#include "parse.h"
#include "parse_int.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
	int after;  /* the TemplateRef `fragment` was seen */
	int n;      /* arguments read */
	short v[3]; /* as kp_type.frag_dim */
} frag_args;

/* The position of template parameter p among its template's parameters
 * (the kinds kp_kernel.tparam_names counts), or -1. */
static int tparam_position(CXCursor p)
{
	CXCursor t = clang_getCursorSemanticParent(p);
	cursor_list l = {0};
	clang_visitChildren(t, kp_parse_collect, &l);
	int pos = -1;
	for (int i = 0, k = 0; i < l.n && pos < 0; i++) {
		enum CXCursorKind kk = clang_getCursorKind(l.v[i]);
		if (kk != CXCursor_NonTypeTemplateParameter && kk != CXCursor_TemplateTypeParameter)
			continue;
		if (clang_equalCursors(l.v[i], p))
			pos = k;
		k++;
	}
	free(l.v);
	return pos;
}

static enum CXChildVisitResult read_arg(CXCursor cur, CXCursor parent, CXClientData ud)
{
	(void)parent;
	frag_args *a = ud;
	enum CXCursorKind k = clang_getCursorKind(cur);
	if (!a->after) {
		if (k == CXCursor_TemplateRef) {
			CXString s = clang_getCursorSpelling(cur);
			a->after = !strcmp(clang_getCString(s), "fragment");
			clang_disposeString(s);
		}
		return a->after || clang_isReference(k) ? CXChildVisit_Continue
							: CXChildVisit_Break;
	}
	if (clang_isReference(k))
		return CXChildVisit_Continue; /* the use, a namespace */
	if (!clang_isExpression(k) || a->n >= 3)
		return CXChildVisit_Break;
	short v = 0;
	CXCursor r = clang_getCursorReferenced(cur);
	if (k == CXCursor_DeclRefExpr &&
	    clang_getCursorKind(r) == CXCursor_NonTypeTemplateParameter) {
		int pos = tparam_position(r);
		v = (short)(pos >= 0 && pos < 255 ? -1 - pos : 0);
	} else if (k == CXCursor_IntegerLiteral) {
		CXEvalResult e = clang_Cursor_Evaluate(cur);
		if (e && clang_EvalResult_getKind(e) == CXEval_Int) {
			long long x = clang_EvalResult_getAsLongLong(e);
			v = (short)(x > 0 && x < 256 ? x : 0);
		}
		if (e)
			clang_EvalResult_dispose(e);
	}
	a->v[a->n++] = v;
	return CXChildVisit_Continue;
}

void kp_parse_frag_dims(CXCursor cur, kp_type *ty)
{
	if (!ty->frag || (ty->frag_dim[0] && ty->frag_dim[1] && ty->frag_dim[2]))
		return;
	enum CXCursorKind k = clang_getCursorKind(cur);
	if (k != CXCursor_VarDecl && k != CXCursor_ParmDecl && k != CXCursor_FieldDecl)
		return;
	frag_args a = {0, 0, {0, 0, 0}};
	clang_visitChildren(cur, read_arg, &a);
	if (a.n != 3)
		return;
	for (int i = 0; i < 3; i++)
		if (!ty->frag_dim[i])
			ty->frag_dim[i] = a.v[i];
}
