/*
 * parse_helper.c - the helpers the kernels call (kp_parse_add_helpers):
 * each callee defined in the main file or, for the main file's model, in
 * a project header (a model of that header, kp_file.helper_homes) is
 * converted into its declaration's kp_decl.fn, with the namespace of the
 * types it names; any other callee gets the reason in kp_decl.fn_why.
 */
#define _GNU_SOURCE
#include "parse.h"
#include "parse_int.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
	kp_decl **v;
	int n, cap;
} callee_set;

static int collect_callees(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	callee_set *cs = ud;
	if (n->kind != KP_N_CALL)
		return 1;
	kp_decl *d = n->decl && n->decl->tmpl ? n->decl->tmpl : n->decl;
	/* an unresolved call: each function its name can find (kp_node.lookup_decls) */
	for (int j = -1; j < (d ? 0 : n->nlookup); j++) {
		kp_decl *e = j < 0 ? d : n->lookup_decls[j];
		int seen = !e || e->kind != KP_D_FUNC || e->fn;
		for (int i = 0; i < cs->n && !seen; i++)
			seen = cs->v[i] == e;
		if (seen)
			continue;
		if (cs->n == cs->cap) {
			cs->cap = cs->cap ? cs->cap * 2 : 16;
			cs->v = kp_xrealloc(cs->v, sizeof(*cs->v) * (size_t)cs->cap);
		}
		cs->v[cs->n++] = e;
	}
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
	kp_decl *d = kp_parse_decl_for(c, cur);
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
	const kp_unsaved *u = kp_parse_unsaved_for(c->o, abs);
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

/* Converts a function defined outside the main file (def) in the model
 * of its header (made on first use, its context into *hc), or says in
 * *why why not: NULL then. */
static kp_kernel *home_function(pctx *c, CXCursor def, pctx **hcs, pctx **hc, const char **why)
{
	CXSourceLocation loc = clang_getCursorLocation(def);
	CXFile file;
	clang_getExpansionLocation(loc, &file, NULL, NULL, NULL);
	CXString fn = clang_getFileName(file);
	char *abs = clang_getCString(fn) ? realpath(clang_getCString(fn), NULL) : NULL;
	clang_disposeString(fn);
	attr_scan as = {c, 0, 0, 0, 0, 0, 0, 0};
	clang_visitChildren(def, kp_parse_scan_attrs, &as);
	int shared = 0;
	clang_visitChildren(def, kp_parse_find_shared_var, &shared);
	CXSourceRange r = clang_getCursorExtent(def);
	kp_arena *a = &c->f->arena;
	*why = NULL;
	if (!abs)
		*why = "its definition is not in a file kpipe can read";
	else if (clang_Location_isInSystemHeader(loc))
		*why = kp_arena_printf(a, "it is defined in a system header (%s)", abs);
	else if (kp_parse_path_under(abs, kp_parse_cuda_root(c->o->cuda_path)) ||
		 (kp_parse_stub_dir(c->o->cuda_path) &&
		  kp_parse_path_under(abs, kp_parse_stub_dir(c->o->cuda_path))))
		*why = kp_arena_printf(a, "it is defined in the CUDA toolkit (%s)", abs);
	else if (as.global || !as.device)
		*why = "it is not a __device__ function";
	else if (shared)
		*why = "it declares __shared__ arrays of its own";
	else if (offset_in(clang_getRangeStart(r), file) < 0 ||
		 offset_in(clang_getRangeEnd(r), file) < 0)
		*why = "its definition is written by a macro";
	*hc = *why ? NULL : home_of(c, file, abs, hcs);
	if (!*why && !*hc)
		*why = kp_arena_printf(a, "its header (%s) cannot be read", abs);
	free(abs);
	if (!*hc)
		return NULL;
	kp_kernel *k = kp_parse_make_function(
		*hc, def, clang_getCursorKind(def) == CXCursor_FunctionTemplate);
	k->home = (*hc)->f;
	k->ns_type = ns_type_of(*hc, def);
	return k;
}

/* Converts a helper defined outside the main file (def) into d->fn, in
 * the model of its header, or says in d->fn_why why not. */
static void add_home_helper(pctx *c, CXCursor def, kp_decl *d, pctx **hcs)
{
	pctx *hc;
	const char *why;
	d->fn = home_function(c, def, hcs, &hc, &why);
	if (!d->fn)
		d->fn_why = why;
}

/* The helpers the kernels call, converted into their declarations'
 * kp_decl.fn (the pass that inlines load helpers reads them).  Only a
 * helper whose name a kernel calls is looked up: a file may hold
 * thousands of small __device__ functions, and each lookup (kp_parse_decl_for)
 * searches the declarations seen so far.  For the main file's model (c->o
 * set), a helper defined in a project header is converted in a model of
 * that header (kp_file.helper_homes); a callee that is not converted gets
 * the reason in kp_decl.fn_why. */
static void add_round(pctx *c, kernel_scan *ks, callee_set cs, pctx **hcs)
{
	for (int h = 0; h < ks->nhelpers && cs.n; h++) {
		kp_decl *d = callee_of(c, &cs, ks->helpers[h]);
		if (d) {
			d->fn = kp_parse_make_function(c, ks->helpers[h],
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
		for (int i = 0; i < hs.n; i++) {
			kp_decl *d = callee_of(c, &cs, hs.defs[i]);
			if (d)
				add_home_helper(c, hs.defs[i], d, hcs);
		}
		free(hs.defs);
	}
	for (int i = 0; i < cs.n; i++)
		if (!cs.v[i]->fn && !cs.v[i]->fn_why && cs.v[i]->kind == KP_D_FUNC)
			cs.v[i]->fn_why = "kpipe sees no definition of it outside system headers";
}

/* ------------------------------------------------------------ accessors */

typedef struct {
	pctx *c;
	kp_kernel *k;
	unsigned *self;
	int nself, cap;
} self_scan;

/* Records in the method being converted the members it names through the
 * implicit `this`, the first that is not public, and `this` itself. */
static enum CXChildVisitResult scan_members(CXCursor cur, CXCursor parent, CXClientData ud)
{
	(void)parent;
	self_scan *w = ud;
	enum CXCursorKind k = clang_getCursorKind(cur);
	if (k == CXCursor_CXXThisExpr) {
		/* an implicit `this` has the member's extent, not its own text */
		CXSourceRange r = clang_getCursorExtent(cur);
		long b = main_offset(w->c, clang_getRangeStart(r));
		if (b >= 0 && (size_t)b + 4 <= w->c->f->len &&
		    !strncmp(w->c->f->src + b, "this", 4))
			w->k->names_this = 1;
	}
	if (k != CXCursor_MemberRefExpr)
		return CXChildVisit_Recurse;
	CXCursor ref = clang_getCursorReferenced(cur);
	enum CX_CXXAccessSpecifier acc = clang_getCXXAccessSpecifier(ref);
	if (!w->k->nonpublic && (acc == CX_CXXPrivate || acc == CX_CXXProtected))
		w->k->nonpublic = cx_dup(&w->c->f->arena, clang_getCursorSpelling(ref));
	long name = main_offset(w->c, clang_getCursorLocation(cur));
	long start = main_offset(w->c, clang_getRangeStart(clang_getCursorExtent(cur)));
	if (name >= 0 && name == start) { /* nothing written before the member's name */
		if (w->nself == w->cap) {
			w->cap = w->cap ? w->cap * 2 : 8;
			w->self = kp_xrealloc(w->self, sizeof(unsigned) * (size_t)w->cap);
		}
		w->self[w->nself++] = (unsigned)name;
	}
	return CXChildVisit_Recurse;
}

/* Counts a compound statement's children into *ud[0], its return
 * statements into *ud[1]. */
static enum CXChildVisitResult count_stmts(CXCursor cur, CXCursor parent, CXClientData ud)
{
	(void)parent;
	int *n = ud;
	n[0]++;
	n[1] += clang_getCursorKind(cur) == CXCursor_ReturnStmt;
	return CXChildVisit_Continue;
}

/* Finds a definition's body (its compound statement) into *ud. */
static enum CXChildVisitResult find_body(CXCursor cur, CXCursor parent, CXClientData ud)
{
	(void)parent;
	if (clang_getCursorKind(cur) != CXCursor_CompoundStmt)
		return CXChildVisit_Continue;
	*(CXCursor *)ud = cur;
	return CXChildVisit_Break;
}

/* Whether definition def's body is one return statement, the only
 * methods the inline pass expands: others are not converted at all. */
static int one_return(CXCursor def)
{
	CXCursor body = clang_getNullCursor();
	int n[2] = {0, 0};
	clang_visitChildren(def, find_body, &body);
	if (clang_Cursor_isNull(body))
		return 0;
	clang_visitChildren(body, count_stmts, n);
	return n[0] == 1 && n[1] == 1;
}

/* The cursor of method d, as the call that named it first referred to
 * it (pctx.mcur), or a null cursor. */
static CXCursor cursor_of(const pctx *c, const kp_decl *d)
{
	for (int i = 0; i < c->nm; i++)
		if (c->mdecl[i] == d)
			return c->mcur[i];
	return clang_getNullCursor();
}

typedef struct {
	pctx *c;
	pctx **hcs; /* the contexts of the headers' models (kp_parse_add_helpers) */
} accessor_scan;

/* A call of a method on an object (`a.at(r, c)`, `p->size(1)`): its
 * definition converted into d->accessor when it is a non-static,
 * non-virtual __device__ method whose body is one return statement, of a
 * class that is no template, defined
 * in the main file or in a project header (then in that header's model,
 * as a load helper is), for the inline pass's accessor expansion
 * (kp_decl.accessor). */
static int add_accessor(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	accessor_scan *as_ = ud;
	pctx *c = as_->c;
	kp_decl *d = n->kind == KP_N_CALL ? n->decl : NULL;
	/* obj.m(...), obj->m(...), or an operator call obj(...) / obj[...] */
	if (!d || d->kind != KP_D_FUNC || d->fn || d->accessor || !kp_call_object(n, NULL))
		return 1;
	CXCursor decl = cursor_of(c, d);
	if (clang_Cursor_isNull(decl) || clang_getCursorKind(decl) != CXCursor_CXXMethod ||
	    clang_CXXMethod_isStatic(decl) || clang_CXXMethod_isVirtual(decl))
		return 1;
	CXCursor def = clang_getCursorDefinition(decl);
	CXCursor cls = clang_getCursorSemanticParent(def);
	if (clang_Cursor_isNull(def) || clang_getCursorKind(cls) == CXCursor_ClassTemplate ||
	    clang_getCursorKind(cls) == CXCursor_ClassTemplatePartialSpecialization ||
	    !one_return(def))
		return 1;
	pctx *hc = c;
	kp_kernel *k = NULL;
	if (main_offset(c, clang_getCursorLocation(def)) >= 0) {
		attr_scan as = {c, 0, 0, 0, 0, 0, 0, 0};
		clang_visitChildren(def, kp_parse_scan_attrs, &as);
		if (!as.device || as.global)
			return 1;
		k = kp_parse_make_function(c, def, 0);
	} else {
		const char *why;
		k = home_function(c, def, as_->hcs, &hc, &why);
		if (!k)
			return 1;
	}
	self_scan w = {hc, k, NULL, 0, 0};
	clang_visitChildren(def, scan_members, &w);
	if (w.nself) {
		k->self_members = kp_arena_alloc(&hc->f->arena, sizeof(unsigned) * (size_t)w.nself);
		memcpy(k->self_members, w.self, sizeof(unsigned) * (size_t)w.nself);
		k->nself = w.nself;
	}
	free(w.self);
	d->accessor = k;
	return 1;
}

/* Rounds of helpers: the kernels' callees, then theirs, as deep as the
 * effect sets read them (effects.c, three calls). */
#define HELPER_ROUNDS 3

void kp_parse_add_helpers(pctx *c, kernel_scan *ks)
{
	kp_file *f = c->f;
	callee_set cs = {0};
	for (int i = 0; i < f->nkernels; i++)
		kp_node_walk(f->kernels[i]->body, NULL, collect_callees, &cs);
	pctx *hcs = NULL; /* the contexts of f->helper_homes, made here */
	for (int r = 0; r < HELPER_ROUNDS && cs.n; r++) {
		add_round(c, ks, cs, &hcs);
		callee_set next = {0};
		for (int i = 0; i < cs.n; i++)
			if (cs.v[i]->fn && cs.v[i]->fn->body)
				kp_node_walk(cs.v[i]->fn->body, NULL, collect_callees, &next);
		for (int i = 0; i < cs.n; i++)
			if (cs.v[i]->fn && cs.v[i]->fn->body)
				kp_node_walk(cs.v[i]->fn->body, NULL, share_template_fn, NULL);
		free(cs.v);
		cs = next;
	}
	free(cs.v);
	accessor_scan as = {c, &hcs};
	for (int i = 0; c->o && i < f->nkernels; i++)
		kp_node_walk(f->kernels[i]->body, NULL, add_accessor, &as);
	for (int i = 0; hcs && i < f->nhelper_homes; i++) {
		free(hcs[i].dkeys);
		free(hcs[i].mcur);
		free(hcs[i].mdecl);
		free(hcs[i].dvals);
		free(hcs[i].dindex);
	}
	free(hcs);
	for (int i = 0; i < f->nkernels; i++)
		kp_node_walk(f->kernels[i]->body, NULL, share_template_fn, NULL);
}
