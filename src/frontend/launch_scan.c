/*
 * launch_scan.c - launches of the file's kernels besides <<<>>> and the
 * dynamic shared memory of every launch (launch_scan.h).
 *
 * A kernel can be launched without <<<>>>: cudaLaunchKernel,
 * cudaLaunchCooperativeKernel (the function, grid, block, arguments,
 * dynamic shared memory, stream), cudaLaunchKernelEx (a configuration
 * struct, then the function).  Any other mention of a kernel outside the
 * calls that only read or set its attributes (cudaFuncSetAttribute,
 * cudaFuncGetAttributes, cudaOccupancy...) takes its address, and what is
 * launched through it cannot be seen: such a mention is recorded as a
 * launch of api "reference".  None of these is editable.  The dynamic
 * shared-memory argument is evaluated by clang where it is a constant
 * expression (a literal, sizeof, a constexpr or const-initialised
 * variable); otherwise it is unknown (-1).
 */
#include "launch_scan.h"
#include "parse.h"
#include "parse_int.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
	CXTranslationUnit tu;
	CXFile main;
	kp_file *f;
	int nbase; /* the <<<>>> launches parse_kernel.c found */
	kp_launch *v;
	int n, cap;
	kp_smem_raise *r;
	int nr, capr;
	unsigned *skip_b, *skip_e; /* calls whose kernel mention is accounted for */
	int ns, caps;
} scan;

static long offset_of(const scan *s, CXSourceLocation loc)
{
	CXFile file;
	unsigned off;
	clang_getExpansionLocation(loc, &file, NULL, NULL, &off);
	if (!file || !clang_File_isEqual(file, s->main))
		return -1;
	return (long)off;
}

static const char *usr_of(kp_file *f, CXCursor decl)
{
	CXString u = clang_getCursorUSR(decl);
	const char *c = clang_getCString(u);
	const char *r = c && c[0] ? kp_arena_strdup(&f->arena, c) : NULL;
	clang_disposeString(u);
	return r;
}

/* The file's __global__ kernel a referenced declaration is (a template's
 * specialisation: its template), by its definition's place and name. */
static kp_kernel *kernel_of(const scan *s, CXCursor ref)
{
	if (clang_Cursor_isNull(ref) || (clang_getCursorKind(ref) != CXCursor_FunctionDecl &&
					 clang_getCursorKind(ref) != CXCursor_FunctionTemplate))
		return NULL;
	CXCursor tmpl = clang_getCursorKind(ref) == CXCursor_FunctionTemplate
				? ref
				: clang_getSpecializedCursorTemplate(ref);
	CXCursor def = clang_getCursorDefinition(clang_Cursor_isNull(tmpl) ? ref : tmpl);
	if (clang_Cursor_isNull(def))
		def = clang_Cursor_isNull(tmpl) ? ref : tmpl;
	long off = offset_of(s, clang_getCursorLocation(def));
	CXString nm = clang_getCursorSpelling(def);
	const char *name = clang_getCString(nm);
	kp_kernel *hit = NULL;
	for (int i = 0; i < s->f->nkernels && off >= 0 && name; i++) {
		kp_kernel *k = s->f->kernels[i];
		if (!k->is_device && (unsigned)off >= k->begin && (unsigned)off < k->end &&
		    !strcmp(k->name, name))
			hit = k;
	}
	clang_disposeString(nm);
	return hit;
}

/* The value of an expression clang evaluates as an integer constant. */
static long long eval_int(CXCursor e)
{
	long long v = -1;
	CXEvalResult ev = clang_Cursor_Evaluate(e);
	if (!ev)
		return -1;
	if (clang_EvalResult_getKind(ev) == CXEval_Int) {
		if (clang_EvalResult_isUnsignedInt(ev)) {
			unsigned long long u = clang_EvalResult_getAsUnsigned(ev);
			v = u > (1ULL << 40) ? -1 : (long long)u;
		} else
			v = clang_EvalResult_getAsLongLong(ev);
	}
	clang_EvalResult_dispose(ev);
	return v < 0 ? -1 : v;
}

static const char *text_of(const scan *s, CXCursor e)
{
	CXSourceRange r = clang_getCursorExtent(e);
	long b = offset_of(s, clang_getRangeStart(r));
	long en = offset_of(s, clang_getRangeEnd(r));
	if (b < 0 || en <= b || (size_t)en > s->f->len)
		return NULL;
	return kp_range_text(s->f, (unsigned)b, (unsigned)en);
}

/* The first kernel mentioned in e (a cast of it, `&k`, `k<32>`). */
typedef struct {
	const scan *s;
	kp_kernel *k;
	CXCursor ref;
} find_kernel;

static enum CXChildVisitResult kernel_in(CXCursor cur, CXCursor parent, CXClientData ud)
{
	(void)parent;
	find_kernel *w = ud;
	if (clang_getCursorKind(cur) == CXCursor_DeclRefExpr) {
		CXCursor ref = clang_getCursorReferenced(cur);
		kp_kernel *k = kernel_of(w->s, ref);
		if (k) {
			w->k = k;
			w->ref = ref;
			return CXChildVisit_Break;
		}
	}
	return CXChildVisit_Recurse;
}

static kp_kernel *kernel_named(const scan *s, CXCursor e, CXCursor *ref)
{
	find_kernel w = {s, NULL, clang_getNullCursor()};
	if (kernel_in(e, clang_getNullCursor(), &w) == CXChildVisit_Recurse)
		clang_visitChildren(e, kernel_in, &w);
	*ref = w.ref;
	return w.k;
}

static void skip_call(scan *s, CXCursor call)
{
	CXSourceRange r = clang_getCursorExtent(call);
	long b = offset_of(s, clang_getRangeStart(r));
	long e = offset_of(s, clang_getRangeEnd(r));
	if (b < 0 || e < b)
		return;
	if (s->ns == s->caps) {
		s->caps = s->caps ? 2 * s->caps : 8;
		s->skip_b = kp_xrealloc(s->skip_b, sizeof(unsigned) * (size_t)s->caps);
		s->skip_e = kp_xrealloc(s->skip_e, sizeof(unsigned) * (size_t)s->caps);
	}
	s->skip_b[s->ns] = (unsigned)b;
	s->skip_e[s->ns++] = (unsigned)e;
}

static kp_launch *add_launch(scan *s, kp_kernel *k, CXCursor at, const char *api)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 8;
		s->v = kp_xrealloc(s->v, sizeof(*s->v) * (size_t)s->cap);
	}
	kp_launch *x = &s->v[s->n++];
	memset(x, 0, sizeof(*x));
	x->kernel = k;
	x->api = api;
	x->dyn_smem = -1;
	long b = offset_of(s, clang_getRangeStart(clang_getCursorExtent(at)));
	x->begin = b >= 0 ? (unsigned)b : 0;
	kp_file_linecol(s->f, x->begin, &x->line, &x->col);
	return x;
}

/* The runtime functions that launch: their name, the argument holding the
 * function and the one holding the dynamic shared memory (-1: inside a
 * configuration struct, not evaluated). */
static const struct {
	const char *name;
	int fn, smem;
} launchers[] = {
	{"cudaLaunchKernel", 0, 4},
	{"cudaLaunchCooperativeKernel", 0, 4},
	{"cudaLaunchKernelEx", 1, -1},
	{"cudaLaunchKernelExC", 1, -1},
	{"cudaLaunchCooperativeKernelMultiDevice", 0, -1},
};

/* Calls that only read or set a kernel's attributes: a mention there is
 * no launch. */
static int attribute_call(const char *name)
{
	return !strcmp(name, "cudaFuncSetAttribute") || !strcmp(name, "cudaFuncGetAttributes") ||
	       !strcmp(name, "cudaFuncSetCacheConfig") ||
	       !strcmp(name, "cudaFuncSetSharedMemConfig") || !strncmp(name, "cudaOccupancy", 13);
}

static void raise_of(scan *s, CXCursor call)
{
	if (clang_Cursor_getNumArguments(call) < 3)
		return;
	CXCursor ref;
	kp_kernel *k = kernel_named(s, clang_Cursor_getArgument(call, 0), &ref);
	if (!k)
		return;
	CXCursor attr = clang_Cursor_getArgument(call, 1);
	const char *at = text_of(s, attr);
	CXCursor aref = clang_getCursorReferenced(attr);
	CXString an = clang_getCursorSpelling(aref);
	const char *aname = clang_getCString(an);
	int is_max = (aname && !strcmp(aname, "cudaFuncAttributeMaxDynamicSharedMemorySize")) ||
		     (at && strstr(at, "cudaFuncAttributeMaxDynamicSharedMemorySize"));
	clang_disposeString(an);
	if (!is_max)
		return;
	if (s->nr == s->capr) {
		s->capr = s->capr ? 2 * s->capr : 4;
		s->r = kp_xrealloc(s->r, sizeof(*s->r) * (size_t)s->capr);
	}
	kp_smem_raise *r = &s->r[s->nr++];
	r->kernel = k;
	r->usr = usr_of(s->f, ref);
	r->value = eval_int(clang_Cursor_getArgument(call, 2));
	long b = offset_of(s, clang_getCursorLocation(call));
	int col;
	kp_file_linecol(s->f, b >= 0 ? (unsigned)b : 0, &r->line, &col);
}

/* The expressions under a <<<>>> call that span [b, e) exactly (one
 * configuration argument): the outermost (hit, the argument as clang
 * converted it) and, with `eval`, the value of the first that clang
 * evaluates as an integer (v, -1 when none). */
typedef struct {
	const scan *s;
	unsigned b, e;
	int eval;
	CXCursor hit;
	int found;
	long long v;
} find_span;

static enum CXChildVisitResult span_in(CXCursor cur, CXCursor parent, CXClientData ud)
{
	(void)parent;
	find_span *w = ud;
	CXSourceRange r = clang_getCursorExtent(cur);
	long b = offset_of(w->s, clang_getRangeStart(r));
	long e = offset_of(w->s, clang_getRangeEnd(r));
	if (b < 0 || e < 0 || b > (long)w->b || e < (long)w->e)
		return CXChildVisit_Continue; /* does not hold the argument */
	if (b == (long)w->b && e == (long)w->e && clang_isExpression(clang_getCursorKind(cur))) {
		if (!w->found)
			w->hit = cur;
		w->found = 1;
		if (!w->eval)
			return CXChildVisit_Break;
		long long v = eval_int(cur);
		if (v >= 0) {
			w->v = v;
			return CXChildVisit_Break;
		}
	}
	return CXChildVisit_Recurse;
}

/* Configuration argument i of launch x (call: its cursor) as span_in
 * finds it. */
static find_span config_arg(scan *s, const kp_launch *x, CXCursor call, int i, int eval)
{
	unsigned b, e;
	kp_launch_span(s->f, x, i, &b, &e);
	find_span w = {s, b, e, eval, clang_getNullCursor(), 0, -1};
	clang_visitChildren(call, span_in, &w);
	return w;
}

/* ---- the block shape of a <<<>>> launch ---- */

/* The expression under clang's implicit layers and parentheses. */
static CXCursor strip_expr(CXCursor c)
{
	for (int depth = 0; depth < 8; depth++) {
		c = kp_parse_under_implicit(c);
		if (clang_getCursorKind(c) != CXCursor_ParenExpr)
			break;
		cursor_list l = {0};
		clang_visitChildren(c, kp_parse_collect, &l);
		CXCursor one = l.n == 1 ? l.v[0] : clang_getNullCursor();
		free(l.v);
		if (clang_Cursor_isNull(one))
			break;
		c = one;
	}
	return c;
}

/* Whether expression e, which clang does not evaluate, is a run-time
 * value: outside a template (a dependent expression may be a constant
 * in each instantiation) it cannot be anything else. */
static int run_time(CXCursor e)
{
	enum CXTypeKind tk = clang_getCanonicalType(clang_getCursorType(e)).kind;
	return tk != CXType_Dependent && tk != CXType_Unexposed && tk != CXType_Invalid;
}

/* Components of a dim3 construction or braced list e into xyz; a
 * component left out is 1.  0, -1 when one is not known, -2 when one is
 * a run-time value. */
static int dim3_parts(CXCursor e, int xyz[3])
{
	xyz[0] = xyz[1] = xyz[2] = 1;
	enum CXCursorKind k = clang_getCursorKind(e);
	CXCursor parts[3];
	int n = 0;
	if (k == CXCursor_CallExpr) {
		n = clang_Cursor_getNumArguments(e);
		for (int i = 0; i < n && i < 3; i++)
			parts[i] = clang_Cursor_getArgument(e, i);
	} else if (k == CXCursor_InitListExpr) {
		cursor_list l = {0};
		clang_visitChildren(e, kp_parse_collect, &l);
		n = l.n;
		for (int i = 0; i < n && i < 3; i++)
			parts[i] = l.v[i];
		free(l.v);
	}
	if (n < 1 || n > 3)
		return -1;
	for (int i = 0; i < n; i++) {
		long long v = eval_int(parts[i]);
		if (v <= 0 || v > 1024)
			return run_time(parts[i]) ? -2 : -1;
		xyz[i] = (int)v;
	}
	return 0;
}

/* Whether every mention of variable d in its function is inside the
 * <<<>>> of a launch (1): its initialiser is then the value the launches
 * read; -1 when one is elsewhere (a member assigned, the variable
 * assigned, passed by reference or its address taken: not); 0 for a
 * variable outside every function. */
typedef struct {
	const scan *s;
	CXCursor d;
	int other;
} use_scan;

static enum CXChildVisitResult use_of(CXCursor cur, CXCursor parent, CXClientData ud)
{
	(void)parent;
	use_scan *u = ud;
	if (clang_getCursorKind(cur) != CXCursor_DeclRefExpr ||
	    !clang_equalCursors(clang_getCursorReferenced(cur), u->d))
		return CXChildVisit_Recurse;
	long at = offset_of(u->s, clang_getCursorLocation(cur));
	int in = 0;
	for (int i = 0; i < u->s->nbase && at >= 0 && !in; i++) {
		const kp_launch *x = &u->s->f->launches[i];
		in = x->nconfig >= 2 && (unsigned)at > x->open && (unsigned)at < x->close;
	}
	if (!in) {
		u->other = 1;
		return CXChildVisit_Break;
	}
	return CXChildVisit_Continue;
}

static int only_in_launches(const scan *s, CXCursor d)
{
	CXCursor fn = clang_getCursorSemanticParent(d);
	enum CXCursorKind k = clang_getCursorKind(fn);
	if (k != CXCursor_FunctionDecl && k != CXCursor_CXXMethod && k != CXCursor_FunctionTemplate)
		return 0; /* a global: changed anywhere */
	use_scan u = {s, d, 0};
	clang_visitChildren(fn, use_of, &u);
	return u.other ? -1 : 1;
}

/* The block shape of block argument e (see kp_launch.block): 0, -1 not
 * known, -2 a run-time value (kp_launch.block_runtime). */
static int block_shape(const scan *s, CXCursor e, int xyz[3])
{
	/* an integer (not a dim3 clang may fold, such as a comma operator's) */
	enum CXTypeKind tk = clang_getCanonicalType(clang_getCursorType(e)).kind;
	int integer = tk >= CXType_Char_U && tk <= CXType_Int128;
	long long v = integer ? eval_int(e) : -1;
	if (v > 0 && v <= 1024) {
		xyz[0] = (int)v, xyz[1] = xyz[2] = 1;
		return 0;
	}
	e = strip_expr(e);
	if (clang_getCursorKind(e) == CXCursor_CallExpr && clang_Cursor_getNumArguments(e) == 1) {
		/* dim3's copy: the variable or temporary it copies */
		CXCursor a = strip_expr(clang_Cursor_getArgument(e, 0));
		if (clang_getCursorKind(a) == CXCursor_DeclRefExpr)
			e = a;
	}
	if (clang_getCursorKind(e) == CXCursor_DeclRefExpr) {
		CXCursor d = clang_getCursorReferenced(e);
		if (clang_getCursorKind(d) == CXCursor_ParmDecl)
			return run_time(e) ? -2 : -1;
		if (clang_getCursorKind(d) != CXCursor_VarDecl)
			return -1;
		/* a const variable keeps its initialiser; another one only
		 * when launches alone mention it */
		int only = clang_isConstQualifiedType(clang_getCursorType(d))
				   ? 1
				   : only_in_launches(s, d);
		if (only <= 0)
			return only < 0 ? -2 : -1;
		cursor_list l = {0};
		clang_visitChildren(d, kp_parse_collect, &l);
		CXCursor init = l.n ? l.v[l.n - 1] : clang_getNullCursor();
		free(l.v);
		if (clang_Cursor_isNull(init))
			return -1;
		e = strip_expr(init);
	}
	if (clang_getCursorKind(e) == CXCursor_CallExpr && clang_Cursor_getNumArguments(e) == 1) {
		CXCursor a = strip_expr(clang_Cursor_getArgument(e, 0));
		if (clang_getCursorKind(a) == CXCursor_CallExpr ||
		    clang_getCursorKind(a) == CXCursor_InitListExpr)
			e = a; /* dim3 block = dim3(...): the copy of a temporary */
	}
	return dim3_parts(e, xyz);
}

static void chevron_block(scan *s, kp_launch *x, CXCursor call)
{
	unsigned b, e;
	kp_launch_span(s->f, x, 1, &b, &e);
	/* a braced list is a comma expression in the text clang parses
	 * (recover.c): banks_block.c reads the file's own text */
	const char *t = kp_range_text(s->f, b, e);
	if (!t || t[strspn(t, " \t\r\n")] == '{')
		return;
	find_span w = config_arg(s, x, call, 1, 0);
	int xyz[3], rc = w.found ? block_shape(s, w.hit, xyz) : -1;
	if (!rc)
		memcpy(x->block, xyz, sizeof(xyz));
	x->block_runtime = rc == -2;
}

/* dyn_smem and the block shape of a <<<>>> launch (call: its cursor). */
static void chevron_smem(scan *s, kp_launch *x, CXCursor call)
{
	x->usr = usr_of(s->f, clang_getCursorReferenced(call));
	if (x->nconfig >= 2)
		chevron_block(s, x, call);
	if (x->nconfig < 3) {
		x->dyn_smem = x->nconfig >= 2 ? 0 : -1;
		return;
	}
	unsigned b, e;
	kp_launch_span(s->f, x, 2, &b, &e);
	x->dyn_text = kp_range_text(s->f, b, e);
	x->dyn_smem = config_arg(s, x, call, 2, 1).v;
}

static enum CXChildVisitResult calls(CXCursor cur, CXClientData ud)
{
	scan *s = ud;
	long b = offset_of(s, clang_getRangeStart(clang_getCursorExtent(cur)));
	if (b < 0)
		return CXChildVisit_Recurse;
	for (int i = 0; i < s->nbase; i++) {
		kp_launch *x = &s->f->launches[i];
		if ((long)x->begin == b && !x->usr &&
		    kernel_of(s, clang_getCursorReferenced(cur)) == x->kernel) {
			chevron_smem(s, x, cur);
			return CXChildVisit_Recurse;
		}
	}
	CXString nm = clang_getCursorSpelling(cur);
	const char *name = clang_getCString(nm);
	int nargs = clang_Cursor_getNumArguments(cur);
	for (size_t i = 0; name && i < sizeof(launchers) / sizeof(launchers[0]); i++) {
		if (strcmp(name, launchers[i].name) || nargs <= launchers[i].fn)
			continue;
		CXCursor ref;
		kp_kernel *k =
			kernel_named(s, clang_Cursor_getArgument(cur, launchers[i].fn), &ref);
		if (k) {
			kp_launch *x = add_launch(s, k, cur, launchers[i].name);
			x->usr = usr_of(s->f, ref);
			if (launchers[i].smem >= 0 && nargs > launchers[i].smem) {
				CXCursor a = clang_Cursor_getArgument(cur, launchers[i].smem);
				x->dyn_smem = eval_int(a);
				x->dyn_text = text_of(s, a);
			}
			skip_call(s, cur);
		}
	}
	if (name && !strcmp(name, "cudaFuncSetAttribute"))
		raise_of(s, cur);
	if (name && attribute_call(name))
		skip_call(s, cur);
	clang_disposeString(nm);
	return CXChildVisit_Recurse;
}

/* Every other mention of a kernel: its address taken. */
static enum CXChildVisitResult mentions(CXCursor cur, CXClientData ud)
{
	scan *s = ud;
	long at = offset_of(s, clang_getRangeStart(clang_getCursorExtent(cur)));
	if (at < 0)
		return CXChildVisit_Recurse;
	for (int i = 0; i < s->ns; i++)
		if ((unsigned)at >= s->skip_b[i] && (unsigned)at < s->skip_e[i])
			return CXChildVisit_Recurse;
	CXCursor ref = clang_getCursorReferenced(cur);
	kp_kernel *k = kernel_of(s, ref);
	if (!k)
		return CXChildVisit_Recurse;
	for (int i = 0; i < s->nbase; i++)
		if ((long)s->f->launches[i].begin == at)
			return CXChildVisit_Recurse; /* the callee of a launch */
	for (int i = 0; i < s->n; i++)
		if ((long)s->v[i].begin == at && s->v[i].kernel == k)
			return CXChildVisit_Recurse; /* seen in another instantiation */
	kp_launch *x = add_launch(s, k, cur, "reference");
	x->usr = usr_of(s->f, ref);
	return CXChildVisit_Recurse;
}

/* One walk of the translation unit: declarations outside the main file
 * are skipped whole; only calls and references have their place looked
 * up (a deep expression's place walks down to its first token: looked up
 * for every node, that is quadratic).  A call is visited before the
 * references in it, so the calls that only read or set attributes are
 * known when their references come. */
static enum CXChildVisitResult visit(CXCursor cur, CXCursor parent, CXClientData ud)
{
	(void)parent;
	scan *s = ud;
	enum CXCursorKind k = clang_getCursorKind(cur);
	if (clang_isDeclaration(k) && offset_of(s, clang_getCursorLocation(cur)) < 0)
		return CXChildVisit_Continue;
	if (k == CXCursor_CallExpr)
		return calls(cur, ud);
	if (k == CXCursor_DeclRefExpr)
		return mentions(cur, ud);
	return CXChildVisit_Recurse;
}

void kp_scan_runtime_launches(CXTranslationUnit tu, CXFile main, kp_file *f)
{
	int any = 0;
	for (int i = 0; i < f->nkernels; i++)
		any |= !f->kernels[i]->is_device;
	if (!any)
		return;
	scan s = {tu, main, f, f->nlaunches, NULL, 0, 0, NULL, 0, 0, NULL, NULL, 0, 0};
	CXCursor root = clang_getTranslationUnitCursor(tu);
	clang_visitChildren(root, visit, &s);
	if (s.n) {
		kp_launch *all = kp_arena_alloc(
			&f->arena, sizeof(kp_launch) * (size_t)(f->nlaunches + s.n + 1));
		if (f->nlaunches)
			memcpy(all, f->launches, sizeof(kp_launch) * (size_t)f->nlaunches);
		memcpy(all + f->nlaunches, s.v, sizeof(kp_launch) * (size_t)s.n);
		f->launches = all;
		f->nlaunches += s.n;
	}
	if (s.nr) {
		f->raises = kp_arena_alloc(&f->arena, sizeof(kp_smem_raise) * (size_t)s.nr);
		memcpy(f->raises, s.r, sizeof(kp_smem_raise) * (size_t)s.nr);
		f->nraises = s.nr;
	}
	free(s.v);
	free(s.r);
	free(s.skip_b);
	free(s.skip_e);
}
