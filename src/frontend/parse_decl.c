/*
 * parse_decl.c - declarations and types into the model: one kp_decl per
 * canonical declaration (kp_parse_decl_for, with the index in pctx that
 * makes the lookup constant time), its type's facts (kp_type: kind,
 * qualifiers, size, alignment, trivial copy), array bounds and where they
 * are written, CUDA attributes, constant values, and whether it is a
 * system declaration.  It owns the declaration table of a conversion.
 */
#define _GNU_SOURCE
#include "parse.h"
#include "parse_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
long long kp_parse_safe_sizeof(pctx *c, CXType t)
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
/* kp_type.scalar of canonical type ct (see kp_scalar). */
static kp_scalar scalar_of(CXType ct, int depth)
{
	switch (ct.kind) {
	case CXType_Half:
	case CXType_Float16: return KP_SCL_F16;
	case CXType_BFloat16: return KP_SCL_BF16;
	case CXType_Float: return KP_SCL_F32;
	case CXType_Double:
	case CXType_LongDouble: return KP_SCL_F64;
	case CXType_Char_S:
	case CXType_SChar:
	case CXType_Char_U:
	case CXType_UChar: return KP_SCL_INT8;
	case CXType_Record: break;
	default: return KP_SCL_NONE;
	}
	CXString nm = clang_getCursorSpelling(clang_getTypeDeclaration(ct));
	const char *n = clang_getCString(nm);
	kp_scalar r = KP_SCL_NONE;
	if (n && (!strcmp(n, "__half") || !strcmp(n, "__half2")))
		r = KP_SCL_F16;
	else if (n && (!strcmp(n, "__nv_bfloat16") || !strcmp(n, "__nv_bfloat162")))
		r = KP_SCL_BF16;
	else if (n && !strcmp(n, "fragment") && depth < 2 &&
		 clang_Type_getNumTemplateArguments(ct) >= 5) {
		CXType e = clang_Type_getTemplateArgumentAsType(ct, 4);
		r = e.kind == CXType_Invalid ? KP_SCL_NONE
					     : scalar_of(clang_getCanonicalType(e), depth + 1);
		if (r == KP_SCL_NONE)
			r = KP_SCL_OTHER;
	}
	clang_disposeString(nm);
	return r;
}

/* The spelling of the declaration of type t (a record's, a template's),
 * compared with `want`. */
static int decl_named(CXType t, const char *want)
{
	CXString nm = clang_getCursorSpelling(clang_getTypeDeclaration(t));
	const char *n = clang_getCString(nm);
	int r = n && !strcmp(n, want);
	clang_disposeString(nm);
	return r;
}

/* kp_type.frag and frag_col of ct (an element type): a wmma fragment's
 * use and layout, from its template arguments (a dependent fragment's
 * too: clang keeps a dependent specialisation's arguments). */
static void frag_of(CXType ct, kp_type *r)
{
	int n = clang_Type_getNumTemplateArguments(ct);
	if (n < 4 || !decl_named(ct, "fragment"))
		return;
	CXType use = clang_getCanonicalType(clang_Type_getTemplateArgumentAsType(ct, 0));
	r->frag = decl_named(use, "matrix_a")      ? KP_FRAG_A
		  : decl_named(use, "matrix_b")    ? KP_FRAG_B
		  : decl_named(use, "accumulator") ? KP_FRAG_ACC
						   : KP_FRAG_OTHER;
	if (n >= 6) {
		CXType lay = clang_getCanonicalType(clang_Type_getTemplateArgumentAsType(ct, 5));
		r->frag_col = (unsigned char)decl_named(lay, "col_major");
	}
	/* M, N, K of a specialisation (not of a dependent fragment, whose
	 * declaration is the template: kp_parse_frag_dims) */
	CXCursor spec = clang_getTypeDeclaration(ct);
	if (clang_Cursor_getNumTemplateArguments(spec) >= 4)
		for (unsigned i = 0; i < 3; i++)
			if (clang_Cursor_getTemplateArgumentKind(spec, i + 1) ==
			    CXTemplateArgumentKind_Integral) {
				long long v = clang_Cursor_getTemplateArgumentValue(spec, i + 1);
				r->frag_dim[i] = (short)(v > 0 && v < 256 ? v : 0);
			}
}

kp_type kp_parse_type_facts(CXType t)
{
	kp_type r = {0};
	CXType ct = clang_getCanonicalType(t);
	if (ct.kind == CXType_LValueReference || ct.kind == CXType_RValueReference) {
		r.is_ref = ct.kind == CXType_LValueReference ? 1 : 2;
		ct = clang_getCanonicalType(clang_getPointeeType(ct));
	}
	r.kind = type_kind(ct);
	r.scalar = (unsigned char)scalar_of(ct, 0);
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
		/* a qualifier of an array type is its elements' (C++
		 * [basic.type.qualifier]); clang keeps it on a dependent array
		 * (`T const tile[N]` in a template) */
		r.elem_const = (unsigned char)(clang_isConstQualifiedType(et) ||
					       (r.kind == KP_TY_ARRAY && r.is_const));
		r.elem_volatile = (unsigned char)clang_isVolatileQualifiedType(et);
	}
	if (r.kind != KP_TY_POINTER)
		frag_of(et, &r);
	return r;
}

/* alignof a type, -1 when unknown: the kinds kp_parse_safe_sizeof asks for. */
long long kp_parse_safe_alignof(pctx *c, CXType t)
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
	else if (ct.kind == CXType_Record && kp_parse_safe_sizeof(c, t) > 0)
		al = clang_Type_getAlignOf(ct);
	return al > 0 ? al : -1;
}

static int type_trivial_depth(CXType t, int depth);

typedef struct {
	int depth;
	int trivial; /* 1, 0 not trivially copyable, -1 unknown */
} trivial_scan;

/* Sets *ud when a field of the class is `mutable` (a const method may
 * change it). */
static enum CXChildVisitResult find_mutable(CXCursor cur, CXCursor parent, CXClientData ud)
{
	(void)parent;
	if (clang_getCursorKind(cur) == CXCursor_FieldDecl && clang_CXXField_isMutable(cur)) {
		*(int *)ud = 1;
		return CXChildVisit_Break;
	}
	return CXChildVisit_Continue;
}

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
int kp_parse_type_trivial(CXType t) { return type_trivial_depth(t, 0); }

static void fill_array_type(pctx *c, kp_decl *d, CXType t)
{
	kp_arena *a = &c->f->arena;
	d->type = cx_dup(a, clang_getTypeSpelling(t));
	d->ty = kp_parse_type_facts(t);
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
	d->elem_size = kp_parse_safe_sizeof(c, n ? et : t);
	d->elem_align = kp_parse_safe_alignof(c, n ? et : t);
	d->pointee_align = d->is_pointer ? kp_parse_safe_alignof(c, clang_getPointeeType(ct)) : -1;
	if (ct.kind == CXType_Record) /* a struct: double2 for a typedef of it */
		d->type_canon = cx_dup(a, clang_getTypeSpelling(clang_getUnqualifiedType(ct)));
	if (d->is_pointer)
		d->pointee_canon =
			cx_dup(a, clang_getTypeSpelling(clang_getUnqualifiedType(
					  clang_getCanonicalType(clang_getPointeeType(ct)))));
	d->elem_trivial = kp_parse_type_trivial(n ? et : t);
	if (n && d->elem_size < 0) {
		/* dependent element type: fall back on the declared spelling */
		const char *ty = d->elem_type;
		if (!strcmp(ty, "float") || !strcmp(ty, "int") || !strcmp(ty, "unsigned int"))
			d->elem_size = 4;
		else if (!strcmp(ty, "double"))
			d->elem_size = 8;
	}
}

enum CXChildVisitResult kp_parse_scan_attrs(CXCursor cur, CXCursor parent, CXClientData ud)
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
int kp_parse_is_function_kind(enum CXCursorKind k)
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

/* Whether declaration d is in a system header or under the CUDA toolkit
 * kpipe parses against (kp_decl.in_system). */
int kp_parse_system_decl(pctx *c, CXCursor d)
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
	int in = abs && kp_parse_path_under(abs, kp_parse_cuda_root(c->o ? c->o->cuda_path : NULL));
	free(abs);
	return in;
}

kp_decl *kp_parse_decl_for(pctx *c, CXCursor ref)
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
	if (clang_getCursorKind(canon) == CXCursor_CXXMethod && clang_CXXMethod_isConst(canon) &&
	    !clang_CXXMethod_isStatic(canon)) {
		int mut = 0;
		clang_visitChildren(clang_getCursorSemanticParent(canon), find_mutable, &mut);
		d->const_method = !mut;
	}
	if (d->kind != KP_D_PARM && d->kind != KP_D_TPARAM && !kp_parse_is_function_kind(pk))
		d->usr = cx_dup(&f->arena, clang_getCursorUSR(canon));
	CXType t = clang_getCursorType(canon);
	fill_array_type(c, d, t);
	kp_parse_frag_dims(canon, &d->ty);
	d->nparam_ty = -1;
	if (d->kind == KP_D_FUNC || clang_getCursorKind(canon) == CXCursor_Constructor) {
		int np = clang_getNumArgTypes(t);
		if (np >= 0) {
			d->nparam_ty = np;
			d->variadic = clang_isFunctionTypeVariadic(t) == 1;
			d->param_ty = kp_arena_alloc(&f->arena, sizeof(kp_type) * (size_t)(np + 1));
			for (int i = 0; i < np; i++)
				d->param_ty[i] =
					kp_parse_type_facts(clang_getArgType(t, (unsigned)i));
		}
	}
	if (d->kind == KP_D_FUNC || clang_getCursorKind(canon) == CXCursor_Constructor)
		d->in_system = kp_parse_system_decl(c, canon);
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
	clang_visitChildren(canon, kp_parse_scan_attrs, &as);
	d->is_shared = as.shared;
	enum CX_StorageClass sc = clang_Cursor_getStorageClass(canon);
	d->is_static = sc == CX_SC_Static;
	d->is_extern = sc == CX_SC_Extern;
	d->is_device_var = d->kind == KP_D_VAR && as.device && !as.shared && !as.constant &&
			   !kp_parse_is_function_kind(pk);
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

enum CXChildVisitResult kp_parse_collect(CXCursor cur, CXCursor parent, CXClientData ud)
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
