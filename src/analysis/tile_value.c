/*
 * tile_value.c - values the load phase computes for its own tile and the
 * compute phase reads (kp_loop.tval_stmt): MAGMA's `partial = (jj ==
 * gridDim.x - 1 ? n % NB_X : 0);` at the top of the copies of its
 * symmetric matrix-vector kernels, a tutorial's `const int k0 = t * TILE;`
 * used again in the bounds of the math.  Pipelined, the load phase runs a
 * tile ahead and leaves the next tile's value; the compute phase needs
 * this tile's.  Where the value is a pure function of the loop counter
 * and of values the loop never changes, evaluating the statement again
 * at the top of the compute phase gives it back (transforms/render.c,
 * kp_render_compute), and the loop is no longer refused for it
 * (rules/dependences.c).
 */
#include "analyze.h"
#include "analyze_int.h"
#include "liveness.h"
#include "pure.h"
#include "tile_value.h"

typedef struct {
	const kp_file *f;
	const kp_kernel *k;
	const kp_loop *l;
} tv_ctx;

/* Whether the loop body may change d: an assignment, ++ or --, asm or a
 * lambda naming it (kp_node_changes_var), or its address taken anywhere
 * in the kernel. */
static int loop_changes(const tv_ctx *c, const kp_decl *d)
{
	return kp_node_changes_var(c->l->body, d) || kp_var_escapes(c->k, d);
}

/* A name whose value is the same in every evaluation the pipelined loop
 * makes of the statement: a template parameter or an enumerator; the
 * loop's counter, which only the for-increment moves; an earlier value
 * of this kind; a scalar parameter or local of the kernel declared
 * outside the loop that the loop never changes.  Memory (arrays,
 * pointers, __device__ variables, volatile, references) is no such
 * value. */
static int invariant_name(const tv_ctx *c, const kp_decl *d)
{
	const kp_loop *l = c->l;
	if (d->kind == KP_D_TPARAM || d->kind == KP_D_ENUM)
		return 1;
	if (d->kind != KP_D_VAR && d->kind != KP_D_PARM)
		return 0;
	if (d->is_shared || d->is_array || d->is_pointer || d->is_device_var || d->ty.is_ref ||
	    KP_TY_ANY_VOLATILE(d->ty) || d->ty.kind == KP_TY_RECORD ||
	    d->ty.kind == KP_TY_POINTER || d->ty.kind == KP_TY_ARRAY)
		return 0;
	if (kp_is_tile_value(l, d))
		return 1;
	for (int i = 0; i < l->nind; i++)
		if (l->ind[i].var == d)
			return l->ind[i].in_header && !loop_changes(c, d);
	if (d->kind == KP_D_VAR && d->begin >= l->node->begin && d->end <= l->node->end)
		return 0; /* declared in the loop: set again each iteration */
	return !loop_changes(c, d);
}

/* Whether expression n is a pure function of invariant names: literals,
 * builtin variables (threadIdx.x, gridDim.x), operators that read, casts,
 * ?: and calls of value functions (min, ceilf: pure.h); no memory read,
 * no write, no call of anything else. */
static int pure_value(const tv_ctx *c, const kp_node *n)
{
	int comp;
	if (!n)
		return 0;
	switch (n->kind) {
	case KP_N_INTLIT:
	case KP_N_FLOATLIT:
	case KP_N_SIZEOF: return 1;
	case KP_N_DECLREF: return n->decl && invariant_name(c, n->decl);
	case KP_N_MEMBER: return kp_node_builtin(c->f, n, 1, &comp) != NULL;
	case KP_N_BINOP:
		if (n->opk == KP_OP_NONE || KP_OP_IS_ASSIGN(n->opk) || n->opk == KP_OP_COMMA ||
		    n->opk == KP_OP_PTRMEM_D || n->opk == KP_OP_PTRMEM_I)
			return 0;
		break;
	case KP_N_UNOP:
		if (n->opk == KP_OP_NONE || KP_OP_IS_INCDEC(n->opk) || n->opk == KP_OP_ADDR ||
		    n->opk == KP_OP_DEREF)
			return 0;
		break;
	case KP_N_PAREN:
	case KP_N_CAST:
	case KP_N_CONDOP: break;
	case KP_N_CALL:
		if (n->sync != KP_SYNC_NONE || kp_call_pure(n) != KP_PURE_VALUE)
			return 0;
		for (int i = 1; i < n->nkids; i++)
			if (!pure_value(c, n->kids[i]))
				return 0;
		return 1;
	default: return 0;
	}
	if (!n->nkids)
		return 0;
	for (int i = 0; i < n->nkids; i++)
		if (!pure_value(c, n->kids[i]))
			return 0;
	return 1;
}

/* The variable top-level statement s sets and its value: `v = E` (v a
 * plain name) or a declaration of v alone with initialiser E. */
static const kp_decl *sets(const kp_node *s, const kp_node **val, int *declared)
{
	if (!s->in_main || s->from_macro)
		return NULL;
	if (kp_is_assign(s) && s->nkids == 2) {
		const kp_node *t = s->kids[0];
		if (t->kind == KP_N_DECLREF && t->decl) {
			*val = s->kids[1];
			*declared = 0;
			return t->decl;
		}
	}
	if (s->kind == KP_N_DECLSTMT && s->nkids == 1 && s->kids[0]->kind == KP_N_VARDECL &&
	    s->kids[0]->decl && s->kids[0]->decl->init) {
		*val = s->kids[0]->decl->init;
		*declared = 1;
		return s->kids[0]->decl;
	}
	return NULL;
}

/* Whether the statement l->stmts[i], setting d to val, gives a tile value
 * the rewrite may evaluate again in the compute phase. */
static int tile_value(const tv_ctx *c, int i, const kp_decl *d, const kp_node *val, int declared)
{
	const kp_loop *l = c->l;
	if (declared) {
		/* a scalar of the load phase, which it leaves at the loop's
		 * scope: each pipelined copy of the load phase is a block of
		 * its own, the compute phase declares it again */
		if (d->kind != KP_D_VAR || d->is_static || d->is_pointer || d->is_array ||
		    d->ty.is_ref || KP_TY_ANY_VOLATILE(d->ty) || kp_var_escapes(c->k, d) ||
		    !(KP_TY_IS_INTEGER(d->ty.kind) || d->ty.kind == KP_TY_FLOAT))
			return 0;
	} else {
		/* a local of the kernel the loop owns (dead when it ends), read
		 * nowhere before this statement in the body, nor after the
		 * compute phase (register staging's store, after the math, sets
		 * the next tile's value again) */
		if (!kp_var_loop_local(c->f, c->k, l, d))
			return 0;
		for (int j = 0; j < i; j++)
			if (kp_node_names_decl(l->stmts[j], d))
				return 0;
		for (int j = l->comp_e; j < l->nstmts; j++)
			if (kp_node_names_decl(l->stmts[j], d))
				return 0;
	}
	for (int j = 0; j < l->nstmts; j++)
		if (j != i && kp_node_changes_var(l->stmts[j], d))
			return 0;
	return pure_value(c, val);
}

/* Whether l's i-th candidate is needed: the compute phase (or what
 * follows it in the body) reads its variable, or a later candidate that
 * is needed computes from it. */
static int needed(const kp_loop *l, int i, const int *keep)
{
	const kp_decl *d = l->tval_var[i];
	for (int j = l->load_e; j < l->nstmts; j++)
		if (kp_node_names_decl(l->stmts[j], d))
			return 1;
	for (int j = i + 1; j < l->ntvals; j++)
		if (keep[j] && kp_node_names_decl(l->tval_stmt[j], d))
			return 1;
	return 0;
}

void kp_find_tile_values(actx *c)
{
	kp_loop *l = c->l;
	l->ntvals = 0;
	if (!l->body || l->load_b >= l->load_e)
		return;
	tv_ctx t = {c->f, c->k, l};
	/* the candidates, each computed from the earlier ones at most */
	for (int i = l->load_b; i < l->load_e && l->ntvals < KP_MAX_TVALS; i++) {
		const kp_node *val;
		int declared;
		const kp_decl *d = sets(l->stmts[i], &val, &declared);
		if (d && tile_value(&t, i, d, val, declared)) {
			l->tval_stmt[l->ntvals] = l->stmts[i];
			l->tval_var[l->ntvals] = d;
			l->ntvals++;
		}
	}
	/* those the compute phase needs, directly or through a later one:
	 * only these are evaluated again */
	int keep[KP_MAX_TVALS] = {0};
	for (int i = l->ntvals - 1; i >= 0; i--)
		keep[i] = needed(l, i, keep);
	int n = 0;
	for (int i = 0; i < l->ntvals; i++)
		if (keep[i]) {
			l->tval_stmt[n] = l->tval_stmt[i];
			l->tval_var[n] = l->tval_var[i];
			n++;
		}
	l->ntvals = n;
}
