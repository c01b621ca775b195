/*
 * changes.c - what may change a variable, read from the model alone: the
 * variable an lvalue is rooted at, the target of a write, what a call may
 * write through each argument (from clang's parameter types and the
 * argument's own type), and whether a function's body changes a variable.
 * The parser marks carve-outs with these (frontend/parse_carve.c), and
 * the analysis and the passes ask them; none writes the model.
 */
#include "changes.h"

#include <string.h>

static int is_assign(const kp_node *n)
{
	return n && n->kind == KP_N_BINOP && n->op && n->opk == KP_OP_ASSIGN;
}

/* The comparison and arithmetic operators: none assigns its operands. */
int kp_op_reads_only(const char *op)
{
	static const char *const ops[] = {"<", ">", "<=", ">=", "==", "!=", "+",  "-",  "*",  "/",
					  "%", "&", "|",  "^",  "~",  "!",  "&&", "||", "<<", ">>"};
	for (size_t i = 0; i < KP_ARRAY_LEN(ops); i++)
		if (!strcmp(op, ops[i]))
			return 1;
	return 0;
}

static int operator_call(const kp_node *n) { return n->name && !strncmp(n->name, "operator", 8); }

/* Whether kid k of an operator call is its callee: a name of no object. */
static int callee_kid(const kp_node *n, int k)
{
	const kp_node *c = kp_node_strip(n->kids[k]);
	return c && c->kind == KP_N_DECLREF && (!c->decl || c->decl->kind == KP_D_FUNC) &&
	       (!c->name || !*c->name || !strcmp(c->name, n->name));
}

int kp_call_first_arg(const kp_node *n)
{
	if (n->nkids < 1)
		return 0;
	const kp_node *k0 = kp_node_strip(n->kids[0]);
	int fn = k0 && k0->kind == KP_N_DECLREF && k0->decl && k0->decl->kind == KP_D_FUNC;
	if (operator_call(n) && n->nkids == 3 && !fn)
		return 0; /* lhs, callee, rhs */
	if (operator_call(n) && n->nkids == 2)
		return callee_kid(n, 0) || !callee_kid(n, 1); /* x++: operand, callee */
	if (n->decl && n->decl->kind == KP_D_OTHER)
		return 0; /* a constructor: its arguments only */
	/* a call expression: the callee (a name, a member, a template-id)
	 * comes first */
	return 1;
}

/* The parameter argument kid binds to (-1: none, the callee), for a call
 * whose callee is kids[0] or an operator's (lhs, callee, rhs). */
static int param_of(const kp_node *n, int kid)
{
	int a0 = kp_call_first_arg(n);
	if (kid < a0)
		return -1;
	if (a0 == 0 && operator_call(n) && n->nkids == 3) {
		if (kid == 1)
			return -1;
		return kid == 0 ? 0 : 1;
	}
	return kid - a0;
}

/* A cast on the way to the argument's object that drops const
 * (const_cast, a C-style cast): its constness proves nothing. */
static int drops_const(const kp_node *a)
{
	for (int g = 0; a && g < 64; g++) {
		if (a->kind == KP_N_CAST && ((a->ty.kind == KP_TY_POINTER && !a->ty.elem_const) ||
					     (a->ty.is_ref && !a->ty.is_const)))
			return 1;
		if ((a->kind == KP_N_PAREN || a->kind == KP_N_CAST || a->kind == KP_N_OTHER) &&
		    a->nkids >= 1)
			a = a->kids[a->nkids - 1];
		else
			return 0;
	}
	return 1;
}

int kp_call_arg_write(const kp_node *n, int kid)
{
	if (!n || kid < 0 || kid >= n->nkids)
		return 0;
	int p = param_of(n, kid);
	if (p < 0)
		return 0; /* the callee */
	const kp_node *raw = n->kids[kid];
	const kp_node *a = kp_node_strip(raw);
	if (!a || a->kind == KP_N_INTLIT || a->kind == KP_N_FLOATLIT || a->kind == KP_N_SIZEOF)
		return 0;
	kp_type t = a->ty;
	if (a->kind == KP_N_DECLREF) {
		const kp_decl *d = a->decl;
		if (!d || d->kind == KP_D_TPARAM || d->kind == KP_D_ENUM || d->kind == KP_D_FUNC)
			return 0; /* a constant, or no object */
		if (d->ty.kind != KP_TY_UNKNOWN)
			t = d->ty;
	}
	int cast = drops_const(raw);
	int arr = t.kind == KP_TY_ARRAY;
	/* the object itself, and what it points to (an array's elements are
	 * its object), can be changed without a cast */
	int obj_const = !cast && !t.is_ref && (arr ? t.elem_const : t.is_const);
	int pts_const = !cast && (t.kind == KP_TY_POINTER || arr) && t.elem_const;
	int w = -1; /* as effects.c's param_writes */
	const kp_decl *f = n->decl;
	/* a member operator (lhs, callee, rhs; one parameter): the lhs is its
	 * object, whose method may not be const */
	int a0 = kp_call_first_arg(n);
	int nargs = n->nkids - a0 - (a0 == 0 && n->nkids == 3 ? 1 : 0);
	int member = f && operator_call(n) && f->nparam_ty >= 0 && f->nparam_ty == nargs - 1;
	if (member)
		p = p == 0 ? -1 : p - 1;
	if (member && p < 0)
		w = f->const_method ? 0 : -1; /* the object of a const method is not changed */
	else if (f && f->nparam_ty >= 0) {
		if (p >= f->nparam_ty)
			w = f->variadic ? -1 : 0;
		else {
			kp_type pt = f->param_ty[p];
			if (pt.is_ref == 2)
				w = 0;
			else if (pt.is_ref)
				w = pt.is_const ? 0 : 1;
			else if (pt.kind == KP_TY_POINTER || pt.kind == KP_TY_ARRAY)
				w = pt.elem_const ? 0 : 2; /* an array parameter is a pointer */
			else if (pt.kind == KP_TY_DEPENDENT || pt.kind == KP_TY_UNKNOWN)
				w = -1; /* `T tile[R][C]` in a template: not known yet */
			else
				w = 0;
		}
	} else if (!f && operator_call(n)) {
		const char *op = n->name + 8;
		if (kp_op_reads_only(op) && n->lookup_ro)
			w = 0;
		else if (kp_op_reads_only(op) || strcmp(op, "()") == 0)
			w = -1;
		else /* = and the compound assignments, ++, --: the first operand */
			w = kid == kp_call_first_arg(n) ? 1 : -1;
	}
	if (w == 0)
		return 0;
	if (w == 1)
		return obj_const ? 0 : 1;
	if (w == 2)
		return arr ? (pts_const ? 0 : 1) : (pts_const ? 0 : 2);
	/* unknown: a reference to the object or a pointer to it may be taken */
	if (obj_const)
		return t.kind == KP_TY_POINTER && !pts_const ? 2 : 0;
	return 1;
}

int kp_call_arg_writes_pointee(const kp_node *n, int kid)
{
	if (!n || kid < 0 || kid >= n->nkids || !kp_call_arg_write(n, kid))
		return 0;
	const kp_node *raw = n->kids[kid], *a = kp_node_strip(raw);
	kp_type t = a->kind == KP_N_DECLREF && a->decl ? a->decl->ty : a->ty;
	if ((t.kind == KP_TY_POINTER || t.kind == KP_TY_ARRAY) && t.elem_const && !drops_const(raw))
		return 0;
	int p = param_of(n, kid);
	const kp_decl *f = n->decl;
	if (!f || f->nparam_ty < 0 || p < 0 || p >= f->nparam_ty)
		return 1;
	kp_type pt = f->param_ty[p];
	if (pt.kind == KP_TY_POINTER || pt.kind == KP_TY_ARRAY)
		return !pt.elem_const; /* a pointer, or a reference to one */
	return pt.kind == KP_TY_DEPENDENT || pt.kind == KP_TY_UNKNOWN;
}

/* Root declaration of an lvalue: As[i][j], *reinterpret_cast<T*>(&As[i][j]),
 * ((float4*)As)[i], p->x ... */
kp_node *kp_lvalue_root(kp_node *n)
{
	for (int guard = 0; n && guard < 64; guard++) {
		switch (n->kind) {
		case KP_N_DECLREF: return n;
		case KP_N_SUBSCRIPT:
		case KP_N_PAREN:
		case KP_N_CAST:
		case KP_N_OTHER:
		case KP_N_MEMBER:
			if (!n->nkids)
				return NULL;
			n = n->kind == KP_N_CAST || n->kind == KP_N_OTHER ? n->kids[n->nkids - 1]
									  : n->kids[0];
			break;
		case KP_N_UNOP:
			if (!n->nkids || (n->opk != KP_OP_DEREF && n->opk != KP_OP_ADDR))
				return NULL;
			n = n->kids[0];
			break;
		case KP_N_BINOP: /* pointer arithmetic: base + off */
			if (n->nkids != 2 || (n->opk != KP_OP_ADD && n->opk != KP_OP_SUB))
				return NULL;
			n = n->kids[0];
			break;
		default: return NULL;
		}
	}
	return NULL;
}

/* What a write node writes: the target of an assignment (plain or
 * compound; *plain says which) or of ++/--; NULL for other nodes. */
kp_node *kp_write_target(const kp_node *n, int *plain)
{
	*plain = 0;
	if ((is_assign(n) || n->kind == KP_N_ASSIGNOP) && n->nkids == 2) {
		*plain = is_assign(n);
		return n->kids[0];
	}
	if (n->kind == KP_N_UNOP && n->nkids == 1 && n->op && (KP_OP_IS_INCDEC(n->opk)))
		return n->kids[0];
	return NULL;
}

typedef struct {
	const kp_decl *d;
	int assigned;
	const kp_file *f; /* when set: an asm statement changes its outputs only */
} reassign_walk;

static int find_reassign(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	reassign_walk *w = ud;
	int plain;
	kp_node *t = kp_write_target(n, &plain);
	if (!t && n->kind == KP_N_UNOP && n->nkids == 1 && n->op && n->opk == KP_OP_ADDR)
		t = n->kids[0]; /* its address taken: it may change */
	t = t ? (kp_node *)kp_node_strip(t) : NULL;
	if (t && t->kind == KP_N_DECLREF && t->decl == w->d)
		w->assigned = 1;
	return !w->assigned;
}

static int names_var(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	reassign_walk *w = ud;
	if (n->kind == KP_N_DECLREF && n->decl == w->d)
		w->assigned = 1;
	return !w->assigned;
}

/* What else may change a variable: a call handed it where the callee's
 * parameter is a non-const reference (or the callee is unknown), an asm
 * statement or a lambda that names it. */
static int find_hidden_write(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	reassign_walk *w = ud;
	if (w->assigned)
		return 0;
	if (n->kind == KP_N_ASM && w->f && n->in_main && n->end <= w->f->len) {
		/* its output operands come first, each constraint "=..." or "+..." */
		int nout = 0;
		for (unsigned i = n->begin; i + 1 < n->end; i++)
			nout += w->f->src[i] == '"' &&
				(w->f->src[i + 1] == '=' || w->f->src[i + 1] == '+');
		for (int i = 0; i < nout && i < n->nkids; i++)
			kp_node_walk(n->kids[i], NULL, names_var, w);
		return 0;
	}
	if (n->kind == KP_N_ASM || n->kind == KP_N_LAMBDA) {
		kp_node_walk(n, NULL, names_var, w);
		return 0;
	}
	if (n->kind == KP_N_CALL)
		for (int i = kp_call_first_arg(n); i < n->nkids; i++) {
			const kp_node *a = kp_node_strip(n->kids[i]);
			if (a && a->kind == KP_N_DECLREF && a->decl == w->d &&
			    kp_call_arg_write(n, i) == 1)
				w->assigned = 1;
		}
	return 1;
}

/* Whether d is assigned, incremented, has its address taken, or is handed
 * to something that may change it anywhere in k's body. */
int kp_assigned_in(const kp_kernel *k, const kp_decl *d)
{
	reassign_walk w = {d, 0, NULL};
	kp_node_walk(k->body, NULL, find_reassign, &w);
	if (!w.assigned)
		kp_node_walk(k->body, NULL, find_hidden_write, &w);
	return w.assigned;
}

int kp_changed_in(const kp_file *f, const kp_kernel *k, const kp_decl *d)
{
	reassign_walk w = {d, 0, f};
	kp_node_walk(k->body, NULL, find_reassign, &w);
	if (!w.assigned)
		kp_node_walk(k->body, NULL, find_hidden_write, &w);
	return w.assigned;
}
