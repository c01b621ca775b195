/*
 * last_tile.c - a tile read after its K-loop as the loop left it (the last
 * tile), or refilled there in ways refill.c does not prove (under a
 * condition, by a later loop, through other subscripts): last_tile.h.
 */
#include "last_tile.h"

#include "analyze.h"
#include "refill.h"

/* A return, break, continue or goto in n: a copy loop left early writes
 * part of its elements. */
static int jumps(const kp_node *n)
{
	if (!n)
		return 0;
	if (n->kind == KP_N_RETURN || n->kind == KP_N_BREAK || n->kind == KP_N_CONTINUE ||
	    n->kind == KP_N_GOTO)
		return 1;
	if (n->kind == KP_N_LAMBDA)
		return 0;
	for (int i = 0; i < n->nkids; i++)
		if (jumps(n->kids[i]))
			return 1;
	return 0;
}

/* The increment of copy loop `loop`: `c += s`, `c = c + s`, `++c` or
 * `c--` of its own counter c, s fixed. */
static int inc_fixed(const kp_kernel *k, const kp_loop *l, const kp_node *inc, const kp_decl *ctr,
		     const kp_decl *const *local, int nlocal)
{
	if (!inc)
		return 0;
	while ((inc->kind == KP_N_OTHER || inc->kind == KP_N_PAREN) && inc->nkids == 1)
		inc = inc->kids[0];
	int assign = (inc->kind == KP_N_BINOP && inc->opk == KP_OP_ASSIGN) ||
		     inc->kind == KP_N_ASSIGNOP;
	if (!assign && !(inc->kind == KP_N_UNOP && KP_OP_IS_INCDEC(inc->opk)))
		return 0;
	const kp_node *t = inc->nkids ? kp_node_strip(inc->kids[0]) : NULL;
	if (!t || t->kind != KP_N_DECLREF || t->decl != ctr)
		return 0;
	return !assign || (inc->nkids == 2 && kp_fixed_from(k, l, inc->kids[1], local, nlocal));
}

/* Copy `ld` writes the same elements in every iteration: the conditions it
 * runs under in the load phase fixed from the loop on (a guard with a
 * zero-storing else writes its element either way), its target a full subscript chain of the tile,
 * each copy loop a for loop of its own counter whose first value, bound
 * and step are fixed from the loop on and whose body neither changes the
 * counter nor leaves early, and the subscripts fixed (the copy loops'
 * counters aside). */
static int copy_same_each_time(const kp_kernel *k, const kp_loop *l, const kp_load *ld)
{
	const kp_decl *ctr[4];
	if (ld->nunder > 4 || ld->depth > 4 || !ld->lhs || ld->tile->ndims < 1)
		return 0;
	int depth = 0;
	const kp_node *r = kp_node_strip(ld->lhs);
	while (r && r->kind == KP_N_SUBSCRIPT && r->nkids == 2) {
		depth++;
		r = kp_node_strip(r->kids[0]);
	}
	if (!r || r->kind != KP_N_DECLREF || r->decl != ld->tile || depth != ld->tile->ndims)
		return 0;
	for (int i = 0; i < ld->depth; i++) {
		const kp_node *lp = ld->loops[i];
		const kp_node *vd = ld->ranges[i].var_decl;
		if (!lp || lp->kind != KP_N_FOR || !vd || !vd->decl || !lp->for_body)
			return 0;
		ctr[i] = vd->decl;
		/* first value: outer counters only; bound and step: this one too */
		if (!lp->for_init || !kp_fixed_from(k, l, lp->for_init, ctr, i) || !lp->for_cond ||
		    !kp_fixed_from(k, l, lp->for_cond, ctr, i + 1) ||
		    !inc_fixed(k, l, lp->for_inc, ctr[i], ctr, i + 1))
			return 0;
		if (kp_writes_decl_from(lp->for_body, ctr[i], 0) || jumps(lp->for_body))
			return 0;
	}
	/* a condition of its own, fixed: the same elements every time */
	for (int i = 0; i < ld->nunder; i++) {
		const kp_node *u = ld->under[i];
		if (!u || u->kind != KP_N_IF || u->nkids < 1 ||
		    !kp_fixed_from(k, l, u->kids[0], ctr, ld->depth))
			return 0;
	}
	for (const kp_node *s = kp_node_strip(ld->lhs); s && s->kind == KP_N_SUBSCRIPT;
	     s = kp_node_strip(s->kids[0]))
		if (!kp_fixed_from(k, l, s->kids[1], ctr, ld->depth))
			return 0;
	return 1;
}

typedef struct {
	const kp_loop *l;
	const kp_decl *d;
	int bad;
} store_walk;

/* A store into the tile in the loop that is not one of its copies. */
static int other_store(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	store_walk *w = ud;
	int plain;
	kp_node *t = kp_write_target(n, &plain);
	if (!t) {
		if (n->kind == KP_N_UNOP && n->opk == KP_OP_ADDR && n->nkids == 1)
			t = n->kids[0]; /* an address taken: a write kpipe cannot see */
		else
			return !w->bad;
		plain = 0;
	}
	const kp_node *r = kp_lvalue_root(t);
	if (!r || r->decl != w->d)
		return !w->bad;
	int copy = 0;
	for (int i = 0; i < w->l->nloads && !copy; i++) {
		const kp_load *ld = &w->l->loads[i];
		const kp_node *z = ld->zero_stmt;
		while (z && (z->kind == KP_N_OTHER || z->kind == KP_N_PAREN) && z->nkids == 1)
			z = z->kids[0];
		copy = ld->tile == w->d &&
		       (t == ld->lhs || (z && z->nkids && kp_write_target(z, &plain) == t));
	}
	if (!copy)
		w->bad = 1;
	return !w->bad;
}

typedef struct {
	const kp_decl *d;
	unsigned after;
	int bad;
} ref_walk;

/* A use of the tile after the loop that no edit can re-index (spelled
 * inside a macro body). */
static int uneditable_after(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	ref_walk *w = ud;
	if (n->kind == KP_N_DECLREF && n->decl == w->d && n->begin >= w->after &&
	    (!n->in_main || !n->name_editable))
		w->bad = 1;
	return !w->bad;
}

int kp_tile_last_after(const kp_kernel *k, const kp_loop *l, const kp_tile *t)
{
	const kp_decl *d = t->arr;
	if (!k->body || !l->node->in_main || l->form != KP_FORM_BOTTOM || l->bar2 < 0 ||
	    !t->loaded || t->in_loop || t->naliases || l->loads_in_helper ||
	    kp_decl_is_dynamic_smem(d) || kp_decl_is_static_carve(d) || d->ndims < 1)
		return 0; /* carve-outs: their uses after the loop are not re-indexed */
	/* nothing after the closing barrier touches the tile */
	for (int i = l->bar2 + 1; i < l->nstmts; i++)
		if (kp_node_names_decl(l->stmts[i], d))
			return 0;
	int n = 0;
	for (int i = 0; i < l->nloads; i++) {
		if (l->loads[i].tile != d)
			continue;
		if (!copy_same_each_time(k, l, &l->loads[i]))
			return 0;
		n++;
	}
	if (!n)
		return 0;
	store_walk sw = {l, d, 0};
	kp_node_walk(l->body, NULL, other_store, &sw);
	if (sw.bad)
		return 0;
	ref_walk w = {d, l->node->end, 0};
	kp_node_walk(k->body, NULL, uneditable_after, &w);
	return !w.bad;
}
