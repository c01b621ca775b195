/*
 * cond_pure.c - rule (kpipe-cond-side-effect): the condition is evaluated
 * once per iteration by the original loop; the rewrite evaluates it
 * (advanced) in the prologue, the loop and the prefetch guard, so it must
 * have no side effects.  A call is proven so by the pure table (pure.h),
 * or, for a __device__ helper of the file (`t < cdiv(K, BK)`), by the
 * effect analysis: the condition's write set (effects.h, which reads the
 * helper's body and denies what it cannot follow) is empty, and no helper
 * it reaches holds a barrier, inline assembly or a call of anything but a
 * value function (a warp shuffle, a clock), which the sets do not count
 * as writes.
 */
#include "analyze.h"
#include "analyze_int.h"
#include "effects.h"
#include "rules.h"

#include <string.h>

/* The first barrier (or other synchronisation), asm statement, read of
 * volatile memory or call of no value function in n or in a helper body
 * it calls, as deep as the effect walk reads helpers
 * (KP_EFFECTS_HELPER_DEPTH); NULL when there is none.  A volatile read, a
 * warp operation (`__shfl_sync`), a clock or a fence writes no memory, so
 * the effect sets do not see it, but it is no function of its operands:
 * evaluated again, a tile ahead or under the prefetch guard, it returns
 * another value or waits for lanes that do not come.  So is any call
 * kpipe cannot read (a method, a constructor of the user's). */
static int unclean_node(const kp_node *n)
{
	if (n->kind == KP_N_ASM || n->ty.is_volatile)
		return 1;
	if (n->kind != KP_N_CALL)
		return 0;
	if (n->sync != KP_SYNC_NONE)
		return 1;
	return !(n->decl && n->decl->fn) && !kp_pure_call(n);
}

static const kp_node *unclean(const kp_node *n, int depth)
{
	return kp_find_through_helpers(n, depth, unclean_node, 1, NULL);
}

/* A call to a __device__ helper of the file with a body kpipe reads. */
static int helper(const kp_node *n)
{
	return n->kind == KP_N_CALL && n->decl && n->decl->fn && n->decl->fn->body;
}

/* A helper call that the effect analysis proved writes nothing, in a
 * condition that writes nothing. */
static int helper_pure(const kp_rule_ctx *c, const kp_node *n)
{
	const kp_effects *e = c->l->effects;
	return e && e->wr[KP_PH_COND].n == 0 && helper(n) && !unclean(n->decl->fn->body, 1);
}

/* Why helper call n is not proven free of side effects: " (it writes the
 * __device__ variable 'g')", " (it holds a barrier at line 12)", or "". */
static const char *why(kp_rule_ctx *c, const kp_node *n)
{
	if (!helper(n))
		return "";
	const kp_node *u = unclean(n->decl->fn->body, 1);
	if (u && u->kind == KP_N_CALL && u->sync == KP_SYNC_NONE && !(u->decl && u->decl->fn))
		return kp_arena_printf(&c->f->arena,
				       " (it calls '%s' at line %d, which is no function of its "
				       "operands alone)",
				       u->name && *u->name ? u->name : kp_node_text(c->f, u),
				       u->line);
	if (u)
		return kp_arena_printf(&c->f->arena, " (it %s at line %d)",
				       u->ty.is_volatile     ? "reads volatile memory"
				       : u->kind == KP_N_ASM ? "holds inline assembly"
				       : u->kind == KP_N_CALL && u->sync != KP_SYNC_NONE
					       ? "holds a barrier"
					       : "calls helpers deeper than kpipe follows",
				       u->line);
	/* the condition's first write that this call makes (another part of
	 * the condition may write too) */
	const kp_effects *e = c->l->effects;
	for (int i = 0; e && i < e->wr[KP_PH_COND].n; i++) {
		const kp_effect *w = &e->wr[KP_PH_COND].v[i];
		if (w->at == n)
			return kp_arena_printf(&c->f->arena, " (it writes %s)",
					       kp_loc_text(c->f, &w->loc));
	}
	return "";
}

static const kp_node *impure_in(const kp_rule_ctx *c, const kp_node *n)
{
	if (!n)
		return NULL;
	if (n->ty.is_volatile)
		return n; /* a volatile object: each read may see another value */
	switch (n->kind) {
	case KP_N_ASSIGNOP:
	case KP_N_LAMBDA:
	case KP_N_ASM: return n;
	case KP_N_CALL:
		if (!kp_pure_call(n) && !helper_pure(c, n))
			return n;
		break;
	case KP_N_UNOP:
		if (n->op && (KP_OP_IS_INCDEC(n->opk)))
			return n;
		break;
	case KP_N_BINOP:
		if (n->op && n->opk == KP_OP_ASSIGN)
			return n;
		break;
	default: break;
	}
	for (int i = 0; i < n->nkids; i++) {
		const kp_node *r = impure_in(c, n->kids[i]);
		if (r)
			return r;
	}
	return NULL;
}

static void check(kp_rule_ctx *c)
{
	const kp_node *bad = impure_in(c, c->l->cond);
	if (bad && bad->kind == KP_N_CALL)
		/* a call clang leaves unresolved in a template (`v.getSize(1)` on a
		 * dependent type) has no name: its text instead */
		kp_rule_refuse(
			c, bad, "kpipe-cond-side-effect",
			"the loop condition calls '%s', which may have a side effect%s: the rewrite "
			"evaluates the condition more than once per iteration; compute it into a "
			"variable before the loop",
			bad->name && *bad->name ? bad->name : kp_node_text(c->f, bad), why(c, bad));
	else if (bad && bad->ty.is_volatile)
		kp_rule_refuse(
			c, bad, "kpipe-cond-side-effect",
			"the loop condition reads volatile memory ('%s'), which may change "
			"between its evaluations: the rewrite evaluates it more than once per "
			"iteration; compute it into a variable first",
			kp_node_text(c->f, bad));
	else if (bad)
		kp_rule_refuse(
			c, bad, "kpipe-cond-side-effect",
			"the loop condition has a side effect ('%s'): the rewrite evaluates it "
			"more than once per iteration; compute it into a variable first",
			kp_node_text(c->f, bad));
}

const kp_rule kp_rule_cond_pure = {
	"kpipe-cond-side-effect",
	"the loop condition has no side effect",
	check,
};
