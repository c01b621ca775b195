/*
 * scratch_def.c - the reaching value of a C89 scratch variable at a
 * statement of a K-loop's body (scratch_def.h): the one top-level
 * assignment of its phase before the statement, its value fixed for the
 * iteration.
 */
#include "scratch_def.h"

#include "analyze.h"
#include "liveness.h"
#include "refill.h"

#include <string.h>

/* The assignment `d = e` of an expression statement, or NULL. */
static const kp_node *assign_of(const kp_node *s, const kp_decl *d)
{
	while (s && (s->kind == KP_N_OTHER || s->kind == KP_N_PAREN) && s->nkids == 1)
		s = s->kids[0];
	if (!s || s->kind != KP_N_BINOP || s->opk != KP_OP_ASSIGN || s->nkids != 2)
		return NULL;
	const kp_node *t = kp_node_strip(s->kids[0]);
	return t && t->kind == KP_N_DECLREF && t->decl == d ? s : NULL;
}

/* No read of memory in n: a subscript, a dereference, an arrow. */
static int reads_no_memory(const kp_node *n)
{
	if (!n)
		return 1;
	if (n->kind == KP_N_SUBSCRIPT || (n->kind == KP_N_UNOP && n->opk == KP_OP_DEREF))
		return 0;
	if (n->kind == KP_N_MEMBER && n->nkids && n->kids[0]->type && strchr(n->kids[0]->type, '*'))
		return 0;
	for (int i = 0; i < n->nkids; i++)
		if (!reads_no_memory(n->kids[i]))
			return 0;
	return 1;
}

int kp_stmt_index_of(const kp_loop *l, const kp_node *n)
{
	if (!n)
		return -1;
	for (int i = 0; i < l->nstmts; i++)
		if (l->stmts[i] && l->stmts[i]->begin <= n->begin && n->end <= l->stmts[i]->end)
			return i;
	return -1;
}

const kp_node *kp_scratch_value(const kp_file *f, const kp_kernel *k, const kp_loop *l,
				const kp_decl *d, int stmt)
{
	if (!d || d->kind != KP_D_VAR || stmt < 0 || stmt >= l->nstmts ||
	    !kp_var_phase_private(f, k, l, d))
		return NULL;
	/* the phase of stmt */
	int b = 0;
	if (stmt >= l->load_e)
		b = l->load_e;
	else if (stmt >= l->load_b)
		b = l->load_b;
	if (kp_writes_decl_from(l->stmts[stmt], d, l->stmts[stmt]->begin))
		return NULL;
	for (int s = stmt - 1; s >= b; s--) {
		const kp_node *a = assign_of(l->stmts[s], d);
		if (a) {
			/* the counters of the loop's header change only between
			 * iterations */
			const kp_decl *ctr[8];
			int nc = 0;
			for (int i = 0; i < l->nind && nc < 8; i++)
				if (l->ind[i].in_header && !l->ind[i].is_pointer)
					ctr[nc++] = l->ind[i].var;
			if (kp_node_names_decl(a->kids[1], d) || !reads_no_memory(a->kids[1]) ||
			    !kp_fixed_from(k, l, a->kids[1], ctr, nc))
				return NULL;
			return a->kids[1];
		}
		if (kp_writes_decl_from(l->stmts[s], d, l->stmts[s]->begin))
			return NULL;
	}
	return NULL;
}
