/*
 * parse.c - libclang front end: builds the compiler command line (arch,
 * CUDA path, compilation database, user flags, header workaround), parses
 * the device side of a .cu file and converts each __global__ kernel into
 * kpipe's model (model.h).  It also finds a single file's entry in a
 * compilation database (kp_compdb_lookup; compdb.c translates the flags).
 *
 * Every clang_* call of kpipe lives in this file, but for compdb.c (a
 * whole database, for batches) and pch.c (the batch's precompiled header).
 * It does not analyse loops or decide anything: it records what the AST
 * says, with byte extents in the main file, and hands the model on.
 */
#define _GNU_SOURCE
#include "parse.h"
#include "pch.h"

#include "consteval.h"
#include "launch_scan.h"
#include "host_skip.h"
#include "recover.h"

#include <clang-c/CXCompilationDatabase.h>
#include <clang-c/Index.h>
#include <dlfcn.h>
#include <errno.h>
#include <libgen.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <fcntl.h>
#include <unistd.h>

typedef struct {
	kp_file *f;
	CXTranslationUnit tu;
	CXFile main;
	int in_template; /* converting a template body: types may be dependent */
	int depth;       /* convert()'s recursion depth */
	int too_deep;    /* line of the first node past KP_MAX_NESTING, 0 if none */
	/* declaration identity: clang canonical cursor -> kp_decl, with an
	 * open-addressing index (dindex[h] = entry + 1, 0 empty) hashed on
	 * the cursor's declaration pointer: a file of thousands of kernels
	 * has tens of thousands of declarations, and a scan per lookup made
	 * it quadratic */
	CXCursor *dkeys;
	kp_decl **dvals;
	int nd, capd;
	int *dindex;
	size_t dindex_cap;       /* a power of two, at least twice nd */
	const char *const *argv; /* the compiler arguments (-D for consteval.c) */
	int nargv;
	/* the parse options, for the main file's model only: load helpers
	 * defined in project headers are converted for it (add_helpers) */
	const kp_parse_opts *o;
} pctx;

static char *cx_dup(kp_arena *a, CXString s)
{
	const char *c = clang_getCString(s);
	char *r = kp_arena_strdup(a, c ? c : "");
	clang_disposeString(s);
	return r;
}

/* Offset of a location in the main file (expansion/file location), -1 if
 * elsewhere. */
static long main_offset(pctx *c, CXSourceLocation loc)
{
	CXFile file;
	unsigned off;
	clang_getExpansionLocation(loc, &file, NULL, NULL, &off);
	if (!file || !clang_File_isEqual(file, c->main))
		return -1;
	return (long)off;
}

static long file_offset(pctx *c, CXSourceLocation loc)
{
	CXFile file;
	unsigned off;
	clang_getFileLocation(loc, &file, NULL, NULL, &off);
	if (!file || !clang_File_isEqual(file, c->main))
		return -1;
	return (long)off;
}

static int is_from_macro(CXSourceLocation loc)
{
	CXFile f1, f2;
	unsigned o1, o2;
	clang_getExpansionLocation(loc, &f1, NULL, NULL, &o1);
	clang_getSpellingLocation(loc, &f2, NULL, NULL, &o2);
	if (!f1 || !f2)
		return 0;
	return !clang_File_isEqual(f1, f2) || o1 != o2;
}

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

static kp_decl *decl_for(pctx *c, CXCursor ref);

/* Parses "[A][B]" after a declarator name in the main file; returns how
 * many bounds it found there. */
static int scan_dims(pctx *c, kp_decl *d)
{
	const char *s = c->f->src;
	size_t len = c->f->len;
	size_t p = d->name_off + strlen(d->name);
	int n = 0;
	while (p < len && (s[p] == ' ' || s[p] == '\t'))
		p++;
	while (p < len && s[p] == '[' && n < KP_MAX_DIMS) {
		size_t b = p + 1;
		int depth = 1;
		p++;
		while (p < len && depth) {
			if (s[p] == '[')
				depth++;
			else if (s[p] == ']')
				depth--;
			p++;
		}
		d->dim_text[n++] = kp_arena_strndup(&c->f->arena, s + b, p - 1 - b);
		d->name_end = (unsigned)p;
		while (p < len && (s[p] == ' ' || s[p] == '\t'))
			p++;
	}
	if (n && n != d->ndims)
		d->ndims = n;
	return n;
}

/* Whether clang may be asked the size or alignment of canonical type ct:
 * not dependent, overloaded, void, unexposed or invalid. */
static int layout_known(CXType ct)
{
	return ct.kind != CXType_Dependent && ct.kind != CXType_Overload &&
	       ct.kind != CXType_Void && ct.kind != CXType_Unexposed && ct.kind != CXType_Invalid;
}

/* sizeof a type, -1 when unknown.  clang_Type_getSizeOf can spin on
 * dependent types inside templates, so only ask for complete, concrete
 * kinds. */
static long long safe_sizeof(pctx *c, CXType t)
{
	CXType ct = clang_getCanonicalType(t);
	long long sz = -1;
	if (!layout_known(ct))
		return -1; /* clang_Type_getSizeOf crashes or spins on dependent types */
	if (ct.kind >= CXType_FirstBuiltin && ct.kind <= CXType_LastBuiltin)
		sz = clang_Type_getSizeOf(ct);
	else if (ct.kind == CXType_Pointer)
		sz = 8;
	else if (!c->in_template && (ct.kind == CXType_Record || ct.kind == CXType_ConstantArray))
		sz = clang_Type_getSizeOf(ct);
	else if (ct.kind == CXType_Record) {
		CXString s = clang_getTypeSpelling(ct);
		const char *sp = clang_getCString(s);
		if (!strchr(sp, '<') && (!strncmp(sp, "float", 5) || !strncmp(sp, "int", 3) ||
					 !strncmp(sp, "uint", 4) || !strncmp(sp, "double", 6) ||
					 !strncmp(sp, "__half", 6) || !strncmp(sp, "char", 4)))
			sz = clang_Type_getSizeOf(ct);
		clang_disposeString(s);
	}
	return sz > 0 ? sz : -1;
}

/* The kind of a canonical type (kp_type_kind). */
static kp_type_kind type_kind(CXType ct)
{
	switch (ct.kind) {
	case CXType_Invalid: return KP_TY_UNKNOWN;
	case CXType_Dependent: return KP_TY_DEPENDENT;
	case CXType_Bool: return KP_TY_BOOL;
	case CXType_Char_U:
	case CXType_UChar:
	case CXType_Char16:
	case CXType_Char32:
	case CXType_UShort:
	case CXType_UInt:
	case CXType_ULong:
	case CXType_ULongLong:
	case CXType_UInt128: return KP_TY_UINT;
	case CXType_Char_S:
	case CXType_SChar:
	case CXType_WChar:
	case CXType_Short:
	case CXType_Int:
	case CXType_Long:
	case CXType_LongLong:
	case CXType_Int128: return KP_TY_SINT;
	case CXType_Half:
	case CXType_Float16:
	case CXType_BFloat16:
	case CXType_Float:
	case CXType_Double:
	case CXType_LongDouble:
	case CXType_Float128: return KP_TY_FLOAT;
	case CXType_Enum: {
		CXType it = clang_getEnumDeclIntegerType(clang_getTypeDeclaration(ct));
		kp_type_kind k = type_kind(clang_getCanonicalType(it));
		return k == KP_TY_UINT || k == KP_TY_SINT ? k : KP_TY_ENUM;
	}
	case CXType_Pointer: return KP_TY_POINTER;
	case CXType_ConstantArray:
	case CXType_IncompleteArray:
	case CXType_VariableArray:
	case CXType_DependentSizedArray: return KP_TY_ARRAY;
	case CXType_Record: return KP_TY_RECORD;
	case CXType_Unexposed:
		/* a template's type parameter, a dependent specialisation */
		return KP_TY_DEPENDENT;
	default: return KP_TY_OTHER;
	}
}

/* The facts of type t (model.h, kp_type), from its canonical type. */
static kp_type type_facts(CXType t)
{
	kp_type r = {0};
	CXType ct = clang_getCanonicalType(t);
	if (ct.kind == CXType_LValueReference || ct.kind == CXType_RValueReference) {
		r.is_ref = ct.kind == CXType_LValueReference ? 1 : 2;
		ct = clang_getCanonicalType(clang_getPointeeType(ct));
	}
	r.kind = type_kind(ct);
	r.is_const = (unsigned char)clang_isConstQualifiedType(ct);
	r.is_volatile = (unsigned char)clang_isVolatileQualifiedType(ct);
	r.is_restrict = (unsigned char)clang_isRestrictQualifiedType(ct);
	if (r.kind == KP_TY_SINT || r.kind == KP_TY_UINT || r.kind == KP_TY_FLOAT ||
	    r.kind == KP_TY_BOOL) {
		long long sz = clang_Type_getSizeOf(ct);
		r.bits = (short)(sz > 0 ? sz * 8 : 0);
	}
	CXType et = ct;
	if (r.kind == KP_TY_POINTER)
		et = clang_getCanonicalType(clang_getPointeeType(ct));
	else
		while (type_kind(et) == KP_TY_ARRAY)
			et = clang_getCanonicalType(clang_getArrayElementType(et));
	if (r.kind == KP_TY_POINTER || r.kind == KP_TY_ARRAY) {
		r.elem = type_kind(et);
		r.elem_const = (unsigned char)clang_isConstQualifiedType(et);
		r.elem_volatile = (unsigned char)clang_isVolatileQualifiedType(et);
	}
	return r;
}

/* alignof a type, -1 when unknown: the kinds safe_sizeof asks for. */
static long long safe_alignof(pctx *c, CXType t)
{
	CXType ct = clang_getCanonicalType(t);
	long long al = -1;
	if (!layout_known(ct))
		return -1;
	if ((ct.kind >= CXType_FirstBuiltin && ct.kind <= CXType_LastBuiltin) ||
	    ct.kind == CXType_Pointer || ct.kind == CXType_Enum)
		al = clang_Type_getAlignOf(ct);
	else if (!c->in_template && (ct.kind == CXType_Record || ct.kind == CXType_ConstantArray))
		al = clang_Type_getAlignOf(ct);
	else if (ct.kind == CXType_Record && safe_sizeof(c, t) > 0)
		al = clang_Type_getAlignOf(ct);
	return al > 0 ? al : -1;
}

static int type_trivial_depth(CXType t, int depth);

typedef struct {
	int depth;
	int trivial; /* 1, 0 not trivially copyable, -1 unknown */
} trivial_scan;

/* A special member written by the user (not defaulted on its first
 * declaration, not deleted), a virtual method, a virtual base, or a base
 * or field that is itself not trivially copyable. */
static enum CXChildVisitResult scan_trivial(CXCursor cur, CXCursor parent, CXClientData ud)
{
	(void)parent;
	trivial_scan *s = ud;
	enum CXCursorKind k = clang_getCursorKind(cur);
	int user = 0;
	if (k == CXCursor_CXXMethod) {
		user = (clang_CXXMethod_isCopyAssignmentOperator(cur) ||
			clang_CXXMethod_isMoveAssignmentOperator(cur)) &&
		       !clang_CXXMethod_isDefaulted(cur) && !clang_CXXMethod_isDeleted(cur);
		if (clang_CXXMethod_isVirtual(cur))
			user = 1;
	} else if (k == CXCursor_Constructor)
		user = (clang_CXXConstructor_isCopyConstructor(cur) ||
			clang_CXXConstructor_isMoveConstructor(cur)) &&
		       !clang_CXXMethod_isDefaulted(cur) && !clang_CXXMethod_isDeleted(cur);
	else if (k == CXCursor_Destructor)
		user = !clang_CXXMethod_isDefaulted(cur) && !clang_CXXMethod_isDeleted(cur);
	else if (k == CXCursor_CXXBaseSpecifier || k == CXCursor_FieldDecl) {
		if (k == CXCursor_CXXBaseSpecifier && clang_isVirtualBase(cur))
			user = 1;
		else {
			int t = type_trivial_depth(clang_getCursorType(cur), s->depth + 1);
			if (t == 0)
				user = 1;
			else if (t < 0 && s->trivial > 0)
				s->trivial = -1;
		}
	}
	if (user) {
		s->trivial = 0;
		return CXChildVisit_Break;
	}
	return CXChildVisit_Continue;
}

static int type_trivial_depth(CXType t, int depth)
{
	CXType ct = clang_getCanonicalType(t);
	while (ct.kind == CXType_ConstantArray || ct.kind == CXType_IncompleteArray)
		ct = clang_getCanonicalType(clang_getArrayElementType(ct));
	if ((ct.kind >= CXType_FirstBuiltin && ct.kind <= CXType_LastBuiltin) ||
	    ct.kind == CXType_Pointer || ct.kind == CXType_Enum)
		return 1;
	if (ct.kind != CXType_Record || depth > 8)
		return -1;
	CXCursor decl = clang_getTypeDeclaration(ct);
	if (clang_Cursor_isNull(decl))
		return -1;
	CXCursor def = clang_getCursorDefinition(decl);
	if (clang_Cursor_isNull(def))
		return -1;
	/* the toolkit's own types (__half2 writes its copy as a bit copy by
	 * hand) and the standard library's: trusted as copies of their bits */
	if (clang_Location_isInSystemHeader(clang_getCursorLocation(def)))
		return 1;
	trivial_scan s = {depth, 1};
	clang_visitChildren(def, scan_trivial, &s);
	return s.trivial;
}

/* Whether a type is trivially copyable as far as libclang shows (1), not
 * (0: a user-provided copy or move, a user destructor, something virtual,
 * at any depth of its bases and fields), or unknown (-1: dependent). */
static int type_trivial(CXType t) { return type_trivial_depth(t, 0); }

static void fill_array_type(pctx *c, kp_decl *d, CXType t)
{
	kp_arena *a = &c->f->arena;
	d->type = cx_dup(a, clang_getTypeSpelling(t));
	d->ty = type_facts(t);
	CXType ct = clang_getCanonicalType(t);
	d->is_pointer = ct.kind == CXType_Pointer;
	d->is_const = clang_isConstQualifiedType(t) || clang_isConstQualifiedType(ct);
	int n = 0;
	CXType et = ct;
	while ((et.kind == CXType_ConstantArray || et.kind == CXType_DependentSizedArray ||
		et.kind == CXType_IncompleteArray || et.kind == CXType_VariableArray) &&
	       n < KP_MAX_DIMS) {
		d->dims[n] = et.kind == CXType_ConstantArray ? clang_getArraySize(et) : -1;
		n++;
		et = clang_getArrayElementType(et);
	}
	d->is_array = n > 0;
	d->ndims = n;
	d->unsized = ct.kind == CXType_IncompleteArray;
	d->elem_type = n ? cx_dup(a, clang_getTypeSpelling(et)) : d->type;
	if (n && !strncmp(d->elem_type, "type-parameter-", 15)) {
		/* the canonical type names a template type parameter by position
		 * ("type-parameter-0-0"): the element type as written ("T") is
		 * what the rewrite must spell and the analysis binds */
		CXType wt = t;
		for (int i = 0; i < n && wt.kind != CXType_Invalid; i++)
			wt = clang_getArrayElementType(wt);
		if (wt.kind != CXType_Invalid) {
			char *ws = cx_dup(a, clang_getTypeSpelling(wt));
			if (*ws && !strchr(ws, '['))
				d->elem_type = ws;
		}
	}
	d->elem_size = safe_sizeof(c, n ? et : t);
	d->elem_align = safe_alignof(c, n ? et : t);
	d->pointee_align = d->is_pointer ? safe_alignof(c, clang_getPointeeType(ct)) : -1;
	if (d->is_pointer)
		d->pointee_canon =
			cx_dup(a, clang_getTypeSpelling(clang_getUnqualifiedType(
					  clang_getCanonicalType(clang_getPointeeType(ct)))));
	d->elem_trivial = type_trivial(n ? et : t);
	if (n && d->elem_size < 0) {
		/* dependent element type: fall back on the declared spelling */
		const char *ty = d->elem_type;
		if (!strcmp(ty, "float") || !strcmp(ty, "int") || !strcmp(ty, "unsigned int"))
			d->elem_size = 4;
		else if (!strcmp(ty, "double"))
			d->elem_size = 8;
	}
}

typedef struct {
	pctx *c;
	int shared, global, is_const;
	int align;
	int device, host, constant;
} attr_scan;

static enum CXChildVisitResult scan_attrs(CXCursor cur, CXCursor parent, CXClientData ud)
{
	(void)parent;
	attr_scan *s = ud;
	switch (clang_getCursorKind(cur)) {
	case CXCursor_CUDASharedAttr: s->shared = 1; break;
	case CXCursor_CUDAGlobalAttr: s->global = 1; break;
	case CXCursor_CUDADeviceAttr: s->device = 1; break;
	case CXCursor_CUDAHostAttr: s->host = 1; break;
	case CXCursor_CUDAConstantAttr: s->constant = 1; break;
	case CXCursor_AlignedAttr: s->align = 1; break;
	default: break;
	}
	return CXChildVisit_Continue;
}

/* Equal cursors (clang_equalCursors) have the same data[0], the
 * declaration: the hash reads that only. */
static size_t decl_hash(CXCursor cur)
{
	uintptr_t v = (uintptr_t)cur.data[0];
	v ^= v >> 17;
	v *= (uintptr_t)0x9E3779B97F4A7C15ull;
	return (size_t)(v ^ (v >> 29));
}

static void decl_index_put(pctx *c, int i)
{
	size_t h = decl_hash(c->dkeys[i]) & (c->dindex_cap - 1);
	while (c->dindex[h])
		h = (h + 1) & (c->dindex_cap - 1);
	c->dindex[h] = i + 1;
}

/* Indexes entry i, growing the index when it would be half full. */
static void decl_index_add(pctx *c, int i)
{
	if ((size_t)c->nd * 2 > c->dindex_cap) {
		free(c->dindex);
		c->dindex_cap = c->dindex_cap ? c->dindex_cap * 2 : 256;
		c->dindex = kp_xcalloc(c->dindex_cap, sizeof(*c->dindex));
		for (int k = 0; k < c->nd; k++)
			decl_index_put(c, k);
		return;
	}
	decl_index_put(c, i);
}

/* A function, method or lambda: what declares parameters and locals. */
static int is_function_kind(enum CXCursorKind k)
{
	return k == CXCursor_FunctionDecl || k == CXCursor_FunctionTemplate ||
	       k == CXCursor_CXXMethod || k == CXCursor_Constructor || k == CXCursor_Destructor ||
	       k == CXCursor_ConversionFunction || k == CXCursor_LambdaExpr;
}

/* Whether the identifier w is a token of src[b, e) (a whole word). */
static int word_in(const char *src, long b, long e, const char *w)
{
	long n = (long)strlen(w);
	for (long p = b; p + n <= e; p++)
		if (!strncmp(src + p, w, (size_t)n) && (p == b || !kp_is_ident_char(src[p - 1])) &&
		    (p + n == e || !kp_is_ident_char(src[p + n])))
			return 1;
	return 0;
}

static const char *cuda_root(const char *cuda_path);
static int path_under(const char *abs, const char *dir);

/* Whether declaration d is in a system header or under the CUDA toolkit
 * kpipe parses against (kp_decl.in_system). */
static int system_decl(pctx *c, CXCursor d)
{
	CXSourceLocation loc = clang_getCursorLocation(d);
	if (clang_Location_isInSystemHeader(loc))
		return 1;
	CXFile file;
	clang_getExpansionLocation(loc, &file, NULL, NULL, NULL);
	if (!file || clang_File_isEqual(file, c->main))
		return 0;
	CXString fn = clang_getFileName(file);
	char *abs = clang_getCString(fn) ? realpath(clang_getCString(fn), NULL) : NULL;
	clang_disposeString(fn);
	int in = abs && path_under(abs, cuda_root(c->o ? c->o->cuda_path : NULL));
	free(abs);
	return in;
}

static kp_decl *decl_for(pctx *c, CXCursor ref)
{
	if (clang_Cursor_isNull(ref))
		return NULL;
	CXCursor canon = clang_getCanonicalCursor(ref);
	for (size_t h = decl_hash(canon) & (c->dindex_cap - 1); c->dindex_cap && c->dindex[h];
	     h = (h + 1) & (c->dindex_cap - 1))
		if (clang_equalCursors(c->dkeys[c->dindex[h] - 1], canon))
			return c->dvals[c->dindex[h] - 1];
	kp_file *f = c->f;
	kp_decl *d = kp_arena_alloc(&f->arena, sizeof(*d));
	d->name = cx_dup(&f->arena, clang_getCursorSpelling(canon));
	switch (clang_getCursorKind(canon)) {
	case CXCursor_VarDecl: d->kind = KP_D_VAR; break;
	case CXCursor_ParmDecl: d->kind = KP_D_PARM; break;
	case CXCursor_NonTypeTemplateParameter: d->kind = KP_D_TPARAM; break;
	case CXCursor_EnumConstantDecl: d->kind = KP_D_ENUM; break;
	case CXCursor_FunctionDecl:
	case CXCursor_FunctionTemplate:
	case CXCursor_CXXMethod: d->kind = KP_D_FUNC; break;
	default: d->kind = KP_D_OTHER; break;
	}
	enum CXCursorKind pk = clang_getCursorKind(clang_getCursorSemanticParent(canon));
	d->in_namespace = pk == CXCursor_Namespace;
	if (d->kind != KP_D_PARM && d->kind != KP_D_TPARAM && !is_function_kind(pk))
		d->usr = cx_dup(&f->arena, clang_getCursorUSR(canon));
	CXType t = clang_getCursorType(canon);
	fill_array_type(c, d, t);
	d->nparam_ty = -1;
	if (d->kind == KP_D_FUNC || clang_getCursorKind(canon) == CXCursor_Constructor) {
		int np = clang_getNumArgTypes(t);
		if (np >= 0) {
			d->nparam_ty = np;
			d->variadic = clang_isFunctionTypeVariadic(t) == 1;
			d->param_ty = kp_arena_alloc(&f->arena, sizeof(kp_type) * (size_t)(np + 1));
			for (int i = 0; i < np; i++)
				d->param_ty[i] = type_facts(clang_getArgType(t, (unsigned)i));
		}
	}
	if (d->kind == KP_D_FUNC)
		d->in_system = system_decl(c, canon);
	if (d->kind == KP_D_ENUM || d->kind == KP_D_TPARAM)
		d->is_const = 1;
	/* values of integer constants (const/constexpr variables, enumerators);
	 * clang_Cursor_Evaluate also folds non-const initialisers, so the
	 * const check comes first */
	if ((d->kind == KP_D_VAR && d->is_const && !d->is_array && !d->is_pointer) ||
	    d->kind == KP_D_ENUM) {
		if (d->kind == KP_D_ENUM) {
			d->has_value = 1;
			d->value = clang_getEnumConstantDeclValue(canon);
		} else {
			CXEvalResult ev = clang_Cursor_Evaluate(canon);
			if (ev) {
				if (clang_EvalResult_getKind(ev) == CXEval_Int) {
					d->has_value = 1;
					d->value = clang_EvalResult_getAsLongLong(ev);
				}
				clang_EvalResult_dispose(ev);
			}
		}
	}
	attr_scan as = {c, 0, 0, 0, 0, 0, 0, 0};
	clang_visitChildren(canon, scan_attrs, &as);
	d->is_shared = as.shared;
	d->is_device_var = d->kind == KP_D_VAR && as.device && !as.shared && !as.constant &&
			   !is_function_kind(pk);
	CXSourceRange r = clang_getCursorExtent(canon);
	long b = main_offset(c, clang_getRangeStart(r));
	long e = main_offset(c, clang_getRangeEnd(r));
	long no = file_offset(c, clang_getCursorLocation(canon));
	d->in_main = b >= 0 && e >= b && no >= 0;
	if (d->in_main) {
		d->begin = (unsigned)b;
		d->end = (unsigned)e;
		d->name_off = (unsigned)no;
		d->name_end = (unsigned)no + (unsigned)strlen(d->name);
		kp_file_linecol(f, d->name_off, &d->line, &d->col);
		if (strncmp(f->src + no, d->name, strlen(d->name)) == 0 && d->is_array) {
			/* `SHARED_TILE(As)`, a typedef'd array: the bounds are not
			 * written after the name, so no edit can give the array a
			 * stage dimension (and it is not an extern array) */
			if (!scan_dims(c, d))
				d->bounds_hidden = 1;
		} else if (strncmp(f->src + no, d->name, strlen(d->name)) != 0)
			d->in_main = 0; /* declared inside a macro expansion */
		d->is_constexpr = d->kind == KP_D_VAR && word_in(f->src, b, no, "constexpr");
		/* __align__(N) in the declaration text */
		const char *al = NULL;
		for (long p = b; p + 10 < (long)no; p++)
			if (!strncmp(f->src + p, "__align__(", 10)) {
				al = f->src + p + 10;
				break;
			}
		if (al)
			d->align = atoi(al);
	}
	if (c->nd == c->capd) {
		c->capd = c->capd ? c->capd * 2 : 64;
		c->dkeys = kp_xrealloc(c->dkeys, sizeof(*c->dkeys) * (size_t)c->capd);
		c->dvals = kp_xrealloc(c->dvals, sizeof(*c->dvals) * (size_t)c->capd);
	}
	c->dkeys[c->nd] = canon;
	c->dvals[c->nd] = d;
	c->nd++;
	decl_index_add(c, c->nd - 1);
	return d;
}

typedef struct {
	CXCursor *v;
	int n, cap;
} cursor_list;

static enum CXChildVisitResult collect(CXCursor cur, CXCursor parent, CXClientData ud)
{
	(void)parent;
	cursor_list *l = ud;
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 8;
		l->v = kp_xrealloc(l->v, sizeof(CXCursor) * (size_t)l->cap);
	}
	l->v[l->n++] = cur;
	return CXChildVisit_Continue;
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

static kp_node *convert(pctx *c, CXCursor cur);

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

/* Deepest statement/expression nesting converted: analyze.c walks the tree
 * recursively on the caller's stack, and no real kernel nests this deep
 * (a 100 000-term sum on one line did, and overflowed it). */
#define KP_MAX_NESTING 2000

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
static kp_sync_kind call_sync(const char *name, CXCursor ref)
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
static kp_decl *single_overload(pctx *c, CXCursor call)
{
	cursor_list l = {0};
	clang_visitChildren(call, collect, &l);
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
	return decl_for(c, d);
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

/* The expression under the implicit conversions libclang shows as
 * unexposed wrappers of one child. */
static CXCursor under_implicit(CXCursor cur)
{
	for (int i = 0; i < 16 && clang_getCursorKind(cur) == CXCursor_UnexposedExpr; i++) {
		cursor_list l = {0};
		clang_visitChildren(cur, collect, &l);
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
static unsigned char *call_arg_conv(pctx *c, CXCursor call, CXCursor ref, int nargs)
{
	enum CXCursorKind rk = clang_getCursorKind(ref);
	if ((rk != CXCursor_FunctionDecl && rk != CXCursor_FunctionTemplate) || nargs <= 0 ||
	    clang_Location_isInSystemHeader(clang_getCursorLocation(ref)) ||
	    clang_Cursor_getNumArguments(call) != nargs)
		return NULL;
	cursor_list l = {0};
	clang_visitChildren(call, collect, &l);
	CXType ft = l.n ? clang_getCursorType(under_implicit(l.v[0])) : (CXType){0};
	free(l.v);
	if (ft.kind != CXType_FunctionProto || clang_getNumArgTypes(ft) < nargs)
		return NULL;
	unsigned char *v = kp_arena_alloc(&c->f->arena, (size_t)nargs);
	for (int i = 0; i < nargs; i++) {
		CXCursor a = under_implicit(clang_Cursor_getArgument(call, (unsigned)i));
		v[i] = (unsigned char)arg_relation(clang_getArgType(ft, (unsigned)i),
						   clang_getCursorType(a));
	}
	return v;
}

/* An operator call clang left unresolved in a template (an overload set
 * in scope, an operand of dependent type) has no spelling: its name is
 * the operator token, where its callee (lhs, callee, rhs) stands. */
static void name_unresolved_operator(kp_file *f, kp_node *n)
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
		cal->name = n->name; /* binary_operator_call tells it from a binary one */
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
		sys &= system_decl(c, d);
		CXType t = clang_getCursorType(d);
		int np = clang_getNumArgTypes(t);
		if (np < 0)
			ro = 0;
		for (int j = 0; j < np && ro; j++) {
			kp_type pt = type_facts(clang_getArgType(t, (unsigned)j));
			if ((pt.is_ref == 1 && !pt.is_const) ||
			    (!pt.is_ref && pt.kind == KP_TY_POINTER && !pt.elem_const))
				ro = 0;
		}
	}
	n->lookup_system = (unsigned char)sys;
	n->lookup_ro = (unsigned char)ro;
}

/* The overload set an unresolved call's callee names: under its first
 * child, or for an operator (lhs, callee, rhs) under any child. */
static void unresolved_lookup(pctx *c, CXCursor cur, kp_node *n)
{
	cursor_list l = {0};
	clang_visitChildren(cur, collect, &l);
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
			break;
		}
	}
	free(l.v);
}

/* A dependent call in a template (`__fmaf_rn(a[i], b, c)` with a dependent
 * argument), whose CallExpr has no name: the unqualified name its callee
 * looks up (the OverloadedDeclRef under it), kept apart from the name
 * (kp_node.lookup_name), so that the effect sets know which function it
 * calls; operators are named by name_unresolved_operator. */
static void name_unresolved_call(pctx *c, CXCursor cur, kp_node *n)
{
	cursor_list l = {0};
	clang_visitChildren(cur, collect, &l);
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
static void unresolved_call(pctx *c, CXCursor cur, kp_node *n)
{
	if (n->name && !*n->name)
		name_unresolved_call(c, cur, n);
	if (!n->decl)
		unresolved_lookup(c, cur, n);
}

/* A call of a binary operator function (`operator*=`, `operator*`),
 * written as an operator: two operands, and the callee between them when
 * clang resolved it (a reference to the operator itself). */
static int binary_operator_call(const kp_node *n)
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

static kp_node *convert(pctx *c, CXCursor cur)
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

static kp_node *convert_node(pctx *c, CXCursor cur)
{
	kp_file *f = c->f;
	enum CXCursorKind ck = clang_getCursorKind(cur);
	/* Look through the implicit wrappers libclang exposes. */
	if (ck == CXCursor_UnexposedExpr || ck == CXCursor_UnexposedStmt) {
		cursor_list l = {0};
		clang_visitChildren(cur, collect, &l);
		if (l.n == 1 && ck == CXCursor_UnexposedExpr) {
			kp_node *r = convert(c, l.v[0]);
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
		n->ty = type_facts(t);
		n->type_size = safe_sizeof(c, t);
		n->type_align = safe_alignof(c, t);
	}
	switch (n->kind) {
	case KP_N_DECLREF:
	case KP_N_MEMBER:
	case KP_N_CALL: {
		n->name = cx_dup(&f->arena, clang_getCursorSpelling(cur));
		CXCursor ref = clang_getCursorReferenced(cur);
		if (!clang_Cursor_isNull(ref))
			n->decl = decl_for(c, ref);
		if (n->kind == KP_N_CALL && n->decl && !n->decl->tmpl &&
		    !clang_equalCursors(template_of(ref), ref))
			n->decl->tmpl = decl_for(c, template_of(ref));
		if (n->kind == KP_N_CALL && n->decl && !n->decl->fn_why &&
		    is_function_kind(clang_getCursorKind(ref)) &&
		    clang_getCursorKind(ref) != CXCursor_FunctionDecl &&
		    clang_getCursorKind(ref) != CXCursor_FunctionTemplate)
			n->decl->fn_why = "it is a member of a class (kpipe inlines functions)";
		if (n->kind == KP_N_CALL)
			n->sync = call_sync(n->name, ref);
		if (n->kind == KP_N_CALL && clang_Cursor_isNull(ref))
			n->decl = single_overload(c, cur);
		else if (n->kind == KP_N_CALL)
			n->arg_conv = call_arg_conv(c, cur, ref, clang_Cursor_getNumArguments(cur));
		if (n->kind == KP_N_DECLREF) {
			long so = file_offset(c, clang_getCursorLocation(cur));
			size_t nl = strlen(n->name);
			if (so >= 0 && (size_t)so + nl <= f->len &&
			    !strncmp(f->src + so, n->name, nl)) {
				n->name_off = (unsigned)so;
				n->name_editable = 1;
			}
			if (n->from_macro) {
				CXFile sf;
				unsigned sp;
				clang_getSpellingLocation(clang_getCursorLocation(cur), &sf, NULL,
							  NULL, &sp);
				if (sf && clang_File_isEqual(sf, c->main) && sp + nl <= f->len &&
				    !strncmp(f->src + sp, n->name, nl) && sp != (unsigned)so)
					n->macro_spell = sp + 1;
			}
		}
		break;
	}
	case KP_N_VARDECL:
		n->name = cx_dup(&f->arena, clang_getCursorSpelling(cur));
		n->decl = decl_for(c, cur);
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
	clang_visitChildren(cur, collect, &l);
	int cap = 0;
	for (int i = 0; i < l.n; i++) {
		enum CXCursorKind kk = clang_getCursorKind(l.v[i]);
		if (clang_isAttribute(kk) || kk == CXCursor_TypeRef || kk == CXCursor_TemplateRef ||
		    kk == CXCursor_NamespaceRef || kk == CXCursor_OverloadedDeclRef)
			continue;
		add_kid(&f->arena, n, convert(c, l.v[i]), &cap);
	}
	if (n->kind == KP_N_FOR && l.n > 0)
		for_slots(c, cur, l.v[l.n - 1], n);
	free(l.v);
	if (n->kind == KP_N_CALL && l.n)
		unresolved_call(c, cur, n);
	if (n->kind == KP_N_CALL && n->name && !*n->name)
		name_unresolved_operator(f, n);
	if (binary_operator_call(n)) {
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

typedef struct {
	pctx *c;
	kp_kernel **v;
	int n, cap;
	CXCursor *helpers; /* __device__ definitions without __shared__ arrays */
	int nhelpers, caphelpers;
	/* main-file definitions that are not helpers, and why (add_helpers
	 * tells a kernel's callee why it is not inlined) */
	CXCursor *others;
	const char **other_why;
	int nothers;
} kernel_scan;

/* Appends an instantiation unless one with the same argument text is
 * there already. */
static void push_inst(kp_arena *a, kp_kernel *k, const char *args,
		      const long long vals[KP_MAX_TARGS], const kp_targ targs[KP_MAX_TARGS])
{
	for (int i = 0; i < k->ninst; i++)
		if (!strcmp(k->inst_args[i], args))
			return;
	const char **na = kp_arena_alloc(a, sizeof(char *) * (size_t)(k->ninst + 1));
	long long(*nv)[KP_MAX_TARGS] = kp_arena_alloc(a, sizeof(*nv) * (size_t)(k->ninst + 1));
	kp_targ(*nt)[KP_MAX_TARGS] = kp_arena_alloc(a, sizeof(*nt) * (size_t)(k->ninst + 1));
	for (int i = 0; i < k->ninst; i++) {
		na[i] = k->inst_args[i];
		memcpy(nv[i], k->inst_values[i], sizeof(nv[i]));
		memcpy(nt[i], k->inst_targs[i], sizeof(nt[i]));
	}
	na[k->ninst] = kp_arena_strdup(a, args);
	memcpy(nv[k->ninst], vals, sizeof(nv[k->ninst]));
	memcpy(nt[k->ninst], targs, sizeof(nt[k->ninst]));
	k->inst_args = na;
	k->inst_values = nv;
	k->inst_targs = nt;
	k->ninst++;
}

/* The name of the nth function handed to a specialisation as a template
 * argument (`run<tile_mm>`: "tile_mm"), from its USR, where such an
 * argument is written as the function's own USR (`c:@F@run<#@F@tile_mm#
 * ...>`); NULL when there is none (heap string).  Display names and type
 * spellings leave such arguments out. */
static char *function_template_arg(CXCursor spec, int nth)
{
	CXString us = clang_getCursorUSR(spec);
	const char *u = clang_getCString(us);
	const char *p = u ? strchr(u, '<') : NULL;
	char *out = NULL;
	for (int n = 0; p && (p = strstr(p, "@F@")) != NULL; n++) {
		p += 3;
		size_t len = strcspn(p, "#<>@");
		if (n == nth && len) {
			out = kp_xstrndup(p, len);
			break;
		}
	}
	clang_disposeString(us);
	return out;
}

/* An instantiation from a specialisation's cursor: libclang gives each
 * argument's kind, a value's value and a type's type (whose size it
 * knows: the specialisation is concrete). */
static void add_inst(pctx *c, kp_kernel *k, CXCursor spec)
{
	int na = clang_Cursor_getNumTemplateArguments(spec);
	if (na <= 0)
		return;
	kp_strbuf sb = KP_STRBUF_INIT;
	long long vals[KP_MAX_TARGS] = {0};
	kp_targ targs[KP_MAX_TARGS];
	for (int i = 0; i < KP_MAX_TARGS; i++)
		targs[i] = (kp_targ){NULL, -1, 0, -1, -1};
	int ndecl = 0; /* Declaration arguments so far */
	for (int i = 0; i < na; i++) {
		enum CXTemplateArgumentKind ak =
			clang_Cursor_getTemplateArgumentKind(spec, (unsigned)i);
		if (i)
			kp_strbuf_adds(&sb, ", ");
		if (ak == CXTemplateArgumentKind_Integral) {
			/* a bool argument's value is its one bit, sign-extended (true
			 * is -1): read it unsigned, print it as written */
			int is_bool = i < KP_MAX_TARGS && (k->tparam_bool >> i & 1u);
			long long v =
				is_bool ? clang_Cursor_getTemplateArgumentUnsignedValue(
						  spec, (unsigned)i) != 0
					: clang_Cursor_getTemplateArgumentValue(spec, (unsigned)i);
			if (i < KP_MAX_TARGS) {
				vals[i] = v;
				targs[i].known = 1;
			}
			if (is_bool)
				kp_strbuf_adds(&sb, v ? "true" : "false");
			else
				kp_strbuf_addf(&sb, "%lld", v);
		} else if (ak == CXTemplateArgumentKind_Declaration) {
			/* a function (`run<tile_mm>`): no type to spell */
			char *arg = function_template_arg(spec, ndecl++);
			kp_strbuf_adds(&sb, arg ? arg : "?");
			free(arg);
		} else {
			CXType t = clang_Cursor_getTemplateArgumentType(spec, (unsigned)i);
			CXString s = clang_getTypeSpelling(t);
			const char *sp = clang_getCString(s);
			kp_strbuf_adds(&sb, sp);
			if (ak == CXTemplateArgumentKind_Type && i < KP_MAX_TARGS) {
				targs[i].type = kp_arena_strdup(&c->f->arena, sp ? sp : "");
				targs[i].size = safe_sizeof(c, t);
				targs[i].align = safe_alignof(c, t);
				targs[i].trivial = type_trivial(t);
				targs[i].known = targs[i].size > 0;
			}
			clang_disposeString(s);
		}
	}
	push_inst(&c->f->arena, k, kp_strbuf_str(&sb), vals, targs);
	kp_strbuf_release(&sb);
}

/* Sizes of the types an explicit instantiation found only in the text may
 * name (libclang gives the rest). */
static long long builtin_type_size(const char *t)
{
	static const struct {
		const char *name;
		long long size;
	} ts[] = {
		{"char", 1},           {"signed char", 1},   {"unsigned char", 1},
		{"int8_t", 1},         {"uint8_t", 1},       {"short", 2},
		{"unsigned short", 2}, {"__half", 2},        {"half", 2},
		{"__nv_bfloat16", 2},  {"int", 4},           {"unsigned", 4},
		{"unsigned int", 4},   {"int32_t", 4},       {"uint32_t", 4},
		{"float", 4},          {"__half2", 4},       {"half2", 4},
		{"__nv_bfloat162", 4}, {"char4", 4},         {"long", 8},
		{"long long", 8},      {"unsigned long", 8}, {"size_t", 8},
		{"int64_t", 8},        {"double", 8},        {"float2", 8},
		{"int2", 8},           {"float4", 16},       {"int4", 16},
		{"double2", 16},       {"uint4", 16},
	};
	for (size_t i = 0; i < sizeof(ts) / sizeof(ts[0]); i++)
		if (!strcmp(ts[i].name, t))
			return ts[i].size;
	return -1;
}

/* The integer value of `#define NAME <integer>` in the main file. */
static int define_value(const kp_file *f, const char *name, long long *out)
{
	size_t nl = strlen(name);
	const char *s = f->src;
	for (size_t i = 0; i < f->len; i++) {
		if ((i && s[i - 1] != '\n') || s[i] != '#')
			continue;
		size_t p = i + 1;
		while (p < f->len && (s[p] == ' ' || s[p] == '\t'))
			p++;
		if (p + 6 > f->len || strncmp(s + p, "define", 6))
			continue;
		p += 6;
		while (p < f->len && (s[p] == ' ' || s[p] == '\t'))
			p++;
		if (p + nl >= f->len || strncmp(s + p, name, nl) ||
		    (s[p + nl] != ' ' && s[p + nl] != '\t'))
			continue;
		char *end;
		long long v = strtoll(s + p + nl, &end, 0);
		while (*end == ' ' || *end == '\t' || *end == 'u' || *end == 'U' || *end == 'l' ||
		       *end == 'L')
			end++;
		if (end != s + p + nl &&
		    (*end == '\n' || *end == '\r' || *end == '\0' || *end == '/')) {
			*out = v;
			return 1;
		}
	}
	return 0;
}

/* An instantiation found only in the text: each argument an integer, a
 * `#define` of one, or a type kpipe knows the size of; anything else stays
 * unknown (the analysis then leaves that instantiation's sizes symbolic).
 * The argument text is the resolved one, so the same instantiation found
 * by libclang is not added twice. */
static void add_inst_text(kp_file *f, kp_kernel *k, const char *args, size_t n)
{
	/* one line, single spaces */
	kp_arena *a = &f->arena;
	char *txt = kp_arena_alloc(a, n + 1);
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		char ch = args[i] == '\n' || args[i] == '\t' || args[i] == '\r' ? ' ' : args[i];
		if (ch == ' ' && (o == 0 || txt[o - 1] == ' '))
			continue;
		txt[o++] = ch;
	}
	while (o && txt[o - 1] == ' ')
		o--;
	txt[o] = '\0';
	long long vals[KP_MAX_TARGS] = {0};
	kp_targ targs[KP_MAX_TARGS];
	for (int i = 0; i < KP_MAX_TARGS; i++)
		targs[i] = (kp_targ){NULL, -1, 0, -1, -1};
	kp_strbuf sb = KP_STRBUF_INIT;
	const char *p = txt;
	for (int i = 0; *p; i++) {
		/* the argument up to a comma outside <> and () */
		const char *e = p;
		int depth = 0;
		while (*e && (depth || *e != ',')) {
			depth += *e == '<' || *e == '(' ? 1 : *e == '>' || *e == ')' ? -1 : 0;
			e++;
		}
		char *arg = kp_arena_strndup(a, p, (size_t)(e - p));
		size_t al = strlen(arg);
		while (al && arg[al - 1] == ' ')
			arg[--al] = '\0';
		char *end;
		long long v = strtoll(arg, &end, 0);
		while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L')
			end++;
		int is_int = *arg && !*end;
		if (!is_int)
			is_int = define_value(f, arg, &v);
		int is_bool = !strcmp(arg, "true") || !strcmp(arg, "false");
		if (is_bool) {
			v = arg[0] == 't';
			is_int = 1;
		}
		long long sz = is_int ? -1 : builtin_type_size(arg);
		if (i)
			kp_strbuf_adds(&sb, ", ");
		if (is_bool)
			kp_strbuf_adds(&sb, v ? "true" : "false");
		else if (is_int)
			kp_strbuf_addf(&sb, "%lld", v);
		else
			kp_strbuf_adds(&sb, arg);
		if (i < KP_MAX_TARGS) {
			if (is_int) {
				vals[i] = v;
				targs[i].known = 1;
			} else if (sz > 0) {
				targs[i].type = arg;
				targs[i].size = sz;
				targs[i].align = sz; /* the builtin types of the table */
				targs[i].trivial = 1;
				targs[i].known = 1;
			}
		}
		p = *e ? e + 1 : e;
		while (*p == ' ')
			p++;
	}
	push_inst(a, k, kp_strbuf_str(&sb), vals, targs);
	kp_strbuf_release(&sb);
}

/* Explicit instantiations ("template __global__ void k<32, 8>(...);") are
 * not exposed as cursors by libclang: find them in the text. */
static void scan_explicit_insts(kp_file *f)
{
	const char *s = f->src;
	for (size_t i = 0; i + 9 < f->len; i++) {
		if ((i && s[i - 1] != '\n' && s[i - 1] != ' ' && s[i - 1] != '\t' &&
		     s[i - 1] != ';') ||
		    strncmp(s + i, "template", 8))
			continue;
		size_t p = i + 8;
		while (p < f->len && (s[p] == ' ' || s[p] == '\t' || s[p] == '\n'))
			p++;
		if (p >= f->len || s[p] == '<')
			continue;
		size_t e = p;
		while (e < f->len && s[e] != ';' && s[e] != '{')
			e++;
		if (e >= f->len || s[e] != ';')
			continue;
		for (int ki = 0; ki < f->nkernels; ki++) {
			kp_kernel *k = f->kernels[ki];
			size_t nl = strlen(k->name);
			if (!k->is_template)
				continue;
			for (size_t q = p; q + nl < e; q++) {
				if (strncmp(s + q, k->name, nl) || s[q + nl] != '<' ||
				    (q > 0 &&
				     (s[q - 1] == '_' || (s[q - 1] >= 'a' && s[q - 1] <= 'z') ||
				      (s[q - 1] >= 'A' && s[q - 1] <= 'Z') ||
				      (s[q - 1] >= '0' && s[q - 1] <= '9'))))
					continue;
				size_t b = q + nl + 1, c = b;
				int depth = 1;
				while (c < e && depth) {
					if (s[c] == '<')
						depth++;
					else if (s[c] == '>')
						depth--;
					c++;
				}
				if (!depth) {
					while (b < c - 1 && s[b] == ' ')
						b++;
					add_inst_text(f, k, s + b, c - 1 - b);
				}
				break;
			}
		}
	}
}

/* Instantiation a before b in a fixed order that does not depend on where
 * they appear in the file: argument by argument, types by spelling and
 * values by value, then the argument text. */
static int inst_before(const kp_kernel *k, int a, int b)
{
	for (int p = 0; p < k->ntparams && p < KP_MAX_TARGS; p++) {
		const kp_targ *x = &k->inst_targs[a][p], *y = &k->inst_targs[b][p];
		if (x->type && y->type) {
			int r = strcmp(x->type, y->type);
			if (r)
				return r < 0;
		} else if (x->known && y->known && !x->type && !y->type &&
			   k->inst_values[a][p] != k->inst_values[b][p])
			return k->inst_values[a][p] < k->inst_values[b][p];
	}
	return strcmp(k->inst_args[a], k->inst_args[b]) < 0;
}

static void sort_insts(kp_kernel *k)
{
	for (int i = 1; i < k->ninst; i++)
		for (int j = i; j > 0 && inst_before(k, j, j - 1); j--) {
			const char *ta = k->inst_args[j];
			k->inst_args[j] = k->inst_args[j - 1];
			k->inst_args[j - 1] = ta;
			long long tv[KP_MAX_TARGS];
			memcpy(tv, k->inst_values[j], sizeof(tv));
			memcpy(k->inst_values[j], k->inst_values[j - 1], sizeof(tv));
			memcpy(k->inst_values[j - 1], tv, sizeof(tv));
			kp_targ tt[KP_MAX_TARGS];
			memcpy(tt, k->inst_targs[j], sizeof(tt));
			memcpy(k->inst_targs[j], k->inst_targs[j - 1], sizeof(tt));
			memcpy(k->inst_targs[j - 1], tt, sizeof(tt));
		}
}

static kp_kernel *kernel_of_template(kernel_scan *ks, CXCursor tmpl)
{
	CXCursor canon = clang_getCanonicalCursor(tmpl);
	kp_decl *d = decl_for(ks->c, canon);
	for (int i = 0; i < ks->n; i++)
		if (ks->v[i]->is_template && ks->v[i]->params && d &&
		    !strcmp(ks->v[i]->name, d->name) && ks->v[i]->line == d->line)
			return ks->v[i];
	return NULL;
}

static enum CXChildVisitResult find_insts(CXCursor cur, CXCursor parent, CXClientData ud)
{
	(void)parent;
	kernel_scan *ks = ud;
	enum CXCursorKind k = clang_getCursorKind(cur);
	CXCursor spec = clang_getNullCursor();
	if (k == CXCursor_FunctionDecl && clang_Cursor_getNumTemplateArguments(cur) > 0)
		spec = cur;
	else if (k == CXCursor_DeclRefExpr || k == CXCursor_CallExpr) {
		CXCursor ref = clang_getCursorReferenced(cur);
		if (!clang_Cursor_isNull(ref) &&
		    clang_getCursorKind(ref) == CXCursor_FunctionDecl &&
		    clang_Cursor_getNumTemplateArguments(ref) > 0)
			spec = ref;
	}
	if (!clang_Cursor_isNull(spec)) {
		CXCursor tmpl = clang_getSpecializedCursorTemplate(spec);
		if (!clang_Cursor_isNull(tmpl)) {
			kp_kernel *kk = kernel_of_template(ks, tmpl);
			if (kk)
				add_inst(ks->c, kk, spec);
		}
	}
	return CXChildVisit_Recurse;
}

/* The file's kernel a call's callee is (a template's specialisation: its
 * template), by the definition's place in the main file; or NULL. */
static kp_kernel *kernel_called(pctx *c, CXCursor call)
{
	CXCursor ref = clang_getCursorReferenced(call);
	if (clang_Cursor_isNull(ref) || clang_getCursorKind(ref) != CXCursor_FunctionDecl)
		return NULL;
	CXCursor tmpl = clang_getSpecializedCursorTemplate(ref);
	CXCursor def = clang_getCursorDefinition(clang_Cursor_isNull(tmpl) ? ref : tmpl);
	if (clang_Cursor_isNull(def))
		def = clang_Cursor_isNull(tmpl) ? ref : tmpl;
	long off = main_offset(c, clang_getCursorLocation(def));
	CXString nm = clang_getCursorSpelling(def);
	const char *name = clang_getCString(nm);
	kp_kernel *hit = NULL;
	for (int i = 0; i < c->f->nkernels && off >= 0 && name; i++) {
		kp_kernel *k = c->f->kernels[i];
		if (!k->is_device && (unsigned)off >= k->begin && (unsigned)off < k->end &&
		    !strcmp(k->name, name))
			hit = k;
	}
	clang_disposeString(nm);
	return hit;
}

/* Reads a launch's `<<<...>>>` from the call's tokens into *l; 0 when the
 * call has none (a kernel called through a macro shows the macro's name). */
static int launch_config(pctx *c, CXCursor call, kp_launch *l)
{
	CXToken *toks = NULL;
	unsigned nt = 0;
	clang_tokenize(c->tu, clang_getCursorExtent(call), &toks, &nt);
	int found = 0, depth = 0;
	l->editable = 1;
	for (unsigned i = 0; i < nt && found < 2; i++) {
		CXString sp = clang_getTokenSpelling(c->tu, toks[i]);
		const char *t = clang_getCString(sp);
		CXSourceRange r = clang_getTokenExtent(c->tu, toks[i]);
		long b = main_offset(c, clang_getRangeStart(r));
		long e = main_offset(c, clang_getRangeEnd(r));
		if (b < 0 || is_from_macro(clang_getRangeStart(r)))
			l->editable = 0;
		if (!found && t && !strcmp(t, "<<<") && b >= 0) {
			found = 1;
			l->open = (unsigned)b;
			l->arg_b[0] = (unsigned)e;
			l->nconfig = 1;
		} else if (found == 1 && t && depth == 0 &&
			   (!strcmp(t, ",") || !strcmp(t, ">>>")) && b >= 0) {
			l->arg_e[l->nconfig - 1] = (unsigned)b;
			if (!strcmp(t, ">>>")) {
				l->close = (unsigned)b;
				found = 2;
			} else if (l->nconfig < 4) {
				l->arg_b[l->nconfig++] = (unsigned)e;
			} else
				l->editable = 0;
		} else if (found == 1 && t && strchr("([{", t[0]) && !t[1])
			depth++;
		else if (found == 1 && t && strchr(")]}", t[0]) && !t[1])
			depth--;
		clang_disposeString(sp);
	}
	clang_disposeTokens(c->tu, toks, nt);
	return found == 2;
}

typedef struct {
	pctx *c;
	kp_launch *v;
	int n, cap;
} launch_scan;

static enum CXChildVisitResult find_launches(CXCursor cur, CXCursor parent, CXClientData ud)
{
	(void)parent;
	launch_scan *ls = ud;
	pctx *c = ls->c;
	if (main_offset(c, clang_getCursorLocation(cur)) < 0)
		return CXChildVisit_Continue;
	if (clang_getCursorKind(cur) != CXCursor_CallExpr)
		return CXChildVisit_Recurse;
	kp_kernel *k = kernel_called(c, cur);
	if (!k)
		return CXChildVisit_Recurse;
	kp_launch l = {0};
	l.kernel = k;
	CXSourceRange r = clang_getCursorExtent(cur);
	long b = main_offset(c, clang_getRangeStart(r));
	l.begin = b >= 0 ? (unsigned)b : 0;
	kp_file_linecol(c->f, l.begin, &l.line, &l.col);
	/* a kernel called without an editable <<<>>>: a launch written by a
	 * macro, kept as not editable */
	if (!launch_config(c, cur, &l) || l.nconfig < 2)
		l.editable = 0;
	/* a launch in a function template is visited again in each explicit
	 * instantiation of the function: one launch of the text */
	for (int i = 0; i < ls->n; i++)
		if (ls->v[i].begin == l.begin && ls->v[i].kernel == k && b >= 0)
			return CXChildVisit_Continue;
	if (ls->n == ls->cap) {
		ls->cap = ls->cap ? 2 * ls->cap : 8;
		ls->v = kp_xrealloc(ls->v, sizeof(*ls->v) * (size_t)ls->cap);
	}
	ls->v[ls->n++] = l;
	return CXChildVisit_Recurse;
}

/* Every launch of the file's kernels in the main file (model.h). */
static void scan_launches(pctx *c)
{
	int any = 0;
	for (int i = 0; i < c->f->nkernels; i++)
		any |= !c->f->kernels[i]->is_device;
	if (!any)
		return;
	launch_scan ls = {c, NULL, 0, 0};
	clang_visitChildren(clang_getTranslationUnitCursor(c->tu), find_launches, &ls);
	kp_file *f = c->f;
	f->launches = kp_arena_alloc(&f->arena, sizeof(kp_launch) * (size_t)(ls.n + 1));
	if (ls.n)
		memcpy(f->launches, ls.v, sizeof(kp_launch) * (size_t)ls.n);
	f->nlaunches = ls.n;
	free(ls.v);
}

/* Whether a template parameter is a pack (`typename... Ts`). */
static int tparam_is_pack(pctx *c, CXCursor p)
{
	CXSourceRange r = clang_getCursorExtent(p);
	long b = main_offset(c, clang_getRangeStart(r));
	long no = main_offset(c, clang_getCursorLocation(p));
	if (b < 0 || no < b || (size_t)no > c->f->len)
		return 1;
	return memmem(c->f->src + b, (size_t)(no - b), "...", 3) != NULL;
}

/* The default argument of a template parameter as written (`0U` in
 * `size_t SKEW = 0U`, `int4` in `typename V = int4`), arena-owned, or
 * NULL. */
static const char *tparam_default(pctx *c, CXCursor p)
{
	CXSourceRange r = clang_getCursorExtent(p);
	long b = main_offset(c, clang_getRangeStart(r)), e = main_offset(c, clang_getRangeEnd(r));
	if (b < 0 || e <= b || (size_t)e > c->f->len)
		return NULL;
	const char *s = c->f->src;
	int depth = 0;
	for (long i = b; i < e; i++) {
		char ch = s[i];
		if (ch == '(' || ch == '[' || ch == '<' || ch == '{')
			depth++;
		else if ((ch == ')' || ch == ']' || ch == '>' || ch == '}') && depth)
			depth--;
		else if (ch == '=' && !depth && s[i + 1] != '=' && !strchr("!<>=", s[i - 1])) {
			long j = e;
			for (i++; i < j && strchr(" \t\r\n", s[i]); i++)
				;
			while (j > i && strchr(" \t\r\n", s[j - 1]))
				j--;
			return j > i ? kp_arena_strndup(&c->f->arena, s + i, (size_t)(j - i))
				     : NULL;
		}
	}
	return NULL;
}

/* A function definition (a kernel, a __device__ function with tiles, a
 * helper) converted: name, template parameters, parameters, body, launch
 * bounds. */
static kp_kernel *make_function(pctx *c, CXCursor cur, int is_template)
{
	kp_file *f = c->f;
	kp_kernel *k = kp_arena_alloc(&f->arena, sizeof(*k));
	k->name = cx_dup(&f->arena, clang_getCursorSpelling(cur));
	k->is_template = is_template;
	CXSourceRange r = clang_getCursorExtent(cur);
	k->begin = (unsigned)main_offset(c, clang_getRangeStart(r));
	k->end = (unsigned)main_offset(c, clang_getRangeEnd(r));
	long no = file_offset(c, clang_getCursorLocation(cur));
	kp_file_linecol(f, no >= 0 ? (unsigned)no : k->begin, &k->line, &k->col);
	cursor_list l = {0};
	clang_visitChildren(cur, collect, &l);
	int capp = 0;
	kp_strbuf disp = KP_STRBUF_INIT;
	kp_strbuf_adds(&disp, k->name);
	for (int i = 0; i < l.n; i++) {
		enum CXCursorKind kk = clang_getCursorKind(l.v[i]);
		if (kk == CXCursor_NonTypeTemplateParameter ||
		    kk == CXCursor_TemplateTypeParameter) {
			const char **nv = kp_arena_alloc(
				&f->arena, sizeof(char *) * (size_t)(k->ntparams + 1));
			if (k->ntparams)
				memcpy(nv, k->tparam_names, sizeof(char *) * (size_t)k->ntparams);
			if (kk == CXCursor_NonTypeTemplateParameter && k->ntparams < KP_MAX_TARGS &&
			    clang_getCursorType(l.v[i]).kind == CXType_Bool)
				k->tparam_bool |= 1u << k->ntparams;
			if (kk == CXCursor_TemplateTypeParameter && k->ntparams < 32)
				k->tparam_type |= 1u << k->ntparams;
			k->tparam_unusual |= tparam_is_pack(c, l.v[i]);
			const char **dv = kp_arena_alloc(
				&f->arena, sizeof(char *) * (size_t)(k->ntparams + 1));
			if (k->ntparams)
				memcpy(dv, k->tparam_defaults,
				       sizeof(char *) * (size_t)k->ntparams);
			dv[k->ntparams] = tparam_default(c, l.v[i]);
			k->tparam_defaults = dv;
			nv[k->ntparams++] = cx_dup(&f->arena, clang_getCursorSpelling(l.v[i]));
			k->tparam_names = nv;
			decl_for(c, l.v[i]);
		} else if (kk == CXCursor_TemplateTemplateParameter) {
			k->tparam_unusual = 1;
		} else if (kk == CXCursor_ParmDecl) {
			if (k->nparams == capp) {
				capp = capp ? capp * 2 : 8;
				kp_decl **np =
					kp_arena_alloc(&f->arena, sizeof(*np) * (size_t)capp);
				if (k->nparams)
					memcpy(np, k->params, sizeof(*np) * (size_t)k->nparams);
				k->params = np;
			}
			k->params[k->nparams++] = decl_for(c, l.v[i]);
		} else if (kk == CXCursor_CompoundStmt) {
			c->in_template = is_template;
			k->body = convert(c, l.v[i]);
			c->in_template = 0;
		}
	}
	free(l.v);
	if (k->ntparams) {
		kp_strbuf_addc(&disp, '<');
		for (int i = 0; i < k->ntparams; i++)
			kp_strbuf_addf(&disp, "%s%s", i ? ", " : "", k->tparam_names[i]);
		kp_strbuf_addc(&disp, '>');
	}
	k->display = kp_arena_strdup(&f->arena, kp_strbuf_str(&disp));
	/* the enclosing namespaces, outermost first */
	kp_strbuf qn = KP_STRBUF_INIT;
	for (CXCursor p = clang_getCursorSemanticParent(cur);
	     clang_getCursorKind(p) == CXCursor_Namespace; p = clang_getCursorSemanticParent(p)) {
		CXString ns = clang_getCursorSpelling(p);
		const char *nss = clang_getCString(ns);
		char *prev = kp_strbuf_detach(&qn);
		kp_strbuf_addf(&qn, "%s::%s", nss && *nss ? nss : "(anonymous namespace)", prev);
		free(prev);
		clang_disposeString(ns);
	}
	kp_strbuf_adds(&qn, k->name);
	k->qualified = kp_arena_strdup(&f->arena, kp_strbuf_str(&qn));
	kp_strbuf_release(&qn);
	kp_strbuf_release(&disp);
	/* __launch_bounds__(N) in the declaration text before the body: N
	 * evaluated (a template parameter in it leaves it unknown) */
	if (k->body && k->body->in_main) {
		kp_ceval_env env = {c->tu, f, c->argv, c->nargv, k->tparam_names, k->ntparams};
		k->launch_bounds = kp_ceval_launch_bounds(&env, k->begin, k->body->begin);
	}
	if (!k->params) /* mark as kernel for template lookup even with no params */
		k->params = kp_arena_alloc(&f->arena, sizeof(kp_decl *));
	return k;
}

static void fill_kernel(kernel_scan *ks, CXCursor cur, int is_template)
{
	kp_kernel *k = make_function(ks->c, cur, is_template);
	if (ks->n == ks->cap) {
		ks->cap = ks->cap ? ks->cap * 2 : 8;
		ks->v = kp_xrealloc(ks->v, sizeof(*ks->v) * (size_t)ks->cap);
	}
	ks->v[ks->n++] = k;
}

static enum CXChildVisitResult find_shared_attr(CXCursor cur, CXCursor parent, CXClientData ud)
{
	(void)parent;
	if (clang_getCursorKind(cur) != CXCursor_CUDASharedAttr)
		return CXChildVisit_Continue;
	*(int *)ud = 1;
	return CXChildVisit_Break;
}

/* Whether a function body declares a __shared__ variable (a cheap look
 * before converting it: a file may hold thousands of small __device__
 * functions). */
static enum CXChildVisitResult find_shared_var(CXCursor cur, CXCursor parent, CXClientData ud)
{
	(void)parent;
	if (clang_getCursorKind(cur) == CXCursor_VarDecl) {
		clang_visitChildren(cur, find_shared_attr, ud);
		return *(int *)ud ? CXChildVisit_Break : CXChildVisit_Continue;
	}
	return CXChildVisit_Recurse;
}

typedef struct {
	const kp_kernel *callee;
	const kp_decl *key; /* a function of another file: its declaration */
	int calls;
} call_walk;

static int find_call(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	call_walk *w = ud;
	if (n->kind == KP_N_CALL && n->decl && n->decl->kind == KP_D_FUNC && n->name &&
	    (w->key ? n->decl == w->key || n->decl->tmpl == w->key
		    : !strcmp(n->name, w->callee->name) && n->decl->line == w->callee->line))
		w->calls++;
	return 1;
}

/* Whether one of kernel k's instantiations takes the function d as a
 * template argument (`trimul_global<matmul_tri4>`, a call through a
 * function-pointer parameter). */
static int passed_as_template_argument(const kp_kernel *k, const kp_kernel *d)
{
	for (int i = 0; i < k->ninst; i++)
		if (k->inst_args[i] &&
		    kp_mentions_ident(k->inst_args[i], 0, strlen(k->inst_args[i]), d->name))
			return 1;
	return 0;
}

/* A __device__ function's callers among the kernels of `from` (its own
 * file f, or for a function of a project header the .cu that includes
 * it): a direct call, or the function handed to a kernel template as its
 * argument; and their __launch_bounds__ when every caller has the same.
 * Callers found earlier are kept. */
static void device_callers(kp_file *f, const kp_file *from, kp_kernel *d, const kp_decl *key)
{
	kp_strbuf names = KP_STRBUF_INIT;
	int bounds = d->ncallers ? d->launch_bounds : -1;
	if (d->callers)
		kp_strbuf_adds(&names, d->callers);
	for (int i = 0; i < from->nkernels; i++) {
		kp_kernel *k = from->kernels[i];
		if (k->is_device)
			continue;
		call_walk w = {d, key, 0};
		kp_node_walk(k->body, NULL, find_call, &w);
		int via_template = !w.calls && passed_as_template_argument(k, d);
		if (!w.calls && !via_template)
			continue;
		kp_strbuf_addf(&names, "%s%s%s%s", names.len ? ", " : "", k->name,
			       via_template ? "<" : "", via_template ? d->name : "");
		kp_kernel **ck = kp_arena_alloc(&f->arena, sizeof(*ck) * (size_t)(d->ncallers + 1));
		if (d->ncallers)
			memcpy(ck, d->caller_k, sizeof(*ck) * (size_t)d->ncallers);
		ck[d->ncallers++] = k;
		d->caller_k = ck;
		if (via_template)
			kp_strbuf_addc(&names, '>');
		bounds = bounds < 0 || bounds == k->launch_bounds ? k->launch_bounds : 0;
	}
	if (names.len)
		d->callers = kp_arena_strdup(&f->arena, kp_strbuf_str(&names));
	if (!d->launch_bounds && bounds > 0)
		d->launch_bounds = bounds;
	kp_strbuf_release(&names);
}

typedef struct {
	kp_decl **v;
	int n, cap;
} callee_set;

static int collect_callees(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	callee_set *cs = ud;
	kp_decl *d = n->kind == KP_N_CALL && n->decl && n->decl->tmpl ? n->decl->tmpl : n->decl;
	if (n->kind != KP_N_CALL || !d || d->kind != KP_D_FUNC || d->fn)
		return 1;
	for (int i = 0; i < cs->n; i++)
		if (cs->v[i] == d)
			return 1;
	if (cs->n == cs->cap) {
		cs->cap = cs->cap ? cs->cap * 2 : 16;
		cs->v = kp_xrealloc(cs->v, sizeof(*cs->v) * (size_t)cs->cap);
	}
	cs->v[cs->n++] = d;
	return 1;
}

/* An implicit instantiation's callee gets its template's definition (or
 * the reason there is none). */
static int share_template_fn(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	(void)ud;
	kp_decl *d = n->kind == KP_N_CALL ? n->decl : NULL;
	if (d && d->tmpl && !d->fn) {
		d->fn = d->tmpl->fn;
		if (!d->fn_why)
			d->fn_why = d->tmpl->fn_why;
	}
	return 1;
}

static const char *cuda_root(const char *cuda_path);
static const char *stub_dir(const char *cuda_path);

/* The qualified name of namespace cursor ns ("a::b"), arena-owned. */
static const char *namespace_name(kp_arena *a, CXCursor ns)
{
	kp_strbuf qn = KP_STRBUF_INIT;
	for (CXCursor p = ns; clang_getCursorKind(p) == CXCursor_Namespace;
	     p = clang_getCursorSemanticParent(p)) {
		CXString nm = clang_getCursorSpelling(p);
		const char *nss = clang_getCString(nm);
		char *prev = kp_strbuf_detach(&qn);
		kp_strbuf_addf(&qn, "%s%s%s", nss && *nss ? nss : "(anonymous namespace)",
			       *prev ? "::" : "", prev);
		free(prev);
		clang_disposeString(nm);
	}
	const char *r = kp_arena_strdup(a, kp_strbuf_str(&qn));
	kp_strbuf_release(&qn);
	return r;
}

typedef struct {
	pctx *c;
	const char *ns;
} ns_scan;

static enum CXChildVisitResult find_ns_type(CXCursor cur, CXCursor parent, CXClientData ud)
{
	(void)parent;
	ns_scan *w = ud;
	enum CXCursorKind k = clang_getCursorKind(cur);
	if (k != CXCursor_TypeRef && k != CXCursor_TemplateRef)
		return CXChildVisit_Recurse;
	CXCursor p = clang_getCursorSemanticParent(clang_getCursorReferenced(cur));
	if (clang_getCursorKind(p) != CXCursor_Namespace)
		return CXChildVisit_Continue;
	long o = file_offset(w->c, clang_getCursorLocation(cur));
	if (o > 0) {
		long j = o;
		while (j > 0 && (w->c->f->src[j - 1] == ' ' || w->c->f->src[j - 1] == '\t'))
			j--;
		if (j > 0 && w->c->f->src[j - 1] == ':')
			return CXChildVisit_Continue; /* qualified: ns::Vec */
	}
	w->ns = namespace_name(&w->c->f->arena, p);
	return CXChildVisit_Break;
}

/* kp_kernel.ns_type of helper definition def. */
static const char *ns_type_of(pctx *c, CXCursor def)
{
	ns_scan w = {c, NULL};
	clang_visitChildren(def, find_ns_type, &w);
	return w.ns;
}

/* The callee of cs named like cur (a definition) and declared by it,
 * without a conversion or a reason yet; NULL otherwise. */
static kp_decl *callee_of(pctx *c, const callee_set *cs, CXCursor cur)
{
	CXString nm = clang_getCursorSpelling(cur);
	const char *name = clang_getCString(nm);
	int called = 0;
	for (int i = 0; i < cs->n && !called; i++)
		called = name && !strcmp(cs->v[i]->name, name);
	clang_disposeString(nm);
	if (!called)
		return NULL;
	kp_decl *d = decl_for(c, cur);
	for (int i = 0; i < cs->n; i++)
		if (cs->v[i] == d)
			return d && d->kind == KP_D_FUNC && !d->fn && !d->fn_why ? d : NULL;
	return NULL;
}

/* Definitions outside the main file whose names the kernels call. */
typedef struct {
	pctx *c;
	const callee_set *cs;
	CXCursor *defs;
	int n;
} home_scan;

static enum CXChildVisitResult find_home_helpers(CXCursor cur, CXCursor parent, CXClientData ud)
{
	(void)parent;
	home_scan *h = ud;
	enum CXCursorKind k = clang_getCursorKind(cur);
	CXSourceLocation loc = clang_getCursorLocation(cur);
	if (k == CXCursor_Namespace || k == CXCursor_LinkageSpec || k == CXCursor_UnexposedDecl)
		return clang_Location_isInSystemHeader(loc) ? CXChildVisit_Continue
							    : CXChildVisit_Recurse;
	if ((k != CXCursor_FunctionDecl && k != CXCursor_FunctionTemplate) ||
	    !clang_isCursorDefinition(cur) || main_offset(h->c, loc) >= 0)
		return CXChildVisit_Continue;
	kp_decl *d = callee_of(h->c, h->cs, cur);
	if (d && k == CXCursor_FunctionDecl && clang_Cursor_getNumTemplateArguments(cur) > 0)
		d->fn_why = "it is an explicit specialisation of a template";
	if (!d || d->fn_why)
		return CXChildVisit_Continue;
	h->defs = kp_xrealloc(h->defs, sizeof(CXCursor) * (size_t)(h->n + 1));
	h->defs[h->n++] = cur;
	return CXChildVisit_Continue;
}

/* The offset of loc's expansion in `file`, -1 elsewhere. */
static long offset_in(CXSourceLocation loc, CXFile file)
{
	CXFile lf;
	unsigned off;
	clang_getExpansionLocation(loc, &lf, NULL, NULL, &off);
	return lf && clang_File_isEqual(lf, file) ? (long)off : -1;
}

/* Whether the real path abs lies under dir (a path, resolved here). */
static int path_under(const char *abs, const char *dir)
{
	char *r = dir ? realpath(dir, NULL) : NULL;
	size_t n = r ? strlen(r) : 0;
	int under = r && !strncmp(abs, r, n) && (abs[n] == '/' || (n == 1 && r[0] == '/'));
	free(r);
	return under;
}

static const kp_unsaved *unsaved_for(const kp_parse_opts *o, const char *abs);

/* The model of a project header holding helpers (f->helper_homes), made
 * on first use with its pctx in hcs[]; NULL when it cannot be read. */
static pctx *home_of(pctx *c, CXFile file, const char *abs, pctx **hcs)
{
	kp_file *f = c->f;
	for (int i = 0; i < f->nhelper_homes; i++)
		if (!strcmp(f->helper_homes[i]->abs_path, abs))
			return *hcs + i;
	kp_file *m = kp_xcalloc(1, sizeof(*m));
	m->abs_path = kp_arena_strdup(&m->arena, abs);
	char *shown = kp_display_path(abs);
	m->path = kp_arena_strdup(&m->arena, shown);
	free(shown);
	const kp_unsaved *u = unsaved_for(c->o, abs);
	int e = 0;
	if (u) {
		m->src = kp_xstrndup(u->text, u->len);
		m->len = u->len;
	} else
		e = kp_read_file(abs, &m->src, &m->len);
	if (e || memchr(m->src, '\0', m->len)) {
		kp_file_release(m);
		free(m);
		return NULL;
	}
	f->helper_homes =
		kp_xrealloc(f->helper_homes, sizeof(kp_file *) * (size_t)(f->nhelper_homes + 1));
	f->helper_homes[f->nhelper_homes] = m;
	*hcs = kp_xrealloc(*hcs, sizeof(pctx) * (size_t)(f->nhelper_homes + 1));
	pctx *hc = *hcs + f->nhelper_homes++;
	memset(hc, 0, sizeof(*hc));
	hc->f = m;
	hc->tu = c->tu;
	hc->main = file;
	hc->argv = c->argv;
	hc->nargv = c->nargv;
	return hc;
}

/* Converts a helper defined outside the main file (def) into d->fn, in
 * the model of its header, or says in d->fn_why why not. */
static void add_home_helper(pctx *c, CXCursor def, kp_decl *d, pctx **hcs)
{
	CXSourceLocation loc = clang_getCursorLocation(def);
	CXFile file;
	clang_getExpansionLocation(loc, &file, NULL, NULL, NULL);
	CXString fn = clang_getFileName(file);
	char *abs = clang_getCString(fn) ? realpath(clang_getCString(fn), NULL) : NULL;
	clang_disposeString(fn);
	attr_scan as = {c, 0, 0, 0, 0, 0, 0, 0};
	clang_visitChildren(def, scan_attrs, &as);
	int shared = 0;
	clang_visitChildren(def, find_shared_var, &shared);
	CXSourceRange r = clang_getCursorExtent(def);
	kp_arena *a = &c->f->arena;
	if (!abs)
		d->fn_why = "its definition is not in a file kpipe can read";
	else if (clang_Location_isInSystemHeader(loc))
		d->fn_why = kp_arena_printf(a, "it is defined in a system header (%s)", abs);
	else if (path_under(abs, cuda_root(c->o->cuda_path)) ||
		 (stub_dir(c->o->cuda_path) && path_under(abs, stub_dir(c->o->cuda_path))))
		d->fn_why = kp_arena_printf(a, "it is defined in the CUDA toolkit (%s)", abs);
	else if (as.global || !as.device)
		d->fn_why = "it is not a __device__ function";
	else if (shared)
		d->fn_why = "it declares __shared__ arrays of its own";
	else if (offset_in(clang_getRangeStart(r), file) < 0 ||
		 offset_in(clang_getRangeEnd(r), file) < 0)
		d->fn_why = "its definition is written by a macro";
	pctx *hc = d->fn_why ? NULL : home_of(c, file, abs, hcs);
	if (!d->fn_why && !hc)
		d->fn_why = kp_arena_printf(a, "its header (%s) cannot be read", abs);
	free(abs);
	if (!hc)
		return;
	kp_kernel *k =
		make_function(hc, def, clang_getCursorKind(def) == CXCursor_FunctionTemplate);
	k->home = hc->f;
	k->ns_type = ns_type_of(hc, def);
	d->fn = k;
}

/* The helpers the kernels call, converted into their declarations'
 * kp_decl.fn (the pass that inlines load helpers reads them).  Only a
 * helper whose name a kernel calls is looked up: a file may hold
 * thousands of small __device__ functions, and each lookup (decl_for)
 * searches the declarations seen so far.  For the main file's model (c->o
 * set), a helper defined in a project header is converted in a model of
 * that header (kp_file.helper_homes); a callee that is not converted gets
 * the reason in kp_decl.fn_why. */
static void add_helpers(pctx *c, kernel_scan *ks)
{
	kp_file *f = c->f;
	callee_set cs = {0};
	for (int i = 0; i < f->nkernels; i++)
		kp_node_walk(f->kernels[i]->body, NULL, collect_callees, &cs);
	for (int h = 0; h < ks->nhelpers && cs.n; h++) {
		kp_decl *d = callee_of(c, &cs, ks->helpers[h]);
		if (d) {
			d->fn = make_function(c, ks->helpers[h],
					      clang_getCursorKind(ks->helpers[h]) ==
						      CXCursor_FunctionTemplate);
			d->fn->ns_type = ns_type_of(c, ks->helpers[h]);
		}
	}
	for (int h = 0; h < ks->nothers && cs.n; h++) {
		kp_decl *d = callee_of(c, &cs, ks->others[h]);
		if (d)
			d->fn_why = ks->other_why[h];
	}
	if (c->o && cs.n) {
		home_scan hs = {c, &cs, NULL, 0};
		clang_visitChildren(clang_getTranslationUnitCursor(c->tu), find_home_helpers, &hs);
		pctx *hcs = NULL;
		for (int i = 0; i < hs.n; i++) {
			kp_decl *d = callee_of(c, &cs, hs.defs[i]);
			if (d)
				add_home_helper(c, hs.defs[i], d, &hcs);
		}
		for (int i = 0; i < f->nhelper_homes; i++) {
			free(hcs[i].dkeys);
			free(hcs[i].dvals);
			free(hcs[i].dindex);
		}
		free(hcs);
		free(hs.defs);
	}
	for (int i = 0; i < cs.n; i++)
		if (!cs.v[i]->fn && !cs.v[i]->fn_why && cs.v[i]->kind == KP_D_FUNC)
			cs.v[i]->fn_why = "kpipe sees no definition of it outside system headers";
	for (int i = 0; i < f->nkernels; i++)
		kp_node_walk(f->kernels[i]->body, NULL, share_template_fn, NULL);
	free(cs.v);
}

static void other_function(kernel_scan *ks, CXCursor cur, const char *why)
{
	ks->others = kp_xrealloc(ks->others, sizeof(CXCursor) * (size_t)(ks->nothers + 1));
	ks->other_why = kp_xrealloc(ks->other_why, sizeof(char *) * (size_t)(ks->nothers + 1));
	ks->others[ks->nothers] = cur;
	ks->other_why[ks->nothers++] = why;
}

static enum CXChildVisitResult find_kernels(CXCursor cur, CXCursor parent, CXClientData ud)
{
	(void)parent;
	kernel_scan *ks = ud;
	enum CXCursorKind k = clang_getCursorKind(cur);
	if (k == CXCursor_Namespace || k == CXCursor_LinkageSpec || k == CXCursor_UnexposedDecl)
		return CXChildVisit_Recurse;
	if (k != CXCursor_FunctionDecl && k != CXCursor_FunctionTemplate)
		return CXChildVisit_Continue;
	if (main_offset(ks->c, clang_getCursorLocation(cur)) < 0)
		return CXChildVisit_Continue;
	if (!clang_isCursorDefinition(cur))
		return CXChildVisit_Continue;
	if (k == CXCursor_FunctionDecl && clang_Cursor_getNumTemplateArguments(cur) > 0) {
		/* explicit specialisation body: rare, skip */
		other_function(ks, cur, "it is an explicit specialisation of a template");
		return CXChildVisit_Continue;
	}
	attr_scan as = {ks->c, 0, 0, 0, 0, 0, 0, 0};
	clang_visitChildren(cur, scan_attrs, &as);
	if (as.global) {
		fill_kernel(ks, cur, k == CXCursor_FunctionTemplate);
		return CXChildVisit_Continue;
	}
	/* a __device__ function with __shared__ arrays of its own: its
	 * K-loops are candidates too (the kernels' launch bounds are its) */
	if (!as.device) {
		other_function(ks, cur, "it is not a __device__ function");
		return CXChildVisit_Continue;
	}
	int shared = 0;
	clang_visitChildren(cur, find_shared_var, &shared);
	if (shared && as.host)
		other_function(ks, cur, "it declares __shared__ arrays of its own");
	if (shared && as.host)
		return CXChildVisit_Continue;
	if (!shared) {
		/* a helper: converted only when a kernel calls it (add_helpers) */
		if (ks->nhelpers == ks->caphelpers) {
			ks->caphelpers = ks->caphelpers ? ks->caphelpers * 2 : 16;
			ks->helpers =
				kp_xrealloc(ks->helpers, sizeof(CXCursor) * (size_t)ks->caphelpers);
		}
		ks->helpers[ks->nhelpers++] = cur;
		return CXChildVisit_Continue;
	}
	fill_kernel(ks, cur, k == CXCursor_FunctionTemplate);
	ks->v[ks->n - 1]->is_device = 1;
	other_function(ks, cur, "it declares __shared__ arrays of its own");
	return CXChildVisit_Continue;
}

static int exists_file(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0;
}

/* kpipe's own stand-in headers live in $TMPDIR/kpipe-stub-UID/.  Writes
 * NAME there (atomically) unless it exists, and puts its path into path.
 * Returns 0, or -1 when it cannot be written. */
static int stub_file(const char *name, const char *text, char *path, size_t pathsz)
{
	const char *tmp = getenv("TMPDIR");
	char dir[3800];
	snprintf(dir, sizeof(dir), "%s/kpipe-stub-%d", tmp && *tmp ? tmp : "/tmp", (int)getuid());
	mkdir(dir, 0700);
	if (snprintf(path, pathsz, "%s/%s", dir, name) >= (int)pathsz)
		return -1;
	if (!exists_file(path) && kp_write_file_atomic(path, text, strlen(text)) != 0)
		return -1;
	return 0;
}

/* The toolkit root kpipe parses against: --cuda-path, $CUDA_HOME,
 * $CUDA_PATH, /usr/local/cuda. */
static const char *cuda_root(const char *cuda_path)
{
	const char *cp = cuda_path;
	if (!cp || !*cp)
		cp = getenv("CUDA_HOME");
	if (!cp || !*cp)
		cp = getenv("CUDA_PATH");
	if (!cp || !*cp)
		cp = "/usr/local/cuda";
	return cp;
}

/* CUDA 13 removed texture_fetch_functions.h, which clang <= 20's wrapper
 * still includes: point -isystem at an empty stand-in when it is missing. */
static const char *stub_dir(const char *cuda_path)
{
	static char dir[4096];
	static int done;
	if (done)
		return dir[0] ? dir : NULL;
	done = 1;
	char probe[4096];
	snprintf(probe, sizeof(probe), "%s/include/texture_fetch_functions.h",
		 cuda_root(cuda_path));
	if (exists_file(probe))
		return NULL;
	if (stub_file("texture_fetch_functions.h",
		      "/* kpipe: empty stand-in for a header CUDA 13 no longer ships */\n", dir,
		      sizeof(dir)) != 0) {
		dir[0] = '\0';
		return NULL;
	}
	*strrchr(dir, '/') = '\0'; /* the directory */
	return dir;
}

/* The cuda_wrappers directory of the resource directory of the libclang
 * kpipe runs with (found from the library's own path), or NULL. */
static const char *cuda_wrappers_dir(void)
{
	static char dir[4096];
	static int done;
	if (done)
		return dir[0] ? dir : NULL;
	done = 1;
	Dl_info di;
	char lib[4096] = "";
	if (dladdr((void *)clang_getClangVersion, &di) && di.dli_fname) {
		char *real = realpath(di.dli_fname, NULL);
		snprintf(lib, sizeof(lib), "%s", real ? real : di.dli_fname);
		free(real);
	}
	char *slash = strrchr(lib, '/');
	if (slash)
		*slash = '\0';
	char probe[2][4200];
	snprintf(probe[0], sizeof(probe[0]), "%s/clang/%d/include/cuda_wrappers", lib,
		 KPIPE_LIBCLANG_MAJOR);
	snprintf(probe[1], sizeof(probe[1]), "/usr/lib/llvm-%d/lib/clang/%d/include/cuda_wrappers",
		 KPIPE_LIBCLANG_MAJOR, KPIPE_LIBCLANG_MAJOR);
	for (int i = lib[0] ? 0 : 1; i < 2; i++) {
		char nw[4300];
		snprintf(nw, sizeof(nw), "%s/new", probe[i]);
		if (exists_file(nw)) {
			snprintf(dir, sizeof(dir), "%s", probe[i]);
			return dir;
		}
	}
	return NULL;
}

const char *kp_parse_arch(const char *arch)
{
	const char *d = arch ? arch : "sm_90";
	while (*d && (*d < '0' || *d > '9'))
		d++;
	int n = atoi(d);
#if KPIPE_LIBCLANG_MAJOR >= 20
	if (n > 120)
		return "sm_120";
#else
	if (n > 90)
		return "sm_90";
#endif
	if (n > 0 && n < 50) /* Kepler: clang refuses it with CUDA 12 and later */
		return "sm_50";
	return arch ? arch : "sm_90";
}

void kp_clang_arg(kp_strbuf *store, int *nstore, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	kp_strbuf_vaddf(store, fmt, ap);
	va_end(ap);
	kp_strbuf_addc(store, '\0');
	(*nstore)++;
}

void kp_clang_base_args(const char *arch, const char *cuda_path, kp_strbuf *store, int *nstore)
{
#define ADD_ARG(...) kp_clang_arg(store, nstore, __VA_ARGS__)
	ADD_ARG("-x");
	ADD_ARG("cuda");
	ADD_ARG("--cuda-device-only");
	ADD_ARG("--cuda-gpu-arch=%s", kp_parse_arch(arch));
	if (cuda_path)
		ADD_ARG("--cuda-path=%s", cuda_path);
	ADD_ARG("-std=c++17");
	ADD_ARG("-Wno-unknown-cuda-version");
	ADD_ARG("-ferror-limit=0"); /* every error is placed: kernel or not */
	const char *sd = stub_dir(cuda_path);
	if (sd) {
		ADD_ARG("-isystem");
		ADD_ARG("%s", sd);
	}
	/* clang's CUDA wrappers of <new>, <cmath>, <algorithm>, <complex>,
	 * which its driver adds from a resource directory libclang does not
	 * find: without them placement new in device code (CUB's BlockLoad)
	 * is an error */
	const char *cw = cuda_wrappers_dir();
	if (cw) {
		ADD_ARG("-isystem");
		ADD_ARG("%s", cw);
	}
	/* what nvcc defines and clang does not: the toolkit's version
	 * (__NVCC__ stays undefined: clang is not nvcc, and headers that test
	 * it take nvcc-only paths) */
	int vmaj, vmin, vbuild;
	if (!kp_toolkit_version(cuda_root(cuda_path), &vmaj, &vmin, &vbuild)) {
		ADD_ARG("-D__CUDACC_VER_MAJOR__=%d", vmaj);
		ADD_ARG("-D__CUDACC_VER_MINOR__=%d", vmin);
		ADD_ARG("-D__CUDACC_VER_BUILD__=%d", vbuild);
	}
	/* CUDA 13 keeps libcu++, CUB and Thrust (and what cooperative groups
	 * include from them) under include/cccl, which nvcc adds through its
	 * profile; clang's CUDA driver does not */
	char cccl[4096];
	snprintf(cccl, sizeof(cccl), "%s/include/cccl", cuda_root(cuda_path));
	struct stat st;
	if (stat(cccl, &st) == 0 && S_ISDIR(st.st_mode)) {
		ADD_ARG("-isystem");
		ADD_ARG("%s", cccl);
	}
#undef ADD_ARG
}

/* The compile_commands.json that holds `abs` (an absolute path): in
 * build_dir, or with `search` the first found upward from the file, in a
 * directory or its build/ subdirectory.  Returns the directory
 * (malloc'd), or NULL. */
static char *find_compdb(const char *abs, const char *build_dir, int search)
{
	if (build_dir)
		return kp_xstrdup(build_dir);
	if (!search)
		return NULL;
	char dirbuf[4096];
	snprintf(dirbuf, sizeof(dirbuf), "%s", abs);
	char *d = dirname(dirbuf);
	char probe[4200];
	for (;;) {
		snprintf(probe, sizeof(probe), "%s/compile_commands.json", d);
		if (exists_file(probe))
			return kp_xstrdup(d);
		snprintf(probe, sizeof(probe), "%s/build/compile_commands.json", d);
		if (exists_file(probe)) {
			snprintf(probe, sizeof(probe), "%s/build", d);
			return kp_xstrdup(probe);
		}
		if (!strcmp(d, "/") || !*d)
			return NULL;
		d = dirname(d);
	}
}

int kp_compdb_lookup(const char *path, const char *build_dir, int search, kp_flags *out,
		     char **db_json)
{
	memset(out, 0, sizeof(*out));
	*db_json = NULL;
	char *abs = realpath(path, NULL);
	if (!abs)
		return -1;
	char *dir = find_compdb(abs, build_dir, search);
	if (!dir) {
		free(abs);
		return -1;
	}
	CXCompilationDatabase_Error err;
	CXCompilationDatabase db = clang_CompilationDatabase_fromDirectory(dir, &err);
	if (err != CXCompilationDatabase_NoError || !db) {
		free(abs);
		free(dir);
		return -1;
	}
	char *rdir = realpath(dir, NULL);
	kp_strbuf js = KP_STRBUF_INIT;
	kp_strbuf_addf(&js, "%s/compile_commands.json", rdir ? rdir : dir);
	*db_json = kp_strbuf_detach(&js);
	free(rdir);
	int rc = 0;
	CXCompileCommands cmds = clang_CompilationDatabase_getCompileCommands(db, abs);
	if (cmds && clang_CompileCommands_getSize(cmds) > 0) {
		CXCompileCommand cmd = clang_CompileCommands_getCommand(cmds, 0);
		CXString wd = clang_CompileCommand_getDirectory(cmd);
		unsigned n = clang_CompileCommand_getNumArgs(cmd);
		char **argv = kp_xcalloc((size_t)n + 1, sizeof(char *));
		int argc = 0;
		for (unsigned i = 1; i < n; i++) { /* argv[0] is the compiler */
			CXString a = clang_CompileCommand_getArg(cmd, i);
			const char *s = clang_getCString(a);
			argv[argc++] = kp_xstrdup(s ? s : "");
			clang_disposeString(a);
		}
		kp_nvcc_translate((const char *const *)argv, argc, clang_getCString(wd), 0, out);
		for (int i = 0; i < argc; i++)
			free(argv[i]);
		free(argv);
		clang_disposeString(wd);
		rc = 1;
	}
	if (cmds)
		clang_CompileCommands_dispose(cmds);
	clang_CompilationDatabase_dispose(db);
	free(dir);
	free(abs);
	return rc;
}

/* The flags of the file's database entry, for a caller that did not look
 * them up itself (kp_parse_opts.no_compdb unset). */
static void compdb_args(const char *path, const char *build_dir, int search, kp_strbuf *store,
			int *nstore)
{
	kp_flags fl;
	char *db = NULL;
	if (kp_compdb_lookup(path, build_dir, search, &fl, &db) > 0)
		for (int i = 0; i < fl.nkeep; i++) {
			kp_strbuf_adds(store, fl.keep[i]);
			kp_strbuf_addc(store, '\0');
			(*nstore)++;
		}
	kp_flags_release(&fl);
	free(db);
}

/* Where a file without #include lines takes one: after its opening
 * comments (a licence, an SPDX line), after `#pragma once` or an include
 * guard's `#ifndef X` / `#define X`, never above them. */
static unsigned preamble_end(const kp_file *f)
{
	const char *s = f->src;
	size_t n = f->len, i = f->has_bom ? 3 : 0, end = i;
	int guard = 0; /* saw #ifndef: its #define closes the preamble */
	while (i < n) {
		while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n'))
			i++;
		if (i + 1 < n && s[i] == '/' && s[i + 1] == '/') {
			while (i < n && s[i] != '\n')
				i++;
			end = i < n ? i + 1 : i;
			continue;
		}
		if (i + 1 < n && s[i] == '/' && s[i + 1] == '*') {
			const char *c = memmem(s + i + 2, n - i - 2, "*/", 2);
			if (!c)
				break;
			i = (size_t)(c - s) + 2;
			while (i < n && s[i] != '\n')
				i++;
			end = i < n ? i + 1 : i;
			continue;
		}
		if (i < n && s[i] == '#') {
			size_t e = i;
			while (e < n && s[e] != '\n')
				e++;
			size_t p = i + 1;
			while (p < e && (s[p] == ' ' || s[p] == '\t'))
				p++;
			int once = e - p >= 11 && !strncmp(s + p, "pragma once", 11);
			int ifndef = e - p >= 6 && !strncmp(s + p, "ifndef", 6) && !guard;
			int define = e - p >= 6 && !strncmp(s + p, "define", 6) && guard;
			if (!once && !ifndef && !define)
				break;
			guard = ifndef;
			i = e < n ? e + 1 : e;
			if (!ifndef)
				end = i;
			continue;
		}
		break;
	}
	return (unsigned)end;
}

/* The end of the preprocessor line at i (with its continuations). */
static size_t directive_end(const char *s, size_t n, size_t i)
{
	while (i < n && s[i] != '\n')
		i += s[i] == '\\' && i + 1 < n && s[i + 1] == '\n' ? 2 : 1;
	return i;
}

/* Is the directive at s[p..e) (after the '#' and blanks) `word`? */
static int directive_is(const char *s, size_t p, size_t e, const char *word)
{
	size_t k = strlen(word);
	char next = e - p > k ? s[p + k] : ' ';
	return e - p >= k && !strncmp(s + p, word, k) && next != '_' &&
	       !(next >= 'a' && next <= 'z') && !(next >= 'A' && next <= 'Z') &&
	       !(next >= '0' && next <= '9');
}

/*
 * The offset after the last #include of the top of the file: the lines
 * before its first line of code (blank, comments, directives), outside
 * any #if but an include guard's; 0 when there is none.  An #include
 * further down, below kernels, is no place for <cuda_pipeline.h>: the
 * kernels above it would not see its declarations.
 */
static unsigned top_include_end(const kp_file *f)
{
	const char *s = f->src;
	size_t n = f->len, i = f->has_bom ? 3 : 0;
	int depth = 0, ndirectives = 0, guard = 0; /* 1: a first #ifndef, maybe a guard */
	unsigned last = 0;
	while (i < n) {
		while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n'))
			i++;
		if (i + 1 < n && s[i] == '/' && s[i + 1] == '/') {
			i = directive_end(s, n, i);
			continue;
		}
		if (i + 1 < n && s[i] == '/' && s[i + 1] == '*') {
			const char *c = memmem(s + i + 2, n - i - 2, "*/", 2);
			i = c ? (size_t)(c - s) + 2 : n;
			continue;
		}
		if (i >= n || s[i] != '#')
			break; /* code */
		size_t e = directive_end(s, n, i), p = i + 1;
		while (p < e && (s[p] == ' ' || s[p] == '\t'))
			p++;
		if (guard == 1 && !directive_is(s, p, e, "define"))
			depth++; /* the #ifndef was not a guard */
		if (guard == 1)
			guard = 2;
		if (directive_is(s, p, e, "include") && depth == 0)
			last = (unsigned)(e < n ? e + 1 : e);
		else if (directive_is(s, p, e, "ifndef") && !ndirectives && depth == 0)
			guard = 1;
		else if (directive_is(s, p, e, "if") || directive_is(s, p, e, "ifdef") ||
			 directive_is(s, p, e, "ifndef"))
			depth++;
		else if (directive_is(s, p, e, "endif") && depth > 0)
			depth--;
		ndirectives++;
		i = e;
	}
	return last;
}

static void scan_includes(kp_file *f)
{
	const char *s = f->src;
	size_t i = 0;
	while (i < f->len) {
		size_t e = i;
		while (e < f->len && s[e] != '\n')
			e++;
		size_t p = i;
		while (p < e && (s[p] == ' ' || s[p] == '\t'))
			p++;
		if (p < e && s[p] == '#') {
			p++;
			while (p < e && (s[p] == ' ' || s[p] == '\t'))
				p++;
			if (e - p >= 7 && !strncmp(s + p, "include", 7) &&
			    memmem(s + p, e - p, "cuda_pipeline", 13))
				f->includes_pipeline = 1;
		}
		i = e + 1;
	}
	f->last_include_end = top_include_end(f);
	if (!f->last_include_end)
		f->last_include_end = preamble_end(f);
}

/* ---- names a rewrite must not declare (kp_file.idents) ---- */

typedef struct {
	const char *p; /* into a buffer that lives until the list is stored */
	unsigned n;
} word;

typedef struct {
	word *v;
	int n, cap;
} word_list;

static int word_start(unsigned char ch)
{
	return ch == '_' || ch >= 0x80 || ((ch | 0x20) >= 'a' && (ch | 0x20) <= 'z');
}

static int word_char(unsigned char ch) { return word_start(ch) || (ch >= '0' && ch <= '9'); }

static void word_add(word_list *l, const char *p, size_t n)
{
	if (n > 4096)
		return; /* no name kpipe generates is that long */
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 256;
		l->v = kp_xrealloc(l->v, sizeof(*l->v) * (size_t)l->cap);
	}
	l->v[l->n++] = (word){p, (unsigned)n};
}

/* The identifier-like words of s[0, len) (runs of letters, digits, '_' and
 * non-ASCII bytes that do not start with a digit), or, with `prefix`, only
 * those that begin with it.  Comments and strings are read like code:
 * a word there only makes kpipe avoid one more name. */
static void scan_words(word_list *l, const char *s, size_t len, const char *prefix)
{
	if (!prefix) {
		size_t i = 0;
		while (i < len) {
			if (!word_char((unsigned char)s[i])) {
				i++;
				continue;
			}
			size_t b = i;
			while (i < len && word_char((unsigned char)s[i]))
				i++;
			if (word_start((unsigned char)s[b]))
				word_add(l, s + b, i - b);
		}
		return;
	}
	size_t pl = strlen(prefix);
	const char *p = s, *end = s + len;
	/* memchr for the first byte, then the rest: several times faster than
	 * memmem over the megabytes of CUDA headers */
	while (p < end && (p = memchr(p, prefix[0], (size_t)(end - p))) != NULL) {
		if ((size_t)(end - p) < pl || memcmp(p, prefix, pl)) {
			p++;
			continue;
		}
		const char *e = p + pl;
		while (e < end && word_char((unsigned char)*e))
			e++;
		if (p == s || !word_char((unsigned char)p[-1]))
			word_add(l, p, (size_t)(e - p));
		p = e;
	}
}

/* The names of the function-like macros s[0, len) defines (`#define
 * NAME(`: no blank before the parenthesis), added to l. */
static void scan_fn_macros(word_list *l, const char *s, size_t len)
{
	const char *p = s, *end = s + len;
	while (p < end && (p = memchr(p, '#', (size_t)(end - p))) != NULL) {
		const char *q = p + 1;
		p = q;
		while (q < end && (*q == ' ' || *q == '\t'))
			q++;
		if (end - q < 7 || memcmp(q, "define", 6) || (q[6] != ' ' && q[6] != '\t'))
			continue;
		q += 7;
		while (q < end && (*q == ' ' || *q == '\t'))
			q++;
		const char *b = q;
		while (q < end && word_char((unsigned char)*q))
			q++;
		if (q > b && q < end && *q == '(' && word_start((unsigned char)*b))
			word_add(l, b, (size_t)(q - b));
	}
}

typedef struct {
	CXFile main;
	word_list *words;
	word_list *fn_macros;
	kp_arena *arena;
	CXFile *seen;
	int nseen;
	unsigned long long deps; /* kp_file.deps_hash */
} inclusion_scan;

/* Every file of the translation unit but the main one (scanned whole),
 * once: the words that begin with KP_GEN_PREFIX, copied to the arena (they
 * are few).  The text is read from disk through mmap: asking libclang for
 * its buffer (clang_getFileContents) costs a search through all of its
 * source locations per file, several ms for the CUDA headers.  The headers
 * of a precompiled header (a batch's CUDA headers) are not listed. */
static void scan_inclusion(CXFile inc, CXSourceLocation *stack, unsigned depth, CXClientData ud)
{
	(void)stack;
	(void)depth;
	inclusion_scan *x = ud;
	if (!inc || clang_File_isEqual(inc, x->main))
		return;
	for (int i = 0; i < x->nseen; i++)
		if (clang_File_isEqual(inc, x->seen[i]))
			return;
	x->seen = kp_xrealloc(x->seen, sizeof(*x->seen) * (size_t)(x->nseen + 1));
	x->seen[x->nseen++] = inc;
	CXString name = clang_getFileName(inc);
	const char *path = clang_getCString(name);
	int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	if (path) /* the file as a cache key sees it: its path, size and time */
		x->deps = kp_fnv1a64(path, strlen(path) + 1, x->deps);
	clang_disposeString(name);
	if (fd < 0)
		return;
	struct stat st;
	if (fstat(fd, &st) == 0) {
		long long stamp[3] = {(long long)st.st_size, (long long)st.st_mtim.tv_sec,
				      (long long)st.st_mtim.tv_nsec};
		x->deps = kp_fnv1a64(stamp, sizeof(stamp), x->deps);
	}
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m != MAP_FAILED) {
			int first = x->words->n;
			scan_words(x->words, m, (size_t)st.st_size, KP_GEN_PREFIX);
			for (int i = first; i < x->words->n; i++)
				x->words->v[i].p = kp_arena_strndup(x->arena, x->words->v[i].p,
								    x->words->v[i].n);
			first = x->fn_macros->n;
			scan_fn_macros(x->fn_macros, m, (size_t)st.st_size);
			for (int i = first; i < x->fn_macros->n; i++)
				x->fn_macros->v[i].p = kp_arena_strndup(
					x->arena, x->fn_macros->v[i].p, x->fn_macros->v[i].n);
			munmap(m, (size_t)st.st_size);
		}
	}
	close(fd);
}

static int cmp_word(const void *a, const void *b)
{
	const word *x = a, *y = b;
	int c = memcmp(x->p, y->p, x->n < y->n ? x->n : y->n);
	return c ? c : (x->n > y->n) - (x->n < y->n);
}

/* f->idents: the main file's words, the KP_GEN_PREFIX words of the other
 * files and of the compiler arguments (a -Dkp_stage=3), sorted, unique. */
static void collect_names(pctx *c, const char *const *argv, int argc)
{
	kp_file *f = c->f;
	word_list l = {0};
	scan_words(&l, f->src, f->len, NULL);
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i] + (strncmp(argv[i], "-D", 2) ? 0 : 2); /* -Dkp_stage=3 */
		scan_words(&l, a, strlen(a), KP_GEN_PREFIX);
	}
	word_list fm = {0};
	scan_fn_macros(&fm, f->src, f->len);
	inclusion_scan x = {c->main, &l, &fm, &f->arena, NULL, 0, KP_FNV1A64_INIT};
	clang_getInclusions(c->tu, scan_inclusion, &x);
	free(x.seen);
	f->deps_hash = x.deps;
	if (fm.n)
		qsort(fm.v, (size_t)fm.n, sizeof(*fm.v), cmp_word);
	int nm = 0;
	for (int i = 0; i < fm.n; i++)
		if (!nm || cmp_word(&fm.v[nm - 1], &fm.v[i]))
			fm.v[nm++] = fm.v[i];
	f->fn_macros = kp_arena_alloc(&f->arena, sizeof(*f->fn_macros) * (size_t)(nm + 1));
	for (int i = 0; i < nm; i++)
		f->fn_macros[i] = kp_arena_strndup(&f->arena, fm.v[i].p, fm.v[i].n);
	f->nfn_macros = nm;
	free(fm.v);
	if (l.n)
		qsort(l.v, (size_t)l.n, sizeof(*l.v), cmp_word);
	int n = 0;
	for (int i = 0; i < l.n; i++)
		if (!n || cmp_word(&l.v[n - 1], &l.v[i]))
			l.v[n++] = l.v[i];
	f->idents = kp_arena_alloc(&f->arena, sizeof(*f->idents) * (size_t)(n + 1));
	for (int i = 0; i < n; i++)
		f->idents[i] = kp_arena_strndup(&f->arena, l.v[i].p, l.v[i].n);
	f->nidents = n;
	free(l.v);
}

const char *kp_libclang_version(void)
{
	static char buf[256];
	if (!buf[0]) {
		CXString v = clang_getClangVersion();
		snprintf(buf, sizeof(buf), "%s", clang_getCString(v));
		clang_disposeString(v);
	}
	return buf;
}

/* Whether loc lies in a function clang marks __device__ or __global__
 * (its enclosing function, found through the semantic parents). */
static int in_device_code(CXTranslationUnit tu, CXSourceLocation loc)
{
	CXCursor cur = clang_getCursor(tu, loc);
	for (int depth = 0; depth < 64 && !clang_Cursor_isNull(cur); depth++) {
		enum CXCursorKind k = clang_getCursorKind(cur);
		if (k == CXCursor_TranslationUnit || clang_isInvalid(k))
			return 0;
		if (k == CXCursor_FunctionDecl || k == CXCursor_FunctionTemplate ||
		    k == CXCursor_CXXMethod || k == CXCursor_Constructor ||
		    k == CXCursor_Destructor || k == CXCursor_ConversionFunction)
			return kp_cursor_is_device(cur); /* (no __shared__ on a function) */
		cur = clang_getCursorSemanticParent(cur);
	}
	return 0;
}

static void add_diag(kp_file *f, CXDiagnostic d, pctx *c)
{
	enum CXDiagnosticSeverity sev = clang_getDiagnosticSeverity(d);
	if (sev < CXDiagnostic_Warning)
		return;
	kp_parse_diag *nd = kp_arena_alloc(&f->arena, sizeof(*nd) * (size_t)(f->ndiags + 1));
	if (f->ndiags)
		memcpy(nd, f->diags, sizeof(*nd) * (size_t)f->ndiags);
	kp_parse_diag *x = &nd[f->ndiags];
	CXFile file;
	unsigned line, col;
	clang_getExpansionLocation(clang_getDiagnosticLocation(d), &file, &line, &col, NULL);
	x->line = (int)line;
	x->col = (int)col;
	x->file = file ? cx_dup(&f->arena, clang_getFileName(file)) : f->path;
	if (file && c->main && clang_File_isEqual(file, c->main))
		x->file = f->path;
	x->severity = sev >= CXDiagnostic_Error ? "error" : "warning";
	x->message = cx_dup(&f->arena, clang_getDiagnosticSpelling(d));
	CXString cat = clang_getDiagnosticCategoryText(d);
	const char *cs = clang_getCString(cat);
	x->semantic = cs && !strcmp(cs, "Semantic Issue");
	x->missing_include = cs && !strcmp(cs, "Lexical or Preprocessor Issue") &&
			     strstr(x->message, "file not found");
	clang_disposeString(cat);
	if (sev >= CXDiagnostic_Error && x->file != f->path) { /* errors_tolerable() */
		CXSourceLocation loc = clang_getDiagnosticLocation(d);
		x->in_system = clang_Location_isInSystemHeader(loc);
		x->in_device = c->tu && in_device_code(c->tu, loc);
	}
	f->diags = nd;
	f->ndiags++;
	if (sev >= CXDiagnostic_Error)
		f->nerrors++;
}

/* clang's CUDA wrapper leaves out sm_32_intrinsics.h, so its cache-hint
 * loads and stores (__ldca, which kpipe's register-ca rewrites call, and
 * __ldcg, __ldcs, __ldlu, __ldcv, __stcg, __stcs, __stwb, __stwt, which
 * real kernels and their headers use) are undeclared when clang parses
 * such a file: a false "does not compile".  Declarations for parsing
 * only, force-included in every parse; nvcc uses CUDA's own.  Returns the
 * header's path (a static buffer), or NULL when it cannot be written. */
static const char *hints_shim(void)
{
	static char path[4096];
	static int done;
	if (done)
		return path[0] ? path : NULL;
	done = 1;
	if (stub_file("kpipe_cache_hints_v2.h",
		      "/* kpipe: declares CUDA's cache-hint loads and stores for clang, whose\n"
		      " * CUDA wrapper does not include sm_32_intrinsics.h; used only when\n"
		      " * kpipe parses a file (nvcc has its own). */\n"
		      "#pragma once\n"
		      "#if defined(__clang__) && defined(__CUDA__) && !defined(__NVCC__)\n"
		      "template <typename T> __device__ T __ldca(const T *ptr);\n"
		      "template <typename T> __device__ T __ldcg(const T *ptr);\n"
		      "template <typename T> __device__ T __ldcs(const T *ptr);\n"
		      "template <typename T> __device__ T __ldlu(const T *ptr);\n"
		      "template <typename T> __device__ T __ldcv(const T *ptr);\n"
		      "template <typename T> __device__ void __stcg(T *ptr, T value);\n"
		      "template <typename T> __device__ void __stcs(T *ptr, T value);\n"
		      "template <typename T> __device__ void __stwb(T *ptr, T value);\n"
		      "template <typename T> __device__ void __stwt(T *ptr, T value);\n"
		      "#endif\n",
		      path, sizeof(path)) != 0)
		path[0] = '\0';
	return path[0] ? path : NULL;
}

/* The model of the file c->main stands for (its kernels with their
 * instantiations, its declarations, the names a rewrite must avoid) into
 * c->f, from the translation unit c->tu. */
static void build_model(pctx *c, const char *const *argv, int nstore)
{
	kp_file *f = c->f;
	c->argv = argv;
	c->nargv = nstore;
	collect_names(c, argv, nstore);
	kernel_scan ks = {0};
	ks.c = c;
	clang_visitChildren(clang_getTranslationUnitCursor(c->tu), find_kernels, &ks);
	int any_template = 0;
	for (int i = 0; i < ks.n; i++)
		any_template |= ks.v[i]->is_template;
	if (any_template)
		clang_visitChildren(clang_getTranslationUnitCursor(c->tu), find_insts, &ks);
	f->kernels = kp_arena_alloc(&f->arena, sizeof(kp_kernel *) * (size_t)(ks.n + 1));
	if (ks.n)
		memcpy(f->kernels, ks.v, sizeof(kp_kernel *) * (size_t)ks.n);
	f->nkernels = ks.n;
	free(ks.v);
	add_helpers(c, &ks);
	free(ks.helpers);
	free(ks.others);
	free(ks.other_why);
	for (int i = 0; i < f->nkernels; i++)
		if (f->kernels[i]->is_device)
			device_callers(f, f, f->kernels[i], NULL);
	scan_launches(c);
	kp_scan_runtime_launches(c->tu, c->main, f);
	if (any_template) {
		scan_explicit_insts(f);
		/* the same list, in the same order, whatever the order of the
		 * launches and instantiations in the file */
		for (int i = 0; i < f->nkernels; i++)
			sort_insts(f->kernels[i]);
	}
	f->decls = kp_arena_alloc(&f->arena, sizeof(kp_decl *) * (size_t)(c->nd + 1));
	if (c->nd)
		memcpy(f->decls, c->dvals, sizeof(kp_decl *) * (size_t)c->nd);
	f->ndecls = c->nd;
}

/* Kernels in project headers: a header qualifies when it is not a system
 * header and o->header_filter (a POSIX extended regex, searched in its real
 * path) matches, or without a filter when it lies under o->header_root. */
typedef struct {
	regex_t re;
	int have_re;
	const char *root;
	size_t rootlen;
} header_policy;

static void header_policy_init(header_policy *p, const kp_parse_opts *o)
{
	memset(p, 0, sizeof(*p));
	if (!o->headers)
		return;
	if (o->header_filter && *o->header_filter)
		p->have_re = regcomp(&p->re, o->header_filter, REG_EXTENDED | REG_NOSUB) == 0;
	else if (!o->header_filter) {
		p->root = o->header_root;
		p->rootlen = p->root ? strlen(p->root) : 0;
	}
}

static void header_policy_release(header_policy *p)
{
	if (p->have_re)
		regfree(&p->re);
}

static int wanted_header(const header_policy *h, const char *abs)
{
	if (h->have_re)
		return regexec(&h->re, abs, 0, NULL, 0) == 0;
	if (!h->root)
		return 0;
	if (h->rootlen == 1 && h->root[0] == '/')
		return 1;
	return !strncmp(abs, h->root, h->rootlen) && abs[h->rootlen] == '/';
}

typedef struct {
	pctx *c;
	const header_policy *pol;
	CXFile *files;
	char **abs;
	int n;
	CXCursor *dev; /* the __device__ K-loop functions of those headers */
	int ndev;
} header_scan;

static enum CXChildVisitResult find_header_kernels(CXCursor cur, CXCursor parent, CXClientData ud)
{
	(void)parent;
	header_scan *h = ud;
	enum CXCursorKind k = clang_getCursorKind(cur);
	if (k == CXCursor_Namespace || k == CXCursor_LinkageSpec || k == CXCursor_UnexposedDecl)
		return CXChildVisit_Recurse;
	if (k != CXCursor_FunctionDecl && k != CXCursor_FunctionTemplate)
		return CXChildVisit_Continue;
	CXSourceLocation loc = clang_getCursorLocation(cur);
	CXFile file;
	clang_getExpansionLocation(loc, &file, NULL, NULL, NULL);
	if (!file || clang_File_isEqual(file, h->c->main) || clang_Location_isInSystemHeader(loc) ||
	    !clang_isCursorDefinition(cur))
		return CXChildVisit_Continue;
	int known = 0;
	while (known < h->n && !clang_File_isEqual(file, h->files[known]))
		known++;
	attr_scan as = {h->c, 0, 0, 0, 0, 0, 0, 0};
	clang_visitChildren(cur, scan_attrs, &as);
	/* a kernel, or a __device__ function with __shared__ arrays of its
	 * own (a library's K-loop in a header with no kernel) */
	int want = as.global, device = 0;
	if (!want && as.device && !as.host)
		clang_visitChildren(cur, find_shared_var, &device);
	if (!want && !device)
		return CXChildVisit_Continue;
	if (known == h->n) {
		CXString name = clang_getFileName(file);
		char *abs = realpath(clang_getCString(name), NULL);
		clang_disposeString(name);
		if (!abs || !wanted_header(h->pol, abs)) {
			free(abs);
			return CXChildVisit_Continue;
		}
		h->files = kp_xrealloc(h->files, sizeof(*h->files) * (size_t)(h->n + 1));
		h->abs = kp_xrealloc(h->abs, sizeof(*h->abs) * (size_t)(h->n + 1));
		h->files[h->n] = file;
		h->abs[h->n++] = abs;
	}
	if (device) { /* its callers are looked up in the main file's kernels */
		h->dev = kp_xrealloc(h->dev, sizeof(*h->dev) * (size_t)(h->ndev + 1));
		h->dev[h->ndev++] = cur;
	}
	return CXChildVisit_Continue;
}

/* The unsaved file of o whose real path is `abs`, or NULL. */
static const kp_unsaved *unsaved_for(const kp_parse_opts *o, const char *abs)
{
	for (int i = 0; i < o->nunsaved; i++) {
		char *u = realpath(o->unsaved[i].path, NULL);
		int same = u && !strcmp(u, abs);
		free(u);
		if (same)
			return &o->unsaved[i];
	}
	return NULL;
}

/* A __device__ K-loop function d of header model m: its callers among the
 * kernels of the main file (c), matched by the declaration the calls
 * refer to (its template's for a function template), and their launch
 * bounds. */
static void header_device_callers(pctx *c, const header_scan *h, kp_file *m, kp_kernel *d)
{
	for (int i = 0; i < h->ndev; i++) {
		CXString nm = clang_getCursorSpelling(h->dev[i]);
		int same = !strcmp(clang_getCString(nm), d->name);
		clang_disposeString(nm);
		unsigned off;
		CXFile file;
		clang_getExpansionLocation(clang_getCursorLocation(h->dev[i]), &file, NULL, NULL,
					   &off);
		if (!same || off < d->begin || off >= d->end || !m->abs_path)
			continue;
		CXString fn = clang_getFileName(file);
		char *abs = realpath(clang_getCString(fn), NULL);
		clang_disposeString(fn);
		int here = abs && !strcmp(abs, m->abs_path);
		free(abs);
		if (here && !d->call_decl) {
			/* set only when the .cu calls it: a function that only the
			 * header's own kernels call stays as in one file */
			const kp_decl *key = decl_for(c, h->dev[i]);
			int before = d->ncallers;
			device_callers(m, c->f, d, key);
			if (d->ncallers > before)
				d->call_decl = key;
			break;
		}
	}
}

/* One model per project header that defines a kernel, in the order the
 * translation unit declares them, into f->headers.  The text is the
 * header's on disk, or its unsaved text in o->unsaved. */
static void build_header_models(pctx *c, const kp_parse_opts *o, const header_policy *pol,
				const char *const *argv, int nstore)
{
	header_scan h = {0};
	h.c = c;
	h.pol = pol;
	if (pol->have_re || pol->root)
		clang_visitChildren(clang_getTranslationUnitCursor(c->tu), find_header_kernels, &h);
	for (int i = 0; i < h.n; i++) {
		kp_file *m = kp_xcalloc(1, sizeof(*m));
		m->abs_path = kp_arena_strdup(&m->arena, h.abs[i]);
		m->includer = c->f;
		char *shown = kp_display_path(h.abs[i]);
		m->path = kp_arena_strdup(&m->arena, shown);
		free(shown);
		int e = 0;
		const kp_unsaved *u = unsaved_for(o, h.abs[i]);
		if (u) {
			m->src = kp_xstrndup(u->text, u->len);
			m->len = u->len;
		} else
			e = kp_read_file(h.abs[i], &m->src, &m->len);
		if (e || memchr(m->src, '\0', m->len)) {
			kp_file_release(m);
			free(m);
			continue;
		}
		m->has_bom = m->len >= 3 && !memcmp(m->src, "\xEF\xBB\xBF", 3);
		m->auto_probe = o->auto_probe;
		scan_includes(m);
		pctx hc = {0};
		hc.f = m;
		hc.tu = c->tu;
		hc.main = h.files[i];
		hc.o = o; /* helpers of other project headers too (add_helpers) */
		build_model(&hc, argv, nstore);
		free(hc.dkeys);
		free(hc.dvals);
		free(hc.dindex);
		/* a __device__ K-loop function of the header: its callers are
		 * the kernels of the .cu that includes it */
		for (int k = 0; k < m->nkernels; k++)
			if (m->kernels[k]->is_device)
				header_device_callers(c, &h, m, m->kernels[k]);
		if (hc.too_deep || !m->nkernels) {
			kp_file_release(m);
			free(m);
			continue;
		}
		c->f->headers = kp_xrealloc(c->f->headers,
					    sizeof(kp_file *) * (size_t)(c->f->nheaders + 1));
		c->f->headers[c->f->nheaders++] = m;
	}
	for (int i = 0; i < h.n; i++)
		free(h.abs[i]);
	free(h.abs);
	free(h.files);
	free(h.dev);
}

/* Whether the translation unit's errors leave kernels to analyse: every
 * error a semantic one (not a parse error, which can change where a kernel
 * ends) or a header that is not found (torch/extension.h where PyTorch is
 * not installed: the names it declares are then undeclared, semantic
 * errors, and a kernel that uses one is marked) in the main file or a
 * project header (host code clang rejects and
 * nvcc accepts: `time()` without <ctime>, host `max` on mixed types; a
 * `__shared__` object clang will not construct).  Parse errors and errors
 * in other headers stop the file. */
static int errors_tolerable(const kp_file *f, const header_policy *pol)
{
	for (int i = 0; i < f->ndiags; i++) {
		const kp_parse_diag *d = &f->diags[i];
		if (strcmp(d->severity, "error"))
			continue;
		if (d->line <= 0 || (!d->semantic && !d->missing_include))
			return 0;
		if (d->file == f->path)
			continue;
		/* a project header kpipe analyses: its kernels are marked; one
		 * it does not (outside --header-filter, another folder of the
		 * project): an error outside its device code is host code's, as
		 * in the main file (a library's header whose own includes are
		 * not here: faiss's cuVS headers) */
		char *abs = realpath(d->file, NULL);
		int ok = abs && (wanted_header(pol, abs) || (!d->in_system && !d->in_device));
		free(abs);
		if (!ok)
			return 0;
	}
	return 1;
}

/* The kernel of model m an error at (abs file, line) lies in, or NULL. */
static kp_kernel *kernel_at(kp_file *m, const char *abs, const char *file, int line)
{
	if (m->abs_path ? !abs || strcmp(abs, m->abs_path) : file != m->path)
		return NULL;
	for (int k = 0; k < m->nkernels; k++) {
		kp_kernel *kr = m->kernels[k];
		int e, col;
		kp_file_linecol(m, kr->end, &e, &col);
		if (kr->line > 0 && line >= kr->line && line <= e)
			return kr;
	}
	return NULL;
}

/* Each error inside a kernel marks it (kp_kernel.error, kp_parse_diag.
 * kernel): it is never rewritten.  Returns whether a kernel without an
 * error is left, in the file or its headers' models. */
static int mark_kernel_errors(kp_file *f)
{
	for (int i = 0; i < f->ndiags; i++) {
		kp_parse_diag *d = &f->diags[i];
		if (strcmp(d->severity, "error"))
			continue;
		char *abs = d->file == f->path ? NULL : realpath(d->file, NULL);
		kp_kernel *kr = kernel_at(f, abs, d->file, d->line);
		kp_file *owner = f;
		for (int h = 0; !kr && h < f->nheaders; h++) {
			kr = kernel_at(f->headers[h], abs, d->file, d->line);
			owner = f->headers[h];
		}
		free(abs);
		if (!kr)
			continue;
		d->kernel = kr->name;
		if (!kr->error)
			kr->error =
				kp_arena_printf(&owner->arena, "line %d: %s", d->line, d->message);
	}
	int clean = 0;
	for (int k = 0; k < f->nkernels; k++)
		clean |= !f->kernels[k]->error;
	for (int h = 0; h < f->nheaders; h++)
		for (int k = 0; k < f->headers[h]->nkernels; k++)
			clean |= !f->headers[h]->kernels[k]->error;
	return clean;
}

/* The NUL-separated arguments of a store as an array (malloc'd, NULL
 * ended; the strings stay the store's). */
static const char **store_argv(kp_strbuf *store, int n)
{
	const char **argv = kp_xcalloc((size_t)n + 1, sizeof(char *));
	const char *p = kp_strbuf_str(store);
	for (int i = 0; i < n; i++) {
		argv[i] = p;
		p += strlen(p) + 1;
	}
	return argv;
}

/* Whether clang refused the precompiled header `pch` it was given (built
 * by another libclang, or a header changed since): a fatal error that
 * says so or names it. */
static int pch_refused(CXTranslationUnit tu, const char *pch)
{
	int bad = 0;
	unsigned nd = clang_getNumDiagnostics(tu);
	for (unsigned i = 0; i < nd && !bad; i++) {
		CXDiagnostic d = clang_getDiagnostic(tu, i);
		if (clang_getDiagnosticSeverity(d) == CXDiagnostic_Fatal) {
			CXString s = clang_getDiagnosticSpelling(d);
			const char *m = clang_getCString(s);
			bad = m && (strstr(m, "precompiled header") || strstr(m, "PCH") ||
				    strstr(m, "AST file") || strstr(m, pch));
			clang_disposeString(s);
		}
		clang_disposeDiagnostic(d);
	}
	return bad;
}

/* Parses with the CUDA headers precompiled (pch.c's cache) when `cache`
 * is set, argv has no header of its own (a batch's, the language
 * server's) and the cache has or can build one; else, or when clang
 * refuses the cached header (then dropped), from scratch. */
static enum CXErrorCode parse_tu(CXIndex idx, const char *path, const char *const *argv, int n,
				 struct CXUnsavedFile *uf, unsigned nuf, int cache,
				 CXTranslationUnit *tu)
{
	const unsigned flags = CXTranslationUnit_KeepGoing;
	for (int i = 0; cache && i < n; i++)
		cache = strcmp(argv[i], "-include-pch") != 0;
	char *pch = cache ? kp_pch_cached(argv, n) : NULL;
	if (pch) {
		const char **a = kp_xcalloc((size_t)n + 3, sizeof(*a));
		memcpy(a, argv, (size_t)n * sizeof(*a));
		a[n] = "-include-pch";
		a[n + 1] = pch;
		enum CXErrorCode ec =
			clang_parseTranslationUnit2(idx, path, a, n + 2, uf, nuf, flags, tu);
		free(a);
		int refused = ec == CXError_ASTReadError ||
			      (ec == CXError_Success && *tu && pch_refused(*tu, pch));
		if (!refused) {
			free(pch);
			return ec;
		}
		if (*tu)
			clang_disposeTranslationUnit(*tu);
		*tu = NULL;
		kp_pch_drop(pch);
		free(pch);
	}
	return clang_parseTranslationUnit2(idx, path, argv, n, uf, nuf, flags, tu);
}

static void free_recovered(kp_recovered_file *v, int n)
{
	for (int i = 0; i < n; i++) {
		free(v[i].path);
		free(v[i].text);
	}
	free(v);
}

static void free_skipped(kp_skipped_decl *v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i].err);
	free(v);
}

/* A parse error in a top-level host declaration of the main file (host
 * code of a library whose headers are not here: `a.data_ptr<at::Half>()`
 * without libtorch): the declaration is blanked in the text clang parses
 * (*ctext, then the main file's unsaved entry in uf) and the file parsed
 * again; each one left out goes to *v.  Before that, a project header
 * with an error whose text recover.c changes (a `%laneid`) is given to
 * clang recovered (*hv, and an entry of uf).  Up to 8 parses more.
 * Returns the error code of the last parse, whose unit is *tu. */
static enum CXErrorCode skip_host_errors(CXIndex idx, const char *path, const char *const *argv,
					 int nstore, kp_file *f, char **ctext,
					 struct CXUnsavedFile *uf, unsigned *nuf,
					 enum CXErrorCode ec, CXTranslationUnit *tu,
					 kp_skipped_decl **v, int *n, kp_recovered_file **hv,
					 int *nh)
{
	for (int round = 0; round < 8 && ec == CXError_Success && *tu; round++) {
		CXFile main = clang_getFile(*tu, path);
		if (!main || !clang_getNumDiagnostics(*tu))
			break;
		int had = *nh;
		if (kp_recover_headers(*tu, main, hv, nh)) {
			/* a header with a `%laneid` (...): its recovered text */
			for (int i = had; i < *nh; i++)
				uf[(*nuf)++] = (struct CXUnsavedFile){(*hv)[i].path, (*hv)[i].text,
								      (unsigned long)(*hv)[i].len};
			clang_disposeTranslationUnit(*tu);
			*tu = NULL;
			ec = parse_tu(idx, path, argv, nstore, uf, *nuf, 1, tu);
			continue;
		}
		int fresh = !*ctext;
		if (fresh)
			*ctext = kp_xstrndup(f->src, f->len);
		if (!kp_recover_host_errors(*tu, main, *ctext, f->len, v, n)) {
			if (fresh) {
				free(*ctext);
				*ctext = NULL;
			}
			break;
		}
		unsigned m = 0;
		while (m < *nuf && strcmp(uf[m].Filename, path))
			m++;
		if (m == *nuf)
			++*nuf;
		uf[m] = (struct CXUnsavedFile){path, *ctext, (unsigned long)f->len};
		clang_disposeTranslationUnit(*tu);
		*tu = NULL;
		ec = parse_tu(idx, path, argv, nstore, uf, *nuf, 1, tu);
	}
	return ec;
}

/* A kernel of f named in a host declaration left out of the parse: its
 * launches there are not seen.  Recorded as a launch of api "skipped" at
 * the first mention (model.h), never editable, its dynamic shared memory
 * unknown, so that nothing takes the kernel for one launched elsewhere. */
static void add_skipped_launches(kp_file *f, const kp_skipped_decl *v, int n)
{
	for (int k = 0; k < f->nkernels; k++) {
		kp_kernel *kr = f->kernels[k];
		size_t nl = strlen(kr->name);
		if (kr->is_device || !nl)
			continue;
		for (int i = 0; i < n; i++) {
			const char *p = f->src + v[i].b, *end = f->src + v[i].e;
			while ((p = memmem(p, (size_t)(end - p), kr->name, nl)) &&
			       ((p > f->src && kp_is_ident_char(p[-1])) ||
				(p + nl < end && kp_is_ident_char(p[nl]))))
				p += nl;
			if (!p)
				continue;
			kp_launch *nv =
				kp_arena_alloc(&f->arena, sizeof(*nv) * (size_t)(f->nlaunches + 1));
			if (f->nlaunches)
				memcpy(nv, f->launches, sizeof(*nv) * (size_t)f->nlaunches);
			kp_launch *x = &nv[f->nlaunches];
			memset(x, 0, sizeof(*x));
			x->kernel = kr;
			x->begin = (unsigned)(p - f->src);
			x->api = "skipped";
			x->dyn_smem = -1;
			kp_file_linecol(f, x->begin, &x->line, &x->col);
			f->launches = nv;
			f->nlaunches++;
			break;
		}
	}
}

/* The host declarations skip_host_errors left out, as notes of f. */
static void add_skipped_notes(kp_file *f, const kp_skipped_decl *v, int n)
{
	if (!n)
		return;
	kp_parse_diag *nd = kp_arena_alloc(&f->arena, sizeof(*nd) * (size_t)(f->ndiags + n));
	if (f->ndiags)
		memcpy(nd, f->diags, sizeof(*nd) * (size_t)f->ndiags);
	for (int i = 0; i < n; i++) {
		kp_parse_diag *x = &nd[f->ndiags + i];
		memset(x, 0, sizeof(*x));
		x->file = f->path;
		x->line = v[i].line;
		x->col = v[i].col;
		x->severity = "note";
		x->skipped = 1;
		if (v[i].name[0])
			x->message = kp_arena_printf(
				&f->arena,
				"host function '%s' left out of the parse: clang cannot parse it as "
				"nvcc would (line %d: %s); kernels are analysed without it, and the "
				"launches in it are not seen",
				v[i].name, v[i].err_line, v[i].err);
		else
			x->message = kp_arena_printf(
				&f->arena,
				"host declaration left out of the parse: clang cannot parse it as "
				"nvcc would (line %d: %s); kernels are analysed without it",
				v[i].err_line, v[i].err);
	}
	f->diags = nd;
	f->ndiags += n;
}

static int parse_file(kp_file *f, const char *path, const kp_parse_opts *o, char **errmsg)
{
	int rc = KP_PARSE_OK;
	*errmsg = NULL;
	f->path = path;
	f->auto_probe = o->auto_probe;
	if (o->contents) {
		f->src = kp_xstrndup(o->contents, o->contents_len);
		f->len = o->contents_len;
	} else {
		int e = kp_read_file(path, &f->src, &f->len);
		if (e) {
			*errmsg = kp_xstrdup(strerror(-e));
			return KP_PARSE_IO;
		}
	}
	if (memchr(f->src, '\0', f->len)) {
		*errmsg = kp_xstrdup("file contains NUL bytes (not a source file)");
		return KP_PARSE_IO;
	}
	if (f->len >= 3 && (unsigned char)f->src[0] == 0xEF && (unsigned char)f->src[1] == 0xBB &&
	    (unsigned char)f->src[2] == 0xBF)
		f->has_bom = 1;
	scan_includes(f);

	kp_strbuf store = KP_STRBUF_INIT; /* NUL-separated argument strings */
	int nstore = 0;
#define ADD_ARG(...) kp_clang_arg(&store, &nstore, __VA_ARGS__)
	kp_clang_base_args(o->arch, o->cuda_path, &store, &nstore);
	const char *shim = hints_shim();
	if (shim) {
		ADD_ARG("-include");
		ADD_ARG("%s", shim);
	}
	if (!o->contents || o->build_dir)
		compdb_args(path, o->build_dir, !o->no_compdb, &store, &nstore);
	for (int i = 0; i < o->nargs; i++)
		ADD_ARG("%s", o->args[i]);
#undef ADD_ARG
	const char **argv = store_argv(&store, nstore);

	CXIndex idx = clang_createIndex(1, 0); /* skip declarations from a shared PCH */
	CXTranslationUnit tu = NULL;
	struct CXUnsavedFile *uf =
		kp_xcalloc((size_t)o->nunsaved + 2 + KP_MAX_RECOVERED, sizeof(*uf));
	unsigned nuf = 0;
	/* the text clang parses: the file's, or recover.c's copy of it */
	char *ctext = kp_recover_text(f->src, f->len);
	if (o->contents || ctext)
		uf[nuf++] =
			(struct CXUnsavedFile){path, ctext ? ctext : f->src, (unsigned long)f->len};
	for (int i = 0; i < o->nunsaved; i++)
		uf[nuf++] = (struct CXUnsavedFile){o->unsaved[i].path, o->unsaved[i].text,
						   (unsigned long)o->unsaved[i].len};
	enum CXErrorCode ec = parse_tu(idx, path, argv, nstore, nuf ? uf : NULL, nuf, 1, &tu);
	kp_skipped_decl *skipped = NULL;
	int nskipped = 0;
	kp_recovered_file *hv = NULL;
	int nh = 0;
	ec = skip_host_errors(idx, path, argv, nstore, f, &ctext, uf, &nuf, ec, &tu, &skipped,
			      &nskipped, &hv, &nh);
	if (ec != CXError_Success || !tu) {
		free(ctext);
		free_skipped(skipped, nskipped);
		free_recovered(hv, nh);
		free(uf);
		free(argv);
		kp_strbuf_release(&store);
		const char *why = ec == CXError_Crashed            ? "libclang crashed"
				  : ec == CXError_InvalidArguments ? "invalid arguments"
				  : ec == CXError_ASTReadError     ? "AST read error"
								   : "libclang failed";
		*errmsg = kp_xstrdup(why);
		clang_disposeIndex(idx);
		return KP_PARSE_FAILED;
	}
	pctx c = {0};
	c.f = f;
	c.tu = tu;
	c.main = clang_getFile(tu, path);
	c.o = o;
	unsigned nd = clang_getNumDiagnostics(tu);
	for (unsigned i = 0; i < nd; i++) {
		CXDiagnostic d = clang_getDiagnostic(tu, i);
		add_diag(f, d, &c);
		clang_disposeDiagnostic(d);
	}
	add_skipped_notes(f, skipped, nskipped);
	if (!c.main) {
		*errmsg = kp_xstrdup("libclang did not load the main file");
		rc = KP_PARSE_FAILED;
		goto cleanup;
	}
	if (o->diags_only) {
		rc = f->nerrors ? KP_PARSE_ERRORS : KP_PARSE_OK;
		goto cleanup;
	}
	build_model(&c, argv, nstore);
	add_skipped_launches(f, skipped, nskipped);
	header_policy pol;
	header_policy_init(&pol, o);
	if (f->nerrors && !errors_tolerable(f, &pol))
		rc = KP_PARSE_ERRORS;
	else if (c.too_deep) {
		kp_strbuf m = KP_STRBUF_INIT;
		if (c.too_deep > 0)
			kp_strbuf_addf(&m, "line %d: ", c.too_deep);
		kp_strbuf_addf(&m,
			       "statements or expressions nest deeper than %d levels; kpipe "
			       "does not analyse such a file",
			       KP_MAX_NESTING);
		*errmsg = kp_strbuf_detach(&m);
		rc = KP_PARSE_FAILED;
	}
	if (rc == KP_PARSE_OK && o->headers)
		build_header_models(&c, o, &pol, argv, nstore);
	if (rc == KP_PARSE_OK && f->nerrors) {
		if (mark_kernel_errors(f))
			f->outside_errors = f->nerrors;
		else
			rc = KP_PARSE_ERRORS;
	}
	header_policy_release(&pol);
cleanup:
	free(ctext);
	free_skipped(skipped, nskipped);
	free_recovered(hv, nh);
	free(uf);
	free(argv);
	kp_strbuf_release(&store);
	free(c.dkeys);
	free(c.dvals);
	free(c.dindex);
	clang_disposeTranslationUnit(tu);
	clang_disposeIndex(idx);
	return rc;
}

/* libclang parses on a thread of its own with an 8 MB stack, and clang
 * recurses once per operand of a long chain such as 1 + 1 + ... + 1: a
 * 100 000-term line overflowed it and killed kpipe with SIGSEGV.  So the
 * parse (and the conversion, which recurses too) runs on a thread with a
 * large stack, reserved but only touched as deep as the input needs, and
 * libclang is told to stay on it (LIBCLANG_NOTHREADS; it still recovers
 * from its own crashes there).  Without the thread it parses in place. */
#define KP_PARSE_STACK ((size_t)1 << 30)

typedef struct {
	kp_file *f;
	const char *path;
	const kp_parse_opts *o;
	char **errmsg;
	int rc;
} parse_job;

/* The alternate signal stack of the parse thread.  LLVM installs one of
 * its own (malloc'd) on the thread that first registers its crash
 * handlers when the thread's is smaller than 64 KB plus MINSIGSTKSZ (the
 * precompiled header's save does, on the first run with an empty cache);
 * under ASan, whose threads have a 32 KB one, the sanitizer then aborts
 * as the thread exits, unmapping LLVM's stack as if it were its own.  A
 * large enough stack of kpipe's, put back as it was before the thread
 * ends, leaves LLVM nothing to replace. */
#define KP_ALT_STACK ((size_t)256 << 10)

static void *parse_thread(void *arg)
{
	parse_job *j = arg;
	stack_t mine = {0}, old = {0};
	void *p = mmap(NULL, KP_ALT_STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		       0);
	int alt = p != MAP_FAILED;
	if (alt) {
		mine.ss_sp = p;
		mine.ss_size = KP_ALT_STACK;
		alt = sigaltstack(&mine, &old) == 0;
		if (!alt)
			munmap(p, KP_ALT_STACK);
	}
	j->rc = parse_file(j->f, j->path, j->o, j->errmsg);
	if (alt) {
		stack_t now = {0};
		/* put back the thread's own (or none), unless LLVM replaced ours
		 * after all: then leave its stack where it is */
		if (sigaltstack(NULL, &now) == 0 && now.ss_sp == p) {
			if (!old.ss_sp)
				old.ss_flags = SS_DISABLE;
			if (sigaltstack(&old, NULL) == 0)
				munmap(p, KP_ALT_STACK);
		}
	}
	return NULL;
}

int kp_parse(kp_file *f, const char *path, const kp_parse_opts *o, char **errmsg)
{
	parse_job j = {f, path, o, errmsg, KP_PARSE_FAILED};
	pthread_attr_t attr;
	pthread_t t;
	int started = 0;
	if (pthread_attr_init(&attr) == 0) {
		if (pthread_attr_setstacksize(&attr, KP_PARSE_STACK) == 0) {
			setenv("LIBCLANG_NOTHREADS", "1", 0);
			started = pthread_create(&t, &attr, parse_thread, &j) == 0;
		}
		pthread_attr_destroy(&attr);
	}
	if (!started)
		return parse_file(f, path, o, errmsg);
	pthread_join(t, NULL);
	return j.rc;
}

int kp_parse_build_pch(const char *arch, const char *cuda_path, const char *const *args, int nargs,
		       const char *main_path, const char *pch_path, char **err)
{
	*err = NULL;
	FILE *fp = fopen(main_path, "w");
	if (!fp) {
		*err = kp_xstrdup("cannot create the precompiled header's source");
		return -1;
	}
	fclose(fp);
	kp_strbuf store = KP_STRBUF_INIT;
	int nstore = 0;
#define ADD_ARG(...) kp_clang_arg(&store, &nstore, __VA_ARGS__)
	kp_clang_base_args(arch, cuda_path, &store, &nstore);
	for (int i = 0; i < nargs; i++)
		ADD_ARG("%s", args[i]);
#undef ADD_ARG
	const char **argv = store_argv(&store, nstore);
	int rc = kp_pch_build(argv, nstore, main_path, pch_path, err);
	free(argv);
	kp_strbuf_release(&store);
	return rc;
}
