/*
 * bulk_index.c - the index analysis of the bulk-copy transforms
 * (bulk_index.h): integer expressions read as affine in threadIdx.x and .y
 * with uniform other terms, following locals to their initialisers and the
 * loop's counters through their updates; the guards a tile's corners
 * decide; the copies that have a bulk form.  Moved out of
 * transforms/bulk.c, which renders what this finds.
 */
#include "bulk_index.h"

#include <string.h>

int kp_lin_threads(const kp_lin *v) { return v->cx || v->cx_sym || v->ty; }

static kp_lin kp_lin_bad(const char *why)
{
	kp_lin v = {0};
	v.bad = why;
	return v;
}

const kp_induct *kp_lin_induct_of(const kp_loop *l, const kp_decl *d)
{
	for (int i = 0; i < l->nind; i++)
		if (l->ind[i].var == d)
			return &l->ind[i];
	return NULL;
}

/* kp_node_builtin() with the component as spelled in the main file:
 * 'x', 'y', 'z', or 0 (a macro's: nothing kpipe can edit). */
const char *kp_lin_builtin_of(const kp_file *f, const kp_node *n, char *c)
{
	int k;
	const char *b = kp_node_builtin(f, n, 0, &k);
	*c = b && k >= 0 ? (char)('x' + k) : 0;
	return b;
}

/* Every update of d: the assignments, increments and address-takings
 * anywhere in the kernel (walk_updates). */
typedef struct {
	kp_lin_ctx *c;
	const kp_decl *d;
	int n;           /* updates found */
	const char *bad; /* one that may differ between threads */
} upd_walk;

static int walk_updates(kp_node *n, kp_node *parent, void *ud)
{
	upd_walk *w = ud;
	const kp_node *target = NULL, *value = NULL;
	if ((n->kind == KP_N_BINOP && n->op && n->opk == KP_OP_ASSIGN) ||
	    n->kind == KP_N_ASSIGNOP) {
		if (n->nkids == 2) {
			target = n->kids[0];
			value = n->kids[1];
		}
	} else if (n->kind == KP_N_UNOP && n->op && n->nkids == 1 &&
		   (KP_OP_IS_INCDEC(n->opk) || n->opk == KP_OP_ADDR))
		target = n->kids[0];
	target = target ? kp_node_strip(target) : NULL;
	if (!target || target->kind != KP_N_DECLREF || target->decl != w->d)
		return 1;
	w->n++;
	if (n->kind == KP_N_UNOP && n->opk == KP_OP_ADDR) {
		w->bad = "has its address taken";
		return 1;
	}
	/* executed by every thread: a statement of the kernel's body, or one
	 * of the loop's own counter and pointer updates */
	int everyone = parent == w->c->l->kernel->body;
	for (int i = 0; i < w->c->l->nind && !everyone; i++) {
		const kp_node *st = w->c->l->ind[i].stmt;
		everyone = w->c->l->ind[i].var == w->d && st && n->begin >= st->begin &&
			   n->end <= st->end;
	}
	if (!everyone) {
		w->bad = "is updated in a statement kpipe does not follow (it follows the "
			 "kernel's own statements and the loop's steps)";
		return 1;
	}
	if (value) {
		kp_lin v = kp_lin_of(w->c, value);
		if (v.bad || kp_lin_threads(&v))
			w->bad = "is updated with a value that differs between threads";
	}
	return 1;
}

static kp_lin kp_lin_ref(kp_lin_ctx *c, const kp_node *n)
{
	const kp_decl *d = n->decl;
	kp_lin v = {0};
	long long x;
	if (!d)
		return kp_lin_bad("names something kpipe cannot see");
	if (kp_eval(n, c->l->kernel, NULL, &x) == 0) {
		v.c0 = x;
		return v;
	}
	if (d->kind == KP_D_TPARAM || d->kind == KP_D_ENUM) {
		v.has_u = 1;
		return v;
	}
	if (d->kind != KP_D_VAR && d->kind != KP_D_PARM)
		return kp_lin_bad("names something that is not a variable");
	if (d->is_shared)
		return kp_lin_bad("reads shared memory");
	if (c->depth > 8)
		return kp_lin_bad("nests variables too deep");
	int local_before = d->kind == KP_D_VAR && d->init && d->begin < c->l->node->begin;
	int counter = d->kind == KP_D_VAR && d->init && kp_lin_induct_of(c->l, d) &&
		      d->begin >= c->l->node->begin && d->begin < c->l->body->begin;
	if (kp_lin_induct_of(c->l, d) || kp_assigned_in(c->l->kernel, d)) {
		/* changes: the same in every thread when its first value and
		 * every update are (it keeps its name in the copies) */
		if (d->kind == KP_D_VAR && !local_before && !counter)
			return kp_lin_bad(kp_arena_printf(
				c->ar, "uses '%s', which kpipe cannot follow to its first value",
				d->name));
		upd_walk w = {c, d, 0, NULL};
		c->depth++;
		kp_node_walk(c->l->kernel->body, NULL, walk_updates, &w);
		kp_lin i = d->kind == KP_D_VAR ? kp_lin_of(c, d->init) : v;
		c->depth--;
		if (w.bad || !w.n)
			return kp_lin_bad(
				kp_arena_printf(c->ar, "uses '%s', which %s", d->name,
						w.bad ? w.bad : "changes through a reference"));
		if (i.bad || kp_lin_threads(&i))
			return kp_lin_bad(kp_arena_printf(
				c->ar, "uses '%s', whose first value differs between threads",
				d->name));
		v.has_u = 1;
		v.chg = 1;
		v.ind = kp_lin_induct_of(c->l, d) != NULL;
		return v;
	}
	if (d->kind == KP_D_PARM) {
		v.has_u = 1;
		return v;
	}
	if (!local_before)
		return kp_lin_bad(kp_arena_printf(
			c->ar, "uses '%s', not initialised before the loop", d->name));
	c->depth++;
	v = kp_lin_of(c, d->init);
	c->depth--;
	/* a local holding a thread index is replaced by its initialiser in the
	 * copies: which must mean the same there */
	if (!v.bad && kp_lin_threads(&v) && v.chg)
		return kp_lin_bad(
			kp_arena_printf(c->ar,
					"uses '%s', whose initialiser reads a variable that "
					"changes before the copies",
					d->name));
	v.ind = v.ind_bad = v.chg = 0; /* its value is fixed */
	return v;
}

/* The flags of a combination of a and b. */
static kp_lin kp_lin_flags(kp_lin v, const kp_lin *a, const kp_lin *b, int affine)
{
	v.ind = a->ind || b->ind;
	v.ind_bad = a->ind_bad || b->ind_bad || (v.ind && !affine);
	v.chg = a->chg || b->chg;
	return v;
}

static kp_lin kp_lin_add(kp_lin a, kp_lin b, int sign)
{
	if (a.bad)
		return a;
	if (b.bad)
		return b;
	kp_lin v = {0};
	v.cx = a.cx + sign * b.cx;
	v.cx_sym = a.cx_sym || b.cx_sym;
	v.ty = a.ty || b.ty;
	v.cy = a.cy + sign * b.cy;
	v.cy_sym = a.cy_sym || b.cy_sym;
	v.c0 = a.c0 + sign * b.c0;
	v.has_u = a.has_u || b.has_u;
	if (a.ty && b.ty)
		v.cyn_bad = a.cyn || b.cyn || a.cyn_bad || b.cyn_bad;
	else if (a.ty || b.ty) {
		const kp_lin *t = a.ty ? &a : &b;
		v.cyn = t->cyn;
		v.cyk = t == &b ? sign * t->cyk : t->cyk;
		v.cyn_bad = t->cyn_bad;
	}
	return kp_lin_flags(v, &a, &b, 1);
}

static int kp_lin_is_const(const kp_lin *v) { return !v->bad && !kp_lin_threads(v) && !v->has_u; }

static kp_lin kp_lin_mul(kp_lin a, kp_lin b)
{
	if (a.bad)
		return a;
	if (b.bad)
		return b;
	if (kp_lin_threads(&a) && kp_lin_threads(&b))
		return kp_lin_bad("multiplies thread indices");
	if (kp_lin_threads(&b)) {
		kp_lin t = a;
		a = b;
		b = t;
	}
	/* a may hold thread terms, b holds none */
	kp_lin v = {0};
	if (kp_lin_is_const(&b)) {
		v.cx = a.cx * b.c0;
		v.cx_sym = a.cx_sym && b.c0;
		v.ty = a.ty && b.c0;
		v.cy = a.cy * b.c0;
		v.cy_sym = a.cy_sym && b.c0;
		v.c0 = a.c0 * b.c0;
		v.has_u = a.has_u && b.c0;
		v.cyn = v.ty ? a.cyn : NULL;
		v.cyk = a.cyk * b.c0;
		v.cyn_bad = v.ty && a.cyn_bad;
		return kp_lin_flags(v, &a, &b, 1);
	}
	v.cx_sym = a.cx || a.cx_sym;
	v.ty = a.ty;
	v.cy_sym = a.ty;
	v.has_u = 1;
	/* ty * (uniform b): the stride is b, once */
	if (a.ty && !a.cy_sym && !a.cyn && !a.cyn_bad && b.node) {
		v.cyn = b.node;
		v.cyk = a.cy;
	} else
		v.cyn_bad = a.ty;
	return kp_lin_flags(v, &a, &b, !(a.ind && b.ind));
}

/* An integer type kpipe can carry a linear index through. */
int kp_lin_int_type(const kp_node *n)
{
	return n->type_size >= 4 && (n->ty.kind == KP_TY_SINT || n->ty.kind == KP_TY_UINT);
}

static kp_lin kp_lin_of_node(kp_lin_ctx *c, const kp_node *n);

kp_lin kp_lin_of(kp_lin_ctx *c, const kp_node *n)
{
	kp_lin v = kp_lin_of_node(c, n);
	v.node = n;
	return v;
}

static kp_lin kp_lin_of_node(kp_lin_ctx *c, const kp_node *n)
{
	char comp;
	long long x;
	if (!n)
		return kp_lin_bad("has a part kpipe cannot see");
	switch (n->kind) {
	case KP_N_PAREN:
		return n->nkids == 1 ? kp_lin_of(c, n->kids[0]) : kp_lin_bad("is not read");
	case KP_N_CAST:
	case KP_N_OTHER:
		if (n->nkids != 1)
			break;
		if (n->kind == KP_N_CAST && !kp_lin_int_type(n))
			return kp_lin_bad("converts to a type that is not a wide integer");
		return kp_lin_of(c, n->kids[0]);
	case KP_N_INTLIT:
		if (n->has_value) {
			kp_lin v = {0};
			v.c0 = n->ivalue;
			return v;
		}
		break;
	case KP_N_DECLREF: return kp_lin_ref(c, n);
	case KP_N_MEMBER: {
		const char *b = kp_lin_builtin_of(c->f, n, &comp);
		kp_lin v = {0};
		if (!b)
			return kp_lin_bad("reads a member");
		if (!strcmp(b, "threadIdx")) {
			if (!comp)
				return kp_lin_bad(
					"names a threadIdx member kpipe cannot read (a macro?)");
			if (comp == 'x')
				v.cx = 1;
			else if (comp == 'y')
				v.ty = v.cy = 1;
			else
				return kp_lin_bad("uses threadIdx.z");
		} else
			v.has_u = 1;
		return v;
	}
	case KP_N_UNOP:
		if (n->nkids == 1 && n->op && n->opk == KP_OP_MINUS)
			return kp_lin_mul(kp_lin_of(c, n->kids[0]), (kp_lin){.c0 = -1});
		if (n->nkids == 1 && n->op && (n->opk == KP_OP_ADD || n->opk == KP_OP_PLUS))
			return kp_lin_of(c, n->kids[0]);
		break;
	case KP_N_BINOP:
		if (n->nkids != 2 || !n->op)
			break;
		if ((n->opk == KP_OP_ADD || n->opk == KP_OP_PLUS) ||
		    (n->opk == KP_OP_SUB || n->opk == KP_OP_MINUS))
			return kp_lin_add(kp_lin_of(c, n->kids[0]), kp_lin_of(c, n->kids[1]),
					  n->op[0] == '-' ? -1 : 1);
		if ((n->opk == KP_OP_MUL || n->opk == KP_OP_DEREF))
			return kp_lin_mul(kp_lin_of(c, n->kids[0]), kp_lin_of(c, n->kids[1]));
		if (n->opk == KP_OP_SHL && kp_eval(n->kids[1], c->l->kernel, NULL, &x) == 0 &&
		    x >= 0 && x < 31)
			return kp_lin_mul(kp_lin_of(c, n->kids[0]), (kp_lin){.c0 = 1LL << x});
		/* other arithmetic: fine on uniform values only */
		if (n->opk == KP_OP_DIV || n->opk == KP_OP_REM || n->opk == KP_OP_SHR ||
		    (n->opk == KP_OP_AND || n->opk == KP_OP_ADDR) || n->opk == KP_OP_OR ||
		    n->opk == KP_OP_XOR) {
			kp_lin a = kp_lin_of(c, n->kids[0]), b = kp_lin_of(c, n->kids[1]);
			if (a.bad)
				return a;
			if (b.bad)
				return b;
			if (kp_lin_threads(&a) || kp_lin_threads(&b))
				return kp_lin_bad("divides, shifts or masks a thread index");
			kp_lin v = {0};
			if (kp_eval(n, c->l->kernel, NULL, &x) == 0)
				v.c0 = x;
			else
				v.has_u = 1;
			return kp_lin_flags(v, &a, &b, 0);
		}
		break;
	default: break;
	}
	return kp_lin_bad("is not an affine index kpipe can follow");
}

/* ---- guards ---- */

static const kp_node *strip_parens(const kp_node *n)
{
	while (n && (n->kind == KP_N_PAREN || (n->kind == KP_N_OTHER && n->nkids == 1)))
		n = n->kids[0];
	return n;
}

/* The terms of a guard's && chain (parentheses looked through) into
 * out[k..]; the new count, or -1 past `max`. */
int kp_bulk_guard_terms(const kp_node *n, const kp_node **out, int max, int k)
{
	n = strip_parens(n);
	if (n && n->kind == KP_N_BINOP && n->op && n->opk == KP_OP_LAND && n->nkids == 2) {
		k = kp_bulk_guard_terms(n->kids[0], out, max, k);
		return k < 0 ? k : kp_bulk_guard_terms(n->kids[1], out, max, k);
	}
	if (k >= max)
		return -1;
	out[k] = n;
	return k + 1;
}

/* The comparison sees a signed operand: neither it nor what it converts
 * implicitly has a type other than a signed integer or a floating type (an
 * unsigned one, uint32_t and size_t included, wraps around and could make
 * a term false inside a tile and true at its corners; a pointer, a type
 * that depends on a template argument: not proven); an explicit cast
 * decides. */
static int signed_operand(const kp_node *n)
{
	for (; n; n = n->nkids == 1 ? n->kids[0] : NULL) {
		if (n->ty.kind != KP_TY_SINT && n->ty.kind != KP_TY_FLOAT)
			return 0;
		if (n->kind != KP_N_PAREN && n->kind != KP_N_OTHER)
			break;
	}
	return 1;
}

/* The corners of one axis (threadIdx.x or .y) where a term must hold for
 * it to hold along the whole axis: 1 the low one (0), 2 the high one, 3
 * both.  k: the axis' coefficient in left - right, sym: not a constant;
 * le: the term bounds left - right from above (<, <=), else from below. */
static int axis_corners(long long k, int sym, int le)
{
	if (sym)
		return 3;
	if (!k)
		return 1;
	return (k > 0) == le ? 2 : 1;
}

/* Why one term of a guard cannot be decided for a whole tile from its
 * corners, or NULL; *mx / *my: the corners of each axis it must hold at
 * (axis_corners).  A term is a comparison (<, <=, >, >=) of signed values
 * affine in the thread indices with uniform other terms, or an expression
 * that reads no thread index. */
const char *kp_bulk_term_problem(kp_lin_ctx *c, const kp_node *n, int *mx, int *my)
{
	int is_rel = 0, is_cmp = 0;
	*mx = *my = 1;
	if (n && n->kind == KP_N_BINOP && n->op && n->nkids == 2) {
		is_cmp = KP_OP_IS_COMPARE(n->opk);
		is_rel = is_cmp && n->opk != KP_OP_EQ && n->opk != KP_OP_NE;
	}
	if (n && n->kind == KP_N_BINOP && n->op && n->opk == KP_OP_LOR)
		return "is a disjunction (||), which the corners of a tile do not decide";
	if (n && n->kind == KP_N_UNOP && n->op && n->opk == KP_OP_LNOT)
		return "negates a condition (!), which the corners of a tile do not decide";
	if (!is_cmp) {
		kp_lin v = kp_lin_of(c, n);
		if (v.bad)
			return v.bad;
		return kp_lin_threads(&v) ? "reads a thread index outside a comparison" : NULL;
	}
	kp_lin a = kp_lin_of(c, n->kids[0]), b = kp_lin_of(c, n->kids[1]);
	if (a.bad || b.bad)
		return a.bad ? a.bad : b.bad;
	if (!kp_lin_threads(&a) && !kp_lin_threads(&b))
		return NULL;
	if (!is_rel)
		return "compares a thread index with == or != (true for part of a tile)";
	if (!signed_operand(n->kids[0]) || !signed_operand(n->kids[1]))
		return "compares unsigned values (they may wrap around inside the tile)";
	int le = n->op[0] == '<';
	*mx = axis_corners(a.cx - b.cx, a.cx_sym || b.cx_sym, le);
	*my = axis_corners(a.cy - b.cy, a.cy_sym || b.cy_sym, le);
	return NULL;
}

/* Why a copy's guard cannot be decided for a whole tile, or NULL. */
static const char *guard_problem(kp_lin_ctx *c, const kp_load *ld)
{
	const kp_node *t[KP_BULK_GUARD_TERMS];
	int n = kp_bulk_guard_terms(ld->cond, t, KP_BULK_GUARD_TERMS, 0);
	if (n < 0)
		return kp_arena_printf(c->ar, "line %d: the copy's guard has more than %d terms",
				       ld->line, KP_BULK_GUARD_TERMS);
	for (int i = 0; i < n; i++) {
		int mx, my;
		const char *why = kp_bulk_term_problem(c, t[i], &mx, &my);
		if (why)
			return kp_arena_printf(
				c->ar,
				"line %d: a term of the copy's guard %s; the bulk form decides a "
				"tile's guard at its corners (a conjunction of comparisons of signed "
				"values affine in threadIdx.x and .y, or of terms free of them)",
				ld->line, why);
	}
	return NULL;
}

/* ---- the copies ---- */

const kp_node *kp_lin_strip_all(const kp_node *n)
{
	for (;;) {
		n = kp_node_strip(n);
		if (n && n->kind == KP_N_OTHER && n->nkids == 1)
			n = n->kids[0];
		else
			return n;
	}
}

/* Why one copy has no bulk form, or NULL with *out filled. */
static const char *copy_problem(kp_lin_ctx *c, const kp_load *ld, kp_bulk_copy *out)
{
	kp_arena *ar = c->ar;
	if (ld->guard != KP_G_NONE && !ld->cond)
		return kp_arena_printf(ar, "line %d: the copy's guard is not visible to kpipe",
				       ld->line);
	if (ld->guard_inverted)
		return kp_arena_printf(
			ar,
			"line %d: the copy loads in its guard's else branch (not done "
			"for the bulk forms)",
			ld->line);
	if (ld->guard != KP_G_NONE) {
		const char *why = guard_problem(c, ld);
		if (why)
			return why;
	}
	if (ld->depth || ld->nunder)
		return kp_arena_printf(ar,
				       "line %d: the copy is in a copy loop or under a condition; "
				       "the bulk form needs one copy per thread and tile",
				       ld->line);
	if (ld->tmp_decl)
		return kp_arena_printf(ar, "line %d: the copy goes through a temporary", ld->line);
	const kp_decl *t = ld->tile;
	if (kp_decl_is_dynamic_smem(t))
		return kp_arena_printf(
			ar, "'%s' is dynamic shared memory (not done for bulk copies)", t->name);
	if (t->ndims != 2)
		return kp_arena_printf(ar,
				       "'%s' is not a two-dimensional array; the bulk form copies "
				       "rows of R x C tiles",
				       t->name);
	if (t->dims[0] <= 0 || t->dims[1] <= 0 || t->elem_size <= 0)
		return kp_arena_printf(
			ar,
			"the bounds or the element size of '%s' are not constants (a "
			"template parameter: not done for bulk copies)",
			t->name);
	if (t->dims[1] * t->elem_size % 16)
		return kp_arena_printf(ar,
				       "a row of '%s' is %lld bytes; bulk copies move multiples of "
				       "16 bytes",
				       t->name, t->dims[1] * t->elem_size);
	const kp_node *lhs = kp_lin_strip_all(ld->lhs), *rhs = kp_lin_strip_all(ld->rhs);
	const kp_node *row = lhs && lhs->kind == KP_N_SUBSCRIPT && lhs->nkids == 2
				     ? kp_lin_strip_all(lhs->kids[0])
				     : NULL;
	kp_lin ly = {0}, lx = {0};
	if (row && row->kind == KP_N_SUBSCRIPT && row->nkids == 2) {
		ly = kp_lin_of(c, row->kids[1]);
		lx = kp_lin_of(c, lhs->kids[1]);
	}
	if (!row || row->kind != KP_N_SUBSCRIPT || ly.bad || lx.bad || ly.cx || ly.cx_sym ||
	    !ly.ty || ly.has_u || ly.c0 || lx.cx != 1 || lx.cx_sym || lx.ty || lx.has_u || lx.c0)
		return kp_arena_printf(
			ar,
			"line %d: the copy does not store '%s[threadIdx.y][threadIdx.x]' "
			"(one element per thread of an R x C block)",
			ld->line, t->name);
	if (!rhs || rhs->kind != KP_N_SUBSCRIPT || rhs->nkids != 2 ||
	    rhs->type_size != t->elem_size || t->elem_size != ld->bytes)
		return kp_arena_printf(ar, "line %d: the copy does not read one element 'P[i]'",
				       ld->line);
	kp_lin b = kp_lin_of(c, rhs->kids[0]);
	if (b.bad || kp_lin_threads(&b))
		return kp_arena_printf(ar,
				       "line %d: the pointer read is not the same for every thread "
				       "(it %s)",
				       ld->line, b.bad ? b.bad : "depends on threadIdx");
	kp_lin e = kp_lin_of(c, rhs->kids[1]);
	if (e.bad)
		return kp_arena_printf(ar, "line %d: the index read %s", ld->line, e.bad);
	if (e.cx != 1 || e.cx_sym)
		return kp_arena_printf(ar,
				       "line %d: the index read does not step by one element with "
				       "threadIdx.x (a tile row is not a contiguous global row)",
				       ld->line);
	out->tile = t;
	out->base = rhs->kids[0];
	out->index = rhs->kids[1];
	out->guard = ld->guard != KP_G_NONE ? ld->cond : NULL;
	out->affine = !b.ind_bad && !e.ind_bad;
	out->e = e;
	return NULL;
}

/* Why the loop has no bulk form, or NULL; copies[] filled (l->nloads). */
const char *kp_bulk_problem(const kp_file *f, const kp_loop *l, kp_arena *ar, kp_bulk_copy *copies,
			    int boxes)
{
	kp_lin_ctx c = {f, l, ar, 0};
	if (l->dyn_tiles)
		return "the tiles are dynamic shared memory (not done for bulk copies)";
	if (l->loads_in_helper || l->loads_carve_out)
		return "the tiles are filled by a helper or through pointers";
	for (int i = 0; i < l->nloads; i++) {
		const kp_load *ld = &l->loads[i];
		const char *why = NULL;
		if (boxes && ld->depth) {
			/* the proof evaluates names and reads the block shape through
			 * the model's caches and arena (it changes nothing else) */
			kp_cbox *b = kp_arena_alloc(ar, sizeof(*b));
			why = kp_cb_prove((kp_file *)f, l, ld, b);
			if (!why) {
				memset(&copies[i], 0, sizeof(copies[i]));
				copies[i].tile = ld->tile;
				copies[i].base = b->ptr;
				copies[i].affine = 1;
				copies[i].box = b;
			}
		} else
			why = copy_problem(&c, ld, &copies[i]);
		if (why)
			return why;
		for (int j = 0; j < i; j++)
			if (copies[j].tile == copies[i].tile)
				return kp_arena_printf(
					ar, "line %d: '%s' is filled by more than one copy",
					l->loads[i].line, copies[i].tile->name);
	}
	for (int i = 0; i < l->ntiles; i++) {
		int n = 0;
		for (int j = 0; j < l->nloads; j++)
			n += copies[j].tile == l->tiles[i].arr;
		if (l->tiles[i].loaded && !n)
			return kp_arena_printf(ar, "'%s' is written by no plain copy",
					       l->tiles[i].arr->name);
	}
	return NULL;
}

/* What the bulk form copies: plain global loads stored unchanged (pure,
 * not staged through a register of the source) into tiles that are not
 * volatile; cp.async's conditions but its widths, since a bulk copy moves
 * rows (1- and 2-byte elements are fine).  Why not, or NULL. */
const char *kp_bulk_plain_copies_problem(const kp_loop *l, kp_arena *ar)
{
	for (int i = 0; i < l->nloads; i++) {
		const kp_load *ld = &l->loads[i];
		if (!ld->src)
			return kp_arena_printf(
				ar, "line %d: the stored value is not a plain global load",
				ld->line);
		if (ld->via)
			return kp_arena_printf(
				ar,
				"line %d: '%s' is filled from the register '%s' (the "
				"source stages the copy, e.g. to transpose it); bulk "
				"copies move memory unchanged",
				ld->line, ld->tile->name, ld->via->name);
		if (!ld->pure)
			return kp_arena_printf(
				ar, "line %d: the copy converts or computes on its way in",
				ld->line);
		if (ld->async_why)
			return ld->async_why;
	}
	for (int i = 0; i < l->ntiles; i++) {
		const kp_decl *d = l->tiles[i].arr;
		if (l->tiles[i].loaded && KP_TY_ANY_VOLATILE(d->ty))
			return kp_arena_printf(
				ar, "'%s' is volatile: bulk copies write it behind the compiler",
				d->name);
	}
	return NULL;
}
