/*
 * induction.c - the loop's induction variables: the header's increments
 * and the pointer or counter bumps after the loads, each with its constant
 * step (kp_loop.ind), the jumps that leave the body early, and whether
 * the condition is monotone in the tiles (kp_loop.cond_monotone).
 */
#include "analyze.h"
#include "analyze_int.h"

#include <string.h>

/* A step may only combine variables, constants and arithmetic: no loads,
 * calls or assignments. */
static int pure_expr(const kp_node *n)
{
	if (!n)
		return 1;
	switch (n->kind) {
	case KP_N_SUBSCRIPT:
	case KP_N_CALL:
	case KP_N_ASSIGNOP:
	case KP_N_LAMBDA: return 0;
	case KP_N_UNOP:
		if (n->op && (n->opk == KP_OP_DEREF || KP_OP_IS_INCDEC(n->opk)))
			return 0;
		break;
	case KP_N_BINOP:
		if (n->op && n->opk == KP_OP_ASSIGN)
			return 0;
		break;
	default: break;
	}
	for (int i = 0; i < n->nkids; i++)
		if (!pure_expr(n->kids[i]))
			return 0;
	return 1;
}

static const char *step_text_raw(actx *c, kp_node *n, int *sign);

const char *kp_step_text(actx *c, kp_node *n, int *sign)
{
	const char *st = step_text_raw(c, n, sign);
	if (st && n->nkids == 2 && !pure_expr(n->kids[1]))
		return NULL;
	if (st && kp_is_assign(n) && !pure_expr(n->kids[1]))
		return NULL;
	return st;
}

static const char *step_text_raw(actx *c, kp_node *n, int *sign)
{
	/* n is an increment expression; returns the step and sets sign */
	*sign = 1;
	if (n->kind == KP_N_UNOP && n->nkids == 1) {
		if ((n->opk == KP_OP_PRE_INC || n->opk == KP_OP_POST_INC))
			return "1";
		if ((n->opk == KP_OP_PRE_DEC || n->opk == KP_OP_POST_DEC)) {
			*sign = -1;
			return "1";
		}
		return NULL;
	}
	if (n->kind == KP_N_ASSIGNOP && n->nkids == 2) {
		if (n->opk == KP_OP_SUB_ASSIGN)
			*sign = -1;
		else if (n->opk != KP_OP_ADD_ASSIGN)
			return NULL;
		if (!n->kids[1]->in_main)
			return NULL;
		return kp_node_text(c->f, n->kids[1]);
	}
	if (kp_is_assign(n) && n->nkids == 2) {
		/* v = v + s */
		kp_node *rhs = (kp_node *)kp_node_strip(n->kids[1]);
		kp_node *lhs = (kp_node *)kp_node_strip(n->kids[0]);
		if (rhs->kind == KP_N_BINOP && rhs->nkids == 2 && lhs->kind == KP_N_DECLREF &&
		    (rhs->opk == KP_OP_ADD || rhs->opk == KP_OP_SUB)) {
			kp_node *a = (kp_node *)kp_node_strip(rhs->kids[0]);
			if (a->kind == KP_N_DECLREF && a->decl == lhs->decl &&
			    rhs->kids[1]->in_main) {
				if ((rhs->opk == KP_OP_SUB || rhs->opk == KP_OP_MINUS))
					*sign = -1;
				return kp_node_text(c->f, rhs->kids[1]);
			}
		}
	}
	return NULL;
}

kp_decl *kp_inc_var(kp_node *n)
{
	if (!n || n->nkids < 1)
		return NULL;
	kp_node *v = (kp_node *)kp_node_strip(n->kids[0]);
	if (v->kind != KP_N_DECLREF || !v->decl)
		return NULL;
	if (n->kind == KP_N_UNOP || n->kind == KP_N_ASSIGNOP || kp_is_assign(n))
		return v->decl;
	return NULL;
}

static void add_ind(actx *c, kp_decl *v, const char *step, int sign, int in_header, kp_node *stmt)
{
	kp_loop *l = c->l;
	kp_induct *ni = kp_arena_alloc(&c->f->arena, sizeof(*ni) * (size_t)(l->nind + 1));
	if (l->nind)
		memcpy(ni, l->ind, sizeof(*ni) * (size_t)l->nind);
	ni[l->nind] = (kp_induct){v, step, sign, in_header, v->is_pointer, stmt};
	l->ind = ni;
	l->nind++;
}

static void gather_header_incs(actx *c, kp_node *inc)
{
	if (!inc)
		return;
	if (inc->kind == KP_N_BINOP && inc->op && inc->opk == KP_OP_COMMA) {
		for (int i = 0; i < inc->nkids; i++)
			gather_header_incs(c, inc->kids[i]);
		return;
	}
	int sign;
	kp_decl *v = kp_inc_var(inc);
	const char *st = v ? kp_step_text(c, inc, &sign) : NULL;
	if (!v || !st) {
		kp_ana_refuse(c, inc, "kpipe-loop-shape",
			      "the loop increment '%s' is not a constant-step update of a variable",
			      kp_node_text(c->f, inc));
		return;
	}
	add_ind(c, v, st, sign, 1, inc);
}

int kp_is_ind(const kp_loop *l, const kp_decl *d)
{
	for (int i = 0; i < l->nind; i++)
		if (l->ind[i].var == d)
			return 1;
	return 0;
}

/* break/continue that leave the K-loop body, return, goto. */
static kp_node *find_jump(kp_node *n, int in_inner)
{
	if (!n)
		return NULL;
	if (n->kind == KP_N_RETURN || n->kind == KP_N_GOTO)
		return n;
	if ((n->kind == KP_N_BREAK || n->kind == KP_N_CONTINUE) && !in_inner)
		return n;
	if (n->kind == KP_N_LAMBDA)
		return NULL;
	int inner = in_inner || n->kind == KP_N_FOR || n->kind == KP_N_WHILE ||
		    n->kind == KP_N_DO || n->kind == KP_N_SWITCH;
	for (int i = 0; i < n->nkids; i++) {
		/* a break inside a switch leaves only the switch; continue does not */
		kp_node *j = find_jump(n->kids[i], inner);
		if (j)
			return j;
	}
	return NULL;
}

static int count_writes(const kp_node *n, const kp_decl *d)
{
	if (!n)
		return 0;
	int w = 0;
	if ((kp_is_assign(n) || n->kind == KP_N_ASSIGNOP ||
	     (n->kind == KP_N_UNOP && n->op && (KP_OP_IS_INCDEC(n->opk)))) &&
	    n->nkids >= 1) {
		const kp_node *t = kp_node_strip(n->kids[0]);
		if (t && t->kind == KP_N_DECLREF && t->decl == d)
			w++;
	}
	for (int i = 0; i < n->nkids; i++)
		w += count_writes(n->kids[i], d);
	return w;
}

/* Whether the next tile's loads depend on d: the load phase (addresses,
 * guards, its declarations) or the loop condition name it. */
static int loads_or_cond_read(const kp_loop *l, const kp_decl *d)
{
	for (int i = l->load_b; i < l->load_e; i++)
		if (kp_node_names_decl(l->stmts[i], d))
			return 1;
	return kp_node_names_decl(l->cond, d);
}

/* Each step is a loop invariant: no variable of it is written in the body. */
kp_node *kp_step_node(kp_node *stmt)
{
	if (!stmt || stmt->nkids != 2)
		return NULL;
	if (stmt->kind == KP_N_ASSIGNOP)
		return stmt->kids[1];
	if (kp_is_assign(stmt)) {
		kp_node *rhs = (kp_node *)kp_node_strip(stmt->kids[1]);
		return rhs && rhs->kind == KP_N_BINOP && rhs->nkids == 2 ? rhs->kids[1] : NULL;
	}
	return NULL;
}

/* Whether a subtree references an induction variable (macro bodies
 * included: the AST has their declaration references too). */
static int refs_induction(const kp_loop *l, const kp_node *n)
{
	if (!n)
		return 0;
	if (n->kind == KP_N_DECLREF && n->decl && kp_is_ind(l, n->decl))
		return 1;
	for (int i = 0; i < n->nkids; i++)
		if (refs_induction(l, n->kids[i]))
			return 1;
	return 0;
}

/* Whether the loop condition is monotone in the tiles: `v < E`, `v <= E`
 * (or `E > v` ...) with v the counter stepping up by a positive constant
 * (or `v > E` stepping down, v signed), E free of induction variables.
 * Then "tile t+d exists" is the condition advanced d times alone; any
 * other condition (`k != K`, an unsigned count-down that could wrap) is
 * chained step by step by the transforms. */
int kp_cond_monotone(actx *c)
{
	kp_loop *l = c->l;
	kp_node *cs = (kp_node *)kp_node_strip(l->cond);
	if (!cs || cs->kind != KP_N_BINOP || cs->nkids != 2 || !cs->op)
		return 0;
	int lt = cs->opk == KP_OP_LT || cs->opk == KP_OP_LE,
	    gt = cs->opk == KP_OP_GT || cs->opk == KP_OP_GE;
	if (!lt && !gt)
		return 0;
	for (int side = 0; side < 2; side++) {
		kp_node *v = (kp_node *)kp_node_strip(cs->kids[side]);
		if (!v || v->kind != KP_N_DECLREF || !v->decl || !kp_is_ind(l, v->decl))
			continue;
		const kp_induct *in = NULL;
		for (int i = 0; i < l->nind; i++)
			if (l->ind[i].var == v->decl)
				in = &l->ind[i];
		/* the other side must not move */
		if (refs_induction(l, cs->kids[1 - side]))
			return 0;
		long long step = 1;
		kp_node *sn = kp_step_node(in->stmt);
		if (sn && kp_eval(sn, c->k, c->iv, &step))
			return 0;
		if (step <= 0 || in->is_pointer)
			return 0;
		int up = in->sign > 0;
		/* counter on the left: `<` needs it to grow; on the right, mirrored */
		int grows_ok = side == 0 ? lt : gt;
		if (up != grows_ok)
			return 0;
		/* counting down, k - 2 * s must not wrap below zero: only a
		 * signed counter is sure not to (an unsigned one, uint32_t and
		 * size_t included, or one whose type depends on a template
		 * argument, is tested tile by tile: kp_tile_exists) */
		if (!up && v->decl->ty.kind != KP_TY_SINT)
			return 0;
		return 1;
	}
	return 0;
}

/* Induction variables: the header's increments and the bumps after the
 * loads; each must advance once per iteration, and nothing may leave the
 * body early. */
void kp_find_induction(actx *c)
{
	kp_loop *l = c->l;
	/* induction: header increments, then top-level bumps after the loads.
	 * A bump is what the next tile's loads or the condition read: an
	 * update the loads do not depend on (an accumulator, `acc += v;`
	 * after a per-tile partial sum) is compute, which the rewrite keeps
	 * in place, not an induction variable to advance.  The bumps that
	 * close the load phase move after the compute: those stay induction
	 * variables whatever reads them (each must advance once). */
	gather_header_incs(c, l->inc);
	for (int i = l->load_e; i < l->nstmts; i++) {
		kp_node *s = l->stmts[i];
		kp_decl *v = kp_inc_var(s);
		int sign;
		const char *st = v ? kp_step_text(c, s, &sign) : NULL;
		if (v && st && !v->is_shared && !kp_is_ind(l, v) &&
		    (i < l->bump_e || loads_or_cond_read(l, v))) {
			/* only a bump when declared outside the loop */
			if (l->node->in_main && v->in_main && v->name_off >= l->node->begin &&
			    v->name_off < l->node->end)
				continue;
			add_ind(c, v, st, sign, 0, s);
		}
	}
	for (int i = 0; i < l->nind; i++) {
		kp_induct *in = &l->ind[i];
		if (in->in_header && !strcmp(in->step, "1") && in->sign > 0)
			l->tile_count = 1;
	}

	/* control flow that leaves the body skips the buffer rotation */
	kp_node *jump = find_jump(l->body, 0);
	if (jump)
		kp_ana_refuse(
			c, jump, "kpipe-loop-shape",
			"'%s' leaves the loop body early; the rewrite rotates buffers at the end of "
			"every iteration",
			jump->kind == KP_N_RETURN  ? "return"
			: jump->kind == KP_N_GOTO  ? "goto"
			: jump->kind == KP_N_BREAK ? "break"
						   : "continue");
	/* every induction variable advances exactly once per iteration */
	for (int i = 0; i < l->nind; i++) {
		int nw = count_writes(l->body, l->ind[i].var) + (l->ind[i].in_header ? 1 : 0);
		if (nw != 1)
			kp_ana_refuse(
				c, l->ind[i].stmt, "kpipe-loop-shape",
				"'%s' is updated %d times per iteration; kpipe needs exactly one "
				"constant step",
				l->ind[i].var->name, nw);
	}
}
