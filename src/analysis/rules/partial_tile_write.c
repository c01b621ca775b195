/*
 * partial_tile_write.c - rule (kpipe-partial-tile-write): a condition a
 * copy runs under, and the header of each copy loop around it, must be the
 * same in every iteration, unless the compute reads only what the guard
 * wrote (guard_cover.h).
 */
#include "analyze.h"
#include "analyze_int.h"
#include "guard_cover.h"
#include "rules.h"

#include <string.h>

/* A condition a copy runs under (kp_load.under), and the header of each
 * copy loop around it, must be the same in every iteration.  Where a
 * condition fails (or a copy loop stops early) the original leaves the
 * element as it was, the previous tile; with two buffers it would hold a
 * tile from two iterations back.  Values fixed before the loop (thread
 * and block indices, parameters, variables the loop never writes, locals
 * of the loop computed from those) leave the same elements unwritten in
 * every iteration, in both buffers alike, so the rewrite is the same. */
typedef struct {
	const kp_loop *l;
	const kp_rw_set *all;
	const kp_decl *allow[4]; /* the counters of the copy loops around */
	int nallow;
	int depth;
	const char *why; /* what the part found does */
} vary_ctx;

static const kp_node *varying_part(vary_ctx *v, const kp_node *n);

static const kp_node *varying_ref(vary_ctx *v, const kp_node *n)
{
	const kp_decl *d = n->decl;
	if (!d || (d->kind != KP_D_VAR && d->kind != KP_D_PARM))
		return NULL;
	for (int i = 0; i < v->nallow; i++)
		if (v->allow[i] == d)
			return NULL;
	if (kp_is_ind(v->l, d))
		v->why = "advances every iteration";
	else if (kp_rw_has(v->all->w, v->all->nw, d))
		v->why = "changes inside the loop";
	else if (d->is_shared || KP_TY_ANY_VOLATILE(d->ty) || d->ty.is_ref)
		v->why = "is memory other threads may write";
	else if (kp_rw_has(v->all->decl, v->all->nd, d)) {
		/* a compile-time constant declared in the loop (constexpr, or
		 * const with a value clang folds) has one value in every
		 * iteration */
		if (d->kind == KP_D_VAR && (d->is_constexpr || (d->is_const && d->has_value)))
			return NULL;
		/* a local of the loop: as fixed as what it is computed from */
		if (!d->init || v->depth > 16) {
			v->why = "is declared inside the loop";
			return n;
		}
		v->depth++;
		const kp_node *r = varying_part(v, d->init);
		v->depth--;
		if (!r)
			return NULL;
		v->why = "is computed from a value that may change from tile to tile";
		return n;
	} else
		return NULL;
	return n;
}

static const kp_node *varying_part(vary_ctx *v, const kp_node *n)
{
	if (!n)
		return NULL;
	switch (n->kind) {
	case KP_N_DECLREF: return varying_ref(v, n);
	case KP_N_MEMBER: /* threadIdx.x; p->x reads memory */
		if (n->nkids && n->kids[0]->type && strchr(n->kids[0]->type, '*')) {
			v->why = "reads memory";
			return n;
		}
		break;
	case KP_N_CALL:
		if (!kp_pure_call(n) || !strcmp(n->name, "__ldg")) {
			v->why = "is a call";
			return n;
		}
		break;
	case KP_N_SUBSCRIPT: v->why = "reads memory"; return n;
	case KP_N_UNOP:
		if (n->op && (n->opk == KP_OP_DEREF || KP_OP_IS_INCDEC(n->opk))) {
			v->why = (n->opk == KP_OP_MUL || n->opk == KP_OP_DEREF)
					 ? "reads memory"
					 : "has a side effect";
			return n;
		}
		break;
	case KP_N_BINOP:
		if (n->op && n->opk == KP_OP_ASSIGN) {
			v->why = "has a side effect";
			return n;
		}
		break;
	case KP_N_ASSIGNOP:
	case KP_N_LAMBDA:
	case KP_N_ASM:
	case KP_N_DECLSTMT:
	case KP_N_VARDECL: v->why = "is not a plain expression"; return n;
	default: break;
	}
	for (int i = 0; i < n->nkids; i++) {
		const kp_node *r = varying_part(v, n->kids[i]);
		if (r)
			return r;
	}
	return NULL;
}

/* The header of a copy loop: its first value, its condition and its step
 * fixed but for its own counter (added to v->allow).  A while or do loop
 * has no counter of its own: its condition reads what the body changes. */
static const kp_node *varying_loop(vary_ctx *v, const kp_node *lp)
{
	if (lp->kind != KP_N_FOR)
		return varying_part(v, lp->kind == KP_N_DO ? lp->kids[lp->nkids - 1] : lp->kids[0]);
	const kp_node *init = lp->for_init, *inc = lp->for_inc;
	const kp_node *first = NULL;
	if (init && init->kind == KP_N_DECLSTMT) {
		for (int i = 0; i < init->nkids; i++) {
			const kp_node *vd = init->kids[i];
			if (vd->kind != KP_N_VARDECL || !vd->decl)
				return init;
			if (v->nallow < 4)
				v->allow[v->nallow++] = vd->decl;
			if (!first)
				first = vd->decl->init;
		}
	} else if (init && kp_is_assign(init)) {
		const kp_node *t = kp_node_strip(init->kids[0]);
		if (t->kind == KP_N_DECLREF && t->decl && v->nallow < 4)
			v->allow[v->nallow++] = t->decl;
		first = init->kids[1];
	} else if (init) {
		v->why = "is not a counted loop's start";
		return init;
	}
	const kp_node *r = varying_part(v, first);
	if (!r)
		r = varying_part(v, lp->for_cond);
	if (!r && inc && (inc->kind == KP_N_ASSIGNOP || kp_is_assign(inc)))
		r = varying_part(v, inc->kids[1]);
	else if (!r && inc && inc->kind != KP_N_UNOP) {
		v->why = "is not a counted loop's step";
		r = inc;
	}
	return r;
}

/* varying_part() for guard_cover.c: ctx is a vary_ctx, copied. */
static int guard_part_varies(void *ctx, const kp_node *n)
{
	vary_ctx v = *(vary_ctx *)ctx;
	return varying_part(&v, n) != NULL;
}

static void check(kp_rule_ctx *c)
{
	const kp_rw_set *all = &c->rw->all;
	kp_loop *l = c->l;
	for (int i = 0; i < l->nloads; i++) {
		const kp_load *ld = &l->loads[i];
		if (ld->nunder > 4 || ld->depth > 4) {
			kp_rule_refuse(
				c, ld->stmt, "kpipe-partial-tile-write",
				"'%s' is written under more than 4 nested conditions or loops: "
				"kpipe does not follow them",
				ld->tile->name);
			return;
		}
		vary_ctx v = {l, all, {NULL}, 0, 0, "may change"};
		for (int d = 0; d < ld->depth; d++) {
			const kp_node *bad = varying_loop(&v, ld->loops[d]);
			if (!bad)
				continue;
			kp_rule_refuse(
				c, ld->loops[d], "kpipe-partial-tile-write",
				"'%s' is written in a copy loop whose '%s' %s: the elements it writes "
				"may change from one tile to the next, and one left out keeps the "
				"previous tile, which the other buffer does not hold",
				ld->tile->name, kp_node_text(c->f, bad), v.why);
			return;
		}
		for (int u = 0; u < ld->nunder; u++) {
			const kp_node *g = ld->under[u];
			const kp_node *bad = g->nkids ? varying_part(&v, g->kids[0]) : g;
			if (!bad)
				continue;
			/* the compute reads only what the guard wrote (guard_cover.h) */
			if (g->kind == KP_N_IF && g->nkids == 2 && !ld->under_else[u] &&
			    kp_guard_covers_reads(c->f, c->k, l, ld, g->kids[0], guard_part_varies,
						  &v))
				continue;
			/* an if/else already has its else: what kpipe reads as a
			 * guarded copy is one copy per branch */
			int has_else = g->kind == KP_N_IF && g->nkids == 3;
			kp_rule_refuse(
				c, g, "kpipe-partial-tile-write",
				"'%s' is written under the condition '%s', whose '%s' %s: where the "
				"condition fails the element keeps the previous tile, which the other "
				"buffer does not hold; %s",
				ld->tile->name, g->nkids ? kp_node_text(c->f, g->kids[0]) : "?",
				kp_node_text(c->f, bad), v.why,
				has_else ? "kpipe reads an if/else as a guarded copy when each "
					   "branch is one store to the same element, the else "
					   "storing 0 (kpipe rewrite splits an if/else of "
					   "several copies where it can; a remark says why not)"
					 : "store 0 in an else branch, or guard with values fixed "
					   "before the loop");
			return;
		}
	}
}

const kp_rule kp_rule_partial_tile_write = {
	"kpipe-partial-tile-write",
	"the conditions and copy loops around a copy leave the same elements unwritten in every "
	"iteration",
	check,
};
