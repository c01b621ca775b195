/*
 * parse_call.c - what a call is, for kp_parse_convert: the barrier it is
 * (__syncthreads, a cooperative-groups sync), the callee of a dependent
 * call in a template (one overload, the name it looks up, the facts of
 * the functions it finds), an unresolved operator's name, a call of an
 * operator function written as an operator, and how each argument
 * becomes its parameter (kp_node.arg_conv).
 */
#define _GNU_SOURCE
#include "parse.h"
#include "parse_int.h"

#include <stdlib.h>
#include <string.h>

/* Whether a declaration lies in namespace cooperative_groups (through
 * its inline namespace __v1, or nested deeper). */
static int in_cg_namespace(CXCursor d)
{
	for (int i = 0; i < 16 && !clang_Cursor_isNull(d); i++) {
		d = clang_getCursorSemanticParent(d);
		enum CXCursorKind k = clang_getCursorKind(d);
		if (k == CXCursor_TranslationUnit || clang_Cursor_isNull(d))
			return 0;
		if (k == CXCursor_Namespace) {
			CXString s = clang_getCursorSpelling(d);
			int hit = !strcmp(clang_getCString(s), "cooperative_groups");
			clang_disposeString(s);
			if (hit)
				return 1;
		}
	}
	return 0;
}

/* The barrier a sync() on a cooperative-groups class is: the block's for
 * thread_block, another (unmodelled) one for the grid, cluster and the
 * type-erased thread_group (which may be any group), part of the block
 * for everything else (tiles, their bases, coalesced groups). */
static kp_sync_kind cg_class_sync(CXCursor cls)
{
	if (clang_Cursor_isNull(cls) || !in_cg_namespace(cls))
		return KP_SYNC_OTHER;
	static const char *const other[] = {"grid_group", "multi_grid_group", "cluster_group",
					    "thread_group"};
	CXString s = clang_getCursorSpelling(cls);
	const char *name = clang_getCString(s);
	kp_sync_kind k = KP_SYNC_PART;
	if (!strcmp(name, "thread_block"))
		k = KP_SYNC_BLOCK;
	for (size_t i = 0; i < KP_ARRAY_LEN(other); i++)
		if (!strcmp(name, other[i]))
			k = KP_SYNC_OTHER;
	clang_disposeString(s);
	return k;
}

/* What a call to `name` (declared by `ref`, possibly null) synchronises. */
kp_sync_kind kp_parse_call_sync(const char *name, CXCursor ref)
{
	if (!name)
		return KP_SYNC_NONE;
	enum CXCursorKind rk = clang_Cursor_isNull(ref) ? CXCursor_NoDeclFound
							: clang_getCursorKind(ref);
	int cg = !clang_Cursor_isNull(ref) && in_cg_namespace(ref);
	if (cg && rk == CXCursor_CXXMethod) {
		if (!strcmp(name, "sync"))
			return cg_class_sync(clang_getCursorSemanticParent(ref));
		/* thread_block's barrier_arrive / barrier_wait: a split barrier */
		return !strncmp(name, "barrier_", 8) ? KP_SYNC_OTHER : KP_SYNC_NONE;
	}
	if (cg && !strcmp(name, "sync")) { /* cg::sync(group) */
		CXType t = clang_getArgType(clang_getCursorType(ref), 0);
		if (t.kind == CXType_LValueReference || t.kind == CXType_RValueReference)
			t = clang_getPointeeType(t);
		return cg_class_sync(clang_getTypeDeclaration(clang_getCanonicalType(t)));
	}
	if (cg)
		return KP_SYNC_NONE;
	if (!strcmp(name, "__syncthreads"))
		return KP_SYNC_BLOCK;
	if (!strcmp(name, "__syncthreads_count") || !strcmp(name, "__syncthreads_and") ||
	    !strcmp(name, "__syncthreads_or"))
		return KP_SYNC_BLOCK_VALUE;
	if (!strcmp(name, "__syncwarp"))
		return KP_SYNC_PART;
	if (!strncmp(name, "__syncthreads_", 14) || !strncmp(name, "__barrier_sync", 14) ||
	    !strcmp(name, "sync"))
		return KP_SYNC_OTHER;
	return KP_SYNC_NONE;
}

static enum CXChildVisitResult find_overload(CXCursor cur, CXCursor parent, CXClientData ud)
{
	(void)parent;
	if (clang_getCursorKind(cur) != CXCursor_OverloadedDeclRef)
		return CXChildVisit_Recurse;
	*(CXCursor *)ud = cur;
	return CXChildVisit_Break;
}

/* The callee of a dependent call in a template (`wt::load<BM>(...)`, whose
 * CallExpr names no declaration) when its name finds exactly one function
 * or function template; NULL otherwise. */
kp_decl *kp_parse_single_overload(pctx *c, CXCursor call)
{
	cursor_list l = {0};
	clang_visitChildren(call, kp_parse_collect, &l);
	CXCursor o = clang_getNullCursor();
	if (l.n)
		clang_visitChildren(l.v[0], find_overload, &o);
	free(l.v);
	if (clang_Cursor_isNull(o) || clang_getNumOverloadedDecls(o) != 1)
		return NULL;
	CXCursor d = clang_getOverloadedDecl(o, 0);
	enum CXCursorKind k = clang_getCursorKind(d);
	if (k != CXCursor_FunctionDecl && k != CXCursor_FunctionTemplate)
		return NULL;
	return kp_parse_decl_for(c, d);
}

/* Whether t depends on a template parameter as far as kpipe can tell: it,
 * or what it points, refers or decays to, is dependent or unexposed. */
static int type_dependent(CXType t)
{
	for (int i = 0; i < 32; i++) {
		CXType ct = clang_getCanonicalType(t);
		switch (ct.kind) {
		case CXType_Pointer:
		case CXType_LValueReference:
		case CXType_RValueReference: t = clang_getPointeeType(ct); break;
		case CXType_ConstantArray:
		case CXType_IncompleteArray: t = clang_getArrayElementType(ct); break;
		case CXType_Invalid:
		case CXType_Unexposed:
		case CXType_Dependent:
		case CXType_DependentSizedArray:
		case CXType_VariableArray: return 1;
		default: return 0;
		}
	}
	return 1;
}

/* A canonical arithmetic type (no enum, no pointer). */
static int type_arith(CXType ct)
{
	return (ct.kind >= CXType_Bool && ct.kind <= CXType_LongDouble) ||
	       ct.kind == CXType_Float128 || ct.kind == CXType_Half || ct.kind == CXType_Float16 ||
	       ct.kind == CXType_BFloat16;
}

static int same_unqual(CXType a, CXType b)
{
	return clang_equalTypes(clang_getUnqualifiedType(clang_getCanonicalType(a)),
				clang_getUnqualifiedType(clang_getCanonicalType(b)));
}

/* The qualifiers of p include those of a. */
static int as_qualified(CXType p, CXType a)
{
	return (clang_isConstQualifiedType(p) || !clang_isConstQualifiedType(a)) &&
	       (clang_isVolatileQualifiedType(p) || !clang_isVolatileQualifiedType(a));
}

/* How an argument of type `arg` (before the call converts it) becomes a
 * parameter of type `param` (kp_arg_conv). */
static kp_arg_conv arg_relation(CXType param, CXType arg)
{
	if (type_dependent(param) || type_dependent(arg))
		return KP_ARG_UNKNOWN;
	CXType p = clang_getCanonicalType(param), a = clang_getCanonicalType(arg);
	if (a.kind == CXType_LValueReference || a.kind == CXType_RValueReference)
		a = clang_getCanonicalType(clang_getPointeeType(a));
	if (p.kind == CXType_LValueReference || p.kind == CXType_RValueReference) {
		CXType r = clang_getCanonicalType(clang_getPointeeType(p));
		if (clang_equalTypes(r, a))
			return KP_ARG_SAME;
		if (r.kind != CXType_ConstantArray && same_unqual(r, a) && as_qualified(r, a))
			return KP_ARG_QUAL;
		return type_arith(clang_getUnqualifiedType(r)) &&
				       type_arith(clang_getUnqualifiedType(a))
			       ? KP_ARG_ARITH
			       : KP_ARG_OTHER;
	}
	int parray = p.kind == CXType_ConstantArray || p.kind == CXType_IncompleteArray;
	if (!parray && a.kind != CXType_ConstantArray && same_unqual(p, a))
		return KP_ARG_SAME;
	/* libclang shows a parameter declared as an array (`float t[R][C]`) with
	 * that type, not the pointer to its element the parameter is */
	if (p.kind == CXType_Pointer || parray) {
		CXType pp = clang_getCanonicalType(parray ? clang_getArrayElementType(p)
							  : clang_getPointeeType(p));
		if (a.kind == CXType_ConstantArray || a.kind == CXType_IncompleteArray) {
			CXType ae = clang_getCanonicalType(clang_getArrayElementType(a));
			if (clang_equalTypes(pp, ae) ||
			    (pp.kind != CXType_ConstantArray && same_unqual(pp, ae) &&
			     as_qualified(pp, ae)))
				return KP_ARG_DECAY;
		} else if (a.kind == CXType_Pointer) {
			CXType ap = clang_getCanonicalType(clang_getPointeeType(a));
			if (clang_equalTypes(pp, ap))
				return KP_ARG_SAME;
			if (pp.kind != CXType_ConstantArray && same_unqual(pp, ap) &&
			    as_qualified(pp, ap))
				return KP_ARG_QUAL;
		}
		return KP_ARG_OTHER;
	}
	return type_arith(clang_getUnqualifiedType(p)) && type_arith(clang_getUnqualifiedType(a))
		       ? KP_ARG_ARITH
		       : KP_ARG_OTHER;
}

CXCursor kp_parse_under_implicit(CXCursor cur)
{
	for (int i = 0; i < 16 && clang_getCursorKind(cur) == CXCursor_UnexposedExpr; i++) {
		cursor_list l = {0};
		clang_visitChildren(cur, kp_parse_collect, &l);
		CXCursor one = l.n == 1 ? l.v[0] : clang_getNullCursor();
		free(l.v);
		if (clang_Cursor_isNull(one))
			break;
		cur = one;
	}
	return cur;
}

/* kp_node.arg_conv of a call of a function declared outside system
 * headers (a load helper), from the callee's parameter types as the call
 * sees them (a template's instantiated ones); NULL when unknown. */
unsigned char *kp_parse_call_arg_conv(pctx *c, CXCursor call, CXCursor ref, int nargs)
{
	enum CXCursorKind rk = clang_getCursorKind(ref);
	if ((rk != CXCursor_FunctionDecl && rk != CXCursor_FunctionTemplate) || nargs <= 0 ||
	    clang_Location_isInSystemHeader(clang_getCursorLocation(ref)) ||
	    clang_Cursor_getNumArguments(call) != nargs)
		return NULL;
	cursor_list l = {0};
	clang_visitChildren(call, kp_parse_collect, &l);
	CXType ft = l.n ? clang_getCursorType(kp_parse_under_implicit(l.v[0])) : (CXType){0};
	free(l.v);
	if (ft.kind != CXType_FunctionProto || clang_getNumArgTypes(ft) < nargs)
		return NULL;
	unsigned char *v = kp_arena_alloc(&c->f->arena, (size_t)nargs);
	for (int i = 0; i < nargs; i++) {
		CXCursor a = kp_parse_under_implicit(clang_Cursor_getArgument(call, (unsigned)i));
		v[i] = (unsigned char)arg_relation(clang_getArgType(ft, (unsigned)i),
						   clang_getCursorType(a));
	}
	return v;
}

/* An operator call clang left unresolved in a template (an overload set
 * in scope, an operand of dependent type) has no spelling: its name is
 * the operator token, where its callee (lhs, callee, rhs) stands. */
void kp_parse_name_unresolved_operator(kp_file *f, kp_node *n)
{
	kp_node *cal = n->nkids == 3 ? n->kids[1] : NULL;
	if (n->nkids == 2) /* a unary operator: callee, operand (operand, callee: x++) */
		cal = n->kids[0]->kind == KP_N_DECLREF && !n->kids[0]->decl ? n->kids[0]
									    : n->kids[1];
	if (!cal || cal->kind != KP_N_DECLREF || !cal->in_main || cal->end <= cal->begin ||
	    cal->end > f->len || cal->end - cal->begin > 2)
		return;
	for (unsigned i = cal->begin; i < cal->end; i++)
		if (!strchr("=+-*/%&|^<>!", f->src[i]) || !f->src[i])
			return; /* a call `grab(Xs, ...)` whose callee is a name */
	n->name = kp_arena_printf(&f->arena, "operator%.*s", (int)(cal->end - cal->begin),
				  f->src + cal->begin);
	if (n->nkids == 2)
		cal->name = n->name; /* kp_parse_binary_operator_call tells it from a binary one */
}

/* kp_node.lookup_system and lookup_ro of an unresolved call from the
 * overload set o its name finds. */
static void lookup_facts(pctx *c, CXCursor o, kp_node *n)
{
	unsigned nd = clang_getNumOverloadedDecls(o);
	int sys = nd > 0, ro = nd > 0;
	for (unsigned i = 0; i < nd; i++) {
		CXCursor d = clang_getOverloadedDecl(o, i);
		enum CXCursorKind k = clang_getCursorKind(d);
		if (k != CXCursor_FunctionDecl && k != CXCursor_FunctionTemplate) {
			sys = ro = 0;
			break;
		}
		sys &= kp_parse_system_decl(c, d);
		CXType t = clang_getCursorType(d);
		int np = clang_getNumArgTypes(t);
		if (np < 0)
			ro = 0;
		for (int j = 0; j < np && ro; j++) {
			kp_type pt = kp_parse_type_facts(clang_getArgType(t, (unsigned)j));
			if ((pt.is_ref == 1 && !pt.is_const) ||
			    (!pt.is_ref && pt.kind == KP_TY_POINTER && !pt.elem_const))
				ro = 0;
		}
	}
	n->lookup_system = (unsigned char)sys;
	n->lookup_ro = (unsigned char)ro;
}

/* The functions of the translation unit of one name (distinct canonical
 * declarations), cached in pctx.names. */
typedef struct name_count {
	const char *name;
	CXCursor *v;
	int n, cap;
	struct name_count *next;
} name_count;

static void add_canon(kp_arena *a, name_count *s, CXCursor d)
{
	CXCursor k = clang_getCanonicalCursor(d);
	for (int i = 0; i < s->n; i++)
		if (clang_equalCursors(s->v[i], k))
			return;
	if (s->n == s->cap) {
		int cap = s->cap ? s->cap * 2 : 8;
		CXCursor *v = kp_arena_alloc(a, sizeof(CXCursor) * (size_t)cap);
		if (s->n)
			memcpy(v, s->v, sizeof(CXCursor) * (size_t)s->n);
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = k;
}

typedef struct {
	kp_arena *a;
	name_count *s;
} name_scan;

/* Every function or function template named s->name, in any namespace,
 * linkage block or class (a friend), system headers included: what a
 * lookup at instantiation, argument-dependent or not, could find. */
static enum CXChildVisitResult count_named(CXCursor cur, CXCursor parent, CXClientData ud)
{
	(void)parent;
	name_scan *w = ud;
	switch (clang_getCursorKind(cur)) {
	case CXCursor_Namespace:
	case CXCursor_LinkageSpec:
	case CXCursor_UnexposedDecl:
	case CXCursor_ClassDecl:
	case CXCursor_StructDecl:
	case CXCursor_UnionDecl:
	case CXCursor_ClassTemplate:
	case CXCursor_ClassTemplatePartialSpecialization:
	case CXCursor_FriendDecl: return CXChildVisit_Recurse;
	case CXCursor_FunctionDecl:
	case CXCursor_FunctionTemplate: {
		CXString sp = clang_getCursorSpelling(cur);
		const char *nm = clang_getCString(sp);
		if (nm && !strcmp(nm, w->s->name))
			add_canon(w->a, w->s, cur);
		clang_disposeString(sp);
		return CXChildVisit_Continue;
	}
	default: return CXChildVisit_Continue;
	}
}

static const name_count *functions_named(pctx *c, const char *name)
{
	for (name_count *s = c->names; s; s = s->next)
		if (!strcmp(s->name, name))
			return s;
	name_count *s = kp_arena_alloc(&c->f->arena, sizeof(*s));
	memset(s, 0, sizeof(*s));
	s->name = kp_arena_strdup(&c->f->arena, name);
	name_scan w = {&c->f->arena, s};
	clang_visitChildren(clang_getTranslationUnitCursor(c->tu), count_named, &w);
	s->next = c->names;
	c->names = s;
	return s;
}

static int type_dependent(CXType t);

/* Whether template parameter p is a pack (`typename... Ts`, deduced
 * empty when nothing names it): a `...` among its tokens. */
static int is_pack(CXCursor p)
{
	CXTranslationUnit tu = clang_Cursor_getTranslationUnit(p);
	CXToken *tk = NULL;
	unsigned nt = 0;
	clang_tokenize(tu, clang_getCursorExtent(p), &tk, &nt);
	int pack = !nt; /* no tokens: not known, taken for a pack */
	for (unsigned i = 0; i < nt && !pack; i++) {
		CXString sp = clang_getTokenSpelling(tu, tk[i]);
		const char *t = clang_getCString(sp);
		pack = t && !strcmp(t, "...");
		clang_disposeString(sp);
	}
	if (tk)
		clang_disposeTokens(tu, tk, nt);
	return pack;
}

static enum CXChildVisitResult bare_tparam(CXCursor cur, CXCursor parent, CXClientData ud)
{
	(void)parent;
	enum CXCursorKind k = clang_getCursorKind(cur);
	if (k == CXCursor_TemplateTypeParameter || k == CXCursor_NonTypeTemplateParameter ||
	    k == CXCursor_TemplateTemplateParameter) {
		cursor_list l = {0};
		clang_visitChildren(cur, kp_parse_collect, &l);
		if (!l.n && !is_pack(cur))
			*(int *)ud = 1; /* nothing under it: no default argument */
		free(l.v);
	}
	return CXChildVisit_Continue;
}

/* Whether function template t (or the template of explicit
 * specialisation t) can never be called without template arguments
 * (`template <int c> double conj(const double &)` for `conj(x)`): no
 * parameter type depends on a template parameter, so none is deduced, and
 * one of them has no default and is no pack. */
static int never_deduced(CXCursor t)
{
	if (clang_getCursorKind(t) == CXCursor_FunctionDecl) {
		CXCursor p = clang_getSpecializedCursorTemplate(t);
		if (clang_Cursor_isNull(p))
			return 0;
		t = p;
	}
	if (clang_getCursorKind(t) != CXCursor_FunctionTemplate)
		return 0;
	CXType ft = clang_getCursorType(t);
	int np = clang_getNumArgTypes(ft);
	if (ft.kind != CXType_FunctionProto || np < 0)
		return 0;
	for (int i = 0; i < np; i++)
		if (type_dependent(clang_getArgType(ft, (unsigned)i)))
			return 0;
	int bare = 0;
	clang_visitChildren(t, bare_tparam, &bare);
	return bare;
}

/* Whether the callee of call cur is written with template arguments
 * (`conj<1>(x)`): a `<` among its tokens. */
static int explicit_targs(pctx *c, CXCursor callee)
{
	CXToken *tk = NULL;
	unsigned nt = 0;
	clang_tokenize(c->tu, clang_getCursorExtent(callee), &tk, &nt);
	int lt = 0;
	for (unsigned i = 0; i < nt && !lt; i++) {
		CXString sp = clang_getTokenSpelling(c->tu, tk[i]);
		const char *t = clang_getCString(sp);
		lt = t && !strcmp(t, "<");
		clang_disposeString(sp);
	}
	if (tk)
		clang_disposeTokens(c->tu, tk, nt);
	return lt || !nt;
}

/* kp_node.lookup_decls of an unresolved call named n->lookup_name whose
 * overload set o holds two or more functions of the user's headers: set
 * only when they are all the translation unit has of that name, leaving
 * out, for a call without template arguments, the templates it can never
 * call and their explicit specialisations. */
static void closed_candidates(pctx *c, CXCursor o, CXCursor callee, kp_node *n)
{
	unsigned nd = clang_getNumOverloadedDecls(o);
	if (nd < 2 || !n->lookup_name)
		return;
	int targs = explicit_targs(c, callee);
	name_count set = {0};
	for (unsigned i = 0; i < nd; i++) {
		CXCursor d = clang_getOverloadedDecl(o, i);
		enum CXCursorKind k = clang_getCursorKind(d);
		if ((k != CXCursor_FunctionDecl && k != CXCursor_FunctionTemplate) ||
		    kp_parse_system_decl(c, d))
			return;
		if (targs || !never_deduced(d))
			add_canon(&c->f->arena, &set, d);
	}
	if (!set.n)
		return;
	const name_count *all = functions_named(c, n->lookup_name);
	for (int j = 0; j < all->n; j++) {
		int in = 0;
		for (int i = 0; i < set.n && !in; i++)
			in = clang_equalCursors(all->v[j], set.v[i]);
		if (!in && (targs || !never_deduced(all->v[j])))
			return; /* another one, which a lookup at instantiation may find */
	}
	n->lookup_decls = kp_arena_alloc(&c->f->arena, sizeof(kp_decl *) * (size_t)set.n);
	for (int i = 0; i < set.n; i++)
		n->lookup_decls[i] = kp_parse_decl_for(c, set.v[i]);
	n->nlookup = set.n;
}

/* The overload set an unresolved call's callee names: under its first
 * child, or for an operator (lhs, callee, rhs) under any child. */
static void unresolved_lookup(pctx *c, CXCursor cur, kp_node *n)
{
	cursor_list l = {0};
	clang_visitChildren(cur, kp_parse_collect, &l);
	for (int i = 0; i < l.n; i++) {
		CXCursor o = clang_getNullCursor();
		if (clang_getCursorKind(l.v[i]) == CXCursor_OverloadedDeclRef)
			o = l.v[i];
		else if (i == 0 || clang_getCursorKind(l.v[i]) != CXCursor_CallExpr)
			clang_visitChildren(l.v[i], find_overload, &o);
		if (clang_Cursor_isNull(o))
			continue;
		CXString sp = clang_getCursorSpelling(o);
		const char *nm = clang_getCString(sp);
		int op = nm && !strncmp(nm, "operator", 8);
		clang_disposeString(sp);
		if (i == 0 || op) {
			lookup_facts(c, o, n);
			if (i == 0 && !op && !n->lookup_system)
				closed_candidates(c, o, l.v[0], n);
			break;
		}
	}
	free(l.v);
}

/* A dependent call in a template (`__fmaf_rn(a[i], b, c)` with a dependent
 * argument), whose CallExpr has no name: the unqualified name its callee
 * looks up (the OverloadedDeclRef under it), kept apart from the name
 * (kp_node.lookup_name), so that the effect sets know which function it
 * calls; operators are named by kp_parse_name_unresolved_operator. */
static void name_unresolved_call(pctx *c, CXCursor cur, kp_node *n)
{
	cursor_list l = {0};
	clang_visitChildren(cur, kp_parse_collect, &l);
	CXCursor o = clang_getNullCursor();
	if (l.n)
		clang_visitChildren(l.v[0], find_overload, &o);
	free(l.v);
	if (clang_Cursor_isNull(o))
		return;
	char *nm = cx_dup(&c->f->arena, clang_getCursorSpelling(o));
	if (*nm && strncmp(nm, "operator", 8))
		n->lookup_name = nm;
}

/* A call clang left unresolved in a template: its lookup name and the
 * facts of the functions it finds. */
void kp_parse_unresolved_call(pctx *c, CXCursor cur, kp_node *n)
{
	if (n->name && !*n->name)
		name_unresolved_call(c, cur, n);
	if (!n->decl)
		unresolved_lookup(c, cur, n);
}

/* A call of a binary operator function (`operator*=`, `operator*`),
 * written as an operator: two operands, and the callee between them when
 * clang resolved it (a reference to the operator itself). */
int kp_parse_binary_operator_call(const kp_node *n)
{
	static const char *const ops[] = {"=", "+=", "-=", "*=", "/=", "+", "-", "*", "/", NULL};
	if (n->kind != KP_N_CALL || !n->name || strncmp(n->name, "operator", 8))
		return 0;
	int known = 0;
	for (int i = 0; ops[i]; i++)
		known |= !strcmp(n->name + 8, ops[i]);
	if (!known)
		return 0;
	if (n->nkids == 3) /* an assignment's callee may be wrapped (a cast) */
		return (n->kids[1]->kind == KP_N_DECLREF && n->kids[1]->name &&
			(!strcmp(n->kids[1]->name, n->name) || !*n->kids[1]->name)) ||
		       !strcmp(n->name + 8, "=") || !strcmp(n->name + 8, "+=") ||
		       !strcmp(n->name + 8, "-=");
	if (n->nkids != 2)
		return 0;
	for (int i = 0; i < 2; i++)
		if (n->kids[i]->kind == KP_N_DECLREF && n->kids[i]->name &&
		    !strcmp(n->kids[i]->name, n->name))
			return 0; /* a unary operator: callee, operand */
	return 1;
}
