/*
 * dependences.c - rule: what the phases read and write.  The next tile's
 * loads must not depend on this iteration (kpipe-load-depends-on-compute,
 * kpipe-load-side-effect, kpipe-memory-order), the compute phase must not
 * carry state through shared memory (kpipe-smem-carried) or read what the
 * load phase declares (kpipe-load-decl-used-later) or bumps, and the
 * condition and the induction variables move only with the loop
 * (kpipe-loop-shape).  A tile value (analysis/tile_value.c: `partial =
 * f(jj);`, evaluated again at the top of the compute phase by the
 * rewrite) is neither a side effect of the loads nor a declaration the
 * compute phase may not read.
 */
#include "analyze.h"
#include "analyze_int.h"
#include "effects.h"
#include "liveness.h"
#include "shared_table.h"
#include "tile_value.h"
#include "rules.h"

#include <string.h>

/* Whether a variable of the load phase is given a value read from global
 * memory there (its initialiser or an assignment). */
typedef struct {
	const kp_decl *d;
	int hit;
} loaded_walk;

static int find_loaded_value(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	loaded_walk *w = ud;
	if (n->kind == KP_N_VARDECL && n->decl == w->d && n->decl->init &&
	    kp_find_global_load(n->decl->init))
		w->hit = 1;
	if (kp_is_assign(n) && n->nkids == 2) {
		const kp_node *t = kp_node_strip(n->kids[0]);
		if (t && t->kind == KP_N_DECLREF && t->decl == w->d &&
		    kp_find_global_load(n->kids[1]))
			w->hit = 1;
	}
	return !w->hit;
}

static int holds_loaded_value(const kp_loop *l, const kp_decl *d)
{
	loaded_walk w = {d, 0};
	for (int i = l->load_b; i < l->load_e && !w.hit; i++)
		kp_node_walk(l->stmts[i], NULL, find_loaded_value, &w);
	return w.hit;
}

/* Whether n loads from global memory through d (a load rooted at d; the
 * target of a plain `=` is a store, only its indices are read). */
static int reads_global(kp_node *n, const kp_decl *d)
{
	if (!n)
		return 0;
	if (kp_is_assign(n) && n->nkids == 2) {
		for (kp_node *t = n->kids[0]; t && t->kind == KP_N_SUBSCRIPT && t->nkids == 2;
		     t = t->kids[0])
			if (reads_global(t->kids[1], d))
				return 1;
		return reads_global(n->kids[1], d);
	}
	kp_node *r = kp_global_load_root(n);
	if (r && r->decl == d)
		return 1;
	for (int i = 0; i < n->nkids; i++)
		if (reads_global(n->kids[i], d))
			return 1;
	return 0;
}

/* Whether set holds an effect on the shared array d. */
static const kp_effect *on_tile(const kp_effect_set *set, const kp_decl *d)
{
	for (int i = 0; i < set->n; i++)
		if (set->v[i].loc.kind == KP_LOC_TILE && set->v[i].loc.decl == d)
			return &set->v[i];
	return NULL;
}

/* A shared array the compute phase writes and the load phase reads, as the
 * effect sets see them: through a pointer or reference into it (`const
 * float *cs = cscale;` before the loop, `cs[tx]` in a copy) or in a
 * helper, which the read and write sets by name do not.  The compute's
 * write, or NULL; *arr is the array. */
static const kp_effect *carried_by_alias(const kp_loop *l, const kp_decl **arr)
{
	const kp_effects *e = l->effects;
	if (!e)
		return NULL;
	const kp_effect_set *rd = &e->rd[KP_PH_LOAD];
	for (int i = 0; i < rd->n; i++) {
		const kp_decl *d = rd->v[i].loc.decl;
		if (rd->v[i].loc.kind != KP_LOC_TILE || !d || on_tile(&e->wr[KP_PH_LOAD], d))
			continue;
		const kp_effect *w = on_tile(&e->wr[KP_PH_COMP], d);
		if (w) {
			*arr = d;
			return w;
		}
	}
	return NULL;
}

/* The load phase must not read a shared array the loop changes: one the
 * compute phase writes is state carried into the next tile's loads
 * (kpipe-smem-carried, at the write: by name, else through the effect
 * sets), any other the loop may change otherwise; a table the loop never
 * writes is fine (kp_shared_table_fixed). */
static void loads_read_shared(kp_rule_ctx *c)
{
	const kp_rw_set *lw = &c->rw->load, *cw = &c->rw->comp;
	const kp_loop *l = c->l;
	const kp_node *n = l->node;
	for (int i = 0; i < lw->nr && !l->loads_in_helper; i++)
		if (lw->r[i]->is_shared && !kp_rw_has(lw->w, lw->nw, lw->r[i]) &&
		    !kp_shared_table_fixed(c->k, l, lw->r[i])) {
			int at = -1;
			for (int j = 0; j < cw->nw && at < 0; j++)
				if (cw->w[j] == lw->r[i])
					at = j;
			if (at >= 0)
				kp_rule_refuse(
					c, cw->wat[at], "kpipe-smem-carried",
					"the compute phase writes the shared array '%s' and the "
					"load phase reads it: state carried into the next tile's "
					"loads, which pipelining would run before this write",
					lw->r[i]->name);
			else
				kp_rule_refuse(
					c, n, "kpipe-load-depends-on-compute",
					"the load phase reads the shared array '%s', which the loop "
					"may change (written in the loop, or reached through a "
					"pointer, a reference or a call): the next tile's loads "
					"would read it early",
					lw->r[i]->name);
			return; /* one reason for the loads' shared reads */
		}
	const kp_decl *arr = NULL;
	const kp_effect *aw = carried_by_alias(l, &arr);
	if (aw)
		kp_rule_refuse(c, aw->at ? aw->at : n, "kpipe-smem-carried",
			       "the compute phase writes the shared array '%s' and the load phase "
			       "reads it (through a pointer, a reference or a helper): state "
			       "carried into the next tile's loads, which pipelining would run "
			       "before this write",
			       arr->name);
}

/* Whether a top-level statement of l's load phase is `d = ...`: the shape
 * of a tile value (analysis/tile_value.c), whose refusal says what one
 * needs. */
static int set_at_top(const kp_loop *l, const kp_decl *d)
{
	for (int i = l->load_b; i < l->load_e; i++) {
		const kp_node *s = l->stmts[i];
		if (kp_is_assign(s) && s->nkids == 2 && s->kids[0]->kind == KP_N_DECLREF &&
		    s->kids[0]->decl == d)
			return 1;
	}
	return 0;
}

/* What the phases read and write: the next tile's loads must not depend on
 * this iteration, and the compute phase must not carry state through
 * shared memory or read what the load phase declares or bumps. */
static void check(kp_rule_ctx *c)
{
	const kp_rw_set *lw = &c->rw->load, *cw = &c->rw->comp, *all = &c->rw->all;
	kp_loop *l = c->l;
	kp_node *n = l->node;
	/* shared arrays the compute phase writes (not tiles: a write to a tile
	 * is kpipe-compute-writes-tile): scratch, or state carried from one
	 * iteration's compute to the next one's.  The rewrite keeps the compute
	 * phase as written, barriers and all, and a barrier between one
	 * iteration's compute and the next one's (and after the loop where
	 * shared memory is used there: kp_find_exit_barrier), so either stays
	 * as ordered as it was; only the next tile's loads move, and they must
	 * not read such an array (below) */
	for (int i = 0; i < cw->nw; i++)
		if (cw->w[i]->is_shared && !kp_rw_has(lw->w, lw->nw, cw->w[i]))
			l->comp_writes_shared = 1;
	/* load addresses: only loop counter, bumps and invariants */
	for (int i = 0; i < lw->nr; i++) {
		kp_decl *d = lw->r[i];
		if (kp_rw_has(lw->decl, lw->nd, d) || kp_is_ind(l, d) || d->is_shared ||
		    kp_is_scratch(c->f, c->k, l, d) || kp_var_phase_private(c->f, c->k, l, d) ||
		    kp_is_tile_value(l, d))
			continue;
		if (kp_rw_has(all->w, all->nw, d)) {
			kp_rule_refuse(
				c, n, "kpipe-load-depends-on-compute",
				"the tile loads read '%s', which the loop body modifies: the next "
				"tile's addresses are not known in advance",
				d->name);
			break;
		}
	}
	loads_read_shared(c);
	for (int i = 0; i < lw->nw; i++) {
		kp_decl *d = lw->w[i];
		if (d->is_shared || kp_rw_has(lw->decl, lw->nd, d) ||
		    kp_is_scratch(c->f, c->k, l, d) || kp_var_phase_private(c->f, c->k, l, d) ||
		    kp_is_tile_value(l, d))
			continue;
		if (set_at_top(l, d))
			kp_rule_refuse(
				c, lw->wat[i], "kpipe-load-side-effect",
				"the load phase modifies '%s', which lives outside it (and is "
				"no tile value kpipe can compute again for the compute phase: "
				"%s)",
				d->name, KP_TILE_VALUE_NEEDS);
		else
			kp_rule_refuse(c, lw->wat[i], "kpipe-load-side-effect",
				       "the load phase modifies '%s', which lives outside it",
				       d->name);
		break;
	}
	/* bumps moved after the compute must not be read by it */
	for (int i = l->bump_b; i < l->bump_e; i++) {
		kp_decl *v = kp_inc_var(l->stmts[i]);
		if (v && kp_rw_has(cw->r, cw->nr, v))
			kp_rule_refuse(
				c, l->stmts[i], "kpipe-loop-shape",
				"'%s' is bumped before the barrier and read by the compute phase",
				v->name);
	}
	/* declarations of the load phase used later */
	for (int i = 0; i < lw->nd; i++)
		if (kp_rw_has(cw->r, cw->nr, lw->decl[i]) && !kp_is_tile_value(l, lw->decl[i])) {
			if (holds_loaded_value(l, lw->decl[i]))
				kp_rule_refuse(
					c, n, "kpipe-load-decl-used-later",
					"'%s' holds a value the load phase reads from global memory, and "
					"the compute phase uses it: pipelined, the load phase runs a tile "
					"ahead and the compute would see the next tile's value; read it "
					"from the tile instead",
					lw->decl[i]->name);
			else if (lw->decl[i]->is_shared || lw->decl[i]->is_array ||
				 lw->decl[i]->is_pointer)
				kp_rule_refuse(
					c, n, "kpipe-load-decl-used-later",
					"'%s' is declared in the load phase and used by the "
					"compute phase; move its declaration before the loop",
					lw->decl[i]->name);
			else
				kp_rule_refuse(
					c, n, "kpipe-load-decl-used-later",
					"'%s' is declared in the load phase and used by the "
					"compute phase, and is no tile value kpipe can compute "
					"again there (%s)",
					lw->decl[i]->name, KP_TILE_VALUE_NEEDS);
			break;
		}
	/* a global store to memory that the loads read (any store of the
	 * loop, not only the first: a store to the output may come before) */
	for (int g = 0; g < all->ngs; g++) {
		int hit = 0;
		for (int i = 0; i < l->nloads && !hit; i++)
			hit = l->loads[i].src == all->gs[g];
		/* or any load of the load phase: a copy through a temporary set
		 * under a condition has no source of its own */
		for (int i = l->load_b; i < l->load_e && !hit; i++)
			hit = reads_global(l->stmts[i], all->gs[g]);
		if (hit) {
			kp_rule_refuse(c, all->gsat[g], "kpipe-memory-order",
				       "the loop stores to '%s', which its tile loads also read",
				       all->gs[g]->name);
			break;
		}
	}
	/* the condition may only move with the induction variables */
	{
		kp_rw_set cr = {0};
		kp_rw_collect(l->cond, &cr);
		for (int i = 0; i < cr.nr; i++)
			if (!kp_is_ind(l, cr.r[i]) && kp_rw_has(all->w, all->nw, cr.r[i])) {
				kp_rule_refuse(
					c, l->cond, "kpipe-loop-shape",
					"the loop condition reads '%s', which the body modifies: the "
					"next tile's existence is not known in advance",
					cr.r[i]->name);
				break;
			}
		kp_rw_release(&cr);
	}
	/* induction variables must not be written elsewhere in the body */
	for (int i = 0; i < l->nind; i++) {
		kp_induct *in = &l->ind[i];
		int writes = 0;
		for (int j = 0; j < all->nw; j++)
			if (all->w[j] == in->var)
				writes++;
		if (!in->in_header && writes > 1)
			kp_rule_refuse(c, in->stmt, "kpipe-loop-shape",
				       "'%s' is updated more than once per iteration",
				       in->var->name);
		if (in->in_header && kp_rw_has(all->w, all->nw, in->var))
			kp_rule_refuse(c, n, "kpipe-loop-shape",
				       "the loop counter '%s' is also modified inside the body",
				       in->var->name);
	}
}

const kp_rule kp_rule_dependences = {
	"kpipe-load-depends-on-compute",
	"the next tile's loads depend on nothing the iteration changes, the compute phase carries "
	"no state through shared memory, and the loop's control moves only with the loop",
	check,
};
