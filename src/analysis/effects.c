/*
 * effects.c - the read and write sets of a K-loop's phases over abstract
 * locations (effects.h).  One walk of each phase's statements; a local
 * reference or pointer is followed through a table built once per function
 * (its initialiser and every plain assignment to it, flow-insensitive); a
 * call is proven pure from the table of pure functions (pure.h), from the
 * wmma / mma signatures, or by reading a __device__ helper's body with the
 * same walk (its pointer and reference parameters map to the call's
 * arguments); all else writes "unknown".
 */
#define _GNU_SOURCE /* memmem */
#include "effects.h"
#include "pure.h"
#include "util.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define CHAIN_DEPTH 8 /* references to references, pointers to pointers */

typedef struct {
	kp_loc *v;
	const kp_decl *via; /* the first alias the locations were reached through */
	int n, cap;
} loc_set;

/* A local reference (is_ref) or pointer and what it designates or points
 * to. */
typedef struct {
	const kp_decl *d;
	int is_ref;
	loc_set tg;
} alias;

typedef struct {
	kp_file *f;
	const kp_kernel *k; /* the function whose body is read */
	int helper;         /* a helper's body: its pointer and reference parameters are PARAM */
	int depth;
	alias *al;
	int nal;
	kp_effect_set *rd, *wr;
	const char *call; /* the call the effects happen in (a helper's, at its call) */
} ectx;

static void visit(ectx *c, const kp_node *n);

/* ------------------------------------------------------------ sets */

static int same_loc(const kp_loc *a, const kp_loc *b)
{
	return a->kind == b->kind && a->decl == b->decl;
}

static void loc_add(loc_set *s, kp_loc l)
{
	for (int i = 0; i < s->n; i++)
		if (same_loc(&s->v[i], &l))
			return;
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 4;
		s->v = kp_xrealloc(s->v, sizeof(*s->v) * (size_t)s->cap);
	}
	s->v[s->n++] = l;
}

static void loc_union(loc_set *s, const loc_set *o)
{
	for (int i = 0; i < o->n; i++)
		loc_add(s, o->v[i]);
	if (!s->via)
		s->via = o->via;
}

static void set_add(kp_file *f, kp_effect_set *s, const kp_effect *e)
{
	for (int i = 0; i < s->n; i++)
		if (same_loc(&s->v[i].loc, &e->loc) && s->v[i].via == e->via &&
		    s->v[i].call == e->call && s->v[i].by_asm == e->by_asm)
			return;
	if (s->n == s->cap) {
		int cap = s->cap ? s->cap * 2 : 8;
		kp_effect *v = kp_arena_alloc(&f->arena, sizeof(*v) * (size_t)cap);
		if (s->n)
			memcpy(v, s->v, sizeof(*v) * (size_t)s->n);
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = *e;
}

static void record(ectx *c, kp_effect_set *s, const loc_set *ls, const kp_node *at, int by_asm)
{
	for (int i = 0; i < ls->n; i++) {
		kp_effect e = {ls->v[i], at, ls->via, c->call, by_asm};
		set_add(c->f, s, &e);
	}
}

static void record_one(ectx *c, kp_effect_set *s, kp_loc_kind kind, const kp_node *at, int by_asm)
{
	kp_effect e = {{kind, NULL, 0, 0}, at, NULL, c->call, by_asm};
	set_add(c->f, s, &e);
}

/* ------------------------------------------------------------ types */

/* The spelling without trailing blanks and qualifiers ("float *const" ->
 * "float *"), as [t, t + *len). */
static size_t core_len(const char *t)
{
	size_t n = strlen(t);
	for (;;) {
		while (n && t[n - 1] == ' ')
			n--;
		static const char *const q[] = {"const", "volatile", "__restrict__", "__restrict",
						"restrict"};
		int cut = 0;
		for (size_t i = 0; i < KP_ARRAY_LEN(q) && !cut; i++) {
			size_t l = strlen(q[i]);
			if (n > l && !strncmp(t + n - l, q[i], l) &&
			    !kp_is_ident_char(t[n - l - 1])) {
				n -= l;
				cut = 1;
			}
		}
		if (!cut)
			return n;
	}
}

/* A pointer (not a reference to one), from clang's canonical type. */
static int is_ptr(kp_type t) { return t.kind == KP_TY_POINTER && !t.is_ref; }

static const kp_node *strip(const kp_node *n);

static int is_array_expr(const kp_node *n)
{
	if (n->kind == KP_N_DECLREF && n->decl)
		return n->decl->is_array && !n->decl->is_pointer && !n->decl->ty.is_ref;
	if (n->ty.kind == KP_TY_ARRAY)
		return 1;
	/* a[i] of an array of more dimensions whose bounds a template's
	 * parameters give (clang types a[i] as dependent) */
	int depth = 0;
	const kp_node *b = n;
	while (b && b->kind == KP_N_SUBSCRIPT && b->nkids == 2) {
		depth++;
		b = strip(b->kids[0]);
	}
	return depth > 0 && b && b->kind == KP_N_DECLREF && b->decl && b->decl->is_array &&
	       !b->decl->is_pointer && !b->decl->ty.is_ref && b->decl->ndims > depth;
}

static int word_in(const char *s, size_t b, size_t e, const char *w)
{
	return kp_mentions_ident(s, b, e, w);
}

/* A function's own variable: declared in its extent, not static. */
static int local_var(const ectx *c, const kp_decl *d)
{
	const kp_kernel *k = c->k;
	if (d->kind == KP_D_PARM)
		return 1;
	if (d->kind != KP_D_VAR || d->is_shared || d->begin < k->begin || d->begin >= k->end)
		return 0;
	const kp_file *tf = k->home ? k->home : c->f;
	if (d->end <= tf->len && d->name_off >= d->begin && d->name_off <= tf->len &&
	    word_in(tf->src, d->begin, d->name_off, "static"))
		return 0;
	return 1;
}

static kp_loc global_loc(const ectx *c, const kp_decl *d)
{
	kp_loc l = {KP_LOC_GLOBAL, d, 0, 0};
	const kp_file *tf = c->k->home ? c->k->home : c->f;
	if (d->kind == KP_D_PARM) {
		l.is_restrict = d->ty.is_restrict;
		/* const T *__restrict__: read-only for the kernel's lifetime */
		l.readonly = l.is_restrict && d->ty.kind == KP_TY_POINTER && d->ty.elem_const;
	} else if (d->is_const || !strcmp(d->name, "threadIdx") || !strcmp(d->name, "blockIdx") ||
		   !strcmp(d->name, "blockDim") || !strcmp(d->name, "gridDim") ||
		   (d->in_main && d->end <= tf->len && d->name_off >= d->begin &&
		    d->name_off <= tf->len &&
		    word_in(tf->src, d->begin, d->name_off, "__constant__")))
		l.readonly = 1;
	return l;
}

static alias *alias_of(const ectx *c, const kp_decl *d)
{
	for (int i = 0; i < c->nal; i++)
		if (c->al[i].d == d)
			return &c->al[i];
	return NULL;
}

/* ------------------------------------------------------------ locations */

static void pts(ectx *c, const kp_node *n, loc_set *out, int depth);
static void locs(ectx *c, const kp_node *n, loc_set *out, int depth);

static void unknown(loc_set *out) { loc_add(out, (kp_loc){KP_LOC_UNKNOWN, NULL, 0, 0}); }

/* The object a name designates. */
static void decl_locs(ectx *c, const kp_decl *d, loc_set *out, int depth)
{
	if (d->kind != KP_D_VAR && d->kind != KP_D_PARM)
		return;
	alias *a = alias_of(c, d);
	if (a && a->is_ref) {
		if (!out->via)
			out->via = d;
		loc_union(out, &a->tg);
		return;
	}
	if (d->ty.is_ref) {
		if (c->helper && d->kind == KP_D_PARM)
			loc_add(out, (kp_loc){KP_LOC_PARAM, d, 0, 0});
		else
			unknown(out);
		return;
	}
	if (d->is_shared)
		loc_add(out, (kp_loc){KP_LOC_TILE, d, 0, 0});
	else if (local_var(c, d))
		loc_add(out, (kp_loc){KP_LOC_LOCAL, d, 0, 0});
	else
		loc_add(out, global_loc(c, d));
	(void)depth;
}

/* What a pointer variable d points to. */
static void decl_pts(ectx *c, const kp_decl *d, loc_set *out, int depth)
{
	alias *a = alias_of(c, d);
	if (depth > CHAIN_DEPTH) {
		unknown(out);
		return;
	}
	if (a && a->is_ref) { /* a reference to a pointer: what that pointer points to */
		if (!out->via)
			out->via = d;
		for (int i = 0; i < a->tg.n; i++)
			if (a->tg.v[i].kind == KP_LOC_LOCAL)
				decl_pts(c, a->tg.v[i].decl, out, depth + 1);
			else
				unknown(out);
		return;
	}
	if (a) {
		if (!out->via)
			out->via = d;
		loc_union(out, &a->tg);
		return;
	}
	if (d->is_array && !d->is_pointer) {
		decl_locs(c, d, out, depth);
		return;
	}
	if (d->kind == KP_D_PARM) {
		if (c->helper)
			loc_add(out, (kp_loc){KP_LOC_PARAM, d, 0, 0});
		else if (d->ty.is_ref)
			unknown(out);
		else
			loc_add(out, global_loc(c, d));
		return;
	}
	if (d->is_shared) { /* a carve-out of dynamic shared memory */
		loc_add(out, (kp_loc){KP_LOC_TILE, d->dyn_base ? d->dyn_base : d, 0, 0});
		return;
	}
	unknown(out); /* a global pointer variable, or one kpipe does not track */
}

static const kp_node *strip(const kp_node *n)
{
	for (int g = 0; n && g < 64; g++) {
		if ((n->kind == KP_N_PAREN || n->kind == KP_N_CAST || n->kind == KP_N_OTHER) &&
		    n->nkids >= 1)
			n = n->kids[n->nkids - 1];
		else
			return n;
	}
	return n;
}

static void pts(ectx *c, const kp_node *n, loc_set *out, int depth)
{
	n = strip(n);
	if (!n || depth > CHAIN_DEPTH) {
		if (n)
			unknown(out);
		return;
	}
	switch (n->kind) {
	case KP_N_DECLREF:
		if (n->decl)
			decl_pts(c, n->decl, out, depth + 1);
		return;
	case KP_N_UNOP:
		if (n->opk == KP_OP_ADDR && n->nkids == 1)
			locs(c, n->kids[0], out, depth + 1);
		else if (KP_OP_IS_INCDEC(n->opk) && n->nkids == 1)
			pts(c, n->kids[0], out, depth + 1);
		else if (n->opk == KP_OP_DEREF && is_array_expr(n))
			locs(c, n, out, depth + 1);
		else
			unknown(out);
		return;
	case KP_N_BINOP:
		if (n->nkids != 2)
			break;
		if (n->opk == KP_OP_ASSIGN || n->opk == KP_OP_COMMA)
			pts(c, n->kids[1], out, depth + 1);
		else if (n->opk == KP_OP_ADD || n->opk == KP_OP_SUB) {
			int p0 = is_ptr(n->kids[0]->ty) || is_array_expr(strip(n->kids[0]));
			int p1 = is_ptr(n->kids[1]->ty) || is_array_expr(strip(n->kids[1]));
			if (p0 || !p1)
				pts(c, n->kids[0], out, depth + 1);
			if (p1 || !p0)
				pts(c, n->kids[1], out, depth + 1);
		} else
			unknown(out);
		return;
	case KP_N_ASSIGNOP:
		if (n->nkids == 2)
			pts(c, n->kids[0], out, depth + 1);
		return;
	case KP_N_CONDOP:
		for (int i = 1; i < n->nkids; i++)
			pts(c, n->kids[i], out, depth + 1);
		return;
	case KP_N_INTLIT: return; /* a null pointer */
	case KP_N_SUBSCRIPT:
	case KP_N_MEMBER:
		if (is_array_expr(n)) { /* a row of an array decays */
			locs(c, n, out, depth + 1);
			return;
		}
		break;
	default: break;
	}
	unknown(out);
}

/* Whether a member access goes through a pointer (`p->x`). */
static int arrow(const ectx *c, const kp_node *n)
{
	const kp_node *b = n->nkids ? n->kids[0] : NULL;
	if (b && b->type)
		return is_ptr(b->ty);
	const kp_file *tf = c->k->home ? c->k->home : c->f;
	return n->begin < n->end && n->end <= tf->len &&
	       memmem(tf->src + n->begin, n->end - n->begin, "->", 2) != NULL;
}

static void locs(ectx *c, const kp_node *n, loc_set *out, int depth)
{
	n = strip(n);
	if (!n || depth > CHAIN_DEPTH) {
		if (n)
			unknown(out);
		return;
	}
	switch (n->kind) {
	case KP_N_DECLREF:
		if (n->decl)
			decl_locs(c, n->decl, out, depth + 1);
		return;
	case KP_N_SUBSCRIPT:
		if (n->nkids == 2) {
			const kp_node *b = strip(n->kids[0]);
			/* i[p] is p[i] */
			if (!is_array_expr(b) && !is_ptr(n->kids[0]->ty) && is_ptr(n->kids[1]->ty))
				b = n->kids[1];
			if (is_array_expr(b))
				locs(c, b, out, depth + 1);
			else
				pts(c, b, out, depth + 1);
			return;
		}
		break;
	case KP_N_UNOP:
		if (n->opk == KP_OP_DEREF && n->nkids == 1) {
			pts(c, n->kids[0], out, depth + 1);
			return;
		}
		if (KP_OP_IS_INCDEC(n->opk) && n->nkids == 1 && !n->postfix) {
			locs(c, n->kids[0], out, depth + 1);
			return;
		}
		break;
	case KP_N_MEMBER:
		if (n->nkids >= 1) {
			if (arrow(c, n))
				pts(c, n->kids[0], out, depth + 1);
			else
				locs(c, n->kids[0], out, depth + 1);
			return;
		}
		break;
	case KP_N_CONDOP:
		for (int i = 1; i < n->nkids; i++)
			locs(c, n->kids[i], out, depth + 1);
		return;
	case KP_N_BINOP:
		if (n->nkids == 2 && (n->opk == KP_OP_ASSIGN || n->opk == KP_OP_COMMA)) {
			locs(c, n->kids[n->opk == KP_OP_ASSIGN ? 0 : 1], out, depth + 1);
			return;
		}
		break;
	case KP_N_ASSIGNOP:
		if (n->nkids == 2) {
			locs(c, n->kids[0], out, depth + 1);
			return;
		}
		break;
	default: break;
	}
	unknown(out);
}

/* ------------------------------------------------------------ the walk */

static void read_of(ectx *c, const kp_node *lv)
{
	loc_set s = {0};
	locs(c, lv, &s, 0);
	record(c, c->rd, &s, lv, 0);
	free(s.v);
}

static void write_of(ectx *c, const kp_node *lv, const kp_node *at, int also_read)
{
	loc_set s = {0};
	locs(c, lv, &s, 0);
	record(c, c->wr, &s, at, 0);
	if (also_read)
		record(c, c->rd, &s, at, 0);
	free(s.v);
}

static void write_pts(ectx *c, const kp_node *p, const kp_node *at, int also_read)
{
	loc_set s = {0};
	pts(c, p, &s, 0);
	record(c, c->wr, &s, at, 0);
	if (also_read)
		record(c, c->rd, &s, at, 0);
	free(s.v);
}

/* The sub-expressions of an lvalue whose object is not itself read (the
 * target of a store, the operand of &): indices, the pointers it goes
 * through. */
static void visit_addr(ectx *c, const kp_node *n)
{
	n = strip(n);
	if (!n)
		return;
	switch (n->kind) {
	case KP_N_DECLREF: return;
	case KP_N_SUBSCRIPT:
		for (int i = 0; i < n->nkids; i++)
			if (is_array_expr(strip(n->kids[i])))
				visit_addr(c, n->kids[i]);
			else
				visit(c, n->kids[i]);
		return;
	case KP_N_MEMBER:
		if (n->nkids >= 1) {
			if (arrow(c, n))
				visit(c, n->kids[0]);
			else
				visit_addr(c, n->kids[0]);
		}
		return;
	default: visit(c, n);
	}
}

static int in_list(const char *s, const char *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(s, v[i]))
			return 1;
	return 0;
}

/* The wmma / mma library: its calls write only the fragments handed to
 * non-const reference parameters and the memory handed to pointers to
 * non-const (store_matrix_sync). */

static int fragment_call(const kp_node *n)
{
	static const char *const names[] = {"load_matrix_sync", "store_matrix_sync", "mma_sync",
					    "fill_fragment", "bmma_sync"};
	return in_list(kp_call_name(n), names, KP_ARRAY_LEN(names));
}

/* How parameter i of function d lets the callee write its argument, from
 * clang's types of its parameters: 1 a non-const lvalue reference (the
 * argument's object), 2 a pointer to non-const (what it points to), 0
 * neither (a value, a const reference or pointee, an rvalue reference: a
 * temporary), -1 unknown (no prototype, or an argument passed to `...`). */
static int param_writes(const kp_decl *d, int i)
{
	if (!d || d->nparam_ty < 0)
		return -1;
	if (i >= d->nparam_ty)
		return d->variadic ? -1 : 0;
	kp_type t = d->param_ty[i];
	if (t.is_ref == 2)
		return 0;
	if (t.is_ref)
		return t.is_const ? 0 : 1;
	if (t.kind == KP_TY_POINTER || t.kind == KP_TY_ARRAY) /* T a[N] is T *a */
		return t.elem_const ? 0 : 2;
	if (t.kind == KP_TY_DEPENDENT || t.kind == KP_TY_UNKNOWN)
		return -1; /* a template's parameter type not known yet */
	return 0;
}

/* A constructor: a call named as the class it makes (`fragment` of
 * "wmma::fragment<...>"); kpipe takes constructors to only build their
 * object. */
static int ctor_call(const kp_node *n)
{
	const char *t = n->type, *nm = n->name;
	if (!t || !nm || !*nm)
		return 0;
	const char *lt = strchr(t, '<');
	size_t e = lt ? (size_t)(lt - t) : core_len(t);
	size_t b = e;
	while (b > 0 && (kp_is_ident_char(t[b - 1])))
		b--;
	return e > b && strlen(nm) == e - b && !strncmp(t + b, nm, e - b);
}

static int callee_first(const kp_node *n) { return kp_call_first_arg(n); }

/* An implicit copy or move of a class value (C++11's construction of a
 * by-value parameter from a temporary, `f(a * b)`, or of a value
 * returned, `return cuConj(x);` in a function returning the typedef
 * `magmaDoubleComplex`): no name, no constructor declaration the model
 * knows, one operand of the same class type (spelled so, or the same by
 * clang's canonical types).  It reads its operand; a user-declared constructor would have its
 * declaration, and goes the other ways. */
static int implicit_copy(const kp_node *n)
{
	if (*kp_call_name(n) || n->decl || n->nkids != 1 || !n->type || !n->kids[0]->type)
		return 0;
	const kp_node *a = n->kids[0];
	size_t ln = core_len(n->type), la = core_len(a->type);
	const char *tn = n->type, *ta = a->type;
	if (!strncmp(tn, "const ", 6))
		tn += 6, ln -= 6;
	if (!strncmp(ta, "const ", 6))
		ta += 6, la -= 6;
	return n->ty.kind == KP_TY_RECORD && a->ty.kind == KP_TY_RECORD && !n->ty.is_ref &&
	       ((ln == la && !strncmp(tn, ta, ln)) || n->same_class_copy);
}

/* A functional cast to a dependent type in a template (`T w = T(0);`, a
 * construction clang leaves unresolved, with no name and no declaration:
 * kp_node.type_construct): a conversion or a constructor in each
 * instantiation, which kpipe takes to only build its value, as it does
 * constructors (ctor_call). */
static int dependent_construct(const kp_node *n)
{
	return n->type_construct && !*kp_call_name(n) && !n->decl && n->ty.kind == KP_TY_DEPENDENT;
}

static void helper_call(ectx *c, const kp_node *n, const kp_kernel *fn, int a0);

static void read_pts(ectx *c, const kp_node *p, const kp_node *at)
{
	loc_set s = {0};
	pts(c, p, &s, 0);
	record(c, c->rd, &s, at, 0);
	free(s.v);
}

static void signature_call(ectx *c, const kp_node *n, int a0)
{
	for (int i = a0; i < n->nkids; i++) {
		if (is_ptr(n->kids[i]->ty))
			read_pts(c, n->kids[i], n);
		int w = param_writes(n->decl, i - a0);
		if (w == 1)
			write_of(c, n->kids[i], n, 1);
		else if (w == 2)
			write_pts(c, n->kids[i], n, 1);
		else if (w < 0)
			write_of(c, n->kids[i], n, 1);
	}
}

/* A wmma call (nvcuda::wmma's load_matrix_sync, mma_sync, ...): as its
 * declaration says when clang resolved it; in a template whose call is
 * dependent, as the API defines it: store_matrix_sync(p, frag, ...)
 * writes what p points to, the others write their first argument (the
 * fragment) and read what their pointers point to. */
static void fragment_effects(ectx *c, const kp_node *n, int a0)
{
	if (n->decl && n->decl->type && strchr(n->decl->type, '(')) {
		signature_call(c, n, a0);
		return;
	}
	int store = !strcmp(kp_call_name(n), "store_matrix_sync");
	for (int i = a0; i < n->nkids; i++) {
		if (i == a0 && store)
			write_pts(c, n->kids[i], n, 1);
		else if (i == a0)
			write_of(c, n->kids[i], n, 1);
		else if (is_ptr(n->kids[i]->ty) || n->kids[i]->ty.kind == KP_TY_DEPENDENT ||
			 n->kids[i]->ty.kind == KP_TY_UNKNOWN)
			read_pts(c, n->kids[i], n);
	}
}

/* Whether each function an unresolved call's name can find
 * (kp_node.lookup_decls) has a body kpipe reads. */
static int lookup_read(const kp_node *n)
{
	for (int i = 0; i < n->nlookup; i++)
		if (!n->lookup_decls[i] || !n->lookup_decls[i]->fn || !n->lookup_decls[i]->fn->body)
			return 0;
	return n->nlookup > 0;
}

static void visit_call(ectx *c, const kp_node *n)
{
	const char *nm = kp_call_name(n);
	int a0 = callee_first(n);
	if (n->sync != KP_SYNC_NONE)
		return;
	const char *saved = c->call;
	if (!c->call)
		c->call = *nm ? nm : "?";
	if (!strncmp(nm, "operator", 8)) {
		const char *op = nm + 8;
		if (!strcmp(op, "()") || !strcmp(op, "->") || !strcmp(op, "[]"))
			record_one(c, c->wr, KP_LOC_UNKNOWN, n, 0);
		else /* as the operator's parameters (or its candidates') take the
		      * operands (pure.h): an assignment writes its first */
			for (int i = a0; i < n->nkids; i++) {
				int w = kp_call_arg_write(n, i);
				if (w == 1)
					write_of(c, n->kids[i], n, 1);
				else if (w == 2)
					write_pts(c, n->kids[i], n, 1);
			}
	} else if (a0 && n->kids[0]->kind == KP_N_MEMBER) {
		/* a method: it may change its object, and more */
		record_one(c, c->wr, KP_LOC_UNKNOWN, n, 0);
	} else if (!strncmp(nm, "atomic", 6) || !strncmp(nm, "__st", 4)) {
		if (n->nkids > a0)
			write_pts(c, n->kids[a0], n, 1);
	} else if (!strncmp(nm, "__ld", 4)) {
		if (n->nkids > a0)
			read_pts(c, n->kids[a0], n);
	} else if (kp_call_pure(n) || ctor_call(n) || implicit_copy(n) || dependent_construct(n)) {
		/* reads its operands */
	} else if (n->decl && n->decl->kind == KP_D_OTHER && n->decl->nparam_ty >= 0) {
		/* a constructor (`real4 b = Bs[k][c];`, the class spelled
		 * through a typedef): builds its object, and writes what its
		 * parameter types let it */
		signature_call(c, n, a0);
	} else if (fragment_call(n) && !(n->decl && n->decl->fn)) {
		fragment_effects(c, n, a0);
	} else if (n->decl && n->decl->fn && c->depth < KP_EFFECTS_HELPER_DEPTH) {
		helper_call(c, n, n->decl->fn, a0);
	} else if (!n->decl && n->nlookup && c->depth < KP_EFFECTS_HELPER_DEPTH && lookup_read(n)) {
		/* unresolved in a template, its name finding only these
		 * functions (no other of that name in the translation unit):
		 * the instantiation calls one of them, which does what its
		 * body does */
		for (int i = 0; i < n->nlookup; i++)
			helper_call(c, n, n->lookup_decls[i]->fn, a0);
	} else {
		signature_call(c, n, a0);
		record_one(c, c->wr, KP_LOC_UNKNOWN, n, 0);
		record_one(c, c->rd, KP_LOC_UNKNOWN, n, 0);
	}
	for (int i = a0; i < n->nkids; i++)
		visit(c, n->kids[i]);
	c->call = saved;
}

static void build_aliases(ectx *c, const kp_node *body);

/* A __device__ helper of the file: its body read with the same walk; what
 * it does through its pointer and reference parameters is done to the
 * arguments, what it does to global memory is the call's. */
static void helper_call(ectx *c, const kp_node *n, const kp_kernel *fn, int a0)
{
	kp_effect_set hr = {0}, hw = {0};
	ectx h = {c->f, fn, 1, c->depth + 1, NULL, 0, &hr, &hw, NULL};
	build_aliases(&h, fn->body);
	if (fn->body)
		visit(&h, fn->body);
	else
		record_one(&h, &hw, KP_LOC_UNKNOWN, n, 0);
	for (int s = 0; s < 2; s++) {
		kp_effect_set *from = s ? &hw : &hr, *to = s ? c->wr : c->rd;
		for (int i = 0; i < from->n; i++) {
			const kp_effect *e = &from->v[i];
			if (e->loc.kind == KP_LOC_LOCAL)
				continue; /* the helper's own variables */
			if (e->loc.kind != KP_LOC_PARAM) {
				kp_effect x = *e;
				x.at = n;
				x.call = c->call;
				x.via = NULL;
				set_add(c->f, to, &x);
				continue;
			}
			int pi = -1;
			for (int p = 0; p < fn->nparams; p++)
				if (fn->params[p] == e->loc.decl)
					pi = p;
			if (pi < 0 || a0 + pi >= n->nkids) {
				record_one(c, to, KP_LOC_UNKNOWN, n, 0);
				continue;
			}
			loc_set ls = {0};
			if (e->loc.decl->ty.is_ref)
				locs(c, n->kids[a0 + pi], &ls, 0);
			else
				pts(c, n->kids[a0 + pi], &ls, 0);
			record(c, to, &ls, n, 0);
			free(ls.v);
		}
	}
	for (int i = 0; i < h.nal; i++)
		free(h.al[i].tg.v);
	free(h.al);
}

/* One PTX opcode's memory effect: 1 reads, 2 writes, 3 both, 0 none;
 * an opcode kpipe does not know is 3. */
static int ptx_opcode_effect(const char *op, size_t n)
{
	static const char *const wr[] = {"st",   "stmatrix", "red",     "atom",
					 "cp",   "mbarrier", "wgmma",   "multimem",
					 "sust", "sured",    "tcgen05", "discard"};
	static const char *const rd[] = {"ld",   "ldu",  "ldmatrix", "tex",
					 "tld4", "suld", "prefetch", "prefetchu"};
	/* the instructions that touch registers only (arithmetic, moves,
	 * conversions, the warp's collectives, barriers and fences, control);
	 * any other opcode may read and write memory (denied by default) */
	static const char *const regs[] = {
		"add",          "sub",        "mul",        "mad",
		"mad24",        "mul24",      "sad",        "fma",
		"div",          "rem",        "abs",        "neg",
		"min",          "max",        "addc",       "subc",
		"madc",         "popc",       "clz",        "bfind",
		"fns",          "brev",       "bfe",        "bfi",
		"bmsk",         "szext",      "dp4a",       "dp2a",
		"and",          "or",         "xor",        "not",
		"cnot",         "lop3",       "shf",        "shl",
		"shr",          "mov",        "prmt",       "cvt",
		"cvta",         "set",        "setp",       "selp",
		"slct",         "copysign",   "testp",      "rcp",
		"sqrt",         "rsqrt",      "sin",        "cos",
		"lg2",          "ex2",        "tanh",       "mma",
		"movmatrix",    "shfl",       "vote",       "match",
		"redux",        "activemask", "elect",      "bar",
		"barrier",      "fence",      "membar",     "nanosleep",
		"getctarank",   "isspacep",   "setmaxnreg", "griddepcontrol",
		"createpolicy", "trap",       "exit",       "ret",
		"bra",          "vadd2",      "vadd4",      "vsub2",
		"vsub4",        "vavrg2",     "vavrg4",     "vabsdiff2",
		"vabsdiff4",    "vmin2",      "vmin4",      "vmax2",
		"vmax4",        "vset2",      "vset4"};
	size_t h = 0;
	while (h < n && op[h] != '.')
		h++;
	if (h == 4 && !strncmp(op, "wmma", 4)) /* wmma.load / wmma.store / wmma.mma */
		return n >= 9 && !strncmp(op + 5, "load", 4)     ? 1
		       : n >= 10 && !strncmp(op + 5, "store", 5) ? 2
		       : n >= 8 && !strncmp(op + 5, "mma", 3)    ? 0
								 : 3;
	for (size_t i = 0; i < KP_ARRAY_LEN(wr); i++)
		if (strlen(wr[i]) == h && !strncmp(op, wr[i], h))
			return 3; /* a write; atomics and copies read too */
	for (size_t i = 0; i < KP_ARRAY_LEN(rd); i++)
		if (strlen(rd[i]) == h && !strncmp(op, rd[i], h))
			return 1;
	for (size_t i = 0; i < KP_ARRAY_LEN(regs); i++)
		if (strlen(regs[i]) == h && !strncmp(op, regs[i], h))
			return 0;
	return 3;
}

const char *kp_asm_each_opcode(const char *t, void (*fn)(const char *op, size_t n, void *ctx),
			       void *ctx)
{
	/* asm [volatile | __volatile__ | inline | goto]... ( "template" */
	const char *q = t;
	while (*q && *q != '(' && *q != '"')
		q++;
	if (*q == '(')
		q++;
	while (isspace((unsigned char)*q))
		q++;
	if (*q != '"')
		return NULL;
	/* the template: adjacent literals, escapes kept as written */
	kp_strbuf tpl = KP_STRBUF_INIT;
	while (*q == '"') {
		const char *e = q + 1;
		while (*e && *e != '"')
			e += e[0] == '\\' && e[1] ? 2 : 1;
		kp_strbuf_add(&tpl, q + 1, (size_t)(e - q - 1));
		kp_strbuf_addc(&tpl, '\n');
		q = *e ? e + 1 : e;
		while (isspace((unsigned char)*q))
			q++;
	}
	const char *p = kp_strbuf_str(&tpl);
	while (*p) {
		/* one instruction: separators ; { } and line breaks (\n) */
		while (*p && (isspace((unsigned char)*p) || strchr(";{}", *p) ||
			      (p[0] == '\\' && (p[1] == 'n' || p[1] == 't'))))
			p += p[0] == '\\' ? 2 : 1;
		if (*p == '@') /* a predicate guard */
			while (*p && !isspace((unsigned char)*p))
				p++;
		while (isspace((unsigned char)*p))
			p++;
		const char *op = p;
		while (*p && !isspace((unsigned char)*p) && !strchr(";{}\\", *p))
			p++;
		/* an opcode starts with a letter: not a label (`L1:`), a
		 * directive (`.reg`) or the operands after a `{` */
		if (p > op && p[-1] != ':' && isalpha((unsigned char)*op))
			fn(op, (size_t)(p - op), ctx);
		while (*p && !strchr(";{}", *p) && !(p[0] == '\\' && p[1] == 'n'))
			p++;
	}
	kp_strbuf_release(&tpl);
	return q;
}

static void or_opcode_effect(const char *op, size_t n, void *ctx)
{
	*(int *)ctx |= ptx_opcode_effect(op, n);
}

/* The memory effect of an asm statement as clang prints it: its template's
 * opcodes (kp_asm_each_opcode), a memory operand ("m") or a "memory"
 * clobber (both).  *nout: its output operands ("=..." and "+..."
 * constraints). */
static int asm_effect(const char *t, int *nout)
{
	int fx = 0;
	*nout = 0;
	const char *q = kp_asm_each_opcode(t, or_opcode_effect, &fx);
	if (!q)
		return 3; /* a template kpipe cannot read (a macro parameter) */
	/* the operands and clobbers */
	for (const char *r = q; *r; r++) {
		if (*r != '"')
			continue;
		if (r[1] == '=' || r[1] == '+')
			(*nout)++;
		const char *k = r + 1 + (r[1] == '=' || r[1] == '+');
		if (*k == 'm' && (k[1] == '"' || !strncmp(k, "memory\"", 7)))
			fx = 3;
		const char *close = strchr(r + 1, '"');
		if (!close)
			break;
		r = close;
	}
	return fx;
}

/* asm: its output operands are written; memory is read or written as its
 * PTX says (asm_effect): a warp's ldmatrix or wmma.load reads shared
 * memory through an address operand kpipe does not follow, so it is a
 * read of unknown memory; a store, an atomic or a copy writes unknown
 * memory; without the statement's text, both. */
static void visit_asm(ectx *c, const kp_node *n)
{
	int nout = 0, fx = n->asm_text ? asm_effect(n->asm_text, &nout) : 3;
	if (fx & 2)
		record_one(c, c->wr, KP_LOC_UNKNOWN, n, 1);
	if (fx & 1)
		record_one(c, c->rd, KP_LOC_UNKNOWN, n, 1);
	for (int i = 0; i < n->nkids; i++) {
		if (!n->asm_text || i < nout) { /* unknown: any operand may be written */
			loc_set ls = {0};
			locs(c, n->kids[i], &ls, 0);
			record(c, c->wr, &ls, n, 1);
			free(ls.v);
			if (n->asm_text)
				visit_addr(c, n->kids[i]);
			else
				visit(c, n->kids[i]);
		} else
			visit(c, n->kids[i]);
	}
}

static void visit_decl(ectx *c, const kp_node *n)
{
	const kp_decl *d = n->decl;
	for (int i = 0; i < n->nkids; i++) {
		const kp_node *k = n->kids[i];
		if (d && k == d->init && d->ty.is_ref)
			visit_addr(c, k); /* binding a reference reads nothing */
		else
			visit(c, k);
	}
}

static void visit(ectx *c, const kp_node *n)
{
	if (!n)
		return;
	switch (n->kind) {
	case KP_N_DECLREF:
		if (n->decl && (n->decl->kind == KP_D_VAR || n->decl->kind == KP_D_PARM))
			read_of(c, n);
		return;
	case KP_N_SUBSCRIPT:
	case KP_N_MEMBER:
		read_of(c, n);
		visit_addr(c, n);
		return;
	case KP_N_UNOP:
		if (n->opk == KP_OP_ADDR && n->nkids == 1) {
			visit_addr(c, n->kids[0]);
			return;
		}
		if (n->opk == KP_OP_DEREF && n->nkids == 1) {
			read_of(c, n);
			visit(c, n->kids[0]);
			return;
		}
		if (KP_OP_IS_INCDEC(n->opk) && n->nkids == 1) {
			write_of(c, n->kids[0], n, 1);
			visit_addr(c, n->kids[0]);
			return;
		}
		break;
	case KP_N_BINOP:
		if (n->opk == KP_OP_ASSIGN && n->nkids == 2) {
			write_of(c, n->kids[0], n, 0);
			visit_addr(c, n->kids[0]);
			visit(c, n->kids[1]);
			return;
		}
		break;
	case KP_N_ASSIGNOP:
		if (n->nkids == 2) {
			write_of(c, n->kids[0], n, 1);
			visit_addr(c, n->kids[0]);
			visit(c, n->kids[1]);
			return;
		}
		break;
	case KP_N_VARDECL: visit_decl(c, n); return;
	case KP_N_CALL: visit_call(c, n); return;
	case KP_N_ASM: visit_asm(c, n); return;
	case KP_N_LAMBDA: /* its body is not in the model */
		record_one(c, c->wr, KP_LOC_UNKNOWN, n, 0);
		record_one(c, c->rd, KP_LOC_UNKNOWN, n, 0);
		return;
	case KP_N_SIZEOF: return;
	default: break;
	}
	for (int i = 0; i < n->nkids; i++)
		visit(c, n->kids[i]);
}

/* ------------------------------------------------------------ aliases */

typedef struct {
	ectx *c;
	int changed;
} alias_walk;

static alias *alias_add(ectx *c, const kp_decl *d, int is_ref)
{
	alias *a = alias_of(c, d);
	if (a)
		return a;
	c->al = kp_xrealloc(c->al, sizeof(*c->al) * (size_t)(c->nal + 1));
	a = &c->al[c->nal++];
	memset(a, 0, sizeof(*a));
	a->d = d;
	a->is_ref = is_ref;
	return a;
}

static void alias_grow(alias_walk *w, alias *a, const kp_node *value, int as_ref)
{
	loc_set s = {0};
	if (!value)
		unknown(&s);
	else if (as_ref)
		locs(w->c, value, &s, 0);
	else
		pts(w->c, value, &s, 0);
	int before = a->tg.n;
	for (int i = 0; i < s.n; i++)
		loc_add(&a->tg, s.v[i]);
	w->changed |= a->tg.n != before;
	free(s.v);
}

static int find_aliases(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	alias_walk *w = ud;
	ectx *c = w->c;
	if (n->kind == KP_N_VARDECL && n->decl && n->decl->kind == KP_D_VAR &&
	    local_var(c, n->decl) && !n->decl->is_shared) {
		const kp_decl *d = n->decl;
		if (d->ty.is_ref)
			alias_grow(w, alias_add(c, d, 1), d->init, 1);
		else if (d->is_pointer) {
			alias *a = alias_add(c, d, 0);
			if (d->init)
				alias_grow(w, a, d->init, 0);
		}
	}
	if (n->kind == KP_N_UNOP && n->opk == KP_OP_ADDR && n->nkids == 1) {
		const kp_node *t = strip(n->kids[0]);
		alias *a = t && t->kind == KP_N_DECLREF && t->decl ? alias_of(c, t->decl) : NULL;
		if (a && !a->is_ref)
			alias_grow(w, a, NULL, 0);
	}
	if (n->kind == KP_N_BINOP && n->opk == KP_OP_ASSIGN && n->nkids == 2) {
		const kp_node *t = strip(n->kids[0]);
		alias *a = t && t->kind == KP_N_DECLREF && t->decl ? alias_of(c, t->decl) : NULL;
		if (a && !a->is_ref)
			alias_grow(w, a, n->kids[1], 0);
	}
	return 1;
}

static void build_aliases(ectx *c, const kp_node *body)
{
	if (!body)
		return;
	alias_walk w = {c, 1};
	for (int round = 0; round < 4 && w.changed; round++) {
		w.changed = 0;
		kp_node_walk((kp_node *)body, NULL, find_aliases, &w);
	}
}

/* ------------------------------------------------------------ the loop */

void kp_effects_of_node(kp_file *f, const kp_kernel *k, const kp_node *n, kp_effect_set *rd,
			kp_effect_set *wr)
{
	ectx c = {f, k, 0, 0, NULL, 0, rd, wr, NULL};
	build_aliases(&c, k->body);
	visit(&c, n);
	for (int i = 0; i < c.nal; i++)
		free(c.al[i].tg.v);
	free(c.al);
}

typedef struct {
	ectx *c;
	unsigned after;
} after_walk;

static int visit_after(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	after_walk *w = ud;
	if (n->in_main && n->begin >= w->after) {
		visit(w->c, n);
		return 0;
	}
	return 1;
}

const kp_node *kp_find_through_helpers(const kp_node *n, int depth, int (*hit)(const kp_node *n),
				       int deep_hits, const kp_kernel **helper)
{
	if (!n)
		return NULL;
	if (hit(n))
		return n;
	if (n->kind == KP_N_CALL && n->decl && n->decl->fn) {
		if (depth >= KP_EFFECTS_HELPER_DEPTH) {
			if (deep_hits)
				return n;
		} else {
			const kp_node *r = kp_find_through_helpers(n->decl->fn->body, depth + 1,
								   hit, deep_hits, helper);
			if (r) {
				if (helper && !*helper)
					*helper = n->decl->fn;
				return r;
			}
		}
	}
	for (int i = 0; i < n->nkids; i++) {
		const kp_node *r =
			kp_find_through_helpers(n->kids[i], depth, hit, deep_hits, helper);
		if (r)
			return r;
	}
	return NULL;
}

kp_effects *kp_effects_of_loop(kp_file *f, const kp_kernel *k, const kp_loop *l)
{
	kp_effects *e = kp_arena_alloc(&f->arena, sizeof(*e));
	ectx c = {f, k, 0, 0, NULL, 0, NULL, NULL, NULL};
	build_aliases(&c, k->body);
	for (int i = 0; i < l->nstmts; i++) {
		int ph = -1;
		if (i >= l->load_b && i < l->load_e)
			ph = KP_PH_LOAD;
		else if (i >= l->bump_b && i < l->bump_e)
			ph = KP_PH_AFTER;
		else if (i >= l->comp_b && i < l->comp_e)
			ph = KP_PH_COMP;
		else if (l->form == KP_FORM_BOTTOM && l->bar2 >= 0 && i > l->bar2)
			ph = KP_PH_AFTER;
		if (ph < 0)
			continue;
		c.rd = &e->rd[ph];
		c.wr = &e->wr[ph];
		visit(&c, l->stmts[i]);
	}
	c.rd = &e->rd[KP_PH_COND];
	c.wr = &e->wr[KP_PH_COND];
	visit(&c, l->cond);
	c.rd = &e->rd[KP_PH_INC];
	c.wr = &e->wr[KP_PH_INC];
	visit(&c, l->inc);
	if (k->body && l->node->in_main) {
		kp_effect_set junk = {0};
		c.rd = &e->after_rd;
		c.wr = &junk;
		after_walk w = {&c, l->node->end};
		kp_node_walk(k->body, NULL, visit_after, &w);
	}
	for (int i = 0; i < c.nal; i++)
		free(c.al[i].tg.v);
	free(c.al);
	return e;
}

/* ------------------------------------------------------------ queries */

static int memory(const kp_loc *a)
{
	return a->kind == KP_LOC_GLOBAL || a->kind == KP_LOC_UNKNOWN || a->kind == KP_LOC_PARAM;
}

int kp_loc_may_alias(const kp_loc *a, const kp_loc *b)
{
	if (a->kind == KP_LOC_UNKNOWN || b->kind == KP_LOC_UNKNOWN) {
		const kp_loc *o = a->kind == KP_LOC_UNKNOWN ? b : a;
		return o->kind != KP_LOC_LOCAL && !(o->kind == KP_LOC_GLOBAL && o->readonly);
	}
	if (a->kind == KP_LOC_LOCAL || b->kind == KP_LOC_LOCAL || a->kind == KP_LOC_TILE ||
	    b->kind == KP_LOC_TILE)
		return a->kind == b->kind && a->decl == b->decl;
	if (!memory(a) || !memory(b))
		return 0;
	if (a->decl == b->decl)
		return 1;
	if (a->readonly || b->readonly)
		return 0;
	if (a->is_restrict || b->is_restrict)
		return 0;
	/* two __device__ variables are distinct objects */
	return a->decl->kind == KP_D_PARM || b->decl->kind == KP_D_PARM;
}

const kp_effect *kp_effects_write_to(const kp_effect_set *s, const kp_decl *d)
{
	for (int i = 0; s && i < s->n; i++)
		if (s->v[i].loc.decl == d &&
		    (s->v[i].loc.kind == KP_LOC_LOCAL || s->v[i].loc.kind == KP_LOC_GLOBAL))
			return &s->v[i];
	return NULL;
}

const char *kp_loc_text(kp_file *f, const kp_loc *loc)
{
	switch (loc->kind) {
	case KP_LOC_LOCAL: return kp_arena_printf(&f->arena, "'%s'", loc->decl->name);
	case KP_LOC_TILE:
		return kp_arena_printf(&f->arena, "the shared array '%s'", loc->decl->name);
	case KP_LOC_GLOBAL:
		if (loc->decl->kind == KP_D_PARM)
			return kp_arena_printf(&f->arena, "global memory through '%s'",
					       loc->decl->name);
		return kp_arena_printf(&f->arena, "the __device__ variable '%s'", loc->decl->name);
	case KP_LOC_PARAM:
		return kp_arena_printf(&f->arena, "what '%s' points to", loc->decl->name);
	default: return "memory kpipe cannot name";
	}
}

const char *kp_effect_how(kp_file *f, const kp_effect *e)
{
	if (e->by_asm)
		return " by inline assembly";
	if (e->call)
		return kp_arena_printf(&f->arena, " in the call to '%s'", e->call);
	if (e->via)
		return kp_arena_printf(&f->arena, " through the %s '%s'",
				       e->via->ty.is_ref ? "reference" : "pointer", e->via->name);
	return "";
}

const kp_effect *kp_effects_read_after(const kp_effects *e)
{
	static const kp_phase ph[] = {KP_PH_COMP, KP_PH_AFTER};
	for (size_t p = 0; p < KP_ARRAY_LEN(ph); p++)
		for (int i = 0; i < e->wr[ph[p]].n; i++) {
			const kp_effect *w = &e->wr[ph[p]].v[i];
			if (!memory(&w->loc))
				continue;
			for (int j = 0; j < e->after_rd.n; j++)
				if (memory(&e->after_rd.v[j].loc) &&
				    kp_loc_may_alias(&w->loc, &e->after_rd.v[j].loc))
					return w;
		}
	return NULL;
}
