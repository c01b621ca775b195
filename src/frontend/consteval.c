/*
 * consteval.c - integer constant expressions in the source text (the first
 * argument of __launch_bounds__, which libclang does not expose as an
 * expression): a small recursive-descent evaluator whose names resolve
 * through -D arguments, the file's object-like #defines and, through
 * libclang, const / constexpr integer variables and enumerators at
 * namespace scope.  A name with two different values (a -D and a #define,
 * two #defines under #if branches, variables of two namespaces) is not
 * known: the caller then treats the value as unknown, never as a guess.
 */
#include "consteval.h"

#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 16 /* macro bodies and nesting, against #define A A */

typedef struct {
	const kp_ceval_env *env;
	const char *p, *e;
	int depth; /* macro bodies and variables being evaluated */
	int nest;  /* parse_binary's recursion */
	int bad;
} lexer;

static int ident_start(char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static void skip_ws(lexer *x)
{
	while (x->p < x->e) {
		char c = *x->p;
		if (c == ' ' || c == '\t' || c == '\r' || c == '\n')
			x->p++;
		else if (c == '\\' && x->p + 1 < x->e && (x->p[1] == '\n' || x->p[1] == '\r'))
			x->p += 2;
		else if (c == '/' && x->p + 1 < x->e && x->p[1] == '*') {
			const char *q = x->p + 2;
			while (q + 1 < x->e && !(q[0] == '*' && q[1] == '/'))
				q++;
			x->p = q + 1 < x->e ? q + 2 : x->e;
		} else if (c == '/' && x->p + 1 < x->e && x->p[1] == '/')
			x->p = x->e; /* a line comment ends a #define body */
		else
			break;
	}
}

/* The next token is `op` (and not the start of a longer operator). */
static int accept(lexer *x, const char *op)
{
	skip_ws(x);
	size_t n = strlen(op);
	if ((size_t)(x->e - x->p) < n || strncmp(x->p, op, n))
		return 0;
	const char *q = x->p + n;
	if (q < x->e && n == 1 && (*q == *op || *q == '=') && strchr("&|<>", *op))
		return 0; /* && || << >> <= >= &= |= */
	if (q < x->e && *q == '=' && n <= 2 && strcmp(op, "!"))
		return 0; /* compound assignment or comparison */
	x->p = q;
	return 1;
}

/* ----------------------------------------------------- name lookup */

typedef struct {
	const char *name;
	long long v;
	int found, conflict;
} name_value;

static void found(name_value *nv, long long v)
{
	if (nv->found && nv->v != v)
		nv->conflict = 1;
	nv->found = 1;
	nv->v = v;
}

static int eval_body(const kp_ceval_env *env, const char *p, const char *e, int depth,
		     long long *out);

/* -DNAME=V and -D NAME=V (a bare -DNAME is 1). */
static void lookup_args(const kp_ceval_env *env, name_value *nv, int depth)
{
	size_t nl = strlen(nv->name);
	for (int i = 0; i < env->nargv; i++) {
		const char *a = env->argv[i];
		if (!a || strncmp(a, "-D", 2))
			continue;
		a += 2;
		if (!*a && i + 1 < env->nargv)
			a = env->argv[++i];
		if (strncmp(a, nv->name, nl) || (a[nl] && a[nl] != '='))
			continue;
		long long v = 1;
		if (a[nl] == '=' && eval_body(env, a + nl + 1, a + strlen(a), depth + 1, &v)) {
			nv->conflict = 1;
			continue;
		}
		found(nv, v);
	}
}

/* Object-like `#define NAME body` lines of the file. */
static void lookup_defines(const kp_ceval_env *env, name_value *nv, int depth)
{
	const char *s = env->f->src, *end = s + env->f->len;
	size_t nl = strlen(nv->name);
	for (const char *l = s; l < end;) {
		const char *eol = l;
		while (eol < end && (*eol != '\n' || (eol > l && eol[-1] == '\\')))
			eol++;
		const char *p = l;
		while (p < eol && (*p == ' ' || *p == '\t'))
			p++;
		if (p < eol && *p == '#') {
			p++;
			while (p < eol && (*p == ' ' || *p == '\t'))
				p++;
			if (eol - p > 7 && !strncmp(p, "define", 6) &&
			    (p[6] == ' ' || p[6] == '\t')) {
				p += 7;
				while (p < eol && (*p == ' ' || *p == '\t'))
					p++;
				if ((size_t)(eol - p) >= nl && !strncmp(p, nv->name, nl) &&
				    (p + nl == eol || p[nl] == ' ' || p[nl] == '\t' ||
				     p[nl] == '\r')) {
					long long v;
					if (eval_body(env, p + nl, eol, depth + 1, &v))
						nv->conflict = 1;
					else
						found(nv, v);
				}
			}
		}
		l = eol < end ? eol + 1 : end;
	}
}

static enum CXChildVisitResult find_var(CXCursor cur, CXCursor parent, CXClientData ud)
{
	(void)parent;
	name_value *nv = ud;
	enum CXCursorKind k = clang_getCursorKind(cur);
	if (k == CXCursor_Namespace || k == CXCursor_LinkageSpec || k == CXCursor_UnexposedDecl)
		return CXChildVisit_Recurse;
	if (k == CXCursor_EnumDecl)
		return clang_EnumDecl_isScoped(cur) ? CXChildVisit_Continue : CXChildVisit_Recurse;
	if (k != CXCursor_VarDecl && k != CXCursor_EnumConstantDecl)
		return CXChildVisit_Continue;
	CXString s = clang_getCursorSpelling(cur);
	int same = !strcmp(clang_getCString(s), nv->name);
	clang_disposeString(s);
	if (!same)
		return CXChildVisit_Continue;
	if (k == CXCursor_EnumConstantDecl) {
		found(nv, clang_getEnumConstantDeclValue(cur));
		return CXChildVisit_Continue;
	}
	/* clang_Cursor_Evaluate folds non-const initialisers too: only a
	 * const (or constexpr) variable has a value that cannot change */
	if (!clang_isConstQualifiedType(clang_getCursorType(cur))) {
		nv->conflict = 1;
		return CXChildVisit_Continue;
	}
	CXEvalResult ev = clang_Cursor_Evaluate(cur);
	if (ev && clang_EvalResult_getKind(ev) == CXEval_Int)
		found(nv, clang_EvalResult_getAsLongLong(ev));
	else
		nv->conflict = 1;
	if (ev)
		clang_EvalResult_dispose(ev);
	return CXChildVisit_Continue;
}

static int lookup(lexer *x, const char *name, long long *out)
{
	const kp_ceval_env *env = x->env;
	for (int i = 0; i < env->nunknown; i++)
		if (env->unknown[i] && !strcmp(env->unknown[i], name))
			return -1;
	name_value nv = {name, 0, 0, 0};
	lookup_args(env, &nv, x->depth);
	if (env->f)
		lookup_defines(env, &nv, x->depth);
	if (!nv.found && !nv.conflict && env->tu)
		clang_visitChildren(clang_getTranslationUnitCursor(env->tu), find_var, &nv);
	if (!nv.found || nv.conflict)
		return -1;
	*out = nv.v;
	return 0;
}

/* ------------------------------------------------------------ parser */

static long long parse_binary(lexer *x, int level);

static long long parse_primary(lexer *x)
{
	skip_ws(x);
	if (x->p >= x->e) {
		x->bad = 1;
		return 0;
	}
	if (accept(x, "(")) {
		long long v = parse_binary(x, 0);
		if (!accept(x, ")"))
			x->bad = 1;
		return v;
	}
	if (*x->p >= '0' && *x->p <= '9') {
		char buf[64];
		size_t n = 0;
		while (x->p + n < x->e && n + 1 < sizeof(buf) &&
		       (kp_is_ident_char(x->p[n]) || x->p[n] == '\''))
			n++;
		size_t o = 0;
		for (size_t i = 0; i < n; i++)
			if (x->p[i] != '\'') /* C++14 digit separators */
				buf[o++] = x->p[i];
		buf[o] = '\0';
		char *end;
		long long v = strtoll(buf, &end, 0);
		while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L')
			end++;
		if (*end)
			x->bad = 1; /* a float, or a suffix kpipe does not know */
		x->p += n;
		return v;
	}
	if (ident_start(*x->p)) {
		const char *b = x->p;
		while (x->p < x->e && kp_is_ident_char(*x->p))
			x->p++;
		char *name = kp_xstrndup(b, (size_t)(x->p - b));
		long long v = 0;
		skip_ws(x);
		/* a call or a qualified name: not a plain name (a template's
		 * '<' stops the parse, as a comparison would) */
		if ((x->p < x->e && (*x->p == '(' || *x->p == ':')) || lookup(x, name, &v))
			x->bad = 1;
		free(name);
		return v;
	}
	x->bad = 1;
	return 0;
}

static long long parse_unary(lexer *x)
{
	if (accept(x, "-"))
		return -parse_unary(x);
	if (accept(x, "+"))
		return parse_unary(x);
	if (accept(x, "~"))
		return ~parse_unary(x);
	if (accept(x, "!"))
		return !parse_unary(x);
	return parse_primary(x);
}

/* The binary operators, loosest first. */
static const char *const levels[][3] = {
	{"|", NULL, NULL},  {"^", NULL, NULL}, {"&", NULL, NULL},
	{"<<", ">>", NULL}, {"+", "-", NULL},  {"*", "/", "%"},
};
#define NLEVELS ((int)(sizeof(levels) / sizeof(levels[0])))

static long long apply(lexer *x, const char *op, long long a, long long b)
{
	switch (op[0]) {
	case '|': return a | b;
	case '^': return a ^ b;
	case '&': return a & b;
	case '+': return a + b;
	case '-': return a - b;
	case '*': return a * b;
	case '<': return b >= 0 && b < 63 ? a << b : (x->bad = 1, 0);
	case '>': return b >= 0 && b < 63 ? a >> b : (x->bad = 1, 0);
	default:
		if (!b) {
			x->bad = 1;
			return 0;
		}
		return op[0] == '/' ? a / b : a % b;
	}
}

static long long parse_binary(lexer *x, int level)
{
	if (level >= NLEVELS)
		return parse_unary(x);
	if (++x->nest > 40 * NLEVELS) {
		x->bad = 1;
		return 0;
	}
	long long v = parse_binary(x, level + 1);
	for (int more = 1; more && !x->bad;) {
		more = 0;
		for (int i = 0; i < 3 && levels[level][i]; i++)
			if (accept(x, levels[level][i])) {
				long long r = parse_binary(x, level + 1);
				v = apply(x, levels[level][i], v, r);
				more = 1;
				break;
			}
	}
	x->nest--;
	return v;
}

static int eval_body(const kp_ceval_env *env, const char *p, const char *e, int depth,
		     long long *out)
{
	if (depth > MAX_DEPTH)
		return -1;
	lexer x = {env, p, e, depth, 0, 0};
	long long v = parse_binary(&x, 0);
	skip_ws(&x);
	if (x.bad || x.p != x.e)
		return -1;
	*out = v;
	return 0;
}

int kp_ceval_text(const kp_ceval_env *env, const char *p, const char *e, long long *out)
{
	return eval_body(env, p, e, 0, out);
}

/* The arguments of the parenthesis opened at s[q] within [q, e): their
 * number, and the offset of its ')' in *close; -1 without one. */
static int count_args(const char *s, unsigned q, unsigned e, unsigned *close)
{
	int depth = 0, nargs = 1;
	for (q++; q < e; q++) {
		if (s[q] == '(')
			depth++;
		else if (s[q] == ')' && depth-- == 0)
			break;
		else if (s[q] == ',' && depth == 0)
			nargs++;
	}
	if (q >= e)
		return -1;
	*close = q;
	return nargs;
}

int kp_ceval_launch_bounds(const kp_ceval_env *env, unsigned b, unsigned e, int *nargs,
			   unsigned *close)
{
	const kp_file *f = env->f;
	*nargs = 0;
	*close = 0;
	if (!f || e > f->len)
		return 0;
	const char *s = f->src;
	static const char kw[] = "__launch_bounds__";
	const size_t kl = sizeof(kw) - 1;
	for (unsigned p = b; p + kl < e; p++) {
		if (strncmp(s + p, kw, kl) || (p > 0 && kp_is_ident_char(s[p - 1])))
			continue;
		unsigned q = p + (unsigned)kl;
		while (q < e && (s[q] == ' ' || s[q] == '\t' || s[q] == '\n'))
			q++;
		if (q >= e || s[q] != '(') {
			*nargs = -1;
			return 0;
		}
		*nargs = count_args(s, q, e, close);
		/* the first argument: up to a ',' or ')' outside parentheses */
		unsigned a = q + 1, z = a;
		int depth = 0;
		while (z < e && (depth || (s[z] != ',' && s[z] != ')'))) {
			depth += s[z] == '(' ? 1 : s[z] == ')' ? -1 : 0;
			z++;
		}
		long long v;
		if (z >= e || kp_ceval_text(env, s + a, s + z, &v) || v <= 0 || v > 1 << 20)
			return 0;
		return (int)v;
	}
	return 0;
}
