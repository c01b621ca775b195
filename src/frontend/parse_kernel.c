/*
 * parse_kernel.c - the model of one file (kp_parse_build_model): its
 * kernels and __device__ functions with __shared__ arrays of their own,
 * each converted with its template parameters, parameters, body,
 * namespaces and __launch_bounds__ (kp_parse_make_function); the launches
 * of its kernels (<<<>>> here, runtime launches in launch_scan.c); the
 * callers of each __device__ K-loop function.  Instantiations come from
 * parse_inst.c, called helpers from parse_helper.c.
 */
#define _GNU_SOURCE
#include "parse.h"
#include "parse_int.h"

#include "consteval.h"
#include "launch_scan.h"

#include <stdlib.h>
#include <string.h>

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
	enum CXCursorKind kind = clang_getCursorKind(cur);
	/* an expression other than a call is only walked through: its
	 * location is its leftmost operand's, which clang finds by descending
	 * the tree, so asking it of each node of a long chain (`1 + 1 + ...`,
	 * 100 000 terms) is quadratic; its declaration was already found in
	 * the main file */
	if (clang_isExpression(kind) && kind != CXCursor_CallExpr)
		return CXChildVisit_Recurse;
	if (main_offset(c, clang_getCursorLocation(cur)) < 0)
		return CXChildVisit_Continue;
	if (kind != CXCursor_CallExpr)
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
kp_kernel *kp_parse_make_function(pctx *c, CXCursor cur, int is_template)
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
	size_t nl = strlen(k->name);
	if (no >= 0 && (size_t)no + nl <= f->len && !strncmp(f->src + no, k->name, nl))
		k->name_off = (unsigned)no;
	cursor_list l = {0};
	clang_visitChildren(cur, kp_parse_collect, &l);
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
			kp_parse_decl_for(c, l.v[i]);
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
			k->params[k->nparams++] = kp_parse_decl_for(c, l.v[i]);
		} else if (kk == CXCursor_CompoundStmt) {
			c->in_template = is_template;
			k->body = kp_parse_convert(c, l.v[i]);
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
		k->launch_bounds = kp_ceval_launch_bounds(&env, k->begin, k->body->begin,
							  &k->launch_bounds_args,
							  &k->launch_bounds_close);
	}
	if (!k->params) /* mark as kernel for template lookup even with no params */
		k->params = kp_arena_alloc(&f->arena, sizeof(kp_decl *));
	return k;
}

static void fill_kernel(kernel_scan *ks, CXCursor cur, int is_template)
{
	kp_kernel *k = kp_parse_make_function(ks->c, cur, is_template);
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
enum CXChildVisitResult kp_parse_find_shared_var(CXCursor cur, CXCursor parent, CXClientData ud)
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

/* The same declaration seen from another model: the same USR. */
static int same_usr(const kp_decl *a, const kp_decl *b)
{
	return a && b && a->usr && b->usr && *a->usr && !strcmp(a->usr, b->usr);
}

static int find_call(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	call_walk *w = ud;
	if (n->kind == KP_N_CALL && n->decl && n->decl->kind == KP_D_FUNC && n->name &&
	    (w->key ? n->decl == w->key || n->decl->tmpl == w->key || same_usr(n->decl, w->key) ||
			      same_usr(n->decl->tmpl, w->key)
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
void kp_parse_device_callers(kp_file *f, const kp_file *from, kp_kernel *d, const kp_decl *key)
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
	clang_visitChildren(cur, kp_parse_scan_attrs, &as);
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
	clang_visitChildren(cur, kp_parse_find_shared_var, &shared);
	if (shared && as.host)
		other_function(ks, cur, "it declares __shared__ arrays of its own");
	if (shared && as.host)
		return CXChildVisit_Continue;
	if (!shared) {
		/* a helper: converted only when a kernel calls it (kp_parse_add_helpers) */
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

/* The model of the file c->main stands for (its kernels with their
 * instantiations, its declarations, the names a rewrite must avoid) into
 * c->f, from the translation unit c->tu. */
void kp_parse_build_model(pctx *c, const char *const *argv, int nstore)
{
	kp_file *f = c->f;
	c->argv = argv;
	c->nargv = nstore;
	kp_parse_collect_names(c, argv, nstore);
	kernel_scan ks = {0};
	ks.c = c;
	clang_visitChildren(clang_getTranslationUnitCursor(c->tu), find_kernels, &ks);
	int any_template = 0;
	for (int i = 0; i < ks.n; i++)
		any_template |= ks.v[i]->is_template;
	if (any_template)
		clang_visitChildren(clang_getTranslationUnitCursor(c->tu), kp_parse_find_insts,
				    &ks);
	f->kernels = kp_arena_alloc(&f->arena, sizeof(kp_kernel *) * (size_t)(ks.n + 1));
	if (ks.n)
		memcpy(f->kernels, ks.v, sizeof(kp_kernel *) * (size_t)ks.n);
	f->nkernels = ks.n;
	free(ks.v);
	kp_parse_add_helpers(c, &ks);
	free(ks.helpers);
	free(ks.others);
	free(ks.other_why);
	for (int i = 0; i < f->nkernels; i++)
		if (f->kernels[i]->is_device)
			kp_parse_device_callers(f, f, f->kernels[i], NULL);
	scan_launches(c);
	kp_scan_runtime_launches(c->tu, c->main, f);
	if (any_template) {
		kp_parse_scan_explicit_insts(f);
		/* the same list, in the same order, whatever the order of the
		 * launches and instantiations in the file */
		for (int i = 0; i < f->nkernels; i++)
			kp_parse_sort_insts(f->kernels[i]);
	}
	f->decls = kp_arena_alloc(&f->arena, sizeof(kp_decl *) * (size_t)(c->nd + 1));
	if (c->nd)
		memcpy(f->decls, c->dvals, sizeof(kp_decl *) * (size_t)c->nd);
	f->ndecls = c->nd;
}
