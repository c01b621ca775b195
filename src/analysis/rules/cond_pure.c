/*
 * cond_pure.c - rule (kpipe-cond-side-effect): the condition is evaluated
 * once per iteration by the original loop; the rewrite evaluates it
 * (advanced) in the prologue, the loop and the prefetch guard, so it must
 * have no side effects.
 */
#include "analyze.h"
#include "analyze_int.h"
#include "rules.h"

#include <string.h>

static const kp_node *impure_in(const kp_node *n)
{
	if (!n)
		return NULL;
	switch (n->kind) {
	case KP_N_ASSIGNOP:
	case KP_N_LAMBDA:
	case KP_N_ASM: return n;
	case KP_N_CALL:
		if (!kp_pure_call(n))
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
		const kp_node *r = impure_in(n->kids[i]);
		if (r)
			return r;
	}
	return NULL;
}

static void check(kp_rule_ctx *c)
{
	const kp_node *bad = impure_in(c->l->cond);
	if (bad && bad->kind == KP_N_CALL && bad->name)
		kp_rule_refuse(
			c, bad, "kpipe-cond-side-effect",
			"the loop condition calls '%s', which may have a side effect: the rewrite "
			"evaluates the condition more than once per iteration; compute it into a "
			"variable before the loop",
			bad->name);
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
