/*
 * liveness.c - scratch variables private to each iteration of a K-loop
 * (liveness.h): a must-assign walk over the model's statements and
 * expressions, run on each phase of the loop body and on the code after
 * the loop.  The walk is conservative: evaluation order inside an
 * expression is not assumed (each operand is checked with the state on
 * entry), an assignment under &&, || or ?: does not count, a loop body may
 * run zero times, and goto, switch, asm and lambdas naming the variable
 * end the proof.
 */
#include "liveness.h"

#include "effects.h"

#include <string.h>

typedef struct {
	const kp_decl *d;
	int bad;
} mwalk;

static int is_d(const mwalk *w, const kp_node *n)
{
	n = n ? kp_node_strip(n) : NULL;
	return n && n->kind == KP_N_DECLREF && n->decl == w->d;
}

static int flow(mwalk *w, const kp_node *n, int a, int cond);

/* Operands whose order is not fixed: each sees the state on entry. */
static int unordered(mwalk *w, const kp_node *n, int a, int cond)
{
	int out = a;
	for (int i = 0; i < n->nkids; i++)
		out |= flow(w, n->kids[i], a, cond);
	return out;
}

static int seq(mwalk *w, const kp_node *n, int a, int cond)
{
	for (int i = 0; i < n->nkids; i++)
		a = flow(w, n->kids[i], a, cond);
	return a;
}

static int flow_binop(mwalk *w, const kp_node *n, int a, int cond)
{
	if (n->nkids != 2)
		return unordered(w, n, a, cond);
	if (n->opk == KP_OP_ASSIGN && is_d(w, n->kids[0])) {
		int r = flow(w, n->kids[1], a, cond);
		return cond ? r : 1;
	}
	if (n->opk == KP_OP_LAND || n->opk == KP_OP_LOR) {
		int l = flow(w, n->kids[0], a, cond);
		flow(w, n->kids[1], l, 1);
		return l;
	}
	if (n->opk == KP_OP_COMMA)
		return seq(w, n, a, cond);
	return unordered(w, n, a, cond);
}

static int flow_if(mwalk *w, const kp_node *n, int a)
{
	if (n->nkids != 2 && n->nkids != 3) {
		unordered(w, n, a, 1);
		return a;
	}
	int c = flow(w, n->kids[0], a, 0);
	int t = flow(w, n->kids[1], c, 0);
	int e = n->nkids == 3 ? flow(w, n->kids[2], c, 0) : c;
	return t && e;
}

static int flow_for(mwalk *w, const kp_node *n, int a)
{
	int i = flow(w, n->for_init, a, 0);
	int c = flow(w, n->for_cond, i, 0);
	int b = flow(w, n->for_body, c, 0);
	flow(w, n->for_inc, b, 0);
	/* the body may run zero times; later rounds see at least c */
	return c;
}

static int names_d(const mwalk *w, const kp_node *n)
{
	if (!n)
		return 0;
	if (n->kind == KP_N_DECLREF && n->decl == w->d)
		return 1;
	for (int i = 0; i < n->nkids; i++)
		if (names_d(w, n->kids[i]))
			return 1;
	return 0;
}

static int flow(mwalk *w, const kp_node *n, int a, int cond)
{
	if (!n || w->bad)
		return a;
	switch (n->kind) {
	case KP_N_DECLREF:
		if (n->decl == w->d && !a)
			w->bad = 1; /* read before any assignment */
		return a;
	case KP_N_COMPOUND:
	case KP_N_DECLSTMT: return seq(w, n, a, cond);
	case KP_N_VARDECL: return n->decl && n->decl->init ? flow(w, n->decl->init, a, cond) : a;
	case KP_N_BINOP: return flow_binop(w, n, a, cond);
	case KP_N_CONDOP:
		if (n->nkids == 3) {
			int c = flow(w, n->kids[0], a, cond);
			flow(w, n->kids[1], c, 1);
			flow(w, n->kids[2], c, 1);
			return c;
		}
		unordered(w, n, a, 1);
		return a;
	case KP_N_IF: return cond ? (unordered(w, n, a, 1), a) : flow_if(w, n, a);
	case KP_N_FOR: return cond ? (unordered(w, n, a, 1), a) : flow_for(w, n, a);
	case KP_N_WHILE:
		if (n->nkids == 2) {
			int c = flow(w, n->kids[0], a, 0);
			flow(w, n->kids[1], c, 0);
			return c;
		}
		unordered(w, n, a, 1);
		return a;
	case KP_N_DO:
		/* a continue may skip the rest of the body: credit nothing */
		unordered(w, n, a, 1);
		return a;
	case KP_N_GOTO: w->bad = 1; return a;
	case KP_N_SWITCH:
	case KP_N_ASM:
	case KP_N_LAMBDA:
		if (names_d(w, n))
			w->bad = 1;
		return a;
	case KP_N_PAREN:
	case KP_N_CAST:
	case KP_N_OTHER:
		if (n->nkids == 1)
			return flow(w, n->kids[0], a, cond);
		unordered(w, n, a, 1);
		return a;
	default: return unordered(w, n, a, cond);
	}
}

/* ------------------------------------------------ uses of the variable */

static int param_by_value(const kp_node *call, int i)
{
	const kp_decl *fn = call->decl;
	if (!fn || !fn->param_ty || i >= fn->nparam_ty)
		return 0; /* unknown callee, or a variadic argument */
	const kp_type *t = &fn->param_ty[i];
	return !t->is_ref && t->kind != KP_TY_UNKNOWN && t->kind != KP_TY_DEPENDENT;
}

/* Whether function type ft ("T (T &)") returns a reference or a pointer,
 * or is not known. */
static int returns_address(const char *ft)
{
	const char *open = ft ? strchr(ft, '(') : NULL;
	return !open || memchr(ft, '&', (size_t)(open - ft)) ||
	       memchr(ft, '*', (size_t)(open - ft));
}

/* The kernel whose calls escapes() may read (kp_var_phase_private), or
 * NULL: a call then only reads what it takes by value. */
typedef struct {
	kp_file *f;
	const kp_kernel *k;
} esc_ctx;

/* Whether call n, handed a variable by reference, writes nothing at all
 * and hands back no address: its callee (or each function its name can
 * find, kp_node.lookup_decls) has a body kpipe reads, returns no
 * reference or pointer, and the call's effects, bodies followed, hold
 * no write (`OP<T, CONJA>(T &x)` returning `conj(x)` or `x`). */
static int call_only_reads(const esc_ctx *e, const kp_node *n)
{
	if (!e)
		return 0;
	const kp_decl *fn = n->decl;
	if (fn && (!fn->fn || returns_address(fn->type)))
		return 0;
	if (!fn && !n->nlookup)
		return 0;
	for (int j = 0; !fn && j < n->nlookup; j++)
		if (!n->lookup_decls[j] || !n->lookup_decls[j]->fn ||
		    returns_address(n->lookup_decls[j]->type))
			return 0;
	kp_effect_set rd = {0}, wr = {0};
	kp_effects_of_node(e->f, e->k, n, &rd, &wr);
	return wr.n == 0;
}

/* A use that may change d or let it escape: its address taken, bound to
 * a reference, handed to a parameter that is not a plain value (unless,
 * with e, to a call that only reads). */
static int escapes(const esc_ctx *e, const kp_node *n, const kp_decl *d)
{
	if (!n)
		return 0;
	mwalk w = {d, 0};
	if (n->kind == KP_N_UNOP && n->opk == KP_OP_ADDR && n->nkids == 1 && is_d(&w, n->kids[0]))
		return 1;
	if (n->kind == KP_N_VARDECL && n->decl && n->decl->init && is_d(&w, n->decl->init) &&
	    n->decl->ty.is_ref)
		return 1;
	if (n->kind == KP_N_CALL)
		for (int i = 1; i < n->nkids; i++)
			if (is_d(&w, n->kids[i]) && !param_by_value(n, i - 1) &&
			    !call_only_reads(e, n))
				return 1;
	for (int i = 0; i < n->nkids; i++)
		if (escapes(e, n->kids[i], d))
			return 1;
	return 0;
}

static int changes(const kp_node *n, const kp_decl *d)
{
	if (!n)
		return 0;
	mwalk w = {d, 0};
	if (((n->kind == KP_N_BINOP && n->opk == KP_OP_ASSIGN) || n->kind == KP_N_ASSIGNOP) &&
	    n->nkids == 2 && is_d(&w, n->kids[0]))
		return 1;
	if (n->kind == KP_N_UNOP && KP_OP_IS_INCDEC(n->opk) && n->nkids == 1 &&
	    is_d(&w, n->kids[0]))
		return 1;
	if ((n->kind == KP_N_ASM || n->kind == KP_N_LAMBDA) && names_d(&w, n))
		return 1;
	for (int i = 0; i < n->nkids; i++)
		if (changes(n->kids[i], d))
			return 1;
	return 0;
}

int kp_node_changes_var(const kp_node *n, const kp_decl *d) { return changes(n, d); }

int kp_var_escapes(const kp_kernel *k, const kp_decl *d)
{
	return !k->body || escapes(NULL, k->body, d);
}

int kp_var_may_change(const kp_kernel *k, const kp_decl *d)
{
	return !k->body || changes(k->body, d) || escapes(NULL, k->body, d);
}

static int is_loop(const kp_node *n)
{
	return n->kind == KP_N_FOR || n->kind == KP_N_WHILE || n->kind == KP_N_DO;
}

/* Whether d's value when loop l ends is never read: from the loop on,
 * every path assigns d before reading it.  Walks the statements after
 * the loop in each enclosing block; an enclosing loop must not name d
 * outside l (its next round would come back to l, where d is dead). */
static int dead_after(const kp_kernel *k, const kp_loop *l, const kp_decl *d)
{
	const kp_node *path[64];
	int np = 0;
	if (!kp_node_path(k->body, l->node, path, &np, 64))
		return 0;
	mwalk w = {d, 0};
	for (int i = np - 2; i >= 0; i--) {
		const kp_node *p = path[i], *child = path[i + 1];
		if (p->kind == KP_N_COMPOUND) {
			int a = 0, after = 0;
			for (int j = 0; j < p->nkids; j++) {
				if (after)
					a = flow(&w, p->kids[j], a, 0);
				if (p->kids[j] == child)
					after = 1;
				if (w.bad)
					return 0;
				if (a)
					return 1;
			}
			continue;
		}
		if (is_loop(p)) {
			for (int j = 0; j < p->nkids; j++)
				if (p->kids[j] != child && names_d(&w, p->kids[j]))
					return 0;
			/* the loop's body block: statements of it other than child */
			continue;
		}
		if (p->kind == KP_N_IF) {
			if (names_d(&w, p->kids[0]))
				return 0;
			continue;
		}
		/* `#pragma unroll` before the loop (an attributed statement) or a
		 * label: a wrapper of the loop alone, which flows into it */
		if (p->kind == KP_N_OTHER && p->nkids == 1 && child == p->kids[0])
			continue;
		return 0; /* a switch, a lambda...: not followed */
	}
	return 1;
}

/* An enclosing loop's body names d only inside l: checked by dead_after
 * for the loop statement's direct parts; a body block is a compound whose
 * other statements run after l in the next round before reaching it. */
static int outer_rounds_clean(const kp_kernel *k, const kp_loop *l, const kp_decl *d)
{
	const kp_node *path[64];
	int np = 0;
	if (!kp_node_path(k->body, l->node, path, &np, 64))
		return 0;
	mwalk w = {d, 0};
	for (int i = 0; i < np - 1; i++) {
		if (!is_loop(path[i]))
			continue;
		/* inside this enclosing loop, d may be named only within l */
		for (int j = i + 1; j < np - 1; j++)
			for (int m = 0; m < path[j]->nkids; m++)
				if (path[j]->kids[m] != path[j + 1] &&
				    names_d(&w, path[j]->kids[m]))
					return 0;
	}
	return 1;
}

static int segment_ok(const kp_loop *l, int b, int e, const kp_decl *d)
{
	mwalk w = {d, 0};
	int a = 0;
	for (int i = b; i < e && !w.bad; i++)
		a = flow(&w, l->stmts[i], a, 0);
	return !w.bad;
}

/* Whether a plain `=` to d replaces all of its value and reads none of
 * it: a scalar; in a template, a type parameter of k (`T tmp;`, whose
 * `=` the template spells as a plain assignment) whose argument is
 * trivially copyable in every instantiation kpipe saw (kp_targ.trivial:
 * no user operator= that could read the old value).  A variable of class
 * type outside a template is assigned through its operator=, a call the
 * must-assign walk does not take for an assignment. */
static int whole_assign(const kp_kernel *k, const kp_decl *d)
{
	switch (d->ty.kind) {
	case KP_TY_BOOL:
	case KP_TY_SINT:
	case KP_TY_UINT:
	case KP_TY_FLOAT: return 1;
	case KP_TY_DEPENDENT: break;
	default: return 0;
	}
	if (!d->type || k->ninst < 1 || !k->inst_targs || !k->tparam_names || k->tparam_unusual)
		return 0;
	for (int i = 0; i < k->ntparams && i < KP_MAX_TARGS && i < 32; i++) {
		if (!(k->tparam_type >> i & 1u) || !k->tparam_names[i] ||
		    strcmp(k->tparam_names[i], d->type))
			continue;
		for (int j = 0; j < k->ninst; j++)
			if (k->inst_targs[j][i].trivial != 1)
				return 0;
		return 1;
	}
	return 0;
}

int kp_var_loop_local(const kp_file *f, const kp_kernel *k, const kp_loop *l, const kp_decl *d)
{
	if (!d || d->kind != KP_D_VAR || d->is_shared || d->is_pointer || d->is_array ||
	    d->ty.is_ref || d->ty.is_volatile || !k->body || l->load_b >= l->load_e)
		return 0;
	if (!whole_assign(k, d))
		return 0;
	if (d->begin < k->body->begin || d->end > l->node->begin)
		return 0; /* a parameter, or not declared before the loop */
	if (d->is_static)
		return 0;
	mwalk w = {d, 0};
	if (names_d(&w, l->init) || names_d(&w, l->cond) || names_d(&w, l->inc))
		return 0;
	esc_ctx e = {(kp_file *)f, k};
	if (escapes(&e, k->body, d))
		return 0;
	return dead_after(k, l, d) && outer_rounds_clean(k, l, d);
}

int kp_var_phase_private(const kp_file *f, const kp_kernel *k, const kp_loop *l, const kp_decl *d)
{
	return kp_var_loop_local(f, k, l, d) && segment_ok(l, 0, l->load_b, d) &&
	       segment_ok(l, l->load_b, l->load_e, d) && segment_ok(l, l->load_e, l->nstmts, d);
}
