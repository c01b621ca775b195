/*
 * store_order.c - rule (kpipe-memory-order): stores the prefetch could
 * overtake.
 */
#include "analyze.h"
#include "analyze_int.h"
#include "pure.h"
#include "rules.h"

#include <string.h>

/* Stores the prefetch could overtake.  The next tile is read before the
 * current tile's compute runs, so a store of the loop body into memory the
 * loads read would be missed.  A store is safe when it goes through a
 * kernel parameter that is not a load source and either it or every load
 * source is __restrict__; any other store through a pointer (a local copy,
 * a pointer passed to a function that may write through it) may alias. */
static int is_restrict(const kp_decl *d) { return d && d->ty.is_restrict; }

static int load_sources_restrict(const kp_loop *l)
{
	for (int i = 0; i < l->nloads; i++)
		if (!l->loads[i].src || l->loads[i].src->kind != KP_D_PARM ||
		    !is_restrict(l->loads[i].src))
			return 0;
	return 1;
}

static int is_load_source(const kp_loop *l, const kp_decl *d)
{
	for (int i = 0; i < l->nloads; i++)
		if (l->loads[i].src == d)
			return 1;
	return 0;
}

typedef struct {
	kp_rule_ctx *c;
	int ok_restrict;
	kp_node *bad;
	kp_decl *target;
} store_walk;

static int unsafe_target(const store_walk *w, const kp_decl *d)
{
	const kp_loop *l = w->c->l;
	if (!d || d->is_shared)
		return 0;
	if (!d->is_pointer && !d->ty.is_ref)
		return 0; /* a local variable or array of the thread */
	if (is_load_source(l, d))
		return 1;
	if (d->kind != KP_D_PARM)
		/* a local pointer: where it points is not tracked, unless it is a
		 * carve-out of shared memory or points into a variable of the
		 * thread */
		return !kp_carve_out_of(w->c->k, d) && !kp_points_into_local(w->c->f, w->c->k, d);
	return !(is_restrict(d) || w->ok_restrict);
}

static int find_unsafe_store(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	store_walk *w = ud;
	if (w->bad)
		return 0;
	kp_node *target = NULL;
	if ((kp_is_assign(n) || n->kind == KP_N_ASSIGNOP) && n->nkids == 2)
		target = n->kids[0];
	else if (n->kind == KP_N_UNOP && n->nkids == 1 && n->op && (KP_OP_IS_INCDEC(n->opk)))
		target = n->kids[0];
	if (target) {
		kp_node *root = kp_lvalue_root(target);
		/* a store through the pointer, not a change of the pointer */
		if (root && root->decl && root != kp_node_strip(target) &&
		    unsafe_target(w, root->decl)) {
			w->bad = n;
			w->target = root->decl;
		}
		return 1;
	}
	if (n->kind == KP_N_CALL && n->decl && n->decl->kind == KP_D_FUNC && n->nkids > 1) {
		for (int i = kp_call_first_arg(n); i < n->nkids; i++) {
			kp_node *a = (kp_node *)kp_node_strip(n->kids[i]);
			kp_node *root = a ? kp_lvalue_root(a) : NULL;
			if (!root || !root->decl || root->decl->is_shared)
				continue;
			/* a pointer into global memory handed to a function that may
			 * write through it */
			int pointer_arg = root->decl->is_pointer ||
					  (a->kind == KP_N_UNOP && a->op && a->opk == KP_OP_ADDR &&
					   root->decl->is_pointer);
			if (pointer_arg && kp_call_arg_writes_pointee(n, i) &&
			    unsafe_target(w, root->decl)) {
				w->bad = n;
				w->target = root->decl;
				return 0;
			}
		}
	}
	return 1;
}

static void check(kp_rule_ctx *c)
{
	kp_loop *l = c->l;
	store_walk w = {c, load_sources_restrict(l), NULL, NULL};
	kp_node_walk(l->body, NULL, find_unsafe_store, &w);
	if (!w.bad)
		return;
	if (is_load_source(l, w.target))
		kp_rule_refuse(c, w.bad, "kpipe-memory-order",
			       "the loop stores to '%s', which its tile loads also read",
			       w.target->name);
	else if (w.target->kind != KP_D_PARM)
		kp_rule_refuse(
			c, w.bad, "kpipe-memory-order",
			"the loop stores through '%s', which may point into memory the tile loads "
			"read: the prefetch of the next tile would miss the store",
			w.target->name);
	else {
		/* name the array the store may overlap: a load source that is not
		 * a __restrict__ parameter */
		const char *src = NULL;
		for (int i = 0; i < l->nloads && !src; i++)
			if (!l->loads[i].src || l->loads[i].src->kind != KP_D_PARM ||
			    !is_restrict(l->loads[i].src))
				src = l->loads[i].src ? l->loads[i].src->name : NULL;
		kp_rule_refuse(c, w.bad, "kpipe-memory-order",
			       "the loop stores through '%s', which may alias a loaded array "
			       "('%s', which the tile loads read; neither is __restrict__): the "
			       "prefetch of the next tile would run before this store; mark the "
			       "pointers __restrict__ if they never overlap (or move the store "
			       "after the loop)",
			       w.target->name, src ? src : "?");
	}
}

const kp_rule kp_rule_store_order = {
	"kpipe-memory-order",
	"the loop stores nothing the prefetch of the next tile could overtake",
	check,
};
