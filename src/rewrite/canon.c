/*
 * canon.c - the shapes of the canon pass (canon.h): finds them in a
 * K-loop's load phase and writes the edits that put them in the copy
 * forms the analysis proves (docs/design.md, "The canon pass").  Each
 * rewrite is an equivalence of the statements it touches, checked here on
 * the model: what moves or is evaluated again has no side effect and
 * reads nothing the statements it crosses write, what is deleted is named
 * nowhere else, and a declaration moved out of the loop hides no other
 * name.  Whether the loop is then pipelined is pass_canon.c's question.
 */
#include "canon.h"
#include "canon_shapes.h"
#include "effects.h"

#include <stdlib.h>
#include <string.h>

/* What the shapes found in one loop: the edits, what they do, or why one
 * found cannot be rewritten. */
typedef struct {
	kp_file *f;
	const kp_loop *l;
	kp_edits ed;
	kp_strbuf temps; /* "'val' into 'As', ..." */
	int ntemps;
	kp_strbuf splits; /* "line 11, line 30" */
	int nsplits, ncopies;
	kp_strbuf moved; /* "'a', 'As'" */
	int nmoved;
	const char *why;
} canon;

/* ------------------------------------------------------------ text */

static int blank(char ch) { return ch == ' ' || ch == '\t' || ch == '\r'; }

static int spelled(const kp_file *f, const kp_node *n)
{
	return n && n->in_main && n->begin < n->end && n->end <= f->len;
}

/* The offset after the ';' that closes statement n (the extent of an
 * expression statement stops before it). */
static unsigned stmt_end(const kp_file *f, const kp_node *n)
{
	switch (n->kind) {
	case KP_N_COMPOUND:
	case KP_N_DECLSTMT: return n->end;
	case KP_N_IF: return n->nkids > 1 ? stmt_end(f, n->kids[n->nkids - 1]) : n->end;
	case KP_N_FOR: return n->for_body ? stmt_end(f, n->for_body) : n->end;
	default: break;
	}
	unsigned p = n->end;
	while (p < f->len && blank(f->src[p]))
		p++;
	return p < f->len && f->src[p] == ';' ? p + 1 : n->end;
}

/* [*lb, *le): the lines [b, e) stands alone on, with its newline; 1 when
 * it does, else [b, e) itself and 0. */
static int whole_lines(const kp_file *f, unsigned b, unsigned e, unsigned *lb, unsigned *le)
{
	unsigned s = b, t = e;
	while (s > 0 && blank(f->src[s - 1]))
		s--;
	while (t < f->len && blank(f->src[t]))
		t++;
	if ((s == 0 || f->src[s - 1] == '\n') && (t == f->len || f->src[t] == '\n')) {
		*lb = s;
		*le = t < f->len ? t + 1 : t;
		return 1;
	}
	*lb = b;
	*le = e;
	return 0;
}

/* The indentation of the line holding `off`. */
static const char *indent_at(kp_file *f, unsigned off)
{
	unsigned s = off;
	while (s > 0 && f->src[s - 1] != '\n')
		s--;
	unsigned e = s;
	while (e < f->len && (f->src[e] == ' ' || f->src[e] == '\t'))
		e++;
	return kp_range_text(f, s, e);
}

/* Whether a preprocessor line begins in [b, e). */
static int directive_in(const kp_file *f, unsigned b, unsigned e)
{
	for (unsigned i = b; i < e && i < f->len; i++) {
		if (f->src[i] != '\n')
			continue;
		unsigned j = i + 1;
		while (j < e && blank(f->src[j]))
			j++;
		if (j < e && f->src[j] == '#')
			return 1;
	}
	return 0;
}

/* Whether [b, e) holds a comment (or "//" in a literal: counted too). */
static int comment_in(const kp_file *f, unsigned b, unsigned e)
{
	for (unsigned i = b; i + 1 < e && i + 1 < f->len; i++)
		if (f->src[i] == '/' && (f->src[i + 1] == '/' || f->src[i + 1] == '*'))
			return 1;
	return 0;
}

/* Whether [b, e) is white space only. */
static int blank_range(const kp_file *f, unsigned b, unsigned e)
{
	for (unsigned i = b; i < e; i++)
		if (!blank(f->src[i]) && f->src[i] != '\n')
			return 0;
	return 1;
}

/* n's text with each run of white space one space, arena-owned; NULL
 * when it is not spelled in the file or holds a comment or a directive
 * (joined on one line they would change the code). */
static const char *flat_text(kp_file *f, const kp_node *n)
{
	if (!spelled(f, n) || comment_in(f, n->begin, n->end) || directive_in(f, n->begin, n->end))
		return NULL;
	char *o = kp_arena_alloc(&f->arena, n->end - n->begin + 1);
	size_t k = 0;
	for (unsigned i = n->begin; i < n->end; i++) {
		char ch = f->src[i];
		if (!blank(ch) && ch != '\n')
			o[k++] = ch;
		else if (k && o[k - 1] != ' ')
			o[k++] = ' ';
	}
	while (k && o[k - 1] == ' ')
		k--;
	o[k] = '\0';
	return o;
}

/* Whether [a, b) is white space around the one token `tok`. */
static int only_token(const kp_file *f, unsigned a, unsigned b, const char *tok)
{
	size_t tl = strlen(tok);
	while (a < b && (blank(f->src[a]) || f->src[a] == '\n'))
		a++;
	while (b > a && (blank(f->src[b - 1]) || f->src[b - 1] == '\n'))
		b--;
	return b - a == tl && !strncmp(f->src + a, tok, tl);
}

/* Type spellings equal once const / volatile are dropped. */
static int same_unqualified(const char *a, const char *b)
{
	if (!a || !b)
		return 0;
	while (!strncmp(a, "const ", 6) || !strncmp(a, "volatile ", 9))
		a += *a == 'c' ? 6 : 9;
	while (!strncmp(b, "const ", 6) || !strncmp(b, "volatile ", 9))
		b += *b == 'c' ? 6 : 9;
	size_t la = strlen(a), lb = strlen(b);
	while (la > 6 && !strcmp(a + la - 6, " const"))
		la -= 6;
	while (lb > 6 && !strcmp(b + lb - 6, " const"))
		lb -= 6;
	return la == lb && !strncmp(a, b, la);
}

/* ------------------------------------------------------------ the model */

static int refs(const kp_node *n, const kp_decl *d)
{
	if (!n)
		return 0;
	int r = n->kind == KP_N_DECLREF && n->decl == d;
	for (int i = 0; i < n->nkids; i++)
		r += refs(n->kids[i], d);
	return r;
}

static int is_ref_to(const kp_node *n, const kp_decl *d)
{
	n = kp_node_strip(n);
	return n && n->kind == KP_N_DECLREF && n->decl == d;
}

/* A statement that is one plain assignment `x = y` (no compound one). */
static kp_node *plain_assign(kp_node *s)
{
	/* an implicit wrapper, not a label or an attribute before it */
	if (s && s->kind == KP_N_OTHER && s->nkids == 1 && s->begin == s->kids[0]->begin &&
	    s->end == s->kids[0]->end)
		s = s->kids[0];
	return s && s->kind == KP_N_BINOP && s->op && s->opk == KP_OP_ASSIGN && s->nkids == 2
		       ? s
		       : NULL;
}

/* The tile an lvalue stores into (a __shared__ array), or NULL. */
static const kp_decl *tile_of(kp_node *lhs)
{
	kp_node *r = kp_lvalue_root(lhs);
	return r && r->decl && r->decl->is_shared && r->decl->is_array ? r->decl : NULL;
}

static int is_stmt_kind(kp_node_kind k)
{
	return k == KP_N_COMPOUND || k == KP_N_DECLSTMT || k == KP_N_VARDECL || k == KP_N_FOR ||
	       k == KP_N_WHILE || k == KP_N_DO || k == KP_N_IF || k == KP_N_SWITCH ||
	       k == KP_N_RETURN || k == KP_N_BREAK || k == KP_N_CONTINUE || k == KP_N_GOTO ||
	       k == KP_N_NULLSTMT || k == KP_N_ASM || k == KP_N_LAMBDA;
}

/* Calls that only compute a value from their operands (reads: and the
 * cache-hint loads, which read memory). */
static int call_pure(const kp_node *n, int reads)
{
	static const char *const math[] = {"min",
					   "max",
					   "fminf",
					   "fmaxf",
					   "umin",
					   "umax",
					   "abs",
					   "__float2half",
					   "__half2float",
					   "__float2half_rn",
					   "__float2bfloat16",
					   "__bfloat162float",
					   "__int2half_rn"};
	static const char *const loads[] = {"__ldg",  "__ldca", "__ldcg",
					    "__ldcs", "__ldlu", "__ldcv"};
	const char *nm = n->name;
	if (n->sync != KP_SYNC_NONE || !nm || !*nm)
		return 0;
	if (!strncmp(nm, "make_", 5))
		return 1;
	for (size_t i = 0; i < KP_ARRAY_LEN(math); i++)
		if (!strcmp(nm, math[i]))
			return 1;
	for (size_t i = 0; reads && i < KP_ARRAY_LEN(loads); i++)
		if (!strcmp(nm, loads[i]))
			return 1;
	/* a copy constructor: a call named as its type, of one operand */
	if (n->type && n->nkids == 1 && same_unqualified(n->type, nm))
		return 1;
	if (!strncmp(nm, "operator", 8)) {
		const char *op = nm + 8;
		size_t ol = strlen(op);
		if (!ol || !strcmp(op, "++") || !strcmp(op, "--") || !strcmp(op, "()") ||
		    (!reads && (!strcmp(op, "[]") || !strcmp(op, "->") || !strcmp(op, "*"))))
			return 0;
		return op[ol - 1] != '=' || !strcmp(op, "==") || !strcmp(op, "!=") ||
		       !strcmp(op, "<=") || !strcmp(op, ">=");
	}
	return 0;
}

/* Whether n's text has `->` (a member reached through a pointer). */
static int arrow_in(const kp_file *f, const kp_node *n)
{
	for (unsigned i = n->begin; n->in_main && i + 1 < n->end && i + 1 < f->len; i++)
		if (f->src[i] == '-' && f->src[i + 1] == '>')
			return 1;
	return 0;
}

typedef struct {
	const kp_file *f;
	int reads; /* memory reads allowed */
	const kp_node *bad;
} pure_walk;

static int find_impure(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	pure_walk *w = ud;
	int comp, bad = is_stmt_kind(n->kind) || n->kind == KP_N_ASSIGNOP;
	if (n->kind == KP_N_BINOP)
		bad = n->op && n->opk == KP_OP_ASSIGN;
	else if (n->kind == KP_N_UNOP)
		bad = n->op && (KP_OP_IS_INCDEC(n->opk) || (!w->reads && n->opk == KP_OP_DEREF));
	else if (n->kind == KP_N_CALL)
		bad = !call_pure(n, w->reads);
	else if (n->kind == KP_N_SUBSCRIPT)
		bad = !w->reads;
	else if (n->kind == KP_N_MEMBER && !w->reads) {
		const kp_node *b = n->nkids ? kp_node_strip(n->kids[0]) : NULL;
		bad = !kp_node_builtin(w->f, n, 0, &comp) &&
		      (!b || b->kind != KP_N_DECLREF || !b->decl || b->decl->is_pointer ||
		       arrow_in(w->f, n));
	} else if (n->kind == KP_N_DECLREF && !w->reads && n->decl)
		bad = n->decl->is_shared || n->decl->ty.is_ref || KP_TY_ANY_VOLATILE(n->decl->ty);
	if (bad)
		w->bad = n;
	return !bad;
}

/* The first part of n with a side effect (or, reads 0, that reads memory
 * or a variable that memory may change), or NULL. */
static const kp_node *impure(const kp_file *f, kp_node *n, int reads)
{
	pure_walk w = {f, reads, NULL};
	kp_node_walk(n, NULL, find_impure, &w);
	return w.bad;
}

const kp_node *kp_canon_impure(const kp_file *f, kp_node *n, int reads)
{
	return impure(f, n, reads);
}

unsigned kp_canon_stmt_end(const kp_file *f, const kp_node *n) { return stmt_end(f, n); }

/* A statement that does nothing at run time: `;`, a static_assert. */
static int inert(kp_file *f, const kp_node *s)
{
	if (s->kind == KP_N_NULLSTMT)
		return 1;
	if (s->kind != KP_N_DECLSTMT || !spelled(f, s))
		return 0;
	for (int i = 0; i < s->nkids; i++)
		if (s->kids[i]->kind == KP_N_VARDECL)
			return 0;
	return !strncmp(f->src + s->begin, "static_assert", 13);
}

/* The if's condition, when it is an expression between the parentheses
 * of a plain `if (...)` (not if constexpr, no init-statement). */
static kp_node *if_cond(const kp_file *f, const kp_node *iff)
{
	kp_node *g = iff->nkids >= 2 ? iff->kids[0] : NULL;
	if (!g || is_stmt_kind(g->kind) || !spelled(f, g) || !spelled(f, iff) || iff->from_macro ||
	    g->begin <= iff->begin + 2)
		return NULL;
	return only_token(f, iff->begin + 2, g->begin, "(") ? g : NULL;
}

/* ------------------------------------------------------------ 1: temporaries */

/* The zero of type T written out: make_float4(0, 0, 0, 0) for a vector
 * type, static_cast<T>(0) for an arithmetic or half type; NULL otherwise
 * (T{} of another type is not known to be 0). */
static const char *zero_of_type(kp_file *f, const char *T)
{
	static const char *const scalars[] = {
		"float",         "double",         "int",
		"unsigned",      "unsigned int",   "long",
		"unsigned long", "long long",      "unsigned long long",
		"short",         "unsigned short", "char",
		"signed char",   "unsigned char",  "size_t",
		"int8_t",        "uint8_t",        "int16_t",
		"uint16_t",      "int32_t",        "uint32_t",
		"int64_t",       "uint64_t",       "__half",
		"half",          "__nv_bfloat16",  "nv_bfloat16"};
	static const char *const vec[] = {"char",     "uchar",     "short", "ushort",
					  "int",      "uint",      "long",  "ulong",
					  "longlong", "ulonglong", "float", "double"};
	for (size_t i = 0; i < KP_ARRAY_LEN(scalars); i++)
		if (!strcmp(T, scalars[i]))
			return kp_arena_printf(&f->arena, "static_cast<%s>(0)", T);
	size_t n = strlen(T);
	if (n < 2 || T[n - 1] < '1' || T[n - 1] > '4')
		return NULL;
	for (size_t i = 0; i < KP_ARRAY_LEN(vec); i++)
		if (strlen(vec[i]) == n - 1 && !strncmp(T, vec[i], n - 1)) {
			kp_strbuf sb = KP_STRBUF_INIT;
			kp_strbuf_addf(&sb, "make_%s(", T);
			for (int k = 0; k < T[n - 1] - '0'; k++)
				kp_strbuf_adds(&sb, k ? ", 0" : "0");
			kp_strbuf_addc(&sb, ')');
			const char *r = kp_arena_strdup(&f->arena, kp_strbuf_str(&sb));
			kp_strbuf_release(&sb);
			return r;
		}
	return NULL;
}

/* The type of declaration d as spelled before its name (`T`, `float`;
 * `auto`: the deduced one), arena text; NULL when it is not a plain type
 * name (qualifiers, storage classes, declarator parts). */
static const char *spelled_type(kp_file *f, const kp_decl *d)
{
	if (!d->in_main || d->name_off <= d->begin || d->name_off > f->len)
		return NULL;
	kp_node tmp = {0};
	tmp.in_main = 1;
	tmp.begin = d->begin;
	tmp.end = d->name_off;
	const char *t = flat_text(f, &tmp);
	if (!t || !*t)
		return NULL;
	if (!strcmp(t, "auto"))
		t = d->type;
	for (const char *p = t; *p; p++)
		if (!kp_is_ident_char(*p) && !strchr(" :<>,", *p))
			return NULL;
	static const char *const bad[] = {"static ",   "extern ",    "volatile",    "const ",
					  "constexpr", "register ",  "__shared__",  "thread_local",
					  "auto",      "__device__", "__constant__"};
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_addf(&sb, "%s ", t);
	int ok = 1;
	for (size_t i = 0; i < KP_ARRAY_LEN(bad) && ok; i++)
		ok = !strstr(kp_strbuf_str(&sb), bad[i]);
	kp_strbuf_release(&sb);
	return ok ? t : NULL;
}

/* The value a guarded copy stores where the guard fails, for a temporary
 * `T v = c0;` (or `T v{c0}`, `T v{}`, `T v = T(c0)`, `static_cast<T>(c0)`):
 * c0 written with type T, or NULL and *why when c0 is not a zero kpipe's
 * guarded copy stores. */
static const char *zero_text(kp_file *f, const kp_node *vd, const char *T, const char **why)
{
	const kp_decl *t = vd->decl;
	const kp_node *z = t->init;
	for (int i = 0; !z && i < vd->nkids; i++)
		if (vd->kids[i]->kind == KP_N_INITLIST)
			z = vd->kids[i];
	if (!z) {
		*why = kp_arena_printf(&f->arena,
				       "'%s' has no initial value, so where the condition fails "
				       "the tile gets an undefined one",
				       t->name);
		return NULL;
	}
	for (;;) {
		if (z->kind == KP_N_INITLIST && z->nkids == 1)
			z = z->kids[0];
		else if ((z->kind == KP_N_PAREN || z->kind == KP_N_CAST) && z->nkids >= 1)
			z = z->kids[z->nkids - 1];
		else if ((z->kind == KP_N_OTHER && z->nkids == 1) ||
			 (z->kind == KP_N_CALL && (!z->name || !*z->name) && z->nkids == 1))
			z = z->kids[0];
		else
			break;
	}
	const char *zt = z->kind == KP_N_INITLIST || !spelled(f, z) ? NULL : flat_text(f, z);
	if (!kp_is_zero_value(z) || (z->kind != KP_N_INITLIST && !zt)) {
		*why = kp_arena_printf(
			&f->arena,
			"'%s' starts as '%s', not 0: a guarded copy stores 0 where its condition "
			"fails",
			t->name, spelled(f, z) ? kp_node_text(f, z) : "?");
		return NULL;
	}
	if (z->kind == KP_N_INITLIST) {
		const char *r = zero_of_type(f, T);
		if (!r)
			*why = kp_arena_printf(
				&f->arena,
				"'%s' is value-initialised ({}) with type '%s', whose "
				"zero kpipe does not know how to write",
				t->name, T);
		return r;
	}
	if (z->type && same_unqualified(z->type, t->type))
		return zt;
	return kp_arena_printf(&f->arena, "static_cast<%s>(%s)", T, zt);
}

/* The parts of `T v = c0; if (g) v = e1; TILE[..] = v;`. */
typedef struct {
	kp_node *ds, *iff, *set, *store, *g;
	const kp_decl *t, *tile;
} temp_shape;

/* Why the temporary shape s cannot be written as a guarded copy, or NULL
 * with the new value of the store in *val. */
static const char *temp_problem(canon *c, const temp_shape *s, kp_node **v, int j, int k,
				const char **val)
{
	kp_file *f = c->f;
	const kp_decl *t = s->t;
	if (refs(c->l->kernel->body, t) != 2)
		return kp_arena_printf(
			&f->arena,
			"'%s' is used elsewhere in the kernel, not only to carry the "
			"loaded value to '%s'",
			t->name, s->tile->name);
	for (int i = j + 1; i < k; i++)
		if (!inert(f, v[i]))
			return kp_arena_printf(
				&f->arena,
				"a statement (line %d) stands between the if that sets "
				"'%s' and the copy into '%s'",
				v[i]->line, t->name, s->tile->name);
	if (s->ds->from_macro || s->set->from_macro || s->store->from_macro ||
	    !spelled(f, s->store) || directive_in(f, s->ds->begin, s->store->end))
		return "the statements are written by a macro or hold a preprocessor line";
	if (!s->g)
		return "the if is not a plain 'if (condition)'";
	const kp_node *bad = impure(f, s->g, 1);
	if (bad)
		return kp_arena_printf(&f->arena, "the condition '%s' has a side effect ('%s')",
				       kp_node_text(f, s->g), kp_node_text(f, bad));
	kp_node *e1 = s->set->kids[1];
	bad = impure(f, e1, 1);
	if (bad)
		return kp_arena_printf(&f->arena,
				       "the value '%s' set under the condition has a side effect",
				       kp_node_text(f, e1));
	if (!same_unqualified(e1->type, t->type))
		return kp_arena_printf(&f->arena,
				       "'%s' (%s) has another type than the value '%s' (%s) set "
				       "under the condition",
				       t->name, t->type, kp_node_text(f, e1),
				       e1->type ? e1->type : "?");
	const kp_node *ve = kp_node_strip(s->store->kids[1]);
	const char *T = spelled_type(f, t);
	const char *gt = flat_text(f, s->g), *et = flat_text(f, e1);
	if (!T)
		return kp_arena_printf(&f->arena, "the type of '%s' is not a plain type name",
				       t->name);
	if (!gt || !et || !spelled(f, ve) || !only_token(f, s->set->kids[0]->end, e1->begin, "=") ||
	    e1->end != s->set->end || ve->end != s->store->end)
		return "the condition or the value holds a comment or is written by a macro";
	const char *why = NULL;
	const char *z = zero_text(f, s->ds->kids[0], T, &why);
	if (!z)
		return why;
	const kp_node *gs = kp_node_strip(s->g);
	int paren = gs->kind == KP_N_BINOP || gs->kind == KP_N_CONDOP || gs->kind == KP_N_ASSIGNOP;
	*val = kp_arena_printf(&f->arena, "%s%s%s ? %s : %s", paren ? "(" : "", gt,
			       paren ? ")" : "", et, z);
	return NULL;
}

/* Shape 1 from v[i], a declaration of the list v[0, n): the edits, or
 * c->why when it is the shape but cannot be rewritten. */
static void guarded_temp(canon *c, kp_node **v, int n, int i)
{
	kp_file *f = c->f;
	temp_shape s = {0};
	s.ds = v[i];
	if (s.ds->kind != KP_N_DECLSTMT || s.ds->nkids != 1 || s.ds->kids[0]->kind != KP_N_VARDECL)
		return;
	s.t = s.ds->kids[0]->decl;
	if (!s.t || s.t->kind != KP_D_VAR || s.t->is_shared || s.t->is_array || !s.t->type ||
	    s.t->ty.is_ref)
		return;
	int j = i + 1;
	while (j < n && !refs(v[j], s.t))
		j++;
	if (j >= n || v[j]->kind != KP_N_IF || v[j]->nkids != 2)
		return;
	s.iff = v[j];
	kp_node *then = s.iff->kids[1];
	if (then->kind == KP_N_COMPOUND)
		then = then->nkids == 1 ? then->kids[0] : NULL;
	s.set = plain_assign(then);
	if (!s.set || !is_ref_to(s.set->kids[0], s.t) || refs(s.iff, s.t) != 1)
		return;
	int k = j + 1;
	while (k < n && !refs(v[k], s.t))
		k++;
	s.store = k < n ? plain_assign(v[k]) : NULL;
	if (!s.store || !is_ref_to(s.store->kids[1], s.t) || !(s.tile = tile_of(s.store->kids[0])))
		return;
	s.g = if_cond(f, s.iff);
	const char *val = NULL;
	const char *why = temp_problem(c, &s, v, j, k, &val);
	if (why) {
		c->why = kp_arena_printf(
			&f->arena,
			"the copy into '%s' through '%s' (line %d) is not written as a "
			"guarded copy: %s",
			s.tile->name, s.t->name, s.store->line, why);
		return;
	}
	unsigned b, e;
	whole_lines(f, s.ds->begin, s.ds->end, &b, &e);
	kp_edits_add(&c->ed, b, e - b, "");
	whole_lines(f, s.iff->begin, stmt_end(f, s.iff), &b, &e);
	kp_edits_add(&c->ed, b, e - b, "");
	const kp_node *ve = kp_node_strip(s.store->kids[1]);
	kp_edits_add(&c->ed, ve->begin, ve->end - ve->begin, val);
	kp_strbuf_addf(&c->temps, "%s'%s' into '%s'", c->ntemps ? ", " : "", s.t->name,
		       s.tile->name);
	c->ntemps++;
}

/* ------------------------------------------------------------ 2: if/else blocks */

/* The statements of a branch: a block's, or the branch itself. */
static kp_node **branch_stmts(kp_node *b, kp_node **one, int *n)
{
	if (b->kind == KP_N_COMPOUND) {
		*n = b->nkids;
		return b->kids;
	}
	*one = b;
	*n = 1;
	return one;
}

/* Why the pair `if (g) S; else Z;` cannot stand for stores p of the two
 * branches, or NULL. */
static const char *pair_problem(canon *c, kp_node *s, kp_node *z)
{
	kp_file *f = c->f;
	kp_node *as = plain_assign(s), *az = plain_assign(z);
	const kp_decl *ts = as ? tile_of(as->kids[0]) : NULL,
		      *tz = az ? tile_of(az->kids[0]) : NULL;
	if (!ts || !tz)
		return kp_arena_printf(&f->arena,
				       "line %d is not a store into a tile; kpipe splits branches "
				       "that hold tile stores only",
				       !ts ? s->line : z->line);
	const char *ls = kp_node_text(f, as->kids[0]), *lz = kp_node_text(f, az->kids[0]);
	if (ts != tz || strcmp(ls, lz))
		return kp_arena_printf(
			&f->arena,
			"the else branch stores '%s' where the if stores '%s' (kpipe "
			"pairs the stores of the two branches in order, the same "
			"element in each)",
			lz, ls);
	if (!kp_is_zero_value(az->kids[1]))
		return kp_arena_printf(&f->arena,
				       "the else branch stores '%s' in '%s', not 0: a guarded copy "
				       "stores 0 where its condition fails",
				       kp_node_text(f, az->kids[1]), lz);
	if (as->from_macro || az->from_macro || !spelled(f, as) || !spelled(f, az))
		return "a store is written by a macro";
	kp_node *parts[4] = {as->kids[0], as->kids[1], az->kids[0], az->kids[1]};
	const kp_node *bad = NULL;
	for (int i = 0; i < 4 && !bad; i++)
		bad = impure(f, parts[i], 1);
	if (bad)
		return kp_arena_printf(&f->arena, "the store '%s' has a side effect ('%s')",
				       kp_node_text(f, as), kp_node_text(f, bad));
	return NULL;
}

/* Whether the statements of a block branch are alone in it: nothing but
 * white space around them (a comment would be lost). */
static int only_stmts(const kp_file *f, const kp_node *b, kp_node **v, int n)
{
	if (b->kind != KP_N_COMPOUND)
		return 1;
	unsigned p = b->begin + 1;
	for (int i = 0; i < n; i++) {
		if (!blank_range(f, p, v[i]->begin))
			return 0;
		p = stmt_end(f, v[i]);
	}
	return blank_range(f, p, b->end - 1);
}

/* The if/else split into one if/else per pair of stores. */
static const char *split_text(canon *c, const kp_node *iff, kp_node **tv, kp_node **ev, int n)
{
	kp_file *f = c->f;
	const char *ind = indent_at(f, iff->begin);
	const char *inner = indent_at(f, tv[0]->begin);
	const char *unit = strlen(inner) > strlen(ind) && !strncmp(inner, ind, strlen(ind))
				   ? inner + strlen(ind)
			   : strchr(ind, '\t') ? "\t"
					       : "    ";
	const char *g = kp_range_text(f, iff->kids[0]->begin, iff->kids[0]->end);
	kp_strbuf sb = KP_STRBUF_INIT;
	for (int p = 0; p < n; p++) {
		if (p)
			kp_strbuf_addf(&sb, "\n%s", ind);
		kp_strbuf_addf(&sb, "if (%s)\n%s%s%s\n%selse\n%s%s%s", g, ind, unit,
			       kp_range_text(f, tv[p]->begin, stmt_end(f, tv[p])), ind, ind, unit,
			       kp_range_text(f, ev[p]->begin, stmt_end(f, ev[p])));
	}
	const char *r = kp_arena_strdup(&f->arena, kp_strbuf_str(&sb));
	kp_strbuf_release(&sb);
	return r;
}

/* Shape 2 at iff, a statement of the block `parent`: returns 1 when it
 * made the edit; c->why when it is the shape but cannot be split. */
static int split_ifelse(canon *c, kp_node *iff, const kp_node *parent)
{
	kp_file *f = c->f;
	if (iff->nkids != 3)
		return 0;
	kp_node *one_t, *one_e;
	int nt, ne;
	kp_node **tv = branch_stmts(iff->kids[1], &one_t, &nt);
	kp_node **ev = branch_stmts(iff->kids[2], &one_e, &ne);
	int tiles_t = 0, tiles_e = 0;
	for (int i = 0; i < nt; i++)
		tiles_t += plain_assign(tv[i]) && tile_of(plain_assign(tv[i])->kids[0]);
	for (int i = 0; i < ne; i++)
		tiles_e += plain_assign(ev[i]) && tile_of(plain_assign(ev[i])->kids[0]);
	/* one copy per branch is the analysis's own if/else guard */
	if (!tiles_t || !tiles_e || (nt < 2 && ne < 2))
		return 0;
	const char *why = NULL;
	kp_node *g = if_cond(f, iff);
	const kp_node *bad = g ? impure(f, g, 0) : NULL;
	if (nt != ne)
		why = kp_arena_printf(&f->arena,
				      "its branches hold %d and %d statements, not one store per "
				      "tile element in each",
				      nt, ne);
	for (int p = 0; p < nt && !why; p++)
		why = pair_problem(c, tv[p], ev[p]);
	if (!why && !g)
		why = "the if is not a plain 'if (condition)'";
	else if (!why && bad)
		why = kp_arena_printf(
			&f->arena,
			"its condition reads '%s', which is memory, a reference or has "
			"a side effect: split, the condition is evaluated once per copy",
			kp_node_text(f, bad));
	else if (!why && (!parent || parent->kind != KP_N_COMPOUND))
		why = "it is not a statement of a block, where one if/else per copy could go";
	else if (!why &&
		 (!only_stmts(f, iff->kids[1], tv, nt) || !only_stmts(f, iff->kids[2], ev, ne) ||
		  directive_in(f, iff->begin, stmt_end(f, iff))))
		why = "its branches hold comments or preprocessor lines, which splitting would "
		      "lose";
	if (why) {
		c->why = kp_arena_printf(&f->arena,
					 "the if/else on line %d is not split into one if/else per "
					 "copy: %s",
					 iff->line, why);
		return 0;
	}
	kp_edits_add(&c->ed, iff->begin, stmt_end(f, iff) - iff->begin,
		     split_text(c, iff, tv, ev, nt));
	kp_strbuf_addf(&c->splits, "%sline %d", c->nsplits ? ", " : "", iff->line);
	c->nsplits++;
	c->ncopies += nt;
	return 1;
}

/* ------------------------------------------------------------ the load phase */

static void scan_list(canon *c, kp_node **v, int from, int to, kp_node *parent, int depth)
{
	if (depth > 6)
		return;
	for (int i = from; i < to && !c->why; i++) {
		kp_node *s = v[i];
		/* `#pragma unroll` wraps its loop (an attributed statement) */
		while (s->kind == KP_N_OTHER && s->nkids == 1 && is_stmt_kind(s->kids[0]->kind))
			s = s->kids[0];
		if (s->kind == KP_N_DECLSTMT)
			guarded_temp(c, v, to, i);
		else if (s->kind == KP_N_IF) {
			if (split_ifelse(c, s, parent))
				continue;
			for (int k = 1; k < s->nkids && !c->why; k++)
				if (s->kids[k]->kind == KP_N_COMPOUND)
					scan_list(c, s->kids[k]->kids, 0, s->kids[k]->nkids,
						  s->kids[k], depth + 1);
		} else if (s->kind == KP_N_COMPOUND)
			scan_list(c, s->kids, 0, s->nkids, s, depth + 1);
		else if (s->kind == KP_N_FOR && s->for_body && s->for_body->kind == KP_N_COMPOUND)
			scan_list(c, s->for_body->kids, 0, s->for_body->nkids, s->for_body,
				  depth + 1);
	}
}

/* ------------------------------------------------------------ 3: declarations */

/* A declaration statement of __shared__ arrays only (not extern), none
 * initialised. */
static int shared_decls(const kp_node *ds)
{
	if (ds->kind != KP_N_DECLSTMT || !ds->nkids)
		return 0;
	for (int i = 0; i < ds->nkids; i++) {
		const kp_decl *d = ds->kids[i]->kind == KP_N_VARDECL ? ds->kids[i]->decl : NULL;
		if (!d || !d->is_shared || !d->is_array || kp_decl_is_extern_shared(d) || d->init)
			return 0;
	}
	return 1;
}

/* A type whose default initialisation does nothing (so declaring it once
 * before the loop, not each iteration, changes nothing): arithmetic,
 * CUDA vector and half types, pointers, arrays of those. */
static int trivial_type(const kp_decl *d)
{
	static const char *const ok[] = {"float",         "double",         "int",
					 "unsigned",      "long",           "short",
					 "char",          "bool",           "size_t",
					 "int8_t",        "uint8_t",        "int16_t",
					 "uint16_t",      "int32_t",        "uint32_t",
					 "int64_t",       "uint64_t",       "__half",
					 "half",          "__half2",        "half2",
					 "__nv_bfloat16", "__nv_bfloat162", "signed",
					 "uchar",         "ushort",         "uint",
					 "ulong",         "longlong",       "ulonglong",
					 "unsigned char", "unsigned short", "unsigned int",
					 "unsigned long", "long long",      "unsigned long long",
					 "signed char"};
	const char *t = d->is_array ? d->elem_type : d->type;
	if (!t || d->ty.is_ref || KP_TY_ANY_VOLATILE(d->ty))
		return 0;
	if (d->is_pointer && !d->is_array)
		return 1;
	while (!strncmp(t, "const ", 6))
		t += 6;
	size_t n = strlen(t);
	if (n > 1 && t[n - 1] >= '1' && t[n - 1] <= '4')
		n--; /* float4, int2, ... */
	for (size_t i = 0; i < KP_ARRAY_LEN(ok); i++)
		if (strlen(ok[i]) == n && !strncmp(t, ok[i], n))
			return 1;
	return 0;
}

/* A constant: a literal, possibly cast or in braces, or an integer
 * constant kpipe evaluated. */
static int constant_init(const kp_decl *d, const kp_node *vd)
{
	const kp_node *z = d->init;
	for (int i = 0; !z && i < vd->nkids; i++)
		if (vd->kids[i]->kind == KP_N_INITLIST)
			z = vd->kids[i];
	while (z && ((z->kind == KP_N_INITLIST && z->nkids == 1) ||
		     ((z->kind == KP_N_PAREN || z->kind == KP_N_CAST) && z->nkids >= 1)))
		z = z->kids[z->nkids - 1];
	return d->has_value || (z && (z->kind == KP_N_INTLIT || z->kind == KP_N_FLOATLIT));
}

/* Where the loop writes d besides its declaration (the whole or a part,
 * through a reference, a pointer or a call: effects.h), or NULL. */
static const kp_effect *loop_write(canon *c, const kp_decl *d)
{
	const kp_effects *e = c->l->effects;
	if (!e)
		e = kp_effects_of_loop(c->f, c->l->kernel, c->l);
	for (int p = 0; p < KP_NPHASES; p++) {
		const kp_effect *w = kp_effects_write_to(&e->wr[p], d);
		if (w)
			return w;
	}
	return NULL;
}

/* Why the scalars declared by ds (statement s of the load phase) cannot
 * move before the loop, or NULL. */
static const char *scalar_problem(canon *c, const kp_node *ds, int s)
{
	kp_file *f = c->f;
	const kp_loop *l = c->l;
	for (int i = 0; i < ds->nkids; i++) {
		const kp_node *vd = ds->kids[i];
		const kp_decl *d = vd->kind == KP_N_VARDECL ? vd->decl : NULL;
		if (!d || d->kind != KP_D_VAR || d->is_shared)
			return "it is not a plain variable";
		if (d->is_static || d->is_extern)
			return kp_arena_printf(
				&f->arena,
				"'%s' is %s: one variable for the whole program, not "
				"one per thread and iteration",
				d->name, d->is_static ? "static" : "extern");
		if (!trivial_type(d))
			return kp_arena_printf(&f->arena,
					       "'%s' is of a type whose initialisation may do "
					       "something (%s)",
					       d->name, d->type ? d->type : "?");
		int init = d->init != NULL;
		for (int k = 0; k < vd->nkids; k++)
			init |= vd->kids[k]->kind == KP_N_INITLIST;
		const kp_effect *w = init ? loop_write(c, d) : NULL;
		if (w)
			return kp_arena_printf(&f->arena,
					       "'%s' is initialised each iteration, and the loop "
					       "changes it%s (line %d)",
					       d->name, kp_effect_how(f, w),
					       w->at ? w->at->line : 0);
		if (init && (!constant_init(d, vd) || kp_changed_in(f, l->kernel, d)))
			return kp_arena_printf(
				&f->arena,
				"'%s' is initialised each iteration (to a value that "
				"changes, or that the loop then changes)",
				d->name);
		for (int k = l->load_b; k < l->load_e && !init; k++)
			if (k != s && refs(l->stmts[k], d))
				return kp_arena_printf(
					&f->arena,
					"'%s' is also used by the load phase: pipelined, "
					"it would carry the next tile's value into the "
					"compute phase",
					d->name);
	}
	return NULL;
}

typedef struct {
	const char *name;
	const kp_decl *d;
	unsigned b, e;   /* the region the moved declaration would reach */
	unsigned lb, le; /* the loop body */
	const kp_node *bad;
	int typedefs;
} name_walk;

static int find_other_name(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	name_walk *w = ud;
	if (w->bad || n->end <= w->b || n->begin >= w->e)
		return !w->bad;
	int other = n->name && !strcmp(n->name, w->name) &&
		    ((n->kind == KP_N_DECLREF && n->decl != w->d) ||
		     (n->kind == KP_N_VARDECL && n->decl != w->d));
	if (other)
		w->bad = n;
	return !w->bad;
}

static int find_local_named(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	name_walk *w = ud;
	if (!w->bad && n->kind == KP_N_VARDECL && n->name && !strcmp(n->name, w->name))
		w->bad = n;
	return !w->bad;
}

/* Why declaration ds cannot move from the loop body to just before the
 * loop, in the block `parent`, or NULL: every name it declares must mean
 * it wherever it would then be visible (the loop's header, the rest of
 * the block), and every name it uses must mean there what it meant in the
 * loop (no local of the loop declares it). */
static const char *names_problem(canon *c, const kp_node *ds, const kp_node *parent)
{
	kp_file *f = c->f;
	const kp_node *loop = c->l->node, *body = c->l->body;
	if (directive_in(f, body->begin, ds->begin))
		return "a preprocessor line stands between the loop and it";
	for (int i = 0; i < ds->nkids; i++) {
		const kp_decl *d = ds->kids[i]->decl;
		if (!d)
			return "it is not a plain declaration";
		name_walk w = {d->name, d, loop->begin, parent->end, 0, 0, NULL, 0};
		kp_node_walk((kp_node *)parent, NULL, find_other_name, &w);
		if (w.bad)
			return kp_arena_printf(
				&f->arena,
				"'%s' would hide another '%s' (line %d) of the loop or "
				"of the code after it",
				d->name, d->name, w.bad->line);
	}
	/* the names the declaration uses (its type, its bounds) */
	for (unsigned i = ds->begin; i < ds->end;) {
		if (!kp_is_ident_char(f->src[i]) ||
		    (i > ds->begin && kp_is_ident_char(f->src[i - 1]))) {
			i++;
			continue;
		}
		unsigned e = i;
		while (e < ds->end && kp_is_ident_char(f->src[e]))
			e++;
		const char *name = kp_range_text(f, i, e);
		name_walk w = {name, NULL, 0, 0, 0, 0, NULL, 0};
		int own = 0;
		for (int k = 0; k < ds->nkids; k++)
			own |= ds->kids[k]->decl && !strcmp(ds->kids[k]->decl->name, name);
		if (!own)
			kp_node_walk((kp_node *)body, NULL, find_local_named, &w);
		if (w.bad)
			return kp_arena_printf(&f->arena, "it names '%s', which the loop declares",
					       name);
		if (!strcmp(name, "typedef") || !strcmp(name, "using"))
			return "it declares a type";
		i = e;
	}
	return NULL;
}

static int find_parent(kp_node *n, kp_node *parent, void *ud)
{
	void **w = ud;
	if (n == w[0])
		w[1] = parent;
	return !w[1];
}

/* The declaration's lines with the comment lines right above it, from
 * [*b, *e); 0 when it shares a line with other code. */
static int decl_lines(canon *c, const kp_node *ds, unsigned *b, unsigned *e)
{
	kp_file *f = c->f;
	if (!whole_lines(f, ds->begin, ds->end, b, e))
		return 0;
	while (*b > c->l->body->begin + 1) {
		unsigned ps = *b - 1;
		while (ps > 0 && f->src[ps - 1] != '\n')
			ps--;
		unsigned q = ps;
		while (q < *b && blank(f->src[q]))
			q++;
		if (ps <= c->l->body->begin || q + 1 >= *b || f->src[q] != '/' ||
		    f->src[q + 1] != '/')
			break;
		*b = ps;
	}
	return 1;
}

/* The text [b, e) with each line's indentation `from` made `to`. */
static void reindent(kp_file *f, unsigned b, unsigned e, const char *from, const char *to,
		     kp_strbuf *out)
{
	size_t fl = strlen(from);
	for (unsigned i = b; i < e;) {
		unsigned le = i;
		while (le < e && f->src[le] != '\n')
			le++;
		if (le - i >= fl && !strncmp(f->src + i, from, fl)) {
			kp_strbuf_adds(out, to);
			i += (unsigned)fl;
		}
		kp_strbuf_add(out, f->src + i, le - i);
		if (le < e)
			kp_strbuf_addc(out, '\n');
		i = le + 1;
	}
}

/* Whether the line before the one starting at `b` is blank, or holds the
 * `{` at `open`. */
static int blank_line_before(const kp_file *f, unsigned b, unsigned open)
{
	if (!b || f->src[b - 1] != '\n')
		return 0;
	unsigned ps = b - 1;
	while (ps > 0 && f->src[ps - 1] != '\n')
		ps--;
	return blank_range(f, ps, b - 1) || (open >= ps && open < b);
}

/* Where declarations go before the loop: the start of its line, or of
 * the #pragma lines right above it; 0 with *why when the loop shares its
 * line. */
static unsigned insert_point(canon *c, const char **why)
{
	kp_file *f = c->f;
	unsigned b = c->l->node->begin;
	while (b > 0 && blank(f->src[b - 1]))
		b--;
	if (b && f->src[b - 1] != '\n') {
		*why = "the loop does not begin its line";
		return 0;
	}
	while (b > 0) {
		unsigned ps = b - 1;
		while (ps > 0 && f->src[ps - 1] != '\n')
			ps--;
		unsigned q = ps;
		while (q < b && blank(f->src[q]))
			q++;
		if (strncmp(f->src + q, "#pragma", 7))
			break;
		b = ps;
	}
	return b;
}

/* Shape 3: the declarations of the loop body that move before it. */
static void hoist_decls(canon *c)
{
	kp_file *f = c->f;
	const kp_loop *l = c->l;
	int lead = 0;
	while (lead < l->nstmts && shared_decls(l->stmts[lead]))
		lead++;
	kp_node *moved[16];
	int nm = 0;
	void *pw[2] = {l->node, NULL};
	kp_node_walk(l->kernel->body, NULL, find_parent, pw);
	const kp_node *parent = pw[1];
	if (parent && parent->kind == KP_N_OTHER && parent->nkids == 1) {
		/* `#pragma unroll` before the loop: an attributed statement */
		void *pw2[2] = {(kp_node *)parent, NULL};
		kp_node_walk(l->kernel->body, NULL, find_parent, pw2);
		parent = pw2[1];
	}
	for (int s = lead; s < l->nstmts && !c->why; s++) {
		kp_node *ds = l->stmts[s];
		int sh = shared_decls(ds);
		int used_later = 0;
		for (int k = 0; !sh && ds->kind == KP_N_DECLSTMT && k < ds->nkids; k++)
			for (int x = 0; x < l->nstmts; x++)
				if ((x < l->load_b || x >= l->load_e) && ds->kids[k]->decl &&
				    refs(l->stmts[x], ds->kids[k]->decl))
					used_later = 1;
		if (!sh &&
		    !(ds->kind == KP_N_DECLSTMT && s >= l->load_b && s < l->load_e && used_later))
			continue;
		const char *why = sh ? NULL : scalar_problem(c, ds, s);
		unsigned b, e;
		if (!why && (!parent || parent->kind != KP_N_COMPOUND))
			why = "the loop is not a statement of a block";
		if (!why)
			why = names_problem(c, ds, parent);
		/* (`__shared__` is itself a macro: a declaration moves as spelled) */
		if (!why && (!spelled(f, ds) || !decl_lines(c, ds, &b, &e)))
			why = "it shares its line with other code";
		if (!why && nm == 16)
			why = "more than 16 declarations would move";
		if (why)
			c->why = kp_arena_printf(
				&f->arena,
				"the declaration on line %d is not moved before the "
				"loop: %s",
				ds->line, why);
		else
			moved[nm++] = ds;
	}
	if (c->why || !nm)
		return;
	const char *why = NULL;
	unsigned at = insert_point(c, &why);
	if (why) {
		c->why = kp_arena_printf(&f->arena,
					 "the declarations are not moved before the loop: %s", why);
		return;
	}
	const char *to = indent_at(f, l->node->begin);
	kp_strbuf ins = KP_STRBUF_INIT;
	unsigned group = 0; /* where the run of adjacent moved lines begins */
	for (int i = 0; i < nm; i++) {
		unsigned b, e, nb, ne;
		decl_lines(c, moved[i], &b, &e);
		if (!i || !decl_lines(c, moved[i - 1], &nb, &ne) || ne != b)
			group = b;
		reindent(f, b, e, indent_at(f, moved[i]->begin), to, &ins);
		/* the run's blank line after goes too, where one stands before */
		if ((i + 1 == nm || !decl_lines(c, moved[i + 1], &nb, &ne) || nb != e) &&
		    blank_line_before(f, group, l->body->begin) && whole_lines(f, e, e, &nb, &ne) &&
		    nb == e && ne > e)
			e = ne;
		kp_edits_add(&c->ed, b, e - b, "");
		for (int k = 0; k < moved[i]->nkids; k++)
			kp_strbuf_addf(&c->moved, "%s'%s'", c->nmoved++ ? ", " : "",
				       moved[i]->kids[k]->decl->name);
	}
	kp_edits_add(&c->ed, at, 0, kp_strbuf_str(&ins));
	kp_strbuf_release(&ins);
}

/* ------------------------------------------------------------ while */

/* A `continue` that belongs to loop body b (not to a loop inside it). */
static int has_own_continue(const kp_node *n)
{
	if (!n)
		return 0;
	if (n->kind == KP_N_CONTINUE)
		return 1;
	if (n->kind == KP_N_FOR || n->kind == KP_N_WHILE || n->kind == KP_N_DO ||
	    n->kind == KP_N_LAMBDA)
		return 0;
	for (int i = 0; i < n->nkids; i++)
		if (has_own_continue(n->kids[i]))
			return 1;
	return 0;
}

/* The variable statement s steps (++v, v--, v += e, v -= e), or NULL. */
static const kp_decl *step_of(const kp_node *s)
{
	while (s && s->kind == KP_N_PAREN && s->nkids == 1)
		s = s->kids[0];
	if (!s || !s->nkids)
		return NULL;
	int incdec = s->kind == KP_N_UNOP && KP_OP_IS_INCDEC(s->opk);
	int addsub = s->kind == KP_N_ASSIGNOP &&
		     (s->opk == KP_OP_ADD_ASSIGN || s->opk == KP_OP_SUB_ASSIGN);
	const kp_node *v = s->kids[0];
	if (!(incdec || addsub) || v->kind != KP_N_DECLREF || !v->decl ||
	    (v->decl->kind != KP_D_VAR && v->decl->kind != KP_D_PARM) || v->decl->is_shared ||
	    v->decl->is_array || v->decl->ty.is_ref)
		return NULL;
	return v->decl;
}

/* Whether statement s is a plain block barrier (`__syncthreads();`, no
 * operand), spelled in the file. */
static int plain_barrier(const kp_file *f, const kp_node *s)
{
	return s && s->kind == KP_N_CALL && s->sync == KP_SYNC_BLOCK && spelled(f, s) &&
	       !s->from_macro && s->nkids <= 1;
}

/* The steps at the end of loop body `body`: its last statements that each
 * step a variable (++v, v += e, ...), maybe followed by one block barrier.
 * Sets [*first, *last) to them and *bar to the barrier's index (-1 when
 * none); 0 when there is no step or nothing before them. */
static int trailing_steps(const kp_file *f, const kp_node *body, int *first, int *last, int *bar)
{
	int n = body->nkids, i = n - 1;
	*bar = -1;
	if (i >= 0 && plain_barrier(f, body->kids[i]))
		*bar = i--;
	*last = i + 1;
	while (i >= 0 && step_of(body->kids[i]) && spelled(f, body->kids[i]) &&
	       !body->kids[i]->from_macro)
		i--;
	*first = i + 1;
	return *first < *last && *first > 0;
}

/* while (C) { S; STEPS; [__syncthreads();] } written as
 * for (; C; STEPS) { S; [__syncthreads();] }, and
 * do { S; STEPS; [__syncthreads();] } while (C); as
 * for (int kp_it = 0; kp_it == 0 || (C); ++kp_it, STEPS) { S; [...] }
 * (the first trip runs whatever C says, the others when C holds after the
 * steps, as in the do-while).  The same loop when no `continue` of the
 * body skips the steps (in the for-loop a continue would run them), C
 * writes nothing, each step writes only its variable and reads no memory
 * (it moves past the barrier, after which other threads write shared
 * memory again), and C reads a stepped variable (a counted loop).
 * Returns 1 with the edits, 0 when the loop is not this shape, -1 with
 * *why when it is but cannot be. */
static int while_edits(kp_file *f, const kp_loop *l, kp_edits *ed, const char **what,
		       const char **why)
{
	const kp_node *w = l->node;
	int is_do = w->kind == KP_N_DO;
	if ((w->kind != KP_N_WHILE && !is_do) || w->nkids != 2 || !spelled(f, w) || w->from_macro)
		return 0;
	const kp_node *cond = is_do ? w->kids[1] : w->kids[0];
	const kp_node *body = is_do ? w->kids[0] : w->kids[1];
	const char *kw = is_do ? "do-while loop" : "while-loop";
	if (!body || body->kind != KP_N_COMPOUND || body->nkids < 2 || !spelled(f, cond) ||
	    !spelled(f, body) || cond->kind == KP_N_DECLSTMT || cond->kind == KP_N_VARDECL)
		return 0;
	int first, last, bar;
	if (!trailing_steps(f, body, &first, &last, &bar))
		return 0;
	int names = 0;
	for (int i = first; i < last; i++)
		names |= kp_node_names_decl(cond, step_of(body->kids[i]));
	if (!names)
		return 0;
	if (has_own_continue(body)) {
		*why = kp_arena_printf(
			&f->arena,
			"the %s is not written as a for-loop: a 'continue' in its "
			"body skips the step at its end, which a for-loop's increment "
			"would run",
			kw);
		return -1;
	}
	kp_effect_set rd = {0}, wr = {0};
	kp_effects_of_node(f, l->kernel, cond, &rd, &wr);
	if (wr.n) {
		*why = kp_arena_printf(&f->arena,
				       "the %s is not written as a for-loop: its condition "
				       "writes %s",
				       kw, kp_loc_text(f, &wr.v[0].loc));
		return -1;
	}
	for (int i = first; i < last; i++) {
		const kp_node *st = body->kids[i];
		const kp_decl *v = step_of(st);
		kp_effect_set rd2 = {0}, wr2 = {0};
		kp_effects_of_node(f, l->kernel, st, &rd2, &wr2);
		for (int k = 0; k < wr2.n; k++)
			if (wr2.v[k].loc.kind != KP_LOC_LOCAL || wr2.v[k].loc.decl != v) {
				*why = kp_arena_printf(
					&f->arena,
					"the %s is not written as a for-loop: the step "
					"on line %d writes %s",
					kw, st->line, kp_loc_text(f, &wr2.v[k].loc));
				return -1;
			}
		for (int k = 0; k < rd2.n && bar >= 0; k++)
			if (rd2.v[k].loc.kind != KP_LOC_LOCAL) {
				*why = kp_arena_printf(
					&f->arena,
					"the %s is not written as a for-loop: the step "
					"on line %d reads %s, which may change after the barrier "
					"on line %d",
					kw, st->line, kp_loc_text(f, &rd2.v[k].loc),
					body->kids[bar]->line);
				return -1;
			}
		for (int k = 0; k < rd2.n; k++) {
			const kp_decl *d = rd2.v[k].loc.decl;
			if (rd2.v[k].loc.kind == KP_LOC_LOCAL && d && d->in_main &&
			    d->begin >= body->begin && d->end <= body->end) {
				*why = kp_arena_printf(
					&f->arena,
					"the %s is not written as a for-loop: the step "
					"on line %d reads '%s', declared in the loop body "
					"(out of scope in a for-loop's increment)",
					kw, st->line, d->name);
				return -1;
			}
		}
	}
	kp_strbuf steps = KP_STRBUF_INIT;
	for (int i = first; i < last; i++) {
		const kp_node *st = body->kids[i];
		kp_strbuf_addf(&steps, "%s%.*s", i > first ? ", " : "", (int)(st->end - st->begin),
			       f->src + st->begin);
		unsigned b, e;
		whole_lines(f, st->begin, stmt_end(f, st), &b, &e);
		kp_edits_add(ed, b, e - b, "");
	}
	if (is_do) {
		/* `do ` .. body .. ` while (C);`: the header before the body,
		 * the tail goes */
		const char *it = kp_fresh_name(f, "kp_it");
		kp_strbuf h = KP_STRBUF_INIT;
		kp_strbuf_addf(&h, "for (int %s = 0; %s == 0 || (%.*s); ++%s, %s) ", it, it,
			       (int)(cond->end - cond->begin), f->src + cond->begin, it,
			       kp_strbuf_str(&steps));
		kp_edits_add(ed, w->begin, body->begin - w->begin, kp_strbuf_str(&h));
		kp_strbuf_release(&h);
		/* (the do-statement's extent ends after its `)`) */
		kp_edits_add(ed, body->end, stmt_end(f, w) - body->end, "");
	} else {
		/* `while (` .. C .. `)`: the keyword and parenthesis become
		 * `for (; `, the steps go after C */
		unsigned open = cond->begin;
		while (open > w->begin && f->src[open - 1] != '(')
			open--;
		if (open <= w->begin) {
			kp_strbuf_release(&steps);
			return 0;
		}
		kp_edits_add(ed, w->begin, open - w->begin, "for (; ");
		kp_strbuf inc = KP_STRBUF_INIT;
		kp_strbuf_addf(&inc, "; %s", kp_strbuf_str(&steps));
		kp_edits_add(ed, cond->end, 0, kp_strbuf_str(&inc));
		kp_strbuf_release(&inc);
	}
	*what = kp_arena_printf(&f->arena,
				"wrote the %s as a for-loop (its step%s '%s' on line %d as the "
				"increment%s)",
				kw, last - first > 1 ? "s" : "", kp_strbuf_str(&steps),
				body->kids[first]->line,
				is_do ? ", a counter for the first trip, which runs whatever the "
					"condition says"
				      : "");
	kp_strbuf_release(&steps);
	return 1;
}

/* ------------------------------------------------------------ the loop */

int kp_canon_edits(kp_file *f, const kp_loop *l, kp_edits *ed, const char **what, const char **why)
{
	*what = *why = NULL;
	if (l->node && (l->node->kind == KP_N_WHILE || l->node->kind == KP_N_DO))
		return while_edits(f, l, ed, what, why);
	if (l->bar1 < 0 || l->load_e <= l->load_b || l->load_b < 0 || l->load_e > l->nstmts ||
	    !l->body || l->body->kind != KP_N_COMPOUND || !spelled(f, l->node) ||
	    l->node->from_macro)
		return 0;
	canon c = {f, l, {0}, KP_STRBUF_INIT, 0, KP_STRBUF_INIT, 0, 0, KP_STRBUF_INIT, 0, NULL};
	scan_list(&c, l->stmts, l->load_b, l->load_e, l->body, 0);
	if (!c.why)
		hoist_decls(&c);
	int r = c.why ? -1 : c.ed.n ? 1 : 0;
	if (r == 0) { /* the tile pointers, alone (canon_carve.c) */
		r = kp_canon_carve_edits(f, l, ed, what, why);
		if (r == 0) /* C89 copy-loop counters, alone (canon_counter.c) */
			r = kp_canon_counter_edits(f, l, ed, what, why);
	} else if (r > 0) {
		kp_strbuf w = KP_STRBUF_INIT;
		if (c.ntemps)
			kp_strbuf_addf(&w,
				       "wrote the cop%s through the temporar%s %s as guarded "
				       "cop%s (TILE[..] = c ? x : 0)",
				       c.ntemps > 1 ? "ies" : "y", c.ntemps > 1 ? "ies" : "y",
				       kp_strbuf_str(&c.temps), c.ntemps > 1 ? "ies" : "y");
		if (c.nsplits)
			kp_strbuf_addf(&w,
				       "%ssplit the if/else of %d copies (%s) into one if/else "
				       "per copy",
				       w.len ? "; " : "", c.ncopies, kp_strbuf_str(&c.splits));
		if (c.nmoved)
			kp_strbuf_addf(&w, "%smoved the declaration%s of %s before the loop",
				       w.len ? "; " : "", c.nmoved > 1 ? "s" : "",
				       kp_strbuf_str(&c.moved));
		*what = kp_arena_strdup(&f->arena, kp_strbuf_str(&w));
		kp_strbuf_release(&w);
		for (int i = 0; i < c.ed.n; i++)
			kp_edits_add(ed, c.ed.v[i].off, c.ed.v[i].len, c.ed.v[i].text);
	} else if (r < 0)
		*why = c.why;
	kp_edits_release(&c.ed);
	kp_strbuf_release(&c.temps);
	kp_strbuf_release(&c.splits);
	kp_strbuf_release(&c.moved);
	return r;
}
