/*
 * tile_escapes.c - rule (kpipe-tile-escapes): every use of a loaded tile
 * must be one the rewrite re-indexes: inside the loop, not in a lambda
 * body, the tile declared in the kernel; and the load phase only writes
 * it (kpipe-load-depends-on-compute).
 */
#include "analyze.h"
#include "analyze_int.h"
#include "earlier_use.h"
#include "rules.h"

#include <string.h>

/* Every use of a loaded tile must be one the rewrite re-indexes: inside the
 * loop, spelled in the source, not in a lambda body; the tile declared in
 * the kernel; the load phase only writes it. */
typedef struct {
	const kp_loop *l;
	const kp_decl *tile;
	kp_node *outside;
	kp_node *skip[4]; /* the tile in the initialisers of its aliases */
	int nskip;
} tile_walk;

static int find_tile_outside(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	tile_walk *w = ud;
	if (w->outside)
		return 0;
	if (n->kind == KP_N_DECLREF && n->decl == w->tile && n->in_main &&
	    !kp_node_in(n, w->l->node->begin, w->l->node->end) && n->begin < w->l->node->begin) {
		for (int i = 0; i < w->nskip; i++)
			if (w->skip[i] == n)
				return 1;
		w->outside = n;
	}
	return 1;
}

typedef struct {
	const kp_file *f;
	const kp_loop *l;
	const kp_decl *tile;
	kp_node *lambda;
} lambda_walk;

static int find_tile_lambda(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	lambda_walk *w = ud;
	if (!w->lambda && n->kind == KP_N_LAMBDA && n->in_main &&
	    kp_mentions_ident(w->f->src, n->begin, n->end, w->tile->name))
		w->lambda = n;
	return !w->lambda;
}

static int load_store_root(const kp_loop *l, const kp_node *n)
{
	for (int i = 0; i < l->nloads; i++) {
		const kp_load *ld = &l->loads[i];
		if (ld->lhs && kp_lvalue_root(ld->lhs) == n)
			return 1;
		if (ld->zero_stmt && ld->zero_stmt->nkids &&
		    kp_lvalue_root(ld->zero_stmt->kids[0]) == n)
			return 1;
	}
	return 0;
}

typedef struct {
	const kp_loop *l;
	kp_node *read;
} self_walk;

static int find_tile_self_read(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	self_walk *w = ud;
	if (w->read)
		return 0;
	if (n->kind == KP_N_DECLREF && n->decl && n->decl->is_shared) {
		for (int i = 0; i < w->l->ntiles; i++)
			if (w->l->tiles[i].arr == n->decl && w->l->tiles[i].loaded &&
			    !load_store_root(w->l, n))
				w->read = n;
	}
	return 1;
}

static void check(kp_rule_ctx *c)
{
	kp_loop *l = c->l;
	kp_kernel *k = c->k;
	for (int i = 0; i < l->ntiles; i++) {
		const kp_tile *t = &l->tiles[i];
		if (!t->loaded)
			continue;
		kp_decl *d = t->arr;
		int in_kernel = d->in_main && d->begin >= k->begin && d->end <= k->end;
		if (!in_kernel)
			kp_rule_refuse(
				c, l->node, "kpipe-tile-escapes",
				"'%s' is declared outside the kernel: other functions can reach it "
				"and would see one buffer; declare it inside the kernel",
				d->name);
		tile_walk tw = {l, d, NULL, {0}, 0};
		if (k->body && l->node->in_main) {
			/* the tile in its aliases' initialisers (tile_ptr.c) is no use
			 * before the loop */
			for (int j = 0; j < t->naliases && tw.nskip < 4; j++) {
				kp_node *ref = NULL;
				if (kp_alias_target(t->alias[j]->init, &ref) == d)
					tw.skip[tw.nskip++] = ref;
			}
			kp_node_walk(k->body, NULL, find_tile_outside, &tw);
		}
		const kp_node *around = tw.outside ? kp_loop_around(k, l, tw.outside) : NULL;
		if (around)
			kp_rule_refuse(
				c, tw.outside, "kpipe-tile-escapes",
				"'%s' is used before the loop, in the loop around it at line %d: "
				"what that loop leaves in it for the K-loop would be in one "
				"buffer of the doubled tile",
				d->name, around->line);
		else if (tw.outside) {
			/* a first K-loop, a refill or the other branch before it:
			 * earlier_use.h */
			const kp_node *at = NULL;
			const char *why = kp_tile_earlier_problem(c->f, k, l, t, c->iv, c->o, &at);
			if (!why)
				l->tiles[i].used_before = 1;
			else
				kp_rule_refuse(c, at ? at : tw.outside, "kpipe-tile-escapes",
					       "'%s' %s", d->name, why);
		}
		lambda_walk lw = {c->f, l, d, NULL};
		if (k->body)
			kp_node_walk(k->body, NULL, find_tile_lambda, &lw);
		if (lw.lambda)
			kp_rule_refuse(
				c, lw.lambda, "kpipe-tile-escapes",
				"a lambda uses '%s': kpipe cannot re-index uses inside a lambda body",
				d->name);
	}
	self_walk sw = {l, NULL};
	for (int i = l->load_b;
	     i < l->load_e && !sw.read && !l->loads_in_helper && !l->loads_carve_out; i++)
		kp_node_walk(l->stmts[i], NULL, find_tile_self_read, &sw);
	if (sw.read)
		kp_rule_refuse(
			c, sw.read, "kpipe-load-depends-on-compute",
			"the load phase reads the tile '%s' it refills: the prefetch would read the "
			"other buffer",
			sw.read->decl->name);
}

const kp_rule kp_rule_tile_escapes = {
	"kpipe-tile-escapes",
	"every use of a loaded tile is inside the loop, spelled in the source and outside a lambda",
	check,
};
